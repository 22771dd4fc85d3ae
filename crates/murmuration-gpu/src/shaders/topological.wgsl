// Topological neighbours (the core's topological.rs): a species with
// `topological > 0` reacts to its k nearest neighbours within the perception
// radius, chosen among the kernel's own candidates (same offsets, cone and
// relation tests) by (distance², id), and summed nearest first.

const MAX_TOPOLOGICAL: u32 = 64u;

var<private> kept: u32;
var<private> kept_d2: array<f32, MAX_TOPOLOGICAL>;
var<private> kept_j: array<u32, MAX_TOPOLOGICAL>;
var<private> kept_d: array<V, MAX_TOPOLOGICAL>;

// Insertion into the k nearest, ordered by (distance², id).
fn keep_nearest(j: u32, d2: f32, d: V) {
    let k = min(sp.topological, MAX_TOPOLOGICAL);
    let id = tags[sim.n + j].x;
    if kept == k {
        let l = kept_d2[k - 1u];
        if l < d2 || (l == d2 && tags[sim.n + kept_j[k - 1u]].x < id) {
            return;
        }
    }
    var at = min(kept, k - 1u);
    loop {
        if at == 0u {
            break;
        }
        let b = kept_d2[at - 1u];
        let before = b < d2 || (b == d2 && tags[sim.n + kept_j[at - 1u]].x < id);
        if before {
            break;
        }
        kept_d2[at] = kept_d2[at - 1u];
        kept_j[at] = kept_j[at - 1u];
        kept_d[at] = kept_d[at - 1u];
        at -= 1u;
    }
    kept_d2[at] = d2;
    kept_j[at] = j;
    kept_d[at] = d;
    kept = min(kept + 1u, k);
}

// The rule sums over the kept neighbours, nearest first.
fn sum_nearest() {
    for (var b = 0u; b < kept; b++) {
        let j = kept_j[b];
        var rel = RELATION_FLOCK;
        if MULTI {
            rel = relations[me.row + tags[sim.n + j].y];
        }
        add_neighbour(j, kept_d2[b], kept_d[b], rel);
    }
}
