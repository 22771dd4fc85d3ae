//! Where a player's progress lives: `progress.toml` in the user's data
//! directory (`$XDG_DATA_HOME/murmuration`, `~/.local/share/murmuration`; the
//! platform's equivalent elsewhere), or `$MURMURATION_DATA_DIR` when set — never
//! inside the repository. The player's key bindings are `keys.toml` beside it.
//! An unreadable file is kept aside, not overwritten.

use murmuration_game::keys::Keymap;
use murmuration_game::{Outcome, Progress};
use std::path::PathBuf;

/// The progress and the file it is saved to.
pub struct Store {
    /// Best results and open levels.
    pub progress: Progress,
    /// The key bindings (the defaults until the player rebinds one).
    pub keys: Keymap,
    path: Option<PathBuf>,
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

impl Store {
    /// Reads the saved progress (none yet: a fresh start).
    pub fn open() -> Self {
        let path = data_dir().map(|d| d.join("progress.toml"));
        let mut note = None;
        let progress = match path.as_ref().map(std::fs::read_to_string) {
            Some(Ok(text)) => match Progress::parse(&text) {
                Ok(p) => p,
                Err(e) => {
                    let p = path.as_ref().expect("read from it");
                    let aside = p.with_extension("toml.bad");
                    let kept = std::fs::rename(p, &aside).is_ok();
                    note = Some(format!(
                        "{} could not be read ({e}); {}a new one is started",
                        p.display(),
                        if kept {
                            format!("it is kept as {}; ", aside.display())
                        } else {
                            String::new()
                        }
                    ));
                    Progress::default()
                }
            },
            _ => Progress::default(),
        };
        let mut keys = Keymap::default();
        if let Some(kp) = path.as_ref().map(|p| p.with_file_name("keys.toml"))
            && let Ok(text) = std::fs::read_to_string(&kp)
        {
            match Keymap::parse(&text) {
                Ok(k) => keys = k,
                Err(e) => {
                    let aside = kp.with_extension("toml.bad");
                    let kept = std::fs::rename(&kp, &aside).is_ok();
                    note = Some(format!(
                        "{} could not be read ({e}); the default keys are used{}",
                        kp.display(),
                        if kept {
                            format!(" and it is kept as {}", aside.display())
                        } else {
                            String::new()
                        }
                    ));
                }
            }
        }
        if path.is_none() {
            note = Some("no data directory: progress and keys are not saved".into());
        }
        Self {
            progress,
            keys,
            path,
            note,
        }
    }

    /// Saves the key bindings (after a rebind in the pause menu).
    pub fn save_keys(&mut self) {
        let Some(path) = self.path.as_ref().map(|p| p.with_file_name("keys.toml")) else {
            return;
        };
        let saved = path
            .parent()
            .map_or(Ok(()), std::fs::create_dir_all)
            .and_then(|()| murmuration::write_atomic(&path, self.keys.to_text().as_bytes()));
        if let Err(e) = saved {
            self.note = Some(format!(
                "keys could not be saved to {}: {e}",
                path.display()
            ));
        }
    }

    /// Takes a finished level and saves when it is a new best; true then.
    pub fn record(&mut self, key: &str, outcome: &Outcome, time: f64) -> bool {
        let better = self.progress.record(key, outcome, time);
        if better && let Some(path) = &self.path {
            let saved = path
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| murmuration::write_atomic(path, self.progress.to_text().as_bytes()));
            if let Err(e) = saved {
                self.note = Some(format!(
                    "progress could not be saved to {}: {e}",
                    path.display()
                ));
            }
        }
        better
    }
}
