// Behaviours of the GPU step (appended to flock.wgsl): obstacles as signed distance
// fields with the look-ahead avoidance and the swept hard constraint, attractors,
// pulses and paths. Each function is the twin of the core's (obstacles.rs,
// sdf_grid.rs, clearance.rs, attractors.rs, paths.rs), operation for operation.
// Used only by the pipeline variants with OBSTACLES or ENTITIES set.

const SHAPE_SPHERE: u32 = 0u;
const SHAPE_BOX: u32 = 1u;
const SHAPE_CAPSULE: u32 = 2u;
const SHAPE_POLYGON: u32 = 3u;
const SHAPE_FIELD: u32 = 4u;
// Most sphere-tracing steps of one sweep (obstacles.rs's MAX_TRACE).
const MAX_TRACE: u32 = 48u;

struct Behave {
    obstacles: u32,
    attractors: u32,
    pulses: u32,
    paths: u32,
    frame_stride: u32,      // vec4s per frame of entity state
    frames: u32,            // frames in `scene` from frames_at
    clear_first: u32,       // the clearance grid's lower bounds in `data`
    skin: f32,              // contact gap kept from surfaces
    clear_origin: vec4<f32>,
    clear_dims: vec4<u32>,  // cells per axis; x = 0: no grid
    clear_cell: f32,
    wander_base: u32,       // per-species wander phases in a frame (vec4s)
    wanders: u32,           // 1 when some species wanders
    actors: u32,            // relations.wgsl: actors, species, eating chasers
    species: u32,
    eaters: u32,
    events_cap: u32,        // eaten events the buffer describes
    eat_reach: f32,         // an eating chaser's search reach in the grid before the move
    travel: f32,            // two steps of the fastest travel
    actor_reach: f32,       // the farthest anyone looks at an actor it flees or follows
    data_at: u32,           // where `scene` holds the data, the actor table and the frames
    table_at: u32,
    frames_at: u32,
    _p1: u32,
    _p2: u32,
    _p3: u32,
}

// One obstacle: `a`, `b` and `dims` by kind —
//   sphere: a = (centre, radius); box: a = centre, b = half extents;
//   capsule: a = (end a, radius), b = end b; polygon: `count` vertices (x, y) in
//   `data` from `first`; field: a = (origin, cell), dims = nodes per axis, aux =
//   Lipschitz constant, samples in `data` from `first`.
struct Shape {
    kind: u32,
    first: u32,
    count: u32,
    aux: f32,
    dims: vec4<u32>,
    a: vec4<f32>,
    b: vec4<f32>,
    bound: vec4<f32>,       // bounding sphere: centre, radius
}

@group(1) @binding(0) var<uniform> behave: Behave;
// Everything the behaviours read, in 16-byte words (one binding, so a pass stays
// within 10 storage buffers): the shapes (5 words each) from 0; `data` (f32, 4 a
// word: polygon vertices, field samples, the clearance grid, path vertices) from
// behave.data_at; the actor table (u32, relations.wgsl) from behave.table_at; the
// entity frames from behave.frames_at. Per step a frame holds attractors (2 words
// each: position, weight; radius, range², species or -1, free inside 1 or 0),
// pulses (2), paths (2), computed on the host by the core's own entity clock;
// `steer` reads frame clock[0] - clock[2].
@group(1) @binding(1) var<storage, read> scene: array<vec4<u32>>;

fn shape(k: u32) -> Shape {
    let o = 5u * k;
    let w = scene[o];
    return Shape(w.x, w.y, w.z, bitcast<f32>(w.w), scene[o + 1u], bitcast<vec4<f32>>(scene[o + 2u]),
                 bitcast<vec4<f32>>(scene[o + 3u]), bitcast<vec4<f32>>(scene[o + 4u]));
}

fn datum(i: u32) -> f32 {
    return bitcast<f32>(scene[behave.data_at + i / 4u][i % 4u]);
}

fn frame(i: u32) -> vec4<f32> {
    return bitcast<vec4<f32>>(scene[behave.frames_at + i]);
}

struct Surface {
    d: f32,
    n: V,
}

fn unit_x() -> V {
    return v_from(vec4<f32>(1.0, 0.0, 0.0, 0.0));
}

fn unit_or_x(d: V) -> V {
    let n = normalize_or_zero(d);
    if all(n == V(0.0)) {
        return unit_x();
    }
    return n;
}

fn closest_on_segment(p: V, a: V, b: V) -> V {
    let ab = b - a;
    let l2 = dot(ab, ab);
    if l2 <= 0.0 {
        return a;
    }
    let t = clamp(dot(p - a, ab) / l2, 0.0, 1.0);
    return a + ab * t;
}

fn field_at(s: Shape, x: u32, y: u32, z: u32) -> f32 {
    return datum(s.first + (z * s.dims.y + y) * s.dims.x + x);
}

// Multilinear value and gradient at node coordinates q (sdf_grid.rs's `sample`).
fn field_sample(s: Shape, q: vec4<f32>) -> Surface {
    var base = vec4<u32>(0u);
    var t = vec4<f32>(0.0);
    for (var i = 0u; i < DIM; i++) {
        let b = min(u32(max(q[i], 0.0)), s.dims[i] - 2u);
        base[i] = b;
        t[i] = q[i] - f32(b);
    }
    var value = 0.0;
    var grad = V(0.0);
    let corners = 1u << DIM;
    for (var c = 0u; c < corners; c++) {
        var idx = vec4<u32>(0u);
        var w = vec4<f32>(1.0);
        for (var i = 0u; i < DIM; i++) {
            let bit = (c >> i) & 1u;
            idx[i] = base[i] + bit;
            w[i] = select(1.0 - t[i], t[i], bit == 1u);
        }
        let v = field_at(s, idx.x, idx.y, idx.z);
        var weight = 1.0;
        for (var i = 0u; i < DIM; i++) {
            weight *= w[i];
        }
        value += weight * v;
        for (var i = 0u; i < DIM; i++) {
            var dw = select(-1.0, 1.0, ((c >> i) & 1u) == 1u);
            for (var j = 0u; j < DIM; j++) {
                if j != i {
                    dw *= w[j];
                }
            }
            grad[i] += dw * v;
        }
    }
    return Surface(value, grad);
}

// The axis direction one node away where the field is highest (sdf_grid.rs's `escape`).
fn field_escape(s: Shape, q: vec4<f32>) -> V {
    var best = -3.4e38;
    var dir = unit_x();
    for (var i = 0u; i < DIM; i++) {
        for (var k = 0u; k < 2u; k++) {
            let sign = select(1.0, -1.0, k == 0u);
            var r = q;
            r[i] = clamp(q[i] + sign, 0.0, f32(s.dims[i] - 1u));
            let v = field_sample(s, r).d;
            if v > best {
                best = v;
                dir = V(0.0);
                dir[i] = sign;
            }
        }
    }
    return dir;
}

fn field_surface(s: Shape, p: V) -> Surface {
    var q = vec4<f32>(0.0);
    var out = V(0.0);
    let origin = v_from(s.a);
    let cell = s.a.w;
    for (var i = 0u; i < DIM; i++) {
        let x = (p[i] - origin[i]) / cell;
        let xc = clamp(x, 0.0, f32(s.dims[i] - 1u));
        q[i] = xc;
        out[i] = (x - xc) * cell;
    }
    let sample = field_sample(s, q);
    let d = sample.d / s.aux;
    var n = normalize_or_zero(sample.n);
    if sample.d < 0.0 && dot(sample.n, sample.n) < 0.01 * sample.d * sample.d {
        n = field_escape(s, q);
    }
    if all(out == V(0.0)) {
        if all(n == V(0.0)) {
            n = unit_x();
        }
        return Surface(d, n);
    }
    let o = length(out);
    if d > 0.0 {
        return Surface(sqrt(o * o + d * d), normalize_or_zero(out + n * d));
    }
    return Surface(o, out * (1.0 / o));
}

fn polygon_surface(s: Shape, p: V) -> Surface {
    var best2 = 3.4e38;
    var best = p;
    var inside = false;
    let k = s.count;
    for (var e = 0u; e < k; e++) {
        let e2 = select(e + 1u, 0u, e + 1u == k);
        let a = v_from(vec4<f32>(datum(s.first + 2u * e), datum(s.first + 2u * e + 1u), 0.0, 0.0));
        let b = v_from(vec4<f32>(datum(s.first + 2u * e2), datum(s.first + 2u * e2 + 1u), 0.0, 0.0));
        let c = closest_on_segment(p, a, b);
        let dc = p - c;
        let d2 = dot(dc, dc);
        if d2 < best2 {
            best2 = d2;
            best = c;
        }
        if (a.y > p.y) != (b.y > p.y) {
            let x = a.x + (p.y - a.y) / (b.y - a.y) * (b.x - a.x);
            if p.x < x {
                inside = !inside;
            }
        }
    }
    let d = sqrt(best2);
    let away = unit_or_x(p - best);
    if inside {
        return Surface(-d, -away);
    }
    return Surface(d, away);
}

// Signed distance and outward normal of obstacle k at p (obstacles.rs's `surface`).
fn shape_surface(k: u32, p: V) -> Surface {
    let s = shape(k);
    switch s.kind {
        case SHAPE_SPHERE: {
            let d = p - v_from(s.a);
            return Surface(length(d) - s.a.w, unit_or_x(d));
        }
        case SHAPE_CAPSULE: {
            let d = p - closest_on_segment(p, v_from(s.a), v_from(s.b));
            return Surface(length(d) - s.a.w, unit_or_x(d));
        }
        case SHAPE_BOX: {
            let rel = p - v_from(s.a);
            var out = V(0.0);
            var inside_max = -3.4e38;
            var axis = 0u;
            for (var i = 0u; i < DIM; i++) {
                let q = abs(rel[i]) - s.b[i];
                out[i] = max(q, 0.0) * sign_nonzero(rel[i]);
                if q > inside_max {
                    inside_max = q;
                    axis = i;
                }
            }
            if inside_max > 0.0 {
                return Surface(length(out), unit_or_x(out));
            }
            var n = V(0.0);
            n[axis] = select(1.0, -1.0, rel[axis] < 0.0);
            return Surface(inside_max, n);
        }
        case SHAPE_POLYGON: {
            return polygon_surface(s, p);
        }
        default: {
            return field_surface(s, p);
        }
    }
}

// Rust's f32::signum: 1 for +0, -1 for -0 (only the sign of a zero's product matters).
fn sign_nonzero(x: f32) -> f32 {
    return select(1.0, -1.0, (bitcast<u32>(x) & 0x80000000u) != 0u);
}

struct Nearest {
    found: bool,
    s: Surface,
}

// The nearest surface among obstacles whose bounds come within `reach` of p.
fn nearest(p: V, reach: f32) -> Nearest {
    var r = Nearest(false, Surface(0.0, V(0.0)));
    for (var k = 0u; k < behave.obstacles; k++) {
        let b = shape(k).bound;
        if length(p - v_from(b)) - b.w > reach {
            continue;
        }
        let s = shape_surface(k, p);
        if !r.found || s.d < r.s.d {
            r = Nearest(true, s);
        }
    }
    return r;
}

// A distance p is at least from every obstacle (clearance.rs's `lower_bound`).
fn clearance(p: V) -> f32 {
    if behave.clear_dims.x == 0u {
        return 3.4e38;
    }
    var index = 0u;
    var stride = 1u;
    var outside = false;
    for (var i = 0u; i < DIM; i++) {
        let x = (p[i] - behave.clear_origin[i]) / behave.clear_cell;
        let n = behave.clear_dims[i];
        if !(x >= 0.0 && x < f32(n)) {
            outside = true;
        } else {
            index += u32(x) * stride;
            stride *= n;
        }
    }
    if !outside {
        return datum(behave.clear_first + index);
    }
    var d2 = 0.0;
    for (var i = 0u; i < DIM; i++) {
        let lo = behave.clear_origin[i];
        let hi = lo + f32(behave.clear_dims[i]) * behave.clear_cell;
        let o = max(max(lo - p[i], p[i] - hi), 0.0);
        d2 += o * o;
    }
    return sqrt(d2);
}

// Look-ahead avoidance (obstacles.rs's `avoidance`), before weighting.
fn avoidance(p: V, v: V, lookahead: f32, margin: f32, max_speed: f32, max_force: f32) -> V {
    let ahead = p + v * lookahead;
    let reach = margin + length(v * lookahead);
    let a = nearest(p, reach);
    let b = nearest(ahead, margin);
    var s: Surface;
    if a.found && b.found {
        if a.s.d <= b.s.d {
            s = a.s;
        } else {
            s = b.s;
        }
    } else if a.found {
        s = a.s;
    } else if b.found {
        s = b.s;
    } else {
        return V(0.0);
    }
    if s.d >= margin {
        return V(0.0);
    }
    let urgency = clamp(1.0 - s.d / max(margin, 1e-6), 0.0, 2.0);
    let dir = normalize_or_zero(v);
    let inward = min(dot(dir, s.n), 0.0);
    let desired = normalize_or_zero(dir - s.n * (inward * 2.0) + s.n * urgency);
    if all(desired == V(0.0)) {
        return V(0.0);
    }
    return clamp_length_max((desired * max_speed - v) * urgency, max_force);
}

// Moves a boid from `from` toward `to`, stopping at first contact with the normal
// velocity removed, then projects out what is left (obstacles.rs's `resolve`).
fn resolve(start: V, to: V, v: ptr<function, V>, skin: f32) -> V {
    let seg = to - start;
    let len = length(seg);
    let reach = len + skin;
    var p = to;
    if len > 0.0 {
        var t = 0.0;
        var hit = false;
        var steps = 0u;
        while t < 1.0 {
            let q = start + seg * t;
            let nq = nearest(q, reach);
            var step = 3.4e38;
            if nq.found && nq.s.d < skin {
                if dot(seg, nq.s.n) < 0.0 {
                    hit = true;
                    break;
                }
                step = skin;
            } else if nq.found {
                step = nq.s.d - 0.5 * skin;
            }
            steps += 1u;
            if steps > MAX_TRACE {
                break;
            }
            t += step / len;
        }
        if hit || t < 1.0 {
            p = start + seg * clamp(t, 0.0, 1.0);
            let ns = nearest(p, 2.0 * skin);
            if ns.found {
                let vn = dot(*v, ns.s.n);
                if vn < 0.0 {
                    *v -= ns.s.n * vn;
                }
            }
        }
    }
    for (var k = 0u; k < 16u; k++) {
        let ns = nearest(p, skin);
        if !(ns.found && ns.s.d < 0.5 * skin) {
            return p;
        }
        p += ns.s.n * (skin - ns.s.d);
        let vn = dot(*v, ns.s.n);
        if vn < 0.0 {
            *v -= ns.s.n * vn;
        }
    }
    return p;
}

// ---- entities ------------------------------------------------------------------

fn frame_base() -> u32 {
    let f = min(clock[0] - clock[2], behave.frames - 1u);
    return f * behave.frame_stride;
}

// Attractor k's arrive force on a boid of `species` (attractors.rs's `arrive`).
fn arrive(base: u32, k: u32, species_index: u32, p: V, v: V) -> V {
    let x = frame(base + 2u * k);
    let y = frame(base + 2u * k + 1u);
    if y.z >= 0.0 && u32(y.z) != species_index {
        return V(0.0);
    }
    let to = v_from(x) - p;
    let d2 = dot(to, to);
    if d2 > y.y || d2 <= 0.0 || (y.w > 0.0 && d2 < y.x * y.x) {
        return V(0.0);
    }
    let d = sqrt(d2);
    if y.w > 0.0 {
        // Free inside: a sideways turn fading in over a radius beyond it.
        let fade = min((d - y.x) / y.x, 1.0);
        return sideways_turn(to * (1.0 / d), v, sp.max_force * x.w * fade);
    }
    let speed = sp.max_speed * min(d / y.x, 1.0);
    return clamp_length_max(to * (speed / d) - v, sp.max_force) * x.w;
}

// Pulse k's push (attractors.rs's `push`).
fn push(base: u32, k: u32, p: V) -> V {
    let x = frame(base + 2u * k);
    let y = frame(base + 2u * k + 1u);
    if y.z == 0.0 {
        return V(0.0);
    }
    let away = p - v_from(x);
    let d = length(away);
    if d >= x.w {
        return V(0.0);
    }
    var dir = unit_x();
    if d > 0.0 {
        dir = away * (1.0 / d);
    }
    return dir * (y.x * (1.0 - d / x.w) * y.y);
}

// Path k's follow force (paths.rs's `follow`).
fn follow_path(base: u32, k: u32, species_index: u32, p: V, v: V) -> V {
    let x = frame(base + 2u * k);
    let y = frame(base + 2u * k + 1u);
    if x.w == 0.0 || (x.z >= 0.0 && u32(x.z) != species_index) {
        return V(0.0);
    }
    let capture = x.x;
    let r2 = capture * capture;
    let first = bitcast<u32>(y.x);
    let count = bitcast<u32>(y.y);
    var best = 3.4e38;
    var at = p;
    var tangent = V(0.0);
    var s0 = path_point(first);
    for (var i = 1u; i < count; i++) {
        let s1 = path_point(first + i * DIM);
        let ab = s1 - s0;
        let l2 = dot(ab, ab);
        var t = 0.0;
        if l2 > 0.0 {
            t = clamp(dot(p - s0, ab) / l2, 0.0, 1.0);
        }
        let c = s0 + ab * t;
        let dc = p - c;
        let d2 = dot(dc, dc);
        if d2 < best {
            best = d2;
            at = c;
            tangent = normalize_or_zero(ab);
        }
        s0 = s1;
    }
    if best >= r2 || all(tangent == V(0.0)) {
        return V(0.0);
    }
    let desired = normalize_or_zero(tangent + (at - p) * (1.0 / capture));
    return clamp_length_max(desired * sp.max_speed - v, sp.max_force) * x.y;
}

fn path_point(at: u32) -> V {
    var q = V(0.0);
    for (var i = 0u; i < DIM; i++) {
        q[i] = datum(at + i);
    }
    return q;
}

// Reynolds' wander without state (wander.rs): a seek toward the heading plus a
// direction blended between two keyed knots; the knot and blend of this step come
// from the host (`knot_phase`, in f64 there).
fn wander(base: u32, id: u32, species_index: u32, v: V) -> V {
    let ph = frame(base + behave.wander_base + species_index);
    let k = vec2<u32>(bitcast<u32>(ph.x), bitcast<u32>(ph.y));
    var r0 = rng_new(sim.seed_key, vec2<u32>(id, 0u), k, STREAM_WANDER);
    let u0 = rng_f32(&r0);
    let w0 = rng_f32(&r0);
    let a = unit_from_uniform(u0, w0);
    var r1 = rng_new(sim.seed_key, vec2<u32>(id, 0u), add64(k, vec2<u32>(1u, 0u)), STREAM_WANDER);
    let u1 = rng_f32(&r1);
    let w1 = rng_f32(&r1);
    let b = unit_from_uniform(u1, w1);
    let n = a * (1.0 - ph.z) + b * ph.z;
    return seek(normalize_or_zero(v) + n, v, sp) * sp.wander_weight;
}
