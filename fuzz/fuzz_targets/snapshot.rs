//! Any bytes given to the snapshot loader: a world or an error, never a panic; a
//! loaded world measures finite distances and steps without its counter wrapping.
//! When the first byte is odd the checksum is recomputed, so the fuzzer reaches
//! the parameter and state parsing behind it.
#![no_main]

use libfuzzer_sys::fuzz_target;
use murmuration::{Vector, World, World2, World3};

fn exercise<V: Vector>(mut w: World<V>) {
    if w.len() > 4096 {
        return;
    }
    let m = w.metrics();
    if m.count >= 2 {
        assert!(m.mean_nn_distance.is_finite(), "{m:?}");
    }
    let step = w.step_index();
    w.step_n(1);
    assert_eq!(w.step_index(), step + 1);
}

fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let mut bytes = rest.to_vec();
    if mode & 1 == 1 && bytes.len() >= 8 {
        let end = bytes.len() - 8;
        let sum = fnv1a(&bytes[..end]);
        bytes[end..].copy_from_slice(&sum.to_le_bytes());
    }
    if let Ok(w) = World2::from_snapshot_bytes(&bytes) {
        exercise(w);
    }
    if let Ok(w) = World3::from_snapshot_bytes(&bytes) {
        exercise(w);
    }
});
