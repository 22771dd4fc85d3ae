// The flock step on the GPU. Prepended by the host: `const WG: u32` (the workgroup
// size, shared with Rust), dim2.wgsl or dim3.wgsl, and rng.wgsl.
//
// (and `const STATS`, flock.rs's STATS_WORD).
//
// One step, one compute pass, in this order:
//   count → scan_local → scan_blocks → scan_add → scatter → rank_cells → reorder → steer
// Each dispatch costs a few microseconds of launch and barrier, so small chores ride
// along: scan_local zeroes the counts it has read (ready for the next step) and
// scan_blocks advances the step clock.
// State A (the first half of pos, vel, acc, tags) is the state in the previous
// step's cell order. The grid is built from it, A is scattered into cell order in
// B, and `steer` reads B and writes the new state back into A, still in this
// step's cell order.

const TAU: f32 = 6.28318530717958647692;
const SCAN_ITEMS: u32 = 4u;           // elements per thread in the scans
const SCAN_BLOCK: u32 = WG * SCAN_ITEMS;
const MODE_PERIODIC: u32 = 0u;        // dense grid over the periodic box
const MODE_HASHED: u32 = 1u;          // hashed grid of unbounded extent
const BOUNDARY_WRAP: u32 = 0u;
const BOUNDARY_SOFT: u32 = 1u;
const BOUNDARY_REFLECT: u32 = 2u;
const BOUNDARY_UNBOUNDED: u32 = 3u;
const BOUNDARY_ROOST: u32 = 4u;
const RELATION_FLOCK: u32 = 0u;
const RELATION_SEPARATE: u32 = 1u;
const RELATION_IGNORE: u32 = 2u;
const COMBINE_PRIORITIZED: u32 = 1u;
const STEERING_DIRECTIONS: u32 = 1u;
const STEERING_RAW: u32 = 2u;

struct Sim {
    n: u32,
    mode: u32,
    species_count: u32,
    boundary: u32,
    dims: vec4<u32>,        // cells per axis (periodic mode), 1 on unused axes
    origin: vec4<f32>,      // grid origin
    inv_cell: vec4<f32>,    // cells per unit, per axis
    period: vec4<f32>,      // box size (periodic mode)
    inv_period: vec4<f32>,
    wmin: vec4<f32>,
    wmax: vec4<f32>,
    cells: u32,             // cells (periodic) or buckets (hashed, a power of two)
    blocks: u32,            // scan blocks of SCAN_BLOCK cells
    dt: f32,
    soft_margin: f32,
    soft_strength: f32,
    span: u32,              // also the SPAN override; informational here
    seed_key: vec2<u32>,    // mix(seed ^ GOLDEN)
    seed: vec2<u32>,
    scan_cells: u32,        // cells + the graveyard (eaten boids), the scans' range
    _pad1: u32,
}

// `struct Species` is generated from the host list (uniforms.rs, species_uniform!).

@group(0) @binding(0) var<uniform> sim: Sim;
@group(0) @binding(1) var<storage, read> species: array<Species>;
@group(0) @binding(2) var<storage, read> relations: array<u32>;
// Each state array holds two copies of the flock: A in [0, n) and B in [n, 2n)
// (one binding per quantity keeps a stage within WebGPU's 8 storage buffers).
@group(0) @binding(3) var<storage, read_write> pos: array<V>;
@group(0) @binding(4) var<storage, read_write> vel: array<V>;
@group(0) @binding(5) var<storage, read_write> acc: array<V>;
@group(0) @binding(6) var<storage, read_write> tags: array<vec2<u32>>;  // (id, species)
@group(0) @binding(7) var<storage, read_write> keys: array<vec2<u32>>;  // (cell, rank in cell)
@group(0) @binding(8) var<storage, read_write> counts: array<atomic<u32>>;
@group(0) @binding(9) var<storage, read_write> starts: array<u32>;      // cells + 1 entries
@group(0) @binding(10) var<storage, read_write> order: array<u32>;      // each cell's slots of A, in arrival order
@group(0) @binding(11) var<storage, read_write> blocks: array<u32>;
// Words 0-1: the step index (low, high) of the step in flight; word 2: the step
// of the first entity frame; from word STATS (prepended by the host), per steer
// workgroup: neighbours, candidates.
@group(0) @binding(12) var<storage, read_write> clock: array<u32>;

var<workgroup> scratch: array<u32, WG>;
var<workgroup> scratch2: array<u32, WG>;

// Flat invocation index over a 2D dispatch (x at most 65,535 workgroups).
fn flat(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG;
}

fn hash32(x0: u32) -> u32 {
    var x = x0;
    x ^= x >> 16u;
    x *= 0x7feb352du;
    x ^= x >> 15u;
    x *= 0x846ca68bu;
    x ^= x >> 16u;
    return x;
}

// Integer cell coordinates of a position (clamped into the grid in periodic mode).
fn cell_of(p: V) -> VI {
    let f = floor((p - v_from(sim.origin)) * v_from(sim.inv_cell));
    if MODE == MODE_PERIODIC {
        let hi = vec4<i32>(sim.dims) - vec4<i32>(1);
        return clamp(VI(clamp(f, V(-1.0), V(1e9))), VI(0), vi_from(hi));
    }
    return VI(clamp(f, V(-1e9), V(1e9)));
}

fn cell_index(c: VI) -> u32 {
    if MODE == MODE_PERIODIC {
        var idx = 0u;
        var stride = 1u;
        for (var a = 0u; a < DIM; a++) {
            idx += u32(vi_at(c, a)) * stride;
            stride *= sim.dims[a];
        }
        return idx;
    }
    return hash_cell(c) & (sim.cells - 1u);
}

// ---- grid build ----------------------------------------------------------------

@compute @workgroup_size(WG)
fn count(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat(gid, nwg);
    if i < sim.n {
        var key = cell_index(cell_of(pos[i]));
        if EATING && (tags[i].y & DEAD) != 0u {
            key = sim.cells; // the graveyard: sorted last, never scanned
        }
        keys[i] = vec2<u32>(key, atomicAdd(&counts[key], 1u));
    }
}

// Each workgroup scans SCAN_BLOCK counts into `starts` (block-local, exclusive) and
// writes its total to `blocks`.
@compute @workgroup_size(WG)
fn scan_local(@builtin(local_invocation_id) lid3: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
              @builtin(num_workgroups) nwg: vec3<u32>) {
    let lid = lid3.x;
    let block = wid.x + wid.y * nwg.x;
    let base = block * SCAN_BLOCK + lid * SCAN_ITEMS;
    var v: array<u32, SCAN_ITEMS>;
    var sum = 0u;
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        var c = 0u;
        if base + k < sim.scan_cells {
            c = atomicExchange(&counts[base + k], 0u);
        }
        v[k] = sum;
        sum += c;
    }
    scratch[lid] = sum;
    let total = workgroup_scan_excl(lid);
    let prefix = scratch2[lid];
    for (var k = 0u; k < SCAN_ITEMS; k++) {
        if base + k < sim.scan_cells {
            starts[base + k] = prefix + v[k];
        }
    }
    if lid == 0u && block < sim.blocks {
        blocks[block] = total;
    }
}

// Exclusive scan: reads `scratch`, leaves each thread's exclusive prefix in
// `scratch2[lid]`, returns the workgroup total.
fn workgroup_scan_excl(lid: u32) -> u32 {
    let own = scratch[lid];
    for (var off = 1u; off < WG; off <<= 1u) {
        workgroupBarrier();
        var x = 0u;
        if lid >= off {
            x = scratch[lid - off];
        }
        workgroupBarrier();
        scratch[lid] += x;
    }
    workgroupBarrier();
    let total = scratch[WG - 1u];
    scratch2[lid] = scratch[lid] - own;
    workgroupBarrier();
    return total;
}

// One workgroup scans the block totals in place (exclusive), SCAN_BLOCK at a time,
// and advances the step clock (read by `steer` later in the step).
@compute @workgroup_size(WG)
fn scan_blocks(@builtin(local_invocation_id) lid3: vec3<u32>) {
    let lid = lid3.x;
    if lid == 0u {
        let lo = clock[0] + 1u;
        clock[0] = lo;
        if lo == 0u {
            clock[1] += 1u;
        }
    }
    var carry = 0u;
    let chunks = (sim.blocks + SCAN_BLOCK - 1u) / SCAN_BLOCK;
    for (var ch = 0u; ch < chunks; ch++) {
        let base = ch * SCAN_BLOCK + lid * SCAN_ITEMS;
        var v: array<u32, SCAN_ITEMS>;
        var sum = 0u;
        for (var k = 0u; k < SCAN_ITEMS; k++) {
            var c = 0u;
            if base + k < sim.blocks {
                c = blocks[base + k];
            }
            v[k] = sum;
            sum += c;
        }
        scratch[lid] = sum;
        let total = workgroup_scan_excl(lid);
        let prefix = carry + scratch2[lid];
        for (var k = 0u; k < SCAN_ITEMS; k++) {
            if base + k < sim.blocks {
                blocks[base + k] = prefix + v[k];
            }
        }
        carry += total;
        workgroupBarrier();
    }
}

@compute @workgroup_size(WG)
fn scan_add(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat(gid, nwg);
    if i < sim.scan_cells {
        starts[i] += blocks[i / SCAN_BLOCK];
    }
    if i == 0u {
        starts[sim.scan_cells] = sim.n;
    }
}

@compute @workgroup_size(WG)
fn scatter(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat(gid, nwg);
    if i < sim.n {
        let k = keys[i];
        order[starts[k.x] + k.y] = i;
    }
}

// Atomic ranks arrive in any order: each boid's rank in its cell becomes the
// number of the cell's boids at lower slots of A, so the order (and every sum)
// is a pure function of the state, run after run. One thread per boid reads
// its cell's run once: O(k) per thread, not a serial O(k²) sort per cell.
// The graveyard keeps its atomic ranks: no walk reaches it (passes touch an
// eaten boid only at its own slot), no draw shows it and every read-back goes
// by id, so the eaten's slots change nothing anyone sees, and thousands of them
// cost no O(k²).
@compute @workgroup_size(WG)
fn rank_cells(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat(gid, nwg);
    if i >= sim.n {
        return;
    }
    let c = keys[i].x;
    if c == sim.cells {
        return;
    }
    let s = starts[c];
    let e = starts[c + 1u];
    var r = 0u;
    for (var m = s; m < e; m++) {
        r += u32(order[m] < i);
    }
    keys[i] = vec2<u32>(c, r);
}

// State A into cell order (B), each boid to its cell's start plus its rank.
@compute @workgroup_size(WG)
fn reorder(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat(gid, nwg);
    if i < sim.n {
        let k = keys[i];
        let d = sim.n + starts[k.x] + k.y;
        pos[d] = pos[i];
        vel[d] = vel[i];
        acc[d] = acc[i];
        tags[d] = tags[i];
    }
}

// ---- rules ---------------------------------------------------------------------

// `v` in a vec4 (zeros beyond DIM).
fn vec4_of(v: V) -> vec4<f32> {
    var o = vec4<f32>(0.0);
    for (var i = 0u; i < DIM; i++) {
        o[i] = v[i];
    }
    return o;
}

fn normalize_or_zero(v: V) -> V {
    let l2 = dot(v, v);
    if l2 > 1e-30 && l2 <= 3.4e38 {
        return v * (1.0 / sqrt(l2));
    }
    return V(0.0);
}

fn clamp_length_max(v: V, m: f32) -> V {
    let l2 = dot(v, v);
    if l2 > m * m {
        return v * (m / sqrt(l2));
    }
    return v;
}

// Reynolds steering toward `dir` at max speed: desired − velocity, clamped.
fn seek(dir: V, v: V, sp: Species) -> V {
    let d = normalize_or_zero(dir);
    if all(d == V(0.0)) {
        return V(0.0);
    }
    return clamp_length_max(d * sp.max_speed - v, sp.max_force);
}

// The boundary's steering on top of the max-force budget (boundary.rs's
// `boundary_force`): the soft walls' push, or the roost's turn.
fn boundary_force(p: V, v: V) -> V {
    if sim.boundary == BOUNDARY_ROOST {
        return roost_force(p, v);
    }
    var f = V(0.0);
    if sim.boundary != BOUNDARY_SOFT {
        return f;
    }
    let k = sim.soft_strength / sim.soft_margin;
    for (var a = 0u; a < DIM; a++) {
        let x = p[a];
        let lo = sim.wmin[a] + sim.soft_margin - x;
        let hi = x - (sim.wmax[a] - sim.soft_margin);
        if lo > 0.0 {
            f[a] = k * lo;
        } else if hi > 0.0 {
            f[a] = -k * hi;
        }
    }
    return f;
}

// A turn of strength `pull` toward the unit direction `toward`, sideways to the
// velocity (boundary.rs's `sideways_turn`).
fn sideways_turn(toward: V, v: V, pull: f32) -> V {
    let speed = length(v);
    if !(speed > 1e-12) {
        return toward * pull;
    }
    let ahead = v * (1.0 / speed);
    let along = dot(toward, ahead);
    var side = toward - ahead * along;
    if along < 0.0 {
        side = normalize_or_zero(side);
        if all(side == V(0.0)) {
            side[0] = -ahead[DIM - 1u];
            side[DIM - 1u] = ahead[0];
            side = normalize_or_zero(side);
        }
    }
    return side * pull;
}

// The roost's pull (boundary.rs's `roost_force`): beyond the roost disc a sideways
// turn toward its centre; in 3D a spring back into the height band (y).
fn roost_force(p: V, v: V) -> V {
    let margin = sim.soft_margin;
    let strength = sim.soft_strength;
    let centre = (v_from(sim.wmin) + v_from(sim.wmax)) * 0.5;
    var h = p - centre;
    var radius = 3.4e38;
    for (var a = 0u; a < DIM; a++) {
        if DIM == 3u && a == 1u {
            h[a] = 0.0;
        } else {
            radius = min(radius, 0.5 * (sim.wmax[a] - sim.wmin[a]));
        }
    }
    var f = V(0.0);
    let d = length(h);
    if d > radius {
        let pull = strength * min((d - radius) / margin, 1.0);
        f = sideways_turn(h * (-1.0 / d), v, pull);
    }
    if DIM == 3u {
        let y = p[1];
        let lo = sim.wmin[1];
        let hi = sim.wmax[1];
        let k = strength / margin;
        if y < lo {
            f[1] += k * (lo - y);
        } else if y > hi {
            f[1] -= k * (y - hi);
        }
    }
    return f;
}

// The rule forces (separation, cohesion, alignment) by the species' steering
// method (the core's `rules::forces`).
fn rule_forces(s: Sums, v: V, sp: Species, heading: V) -> array<V, 3> {
    if sp.steering == STEERING_DIRECTIONS {
        var dir = normalize_or_zero(s.sep) * sp.w_sep + heading;
        if s.ali_n > 0u {
            dir += normalize_or_zero(s.ali) * sp.w_ali;
        }
        if s.coh_n > 0u {
            dir += normalize_or_zero(s.coh) * sp.w_coh;
        }
        return array<V, 3>(seek(dir, v, sp), V(0.0), V(0.0));
    }
    if sp.steering == STEERING_RAW {
        var coh = V(0.0);
        if s.coh_n > 0u {
            coh = s.coh * (sp.w_coh / f32(s.coh_n));
        }
        var ali = V(0.0);
        if s.ali_n > 0u {
            ali = (s.ali * (1.0 / f32(s.ali_n)) - v) * sp.w_ali;
        }
        return array<V, 3>(s.sep * sp.w_sep, coh, ali);
    }
    let sep = seek(s.sep, v, sp) * sp.w_sep;
    var coh = V(0.0);
    if s.coh_n > 0u {
        coh = seek(s.coh, v, sp) * sp.w_coh;
    }
    var ali = V(0.0);
    if s.ali_n > 0u {
        ali = seek(s.ali, v, sp) * sp.w_ali;
    }
    return array<V, 3>(sep, coh, ali);
}

// Relaxation toward the cruise speed along the heading, lifted toward max
// speed by fear while a threat is in sight (the core's `rules::cruise`).
fn cruise(v: V, sp: Species, afraid: bool) -> V {
    if sp.cruise_speed <= 0.0 {
        return V(0.0);
    }
    let speed = length(v);
    if speed <= 1e-12 {
        return V(0.0);
    }
    var cruise_to = sp.cruise_speed;
    if afraid && sp.fear > 0.0 {
        cruise_to = sp.cruise_speed + sp.fear * max(sp.max_speed - sp.cruise_speed, 0.0);
    }
    return v * ((cruise_to - speed) / (sp.cruise_time * speed));
}

// Forces in priority order (avoid, pulse, flee, target, separation, cohesion,
// alignment) combined within the max-force budget (the core's `rules::combine`;
// the soft boundary acts outside it).
fn combine(f: array<V, 7>, sp: Species) -> V {
    if sp.combine != COMBINE_PRIORITIZED {
        var acc = V(0.0);
        for (var k = 0u; k < 7u; k++) {
            acc += f[k];
        }
        return clamp_length_max(acc, sp.max_force);
    }
    var left = sp.max_force;
    var acc = V(0.0);
    for (var k = 0u; k < 7u; k++) {
        let m = length(f[k]);
        if m <= left {
            acc += f[k];
            left -= m;
        } else {
            if m > 0.0 {
                acc += f[k] * (left / m);
            }
            break;
        }
    }
    return acc;
}

fn clamp_speed(v2: V, v: V, sp: Species, id: u32, step: vec2<u32>) -> V {
    let s2 = dot(v2, v2);
    if s2 > sp.max_speed * sp.max_speed {
        return v2 * (sp.max_speed / sqrt(s2));
    }
    if sp.min_speed > 0.0 && s2 < sp.min_speed * sp.min_speed {
        if s2 > 1e-12 {
            return v2 * (sp.min_speed / sqrt(s2));
        }
        var dir = normalize_or_zero(v);
        if all(dir == V(0.0)) {
            var r = rng_new(sim.seed_key, vec2<u32>(id, 0u), step, STREAM_REST_HEADING);
            let u = rng_f32(&r);
            let w = rng_f32(&r);
            dir = unit_from_uniform(u, w);
        }
        return dir * sp.min_speed;
    }
    return v2;
}

fn confine(p: ptr<function, V>, v: ptr<function, V>) {
    if sim.boundary == BOUNDARY_WRAP {
        for (var a = 0u; a < DIM; a++) {
            let lo = sim.wmin[a];
            let hi = sim.wmax[a];
            let x = (*p)[a];
            if x < lo || x >= hi {
                let l = hi - lo;
                let r = x - lo;
                var y = lo + (r - l * floor(r / l));
                if y >= hi || y < lo {
                    y = lo;
                }
                (*p)[a] = y;
            }
        }
    } else if sim.boundary == BOUNDARY_REFLECT {
        for (var a = 0u; a < DIM; a++) {
            let lo = sim.wmin[a];
            let hi = sim.wmax[a];
            let x = (*p)[a];
            if x < lo {
                (*p)[a] = min(2.0 * lo - x, hi);
                (*v)[a] = abs((*v)[a]);
            } else if x > hi {
                (*p)[a] = max(2.0 * hi - x, lo);
                (*v)[a] = -abs((*v)[a]);
            }
        }
    }
}

// Keyed push direction away from a coincident neighbour (opposite for the pair).
fn coincident_direction(me: u32, other: u32) -> V {
    let lo = min(me, other);
    let hi = max(me, other);
    var r = rng_new(sim.seed_key, vec2<u32>(hi, lo), vec2<u32>(0u, 0u), STREAM_COINCIDENT);
    let u = rng_f32(&r);
    let w = rng_f32(&r);
    let d = unit_from_uniform(u, w);
    if me < other {
        return d;
    }
    return -d;
}

struct Sums {
    sep: V,
    ali: V,
    coh: V,
    ali_n: u32,
    coh_n: u32,
    neighbours: u32,
    candidates: u32,
}

// Kernel variants, fixed when the pipelines are built (the CPU kernel's flags):
// dead branches vanish and the common case carries no per-pair extras.
override MODE: u32 = 0u;            // MODE_PERIODIC or MODE_HASHED
override MIN_IMAGE: bool = false;   // a periodic axis has < 3 cells: nearest image per pair
override FOV: bool = false;         // some species has a vision cone
override MULTI: bool = false;       // more than one species: consult the relation table
override UNROLL: bool = true;       // read four candidates ahead (memory-level parallelism)
override SPAN: i32 = 1;             // periodic cells are radius / SPAN wide: scan ±SPAN cells
override OBSTACLES: bool = false;   // the world has obstacles (behaviours.wgsl)
override ENTITIES: bool = false;    // the world has attractors, pulses, paths or wanderers
override RELATIONS: bool = false;   // some species flees, chases or follows (relations.wgsl)
override EATING: bool = false;      // some chaser eats: eaten boids are marked DEAD
override BANKED: bool = false;      // some species flies banked (3D, flight.wgsl)
override TOPO: bool = false;        // some species has topological neighbours

// The boid being stepped and its running sums (per invocation).
struct Focal {
    i: u32,
    id: u32,
    row: u32,
    heading: V,
    cone: bool,
}
var<private> me: Focal;
var<private> sp: Species;
var<private> sums: Sums;

// Adds candidate `j` at position `q` (offset taken from `origin`, the focal
// position moved to the candidate's periodic image).
fn consider(j: u32, q: V, origin: V) {
    if j == me.i {
        return;
    }
    var d = q - origin;
    if MIN_IMAGE {
        d -= v_from(sim.period) * round(d * v_from(sim.inv_period));
    }
    let d2 = dot(d, d);
    if d2 >= sp.max2 {
        return;
    }
    // A coincident neighbour has no direction to see it by: always seen.
    if FOV && me.cone && d2 > sp.eps2 && dot(d, me.heading) < sp.cos_half_fov * sqrt(d2) {
        return;
    }
    var rel = RELATION_FLOCK;
    if MULTI {
        rel = relations[me.row + tags[sim.n + j].y];
        if rel == RELATION_IGNORE {
            return;
        }
    }
    if TOPO && sp.topological > 0u {
        keep_nearest(j, d2, d);
        return;
    }
    add_neighbour(j, d2, d, rel);
}

// Adds neighbour `j` (offset `d`, squared distance `d2`, relation `rel`) to the
// focal boid's rule sums.
fn add_neighbour(j: u32, d2: f32, d: V, rel: u32) {
    sums.neighbours += 1u;
    if d2 <= sp.eps2 {
        // Coincident: a keyed push, not one along rounding noise.
        sums.sep += coincident_direction(me.id, tags[sim.n + j].x) * sp.coincident_push;
    } else if d2 < sp.sep2 {
        sums.sep -= d / d2;
    }
    if rel == RELATION_FLOCK {
        if d2 < sp.ali2 {
            sums.ali += vel[sim.n + j];
            sums.ali_n += 1u;
        }
        if d2 < sp.coh2 {
            sums.coh += d;
            sums.coh_n += 1u;
        }
    }
}

// Adds the candidates in sorted slots [s, e), in order.
fn scan_range(s: u32, e: u32, origin: V) {
    sums.candidates += e - s;
    var j = s;
    if UNROLL {
        // Four independent loads in flight; the sums still add in slot order.
        while j + 4u <= e {
            let q0 = pos[sim.n + j];
            let q1 = pos[sim.n + j + 1u];
            let q2 = pos[sim.n + j + 2u];
            let q3 = pos[sim.n + j + 3u];
            consider(j, q0, origin);
            consider(j + 1u, q1, origin);
            consider(j + 2u, q2, origin);
            consider(j + 3u, q3, origin);
            j += 4u;
        }
    }
    while j < e {
        consider(j, pos[sim.n + j], origin);
        j += 1u;
    }
}

fn axis_range(a: u32) -> vec2<i32> {
    if a >= DIM {
        return vec2<i32>(0, 0);
    }
    if MODE == MODE_HASHED {
        return vec2<i32>(-1, 1);
    }
    let d = sim.dims[a];
    if d >= u32(2 * SPAN + 1) {
        return vec2<i32>(-SPAN, SPAN);
    }
    return vec2<i32>(0, i32(d) - 1);
}

fn wrap_coord(c: i32, d: u32) -> u32 {
    let di = i32(d);
    return u32((c + di) % di);
}

// Which periodic image a raw neighbour coordinate points at: -1, 0 or +1 periods.
fn image_of(c: i32, d: u32) -> f32 {
    return select(select(0.0, 1.0, c >= i32(d)), -1.0, c < 0);
}

fn gather(p: V) {
    sums = Sums(V(0.0), V(0.0), V(0.0), 0u, 0u, 0u, 0u);
    kept = 0u;
    let c = cell_of(p);
    let ry = axis_range(1u);
    let rz = axis_range(2u);
    if MODE == MODE_PERIODIC {
        let cx = vi_at(c, 0u);
        let dx = sim.dims[0];
        let rx = axis_range(0u);
        for (var oz = rz.x; oz <= rz.y; oz++) {
            var z = 0u;
            var kz = 0.0;
            if DIM == 3u {
                z = wrap_coord(vi_at(c, 2u) + oz, sim.dims[2]);
                kz = image_of(vi_at(c, 2u) + oz, sim.dims[2]);
            }
            for (var oy = ry.x; oy <= ry.y; oy++) {
                let y = wrap_coord(vi_at(c, 1u) + oy, sim.dims[1]);
                let ky = image_of(vi_at(c, 1u) + oy, sim.dims[1]);
                let row = (z * sim.dims[1] + y) * dx;
                // The focal position moved to the neighbour's image: offsets are
                // plain differences (the nearest-image variant corrects per pair).
                var origin = p;
                if !MIN_IMAGE {
                    origin = p - v_from(vec4<f32>(0.0, ky, kz, 0.0) * sim.period);
                }
                if cx >= SPAN && u32(cx + SPAN) < dx {
                    // The row's cells are contiguous in sorted order.
                    scan_range(starts[row + u32(cx - SPAN)], starts[row + u32(cx + SPAN) + 1u], origin);
                } else {
                    for (var ox = rx.x; ox <= rx.y; ox++) {
                        let cell = row + wrap_coord(cx + ox, dx);
                        var o = origin;
                        if !MIN_IMAGE {
                            o = origin - v_from(vec4<f32>(image_of(cx + ox, dx), 0.0, 0.0, 0.0) * sim.period);
                        }
                        scan_range(starts[cell], starts[cell + 1u], o);
                    }
                }
            }
        }
    } else {
        // Hashed cells: different cells can share a bucket; visit each bucket once.
        var seen: array<u32, 27>;
        var nseen = 0u;
        for (var oz = rz.x; oz <= rz.y; oz++) {
            for (var oy = ry.x; oy <= ry.y; oy++) {
                for (var ox = -1; ox <= 1; ox++) {
                    let b = cell_index(c + vi_from(vec4<i32>(ox, oy, oz, 0)));
                    var dup = false;
                    for (var k = 0u; k < nseen; k++) {
                        dup = dup || seen[k] == b;
                    }
                    if !dup {
                        seen[nseen] = b;
                        nseen += 1u;
                        scan_range(starts[b], starts[b + 1u], p);
                    }
                }
            }
        }
    }
    // The focal boid was counted as a candidate of its own cell.
    sums.candidates -= 1u;
    if TOPO && sp.topological > 0u {
        sum_nearest();
    }
}

@compute @workgroup_size(WG)
fn steer(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(local_invocation_id) lid3: vec3<u32>,
         @builtin(workgroup_id) wid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let i = flat(gid, nwg);
    let lid = lid3.x;
    var nb = 0u;
    var cand = 0u;
    var return_dead = false;
    if RELATIONS {
        cull_actors(lid, i);
    }
    if i < sim.n {
        let m = tags[sim.n + i];
        if EATING && (m.y & DEAD) != 0u {
            // Eaten: it waits in the graveyard, unseen, until the read-back drops it.
            pos[i] = pos[sim.n + i];
            vel[i] = vel[sim.n + i];
            acc[i] = acc[sim.n + i];
            tags[i] = m;
            if RELATIONS {
                write_actor(m, pos[sim.n + i], vel[sim.n + i]);
            }
            return_dead = true;
        }
    }
    if i < sim.n && !return_dead {
        let step = vec2<u32>(clock[0], clock[1]);
        let m = tags[sim.n + i];
        sp = species[m.y];
        let p = pos[sim.n + i];
        let v = vel[sim.n + i];
        var heading = V(0.0);
        if FOV && sp.has_fov != 0u {
            heading = normalize_or_zero(v);
        }
        me = Focal(i, m.x, m.y * sim.species_count, heading, any(heading != V(0.0)));
        gather(p);
        let s = sums;
        nb = s.neighbours;
        cand = s.candidates;

        // Behaviours in the core's priority order (steer.rs's `steer_one`).
        var avoid = V(0.0);
        var near = false;
        if OBSTACLES {
            let clear = clearance(p);
            let avoid_reach = sp.obstacle_margin + length(v) * sp.obstacle_lookahead;
            if sp.obstacle_weight > 0.0 && clear <= avoid_reach + behave.skin {
                avoid = avoidance(p, v, sp.obstacle_lookahead, sp.obstacle_margin, sp.max_speed,
                                  sp.max_force) * sp.obstacle_weight;
            }
            near = clear <= sp.max_speed * sim.dt + behave.skin;
        }
        var pulse = V(0.0);
        var seek_to = V(0.0);
        if ENTITIES {
            let base = frame_base();
            for (var k = 0u; k < behave.pulses; k++) {
                pulse += push(base + 2u * behave.attractors, k, p);
            }
            for (var k = 0u; k < behave.attractors; k++) {
                seek_to += arrive(base, k, m.y, p, v);
            }
            let paths = base + 2u * (behave.attractors + behave.pulses);
            for (var k = 0u; k < behave.paths; k++) {
                seek_to += follow_path(paths, k, m.y, p, v);
            }
        }
        var flee = V(0.0);
        var lead = V(0.0);
        var afraid = false;
        if RELATIONS {
            let r = interactions(p, v, m.x, m.y);
            if r.seen {
                flee = seek(r.away, v, sp) * sp.flee_weight;
            }
            afraid = r.seen;
            lead = r.heading;
            seek_to += r.pull;
        }
        if ENTITIES && sp.wander_weight > 0.0 {
            seek_to += wander(frame_base(), m.x, m.y, v);
        }
        let f = rule_forces(s, v, sp, lead);
        let forces = array<V, 7>(avoid, pulse, flee, seek_to, f[0], f[1], f[2]);
        var a = combine(forces, sp) + boundary_force(p, v) + cruise(v, sp, afraid);
        if sp.smoothing > 0.0 {
            a = acc[sim.n + i] * sp.smoothing + a * (1.0 - sp.smoothing);
        }
        if BANKED && sp.roll_rate > 0.0 {
            a = banked(a, acc[sim.n + i], v);
        }
        var v2 = v + a * sim.dt;
        if sp.jitter > 0.0 {
            var r = rng_new(sim.seed_key, vec2<u32>(m.x, 0u), step, STREAM_JITTER);
            let u = rng_f32(&r);
            let w = rng_f32(&r);
            let dir = unit_from_uniform(u, w);
            v2 += dir * (sp.jitter * sp.max_speed * rng_f32(&r));
        }
        v2 = clamp_speed(v2, v, sp, m.x, step);
        var p2 = p + v2 * sim.dt;
        // Sweep the motion against the obstacles, then confine; a wrap or
        // reflection can land inside one, so project again.
        if OBSTACLES && near {
            p2 = resolve(p, p2, &v2, behave.skin);
        }
        let before = p2;
        confine(&p2, &v2);
        if OBSTACLES && any(p2 != before) {
            p2 = resolve(p2, p2, &v2, behave.skin);
            confine(&p2, &v2);
        }
        pos[i] = p2;
        vel[i] = v2;
        acc[i] = a;
        tags[i] = m;
        if RELATIONS {
            write_actor(m, p2, v2);
        }
    }
    // Per-workgroup counters (fixed reduction order).
    scratch[lid] = nb;
    scratch2[lid] = cand;
    for (var off = WG / 2u; off > 0u; off >>= 1u) {
        workgroupBarrier();
        if lid < off {
            scratch[lid] += scratch[lid + off];
            scratch2[lid] += scratch2[lid + off];
        }
    }
    workgroupBarrier();
    if lid == 0u {
        let w = wid.x + wid.y * nwg.x;
        clock[STATS + 2u * w] = scratch[0];
        clock[STATS + 2u * w + 1u] = scratch2[0];
    }
}
