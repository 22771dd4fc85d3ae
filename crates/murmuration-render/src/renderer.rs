//! The wgpu renderer: a multisampled HDR scene pass (overlay fills, lines, then
//! every boid in one instanced draw), then the post passes of [`crate::glow`]
//! (an optional glow and the tone-mapping composite into the output view).

use crate::camera::Camera;
use crate::glow::{Glow, GlowGroups, GlowTextures};
use crate::scene::Scene;
use crate::settings::RenderSettings;
use crate::storage::{PipelineParts, StoragePipeline};
use crate::timing::{Part, PassTimer};
use crate::vertex::{BoidInstance, ColourVertex};
use bytemuck::{Pod, Zeroable};
use glam::Vec3;
use wgpu::util::DeviceExt;

/// Format of the HDR scene target.
const HDR: wgpu::TextureFormat = wgpu::TextureFormat::Rgba16Float;
/// Depth format (3D boids occlude each other).
const DEPTH: wgpu::TextureFormat = wgpu::TextureFormat::Depth32Float;
/// Samples per pixel of the scene pass ([`Renderer::new`]).
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

/// A bird in 3D, nose forward (+x), flat-shaded: a slim six-sided body and two
/// swept wings in its side–up plane, so a banked boid shows its roll (wide from
/// above or below, a thin line edge-on, as starlings flicker in a murmuration).
fn bird() -> Vec<MeshVertex> {
    let tip = Vec3::new(0.6, 0.0, 0.0);
    let ring: Vec<Vec3> = (0..6)
        .map(|k| {
            let a = k as f32 / 6.0 * std::f32::consts::TAU;
            Vec3::new(-0.4, 0.12 * a.cos(), 0.08 * a.sin())
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
    // Wings with a slight dihedral; drawn without culling, lit from either side
    // by their upper normal.
    for side in [1.0f32, -1.0] {
        let lead = Vec3::new(0.2, 0.0, 0.0);
        let wingtip = Vec3::new(-0.25, 0.62 * side, 0.06);
        let trail = Vec3::new(-0.3, 0.0, 0.0);
        if side > 0.0 {
            tri(lead, wingtip, trail);
        } else {
            tri(lead, trail, wingtip);
        }
    }
    out
}

/// Textures that depend on the output size.
struct Targets {
    width: u32,
    height: u32,
    /// The multisampled scene target, resolved into `hdr` (none at one sample:
    /// the scene is drawn into `hdr` itself).
    msaa: Option<wgpu::TextureView>,
    hdr: wgpu::TextureView,
    depth: wgpu::TextureView,
    half_a: wgpu::TextureView,
    half_b: wgpu::TextureView,
    glow: GlowGroups,
}

impl Targets {
    fn glow_textures(&self) -> GlowTextures<'_> {
        GlowTextures {
            hdr: &self.hdr,
            half_a: &self.half_a,
            half_b: &self.half_b,
        }
    }
}

/// The scene pass's pipelines (made once).
struct ScenePipelines {
    boids: wgpu::RenderPipeline,
    storage: StoragePipeline,
    lines: wgpu::RenderPipeline,
    fills: wgpu::RenderPipeline,
}

/// Draws [`Scene`]s into any view of the output format it was made for.
pub struct Renderer {
    device: wgpu::Device,
    queue: wgpu::Queue,
    format: wgpu::TextureFormat,
    /// Samples per pixel of the scene pass: 4, or 1.
    samples: u32,
    globals: wgpu::Buffer,
    globals_group: wgpu::BindGroup,
    pipelines: ScenePipelines,
    glow: Glow,
    dart: wgpu::Buffer,
    bird: wgpu::Buffer,
    instances: Option<wgpu::Buffer>,
    lines: Option<wgpu::Buffer>,
    fills: Option<wgpu::Buffer>,
    targets: Option<Targets>,
    /// Timestamps around the passes, when asked for (`time_passes`).
    timer: Option<PassTimer>,
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
    /// gamma from the hardware), with 4× multisampled edges.
    pub fn new(device: &wgpu::Device, queue: &wgpu::Queue, format: wgpu::TextureFormat) -> Self {
        Self::with_samples(device, queue, format, MSAA)
    }

    /// [`Renderer::new`] with `samples` per pixel in the scene pass: 4
    /// (smooth edges), or 1 (anything but 4), for a software rasteriser, which
    /// pays for every sample.
    pub fn with_samples(
        device: &wgpu::Device,
        queue: &wgpu::Queue,
        format: wgpu::TextureFormat,
        samples: u32,
    ) -> Self {
        let samples = if samples == MSAA { MSAA } else { 1 };
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
            samples,
            globals,
            globals_group,
            pipelines: ScenePipelines::new(device, &globals_layout, samples),
            glow: Glow::new(device, HDR, format),
            dart: mesh("render dart mesh", &dart()),
            bird: mesh("render bird mesh", &bird()),
            instances: None,
            lines: None,
            fills: None,
            targets: None,
            timer: None,
        }
    }

    /// Times each frame's passes with GPU timestamps (`on`), where the device
    /// has them; returns whether they are timed. Crate-wide only: the times
    /// are read after the frame's read-back ([`crate::Offscreen::time_passes`]).
    pub(crate) fn time_passes(&mut self, on: bool) -> bool {
        self.timer = if on {
            PassTimer::new(&self.device, &self.queue)
        } else {
            None
        };
        self.timer.is_some()
    }

    /// The pass timer, while passes are timed.
    pub(crate) fn timer(&self) -> Option<&PassTimer> {
        self.timer.as_ref()
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
            let samples = self.samples;
            let msaa = (samples > 1).then(|| texture(d, "render msaa target", full, HDR, samples));
            let hdr = texture(d, "render hdr target", full, HDR, 1);
            let depth = texture(d, "render depth", full, DEPTH, samples);
            let half_a = texture(d, "render glow a", half, HDR, 1);
            let half_b = texture(d, "render glow b", half, HDR, 1);
            let glow = self.glow.groups(
                d,
                &GlowTextures {
                    hdr: &hdr,
                    half_a: &half_a,
                    half_b: &half_b,
                },
            );
            self.targets = Some(Targets {
                width,
                height,
                msaa,
                hdr,
                depth,
                half_a,
                half_b,
                glow,
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
        let vp = viewport_within(viewport, (width, height));
        self.write_globals(scene, camera, vp[2] / vp[3]);
        self.glow.write(&self.queue, settings, (width, height));
        let storage_group = self.upload(scene);
        let mut encoder = self
            .device
            .create_command_encoder(&wgpu::CommandEncoderDescriptor {
                label: Some("render frame encoder"),
            });
        self.ensure_targets(width, height);
        let t = self.targets.as_ref().expect("targets were just built");
        self.scene_pass(
            &mut encoder,
            t,
            scene,
            storage_group.as_ref(),
            vp,
            settings.background,
        );
        let textures = t.glow_textures();
        self.glow.encode(
            &mut encoder,
            (&textures, &t.glow),
            view,
            settings.bloom,
            self.timer.as_ref(),
        );
        if let Some(timer) = &mut self.timer {
            timer.resolve(&mut encoder, settings.bloom);
        }
        self.queue.submit([encoder.finish()]);
    }

    /// The camera, light and boid size for the scene shader.
    fn write_globals(&self, scene: &Scene, camera: &Camera, aspect: f32) {
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
    }

    /// Uploads the scene's instances and overlay vertices; the bind group of the
    /// GPU flock's buffers when the boids are drawn from them.
    fn upload(&mut self, scene: &Scene) -> Option<wgpu::BindGroup> {
        let (d, q) = (&self.device, &self.queue);
        upload(
            d,
            q,
            &mut self.instances,
            "render boid instances",
            &scene.boids,
        );
        upload(d, q, &mut self.lines, "render overlay lines", &scene.lines);
        upload(d, q, &mut self.fills, "render overlay fills", &scene.fills);
        scene
            .gpu
            .as_ref()
            .and_then(|b| self.pipelines.storage.prepare(d, q, b))
    }

    /// The multisampled HDR pass: overlay fills, lines, then the boids (from
    /// the uploaded instances or the GPU flock's buffers), resolved into `t.hdr`.
    fn scene_pass(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        t: &Targets,
        scene: &Scene,
        storage_group: Option<&wgpu::BindGroup>,
        vp: [f32; 4],
        bg: [f32; 3],
    ) {
        let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: Some("render scene pass"),
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: t.msaa.as_ref().unwrap_or(&t.hdr),
                depth_slice: None,
                resolve_target: t.msaa.as_ref().map(|_| &t.hdr),
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(wgpu::Color {
                        r: bg[0] as f64,
                        g: bg[1] as f64,
                        b: bg[2] as f64,
                        a: 1.0,
                    }),
                    // The samples are resolved into `hdr`; at one sample
                    // `hdr` is the target itself.
                    store: if t.msaa.is_some() {
                        wgpu::StoreOp::Discard
                    } else {
                        wgpu::StoreOp::Store
                    },
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
            timestamp_writes: self
                .timer
                .as_ref()
                .and_then(|t| t.writes(Part::Scene, true, true)),
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_bind_group(0, &self.globals_group, &[]);
        pass.set_viewport(vp[0], vp[1], vp[2], vp[3], 0.0, 1.0);
        let p = &self.pipelines;
        if let (Some(b), n @ 1..) = (&self.fills, scene.fills.len() as u32) {
            pass.set_pipeline(&p.fills);
            pass.set_vertex_buffer(0, b.slice(..));
            pass.draw(0..n, 0..1);
        }
        if let (Some(b), n @ 1..) = (&self.lines, scene.lines.len() as u32) {
            pass.set_pipeline(&p.lines);
            pass.set_vertex_buffer(0, b.slice(..));
            pass.draw(0..n, 0..1);
        }
        let (mesh, mesh_len) = if scene.dim == 3 {
            (&self.bird, bird().len() as u32)
        } else {
            (&self.dart, dart().len() as u32)
        };
        if let (Some(b), n @ 1..) = (&self.instances, scene.boids.len() as u32) {
            pass.set_pipeline(&p.boids);
            pass.set_vertex_buffer(0, mesh.slice(..));
            pass.set_vertex_buffer(1, b.slice(..));
            pass.draw(0..mesh_len, 0..n);
        }
        if let (Some(group), Some(b)) = (storage_group, &scene.gpu) {
            pass.set_pipeline(&p.storage.pipeline);
            pass.set_bind_group(1, group, &[]);
            pass.set_vertex_buffer(0, mesh.slice(..));
            pass.draw(0..mesh_len, 0..b.buffers.len);
        }
    }
}

/// `viewport` (x, y, width, height, pixels) clamped to a `width` × `height`
/// output, at least one pixel wide and high.
fn viewport_within(viewport: [f32; 4], (width, height): (u32, u32)) -> [f32; 4] {
    let x = viewport[0].clamp(0.0, width as f32 - 1.0);
    let y = viewport[1].clamp(0.0, height as f32 - 1.0);
    [
        x,
        y,
        viewport[2].max(1.0).min(width as f32 - x),
        viewport[3].max(1.0).min(height as f32 - y),
    ]
}

/// The scene's depth test (nearer or equal passes), writing depth or not.
fn depth_state(write: bool) -> wgpu::DepthStencilState {
    wgpu::DepthStencilState {
        format: DEPTH,
        depth_write_enabled: Some(write),
        depth_compare: Some(wgpu::CompareFunction::LessEqual),
        stencil: Default::default(),
        bias: Default::default(),
    }
}

impl ScenePipelines {
    /// The pipelines of `shaders/scene.wgsl`, drawing into the multisampled
    /// HDR target with depth.
    fn new(device: &wgpu::Device, globals_layout: &wgpu::BindGroupLayout, samples: u32) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("murmuration scene shader"),
            source: wgpu::ShaderSource::Wgsl(include_str!("shaders/scene.wgsl").into()),
        });
        let layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render scene layout"),
            bind_group_layouts: &[Some(globals_layout)],
            immediate_size: 0,
        });
        let multisample = wgpu::MultisampleState {
            count: samples,
            ..Default::default()
        };
        let pipeline = |label,
                        vs,
                        buffers: &[Option<wgpu::VertexBufferLayout<'_>>],
                        topology,
                        write_depth,
                        blend| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some(vs),
                    compilation_options: Default::default(),
                    buffers,
                },
                primitive: wgpu::PrimitiveState {
                    topology,
                    ..Default::default()
                },
                depth_stencil: Some(depth_state(write_depth)),
                multisample,
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some("fs_colour"),
                    compilation_options: Default::default(),
                    targets: &[Some(wgpu::ColorTargetState {
                        format: HDR,
                        blend,
                        write_mask: wgpu::ColorWrites::ALL,
                    })],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let colour = [Some(wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<ColourVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x4],
        })];
        let mesh_layout = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<MeshVertex>() as u64,
            step_mode: wgpu::VertexStepMode::Vertex,
            attributes: &wgpu::vertex_attr_array![0 => Float32x3, 1 => Float32x3],
        };
        let instances = wgpu::VertexBufferLayout {
            array_stride: std::mem::size_of::<BoidInstance>() as u64,
            step_mode: wgpu::VertexStepMode::Instance,
            attributes: &wgpu::vertex_attr_array![2 => Float32x3, 3 => Float32x3, 4 => Unorm8x4, 5 => Float32, 6 => Float32],
        };
        let alpha = Some(wgpu::BlendState::ALPHA_BLENDING);
        use wgpu::PrimitiveTopology::{LineList, TriangleList};
        Self {
            lines: pipeline(
                "render lines pipeline",
                "vs_colour",
                &colour,
                LineList,
                false,
                alpha,
            ),
            fills: pipeline(
                "render fills pipeline",
                "vs_colour",
                &colour,
                TriangleList,
                false,
                alpha,
            ),
            boids: pipeline(
                "render boids pipeline",
                "vs_boid",
                &[Some(mesh_layout.clone()), Some(instances)],
                TriangleList,
                true,
                None,
            ),
            storage: StoragePipeline::new(
                device,
                PipelineParts {
                    module: &module,
                    globals_layout,
                    mesh_layout,
                    depth: depth_state(true),
                    multisample,
                    target: HDR,
                },
            ),
        }
    }
}
