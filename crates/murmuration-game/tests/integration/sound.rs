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
