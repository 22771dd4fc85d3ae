//! What `cargo xtask test` needs on the machine, checked and installed in one
//! place: the wasm target, Debian's packages, the browser, Python with venv.
//!
//! Each [`Need`] says how to tell it is there, what installs it and why the
//! tests want it. A run checks every need first (cheap: `dpkg-query`, `PATH`,
//! `rustup`), prints what is missing in one list, then installs it with
//! `apt-get` (as root, or with passwordless `sudo`) and `rustup`. Where it
//! cannot (no root, not Debian or Ubuntu) it prints the exact commands and
//! stops with an error. A second run finds everything and says nothing.

use std::process::{Command, Stdio};

/// How a need is recognised as met.
enum Check {
    /// The need's Debian packages are installed (`dpkg-query`).
    Packages,
    /// A program is on `PATH` (node and npm come from Debian or elsewhere).
    Program(&'static str),
    /// `python3` is 3.9 or later and has `venv` and `ensurepip`.
    Python,
    /// A Rust target is installed (`rustup target list --installed`).
    RustTarget(&'static str),
}

/// One thing the tests need.
struct Need {
    check: Check,
    /// Debian packages that provide it (empty for a Rust target).
    packages: &'static [&'static str],
    /// Installed with `--no-install-recommends` (ffmpeg: 20 s instead of minutes).
    lean: bool,
    /// Which tests need it.
    why: &'static str,
}

const fn pkg(packages: &'static [&'static str], why: &'static str) -> Need {
    Need {
        check: Check::Packages,
        packages,
        lean: false,
        why,
    }
}

/// Everything the tests need, in the order it is reported.
const NEEDS: &[Need] = &[
    pkg(
        &["mesa-vulkan-drivers", "libvulkan1"],
        "software Vulkan (lavapipe) and its loader: GPU and renderer tests",
    ),
    pkg(
        &["xvfb", "xdotool"],
        "a virtual display and its mouse: the sandbox and game window tests",
    ),
    pkg(
        &[
            "libxkbcommon-x11-0",
            "libxcursor1",
            "libxi6",
            "libxrandr2",
            "libx11-xcb1",
        ],
        "the X11 client libraries winit loads in the window tests",
    ),
    pkg(
        &["libasound2-dev", "pkg-config"],
        "ALSA headers: the game window's sound (feature `audio`)",
    ),
    pkg(&["chromium"], "headless browser: the web page's test"),
    Need {
        check: Check::Program("ffprobe"),
        packages: &["ffmpeg"],
        lean: true,
        why: "encodes and checks `render --out flock.mp4`",
    },
    Need {
        check: Check::Program("npm"),
        packages: &["nodejs", "npm"],
        lean: false,
        why: "node and npm: runs the web page's test (puppeteer-core)",
    },
    Need {
        check: Check::Python,
        packages: &["python3", "python3-venv", "python3-pip"],
        lean: false,
        why: "Python 3.9+ with venv: the Python package's tests",
    },
    Need {
        check: Check::RustTarget("wasm32-unknown-unknown"),
        packages: &[],
        lean: false,
        why: "the web page's WebAssembly",
    },
];

/// Checks every need and installs what is missing, or says how and fails.
pub fn ensure() -> Result<(), String> {
    let missing: Vec<(&Need, Vec<&str>)> = NEEDS
        .iter()
        .filter_map(|n| lacking(n).map(|p| (n, p)))
        .collect();
    if missing.is_empty() {
        return Ok(());
    }
    eprintln!("xtask: the tests need these, which this machine lacks:");
    for (n, packages) in &missing {
        eprintln!("  - {:<40} {}", name(n, packages), n.why);
    }
    let (mut full, mut lean) = (Vec::new(), Vec::new());
    for (n, packages) in &missing {
        (if n.lean { &mut lean } else { &mut full }).extend(packages.iter().copied());
    }
    let target = missing.iter().find_map(|(n, _)| match n.check {
        Check::RustTarget(t) => Some(t),
        _ => None,
    });
    let commands = commands(&full, &lean, target);
    if !full.is_empty() || !lean.is_empty() {
        let runner = apt_runner().map_err(|why| {
            format!(
                "cannot install the system packages ({why}). On Debian or Ubuntu run these \
                 (elsewhere, their equivalents), then `cargo xtask test` again:\n{}",
                commands.join("\n")
            )
        })?;
        eprintln!("xtask: installing them (apt-get{}), once", runner.label());
        run_shown(&mut runner.command(&["apt-get", "update", "-qq"]))?;
        for (list, lean) in [(&full, false), (&lean, true)] {
            if list.is_empty() {
                continue;
            }
            let mut args = vec!["apt-get", "install", "-y", "-qq"];
            if lean {
                args.push("--no-install-recommends");
            }
            args.extend(list.iter().copied());
            let mut c = runner.command(&args);
            c.env("DEBIAN_FRONTEND", "noninteractive")
                .stdout(Stdio::null());
            run_shown(&mut c)?;
        }
    }
    if let Some(t) = target {
        run_shown(Command::new("rustup").args(["target", "add", t]))
            .map_err(|e| format!("{e}\nInstall the target yourself with: rustup target add {t}"))?;
    }
    let still: Vec<String> = NEEDS
        .iter()
        .filter_map(|n| lacking(n).map(|p| name(n, &p)))
        .collect();
    if still.is_empty() {
        eprintln!("xtask: set-up done");
        Ok(())
    } else {
        Err(format!(
            "still missing after set-up: {}. Install them with:\n{}",
            still.join(", "),
            commands.join("\n")
        ))
    }
}

/// The name a need is reported under: its missing packages, or the Rust target.
fn name(n: &Need, packages: &[&str]) -> String {
    match n.check {
        Check::RustTarget(t) => format!("rust target {t}"),
        _ => packages.join(" "),
    }
}

/// `None` when the need is met, else the Debian packages that would meet it
/// (of a package list, only the missing ones).
fn lacking(n: &Need) -> Option<Vec<&'static str>> {
    let met = match n.check {
        Check::Packages => {
            let missing: Vec<&str> = n
                .packages
                .iter()
                .copied()
                .filter(|p| !installed(p))
                .collect();
            return (!missing.is_empty()).then_some(missing);
        }
        Check::Program(p) => on_path(p),
        Check::Python => quiet(Command::new(python()).args([
            "-c",
            "import sys, venv, ensurepip; sys.exit(sys.version_info < (3, 9))",
        ])),
        Check::RustTarget(t) => Command::new("rustup")
            .args(["target", "list", "--installed"])
            .output()
            .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).lines().any(|l| l == t)),
    };
    (!met).then(|| n.packages.to_vec())
}

fn installed(package: &str) -> bool {
    Command::new("dpkg-query")
        .args(["-W", "-f=${db:Status-Status}", package])
        .stderr(Stdio::null())
        .output()
        .is_ok_and(|o| o.status.success() && o.stdout == b"installed")
}

/// The Python the tests use (`PYTHON`, else `python3`).
pub fn python() -> String {
    std::env::var("PYTHON").unwrap_or_else(|_| "python3".into())
}

fn on_path(program: &str) -> bool {
    std::env::var_os("PATH").is_some_and(|path| {
        std::env::split_paths(&path)
            .any(|d| std::fs::metadata(d.join(program)).is_ok_and(|m| m.is_file()))
    })
}

fn quiet(c: &mut Command) -> bool {
    c.stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}

/// The commands a person would type to install what is missing.
fn commands(full: &[&str], lean: &[&str], target: Option<&str>) -> Vec<String> {
    let mut c = Vec::new();
    if !full.is_empty() || !lean.is_empty() {
        c.push("  sudo apt-get update".to_string());
    }
    if !full.is_empty() {
        c.push(format!("  sudo apt-get install -y {}", full.join(" ")));
    }
    if !lean.is_empty() {
        c.push(format!(
            "  sudo apt-get install -y --no-install-recommends {}",
            lean.join(" ")
        ));
    }
    if let Some(t) = target {
        c.push(format!("  rustup target add {t}"));
    }
    c
}

/// How apt-get is run: directly as root, or through passwordless sudo.
enum Runner {
    Root,
    Sudo,
}

impl Runner {
    fn label(&self) -> &'static str {
        match self {
            Runner::Root => " as root",
            Runner::Sudo => " through sudo",
        }
    }

    fn command(&self, args: &[&str]) -> Command {
        match self {
            Runner::Root => {
                let mut c = Command::new(args[0]);
                c.args(&args[1..]);
                c
            }
            Runner::Sudo => {
                let mut c = Command::new("sudo");
                // sudo drops the environment: pass the one variable apt needs.
                c.args(["-n", "env", "DEBIAN_FRONTEND=noninteractive"])
                    .args(args);
                c
            }
        }
    }
}

fn apt_runner() -> Result<Runner, String> {
    if !on_path("apt-get") || !on_path("dpkg-query") {
        return Err("this is not Debian or Ubuntu: no apt-get".into());
    }
    let uid = Command::new("id")
        .arg("-u")
        .output()
        .map_err(|e| format!("cannot run `id -u`: {e}"))?;
    if String::from_utf8_lossy(&uid.stdout).trim() == "0" {
        return Ok(Runner::Root);
    }
    if on_path("sudo") && quiet(Command::new("sudo").args(["-n", "true"])) {
        return Ok(Runner::Sudo);
    }
    Err("not root, and sudo asks for a password".into())
}

/// Runs a set-up command, shown first so the reader sees what changes.
fn run_shown(c: &mut Command) -> Result<(), String> {
    eprintln!("xtask: {c:?}");
    crate::status(c)
}
