//! The shipped levels (`levels/*.toml`, embedded in the binary) and how a player
//! names one: its number, its key, or a file.

/// A shipped level: its key (`first-light`) and text.
#[derive(Clone, Copy, Debug)]
pub struct Shipped {
    /// Short name, used on the command line and in the progress file.
    pub key: &'static str,
    /// The level file.
    pub text: &'static str,
    /// Its recorded solution (`levels/solutions/KEY.replay`).
    pub solution: &'static str,
    /// Two recorded losses (`levels/losses/KEY-idle.replay`, `KEY-straight.replay`):
    /// a player who never moves, and one who holds the pointer on the exit.
    pub losses: [&'static str; 2],
}

/// A shipped level from its file stem (`3-the-mechanism`) and key: its text,
/// solution and two losses, embedded.
macro_rules! shipped {
    ($file:literal, $key:literal) => {
        Shipped {
            key: $key,
            text: include_str!(concat!("../../../levels/", $file, ".toml")),
            solution: include_str!(concat!("../../../levels/solutions/", $key, ".replay")),
            losses: [
                include_str!(concat!("../../../levels/losses/", $key, "-idle.replay")),
                include_str!(concat!("../../../levels/losses/", $key, "-straight.replay")),
            ],
        }
    };
}

/// The levels in play order; each teaches one idea.
pub const LEVELS: [Shipped; 10] = [
    shipped!("1-first-light", "first-light"),
    shipped!("2-night-hunters", "night-hunters"),
    shipped!("3-the-mechanism", "the-mechanism"),
    shipped!("4-two-hands", "two-hands"),
    shipped!("5-the-narrows", "the-narrows"),
    shipped!("6-the-lock", "the-lock"),
    shipped!("7-lightless", "lightless"),
    shipped!("8-the-great-swarm", "the-great-swarm"),
    shipped!("9-the-deep", "the-deep"),
    shipped!("10-the-last-light", "the-last-light"),
];

/// The shipped level `name` names: its number from 1 (`3`), its key
/// (`the-mechanism`), or its file name (`3-the-mechanism`); with its index.
pub fn find(name: &str) -> Option<(usize, &'static Shipped)> {
    let name = name.trim().trim_end_matches(".toml");
    if let Ok(n) = name.parse::<usize>() {
        return (1..=LEVELS.len())
            .contains(&n)
            .then(|| (n - 1, &LEVELS[n - 1]));
    }
    LEVELS
        .iter()
        .enumerate()
        .find(|(i, l)| l.key == name || format!("{}-{}", i + 1, l.key) == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_are_found_by_number_key_and_file_name() {
        assert_eq!(find("1").unwrap().1.key, "first-light");
        assert_eq!(find("night-hunters").unwrap().0, 1);
        assert_eq!(find("3-the-mechanism.toml").unwrap().1.key, "the-mechanism");
        assert_eq!(find("4").unwrap().1.key, "two-hands");
        assert_eq!(find("5-the-narrows").unwrap().0, 4);
        assert_eq!(find("10").unwrap().1.key, "the-last-light");
        assert!(find("0").is_none() && find("11").is_none() && find("nope").is_none());
    }
}
