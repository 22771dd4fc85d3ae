// 3D twin of dim2.wgsl: the vector types and the few functions that differ by dimension.
alias V = vec3<f32>;
alias VI = vec3<i32>;
const DIM: u32 = 3u;

fn v_from(a: vec4<f32>) -> V { return a.xyz; }
fn vi_from(a: vec4<i32>) -> VI { return a.xyz; }
fn vi_at(c: VI, axis: u32) -> i32 { return c[axis]; }

// Uniform direction on the sphere (Archimedes): z uniform in [-1, 1], azimuth uniform.
fn unit_from_uniform(u: f32, w: f32) -> V {
    let z = 1.0 - 2.0 * w;
    let r = sqrt(max(1.0 - z * z, 0.0));
    let a = u * TAU;
    return V(r * cos(a), r * sin(a), z);
}

fn hash_cell(c: VI) -> u32 {
    return hash32(bitcast<u32>(c.x) * 0x8da6b343u + bitcast<u32>(c.y) * 0xd8163841u
        + bitcast<u32>(c.z) * 0xcb1ab31fu);
}
