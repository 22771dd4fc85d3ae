//! What a test does when the machine lacks something it needs: a GPU adapter,
//! a display, a program such as ffmpeg.
//!
//! A plain `cargo test` on a developer's machine skips such a test and says so
//! (`SKIPPED: ...` on stderr). Under `cargo xtask test`, which installs what the
//! tests need first, [`REQUIRE_ALL`] is set and the same test fails with the
//! reason instead: a green run there means every test ran.

use crate::Gpu;

/// The environment variable that turns a skip into a failure (`cargo xtask test`
/// sets it to `1`).
pub const REQUIRE_ALL: &str = "MURMURATION_REQUIRE_ALL";

/// Whether every test must run (the environment sets [`REQUIRE_ALL`] to a value
/// other than empty or `0`).
pub fn required() -> bool {
    std::env::var(REQUIRE_ALL).is_ok_and(|v| !v.is_empty() && v != "0")
}

/// A test found `what` missing: panics with the reason when every test must
/// run, otherwise prints `SKIPPED: {what}` so the caller can return.
pub fn missing(what: &str) {
    if required() {
        panic!("{what} ({REQUIRE_ALL} is set: under `cargo xtask test` no test may skip)");
    }
    eprintln!("SKIPPED: {what}");
}

/// The default adapter, or `None` after [`missing`] (which panics when every
/// test must run).
pub fn gpu() -> Option<Gpu> {
    match Gpu::new() {
        Ok(g) => Some(g),
        Err(e) => {
            missing(&format!("no GPU adapter ({e})"));
            None
        }
    }
}
