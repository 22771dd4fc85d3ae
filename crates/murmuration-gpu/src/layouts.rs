//! Per-pass bind group layouts, read from the shader: each pass binds only the
//! buffers its entry point names, so the plain step's widest pass (`steer`)
//! binds 8 storage buffers, WebGPU's default limit, though the flock has 12.

use crate::error::GpuError;

/// Bind groups a pass can use (0: the flock; 1: the behaviours).
pub(crate) const GROUPS: usize = 2;

/// How an entry point uses one binding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// A uniform buffer.
    Uniform,
    /// A storage buffer the shader only reads.
    Read,
    /// A storage buffer the shader writes (or updates atomically).
    ReadWrite,
}

/// The bindings one entry point uses, per group, in binding order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct PassBindings {
    /// The entry point.
    pub entry: &'static str,
    /// `(binding, access)` per group.
    pub groups: [Vec<(u32, Access)>; GROUPS],
}

impl PassBindings {
    /// Storage buffers the pass binds (what `max_storage_buffers_per_shader_stage`
    /// limits).
    pub fn storage_buffers(&self) -> u32 {
        self.groups
            .iter()
            .flatten()
            .filter(|(_, a)| *a != Access::Uniform)
            .count() as u32
    }
}

/// The bindings each of `entries` uses in the WGSL `source`: every global it
/// reaches through its call graph, dead branches included (as a browser counts).
pub(crate) fn reflect(
    source: &str,
    entries: &[&'static str],
) -> Result<Vec<PassBindings>, GpuError> {
    let module = naga::front::wgsl::parse_str(source)
        .map_err(|e| GpuError::Runtime(format!("flock shader: {}", e.emit_to_string(source))))?;
    let info = naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::all(),
    )
    .validate(&module)
    .map_err(|e| GpuError::Runtime(format!("flock shader: {}", e.emit_to_string(source))))?;
    entries
        .iter()
        .map(|&entry| {
            let index = module
                .entry_points
                .iter()
                .position(|e| e.name == entry)
                .ok_or_else(|| GpuError::Runtime(format!("flock shader has no entry `{entry}`")))?;
            let uses = info.get_entry_point(index);
            let mut groups: [Vec<(u32, Access)>; GROUPS] = Default::default();
            for (handle, var) in module.global_variables.iter() {
                let Some(b) = &var.binding else { continue };
                if uses[handle].is_empty() {
                    continue;
                }
                let access = match var.space {
                    naga::AddressSpace::Uniform => Access::Uniform,
                    naga::AddressSpace::Storage { access }
                        if access.contains(naga::StorageAccess::STORE) =>
                    {
                        Access::ReadWrite
                    }
                    _ => Access::Read,
                };
                let group = groups.get_mut(b.group as usize).ok_or_else(|| {
                    GpuError::Runtime(format!("flock shader binds group {}", b.group))
                })?;
                group.push((b.binding, access));
            }
            for g in &mut groups {
                g.sort_unstable_by_key(|&(binding, _)| binding);
            }
            Ok(PassBindings { entry, groups })
        })
        .collect()
}

/// The layout of one group of one pass (`None` when the pass uses none of it).
pub(crate) fn group_layout(
    device: &wgpu::Device,
    label: &str,
    bindings: &[(u32, Access)],
) -> Option<wgpu::BindGroupLayout> {
    if bindings.is_empty() {
        return None;
    }
    let entries: Vec<wgpu::BindGroupLayoutEntry> = bindings
        .iter()
        .map(|&(binding, access)| wgpu::BindGroupLayoutEntry {
            binding,
            visibility: wgpu::ShaderStages::COMPUTE,
            ty: wgpu::BindingType::Buffer {
                ty: match access {
                    Access::Uniform => wgpu::BufferBindingType::Uniform,
                    Access::Read => wgpu::BufferBindingType::Storage { read_only: true },
                    Access::ReadWrite => wgpu::BufferBindingType::Storage { read_only: false },
                },
                has_dynamic_offset: false,
                min_binding_size: None,
            },
            count: None,
        })
        .collect();
    Some(
        device.create_bind_group_layout(&wgpu::BindGroupLayoutDescriptor {
            label: Some(label),
            entries: &entries,
        }),
    )
}

/// A bind group over the buffers of `all` (indexed by binding) that `bindings`
/// names.
pub(crate) fn bind(
    device: &wgpu::Device,
    layout: &wgpu::BindGroupLayout,
    label: &str,
    bindings: &[(u32, Access)],
    all: &[&wgpu::Buffer],
) -> wgpu::BindGroup {
    // A binding without a buffer leaves the group short: wgpu reports it as a
    // validation error in the caller's error scope.
    let entries: Vec<wgpu::BindGroupEntry> = bindings
        .iter()
        .filter_map(|&(binding, _)| {
            Some(wgpu::BindGroupEntry {
                binding,
                resource: all.get(binding as usize)?.as_entire_binding(),
            })
        })
        .collect();
    device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: Some(label),
        layout,
        entries: &entries,
    })
}
