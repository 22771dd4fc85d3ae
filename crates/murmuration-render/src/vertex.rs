//! The vertex and instance layouts the render pipelines read: one instance per
//! boid, and the coloured vertices of overlay lines and fills.

use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use murmuration::Vector;

/// One boid as the GPU draws it (36 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct BoidInstance {
    /// Position, units (z = 0 in 2D).
    pub position: [f32; 3],
    /// Unit heading (zero when the boid is still).
    pub heading: [f32; 3],
    /// Colour, linear RGBA, 8 bits each.
    pub colour: [u8; 4],
    /// Body length as a multiple of the scene's boid size (its species' look).
    pub size: f32,
    /// Roll about the heading, radians (3D): the body's up axis turns by this
    /// toward its side axis (`scene.wgsl`), so it points along the wings' lift.
    pub bank: f32,
}

/// A vertex of an overlay line or fill (28 bytes).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Pod, Zeroable)]
pub struct ColourVertex {
    /// Position, units.
    pub position: [f32; 3],
    /// Linear RGBA (values above 1 glow).
    pub colour: [f32; 4],
}

/// A vector of either dimension as a `Vec3` (z = 0 in 2D).
pub fn to3<V: Vector>(v: V) -> Vec3 {
    Vec3::from_array(v.to_array3())
}
