//! # Murmuration render — drawing the flock with wgpu
//!
//! Every boid in one instanced draw (a dart in 2D, a lit bird in 3D banked into
//! its turns), coloured by species (or its scenario's `look`), speed or
//! neighbour count, with optional trails and a glow (bloom) pass; obstacles,
//! attractors, pulses, paths and zones (with their live counts) drawn over them.
//! The same [`Renderer`] draws into a window's surface (the sandbox) or an
//! offscreen texture ([`Offscreen`]: PNG, GIF, frame sequences).
//!
//! The files, in the order a frame goes through them: `settings.rs` (what a
//! picture shows), `camera.rs` (the 2D view and the 3D orbit fitted to the box),
//! `scene.rs` (`Scene::update`: one 36-byte instance per boid in storage order,
//! coloured by the species' `look` or the palette, banked in 3D from the last
//! steering; trails by boid id; `Scene::update_from_gpu` takes only the overlays
//! from the world), `periodic.rs` (each boid, trail and overlay drawn at its
//! image nearest the view), `overlay.rs` (the entities as lines and fills through
//! the public `Pen`, which the game's `look.rs` draws its levels with too),
//! `vertex.rs` (the layouts), `storage.rs` (the vertex shader reading a GPU
//! flock's buffers, on the device it runs on), `renderer.rs` (the 4×
//! multisampled HDR scene pass, `shaders/scene.wgsl`), `glow.rs` (the post
//! passes, `shaders/post.wgsl`), `offscreen.rs` (read back as RGBA8) and
//! `timing.rs` (GPU timestamps per pass, off by default). Golden images
//! (`tests/golden/`) are compared within a tolerance on lavapipe.
//!
//! ```no_run
//! use murmuration_render::{Camera, Offscreen, RenderSettings, Scene, Trails};
//! # use murmuration::{Boundary, Spawn, SpeciesId, SpeciesParams, World2, WorldConfig};
//! # let config = WorldConfig::new(glam::Vec2::splat(40.0), Boundary::Wrap);
//! # let mut world = World2::new(config, vec![SpeciesParams::default()]).unwrap();
//! # world.spawn(Spawn::new(SpeciesId::FIRST, 500).speed(3.0)).unwrap();
//! let mut scene = Scene::new();
//! let settings = RenderSettings::default();
//! scene.update(&world, &settings, &mut Trails::default());
//! let (lo, hi) = scene.bounds;
//! let camera = Camera::fit(2, lo, hi, 16.0 / 9.0);
//! let mut out = Offscreen::new(1280, 720)?;
//! let rgba: Vec<u8> = out.render(&scene, &camera, &settings)?;
//! # Ok::<(), murmuration_render::RenderError>(())
//! ```

mod camera;
mod glow;
mod offscreen;
mod overlay;
mod periodic;
mod renderer;
mod scene;
mod settings;
mod storage;
mod timing;
mod vertex;

pub use camera::Camera;
pub use offscreen::{OFFSCREEN_FORMAT, Offscreen, RenderError};
pub use overlay::{Pen, inspection};
pub use periodic::{nearest_image, period};
pub use renderer::Renderer;
pub use scene::{GpuBoids, PALETTE, Scene, Trails, heat};
pub use settings::{ColourMode, RenderSettings};
pub use timing::{FrameTimes, PassTimes};
pub use vertex::{BoidInstance, ColourVertex};
pub use wgpu;
