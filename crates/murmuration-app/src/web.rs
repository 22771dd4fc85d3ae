//! `murmuration web`: the browser page (`web/`) served on a local port, or
//! written out as static files to publish. The page's files are embedded in the
//! binary; its WebAssembly is the core built for `wasm32-unknown-unknown`
//! (`crates/murmuration-web`), built from this source tree on first use.

use anyhow::{Context, Result, bail};
use std::net::IpAddr;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Serve the page locally or export it as static files.
#[derive(clap::Args, Debug)]
pub struct WebArgs {
    /// Port to serve on; 0 picks a free one (the URL is printed either way).
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// Address to listen on (127.0.0.1: this machine only; 0.0.0.0: the network).
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: IpAddr,
    /// The page's WebAssembly module. Default: built from this source tree
    /// (`cargo build -p murmuration-web --profile web --target wasm32-unknown-unknown`).
    #[arg(long, value_name = "FILE.wasm")]
    pub wasm: Option<PathBuf>,
    /// Write the page as static files into DIR (to publish on any web host)
    /// instead of serving it.
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
}

/// The page's files: URL path, content type and bytes (the module is added at run time).
const PAGE: [(&str, &str, &[u8]); 9] = [
    (
        "index.html",
        "text/html; charset=utf-8",
        include_bytes!("../../../web/index.html"),
    ),
    (
        "app.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../web/app.js"),
    ),
    (
        "engine.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../web/engine.js"),
    ),
    (
        "metrics-worker.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../web/metrics-worker.js"),
    ),
    (
        "panel.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../web/panel.js"),
    ),
    (
        "render.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../web/render.js"),
    ),
    (
        "style.css",
        "text/css; charset=utf-8",
        include_bytes!("../../../web/style.css"),
    ),
    (
        "vendor/lil-gui.esm.min.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../web/vendor/lil-gui.esm.min.js"),
    ),
    (
        "vendor/lil-gui.LICENSE.md",
        "text/markdown; charset=utf-8",
        include_bytes!("../../../web/vendor/lil-gui.LICENSE.md"),
    ),
];

/// The module's name in the page (`engine.js` fetches it).
const WASM_NAME: &str = "murmuration.wasm";

/// Runs `murmuration web`.
pub fn run(args: &WebArgs) -> Result<()> {
    let wasm_path = match &args.wasm {
        Some(p) => p.clone(),
        None => build_wasm()?,
    };
    let wasm = std::fs::read(&wasm_path)
        .with_context(|| format!("cannot read the page's WebAssembly {}", wasm_path.display()))?;
    if !wasm.starts_with(b"\0asm") {
        bail!("{} is not a WebAssembly module", wasm_path.display());
    }
    match &args.export {
        Some(dir) => export(dir, &wasm),
        None => serve(args, &wasm),
    }
}

/// Writes every file of the page into `dir`, each atomically, with a gzip copy
/// of each (`NAME.gz`) for hosts that serve precompressed files.
fn export(dir: &Path, wasm: &[u8]) -> Result<()> {
    let mut count = 0;
    for (name, _, bytes) in files(wasm) {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        murmuration::write_atomic(&path, bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        let zipped = dir.join(format!("{name}.gz"));
        murmuration::write_atomic(&zipped, &gzip(bytes))
            .with_context(|| format!("cannot write {}", zipped.display()))?;
        count += 2;
    }
    println!(
        "wrote the page to {} ({count} files, each with a .gz copy): publish the folder as static files (the host must send .wasm as application/wasm; one that serves .gz copies sends the module at a quarter of its size)",
        dir.display(),
    );
    Ok(())
}

/// Every file of the page with the module: name, content type, bytes.
fn files(wasm: &[u8]) -> impl Iterator<Item = (&'static str, &'static str, &[u8])> {
    PAGE.into_iter()
        .chain([(WASM_NAME, "application/wasm", wasm)])
}

/// `bytes` gzip-compressed at the best level (the module: 5.9 MB → 1.45 MB,
/// once per start).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(bytes).expect("writing to memory cannot fail");
    z.finish().expect("writing to memory cannot fail")
}

/// One file the server sends: its type, its bytes and their gzip.
struct Served<'a> {
    mime: &'static str,
    bytes: &'a [u8],
    gzipped: Vec<u8>,
}

fn serve(args: &WebArgs, wasm: &[u8]) -> Result<()> {
    let server = tiny_http::Server::http((args.bind, args.port))
        .map_err(|e| anyhow::anyhow!("cannot listen on {}:{}: {e}", args.bind, args.port))?;
    let addr = server
        .server_addr()
        .to_ip()
        .context("the server has no IP address")?;
    let files: Vec<(&str, Served)> = files(wasm)
        .map(|(name, mime, bytes)| {
            let gzipped = gzip(bytes);
            (
                name,
                Served {
                    mime,
                    bytes,
                    gzipped,
                },
            )
        })
        .collect();
    println!("serving the page at http://{addr}/ (Ctrl+C stops)");
    use std::io::Write as _;
    std::io::stdout().flush().ok();
    for request in server.incoming_requests() {
        let path = request.url().split(['?', '#']).next().unwrap_or("/");
        let name = path.trim_start_matches('/');
        let name = if name.is_empty() { "index.html" } else { name };
        let found = files.iter().find(|(n, _)| *n == name).map(|(_, f)| f);
        // Compressed for every client that takes gzip (every browser does).
        let gzip_ok = request
            .headers()
            .iter()
            .any(|h| h.field.equiv("Accept-Encoding") && h.value.as_str().contains("gzip"));
        let method = request.method().clone();
        let response = match (method, found) {
            (tiny_http::Method::Get | tiny_http::Method::Head, Some(f)) => {
                let body = if gzip_ok { &f.gzipped[..] } else { f.bytes };
                let mut r = tiny_http::Response::from_data(body.to_vec())
                    .with_header(header("Content-Type", f.mime))
                    .with_header(header("Cache-Control", "no-cache"))
                    .with_header(header("Vary", "Accept-Encoding"));
                if gzip_ok {
                    r = r.with_header(header("Content-Encoding", "gzip"));
                }
                r
            }
            (tiny_http::Method::Get | tiny_http::Method::Head, None) => {
                tiny_http::Response::from_data(format!("no such file: {path}\n").into_bytes())
                    .with_status_code(404)
            }
            _ => tiny_http::Response::from_data(b"only GET\n".to_vec()).with_status_code(405),
        };
        // A client that went away is its own business; keep serving.
        let _ = request.respond(response);
    }
    Ok(())
}

fn header(name: &str, value: &str) -> tiny_http::Header {
    tiny_http::Header::from_bytes(name.as_bytes(), value.as_bytes())
        .expect("header names and values here are ASCII")
}

/// The workspace this binary was built from, when it is still there.
fn workspace() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.join("crates/murmuration-web/Cargo.toml")
        .exists()
        .then_some(root)
}

/// Builds the page's module from the source tree (cargo decides whether it is
/// up to date) and returns its path.
fn build_wasm() -> Result<PathBuf> {
    let Some(root) = workspace() else {
        bail!(
            "this binary was built from a source tree that is gone; pass the page's module with --wasm FILE (cargo build -p murmuration-web --profile web --target wasm32-unknown-unknown)"
        );
    };
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root.join(t) })
        .unwrap_or_else(|| root.join("target"));
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(&cargo)
        .current_dir(&root)
        .args([
            "build",
            "--quiet",
            "-p",
            "murmuration-web",
            "--profile",
            "web",
            "--target",
            "wasm32-unknown-unknown",
        ])
        .spawn()
        .with_context(|| format!("cannot run {}", Path::new(&cargo).display()))?;
    // Cargo answers at once when the module is up to date: say nothing then.
    let quiet = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().context("waiting for cargo")? {
            break status;
        }
        if quiet.elapsed() > std::time::Duration::from_millis(1500) {
            eprintln!(
                "building the page's WebAssembly (after a change to the engine; the first time takes a few minutes)…"
            );
            break child.wait().context("waiting for cargo")?;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    if !status.success() {
        bail!(
            "building the page's WebAssembly failed ({status}); the target may be missing: rustup target add wasm32-unknown-unknown"
        );
    }
    Ok(target.join("wasm32-unknown-unknown/web/murmuration_web.wasm"))
}
