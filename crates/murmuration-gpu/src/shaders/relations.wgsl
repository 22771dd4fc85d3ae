// Flee, chase and follow, and chasers that eat (appended to flock.wgsl; the host
// side and the layout of `actor_table` are in relations.rs). The twins of the
// core's interactions.rs, with its ordering rules: nearest first, ties to the
// lower id; chasers eat in ascending id order, one meal each per step.

const DEAD: u32 = 0x80000000u;       // set in a species word once eaten
const NO_ACTOR: u32 = 0xffffffffu;
const INTERACT_FLEE: u32 = 1u;
const INTERACT_CHASE: u32 = 2u;
const INTERACT_FOLLOW: u32 = 3u;
const EVENT_WORDS: u32 = 8u;

// The actor table (relations.rs) in behaviours.wgsl's `scene`, from behave.table_at.
fn actor_table(i: u32) -> u32 {
    return scene[behave.table_at + i / 4u][i % 4u];
}
// Two halves of actor records (2 vec4 each: position + id bits, velocity +
// species word): a step reads half (step & 1) and writes the other.
@group(1) @binding(2) var<storage, read_write> actors: array<vec4<f32>>;
// [count, 0, 0, 0], then EVENT_WORDS per eaten boid, then each eater's target.
@group(1) @binding(3) var<storage, read_write> events: array<u32>;

fn interact_code(a: u32, b: u32) -> u32 {
    return actor_table(a * behave.species + b);
}

fn actor_range(b: u32) -> vec2<u32> {
    let at = behave.species * behave.species + 2u * b;
    return vec2<u32>(actor_table(at), actor_table(at + 1u));
}

fn actor_of(id: u32) -> u32 {
    let base = behave.species * behave.species + 2u * behave.species + behave.eaters;
    return actor_table(base + id);
}

// Offset a → b with the nearest periodic image in a wrapping world.
fn offset(a: V, b: V) -> V {
    var d = b - a;
    if sim.boundary == BOUNDARY_WRAP {
        d -= v_from(sim.period) * round(d * v_from(sim.inv_period));
    }
    return d;
}

// Records an actor's new state in the half the next step reads.
fn write_actor(m: vec2<u32>, p: V, v: V) {
    let k = actor_of(m.x);
    if k == NO_ACTOR {
        return;
    }
    let at = 2u * (((clock[0] + 1u) & 1u) * behave.actors + k);
    actors[at] = vec4<f32>(vec4_of(p).xyz, bitcast<f32>(m.x));
    actors[at + 1u] = vec4<f32>(vec4_of(v).xyz, bitcast<f32>(m.y));
}

struct Interaction {
    away: V,        // Σ −d/|d|² over threats in flee reach
    seen: bool,     // some threat in reach
    pull: V,        // follow (per rule) and chase forces, weighted
    heading: V,     // follow's direction for species steering by directions
}

// Flee and follow over the actors of each species concerned, plus the pursuit
// force `pursue` left for a chaser (interactions.rs's `forces`).
fn interactions(p: V, v: V, id: u32, a: u32) -> Interaction {
    var r = Interaction(V(0.0), false, V(0.0), V(0.0));
    let rb = 2u * ((clock[0] & 1u) * behave.actors);
    var chases = false;
    for (var b = 0u; b < behave.species; b++) {
        let code = interact_code(a, b);
        if code == INTERACT_CHASE {
            chases = true;
            continue;
        }
        if code != INTERACT_FLEE && code != INTERACT_FOLLOW {
            continue;
        }
        let range = actor_range(b);
        var best_d2 = 3.4e38;
        var best_id = NO_ACTOR;
        var best_d = V(0.0);
        var best_v = V(0.0);
        let reach = select(sp.follow_radius, sp.flee_radius, code == INTERACT_FLEE);
        if range.x < range.y {
            // Only the actors this workgroup's box can reach (`cull_actors`),
            // in actor order.
            for (var wd = range.x / 32u; wd <= (range.y - 1u) / 32u; wd++) {
                var bits = atomicLoad(&near_actors[wd]);
                while bits != 0u {
                    let bit = firstTrailingBit(bits);
                    bits &= bits - 1u;
                    let k = wd * 32u + bit;
                    if k < range.x || k >= range.y {
                        continue;
                    }
                    let x = actors[rb + 2u * k];
                    let y = actors[rb + 2u * k + 1u];
                    let other = bitcast<u32>(x.w);
                    if (bitcast<u32>(y.w) & DEAD) != 0u || other == id {
                        continue;
                    }
                    let d = offset(p, v_from(x));
                    let d2 = dot(d, d);
                    if d2 >= reach * reach {
                        continue;
                    }
                    if code == INTERACT_FLEE {
                        r.away -= d * (1.0 / max(d2, 1e-12));
                        r.seen = true;
                    } else if d2 < best_d2 || (d2 == best_d2 && other < best_id) {
                        best_d2 = d2;
                        best_id = other;
                        best_d = d;
                        best_v = v_from(y);
                    }
                }
            }
        }
        if code == INTERACT_FOLLOW && best_id != NO_ACTOR {
            if sp.steering == STEERING_DIRECTIONS {
                let r0 = 0.5 * sp.follow_radius;
                let pull = clamp((length(best_d) - r0) / r0, 0.0, 1.0);
                r.heading += (normalize_or_zero(best_v) + normalize_or_zero(best_d) * pull)
                    * sp.follow_weight;
            } else {
                r.pull += seek(best_d, v, sp) * sp.follow_weight;
            }
        }
    }
    if chases {
        r.pull += v_from(actors[4u * behave.actors + actor_of(id)]);
    }
    return r;
}

// ---- the actors a workgroup can reach ------------------------------------------

// Bit k: actor k lies within `actor_reach` of this workgroup's bounding box. Set
// by atomic OR (order-free), read in actor order: the sums stay deterministic.
const MAX_ACTOR_WORDS: u32 = 512u;   // relations.rs's MAX_ACTORS / 32
var<workgroup> near_actors: array<atomic<u32>, MAX_ACTOR_WORDS>;
var<workgroup> box_lo: array<atomic<u32>, 3>;
var<workgroup> box_hi: array<atomic<u32>, 3>;

// An f32 as a u32 with the same order (negative values flipped).
fn ordered(x: f32) -> u32 {
    let b = bitcast<u32>(x);
    return select(b | 0x80000000u, ~b, (b & 0x80000000u) != 0u);
}

fn unordered(u: u32) -> f32 {
    return bitcast<f32>(select(~u, u & 0x7fffffffu, (u & 0x80000000u) != 0u));
}

// The workgroup's box over its live boids' positions, then the actors within
// reach of it. Every invocation of the workgroup calls this (barriers).
fn cull_actors(lid: u32, i: u32) {
    let words = (behave.actors + 31u) / 32u;
    if lid < 3u {
        atomicStore(&box_lo[lid], 0xffffffffu);
        atomicStore(&box_hi[lid], 0u);
    }
    for (var w = lid; w < words; w += WG) {
        atomicStore(&near_actors[w], 0u);
    }
    workgroupBarrier();
    if i < sim.n && (tags[sim.n + i].y & DEAD) == 0u {
        let p = pos[sim.n + i];
        for (var a = 0u; a < DIM; a++) {
            atomicMin(&box_lo[a], ordered(p[a]));
            atomicMax(&box_hi[a], ordered(p[a]));
        }
    }
    workgroupBarrier();
    var lo = V(0.0);
    var hi = V(0.0);
    for (var a = 0u; a < DIM; a++) {
        lo[a] = unordered(atomicLoad(&box_lo[a]));
        hi[a] = unordered(atomicLoad(&box_hi[a]));
    }
    let empty = atomicLoad(&box_lo[0]) > atomicLoad(&box_hi[0]);
    let rb = 2u * ((clock[0] & 1u) * behave.actors);
    let centre = (lo + hi) * 0.5;
    let half = (hi - lo) * 0.5;
    for (var k = lid; k < behave.actors && !empty; k += WG) {
        // Triangle inequality: no boid of the box is nearer than this.
        let d = offset(centre, v_from(actors[rb + 2u * k]));
        var out = 0.0;
        for (var a = 0u; a < DIM; a++) {
            var e = abs(d[a]) - half[a];
            if sim.boundary == BOUNDARY_WRAP && half[a] >= 0.25 * sim.period[a] {
                e = 0.0; // a box across half the period: no bound along it
            }
            out += max(e, 0.0) * max(e, 0.0);
        }
        if out <= behave.actor_reach * behave.actor_reach * 1.0001 {
            atomicOr(&near_actors[k / 32u], 1u << (k % 32u));
        }
    }
    workgroupBarrier();
}

// ---- walking the grid at any radius -------------------------------------------

// The cells within `r` of a point along each axis, as coordinate bounds for three
// nested loops (`cell_run` gives each cell's run of sorted slots); `all`: one
// iteration over every live boid instead, when that is fewer than the cells.
struct Walk {
    lo: vec3<i32>,
    hi: vec3<i32>,
    all: bool,
}

fn walk(q: V, r: f32) -> Walk {
    var w = Walk(vec3<i32>(0), vec3<i32>(0), false);
    let c = cell_of(q);
    var total = 1.0;
    for (var a = 0u; a < DIM; a++) {
        let reach = i32(ceil(min(r * sim.inv_cell[a], 1e6)));
        let ca = vi_at(c, a);
        if MODE == MODE_PERIODIC && 2 * reach + 1 >= i32(sim.dims[a]) {
            w.lo[a] = 0;
            w.hi[a] = i32(sim.dims[a]) - 1;
        } else {
            w.lo[a] = ca - reach;
            w.hi[a] = ca + reach;
        }
        total *= f32(w.hi[a] - w.lo[a] + 1);
    }
    if total > f32(sim.cells) {
        return Walk(vec3<i32>(0), vec3<i32>(0), true);
    }
    return w;
}

// The sorted slots of cell `c` of a walk (every live boid for an `all` walk).
fn cell_run(w: Walk, c: vec3<i32>) -> vec2<u32> {
    if w.all {
        return vec2<u32>(0u, starts[sim.cells]);
    }
    var idx = 0u;
    if MODE == MODE_PERIODIC {
        var stride = 1u;
        for (var a = 0u; a < DIM; a++) {
            idx += wrap_coord(c[a], sim.dims[a]) * stride;
            stride *= sim.dims[a];
        }
    } else {
        idx = cell_index(vi_from(vec4<i32>(c, 0)));
    }
    return vec2<u32>(starts[idx], starts[idx + 1u]);
}

// Flockmates of the boid at slot j (same species, alive) strictly within its
// species' perception radius, excluding itself; `after`: positions after the
// move (state A, searched `behave.travel` farther in the grid built before it).
fn crowd(j: u32, after: bool) -> f32 {
    let b = meta_species(j, after);
    let r = species[b].perception_radius;
    var q = pos[sim.n + j];
    var reach = r;
    if after {
        q = pos[j];
        reach = r + behave.travel;
    }
    var c = 0u;
    let w = walk(q, reach);
    // Hashed cells can share a bucket: count each bucket once.
    var seen: array<u32, 27>;
    var nseen = 0u;
    for (var z = w.lo.z; z <= w.hi.z; z++) {
        for (var y = w.lo.y; y <= w.hi.y; y++) {
            for (var x = w.lo.x; x <= w.hi.x; x++) {
                let run = cell_run(w, vec3<i32>(x, y, z));
                var dup = run.x == run.y;
                if MODE == MODE_HASHED && !w.all && !dup {
                    for (var s = 0u; s < nseen; s++) {
                        dup = dup || seen[s] == run.x;
                    }
                    if nseen < 27u {
                        seen[nseen] = run.x;
                        nseen += 1u;
                    }
                }
                if dup {
                    continue;
                }
                for (var k = run.x; k < run.y; k++) {
                    if k != j && meta_species(k, after) == b {
                        var o: V;
                        if after {
                            o = offset(q, pos[k]);
                        } else {
                            o = offset(q, pos[sim.n + k]);
                        }
                        if dot(o, o) < r * r {
                            c += 1u;
                        }
                    }
                }
            }
        }
    }
    return f32(c);
}

// A slot's species word, before (B) or after (A) the move; DEAD included.
fn meta_species(j: u32, after: bool) -> u32 {
    if after {
        return tags[j].y;
    }
    return tags[sim.n + j].y;
}

// A chaser's choice so far: score, sorted slot and id of the target (NO_ACTOR:
// none yet).
struct Choice {
    s: f32,
    j: u32,
    id: u32,
}

// `a` comes before `b` in the order of (score, id); a choice before none.
fn before(a: Choice, b: Choice) -> bool {
    return a.j != NO_ACTOR && (b.j == NO_ACTOR || a.s < b.s || (a.s == b.s && a.id < b.id));
}

// A workgroup chases for one chaser: the lanes share its walk's cells, each keeps
// its best, and the lanes' bests meet in `choose`. Any order of visits gives the
// same choice, the least (score, id) that passes every test; `chase_bound` (the
// least score taken by any lane, as `ordered` bits) only saves work: a candidate
// beyond it cannot win.
var<workgroup> chase_s: array<f32, WG>;
var<workgroup> chase_j: array<u32, WG>;
var<workgroup> chase_id: array<u32, WG>;
var<workgroup> chase_bound: atomic<u32>;
var<workgroup> chaser: vec2<u32>;   // (species, 1 when it chases) for uniform control flow

// One lane's part of a round of `chase` (interactions.rs's `chase`): round 0 the
// nearest target in sight and not in a confusing crowd; round 1 (stragglers
// preferred) the least distance scaled up by the target's flockmates, starting
// from round 0's choice `init` at its scaled score.
fn chase_lane(lid: u32, id: u32, p: V, v: V, a: u32, round_: u32, init: Choice) -> Choice {
    let heading = normalize_or_zero(v);
    let cone = sp.has_fov != 0u && any(heading != V(0.0));
    let r2 = sp.chase_radius * sp.chase_radius;
    var best = init;
    let w = walk(p, sp.chase_radius);
    let ext = w.hi - w.lo + vec3<i32>(1);
    var cells = u32(ext.x * ext.y * ext.z);
    let live = starts[sim.cells];
    let chunk = (live + WG - 1u) / WG;
    if w.all {
        cells = WG; // every live boid, in WG chunks
    }
    for (var c = lid; c < cells; c += WG) {
        var run: vec2<u32>;
        if w.all {
            run = vec2<u32>(min(c * chunk, live), min((c + 1u) * chunk, live));
        } else {
            let ci = i32(c);
            let at = w.lo + vec3<i32>(ci % ext.x, (ci / ext.x) % ext.y, ci / (ext.x * ext.y));
            run = cell_run(w, at);
        }
        for (var j = run.x; j < run.y; j++) {
            let t = tags[sim.n + j];
            let d = offset(p, pos[sim.n + j]);
            let d2 = dot(d, d);
            let dist = sqrt(d2);
            if t.x == id || interact_code(a, t.y) != INTERACT_CHASE || d2 >= r2
                || (cone && dot(d, heading) < sp.cos_half_fov * dist) {
                continue;
            }
            // Every score is at least the distance.
            if ordered(dist) > atomicLoad(&chase_bound) {
                continue;
            }
            if round_ == 0u && !before(Choice(dist, j, t.x), best) {
                continue;
            }
            if round_ == 1u && best.j != NO_ACTOR && dist > best.s {
                continue;
            }
            var crowded = 0.0;
            if sp.confusion > 0.0 || round_ == 1u {
                crowded = crowd(j, false);
            }
            if sp.confusion > 0.0 && crowded >= sp.confusion {
                continue;
            }
            var score = dist;
            if round_ == 1u {
                score = dist * (1.0 + sp.straggler_preference * crowded);
                if !before(Choice(score, j, t.x), best) {
                    continue;
                }
            }
            best = Choice(score, j, t.x);
            atomicMin(&chase_bound, ordered(score));
        }
    }
    return best;
}

// The workgroup's least choice of its lanes' `mine`, in every lane.
fn choose(lid: u32, mine: Choice) -> Choice {
    chase_s[lid] = mine.s;
    chase_j[lid] = mine.j;
    chase_id[lid] = mine.id;
    workgroupBarrier();
    for (var half = WG / 2u; half > 0u; half >>= 1u) {
        if lid < half {
            let o = Choice(chase_s[lid + half], chase_j[lid + half], chase_id[lid + half]);
            if before(o, Choice(chase_s[lid], chase_j[lid], chase_id[lid])) {
                chase_s[lid] = o.s;
                chase_j[lid] = o.j;
                chase_id[lid] = o.id;
            }
        }
        workgroupBarrier();
    }
    let best = Choice(chase_s[0], chase_j[0], chase_id[0]);
    workgroupBarrier();
    return best;
}

// Before `steer`, one workgroup per actor: a chaser's pursuit force from the
// state before the move, left after the records for `steer` to add (the twin of
// interactions.rs's `chase`: the nearest target, ties to the lower id).
@compute @workgroup_size(WG)
fn pursue(@builtin(local_invocation_id) lid3: vec3<u32>, @builtin(workgroup_id) wid: vec3<u32>,
          @builtin(num_workgroups) nwg: vec3<u32>) {
    let k = wid.x + wid.y * nwg.x;
    let lid = lid3.x;
    if k >= behave.actors {
        return;
    }
    let rb = 2u * ((clock[0] & 1u) * behave.actors);
    let x = actors[rb + 2u * k];
    let y = actors[rb + 2u * k + 1u];
    if lid == 0u {
        let a = bitcast<u32>(y.w);
        var chases = false;
        if (a & DEAD) == 0u {
            for (var b = 0u; b < behave.species; b++) {
                chases = chases || interact_code(a, b) == INTERACT_CHASE;
            }
        }
        chaser = vec2<u32>(a, u32(chases));
        atomicStore(&chase_bound, 0xffffffffu);
    }
    let who = workgroupUniformLoad(&chaser);
    if who.y == 0u {
        if lid == 0u {
            actors[4u * behave.actors + k] = vec4<f32>(0.0);
        }
        return;
    }
    let a = who.x;
    sp = species[a];
    let id = bitcast<u32>(x.w);
    let p = v_from(x);
    let v = v_from(y);
    let none = Choice(3.4e38, NO_ACTOR, NO_ACTOR);
    var best = choose(lid, chase_lane(lid, id, p, v, a, 0u, none));
    // Nothing in sight: round 1 would find nothing either (the CPU skips it).
    let found = workgroupUniformLoad(&chase_j[0]) != NO_ACTOR;
    if species[a].straggler_preference > 0.0 && found {
        if lid == 0u && best.j != NO_ACTOR {
            let s = best.s * (1.0 + sp.straggler_preference * crowd(best.j, false));
            chase_s[0] = s;
            atomicStore(&chase_bound, ordered(s));
        }
        workgroupBarrier();
        best.s = chase_s[0];
        workgroupBarrier();
        best = choose(lid, chase_lane(lid, id, p, v, a, 1u, best));
    }
    if lid == 0u {
        var f = V(0.0);
        if best.j != NO_ACTOR {
            let d = offset(p, pos[sim.n + best.j]);
            let lead = length(d) / max(sp.max_speed, 1e-6);
            f = seek(d + vel[sim.n + best.j] * min(lead, 2.0), v, sp) * sp.chase_weight;
        }
        actors[4u * behave.actors + k] = vec4_of(f);
    }
}

// The prey eating chaser `k` (an actor of species `a`, id `id`) would take after
// the move, among the live ones: the nearest in reach (ties to the lower id) not
// in a confusing crowd; NO_ACTOR when none.
fn eat_target(k: u32, a: u32, id: u32) -> u32 {
    let wb = 2u * (((clock[0] + 1u) & 1u) * behave.actors);
    let rb = 2u * ((clock[0] & 1u) * behave.actors);
    let ps = species[a];
    let r2 = ps.eat_radius * ps.eat_radius;
    let pc = v_from(actors[wb + 2u * k]);
    var best_d2 = 3.4e38;
    var best_j = NO_ACTOR;
    // Candidates sit in the grid built before the move, near where the chaser
    // was then.
    let w = walk(v_from(actors[rb + 2u * k]), behave.eat_reach);
    for (var z = w.lo.z; z <= w.hi.z; z++) {
        for (var y = w.lo.y; y <= w.hi.y; y++) {
            for (var x = w.lo.x; x <= w.hi.x; x++) {
                let run = cell_run(w, vec3<i32>(x, y, z));
                for (var j = run.x; j < run.y; j++) {
                    let mj = tags[j];
                    let d = offset(pc, pos[j]);
                    let d2 = dot(d, d);
                    var take = (mj.y & DEAD) == 0u && mj.x != id
                        && interact_code(a, mj.y) == INTERACT_CHASE && d2 < r2;
                    if take {
                        take = best_j == NO_ACTOR || d2 < best_d2
                            || (d2 == best_d2 && mj.x < tags[best_j].x);
                    }
                    if take && ps.confusion > 0.0 {
                        take = crowd(j, true) < ps.confusion;
                    }
                    if take {
                        best_d2 = d2;
                        best_j = j;
                    }
                }
            }
        }
    }
    return best_j;
}

// The eating chasers' searches side by side, before anyone eats: eater e's
// target slot into the event buffer's tail (a u32: a slot kept in an f32 lane
// could lose its bits as a NaN). One invocation per workgroup:
// lavapipe miscounted crowds in lanes beside a lane still walking the grid (an
// execution-mask fault), and the searches are few. The single-thread `pursue`
// before the workgroup one showed the same on lavapipe (seed 002's shark, its
// lane beside the finished lane of a non-chasing actor, left the CPU's target);
// the workgroup `pursue`, whose lanes all walk, agrees with the CPU there
// (a_straggler_hunting_shark_chooses_the_cpus_target).
@compute @workgroup_size(1)
fn eat_search(@builtin(global_invocation_id) gid: vec3<u32>, @builtin(num_workgroups) nwg: vec3<u32>) {
    let e = gid.x + gid.y * nwg.x;
    if e >= behave.eaters {
        return;
    }
    let wb = 2u * (((clock[0] + 1u) & 1u) * behave.actors);
    let k = actor_table(behave.species * behave.species + 2u * behave.species + e);
    let word = bitcast<u32>(actors[wb + 2u * k + 1u].w);
    var target_slot = NO_ACTOR;
    if (word & DEAD) == 0u {
        target_slot = eat_target(k, word, bitcast<u32>(actors[wb + 2u * k].w));
    }
    events[4u + behave.events_cap * EVENT_WORDS + e] = target_slot;
}

// After the searches, one thread: eating chasers in ascending id order each eat
// their target, at most one per step; a target an earlier chaser ate is searched
// again among the live ones (the sequential rule of World::step, exactly: a
// chaser's nearest live prey is its nearest prey whenever that one still lives).
// The eaten are marked DEAD and recorded.
@compute @workgroup_size(1)
fn eat() {
    let wb = 2u * (((clock[0] + 1u) & 1u) * behave.actors);
    let order = behave.species * behave.species + 2u * behave.species;
    for (var e = 0u; e < behave.eaters; e++) {
        let k = actor_table(order + e);
        let now = actors[wb + 2u * k];
        let word = bitcast<u32>(actors[wb + 2u * k + 1u].w);
        if (word & DEAD) != 0u {
            continue;
        }
        let id = bitcast<u32>(now.w);
        var best_j = events[4u + behave.events_cap * EVENT_WORDS + e];
        if best_j == NO_ACTOR {
            continue;
        }
        if (tags[best_j].y & DEAD) != 0u {
            best_j = eat_target(k, word, id);
            if best_j == NO_ACTOR {
                continue;
            }
        }
        let prey = tags[best_j];
        tags[best_j] = vec2<u32>(prey.x, prey.y | DEAD);
        let pk = actor_of(prey.x);
        if pk != NO_ACTOR {
            let at = wb + 2u * pk + 1u;
            actors[at].w = bitcast<f32>(bitcast<u32>(actors[at].w) | DEAD);
        }
        let n = events[0];
        events[0] = n + 1u;
        if n < behave.events_cap {
            let at = 4u + n * EVENT_WORDS;
            let q = vec4_of(pos[best_j]);
            events[at] = clock[0];
            events[at + 1u] = clock[1];
            events[at + 2u] = id;
            events[at + 3u] = prey.x;
            events[at + 4u] = bitcast<u32>(q.x);
            events[at + 5u] = bitcast<u32>(q.y);
            events[at + 6u] = bitcast<u32>(q.z);
            events[at + 7u] = 0u;
        }
    }
}
