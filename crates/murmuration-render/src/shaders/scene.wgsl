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

@vertex
fn vs_boid(v: BoidIn) -> Out {
    var f = v.heading;
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
    let world = v.position + s * (v.local.x * f + v.local.y * side + v.local.z * up);
    var shade = 1.0;
    if (g.params.z > 0.5) {
        let n = normalize(v.normal.x * f + v.normal.y * side + v.normal.z * up);
        shade = 0.45 + 0.75 * max(dot(n, g.light.xyz), 0.0);
    }
    var o: Out;
    o.clip = g.view_proj * vec4<f32>(world, 1.0);
    o.colour = vec4<f32>(v.colour.rgb * g.params.y * shade, 1.0);
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
