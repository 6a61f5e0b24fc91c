//! Data API and Gamma pages and venue timestamps: any bytes decode without panicking; a
//! page's rows are all accounted for (decoded or reported, their text bounded); an accepted timestamp
//! round-trips through `Display`.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::data::{Activity, Position, Resolution, decode_cursor_page};
use polyclob::gamma::{GammaEvent, GammaMarket, decode_keyset_page};
use polyclob::types::Timestamp;

fuzz_target!(|data: &[u8]| {
    if let Ok(text) = std::str::from_utf8(data) {
        if let Ok(t) = text.parse::<Timestamp>() {
            assert_eq!(t.to_string().parse::<Timestamp>(), Ok(t));
        }
    }
    // Within a page each skipped row is reported once, in order, with the start of its
    // text (never more than the bound) and its length.
    let rows = |_decoded: usize, skipped: &[polyclob::http::SkippedRow]| {
        assert!(skipped.windows(2).all(|w| w[0].index < w[1].index));
        for r in skipped {
            assert!(r.raw.len() <= polyclob::http::SkippedRow::RAW_MAX);
            assert!(r.raw.len() <= r.raw_len && (r.raw.len() == r.raw_len) != r.is_cut());
        }
    };
    if let Ok(p) = decode_cursor_page::<Resolution>(data) {
        rows(p.data.len(), &p.skipped);
    }
    if let Ok(p) = decode_cursor_page::<Position>(data) {
        rows(p.data.len(), &p.skipped);
    }
    if let Ok(p) = decode_cursor_page::<Activity>(data) {
        rows(p.data.len(), &p.skipped);
    }
    if let Ok(p) = decode_keyset_page::<GammaMarket>(data) {
        rows(p.data.len(), &p.skipped);
    }
    if let Ok(p) = decode_keyset_page::<GammaEvent>(data) {
        rows(p.data.len(), &p.skipped);
    }
});
