//! The browser half of `cargo xtask test`: installs the test's pinned
//! puppeteer-core (`web/tests/package-lock.json`, `npm ci`, once and again when
//! the lock changes), serves the page with the binary the Rust tests built
//! (`murmuration web --port 0`, which builds the page's WebAssembly from this
//! tree as a user's first `web` does), asks that binary for the native digests,
//! and runs `web/tests/browser.mjs` in headless Chromium against them. The
//! screenshot lands in `target/web-test/page.png`.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use crate::status;

/// Native digests the page must reproduce: preset and steps.
const DIGESTS: [(&str, u64); 3] = [
    ("default", 200),
    ("phaser-canvas", 300),
    ("fish-school", 60),
];

/// Kills the server when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

pub fn web_tests(root: &Path, target: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let tests = root.join("web/tests");
    let lock = std::fs::read(tests.join("package-lock.json"))
        .map_err(|e| format!("cannot read web/tests/package-lock.json: {e}"))?;
    let stamp = tests.join("node_modules/.installed-lock");
    if std::fs::read(&stamp).ok().as_deref() != Some(&lock[..]) {
        status(Command::new("npm").current_dir(&tests).args([
            "ci",
            "--no-audit",
            "--no-fund",
            "--loglevel=error",
        ]))?;
        std::fs::write(&stamp, &lock)
            .map_err(|e| format!("cannot write {}: {e}", stamp.display()))?;
    }
    let bin = target.join("debug/murmuration");
    // `cargo test --workspace` built it; `--web` alone on a fresh tree builds it
    // here (only when missing: a plain build resolves other features than the
    // test build and would rebuild much of the tree).
    if !bin.exists() {
        status(
            Command::new(&cargo)
                .current_dir(root)
                .args(["build", "-p", "murmuration-app"]),
        )?;
    }
    let mut expects = Vec::new();
    for (preset, steps) in DIGESTS {
        let out = Command::new(&bin)
            .args(["run", preset, "--steps", &steps.to_string()])
            .output()
            .map_err(|e| format!("cannot run {}: {e}", bin.display()))?;
        let text = String::from_utf8_lossy(&out.stdout);
        let digest = text
            .lines()
            .find_map(|l| l.strip_prefix("digest: "))
            .ok_or_else(|| format!("`murmuration run {preset}` printed no digest:\n{text}"))?;
        expects.push(format!("{preset}:{steps}:{}", digest.trim()));
    }
    let mut child = Command::new(&bin)
        .args(["web", "--port", "0"])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {} web: {e}", bin.display()))?;
    let stdout = child.stdout.take().ok_or("the server has no stdout")?;
    let server = Server(child);
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|e| format!("cannot read the server's address: {e}"))?;
    let url = line
        .split_whitespace()
        .find(|w| w.starts_with("http://"))
        .ok_or_else(|| format!("the server printed no URL: {line:?}"))?
        .to_string();
    let shots = target.join("web-test");
    std::fs::create_dir_all(&shots)
        .map_err(|e| format!("cannot create {}: {e}", shots.display()))?;
    let mut node = Command::new("node");
    node.current_dir(root)
        .arg("web/tests/browser.mjs")
        .arg(&url)
        .arg("--screenshot")
        .arg(shots.join("page.png"));
    for e in &expects {
        node.args(["--expect", e]);
    }
    if std::env::var_os("MURMURATION_WEB_BENCH").is_some() {
        node.arg("--bench");
    }
    let result = status(&mut node);
    drop(server);
    result
}
