//! [`Stopwatch`]: the step's phase timer, and the one place that knows a target
//! has no clock. WebAssembly in a browser (`wasm32-unknown-unknown`) has no
//! `std::time::Instant` (it panics there), so on that target phases time as 0 and
//! the page measures steps with its own clock.

/// Wall time since it was started.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Stopwatch {
    #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
    start: std::time::Instant,
}

impl Stopwatch {
    /// Starts now.
    #[inline]
    pub fn start() -> Self {
        Self {
            #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
            start: std::time::Instant::now(),
        }
    }

    /// Seconds since [`Stopwatch::start`] (0 where the target has no clock).
    #[inline]
    pub fn seconds(&self) -> f64 {
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        return self.start.elapsed().as_secs_f64();
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        return 0.0;
    }

    /// Seconds from `self` to `later` (started after it).
    #[inline]
    pub fn until(&self, later: &Stopwatch) -> f64 {
        #[cfg(not(all(target_arch = "wasm32", target_os = "unknown")))]
        return later.start.duration_since(self.start).as_secs_f64();
        #[cfg(all(target_arch = "wasm32", target_os = "unknown"))]
        return {
            let _ = later;
            0.0
        };
    }
}
