//! The window's key bindings: every keyboard action with the keys bound to it,
//! rebindable from the pause menu and saved by the app as `keys.toml` beside the
//! player's progress. Keys are named as the window names them: a character in
//! upper case (`W`, `E`) or a named key (`ArrowUp`, `Space`, `Escape`, `F11`).
//! The mouse's gestures (pointer, Shift-drag, right and double click) are fixed.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// An action a key can be bound to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Action {
    /// Move the focus up (held).
    FocusUp,
    /// Move the focus left (held).
    FocusLeft,
    /// Move the focus down (held).
    FocusDown,
    /// Move the focus right (held).
    FocusRight,
    /// A repel pulse at the pointer.
    Pulse,
    /// Recall the swarm to the focus.
    Recall,
    /// Open or close the pause menu.
    Pause,
    /// Start the level again.
    Restart,
    /// Fullscreen on and off.
    Fullscreen,
}

impl Action {
    /// Every action, in the order the pause menu lists them.
    pub const ALL: [Action; 9] = [
        Action::FocusUp,
        Action::FocusLeft,
        Action::FocusDown,
        Action::FocusRight,
        Action::Pulse,
        Action::Recall,
        Action::Pause,
        Action::Restart,
        Action::Fullscreen,
    ];

    /// What it does, as the pause menu says it.
    pub fn label(self) -> &'static str {
        match self {
            Action::FocusUp => "move the focus up",
            Action::FocusLeft => "move the focus left",
            Action::FocusDown => "move the focus down",
            Action::FocusRight => "move the focus right",
            Action::Pulse => "repel pulse (at the pointer)",
            Action::Recall => "recall the swarm",
            Action::Pause => "pause menu",
            Action::Restart => "restart the level",
            Action::Fullscreen => "fullscreen",
        }
    }

    /// Its keys before any rebinding.
    pub fn default_keys(self) -> &'static [&'static str] {
        match self {
            Action::FocusUp => &["W", "ArrowUp"],
            Action::FocusLeft => &["A", "ArrowLeft"],
            Action::FocusDown => &["S", "ArrowDown"],
            Action::FocusRight => &["D", "ArrowRight"],
            Action::Pulse => &["E"],
            Action::Recall => &["Space"],
            Action::Pause => &["Escape"],
            Action::Restart => &["R"],
            Action::Fullscreen => &["F11"],
        }
    }

    /// For the focus keys, which act while held rather than once per press:
    /// the direction they move the focus, 0 to 3 for up, left, down, right.
    pub fn held(self) -> Option<usize> {
        match self {
            Action::FocusUp => Some(0),
            Action::FocusLeft => Some(1),
            Action::FocusDown => Some(2),
            Action::FocusRight => Some(3),
            _ => None,
        }
    }
}

/// The mouse's gestures, fixed, as the pause menu lists them after the keys.
pub const MOUSE: [(&str, &str); 4] = [
    ("move the focus", "mouse"),
    ("draw a light path", "Shift + drag"),
    ("repel pulse", "right click"),
    ("recall the swarm", "double click"),
];

/// Why a key map cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum KeysError {
    /// Not TOML, or an unknown action.
    #[error("{0}")]
    Syntax(String),
    /// One key bound to two actions.
    #[error("key {key:?} is bound to both {first:?} and {second:?}")]
    Twice {
        /// The key.
        key: String,
        /// The two actions' names.
        first: String,
        /// The second.
        second: String,
    },
    /// An action left without a key (the pause menu must stay reachable).
    #[error("{action:?} has no key: every action keeps at least one")]
    Unbound {
        /// The action's name.
        action: String,
    },
    /// A name that is not a key.
    #[error("{key:?} is not a key name (a character such as \"Q\" or a named key such as \"Tab\")")]
    BadName {
        /// The name.
        key: String,
    },
}

/// Every action's keys. A key acts for at most one action; every action has one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct Keymap {
    keys: BTreeMap<Action, Vec<String>>,
}

impl Default for Keymap {
    fn default() -> Self {
        Self {
            keys: Action::ALL
                .iter()
                .map(|&a| (a, a.default_keys().iter().map(|k| k.to_string()).collect()))
                .collect(),
        }
    }
}

/// An action's name as written in `keys.toml` (`focus-up`).
fn name(a: Action) -> String {
    toml::Value::try_from(a)
        .ok()
        .and_then(|v| v.as_str().map(str::to_string))
        .unwrap_or_else(|| format!("{a:?}"))
}

impl Keymap {
    /// Reads `keys.toml`: a table of action names to key lists; actions it
    /// leaves out keep their default keys.
    pub fn parse(text: &str) -> Result<Self, KeysError> {
        let given: BTreeMap<Action, Vec<String>> =
            toml::from_str(text).map_err(|e| KeysError::Syntax(e.message().trim().to_string()))?;
        let mut map = Self::default();
        for (a, keys) in given {
            map.keys.insert(a, keys);
        }
        map.check()?;
        Ok(map)
    }

    /// The map as `keys.toml`.
    pub fn to_text(&self) -> String {
        toml::to_string(self).unwrap_or_default()
    }

    fn check(&self) -> Result<(), KeysError> {
        let mut owner: BTreeMap<&str, Action> = BTreeMap::new();
        for (&a, keys) in &self.keys {
            if keys.is_empty() {
                return Err(KeysError::Unbound { action: name(a) });
            }
            for k in keys {
                if k.is_empty() || k.chars().any(char::is_whitespace) || k.chars().count() > 24 {
                    return Err(KeysError::BadName { key: k.clone() });
                }
                if let Some(&first) = owner.get(k.as_str())
                    && first != a
                {
                    return Err(KeysError::Twice {
                        key: k.clone(),
                        first: name(first),
                        second: name(a),
                    });
                }
                owner.insert(k, a);
            }
        }
        Ok(())
    }

    /// The action `key` is bound to.
    pub fn action(&self, key: &str) -> Option<Action> {
        self.keys
            .iter()
            .find(|(_, keys)| keys.iter().any(|k| k == key))
            .map(|(&a, _)| a)
    }

    /// The keys bound to `action`.
    pub fn keys(&self, action: Action) -> &[String] {
        self.keys.get(&action).map_or(&[], Vec::as_slice)
    }

    /// Binds `key` to `action` alone, replacing the action's keys. An action
    /// the key is taken from keeps its other keys; one left with none gets the
    /// rebound action's old keys (the two swap), so none is ever unbound.
    pub fn rebind(&mut self, action: Action, key: &str) {
        let old = self.keys.insert(action, vec![key.to_string()]);
        let old: Vec<String> = old
            .unwrap_or_default()
            .into_iter()
            .filter(|k| k != key)
            .collect();
        for (&a, keys) in self.keys.iter_mut() {
            if a != action && keys.iter().any(|k| k == key) {
                keys.retain(|k| k != key);
                if keys.is_empty() {
                    keys.clone_from(&old);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_action_has_its_default_keys_and_a_key_finds_its_action() {
        let k = Keymap::default();
        assert_eq!(k.action("W"), Some(Action::FocusUp));
        assert_eq!(k.action("ArrowRight"), Some(Action::FocusRight));
        assert_eq!(k.action("Escape"), Some(Action::Pause));
        assert_eq!(k.action("Q"), None);
        assert!(Action::ALL.iter().all(|&a| !k.keys(a).is_empty()));
        assert_eq!(Keymap::parse(&k.to_text()), Ok(k));
    }

    #[test]
    fn a_rebound_key_leaves_its_old_action_which_is_never_left_unbound() {
        let mut k = Keymap::default();
        k.rebind(Action::Pulse, "Q");
        assert_eq!(k.action("Q"), Some(Action::Pulse));
        assert_eq!(k.action("E"), None, "the old key no longer pulses");
        // W was one of two focus-up keys: focus-up keeps the arrow.
        k.rebind(Action::Pulse, "W");
        assert_eq!(k.keys(Action::FocusUp), ["ArrowUp"]);
        assert_eq!(k.action("Q"), None);
        // R was restart's only key: restart takes recall's old key (a swap).
        k.rebind(Action::Recall, "R");
        assert_eq!(k.action("R"), Some(Action::Recall));
        assert_eq!(k.keys(Action::Restart), ["Space"]);
        assert!(Action::ALL.iter().all(|&a| !k.keys(a).is_empty()));
        let back = Keymap::parse(&k.to_text()).unwrap();
        assert_eq!(back, k);
    }

    #[test]
    fn a_bad_keys_file_names_what_is_wrong() {
        let e = Keymap::parse("pulse = [\"W\"]").unwrap_err();
        assert!(e.to_string().contains("\"W\" is bound to both"), "{e}");
        let e = Keymap::parse("jump = [\"J\"]").unwrap_err();
        assert!(e.to_string().contains("unknown variant `jump`"), "{e}");
        let e = Keymap::parse("pause = []").unwrap_err();
        assert_eq!(
            e,
            KeysError::Unbound {
                action: "pause".into()
            }
        );
        let e = Keymap::parse("pulse = [\"left arrow\"]").unwrap_err();
        assert!(matches!(e, KeysError::BadName { .. }), "{e}");
        assert_eq!(
            Keymap::parse("pulse = [\"Q\"]").unwrap().action("Q"),
            Some(Action::Pulse)
        );
    }
}
