//! The page's session, natively: the same requests the page sends, their
//! answers, and every refusal the page shows (the browser test drives the
//! compiled module; these cover each path quickly).

use murmuration::scenario::{AnyWorld, Scenario};
use murmuration_web::{INSTANCE_FLOATS, PAGE_MAX_BOIDS, Session, answer, page_presets};
use serde_json::Value;

fn call(s: &mut Option<Session>, req: &str) -> Value {
    serde_json::from_str(&answer(s, req)).unwrap()
}

fn ok(s: &mut Option<Session>, req: &str) -> Value {
    let v = call(s, req);
    assert!(v.get("error").is_none(), "{req}: {v}");
    v["ok"].clone()
}

fn refused(s: &mut Option<Session>, req: &str) -> String {
    let v = call(s, req);
    v["error"]
        .as_str()
        .unwrap_or_else(|| panic!("{req} was accepted: {v}"))
        .to_string()
}

fn opened(preset: &str) -> Option<Session> {
    let mut s = None;
    ok(&mut s, &format!(r#"{{"op":"open","preset":"{preset}"}}"#));
    s
}

#[test]
fn the_page_steps_to_the_digest_the_core_gives() {
    let mut s = opened("default");
    ok(&mut s, r#"{"op":"step","n":200}"#);
    let page = ok(&mut s, r#"{"op":"digest"}"#);
    let text = murmuration::scenario::preset("default").unwrap();
    let AnyWorld::D2(mut w) = Scenario::parse(text, "default").unwrap().build().unwrap() else {
        panic!("default is 2D")
    };
    w.step_n(200);
    assert_eq!(page, format!("{:016x}", w.digest()));
    let n = s.as_ref().unwrap().len();
    assert_eq!(s.as_ref().unwrap().instances().len(), n * INSTANCE_FLOATS);
}

#[test]
fn the_page_offers_the_boids_presets_and_refuses_research_models() {
    let names = page_presets();
    for want in ["default", "phaser-canvas", "fish-school", "starlings-3d"] {
        assert!(names.contains(&want), "{names:?}");
    }
    assert!(!names.contains(&"couzin-torus"), "{names:?}");
    let mut s = None;
    let listed = ok(&mut s, r#"{"op":"presets"}"#);
    assert_eq!(listed.as_array().unwrap().len(), names.len());
    let e = refused(&mut s, r#"{"op":"open","preset":"couzin-torus"}"#);
    assert!(e.contains("research model"), "{e}");
    let e = refused(&mut s, r#"{"op":"open","preset":"nope"}"#);
    assert!(
        e.contains("no preset named \"nope\"") && e.contains("phaser-canvas"),
        "{e}"
    );
    let e = refused(&mut s, r#"{"op":"state"}"#);
    assert_eq!(e, "no flock is open");
}

#[test]
fn a_nan_or_out_of_range_parameter_is_refused_by_name_and_nothing_changes() {
    let mut s = opened("phaser-canvas");
    let before = ok(&mut s, r#"{"op":"state"}"#);
    // The page's words: the species and the field's label, not a path.
    for (value, says) in [
        ("NaN", "boids: max speed = NaN"),
        ("abc", "boids: max speed \"abc\" is not a number"),
        ("-3", "boids: max speed = -3"),
        ("1e30", "boids: max speed"),
    ] {
        let e = refused(
            &mut s,
            &format!(r#"{{"op":"set","species":0,"key":"max_speed","value":"{value}"}}"#),
        );
        assert!(
            e.contains(says) && !e.contains("species[0]"),
            "{value}: {e}"
        );
    }
    assert_eq!(ok(&mut s, r#"{"op":"state"}"#), before);
    let e = refused(
        &mut s,
        r#"{"op":"set","species":0,"key":"separation_radius","value":"500"}"#,
    );
    assert!(
        e.contains("boids: separation radius = 500")
            && e.contains("boids: larger of the alignment and cohesion radii")
            && !e.contains("species["),
        "{e}"
    );
    let e = refused(
        &mut s,
        r#"{"op":"set","species":0,"key":"topological_neighbours","value":"99"}"#,
    );
    assert!(
        e.contains("boids: nearest neighbours = 99") && !e.contains("species["),
        "{e}"
    );
    let e = refused(
        &mut s,
        r#"{"op":"set","species":7,"key":"max_speed","value":"3"}"#,
    );
    assert!(e.contains("no species 7"), "{e}");
    let e = refused(
        &mut s,
        r#"{"op":"set","species":0,"key":"speediness","value":"3"}"#,
    );
    assert!(e.contains("no species parameter"), "{e}");
    let e = refused(
        &mut s,
        r#"{"op":"set","species":0,"key":"steering","value":"fast"}"#,
    );
    assert!(e.contains("per_rule"), "{e}");
}

#[test]
fn a_set_parameter_takes_effect() {
    let mut s = opened("phaser-canvas");
    let st = ok(
        &mut s,
        r#"{"op":"set","species":0,"key":"max_speed","value":" 100 "}"#,
    );
    assert_eq!(st["species"][0]["values"]["max_speed"], 100.0);
    let st = ok(
        &mut s,
        r#"{"op":"set","species":0,"key":"steering","value":"raw"}"#,
    );
    assert_eq!(st["species"][0]["steering"], "raw");
    let st = ok(
        &mut s,
        r#"{"op":"set","species":0,"key":"topological_neighbours","value":"7"}"#,
    );
    assert_eq!(st["species"][0]["topological_neighbours"], 7);
    ok(&mut s, r#"{"op":"step","n":120}"#);
    let m = ok(&mut s, r#"{"op":"metrics"}"#);
    assert!(m["mean_speed"].as_f64().unwrap() <= 100.0 + 1e-3, "{m}");
}

#[test]
fn the_fountain_of_idle_crowd_is_drawn_where_the_core_has_it() {
    let mut s = opened("idle-crowd");
    let o = ok(&mut s, r#"{"op":"obstacles"}"#);
    let text = murmuration::scenario::preset("idle-crowd").unwrap();
    let AnyWorld::D2(w) = Scenario::parse(text, "idle-crowd")
        .unwrap()
        .build()
        .unwrap()
    else {
        panic!("idle-crowd is 2D")
    };
    assert_eq!(o.as_array().unwrap().len(), w.obstacles().len());
    assert!(!w.obstacles().is_empty());
    let shape = o[0].as_object().unwrap();
    assert!(
        ["circle", "box", "capsule", "polygon"]
            .iter()
            .any(|k| shape.contains_key(*k)),
        "{o}"
    );
}

#[test]
fn an_absurd_count_is_refused_before_anything_is_built() {
    let mut s = opened("default");
    for count in ["1000000000", "-5", "2.5", "NaN"] {
        let e = refused(
            &mut s,
            &format!(r#"{{"op":"open","preset":"default","set":["species.boids.count={count}"]}}"#),
        );
        assert!(e.contains("count"), "{count}: {e}");
    }
    // Within the core's limits but more than the page can step and stay responsive.
    let e = refused(
        &mut s,
        &format!(
            r#"{{"op":"open","preset":"default","set":["species.boids.count={}"]}}"#,
            PAGE_MAX_BOIDS + 1
        ),
    );
    assert!(
        e.contains("more than the page steps") && e.contains("species.boids.count = 200001"),
        "{e}"
    );
    // The open flock is untouched by a refused open.
    assert_eq!(s.as_ref().unwrap().len(), 2000);
    let e = refused(&mut s, r#"{"op":"step","n":1000000}"#);
    assert!(e.contains("at most"), "{e}");
    let e = refused(&mut s, r#"{"op":"target","x":1}"#);
    assert!(e.contains("bad request"), "{e}");
    let e = refused(&mut s, "not json");
    assert!(e.contains("bad request"), "{e}");
}

#[test]
fn target_pulse_pick_and_inspect_answer_in_world_units() {
    let mut s = opened("phaser-canvas");
    ok(&mut s, r#"{"op":"target","x":400,"y":300}"#);
    ok(&mut s, r#"{"op":"pulse","x":100,"y":100}"#);
    let e = ok(&mut s, r#"{"op":"entities"}"#);
    assert_eq!(
        e["attractors"][0]["position"],
        serde_json::json!([400.0, 300.0])
    );
    assert_eq!(e["pulses"].as_array().unwrap().len(), 1);
    let id = ok(&mut s, r#"{"op":"pick","x":400,"y":300}"#);
    let i = ok(&mut s, &format!(r#"{{"op":"inspect","id":{id}}}"#));
    assert_eq!(i["id"], id);
    assert_eq!(i["separation_radius"], 30.0);
    assert_eq!(i["perception_radius"], 60.0);
    for rule in ["separation", "alignment", "cohesion", "steering"] {
        assert_eq!(i["forces"][rule].as_array().unwrap().len(), 2, "{i}");
    }
    assert_eq!(ok(&mut s, r#"{"op":"inspect","id":99999}"#), Value::Null);
    let e = refused(&mut s, r#"{"op":"target","x":1e40,"y":0}"#);
    assert!(e.contains("bad request") || e.contains("finite"), "{e}");
}

/// A new count keeps the preset's density where the scene is only its box
/// (the world's area grows with the count), keeps the box where the preset
/// places things, and refuses text that is not a whole number, by the
/// species' name.
#[test]
fn a_new_count_keeps_the_presets_density_and_bad_counts_are_refused_by_name() {
    let mut s = opened("default");
    let before = ok(&mut s, r#"{"op":"state"}"#);
    assert_eq!(before["resize"], Value::Null);
    let st = ok(&mut s, r#"{"op":"count","species":0,"value":"8000"}"#);
    assert_eq!(st["species"][0]["count"], 8000);
    let side = |st: &Value| st["max"][0].as_f64().unwrap() - st["min"][0].as_f64().unwrap();
    // 2,000 boids in 60 × 60; 8,000 in 120 × 120.
    assert!(
        (side(&st) - 2.0 * side(&before)).abs() < 1e-3,
        "{} vs {}",
        side(&st),
        side(&before)
    );
    for (text, says) in [
        ("abc", "boids count \"abc\" is not a whole number"),
        ("1.5", "not a whole number"),
        ("-4", "not a whole number"),
    ] {
        let e = refused(
            &mut s,
            &format!(r#"{{"op":"count","species":0,"value":"{text}"}}"#),
        );
        assert!(e.contains(says), "{text}: {e}");
    }
    let e = refused(&mut s, r#"{"op":"count","species":0,"value":"10000000"}"#);
    assert!(e.contains("more than the page steps"), "{e}");
    let e = refused(
        &mut s,
        r#"{"op":"count","species":0,"value":"18446744073709551615"}"#,
    );
    assert!(e.contains("more than the page steps"), "{e}");
    // A count keeps what the user tuned.
    ok(
        &mut s,
        r#"{"op":"set","species":0,"key":"max_speed","value":"2.5"}"#,
    );
    let st = ok(&mut s, r#"{"op":"count","species":0,"value":"3000"}"#);
    assert_eq!(st["species"][0]["values"]["max_speed"], 2.5);
    assert_eq!(st["species"][0]["count"], 3000);
    ok(&mut s, r#"{"op":"count","species":0,"value":"8000"}"#);
    assert_eq!(ok(&mut s, r#"{"op":"state"}"#)["species"][0]["count"], 8000);
    // A few boids keep a box of at least four perception radii a side (the
    // density alone would give 2 boids a 1.9-unit box, under one radius).
    let perception = before["species"][0]["values"]["alignment_radius"]
        .as_f64()
        .unwrap()
        .max(
            before["species"][0]["values"]["cohesion_radius"]
                .as_f64()
                .unwrap(),
        );
    for n in ["2", "1"] {
        let st = ok(
            &mut s,
            &format!(r#"{{"op":"count","species":0,"value":"{n}"}}"#),
        );
        assert!(
            side(&st) >= 4.0 * perception - 1e-3,
            "{n} boids: side {}",
            side(&st)
        );
        assert!(side(&st) <= side(&before) + 1e-3);
    }
    // Seed 002's schools start in places of their own: the box stays.
    let mut s = opened("sharks-and-schools");
    let before = ok(&mut s, r#"{"op":"state"}"#);
    assert!(before["resize"].as_str().is_some(), "{}", before["resize"]);
    let st = ok(&mut s, r#"{"op":"count","species":0,"value":"500"}"#);
    assert_eq!(st["max"], before["max"]);
}

/// Banked flight does nothing in 2D: a 2D preset's panel does not offer it;
/// a 3D preset's does. Every field says which panel group it sits in.
#[test]
fn two_dimensional_presets_do_not_offer_banked_flight() {
    let keys = |preset: &str| {
        let mut s = opened(preset);
        let st = ok(&mut s, r#"{"op":"state"}"#);
        st["fields"]
            .as_array()
            .unwrap()
            .iter()
            .map(|f| {
                (
                    f["key"].as_str().unwrap().to_string(),
                    f["group"].as_str().unwrap().to_string(),
                )
            })
            .collect::<Vec<_>>()
    };
    let flat = keys("default");
    assert!(
        !flat.iter().any(|(k, _)| k == "roll_rate" || k == "gravity"),
        "{flat:?}"
    );
    let essentials: Vec<&str> = flat
        .iter()
        .filter(|(_, g)| g == "essentials")
        .map(|(k, _)| k.as_str())
        .collect();
    assert_eq!(essentials.len(), 9, "{essentials:?}");
    let deep = keys("starlings-3d");
    assert!(
        deep.iter().any(|(k, g)| k == "roll_rate" && g == "flight"),
        "{deep:?}"
    );
}

/// A click on the target takes it away: the page sends `clear_target`.
#[test]
fn the_target_can_be_cleared() {
    let mut s = opened("phaser-canvas");
    ok(&mut s, r#"{"op":"target","x":400,"y":300}"#);
    assert_eq!(
        ok(&mut s, r#"{"op":"entities"}"#)["attractors"]
            .as_array()
            .unwrap()
            .len(),
        1
    );
    assert_eq!(ok(&mut s, r#"{"op":"clear_target"}"#), true);
    assert_eq!(
        ok(&mut s, r#"{"op":"entities"}"#)["attractors"]
            .as_array()
            .unwrap()
            .len(),
        0
    );
    assert_eq!(ok(&mut s, r#"{"op":"clear_target"}"#), false);
}

/// The metrics worker measures the page's flock in a mirror (same preset,
/// overrides and tuned parameters, never stepped) from the flock's
/// kinematics: the same figures as the page's own `metrics` request, in 2D
/// and 3D; an array that does not fit is an error, not a panic.
#[test]
fn the_metrics_worker_gives_the_pages_figures_from_a_mirror() {
    for preset in ["phaser-canvas", "starlings-3d"] {
        let mut s = opened(preset);
        ok(&mut s, r#"{"op":"count","species":0,"value":"300"}"#);
        ok(
            &mut s,
            r#"{"op":"set","species":0,"key":"separation_radius","value":"1.25"}"#,
        );
        ok(&mut s, r#"{"op":"step","n":30}"#);
        let direct = ok(&mut s, r#"{"op":"metrics"}"#);
        let mirror = ok(&mut s, r#"{"op":"mirror"}"#);
        let mut adopt = mirror.clone();
        adopt["op"] = "adopt".into();
        let mut worker = None;
        ok(&mut worker, &adopt.to_string());
        let k = s.as_mut().unwrap().kinematics().to_vec();
        let got = worker.as_ref().unwrap().metrics_of(&k).unwrap();
        // The same figures (a 3D sum may differ in its last bit).
        for key in [
            "count",
            "groups",
            "polarization",
            "milling",
            "mean_speed",
            "median_nn_distance",
        ] {
            let (a, b) = (got[key].as_f64().unwrap(), direct[key].as_f64().unwrap());
            assert!(
                (a - b).abs() <= 1e-12 * b.abs().max(1.0),
                "{preset} {key}: {a} vs {b}"
            );
        }
        assert!(
            worker
                .as_ref()
                .unwrap()
                .metrics_of(&k[..k.len() - 1])
                .is_err()
        );
        let mut wrong = k.clone();
        let per = k.len() / 300;
        wrong[per - 1] = 9.0;
        assert!(worker.as_ref().unwrap().metrics_of(&wrong).is_err());
    }
}

/// The debug drawing's request: the `n` boids nearest a point, nearest first,
/// each taken apart like `inspect`; capped at MAX_DEBUG_BOIDS; a NaN point
/// refused. Looks and the open-world flag come with the state.
#[test]
fn debug_gives_the_nearest_boids_taken_apart_and_state_gives_looks() {
    let mut s = opened("phaser-canvas");
    let near = ok(&mut s, r#"{"op":"debug","x":400,"y":300,"n":25}"#);
    let near = near.as_array().unwrap();
    assert_eq!(near.len(), 25);
    let d = |b: &Value| {
        let p = b["position"].as_array().unwrap();
        (p[0].as_f64().unwrap() - 400.0).hypot(p[1].as_f64().unwrap() - 300.0)
    };
    assert!(near.windows(2).all(|w| d(&w[0]) <= d(&w[1])));
    let picked = ok(&mut s, r#"{"op":"pick","x":400,"y":300}"#);
    assert_eq!(near[0]["id"], picked);
    assert!(near[0]["forces"]["separation"].is_array() && near[0]["perception_radius"] == 60.0);
    let all = ok(&mut s, r#"{"op":"debug","x":0,"y":0,"n":100000}"#);
    assert_eq!(all.as_array().unwrap().len(), 200);
    let e = refused(&mut s, r#"{"op":"debug","x":NaN,"y":0,"n":5}"#);
    assert!(e.contains("bad request") || e.contains("finite"), "{e}");
    let st = ok(&mut s, r#"{"op":"state"}"#);
    assert_eq!(st["open"], false);
    let mut s = opened("sharks-and-schools");
    let st = ok(&mut s, r#"{"op":"state"}"#);
    assert_eq!(st["species"][3]["look"]["size"], 5.0);
    assert_eq!(st["species"][2]["look"]["colour"][0], 1.0);
    let mut s = opened("starlings-3d");
    assert_eq!(ok(&mut s, r#"{"op":"state"}"#)["open"], true);
    // The cap holds: more than it asked for gives exactly it.
    let mut s = opened("default");
    let capped = ok(&mut s, r#"{"op":"debug","x":30,"y":30,"n":5000}"#);
    assert_eq!(
        capped.as_array().unwrap().len(),
        murmuration_web::MAX_DEBUG_BOIDS as usize
    );
}
