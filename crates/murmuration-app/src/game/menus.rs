//! The game's menus with egui: the title screen (level select, best results,
//! controls, where the sound plays), the pause menu (with the key rebinding)
//! and the end screen, zoomed with the window and scrolling where they do not
//! fit.

use super::hud::tally;
use egui::{Align2, Color32, Pos2, Stroke, Vec2 as EVec2};
use murmuration_game::keys::{Action, Keymap, MOUSE};
use murmuration_game::{Game, Progress, levels};

/// What a menu asked for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Choice {
    /// Nothing yet.
    None,
    /// Start shipped level `i`.
    Play(usize),
    /// Back to the level (close the pause menu).
    Resume,
    /// Start the level again.
    Restart,
    /// The next level.
    Next,
    /// The title screen.
    Levels,
    /// Close the game.
    Quit,
    /// Wait for a key to bind to this action.
    Rebind(Action),
    /// Every key back to its default.
    ResetKeys,
}

/// The controls: every key action with its keys (a button to rebind each when
/// `rebind` is given: `Some(waiting)` in the pause menu), then the mouse's.
fn controls(ui: &mut egui::Ui, keys: &Keymap, rebind: Option<Option<Action>>) -> Choice {
    let mut choice = Choice::None;
    egui::Grid::new("controls").striped(true).show(ui, |ui| {
        for a in Action::ALL {
            ui.label(a.label());
            ui.label(keys.keys(a).join(", "));
            if let Some(waiting) = rebind {
                let text = if waiting == Some(a) {
                    "press a key…"
                } else {
                    "rebind"
                };
                if ui.small_button(text).clicked() {
                    choice = Choice::Rebind(a);
                }
            }
            ui.end_row();
        }
        for (action, gesture) in MOUSE {
            ui.label(action);
            ui.label(gesture);
            ui.end_row();
        }
    });
    if rebind.is_some() && ui.button("Default keys").clicked() {
        choice = Choice::ResetKeys;
    }
    choice
}

/// A level's best result on the title screen: its stars, saved, time, eaten.
fn best_text(b: &murmuration_game::Best) -> String {
    if b.won {
        format!(
            "   {}/3 stars  {} saved · {:.0} s · {} eaten",
            b.stars, b.saved, b.time, b.eaten
        )
    } else {
        format!("   best: {} saved (not won)", b.saved)
    }
}

/// What each star asks for (words: egui's default fonts have no star glyph).
pub(crate) fn par_text(saved: u64, time: f32) -> String {
    if time.is_finite() {
        format!("stars: a win · {saved} saved · within {time:.0} s")
    } else {
        format!("stars: a win · {saved} saved · any time")
    }
}

/// Three stars drawn as shapes, `n` of them filled gold.
fn star_row(ui: &mut egui::Ui, n: u8) {
    let (rect, _) = ui.allocate_exact_size(EVec2::new(120.0, 36.0), egui::Sense::hover());
    let gold = Color32::from_rgb(255, 215, 110);
    for k in 0..3u8 {
        let c = Pos2::new(rect.left() + 20.0 + 40.0 * k as f32, rect.center().y);
        let points: Vec<Pos2> = (0..10)
            .map(|i| {
                let r = if i % 2 == 0 { 16.0 } else { 6.5 };
                let a = std::f32::consts::PI * (i as f32 / 5.0 - 0.5);
                c + EVec2::new(a.cos(), a.sin()) * r
            })
            .collect();
        let fill = if k < n { gold } else { Color32::TRANSPARENT };
        // A star is concave: fill it as ten triangles from its centre.
        for i in 0..10 {
            let t = vec![c, points[i], points[(i + 1) % 10]];
            ui.painter()
                .add(egui::Shape::convex_polygon(t, fill, Stroke::NONE));
        }
        ui.painter()
            .add(egui::Shape::closed_line(points, Stroke::new(1.5, gold)));
    }
}

/// The title screen: level select (locked levels shown), best results, controls.
/// `titles` are the shipped levels' titles, in order.
pub fn title(
    ctx: &egui::Context,
    titles: &[String],
    progress: &Progress,
    keys: &Keymap,
    note: Option<&str>,
    sound: &str,
) -> Choice {
    let mut choice = Choice::None;
    egui::Area::new(egui::Id::unique("lumen-swarm title"))
        .anchor(Align2::CENTER_CENTER, EVec2::ZERO)
        .show(ctx, |ui| {
            egui::Frame::window(ui.style()).show(ui, |ui| {
                let screen = ctx.content_rect();
                ui.set_width(460.0f32.min(screen.width() - 40.0));
                ui.vertical_centered(|ui| {
                    ui.heading(egui::RichText::new("Lumen Swarm").size(34.0));
                    ui.label("Guide the swarm through the dark. You never command a creature.");
                });
                ui.separator();
                // The levels and the controls scroll where the window is short.
                egui::ScrollArea::vertical()
                    .max_height((screen.height() - 140.0).max(80.0))
                    .show(ui, |ui| {
                        for (i, (l, title)) in levels::LEVELS.iter().zip(titles).enumerate() {
                            let open = progress.unlocked(i);
                            let best = progress.levels.get(l.key).map_or(String::new(), best_text);
                            let text = if open {
                                format!("{}. {title}{best}", i + 1)
                            } else {
                                format!("{}. {title}   (locked: win level {} first)", i + 1, i)
                            };
                            if ui.add_enabled(open, egui::Button::new(text)).clicked() {
                                choice = Choice::Play(i);
                            }
                        }
                        ui.separator();
                        ui.collapsing("Controls (rebind them in the pause menu)", |ui| {
                            controls(ui, keys, None)
                        });
                        if let Some(n) = note {
                            ui.label(egui::RichText::new(n).weak());
                        }
                        ui.label(egui::RichText::new(sound).weak());
                    });
                if ui.button("Quit").clicked() {
                    choice = Choice::Quit;
                }
            });
        });
    choice
}

/// The pause menu: resume, restart, level select, the controls.
pub fn pause(ctx: &egui::Context, keys: &Keymap, waiting: Option<Action>) -> Choice {
    let mut choice = Choice::None;
    let key = |a: Action| keys.keys(a).first().cloned().unwrap_or_default();
    egui::Window::new("Paused")
        .anchor(Align2::CENTER_CENTER, EVec2::ZERO)
        .collapsible(false)
        .resizable(false)
        // The controls scroll where the window is short.
        .vscroll(true)
        .max_height((ctx.content_rect().height() - 100.0).max(80.0))
        .show(ctx, |ui| {
            if ui
                .button(format!("Resume ({})", key(Action::Pause)))
                .clicked()
            {
                choice = Choice::Resume;
            }
            if ui
                .button(format!("Restart ({})", key(Action::Restart)))
                .clicked()
            {
                choice = Choice::Restart;
            }
            if ui.button("Level select").clicked() {
                choice = Choice::Levels;
            }
            if ui.button("Quit").clicked() {
                choice = Choice::Quit;
            }
            ui.separator();
            let c = controls(ui, keys, Some(waiting));
            if c != Choice::None {
                choice = c;
            }
            if waiting.is_some() {
                ui.label("Press the new key (Escape keeps the old one).");
            }
        });
    choice
}

/// The end of a level: what happened in words, saved against needed, the best.
pub fn ended(ctx: &egui::Context, game: &Game, best: bool, has_next: bool) -> Choice {
    let mut choice = Choice::None;
    let Some(o) = game.outcome() else {
        return choice;
    };
    let heading = if o.won {
        "The swarm is home"
    } else {
        "The light fades"
    };
    egui::Window::new(heading)
        .anchor(Align2::CENTER_CENTER, EVec2::ZERO)
        .collapsible(false)
        .resizable(false)
        .show(ctx, |ui| {
            ui.label(egui::RichText::new(&o.message).size(18.0));
            if o.won {
                let par = &game.level().par;
                star_row(ui, o.stars);
                ui.label(par_text(par.saved, par.time));
            }
            ui.label(format!(
                "{} in {:.0} s{}",
                tally(game),
                game.time(),
                if best { " — a new best" } else { "" }
            ));
            ui.horizontal(|ui| {
                if o.won && has_next && ui.button("Next level").clicked() {
                    choice = Choice::Next;
                }
                if ui.button("Retry (R)").clicked() {
                    choice = Choice::Restart;
                }
                if ui.button("Level select").clicked() {
                    choice = Choice::Levels;
                }
            });
        });
    choice
}
