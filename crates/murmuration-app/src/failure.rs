//! Exit codes: 0 success, 1 a failure while running, 2 bad input (a scenario or level,
//! snapshot, option or output path that cannot be used), 130 stopped by Ctrl-C,
//! 143 stopped by SIGTERM.

use std::fmt;

/// Exit code for bad input.
pub const EXIT_INVALID: u8 = 2;

/// Bad input that is not a scenario or snapshot error (those are recognised by type).
#[derive(Debug)]
pub struct Invalid(pub String);

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Invalid {}

/// A bad-input error (exit code 2).
pub fn invalid(message: impl Into<String>) -> anyhow::Error {
    Invalid(message.into()).into()
}

/// The run stopped early on Ctrl-C or SIGTERM after writing its outputs (exit
/// code 128 + the signal).
#[derive(Debug)]
pub struct Interrupted;

impl fmt::Display for Interrupted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("interrupted")
    }
}

impl std::error::Error for Interrupted {}

/// The exit code an error maps to.
pub fn exit_code(e: &anyhow::Error) -> u8 {
    if e.downcast_ref::<Interrupted>().is_some() {
        return crate::progress::stopped_exit_code();
    }
    let bad_input = e.chain().any(|c| {
        c.is::<Invalid>()
            || c.is::<murmuration::ScenarioError>()
            || c.is::<murmuration::SnapshotError>()
            || c.is::<murmuration_game::ReplayError>()
    });
    if bad_input { EXIT_INVALID } else { 1 }
}
