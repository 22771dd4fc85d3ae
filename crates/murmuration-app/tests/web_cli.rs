//! `murmuration web`: the page written out as static files, and the refusals of
//! a missing or wrong module and an unwritable folder. (Serving the page and the
//! page itself are tested in headless Chromium by `cargo xtask test`.)

mod common;
use common::{bin, ok};

/// The smallest valid WebAssembly module: the magic number and version 1.
const EMPTY_MODULE: &[u8] = b"\0asm\x01\0\0\0";

#[test]
fn export_writes_the_page_and_its_module() {
    let dir = tempfile::tempdir().unwrap();
    let wasm = dir.path().join("m.wasm");
    std::fs::write(&wasm, EMPTY_MODULE).unwrap();
    let site = dir.path().join("site");
    let out = ok(bin()
        .args(["web", "--wasm"])
        .arg(&wasm)
        .arg("--export")
        .arg(&site));
    assert!(out.contains("wrote the page"), "{out}");
    for f in [
        "index.html",
        "app.js",
        "engine.js",
        "gpu-engine.js",
        "render.js",
        "panel.js",
        "metrics-worker.js",
        "style.css",
        "vendor/lil-gui.esm.min.js",
    ] {
        assert!(site.join(f).is_file(), "{f} missing");
    }
    assert_eq!(
        std::fs::read(site.join("murmuration.wasm")).unwrap(),
        EMPTY_MODULE
    );
    let html = std::fs::read_to_string(site.join("index.html")).unwrap();
    assert!(html.contains("app.js"));
    // Each file has a gzip copy for hosts that serve precompressed files.
    use std::io::Read as _;
    let mut unzipped = Vec::new();
    flate2::read::GzDecoder::new(&std::fs::read(site.join("murmuration.wasm.gz")).unwrap()[..])
        .read_to_end(&mut unzipped)
        .unwrap();
    assert_eq!(unzipped, EMPTY_MODULE);
    assert!(site.join("app.js.gz").is_file());
    // And a Brotli copy (hosts that serve .br send the module at a tenth).
    let mut unpacked = Vec::new();
    brotli::BrotliDecompress(
        &mut &std::fs::read(site.join("murmuration.wasm.br")).unwrap()[..],
        &mut unpacked,
    )
    .unwrap();
    assert_eq!(unpacked, EMPTY_MODULE);
    assert!(site.join("app.js.br").is_file());
}

#[test]
fn a_missing_or_wrong_module_and_an_unwritable_folder_are_refused_by_name() {
    let dir = tempfile::tempdir().unwrap();
    let err = |args: &[&std::ffi::OsStr]| {
        let out = bin()
            .arg("web")
            .args(args)
            .assert()
            .failure()
            .get_output()
            .clone();
        let e = String::from_utf8(out.stderr).unwrap();
        assert!(!e.contains("panicked"), "{e}");
        e
    };
    let missing = dir.path().join("none.wasm");
    let e = err(&[
        "--wasm".as_ref(),
        missing.as_os_str(),
        "--export".as_ref(),
        dir.path().as_os_str(),
    ]);
    assert!(
        e.contains("cannot read the page's WebAssembly") && e.contains("none.wasm"),
        "{e}"
    );
    let text = dir.path().join("text.wasm");
    std::fs::write(&text, "hello").unwrap();
    let e = err(&[
        "--wasm".as_ref(),
        text.as_os_str(),
        "--export".as_ref(),
        dir.path().as_os_str(),
    ]);
    assert!(e.contains("is not a WebAssembly module"), "{e}");
    let wasm = dir.path().join("m.wasm");
    std::fs::write(&wasm, EMPTY_MODULE).unwrap();
    let blocked = dir.path().join("file");
    std::fs::write(&blocked, "not a folder").unwrap();
    let e = err(&[
        "--wasm".as_ref(),
        wasm.as_os_str(),
        "--export".as_ref(),
        blocked.join("site").as_os_str(),
    ]);
    assert!(
        e.contains("cannot create") || e.contains("cannot write"),
        "{e}"
    );
}

/// Kills the server when the test ends, however it ends.
struct Server(std::process::Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// A client that asks for a large file and does not read it must not hold up
/// the others: the server answered on one thread, blocked writing to that
/// client, and the page's other requests (its scripts) waited forever, so
/// the page never loaded.
#[test]
fn a_slow_reader_does_not_stall_the_server() {
    use std::io::{BufRead, BufReader, Read, Write};
    use std::net::TcpStream;
    use std::time::Duration;
    let dir = tempfile::tempdir().unwrap();
    // 32 MB, sent uncompressed to a client that asks for no coding: far more
    // than the sockets' buffers hold.
    let mut module = EMPTY_MODULE.to_vec();
    module.resize(32 << 20, 0);
    let wasm = dir.path().join("big.wasm");
    std::fs::write(&wasm, &module).unwrap();
    #[allow(
        deprecated,
        reason = "the binary's path, for a server the test reads from"
    )]
    let path = assert_cmd::cargo::cargo_bin("murmuration");
    let mut child = std::process::Command::new(path)
        .args(["web", "--port", "0", "--wasm"])
        .arg(&wasm)
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let out = child.stdout.take().unwrap();
    let _server = Server(child);
    let mut line = String::new();
    BufReader::new(out).read_line(&mut line).unwrap();
    let addr = line
        .split("http://")
        .nth(1)
        .and_then(|r| r.split('/').next())
        .unwrap_or_else(|| panic!("no address in {line:?}"))
        .to_string();
    let ask = |path: &str| {
        let mut s = TcpStream::connect(&addr).unwrap();
        write!(
            s,
            "GET {path} HTTP/1.1\r\nHost: {addr}\r\nAccept-Encoding: identity\r\n\r\n"
        )
        .unwrap();
        s
    };
    // Asked for, never read.
    let _slow = ask("/murmuration.wasm");
    std::thread::sleep(Duration::from_millis(300));
    let mut quick = ask("/index.html");
    quick
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    let mut head = [0u8; 12];
    quick
        .read_exact(&mut head)
        .expect("the page was not answered while another client was slow to read");
    assert_eq!(&head, b"HTTP/1.1 200");
}
