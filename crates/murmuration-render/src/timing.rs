//! Where a frame's time goes: GPU timestamps around the scene pass, the glow
//! passes and the composite ([`PassTimer`]), and the host's part of an
//! offscreen frame ([`FrameTimes`]). A million boids drawn from a GPU flock's
//! buffers took 115 ms a frame on an H200 (issue 47); these say which part.

use std::sync::Arc;
use std::sync::atomic::{AtomicU8, Ordering};

/// Query pairs (begin, end): the scene pass, the glow passes, the composite.
const PAIRS: u32 = 3;
/// Bytes between the pairs' resolved values (wgpu's resolve alignment).
const STRIDE: u64 = wgpu::QUERY_RESOLVE_BUFFER_ALIGNMENT;

/// The timed parts of a frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Part {
    /// The multisampled scene pass.
    Scene = 0,
    /// From the bright pass's start to the last blur's end.
    Glow = 1,
    /// The composite into the target.
    Composite = 2,
}

/// GPU time of one frame's passes, ms (device timestamps).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct PassTimes {
    /// The scene pass: overlay, boids, multisample resolve.
    pub scene_ms: f64,
    /// The glow's bright pass and blurs (0 with the glow off).
    pub glow_ms: f64,
    /// The composite (tone map and glow) into the target.
    pub composite_ms: f64,
}

/// The host's view of one offscreen frame, ms, and its passes' GPU times.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FrameTimes {
    /// Uploading, encoding and submitting the frame (a software device such
    /// as lavapipe runs the passes inside the submit, so they count here).
    pub encode_ms: f64,
    /// Waiting for the device to finish all it was given (steps queued
    /// before the frame too), the copy into the read-back buffer included.
    pub wait_ms: f64,
    /// Copying the mapped rows into the picture.
    pub copy_ms: f64,
    /// The passes' GPU times, where the device has timestamps and they are on
    /// ([`crate::Offscreen::time_passes`]).
    pub passes: Option<PassTimes>,
}

/// Timestamp queries around a frame's passes, resolved into a buffer the host
/// maps after the frame.
pub(crate) struct PassTimer {
    set: wgpu::QuerySet,
    resolve: wgpu::Buffer,
    staging: wgpu::Buffer,
    /// Nanoseconds per tick.
    period: f64,
    /// Whether the last frame drew the glow (else its pair was not written).
    glow: bool,
    /// The copy's mapping: [`IDLE`], [`PENDING`], [`MAPPED`] or [`FAILED`].
    state: Arc<AtomicU8>,
}

/// No mapping asked for.
const IDLE: u8 = 0;
/// Asked for, not yet done.
const PENDING: u8 = 1;
/// Mapped: readable, to be unmapped.
const MAPPED: u8 = 2;
/// The mapping failed (the buffer is not mapped).
const FAILED: u8 = 3;

impl PassTimer {
    /// A timer, or `None` where the device lacks timestamp queries.
    pub(crate) fn new(device: &wgpu::Device, queue: &wgpu::Queue) -> Option<Self> {
        if !device.features().contains(wgpu::Features::TIMESTAMP_QUERY) {
            return None;
        }
        let set = device.create_query_set(&wgpu::QuerySetDescriptor {
            label: Some("render pass timestamps"),
            ty: wgpu::QueryType::Timestamp,
            count: 2 * PAIRS,
        });
        let size = STRIDE * PAIRS as u64;
        let buffer = |label, usage| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size,
                usage,
                mapped_at_creation: false,
            })
        };
        let resolve = buffer(
            "render pass timestamp resolve",
            wgpu::BufferUsages::QUERY_RESOLVE | wgpu::BufferUsages::COPY_SRC,
        );
        let staging = buffer(
            "render pass timestamp read-back",
            wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        );
        Some(Self {
            set,
            resolve,
            staging,
            period: queue.get_timestamp_period() as f64,
            glow: false,
            state: Arc::new(AtomicU8::new(IDLE)),
        })
    }

    /// The writes of a pass that begins (`begin`) and/or ends (`end`) `part`;
    /// `None` for a pass inside a part.
    pub(crate) fn writes(
        &self,
        part: Part,
        begin: bool,
        end: bool,
    ) -> Option<wgpu::RenderPassTimestampWrites<'_>> {
        if !begin && !end {
            return None;
        }
        let at = 2 * part as u32;
        Some(wgpu::RenderPassTimestampWrites {
            query_set: &self.set,
            beginning_of_pass_write_index: begin.then_some(at),
            end_of_pass_write_index: end.then_some(at + 1),
        })
    }

    /// Resolves the frame's written pairs and copies them for the host.
    pub(crate) fn resolve(&mut self, encoder: &mut wgpu::CommandEncoder, glow: bool) {
        self.glow = glow;
        for part in [Part::Scene, Part::Glow, Part::Composite] {
            if part == Part::Glow && !glow {
                continue;
            }
            let at = 2 * part as u32;
            encoder.resolve_query_set(&self.set, at..at + 2, &self.resolve, STRIDE * part as u64);
        }
        encoder.copy_buffer_to_buffer(&self.resolve, 0, &self.staging, 0, STRIDE * PAIRS as u64);
    }

    /// Asks for the copy to be mapped; [`PassTimer::read`] once the device is idle.
    pub(crate) fn map(&self) {
        self.state.store(PENDING, Ordering::Release);
        let state = Arc::clone(&self.state);
        self.staging
            .slice(..)
            .map_async(wgpu::MapMode::Read, move |done| {
                let now = if done.is_ok() { MAPPED } else { FAILED };
                state.store(now, Ordering::Release);
            });
    }

    /// The times of the frame mapped by [`PassTimer::map`], after the device
    /// went idle (`None` if the mapping failed or is not done); unmaps the
    /// copy (or cancels its mapping) either way, so the next frame may copy
    /// into it.
    pub(crate) fn read(&self) -> Option<PassTimes> {
        let state = self.state.swap(IDLE, Ordering::AcqRel);
        if state == IDLE || state == FAILED {
            return None;
        }
        let mapped = (state == MAPPED).then(|| self.staging.slice(..).get_mapped_range().ok());
        let ms = mapped.flatten().map(|view| {
            let ticks = |part: Part| {
                let at = (STRIDE * part as u64) as usize;
                let word = |k: usize| {
                    let b = &view[at + 8 * k..at + 8 * k + 8];
                    u64::from_le_bytes(b.try_into().expect("eight bytes"))
                };
                word(1).saturating_sub(word(0)) as f64 * self.period * 1e-6
            };
            PassTimes {
                scene_ms: ticks(Part::Scene),
                glow_ms: if self.glow { ticks(Part::Glow) } else { 0.0 },
                composite_ms: ticks(Part::Composite),
            }
        });
        self.staging.unmap();
        ms
    }
}
