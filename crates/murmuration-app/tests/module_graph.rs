//! The modules of every crate import each other without circles (issues 15 and
//! 45): a top-level module (a file or a folder beside the crate root) that
//! names `crate::x` depends on `x`; `crate::{x::A, y}` names `x` and `y`; and
//! `crate::Type` names the module the crate root re-exports `Type` from. No
//! chain of such dependencies may come back to where it started, so each
//! crate's folders form layers. Inside each folder the same holds for its
//! modules (`crate::folder::x`, `super::x`). Test modules and comments are
//! left out.
//!
//! Also here, the other rule of the house that reading the tree can check: no
//! function outside the SIMD kernel runs over about a hundred lines.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

/// Every crate of the workspace (the test fails if one is added unlisted).
const CRATES: [&str; 10] = [
    "murmuration",
    "murmuration-gpu",
    "murmuration-render",
    "murmuration-game",
    "murmuration-app",
    "bevy_murmuration",
    "murmuration-py",
    "murmuration-web",
    "murmuration-webgpu",
    "murmuration-bindgen",
];

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Every `.rs` file below `dir`.
fn rust_files(dir: &Path) -> Vec<std::path::PathBuf> {
    let (mut files, mut stack) = (Vec::new(), vec![dir.to_path_buf()]);
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                files.push(p);
            }
        }
    }
    files
}

/// The code of a file without its test module and comment lines.
fn code(text: &str) -> String {
    let body = text.split("#[cfg(test)]").next().unwrap_or("");
    body.lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The first path segment of each item of the use tree at the start of `s`
/// (the text right after `crate::`): `x::A` gives `x`, `{x::A, y as z}` gives
/// `x` and `y`.
fn first_segments(s: &str) -> Vec<String> {
    let ident = |t: &str| -> String {
        t.trim_start()
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect()
    };
    let Some(inner) = s.strip_prefix('{') else {
        return vec![ident(s)];
    };
    let (mut depth, mut start, mut out) = (0usize, 0usize, Vec::new());
    for (i, c) in inner.char_indices() {
        match c {
            '{' => depth += 1,
            '}' if depth == 0 => {
                out.push(ident(&inner[start..i]));
                break;
            }
            '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(ident(&inner[start..i]));
                start = i + 1;
            }
            _ => {}
        }
    }
    out.retain(|s| !s.is_empty());
    out
}

/// Every name a piece of code reaches through `crate::`.
fn crate_names(code: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (i, _) in code.match_indices("crate::") {
        let before = code[..i].chars().next_back();
        if before.is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$') {
            continue;
        }
        names.extend(first_segments(&code[i + 7..]));
    }
    names
}

/// Names the crate root (`lib.rs` or `main.rs`) brings in with `use`, mapped to
/// the top-level module they come from: `pub use world::{World, spawn::Spawn}`
/// maps `World` and `Spawn` to `world`; `use a::b::{self}` maps `b` to `a`.
fn root_names(root: &str) -> BTreeMap<String, String> {
    let mut map = BTreeMap::new();
    for stmt in code(root).split(';') {
        let s = stmt.trim();
        let Some(at) = s.find("use ") else { continue };
        let head = s[..at].trim();
        if !head.is_empty() && !head.starts_with("pub") {
            continue;
        }
        let tree = s[at + 4..].trim().trim_start_matches("crate::");
        let mut leaves = Vec::new();
        use_leaves("", tree, &mut leaves);
        for (path, name) in leaves {
            let module = path.split("::").next().unwrap_or("").to_string();
            if !name.is_empty() && name != module {
                map.insert(name, module);
            }
        }
    }
    map
}

/// Each leaf of a use tree: its full path and the name it brings in (its last
/// segment, its alias, or for `self` the module before it).
fn use_leaves(prefix: &str, tree: &str, out: &mut Vec<(String, String)>) {
    let tree = tree.trim();
    if let Some(open) = tree.find('{') {
        let head = format!("{prefix}{}", &tree[..open]);
        let inner = &tree[open + 1..tree.rfind('}').unwrap_or(tree.len())];
        let (mut depth, mut start) = (0usize, 0usize);
        for (i, c) in inner.char_indices() {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                ',' if depth == 0 => {
                    use_leaves(&head, &inner[start..i], out);
                    start = i + 1;
                }
                _ => {}
            }
        }
        use_leaves(&head, &inner[start..], out);
        return;
    }
    if tree.is_empty() {
        return;
    }
    let (path, alias) = match tree.split_once(" as ") {
        Some((p, a)) => (p.trim(), Some(a.trim())),
        None => (tree, None),
    };
    let full = format!("{prefix}{path}");
    let name = match (alias, path) {
        (Some(a), _) => a.to_string(),
        (None, "self") => prefix
            .trim_end_matches("::")
            .rsplit("::")
            .next()
            .unwrap_or("")
            .to_string(),
        (None, p) => p.rsplit("::").next().unwrap_or(p).to_string(),
    };
    out.push((full, name));
}

/// Top-level module → the top-level modules its non-test code names.
fn graph(src: &Path) -> Graph {
    let root = ["lib.rs", "main.rs"]
        .iter()
        .filter_map(|f| std::fs::read_to_string(src.join(f)).ok())
        .collect::<Vec<_>>()
        .join("\n");
    let reexports = root_names(&root);
    let mut g = Graph::new();
    for p in rust_files(src) {
        let rel = p.strip_prefix(src).unwrap();
        let top = rel.iter().next().unwrap().to_string_lossy();
        let module = top.trim_end_matches(".rs").to_string();
        if module == "lib" || module == "main" {
            continue;
        }
        let text = std::fs::read_to_string(&p).unwrap();
        let deps = g.entry(module.clone()).or_default();
        for name in crate_names(&code(&text)) {
            let target = reexports.get(&name).cloned().unwrap_or(name);
            if target != module {
                deps.insert(target);
            }
        }
    }
    let names: BTreeSet<String> = g.keys().cloned().collect();
    for deps in g.values_mut() {
        deps.retain(|d| names.contains(d));
    }
    g
}

/// For each folder of the crate, its modules → the modules of the same folder
/// their non-test code names (`crate::folder::x`, or `super::x` from a file
/// directly in the folder).
fn folder_graphs(src: &Path) -> BTreeMap<String, Graph> {
    let mut all = BTreeMap::new();
    for e in std::fs::read_dir(src).unwrap() {
        let dir = e.unwrap().path();
        if !dir.is_dir() {
            continue;
        }
        let folder = dir.file_name().unwrap().to_string_lossy().into_owned();
        let mut g = Graph::new();
        for p in rust_files(&dir) {
            let rel = p.strip_prefix(&dir).unwrap();
            let child = rel.iter().next().unwrap().to_string_lossy();
            let child = child.trim_end_matches(".rs").to_string();
            if child == "mod" {
                continue;
            }
            let code = code(&std::fs::read_to_string(&p).unwrap());
            let mut names = Vec::new();
            let prefix = format!("crate::{folder}::");
            for (i, _) in code.match_indices(&prefix) {
                names.extend(first_segments(&code[i + prefix.len()..]));
            }
            if rel.iter().count() == 1 {
                for (i, _) in code.match_indices("super::") {
                    names.extend(first_segments(&code[i + 7..]));
                }
            }
            let deps = g.entry(child.clone()).or_default();
            deps.extend(names.into_iter().filter(|n| *n != child));
        }
        let names: BTreeSet<String> = g.keys().cloned().collect();
        for deps in g.values_mut() {
            deps.retain(|d| names.contains(d));
        }
        all.insert(folder, g);
    }
    all
}

/// A circle through `from`, if there is one (depth-first search).
fn circle(g: &Graph, from: &str) -> Option<Vec<String>> {
    fn walk(
        g: &Graph,
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
    let on_disk: BTreeSet<String> = std::fs::read_dir(crates)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| crates.join(n).join("Cargo.toml").exists())
        .collect();
    let listed: BTreeSet<String> = CRATES.iter().map(|c| c.to_string()).collect();
    assert_eq!(on_disk, listed, "every crate is checked");
    let mut circles = Vec::new();
    let mut checked = 0;
    for krate in CRATES {
        let src = crates.join(krate).join("src");
        let g = graph(&src);
        // A crate of one file (a small tool's main.rs) has no modules to order.
        let one_file = rust_files(&src).len() == 1;
        assert!(!g.is_empty() || one_file, "{krate}: no modules found");
        for m in g.keys() {
            if let Some(c) = circle(&g, m) {
                circles.push(format!("{krate}: {} -> {m}", c.join(" -> ")));
            }
            checked += 1;
        }
        for (folder, g) in folder_graphs(&crates.join(krate).join("src")) {
            for m in g.keys() {
                if let Some(c) = circle(&g, m) {
                    circles.push(format!("{krate}/{folder}: {} -> {m}", c.join(" -> ")));
                }
                checked += 1;
            }
        }
    }
    assert!(
        circles.is_empty(),
        "import circles:\n{}",
        circles.join("\n")
    );
    assert!(checked > 60, "only {checked} modules checked");
}

#[test]
fn the_check_finds_a_circle() {
    let g: Graph = [
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

#[test]
fn braces_and_reexported_types_are_seen() {
    let code = "use crate::{world::World, metrics,\n  grid::{Extent, Grid}};\nfn f(w: &crate::World<V>) { crate::x::y(); }";
    assert_eq!(
        crate_names(code),
        ["world", "metrics", "grid", "World", "x"]
    );
    let root = "mod world;\npub use world::{World, spawn::Spawn as S};\npub use params::model::{self, Model};\nuse glam;";
    let map = root_names(root);
    assert_eq!(map["World"], "world");
    assert_eq!(map["S"], "world");
    assert_eq!(map["model"], "params");
    assert_eq!(map["Model"], "params");
}

/// The longest a function may be, in lines from its `fn` to its closing brace
/// ("about a hundred": split by section beyond that).
const MAX_FUNCTION_LINES: usize = 110;

/// The SIMD kernel's loops, kept whole on purpose: each is one hot loop whose
/// parts share registers (file, function).
const KERNEL: [(&str, &str); 3] = [
    ("murmuration/src/step/kernel.rs", "accumulate"),
    ("murmuration/src/step/focus.rs", "group_sums"),
    ("murmuration/src/step/topological.rs", "accumulate"),
];

/// Every function of `text` longer than `max` lines: (name, first line, lines).
/// A function ends at the first line that closes a brace at its own indent.
fn long_functions(text: &str, max: usize) -> Vec<(String, usize, usize)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    for (i, l) in lines.iter().enumerate() {
        let t = l.trim_start();
        let indent = l.len() - t.len();
        let t = t
            .trim_start_matches("pub(crate) ")
            .trim_start_matches("pub(super) ")
            .trim_start_matches("pub ")
            .trim_start_matches("const ")
            .trim_start_matches("unsafe ")
            .trim_start_matches("extern \"C\" ");
        let Some(rest) = t.strip_prefix("fn ") else {
            continue;
        };
        if l.trim_end().ends_with(';') {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
            .collect();
        let close = " ".repeat(indent) + "}";
        let end = lines[i + 1..]
            .iter()
            .position(|x| x.starts_with(&close) && !x[indent..].starts_with(" "))
            .map_or(lines.len(), |k| i + 1 + k);
        let n = end - i + 1;
        if n > max {
            out.push((name, i + 1, n));
        }
    }
    out
}

#[test]
fn no_function_outside_the_kernel_runs_over_a_hundred_lines() {
    let crates = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let root = crates.parent().unwrap();
    let mut dirs: Vec<_> = CRATES.iter().map(|c| crates.join(c).join("src")).collect();
    dirs.push(root.join("xtask/src"));
    let (mut long, mut files) = (Vec::new(), 0);
    for p in dirs.iter().flat_map(|d| rust_files(d)) {
        files += 1;
        let rel = p
            .strip_prefix(crates)
            .unwrap_or(&p)
            .to_string_lossy()
            .into_owned();
        let text = std::fs::read_to_string(&p).unwrap();
        for (name, line, n) in long_functions(&text, MAX_FUNCTION_LINES) {
            if !KERNEL.contains(&(rel.as_str(), name.as_str())) {
                long.push(format!("{rel}:{line}: fn {name} is {n} lines"));
            }
        }
    }
    assert!(files > 100, "only {files} files read");
    assert!(
        long.is_empty(),
        "split these by section (at most {MAX_FUNCTION_LINES} lines):\n{}",
        long.join("\n")
    );
}

#[test]
fn the_length_check_finds_a_long_function() {
    let body = "    let x = 1;\n".repeat(120);
    let text = format!("fn short() {{\n}}\n\npub(crate) fn long() {{\n{body}}}\n");
    assert_eq!(long_functions(&text, 110), [("long".to_string(), 4, 122)]);
    assert!(long_functions(&text, 130).is_empty());
}
