// 2D twin of dim3.wgsl: the vector types and the few functions that differ by dimension.
alias V = vec2<f32>;
alias VI = vec2<i32>;
const DIM: u32 = 2u;

fn v_from(a: vec4<f32>) -> V { return a.xy; }
fn vi_from(a: vec4<i32>) -> VI { return a.xy; }
fn vi_at(c: VI, axis: u32) -> i32 { return c[axis]; }

// Uniform direction from two uniforms in [0, 1): an angle.
fn unit_from_uniform(u: f32, w: f32) -> V {
    let a = u * TAU;
    return V(cos(a), sin(a));
}

fn hash_cell(c: VI) -> u32 {
    return hash32(bitcast<u32>(c.x) * 0x8da6b343u + bitcast<u32>(c.y) * 0xd8163841u);
}
