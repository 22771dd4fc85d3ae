//! The Murmuration core in a browser page, compiled to `wasm32-unknown-unknown`.
//!
//! A small C ABI instead of wasm-bindgen: the page's loader (`web/engine.js`)
//! is forty lines and needs no generated glue or CLI whose version must match.
//! Requests are JSON text (`session.rs`); the per-frame path is two numbers
//! (`mm_step`, then a view of `mm_instances` straight into a WebGL buffer).
//!
//! | export | what |
//! |---|---|
//! | `mm_alloc(len) -> ptr` | a buffer for the page to write a request into |
//! | `mm_free(ptr, len)` | gives it back |
//! | `mm_call(ptr, len) -> len` | answers the JSON request in the buffer; the answer (`{"ok": …}` or `{"error": "…"}`) is at `mm_out()` |
//! | `mm_step(n) -> count` | steps the open flock `n` times; its boid count |
//! | `mm_instances() -> ptr` | x, y, heading, species per boid (f32) |
//! | `mm_count() -> n` | boids in the open flock |
//! | `mm_kinematics() -> ptr` | position, velocity, species per boid (f32), for the metrics worker |
//! | `mm_metrics_of(ptr, len) -> len` | the metrics of such an array measured in the open flock (the worker's mirror), as JSON at `mm_out()` |
//! | `mm_splat_looks(ptr)` | the species' colours and sizes for `mm_splat` (32 f32: 8 RGB, 8 sizes) |
//! | `mm_splat(w, h, min_x, min_y, scale, ox, oy, size, glow) -> ptr` | the open flock drawn on the CPU: `w·h` RGBA8 pixels, bottom row first (software WebGL's path) |
//! | `mm_splat_changed() -> ptr` | x, y, width, height (u32) of the part of that picture that changed since the one before |
//!
//! The core runs single-threaded here: rayon falls back to the calling thread
//! without WebAssembly threads, and the step gives the same bits on any thread
//! count, so the page's digest equals the native one. The core's transcendental
//! functions come from the `libm` crate (`crates/murmuration/clippy.toml`
//! forbids the platform's), so the bits are the same as native.
//!
//! The page (`web/`): `engine.js` loads the module; `render.js` draws the
//! instance array straight from the module's memory as WebGL2 point sprites,
//! or, where WebGL is software and the flock is over 4,000, uploads the changed
//! part of `mm_splat`'s picture; `panel.js` is the lil-gui panel; `app.js` the
//! layout, pointer, touch and overlay (a 2D canvas: target, pulses, the debug
//! drawing of the boids nearest the pointer, the obstacles on a layer of their
//! own); `metrics-worker.js` runs `metrics.rs`'s mirror. A frame: `mm_step(k)`,
//! a `Float32Array` view of the instances, a float texture, one draw of points.
//! The page is embedded in the binary and served compressed by the command
//! `murmuration web`, or written out with `--export`.
#![allow(
    unsafe_code,
    reason = "the exports are #[no_mangle] and read the page's request from a pointer it was given by mm_alloc"
)]

mod inspect;
mod metrics;
mod resize;
mod session;
pub mod splat;

pub use inspect::MAX_DEBUG_BOIDS;
pub use metrics::kinematics_floats;
pub use session::{INSTANCE_FLOATS, PAGE_MAX_BOIDS, Session, page_presets};
pub use splat::MAX_HALF_PIXELS;

use std::cell::RefCell;

thread_local! {
    /// The page's flock (`None` until a preset is opened) and the last answer.
    static STATE: RefCell<(Option<Session>, Vec<u8>)> = const { RefCell::new((None, Vec::new())) };
    /// The CPU drawing of the flock and the looks it draws with.
    static SPLAT: RefCell<(splat::Splat, splat::Looks)> = RefCell::new(Default::default());
}

/// The most pixels `mm_splat` draws (an 8K screen).
const MAX_SPLAT_PIXELS: u64 = 7680 * 4320;

/// Answers one JSON request as JSON text: `{"ok": value}` or `{"error": message}`.
pub fn answer(session: &mut Option<Session>, request: &str) -> String {
    wrap(Session::call(session, request))
}

/// `{"ok": value}` or `{"error": message}`, as JSON text.
pub fn wrap(result: Result<serde_json::Value, String>) -> String {
    match result {
        Ok(v) => serde_json::json!({ "ok": v }).to_string(),
        Err(e) => serde_json::json!({ "error": e }).to_string(),
    }
}

/// A buffer of `len` bytes for the page to write a request into.
#[unsafe(no_mangle)]
pub extern "C" fn mm_alloc(len: usize) -> *mut u8 {
    let mut v = Vec::<u8>::with_capacity(len.max(1));
    let p = v.as_mut_ptr();
    std::mem::forget(v);
    p
}

/// Frees a buffer from [`mm_alloc`].
///
/// # Safety
/// `ptr` and `len` must be exactly what one `mm_alloc` call returned and was given.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mm_free(ptr: *mut u8, len: usize) {
    // SAFETY: the caller passes back a pointer and capacity from mm_alloc.
    drop(unsafe { Vec::from_raw_parts(ptr, 0, len.max(1)) });
}

/// Answers the JSON request in `ptr[..len]`; returns the answer's length in bytes
/// (read it at [`mm_out`]).
///
/// # Safety
/// `ptr[..len]` must be a buffer from [`mm_alloc`] holding `len` written bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mm_call(ptr: *const u8, len: usize) -> usize {
    // SAFETY: the page wrote `len` bytes into a buffer mm_alloc gave it.
    let bytes = unsafe { std::slice::from_raw_parts(ptr, len) };
    let text = String::from_utf8_lossy(bytes);
    STATE.with_borrow_mut(|(session, out)| {
        *out = answer(session, &text).into_bytes();
        out.len()
    })
}

/// The last answer of [`mm_call`].
#[unsafe(no_mangle)]
pub extern "C" fn mm_out() -> *const u8 {
    STATE.with_borrow(|(_, out)| out.as_ptr())
}

/// Steps the open flock `n` times; returns its boid count (0 with none open).
#[unsafe(no_mangle)]
pub extern "C" fn mm_step(n: u32) -> u32 {
    STATE.with_borrow_mut(|(session, _)| match session {
        Some(s) => {
            s.step(n);
            s.len() as u32
        }
        None => 0,
    })
}

/// The instance array of the open flock ([`INSTANCE_FLOATS`] f32 per boid),
/// valid until the next call into the module.
#[unsafe(no_mangle)]
pub extern "C" fn mm_instances() -> *const f32 {
    STATE.with_borrow(|(session, _)| {
        session
            .as_ref()
            .map_or(std::ptr::null(), |s| s.instances().as_ptr())
    })
}

/// Boids in the open flock.
#[unsafe(no_mangle)]
pub extern "C" fn mm_count() -> u32 {
    STATE.with_borrow(|(session, _)| session.as_ref().map_or(0, |s| s.len() as u32))
}

/// The open flock's kinematics ([`kinematics_floats`] f32 per boid: position,
/// velocity, species) for the metrics worker; valid until the next call.
#[unsafe(no_mangle)]
pub extern "C" fn mm_kinematics() -> *const f32 {
    STATE.with_borrow_mut(|(session, _)| {
        session
            .as_mut()
            .map_or(std::ptr::null(), |s| s.kinematics().as_ptr())
    })
}

/// The metrics of the kinematics in `ptr[..len]` (little-endian f32s, `len`
/// bytes, written by the worker into a buffer from [`mm_alloc`]) measured in
/// the open flock (the worker's mirror): `{"ok": …}` or `{"error": …}` at
/// [`mm_out`]; returns the answer's length.
///
/// # Safety
/// `ptr[..len]` must be a buffer from [`mm_alloc`] holding `len` written bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mm_metrics_of(ptr: *const u8, len: usize) -> usize {
    // SAFETY: the worker wrote `len` bytes into a buffer mm_alloc gave it.
    let floats = le_floats(unsafe { std::slice::from_raw_parts(ptr, len) });
    STATE.with_borrow_mut(|(session, out)| {
        let result = session
            .as_ref()
            .ok_or_else(|| "the worker holds no mirror".to_string())
            .and_then(|s| s.metrics_of(&floats));
        *out = wrap(result).into_bytes();
        out.len()
    })
}

/// The little-endian f32s the page wrote into a byte buffer (any alignment).
fn le_floats(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|b| f32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Sets the species' looks for [`mm_splat`] from 32 f32 at `ptr`: eight RGB
/// colours (0–1), then eight body sizes.
///
/// # Safety
/// `ptr` must point at 32 f32 the page wrote into a buffer from [`mm_alloc`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mm_splat_looks(ptr: *const f32) {
    // SAFETY: the page wrote 32 floats (128 bytes) into a buffer mm_alloc
    // gave it; read as bytes, as mm_alloc promises no f32 alignment.
    let f = le_floats(unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), 128) });
    SPLAT.with_borrow_mut(|(_, looks)| {
        for s in 0..8 {
            looks.colours[s] = [f[3 * s], f[3 * s + 1], f[3 * s + 2]].map(|c| c.clamp(0.0, 4.0));
            looks.sizes[s] = if f[24 + s].is_finite() {
                f[24 + s].clamp(0.0, 64.0)
            } else {
                1.0
            };
        }
    });
}

/// Draws the open flock on the CPU into a `width · height` RGBA8 picture,
/// bottom row first (world point `min` at pixel (`ox`, `oy`), `scale` pixels
/// per unit, sprites of half-size `size` units, `glow` nonzero for the halo);
/// valid until the next call into the module. Null with no flock open or a
/// picture of no pixels or more than an 8K screen's.
#[unsafe(no_mangle)]
#[allow(
    clippy::too_many_arguments,
    reason = "a C ABI export: plain numbers, no struct"
)]
pub extern "C" fn mm_splat(
    width: u32,
    height: u32,
    min_x: f32,
    min_y: f32,
    scale: f32,
    ox: f32,
    oy: f32,
    size: f32,
    glow: u32,
) -> *const u8 {
    let pixels = u64::from(width) * u64::from(height);
    if pixels == 0 || pixels > MAX_SPLAT_PIXELS || !(scale.is_finite() && size.is_finite()) {
        return std::ptr::null();
    }
    let view = splat::View {
        width,
        height,
        min: [min_x, min_y],
        scale,
        ox,
        oy,
    };
    STATE.with_borrow(|(session, _)| {
        let Some(s) = session else {
            return std::ptr::null();
        };
        SPLAT.with_borrow_mut(|(splat, looks)| {
            looks.glow = glow != 0;
            let looks = *looks;
            splat
                .draw(s.instances(), &view, size, &looks)
                .as_ptr()
                .cast()
        })
    })
}

/// Where the last [`mm_splat`] picture changed from the one before it: x, y,
/// width, height (4 u32, pixels from the bottom-left); the page uploads only it.
#[unsafe(no_mangle)]
pub extern "C" fn mm_splat_changed() -> *const u32 {
    SPLAT.with_borrow(|(splat, _)| splat.changed().as_ptr())
}
