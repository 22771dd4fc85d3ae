//! The game's rules, headless: plates open gates, cooldowns, the light path's
//! narrow capture, failures that explain themselves, fear near hunters, bad
//! level files, and a level far from the origin playing as at the origin.

use glam::Vec2;
use murmuration_game::{Command, Game, GameEvent, Lesson, Level, Recording, levels};

/// A small level: `count` creatures spawned in `spawn`, an exit, and `extra`
/// appended to `[game]` (plates, gates).
fn small(count: u32, spawn: &str, game: &str) -> String {
    format!(
        r#"name = "small"
[world]
size = [100, 60]
boundary = {{ kind = "soft", margin = 3.0, strength = 40.0 }}
seed = 5
[species.lumen]
style = "lumen"
count = {count}
spawn = {spawn}
[game]
{game}
"#
    )
}

fn err(text: &str) -> String {
    Level::parse(text, "l.toml").unwrap_err().to_string()
}

#[test]
fn bad_level_files_name_the_line_the_field_and_the_value() {
    let spawn = "{ min = [10, 20], max = [20, 40] }";
    let ok = "save = 100\nexit = { shape = \"sphere\", center = [90, 30], radius = 5 }";
    Level::parse(&small(200, spawn, ok), "l.toml").unwrap();
    // Unknown key, at its line and column.
    let e = err(&small(200, spawn, &format!("{ok}\nsvae = 3")));
    assert!(
        e.starts_with("l.toml:13:8: game.svae: unknown field `svae`"),
        "{e}"
    );
    // A plate needing more creatures than the level has.
    let plate = "[[game.plates]]\nname = \"p\"\nshape = { shape = \"sphere\", center = [50, 30], radius = 5 }\nneed = 5000";
    let e = err(&small(200, spawn, &format!("{ok}\n{plate}")));
    assert!(
        e.starts_with(
            "l.toml:16:8: game.plates[0].need = 5000 is out of range: the level has 200 lumen"
        ),
        "{e}"
    );
    // A gate with no plate, and a gate naming a plate that does not exist.
    let gate = |plates: &str| {
        format!(
            "[[game.gates]]\nplates = {plates}\nshape = {{ shape = \"box\", center = [70, 30], half_extents = [2, 30] }}"
        )
    };
    let e = err(&small(200, spawn, &format!("{ok}\n{}", gate("[]"))));
    assert!(
        e.starts_with("l.toml:14:10: game.gates[0].plates is empty"),
        "{e}"
    );
    let e = err(&small(
        200,
        spawn,
        &format!("{ok}\n{}", gate("[\"lever\"]")),
    ));
    assert!(
        e.contains("game.gates[0].plates[0] = \"lever\" is no plate of this level (plates: none)"),
        "{e}"
    );
    // Saving more than exist; a level without [game]; no force priorities.
    let e = err(&small(200, spawn, &ok.replace("save = 100", "save = 201")));
    assert!(e.contains("game.save = 201 is out of range"), "{e}");
    let e = err(&small(200, spawn, ok).replace("[game]", "[nogame]"));
    assert!(e.contains("unknown field `nogame`"), "{e}");
    let weighted = small(200, spawn, ok).replace(
        "style = \"lumen\"",
        "style = \"lumen\"\ncombine = \"weighted_sum\"",
    );
    let e = err(&weighted);
    assert!(
        e.contains("species.lumen.combine must be \"prioritized\" in a level"),
        "{e}"
    );
    // A closed gate over the spawn is refused when the game starts.
    let over = small(
        200,
        spawn,
        &format!(
            "{ok}\n[[game.plates]]\nname = \"p\"\nshape = {{ shape = \"sphere\", center = [50, 30], radius = 5 }}\nneed = 10\n{}",
            gate("[\"p\"]").replace("[70, 30]", "[15, 30]")
        ),
    );
    let level = Level::parse(&over, "l.toml").unwrap();
    let e = Game::new(&level).unwrap_err().to_string();
    assert!(e.contains("creatures start inside the closed gate"), "{e}");
}

#[test]
fn a_plate_held_by_the_swarm_opens_its_gate_and_the_obstacle_goes() {
    // The swarm spawns on the plate: it holds after the first step.
    let text = small(
        300,
        "{ min = [10, 20], max = [22, 40] }",
        "save = 100\nexit = { shape = \"sphere\", center = [90, 30], radius = 5 }\n\
         [[game.plates]]\nname = \"p\"\nshape = { shape = \"box\", center = [16, 30], half_extents = [8, 12] }\nneed = 250\n\
         [[game.gates]]\nplates = [\"p\"]\nshape = { shape = \"box\", center = [60, 30], half_extents = [2, 30] }",
    );
    let level = Level::parse(&text, "l.toml").unwrap();
    let mut game = Game::new(&level).unwrap();
    assert_eq!(
        game.world().obstacles().len(),
        1,
        "the closed gate is solid"
    );
    let events = game.step(&[]).to_vec();
    assert!(game.plates()[0].count >= 250, "{:?}", game.plates());
    assert!(events.contains(&GameEvent::PlateHeld(0)), "{events:?}");
    assert!(events.contains(&GameEvent::GateOpened(0)), "{events:?}");
    assert!(game.world().obstacles().is_empty(), "the open gate is gone");
    assert!(game.gates()[0].open);
}

#[test]
fn recall_and_pulse_wait_for_their_cooldowns() {
    let s = &levels::LEVELS[0];
    let level = Level::parse(s.text, s.key).unwrap();
    let mut game = Game::new(&level).unwrap();
    let p = Vec2::new(30.0, 50.0);
    assert!(
        game.step(&[Command::Recall, Command::Pulse(p)])
            .contains(&GameEvent::Recall)
    );
    assert!(game.events().contains(&GameEvent::Pulse(p)));
    assert!(game.recalling());
    assert!(
        (game.recall_cooldown() - (3.0 - 1.0 / 60.0)).abs() < 1e-4,
        "{}",
        game.recall_cooldown()
    );
    // Pressed again at once: nothing happens until each cooldown has passed.
    for _ in 1..90 {
        let e = game.step(&[Command::Recall, Command::Pulse(p)]);
        assert!(e.is_empty(), "{e:?} during the cooldowns");
    }
    // The pulse's 1.5 s is over at step 90, the recall's 3 s at step 180.
    assert!(
        game.step(&[Command::Recall, Command::Pulse(p)])
            .contains(&GameEvent::Pulse(p))
    );
    assert!(!game.events().contains(&GameEvent::Recall));
    for _ in 91..180 {
        game.step(&[]);
    }
    assert_eq!(game.recall_cooldown(), 0.0);
    assert!(game.step(&[Command::Recall]).contains(&GameEvent::Recall));
}

#[test]
fn a_light_path_moves_only_the_creatures_within_its_narrow_capture_radius() {
    let s = &levels::LEVELS[0];
    let level = Level::parse(s.text, s.key).unwrap();
    let run = |stroke: &[Vec2]| {
        let mut game = Game::new(&level).unwrap();
        game.step(&[Command::PathBegin(stroke[0])]);
        for &p in &stroke[1..] {
            game.step(&[Command::PathTo(p)]);
        }
        game.step(&[Command::PathEnd]);
        for _ in 0..60 {
            game.step(&[]);
        }
        game.digest()
    };
    let plain = {
        let mut game = Game::new(&level).unwrap();
        for _ in 0..(2 + 20 + 60) {
            game.step(&[]);
        }
        game.digest()
    };
    // The swarm spawns in x 8..38 and spreads at most 7 units/s: a stroke along
    // x = 60 stays beyond the 1.6 capture radius of every creature throughout.
    let far: Vec<Vec2> = (0..21).map(|k| Vec2::new(60.0, 35.0 + k as f32)).collect();
    assert_eq!(run(&far), plain, "a path out of reach moved the swarm");
    let through: Vec<Vec2> = (0..21).map(|k| Vec2::new(23.0, 35.0 + k as f32)).collect();
    assert_ne!(
        run(&through),
        plain,
        "a path through the swarm moved nobody"
    );
}

#[test]
fn too_few_left_for_a_plate_loses_and_says_why() {
    // Half the swarm spawns inside the exit and is saved at once: 100 creatures
    // cannot hold a plate needing 150 any more, so the level is lost, in words.
    let text = small(
        200,
        "{ min = [80, 20], max = [96, 40] }",
        "save = 160\nexit = { shape = \"box\", center = [94, 30], half_extents = [6, 30] }\n\
         [[game.plates]]\nname = \"p\"\nshape = { shape = \"sphere\", center = [20, 30], radius = 8 }\nneed = 150\n\
         [[game.gates]]\nplates = [\"p\"]\nshape = { shape = \"box\", center = [60, 30], half_extents = [2, 30] }",
    );
    let level = Level::parse(&text, "l.toml").unwrap();
    let mut game = Game::new(&level).unwrap();
    game.step(&[]);
    let o = game.outcome().expect("decided at once");
    let left = game.alive();
    assert!(!o.won && left < 150, "{o} ({left} left)");
    assert_eq!(
        o.message,
        format!("Only {left} left — the plate needs 150.")
    );
}

#[test]
fn creatures_near_a_hunter_fly_more_unevenly_than_the_calm_core() {
    // Fear is visible (seed 001, 6.4): in Night Hunters, the speeds of creatures
    // within 10 units of a hunter vary more than those of creatures far from any.
    let s = &levels::LEVELS[1];
    let level = Level::parse(s.text, s.key).unwrap();
    let rec = Recording::parse(s.solution, s.key).unwrap();
    let mut game = Game::new(&level).unwrap();
    let mut next = 0;
    let (mut near, mut far) = (Vec::new(), Vec::new());
    for step in 0..rec.steps {
        game.step(&rec.commands_at(step, &mut next));
        if game.outcome().is_some() {
            break;
        }
        if step % 10 != 0 {
            continue;
        }
        let w = game.world();
        let hunters: Vec<Vec2> = w
            .positions()
            .iter()
            .zip(w.boid_species())
            .filter(|(_, s)| **s == 1)
            .map(|(p, _)| *p)
            .collect();
        for ((p, v), &sp) in w
            .positions()
            .iter()
            .zip(w.velocities())
            .zip(w.boid_species())
        {
            if sp != 0 {
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
    let stats = |xs: &[f32]| {
        let m = xs.iter().sum::<f32>() / xs.len() as f32;
        let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f32>() / xs.len() as f32;
        (m, var)
    };
    let ((mn, vn), (mf, vf)) = (stats(&near), stats(&far));
    eprintln!(
        "near a hunter: {} samples, speed {mn:.2}, variance {vn:.3}; far: {} samples, {mf:.2}, {vf:.3}",
        near.len(),
        far.len()
    );
    assert!(near.len() > 500, "too few samples near hunters");
    // Seed 001, 6.4, as the issue measures it: the speed variance near a hunter
    // at least twice the calm swarm's. Measured 2.6x with the lumen style's
    // flee weight 5 and fear 0.5 (1.5x at 1 and none, when fear was not
    // seen; its shipped route's whole run is measured); and fear is urgent,
    // not frozen: the frightened fly no slower than the calm.
    assert!(
        vn >= 2.0 * vf,
        "fear is not visible: speed variance {vn:.3} near a hunter against {vf:.3} far"
    );
    assert!(
        mn >= 0.95 * mf,
        "the frightened slow down: {mn:.2} against {mf:.2}"
    );
}

/// Adds `by` to every pair of numbers in a level's TOML except sizes and half
/// extents: the level moved, whatever its keys.
fn shift(v: &mut toml::Value, by: f64) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t.iter_mut() {
                if !["size", "half_extents", "heading"].contains(&k.as_str()) {
                    shift(x, by);
                }
            }
        }
        toml::Value::Array(a)
            if a.len() == 2 && a.iter().all(|x| x.is_float() || x.is_integer()) =>
        {
            for x in a.iter_mut() {
                let f = x
                    .as_float()
                    .unwrap_or_else(|| x.as_integer().unwrap_or(0) as f64);
                *x = toml::Value::Float(f + by);
            }
        }
        toml::Value::Array(a) => a.iter_mut().for_each(|x| shift(x, by)),
        _ => {}
    }
}

#[test]
fn a_level_placed_100000_units_out_plays_exactly_as_at_the_origin() {
    let s = &levels::LEVELS[2];
    let mut far: toml::Value = toml::from_str(s.text).unwrap();
    // The level's box had no lower corner: give it one, then move everything.
    far["world"]
        .as_table_mut()
        .unwrap()
        .insert("min".into(), toml::Value::Array(vec![0.into(), 0.into()]));
    shift(&mut far, 100_000.0);
    let far = toml::to_string(&far).unwrap();
    assert!(far.contains("100085"), "the plate moved too");
    let near_level = Level::parse(s.text, s.key).unwrap();
    let far_level = Level::parse(&far, "far.toml").unwrap();
    assert_eq!(far_level.offset(), Vec2::splat(100_000.0));
    let rec = Recording::parse(s.solution, s.key).unwrap();
    let play = |level: &Level| {
        let mut r = rec.clone();
        r.checksum = level.checksum();
        let g = r.play(level, s.key, s.key).unwrap();
        (g.digest(), g.saved(), g.step_index(), g.outcome().cloned())
    };
    let (a, b) = (play(&near_level), play(&far_level));
    assert_eq!(a, b, "the far level played otherwise");
    assert!(a.3.unwrap().won);
}

#[test]
fn a_hint_stays_until_the_player_has_done_what_it_teaches() {
    // The Mechanism teaches the plate, then the way out: its first hint is
    // still there after 30 idle seconds, goes when the plate holds, and the
    // last goes when the first creature is home.
    let s = &levels::LEVELS[2];
    let level = Level::parse(s.text, s.key).unwrap();
    let texts: Vec<&str> = level.hints.iter().map(|h| h.text.as_str()).collect();
    assert_eq!(level.hints[0].until, Lesson::Plate);
    let mut idle = Game::new(&level).unwrap();
    for _ in 0..1800 {
        idle.step(&[]);
    }
    assert_eq!(idle.hint(), Some(texts[0]), "gone after 30 s of nothing");
    let rec = Recording::parse(s.solution, s.key).unwrap();
    let mut game = Game::new(&level).unwrap();
    let mut next = 0;
    let owned = |g: &Game| g.hint().map(str::to_string);
    let mut seen = vec![owned(&game)];
    for step in 0..rec.steps {
        game.step(&rec.commands_at(step, &mut next));
        if seen.last() != Some(&owned(&game)) {
            seen.push(owned(&game));
            eprintln!("t {:.1} s: {:?}", game.time(), game.hint());
        }
        if game.outcome().is_some() {
            break;
        }
    }
    let want: Vec<Option<String>> = vec![Some(texts[0].into()), Some(texts[1].into()), None];
    assert_eq!(seen, want);
    assert!(game.learned(Lesson::Plate) && game.learned(Lesson::Saved));
    // A level gives one hint line or a list, never both, and no empty hint.
    let both = s.text.replace("hints = [", "hint = \"x\"\nhints = [");
    let e = Level::parse(&both, "both.toml").unwrap_err().to_string();
    assert!(e.contains("not both"), "{e}");
}

#[test]
fn a_recall_brings_the_swarm_around_the_wall_through_the_open_gate() {
    // Issue 46: in The Mechanism a recall from behind the wall pinned ~1,100
    // creatures against it beside the open gate. Play the solution until the
    // gate opens, put the focus behind the wall's lower half (the straight way
    // from the plate runs into it) and recall: the swarm comes through the gate.
    let s = &levels::LEVELS[2];
    let level = Level::parse(s.text, s.key).unwrap();
    let rec = Recording::parse(s.solution, s.key).unwrap();
    let mut game = Game::new(&level).unwrap();
    let mut next = 0;
    let mut step = 0;
    while !game.gates()[0].open {
        game.step(&rec.commands_at(step, &mut next));
        step += 1;
        assert!(step < rec.steps, "the gate never opened");
    }
    let behind = Vec2::new(150.0, 80.0);
    let mut recalls = 0;
    for k in 0..1500 {
        let mut c = vec![Command::Point(behind)];
        if k % 180 == 0 {
            c.push(Command::Recall);
        }
        if game.step(&c).contains(&GameEvent::Recall) {
            recalls += 1;
        }
    }
    let w = game.world();
    let swarm: Vec<Vec2> = w
        .positions()
        .iter()
        .zip(w.boid_species())
        .filter(|(_, s)| **s == 0)
        .map(|(p, _)| *p)
        .collect();
    let through = swarm.iter().filter(|p| p.x > 134.0).count();
    let pinned = swarm
        .iter()
        .filter(|p| (120.0..127.5).contains(&p.x) && p.y > 58.0)
        .count();
    eprintln!(
        "{recalls} recalls, 25 s: {through} of {} through the gate, {pinned} pinned against the wall",
        swarm.len()
    );
    // Measured: all 1,900 through, none pinned; with the focus's flow field
    // off (a plain straight pull), 249 through and 1,546 pinned.
    assert!(
        through as f32 >= 0.9 * swarm.len() as f32,
        "{through} of {} came through",
        swarm.len()
    );
    assert!(pinned <= 50, "{pinned} pinned against the wall");
}

#[test]
fn an_unlatched_gate_closing_behind_the_swarm_does_not_lose_the_level() {
    // The Lock: its gate is unlatched, so it shuts once the north plate lets go,
    // with most of the swarm already past it. Judging by the plates of a gate that
    // had opened, the level was lost there ("Only 897 left — the plate needs 900")
    // with 1,003 saved and the rest on their way home.
    let s = levels::LEVELS.iter().find(|l| l.key == "the-lock").unwrap();
    let level = Level::parse(s.text, s.key).unwrap();
    let rec = Recording::parse(s.solution, s.key).unwrap();
    let mut game = Game::new(&level).unwrap();
    let need = level.plates.iter().map(|p| p.need).max().unwrap();
    let mut shut_behind = 0;
    let mut next = 0;
    for step in 0..rec.steps {
        game.step(&rec.commands_at(step, &mut next));
        let g = game.gates()[0];
        if g.opened && !g.open && game.alive() < need && game.outcome().is_none() {
            shut_behind += 1;
        }
        if game.outcome().is_some() {
            break;
        }
    }
    assert!(
        shut_behind > 0,
        "the gate never shut behind the swarm with fewer than {need} left"
    );
    let o = game.outcome().expect("decided");
    assert!(o.won, "{o}");
}

#[test]
fn plates_that_each_held_but_never_together_are_named_as_such() {
    // The Lock, played too slowly: the north plate holds, then lets go before
    // the east one fills. "The north plate held at most 1028 at once and needs
    // 800" (the finale's first draft said so) read as a contradiction.
    let s = levels::LEVELS.iter().find(|l| l.key == "the-lock").unwrap();
    let level = Level::parse(s.text, s.key).unwrap();
    let mut game = Game::new(&level).unwrap();
    let plate = |name: &str| {
        let p = level.plates.iter().find(|p| p.name == name).unwrap();
        p.shape.bounds().0
    };
    // Lead the swarm at `lead` units ahead of its centre toward `to` for `secs`.
    let lead = |game: &mut Game, to: Vec2, lead: f32, secs: u64| {
        for step in 0..secs * 60 {
            let c = game.centroid();
            let cmd = (step % 15 == 0).then(|| Command::Point(c + (to - c).clamp_length_max(lead)));
            game.step(cmd.as_slice());
        }
    };
    lead(&mut game, plate("north"), 20.0, 25);
    assert!(
        game.plates()[0].most >= level.plates[0].need,
        "north never filled"
    );
    lead(&mut game, plate("east"), 4.0, 50);
    assert!(
        game.plates()[1].most >= level.plates[1].need,
        "east never filled"
    );
    while game.outcome().is_none() {
        game.step(&[]);
    }
    let o = game.outcome().unwrap();
    assert!(!o.won);
    assert!(
        o.message.ends_with(
            "The gate never opened: the north and east plates never held at the same time."
        ),
        "{o}"
    );
}
