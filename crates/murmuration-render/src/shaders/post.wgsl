// Post passes over the HDR scene: the bright part at half resolution, a separable
// Gaussian blur (the glow), and the composite with tone mapping.

struct Post {
    // xy: texel step of the blur (0 for the other passes); z: threshold; w: strength.
    a: vec4<f32>,
    // x: exposure; y: 1 when the glow is on.
    b: vec4<f32>,
};

@group(0) @binding(0) var<uniform> p: Post;
@group(0) @binding(1) var src: texture_2d<f32>;
@group(0) @binding(2) var glow: texture_2d<f32>;
@group(0) @binding(3) var samp: sampler;

struct V {
    @builtin(position) clip: vec4<f32>,
    @location(0) uv: vec2<f32>,
};

// One triangle covering the screen.
@vertex
fn vs_full(@builtin(vertex_index) i: u32) -> V {
    let xy = vec2<f32>(f32((i << 1u) & 2u), f32(i & 2u));
    var o: V;
    o.clip = vec4<f32>(xy * 2.0 - 1.0, 0.0, 1.0);
    o.uv = vec2<f32>(xy.x, 1.0 - xy.y);
    return o;
}

@fragment
fn fs_bright(v: V) -> @location(0) vec4<f32> {
    let c = textureSampleLevel(src, samp, v.uv, 0.0).rgb;
    let l = max(c.r, max(c.g, c.b));
    // Soft knee: everything contributes a little, bright things a lot.
    let k = max(l - p.a.z, 0.0) + 0.25 * min(l, p.a.z) * min(l, p.a.z) / max(p.a.z, 1e-4);
    return vec4<f32>(c * (k / max(l, 1e-4)), 1.0);
}

@fragment
fn fs_blur(v: V) -> @location(0) vec4<f32> {
    let w = array<f32, 5>(0.227027, 0.1945946, 0.1216216, 0.054054, 0.016216);
    var c = textureSampleLevel(src, samp, v.uv, 0.0).rgb * w[0];
    for (var k = 1; k < 5; k = k + 1) {
        let o = p.a.xy * f32(k) * 1.5;
        c = c + textureSampleLevel(src, samp, v.uv + o, 0.0).rgb * w[k];
        c = c + textureSampleLevel(src, samp, v.uv - o, 0.0).rgb * w[k];
    }
    return vec4<f32>(c, 1.0);
}

@fragment
fn fs_composite(v: V) -> @location(0) vec4<f32> {
    var c = textureSampleLevel(src, samp, v.uv, 0.0).rgb;
    if (p.b.y > 0.5) {
        c = c + p.a.w * textureSampleLevel(glow, samp, v.uv, 0.0).rgb;
    }
    // Exponential tone mapping: smooth roll-off, never clips.
    let mapped = vec3<f32>(1.0) - exp(-c * p.b.x * 1.6);
    return vec4<f32>(mapped, 1.0);
}
