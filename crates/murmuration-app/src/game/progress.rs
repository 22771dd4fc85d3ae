//! Where a player's progress lives: `progress.toml` in the user's data
//! directory (`$XDG_DATA_HOME/murmuration`, `~/.local/share/murmuration`; the
//! platform's equivalent elsewhere), or `$MURMURATION_DATA_DIR` when set — never
//! inside the repository. The player's key bindings are `keys.toml` beside it.
//! An unreadable file is kept aside, not overwritten.

use murmuration_game::keys::Keymap;
use murmuration_game::{Outcome, Progress};
use std::path::{Path, PathBuf};

/// The progress, the key bindings and the directory they are saved in.
pub struct Store {
    /// Best results and open levels.
    pub progress: Progress,
    /// The key bindings (the defaults until the player rebinds one).
    pub keys: Keymap,
    dir: Option<PathBuf>,
    /// Something the title screen should say once (an unreadable or unwritable file).
    pub note: Option<String>,
}

/// The directory progress is saved in.
fn data_dir() -> Option<PathBuf> {
    match std::env::var_os("MURMURATION_DATA_DIR") {
        Some(d) if !d.is_empty() => Some(PathBuf::from(d)),
        _ => dirs::data_dir().map(|d| d.join("murmuration")),
    }
}

const PROGRESS: &str = "progress.toml";
const KEYS: &str = "keys.toml";

/// Reads `dir/name` with `parse`; none there (or no directory) is `None`. An
/// unreadable one is renamed `name.bad` and said in `note`.
fn read<T, E: std::fmt::Display>(
    dir: Option<&Path>,
    name: &str,
    parse: impl Fn(&str) -> Result<T, E>,
    note: &mut Option<String>,
) -> Option<T> {
    let path = dir?.join(name);
    let text = std::fs::read_to_string(&path).ok()?;
    match parse(&text) {
        Ok(v) => Some(v),
        Err(e) => {
            let aside = path.with_extension("toml.bad");
            let kept = std::fs::rename(&path, &aside).is_ok();
            let said = format!(
                "{} could not be read ({e}); the defaults are used{}",
                path.display(),
                if kept {
                    format!(" and it is kept as {}", aside.display())
                } else {
                    String::new()
                }
            );
            *note = Some(note.take().map_or(said.clone(), |n| format!("{n}; {said}")));
            None
        }
    }
}

impl Store {
    /// Reads the saved progress and keys (none yet: a fresh start).
    pub fn open() -> Self {
        let dir = data_dir();
        let mut note = None;
        let progress = read(dir.as_deref(), PROGRESS, Progress::parse, &mut note);
        let keys = read(dir.as_deref(), KEYS, Keymap::parse, &mut note);
        if dir.is_none() {
            note = Some("no data directory: progress and keys are not saved".into());
        }
        Self {
            progress: progress.unwrap_or_default(),
            keys: keys.unwrap_or_default(),
            dir,
            note,
        }
    }

    /// Writes `text` to `name` in the data directory, atomically; a failure is
    /// said in the note.
    fn save(&mut self, name: &str, text: &str) {
        let Some(dir) = &self.dir else { return };
        let path = dir.join(name);
        let saved = std::fs::create_dir_all(dir)
            .and_then(|()| murmuration::write_atomic(&path, text.as_bytes()));
        if let Err(e) = saved {
            self.note = Some(format!("{} could not be saved: {e}", path.display()));
        }
    }

    /// Saves the key bindings (after a rebind in the pause menu).
    pub fn save_keys(&mut self) {
        let text = self.keys.to_text();
        self.save(KEYS, &text);
    }

    /// Takes a finished level and saves when it is a new best; true then.
    pub fn record(&mut self, key: &str, outcome: &Outcome) -> bool {
        let better = self.progress.record(key, outcome);
        if better {
            let text = self.progress.to_text();
            self.save(PROGRESS, &text);
        }
        better
    }
}
