//! Snapshots: round trips, and every malformed input is an error, never a panic.

use crate::common;

use murmuration::{Spawn, SpeciesId};

use murmuration::glam::{Vec2, Vec3};
use murmuration::{SnapshotError, World2, World3};
use proptest::prelude::*;

/// The snapshot checksum (FNV-1a 64), recomputed after deliberate corruption.
fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fn small() -> World2 {
    let mut w = common::busy2(3);
    w.remove_boids(&(0..990).collect::<Vec<_>>()).unwrap();
    w.step_n(5);
    w
}

#[test]
fn round_trip_preserves_everything() {
    let w = small();
    let back = World2::from_snapshot_bytes(&w.to_snapshot_bytes()).unwrap();
    assert_eq!(back.digest(), w.digest());
    assert_eq!(back.ids(), w.ids());
    assert_eq!(back.boids(), w.boids());
    assert_eq!(back.species(), w.species());
    assert_eq!(back.relations(), w.relations());
    assert_eq!(back.config(), w.config());
    assert_eq!(back.step_index(), w.step_index());
}

#[test]
fn every_truncation_is_an_error() {
    let bytes = small().to_snapshot_bytes();
    for len in 0..bytes.len() {
        let e = World2::from_snapshot_bytes(&bytes[..len]);
        assert!(e.is_err(), "prefix of {len} bytes accepted");
    }
    let mut long = bytes.clone();
    long.push(0);
    assert!(matches!(
        World2::from_snapshot_bytes(&long),
        Err(SnapshotError::TrailingBytes(1))
    ));
}

#[test]
fn every_single_byte_corruption_is_an_error() {
    let bytes = small().to_snapshot_bytes();
    for i in 0..bytes.len() {
        let mut b = bytes.clone();
        b[i] ^= 0x5a;
        assert!(
            World2::from_snapshot_bytes(&b).is_err(),
            "flip at {i} accepted"
        );
    }
}

#[test]
fn wrong_dimension_magic_and_version_are_named() {
    let bytes = small().to_snapshot_bytes();
    let e = World3::from_snapshot_bytes(&bytes).unwrap_err();
    assert!(
        matches!(
            e,
            SnapshotError::DimensionMismatch {
                found: 2,
                expected: 3
            }
        ),
        "{e}"
    );
    let mut b = bytes.clone();
    b[0] = b'X';
    assert!(matches!(
        World2::from_snapshot_bytes(&b),
        Err(SnapshotError::BadMagic)
    ));
    let mut b = bytes.clone();
    b[8] = 9;
    let e = World2::from_snapshot_bytes(&b).unwrap_err();
    assert!(e.to_string().contains("version 9"), "{e}");
}

#[test]
fn missing_file_and_unwritable_path_are_io_errors_naming_the_path() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.snap");
    let e = World2::load_snapshot(&missing).unwrap_err();
    assert!(e.to_string().contains("nope.snap"), "{e}");
    let unwritable = dir.path().join("no/such/dir/out.snap");
    let e = small().save_snapshot(&unwritable).unwrap_err();
    assert!(matches!(e, SnapshotError::Io { .. }));
    // Nothing half-written is left behind.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}

#[test]
fn atomic_save_replaces_an_existing_file_whole() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("w.snap");
    std::fs::write(&path, b"old").unwrap();
    let w = small();
    w.save_snapshot(&path).unwrap();
    assert_eq!(std::fs::read(&path).unwrap(), w.to_snapshot_bytes());
    let names: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(names.len(), 1, "no temporary left: {names:?}");
}

proptest! {
    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(any::<u8>(), 0..2000)) {
        let _ = World2::from_snapshot_bytes(&bytes);
        let _ = World3::from_snapshot_bytes(&bytes);
    }

    #[test]
    fn random_header_with_valid_magic_never_panics(tail in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut bytes = b"MURMSNAP".to_vec();
        bytes.extend_from_slice(&1u32.to_le_bytes());
        bytes.extend_from_slice(&2u32.to_le_bytes());
        bytes.extend_from_slice(&tail);
        let _ = World2::from_snapshot_bytes(&bytes);
    }

    /// Corruption behind a valid checksum (what the fuzz target explores): the
    /// parameter text and the state are parsed and checked, never trusted.
    #[test]
    fn corruption_with_a_recomputed_checksum_never_panics(
        edits in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 1..6),
    ) {
        let mut bytes = small().to_snapshot_bytes();
        let end = bytes.len() - 8;
        for (at, b) in edits {
            // Mostly the parameter text and the header, where parsing happens.
            let i = 8 + at.index((end - 8).min(600));
            bytes[i] = b;
        }
        let sum = fnv1a(&bytes[..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
        if let Ok(mut w) = World2::from_snapshot_bytes(&bytes)
            && w.len() <= 4096
        {
            w.step_n(1);
        }
    }

    #[test]
    fn species_parameters_round_trip_exactly(x in any::<f32>().prop_filter("finite", |x| x.is_finite())) {
        // Parameters travel as TOML text: every finite f32 must come back bit-exact.
        let mut w = small();
        let mut p = w.species()[0];
        p.separation_weight = x.abs().min(1000.0);
        w.set_species_params(SpeciesId::FIRST, p).unwrap();
        let back = World2::from_snapshot_bytes(&w.to_snapshot_bytes()).unwrap();
        prop_assert_eq!(back.species()[0].separation_weight.to_bits(), p.separation_weight.to_bits());
    }
}

#[test]
fn snapshot_of_3d_world_round_trips() {
    let mut w = common::busy3(2);
    w.step_n(3);
    let b = World3::from_snapshot_bytes(&w.to_snapshot_bytes()).unwrap();
    assert_eq!(b.digest(), w.digest());
    let _: Vec3 = b.positions()[0];
    let _: Option<Vec2> = None;
}

#[test]
fn version_1_snapshots_without_obstacles_still_load() {
    // A version-2 snapshot of an obstacle-free world differs from version 1 only
    // in the version field (and so the checksum): rewrite both.
    let cfg = murmuration::WorldConfig::new(glam::Vec2::splat(10.0), murmuration::Boundary::Wrap);
    let mut w = murmuration::World2::new(cfg, vec![murmuration::SpeciesParams::default()]).unwrap();
    w.spawn(Spawn::new(SpeciesId::FIRST, 50).speed(1.0))
        .unwrap();
    let mut bytes = w.to_snapshot_bytes();
    bytes[8..12].copy_from_slice(&1u32.to_le_bytes());
    let body = bytes.len() - 8;
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in &bytes[..body] {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    bytes[body..].copy_from_slice(&h.to_le_bytes());
    let back = murmuration::World2::from_snapshot_bytes(&bytes).unwrap();
    assert_eq!(back.digest(), w.digest());
    assert!(back.obstacles().is_empty());
}

/// Recomputes the checksum after a deliberate edit, so only validation can refuse it.
fn reseal(mut bytes: Vec<u8>) -> Vec<u8> {
    let end = bytes.len() - 8;
    let sum = fnv1a(&bytes[..end]);
    bytes[end..].copy_from_slice(&sum.to_le_bytes());
    bytes
}

/// Regression (issue 14): crafted snapshots with a valid checksum were accepted
/// with a position of −1e30 (then `mean_nn_distance` was inf) and with a step
/// counter of 2^64 − 1 (which wrapped to 0). A restored state is validated like a
/// scenario: the step in range, boids inside their box and within their speed.
#[test]
fn crafted_snapshots_with_a_valid_checksum_are_validated_like_a_scenario() {
    let w = small();
    let bytes = w.to_snapshot_bytes();
    let n = w.len();
    let params_len = u64::from_le_bytes(bytes[40..48].try_into().unwrap()) as usize;
    let positions = 48 + params_len + 6 * n;
    let velocities = positions + 8 * n;

    let mut b = bytes.clone();
    b[16..24].copy_from_slice(&u64::MAX.to_le_bytes());
    let e = World2::from_snapshot_bytes(&reseal(b))
        .unwrap_err()
        .to_string();
    assert!(e.contains("step counter 18446744073709551615"), "{e}");

    for (at, value, want) in [
        (positions, -1e30f32, "position of boid"),
        (positions + 4, 1e19, "position of boid"),
        (velocities, 1e6, "above its species' max_speed"),
    ] {
        let mut b = bytes.clone();
        b[at..at + 4].copy_from_slice(&value.to_le_bytes());
        let e = World2::from_snapshot_bytes(&reseal(b)).unwrap_err();
        assert!(matches!(e, SnapshotError::InvalidState(_)), "{e}");
        assert!(e.to_string().contains(want), "{e}");
    }
    // The untouched bytes still load.
    assert_eq!(
        World2::from_snapshot_bytes(&reseal(bytes))
            .unwrap()
            .digest(),
        w.digest()
    );
}
