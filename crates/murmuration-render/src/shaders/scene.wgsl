// Scene pass: instanced boids (a dart in 2D, a lit cone in 3D) and overlay
// lines and fills, drawn into the HDR target (colours above 1 glow).

struct Globals {
    view_proj: mat4x4<f32>,
    // xyz: direction toward the light (3D shading).
    light: vec4<f32>,
    // x: boid length (units), y: glow (colour multiplier), z: 1 in 3D, w: unused.
    params: vec4<f32>,
};

@group(0) @binding(0) var<uniform> g: Globals;

struct BoidIn {
    // Model vertex: x forward, y to the side, z up; length 1.
    @location(0) local: vec3<f32>,
    @location(1) normal: vec3<f32>,
    // Instance.
    @location(2) position: vec3<f32>,
    @location(3) heading: vec3<f32>,
    @location(4) colour: vec4<f32>,
};

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
};

// A boid's mesh vertex placed at `position`, pointing along `heading`.
fn boid_vertex(local: vec3<f32>, normal: vec3<f32>, position: vec3<f32>, heading: vec3<f32>, colour: vec3<f32>) -> Out {
    var f = heading;
    if (dot(f, f) < 1e-12) {
        f = vec3<f32>(1.0, 0.0, 0.0);
    }
    f = normalize(f);
    var side: vec3<f32>;
    var up: vec3<f32>;
    if (g.params.z < 0.5) {
        side = vec3<f32>(-f.y, f.x, 0.0);
        up = vec3<f32>(0.0, 0.0, 1.0);
    } else {
        var hint = vec3<f32>(0.0, 1.0, 0.0);
        if (abs(f.y) > 0.99) {
            hint = vec3<f32>(1.0, 0.0, 0.0);
        }
        side = normalize(cross(hint, f));
        up = cross(f, side);
    }
    let s = g.params.x;
    let world = position + s * (local.x * f + local.y * side + local.z * up);
    var shade = 1.0;
    if (g.params.z > 0.5) {
        let n = normalize(normal.x * f + normal.y * side + normal.z * up);
        shade = 0.45 + 0.75 * max(dot(n, g.light.xyz), 0.0);
    }
    var o: Out;
    o.clip = g.view_proj * vec4<f32>(world, 1.0);
    o.colour = vec4<f32>(colour * g.params.y * shade, 1.0);
    return o;
}

@vertex
fn vs_boid(v: BoidIn) -> Out {
    return boid_vertex(v.local, v.normal, v.position, v.heading, v.colour.rgb);
}

// Boids read straight from the GPU flock's storage buffers (no copy through the
// CPU): one instance per boid, indexed by `instance_index`.
struct Storage {
    // f32 words per vector (2 in 2D, 4 in 3D).
    stride: u32,
    // 0: colour by species, 1: by speed.
    colour_mode: u32,
    species_count: u32,
    pad: u32,
};

@group(1) @binding(0) var<uniform> st: Storage;
@group(1) @binding(1) var<storage, read> s_pos: array<f32>;
@group(1) @binding(2) var<storage, read> s_vel: array<f32>;
// (boid id, species) per boid.
@group(1) @binding(3) var<storage, read> s_meta: array<vec2<u32>>;
// Per species: rgb colour and w: max speed.
@group(1) @binding(4) var<storage, read> s_species: array<vec4<f32>>;

struct MeshIn {
    @location(0) local: vec3<f32>,
    @location(1) normal: vec3<f32>,
};

// Blue, cyan, yellow, red for t in [0, 1] (the CPU scene's `heat`).
fn heat(t: f32) -> vec3<f32> {
    let x = clamp(t, 0.0, 1.0) * 3.0;
    let i = min(u32(x), 2u);
    let f = x - f32(i);
    var stops = array<vec3<f32>, 4>(
        vec3<f32>(0.08, 0.2, 1.0),
        vec3<f32>(0.1, 0.9, 1.0),
        vec3<f32>(1.0, 0.9, 0.2),
        vec3<f32>(1.0, 0.18, 0.1),
    );
    return stops[i] + (stops[i + 1u] - stops[i]) * f;
}

fn read_vec(buf: u32, i: u32) -> vec3<f32> {
    let k = i * st.stride;
    var v: vec3<f32>;
    if (buf == 0u) {
        v = vec3<f32>(s_pos[k], s_pos[k + 1u], 0.0);
        if (st.stride == 4u) {
            v.z = s_pos[k + 2u];
        }
    } else {
        v = vec3<f32>(s_vel[k], s_vel[k + 1u], 0.0);
        if (st.stride == 4u) {
            v.z = s_vel[k + 2u];
        }
    }
    return v;
}

@vertex
fn vs_boid_storage(v: MeshIn, @builtin(instance_index) i: u32) -> Out {
    let p = read_vec(0u, i);
    let vel = read_vec(1u, i);
    let info = s_species[min(s_meta[i].y, st.species_count - 1u)];
    let speed = length(vel);
    var colour = info.rgb;
    if (st.colour_mode == 1u) {
        colour = heat(speed / info.w);
    }
    // The CPU path stores colours as 8-bit: quantise the same way.
    colour = round(clamp(colour, vec3<f32>(0.0), vec3<f32>(1.0)) * 255.0) / 255.0;
    var heading = vec3<f32>(1.0, 0.0, 0.0);
    if (speed > 0.0) {
        heading = vel / speed;
    }
    return boid_vertex(v.local, v.normal, p, heading, colour);
}

struct ColourIn {
    @location(0) position: vec3<f32>,
    @location(1) colour: vec4<f32>,
};

@vertex
fn vs_colour(v: ColourIn) -> Out {
    var o: Out;
    o.clip = g.view_proj * vec4<f32>(v.position, 1.0);
    o.colour = v.colour;
    return o;
}

@fragment
fn fs_colour(i: Out) -> @location(0) vec4<f32> {
    return i.colour;
}
