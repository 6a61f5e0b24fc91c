//! The layering of the top-level modules, read from `src/`: the decoder (`decode`) sits below
//! the transport (`ws`) and the books (`book`), and the books below the transport; `types`
//! below `sign`, and `sign` below `order`; `ws` below `rtds`; the Data API (`data`) below Gamma.
//! "Below" means it never reaches the module above, directly or through others, so the pairs
//! form no cycle.
//!
//! An edge `a -> b` is a `crate::b` (or `$crate::b`) in code under `src/a`, comments (`//` to
//! the end of the line) left out; unit tests count too. Cross-module paths in `src/` are
//! written from `crate::`, one top-level module per path (a `crate::{…}` group fails the check),
//! so a line scan sees them all (a `super::` that climbs to the crate root is not followed). The simulator, which may use only the public API, is a crate of its
//! own: that boundary needs no check here.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// Module `a` never reaches module `b`.
const BELOW: [(&str, &str); 8] = [
    ("decode", "ws"),
    ("decode", "book"),
    ("book", "ws"),
    ("types", "sign"),
    ("types", "order"),
    ("sign", "order"),
    ("ws", "rtds"),
    ("data", "gamma"),
];

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

/// Top-level module -> the other top-level modules its code names.
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
    graph
}

/// A path of edges from `from` to `to`, if there is one.
fn path(graph: &Graph, from: &str, to: &str) -> Option<Vec<String>> {
    let mut seen = BTreeSet::from([from.to_owned()]);
    let mut queue = vec![vec![from.to_owned()]];
    while let Some(p) = queue.pop() {
        for next in graph
            .get(p.last().expect("non-empty"))
            .into_iter()
            .flatten()
        {
            let mut longer = p.clone();
            longer.push(next.clone());
            if next == to {
                return Some(longer);
            }
            if seen.insert(next.clone()) {
                queue.push(longer);
            }
        }
    }
    None
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `BELOW` pairs that mention one of `modules` and are broken in `graph`.
fn broken(graph: &Graph, modules: &[&str]) -> Vec<String> {
    let mut up = Vec::new();
    for (low, high) in BELOW {
        if modules.contains(&low) || modules.contains(&high) {
            if let Some(p) = path(graph, low, high) {
                up.push(format!("{low} reaches {high}: {}", p.join(" -> ")));
            }
        }
    }
    up
}

/// Checks the expected edges exist (an empty graph must not pass) and the `BELOW` pairs that
/// mention one of `modules`.
fn check(modules: &[&str], expected: &[(&str, &str)]) {
    let graph = module_graph(&src_dir());
    for (from, to) in expected {
        assert!(
            graph.get(*from).is_some_and(|e| e.contains(*to)),
            "expected edge {from} -> {to}: {graph:#?}"
        );
    }
    let up = broken(&graph, modules);
    assert!(up.is_empty(), "layering broken: {up:#?}\ngraph: {graph:#?}");
}

#[test]
fn transport_decoder_and_books_form_no_cycle() {
    check(
        &["ws", "decode", "book"],
        &[("book", "decode"), ("ws", "decode"), ("ws", "book")],
    );
}

#[test]
fn sign_and_order_form_no_cycle() {
    check(
        &["sign", "order"],
        &[("order", "sign"), ("sign", "types"), ("order", "types")],
    );
}

/// RTDS runs on the market channel's connection machinery: `rtds` uses `ws`, never the
/// reverse. Discovery and positions: Gamma reads the Data API's `Amount`, never the reverse.
#[test]
fn transport_rtds_data_and_gamma_form_no_cycle() {
    check(&["rtds", "gamma"], &[("rtds", "ws"), ("gamma", "data")]);
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

#[test]
fn path_finder_follows_edges() {
    let mut g = Graph::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        g.entry(a.into()).or_default().insert(b.into());
        g.entry(b.into()).or_default();
    }
    assert_eq!(path(&g, "a", "d").map(|p| p.len()), Some(4));
    assert!(path(&g, "c", "b").is_some());
    assert!(path(&g, "d", "a").is_none());
}

/// A source tree where the decoder imports the transport, through a file in a subdirectory
/// and with the legal edges beside it: the check reports it.
#[test]
fn a_broken_layer_is_reported() {
    let src = std::env::temp_dir().join(format!("polyclob-module-graph-{}", std::process::id()));
    let _ = fs::remove_dir_all(&src);
    fs::create_dir_all(src.join("decode")).unwrap();
    fs::create_dir_all(src.join("ws")).unwrap();
    fs::write(
        src.join("lib.rs"),
        "pub mod decode; pub mod ws; pub mod book;\n",
    )
    .unwrap();
    fs::write(src.join("book.rs"), "use crate::decode::EventView;\n").unwrap();
    fs::write(
        src.join("ws/mod.rs"),
        "use crate::book::Book; // crate::rtds\n",
    )
    .unwrap();
    fs::write(src.join("decode/events.rs"), "fn f() { crate::ws::x(); }\n").unwrap();
    let graph = module_graph(&src);
    fs::remove_dir_all(&src).unwrap();
    assert_eq!(
        broken(&graph, &["decode"]),
        [
            "decode reaches ws: decode -> ws",
            "decode reaches book: decode -> ws -> book"
        ]
    );
    assert!(broken(&graph, &["rtds"]).is_empty(), "{graph:#?}");
}

/// The paths users had before the move still name the same items for the 0.2 series.
#[test]
#[allow(deprecated)]
fn moved_paths_still_resolve() {
    use polyclob::ws::decode as old;

    let frame = r#"{"event_type":"tick_size_change","asset_id":"1","market":"0x1","old_tick_size":"0.01","new_tick_size":"0.001","timestamp":"1"}"#;
    let via_old: Vec<polyclob::decode::EventView<'_>> =
        old::decode(frame).map(Result::unwrap).collect();
    let via_new: Vec<_> = polyclob::decode::decode(frame)
        .map(Result::unwrap)
        .collect();
    assert_eq!(format!("{via_old:?}"), format!("{via_new:?}"));
    assert!(matches!(
        via_new[..],
        [polyclob::decode::EventView::TickSizeChange(_)]
    ));

    let id: polyclob::order::TokenId = "42".parse().unwrap();
    let same: polyclob::types::TokenId = id;
    assert_eq!(same.to_string(), "42");
    let _: fn(polyclob::order::Order) -> polyclob::types::Order = |o| o;
}
