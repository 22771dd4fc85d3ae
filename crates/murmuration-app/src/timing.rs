//! What the flock benchmark and the game's share: the thread counts they run
//! on and the order statistics of their measured times.

/// The thread counts a benchmark runs: the one asked for, else every core and
/// then one (one alone on a one-core machine).
pub fn thread_counts(asked: Option<usize>) -> Vec<usize> {
    let all = std::thread::available_parallelism().map_or(1, |n| n.get());
    asked.map_or(if all > 1 { vec![all, 1] } else { vec![1] }, |t| vec![t])
}

/// The median of `times`, which it leaves sorted.
pub fn median(times: &mut [f64]) -> f64 {
    times.sort_by(f64::total_cmp);
    let m = times.len();
    if m == 0 {
        return f64::NAN;
    }
    if m % 2 == 1 {
        times[m / 2]
    } else {
        0.5 * (times[m / 2 - 1] + times[m / 2])
    }
}

/// The `p`th percentile (0 to 100, nearest rank below) of sorted `times`.
pub fn percentile(sorted: &[f64], p: usize) -> f64 {
    let m = sorted.len();
    if m == 0 {
        return f64::NAN;
    }
    sorted[(m * p / 100).min(m - 1)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn median_and_percentiles_of_odd_even_and_empty_lists() {
        assert_eq!(median(&mut [3.0, 1.0, 2.0]), 2.0);
        let mut even = [4.0, 1.0, 3.0, 2.0];
        assert_eq!(median(&mut even), 2.5);
        assert_eq!(even, [1.0, 2.0, 3.0, 4.0], "left sorted");
        assert_eq!(percentile(&even, 95), 4.0);
        assert_eq!(percentile(&even, 50), 3.0);
        assert!(median(&mut []).is_nan() && percentile(&[], 95).is_nan());
    }
}
