//! How a level looks, in the window and offscreen alike: the renderer draws the
//! creatures, and this module draws the level in its own terms instead of the
//! sandbox's debug overlays (issue 46). Ruins are solid with depth, gates glow
//! while shut, a plate is a ring that fills toward its need, the exit is a
//! beacon, a hunter burns in an ember ring with a wake, and only the swarm's
//! own light paths show (a hunter's patrol route and the engine's zone counts
//! do not). In a dark level only what the swarm's light falls on is drawn.

use glam::{Vec2, Vec3};
use murmuration::Obstacle;
use murmuration_game::Game;
use murmuration_render::{Pen, RenderSettings, Scene, Trails};

/// Colours, linear HDR (above 1 glows under the bloom).
const RUIN_FILL: [f32; 4] = [0.030, 0.036, 0.060, 1.0];
const RUIN_SHADOW: [f32; 4] = [0.008, 0.010, 0.020, 1.0];
const RUIN_EDGE: [f32; 4] = [0.30, 0.36, 0.50, 1.0];
const GATE_SHUT: [f32; 4] = [3.2, 1.3, 0.25, 1.0];
const GATE_FILL: [f32; 4] = [0.30, 0.10, 0.02, 1.0];
const GATE_OPEN: [f32; 4] = [0.35, 0.22, 0.08, 1.0];
const PLATE_DIM: [f32; 4] = [0.25, 0.30, 0.45, 1.0];
const PLATE_LIT: [f32; 4] = [2.4, 1.5, 0.35, 1.0];
const PLATE_HELD: [f32; 4] = [0.7, 2.6, 1.0, 1.0];
const EXIT: [f32; 4] = [0.45, 2.2, 1.2, 1.0];
const LIGHT_PATH: [f32; 4] = [0.6, 1.2, 2.4, 1.0];
const PULSE: [f32; 4] = [1.6, 0.45, 0.25, 1.0];
const HUNTER: [f32; 4] = [2.6, 0.55, 0.12, 1.0];

/// Radius of the ember ring around a hunter, level units: about three
/// creatures across, so a hunter reads as a threat, not one more mote.
pub(crate) const HUNTER_RING: f32 = 1.8;
/// Length of the wake a hunter leaves behind it, level units.
const HUNTER_WAKE: f32 = 4.0;

/// Segments of a plate's ring (each lit or not).
pub(crate) const RING_SEGMENTS: usize = 64;

/// The scene of `game` now: its creatures by the renderer (with trails), its
/// level by [`level`].
pub(crate) fn update(
    scene: &mut Scene,
    game: &Game,
    settings: &RenderSettings,
    trails: &mut Trails,
) {
    let plain = RenderSettings {
        overlays: false,
        ..*settings
    };
    scene.update(game.world(), &plain, trails);
    let mut pen = Pen {
        lines: &mut scene.lines,
        fills: &mut scene.fills,
        dim: 2,
    };
    level(&mut pen, game);
}

/// Draws the level's ruins, gates, plates, exit, light paths and pulses.
pub(crate) fn level(pen: &mut Pen<'_>, game: &Game) {
    let lvl = game.level();
    let (lines0, fills0) = (pen.lines.len(), pen.fills.len());
    let t = game.time() as f32;
    let gate_shapes: Vec<&Obstacle<Vec2>> = lvl.gates.iter().map(|g| &g.shape).collect();
    for o in game.world().obstacles() {
        if !gate_shapes.contains(&o) {
            ruin(pen, o);
        }
    }
    for (g, state) in lvl.gates.iter().zip(game.gates()) {
        // Each gate is wired to its plates: a dashed line of light from each
        // plate that kindles as the plate fills, green once it holds.
        for &i in &g.plates {
            let (p, ps) = (&lvl.plates[i], game.plates()[i]);
            let fill = (ps.count as f32 / p.need.max(1) as f32).min(1.0);
            let colour = if ps.held {
                scale(PLATE_HELD, 0.5)
            } else {
                scale(PLATE_LIT, 0.12 + 0.4 * fill)
            };
            wire(pen, p.shape.bounds(), g.shape.bounds(), colour);
        }
        let age = t - state.changed_at;
        if state.open && age < GATE_FADE {
            // Opening: the glow drains out of the gate over GATE_FADE seconds.
            let k = age / GATE_FADE;
            let edge: [f32; 4] =
                std::array::from_fn(|c| GATE_SHUT[c] * (1.0 - k) + GATE_OPEN[c] * k);
            pen.shape(&g.shape, edge, scale(GATE_FILL, 1.0 - k));
        } else if state.open {
            pen.shape(&g.shape, GATE_OPEN, [0.0; 4]);
        } else {
            // A shut gate glows and breathes, unlike the ruins around it.
            let k = 0.8 + 0.2 * (t * 3.0).sin();
            pen.shape(&g.shape, scale(GATE_SHUT, k), GATE_FILL);
        }
    }
    for (p, state) in lvl.plates.iter().zip(game.plates()) {
        let (c, r) = p.shape.bounds();
        // Filling toward its need; once held, all green, draining while the
        // swarm is off it and it is about to let go.
        let lit = if state.held {
            1.0 - state.below / p.hold.max(1e-6)
        } else {
            state.count as f32 / p.need.max(1) as f32
        };
        // A box plate is a rectangle of light, not the circle around it
        // (Two Hands' room plate was drawn reaching through the room's walls).
        let outline = match p.shape {
            Obstacle::Box {
                center,
                half_extents,
            } => Outline::Rect(center, half_extents),
            _ => Outline::Circle(c, r),
        };
        ring_along(pen, outline, lit, state.held);
    }
    if lvl.dark {
        // Everything so far is seen only in the swarm's light.
        Light::of(game).shine(pen, lines0, fills0);
    }
    beacon(pen, &lvl.exit, t);
    let swarm = Some(game.swarm());
    for path in game.world().paths().iter().filter(|p| p.species == swarm) {
        let fade = if path.lifetime.is_finite() {
            1.0 - path.age / path.lifetime
        } else {
            1.0
        };
        let pts: Vec<Vec3> = path.points.iter().map(|q| q.extend(0.0)).collect();
        pen.polyline(&pts, false, scale(LIGHT_PATH, fade));
    }
    hunters(pen, game, t);
    for p in game.world().pulses() {
        let fade = 1.0 - p.age / p.duration;
        pen.ball(
            p.position.extend(0.0),
            p.radius * (1.0 - fade).max(0.05),
            scale(PULSE, fade),
        );
    }
}

/// Each hunter (every creature not of the swarm) ringed by a flickering
/// ember with a wake behind it: bigger and hotter than any creature.
fn hunters(pen: &mut Pen<'_>, game: &Game, t: f32) {
    let world = game.world();
    let swarm = game.swarm();
    for (i, ((p, v), &s)) in world
        .positions()
        .iter()
        .zip(world.velocities())
        .zip(world.boid_species())
        .enumerate()
    {
        if s == swarm {
            continue;
        }
        let k = 0.75 + 0.25 * (t * 7.0 + i as f32 * 1.7).sin();
        pen.ball(p.extend(0.0), HUNTER_RING, scale(HUNTER, k));
        let back = -v.normalize_or_zero();
        pen.line(
            (*p + back * HUNTER_RING).extend(0.0),
            (*p + back * HUNTER_WAKE).extend(0.0),
            scale(HUNTER, 0.5 * k),
        );
    }
}

/// Seconds an opening gate takes to lose its glow.
pub(crate) const GATE_FADE: f32 = 0.8;
/// Length of a wire's dashes and of the gaps between them, level units.
const DASH: f32 = 1.5;

/// A dashed line from the edge of circle `from` (centre, radius) to the edge
/// of circle `to`.
fn wire(pen: &mut Pen<'_>, from: (Vec2, f32), to: (Vec2, f32), colour: [f32; 4]) {
    let d = to.0 - from.0;
    let len = d.length() - from.1 - to.1;
    if len <= 0.0 {
        return;
    }
    let dir = d / d.length();
    let start = from.0 + dir * from.1;
    let mut s = 0.0;
    while s < len {
        let e = (s + DASH).min(len);
        pen.line(
            (start + dir * s).extend(0.0),
            (start + dir * e).extend(0.0),
            colour,
        );
        s += 2.0 * DASH;
    }
}

/// Side of the cells the swarm's light is gathered on, level units.
const LIGHT_CELL: f32 = 2.0;
/// How far a creature's light reaches, level units.
const LIGHT_REACH: f32 = 9.0;
/// Creatures' worth of light (each weighted by nearness) that lights a point fully.
const LIGHT_FULL: f32 = 6.0;
/// Longest stroke lit as one: longer edges are cut so each piece takes the
/// light where it is.
const LIGHT_STEP: f32 = 1.0;
/// A lit edge in the dark shines this much brighter than in a lit level:
/// the swarm's light falls on it from close by.
const LIGHT_GAIN: f32 = 2.5;

/// The swarm's light in a dark level: its creatures counted on a grid.
struct Light {
    min: Vec2,
    w: usize,
    h: usize,
    counts: Vec<u32>,
}

impl Light {
    /// The light of `game`'s swarm now.
    fn of(game: &Game) -> Self {
        let world = game.world();
        let size = world.config().max - world.config().min;
        let w = (size.x / LIGHT_CELL).ceil().max(1.0) as usize;
        let h = (size.y / LIGHT_CELL).ceil().max(1.0) as usize;
        let min = world.config().min;
        let mut counts = vec![0; w * h];
        let swarm = game.swarm();
        for (p, &s) in world.positions().iter().zip(world.boid_species()) {
            if s == swarm {
                let c = ((*p - min) / LIGHT_CELL).floor();
                let (x, y) = (
                    c.x.clamp(0.0, (w - 1) as f32),
                    c.y.clamp(0.0, (h - 1) as f32),
                );
                counts[y as usize * w + x as usize] += 1;
            }
        }
        Self { min, w, h, counts }
    }

    /// Light at `p`, in [0, 1]: creatures within [`LIGHT_REACH`], each
    /// weighted by (1 − d / reach)².
    fn at(&self, p: Vec2) -> f32 {
        let r = (LIGHT_REACH / LIGHT_CELL).ceil() as i64;
        let c = ((p - self.min) / LIGHT_CELL).floor();
        let (cx, cy) = (c.x as i64, c.y as i64);
        let mut sum = 0.0;
        for y in (cy - r).max(0)..=(cy + r).min(self.h as i64 - 1) {
            for x in (cx - r).max(0)..=(cx + r).min(self.w as i64 - 1) {
                let n = self.counts[y as usize * self.w + x as usize];
                if n > 0 {
                    let centre = self.min + (Vec2::new(x as f32, y as f32) + 0.5) * LIGHT_CELL;
                    let k = (1.0 - (centre - p).length() / LIGHT_REACH).max(0.0);
                    sum += n as f32 * k * k;
                }
            }
        }
        (sum / LIGHT_FULL).min(1.0)
    }

    /// Lights the strokes drawn since `lines0` (cut into [`LIGHT_STEP`]
    /// pieces) by where they are, and hides the fills drawn since `fills0`:
    /// a solid in the dark is only its lit edge.
    fn shine(&self, pen: &mut Pen<'_>, lines0: usize, fills0: usize) {
        let drawn: Vec<_> = pen.lines.drain(lines0..).collect();
        for s in drawn.chunks_exact(2) {
            let (a, b) = (Vec3::from(s[0].position), Vec3::from(s[1].position));
            let pieces = ((b - a).length() / LIGHT_STEP).ceil().clamp(1.0, 512.0) as usize;
            for k in 0..pieces {
                let (p, q) = (
                    a.lerp(b, k as f32 / pieces as f32),
                    a.lerp(b, (k + 1) as f32 / pieces as f32),
                );
                let lit = self.at(((p + q) * 0.5).truncate());
                if lit > 0.01 {
                    pen.line(p, q, scale(s[0].colour, lit * LIGHT_GAIN));
                }
            }
        }
        pen.fills.truncate(fills0);
    }
}

/// A ruin: a shadow offset below and right for depth, the solid, its edge.
fn ruin(pen: &mut Pen<'_>, o: &Obstacle<Vec2>) {
    let shadow = shifted(o, Vec2::new(0.5, -0.5));
    pen.shape(&shadow, RUIN_SHADOW, RUIN_SHADOW);
    pen.shape(o, RUIN_EDGE, RUIN_FILL);
}

/// The outline a plate's ring follows.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Outline {
    /// A circle: centre and radius.
    Circle(Vec2, f32),
    /// A rectangle: centre and half extents.
    Rect(Vec2, Vec2),
}

impl Outline {
    /// The point a share `f` in [0, 1] of the way round, clockwise from the
    /// top's middle, on the outline grown by `w`.
    fn at(self, f: f32, w: f32) -> Vec2 {
        match self {
            Outline::Circle(c, r) => {
                let a = std::f32::consts::FRAC_PI_2 - f * std::f32::consts::TAU;
                c + (r + w) * Vec2::new(a.cos(), a.sin())
            }
            Outline::Rect(c, h) => {
                let (x, y) = (h.x + w, h.y + w);
                // Top right half, right side, bottom, left side, top left half.
                let legs = [
                    (Vec2::new(0.0, y), Vec2::new(x, y)),
                    (Vec2::new(x, y), Vec2::new(x, -y)),
                    (Vec2::new(x, -y), Vec2::new(-x, -y)),
                    (Vec2::new(-x, -y), Vec2::new(-x, y)),
                    (Vec2::new(-x, y), Vec2::new(0.0, y)),
                ];
                let mut s = f.clamp(0.0, 1.0) * 4.0 * (x + y);
                for (a, b) in legs {
                    let l = (b - a).length();
                    if s <= l {
                        return c + a.lerp(b, s / l.max(1e-6));
                    }
                    s -= l;
                }
                c + Vec2::new(0.0, y)
            }
        }
    }
}

/// A plate's ring along `outline`: a dim ring with a bright arc from the top,
/// clockwise, over the `lit` share: amber, of its need; green once held, of
/// the hold it has left. Three strokes wide, so it reads through the swarm's
/// glow.
pub(crate) fn ring_along(pen: &mut Pen<'_>, outline: Outline, lit: f32, held: bool) {
    let share = lit.clamp(0.0, 1.0) * RING_SEGMENTS as f32;
    let on = if held {
        // A held plate shows at least a sliver until it lets go.
        (share.ceil() as usize).clamp(1, RING_SEGMENTS)
    } else {
        (share.floor() as usize).min(RING_SEGMENTS)
    };
    let at = |k: usize, w: f32| outline.at(k as f32 / RING_SEGMENTS as f32, w).extend(0.0);
    for k in 0..RING_SEGMENTS {
        let colour = match (k < on, held) {
            (false, _) => PLATE_DIM,
            (true, false) => PLATE_LIT,
            (true, true) => PLATE_HELD,
        };
        for w in [-0.25, 0.0, 0.25] {
            pen.line(at(k, w), at(k + 1, w), colour);
        }
    }
}

/// The exit: three rings that rise from its centre to its edge, over and over.
fn beacon(pen: &mut Pen<'_>, exit: &Obstacle<Vec2>, t: f32) {
    let (c, r) = exit.bounds();
    pen.ball(c.extend(0.0), r, EXIT);
    for k in 0..3 {
        let phase = (t * 0.5 + k as f32 / 3.0).fract();
        pen.ball(c.extend(0.0), r * phase, scale(EXIT, 1.0 - phase));
    }
}

/// `o` moved by `d`.
fn shifted(o: &Obstacle<Vec2>, d: Vec2) -> Obstacle<Vec2> {
    match o {
        Obstacle::Sphere { center, radius } => Obstacle::Sphere {
            center: *center + d,
            radius: *radius,
        },
        Obstacle::Box {
            center,
            half_extents,
        } => Obstacle::Box {
            center: *center + d,
            half_extents: *half_extents,
        },
        Obstacle::Capsule { a, b, radius } => Obstacle::Capsule {
            a: *a + d,
            b: *b + d,
            radius: *radius,
        },
        Obstacle::Polygon { points } => Obstacle::Polygon {
            points: points.iter().map(|p| *p + d).collect(),
        },
        // A baked field keeps its place (its shadow would cost a second field).
        other => other.clone(),
    }
}

fn scale(c: [f32; 4], k: f32) -> [f32; 4] {
    [c[0] * k, c[1] * k, c[2] * k, c[3]]
}

#[cfg(test)]
mod tests {
    use super::*;
    use murmuration_game::{Level, levels};
    use murmuration_render::ColourVertex;

    fn drawn(game: &Game) -> (Vec<ColourVertex>, Vec<ColourVertex>) {
        let (mut lines, mut fills) = (Vec::new(), Vec::new());
        level(
            &mut Pen {
                lines: &mut lines,
                fills: &mut fills,
                dim: 2,
            },
            game,
        );
        (lines, fills)
    }

    fn game(i: usize) -> Game {
        let s = &levels::LEVELS[i];
        Game::new(&Level::parse(s.text, s.key).unwrap()).unwrap()
    }

    /// A plate's ring lights the share of its need standing on it, and nothing
    /// else is drawn inside it (the engine's count, drawn over the HUD's, made
    /// "9 / 9▯0").
    #[test]
    fn a_plate_is_a_ring_that_fills_toward_its_need() {
        let (mut lines, mut fills) = (Vec::new(), Vec::new());
        let mut pen = Pen {
            lines: &mut lines,
            fills: &mut fills,
            dim: 2,
        };
        ring_along(&mut pen, Outline::Circle(Vec2::ZERO, 5.0), 0.5, false);
        let lit = |v: &[ColourVertex]| v.chunks(2).filter(|s| s[0].colour == PLATE_LIT).count();
        assert_eq!(lines.len(), 3 * 2 * RING_SEGMENTS);
        assert_eq!(lit(&lines), 3 * RING_SEGMENTS / 2);
        let g = game(2); // The Mechanism: a plate and a gate
        let (lines, _) = drawn(&g);
        for p in &g.level().plates {
            let (c, r) = p.shape.bounds();
            let inside = lines
                .iter()
                .filter(|v| (Vec2::new(v.position[0], v.position[1]) - c).length() < 0.8 * r)
                .count();
            assert_eq!(inside, 0, "{} strokes inside plate {}", inside, p.name);
        }
    }

    /// The hunters' patrol route is the engine's business: only the swarm's own
    /// light paths are drawn.
    #[test]
    fn a_hunters_patrol_route_is_not_drawn() {
        let g = game(1); // Night Hunters
        let route: Vec<[f32; 3]> = g
            .world()
            .paths()
            .iter()
            .filter(|p| p.species != Some(g.swarm()))
            .flat_map(|p| p.points.iter().map(|q| [q.x, q.y, 0.0]))
            .collect();
        assert!(!route.is_empty(), "Night Hunters has a patrol route");
        let (lines, _) = drawn(&g);
        let on_route = lines.iter().filter(|v| route.contains(&v.position)).count();
        assert_eq!(on_route, 0);
    }

    /// A shut gate glows (its edge is brighter than white under the bloom);
    /// the ruins do not.
    #[test]
    fn a_shut_gate_glows_and_the_ruins_do_not() {
        let g = game(2);
        let (lines, _) = drawn(&g);
        let glowing = lines
            .iter()
            .filter(|v| v.colour[0] > 1.0 && v.colour[2] < 0.5)
            .count();
        assert!(glowing > 0, "no glowing gate edge");
        assert!(lines.iter().any(|v| v.colour == RUIN_EDGE), "no ruin edge");
    }

    /// In a dark level (Lightless) a wall is seen only near the swarm: every
    /// stroke drawn lies within the light's reach of a creature, and walls
    /// far from it, drawn in the lit version of the level, are not drawn.
    #[test]
    fn in_a_dark_level_only_what_the_swarm_lights_is_seen() {
        let s = levels::LEVELS
            .iter()
            .find(|l| l.key == "lightless")
            .unwrap();
        let dark = Game::new(&Level::parse(s.text, s.key).unwrap()).unwrap();
        assert!(dark.level().dark);
        let set = ["game.dark=false".parse().unwrap()];
        let lit = Game::new(&Level::parse_with(s.text, s.key, &set).unwrap()).unwrap();
        let creatures = dark.world().positions();
        let near = |v: &ColourVertex| {
            let p = Vec2::new(v.position[0], v.position[1]);
            creatures
                .iter()
                .any(|c| (*c - p).length() < LIGHT_REACH + LIGHT_STEP)
        };
        let is_ruin = |v: &ColourVertex| {
            v.colour[0] <= RUIN_EDGE[0] * LIGHT_GAIN && v.colour[2] <= RUIN_EDGE[2] * LIGHT_GAIN
        };
        let (dark_lines, dark_fills) = drawn(&dark);
        let (lit_lines, _) = drawn(&lit);
        let seen = dark_lines.iter().filter(|v| is_ruin(v)).count();
        assert!(seen > 0, "the rubble beside the swarm is not lit");
        // The exit's beacon is a light of its own; the rest is the ruins.
        let exit = dark.level().exit.bounds();
        let far: Vec<_> = dark_lines
            .iter()
            .filter(|v| (Vec2::new(v.position[0], v.position[1]) - exit.0).length() > exit.1 + 0.1)
            .filter(|v| !near(v))
            .collect();
        assert!(
            far.is_empty(),
            "{} strokes drawn in the dark, e.g. {:?}",
            far.len(),
            far[0]
        );
        assert!(dark_fills.is_empty() || dark_fills.iter().all(|v| near(v) || v.colour[1] > 1.0));
        assert!(
            lit_lines.iter().filter(|v| !near(v)).count() > 100,
            "the lit level draws its far walls"
        );
    }

    /// A hunter is ringed by an ember wider than three creatures, drawn in
    /// its own colour around each hunter of Night Hunters.
    #[test]
    fn a_hunter_burns_in_an_ember_ring() {
        let g = game(1);
        let (lines, _) = drawn(&g);
        let w = g.world();
        let hunters: Vec<Vec2> = w
            .positions()
            .iter()
            .zip(w.boid_species())
            .filter(|(_, s)| **s != g.swarm())
            .map(|(p, _)| *p)
            .collect();
        assert_eq!(hunters.len(), 4);
        for h in hunters {
            let ring = lines
                .iter()
                .filter(|v| v.colour[0] > 1.0 && v.colour[2] < 0.2)
                .filter(|v| {
                    let d = (Vec2::new(v.position[0], v.position[1]) - h).length();
                    (d - HUNTER_RING).abs() < 0.05
                })
                .count();
            assert!(ring >= 16, "{ring} ember vertices around the hunter at {h}");
        }
    }

    /// A held plate's green arc drains as its hold runs out.
    #[test]
    fn a_held_plate_drains_while_it_lets_go() {
        let green = |lit: f32| {
            let (mut lines, mut fills) = (Vec::new(), Vec::new());
            let mut pen = Pen {
                lines: &mut lines,
                fills: &mut fills,
                dim: 2,
            };
            ring_along(&mut pen, Outline::Circle(Vec2::ZERO, 5.0), lit, true);
            lines
                .chunks(2)
                .filter(|s| s[0].colour == PLATE_HELD)
                .count()
        };
        assert_eq!(green(1.0), 3 * RING_SEGMENTS);
        assert_eq!(green(0.25), 3 * RING_SEGMENTS / 4);
        assert_eq!(green(0.0), 3, "a sliver until it lets go");
    }

    /// Two Hands' room plate is a box: its ring is drawn on the box's edge,
    /// inside the room, not on the circle around it.
    #[test]
    fn a_box_plate_is_ringed_along_its_edge() {
        let g = game(3);
        let plate = g.level().plates.iter().find(|p| p.name == "north").unwrap();
        let Obstacle::Box {
            center,
            half_extents,
        } = plate.shape
        else {
            panic!("the north plate is a box");
        };
        let (lines, _) = drawn(&g);
        let on_ring: Vec<Vec2> = lines
            .iter()
            .filter(|v| v.colour == PLATE_DIM)
            .map(|v| Vec2::new(v.position[0], v.position[1]))
            .filter(|p| (*p - center).abs().cmple(half_extents + 1.0).all())
            .collect();
        assert!(on_ring.len() >= 3 * 2 * RING_SEGMENTS, "{}", on_ring.len());
        let outside = on_ring
            .iter()
            .filter(|p| (**p - center).abs().cmpgt(half_extents + 0.3).any())
            .count();
        assert_eq!(outside, 0);
        // Every vertex of its ring lies on the box's edge (within the strokes' width).
        let off_edge = on_ring
            .iter()
            .filter(|p| {
                let d = (**p - center).abs() - half_extents;
                d.max_element().abs() > 0.3
            })
            .count();
        assert_eq!(off_edge, 0);
    }

    /// The Mechanism's gate is wired to its plate (dashes between them), and
    /// once open it keeps its glow a moment, fading to the open outline.
    #[test]
    fn a_gate_is_wired_to_its_plate_and_fades_open() {
        let mut g = game(2);
        let (plate, gate) = (
            g.level().plates[0].shape.bounds(),
            g.level().gates[0].shape.bounds(),
        );
        let on_wire = |lines: &[ColourVertex]| {
            let dir = (gate.0 - plate.0).normalize();
            lines
                .iter()
                .filter(|v| {
                    let p = Vec2::new(v.position[0], v.position[1]) - plate.0;
                    let along = p.dot(dir);
                    (p - dir * along).length() < 0.01
                        && along > plate.1 - 0.01
                        && along < (gate.0 - plate.0).length() - gate.1 + 0.01
                })
                .count()
        };
        let (lines, _) = drawn(&g);
        assert!(on_wire(&lines) >= 8, "no wire: {}", on_wire(&lines));
        let s = &levels::LEVELS[2];
        let rec = murmuration_game::Recording::parse(s.solution, s.key).unwrap();
        let mut next = 0;
        let mut step = 0;
        while !g.gates()[0].open {
            g.step(&rec.commands_at(step, &mut next));
            step += 1;
        }
        let bright = |g: &Game| {
            drawn(g)
                .0
                .iter()
                .filter(|v| v.colour[0] > 1.5 && v.colour[2] < 0.3)
                .count()
        };
        assert!(bright(&g) > 0, "the gate's glow is gone at once");
        for _ in 0..(GATE_FADE * 60.0) as usize + 2 {
            g.step(&rec.commands_at(step, &mut next));
            step += 1;
        }
        assert_eq!(bright(&g), 0, "still glowing after {GATE_FADE} s");
    }
}
