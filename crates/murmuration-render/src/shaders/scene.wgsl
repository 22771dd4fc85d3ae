// Scene pass: instanced boids (a dart in 2D, a lit bird in 3D, banked) and
// overlay lines and fills, drawn into the HDR target (colours above 1 glow).

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
    // Body length multiple (the species' look) and roll about the heading.
    @location(5) size: f32,
    @location(6) bank: f32,
};

struct Out {
    @builtin(position) clip: vec4<f32>,
    @location(0) colour: vec4<f32>,
};

// A boid's mesh vertex placed at `position`, pointing along `heading`, `size`
// times the scene's body length, rolled by `bank` radians about its heading.
fn boid_vertex(local: vec3<f32>, normal: vec3<f32>, position: vec3<f32>, heading: vec3<f32>, colour: vec3<f32>, size: f32, bank: f32) -> Out {
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
        // Bank: the up axis turns toward the side axis.
        let c = cos(bank);
        let sn = sin(bank);
        let up2 = c * up + sn * side;
        side = c * side - sn * up;
        up = up2;
    }
    let s = g.params.x * size;
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
    return boid_vertex(v.local, v.normal, v.position, v.heading, v.colour.rgb, v.size, v.bank);
}

// Boids read straight from the GPU flock's storage buffers (no copy through the
// CPU): one instance per boid, indexed by `instance_index`.
struct Storage {
    // f32 words per vector (2 in 2D, 4 in 3D).
    stride: u32,
    // 0: colour by species, 1: by speed.
    colour_mode: u32,
    species_count: u32,
    // Gravity for banking, units/s² (0: level).
    gravity: f32,
};

@group(1) @binding(0) var<uniform> st: Storage;
@group(1) @binding(1) var<storage, read> s_pos: array<f32>;
@group(1) @binding(2) var<storage, read> s_vel: array<f32>;
// (boid id, species) per boid.
@group(1) @binding(3) var<storage, read> s_meta: array<vec2<u32>>;
// Two per species: (rgb colour, max speed), then (body length multiple, 0, 0, 0).
@group(1) @binding(4) var<storage, read> s_species: array<vec4<f32>>;
@group(1) @binding(5) var<storage, read> s_acc: array<f32>;

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
    } else if (buf == 1u) {
        v = vec3<f32>(s_vel[k], s_vel[k + 1u], 0.0);
        if (st.stride == 4u) {
            v.z = s_vel[k + 2u];
        }
    } else {
        v = vec3<f32>(s_acc[k], s_acc[k + 1u], 0.0);
        if (st.stride == 4u) {
            v.z = s_acc[k + 2u];
        }
    }
    return v;
}

// The roll of a coordinated turn (the CPU scene's `bank`): the up axis leans
// along the turn plus gravity, measured toward the side axis `y × heading`.
fn bank(f: vec3<f32>, steering: vec3<f32>, gravity: f32) -> f32 {
    if (gravity <= 0.0 || abs(f.y) > 0.99) {
        return 0.0;
    }
    let side = normalize(cross(vec3<f32>(0.0, 1.0, 0.0), f));
    let up = cross(f, side);
    let turn = steering - f * dot(steering, f);
    let lift = turn + vec3<f32>(0.0, gravity, 0.0);
    return atan2(dot(lift, side), dot(lift, up));
}

@vertex
fn vs_boid_storage(v: MeshIn, @builtin(instance_index) i: u32) -> Out {
    let p = read_vec(0u, i);
    let vel = read_vec(1u, i);
    let sp = min(s_meta[i].y, st.species_count - 1u);
    let info = s_species[2u * sp];
    let size = s_species[2u * sp + 1u].x;
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
    let roll = bank(heading, read_vec(2u, i), st.gravity);
    var o = boid_vertex(v.local, v.normal, p, heading, colour, size, roll);
    if (s_meta[i].y & 0x80000000u) != 0u {
        // Eaten on the GPU (its species word marked dead): not drawn.
        o.clip = vec4<f32>(2.0, 2.0, 2.0, 1.0);
    }
    return o;
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
