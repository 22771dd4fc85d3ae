//! GPU step times, measured the one way that `murmuration bench --backend gpu`
//! and the `gpu_phases` profiler both report: steps queued back to back (no
//! host wait or read-back between them, where the device has timestamps),
//! each timed by GPU timestamps, and one median rule for the whole step. `bench` once waited for the device and read its counters after
//! every step while the profiler queued twenty steps, and at 10M boids the two
//! disagreed fourfold (issue 47); now they are one measurement.

use crate::{GpuError, GpuFlock, GpuVector};

/// Per-step times in milliseconds, sorted ascending.
#[derive(Clone, Debug, PartialEq)]
pub struct StepTimes {
    sorted_ms: Vec<f64>,
}

impl StepTimes {
    /// Sorts `ms` (per-step times in milliseconds).
    pub fn new(mut ms: Vec<f64>) -> Self {
        ms.sort_by(f64::total_cmp);
        Self { sorted_ms: ms }
    }

    /// The median: the middle time, or the mean of the two middle times of an
    /// even count; NaN when there are none.
    pub fn median_ms(&self) -> f64 {
        let t = &self.sorted_ms;
        match t.len() {
            0 => f64::NAN,
            m if m % 2 == 1 => t[m / 2],
            m => 0.5 * (t[m / 2 - 1] + t[m / 2]),
        }
    }

    /// The fastest step; NaN when there are none.
    pub fn min_ms(&self) -> f64 {
        self.sorted_ms.first().copied().unwrap_or(f64::NAN)
    }

    /// Every step's time, ascending.
    pub fn sorted_ms(&self) -> &[f64] {
        &self.sorted_ms
    }
}

impl<V: GpuVector> GpuFlock<V> {
    /// Runs `warmup` untimed steps, then `steps` timed steps queued back to back
    /// (see [`GpuFlock::timed_steps`]: GPU timestamps where the device has them,
    /// else wall time per step to an idle device). Nothing is read back between
    /// the timed steps, so the figure is the device's, not the host's round trips.
    pub fn time_steps(&mut self, warmup: u64, steps: u32) -> Result<StepTimes, GpuError> {
        self.step_n(warmup)?;
        Ok(StepTimes::new(self.timed_steps(steps)?))
    }
}

#[cfg(test)]
mod tests {
    use super::StepTimes;

    #[test]
    fn step_times_sort_and_take_the_median_of_odd_even_and_empty_lists() {
        let odd = StepTimes::new(vec![3.0, 1.0, 2.0]);
        assert_eq!((odd.median_ms(), odd.min_ms()), (2.0, 1.0));
        let even = StepTimes::new(vec![4.0, 1.0, 3.0, 2.0]);
        assert_eq!(even.median_ms(), 2.5);
        assert_eq!(even.sorted_ms(), [1.0, 2.0, 3.0, 4.0]);
        let none = StepTimes::new(Vec::new());
        assert!(none.median_ms().is_nan() && none.min_ms().is_nan());
    }
}
