//! What one step did: counters and phase timings (shared by the boids pipeline
//! and the research models' steps).

/// Counters of one step, for benchmarks and diagnostics.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepStats {
    /// Boids stepped.
    pub boids: u64,
    /// Σ over boids of neighbours reacted to (within perception, visible, not ignored).
    pub neighbours: u64,
    /// Σ over boids of candidates whose distance was measured.
    pub candidates: u64,
    /// Grid cells.
    pub cells: u64,
    /// Wall time of the grid build (keys, counting sort), seconds.
    pub grid_seconds: f64,
    /// Wall time of the gather into cell order, seconds.
    pub gather_seconds: f64,
    /// Wall time of the steering and integration pass, seconds.
    pub steer_seconds: f64,
}
