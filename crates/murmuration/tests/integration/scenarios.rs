//! Scenario files: every shipped preset loads; bad input gives an error naming the
//! file, line, column, field and value; overrides; the parser never panics.

use murmuration::glam::{Vec2, Vec3};
use murmuration::scenario::{AnyWorld, Override, Scenario};
use murmuration::{Relation, ScenarioError, World2, World3};
use proptest::prelude::*;
use std::path::PathBuf;

fn presets_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

const FISH: &str = r#"name = "test"
dimension = 2

[world]
size = [40, 30]
boundary = "wrap"
seed = 7

[species.fish]
count = 100
perception = 1
"#;

const GOOD: &str = r#"name = "good"
description = "two species"
steps = 50

[world]
size = [40, 30]
boundary = { kind = "soft", margin = 2.0, strength = 8.0 }
seed = 7

[species.fish]
style = "fish"
count = 100
max_speed = 2.5
spawn = { min = [0, 0], max = [20, 30] }

[species.shark]
count = 1
chase_radius = 8.0
heading = [1, 0]
speed = 1.0

[relations.fish]
shark = "flee"

[relations.shark]
fish = "chase"

[[obstacles]]
shape = "sphere"
center = [30, 15]
radius = 2.0

[[attractors]]
position = [10, 10]
species = "fish"

[[zones]]
shape = { shape = "box", center = [35, 25], half_extents = [3, 3] }
species = "fish"
threshold = 5
"#;

fn err(text: &str) -> ScenarioError {
    Scenario::parse(text, "s.toml").expect_err("this scenario must be rejected")
}

/// Asserts the error's text starts with `s.toml:LINE:COL: ` and contains `needle`.
fn assert_err(text: &str, line: usize, col: usize, needle: &str) {
    let e = err(text);
    let msg = e.to_string();
    assert!(
        msg.starts_with(&format!("s.toml:{line}:{col}: ")),
        "expected s.toml:{line}:{col}: in {msg:?}"
    );
    assert!(msg.contains(needle), "expected {needle:?} in {msg:?}");
}

#[test]
fn a_full_scenario_builds_every_section() {
    let s = Scenario::parse(GOOD, "s.toml").unwrap();
    assert_eq!(s.name(), "good");
    assert_eq!(s.steps(), Some(50));
    assert_eq!(s.dimension(), 2);
    assert_eq!(
        s.species(),
        &[("fish".to_string(), 100), ("shark".to_string(), 1)]
    );
    let w: World2 = s.build_world().unwrap();
    assert_eq!(w.len(), 101);
    assert_eq!(w.species()[0].max_speed, 2.5);
    assert_eq!(w.species()[0].alignment_radius, 1.2, "fish style applied");
    assert_eq!(w.species()[1].chase_radius, 8.0);
    assert_eq!(w.relations().get(0, 1), Relation::Flee);
    assert_eq!(w.relations().get(1, 0), Relation::Chase);
    assert_eq!(w.relations().get(0, 0), Relation::Flock);
    assert_eq!(w.obstacles().len(), 1);
    assert_eq!(w.attractors()[0].species, Some(0));
    assert_eq!(w.attractors()[0].goal, Vec2::new(10.0, 10.0));
    assert_eq!(w.zones()[0].threshold, 5);
    // Spawn regions, speeds and headings.
    let sp = w.boid_species();
    for ((p, v), s) in w.positions().iter().zip(w.velocities()).zip(sp) {
        if *s == 0 {
            assert!(p.x <= 20.0, "fish spawned outside their region: {p}");
            assert!((v.length() - 2.5).abs() < 1e-4);
        } else {
            assert_eq!(*v, Vec2::new(1.0, 0.0));
        }
    }
    assert!(s.lints().is_empty(), "{:?}", s.lints());
}

#[test]
fn building_twice_gives_the_same_world() {
    let s = Scenario::parse(GOOD, "s.toml").unwrap();
    let mut a: World2 = s.build_world().unwrap();
    let mut b: World2 = s.build_world().unwrap();
    a.step_n(20);
    b.step_n(20);
    assert_eq!(a.digest(), b.digest());
}

#[test]
fn every_shipped_preset_parses_and_steps() {
    let mut seen = 0;
    for entry in std::fs::read_dir(presets_dir()).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_none_or(|e| e != "toml") {
            continue;
        }
        let s = Scenario::load(&path).unwrap_or_else(|e| panic!("{e}"));
        assert!(!s.name().is_empty() && !s.description().is_empty());
        assert!(s.lints().is_empty(), "{}: {:?}", path.display(), s.lints());
        // Stepping is left to the CLI test (100 steps each); build a small copy.
        let small: Vec<Override> = s
            .species()
            .iter()
            .map(|(n, c)| {
                format!("species.{n}.count={}", c.min(&500))
                    .parse()
                    .unwrap()
            })
            .collect();
        let s = Scenario::load_with(&path, &small).unwrap();
        match s.build().unwrap() {
            AnyWorld::D2(mut w) => w.step_n(3),
            AnyWorld::D3(mut w) => w.step_n(3),
        }
        seen += 1;
    }
    assert!(seen >= 9, "expected the shipped presets, found {seen}");
}

#[test]
fn benchmark_presets_are_the_benchmark_worlds() {
    let s = Scenario::load(&presets_dir().join("bench-2d.toml")).unwrap();
    let w: World2 = s.build_world().unwrap();
    let b = World2::benchmark(100_000).unwrap();
    assert_eq!(w.config(), b.config());
    assert_eq!(w.digest(), b.digest());
    let s = Scenario::load(&presets_dir().join("bench-3d.toml")).unwrap();
    let w: World3 = s.build_world().unwrap();
    let b = World3::benchmark(100_000).unwrap();
    let (ws, bs) = (w.config().size(), b.config().size());
    assert!((ws - bs).abs().max_element() < 1e-4, "{ws} vs {bs}");
    assert_eq!(w.len(), b.len());
}

#[test]
fn exceeding_perception_names_file_line_column_field_and_both_values() {
    let text = GOOD.replace("max_speed = 2.5", "separation_radius = 2.0");
    assert_err(
        &text,
        13,
        21,
        "species.fish.separation_radius = 2 must not exceed species.fish.perception_radius = 1.2",
    );
}

#[test]
fn unknown_keys_are_rejected_where_they_are() {
    assert_err(
        FISH,
        11,
        14,
        "species.fish.perception: unknown field `perception`",
    );
    let t = GOOD.replace("seed = 7", "seed = 7\ncolour = \"red\"");
    assert_err(&t, 9, 10, "world.colour: unknown field `colour`");
    let t = GOOD.replace("steps = 50", "steps = 50\nspeeed = 3");
    assert_err(&t, 4, 10, "unknown field `speeed`");
    let t = GOOD.replace("radius = 2.0", "radius = 2.0\nheight = 1");
    assert_err(&t, 32, 10, "obstacles[0].height: unknown field `height`");
}

#[test]
fn nan_negative_and_wrong_types_are_errors_at_the_value() {
    let t = GOOD.replace("max_speed = 2.5", "max_speed = nan");
    assert_err(
        &t,
        13,
        13,
        "species.fish.max_speed = NaN is not a finite number",
    );
    let t = GOOD.replace("chase_radius = 8.0", "chase_radius = -1.0");
    assert_err(
        &t,
        18,
        16,
        "species.shark.chase_radius = -1 is out of range",
    );
    let t = GOOD.replace("max_speed = 2.5", "max_speed = \"fast\"");
    assert_err(
        &t,
        13,
        13,
        "species.fish.max_speed: invalid type: string \"fast\"",
    );
    let t = GOOD.replace("radius = 2.0", "radius = -2.0");
    assert_err(&t, 31, 10, "obstacles[0].radius = -2 is out of range");
    let t = GOOD.replace("size = [40, 30]", "size = [40, -30]");
    assert_err(&t, 6, 13, "world.size.y = -30 is out of range");
    let t = GOOD.replace("size = [40, 30]", "size = [40, 30, 5]");
    assert_err(&t, 6, 8, "world.size: invalid length 3");
}

#[test]
fn counts_species_and_names_are_checked() {
    let t = GOOD.replace("count = 100", "count = 1000000000");
    assert_err(&t, 12, 9, "more than the limit");
    let t = GOOD.replace("count = 100", "count = -5");
    assert_err(&t, 12, 9, "species.fish.count: invalid value: integer `-5`");
    let no_species = "[world]\nsize = [10, 10]\n";
    assert!(err(no_species).to_string().contains("no species"));
    let t = GOOD.replace("count = 1\n", "");
    assert_err(&t, 16, 1, "species.shark: missing field `count`");
    let t = GOOD.replace("shark = \"flee\"", "tuna = \"flee\"");
    assert_err(
        &t,
        23,
        8,
        "relations.fish.tuna: \"tuna\" is not a species of this scenario (species: fish, shark)",
    );
    let t = GOOD.replace("shark = \"flee\"", "shark = \"eat\"");
    assert_err(&t, 23, 9, "unknown variant `eat`");
    let t = GOOD.replace(
        "species = \"fish\"\nthreshold",
        "species = \"cod\"\nthreshold",
    );
    assert_err(&t, 39, 11, "zones[0].species: \"cod\"");
    let t = GOOD.replace("style = \"fish\"", "style = \"whale\"");
    assert_err(
        &t,
        11,
        9,
        "not a style (one of: default, fish, birds, crowd, lumen, hunter, benchmark)",
    );
}

#[test]
fn world_and_dimension_errors() {
    let t = GOOD
        .replace("dimension", "x")
        .replace("steps = 50", "dimension = 4");
    assert_err(&t, 3, 13, "dimension = 4 must be 2 or 3");
    let t = GOOD.replace("size = [40, 30]", "max = [40, 30]\nsize = [1, 1]");
    assert!(err(&t).to_string().contains("both size and max"));
    let t = GOOD.replace("size = [40, 30]", "");
    assert!(err(&t).to_string().contains("world needs its size"));
    let t = GOOD.replace("margin = 2.0", "margin = 50.0");
    assert_err(&t, 7, 38, "world.boundary.margin = 50 is out of range");
    let t = GOOD.replace(
        "boundary = { kind = \"soft\", margin = 2.0, strength = 8.0 }",
        "boundary = \"bouncy\"",
    );
    assert_err(&t, 7, 12, "unknown variant `bouncy`");
    // A 3D world asked of a 2D scenario.
    let s = Scenario::parse(GOOD, "s.toml").unwrap();
    assert!(
        s.build_world::<Vec3>()
            .unwrap_err()
            .to_string()
            .contains("2D")
    );
}

/// The roost boundary and topological neighbours: read, written back, and
/// their bad values refused at the value.
#[test]
fn roost_and_topological_neighbours_parse_and_refuse_bad_values() {
    let roost = GOOD.replace("kind = \"soft\"", "kind = \"roost\"").replace(
        "max_speed = 2.5",
        "max_speed = 2.5\ntopological_neighbours = 7",
    );
    let s = Scenario::parse(&roost, "s.toml").unwrap();
    let w = s.build_world::<Vec2>().unwrap();
    assert_eq!(
        w.config().boundary,
        murmuration::Boundary::Roost {
            margin: 2.0,
            strength: 8.0
        }
    );
    assert_eq!(w.species()[0].topological_neighbours, 7);
    // Written as a scenario and read back: the same parameters.
    let text =
        murmuration::scenario::to_toml(&w, &["fish".into(), "shark".into()], &[], "back", "");
    let back = Scenario::parse(&text, "back.toml")
        .unwrap()
        .build_world::<Vec2>()
        .unwrap();
    assert_eq!(back.config().boundary, w.config().boundary);
    assert_eq!(back.species(), w.species());
    // A roost's margin is not bounded by the box (it lies outside it).
    let wide = roost.replace("margin = 2.0", "margin = 50.0");
    assert!(
        Scenario::parse(&wide, "s.toml")
            .unwrap()
            .build_world::<Vec2>()
            .is_ok()
    );
    let t = roost.replace("strength = 8.0", "strength = -1.0");
    assert_err(&t, 7, 55, "world.boundary.strength = -1 is out of range");
    let t = GOOD.replace(
        "boundary = { kind = \"soft\", margin = 2.0, strength = 8.0 }",
        "boundary = \"roost\"",
    );
    assert_err(&t, 7, 12, "boundary \"roost\" needs a margin and strength");
    let t = roost.replace("topological_neighbours = 7", "topological_neighbours = 65");
    assert_err(
        &t,
        14,
        26,
        "species.fish.topological_neighbours = 65 is out of range: must be in [0, 64]",
    );
    let t = roost.replace("topological_neighbours = 7", "topological_neighbours = 2.5");
    assert_err(
        &t,
        14,
        26,
        "species.fish.topological_neighbours: invalid type",
    );
    let t = roost.replace("topological_neighbours = 7", "topological_neighbours = -1");
    assert_err(&t, 14, 26, "species.fish.topological_neighbours");
}

#[test]
fn syntax_errors_name_the_line() {
    let t = GOOD.replace("seed = 7", "seed = = 7");
    let e = err(&t).to_string();
    assert!(e.starts_with("s.toml:8:8: "), "{e}");
}

#[test]
fn overrides_change_values_and_are_named_in_errors() {
    let o: Vec<Override> = vec![
        "species.fish.count=10".parse().unwrap(),
        "world.boundary=reflect".parse().unwrap(),
        "obstacles[0].radius=3".parse().unwrap(),
    ];
    let s = Scenario::parse_with(GOOD, "s.toml", &o).unwrap();
    let w: World2 = s.build_world().unwrap();
    assert_eq!(w.len(), 11);
    assert_eq!(w.config().boundary, murmuration::Boundary::Reflect);
    // A bad value names the override, not a line.
    let o: Vec<Override> = vec!["species.fish.max_speed=-1".parse().unwrap()];
    let e = Scenario::parse_with(GOOD, "s.toml", &o)
        .unwrap_err()
        .to_string();
    assert!(
        e.starts_with("s.toml (--set species.fish.max_speed=-1): species.fish.max_speed = -1"),
        "{e}"
    );
    // A typo in the path cannot create a species.
    let o: Vec<Override> = vec!["species.fsh.count=10".parse().unwrap()];
    let e = Scenario::parse_with(GOOD, "s.toml", &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("species.fsh does not exist"), "{e}");
    // An unknown leaf is rejected like one in the file.
    let o: Vec<Override> = vec!["species.fish.speeed=10".parse().unwrap()];
    let e = Scenario::parse_with(GOOD, "s.toml", &o)
        .unwrap_err()
        .to_string();
    assert!(e.contains("unknown field `speeed`"), "{e}");
    assert!("nonsense".parse::<Override>().is_err());
}

#[test]
fn lints_warn_about_likely_mistakes() {
    let t = GOOD
        .replace(
            "max_speed = 2.5",
            "max_speed = 300.0\nseparation_radius = 1.2",
        )
        .replace(
            "chase_radius = 8.0",
            "chase_radius = 8.0\nalignment_radius = 6.0\ncohesion_radius = 6.0",
        )
        .replace("center = [35, 25]", "center = [95, 25]");
    let s = Scenario::parse(&t, "s.toml").unwrap();
    let lints = s.lints();
    let text: Vec<String> = lints.iter().map(|l| l.message.clone()).collect();
    let has = |n: &str| text.iter().any(|m| m.contains(n));
    assert!(has("neighbour grid cell is 6"), "{text:?}");
    assert!(has("as wide as its perception radius"), "{text:?}");
    assert!(has("more than obstacles[0] is thick"), "{text:?}");
    assert!(
        has("zones[0] lies wholly outside the world box"),
        "{text:?}"
    );
    assert!(lints.iter().all(|l| l.line > 1), "{lints:?}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, ..ProptestConfig::default() })]

    /// Any edit of a valid scenario parses or gives an error: never a panic.
    #[test]
    fn mutated_scenarios_never_panic(
        at in 0usize..GOOD.len(),
        cut in 0usize..12,
        insert in "[ -~\n]{0,12}",
    ) {
        let mut t = GOOD.as_bytes()[..at].to_vec();
        t.extend_from_slice(insert.as_bytes());
        t.extend_from_slice(&GOOD.as_bytes()[(at + cut).min(GOOD.len())..]);
        if let Ok(text) = String::from_utf8(t)
            && let Ok(s) = Scenario::parse(&text, "m.toml")
        {
            let small: Vec<Override> = s
                .species()
                .iter()
                .map(|(n, c)| format!("species.{n}.count={}", c.min(&50)).parse().unwrap())
                .collect();
            if let Ok(s) = Scenario::parse_with(&text, "m.toml", &small) {
                let _ = s.lints();
                if let Ok(AnyWorld::D2(mut w)) = s.build() {
                    w.step_n(2);
                }
            }
        }
    }

    /// Numbers anywhere in a parameter: a clear error or a valid world.
    #[test]
    fn any_number_in_any_parameter_is_handled(
        key in prop::sample::select(vec![
            "max_speed", "min_speed", "max_force", "separation_radius", "alignment_radius",
            "jitter", "smoothing", "fov_degrees", "eat_radius", "obstacle_margin",
        ]),
        value in prop::sample::select(vec![
            "nan", "inf", "-inf", "-1.0", "0", "1e30", "0.5", "1e-30", "360", "2",
        ]),
    ) {
        let t = GOOD.replace("max_speed = 2.5", &format!("{key} = {value}"));
        match Scenario::parse(&t, "s.toml") {
            Ok(s) => { s.build().unwrap(); }
            Err(e) => prop_assert!(e.to_string().contains(&format!("species.fish.{key}")), "{}", e),
        }
    }
}

#[test]
fn a_world_saved_as_a_scenario_loads_back_with_the_same_parameters() {
    for preset in [
        "sharks-and-schools.toml",
        "idle-crowd.toml",
        "starlings-3d.toml",
    ] {
        let s = Scenario::load(&presets_dir().join(preset)).unwrap();
        let names: Vec<String> = s.species().iter().map(|(n, _)| n.clone()).collect();
        let small: Vec<Override> = names
            .iter()
            .map(|n| format!("species.{n}.count=20").parse().unwrap())
            .collect();
        let s = Scenario::load_with(&presets_dir().join(preset), &small).unwrap();
        match s.build().unwrap() {
            AnyWorld::D2(mut w) => {
                w.add_pulse(murmuration::Pulse::new(Vec2::new(3.0, 4.0), 2.0, 1.0, 5.0))
                    .unwrap();
                w.add_path(murmuration::Path::new(
                    vec![Vec2::ZERO, Vec2::ONE],
                    1.0,
                    2.0,
                ))
                .unwrap();
                w.add_zone(murmuration::Zone::new(murmuration::Obstacle::Sphere {
                    center: Vec2::ONE,
                    radius: 2.0,
                }))
                .unwrap();
                let text = murmuration::scenario::to_toml(&w, &names, &[], "saved", "round trip");
                for noise in ["0000001", "9999999", "99999988"] {
                    assert!(!text.contains(noise), "float noise {noise} in\n{text}");
                }
                let back: World2 = Scenario::parse(&text, "saved.toml")
                    .unwrap_or_else(|e| panic!("{e}\n{text}"))
                    .build_world()
                    .unwrap();
                assert_eq!(back.config(), w.config());
                assert_eq!(back.species(), w.species());
                assert_eq!(back.relations(), w.relations());
                assert_eq!(back.obstacles(), w.obstacles());
                assert_eq!(back.attractors(), w.attractors());
                assert_eq!(back.pulses(), w.pulses());
                assert_eq!(back.paths(), w.paths());
                assert_eq!(back.zones().len(), 1);
                assert_eq!(back.len(), w.len());
            }
            AnyWorld::D3(w) => {
                let text = murmuration::scenario::to_toml(&w, &names, &[], "saved", "round trip");
                let back: World3 = Scenario::parse(&text, "saved.toml")
                    .unwrap()
                    .build_world()
                    .unwrap();
                assert_eq!(back.config(), w.config());
                assert_eq!(back.species(), w.species());
                assert_eq!(back.len(), w.len());
            }
        }
    }
}

/// `look = { colour, size }`: read per species, written back by `to_toml`, never
/// part of the simulation; out-of-range values are errors at their line.
#[test]
fn a_species_look_is_read_saved_and_checked() {
    let t = GOOD.replace(
        "speed = 1.0\n",
        "speed = 1.0\nlook = { colour = [0.9, 0.95, 1.0], size = 5.0 }\n",
    );
    let s = Scenario::parse(&t, "s.toml").unwrap();
    let looks = s.looks();
    assert_eq!(looks.len(), 2);
    assert_eq!(looks[0], murmuration::scenario::Look::default());
    assert_eq!(looks[1].colour, Some([0.9, 0.95, 1.0]));
    assert_eq!(looks[1].size, 5.0);
    let plain = Scenario::parse(GOOD, "s.toml").unwrap();
    let (a, b) = (
        s.build_world::<Vec2>().unwrap(),
        plain.build_world::<Vec2>().unwrap(),
    );
    assert_eq!(a.digest(), b.digest(), "a look changes no bit of the world");
    let names = ["fish".to_string(), "shark".to_string()];
    let text = murmuration::scenario::to_toml(&a, &names, looks, "back", "");
    let back = Scenario::parse(&text, "back.toml").unwrap();
    assert_eq!(back.looks(), looks);
    let bad = t.replace("size = 5.0", "size = 0.0");
    assert_err(
        &bad,
        21,
        44,
        "species.shark.look.size = 0 is out of range: must be in (0, 100]",
    );
    let bad = t.replace("colour = [0.9, 0.95, 1.0]", "colour = [0.9, 2.0, 1.0]");
    assert_err(
        &bad,
        21,
        19,
        "species.shark.look.colour = [0.9, 2.0, 1.0] is out of range",
    );
    let bad = t.replace("size = 5.0", "size = 5.0, glow = 1");
    assert_err(
        &bad,
        21,
        56,
        "species.shark.look.glow: unknown field `glow`",
    );
}

/// Adds `by` to every vector of two numbers in a scenario table except sizes,
/// half extents and headings: an independent restatement of which values are
/// positions, to hold the parser's recentring to.
fn shift_every_position(v: &mut toml::Value, by: f64) {
    match v {
        toml::Value::Table(t) => {
            for (k, x) in t.iter_mut() {
                if !["size", "half_extents", "heading"].contains(&k.as_str()) {
                    shift_every_position(x, by);
                }
            }
        }
        toml::Value::Array(a)
            if a.len() == 2
                && a.iter()
                    .all(|x| x.as_float().or(x.as_integer().map(|i| i as f64)).is_some()) =>
        {
            for x in a.iter_mut() {
                let f = x
                    .as_float()
                    .unwrap_or_else(|| x.as_integer().unwrap_or(0) as f64);
                *x = toml::Value::Float(f + by);
            }
        }
        toml::Value::Array(a) => a.iter_mut().for_each(|x| shift_every_position(x, by)),
        _ => {}
    }
}

#[test]
fn a_recentred_level_far_from_the_origin_steps_exactly_as_at_the_origin() {
    use murmuration::scenario::ParseOptions;
    // Every kind of position: box corner, spawn region, obstacles of each shape,
    // an attractor with a goal, a pulse, a path, a zone; decimals that f32
    // cannot hold 100,000 units out.
    let base = r#"
[world]
min = [0.25, 0.75]
size = [40, 30]
boundary = { kind = "soft", margin = 2.0, strength = 8.0 }
seed = 7
[species.fish]
count = 300
spawn = { min = [1.3, 2.7], max = [20.1, 28.9] }
[[obstacles]]
shape = "capsule"
a = [25.1, 5.3]
b = [25.7, 12.9]
radius = 1.1
[[obstacles]]
shape = "polygon"
points = [[30.1, 20.2], [35.3, 20.4], [33.7, 25.9]]
[[obstacles]]
shape = "box"
center = [12.3, 20.6]
half_extents = [1.5, 0.5]
[[attractors]]
position = [10.1, 10.3]
goal = [30.7, 14.1]
follow = 0.5
[[pulses]]
position = [15.3, 15.1]
radius = 4.0
strength = 30.0
duration = 2.0
[[paths]]
points = [[2.1, 5.3], [30.3, 5.9]]
capture_radius = 2.0
[[zones]]
shape = { shape = "sphere", center = [35.3, 5.1], radius = 3.0 }
[game]
exit = { shape = "sphere", center = [38.3, 15.1], radius = 2.0 }
focus = { position = [5.5, 6.5] }
"#;
    let mut far: toml::Value = toml::from_str(base).unwrap();
    shift_every_position(&mut far, 100_000.0);
    let far = toml::to_string(&far).unwrap();
    let options = ParseOptions {
        recentre: true,
        sections: &["game"],
        ..ParseOptions::default()
    };
    let run = |text: &str, options: &ParseOptions<'_>| {
        let s = Scenario::parse_options(text, "level.toml", options).unwrap();
        let AnyWorld::D2(mut w) = s.build().unwrap() else {
            unreachable!()
        };
        w.step_n(200);
        (w.digest(), s.offset().to_vec())
    };
    // The section's positions move with the world's.
    let section = |text: &str| {
        let s = Scenario::parse_options(text, "level.toml", &options).unwrap();
        s.section("game").unwrap().clone()
    };
    // (Compared as the f32 the game reads: the far file's decimals are f64 sums.)
    let (a, b) = (section(base), section(&far));
    let f32_at = |v: &toml::Value, key: &str, sub: &str, i: usize| {
        v[key][sub][i].as_float().map(|x| x as f32)
    };
    for (key, sub) in [("exit", "center"), ("focus", "position")] {
        for i in 0..2 {
            assert_eq!(
                f32_at(&a, key, sub, i),
                f32_at(&b, key, sub, i),
                "{key}.{sub}"
            );
        }
    }
    assert_eq!(f32_at(&a, "exit", "center", 0), Some(38.05));
    let (near, near_offset) = run(base, &options);
    let (recentred, far_offset) = run(&far, &options);
    assert_eq!(near_offset, [0.25, 0.75]);
    assert_eq!(far_offset, [100_000.25, 100_000.75]);
    assert_eq!(
        near, recentred,
        "the far level did not step as the near one"
    );
    // Read as f32 in place, the far level loses its decimals and steps otherwise.
    let plain_options = ParseOptions {
        sections: &["game"],
        ..ParseOptions::default()
    };
    let (plain, _) = run(&far, &plain_options);
    assert_ne!(plain, near, "expected precision lost 100,000 units out");
}

#[test]
fn an_extra_section_is_kept_for_its_reader_with_located_errors() {
    use murmuration::scenario::ParseOptions;
    #[derive(serde::Deserialize, Debug)]
    #[serde(deny_unknown_fields)]
    struct Game {
        target: u32,
    }
    let base = FISH.replace("perception = 1\n", "");
    let text = format!("{base}\n[game]\ntarget = 12\n");
    // Without asking for it, `[game]` is an unknown key like any other.
    let e = err(&text).to_string();
    assert!(e.contains("unknown field `game`"), "{e}");
    let options = ParseOptions {
        sections: &["game"],
        ..ParseOptions::default()
    };
    let s = Scenario::parse_options(&text, "s.toml", &options).unwrap();
    assert_eq!(s.read_section::<Game>("game").unwrap().unwrap().target, 12);
    assert!(s.read_section::<Game>("other").unwrap().is_none());
    let bad = format!("{base}\n[game]\ntarget = 12\ntargte = 3\n");
    let s = Scenario::parse_options(&bad, "s.toml", &options).unwrap();
    let e = s.read_section::<Game>("game").unwrap_err().to_string();
    assert!(e.starts_with("s.toml:14:10: "), "{e}");
    assert!(e.contains("game.targte"), "{e}");
    let e = s.field_error("game.target", "too many".into()).to_string();
    assert!(e.starts_with("s.toml:13:10: too many"), "{e}");
}

/// Regression: recentring an extra section took every value under a position
/// key for a vector, so a table under such a key (`[game.a]`, say a plate named
/// like a capsule's end) kept its positions 100,000 units out.
#[test]
fn recentring_searches_a_section_table_named_like_a_position_key() {
    use murmuration::scenario::ParseOptions;
    let text = r#"
[world]
min = [100000, 100000]
size = [40, 30]
boundary = "wrap"
[species.fish]
count = 5
[game.a]
center = [100010, 100020]
"#;
    let options = ParseOptions {
        recentre: true,
        sections: &["game"],
        ..ParseOptions::default()
    };
    let s = Scenario::parse_options(text, "a.toml", &options).unwrap();
    let c = &s.section("game").unwrap()["a"]["center"];
    assert_eq!(
        (c[0].as_float(), c[1].as_float()),
        (Some(10.0), Some(20.0)),
        "the section's table was not recentred"
    );
}
