//! `murmuration web`: the browser page (`web/`) served on a local port, or
//! written out as static files to publish. The page's files are embedded in the
//! binary; its two WebAssembly modules are built from this source tree on
//! first use: the core for the CPU (`crates/murmuration-web`) and, for
//! browsers with WebGPU, the GPU and render crates (`crates/murmuration-webgpu`,
//! whose JavaScript glue `crates/murmuration-bindgen` writes).

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
    /// The page's WebGPU module: a folder holding `murmuration_webgpu.js` and
    /// `murmuration_webgpu_bg.wasm` (`murmuration-bindgen`'s output). Default:
    /// built from this source tree, unless `--wasm` names the CPU module (the
    /// page then runs on WebAssembly only).
    #[arg(long, value_name = "DIR")]
    pub webgpu: Option<PathBuf>,
    /// Write the page as static files into DIR (to publish on any web host)
    /// instead of serving it.
    #[arg(long, value_name = "DIR")]
    pub export: Option<PathBuf>,
}

/// The page's files: URL path, content type and bytes (the module is added at run time).
const PAGE: [(&str, &str, &[u8]); 10] = [
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
        "gpu-engine.js",
        "text/javascript; charset=utf-8",
        include_bytes!("../../../web/gpu-engine.js"),
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

/// The WebGPU module's files: wasm-bindgen's names, and where the page finds
/// them (`gpu-engine.js` imports the first, which fetches the second).
const WEBGPU_FILES: [(&str, &str, &str); 2] = [
    (
        "murmuration_webgpu.js",
        "gpu/murmuration_webgpu.js",
        "text/javascript; charset=utf-8",
    ),
    (
        "murmuration_webgpu_bg.wasm",
        "gpu/murmuration_webgpu_bg.wasm",
        "application/wasm",
    ),
];

/// The modules the page is served with: the CPU one, and the WebGPU one's
/// files (page path, type, bytes) when there is one.
struct Modules {
    wasm: Vec<u8>,
    webgpu: Vec<(&'static str, &'static str, Vec<u8>)>,
}

/// Runs `murmuration web`.
pub fn run(args: &WebArgs) -> Result<()> {
    let (wasm_path, built_webgpu) = match &args.wasm {
        Some(p) => (p.clone(), None),
        None => {
            let (cpu, gpu) = build_wasm(args.webgpu.is_none())?;
            (cpu, gpu)
        }
    };
    let wasm = std::fs::read(&wasm_path)
        .with_context(|| format!("cannot read the page's WebAssembly {}", wasm_path.display()))?;
    if !wasm.starts_with(b"\0asm") {
        bail!("{} is not a WebAssembly module", wasm_path.display());
    }
    let webgpu = match args.webgpu.clone().or(built_webgpu) {
        Some(dir) => read_webgpu(&dir)?,
        None => Vec::new(),
    };
    let modules = Modules { wasm, webgpu };
    match &args.export {
        Some(dir) => export(dir, &modules),
        None => serve(args, &modules),
    }
}

/// The WebGPU module's files in `dir`, refused by name when one is missing or
/// is not what it should be.
fn read_webgpu(dir: &Path) -> Result<Vec<(&'static str, &'static str, Vec<u8>)>> {
    WEBGPU_FILES
        .iter()
        .map(|&(file, page, mime)| {
            let path = dir.join(file);
            let bytes = std::fs::read(&path).with_context(|| {
                format!(
                    "cannot read the page's WebGPU module file {} (--webgpu names the folder murmuration-bindgen wrote)",
                    path.display()
                )
            })?;
            if file.ends_with(".wasm") && !bytes.starts_with(b"\0asm") {
                bail!("{} is not a WebAssembly module", path.display());
            }
            Ok((page, mime, bytes))
        })
        .collect()
}

/// Writes every file of the page into `dir`, each atomically, with a Brotli
/// and a gzip copy of each (`NAME.br`, `NAME.gz`) for hosts that serve
/// precompressed files.
fn export(dir: &Path, modules: &Modules) -> Result<()> {
    let mut count = 0;
    for (name, _, bytes) in files(modules) {
        let path = dir.join(name);
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)
                .with_context(|| format!("cannot create {}", parent.display()))?;
        }
        murmuration::write_atomic(&path, bytes)
            .with_context(|| format!("cannot write {}", path.display()))?;
        for (suffix, packed) in [("gz", gzip(bytes)), ("br", brotli(bytes, BROTLI_EXPORT))] {
            let copy = dir.join(format!("{name}.{suffix}"));
            murmuration::write_atomic(&copy, &packed)
                .with_context(|| format!("cannot write {}", copy.display()))?;
        }
        count += 3;
    }
    println!(
        "wrote the page to {} ({count} files, each with .br and .gz copies): publish the folder as static files (the host must send .wasm as application/wasm; one that serves the .br copies sends the module at a tenth of its size, .gz at a quarter)",
        dir.display(),
    );
    Ok(())
}

/// Every file of the page with its modules: name, content type, bytes.
fn files(modules: &Modules) -> impl Iterator<Item = (&'static str, &'static str, &[u8])> {
    PAGE.into_iter()
        .chain([(WASM_NAME, "application/wasm", &modules.wasm[..])])
        .chain(
            modules
                .webgpu
                .iter()
                .map(|(name, mime, bytes)| (*name, *mime, &bytes[..])),
        )
}

/// `bytes` gzip-compressed at the best level (the module: 7.4 MB → 1.81 MB,
/// once per start).
fn gzip(bytes: &[u8]) -> Vec<u8> {
    use std::io::Write as _;
    let mut z = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    z.write_all(bytes).expect("writing to memory cannot fail");
    z.finish().expect("writing to memory cannot fail")
}

/// Brotli's quality when serving: the module in half a second at start
/// (quality 11 takes ten seconds for 3 % less).
const BROTLI_SERVE: u32 = 9;
/// Brotli's quality for `--export`, compressed once for publishing.
const BROTLI_EXPORT: u32 = 11;

/// `bytes` Brotli-compressed with a 16 MiB window. The module repeats itself
/// far apart (its monomorphised step, 2D beside 3D): gzip's 32 KiB window sees
/// little of it (7.4 MB → 1.81 MB), Brotli's whole-file window much more (→
/// 0.73 MB at quality 9, 0.62 MB at 11).
fn brotli(bytes: &[u8], quality: u32) -> Vec<u8> {
    use std::io::Write as _;
    let mut out = Vec::new();
    {
        let mut z = brotli::CompressorWriter::new(&mut out, 1 << 16, quality, 24);
        z.write_all(bytes).expect("writing to memory cannot fail");
    }
    out
}

/// A content coding the server sends, best first.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Coding {
    Brotli,
    Gzip,
    Identity,
}

/// The best coding an `Accept-Encoding` value takes (a browser on https or on
/// localhost takes `br`; every browser takes `gzip`).
fn coding(accept: &str) -> Coding {
    let takes = |name: &str| {
        accept.split(',').any(|part| {
            let mut fields = part.split(';');
            let token = fields.next().unwrap_or("").trim();
            let refused = fields.any(|f| {
                f.trim()
                    .strip_prefix("q=")
                    .and_then(|q| q.trim().parse::<f32>().ok())
                    == Some(0.0)
            });
            token.eq_ignore_ascii_case(name) && !refused
        })
    };
    if takes("br") {
        Coding::Brotli
    } else if takes("gzip") {
        Coding::Gzip
    } else {
        Coding::Identity
    }
}

/// One file the server sends: its type, its bytes and their compressed copies.
struct Served<'a> {
    mime: &'static str,
    bytes: &'a [u8],
    gzipped: Vec<u8>,
    brotli: Vec<u8>,
}

fn serve(args: &WebArgs, modules: &Modules) -> Result<()> {
    let listener = std::net::TcpListener::bind((args.bind, args.port))
        .with_context(|| format!("cannot listen on {}:{}", args.bind, args.port))?;
    let addr = listener.local_addr().context("the server has no address")?;
    let files: Vec<(&str, Served)> = files(modules)
        .map(|(name, mime, bytes)| {
            (
                name,
                Served {
                    mime,
                    bytes,
                    gzipped: gzip(bytes),
                    brotli: brotli(bytes, BROTLI_SERVE),
                },
            )
        })
        .collect();
    println!("serving the page at http://{addr}/ (Ctrl+C stops)");
    use std::io::Write as _;
    std::io::stdout().flush().ok();
    crate::http::serve(listener, |request| answer(request, &files));
    Ok(())
}

/// The answer to one request from the page's files: compressed for every
/// client that takes it (every browser does).
fn answer<'f>(
    request: &crate::http::Request,
    files: &'f [(&str, Served)],
) -> crate::http::Answer<'f> {
    use crate::http::Answer;
    let name = request.path.trim_start_matches('/');
    let name = if name.is_empty() { "index.html" } else { name };
    let found = files.iter().find(|(n, _)| *n == name).map(|(_, f)| f);
    match (request.method.as_str(), found) {
        ("GET" | "HEAD", Some(f)) => {
            let (body, encoding) = match coding(&request.accept_encoding) {
                Coding::Brotli => (&f.brotli[..], Some("br")),
                Coding::Gzip => (&f.gzipped[..], Some("gzip")),
                Coding::Identity => (f.bytes, None),
            };
            Answer {
                status: "200 OK",
                mime: f.mime,
                body,
                encoding,
            }
        }
        ("GET" | "HEAD", None) => Answer {
            status: "404 Not Found",
            mime: "text/plain; charset=utf-8",
            body: b"no such file\n",
            encoding: None,
        },
        _ => Answer {
            status: "405 Method Not Allowed",
            mime: "text/plain; charset=utf-8",
            body: b"only GET\n",
            encoding: None,
        },
    }
}

/// The workspace this binary was built from, when it is still there.
fn workspace() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.join("crates/murmuration-web/Cargo.toml")
        .exists()
        .then_some(root)
}

/// Builds the page's modules from the source tree (cargo decides whether they
/// are up to date): the CPU module's path and, with `webgpu`, the folder
/// holding the WebGPU module and its glue. Both modules build in one cargo
/// run (they share the core); when the WebGPU one cannot be built, the CPU
/// module alone is, and the page is served without WebGPU, saying so.
fn build_wasm(webgpu: bool) -> Result<(PathBuf, Option<PathBuf>)> {
    let Some(root) = workspace() else {
        bail!(
            "this binary was built from a source tree that is gone; pass the page's module with --wasm FILE (cargo build -p murmuration-web --profile web --target wasm32-unknown-unknown)"
        );
    };
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .map(|t| if t.is_absolute() { t } else { root.join(t) })
        .unwrap_or_else(|| root.join("target"));
    let wasm_build = |packages: &[&'static str]| {
        let mut args = vec!["build", "--quiet"];
        for p in packages {
            args.extend(["-p", p]);
        }
        args.extend(["--profile", "web", "--target", "wasm32-unknown-unknown"]);
        args
    };
    let out = target.join("wasm32-unknown-unknown/web");
    let cpu = out.join("murmuration_web.wasm");
    let cpu_only = || {
        cargo(&root, &wasm_build(&["murmuration-web"])).context(
            "building the page's WebAssembly failed; the target may be missing: rustup target add wasm32-unknown-unknown",
        )
    };
    if !webgpu {
        cpu_only()?;
        return Ok((cpu, None));
    }
    let both = cargo(
        &root,
        &wasm_build(&["murmuration-web", "murmuration-webgpu"]),
    )
    .context("building the WebGPU module (crates/murmuration-webgpu) failed")
    .and_then(|()| bindgen(&root, &target));
    match both {
        Ok(glue) => Ok((cpu, Some(glue))),
        Err(e) => {
            cpu_only()?;
            eprintln!(
                "warning: the page is served without its WebGPU engine (WebAssembly only): {e:#}"
            );
            Ok((cpu, None))
        }
    }
}

/// Writes wasm-bindgen's glue beside the WebGPU module with the generator
/// pinned to the module's version (a native binary of this workspace);
/// returns the folder.
fn bindgen(root: &Path, target: &Path) -> Result<PathBuf> {
    cargo(root, &["build", "--quiet", "-p", "murmuration-bindgen"])
        .context("building its generator (crates/murmuration-bindgen) failed")?;
    let out = target.join("wasm32-unknown-unknown/web");
    let glue = out.join("webgpu");
    let output = Command::new(target.join("debug/murmuration-bindgen"))
        .arg(out.join("murmuration_webgpu.wasm"))
        .arg(&glue)
        .output()
        .context("cannot run murmuration-bindgen")?;
    if !output.status.success() {
        bail!(
            "generating the WebGPU module's glue failed: {}",
            String::from_utf8_lossy(&output.stderr).trim()
        );
    }
    Ok(glue)
}

/// Runs cargo with `args` in `root`; says what it does only when it takes a
/// while (cargo answers at once when everything is up to date).
fn cargo(root: &Path, args: &[&str]) -> Result<()> {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut child = Command::new(&cargo)
        .current_dir(root)
        .args(args)
        .spawn()
        .with_context(|| format!("cannot run {}", Path::new(&cargo).display()))?;
    let quiet = std::time::Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().context("waiting for cargo")? {
            break status;
        }
        if quiet.elapsed() > std::time::Duration::from_millis(1500) {
            static SAID: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);
            if !SAID.swap(true, std::sync::atomic::Ordering::Relaxed) {
                eprintln!(
                    "building the page's WebAssembly (after a change to the engine; the first time takes a few minutes)…"
                );
            }
            break child.wait().context("waiting for cargo")?;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    if !status.success() {
        bail!("cargo {} exited with {status}", args.join(" "));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_encoding_picks_brotli_then_gzip_and_honours_a_refusal() {
        assert_eq!(coding("gzip, deflate, br, zstd"), Coding::Brotli);
        assert_eq!(coding("gzip, deflate"), Coding::Gzip);
        assert_eq!(coding("br;q=0, gzip;q=0.8"), Coding::Gzip);
        assert_eq!(coding("BR"), Coding::Brotli);
        // `brx` is not `br`, and nothing known is identity.
        assert_eq!(coding("brx, identity"), Coding::Identity);
        assert_eq!(coding(""), Coding::Identity);
    }

    #[test]
    fn brotli_copies_unpack_to_the_same_bytes() {
        let bytes: Vec<u8> = (0..50_000u32)
            .flat_map(|i| (i % 251).to_le_bytes())
            .collect();
        for quality in [BROTLI_SERVE, BROTLI_EXPORT] {
            let packed = brotli(&bytes, quality);
            assert!(packed.len() < bytes.len() / 10, "{} bytes", packed.len());
            let mut unpacked = Vec::new();
            brotli::BrotliDecompress(&mut &packed[..], &mut unpacked).unwrap();
            assert_eq!(unpacked, bytes);
        }
    }
}
