//! `murmuration-bindgen IN.wasm OUT_DIR`: wasm-bindgen's JavaScript glue for
//! the page's WebGPU module (`crates/murmuration-webgpu`), as an ES module
//! (`--target web`): `OUT_DIR/murmuration_webgpu.js` and
//! `OUT_DIR/murmuration_webgpu_bg.wasm`. `murmuration web` runs it after
//! building the module. The generator is a library pinned to the version the
//! module links, so there is no `wasm-bindgen-cli` to install and match.

use std::path::PathBuf;
use std::process::ExitCode;

fn main() -> ExitCode {
    let args: Vec<PathBuf> = std::env::args_os().skip(1).map(PathBuf::from).collect();
    let [input, out] = &args[..] else {
        eprintln!("usage: murmuration-bindgen IN.wasm OUT_DIR");
        return ExitCode::from(2);
    };
    let result = wasm_bindgen_cli_support::Bindgen::new()
        .input_path(input)
        .web(true)
        .and_then(|b| b.typescript(false).generate(out));
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!(
                "murmuration-bindgen: cannot generate the glue for {} into {}: {e:#}",
                input.display(),
                out.display()
            );
            ExitCode::FAILURE
        }
    }
}
