//! What differs between 2D and 3D on the GPU: vector layout and the WGSL twin
//! (`shaders/dim2.wgsl` beside `shaders/dim3.wgsl`).

use glam::{Vec2, Vec3};

/// A [`murmuration::Vector`] the GPU backend can store: its packed layout in storage buffers
/// (WGSL `vec2<f32>`: 8 bytes, `vec3<f32>`: 16 bytes) and its WGSL definitions.
pub trait GpuVector: murmuration::Dimension {
    /// The WGSL definitions for this dimension.
    const WGSL: &'static str;
    /// Storage layout of one vector.
    type Packed: bytemuck::Pod;
    /// Packs for upload.
    fn pack(self) -> Self::Packed;
    /// Unpacks after read-back.
    fn unpack(p: Self::Packed) -> Self;
}

impl GpuVector for Vec2 {
    const WGSL: &'static str = include_str!("shaders/dim2.wgsl");
    type Packed = [f32; 2];
    fn pack(self) -> [f32; 2] {
        self.to_array()
    }
    fn unpack(p: [f32; 2]) -> Self {
        Vec2::from_array(p)
    }
}

impl GpuVector for Vec3 {
    const WGSL: &'static str = include_str!("shaders/dim3.wgsl");
    type Packed = [f32; 4];
    fn pack(self) -> [f32; 4] {
        self.extend(0.0).to_array()
    }
    fn unpack(p: [f32; 4]) -> Self {
        Vec3::new(p[0], p[1], p[2])
    }
}
