//! The wgpu renderer: a multisampled HDR scene pass (overlay fills, lines, then
//! every boid in one instanced draw), an optional glow (bright pass and separable
//! blur at half resolution), and a tone-mapping composite into the output view.

use crate::camera::Camera;
use crate::scene::Scene;
use crate::settings::RenderSettings;
use crate::storage::{PipelineParts, StoragePipeline};
use crate::vertex::{BoidInstance, ColourVertex};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use wgpu::util::DeviceExt;

/// Format of the HDR scene target.
const HDR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
/// Depth format (3D boids occlude each other).
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Samples per pixel of the scene pass.
const MSAA: u32 = 4;

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Globals {
    view_proj: [[f32; 4]; 4],
    light: [f32; 4],
    params: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct Post {
    a: [f32; 4],
    b: [f32; 4],
}

#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct MeshVertex {
    local: [f32; 3],
    normal: [f32; 3],
}

/// A dart: two triangles, nose forward (+x).
fn dart() -> Vec<MeshVertex> {
    let n = [0.0, 0.0, 1.0];
    let v = |x: f32, y: f32| MeshVertex {
        local: [x, y, 0.0],
        normal: n,
    };
    vec![
        v(0.6, 0.0),
        v(-0.4, 0.34),
        v(-0.18, 0.0),
        v(0.6, 0.0),
        v(-0.18, 0.0),
        v(-0.4, -0.34),
    ]
}

/// A six-sided cone, nose forward, with flat-shaded faces.
fn cone() -> Vec<MeshVertex> {
    let tip = Vec3::new(0.6, 0.0, 0.0);
    let ring: Vec<Vec3> = (0..6)
        .map(|k| {
            let a = k as f32 / 6.0 * std::f32::consts::TAU;
            Vec3::new(-0.4, 0.24 * a.cos(), 0.24 * a.sin())
        })
        .collect();
    let back = Vec3::new(-0.4, 0.0, 0.0);
    let mut out = Vec::new();
    let mut tri = |a: Vec3, b: Vec3, c: Vec3| {
        let n = (b - a).cross(c - a).normalize_or_zero();
        for p in [a, b, c] {
            out.push(MeshVertex {
                local: p.to_array(),
                normal: n.to_array(),
            });
        }
    };
    for k in 0..6 {
        let (a, b) = (ring[k], ring[(k + 1) % 6]);
        tri(tip, b, a);
        tri(back, a, b);
    }
    out
}

/// Textures that depend on the output size.
struct Targets {
    width: u32,
    height: u32,
    msaa: wgpu::TextureView,
    hdr: wgpu::TextureView,
    depth: wgpu::TextureView,
    half_a: wgpu::TextureView,
    half_b: wgpu::TextureView,
    bright_group: wgpu::BindGroup,
    blur_h_group: wgpu::BindGroup,
    blur_v_group: wgpu::BindGroup,
    composite_group: wgpu::BindGroup,
}

/// Draws [`Scene`]s into any view of the output format it was made for.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    format: wgpu::TextureFormat,
    globals: wgpu::Buffer,
    globals_group: wgpu::BindGroup,
    post_bright: wgpu::Buffer,
    post_h: wgpu::Buffer,
    post_v: wgpu::Buffer,
    post_composite: wgpu::Buffer,
    post_layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    boids_pipeline: wgpu::RenderPipeline,
    storage: StoragePipeline,
    lines_pipeline: wgpu::RenderPipeline,
    fills_pipeline: wgpu::RenderPipeline,
    bright_pipeline: wgpu::RenderPipeline,
    blur_pipeline: wgpu::RenderPipeline,
    composite_pipeline: wgpu::RenderPipeline,
    dart: wgpu::Buffer,
    cone: wgpu::Buffer,
    instances: Option<wgpu::Buffer>,
    lines: Option<wgpu::Buffer>,
    fills: Option<wgpu::Buffer>,
    targets: Option<Targets>,
}

fn texture(
    device: &wgpu::Device,
    label: &str,
    (w, h): (u32, u32),
    format: wgpu::TextureFormat,
    samples: u32,
) -> wgpu::TextureView {
    device
        .create_texture(&wgpu::TextureDescriptor {
            label: Some(label),
            size: wgpu::Extent3d {
                width: w.max(1),
                height: h.max(1),
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: samples,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::TEXTURE_BINDING,
            view_formats: &[],
        })
        .create_view(&Default::default())
}

/// Uploads `data` into `slot`, growing the buffer to the next power of two.
fn upload<T: Pod>(
    device: &wgpu::Device,
    queue: &wgpu::Queue,
    slot: &mut Option<wgpu::Buffer>,
    label: &str,
    data: &[T],
) {
    let bytes: &[u8] = bytemuck::cast_slice(data);
    if bytes.is_empty() {
        return;
    }
    let need = bytes.len() as u64;
    if slot.as_ref().is_none_or(|b| b.size() < need) {
        *slot = Some(device.create_buffer(&wgpu::BufferDescriptor {
            label: Some(label),
            size: need.next_power_of_two().max(256),
            usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        }));
    }
    if let Some(b) = slot {
        queue.write_buffer(b, 0, bytes);
    }
}

impl Renderer {
    /// A renderer drawing into views of `format` (an `…Srgb` format gets correct
    /// gamma from the hardware).
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, format: wgpu::TextureFormat) -> Self {
        let scene_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("murmuration scene shader"),
            source: wgpu::ShaderSource::Wgsl(include_str!("shaders/scene.wgsl").into()),
        });
        let post_module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("murmuration post shader"),
            source: wgpu::ShaderSource::Wgsl(include_str!("shaders/post.wgsl").into()),
        });
        let globals = device.create_buffer(&wgpu::BufferDescriptor {
            label: Some("render globals"),
            size: std::mem::size_of::<Globals>() as u64,
            usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        let globals_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some("render globals layout"),
            entries: &[wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::VERTEX,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            }],
        });
        let globals_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: Some("render globals group"),
            layout: &globals_layout,
            entries: &[wgpu::BindGroupEntry {
                binding: 0,
                resource: globals.as_entire_binding(),
            }],
        });
        let scene_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render scene layout"),
            bind_group_layouts: &[Some(&globals_layout)],
            immediate_size: 0,
        });
        let depth = |write: bool| wgpu::DepthStencilState {
            format: DEPTH,
            depth_write_enabled: Some(write),
            depth_compare: Some(wgpu::CompareFunction::LessEqual),
            stencil: Default::default(),
            bias: Default::default(),
        };
        let blend_target = |format| {
            Some(wgpu::ColorTargetState {
                format,
                blend: Some(wgpu::BlendState::ALPHA_BLENDING),
                write_mask: wgpu::ColorWrites::ALL,
            })
        };
        let msaa = wgpu::MultisampleState {
            count: MSAA,
            ..Default::default()
        };
        let colour_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<ColourVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4],
        };
        let colour_pipeline = |label, topology, write_depth| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&scene_layout),
                vertex: wgpu::VertexState {
                    module: &scene_module,
                    entry_point: Some("vs_colour"),
                    compilation_options: Default::default(),
                    buffers: &[Some(colour_layout.clone())],
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    ..Default::default()
                },
                depth_stencil: Some(depth(write_depth)),
                multisample: msaa,
                fragment: Some(wgpu::FragmentState {
                    module: &scene_module,
                    entry_point: Some("fs_colour"),
                    compilation_options: Default::default(),
                    targets: &[blend_target(HDR)],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let lines_pipeline = colour_pipeline(
            "render lines pipeline",
            wgpu::PrimitiveTopology::LineList,
            false,
        );
        let fills_pipeline = colour_pipeline(
            "render fills pipeline",
            wgpu::PrimitiveTopology::TriangleList,
            false,
        );
        let mesh_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<MeshVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3],
        };
        let storage = StoragePipeline::new(
            device,
            PipelineParts {
                module: &scene_module,
                globals_layout: &globals_layout,
                mesh_layout: mesh_layout.clone(),
                depth: depth(true),
                multisample: msaa,
                target: HDR,
            },
        );
        let boids_pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some("render boids pipeline"),
            layout: Some(&scene_layout),
            vertex: wgpu::VertexState {
                module: &scene_module,
                entry_point: Some("vs_boid"),
                compilation_options: Default::default(),
                buffers: &[
                    Some(mesh_layout),
                    Some(wgpu::VertexBufferLayout {
                        array_stride: std::mem::size_of::<BoidInstance>() as u64,
                        step_mode: wgpu::VertexStepMode::Instance,
                        attributes: &wgpu::vertex_attr_array![2 => Float32x3, 3 => Float32x3, 4 => Unorm8x4],
                    }),
                ],
            },
            primitive: wgpu::PrimitiveState::default(),
            depth_stencil: Some(depth(true)),
            multisample: msaa,
            fragment: Some(wgpu::FragmentState {
                module: &scene_module,
                entry_point: Some("fs_colour"),
                compilation_options: Default::default(),
                targets: &[Some(HDR.into())],
            }),
            multiview_mask: None,
            cache: None,
        });
        let (post_layout, [bright_pipeline, blur_pipeline, composite_pipeline]) =
            post_pipelines(device, &post_module, format);
        let post_buffer = |label| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: std::mem::size_of::<Post>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        let mesh = |label, data: &[MeshVertex]| {
            device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
                label: Some(label),
                contents: bytemuck::cast_slice(data),
                usage: wgpu::BufferUsages::VERTEX,
            })
        };
        Self {
            device: device.clone(),
            queue: queue.clone(),
            format,
            globals,
            globals_group,
            post_bright: post_buffer("render post bright"),
            post_h: post_buffer("render post blur h"),
            post_v: post_buffer("render post blur v"),
            post_composite: post_buffer("render post composite"),
            post_layout,
            sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("render sampler"),
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                address_mode_u: wgpu::AddressMode::ClampToEdge,
                address_mode_v: wgpu::AddressMode::ClampToEdge,
                ..Default::default()
            }),
            boids_pipeline,
            storage,
            lines_pipeline,
            fills_pipeline,
            bright_pipeline,
            blur_pipeline,
            composite_pipeline,
            dart: mesh("render dart mesh", &dart()),
            cone: mesh("render cone mesh", &cone()),
            instances: None,
            lines: None,
            fills: None,
            targets: None,
        }
    }

    /// The output format it draws into.
    pub fn format(&self) -> wgpu::TextureFormat {
        self.format
    }

    fn ensure_targets(&mut self, width: u32, height: u32) {
        if self
            .targets
            .as_ref()
            .is_none_or(|t| (t.width, t.height) != (width, height))
        {
            let d = &self.device;
            let full = (width, height);
            let half = (width.div_ceil(2), height.div_ceil(2));
            let msaa = texture(d, "render msaa target", full, HDR, MSAA);
            let hdr = texture(d, "render hdr target", full, HDR, 1);
            let depth = texture(d, "render depth", full, DEPTH, MSAA);
            let half_a = texture(d, "render glow a", half, HDR, 1);
            let half_b = texture(d, "render glow b", half, HDR, 1);
            let group = |label,
                         uniform: &wgpu::Buffer,
                         src: &wgpu::TextureView,
                         glow: &wgpu::TextureView| {
                d.create_bind_group(&wgpu::BindGroupDescriptor {
                    label: Some(label),
                    layout: &self.post_layout,
                    entries: &[
                        wgpu::BindGroupEntry {
                            binding: 0,
                            resource: uniform.as_entire_binding(),
                        },
                        wgpu::BindGroupEntry {
                            binding: 1,
                            resource: wgpu::BindingResource::TextureView(src),
                        },
                        wgpu::BindGroupEntry {
                            binding: 2,
                            resource: wgpu::BindingResource::TextureView(glow),
                        },
                        wgpu::BindGroupEntry {
                            binding: 3,
                            resource: wgpu::BindingResource::Sampler(&self.sampler),
                        },
                    ],
                })
            };
            let bright_group = group("render bright group", &self.post_bright, &hdr, &half_b);
            // The second texture is unused by the blur; it must not be the pass's target.
            let blur_h_group = group("render blur h group", &self.post_h, &half_a, &hdr);
            let blur_v_group = group("render blur v group", &self.post_v, &half_b, &hdr);
            let composite_group = group(
                "render composite group",
                &self.post_composite,
                &hdr,
                &half_a,
            );
            self.targets = Some(Targets {
                width,
                height,
                msaa,
                hdr,
                depth,
                half_a,
                half_b,
                bright_group,
                blur_h_group,
                blur_v_group,
                composite_group,
            });
        }
    }

    /// Draws `scene` seen by `camera` into `view` (of this renderer's format and
    /// `width` × `height` pixels), and submits the work.
    pub fn render(
        &mut self,
        scene: &Scene,
        camera: &Camera,
        settings: &RenderSettings,
        view: &wgpu::TextureView,
        width: u32,
        height: u32,
    ) {
        let full = [0.0, 0.0, width as f32, height as f32];
        self.render_in(scene, camera, settings, view, (width, height), full);
    }

    /// [`Renderer::render`] with the world drawn inside `viewport` (x, y, width,
    /// height in pixels; a window's area beside a panel); the rest shows the
    /// background.
    pub fn render_in(
        &mut self,
        scene: &Scene,
        camera: &Camera,
        settings: &RenderSettings,
        view: &wgpu::TextureView,
        (width, height): (u32, u32),
        viewport: [f32; 4],
    ) {
        let vp = [
            viewport[0].clamp(0.0, width as f32 - 1.0),
            viewport[1].clamp(0.0, height as f32 - 1.0),
            viewport[2].max(1.0),
            viewport[3].max(1.0),
        ];
        let vp = [
            vp[0],
            vp[1],
            vp[2].min(width as f32 - vp[0]),
            vp[3].min(height as f32 - vp[1]),
        ];
        let aspect = vp[2] / vp[3];
        let light = Vec3::new(0.4, 0.8, 0.45).normalize();
        let g = Globals {
            view_proj: camera.view_proj(aspect).to_cols_array_2d(),
            light: light.extend(0.0).to_array(),
            params: [
                scene.boid_size,
                1.35,
                if scene.dim == 3 { 1.0 } else { 0.0 },
                0.0,
            ],
        };
        self.queue
            .write_buffer(&self.globals, 0, bytemuck::bytes_of(&g));
        let (hw, hh) = (width.div_ceil(2) as f32, height.div_ceil(2) as f32);
        let post = |a: [f32; 4]| Post {
            a,
            b: [
                settings.exposure,
                if settings.bloom { 1.0 } else { 0.0 },
                0.0,
                0.0,
            ],
        };
        let strength = settings.bloom_strength.clamp(0.0, 4.0);
        self.queue.write_buffer(
            &self.post_bright,
            0,
            bytemuck::bytes_of(&post([0.0, 0.0, 0.6, strength])),
        );
        self.queue.write_buffer(
            &self.post_h,
            0,
            bytemuck::bytes_of(&post([1.0 / hw, 0.0, 0.6, strength])),
        );
        self.queue.write_buffer(
            &self.post_v,
            0,
            bytemuck::bytes_of(&post([0.0, 1.0 / hh, 0.6, strength])),
        );
        self.queue.write_buffer(
            &self.post_composite,
            0,
            bytemuck::bytes_of(&post([0.0, 0.0, 0.6, strength])),
        );
        let (d, q) = (self.device.clone(), self.queue.clone());
        upload(
            &d,
            &q,
            &mut self.instances,
            "render boid instances",
            &scene.boids,
        );
        upload(
            &d,
            &q,
            &mut self.lines,
            "render overlay lines",
            &scene.lines,
        );
        upload(
            &d,
            &q,
            &mut self.fills,
            "render overlay fills",
            &scene.fills,
        );
        let storage_group = scene
            .gpu
            .as_ref()
            .and_then(|b| self.storage.prepare(&d, &q, b));
        let bg = settings.background;
        let mut encoder = d.create_command_encoder(&wgpu::CommandEncoderDescriptor {
            label: Some("render frame encoder"),
        });
        let mesh_len = if scene.dim == 3 {
            cone().len()
        } else {
            dart().len()
        } as u32;
        self.ensure_targets(width, height);
        let t = self.targets.as_ref().expect("targets were just built");
        {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some("render scene pass"),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &t.msaa,
                    depth_slice: None,
                    resolve_target: Some(&t.hdr),
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color {
                            r: bg[0] as f64,
                            g: bg[1] as f64,
                            b: bg[2] as f64,
                            a: 1.0,
                        }),
                        store: wgpu::StoreOp::Discard,
                    },
                })],
                depth_stencil_attachment: Some(wgpu::RenderPassDepthStencilAttachment {
                    view: &t.depth,
                    depth_ops: Some(wgpu::Operations {
                        load: wgpu::LoadOp::Clear(1.0),
                        store: wgpu::StoreOp::Discard,
                    }),
                    stencil_ops: None,
                }),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_bind_group(0, &self.globals_group, &[]);
            pass.set_viewport(vp[0], vp[1], vp[2], vp[3], 0.0, 1.0);
            if let (Some(b), n @ 1..) = (&self.fills, scene.fills.len() as u32) {
                pass.set_pipeline(&self.fills_pipeline);
                pass.set_vertex_buffer(0, b.slice(..));
                pass.draw(0..n, 0..1);
            }
            if let (Some(b), n @ 1..) = (&self.lines, scene.lines.len() as u32) {
                pass.set_pipeline(&self.lines_pipeline);
                pass.set_vertex_buffer(0, b.slice(..));
                pass.draw(0..n, 0..1);
            }
            if let (Some(b), n @ 1..) = (&self.instances, scene.boids.len() as u32) {
                pass.set_pipeline(&self.boids_pipeline);
                let mesh = if scene.dim == 3 {
                    &self.cone
                } else {
                    &self.dart
                };
                pass.set_vertex_buffer(0, mesh.slice(..));
                pass.set_vertex_buffer(1, b.slice(..));
                pass.draw(0..mesh_len, 0..n);
            }
            if let (Some(group), Some(b)) = (&storage_group, &scene.gpu) {
                pass.set_pipeline(&self.storage.pipeline);
                pass.set_bind_group(1, group, &[]);
                let mesh = if scene.dim == 3 {
                    &self.cone
                } else {
                    &self.dart
                };
                pass.set_vertex_buffer(0, mesh.slice(..));
                pass.draw(0..mesh_len, 0..b.buffers.len);
            }
        }
        let post_pass = |encoder: &mut wgpu::CommandEncoder,
                         label: &str,
                         target: &wgpu::TextureView,
                         pipeline: &wgpu::RenderPipeline,
                         group: &wgpu::BindGroup| {
            let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: Some(label),
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: target,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: None,
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(pipeline);
            pass.set_bind_group(0, group, &[]);
            pass.draw(0..3, 0..1);
        };
        if settings.bloom {
            post_pass(
                &mut encoder,
                "render bright pass",
                &t.half_a,
                &self.bright_pipeline,
                &t.bright_group,
            );
            for _ in 0..2 {
                post_pass(
                    &mut encoder,
                    "render blur h pass",
                    &t.half_b,
                    &self.blur_pipeline,
                    &t.blur_h_group,
                );
                post_pass(
                    &mut encoder,
                    "render blur v pass",
                    &t.half_a,
                    &self.blur_pipeline,
                    &t.blur_v_group,
                );
            }
        }
        post_pass(
            &mut encoder,
            "render composite pass",
            view,
            &self.composite_pipeline,
            &t.composite_group,
        );
        self.queue.submit([encoder.finish()]);
    }
}

/// The post-processing passes' bind group layout (settings, two textures, a
/// sampler) and their pipelines over a full-screen triangle: the bright pass and
/// the blur into HDR targets, the tone-mapping composite into `format`.
fn post_pipelines(
    device: &wgpu::Device,
    post_module: &wgpu::ShaderModule,
    format: wgpu::TextureFormat,
) -> (wgpu::BindGroupLayout, [wgpu::RenderPipeline; 3]) {
    let tex_entry = |binding| wgpu::BindGroupLayoutEntry {
        binding,
        visibility: wgpu::ShaderStages::FRAGMENT,
        ty: wgpu::BindingType::Texture {
            sample_type: wgpu::TextureSampleType::Float { filterable: true },
            view_dimension: wgpu::TextureViewDimension::D2,
            multisampled: false,
        },
        count: None,
    };
    let post_layout = device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
        label: Some("render post layout"),
        entries: &[
            wgpu::BindGroupLayoutEntry {
                binding: 0,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Buffer {
                    ty: wgpu::BufferBindingType::Uniform,
                    has_dynamic_offset: false,
                    min_binding_size: None,
                },
                count: None,
            },
            tex_entry(1),
            tex_entry(2),
            wgpu::BindGroupLayoutEntry {
                binding: 3,
                visibility: wgpu::ShaderStages::FRAGMENT,
                ty: wgpu::BindingType::Sampler(wgpu::SamplerBindingType::Filtering),
                count: None,
            },
        ],
    });
    let post_pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
        label: Some("render post pipeline layout"),
        bind_group_layouts: &[Some(&post_layout)],
        immediate_size: 0,
    });
    let post_pipeline = |label, entry, format: wgpu::TextureFormat| {
        device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
            label: Some(label),
            layout: Some(&post_pipeline_layout),
            vertex: wgpu::VertexState {
                module: post_module,
                entry_point: Some("vs_full"),
                compilation_options: Default::default(),
                buffers: &[],
            },
            primitive: Default::default(),
            depth_stencil: None,
            multisample: Default::default(),
            fragment: Some(wgpu::FragmentState {
                module: post_module,
                entry_point: Some(entry),
                compilation_options: Default::default(),
                targets: &[Some(format.into())],
            }),
            multiview_mask: None,
            cache: None,
        })
    };
    let bright = post_pipeline("render bright pipeline", "fs_bright", HDR);
    let blur = post_pipeline("render blur pipeline", "fs_blur", HDR);
    let composite = post_pipeline("render composite pipeline", "fs_composite", format);
    (post_layout, [bright, blur, composite])
}
