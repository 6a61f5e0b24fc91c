//! The top-level modules' import graph, read from `src/`: the transport (`ws`), the decoder
//! (`decode`) and the books (`book`) form no cycle, and neither do `sign` and `order`.
//!
//! An edge `a -> b` is any path in `a`'s code (not its comments or strings) that names the
//! top-level module `b`: `crate::b::…`, `crate::{b::…}`, or `super::…` climbing to the crate
//! root. Unit tests inside a module count too: a test helper imported the wrong way is still
//! an import the wrong way.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

type Graph = BTreeMap<String, BTreeSet<String>>;

/// The source with comments, string and char literals blanked (replaced by spaces), so only
/// code is searched. Newlines are kept.
fn code_only(src: &str) -> String {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    let blank = |out: &mut Vec<u8>, s: &[u8]| {
        out.extend(s.iter().map(|&c| if c == b'\n' { b'\n' } else { b' ' }));
    };
    while i < b.len() {
        let rest = &b[i..];
        if rest.starts_with(b"//") {
            let end = rest.iter().position(|&c| c == b'\n').unwrap_or(rest.len());
            blank(&mut out, &rest[..end]);
            i += end;
        } else if rest.starts_with(b"/*") {
            // Block comments nest in Rust.
            let (mut depth, mut j) = (0usize, 0usize);
            while j < rest.len() {
                if rest[j..].starts_with(b"/*") {
                    depth += 1;
                    j += 2;
                } else if rest[j..].starts_with(b"*/") {
                    depth -= 1;
                    j += 2;
                    if depth == 0 {
                        break;
                    }
                } else {
                    j += 1;
                }
            }
            blank(&mut out, &rest[..j]);
            i += j;
        } else if let Some(len) = raw_string_len(rest, i > 0 && is_ident(b[i - 1])) {
            blank(&mut out, &rest[..len]);
            i += len;
        } else if rest[0] == b'"' {
            let mut j = 1;
            while j < rest.len() && rest[j] != b'"' {
                j += if rest[j] == b'\\' { 2 } else { 1 };
            }
            let len = (j + 1).min(rest.len());
            blank(&mut out, &rest[..len]);
            i += len;
        } else if rest[0] == b'\'' {
            // A char literal ('x', '\n', '\u{..}', '"') or a lifetime ('a).
            let len = if rest.get(1) == Some(&b'\\') {
                rest.iter().skip(2).position(|&c| c == b'\'').map(|p| p + 3)
            } else {
                // The UTF-8 length of the character after the quote, from its first byte.
                let n = match rest.get(1) {
                    Some(&c) if c >= 0xF0 => 4,
                    Some(&c) if c >= 0xE0 => 3,
                    Some(&c) if c >= 0x80 => 2,
                    _ => 1,
                };
                (rest.get(1 + n) == Some(&b'\'')).then_some(n + 2)
            };
            match len {
                Some(len) => {
                    blank(&mut out, &rest[..len]);
                    i += len;
                }
                None => {
                    out.push(b'\'');
                    i += 1;
                }
            }
        } else {
            out.push(rest[0]);
            i += 1;
        }
    }
    String::from_utf8(out).expect("only ASCII bytes were replaced")
}

/// The length of a raw (byte) string literal starting here: `r"…"`, `r#"…"#`, `br"…"`.
fn raw_string_len(rest: &[u8], after_ident: bool) -> Option<usize> {
    if after_ident {
        return None;
    }
    let mut j = usize::from(rest.starts_with(b"br"));
    if rest.get(j) != Some(&b'r') {
        return None;
    }
    j += 1;
    let hashes = rest[j..].iter().take_while(|&&c| c == b'#').count();
    j += hashes;
    if rest.get(j) != Some(&b'"') {
        return None;
    }
    let mut close = vec![b'"'];
    close.extend(std::iter::repeat_n(b'#', hashes));
    let body = &rest[j + 1..];
    let end = body
        .windows(close.len())
        .position(|w| w == close.as_slice())?;
    Some(j + 1 + end + close.len())
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn ident_at(s: &[u8], i: usize) -> &str {
    let end = s[i..]
        .iter()
        .position(|&c| !is_ident(c))
        .map_or(s.len(), |p| i + p);
    std::str::from_utf8(&s[i..end]).expect("ASCII identifier")
}

fn skip_ws(s: &[u8], mut i: usize) -> usize {
    while i < s.len() && s[i].is_ascii_whitespace() {
        i += 1;
    }
    i
}

/// The first segments of the paths in a `{…}` group starting at `open`.
fn group_heads(s: &[u8], open: usize) -> Vec<String> {
    let mut heads = Vec::new();
    let (mut depth, mut i, mut expect_head) = (0usize, open, true);
    while i < s.len() {
        match s[i] {
            b'{' => {
                depth += 1;
                expect_head = depth == 1;
            }
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    break;
                }
            }
            b',' if depth == 1 => expect_head = true,
            c if expect_head && depth == 1 && is_ident(c) => {
                heads.push(ident_at(s, i).to_owned());
                expect_head = false;
            }
            _ => {}
        }
        i += 1;
    }
    heads
}

/// The crate-root names one file's code refers to. `file_depth` is how many modules deep the
/// file itself is (`src/a.rs` and `src/a/mod.rs`: 1, `src/a/b.rs`: 2).
fn root_names(code: &str, file_depth: usize) -> BTreeSet<String> {
    let s = code.as_bytes();
    let mut names = BTreeSet::new();
    // Inline `mod x { … }` blocks deepen `super::`; their brace depths are stacked here.
    let (mut braces, mut inline_mods) = (0usize, Vec::<usize>::new());
    let mut i = 0;
    while i < s.len() {
        let boundary = i == 0 || !(is_ident(s[i - 1]) || s[i - 1] == b':');
        match s[i] {
            b'{' => braces += 1,
            b'}' => {
                braces -= 1;
                if inline_mods.last() == Some(&braces) {
                    inline_mods.pop();
                }
            }
            _ => {}
        }
        if boundary && s[i..].starts_with(b"mod ") {
            let j = skip_ws(s, i + 4);
            let k = skip_ws(s, j + ident_at(s, j).len());
            if s.get(k) == Some(&b'{') {
                inline_mods.push(braces);
            }
        }
        let crate_kw = [&b"$crate::"[..], b"crate::"]
            .into_iter()
            .find(|kw| (boundary || kw[0] == b'$') && s[i..].starts_with(kw))
            .map(<[u8]>::len);
        if let Some(crate_kw) = crate_kw {
            let j = skip_ws(s, i + crate_kw);
            if s.get(j) == Some(&b'{') {
                names.extend(group_heads(s, j));
            } else if j < s.len() && is_ident(s[j]) {
                names.insert(ident_at(s, j).to_owned());
            }
            i = j;
            continue;
        }
        if boundary && s[i..].starts_with(b"super::") {
            let mut ups = 0;
            let mut j = i;
            while s[j..].starts_with(b"super::") {
                ups += 1;
                j = skip_ws(s, j + 7);
            }
            if ups == file_depth + inline_mods.len() {
                if s.get(j) == Some(&b'{') {
                    names.extend(group_heads(s, j));
                } else if j < s.len() && is_ident(s[j]) {
                    names.insert(ident_at(s, j).to_owned());
                }
            }
            i = j;
            continue;
        }
        i += 1;
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

/// The graph of the library's top-level modules, from `src/`.
fn module_graph(src: &Path) -> Graph {
    let mut files = Vec::new();
    rust_files(src, &mut files);
    // Top-level modules: `src/x.rs` or `src/x/mod.rs`, the crate roots and binaries excluded.
    let mut modules = BTreeSet::new();
    for f in &files {
        let rel = f.strip_prefix(src).expect("under src/");
        let parts: Vec<_> = rel
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        match parts.as_slice() {
            [file] if file != "lib.rs" && file != "main.rs" => {
                modules.insert(file.trim_end_matches(".rs").to_owned());
            }
            [dir, file] if file == "mod.rs" && dir != "bin" => {
                modules.insert(dir.clone());
            }
            _ => {}
        }
    }
    let mut graph: Graph = modules
        .iter()
        .map(|m| (m.clone(), BTreeSet::new()))
        .collect();
    for f in &files {
        let rel = f.strip_prefix(src).expect("under src/");
        let parts: Vec<_> = rel
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let top = parts[0].trim_end_matches(".rs");
        if !modules.contains(top) {
            continue;
        }
        let depth = parts.len() - usize::from(parts.last().is_some_and(|p| p == "mod.rs"));
        let code = code_only(&fs::read_to_string(f).expect("read a source file"));
        for name in root_names(&code, depth) {
            if name != top && modules.contains(&name) {
                graph.get_mut(top).expect("a module").insert(name);
            }
        }
    }
    graph
}

/// A path `from -> … -> to` in the graph, if there is one.
fn path(graph: &Graph, from: &str, to: &str) -> Option<Vec<String>> {
    let mut seen = BTreeSet::from([from.to_owned()]);
    let mut stack = vec![vec![from.to_owned()]];
    while let Some(p) = stack.pop() {
        for next in &graph[p.last().expect("non-empty")] {
            let mut q = p.clone();
            q.push(next.clone());
            if next == to {
                return Some(q);
            }
            if seen.insert(next.clone()) {
                stack.push(q);
            }
        }
    }
    None
}

/// Every cycle through `a` and `b` shows as a path each way.
fn cycle_between(graph: &Graph, a: &str, b: &str) -> Option<String> {
    let there = path(graph, a, b)?;
    let back = path(graph, b, a)?;
    Some(format!("{} then {}", there.join(" -> "), back.join(" -> ")))
}

fn src_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

#[test]
fn transport_decoder_and_books_form_no_cycle() {
    let graph = module_graph(&src_dir());
    // The reader must see the edges the architecture has, or an empty graph would pass.
    for (from, to) in [("book", "decode"), ("ws", "decode"), ("ws", "book")] {
        assert!(
            graph[from].contains(to),
            "expected edge {from} -> {to}: {graph:#?}"
        );
    }
    let mut cycles = Vec::new();
    for (a, b) in [("ws", "decode"), ("ws", "book"), ("decode", "book")] {
        cycles.extend(cycle_between(&graph, a, b));
    }
    // The decoder sits below both: it knows bytes, so it reaches neither of them at all.
    for up in ["ws", "book"] {
        if let Some(p) = path(&graph, "decode", up) {
            cycles.push(format!("decode reaches {up}: {}", p.join(" -> ")));
        }
    }
    assert!(
        cycles.is_empty(),
        "module cycles: {cycles:#?}\ngraph: {graph:#?}"
    );
}

#[test]
fn sign_and_order_form_no_cycle() {
    let graph = module_graph(&src_dir());
    for (from, to) in [("order", "sign"), ("sign", "types"), ("order", "types")] {
        assert!(
            graph[from].contains(to),
            "expected edge {from} -> {to}: {graph:#?}"
        );
    }
    if let Some(c) = cycle_between(&graph, "sign", "order") {
        panic!("sign and order import each other: {c}\ngraph: {graph:#?}");
    }
    // What both share sits below both.
    for up in ["sign", "order"] {
        assert!(path(&graph, "types", up).is_none(), "types reaches {up}");
    }
}

/// RTDS runs on the market channel's connection machinery: `rtds` uses `ws`, never the reverse.
#[test]
fn transport_rtds_data_and_gamma_form_no_cycle() {
    let graph = module_graph(&src_dir());
    assert!(
        graph["rtds"].contains("ws"),
        "expected edge rtds -> ws: {graph:#?}"
    );
    if let Some(c) = cycle_between(&graph, "ws", "rtds") {
        panic!("ws and rtds import each other: {c}\ngraph: {graph:#?}");
    }
    // Discovery and positions: Gamma reads the Data API's `Amount`, never the reverse.
    if let Some(c) = cycle_between(&graph, "data", "gamma") {
        panic!("data and gamma import each other: {c}\ngraph: {graph:#?}");
    }
}

#[test]
fn reader_counts_code_not_comments() {
    let code = code_only(
        "// crate::ws::x in a comment\n/* crate::book /* nested */ crate::clob */\n\
         use crate::{fixed::Price, types::{Side, TickSize}};\n\
         const S: &str = \"crate::gamma\"; const R: &str = r#\"crate::data\"#;\n\
         fn f<'a>(c: char) -> bool { c == '\"' || c == '{' }\n\
         fn g() { let _ = crate::order::Order::default(); }\n\
         mod tests { use super::super::sign::Signer; use super::x; }\n\
         fn h() { super::rtds::go(); $crate::sim::run(); }\n",
    );
    // In `src/a.rs` (depth 1), `super::rtds` is the crate's `rtds`; in the inline `mod tests`,
    // two `super`s reach the root and one does not.
    let set = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<BTreeSet<_>>();
    let names = root_names(&code, 1);
    assert_eq!(
        names,
        set(&["fixed", "types", "order", "sign", "rtds", "sim"])
    );
    // In `src/a/b.rs` (depth 2) neither reaches the root.
    assert_eq!(
        root_names(&code, 2),
        set(&["fixed", "types", "order", "sim"])
    );
    // One level up from `src/a.rs` is the crate root.
    let names = root_names(&code_only("use super::book::Book;"), 1);
    assert!(names.contains("book"));
}

#[test]
fn cycle_finder_finds_cycles() {
    let mut g = Graph::new();
    for (a, b) in [("a", "b"), ("b", "c"), ("c", "a"), ("c", "d")] {
        g.entry(a.into()).or_default().insert(b.into());
        g.entry(b.into()).or_default();
    }
    assert!(cycle_between(&g, "a", "c").is_some());
    assert!(cycle_between(&g, "a", "d").is_none());
    assert_eq!(path(&g, "a", "d").map(|p| p.len()), Some(4));
}

/// The paths users had before the move still name the same items for the 0.2 series.
#[test]
#[allow(deprecated)]
fn moved_paths_still_resolve() {
    use polyclob::ws::decode as old;

    let frame = r#"{"event_type":"tick_size_change","asset_id":"1","market":"0x1","old_tick_size":"0.01","new_tick_size":"0.001","timestamp":"1"}"#;
    let via_old: Vec<polyclob::decode::Event<'_>> =
        old::decode(frame).map(Result::unwrap).collect();
    let via_new: Vec<_> = polyclob::decode::decode(frame)
        .map(Result::unwrap)
        .collect();
    assert_eq!(format!("{via_old:?}"), format!("{via_new:?}"));
    assert!(matches!(
        via_new[..],
        [polyclob::decode::Event::TickSizeChange(_)]
    ));

    let id: polyclob::order::TokenId = "42".parse().unwrap();
    let same: polyclob::types::TokenId = id;
    assert_eq!(same.to_string(), "42");
    let _: fn(polyclob::order::Order) -> polyclob::types::Order = |o| o;
}
