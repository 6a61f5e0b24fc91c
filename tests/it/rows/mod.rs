//! Issue 47, item 1: no call that returns rows drops one unsaid. Every row-returning call of
//! the crate, served a real-shaped page with one bad row over loopback, returns the other rows
//! and reports the bad one (its list, index, reason and raw text), counts it in its client's
//! `counters().skipped_rows`, or fails the call when its signature has no room for it.
//! Pages are written from the documented shapes (docs.polymarket.com references for the CLOB,
//! the Data API v2 and Gamma); tests/data holds the longer ones.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod callers;
mod captures;
mod clob;
mod data_gamma;
mod errors;
mod venue_reads;

use polyclob::data;
use polyclob::gamma;
use polyclob::http::SkippedRow;
use serde_json::{Value as Json, json};

use crate::support::mock_clob::MockClob;

fn data_client(server: &MockClob) -> data::Client {
    data::Client::builder().host(server.url()).build().unwrap()
}

fn gamma_client(server: &MockClob) -> gamma::Client {
    gamma::Client::builder().host(server.url()).build().unwrap()
}

/// A Data API v2 page of `rows` (the last page).
fn v2_page(rows: &[Json]) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "data": rows,
        "pagination": {"limit": 100, "has_more": false, "next_cursor": null}
    }))
    .unwrap()
}

/// `good` with `bad` put in at index 1.
fn with_bad(mut good: Vec<Json>, bad: Json) -> Vec<Json> {
    good.insert(1, bad);
    good
}

/// Exactly one row was reported, the one at index 1, with a reason and its whole raw text
/// (JSON of the row as sent).
fn one_bad_at_1(what: &str, skipped: &[SkippedRow]) {
    assert_eq!(skipped.len(), 1, "{what}: {skipped:?}");
    let bad = &skipped[0];
    assert_eq!(bad.index, 1, "{what}");
    assert!(!bad.reason.is_empty(), "{what}");
    assert!(!bad.is_cut(), "{what}: {bad:?}");
    serde_json::from_str::<Json>(&bad.raw)
        .unwrap_or_else(|e| panic!("{what}: the raw text is not the row's JSON ({e}): {bad:?}"));
}

/// As [`one_bad_at_1`], and the raw text is exactly the JSON of `row`.
fn the_bad_row_at_1(what: &str, skipped: &[SkippedRow], row: &Json) {
    one_bad_at_1(what, skipped);
    let raw: Json = serde_json::from_str(&skipped[0].raw).unwrap();
    assert_eq!(&raw, row, "{what}");
}
