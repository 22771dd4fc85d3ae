//! WebGPU's default limits (8 storage buffers per shader stage, 128 MiB per
//! binding), which a browser grants without asking: a flock without behaviours
//! steps under them with the same bits as on the full device. With obstacles,
//! entities and predators a pass binds 10 (what Chrome offers on desktops);
//! a flock that needs more than the device has is refused with the numbers,
//! before anything is built.

use crate::behaviours::predators;
use crate::common::{gpu, world};
use glam::{Vec2, Vec3};
use murmuration::{Attractor, Boundary, Obstacle, Relation, SpeciesId, SpeciesParams, World};
use murmuration_gpu::{Gpu, GpuError, GpuFlock, GpuVector};

/// A device with WebGPU's default limits, but `storage` storage buffers per stage.
fn limited(storage: u32) -> Option<Gpu> {
    gpu()?;
    let limits = wgpu::Limits {
        max_storage_buffers_per_shader_stage: storage,
        ..wgpu::Limits::default()
    };
    Some(Gpu::with_limits(limits).expect("a device with WebGPU's default limits"))
}

fn webgpu_defaults() -> Option<Gpu> {
    limited(8)
}

fn digest_after<V: GpuVector>(gpu: &Gpu, w: &World<V>, steps: u64) -> u64 {
    let mut flock = GpuFlock::new(gpu, w).expect("upload");
    flock.step_n(steps).expect("steps");
    let mut out = w.clone();
    flock.read_into(&mut out).expect("read back");
    out.digest()
}

#[test]
fn flocks_without_behaviours_step_under_webgpu_default_limits_with_the_same_bits() {
    let Some(full) = gpu() else { return };
    let Some(small) = webgpu_defaults() else {
        return;
    };
    let species = |roll_rate: f32| {
        let a = SpeciesParams {
            fov_degrees: 270.0,
            jitter: 0.05,
            ..SpeciesParams::default()
        };
        let b = SpeciesParams {
            topological_neighbours: 7,
            smoothing: 0.3,
            roll_rate,
            ..SpeciesParams::benchmark()
        };
        vec![a, b]
    };
    let mut w2 = world::<Vec2>(2000, 16.0, Boundary::Wrap, species(0.0));
    w2.set_relation(SpeciesId::FIRST, SpeciesId::new(1), Relation::Separate)
        .unwrap();
    let w3 = world::<Vec3>(2000, 12.0, Boundary::Reflect, species(2.0));
    let bench = World::<Vec2>::benchmark(3000).unwrap();
    assert_eq!(
        digest_after(&small, &w2, 20),
        digest_after(&full, &w2, 20),
        "2D"
    );
    assert_eq!(
        digest_after(&small, &w3, 20),
        digest_after(&full, &w3, 20),
        "3D"
    );
    assert_eq!(
        digest_after(&small, &bench, 20),
        digest_after(&full, &bench, 20),
        "benchmark"
    );
}

#[test]
fn a_flock_that_needs_more_storage_buffers_than_the_device_has_is_refused_with_the_numbers() {
    let Some(small) = webgpu_defaults() else {
        return;
    };
    let mut w = world::<Vec2>(500, 16.0, Boundary::Wrap, vec![SpeciesParams::default()]);
    w.add_obstacle(Obstacle::Sphere {
        center: Vec2::splat(8.0),
        radius: 1.5,
    })
    .unwrap();
    match GpuFlock::new(&small, &w) {
        Err(GpuError::Capability {
            what, needed, has, ..
        }) => {
            assert_eq!(what, "storage buffers per shader stage");
            assert_eq!(has, 8);
            assert_eq!(needed, 10);
        }
        Err(e) => panic!("expected a capability error, got {e}"),
        Ok(_) => panic!("a flock with obstacles was built on a device with 8 storage buffers"),
    }
}

#[test]
fn obstacles_entities_and_a_hunt_step_with_ten_storage_buffers_with_the_same_bits() {
    let Some(full) = gpu() else { return };
    let Some(ten) = limited(10) else { return };
    let mut w = predators::<Vec2>(30.0, Boundary::Wrap, 0.4, true);
    w.add_obstacle(Obstacle::Sphere {
        center: Vec2::new(10.0, 12.0),
        radius: 2.0,
    })
    .unwrap();
    w.add_attractor(Attractor::new(Vec2::new(20.0, 15.0), 1.0, 8.0))
        .unwrap();
    assert_eq!(digest_after(&ten, &w, 30), digest_after(&full, &w, 30));
}
