//! The walk of the steering pass: it goes through the sorted boids of one
//! chunk and gives each one's neighbour sums, computed a group at a time.
//!
//! A group is up to [`Lanes::N`] consecutive boids of one row of cells (at most
//! four cells): the kernel gives all of them their sums at once, one boid
//! per lane ([`kernel::accumulate`]), so the per-boid set-up, the reduction of
//! candidate lanes and the candidate-block copy of a candidates-in-lanes kernel
//! are gone. Each boid's sums do not depend on its group (see the kernel).

use crate::behaviours::navigation::NavField;
use crate::grid::{Grid, Runs, Span};
use crate::params::Relation;
use crate::step::context::StepContext;
use crate::step::interactions::Interactions;
use crate::step::kernel::{self, Focal, Group, GroupLanes, MAX_LANES, RelationPattern, SortedSoa};
use crate::step::lanes::Lanes;
use crate::step::nearest::{self, NearestLanes};
use crate::step::rules::{RuleConsts, Sums, coincident_direction};
use crate::step::topological;
use crate::vector::Vector;
use std::cell::RefCell;
use wide::f32x8;

thread_local! {
    /// Each worker's per-boid topological scratch (allocated on first use),
    /// reused from group to group and step to step.
    static NEAREST: RefCell<Option<Box<Nearest>>> = const { RefCell::new(None) };
    /// Each worker's slots for the groups' lists by keys
    /// ([`nearest::Slots`]), allocated on first use.
    static SLOTS: RefCell<Option<Box<nearest::Slots>>> = const { RefCell::new(None) };
}

/// The most topological neighbours a species may ask for, as an array length.
const MAX_K: usize = crate::params::MAX_TOPOLOGICAL as usize;

/// Scratch for one boid's topological neighbours (the per-boid kernel).
type Nearest = [topological::Chosen; MAX_K];

/// What every chunk of the steering pass reads.
pub(crate) struct PassEnv<'a, V: Vector> {
    /// The step's neighbour grid.
    pub grid: &'a Grid,
    /// Boids in cell order.
    pub sorted: &'a SortedSoa,
    /// Each species' derived rule constants.
    pub consts: &'a [RuleConsts],
    /// Each species' relation pattern.
    pub patterns: &'a [RelationPattern],
    /// Predator and prey searches of the step.
    pub interactions: &'a Interactions<V>,
    pub ctx: &'a StepContext<'a, V>,
    /// Boid ids in sorted order.
    pub ids: &'a [u32],
    /// Periodic box size (zero when the world does not wrap).
    pub period: V,
    pub has_obstacles: bool,
    pub has_interactions: bool,
    /// Some species reacts to its k nearest neighbours only ([`crate::step::topological`]).
    pub topological: bool,
    /// Steer a group of boids at a time ([`crate::step::batch::Batch`]).
    pub batched: bool,
    /// Some boid feels forces from outside its flock (pulses, targets,
    /// paths, predators, prey, leaders, the wander): the lanes load them.
    pub entities: bool,
    /// Every species is a Vicsek species: eight particles at a time.
    pub vicsek: bool,
    /// Contact gap for obstacles, units.
    pub skin: f32,
    /// Each attractor's flow field, where it navigates ([`Attractor::navigate`]).
    ///
    /// [`Attractor::navigate`]: crate::Attractor::navigate
    pub ways: &'a [Option<NavField<V>>],
    /// Each topological boid's reach, last step's and this step's
    /// ([`crate::step::reaches`]).
    pub reaches: crate::step::reaches::Sides<'a>,
}

/// Walks the sorted boids `..end` in order and gives each one's neighbour sums
/// (and what the steering reads besides them).
pub(crate) struct Focuser<'a, V: Vector, const FLAGS: u8, const SINGLE: u8> {
    env: &'a PassEnv<'a, V>,
    /// One past the last sorted index of the walk (its chunk's end).
    end: usize,
    /// The sorted indices of the cell the walk is in.
    cell_span: std::ops::Range<usize>,
    /// The cell the walk is in (`usize::MAX` before the first).
    cell: usize,
    /// Its coordinates.
    coords: [u32; 3],
    /// A cell's runs, for the per-boid topological kernel (scratch).
    runs: Runs<V>,
    /// No boid of the cell is nearer any obstacle than this.
    cell_clear: f32,
    /// The sorted indices whose sums `lanes` holds.
    group: std::ops::Range<usize>,
    /// The group's sums lane by lane ([`GroupLanes`]).
    lanes: GroupLanes,
    /// The topological neighbours kept for a boid by the per-boid kernel:
    /// this thread's scratch, taken on first use and given back on drop.
    nearest: Option<Box<Nearest>>,
    /// The groups' slots for lists by keys: this thread's, taken on first
    /// use and given back on drop.
    slots: Option<Box<nearest::Slots>>,
    /// Neighbours counted so far.
    pub neighbours: u64,
    /// Candidates measured so far.
    pub candidates: u64,
}

impl<'a, V: Vector, const FLAGS: u8, const SINGLE: u8> Focuser<'a, V, FLAGS, SINGLE> {
    /// A walk over the sorted boids of `env` before `end`.
    pub fn new(env: &'a PassEnv<'a, V>, end: usize) -> Self {
        Self {
            env,
            end,
            cell_span: 0..0,
            cell: usize::MAX,
            coords: [0; 3],
            runs: env.grid.runs::<V>([0; 3]),
            cell_clear: f32::INFINITY,
            group: 0..0,
            lanes: [[0.0; MAX_LANES]; 12],
            nearest: None,
            slots: None,
            neighbours: 0,
            candidates: 0,
        }
    }

    /// The neighbour sums of sorted index `si`, exactly as the step computes them.
    #[inline(always)]
    pub fn focus(&mut self, si: usize) -> Focus<V> {
        let env = self.env;
        let data = env.sorted;
        self.reach(si);
        let sums = kernel::lane_sums::<V>(&self.lanes, si - self.group.start);
        self.neighbours += sums.neighbours as u64;
        Focus {
            sums,
            pos: data.position::<V>(si),
            vel: data.velocity::<V>(si),
            species: data.species[si] as usize,
            id: env.ids[si],
            cell_clear: self.cell_clear,
        }
    }

    /// Moves the walk to sorted index `si`: its cell, and the group holding it.
    #[inline(always)]
    fn reach(&mut self, si: usize) {
        let grid = self.env.grid;
        if !self.cell_span.contains(&si) {
            let c = if self.cell != usize::MAX && si >= self.cell_span.end {
                grid.cell_after(self.cell, si)
            } else {
                grid.keys()[grid.order()[si] as usize] as usize
            };
            self.enter(c, si);
        }
        if !self.group.contains(&si) {
            self.group_from(si);
        }
    }

    /// The group that starts at sorted index `si` (the walk's next boid after
    /// a whole group): its sorted indices and its sums lane by lane, lane 0
    /// being `si`.
    #[inline(always)]
    pub fn group_lanes(&mut self, si: usize) -> (std::ops::Range<usize>, &GroupLanes) {
        self.reach(si);
        debug_assert_eq!(self.group.start, si, "groups are taken whole");
        (self.group.clone(), &self.lanes)
    }

    /// The walk enters cell `c` at sorted index `si`.
    fn enter(&mut self, c: usize, si: usize) {
        let env = self.env;
        let grid = &env.grid;
        self.cell = c;
        self.cell_span = grid.cell_range(c);
        debug_assert!(
            self.cell_span.contains(&si),
            "cell {c} holds sorted index {si}"
        );
        let coords = grid.cell_coords(c);
        self.coords = coords;
        if env.has_obstacles {
            let (centre, half) = grid.cell_ball::<V>(coords);
            self.cell_clear = env.ctx.obstacles.clearance(centre) - half;
        }
    }

    /// Computes the sums of the group that starts at `si` (in the walk's cell).
    fn group_from(&mut self, si: usize) {
        #[cfg(target_arch = "x86_64")]
        if FLAGS & kernel::WIDE != 0 {
            // SAFETY: WIDE is set only where the CPU has AVX-512 F, DQ and VL
            // (`Pipeline::prepare`).
            return unsafe { self.group_wide(si) };
        }
        self.group_sums::<f32x8>(si);
    }

    /// [`Self::group_from`] sixteen lanes wide, compiled with AVX-512 so every
    /// [`crate::step::kernel512::W16`] operation is one instruction.
    ///
    /// SAFETY: the CPU has AVX-512 F, DQ and VL ([`crate::step::kernel512::wide`]).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512dq,avx512vl")]
    unsafe fn group_wide(&mut self, si: usize) {
        self.group_sums::<crate::step::kernel512::W16>(si);
    }

    /// How the lanes of the group `first..first + count` take candidates
    /// of other species (with [`kernel::MULTI`]): the lanes that take every
    /// species, each candidate species' lanes tabled into `table` where some
    /// lane's pattern is general, and whether the single-species kernel
    /// gives the same sums (every focal boid and every candidate of one
    /// species, which flocks with itself: no relation mask changes a lane).
    #[inline(always)]
    fn relations_of<'t, S: Lanes>(
        &self,
        first: usize,
        count: usize,
        span: &Span<V>,
        table: &'t mut [(S::Mask, S::Mask); kernel::RELATE_SPECIES],
    ) -> GroupRelations<'a, S> {
        let env = self.env;
        let (data, relations) = (env.sorted, env.ctx.relations);
        let species_of = |l: usize| data.species[first + l.min(count - 1)] as usize;
        let pattern = |l: usize| env.patterns[species_of(l)];
        let takes_others = S::mask_from(|l| pattern(l) == RelationPattern::SelfFlockOthersSeparate);
        let s0 = data.species[first];
        let starts = env.grid.cell_starts();
        let uniform = (0..count).all(|l| data.species[first + l] == s0)
            && relations.row(s0 as usize)[s0 as usize] == Relation::Flock
            && span.rows[..span.row_count].iter().all(|&(row, _)| {
                span.pieces[..span.piece_count].iter().all(|&(a, b, _, _)| {
                    let r =
                        starts[row + a as usize] as usize..starts[row + b as usize + 1] as usize;
                    data.species[r].iter().all(|&s| s == s0)
                })
            });
        let general = !uniform && (0..count).any(|l| pattern(l) == RelationPattern::General);
        let (mut relate, mut rows) = (false, None);
        if general && relations.count <= kernel::RELATE_SPECIES {
            for (s, entry) in table.iter_mut().enumerate().take(relations.count) {
                let rel = |l: usize| relations.row(species_of(l))[s];
                *entry = (
                    S::mask_from(|l| rel(l).in_rules()),
                    S::mask_from(|l| matches!(rel(l), Relation::Flock | Relation::Follow)),
                );
            }
            relate = true;
        } else if general {
            rows = Some(std::array::from_fn(|l| relations.row(species_of(l))));
        }
        GroupRelations {
            takes_others,
            relate,
            rows,
            uniform,
        }
    }

    /// The sums of the group that starts at sorted index `first` (in the
    /// walk's cell), `S::N` lanes wide, into `self.lanes`.
    #[inline(always)]
    fn group_sums<S: NearestLanes>(&mut self, first: usize) {
        let env = self.env;
        let (grid, c) = (env.grid, self.cell);
        let end = grid
            .span_end(c, self.coords[0])
            .min(first + S::N)
            .min(self.end);
        let span = &grid.span_of::<V>(c, self.coords, first, end);
        let ctx = env.ctx;
        let data = env.sorted;
        let multi = FLAGS & kernel::MULTI != 0;
        let count = end - first;
        debug_assert!(count <= S::N && S::N <= MAX_LANES);
        let species_of = |l: usize| data.species[first + l.min(count - 1)] as usize;
        let fill = S::lanes(0, count);
        let inf = S::splat(f32::INFINITY);
        let zero = S::splat(0.0);
        let mut pos = [inf; 3];
        for (a, p) in pos.iter_mut().enumerate().take(V::DIM) {
            *p = S::select(fill, S::from_slice(&data.pos[a][first..]), inf);
        }
        // Each lane's species constants: max2, sep2, ali2, coh2, eps2, cos_half, gate2.
        let consts = |rc: &RuleConsts| {
            [
                rc.max2,
                rc.sep2,
                rc.ali2,
                rc.coh2,
                rc.eps2,
                rc.cos_half_fov,
                rc.gate2,
            ]
        };
        let k: [S; 7] = if multi {
            let mut k = [[0.0f32; MAX_LANES]; 7];
            for l in 0..S::N {
                let c = consts(&env.consts[species_of(l)]);
                for (kk, c) in k.iter_mut().zip(c) {
                    kk[l] = c;
                }
            }
            k.map(|row| S::from_slice(&row))
        } else {
            consts(&env.consts[species_of(0)]).map(S::splat)
        };
        let mut heading = [zero; 3];
        let mut no_cone = S::lanes(0, S::N);
        if FLAGS & kernel::FOV != 0 {
            let mut h = [[0.0f32; MAX_LANES]; 3];
            for l in 0..count {
                let sp = &ctx.species[species_of(l)];
                if sp.has_vision_cone() {
                    let u = data.velocity::<V>(first + l).normalize_or_zero();
                    for (a, ha) in h.iter_mut().enumerate().take(V::DIM) {
                        ha[l] = u.get(a);
                    }
                }
            }
            for a in 0..V::DIM {
                heading[a] = S::from_slice(&h[a]);
            }
            no_cone = S::mask_from(|l| (0..V::DIM).all(|a| h[a][l] == 0.0));
        }
        let none = S::lanes(0, 0);
        let mut table = [(none, none); kernel::RELATE_SPECIES];
        let rel = if multi {
            self.relations_of::<S>(first, count, span, &mut table)
        } else {
            GroupRelations {
                takes_others: none,
                relate: false,
                rows: None,
                uniform: false,
            }
        };
        let uniform = rel.uniform;
        let g = Group {
            first,
            count,
            pos,
            heading,
            no_cone,
            cones: S::bits(no_cone) != S::bits(S::lanes(0, S::N)),
            max2: k[0],
            sep2: k[1],
            ali2: k[2],
            coh2: k[3],
            eps2: k[4],
            cos_half: k[5],
            gate2: k[6],
            reach: if multi {
                (0..count)
                    .map(|l| env.consts[species_of(l)].reach)
                    .fold(0.0, f32::max)
            } else {
                env.consts[species_of(0)].reach
            },
            species: if multi {
                S::from_slice(&data.species_f[first..])
            } else {
                zero
            },
            takes_others: rel.takes_others,
            relate: rel.relate.then_some(&table[..ctx.relations.count]),
            rows: rel.rows,
        };
        self.group = first..end;
        if env.topological {
            return self.topological_group(&g, span, uniform);
        }
        self.metric_sums(&g, span, uniform);
    }

    /// The sums of group `g` in a world with topological species: its
    /// topological lanes by [`Self::topological_lanes`], the others (if
    /// any) by the metric kernel.
    #[inline(always)]
    fn topological_group<S: NearestLanes>(
        &mut self,
        g: &Group<'_, S>,
        span: &Span<V>,
        uniform: bool,
    ) {
        let (ctx, data) = (self.env.ctx, self.env.sorted);
        // Each lane's k (0: metric, or past the group).
        let k: [u32; MAX_LANES] = std::array::from_fn(|l| {
            let species = || data.species[g.first + l] as usize;
            if l < g.count {
                ctx.species[species()].topological_neighbours
            } else {
                0
            }
        });
        let topo = S::mask_from(|l| k[l] > 0);
        if S::bits(topo) != S::bits(S::lanes(0, g.count)) {
            self.metric_sums(g, span, uniform);
        }
        if S::bits(topo) != 0 {
            self.topological_lanes(g, topo, k, span);
        }
    }

    /// The metric kernel's sums of group `g` into `self.lanes`, each
    /// coincident neighbour's push keyed ([`kernel::coincident_fix`]);
    /// `uniform`: the single-species kernel gives them.
    #[inline(always)]
    fn metric_sums<S: Lanes>(&mut self, g: &Group<'_, S>, span: &Span<V>, uniform: bool) {
        let env = self.env;
        let ctx = env.ctx;
        let data = env.sorted;
        let starts = env.grid.cell_starts();
        let (first, count) = (g.first, g.count);
        let species_of = |l: usize| data.species[first + l] as usize;
        let row_of = |s: usize| ctx.relations.row(s);
        let acc = if uniform {
            kernel::accumulate::<V, S, SINGLE>(g, span, starts, data, env.period)
        } else {
            kernel::accumulate::<V, S, FLAGS>(g, span, starts, data, env.period)
        };
        self.candidates += acc.candidates;
        let out = &mut self.lanes;
        if uniform {
            acc.write_to::<SINGLE>(out, V::DIM);
        } else {
            acc.write_to::<FLAGS>(out, V::DIM);
        }
        // Lanes past `count` saw no candidate: their nearest is +∞.
        if S::bits(acc.nearest2.le(g.eps2)) == 0 {
            return;
        }
        let mut near = [0.0f32; MAX_LANES];
        acc.nearest2.write_to(&mut near);
        let mut eps2 = [0.0f32; MAX_LANES];
        g.eps2.write_to(&mut eps2);
        let seed = ctx.config.seed;
        for l in 0..count {
            if near[l] <= eps2[l] {
                let si = first + l;
                let species = species_of(l);
                let id = env.ids[si];
                let me = (si, l, data.position::<V>(si));
                let rc = &env.consts[species];
                let coincident = |j: usize| coincident_direction::<V>(seed, id, env.ids[j]);
                let row = row_of(species);
                let mut sep = V::ZERO;
                for a in 0..V::DIM {
                    sep.set(a, out[kernel::SEP + a][l]);
                }
                if uniform {
                    kernel::coincident_fix::<V, SINGLE>(
                        me, row, rc, span, starts, data, env.period, coincident, &mut sep,
                    );
                } else {
                    kernel::coincident_fix::<V, FLAGS>(
                        me, row, rc, span, starts, data, env.period, coincident, &mut sep,
                    );
                }
                for a in 0..V::DIM {
                    out[kernel::SEP + a][l] = sep.get(a);
                }
            }
        }
    }

    /// The sums of the topological lanes `topo` of group `g` ([`nearest`]),
    /// each lane's k in `k`.
    /// Worlds of nearest images, and of more boids than the lanes' index
    /// words hold ([`nearest::MAX_SORTED`]), take the per-boid kernel
    /// ([`topological`]).
    fn topological_lanes<S: NearestLanes>(
        &mut self,
        g: &Group<'_, S>,
        topo: S::Mask,
        k: [u32; MAX_LANES],
        span: &Span<V>,
    ) {
        let env = self.env;
        let ctx = env.ctx;
        let data = env.sorted;
        let lanes = S::bits(topo);
        let mine = (0..S::N).filter(|l| lanes >> l & 1 != 0);
        if nearest::per_boid(FLAGS, data.species.len()) {
            for l in mine {
                self.per_boid_lane(g.first + l, l);
            }
            return;
        }
        let seed = ctx.config.seed;
        let push = |l: usize, j: usize| {
            let si = g.first + l;
            let rc = &env.consts[data.species[si] as usize];
            coincident_direction::<V>(seed, env.ids[si], env.ids[j]) * rc.coincident_push
        };
        let slots = self.slots.get_or_insert_with(|| {
            SLOTS
                .with(RefCell::take)
                .unwrap_or_else(|| Box::new([0.0; 2 * nearest::MAX_SLOTS]))
        });
        let bound = env.reaches.bounds(env.grid.order(), g.first, lanes);
        let mut job = nearest::Job {
            g,
            topo,
            k,
            bound,
            reach: [f32::INFINITY; MAX_LANES],
            span,
            own: self.cell - self.coords[0] as usize,
            cell_start: env.grid.cell_starts(),
            data,
            ids: env.ids,
            fov: FLAGS & kernel::FOV != 0,
            multi: FLAGS & kernel::MULTI != 0,
            push: &push,
            out: &mut self.lanes,
            slots,
        };
        self.candidates += S::nearest(&mut job);
        for l in mine {
            env.reaches.set(g.first + l, job.reach[l]);
        }
    }

    /// Lane `l`'s sums (the boid at sorted index `si`) by the per-boid
    /// topological kernel, from its own cell's runs.
    fn per_boid_lane(&mut self, si: usize, l: usize) {
        let env = self.env;
        let (grid, data) = (env.grid, env.sorted);
        let c = grid.keys()[grid.order()[si] as usize] as usize;
        grid.runs_into::<V>(grid.cell_coords(c), &mut self.runs);
        let species = data.species[si] as usize;
        let k = env.ctx.species[species].topological_neighbours;
        let (pos, vel) = (data.position::<V>(si), data.velocity::<V>(si));
        let s = self.topological_sums(si, species, pos, vel, k, env.ids[si]);
        let out = &mut self.lanes;
        for a in 0..V::DIM {
            out[kernel::SEP + a][l] = s.sep.get(a);
            out[kernel::ALI + a][l] = s.ali.get(a);
            out[kernel::COH + a][l] = s.coh.get(a);
        }
        out[kernel::N_ALI][l] = s.ali_n as f32;
        out[kernel::N_COH][l] = s.coh_n as f32;
        out[kernel::N_NB][l] = s.neighbours as f32;
    }

    /// The sums of the boid at sorted index `si` over its `k` nearest
    /// neighbours ([`topological`]), from the runs in `self.runs` (its cell's).
    #[inline(never)]
    fn topological_sums(
        &mut self,
        si: usize,
        species: usize,
        pos: V,
        vel: V,
        k: u32,
        id: u32,
    ) -> Sums<V> {
        let env = self.env;
        let ctx = env.ctx;
        let sp = &ctx.species[species];
        let me = Focal {
            sorted_index: si,
            pos,
            heading: if FLAGS & kernel::FOV != 0 && sp.has_vision_cone() {
                vel.normalize_or_zero()
            } else {
                V::ZERO
            },
            relations: ctx.relations.row(species),
        };
        let ids = env.ids;
        let seed = ctx.config.seed;
        let coincident = |j: usize| coincident_direction::<V>(seed, id, ids[j]);
        let best = self.nearest.get_or_insert_with(|| {
            NEAREST
                .with(RefCell::take)
                .unwrap_or_else(|| Box::new([topological::Chosen::default(); MAX_K]))
        });
        topological::accumulate::<V, FLAGS>(
            &me,
            &env.consts[species],
            k,
            self.runs.as_slice(),
            env.sorted,
            env.period,
            best,
            |j| ids[j],
            coincident,
        )
    }
}

impl<V: Vector, const FLAGS: u8, const SINGLE: u8> Drop for Focuser<'_, V, FLAGS, SINGLE> {
    /// Gives the topological scratch back to this thread for the next chunk.
    fn drop(&mut self) {
        if let Some(list) = self.nearest.take() {
            NEAREST.with(|n| n.replace(Some(list)));
        }
        if let Some(slots) = self.slots.take() {
            SLOTS.with(|n| n.replace(Some(slots)));
        }
    }
}

/// The neighbour sums of one boid and what the steering reads besides them.
pub(crate) struct Focus<V> {
    /// The sums.
    pub sums: Sums<V>,
    /// Position, units.
    pub pos: V,
    /// Velocity, units/s.
    pub vel: V,
    /// Species index.
    pub species: usize,
    /// Boid id.
    pub id: u32,
    /// Lower bound of the distance to every obstacle from the boid's cell.
    pub cell_clear: f32,
}

/// How a group's lanes take candidates of other species ([`Focuser::relations_of`]).
struct GroupRelations<'a, S: Lanes> {
    /// See [`Group::takes_others`].
    takes_others: S::Mask,
    /// The relations are tabled as lane masks ([`Group::relate`]).
    relate: bool,
    /// See [`Group::rows`].
    rows: Option<[&'a [Relation]; MAX_LANES]>,
    /// The single-species kernel gives the group's sums.
    uniform: bool,
}
