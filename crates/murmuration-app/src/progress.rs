//! The progress bar (steps/s, ETA; only drawn on a terminal) and the stop flag
//! raised by Ctrl-C (SIGINT) or SIGTERM.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, LazyLock, Once};

/// The signal that asked the run to stop (0 while none did).
static STOP: LazyLock<Arc<AtomicUsize>> = LazyLock::new(|| Arc::new(AtomicUsize::new(0)));
static HANDLER: Once = Once::new();

/// Installs the handlers for Ctrl-C and SIGTERM (once): they only record the
/// signal, so the run stops between steps and finishes its outputs.
pub fn catch_ctrl_c() {
    HANDLER.call_once(|| {
        for signal in [signal_hook::consts::SIGINT, signal_hook::consts::SIGTERM] {
            // Failing to install one only loses the clean stop on that signal.
            let _ = signal_hook::flag::register_usize(signal, Arc::clone(&STOP), signal as usize);
        }
    });
}

/// True once Ctrl-C or SIGTERM arrived.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed) != 0
}

/// The exit code of a run stopped by a signal: 128 + the signal (130 for Ctrl-C,
/// 143 for SIGTERM), the shell's convention.
pub fn stopped_exit_code() -> u8 {
    match STOP.load(Ordering::Relaxed) {
        0 => 128 + signal_hook::consts::SIGINT as u8,
        s => 128 + s as u8,
    }
}

/// A bar on stderr over `len` units of work (`unit` names them), hidden when
/// stderr is not a terminal or `hidden` is set.
pub fn bar(len: u64, unit: &str, hidden: bool) -> ProgressBar {
    let target = if hidden {
        ProgressDrawTarget::hidden()
    } else {
        ProgressDrawTarget::stderr()
    };
    let bar = ProgressBar::with_draw_target(Some(len), target);
    let template = format!("{{bar:40.cyan/blue}} {{pos}}/{{len}} {unit}  {{per_sec}}  ETA {{eta}}");
    bar.set_style(
        ProgressStyle::with_template(&template)
            .expect("the template is valid")
            .progress_chars("=> "),
    );
    bar
}

/// Whether any of parallel jobs (each `Ok(false)` when a stop request cut it
/// short) was stopped; the first error if one failed.
pub fn any_stopped(results: Vec<anyhow::Result<bool>>) -> anyhow::Result<bool> {
    let mut stopped = false;
    for r in results {
        stopped |= !r?;
    }
    Ok(stopped)
}
