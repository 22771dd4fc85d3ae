//! `cargo xtask test`: every test of the project in one command.
//!
//! 0. the machine (`setup.rs`): what the tests need (Debian packages, the
//!    wasm target, Python with venv) is checked and, the first time, installed
//!    after one list of what and why; `cargo xtask setup` does only this;
//! 1. `cargo test --workspace` (any arguments after `--` go to it), with
//!    `MURMURATION_REQUIRE_ALL=1`: a test that finds no GPU adapter, no Xvfb or
//!    no ffmpeg fails instead of skipping;
//! 2. the Python package: a virtual environment in `target/python-venv` with
//!    `python/requirements-test.txt` installed (once, and again when that file
//!    changes), the package built into it by `maturin develop`, then `pytest
//!    python/tests`, which also runs the CLI (`target/debug/murmuration`) to
//!    compare with it.
//!
//! 3. the browser page (`web.rs`): its WebAssembly built, served by the binary
//!    the Rust tests built, and driven in headless Chromium by
//!    `web/tests/browser.mjs` (puppeteer-core).
//!
//! `--rust`, `--web` or `--python` runs one part (after the set-up). The first
//! run needs root or passwordless sudo on Debian or Ubuntu to install packages
//! (elsewhere it prints the commands to run), and crates.io, PyPI and the npm
//! registry.

mod setup;
mod web;

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match run(&args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("xtask: {e}");
            ExitCode::FAILURE
        }
    }
}

const USAGE: &str = "usage: cargo xtask test [--rust | --web | --python] [-- CARGO TEST ARGS...]\n       cargo xtask setup";

fn run(args: &[String]) -> Result<(), String> {
    let (ours, rest) = match args.iter().position(|a| a == "--") {
        Some(i) => (&args[..i], &args[i + 1..]),
        None => (args, &[][..]),
    };
    let Some((task, flags)) = ours.split_first() else {
        return Err(USAGE.into());
    };
    match task.as_str() {
        "test" => {}
        "setup" if flags.is_empty() && rest.is_empty() => return setup::ensure(),
        "setup" => return Err(format!("`setup` takes no options; {USAGE}")),
        _ => return Err(format!("unknown task {task:?}; {USAGE}")),
    }
    let parts = ["--rust", "--web", "--python"];
    for f in flags {
        if !parts.contains(&f.as_str()) {
            return Err(format!("unknown option {f:?}; {USAGE}"));
        }
    }
    // No part named: all of them.
    let wants = |part: &str| flags.is_empty() || flags.iter().any(|f| f == part);
    let (rust, web, python) = (wants("--rust"), wants("--web"), wants("--python"));
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .ok_or("xtask has no parent folder")?
        .to_path_buf();
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root.join(t) })
        .unwrap_or_else(|| root.join("target"));
    setup::ensure()?;
    // Every test runs: a missing adapter, display or program fails the test
    // (murmuration_gpu::testing reads this variable).
    let mut env = vec![("MURMURATION_REQUIRE_ALL".to_string(), "1".into())];
    if std::env::var_os("XDG_RUNTIME_DIR").is_none() {
        // wgpu and Mesa warn without a runtime directory.
        let dir = target.join("xdg-runtime");
        std::fs::create_dir_all(&dir)
            .map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        env.push(("XDG_RUNTIME_DIR".into(), dir.display().to_string()));
    }
    TEST_ENV
        .set(env)
        .map_err(|_| "the test environment is set twice")?;
    // Each part says how long it took (CI's budget is read from these lines).
    let timed = |part: &str, run: &dyn Fn() -> Result<(), String>| {
        let t0 = std::time::Instant::now();
        let result = run();
        eprintln!(
            "xtask: {part} {} in {:.0} s",
            if result.is_ok() { "passed" } else { "failed" },
            t0.elapsed().as_secs_f64()
        );
        result
    };
    if rust {
        timed("the Rust tests (build and run)", &|| {
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let mut c = Command::new(cargo);
            c.current_dir(&root)
                .args(["test", "--workspace"])
                .args(rest);
            status(&mut c)
        })?;
    }
    if web {
        timed("the browser page's tests", &|| {
            web::web_tests(&root, &target)
        })?;
    }
    if python {
        timed("the Python tests", &|| python_tests(&root, &target))?;
    }
    Ok(())
}

/// Variables every command of the test run gets (set once, before the first).
static TEST_ENV: std::sync::OnceLock<Vec<(String, String)>> = std::sync::OnceLock::new();

/// Runs a command of the test run, with [`TEST_ENV`], and fails if it does.
fn status(c: &mut Command) -> Result<(), String> {
    let shown = format!("{c:?}");
    if let Some(env) = TEST_ENV.get() {
        c.envs(env.iter().map(|(k, v)| (k, v)));
    }
    let s = c
        .status()
        .map_err(|e| format!("cannot start {shown}: {e}"))?;
    if s.success() {
        Ok(())
    } else {
        Err(format!("{shown} failed ({s})"))
    }
}

fn python_tests(root: &Path, target: &Path) -> Result<(), String> {
    let venv = target.join("python-venv");
    let bin = venv.join("bin");
    let requirements = root.join("python/requirements-test.txt");
    let stamp = venv.join("requirements.installed");
    if !bin.join("python").exists() {
        status(
            Command::new(setup::python())
                .arg("-m")
                .arg("venv")
                .arg(&venv),
        )?;
    }
    let wanted = std::fs::read(&requirements)
        .map_err(|e| format!("cannot read {}: {e}", requirements.display()))?;
    if std::fs::read(&stamp).ok().as_deref() != Some(&wanted[..]) {
        status(
            Command::new(bin.join("python"))
                .args([
                    "-m",
                    "pip",
                    "install",
                    "--quiet",
                    "--disable-pip-version-check",
                    "-r",
                ])
                .arg(&requirements),
        )?;
        std::fs::write(&stamp, &wanted)
            .map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    // The extension in the dev profile: the core at opt-level 2, its
    // dependencies shared with `cargo test`'s build.
    status(
        Command::new(bin.join("maturin"))
            .current_dir(root.join("python"))
            .args(["develop", "--quiet"])
            .env("VIRTUAL_ENV", &venv)
            .env("PATH", &path)
            .env("CARGO_TARGET_DIR", target),
    )?;
    status(
        Command::new(bin.join("python"))
            .current_dir(root)
            .args(["-m", "pytest", "-q", "python/tests"])
            .env("VIRTUAL_ENV", &venv)
            .env("PATH", &path)
            .env("MURMURATION_BIN", target.join("debug/murmuration"))
            .env("MPLBACKEND", "Agg"),
    )
}
