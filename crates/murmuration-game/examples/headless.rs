//! Plays a level with a recording (or a hand-written script) and prints the
//! state every second: the level designer's loop without a window.
//!
//! `cargo run -p murmuration-game --example headless -- LEVEL.toml SCRIPT.replay [--write OUT]`
//!
//! With `--bot "x,y;x,y;…"` a scripted player is added to the script's commands:
//! it leads the swarm through the waypoints, the focus at most `--lead` units
//! ahead of the swarm's centroid, and recalls when the halo dims below 0.5 (not
//! with `--no-recall`, for a swarm split on purpose).
//! `--write` saves what was played as a finished recording; `--density` prints the
//! creatures per unit² within 5 units of the led swarm's centroid, the median
//! nearest-neighbour distance and the groups (the look); `--set PATH=VALUE`
//! (repeatable) changes the level as the CLI's `--set` does.

use murmuration_game::{Game, Level, Recording};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let overrides: Vec<murmuration::scenario::Override> = args
        .windows(2)
        .filter(|w| w[0] == "--set")
        .map(|w| w[1].parse())
        .collect::<Result<_, _>>()?;
    let level = Level::load(std::path::Path::new(&args[1]), &overrides)?;
    let mut rec = Recording::load(std::path::Path::new(&args[2]))?;
    rec.checksum = level.checksum();
    rec.end = None;
    let mut game = Game::new(&level)?;
    let arg = |name: &str| {
        args.iter()
            .position(|a| a == name)
            .map(|i| args[i + 1].clone())
    };
    // "x,y" or "x,y@step": a waypoint not left before that step.
    let waypoints: Vec<(glam::Vec2, u64)> = arg("--bot")
        .map(|b| {
            b.split(';')
                .map(|p| {
                    let (p, until) = p.split_once('@').unwrap_or((p, "0"));
                    let (x, y) = p.split_once(',').expect("x,y");
                    let at = glam::Vec2::new(x.trim().parse().unwrap(), y.trim().parse().unwrap());
                    (at, until.trim().parse().unwrap())
                })
                .collect()
        })
        .unwrap_or_default();
    let no_recall = args.iter().any(|a| a == "--no-recall");
    let lead: f32 = arg("--lead").map_or(14.0, |l| l.parse().unwrap());
    let mut wp = 0;
    let script = rec.clone();
    rec.commands.clear();
    // What is written names the level by its key (`2-night-hunters.toml` is
    // `night-hunters`) and holds as many steps as were played.
    rec.steps = 0;
    let stem = std::path::Path::new(&args[1])
        .file_stem()
        .map_or(String::new(), |s| s.to_string_lossy().into_owned());
    rec.level = stem
        .split_once('-')
        .filter(|(n, _)| n.parse::<u32>().is_ok())
        .map_or(stem.clone(), |(_, k)| k.to_string());
    let mut next = 0;
    let t0 = std::time::Instant::now();
    let fear = args.iter().any(|a| a == "--fear");
    let (mut near, mut far) = (Vec::new(), Vec::new());
    for step in 0..script.steps {
        let mut commands = script.commands_at(step, &mut next);
        if !waypoints.is_empty() && step % 15 == 0 {
            let c = game.centroid();
            while wp + 1 < waypoints.len()
                && (waypoints[wp].0 - c).length() < 10.0
                && step >= waypoints[wp].1
            {
                wp += 1;
            }
            let to = waypoints[wp].0 - c;
            let goal = c + to.clamp_length_max(lead);
            commands.push(murmuration_game::Command::Point(goal));
            if !no_recall && game.halo() < 0.5 && game.recall_cooldown() == 0.0 {
                commands.push(murmuration_game::Command::Recall);
            }
        }
        rec.record(step, &commands);
        game.step(&commands);
        if fear && step % 10 == 0 {
            fear_sample(&game, &mut near, &mut far);
        }
        if step % 60 == 0 || game.outcome().is_some() {
            let c = game.centroid();
            let plates: Vec<String> = game
                .plates()
                .iter()
                .map(|p| format!("{}{}", p.count, if p.held { "*" } else { "" }))
                .collect();
            let m = game.world().metrics();
            print!(
                "speed {:4.2} pol {:4.2} paths {} ",
                m.mean_speed,
                m.polarization,
                game.world().paths().len()
            );
            if let Some(x) = arg("--left") {
                let x: f32 = x.parse().unwrap();
                print!(
                    "left {} ",
                    game.world()
                        .positions()
                        .iter()
                        .zip(game.world().boid_species())
                        .filter(|(p, s)| p.x < x && **s == 0)
                        .count()
                );
            }
            if args.iter().any(|a| a == "--density") {
                // Creatures per unit² within 5 units of the led swarm's centroid.
                let c = game.centroid();
                let n = game
                    .world()
                    .positions()
                    .iter()
                    .filter(|p| (**p - c).length() < 5.0)
                    .count();
                // The edge: creatures with fewer than 4 others within 2 units.
                let pos = game.world().positions();
                let edge = pos
                    .iter()
                    .filter(|p| pos.iter().filter(|q| (**p - **q).length() < 2.0).count() < 5)
                    .count();
                print!(
                    "density {:5.2} edge {:4.2} nn {:4.2} groups {:3} largest {:4.2} ",
                    n as f32 / (std::f32::consts::PI * 25.0),
                    edge as f32 / pos.len().max(1) as f32,
                    m.median_nn_distance,
                    m.structure.groups,
                    m.structure.largest_group_fraction
                );
            }
            if let Some(y) = arg("--below") {
                let y: f32 = y.parse().unwrap();
                print!(
                    "below {} ",
                    game.world().positions().iter().filter(|p| p.y < y).count()
                );
            }
            println!(
                "t {:5.1} alive {:4} saved {:4} eaten {:3} centroid ({:6.1},{:5.1}) focus ({:6.1},{:5.1}) halo {:.2} plates {:?} gates {:?}",
                game.time(),
                game.alive(),
                game.saved(),
                game.eaten(),
                c.x,
                c.y,
                game.focus().x,
                game.focus().y,
                game.halo(),
                plates,
                game.gates().iter().map(|g| g.open).collect::<Vec<_>>()
            );
        }
        if game.outcome().is_some() {
            break;
        }
    }
    let ms = t0.elapsed().as_secs_f64() * 1e3 / game.step_index().max(1) as f64;
    match game.outcome() {
        Some(o) => println!("outcome: {} — {o}", o.word()),
        None => println!("outcome: none after {} steps", game.step_index()),
    }
    println!(
        "saved: {} / {}  digest: {:016x}  {ms:.3} ms/step",
        game.saved(),
        level.save,
        game.digest()
    );
    if fear {
        let var = |xs: &[f32]| {
            let m = xs.iter().sum::<f32>() / xs.len().max(1) as f32;
            (
                m,
                xs.iter().map(|x| (x - m) * (x - m)).sum::<f32>() / xs.len().max(1) as f32,
            )
        };
        let ((mn, vn), (mf, vf)) = (var(&near), var(&far));
        println!(
            "fear: near a hunter {} samples, speed {mn:.2} var {vn:.3}; far {} samples, {mf:.2} var {vf:.3}; ratio {:.2}",
            near.len(),
            far.len(),
            vn / vf
        );
    }
    if let Some(i) = args.iter().position(|a| a == "--write") {
        rec.finish(&game);
        std::fs::write(&args[i + 1], rec.to_text())?;
    }
    Ok(())
}

/// Speeds of swarm creatures within 10 units of another species' boid (a
/// hunter) into `near`, and beyond 30 units of all into `far`.
fn fear_sample(game: &Game, near: &mut Vec<f32>, far: &mut Vec<f32>) {
    let w = game.world();
    let swarm = game.swarm();
    let hunters: Vec<glam::Vec2> = w
        .positions()
        .iter()
        .zip(w.boid_species())
        .filter(|(_, s)| **s != swarm)
        .map(|(p, _)| *p)
        .collect();
    if hunters.is_empty() {
        return;
    }
    for ((p, v), &s) in w
        .positions()
        .iter()
        .zip(w.velocities())
        .zip(w.boid_species())
    {
        if s != swarm {
            continue;
        }
        let d = hunters
            .iter()
            .map(|h| (*h - *p).length())
            .fold(f32::INFINITY, f32::min);
        if d < 10.0 {
            near.push(v.length());
        } else if d > 30.0 {
            far.push(v.length());
        }
    }
}
