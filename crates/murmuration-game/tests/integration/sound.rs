//! The swarm's sound follows its density (seed 001, 6.4): a dense swarm sounds
//! warmer — a lower spectral centroid — than the same swarm scattered.

use murmuration_game::sound::{SAMPLE_RATE, Voice, spectral_centroid};
use murmuration_game::{Game, Level, levels};

/// Three seconds of sound of First Light with its swarm spawned in `spawn`.
fn listen(spawn: &str) -> (f32, f32, usize) {
    let s = &levels::LEVELS[0];
    let text = s
        .text
        .replace("spawn = { min = [8, 32], max = [38, 68] }", spawn);
    let level = Level::parse(&text, "sound.toml").unwrap();
    let mut game = Game::new(&level).unwrap();
    let mut voice = Voice::default();
    let mut samples = Vec::new();
    for _ in 0..180 {
        game.step(&[]);
        voice.step(&game, &mut samples);
    }
    (spectral_centroid(&samples), voice.density, samples.len())
}

#[test]
fn a_dense_swarm_sounds_warmer_than_a_scattered_one() {
    let (dense, d_dense, n) = listen("spawn = { min = [10, 35], max = [34, 65] }");
    let (sparse, d_sparse, _) = listen("spawn = { min = [5, 5], max = [195, 95] }");
    eprintln!(
        "spectral centroid: dense swarm (density {d_dense:.2}) {dense:.0} Hz, scattered (density {d_sparse:.2}) {sparse:.0} Hz"
    );
    assert_eq!(n as u32, 3 * SAMPLE_RATE, "three seconds of samples");
    assert!(d_dense > 2.0 * d_sparse, "the densities do not differ");
    assert!(
        dense < 0.6 * sparse,
        "dense {dense:.0} Hz is not warmer than scattered {sparse:.0} Hz"
    );
}

#[test]
fn the_sound_of_a_replay_is_the_same_every_time() {
    let s = &levels::LEVELS[0];
    let level = Level::parse(s.text, s.key).unwrap();
    let run = || {
        let mut game = Game::new(&level).unwrap();
        let mut voice = Voice::default();
        let mut out = Vec::new();
        for _ in 0..60 {
            game.step(&[]);
            voice.step(&game, &mut out);
        }
        out
    };
    let (a, b) = (run(), run());
    assert!(a.iter().any(|&x| x != 0.0), "silence");
    assert_eq!(a, b);
}

/// Power of `samples` at `hz` (a single-bin DFT), per sample.
fn power(samples: &[f32], hz: f32) -> f32 {
    let w = std::f32::consts::TAU * hz / SAMPLE_RATE as f32;
    let (mut re, mut im) = (0.0f32, 0.0f32);
    for (i, &x) in samples.iter().enumerate() {
        re += x * (w * i as f32).cos();
        im += x * (w * i as f32).sin();
    }
    (re * re + im * im) / samples.len().max(1) as f32
}

#[test]
fn a_meal_is_heard_as_a_low_thump_under_the_chirps() {
    // Night Hunters' solution: the 0.2 s after a hunter eats hold far more
    // sound at 60–150 Hz, below every chirp, than the 0.2 s before it.
    let s = &levels::LEVELS[1];
    let level = Level::parse(s.text, s.key).unwrap();
    let rec = murmuration_game::Recording::parse(s.solution, s.key).unwrap();
    let mut game = Game::new(&level).unwrap();
    let mut voice = Voice::default();
    let mut samples = Vec::new();
    let mut meals = Vec::new();
    let mut next = 0;
    for step in 0..rec.steps {
        let at = samples.len();
        game.step(&rec.commands_at(step, &mut next));
        voice.step(&game, &mut samples);
        if game
            .events()
            .iter()
            .any(|e| matches!(e, murmuration_game::GameEvent::Eaten(_)))
        {
            meals.push(at);
        }
        if game.outcome().is_some() {
            break;
        }
    }
    assert!(!meals.is_empty(), "no meal in Night Hunters' solution");
    let win = (0.2 * SAMPLE_RATE as f32) as usize;
    let low = |a: usize| {
        let w = &samples[a..(a + win).min(samples.len())];
        [60.0, 90.0, 120.0, 150.0]
            .iter()
            .map(|&f| power(w, f))
            .sum::<f32>()
    };
    let first = meals[0];
    let (after, before) = (low(first), low(first.saturating_sub(win)));
    eprintln!(
        "{} meals; low band after the first {after:.3e}, before {before:.3e}",
        meals.len()
    );
    assert!(
        after > 20.0 * before.max(1e-12),
        "after {after:.3e}, before {before:.3e}"
    );
}
