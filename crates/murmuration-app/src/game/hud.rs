//! What the game draws over the swarm with egui: the focus halo, the soft light
//! that follows the swarm and its trail, the edge arrows toward what is off
//! screen, plate counters, the saved/needed line and cooldowns. The title,
//! pause and end screens are in `menus.rs`.

use egui::{Align2, Color32, FontId, Pos2, Stroke, Vec2 as EVec2};
use glam::Vec2;
use murmuration_game::Game;

/// Maps level coordinates to screen points for the current camera.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// Where the camera looks, level units.
    pub centre: Vec2,
    /// Half the visible height, level units.
    pub half_height: f32,
    /// The screen's size, points.
    pub size: EVec2,
}

impl View {
    /// Level coordinates to a screen point.
    pub fn to_screen(self, p: Vec2) -> Pos2 {
        let scale = self.size.y / (2.0 * self.half_height);
        let d = (p - self.centre) * scale;
        Pos2::new(self.size.x * 0.5 + d.x, self.size.y * 0.5 - d.y)
    }

    /// A screen point to level coordinates.
    pub fn to_level(self, s: Pos2) -> Vec2 {
        let scale = self.size.y / (2.0 * self.half_height);
        self.centre + Vec2::new(s.x - self.size.x * 0.5, self.size.y * 0.5 - s.y) / scale
    }

    /// Level units to points.
    pub fn scale(self) -> f32 {
        self.size.y / (2.0 * self.half_height)
    }
}

/// A soft disc: rings of falling alpha (egui has no radial gradient).
fn glow(p: &egui::Painter, at: Pos2, radius: f32, colour: [u8; 3], alpha: f32) {
    const RINGS: usize = 10;
    for k in 0..RINGS {
        let t = 1.0 - k as f32 / RINGS as f32;
        // Each ring adds a little: the centre, under every ring, is brightest.
        let a = (alpha * (1.0 - t) * 255.0 * 0.3).clamp(0.0, 255.0);
        p.circle_filled(
            at,
            radius * t,
            Color32::from_rgba_unmultiplied(colour[0], colour[1], colour[2], a as u8),
        );
    }
}

/// The swarm's point light's trail (seed 001, 6.3): where the swarm's centre
/// was every half second over the last twelve, oldest first, each glowing
/// fainter with age.
#[derive(Clone, Debug, Default)]
pub struct LightTrail {
    points: std::collections::VecDeque<Vec2>,
}

impl LightTrail {
    /// Steps between two points of the trail.
    const EVERY: u64 = 30;
    /// Points kept.
    const KEEP: usize = 24;
    /// The newest point's glow.
    const ALPHA: f32 = 0.15;

    /// After fixed step `step`, with the swarm's centre at `centroid`.
    pub fn step(&mut self, step: u64, centroid: Vec2) {
        if step.is_multiple_of(Self::EVERY) {
            self.points.push_back(centroid);
            if self.points.len() > Self::KEEP {
                self.points.pop_front();
            }
        }
    }

    /// Points of the last two seconds, under the swarm itself, not drawn:
    /// the trail is where it passed (and the focus ahead of it stays clear).
    const FRESH: usize = 4;

    /// Each point and its glow's alpha, oldest (faintest) first.
    pub fn glows(&self) -> impl Iterator<Item = (Vec2, f32)> + '_ {
        let shown = self.points.len().saturating_sub(Self::FRESH);
        let n = shown.max(1) as f32;
        self.points
            .iter()
            .take(shown)
            .enumerate()
            .map(move |(k, &c)| (c, Self::ALPHA * (k + 1) as f32 / n))
    }
}

/// The in-level overlay: light, halo, arrow, plates, the status line.
pub fn overlay(ui: &egui::Ui, game: &Game, view: &View, trail: &LightTrail, hint: Option<&str>) {
    let p = ui.painter();
    let s = view.scale();
    // The large soft light over the swarm's centroid, and where it passed.
    for (c, a) in trail.glows() {
        glow(p, view.to_screen(c), 10.0 * s, [90, 160, 255], a);
    }
    let centroid = game.centroid();
    glow(p, view.to_screen(centroid), 24.0 * s, [120, 190, 255], 0.12);
    // The focus and its halo, dimming as the swarm gets far from it.
    let focus = view.to_screen(game.focus());
    let halo = game.halo();
    glow(p, focus, 4.0 * s, [255, 226, 150], 0.8 * halo);
    // Its ring and bright point in screen sizes that stay visible at the
    // smallest zoom (0.8), where a 1.5-point ring nearly vanished.
    p.circle_stroke(
        focus,
        3.0 * s,
        Stroke::new(
            2.0,
            Color32::from_rgba_unmultiplied(255, 240, 190, (220.0 * halo) as u8),
        ),
    );
    p.circle_filled(focus, 3.5, Color32::from_rgb(255, 250, 220));
    edge_arrows(p, view, game, centroid);
    plate_counters(p, view, game);
    status_lines(p, game);
    if let Some(h) = hint {
        // Wrapped to the screen, its last line 18 points above the bottom.
        let mut job = egui::text::LayoutJob::simple(
            h.to_string(),
            FontId::proportional(18.0),
            Color32::from_rgb(200, 215, 240),
            (view.size.x - 40.0).max(100.0),
        );
        // Each line centred on the screen's middle.
        job.halign = egui::Align::Center;
        let galley = p.layout_job(job);
        let at = Pos2::new(view.size.x * 0.5, view.size.y - 18.0 - galley.size().y);
        // The galley is centred on `at`: its rect starts half its width left.
        let rect =
            egui::Rect::from_min_size(Pos2::new(at.x - galley.size().x * 0.5, at.y), galley.size())
                .expand2(EVec2::new(10.0, 5.0));
        p.rect_filled(rect, 6.0, BACKING);
        p.galley(at, galley, Color32::WHITE);
    }
}

/// The UI's zoom for a window `height` points tall: 1 at 720, so the menus
/// fit a small window (0.8 at 360 and below) and stay readable on a large
/// one (up to 2).
pub fn zoom(height: f32) -> f32 {
    (height / 720.0).clamp(0.8, 2.0)
}

/// Where an arrow toward screen point `target` sits on the screen's edge
/// (inset by 28 points), and the unit direction it points: `None` while the
/// target is on screen.
pub(crate) fn edge_point(size: EVec2, target: Pos2) -> Option<(Pos2, EVec2)> {
    let rect = egui::Rect::from_min_size(Pos2::ZERO, size).shrink(28.0);
    if rect.contains(target) {
        return None;
    }
    let mid = rect.center();
    let d = (target - mid).normalized();
    let reach = ((rect.width() * 0.5) / d.x.abs().max(1e-6))
        .min((rect.height() * 0.5) / d.y.abs().max(1e-6));
    let mut at = mid + d * reach;
    // Never over the status lines: slide along the edge past their corner.
    if STATUS.expand(12.0).contains(at) {
        if at.x <= rect.min.x + 0.5 {
            at.y = STATUS.max.y + 12.0;
        } else {
            at.x = STATUS.max.x + 12.0;
        }
    }
    Some((at, d))
}

/// What the player should find when it is off screen, while the level runs:
/// the swarm they lead, the exit, and every plate a shut gate still needs
/// (in a dark level only once the swarm has found it), each with its radius
/// (level units: no arrow while any of it is on screen) and arrow colour.
pub(crate) fn objectives(game: &Game, centroid: Vec2) -> Vec<(Vec2, f32, Color32)> {
    let mut out = Vec::new();
    if game.outcome().is_some() {
        return out;
    }
    if game.alive() > 0 {
        out.push((
            centroid,
            0.0,
            Color32::from_rgba_unmultiplied(150, 210, 255, 210),
        ));
    }
    let (exit, r) = game.level().exit.bounds();
    out.push((exit, r, Color32::from_rgba_unmultiplied(110, 255, 170, 220)));
    for (i, (plate, state)) in game.level().plates.iter().zip(game.plates()).enumerate() {
        if !state.held && plate_shown(game, i) {
            let (c, r) = plate.shape.bounds();
            out.push((c, r, Color32::from_rgba_unmultiplied(255, 190, 80, 220)));
        }
    }
    out
}

/// Whether plate `i` is shown in the HUD: a shut gate still needs it (an
/// opened latched gate's plate is done with), and, in a dark level, the swarm
/// has found it (a counter or an arrow would give its place away).
pub(crate) fn plate_shown(game: &Game, i: usize) -> bool {
    let level = game.level();
    let needed = level
        .gates
        .iter()
        .zip(game.gates())
        .any(|(g, s)| g.plates.contains(&i) && !s.open && !(g.latch && s.opened));
    needed && found(game, i)
}

/// Whether the player may know where plate `i` is: always, except in a dark
/// level before the swarm has stood on it (its counter or an arrow would give
/// its place away).
fn found(game: &Game, i: usize) -> bool {
    !game.level().dark || game.plates()[i].most > 0
}

/// Arrows at the screen's edge toward every objective off screen.
fn edge_arrows(p: &egui::Painter, view: &View, game: &Game, centroid: Vec2) {
    let screen = egui::Rect::from_min_size(Pos2::ZERO, view.size);
    for (at, r, colour) in objectives(game, centroid) {
        let target = view.to_screen(at);
        if r > 0.0 && screen.expand(r * view.scale()).contains(target) {
            continue;
        }
        let Some((tip, d)) = edge_point(view.size, target) else {
            continue;
        };
        let side = EVec2::new(-d.y, d.x) * 9.0;
        p.add(egui::Shape::convex_polygon(
            vec![tip + d * 14.0, tip + side, tip - side],
            colour,
            Stroke::NONE,
        ));
    }
}

/// Plate counters: "37 / 60", bright while held.
fn plate_counters(p: &egui::Painter, view: &View, game: &Game) {
    for (i, (plate, state)) in game.level().plates.iter().zip(game.plates()).enumerate() {
        if !found(game, i) {
            continue;
        }
        let (centre, r) = plate.shape.bounds();
        let colour = if state.held {
            Color32::from_rgb(255, 220, 120)
        } else {
            Color32::from_rgb(225, 232, 245)
        };
        // Above the ring, on a dark plate of its own, so the swarm's glow on
        // the ring never washes it out.
        let above = view.to_screen(centre + Vec2::new(0.0, r)) - EVec2::new(0.0, 16.0);
        // Below the ring instead where the status lines would cover it.
        let at = if above.y < 96.0 {
            view.to_screen(centre - Vec2::new(0.0, r)) + EVec2::new(0.0, 16.0)
        } else {
            above
        };
        let text = plate_text(plate, state);
        let galley = p.layout_no_wrap(text, FontId::proportional(18.0), colour);
        let rect = counter_rect(
            Align2::CENTER_CENTER
                .anchor_size(at, galley.size())
                .expand2(EVec2::new(8.0, 3.0)),
            view.size,
        );
        p.rect_filled(rect, 6.0, BACKING);
        p.galley(rect.min + EVec2::new(8.0, 3.0), galley, colour);
    }
}

/// The status lines' corner (top left), points: nothing else is drawn there.
const STATUS: egui::Rect = egui::Rect::from_min_max(Pos2::new(0.0, 0.0), Pos2::new(380.0, 100.0));

/// A counter's `rect` kept whole on a screen of `size` and out of the status
/// lines' corner (a plate at the screen's edge had its count cut in half).
pub(crate) fn counter_rect(rect: egui::Rect, size: EVec2) -> egui::Rect {
    let margin = 4.0;
    let dx = (margin - rect.min.x).max(0.0) - (rect.max.x - (size.x - margin)).max(0.0);
    let dy = (margin - rect.min.y).max(0.0) - (rect.max.y - (size.y - margin)).max(0.0);
    let mut r = rect.translate(EVec2::new(dx, dy));
    if r.intersects(STATUS) {
        r = r.translate(EVec2::new(0.0, STATUS.max.y + margin - r.min.y));
    }
    r
}

/// A plate's counter: "37 / 60", and while a held plate is letting go, how
/// long it still holds (the race of The Lock is read here).
pub(crate) fn plate_text(
    plate: &murmuration_game::Plate,
    state: &murmuration_game::plates::PlateState,
) -> String {
    if state.held && state.below > 0.0 {
        let left = (plate.hold - state.below).max(0.0);
        format!(
            "{} / {} · lets go in {:.0} s",
            state.count,
            plate.need,
            left.ceil()
        )
    } else {
        format!("{} / {}", state.count, plate.need)
    }
}

/// The level's title, saved against needed, the cooldowns and the time left,
/// top left.
fn status_lines(p: &egui::Painter, game: &Game) {
    let level = game.level();
    let white = Color32::from_rgb(225, 232, 245);
    let cool = |name: &str, left: f32| {
        if left > 0.0 {
            format!("{name} in {left:.1} s")
        } else {
            format!("{name} ready")
        }
    };
    let mut lines = vec![
        (level.title().to_string(), Color32::from_rgb(150, 210, 255)),
        (tally(game), white),
        (
            format!(
                "{} · {}",
                cool("pulse", game.pulse_cooldown()),
                cool("recall", game.recall_cooldown())
            ),
            Color32::from_rgb(170, 180, 200),
        ),
    ];
    if level.time_limit.is_finite() {
        let left = (level.time_limit as f64 - game.time()).max(0.0);
        lines.push((format!("{left:.0} s left"), white));
    }
    let galleys: Vec<_> = lines
        .into_iter()
        .map(|(text, colour)| p.layout_no_wrap(text, FontId::proportional(17.0), colour))
        .collect();
    backed(p, Pos2::new(14.0, 12.0), &galleys, 22.0);
}

/// Lines of text from `at` down, `step` apart, over a dark backing so they
/// read over the swarm's glow (20,000 creatures washed the status out).
fn backed(p: &egui::Painter, at: Pos2, galleys: &[std::sync::Arc<egui::Galley>], step: f32) {
    let width = galleys.iter().map(|g| g.size().x).fold(0.0, f32::max);
    let height =
        step * (galleys.len().max(1) - 1) as f32 + galleys.last().map_or(0.0, |g| g.size().y);
    let rect =
        egui::Rect::from_min_size(at, EVec2::new(width, height)).expand2(EVec2::new(8.0, 5.0));
    p.rect_filled(rect, 6.0, BACKING);
    for (k, g) in galleys.iter().enumerate() {
        p.galley(
            at + EVec2::new(0.0, step * k as f32),
            g.clone(),
            Color32::WHITE,
        );
    }
}

/// Behind HUD text: dark and mostly opaque.
const BACKING: Color32 = Color32::from_rgba_premultiplied(4, 6, 12, 190);

/// Where the swarm stands: saved against needed, then while the level runs
/// the creatures alive and eaten; once it has ended, those left in the dark
/// (alive but never brought home) and those eaten, for both are lost.
pub(crate) fn tally(game: &Game) -> String {
    let living = if game.outcome().is_some() {
        "left in the dark"
    } else {
        "alive"
    };
    format!(
        "saved {} / {} needed · {} {living} · {} eaten",
        game.saved(),
        game.level().save,
        game.alive(),
        game.eaten()
    )
}

/// Seconds a meal's flash lasts.
pub(crate) const FLASH_SECONDS: f32 = 0.6;

/// Where hunters have just eaten: each meal flashes red-orange where it
/// happened and fades, so a loss is seen (issue 46), timed in game steps so a
/// replay shows the same.
#[derive(Default)]
pub(crate) struct Meals {
    /// Position and age, seconds.
    pub(crate) flashes: Vec<(Vec2, f32)>,
}

impl Meals {
    /// After a step of `dt` seconds with `events` (`Game::events`): ages the
    /// flashes, drops the faded, and adds one for every creature eaten.
    pub(crate) fn step(&mut self, events: &[murmuration_game::GameEvent], dt: f32) {
        for f in &mut self.flashes {
            f.1 += dt;
        }
        self.flashes.retain(|f| f.1 < FLASH_SECONDS);
        for e in events {
            if let murmuration_game::GameEvent::Eaten(at) = e {
                self.flashes.push((*at, 0.0));
            }
        }
    }

    /// Draws each flash: a burst that grows and fades.
    pub(crate) fn draw(&self, p: &egui::Painter, view: &View) {
        let s = view.scale();
        for &(at, age) in &self.flashes {
            let t = age / FLASH_SECONDS;
            glow(
                p,
                view.to_screen(at),
                (1.0 + 2.5 * t) * s,
                [255, 90, 40],
                0.9 * (1.0 - t),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use murmuration_game::{Level, Recording, levels};

    /// An objective on screen gets no arrow; one off screen gets one on the
    /// edge, pointing at it.
    #[test]
    fn an_arrow_points_from_the_edge_to_an_objective_off_screen() {
        let size = EVec2::new(800.0, 450.0);
        assert_eq!(edge_point(size, Pos2::new(400.0, 200.0)), None);
        let (tip, d) = edge_point(size, Pos2::new(2000.0, 225.0)).unwrap();
        assert!(
            (tip.x - 772.0).abs() < 0.5 && (tip.y - 225.0).abs() < 0.5,
            "{tip:?}"
        );
        assert!(d.x > 0.99);
        // The Mechanism: the swarm, the exit and its plate are objectives at
        // the start.
        let s = &levels::LEVELS[2];
        let game = Game::new(&Level::parse(s.text, s.key).unwrap()).unwrap();
        assert_eq!(game.level().plates.len(), 1);
        assert_eq!(objectives(&game, game.centroid()).len(), 3);
        // The Deep is dark: its plate has no arrow until the swarm finds it.
        let s = levels::LEVELS.iter().find(|l| l.key == "the-deep").unwrap();
        let game = Game::new(&Level::parse(s.text, s.key).unwrap()).unwrap();
        assert!(!plate_shown(&game, 0));
        assert_eq!(objectives(&game, game.centroid()).len(), 2);
    }

    /// Once the Mechanism's latched gate has opened, its plate is done with:
    /// no arrow to it, and no arrows at all once the level has ended.
    #[test]
    fn arrows_are_for_what_is_still_to_do() {
        let s = &levels::LEVELS[2];
        let level = Level::parse(s.text, s.key).unwrap();
        let rec = Recording::parse(s.solution, s.key).unwrap();
        let mut game = Game::new(&level).unwrap();
        let mut next = 0;
        let mut step = 0;
        while !game.gates()[0].open {
            game.step(&rec.commands_at(step, &mut next));
            step += 1;
        }
        assert!(
            !plate_shown(&game, 0),
            "the plate of an opened latched gate"
        );
        assert_eq!(objectives(&game, game.centroid()).len(), 2);
        while game.outcome().is_none() {
            game.step(&rec.commands_at(step, &mut next));
            step += 1;
        }
        assert!(objectives(&game, game.centroid()).is_empty());
    }

    /// A hunter's meal flashes where it happened and fades within
    /// [`FLASH_SECONDS`]; other events make no flash.
    #[test]
    fn a_meal_flashes_where_it_happened_and_fades() {
        use murmuration_game::GameEvent;
        let dt = 1.0 / 60.0;
        let mut meals = Meals::default();
        let at = Vec2::new(3.0, 4.0);
        meals.step(&[GameEvent::Pulse(at), GameEvent::Eaten(at)], dt);
        assert_eq!(meals.flashes, [(at, 0.0)]);
        for _ in 0..(FLASH_SECONDS / dt) as usize - 1 {
            meals.step(&[], dt);
        }
        assert_eq!(meals.flashes.len(), 1, "it lasts {FLASH_SECONDS} s");
        meals.step(&[], dt);
        meals.step(&[], dt);
        assert!(meals.flashes.is_empty(), "it fades");
    }

    /// The end says how many were left in the dark: First Light's solution
    /// brings 1,845 of 1,900 home, so 55 are lost there, not "0 lost".
    #[test]
    fn the_end_counts_the_creatures_left_in_the_dark() {
        let s = &levels::LEVELS[0];
        let level = Level::parse(s.text, s.key).unwrap();
        let rec = Recording::parse(s.solution, s.key).unwrap();
        let game = rec.play(&level, s.key, s.key).unwrap();
        assert!(game.outcome().is_some());
        let left = game.alive();
        assert!(left > 0, "every creature came home");
        assert_eq!(left + game.saved() + game.eaten(), 1_900);
        let t = tally(&game);
        assert!(t.contains(&format!("{left} left in the dark")), "{t}");
    }

    /// The UI is at its designed size at 720 points tall, smaller in a small
    /// window (the title and pause menu also scroll) and larger in a big one.
    #[test]
    fn the_ui_zooms_with_the_window_height() {
        assert_eq!(zoom(720.0), 1.0);
        assert_eq!(zoom(360.0), 0.8);
        assert_eq!(zoom(1080.0), 1.5);
        assert_eq!(zoom(4320.0), 2.0);
    }

    /// A held plate that the swarm has left says how long it still holds.
    #[test]
    fn a_plate_letting_go_counts_down() {
        let s = levels::LEVELS.iter().find(|l| l.key == "the-lock").unwrap();
        let level = Level::parse(s.text, s.key).unwrap();
        let plate = &level.plates[0];
        let mut state = murmuration_game::plates::PlateState {
            count: 950,
            held: true,
            ..Default::default()
        };
        assert_eq!(plate_text(plate, &state), "950 / 900");
        state.count = 12;
        state.below = 2.5;
        assert_eq!(plate_text(plate, &state), "12 / 900 · lets go in 6 s");
    }

    /// A counter at the screen's edge is drawn whole, and never over the
    /// status lines.
    #[test]
    fn a_plate_counter_stays_whole_on_screen_and_off_the_status_lines() {
        let size = EVec2::new(1280.0, 720.0);
        let cut = egui::Rect::from_center_size(Pos2::new(10.0, 300.0), EVec2::new(80.0, 24.0));
        let r = counter_rect(cut, size);
        assert!(r.min.x >= 4.0 && r.size() == cut.size(), "{r:?}");
        let under = egui::Rect::from_center_size(Pos2::new(60.0, 60.0), EVec2::new(80.0, 24.0));
        let r = counter_rect(under, size);
        assert!(!r.intersects(STATUS), "{r:?}");
        let right = egui::Rect::from_center_size(Pos2::new(1279.0, 700.0), EVec2::new(80.0, 24.0));
        let r = counter_rect(right, size);
        assert!(r.max.x <= 1276.0 && r.max.y <= 716.0, "{r:?}");
        let fine = egui::Rect::from_center_size(Pos2::new(640.0, 360.0), EVec2::new(80.0, 24.0));
        assert_eq!(counter_rect(fine, size), fine);
    }

    /// An arrow toward something up and to the left slides past the status
    /// lines instead of covering the level's title.
    #[test]
    fn an_edge_arrow_keeps_off_the_status_lines() {
        let size = EVec2::new(1280.0, 720.0);
        for target in [
            Pos2::new(-400.0, -300.0),
            Pos2::new(100.0, -500.0),
            Pos2::new(-900.0, 60.0),
        ] {
            let (at, _) = edge_point(size, target).unwrap();
            assert!(!STATUS.expand(11.0).contains(at), "{target:?} -> {at:?}");
        }
    }

    /// The light leaves a trail where the swarm passed: a point every half
    /// second over the last twelve, the newest brightest.
    #[test]
    fn the_swarms_light_leaves_a_fading_trail() {
        let mut trail = LightTrail::default();
        for step in 0..1000u64 {
            trail.step(step, Vec2::new(step as f32 * 0.1, 0.0));
        }
        let glows: Vec<(Vec2, f32)> = trail.glows().collect();
        assert_eq!(glows.len(), 20, "the last two seconds are under the swarm");
        assert_eq!(glows.last().unwrap().0, Vec2::new(87.0, 0.0), "step 870");
        assert_eq!(glows[0].0, Vec2::new(30.0, 0.0), "twelve seconds back");
        assert!(glows.windows(2).all(|w| w[0].1 < w[1].1), "fading with age");
        assert_eq!(glows.last().unwrap().1, 0.15);
    }
}
