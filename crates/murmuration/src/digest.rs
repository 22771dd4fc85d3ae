//! The state digest and the hash under it (FNV-1a 64): equal digests mean
//! bit-identical states; snapshots use the same hash as their checksum.

use crate::vector::Vector;

/// FNV-1a 64's starting value.
pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
const FNV_PRIME: u64 = 0x0000_0100_0000_01b3;

/// Continues the FNV-1a 64 hash `h` over `bytes`.
pub(crate) fn fnv1a(mut h: u64, bytes: &[u8]) -> u64 {
    for &b in bytes {
        h ^= b as u64;
        h = h.wrapping_mul(FNV_PRIME);
    }
    h
}

/// FNV-1a 64 of a byte string (the digest's hash; a level's checksum).
pub fn hash_bytes(bytes: &[u8]) -> u64 {
    fnv1a(FNV_OFFSET, bytes)
}

/// FNV-1a 64 of positions then velocities (little-endian f32 components, `DIM` each).
pub fn digest<V: Vector>(positions: &[V], velocities: &[V]) -> u64 {
    let mut h = FNV_OFFSET;
    for v in positions.iter().chain(velocities) {
        for x in &v.to_array3()[..V::DIM] {
            h = fnv1a(h, &x.to_le_bytes());
        }
    }
    h
}
