//! The research models (Vicsek, Couzin, D'Orsogna, the ABM comparison's
//! Flocking): exact checks that need no statistics, brute-force references,
//! determinism across thread counts, and the errors bad input gets.

use murmuration::Dimension;
use murmuration::glam::{Vec2, Vec3};
use murmuration::model::{Dorsogna, Model};
use murmuration::scenario::Scenario;
use murmuration::{Vector, World};

fn world<V: Vector>(text: &str) -> World<V> {
    Scenario::parse(text, "test.toml")
        .unwrap()
        .build_world::<V>()
        .unwrap()
}

fn run_on<V: Dimension>(threads: usize, mut w: World<V>, steps: u64) -> u64 {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    pool.install(|| w.step_n(steps));
    w.digest()
}

fn vicsek(count: usize, side: f32, eta: f32, extra: &str) -> String {
    format!(
        "dimension = 2\n[world]\nsize = [{side}, {side}]\nboundary = \"wrap\"\ndt = 1.0\nseed = 3\n\
         [species.p]\nmodel = \"vicsek\"\ncount = {count}\nv0 = 0.03\nr = 1.0\neta = {eta}\n{extra}"
    )
}

/// One cluster (every pair within r) at η = 0: after one step every particle
/// has the heading of the common sum, and v_a stays 1.
#[test]
fn vicsek_order_stays_one_without_noise_in_one_cluster() {
    let mut w: World<Vec2> = world(&vicsek(
        60,
        20.0,
        0.0,
        "spawn = { min = [9.8, 9.8], max = [10.3, 10.3] }\n",
    ));
    assert!(w.metrics().polarization < 0.5, "random headings at first");
    for step in 0..300 {
        w.step();
        let va = w.metrics().polarization;
        assert!(va > 1.0 - 1e-5, "step {step}: v_a = {va}");
    }
}

/// η = 2π: headings are uniform whatever the neighbours do, so v_a falls to
/// the random-walk floor, mean √(π / 4N) for N particles in 2D.
#[test]
fn vicsek_order_falls_to_the_random_floor_at_full_noise() {
    let n = 2000;
    let mut w: World<Vec2> = world(&vicsek(n, 22.0, std::f32::consts::TAU, ""));
    let mut sum = 0.0;
    for _ in 0..200 {
        w.step();
        sum += w.metrics().polarization;
    }
    let mean = sum / 200.0;
    let floor = (std::f64::consts::PI / (4.0 * n as f64)).sqrt();
    assert!(
        mean > 0.6 * floor && mean < 1.5 * floor,
        "mean v_a {mean} against the floor {floor}"
    );
}

/// At η = 0 one step equals the paper's rule evaluated by brute force over all
/// pairs (nearest periodic image), to rounding.
#[test]
fn vicsek_step_matches_a_brute_force_reference() {
    for update in ["paper", "forward"] {
        let mut w: World<Vec2> = world(&vicsek(500, 8.0, 0.0, &format!("update = \"{update}\"\n")));
        w.step_n(3);
        let (p0, v0) = (w.positions().to_vec(), w.velocities().to_vec());
        w.step();
        let l = 8.0f32;
        for i in 0..p0.len() {
            let mut s = Vec2::ZERO;
            for j in 0..p0.len() {
                let mut d = p0[j] - p0[i];
                d -= (d / l).round() * l;
                if d.length_squared() < 1.0 {
                    s += v0[j];
                }
            }
            let want = s.normalize() * 0.03;
            let got = w.velocities()[i];
            assert!(
                (got - want).length() < 1e-6,
                "{update} {i}: {got} vs {want}"
            );
            let moved = if update == "paper" { v0[i] } else { want };
            let mut d = w.positions()[i] - (p0[i] + moved);
            d -= (d / l).round() * l;
            assert!(d.length() < 1e-5, "{update} {i}: moved off by {d}");
        }
    }
}

fn couzin(count: usize, sigma: f32, extra: &str) -> String {
    format!(
        "dimension = 3\n[world]\nsize = [12, 12, 12]\nboundary = \"unbounded\"\ndt = 0.1\nseed = 5\n\
         [species.fish]\nmodel = \"couzin\"\ncount = {count}\nsigma = {sigma}\n{extra}"
    )
}

/// With nobody in range an individual's heading turns no faster than θτ, even
/// under strong noise.
#[test]
fn a_lone_couzin_individual_turns_no_faster_than_theta_tau() {
    let mut w: World<Vec3> = world(&couzin(1, 3.0, "theta = 40.0\n"));
    let max = 40f32.to_radians() * 0.1;
    let mut turned = 0.0f32;
    for _ in 0..400 {
        let before = w.velocities()[0].normalize();
        w.step();
        let after = w.velocities()[0].normalize();
        let angle = before.dot(after).clamp(-1.0, 1.0).acos();
        assert!(
            angle <= max + 1e-4,
            "turned {angle} rad in one step, θτ = {max}"
        );
        turned = turned.max(angle);
        assert!(
            (w.velocities()[0].length() - 3.0).abs() < 1e-4,
            "speed stays s"
        );
    }
    assert!(
        turned > 0.9 * max,
        "the noise does turn it (largest turn {turned})"
    );
}

/// σ = 0: one step equals the paper's zones evaluated by brute force.
#[test]
fn couzin_step_matches_a_brute_force_reference() {
    let mut w: World<Vec3> = world(&couzin(
        150,
        0.0,
        "spawn = { min = [4, 4, 4], max = [8, 8, 8] }\n",
    ));
    w.step_n(5);
    let (p0, v0) = (w.positions().to_vec(), w.velocities().to_vec());
    w.step();
    let m = match w.species()[0].model {
        Model::Couzin(m) => m,
        other => panic!("{other:?}"),
    };
    let cos_half = (m.alpha.to_radians() / 2.0).cos();
    let mut checked = 0;
    for i in 0..p0.len() {
        let h = v0[i].normalize();
        let (mut dr, mut dor, mut da) = (Vec3::ZERO, Vec3::ZERO, Vec3::ZERO);
        let (mut nr, mut no, mut na) = (0, 0, 0);
        for j in 0..p0.len() {
            let d = p0[j] - p0[i];
            let r = d.length();
            if j == i || r >= m.r_a() || d.normalize().dot(h) < cos_half {
                continue;
            }
            if r < m.r_r {
                dr -= d / r;
                nr += 1;
            } else if r < m.r_o() {
                dor += v0[j].normalize();
                no += 1;
            } else {
                da += d / r;
                na += 1;
            }
        }
        let want = if nr > 0 {
            dr
        } else if no > 0 && na > 0 {
            (dor.normalize() + da.normalize()) * 0.5
        } else if no > 0 {
            dor
        } else if na > 0 {
            da
        } else {
            h
        }
        .normalize();
        let max = m.theta.to_radians() * 0.1;
        let angle = h.dot(want).clamp(-1.0, 1.0).acos();
        let got = w.velocities()[i].normalize();
        if angle <= max {
            assert!((got - want).length() < 1e-4, "{i}: {got} vs {want}");
        } else {
            // Turned by exactly θτ toward the desired direction, in their plane.
            let turned = h.dot(got).clamp(-1.0, 1.0).acos();
            assert!(
                (turned - max).abs() < 1e-3,
                "{i}: turned {turned}, θτ {max}"
            );
            assert!(got.dot(h.cross(want)).abs() < 1e-3, "{i}: out of plane");
            assert!(got.dot(want) > h.dot(want), "{i}: turned away");
        }
        checked += 1;
    }
    assert_eq!(checked, 150);
}

/// A D'Orsogna pair released from rest settles where the Morse force vanishes.
/// Friction is cubic in the speed, so the oscillation dies slowly (amplitude
/// ~ 1/√(βt)): a large β brings it within 0.01 of r* by t = 100.
#[test]
fn a_dorsogna_pair_settles_where_the_morse_force_vanishes() {
    let text = "dimension = 2\n[world]\nsize = [10, 10]\nboundary = \"unbounded\"\ndt = 0.002\n\
        [species.a]\nmodel = \"dorsogna\"\ncount = 1\nalpha = 0.0001\nbeta = 500.0\n\
        speed = 0.0\nspawn = { min = [4.7, 5], max = [4.7, 5] }\n\
        [species.b]\nmodel = \"dorsogna\"\ncount = 1\nalpha = 0.0001\nbeta = 500.0\n\
        speed = 0.0\nspawn = { min = [5.3, 5], max = [5.3, 5] }\n";
    let mut w: World<Vec2> = world(text);
    let m = Dorsogna {
        alpha: 0.0001,
        beta: 500.0,
        ..Dorsogna::default()
    };
    let r_star = m.pair_equilibrium().unwrap();
    assert!(m.pair_force(r_star).abs() < 1e-6);
    let d0 = (w.positions()[0] - w.positions()[1]).length();
    assert!((d0 - 0.6).abs() < 1e-5, "starts compressed ({d0})");
    w.step_n(50_000);
    let d = (w.positions()[0] - w.positions()[1]).length();
    assert!(
        (d - r_star).abs() < 0.01,
        "distance {d}, equilibrium {r_star}"
    );
}

/// RK4 is fourth order: halving dt shrinks the error at a fixed time ~16×.
#[test]
fn the_dorsogna_integrator_is_fourth_order() {
    let at = |dt: f32| -> Vec<Vec2> {
        let text = format!(
            "dimension = 2\n[world]\nsize = [6, 6]\nboundary = \"unbounded\"\ndt = {dt}\nseed = 9\n\
             [species.p]\nmodel = \"dorsogna\"\ncount = 6\n"
        );
        let mut w: World<Vec2> = world(&text);
        w.step_n((1.6 / dt).round() as u64);
        w.positions().to_vec()
    };
    let reference = at(0.0125);
    let err = |dt: f32| -> f64 {
        at(dt)
            .iter()
            .zip(&reference)
            .map(|(a, b)| (*a - *b).length() as f64)
            .fold(0.0, f64::max)
    };
    let (e1, e2) = (err(0.2), err(0.1));
    let ratio = e1 / e2;
    assert!(
        (10.0..26.0).contains(&ratio),
        "error {e1} at dt 0.2, {e2} at dt 0.1: ratio {ratio} (16 for fourth order)"
    );
}

/// The ABM comparison's birds keep unit headings at their speed, stay in the box
/// and flock (polarization rises from random headings).
#[test]
fn abm_birds_keep_their_speed_and_align() {
    let text = "dimension = 2\n[world]\nsize = [100, 100]\nboundary = \"wrap\"\ndt = 1.0\nseed = 2\n\
        [species.birds]\nmodel = \"abm-flocking\"\ncount = 300\n";
    let mut w: World<Vec2> = world(text);
    let before = w.metrics().polarization;
    w.step_n(400);
    let m = w.metrics();
    for v in w.velocities() {
        assert!((v.length() - 1.0).abs() < 1e-5, "speed {}", v.length());
    }
    assert_eq!(m.outside, Some(0));
    assert!(
        m.polarization > before + 0.2,
        "{before} -> {}",
        m.polarization
    );
}

#[test]
fn every_model_is_thread_count_independent() {
    let texts2 = [
        vicsek(3000, 27.0, 1.0, ""),
        "dimension = 2\n[world]\nsize = [60, 60]\nboundary = \"wrap\"\ndt = 1.0\n\
         [species.birds]\nmodel = \"abm-flocking\"\ncount = 800\n"
            .to_string(),
        "dimension = 2\n[world]\nsize = [12, 12]\nboundary = \"wrap\"\ndt = 0.05\n\
         [species.p]\nmodel = \"dorsogna\"\ncount = 600\ncutoff = 6.0\n"
            .to_string(),
    ];
    for t in &texts2 {
        let d: Vec<u64> = [1, 2, 8]
            .iter()
            .map(|&n| run_on(n, world::<Vec2>(t), 30))
            .collect();
        assert!(d.windows(2).all(|w| w[0] == w[1]), "{t}: {d:x?}");
    }
    let t = couzin(
        1500,
        0.05,
        "spawn = { min = [0, 0, 0], max = [12, 12, 12] }\n",
    );
    let d: Vec<u64> = [1, 2, 8]
        .iter()
        .map(|&n| run_on(n, world::<Vec3>(&t), 30))
        .collect();
    assert!(d.windows(2).all(|w| w[0] == w[1]), "couzin: {d:x?}");
}

#[test]
fn a_resumed_model_run_continues_bit_for_bit() {
    let t = vicsek(800, 14.0, 1.5, "");
    let whole = run_on(2, world::<Vec2>(&t), 60);
    let mut half = world::<Vec2>(&t);
    half.step_n(30);
    let resumed = World::<Vec2>::from_snapshot_bytes(&half.to_snapshot_bytes()).unwrap();
    assert_eq!(run_on(1, resumed, 30), whole);
}

fn error_of(text: &str) -> String {
    Scenario::parse(text, "bad.toml")
        .and_then(|s| s.build().map(|_| ()))
        .unwrap_err()
        .to_string()
}

#[test]
fn a_parameter_of_another_model_is_an_error_at_its_line() {
    let e = error_of(&vicsek(10, 5.0, 1.0, "delta_r_o = 3.0\n"));
    assert!(
        e.starts_with("bad.toml:13:13: species.p.delta_r_o is a parameter of the couzin model, but species p uses model vicsek"),
        "{e}"
    );
    let e = error_of(&vicsek(10, 5.0, 1.0, "separation_weight = 3.0\n"));
    assert!(e.contains("is a parameter of the reynolds model"), "{e}");
    let e = error_of(&vicsek(10, 5.0, 1.0, "wobble = 3.0\n"));
    assert!(
        e.contains("unknown key species.p.wobble: model vicsek takes v0, r, eta, update"),
        "{e}"
    );
    let e = error_of(&vicsek(10, 5.0, 7.0, ""));
    assert!(
        e.contains("species.p.eta = 7 is out of range: must be in [0, 6.2831855]"),
        "{e}"
    );
    let e = error_of(&vicsek(10, 5.0, 1.0, "").replace("eta = 1", "eta = nan"));
    assert!(
        e.contains("species.p.eta = NaN is not a finite number"),
        "{e}"
    );
    let e = error_of(&vicsek(10, 5.0, 1.0, "").replace("\"vicsek\"", "\"vicsec\""));
    assert!(e.contains("species.p.model = \"vicsec\" is not a model (one of: reynolds, vicsek, couzin, dorsogna, abm-flocking)"), "{e}");
}

#[test]
fn a_model_outside_its_dimension_or_boundary_is_an_error() {
    let e = error_of(
        &vicsek(10, 5.0, 1.0, "")
            .replace("dimension = 2", "dimension = 3")
            .replace("[5, 5]", "[5, 5, 5]"),
    );
    assert!(
        e.contains("species.p.model: the vicsek model is defined in 2D"),
        "{e}"
    );
    let e = error_of(&vicsek(10, 5.0, 1.0, "").replace("\"wrap\"", "\"reflect\""));
    assert!(
        e.contains("the vicsek model is defined in a periodic box"),
        "{e}"
    );
    let mixed = format!(
        "{}[species.q]\nmodel = \"couzin\"\ncount = 3\n",
        vicsek(10, 5.0, 1.0, "")
    );
    let e = error_of(&mixed);
    assert!(e.contains("one world runs one model"), "{e}");
    let e = error_of(&format!(
        "{}[[obstacles]]\nshape = \"sphere\"\ncenter = [2, 2]\nradius = 0.5\n",
        vicsek(10, 5.0, 1.0, "")
    ));
    assert!(e.contains("a vicsek world takes none"), "{e}");
}

fn scheduled(schedule: &str) -> String {
    format!("steps = 400\n{}{schedule}", vicsek(500, 11.0, 0.5, ""))
}

fn eta_of(w: &World<Vec2>) -> f32 {
    match w.species()[0].model {
        Model::Vicsek(m) => m.eta,
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_schedule_jumps_and_ramps_a_parameter_with_the_state_carried_over() {
    let text = scheduled(
        "[[schedule]]\nset = \"species.p.eta\"\nat = 50\nvalue = 3.0\n\
         [[schedule]]\nset = \"species.p.eta\"\nfrom = 100\nto = 300\nvalues = [3.0, 1.0]\n",
    );
    let mut w: World<Vec2> = world(&text);
    w.step_n(50);
    assert_eq!(eta_of(&w), 0.5, "before the jump");
    w.step();
    assert_eq!(eta_of(&w), 3.0, "step 50 ran with the new value");
    w.step_n(149);
    // Step 200 is half way down the ramp from step 100 to 300.
    w.step();
    assert!((eta_of(&w) - 2.0).abs() < 1e-6, "{}", eta_of(&w));
    w.step_n(150);
    assert_eq!(eta_of(&w), 1.0, "after the ramp");
}

#[test]
fn a_run_resumed_mid_schedule_continues_bit_for_bit() {
    let text = scheduled(
        "[[schedule]]\nset = \"species.p.eta\"\nfrom = 20\nto = 80\nvalues = [0.5, 4.0]\n",
    );
    let whole = run_on(2, world::<Vec2>(&text), 100);
    let mut half = world::<Vec2>(&text);
    half.step_n(50);
    let resumed = World::<Vec2>::from_snapshot_bytes(&half.to_snapshot_bytes()).unwrap();
    assert_eq!(resumed.schedule(), half.schedule());
    assert_eq!(run_on(1, resumed, 50), whole);
}

#[test]
fn bad_schedules_are_located_errors() {
    let e = error_of(&scheduled(
        "[[schedule]]\nset = \"species.p.delta_r_o\"\nat = 5\nvalue = 1.0\n",
    ));
    assert!(
        e.starts_with("bad.toml:15:7: schedule[0].set = \"species.p.delta_r_o\": \"delta_r_o\" is not a numeric parameter of the vicsek model"),
        "{e}"
    );
    let e = error_of(&scheduled(
        "[[schedule]]\nset = \"species.p.eta\"\nat = 500\nvalue = 1.0\n",
    ));
    assert!(
        e.starts_with("bad.toml:16:6: schedule[0].at = 500 is beyond the run (steps = 400)"),
        "{e}"
    );
    let e = error_of(&scheduled(
        "[[schedule]]\nset = \"species.q.eta\"\nat = 5\nvalue = 1.0\n",
    ));
    assert!(e.contains("\"q\" is not a species of this scenario"), "{e}");
    let e = error_of(&scheduled(
        "[[schedule]]\nset = \"species.p.eta\"\nfrom = 5\nto = 9\nvalues = [1.0, 9.0]\n",
    ));
    assert!(e.contains("eta = 9 gives an invalid species"), "{e}");
    let e = error_of(&scheduled(
        "[[schedule]]\nset = \"species.p.eta\"\nat = 5\n",
    ));
    assert!(e.contains("needs either at = STEP with value = X"), "{e}");
}

/// A model world written back as a scenario (the sandbox's save) loads as the
/// same species: the model's name and its own keys, no Reynolds parameter.
#[test]
fn a_model_world_saved_as_a_scenario_loads_the_same_species() {
    let texts = [
        (vicsek(50, 5.0, 1.5, "update = \"forward\"\n"), 2),
        (couzin(20, 0.1, "delta_r_o = 3.5\n"), 3),
        (
            "dimension = 2\n[world]\nsize = [6, 6]\nboundary = \"unbounded\"\ndt = 0.05\n\
             [species.p]\nmodel = \"dorsogna\"\ncount = 5\nc_r = 1.5\n"
                .to_string(),
            2,
        ),
        (
            "dimension = 2\n[world]\nsize = [50, 50]\nboundary = \"wrap\"\n\
             [species.b]\nmodel = \"abm-flocking\"\ncount = 9\nmatch_factor = 0.2\n"
                .to_string(),
            2,
        ),
    ];
    for (text, dim) in texts {
        let s = Scenario::parse(&text, "a.toml").unwrap();
        let (species, saved) = if dim == 2 {
            let w = s.build_world::<Vec2>().unwrap();
            let names: Vec<String> = s.species().iter().map(|(n, _)| n.clone()).collect();
            (
                w.species().to_vec(),
                murmuration::scenario::to_toml(&w, &names, &[], "b", "saved"),
            )
        } else {
            let w = s.build_world::<Vec3>().unwrap();
            let names: Vec<String> = s.species().iter().map(|(n, _)| n.clone()).collect();
            (
                w.species().to_vec(),
                murmuration::scenario::to_toml(&w, &names, &[], "b", "saved"),
            )
        };
        let back = Scenario::parse(&saved, "b.toml").unwrap_or_else(|e| panic!("{e}\n{saved}"));
        assert_eq!(back.species_params(), species, "{saved}");
    }
}
