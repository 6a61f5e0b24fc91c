//! The one fast path: a `book` or `price_change` in the exchange's exact layout (compact JSON,
//! its key order), read without the general reader's capture of every field and its dispatch
//! on the event's name.
//!
//! ```text
//! {"market":"…","price_changes":[…],"timestamp":"…","event_type":"price_change"}
//! {"event_type":"price_change","market":"…","price_changes":[…],"timestamp":"…"}
//! {"market":"…","asset_id":"…","timestamp":"…","hash":"…","bids":[…],"asks":[…],
//!  "tick_size":"…","event_type":"book","last_trade_price":"…"[,"version":"v2"]}
//! ```
//!
//! The members are these, in this order (a `price_change`'s `event_type` last, as captured, or
//! first, as Polymarket's docs show it), with plain string values; the levels and entries go
//! through the walkers the general reader uses (each item in the exchange's layout or read by
//! the general item reader). A member no event reads, anywhere between them (a field the
//! exchange added, the REST book's `min_order_size` and `neg_risk`, any JSON value), is
//! skipped in place with the scanner's checked skipper, so it costs its own bytes, not a
//! second read of the element. On any other miss — members in another order, another
//! event's key, a value that is not a plain string, an `event_type` of another event —
//! [`read`] returns `None` and the general reader reads the element from its start, with the
//! same result on what both accept (tested below). Nothing here depends on what was decoded
//! before.

use super::events::{BookMsg, PriceChangeMsg};
use super::lists::{
    Levels, PriceChanges, lit, member, past_unknown, plain, walk_changes, walk_levels,
};
use super::{EventView, Sink, is_event_key, opt_price, opt_tick};
use crate::json::decimal::digits_u64;
use crate::json::{Cursor, HASH_LEN, ID_LEN, MARKET_LEN, Raw, RawKind, TIMESTAMP_LEN, sub};
use crate::types::Side;

/// The element whose `{` is at `start`, when it is a `book` or a `price_change` in the
/// exchange's layout: the event and the index after its `}`. Levels and entries go to `sink`
/// as they are read; on `None` the caller resets the sink.
#[inline]
pub(super) fn read<'a, S: Sink>(
    src: &'a str,
    start: usize,
    sink: &mut S,
) -> Option<(EventView<'a>, usize)> {
    let b = src.as_bytes();
    // A `price_change` with its `event_type` first, as Polymarket's docs show it.
    let lead = lit(b, start, b"{\"event_type\":\"price_change\",\"market\":");
    // Else `{"market":`, or members no event reads in front of it.
    let at = match lead.or_else(|| lit(b, start, b"{\"market\":")) {
        Some(at) => at,
        None => lit(b, past_unknown(src, start, is_event_key)?, b",\"market\":")?,
    };
    let market = plain::<MARKET_LEN>(b, at)?;
    let q = market.1 + 1;
    if let Some(at) = member(src, q, b",\"price_changes\":", is_event_key) {
        let mut c = Cursor::new(src, at);
        let changes = walk_changes(&mut c, sink).ok()?;
        let ts = plain::<TIMESTAMP_LEN>(b, member(src, c.pos, b",\"timestamp\":", is_event_key)?)?;
        let tail = b",\"event_type\":\"price_change\"";
        let q = lead.map_or_else(
            || member(src, ts.1 + 1, tail, is_event_key),
            |_| Some(ts.1 + 1),
        )?;
        let end = member(src, q, b"}", is_event_key)?;
        let msg = PriceChangeMsg {
            market: sub(src, market.0, market.1)?,
            timestamp_ms: digits_u64(b, ts.0, ts.1 - ts.0),
            changes: PriceChanges::new(src, changes),
            json: sub(src, start, end)?,
        };
        return Some((EventView::PriceChange(msg), end));
    }
    if lead.is_some() {
        return None;
    }
    let asset = plain::<ID_LEN>(b, member(src, q, b",\"asset_id\":", is_event_key)?)?;
    let ts = plain::<TIMESTAMP_LEN>(
        b,
        member(src, asset.1 + 1, b",\"timestamp\":", is_event_key)?,
    )?;
    let hash = plain::<HASH_LEN>(b, member(src, ts.1 + 1, b",\"hash\":", is_event_key)?)?;
    let mut c = Cursor::new(src, member(src, hash.1 + 1, b",\"bids\":", is_event_key)?);
    let bids = walk_levels(&mut c, Side::Buy, sink).ok()?;
    c.pos = member(src, c.pos, b",\"asks\":", is_event_key)?;
    let asks = walk_levels(&mut c, Side::Sell, sink).ok()?;
    let tick = plain::<0>(b, member(src, c.pos, b",\"tick_size\":", is_event_key)?)?;
    let q = member(src, tick.1 + 1, b",\"event_type\":\"book\"", is_event_key)?;
    let last = plain::<0>(b, member(src, q, b",\"last_trade_price\":", is_event_key)?)?;
    let version = (member(src, last.1 + 1, b",\"version\":", is_event_key))
        .map(|at| plain::<0>(b, at).ok_or(()))
        .transpose()
        .ok()?;
    let end = member(src, version.map_or(last.1, |v| v.1) + 1, b"}", is_event_key)?;
    let text = |(at, end): (usize, usize)| sub(src, at, end);
    let raw = |(at, end): (usize, usize)| Raw::new(at, end - at, RawKind::Str);
    let msg = BookMsg {
        asset_id: text(asset)?,
        market: text(market)?,
        timestamp_ms: digits_u64(b, ts.0, ts.1 - ts.0),
        hash: Some(text(hash)?),
        bids: Levels::new(src, bids, "bids"),
        asks: Levels::new(src, asks, "asks"),
        tick_size: opt_tick(src, &raw(tick), "tick_size").ok()?,
        last_trade_price: opt_price(src, &raw(last), "last_trade_price").ok()?,
        version: version.and_then(text),
        json: sub(src, start, end)?,
    };
    Some((EventView::Book(msg), end))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::read;
    use crate::decode::lists::tests::Recorder;
    use crate::decode::tests::{
        exchange_book, exchange_entry, exchange_message_of, members, value,
    };
    use crate::decode::{EventView, Events, general};
    use crate::json::Cursor;

    /// What the general reader makes of `frame` (one object), with what it hands the sink.
    fn general_read(frame: &str) -> (String, Vec<String>) {
        let mut rec = Recorder::default();
        let got = general(&mut Cursor::new(frame, 1), &mut rec, 0, true);
        (format!("{got:?}"), rec.0)
    }

    /// What the fast path makes of `frame`: the event as the decoder returns it, the sink's
    /// record, and whether the frame was read to its end.
    fn fast_read(frame: &str) -> Option<(String, Vec<String>)> {
        let mut rec = Recorder::default();
        let (event, end) = read(frame, 0, &mut rec)?;
        assert_eq!(end, frame.len(), "{frame}");
        Some((format!("{:?}", Ok::<EventView<'_>, ()>(event)), rec.0))
    }

    /// A random exchange message: a book of 0–5 levels a side, or a `price_change` of 0–4
    /// entries.
    fn exchange(next: &mut dyn FnMut(u64) -> u64) -> String {
        if next(2) == 0 {
            let levels = next(6) as usize;
            exchange_book(next, levels)
        } else {
            let entries: Vec<String> = (0..next(5) as usize)
                .map(|i| exchange_entry(next, i))
                .collect();
            exchange_message_of(next, &entries)
        }
    }

    /// The exchange's exact layouts take the fast path, with the general reader's result (the
    /// event, every level or entry handed to the sink, in order) — and so does a message with
    /// members no event reads added anywhere (any JSON value; the REST book's keys), or entries
    /// with such members added anywhere after their first: they are skipped in place, so the
    /// message is read once.
    #[test]
    fn exact_layouts_take_the_fast_path() {
        let mut next = crate::testutil::lcg(35);
        for round in 0..3_000 {
            let mut exact = exchange(&mut next);
            // The docs' layout, `event_type` first: added members go after `market`.
            let lead = round % 2 == 1 && exact.ends_with(",\"event_type\":\"price_change\"}");
            if lead {
                exact = exact
                    .replacen(",\"event_type\":\"price_change\"}", "}", 1)
                    .replacen("{", "{\"event_type\":\"price_change\",", 1);
            }
            let mut m = members(&exact);
            if round % 3 > 0 {
                let first = if lead { 2 } else { 0 };
                let at = first + next(m.len() as u64 + 1 - first as u64) as usize;
                let name = ["min_order_size", "neg_risk", "fees", "x"][next(4) as usize];
                m.insert(at, format!("\"{name}\":{}", value(&mut next, 0)));
            }
            if round % 3 == 2 && exact.contains("price_changes") {
                let (at, v) = (1 + next(7) as usize, value(&mut next, 0));
                for member in &mut m {
                    if let Some(list) = member.strip_prefix("\"price_changes\":[") {
                        // The generated entries hold no nested objects.
                        let list = list.trim_end_matches(']');
                        let entries: Vec<String> = list
                            .split("},{")
                            .filter(|e| !e.is_empty())
                            .map(|e| {
                                let e = format!(
                                    "{{{}}}",
                                    e.trim_start_matches('{').trim_end_matches('}')
                                );
                                let mut e = members(&e);
                                e.insert(at, format!("\"fee_rate_bps\":{v}"));
                                format!("{{{}}}", e.join(","))
                            })
                            .collect();
                        *member = format!("\"price_changes\":[{}]", entries.join(","));
                    }
                }
            }
            let frame = format!("{{{}}}", m.join(","));
            let fast = fast_read(&frame).unwrap_or_else(|| panic!("missed {frame}"));
            assert_eq!(fast, general_read(&frame), "{frame}");
        }
    }

    /// Whatever the fast path accepts, it reads as the general reader does; what it misses,
    /// the decoder still reads as the general reader does. Frames: exchange messages with a
    /// member added anywhere (any JSON type, known keys of other events included), members
    /// reordered, a key renamed or escaped, a value of another type, spaces, another
    /// `event_type`, cut short.
    #[test]
    fn the_fast_path_agrees_with_the_general_reader() {
        let mut next = crate::testutil::lcg(135);
        let mut missed = 0;
        for _ in 0..6_000 {
            let exact = exchange(&mut next);
            let mut m = members(&exact);
            let frame = match next(9) {
                0 => {
                    let at = next(m.len() as u64 + 1) as usize;
                    let name = [
                        "fees",
                        "asset_id",
                        "hash",
                        "timestamp",
                        "event_type",
                        "type",
                        "bids",
                        "price_changes",
                        "neg_risk",
                    ][next(9) as usize];
                    m.insert(at, format!("\"{name}\":{}", value(&mut next, 0)));
                    format!("{{{}}}", m.join(","))
                }
                1 => {
                    for i in (1..m.len()).rev() {
                        m.swap(i, next(i as u64 + 1) as usize);
                    }
                    format!("{{{}}}", m.join(","))
                }
                2 => exact.replacen("\"timestamp\"", "\"time\\u0073tamp\"", 1),
                3 => exact.replacen("\"tick_size\":\"0.001\"", "\"tick_size\":0.001", 1),
                4 => exact.replacen(',', ", ", 1 + next(3) as usize),
                5 => exact.replacen("\"book\"", "\"price_change\"", 1).replacen(
                    "\"price_change\"}",
                    "\"book\"}",
                    1,
                ),
                6 => exact[..2 + next(exact.len() as u64 - 2) as usize].to_string(),
                7 => exact.replacen(
                    "\"last_trade_price\":\"0.4",
                    "\"last_trade_price\":\"1.4",
                    1,
                ),
                _ => exact.replacen("\"0x", "\"0\\u0078", 1),
            };
            let want = general_read(&frame);
            match fast_read(&frame) {
                Some(got) => assert_eq!(got, want, "{frame}"),
                None => missed += 1,
            }
            // The decoder (fast path, then the general reader) gives the general reader's
            // answer either way.
            let mut rec = Recorder::default();
            let got = Events::new(&frame).next_with(&mut rec).unwrap();
            assert_eq!((format!("{got:?}"), rec.0), want, "{frame}");
        }
        assert!(missed > 1_000, "{missed}");
    }
}
