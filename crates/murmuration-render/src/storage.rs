//! Drawing boids straight from a GPU flock's storage buffers: the vertex shader
//! reads each instance's position, velocity, steering and species by
//! `instance_index`, so nothing goes through the CPU (`vs_boid_storage` in
//! `shaders/scene.wgsl`).

use crate::scene::GpuBoids;
use bytemuck::{Pod, Zeroable};

/// The shader's `Storage` uniform.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct StorageUniform {
    stride: u32,
    colour_mode: u32,
    species_count: u32,
    /// Gravity for banking, units/s² (0: level).
    gravity: f32,
}

/// The storage-reading boid pipeline and its small per-frame buffers.
pub(crate) struct StoragePipeline {
    pub(crate) pipeline: wgpu::RenderPipeline,
    layout: wgpu::BindGroupLayout,
    uniform: wgpu::Buffer,
    species: Option<wgpu::Buffer>,
}

/// What the pipeline shares with the instanced boid pipeline.
pub(crate) struct PipelineParts<'a> {
    pub(crate) module: &'a wgpu::ShaderModule,
    pub(crate) globals_layout: &'a wgpu::BindGroupLayout,
    pub(crate) mesh_layout: wgpu::VertexBufferLayout<'a>,
    pub(crate) depth: wgpu::DepthStencilState,
    pub(crate) multisample: wgpu::MultisampleState,
    pub(crate) target: wgpu::TextureFormat,
}

impl StoragePipeline {
    pub(crate) fn new(device: &wgpu::Device, parts: PipelineParts) -> Self {
        let storage = |binding| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::VERTEX,
            ty: wgpu::BindingType::Buffer {
                ty: wgpu::BufferBindingType::Storage { read_only: true },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        };
        let layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render storage boids layout"),
            entries: &[
                wgpu::BindGroupLayoutEntry {
                    binding: 0,
                    visibility: wgpu::ShaderStages::VERTEX,
                    ty: wgpu::BindingType::Buffer {
                        ty: wgpu::BufferBindingType::Uniform,
                        has_dynamic_offset: false,
                        min_binding_size: None,
                    },
                    count: None,
                },
                storage(1),
                storage(2),
                storage(3),
                storage(4),
                storage(5),
            ],
        });
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render storage boids pipeline layout"),
            bind_group_layouts: &[Some(parts.globals_layout), Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("render storage boids pipeline"),
            layout: Some(&pipeline_layout),
            vertex: wgpu::VertexState {
                module: parts.module,
                entry_point: Some("vs_boid_storage"),
                compilation_options: Default::default(),
                buffers: &[Some(parts.mesh_layout)],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(parts.depth),
            multisample: parts.multisample,
            fragment: Some(wgpu::FragmentState {
                module: parts.module,
                entry_point: Some("fs_colour"),
                compilation_options: Default::default(),
                targets: &[Some(parts.target.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let uniform = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render storage boids uniform"),
            size: std::mem::size_of::<StorageUniform>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        Self {
            pipeline,
            layout,
            uniform,
            species: None,
        }
    }

    /// Writes this frame's colours and returns the bind group over the flock's
    /// buffers (`None` for an empty flock).
    pub(crate) fn prepare(
        &mut self,
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        boids: &GpuBoids,
    ) -> Option<wgpu::BindGroup> {
        if boids.buffers.len == 0 || boids.species.is_empty() {
            return None;
        }
        let u = StorageUniform {
            stride: boids.buffers.stride(),
            colour_mode: boids.by_speed as u32,
            species_count: boids.species.len() as u32,
            gravity: boids.gravity,
        };
        queue.write_buffer(&self.uniform, 0, bytemuck::bytes_of(&u));
        let bytes: &[u8] = bytemuck::cast_slice(&boids.species);
        if self
            .species
            .as_ref()
            .is_none_or(|b| b.size() < bytes.len() as u64)
        {
            self.species = Some(device.create_buffer(&wgpu::BufferDescriptor {
                label: Some("render storage boids species"),
                size: (bytes.len() as u64).next_power_of_two().max(256),
                usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            }));
        }
        let species = self.species.as_ref()?;
        queue.write_buffer(species, 0, bytes);
        let b = &boids.buffers;
        Some(device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render storage boids group"),
            layout: &self.layout,
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: self.uniform.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: b.positions.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 2,
                    resource: b.velocities.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 3,
                    resource: b.meta.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 4,
                    resource: species.as_entire_binding(),
                },
                wgpu::BindGroupEntry {
                    binding: 5,
                    resource: b.steering.as_entire_binding(),
                },
            ],
        }))
    }
}
