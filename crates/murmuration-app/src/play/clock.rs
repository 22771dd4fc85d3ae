//! The sandbox's frame clock: the frame rate it shows (from the real frame time,
//! however slow) and the summary printed at exit (which blames the display's
//! refresh rate only when frames really run at it).

/// Frame times, smoothed for the panel and kept for the exit summary.
#[derive(Debug, Default)]
pub struct FrameClock {
    /// Exponential average of the frame time, s (0 before the first frame).
    average_s: f32,
    /// Every frame time after the first, ms (at most about a million).
    frames_ms: Vec<f32>,
}

impl FrameClock {
    /// Records one frame that took `dt` seconds (the wall time since the last).
    pub fn tick(&mut self, dt: f32) {
        if !(dt.is_finite() && dt > 0.0) {
            return;
        }
        self.average_s = if self.average_s == 0.0 {
            dt
        } else {
            0.9 * self.average_s + 0.1 * dt
        };
        if self.frames_ms.len() < 1 << 20 {
            self.frames_ms.push(dt * 1000.0);
        }
    }

    /// Frames per second now (smoothed over about ten frames), 0 before any.
    pub fn fps(&self) -> f32 {
        if self.average_s > 0.0 {
            1.0 / self.average_s
        } else {
            0.0
        }
    }

    /// Median frame time, ms, leaving out the first five frames (pipelines are
    /// built then); `None` with too few frames.
    pub fn median_ms(&self) -> Option<f32> {
        let mut ms: Vec<f32> = self.frames_ms.iter().skip(5).copied().collect();
        if ms.is_empty() {
            return None;
        }
        ms.sort_by(f32::total_cmp);
        Some(ms[ms.len() / 2])
    }
}

/// The exit summary: frames, median frame time and rate, the last step's time,
/// the world's step count, and a note that the display's refresh rate caps the rate only when frames run
/// within 10 % of its period (`refresh_hz`: the monitor's rate, when known).
pub fn summary(
    frames: u64,
    median_ms: f32,
    step_ms: f32,
    steps: u64,
    refresh_hz: Option<f32>,
) -> String {
    let fps = 1000.0 / median_ms.max(1e-3);
    let capped = refresh_hz.is_some_and(|hz| hz > 0.0 && (fps - hz).abs() <= 0.1 * hz);
    let note = if capped {
        ", the display's refresh rate caps it"
    } else {
        ""
    };
    format!(
        "play: {frames} frames, median frame {median_ms:.2} ms ({fps:.1} fps{note}), last step {step_ms:.3} ms, world at step {steps}"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slow_frames_show_their_real_rate_not_a_floor_of_ten() {
        let mut c = FrameClock::default();
        for _ in 0..40 {
            c.tick(0.3);
        }
        assert!((c.fps() - 3.333).abs() < 0.01, "{}", c.fps());
        assert_eq!(c.median_ms(), Some(300.0));
    }

    #[test]
    fn the_rate_follows_a_change_within_a_few_dozen_frames() {
        let mut c = FrameClock::default();
        for _ in 0..100 {
            c.tick(1.0 / 60.0);
        }
        assert!((c.fps() - 60.0).abs() < 0.1);
        for _ in 0..40 {
            c.tick(0.1);
        }
        assert!((c.fps() - 10.0).abs() < 0.2, "{}", c.fps());
        c.tick(f32::NAN);
        c.tick(0.0);
        assert!(c.fps().is_finite());
    }

    #[test]
    fn the_refresh_note_appears_only_at_the_refresh_rate() {
        let at_60 = summary(100, 16.7, 0.5, 7, Some(60.0));
        assert!(at_60.contains("refresh rate caps it"), "{at_60}");
        let slow = summary(100, 333.0, 0.5, 7, Some(60.0));
        assert!(!slow.contains("refresh"), "{slow}");
        assert!(slow.contains("(3.0 fps)"), "{slow}");
        let unknown = summary(100, 16.7, 0.5, 7, None);
        assert!(!unknown.contains("refresh"), "{unknown}");
        assert!(unknown.ends_with("world at step 7"), "{unknown}");
    }
}
