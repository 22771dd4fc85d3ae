//! The modules of each crate import each other without circles (issue 15): a
//! module that names `crate::x` depends on `x`, and no chain of such
//! dependencies may come back to where it started. Test modules are left out.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Top-level module → the top-level modules its non-test code names.
fn graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let mut g: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut stack = vec![src.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            if p.extension().is_none_or(|x| x != "rs") {
                continue;
            }
            let rel = p.strip_prefix(src).unwrap();
            let top = rel.iter().next().unwrap().to_string_lossy();
            let module = top.trim_end_matches(".rs").to_string();
            if module == "lib" || module == "main" {
                continue;
            }
            let text = std::fs::read_to_string(&p).unwrap();
            let code = text.split("#[cfg(test)]").next().unwrap_or("");
            let deps = g.entry(module.clone()).or_default();
            for line in code.lines().filter(|l| !l.trim_start().starts_with("//")) {
                for (i, _) in line.match_indices("crate::") {
                    let name: String = line[i + 7..]
                        .chars()
                        .take_while(|c| c.is_ascii_lowercase() || *c == '_' || c.is_ascii_digit())
                        .collect();
                    if !name.is_empty() && name != module {
                        deps.insert(name);
                    }
                }
            }
        }
    }
    let names: BTreeSet<String> = g.keys().cloned().collect();
    for deps in g.values_mut() {
        deps.retain(|d| names.contains(d));
    }
    g
}

/// A circle through `from`, if there is one (depth-first search).
fn circle(g: &BTreeMap<String, BTreeSet<String>>, from: &str) -> Option<Vec<String>> {
    fn walk(
        g: &BTreeMap<String, BTreeSet<String>>,
        at: &str,
        from: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for d in &g[at] {
            if d == from {
                return true;
            }
            if seen.insert(d.clone()) {
                path.push(d.clone());
                if walk(g, d, from, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![from.to_string()];
    walk(g, from, from, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn no_crate_has_an_import_circle() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut checked = 0;
    for krate in [
        "murmuration",
        "murmuration-gpu",
        "murmuration-render",
        "murmuration-app",
    ] {
        let g = graph(&crates.join(krate).join("src"));
        assert!(g.len() > 5, "{krate}: too few modules found ({})", g.len());
        for m in g.keys() {
            if let Some(c) = circle(&g, m) {
                panic!("{krate}: import circle {} -> {m}", c.join(" -> "));
            }
            checked += 1;
        }
    }
    assert!(checked > 40, "only {checked} modules checked");
}

#[test]
fn the_check_finds_a_circle() {
    let g: BTreeMap<String, BTreeSet<String>> = [
        ("a", vec!["b"]),
        ("b", vec!["c"]),
        ("c", vec!["a"]),
        ("d", vec!["a"]),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.into_iter().map(String::from).collect()))
    .collect();
    assert_eq!(circle(&g, "a").unwrap(), ["a", "b", "c"]);
    assert_eq!(circle(&g, "d"), None);
}
