//! The simulator's folder layering, read from `src/`: the exchange core (`exchange/`) names no
//! other layer; the scenario tools (`scenario/`) name the core only; the wire front-ends
//! (`wire/`) name the core and the scenario tools; the front door (`lib.rs`, `builder.rs`,
//! `handle.rs`, `server.rs` and the binary's `main.rs`) sits on top and may name them all.
//!
//! An edge is a `crate::<name>` in code under `src/<layer>/`, comments (`//` to the end of the
//! line) left out; unit tests count too. A `<name>` that is not a layer's folder (a module of
//! the front door, or a name the crate root re-exports) is the front door. Inside a layer a
//! file names its siblings with `super::`; a `super::super` (which would climb out of the
//! layer unseen) and a `crate::{…}` group (which would hide its edges) fail the check.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

/// The layers, bottom first, with the layers each may name besides itself.
const LAYERS: [(&str, &[&str]); 3] = [
    ("exchange", &[]),
    ("scenario", &["exchange"]),
    ("wire", &["exchange", "scenario"]),
];

/// What names the front door in an edge.
const FRONT: &str = "front door";

/// The layers a piece of code names through `crate::` (a name that is no layer is
/// [`FRONT`]), or the line that hides an edge from this scan.
fn crate_paths(code: &str) -> Result<BTreeSet<&'static str>, String> {
    let mut names = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        if line.contains("super::super") {
            return Err(format!("`super::super` climbs out of the layer: {line}"));
        }
        for (at, _) in line.match_indices("crate::") {
            let before = line[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `my_crate::` is another path
            }
            let rest = &line[at + "crate::".len()..];
            if rest.starts_with('{') {
                return Err(format!("write one `crate::` path per layer: {line}"));
            }
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            let name = &rest[..end];
            let layer = LAYERS.iter().map(|(l, _)| *l).find(|l| *l == name);
            names.insert(layer.unwrap_or(FRONT));
        }
    }
    Ok(names)
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read a source directory") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Each layer's edges (file → the other layers its code names), and what breaks the rules.
fn check(src: &Path) -> (BTreeMap<&'static str, BTreeSet<&'static str>>, Vec<String>) {
    let mut edges: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    let mut broken = Vec::new();
    for (layer, may) in LAYERS {
        let mut files = Vec::new();
        let dir = src.join(layer);
        if dir.is_dir() {
            rust_files(&dir, &mut files);
        }
        files.sort();
        for f in files {
            let rel = f
                .strip_prefix(src)
                .expect("under src/")
                .display()
                .to_string();
            let code = fs::read_to_string(&f).expect("read a source file");
            let names = match crate_paths(&code) {
                Ok(names) => names,
                Err(e) => {
                    broken.push(format!("{rel}: {e}"));
                    continue;
                }
            };
            for name in names.into_iter().filter(|n| *n != layer) {
                edges.entry(layer).or_default().insert(name);
                if !may.contains(&name) {
                    broken.push(format!("{rel} ({layer}) names the {name}"));
                }
            }
        }
    }
    (edges, broken)
}

#[test]
fn layers_import_downward_only() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let (edges, broken) = check(&src);
    // The edges that must exist: an empty or misread tree must not pass.
    for (from, to) in [
        ("scenario", "exchange"),
        ("wire", "exchange"),
        ("wire", "scenario"),
    ] {
        assert!(
            edges.get(from).is_some_and(|e| e.contains(to)),
            "expected {from} to name {to}: {edges:?}"
        );
    }
    assert!(broken.is_empty(), "layering broken: {broken:#?}");
}

#[test]
fn reader_counts_code_not_comments() {
    let code = "// crate::wire::x in a comment\n\
         /// [`SimHandle`](crate::SimHandle)\n\
         use crate::exchange::state::Exchange; use crate::scenario::faults::{A, B};\n\
         fn g() { let _ = crate::Drift::Removed; } // crate::wire\n\
         use other_crate::wire; use polyclob_crate::scenario;\n";
    let got = crate_paths(code).unwrap();
    assert_eq!(
        got,
        BTreeSet::from(["exchange", "scenario", FRONT]),
        "{got:?}"
    );
    assert!(crate_paths("use crate::{exchange::x, wire::y};").is_err());
    assert!(crate_paths("use super::super::wire::ws;").is_err());
}

/// A source tree whose core imports a front-end and a scenario tool that names the front
/// door: the check reports both, and nothing else.
#[test]
fn a_broken_layer_is_reported() {
    let src = std::env::temp_dir().join(format!("polyclob-sim-layers-{}", std::process::id()));
    let _ = fs::remove_dir_all(&src);
    for d in ["exchange", "scenario", "wire/deep"] {
        fs::create_dir_all(src.join(d)).unwrap();
    }
    let files = [
        (
            "lib.rs",
            "mod exchange; mod scenario; mod wire; use crate::wire::x;\n",
        ),
        ("exchange/state.rs", "use super::engine::Book;\n"),
        (
            "exchange/events.rs",
            "fn f() { crate::wire::http::ok(); }\n",
        ),
        (
            "scenario/crowd.rs",
            "use crate::exchange::state::Exchange;\n",
        ),
        ("scenario/paths.rs", "fn f(_: crate::SimHandle) {}\n"),
        (
            "wire/deep/rest.rs",
            "use crate::scenario::x; use crate::exchange::y;\n",
        ),
    ];
    for (path, code) in files {
        fs::write(src.join(path), code).unwrap();
    }
    let (edges, broken) = check(&src);
    fs::remove_dir_all(&src).unwrap();
    assert_eq!(
        broken,
        [
            "exchange/events.rs (exchange) names the wire",
            "scenario/paths.rs (scenario) names the front door",
        ],
        "{edges:?}"
    );
    assert_eq!(edges["wire"], BTreeSet::from(["exchange", "scenario"]));
}
