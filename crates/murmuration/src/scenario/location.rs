//! Where a field sits in the file (line and column from its dotted path), and
//! overrides (`--set PATH=VALUE`) applied to the parsed document.

use toml::de::DeValue;

/// One step of a dotted field path: a key, or an index into an array.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Segment {
    Key(String),
    Index(usize),
}

/// Splits `species.fish.count` or `obstacles[2].center.x` into segments.
pub(crate) fn split_path(path: &str) -> Vec<Segment> {
    let mut out = Vec::new();
    for part in path.split('.').filter(|p| !p.is_empty()) {
        let (key, mut rest) = match part.find('[') {
            Some(i) => (&part[..i], &part[i..]),
            None => (part, ""),
        };
        if !key.is_empty() {
            out.push(Segment::Key(key.to_string()));
        }
        while let Some(stripped) = rest.strip_prefix('[') {
            let Some(end) = stripped.find(']') else { break };
            match stripped[..end].parse() {
                Ok(i) => out.push(Segment::Index(i)),
                Err(_) => out.push(Segment::Key(stripped[..end].to_string())),
            }
            rest = &stripped[end + 1..];
        }
    }
    out
}

/// Joins segments back into the dotted form.
pub(crate) fn join_path(segments: &[Segment]) -> String {
    let mut s = String::new();
    for seg in segments {
        match seg {
            Segment::Key(k) => {
                if !s.is_empty() {
                    s.push('.');
                }
                s.push_str(k);
            }
            Segment::Index(i) => s.push_str(&format!("[{i}]")),
        }
    }
    s
}

/// Byte span of the deepest part of `path` found in `text` (a vector axis `x`,
/// `y`, `z` indexes the array). `None` when the text does not parse.
pub(crate) fn span_of(text: &str, path: &[Segment]) -> Option<std::ops::Range<usize>> {
    let root = toml::de::DeTable::parse(text).ok()?;
    let mut span = 0..0;
    let root_value = DeValue::Table(root.into_inner());
    let mut node = &root_value;
    for seg in path {
        let next = match (seg, node) {
            (Segment::Key(k), DeValue::Table(_)) => node.get(k.as_str()),
            (Segment::Index(i), DeValue::Array(_)) => node.get(*i),
            (Segment::Key(k), DeValue::Array(_)) => match k.as_str() {
                "x" => node.get(0),
                "y" => node.get(1),
                "z" => node.get(2),
                _ => None,
            },
            _ => None,
        };
        match next {
            Some(v) => {
                span = v.span();
                node = v.get_ref();
            }
            None => break,
        }
    }
    Some(span)
}

/// 1-based line and column (in characters) of byte offset `at`.
pub(crate) fn line_column(text: &str, at: usize) -> (usize, usize) {
    let at = at.min(text.len());
    let at = (0..=at)
        .rev()
        .find(|&i| text.is_char_boundary(i))
        .unwrap_or(0);
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    (line, before[line_start..].chars().count() + 1)
}

/// Parses the value of an override: TOML syntax (`1.5`, `[1, 2]`, `"wrap"`,
/// `{ kind = "soft", margin = 2, strength = 10 }`), or else a bare word as a string.
pub(crate) fn parse_override_value(value: &str) -> toml::Value {
    let doc = format!("v = {value}");
    match toml::from_str::<toml::Table>(&doc) {
        Ok(mut t) => t.remove("v").expect("key v was just parsed"),
        Err(_) => toml::Value::String(value.to_string()),
    }
}

/// Sets `path` in `table` to `value`. Every part of the path but the last must
/// already exist (so a typo cannot create a new species); the last may be new
/// (an unknown key is then rejected like one written in the file).
pub(crate) fn set_path(
    table: &mut toml::Table,
    path: &[Segment],
    value: toml::Value,
) -> Result<(), String> {
    let mut root = toml::Value::Table(std::mem::take(table));
    let result = set_in(&mut root, path, value);
    if let toml::Value::Table(t) = root {
        *table = t;
    }
    result
}

fn set_in(root: &mut toml::Value, path: &[Segment], value: toml::Value) -> Result<(), String> {
    let Some((last, parents)) = path.split_last() else {
        return Err("the path is empty".into());
    };
    let mut node = root;
    for (i, seg) in parents.iter().enumerate() {
        let here = join_path(&path[..=i]);
        node = match (seg, node) {
            (Segment::Key(k), toml::Value::Table(t)) => t
                .get_mut(k)
                .ok_or_else(|| format!("{here} does not exist in the scenario"))?,
            (Segment::Index(n), toml::Value::Array(a)) => {
                let len = a.len();
                a.get_mut(*n)
                    .ok_or_else(|| format!("{here} does not exist (the list has {len} entries)"))?
            }
            _ => return Err(format!("{here} cannot be indexed that way")),
        };
    }
    match (last, node) {
        (Segment::Key(k), toml::Value::Table(t)) => {
            t.insert(k.clone(), value);
            Ok(())
        }
        (Segment::Index(n), toml::Value::Array(a)) if *n < a.len() => {
            a[*n] = value;
            Ok(())
        }
        (Segment::Key(k), toml::Value::Array(a)) if ["x", "y", "z"].contains(&k.as_str()) => {
            let i = ["x", "y", "z"].iter().position(|a| a == k).expect("listed");
            match a.get_mut(i) {
                Some(slot) => {
                    *slot = value;
                    Ok(())
                }
                None => Err(format!("{} has no {k} component", join_path(parents))),
            }
        }
        _ => Err(format!(
            "{} cannot be set: its parent is not a table or list",
            join_path(path)
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_split_and_join() {
        let p = split_path("obstacles[2].center.x");
        assert_eq!(
            p,
            vec![
                Segment::Key("obstacles".into()),
                Segment::Index(2),
                Segment::Key("center".into()),
                Segment::Key("x".into())
            ]
        );
        assert_eq!(join_path(&p), "obstacles[2].center.x");
    }

    #[test]
    fn spans_point_at_values() {
        let text = "[world]\nsize = [10, 20]\n\n[species.fish]\ncount = 5\n";
        let s = span_of(text, &split_path("species.fish.count")).unwrap();
        assert_eq!(&text[s.clone()], "5");
        assert_eq!(line_column(text, s.start), (5, 9));
        let s = span_of(text, &split_path("world.size.y")).unwrap();
        assert_eq!(&text[s], "20");
        // A missing leaf falls back to its deepest existing parent.
        let s = span_of(text, &split_path("species.fish.max_speed")).unwrap();
        assert!(text[s.clone()].contains("fish"), "{:?}", &text[s]);
    }
}
