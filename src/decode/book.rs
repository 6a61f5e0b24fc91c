//! A `book` object read without the general object machinery: the keys a snapshot has are
//! recognised from one 16-byte read each, values are captured where they lie, and the
//! [`BookMsg`] is built straight from those captures.
//!
//! Any key order and any whitespace between tokens are accepted, and keys that no event reads
//! are skipped in place wherever they stand, so a feed that adds a field costs the bytes of
//! that field, not a second decode. Anything else — a known key whose value is not a plain string, an
//! `event_type` other than `book`, a field that does not convert, broken JSON — returns
//! `None`, and the general reader decodes (or reports) the element from its start, with the
//! same result on the objects this reader accepts (tested below).

use super::events::BookMsg;
use super::lists::{Levels, Span, book_levels, lit, plain_end_guess, word8_padded};
use super::skip::{next_member, skip_member};
use super::{Sink, opt_price, opt_tick, opt_u64};
use crate::decode::json::{
    HASH_LEN, ID_LEN, MARKET_LEN, Raw, RawKind, TIMESTAMP_LEN, skip_ws, sub,
};
use crate::types::Side;

/// The keys of a `book` object.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Key {
    Market,
    AssetId,
    Timestamp,
    Hash,
    Bids,
    Asks,
    TickSize,
    EventType,
    LastTradePrice,
    Version,
}

/// A key as [`key`] matches it: its name and closing quote as the little-endian `u128` of the
/// 16 bytes after the opening quote, the mask of the bytes that must match, and the name's
/// length. (A 16-byte name leaves its quote to a separate check.) The low four bytes are the
/// dispatch.
#[derive(Clone, Copy)]
pub(super) struct Pattern {
    pub(super) bytes: u128,
    pub(super) mask: u128,
    pub(super) len: usize,
}

pub(super) const fn pattern(name: &[u8]) -> Pattern {
    let mut bytes = [0u8; 16];
    let mut i = 0;
    while i < name.len() && i < 16 {
        bytes[i] = name[i];
        i += 1;
    }
    if name.len() < 16 {
        bytes[name.len()] = b'"';
    }
    let n = name.len() + 1;
    let mask = if n >= 16 {
        u128::MAX
    } else {
        (1u128 << (8 * n)) - 1
    };
    Pattern {
        bytes: u128::from_le_bytes(bytes),
        mask,
        len: name.len(),
    }
}

/// The key whose opening quote is at `p`, and the index after its closing quote. `None` for
/// any other key (escaped spellings included).
#[inline(always)]
fn key(b: &[u8], p: usize) -> Option<(Key, usize)> {
    const MARKET: Pattern = pattern(b"market");
    const ASSET_ID: Pattern = pattern(b"asset_id");
    const TIMESTAMP: Pattern = pattern(b"timestamp");
    const HASH: Pattern = pattern(b"hash");
    const BIDS: Pattern = pattern(b"bids");
    const ASKS: Pattern = pattern(b"asks");
    const TICK_SIZE: Pattern = pattern(b"tick_size");
    const EVENT_TYPE: Pattern = pattern(b"event_type");
    const LAST_TRADE_PRICE: Pattern = pattern(b"last_trade_price");
    const VERSION: Pattern = pattern(b"version");
    const P_MARK: u32 = MARKET.bytes as u32;
    const P_ASSE: u32 = ASSET_ID.bytes as u32;
    const P_TIME: u32 = TIMESTAMP.bytes as u32;
    const P_HASH: u32 = HASH.bytes as u32;
    const P_BIDS: u32 = BIDS.bytes as u32;
    const P_ASKS: u32 = ASKS.bytes as u32;
    const P_TICK: u32 = TICK_SIZE.bytes as u32;
    const P_EVEN: u32 = EVENT_TYPE.bytes as u32;
    const P_LAST: u32 = LAST_TRADE_PRICE.bytes as u32;
    const P_VERS: u32 = VERSION.bytes as u32;
    if b.get(p) != Some(&b'"') {
        return None;
    }
    // Zero padding past the frame's end matches no key.
    let lo = word8_padded(b, p + 1)?;
    let w = u128::from(lo) | u128::from(word8_padded(b, p + 9).unwrap_or(0)) << 64;
    let (key, pat) = match lo as u32 {
        P_MARK => (Key::Market, MARKET),
        P_ASSE => (Key::AssetId, ASSET_ID),
        P_TIME => (Key::Timestamp, TIMESTAMP),
        P_HASH => (Key::Hash, HASH),
        P_BIDS => (Key::Bids, BIDS),
        P_ASKS => (Key::Asks, ASKS),
        P_TICK => (Key::TickSize, TICK_SIZE),
        P_EVEN => (Key::EventType, EVENT_TYPE),
        P_LAST => (Key::LastTradePrice, LAST_TRADE_PRICE),
        P_VERS => (Key::Version, VERSION),
        _ => return None,
    };
    if w & pat.mask != pat.bytes || (pat.len == 16 && b.get(p + 17) != Some(&b'"')) {
        return None;
    }
    Some((key, p + pat.len + 2))
}

/// Stores a captured value in its slot; the index after it.
#[inline(always)]
fn keep(slot: &mut Raw, (raw, next): (Raw, usize)) -> usize {
    *slot = raw;
    next
}

/// A plain string value (no escape, no control byte) whose opening quote is at `p`, predicted
/// to be `N` bytes long: its capture and the index after its closing quote.
#[inline(always)]
fn string<const N: usize>(b: &[u8], p: usize) -> Option<(Raw, usize)> {
    if b.get(p) != Some(&b'"') {
        return None;
    }
    let end = plain_end_guess::<N>(b, p + 1)?;
    Some((Raw::new(p + 1, end - p - 1, RawKind::Str), end + 1))
}

/// The members [`book_object`] captures.
#[derive(Clone, Copy, Debug, Default)]
struct Captures {
    /// `"event_type":"book"` was read.
    is_book: bool,
    asset_id: Raw,
    market: Raw,
    timestamp: Raw,
    hash: Raw,
    tick_size: Raw,
    last_trade_price: Raw,
    version: Raw,
    bids: Option<Span>,
    asks: Option<Span>,
}

/// The `book` object whose `{` is at `start`, when it has only the keys of a snapshot (others
/// that no event reads are skipped), plain string values and `"event_type":"book"`: the
/// message and the index after its `}`. Levels go to `sink` as they are read; on `None` the
/// caller resets the sink. Out of line: inlined into the element reader, it made the general
/// reader of the other events slower.
#[inline(never)]
pub(crate) fn book_object<'a, S: Sink>(
    src: &'a str,
    start: usize,
    sink: &mut S,
) -> Option<(BookMsg<'a>, usize)> {
    let b = src.as_bytes();
    let mut caps = Captures::default();
    let mut p = skip_ws(b, start + 1);
    let end = loop {
        let Some((k, after)) = key(b, p) else {
            // A key a snapshot does not have: skipped in place when no event reads it, so a
            // feed that adds a field anywhere, first included (or the REST book's
            // `min_order_size`/`neg_risk`), is not decoded twice. Another event's key (a
            // `price_change`'s `price_changes`) ends the reader here.
            let next = skip_member(src, p)?;
            match next_member(b, next) {
                Ok(q) => p = q,
                Err(q) if b.get(q) == Some(&b'}') => break q,
                Err(_) => return None,
            }
            continue;
        };
        let colon = skip_ws(b, after);
        if b.get(colon) != Some(&b':') {
            return None;
        }
        let v = skip_ws(b, colon + 1);
        let next = match k {
            Key::Bids | Key::Asks => {
                let (side, slot) = if k == Key::Bids {
                    (Side::Buy, &mut caps.bids)
                } else {
                    (Side::Sell, &mut caps.asks)
                };
                let (span, next) = book_levels(src, v, side, sink).ok()?;
                *slot = Some(span);
                next
            }
            Key::EventType => {
                caps.is_book = true;
                lit(b, v, b"\"book\"")?
            }
            Key::AssetId => keep(&mut caps.asset_id, string::<ID_LEN>(b, v)?),
            Key::Market => keep(&mut caps.market, string::<MARKET_LEN>(b, v)?),
            Key::Timestamp => keep(&mut caps.timestamp, string::<TIMESTAMP_LEN>(b, v)?),
            Key::Hash => keep(&mut caps.hash, string::<HASH_LEN>(b, v)?),
            Key::TickSize => keep(&mut caps.tick_size, string::<0>(b, v)?),
            Key::LastTradePrice => keep(&mut caps.last_trade_price, string::<0>(b, v)?),
            Key::Version => keep(&mut caps.version, string::<0>(b, v)?),
        };
        match next_member(b, next) {
            Ok(q) => p = skip_ws(b, q),
            Err(q) if b.get(q) == Some(&b'}') => break q,
            Err(_) => return None,
        }
    };
    let c = &caps;
    // Every check before anything is built.
    let (
        (true, RawKind::Str, RawKind::Str),
        Some(bids),
        Some(asks),
        Ok(tick_size),
        Ok(last_trade_price),
        Some(json),
    ) = (
        (c.is_book, c.asset_id.kind, c.market.kind),
        c.bids,
        c.asks,
        opt_tick(src, &c.tick_size, "tick_size"),
        opt_price(src, &c.last_trade_price, "last_trade_price"),
        sub(src, start, end + 1),
    )
    else {
        return None;
    };
    let msg = BookMsg {
        asset_id: c.asset_id.text(src),
        market: c.market.text(src),
        timestamp_ms: opt_u64(src, &c.timestamp),
        hash: (c.hash.kind == RawKind::Str).then(|| c.hash.text(src)),
        bids: Levels::new(src, bids, "bids"),
        asks: Levels::new(src, asks, "asks"),
        tick_size,
        last_trade_price,
        version: (c.version.kind == RawKind::Str).then(|| c.version.text(src)),
        json,
    };
    Some((msg, end + 1))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::decode::general;
    use crate::decode::json::Cursor;
    use crate::decode::lists::tests::Recorder;

    /// [`crate::testutil::lcg`] with a helper for digit strings.
    struct Rng(Box<dyn FnMut(u64) -> u64>);

    impl Rng {
        fn new(seed: u64) -> Self {
            Self(Box::new(crate::testutil::lcg(seed)))
        }
        fn below(&mut self, n: u64) -> u64 {
            (self.0)(n)
        }
        /// `fixed` digits and up to `extra` more.
        fn digits(&mut self, fixed: u64, extra: u64) -> String {
            let n = fixed + if extra > 0 { self.below(extra + 1) } else { 0 };
            (0..n)
                .map(|_| char::from(b'0' + self.below(10) as u8))
                .collect()
        }
    }

    /// The whitespace of one layout: after `{`/`[`, around `:`, after `,`, before `}`/`]`.
    #[derive(Clone, Copy)]
    struct Layout {
        open: &'static str,
        colon: &'static str,
        comma: &'static str,
        close: &'static str,
    }

    const LAYOUTS: [Layout; 5] = [
        // The exchange.
        Layout {
            open: "",
            colon: ":",
            comma: ",",
            close: "",
        },
        // Python's `json.dumps` default, the nautilus strings' levels.
        Layout {
            open: "",
            colon: ": ",
            comma: ", ",
            close: "",
        },
        // `json.dumps(indent=…)`, the captured snapshot.
        Layout {
            open: "\n  ",
            colon: ": ",
            comma: ",\n  ",
            close: "\n",
        },
        Layout {
            open: "\n        ",
            colon: ": ",
            comma: ",\n        ",
            close: "\n    ",
        },
        // Odd but valid.
        Layout {
            open: " \t",
            colon: " :\r\n",
            comma: " ,\t",
            close: "\r\n ",
        },
    ];

    fn object(l: Layout, members: &[(String, String)]) -> String {
        let body: Vec<String> = members
            .iter()
            .map(|(k, v)| format!("\"{k}\"{}{v}", l.colon))
            .collect();
        format!("{{{}{}{}}}", l.open, body.join(l.comma), l.close)
    }

    fn levels(rng: &mut Rng, l: Layout, level_layout: Layout) -> String {
        let n = rng.below(7);
        let items: Vec<String> = (0..n)
            .map(|_| {
                let price = match rng.below(12) {
                    0 => "x".to_string(),
                    1 => "1".to_string(),
                    _ => format!("0.{}", rng.digits(1, 2)),
                };
                let size = format!("{}.{}", rng.digits(1, 5), rng.digits(0, 2));
                let size = size.trim_end_matches('.').to_string();
                let members = [
                    ("price".to_string(), format!("\"{price}\"")),
                    ("size".to_string(), format!("\"{size}\"")),
                ];
                object(level_layout, &members)
            })
            .collect();
        if items.is_empty() {
            return "[]".into();
        }
        format!("[{}{}{}]", l.open, items.join(l.comma), l.close)
    }

    /// Members a feed may add: the REST book's keys and new fields of every JSON type.
    const NEW_FIELDS: [(&str, &str); 9] = [
        ("min_order_size", "\"5\""),
        ("neg_risk", "false"),
        ("fees", r#"{"taker_bps":"0","tiers":[1,2.5,{"x":null}]}"#),
        ("tags", r#"["a","b\"c",[]]"#),
        ("line", "-12.5e3"),
        ("live", "true"),
        ("note", "null"),
        ("n", "0"),
        ("\\u006eew", "{}"),
    ];

    /// A snapshot with every key a `book` may have, in a random order and layout, with
    /// optional keys left out at random. `None` marks the members a valid book needs.
    fn snapshot(rng: &mut Rng) -> (String, bool) {
        let l = LAYOUTS[rng.below(LAYOUTS.len() as u64) as usize];
        let ll = LAYOUTS[rng.below(2) as usize];
        let mut members = vec![
            ("market".to_string(), format!("\"0x{}\"", rng.digits(64, 0))),
            ("asset_id".to_string(), format!("\"{}\"", rng.digits(70, 8))),
            ("bids".to_string(), levels(rng, l, ll)),
            // Now and then the two arrays differ in layout.
            ("asks".to_string(), {
                let (l, ll) = if rng.below(4) == 0 {
                    (
                        LAYOUTS[rng.below(5) as usize],
                        LAYOUTS[rng.below(2) as usize],
                    )
                } else {
                    (l, ll)
                };
                levels(rng, l, ll)
            }),
            ("event_type".to_string(), "\"book\"".to_string()),
        ];
        let optional = [
            ("timestamp", format!("\"{}\"", rng.digits(13, 0))),
            ("hash", format!("\"{}\"", rng.digits(40, 0))),
            (
                "tick_size",
                ["\"0.01\"", "\"0.001\"", "\"\"", "\"0.1\""][rng.below(4) as usize].to_string(),
            ),
            (
                "last_trade_price",
                ["\"0.45\"", "\"\"", "\"0.920\""][rng.below(3) as usize].to_string(),
            ),
        ];
        for (k, v) in optional {
            if rng.below(4) != 0 {
                members.push((k.to_string(), v));
            }
        }
        for i in (1..members.len()).rev() {
            members.swap(i, rng.below(i as u64 + 1) as usize);
        }
        let mut valid = true;
        let frame = match rng.below(16) {
            0 => {
                let (k, v) = [
                    ("price", "\"0.5\""),
                    ("type", "\"TRADE\""),
                    ("price_changes", "[]"),
                ][rng.below(3) as usize];
                let at = rng.below(members.len() as u64 + 1) as usize;
                members.insert(at, (k.into(), v.into()));
                valid = false;
                object(l, &members)
            }
            14 | 15 => {
                // Fields a snapshot does not have, of every JSON type, anywhere after the
                // first key a `price_change` does not have: still a valid book, which the
                // reader must take without giving up. (Before that key it leaves the object
                // to the general reader, which may be a `price_change`'s.)
                let first = members
                    .iter()
                    .position(|(k, _)| k != "market" && k != "timestamp")
                    .unwrap();
                for _ in 0..=rng.below(3) {
                    let (k, v) = NEW_FIELDS[rng.below(NEW_FIELDS.len() as u64) as usize];
                    let at = first + 1 + rng.below((members.len() - first) as u64) as usize;
                    members.insert(at, (k.into(), v.into()));
                }
                object(l, &members)
            }
            1 => {
                let i = members.iter().position(|(k, _)| k == "bids").unwrap();
                members[i].0 = "bi\\u0064s".into();
                valid = false;
                object(l, &members)
            }
            2 => {
                let i = rng.below(members.len() as u64) as usize;
                members[i].1 = ["1703875200000", "null", "{}", "\"b\\\"\"", "true"]
                    [rng.below(5) as usize]
                    .into();
                valid = false;
                object(l, &members)
            }
            3 => {
                let i = members.iter().position(|(k, _)| k == "event_type").unwrap();
                members[i].1 =
                    ["\"price_change\"", "\"books\"", "\"boo\""][rng.below(3) as usize].into();
                valid = false;
                object(l, &members)
            }
            4 => {
                members.remove(rng.below(members.len() as u64) as usize);
                valid = false;
                object(l, &members)
            }
            5 => {
                let i = rng.below(members.len() as u64) as usize;
                let dup = members[i].clone();
                members.push(dup);
                object(l, &members)
            }
            6 => {
                let s = object(l, &members);
                valid = false;
                s[..rng.below(s.len() as u64) as usize].to_string()
            }
            7 => {
                let s = object(l, &members);
                let at = rng.below(s.len() as u64) as usize;
                valid = false;
                if s.is_char_boundary(at) {
                    format!(
                        "{}{}{}",
                        &s[..at],
                        ["\"", ",", "}", "]", " x"][rng.below(5) as usize],
                        &s[at..]
                    )
                } else {
                    s
                }
            }
            8 => format!("{} , {{}}", object(l, &members)),
            9 => {
                // Other events, which the `book` reader must give up.
                let i = members.iter().position(|(k, _)| k == "event_type").unwrap();
                if rng.below(2) == 0 {
                    members[i].1 = "\"price_change\"".into();
                    let at = rng.below(members.len() as u64 + 1) as usize;
                    members.insert(at, ("price_changes".into(), "[]".into()));
                } else {
                    members[i] = ("type".into(), "\"TRADE\"".into());
                }
                valid = false;
                object(l, &members)
            }
            _ => object(l, &members),
        };
        (frame, valid)
    }

    /// Whenever the `book` reader accepts an object, the general reader decodes it to the same
    /// event (every field, the level spans, the JSON text), hands the sink the same levels and
    /// ends at the same byte; it accepts every valid snapshot with plain string values, in
    /// every layout, with fields it does not know anywhere (so a feed that adds one is never
    /// decoded twice). Objects are random: key order, optional keys, layouts, bad levels,
    /// new fields of every type, and mutations (escaped, duplicate or missing keys, other
    /// value types, other event types, inserted bytes, truncation, text after the object).
    #[test]
    fn book_object_agrees_with_the_general_reader() {
        let mut rng = Rng::new(3);
        let mut accepted = 0;
        for _ in 0..20_000 {
            let (frame, valid) = snapshot(&mut rng);
            let mut fast_sink = Recorder::default();
            let fast = book_object(&frame, 0, &mut fast_sink);
            if valid {
                assert!(fast.is_some(), "gave up on {frame}");
            }
            let Some((msg, end)) = fast else { continue };
            accepted += 1;
            let mut slow_sink = Recorder::default();
            let mut c = Cursor::new(&frame, 1);
            let slow = general(&mut c, &mut slow_sink, 0, false);
            let fast = Ok::<_, crate::decode::json::DecodeError>(crate::decode::Event::Book(msg));
            assert_eq!(format!("{fast:?}"), format!("{slow:?}"), "{frame}");
            assert_eq!(end, c.pos, "{frame}");
            assert_eq!(fast_sink.0, slow_sink.0, "{frame}");
        }
        assert!(accepted > 8_000, "accepted only {accepted}");
    }
}
