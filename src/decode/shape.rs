//! The member order a feed has been sending its `price_change` messages in, learned.
//!
//! The layout reader ([`compact_price_change`]) reads the exchange's order as straight-line
//! literal compares. When the exchange adds a member to its messages or changes their order,
//! every message after that has the new shape, and the keyed reader, which finds each member
//! by its key, took all of them (1.3–1.4× the layout's cost). So the keyed reader records the
//! order it met (a code per member, [`push`]), and from the next message on
//! [`ordered_price_change`] reads that order as the layout reader reads the exchange's: the
//! literal of the member expected next, its value, and a member no event reads skipped in
//! place — no key lookup, nothing read twice.
//!
//! Three shapes are kept as modes of the layout reader rather than as orders: members in front
//! of the exchange's layout ([`LEADING`]: skipped in place, then the layout reader; members
//! after it the layout reader skips itself, so an order that is the exchange's with only such
//! members around it is never kept as an order), members between its own ([`SEAMS`]: the
//! layout reader skips them where it finds them), and the next one.
//!
//! A member added inside the entries is the same story one level down: the layout reader
//! stops at it and finishes the entry skipping it in place, which costs the stop and the
//! hand-over on every message; so such a message is remembered too ([`SKIPPING_ENTRIES`]), and
//! the next ones are read by the skipping entry reader from their first entry.
//!
//! The order is kept per thread (a feed is read on one thread; a `price_change` has one shape
//! at a time). It only ever decides what is tried first: every member's key and value is
//! checked as the other readers check them, so a message in any other shape — a `book`, a
//! message back in the exchange's layout — reads exactly as before, where the learned reader
//! stopped (nothing it delivered is read again). The exchange's own layout is never recorded:
//! while no other order has been seen, the decoder's only extra work is one thread-local load.

use core::cell::Cell;

use super::Sink;
use super::is_event_key;
use super::json::{MARKET_LEN, Raw, RawKind, TIMESTAMP_LEN, skip_ws};
use super::lists::{
    At, CompactPriceChange, Mode, PcCaps, Resume, compact_change, compact_price_change, entries_at,
    keyed_price_change, leading_price_change, lit, plain_end_guess, seams_price_change,
    skipping_price_change,
};
use super::skip::{key_at, skip_value};

/// `"market"`, as a code of a message's member order (four bits each, the first member in the
/// lowest; 0 ends the order).
pub(super) const MARKET: u64 = 1;
/// `"price_changes"`.
pub(super) const PRICE_CHANGES: u64 = 2;
/// `"timestamp"`.
pub(super) const TIMESTAMP: u64 = 3;
/// `"event_type"`.
pub(super) const EVENT_TYPE: u64 = 4;
/// A member no event reads (a field the exchange added): skipped.
pub(super) const OTHER: u64 = 5;
/// The exchange's layout: `market`, `price_changes`, `timestamp`, `event_type`.
pub(super) const EXACT: u64 = MARKET | PRICE_CHANGES << 4 | TIMESTAMP << 8 | EVENT_TYPE << 12;
/// Not an order: the exchange's member order, with members no entry has in the entries
/// ([`skipping_price_change`] reads them).
pub(crate) const SKIPPING_ENTRIES: u64 = 0xF;
/// Not a code: members no event reads, then the exchange's layout (and maybe more such
/// members after it): [`leading_price_change`] skips the first ones and the layout reader
/// reads the rest.
pub(crate) const LEADING: u64 = 0xE;
/// Not a code: the exchange's layout with members no event reads between its members (and
/// maybe after them): [`seams_price_change`] skips them where the layout reader finds them.
pub(crate) const SEAMS: u64 = 0xD;
/// An order that could not be recorded (more than 16 members, or a reader that did not see
/// them all).
pub(super) const UNKNOWN: u64 = u64::MAX;

thread_local! {
    /// The order learned on this thread; 0: the exchange's layout.
    static LEARNED: Cell<u64> = const { Cell::new(0) };
}

/// How many codes `seq` holds.
fn count(seq: u64) -> u32 {
    (64 - seq.leading_zeros()).div_ceil(4)
}

/// `seq` with `code` after its codes.
#[inline(always)]
pub(super) fn push(seq: u64, code: u64) -> u64 {
    let n = count(seq);
    if seq == UNKNOWN || n == 16 {
        return UNKNOWN;
    }
    seq | code << (4 * n)
}

/// The codes of `a` then those of `b`.
pub(super) fn concat(a: u64, b: u64) -> u64 {
    let n = count(a);
    if a == UNKNOWN || b == UNKNOWN || n + count(b) > 16 {
        return UNKNOWN;
    }
    a | b.checked_shl(4 * n).unwrap_or(0)
}

/// A recorded order as a result reports it: 0 when unknown (nothing to learn).
pub(super) fn finished(seq: u64) -> u64 {
    if seq == UNKNOWN { 0 } else { seq }
}

/// The order learned on this thread, 0 for the exchange's.
#[inline(always)]
pub(crate) fn learned() -> u64 {
    LEARNED.with(Cell::get)
}

/// Keeps the order of a message a reader read whole (`seq`, 0: not recorded); an order the
/// layout reader reads, maybe after skipping members in front, as such.
#[inline]
pub(crate) fn learn(seq: u64) {
    if seq != 0 {
        LEARNED.with(|l| l.set(layout_reads(seq).unwrap_or(seq)));
    }
}

/// The exchange's order, maybe after members no event reads, maybe followed by some (which
/// the layout reader skips): 0 when nothing is in front, [`LEADING`] otherwise; `None` for
/// other orders.
fn layout_reads(seq: u64) -> Option<u64> {
    if seq == SKIPPING_ENTRIES {
        return None;
    }
    let mut s = seq;
    let mut lead = false;
    while s & 15 == OTHER {
        s >>= 4;
        lead = true;
    }
    while s != 0 && s >> (4 * (count(s) - 1)) == OTHER {
        s &= (1 << (4 * (count(s) - 1))) - 1;
    }
    // The exchange's members, in its order, with others between them.
    let (mut own, mut n, mut between) = (0, 0, false);
    while s != 0 {
        let code = s & 15;
        s >>= 4;
        if code == OTHER {
            between = true;
        } else {
            own |= code << (4 * n);
            n += 1;
        }
    }
    match (own == EXACT, lead, between) {
        (true, false, false) => Some(0),
        (true, true, false) => Some(LEADING),
        (true, false, true) => Some(SEAMS),
        // Members in front and between: the learned order.
        _ => None,
    }
}

/// The `price_change` message whose `{` is at `start`, read in the learned order `layout`
/// first; where the message has another shape, the other readers take it from where this one
/// stopped (from the start when it stopped at the first member). `None`: the general reader
/// decodes the element (the caller resets the sink). Learns the order of what it read.
#[inline(never)]
pub(crate) fn price_change<S: Sink>(
    src: &str,
    start: usize,
    layout: u64,
    sink: &mut S,
) -> Option<CompactPriceChange> {
    if layout == LEADING {
        return leading_price_change(src, start, sink);
    }
    if layout == SEAMS {
        return match seams_price_change(src, start, sink) {
            Ok(pc) => Some(pc),
            Err(r) => keyed_price_change(src, sink, r),
        };
    }
    if layout == SKIPPING_ENTRIES {
        return match skipping_price_change(src, start, sink) {
            Ok(pc) => Some(pc),
            Err(r) => keyed_price_change(src, sink, r),
        };
    }
    match ordered_price_change(src, start, layout, sink) {
        Ok(pc) => Some(pc),
        Err(None) => match compact_price_change(src, start, sink) {
            Ok(pc) => {
                // Back to the exchange's layout.
                learn(EXACT);
                Some(pc)
            }
            Err(r) => keyed_price_change(src, sink, r),
        },
        Err(Some(r)) => keyed_price_change(src, sink, r),
    }
}

/// The message at `start` in the order `layout`, compact (no whitespace), as the layout
/// reader reads the exchange's: `Err(None)` when the first member is not the one expected
/// (nothing was read), `Err(Some(resume))` where another member stands or a value is not what
/// the fast readers take (the keyed reader continues after the last member read; the entries
/// delivered stay delivered).
#[inline(always)]
fn ordered_price_change<S: Sink>(
    src: &str,
    start: usize,
    layout: u64,
    sink: &mut S,
) -> Result<CompactPriceChange, Option<Resume>> {
    let b = src.as_bytes();
    let mut caps = PcCaps::default();
    // The `{` or `,` before the next member.
    let mut q = start;
    let mut rest = layout;
    let mut read = 0;
    while rest != 0 {
        let sep = if read == 0 { b'{' } else { b',' };
        let next = if b.get(q) == Some(&sep) {
            member(src, q + 1, rest & 15, &mut caps, sink)
        } else {
            Some(Step::Other)
        };
        match next {
            Some(Step::Read(end)) => q = end,
            Some(Step::Other) if read == 0 => return Err(None),
            Some(Step::Other) => {
                caps.seq = layout & ((1 << (4 * read)) - 1);
                return Err(Some(Resume::at(caps, At::After(q))));
            }
            // The entries were read and one was not taken: the general reader decides.
            None => return Err(Some(Resume::fail())),
        }
        rest >>= 4;
        read += 1;
    }
    let whole = caps.is_pc && caps.market.kind == RawKind::Str && caps.items.is_some();
    match (b.get(q), caps.items) {
        (Some(b'}'), Some(items)) if whole => Ok(CompactPriceChange {
            market: caps.market,
            timestamp: caps.timestamp,
            items,
            end: q + 1,
        }),
        _ => {
            caps.seq = layout;
            Err(Some(Resume::at(caps, At::After(q))))
        }
    }
}

/// The entries from the first one at `q` to the index after the `]`, each to `sink`: in the
/// exchange's layout (members entries do not have skipped in place) as
/// [`compact_price_change`] reads them, from the first one that is not on keyed
/// ([`entries_at`]).
#[inline(always)]
fn entries<S: Sink>(src: &str, mut q: usize, sink: &mut S) -> Option<usize> {
    let b = src.as_bytes();
    loop {
        let Some((change, end)) = compact_change(src, q) else {
            return entries_at(src, q, Mode::Keyed, sink);
        };
        if S::CAPTURE {
            sink.change(Ok(change));
        }
        match b.get(end) {
            Some(b',') => q = end + 1,
            Some(b']') => return Some(end + 1),
            // Whitespace or broken JSON: the general reader decides.
            _ => return None,
        }
    }
}

/// What reading one member did.
enum Step {
    /// Read; the index after its value.
    Read(usize),
    /// Another member stands here, or its value is not one the fast readers take: nothing
    /// read.
    Other,
}

/// The member of code `code` whose key's quote is at `p`, into `caps` (entries to `sink`).
/// `None` when the entries were read but one was not taken.
#[inline(always)]
fn member<S: Sink>(
    src: &str,
    p: usize,
    code: u64,
    caps: &mut PcCaps,
    sink: &mut S,
) -> Option<Step> {
    let b = src.as_bytes();
    let end = match code {
        MARKET => lit(b, p, b"\"market\":\"").and_then(|at| {
            let end = plain_end_guess::<MARKET_LEN>(b, at)?;
            caps.market = Raw::new(at, end - at, RawKind::Str);
            Some(end + 1)
        }),
        PRICE_CHANGES => match lit(b, p, b"\"price_changes\":[") {
            Some(items) => {
                caps.items = Some(items);
                if b.get(items) == Some(&b']') {
                    Some(items + 1)
                } else {
                    return entries(src, items, sink).map(Step::Read);
                }
            }
            None => None,
        },
        TIMESTAMP => lit(b, p, b"\"timestamp\":\"").and_then(|at| {
            let end = plain_end_guess::<TIMESTAMP_LEN>(b, at)?;
            caps.timestamp = Raw::new(at, end - at, RawKind::Str);
            Some(end + 1)
        }),
        EVENT_TYPE => lit(b, p, b"\"event_type\":\"price_change\"").inspect(|_| caps.is_pc = true),
        _ => key_at(src, p)
            .filter(|(key, _)| !is_event_key(key))
            .and_then(|(_, v)| skip_value(src, skip_ws(b, v))),
    };
    Some(end.map_or(Step::Other, Step::Read))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::super::lists::tests::Recorder;
    use super::super::lists::{ENTRY_READS, SEAM_SKIPS};
    use super::super::tests::{GENERAL_READS, exchange_entry, exchange_message_of, members, value};
    use super::super::{Cursor, Events, general};
    use super::*;

    /// A `price_change` in the exchange's layout with `n` entries of fresh values.
    fn exchange_message(next: &mut dyn FnMut(u64) -> u64, n: usize) -> String {
        let entries: Vec<String> = (0..n).map(|i| exchange_entry(next, i)).collect();
        exchange_message_of(next, &entries)
    }

    /// Decodes `frame` as the decoder does and as the general reader does: they must agree.
    /// Returns how many times the general reader ran and the entry reads.
    fn check(frame: &str) -> (usize, Vec<usize>) {
        let mut want_rec = Recorder::default();
        let want = general(&mut Cursor::new(frame, 1), &mut want_rec, 0, true);
        GENERAL_READS.with(|c| c.set(0));
        ENTRY_READS.with(|r| r.borrow_mut().clear());
        let mut rec = Recorder::default();
        let got = Events::new(frame).next_with(&mut rec).unwrap();
        assert_eq!(format!("{got:?}"), format!("{want:?}"), "{frame}");
        assert_eq!(rec.0, want_rec.0, "{frame}");
        (
            GENERAL_READS.with(Cell::get),
            ENTRY_READS.with(|r| r.borrow().clone()),
        )
    }

    /// Messages whose members changed order or gained members no event reads (of every JSON
    /// type, new values in every message) decode as the general reader decodes them whatever
    /// order the thread learned before. From a shape's second message on the learned order
    /// reads it — no general reader, each entry read once — and the thread keeps exactly that
    /// order (nothing for the exchange's layout); a `book` or another event in between changes
    /// nothing. Spaced messages (which the learned reader hands on) stay correct.
    #[test]
    fn learned_orders_read_like_the_general_reader() {
        let mut next = crate::testutil::lcg(33);
        let codes = [MARKET, PRICE_CHANGES, TIMESTAMP, EVENT_TYPE];
        let book = r#"{"event_type":"book","asset_id":"7","market":"0x1","bids":[{"price":"0.4","size":"1"}],"asks":[],"timestamp":"1","hash":"h"}"#;
        let mut learned_some = 0;
        for round in 0..3_000 {
            // The shape: an order of the four members (the exchange's one time in four) and
            // up to two members no event reads at fixed places.
            let mut order: Vec<usize> = (0..4).collect();
            if round % 4 != 0 {
                for i in (1..4).rev() {
                    order.swap(i, next(i as u64 + 1) as usize);
                }
            }
            let extra: Vec<(usize, &str)> = (0..next(3))
                .map(|k| {
                    (
                        next(5) as usize,
                        ["fees", "min_order_size", "x"][k as usize],
                    )
                })
                .collect();
            let spaced = round % 8 == 7;
            let mut expect = 0;
            let mut frames = Vec::new();
            for _ in 0..3 {
                let n = next(4) as usize;
                let exact = members(&exchange_message(&mut next, n));
                let mut top: Vec<(String, u64)> = order
                    .iter()
                    .map(|&i| (exact[i].clone(), codes[i]))
                    .collect();
                for &(at, name) in &extra {
                    let at = at.min(top.len());
                    top.insert(at, (format!("\"{name}\":{}", value(&mut next, 0)), OTHER));
                }
                expect = top.iter().rev().fold(0, |seq, m| seq << 4 | m.1);
                let sep = if spaced { ", " } else { "," };
                let text: Vec<String> = top.into_iter().map(|m| m.0).collect();
                frames.push((format!("{{{}}}", text.join(sep)), n));
            }
            // Members appended to the exchange's layout are read by the layout reader itself
            // (nothing learned); members in front of it are skipped before it (`LEADING`),
            // members between its own where it finds them (`SEAMS`); both: the order.
            let mut known = expect;
            let mut lead = false;
            while known & 15 == OTHER {
                known >>= 4;
                lead = true;
            }
            while known >> (4 * (count(known) - 1)) == OTHER {
                known &= (1 << (4 * (count(known) - 1))) - 1;
            }
            let own: Vec<u64> = (0..count(known))
                .map(|i| known >> (4 * i) & 15)
                .filter(|&c| c != OTHER)
                .collect();
            let between = own.len() < count(known) as usize;
            let kept = match (own == codes, lead, between) {
                (true, false, false) => 0,
                (true, true, false) => LEADING,
                (true, false, true) => SEAMS,
                _ => expect,
            };
            for (k, (frame, n)) in frames.iter().enumerate() {
                if k == 2 {
                    // Another event between two messages of the shape.
                    let (general_reads, _) = check(book);
                    assert_eq!(general_reads, 0);
                }
                let (general_reads, reads) = check(frame);
                if k == 0 || spaced {
                    continue;
                }
                assert_eq!(general_reads, 0, "{frame}");
                let mut distinct = reads.clone();
                distinct.sort_unstable();
                distinct.dedup();
                assert_eq!((reads.len(), distinct.len()), (*n, *n), "{frame}");
                let now = learned();
                assert_eq!(now, kept, "{now:x} for {frame}");
            }
            learned_some += usize::from(kept != 0);
        }
        assert!(learned_some > 2_000, "{learned_some}");
    }

    /// A feed that added a member inside its entries (any place, any JSON type, new values in
    /// every message): from its first message on, the thread reads every entry skipping
    /// ([`SKIPPING_ENTRIES`]) — each entry started once, no general reader, the general
    /// reader's result; a `book` in between changes nothing, and a message back in the
    /// exchange's layout decodes as the general reader decodes it and ends the mode.
    #[test]
    fn entries_with_a_new_member_are_read_skipping() {
        let mut next = crate::testutil::lcg(35);
        let book = r#"{"event_type":"book","asset_id":"7","market":"0x1","bids":[{"price":"0.4","size":"1"}],"asks":[],"timestamp":"1","hash":"h"}"#;
        let mut skipping = 0;
        for round in 0..1_500 {
            let at = next(8) as usize;
            let name = ["fee_rate_bps", "tx", "k"][next(3) as usize];
            let message = |next: &mut dyn FnMut(u64) -> u64, add: bool| {
                let n = 1 + next(3) as usize;
                let entries: Vec<String> = (0..n)
                    .map(|i| {
                        let mut m = members(&exchange_entry(next, i));
                        if add {
                            m.insert(at, format!("\"{name}\":{}", value(next, 0)));
                        }
                        format!("{{{}}}", m.join(","))
                    })
                    .collect();
                (exchange_message_of(next, &entries), n)
            };
            for k in 0..4 {
                let add = k != 2 || round % 2 == 0;
                let (frame, n) = message(&mut next, add);
                if k == 3 {
                    let (general_reads, _) = check(book);
                    assert_eq!(general_reads, 0);
                }
                let before = learned();
                let (general_reads, mut reads) = check(&frame);
                assert_eq!(general_reads, 0, "{frame}");
                if k > 0 && before == SKIPPING_ENTRIES {
                    // Read skipping from the first entry: each started once.
                    assert_eq!(reads.len(), n, "{frame}");
                    reads.dedup();
                    assert_eq!(reads.len(), n, "{frame}");
                    // Kept while members stand between the layout's; a message whose entries
                    // are in the exchange's layout (or only have members after it, which the
                    // layout reader skips itself) goes back to the layout reader.
                    let inside = add && at < 7;
                    let kept = if inside { SKIPPING_ENTRIES } else { 0 };
                    assert_eq!(learned(), kept, "{frame}");
                    skipping += 1;
                }
            }
            // The next round starts from the exchange's layout.
            learn(EXACT);
        }
        assert!(skipping > 2_500, "{skipping}");
    }

    /// Members between the message's own (any JSON type, at any of the three places, new
    /// values in every message): from the second message on the layout reader skips them
    /// ([`SEAMS`]) — no general reader, each entry read once, the general reader's result — a
    /// message that also has one in front goes to the keyed reader and is read right, and a
    /// message back in the exchange's layout ends the mode.
    #[test]
    fn members_between_the_messages_own_are_skipped_by_the_layout_reader() {
        let mut next = crate::testutil::lcg(36);
        for round in 0..600 {
            let at = 1 + next(3) as usize;
            let name = ["fees", "neg_risk", "k"][next(3) as usize];
            learn(EXACT);
            for k in 0..4 {
                let n = next(4) as usize;
                let mut top = members(&exchange_message(&mut next, n));
                if k < 3 {
                    top.insert(at, format!("\"{name}\":{}", value(&mut next, 0)));
                }
                if k == 2 && round % 2 == 0 {
                    top.insert(0, format!("\"x\":{}", value(&mut next, 0)));
                }
                let frame = format!("{{{}}}", top.join(","));
                let seams = SEAM_SKIPS.with(Cell::get);
                let (general_reads, reads) = check(&frame);
                assert_eq!(general_reads, 0, "{frame}");
                if k == 1 || (k == 2 && round % 2 == 1) {
                    // Read by the layout reader in the mode (one seam skipped), each entry once.
                    assert_eq!(SEAM_SKIPS.with(Cell::get), seams + 1, "{frame}");
                    let mut distinct = reads.clone();
                    distinct.sort_unstable();
                    distinct.dedup();
                    assert_eq!((reads.len(), distinct.len()), (n, n), "{frame}");
                }
                // With one in front as well, the order read is kept as a learned order.
                let mut order = vec![MARKET, PRICE_CHANGES, TIMESTAMP, EVENT_TYPE];
                order.insert(at, OTHER);
                order.insert(0, OTHER);
                let want = match k {
                    3 => 0,
                    2 if round % 2 == 0 => order.iter().rev().fold(0, |seq, c| seq << 4 | c),
                    _ => SEAMS,
                };
                assert_eq!(learned(), want, "{frame}");
            }
        }
    }

    #[test]
    fn codes_push_and_concat() {
        assert_eq!(push(push(0, MARKET), OTHER), 0x51);
        assert_eq!(concat(0x5, EXACT), 0x0004_3215);
        assert_eq!(layout_reads(EXACT), Some(0));
        assert_eq!(layout_reads(0x0055_4321), Some(0));
        assert_eq!(layout_reads(0x0004_3215), Some(LEADING));
        assert_eq!(layout_reads(0x0554_3215), Some(LEADING));
        assert_eq!(layout_reads(0x0004_3251), Some(SEAMS));
        assert_eq!(layout_reads(0x0545_3251), Some(SEAMS));
        assert_eq!(layout_reads(0x0043_2515), None);
        assert_eq!(layout_reads(0x0003_4251), None);
        assert_eq!(layout_reads(SKIPPING_ENTRIES), None);
        let full = (0..16).fold(0, |s, _| push(s, OTHER));
        assert_eq!(count(full), 16);
        assert_eq!(push(full, MARKET), UNKNOWN);
        assert_eq!(concat(full, MARKET), UNKNOWN);
        assert_eq!(finished(UNKNOWN), 0);
        assert_eq!(finished(push(UNKNOWN, MARKET)), 0);
    }
}
