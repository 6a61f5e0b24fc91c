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
//! The exchange's order with members no event reads around or between its own is not kept as
//! an order: the layout reader skips such members where it finds them. Members after the
//! layout it always skips; members in front of it or between its members once the thread has
//! met them ([`seams`], a flag beside the order, which the layout reader reads only where its
//! next literal is not there), so that a `book` — whose `market` comes first as a
//! `price_change`'s does — costs nothing more on a feed that never sent them.
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
    keyed_price_change, lit, plain_end_guess, skipping_price_change,
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
/// An order that could not be recorded (more than 16 members, or a reader that did not see
/// them all).
pub(super) const UNKNOWN: u64 = u64::MAX;

thread_local! {
    /// The order learned on this thread; 0: the exchange's layout.
    static LEARNED: Cell<u64> = const { Cell::new(0) };
    /// Whether this thread's `price_change` messages have had members no event reads in front
    /// of the exchange's or between them ([`seams`]).
    static SEAMS: Cell<bool> = const { Cell::new(false) };
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

/// Whether the layout reader skips members no event reads in front of the exchange's members
/// and between them: set once this thread has read such a message, and kept (what it costs a
/// message without them, a `book`'s first key after `market`, is one key's read). Read only
/// where the layout reader's literal is not there, so the exchange's layout costs nothing.
#[inline(always)]
pub(crate) fn seams() -> bool {
    SEAMS.with(Cell::get)
}

/// The thread back to its start: the exchange's layout, no seams (for tests).
#[cfg(test)]
pub(super) fn forget() {
    LEARNED.with(|l| l.set(0));
    SEAMS.with(|s| s.set(false));
}

/// Keeps the order of a message a reader read whole (`seq`, 0: not recorded); the
/// exchange's order with members no event reads around or between its own as the exchange's
/// (the layout reader skips them: [`seams`]).
#[inline]
pub(crate) fn learn(seq: u64) {
    if seq != 0 {
        let kept = match layout_reads(seq) {
            Some(seams) => {
                if seams {
                    SEAMS.with(|s| s.set(true));
                }
                0
            }
            None => seq,
        };
        LEARNED.with(|l| l.set(kept));
    }
}

/// For the exchange's order with members no event reads in front of its members, between
/// them or after them: whether any stand in front or between (the layout reader skips those
/// once [`seams`] is set; those after, always); `None` for other orders.
fn layout_reads(seq: u64) -> Option<bool> {
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
    (own == EXACT).then_some(lead || between)
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
            // The exchange's order with members no event reads around it or between its
            // members is read by the layout reader itself (nothing learned; members in front
            // or between once `seams` is set); any other order is kept.
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
            let kept = if own == codes { 0 } else { expect };
            let seamed = own == codes && (lead || between);
            if round % 2 == 0 {
                forget();
            }
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
                if seamed {
                    assert!(seams(), "{frame}");
                }
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

    /// Members no event reads in front of the message's own and between them (any JSON type,
    /// in front, at any of the three seams, or both; new values in every message): the first
    /// such message sets [`seams`] and from the next on the layout reader skips them where it
    /// finds them — no general reader, each entry read once, the general reader's result,
    /// nothing kept as an order. A message in the exchange's layout reads as before.
    #[test]
    fn members_in_front_and_between_are_skipped_by_the_layout_reader() {
        let mut next = crate::testutil::lcg(36);
        let mut skipped = 0;
        for round in 0..600 {
            let at = 1 + next(3) as usize;
            let name = ["fees", "neg_risk", "k"][next(3) as usize];
            forget();
            for k in 0..4 {
                let n = next(4) as usize;
                let mut top = members(&exchange_message(&mut next, n));
                let mut seams_here = 0;
                // Between two members (not in the first message one round in three: a
                // member in front alone sets the flag too), in front now and then.
                if k < 3 && !(k == 0 && round % 3 == 0) {
                    top.insert(at, format!("\"{name}\":{}", value(&mut next, 0)));
                    seams_here += 1;
                }
                if (k == 2 && round % 2 == 0) || (k == 0 && round % 3 == 0) {
                    top.insert(0, format!("\"x\":{}", value(&mut next, 0)));
                    seams_here += 1;
                }
                let frame = format!("{{{}}}", top.join(","));
                let before = SEAM_SKIPS.with(Cell::get);
                let (general_reads, reads) = check(&frame);
                let skips = SEAM_SKIPS.with(Cell::get) - before;
                assert_eq!(general_reads, 0, "{frame}");
                if k == 0 {
                    // The first: the keyed reader, which sets the flag.
                    assert_eq!(skips, 0, "{frame}");
                } else {
                    assert_eq!(skips, seams_here, "{frame}");
                    let mut distinct = reads.clone();
                    distinct.sort_unstable();
                    distinct.dedup();
                    assert_eq!((reads.len(), distinct.len()), (n, n), "{frame}");
                    skipped += skips;
                }
                assert_eq!(learned(), 0, "{frame}");
                assert!(seams(), "{frame}");
            }
        }
        assert!(skipped > 1_200, "{skipped}");
    }

    #[test]
    fn codes_push_and_concat() {
        assert_eq!(push(push(0, MARKET), OTHER), 0x51);
        assert_eq!(concat(0x5, EXACT), 0x0004_3215);
        assert_eq!(layout_reads(EXACT), Some(false));
        assert_eq!(layout_reads(0x0055_4321), Some(false));
        assert_eq!(layout_reads(0x0004_3215), Some(true));
        assert_eq!(layout_reads(0x0554_3215), Some(true));
        assert_eq!(layout_reads(0x0004_3251), Some(true));
        assert_eq!(layout_reads(0x0545_3251), Some(true));
        assert_eq!(layout_reads(0x0043_2515), Some(true));
        assert_eq!(layout_reads(0x0045_3521), Some(true));
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
