//! Post-processing after the scene pass: the glow (a bright pass and a separable
//! blur, twice, at half resolution) and the tone-mapping composite into the
//! output view. Shaders in `shaders/post.wgsl`.

use crate::settings::RenderSettings;
use crate::timing::{Part, PassTimer};
use bytemuck::{Pod, Zeroable};

/// One post pass's settings, as `post.wgsl` reads them.
#[repr(C)]
#[derive(Clone, Copy, Pod, Zeroable)]
struct PostUniform {
    /// Texel step of the blur (x, y), bright threshold, glow strength.
    a: [f32; 4],
    /// Exposure, glow on (1) or off (0), unused, unused.
    b: [f32; 4],
}

/// The pipelines, uniforms and sampler of the post passes (made once).
pub(crate) struct Glow {
    layout: wgpu::BindGroupLayout,
    sampler: wgpu::Sampler,
    /// Uniforms of the bright, horizontal blur, vertical blur and composite passes.
    uniforms: [wgpu::Buffer; 4],
    bright: wgpu::RenderPipeline,
    blur: wgpu::RenderPipeline,
    composite: wgpu::RenderPipeline,
}

/// The bind groups of one target size: each pass's uniform and textures.
pub(crate) struct GlowGroups {
    bright: wgpu::BindGroup,
    blur_h: wgpu::BindGroup,
    blur_v: wgpu::BindGroup,
    composite: wgpu::BindGroup,
}

/// The textures the passes read and write, of one output size.
pub(crate) struct GlowTextures<'a> {
    /// The resolved scene (full size).
    pub hdr: &'a wgpu::TextureView,
    /// Half-size ping-pong targets of the blur.
    pub half_a: &'a wgpu::TextureView,
    /// The other one.
    pub half_b: &'a wgpu::TextureView,
}

impl Glow {
    /// The post passes drawing HDR targets of `hdr` and composing into `format`.
    pub fn new(
        device: &wgpu::Device,
        hdr: wgpu::TextureFormat,
        format: wgpu::TextureFormat,
    ) -> Self {
        let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: Some("murmuration post shader"),
            source: wgpu::ShaderSource::Wgsl(include_str!("shaders/post.wgsl").into()),
        });
        let layout = bind_group_layout(device);
        let pipeline_layout = device.create_pipeline_layout(&wgpu::PipelineLayoutDescriptor {
            label: Some("render post pipeline layout"),
            bind_group_layouts: &[Some(&layout)],
            immediate_size: 0,
        });
        let pipeline = |label, entry, format: wgpu::TextureFormat| {
            device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: Some(label),
                layout: Some(&pipeline_layout),
                vertex: wgpu::VertexState {
                    module: &module,
                    entry_point: Some("vs_full"),
                    compilation_options: Default::default(),
                    buffers: &[],
                },
                primitive: Default::default(),
                depth_stencil: None,
                multisample: Default::default(),
                fragment: Some(wgpu::FragmentState {
                    module: &module,
                    entry_point: Some(entry),
                    compilation_options: Default::default(),
                    targets: &[Some(format.into())],
                }),
                multiview_mask: None,
                cache: None,
            })
        };
        let uniform = |label| {
            device.create_buffer(&wgpu::BufferDescriptor {
                label: Some(label),
                size: std::mem::size_of::<PostUniform>() as u64,
                usage: wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::COPY_DST,
                mapped_at_creation: false,
            })
        };
        Self {
            sampler: device.create_sampler(&wgpu::SamplerDescriptor {
                label: Some("render sampler"),
                mag_filter: wgpu::FilterMode::Linear,
                min_filter: wgpu::FilterMode::Linear,
                address_mode_u: wgpu::AddressMode::ClampToEdge,
                address_mode_v: wgpu::AddressMode::ClampToEdge,
                ..Default::default()
            }),
            uniforms: [
                uniform("render post bright"),
                uniform("render post blur h"),
                uniform("render post blur v"),
                uniform("render post composite"),
            ],
            bright: pipeline("render bright pipeline", "fs_bright", hdr),
            blur: pipeline("render blur pipeline", "fs_blur", hdr),
            composite: pipeline("render composite pipeline", "fs_composite", format),
            layout,
        }
    }

    /// Bind groups for textures of one output size.
    pub fn groups(&self, device: &wgpu::Device, t: &GlowTextures<'_>) -> GlowGroups {
        let group = |label, uniform: &wgpu::Buffer, src, glow| {
            let entries = [
                uniform.as_entire_binding(),
                wgpu::BindingResource::TextureView(src),
                wgpu::BindingResource::TextureView(glow),
                wgpu::BindingResource::Sampler(&self.sampler),
            ];
            device.create_bind_group(&wgpu::BindGroupDescriptor {
                label: Some(label),
                layout: &self.layout,
                entries: &entries
                    .into_iter()
                    .zip(0..)
                    .map(|(resource, binding)| wgpu::BindGroupEntry { binding, resource })
                    .collect::<Vec<_>>(),
            })
        };
        let [bright, h, v, composite] = &self.uniforms;
        GlowGroups {
            bright: group("render bright group", bright, t.hdr, t.half_b),
            // The second texture is unused by the blur; it must not be the pass's target.
            blur_h: group("render blur h group", h, t.half_a, t.hdr),
            blur_v: group("render blur v group", v, t.half_b, t.hdr),
            composite: group("render composite group", composite, t.hdr, t.half_a),
        }
    }

    /// Writes the passes' settings for an output of `width` × `height` pixels.
    pub fn write(
        &self,
        queue: &wgpu::Queue,
        settings: &RenderSettings,
        (width, height): (u32, u32),
    ) {
        let (hw, hh) = (width.div_ceil(2) as f32, height.div_ceil(2) as f32);
        let strength = settings.bloom_strength.clamp(0.0, 4.0);
        let on = if settings.bloom { 1.0 } else { 0.0 };
        let steps = [[0.0, 0.0], [1.0 / hw, 0.0], [0.0, 1.0 / hh], [0.0, 0.0]];
        for (buffer, [sx, sy]) in self.uniforms.iter().zip(steps) {
            let u = PostUniform {
                a: [sx, sy, 0.6, strength],
                b: [settings.exposure, on, 0.0, 0.0],
            };
            queue.write_buffer(buffer, 0, bytemuck::bytes_of(&u));
        }
    }

    /// Encodes the glow (when `bloom`) and the composite into `view`, with
    /// `timer`'s timestamps around the glow and the composite.
    pub fn encode(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        t: (&GlowTextures<'_>, &GlowGroups),
        view: &wgpu::TextureView,
        bloom: bool,
        timer: Option<&PassTimer>,
    ) {
        let (tex, g) = t;
        let writes = |part, begin, end| timer.and_then(|t| t.writes(part, begin, end));
        if bloom {
            pass(
                encoder,
                ("render bright pass", writes(Part::Glow, true, false)),
                tex.half_a,
                &self.bright,
                &g.bright,
            );
            for round in 0..2 {
                pass(
                    encoder,
                    ("render blur h pass", None),
                    tex.half_b,
                    &self.blur,
                    &g.blur_h,
                );
                pass(
                    encoder,
                    ("render blur v pass", writes(Part::Glow, false, round == 1)),
                    tex.half_a,
                    &self.blur,
                    &g.blur_v,
                );
            }
        }
        pass(
            encoder,
            ("render composite pass", writes(Part::Composite, true, true)),
            view,
            &self.composite,
            &g.composite,
        );
    }
}

/// One full-screen triangle of `pipeline` into `target`, labelled and
/// timestamped as `label` says.
fn pass(
    encoder: &mut wgpu::CommandEncoder,
    (label, timestamp_writes): (&str, Option<wgpu::RenderPassTimestampWrites<'_>>),
    target: &wgpu::TextureView,
    pipeline: &wgpu::RenderPipeline,
    group: &wgpu::BindGroup,
) {
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
        timestamp_writes,
        occlusion_query_set: None,
        multiview_mask: None,
    });
    pass.set_pipeline(pipeline);
    pass.set_bind_group(0, group, &[]);
    pass.draw(0..3, 0..1);
}

/// Settings, two textures and a sampler, read by the fragment shaders.
fn bind_group_layout(device: &wgpu::Device) -> wgpu::BindGroupLayout {
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
    device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
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
    })
}
