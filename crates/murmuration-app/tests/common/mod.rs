//! Helpers shared by the command-line tests.
#![allow(dead_code, reason = "each test crate uses some of the helpers")]

use assert_cmd::Command;

/// The `murmuration` binary.
pub fn bin() -> Command {
    Command::cargo_bin("murmuration").unwrap()
}

/// Runs a command that must succeed; returns its stdout.
pub fn ok(c: &mut Command) -> String {
    String::from_utf8(c.assert().success().get_output().stdout.clone()).unwrap()
}

/// Runs a command that must fail with `code`; returns its stderr.
pub fn fails(c: &mut Command, code: i32) -> String {
    let out = c.assert().code(code).get_output().clone();
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(!err.contains("panicked"), "{err}");
    err
}
