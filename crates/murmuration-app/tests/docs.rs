//! The documents stay true: `docs/CLI.md` is the binary's own help, and every link
//! in the root's and `docs/`'s Markdown resolves to a file and, for `#anchors`, a
//! heading. `MURMURATION_BLESS=1` rewrites `docs/CLI.md` from the help.

mod common;

use common::{bin, ok};
use pulldown_cmark::{Event, Parser, Tag, TagEnd};
use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

/// The repository's root (two folders above this crate).
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

/// The text of `murmuration ARGS --help`, wrapped as clap wraps it off a terminal.
fn help(args: &[&str]) -> String {
    let mut c = bin();
    c.args(args).arg("--help").env("COLUMNS", "100");
    ok(&mut c)
}

/// The names under the "Commands:" heading of a help text, `help` left out.
fn commands(help: &str) -> Vec<String> {
    help.lines()
        .skip_while(|l| l.trim() != "Commands:")
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("    "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|name| *name != "help")
        .map(str::to_string)
        .collect()
}

/// `docs/CLI.md` as the binary's help makes it: the top level, then each command
/// (and each command's own commands) in the order `--help` lists them.
fn cli_reference() -> String {
    let mut md = String::from(
        "# Command-line reference\n\n\
         Every command's `--help`, as `murmuration` prints it. This file is generated: \
         `MURMURATION_BLESS=1 cargo test -p murmuration-app --test docs` rewrites it, and \
         that test fails when it and the binary differ. Scenario files: \
         [SCENARIOS.md](SCENARIOS.md); metrics: [METRICS.md](METRICS.md).\n",
    );
    let mut queue: Vec<Vec<String>> = vec![vec![]];
    while let Some(path) = queue.pop() {
        let args: Vec<&str> = path.iter().map(String::as_str).collect();
        let text = help(&args);
        let title = std::iter::once("murmuration")
            .chain(args.iter().copied())
            .collect::<Vec<_>>();
        md.push_str(&format!(
            "\n## `{}`\n\n```text\n{}```\n",
            title.join(" "),
            text
        ));
        // Depth first, in the listed order.
        for name in commands(&text).into_iter().rev() {
            let mut next = path.clone();
            next.push(name);
            queue.push(next);
        }
    }
    md
}

#[test]
fn cli_reference_is_the_binarys_help() {
    let path = root().join("docs/CLI.md");
    let want = cli_reference();
    if std::env::var_os("MURMURATION_BLESS").is_some() {
        std::fs::write(&path, &want).unwrap();
        eprintln!("blessed {}", path.display());
        return;
    }
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    if have != want {
        let line = have
            .lines()
            .zip(want.lines())
            .position(|(a, b)| a != b)
            .unwrap_or_else(|| have.lines().count().min(want.lines().count()));
        panic!(
            "docs/CLI.md differs from the binary's help from line {} \
             (MURMURATION_BLESS=1 cargo test -p murmuration-app --test docs rewrites it):\n\
             file:   {:?}\nbinary: {:?}",
            line + 1,
            have.lines().nth(line),
            want.lines().nth(line),
        );
    }
}

#[test]
fn cli_reference_lists_every_command() {
    let reference = cli_reference();
    for command in [
        "run", "check", "sweep", "ladder", "analyse", "render", "bench", "game", "web", "play",
    ] {
        assert!(
            reference.contains(&format!("## `murmuration {command}`")),
            "no section for {command}"
        );
    }
}

/// GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens.
fn slug(heading: &str) -> String {
    heading
        .trim()
        .to_lowercase()
        .chars()
        .filter_map(|c| match c {
            ' ' => Some('-'),
            c if c.is_alphanumeric() || c == '-' || c == '_' => Some(c),
            _ => None,
        })
        .collect()
}

/// A Markdown file's links (with their line) and its headings' anchors.
struct Document {
    links: Vec<(usize, String)>,
    anchors: Vec<String>,
}

/// GitHub's Markdown: tables, footnotes, strikethrough, task lists.
fn gfm() -> pulldown_cmark::Options {
    use pulldown_cmark::Options;
    Options::ENABLE_TABLES
        | Options::ENABLE_FOOTNOTES
        | Options::ENABLE_STRIKETHROUGH
        | Options::ENABLE_TASKLISTS
        | Options::ENABLE_GFM
}

fn read_document(text: &str) -> Document {
    let line_of = |offset: usize| text[..offset].matches('\n').count() + 1;
    let mut links = Vec::new();
    let mut anchors = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    let mut heading: Option<String> = None;
    for (event, range) in Parser::new_ext(text, gfm()).into_offset_iter() {
        match event {
            Event::Start(Tag::Link { dest_url, .. } | Tag::Image { dest_url, .. }) => {
                links.push((line_of(range.start), dest_url.to_string()));
            }
            Event::Start(Tag::Heading { .. }) => heading = Some(String::new()),
            Event::Text(t) | Event::Code(t) => {
                if let Some(h) = heading.as_mut() {
                    h.push_str(&t);
                }
            }
            Event::End(TagEnd::Heading(_)) => {
                let base = slug(&heading.take().unwrap_or_default());
                let n = seen.entry(base.clone()).or_insert(0);
                anchors.push(if *n == 0 {
                    base.clone()
                } else {
                    format!("{base}-{n}")
                });
                *n += 1;
            }
            _ => {}
        }
    }
    Document { links, anchors }
}

/// The documents whose links are held: the root's Markdown and everything in `docs/`.
fn documents() -> Vec<PathBuf> {
    let root = root();
    let mut files = Vec::new();
    for dir in [root.clone(), root.join("docs")] {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_some_and(|e| e == "md") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

#[test]
fn every_link_in_the_documents_resolves() {
    let root = root();
    let docs: BTreeMap<PathBuf, Document> = documents()
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap();
            (p, read_document(&text))
        })
        .collect();
    assert!(docs.len() >= 10, "found only {} documents", docs.len());
    let mut broken = Vec::new();
    for (file, doc) in &docs {
        let name = file.strip_prefix(&root).unwrap().display().to_string();
        for (line, link) in &doc.links {
            if link.contains("://") || link.starts_with("mailto:") {
                continue; // the outside world is not checked (no network here)
            }
            let (target, anchor) = link.split_once('#').unwrap_or((link.as_str(), ""));
            let target = if target.is_empty() {
                file.clone()
            } else {
                file.parent().unwrap().join(target)
            };
            let Ok(target) = target.canonicalize() else {
                broken.push(format!("{name}:{line}: {link}: no such file"));
                continue;
            };
            if !target.starts_with(&root) {
                broken.push(format!("{name}:{line}: {link}: outside the repository"));
                continue;
            }
            if anchor.is_empty() || target.extension().is_none_or(|e| e != "md") {
                continue;
            }
            let read;
            let anchors = match docs.get(&target) {
                Some(d) => &d.anchors,
                None => {
                    read = read_document(&std::fs::read_to_string(&target).unwrap());
                    &read.anchors
                }
            };
            if !anchors.iter().any(|a| a == anchor) {
                broken.push(format!(
                    "{name}:{line}: {link}: no heading with that anchor"
                ));
            }
        }
    }
    assert!(broken.is_empty(), "broken links:\n{}", broken.join("\n"));
}

#[test]
fn the_link_reader_skips_code_and_numbers_repeated_headings() {
    let doc = read_document(
        "# Top — a `code` title\n\n## Top — a `code` title\n\n[a](x.md#top--a-code-title) ```[no](y)```\n\n    [no](z)\n",
    );
    assert_eq!(doc.anchors, ["top--a-code-title", "top--a-code-title-1"]);
    assert_eq!(doc.links, [(5, "x.md#top--a-code-title".to_string())]);
}

/// Code with its `//` comments, whitespace and trailing commas taken out, so a block
/// in a document compares with the same code as rustfmt lays it out.
fn normalised(code: &str) -> String {
    let code: String = code
        .lines()
        .map(|l| l.split_once("//").map_or(l, |(code, _)| code))
        .collect::<Vec<_>>()
        .join("\n");
    let mut s: String = code.chars().filter(|c| !c.is_whitespace()).collect();
    for (from, to) in [(",}", "}"), (",)", ")"), (",]", "]")] {
        s = s.replace(from, to);
    }
    s
}

/// The first ```rust block of a document that starts with `first_line`.
fn rust_block(doc: &str, first_line: &str) -> String {
    let start = doc
        .find(&format!("```rust\n{first_line}"))
        .unwrap_or_else(|| panic!("no ```rust block starting {first_line:?}"));
    let body = &doc[start + "```rust\n".len()..];
    body[..body.find("```").unwrap()].to_string()
}

#[test]
fn the_guides_examples_are_the_compiled_examples() {
    let root = root();
    for (doc, first_line, example) in [
        (
            "README.md",
            "use murmuration::glam::Vec2;",
            "crates/murmuration/examples/quickstart.rs",
        ),
        (
            "docs/LIBRARY.md",
            "use murmuration::{Attractor",
            "crates/murmuration/examples/tour.rs",
        ),
        (
            "docs/BEVY.md",
            "use bevy::prelude::*;",
            "examples/bevy-window/src/bin/smallest.rs",
        ),
    ] {
        let block = rust_block(
            &std::fs::read_to_string(root.join(doc)).unwrap(),
            first_line,
        );
        let file = std::fs::read_to_string(root.join(example)).unwrap();
        let file = normalised(&file);
        let (uses, body): (Vec<&str>, Vec<&str>) =
            block.lines().partition(|l| l.starts_with("use "));
        let uses: Vec<String> = uses.iter().map(|u| normalised(u)).collect();
        for u in &uses {
            assert!(file.contains(u.as_str()), "{doc}'s {u} is not in {example}");
        }
        let body = normalised(&body.join("\n"));
        assert!(
            file.contains(&body),
            "{doc}'s example is not {example}'s main (normalised):\n{body}\n{file}"
        );
    }
}

#[test]
fn the_front_documents_stay_short() {
    // A README read in five minutes, one page of architecture, today's figures.
    for (doc, most) in [
        ("README.md", 220),
        ("ARCHITECTURE.md", 260),
        ("BENCHMARKS.md", 500),
    ] {
        let lines = std::fs::read_to_string(root().join(doc))
            .unwrap()
            .lines()
            .count();
        assert!(
            lines <= most,
            "{doc} has {lines} lines (at most {most}): move detail into docs/ or a module's doc comment"
        );
    }
}
