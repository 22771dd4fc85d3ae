//! The progress bar (steps/s, ETA; only drawn on a terminal) and the Ctrl-C flag.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::sync::Once;
use std::sync::atomic::{AtomicBool, Ordering};

static STOP: AtomicBool = AtomicBool::new(false);
static HANDLER: Once = Once::new();

/// Installs the Ctrl-C handler (once): it only raises a flag, so the run stops
/// between steps and finishes its outputs.
pub fn catch_ctrl_c() {
    HANDLER.call_once(|| {
        // Failing to install it (another handler exists) only loses the clean stop.
        let _ = ctrlc::set_handler(|| STOP.store(true, Ordering::SeqCst));
    });
}

/// True once Ctrl-C was pressed.
pub fn stop_requested() -> bool {
    STOP.load(Ordering::Relaxed)
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
