//! The layering of the top-level modules, read from `src/`: every module has a layer, and code
//! in a module names only modules of lower layers. Modules of one layer are siblings and never
//! name each other. A module missing from [`LAYERS`] fails the check, so a new module is placed
//! on purpose; an import that runs up or sideways fails it too, naming the edge.
//!
//! An edge `a -> b` is a `crate::b` (or `$crate::b`) in code under `src/a`, comments (`//` to
//! the end of the line, doc comments included) left out; unit tests count too. Cross-module
//! paths in `src/` are written from `crate::`, one top-level module per path (a `crate::{…}`
//! group fails the check), so a line scan sees them all (a `super::` that climbs to the crate
//! root is not followed). The simulator, which may use only the public API, is a crate of its
//! own: that boundary needs no check here. CONTRIBUTING.md explains the layers.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The layers, bottom first. A module may use the modules of the layers before its own.
const LAYERS: &[&[&str]] = &[
    // Leaves: fixed-point numbers, tracing hooks, test helpers.
    &["fixed", "telemetry", "testutil"],
    // Protocol types; the JSON scanner and writer.
    &["types", "json"],
    // Keys and signatures; WebSocket frames decoded; the one HTTP transport, its error, pages.
    &["sign", "decode", "http"],
    // Orders built and signed; order books.
    &["order", "book"],
    // The clients of one host each, on `http`: the CLOB's REST, the Data API, the chain, Gamma.
    &["clob", "data", "onchain", "gamma"],
    // The WebSocket streams (they take the CLOB's credentials and proxy).
    &["ws"],
    // The RTDS socket (on `ws`); the relayer (CLOB builder keys, on-chain calls).
    &["rtds", "relayer"],
    // PolyBolt and the sports socket (on `ws` and RTDS's decoders).
    &["polybolt", "sports"],
    // One trading account over the clients and streams.
    &["account"],
    // The polymarket-rs-client drop-in, over the native modules.
    &["compat"],
    // Test-only: every error chain of the crate, read once.
    &["error_chains"],
];

fn layer_of(module: &str) -> Option<usize> {
    LAYERS.iter().position(|l| l.contains(&module))
}

/// The top-level modules a piece of `src/` code names through `crate::`.
fn crate_paths(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    for line in code.lines() {
        let line = line.split("//").next().unwrap_or("");
        for (at, _) in line.match_indices("crate::") {
            let before = line[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                continue; // `my_crate::` is another path
            }
            let rest = &line[at + "crate::".len()..];
            let end = rest
                .find(|c: char| !(c.is_alphanumeric() || c == '_'))
                .unwrap_or(rest.len());
            // A group (`crate::{a::X, b::Y}`) would hide its edges from this scan.
            assert!(
                !rest.starts_with('{'),
                "write one `crate::` path per top-level module so the layering check sees it: {line}"
            );
            if end > 0 {
                names.insert(rest[..end].to_owned());
            }
        }
    }
    names
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in fs::read_dir(dir).expect("read src/") {
        let path = entry.expect("dir entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Top-level module -> the other top-level modules its code names (a `crate::X` that is an
/// item of the crate root, such as the drop-in's `ClobClient`, is no module and no edge).
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    let mut graph = Graph::new();
    for f in files {
        let rel = f.strip_prefix(src).expect("under src/");
        let top = rel.iter().next().expect("a path").to_string_lossy();
        let top = top.trim_end_matches(".rs");
        if top == "lib" || top == "main" || top == "bin" {
            continue;
        }
        let names = crate_paths(&fs::read_to_string(&f).expect("read a source file"));
        let edges = graph.entry(top.to_owned()).or_default();
        edges.extend(names.into_iter().filter(|n| n != top));
    }
    let modules: BTreeSet<String> = graph.keys().cloned().collect();
    for edges in graph.values_mut() {
        edges.retain(|n| modules.contains(n));
    }
    graph
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every edge of `graph` that does not run down, and every module without a layer.
fn broken(graph: &Graph) -> Vec<String> {
    let mut bad = Vec::new();
    for (from, edges) in graph {
        let Some(low) = layer_of(from) else {
            bad.push(format!("{from} has no layer in LAYERS"));
            continue;
        };
        for to in edges {
            match layer_of(to) {
                Some(high) if high >= low => bad.push(format!(
                    "{from} (layer {low}) uses {to} (layer {high}): {}",
                    if high == low {
                        "a sibling"
                    } else {
                        "a higher layer"
                    }
                )),
                None => bad.push(format!("{from} uses {to}, which has no layer in LAYERS")),
                Some(_) => {}
            }
        }
    }
    bad
}

/// Every module in `src/` has a layer and names only lower layers; the edges that hold the
/// layers together are there (an empty graph must not pass).
#[test]
fn every_import_runs_down_the_layers() {
    let graph = module_graph(&src_dir());
    for (from, to) in [
        ("account", "clob"),
        ("account", "ws"),
        ("account", "data"),
        ("account", "relayer"),
        ("relayer", "http"),
        ("clob", "http"),
        ("data", "http"),
        ("gamma", "http"),
        ("ws", "decode"),
        ("rtds", "ws"),
        ("compat", "clob"),
        ("order", "sign"),
    ] {
        assert!(
            graph.get(from).is_some_and(|e| e.contains(to)),
            "expected edge {from} -> {to}: {graph:#?}"
        );
    }
    let bad = broken(&graph);
    assert!(
        bad.is_empty(),
        "layering broken: {bad:#?}\ngraph: {graph:#?}"
    );
    let listed: BTreeSet<&str> = LAYERS.iter().flat_map(|l| l.iter().copied()).collect();
    let found: BTreeSet<&str> = graph.keys().map(String::as_str).collect();
    assert_eq!(listed, found, "LAYERS and the modules of src/ differ");
}

#[test]
fn reader_counts_code_not_comments() {
    let code = "// crate::ws::x in a comment\n\
         /// [`Book`](crate::book::Book)\n\
         use crate::fixed::Price; use crate::types::{Side, TickSize};\n\
         fn g() { let _ = crate::order::Order::default(); } // crate::clob\n\
         macro_rules! m { () => { $crate::sign::Signer::zero() } }\n\
         use other_crate::gamma; use polyclob_crate::data;\n";
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    assert_eq!(crate_paths(code), set(&["fixed", "types", "order", "sign"]));
}

/// A source tree where the decoder imports the transport, through a file in a subdirectory
/// and with the legal edges beside it, and a module without a layer: the check reports both.
#[test]
fn a_broken_layer_is_reported() {
    let src = std::env::temp_dir().join(format!("polyclob-module-graph-{}", std::process::id()));
    let _ = fs::remove_dir_all(&src);
    fs::create_dir_all(src.join("decode")).unwrap();
    fs::create_dir_all(src.join("ws")).unwrap();
    fs::write(
        src.join("lib.rs"),
        "pub mod decode; pub mod ws; pub mod book; pub mod extra;\n",
    )
    .unwrap();
    fs::write(src.join("book.rs"), "use crate::decode::EventView;\n").unwrap();
    fs::write(
        src.join("ws/mod.rs"),
        "use crate::book::Book; // crate::account\n",
    )
    .unwrap();
    fs::write(src.join("decode/events.rs"), "fn f() { crate::ws::x(); }\n").unwrap();
    fs::write(src.join("extra.rs"), "use crate::fixed::Price;\n").unwrap();
    let graph = module_graph(&src);
    fs::remove_dir_all(&src).unwrap();
    assert_eq!(
        broken(&graph),
        [
            "decode (layer 2) uses ws (layer 5): a higher layer",
            "extra has no layer in LAYERS",
        ]
    );
    // Siblings are refused too.
    let mut g = Graph::new();
    g.entry("data".into()).or_default().insert("clob".into());
    assert_eq!(
        broken(&g),
        ["data (layer 4) uses clob (layer 4): a sibling"]
    );
}
