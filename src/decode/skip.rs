//! Reading past members the fast readers do not need: a field the exchange added to a
//! message, the REST book's extra keys.
//!
//! A skipped value is checked exactly as the general reader checks it ([`Cursor::skip`]), so
//! that the fast readers accept the same frames. Compact values — what the exchange sends —
//! are walked by [`compact_value_end`], one loop over the tokens that reads each byte once:
//! the nesting kept as a bit stack, a string's end found in the special bytes of the 64 bytes
//! from the container's start ([`Window`], known before the walk needs them) or else in one
//! SSE2 step, numbers through a byte-class table; anything else (whitespace, nesting deeper
//! than 64) goes to the general reader's skip.

use super::is_event_key;
use super::lists::lit;
use crate::decode::json::{Cursor, find_special, find_special_short, skip_ws};

/// From just after an object's member at `p`: the index of the next member (after the `,` and
/// the whitespace around it), or `Err` with the index of the token that is not a `,`.
#[inline(always)]
pub(super) fn next_member(b: &[u8], p: usize) -> Result<usize, usize> {
    let comma = skip_ws(b, p);
    if b.get(comma) != Some(&b',') {
        return Err(comma);
    }
    Ok(skip_ws(b, comma + 1))
}

/// A member no event reads ([`is_event_key`]), whose key's opening quote is at `p` — a field
/// the exchange added, the REST book's `min_order_size`: the index after its value. `None`
/// for a key some other event reads (the object is probably that event: the caller gives up
/// before reading it to its end) and where the general reader reports an error. Out of line:
/// the exchange's own layouts never come here.
#[inline(never)]
pub(super) fn skip_member(src: &str, p: usize) -> Option<usize> {
    let (key, v) = key_at(src, p)?;
    if is_event_key(key) {
        return None;
    }
    skip_value(src, v)
}

/// Where a layout reader found its literal `head` then `key` not at `e`: `head` is what ends
/// one member and separates it from the next (the value's closing quote if it has one, the
/// `,`; for an object's first member the `{`, or nothing), `key` the next member's `"key":`
/// and the first byte of its value. Members whose keys `unknown` accepts (a field the exchange
/// added, at any position) are skipped in place — scalars where the caller is
/// ([`skip_scalars`]), anything else out of line ([`past`]) — and `key` is looked for after
/// them. The index after `key`, or `None` (another key, other whitespace, broken JSON: the
/// caller's slower reader decides).
#[inline(always)]
pub(super) fn past_to_key<const H: usize, const K: usize>(
    src: &str,
    e: usize,
    (head, key): (&[u8; H], &[u8; K]),
    unknown: impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    skip_scalars(src.as_bytes(), e, (head, key), &unknown)
        .or_else(|| past(src, e, head, key, unknown))
}

/// `head` at `e`, then compact members with scalar values whose keys `unknown` accepts (a
/// field the exchange added, at any position), then `key`: the index after `key`, read where
/// the caller is, without a call ([`scalar_member_end`]). For a caller that found `head` then
/// `key` not at `e`, so a member stands after `head`. `None` for anything else — nested
/// values, whitespace, escapes, another key — and [`past`] decides (it reads those too).
#[inline(always)]
pub(super) fn skip_scalars<const H: usize, const K: usize>(
    b: &[u8],
    e: usize,
    (head, key): (&[u8; H], &[u8; K]),
    unknown: &impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    let mut p = lit(b, e, head)?;
    loop {
        let end = scalar_member_end(b, p, unknown)?;
        if b.get(end) != Some(&b',') {
            return None;
        }
        p = end + 1;
        if let Some(end) = lit(b, p, key) {
            return Some(end);
        }
    }
}

/// Compact members with scalar values whose keys `unknown` accepts, the first one's quote at
/// `p`, up to their object's `}`: the index after it (a field appended to an entry, read
/// without a call). `None` for anything else, which the caller's general reader decides.
#[inline(always)]
pub(super) fn scalars_to_close(
    b: &[u8],
    mut p: usize,
    unknown: &impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    loop {
        let end = scalar_member_end(b, p, unknown)?;
        match b.get(end) {
            Some(b'}') => return Some(end + 1),
            Some(b',') => p = end + 1,
            _ => return None,
        }
    }
}

/// The index after the compact member `"key":value` whose quote is at `p`, when `unknown`
/// accepts its key, neither key nor value has an escape, and the value is a string, a number,
/// `true`, `false` or `null` — checked as the general reader checks them; `None` otherwise.
#[inline(always)]
fn scalar_member_end(b: &[u8], p: usize, unknown: &impl Fn(&[u8]) -> bool) -> Option<usize> {
    if b.get(p) != Some(&b'"') {
        return None;
    }
    // The special bytes of the 32 bytes after the quote: the key's end and a short string
    // value's from one mask, one load's latency in all (0: scanned instead).
    #[cfg(polyclob_simd)]
    let m = crate::decode::x86::special_bits::<32>(b, p + 1).unwrap_or(0);
    #[cfg(not(polyclob_simd))]
    let m = 0u64;
    let q = if m != 0 {
        p + 1 + m.trailing_zeros() as usize
    } else {
        find_special_short(b, p + 1)
    };
    if b.get(q) != Some(&b'"') || b.get(q + 1) != Some(&b':') || !unknown(b.get(p + 1..q)?) {
        return None;
    }
    let v = q + 2;
    match *b.get(v)? {
        b'"' => {
            // Bit 0: the value's first byte after its quote (none when the key was scanned).
            let rest = if v - p < 64 { m >> (v - p) } else { 0 };
            let end = if rest == 0 {
                find_special_short(b, v + 1)
            } else {
                v + 1 + rest.trailing_zeros() as usize
            };
            (b.get(end) == Some(&b'"')).then_some(end + 1)
        }
        b'-' | b'0'..=b'9' => {
            let mut i = v + 1;
            while matches!(
                b.get(i),
                Some(b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E')
            ) {
                i += 1;
            }
            Some(i)
        }
        b't' => lit(b, v, b"true"),
        b'f' => lit(b, v, b"false"),
        b'n' => lit(b, v, b"null"),
        _ => None,
    }
}

/// [`past_to_key`] once no scalar members led to `key`: out of line, so that the layout readers'
/// straight-line code carries one call per member and nothing else.
#[cold]
#[inline(never)]
pub(super) fn past<const H: usize, const K: usize>(
    src: &str,
    e: usize,
    head: &[u8; H],
    key: &[u8; K],
    unknown: impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    let b = src.as_bytes();
    match lit(b, e, head) {
        // `head` ends with the object's `{` or the `,` before the next member, so a member
        // starts at `k`.
        Some(k) => to_key(src, skip_ws(b, k), key, unknown),
        None => past_then(src, e, head, key, unknown),
    }
}

/// [`past`] once `head` was not at `e` either (whitespace, or members between).
#[inline(always)]
fn past_then<const H: usize, const K: usize>(
    src: &str,
    e: usize,
    head: &[u8; H],
    key: &[u8; K],
    unknown: impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    let b = src.as_bytes();
    // `head` without its `,`, which the skipping finds itself.
    let first = head.last() != Some(&b',');
    let kept = if first { H } else { H - 1 };
    if b.get(e..e + kept)? != head.get(..kept)? {
        return None;
    }
    let after = e + kept;
    let p = if first {
        skip_ws(b, after)
    } else {
        next_member(b, after).ok()?
    };
    to_key(src, p, key, unknown)
}

/// From the member at `p`: past every member whose key `unknown` accepts to `key`; the index
/// after `key`. `None` at any other key or on broken JSON.
#[inline(always)]
fn to_key<const K: usize>(
    src: &str,
    mut p: usize,
    key: &[u8; K],
    unknown: impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    let b = src.as_bytes();
    loop {
        if let Some(end) = lit(b, p, key) {
            return Some(end);
        }
        let (k, v) = key_at(src, p)?;
        if !unknown(k) {
            return None;
        }
        p = next_member(b, skip_value(src, skip_ws(b, v))?).ok()?;
    }
}

/// From just after a member's value at `after`: past every member whose key `unknown`
/// accepts, each value checked as the general reader checks it, to the quote of the first
/// other key or to the object's `}`; its index. `None` on broken JSON.
#[inline(never)]
pub(super) fn past_unknown(
    src: &str,
    mut after: usize,
    unknown: impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    let b = src.as_bytes();
    loop {
        let p = match next_member(b, after) {
            Ok(p) => p,
            Err(q) => return (b.get(q) == Some(&b'}')).then_some(q),
        };
        let (key, v) = key_at(src, p)?;
        if !unknown(key) {
            return Some(p);
        }
        after = skip_value(src, skip_ws(b, v))?;
    }
}

/// A key no event reads: [`past_unknown`]'s test for a message's own members.
pub(super) fn not_event_key(key: &[u8]) -> bool {
    !is_event_key(key)
}

/// The key whose quote is at `p` (as the general reader compares it: the bytes between the
/// quotes) and the index of its value.
#[inline(always)]
pub(super) fn key_at(src: &str, p: usize) -> Option<(&[u8], usize)> {
    let b = src.as_bytes();
    if let Some(v) = compact_key_end(b, p) {
        return Some((b.get(p + 1..v - 2)?, v));
    }
    let mut c = Cursor::new(src, p);
    let key = c.key().ok()?;
    Some((key, c.pos))
}

/// The index after the value at `p`, checked as the general reader checks it. A string, the
/// commonest value, is read where the caller is; anything else out of line.
#[inline(always)]
pub(super) fn skip_value(src: &str, p: usize) -> Option<usize> {
    let b = src.as_bytes();
    if b.get(p) == Some(&b'"') {
        if let Some(end) = string_end(b, p) {
            return Some(end);
        }
    }
    skip_other(src, p)
}

/// [`skip_value`] as a call: for the keyed message reader, whose loop stays smaller without
/// it.
#[inline(never)]
pub(super) fn skip_value_call(src: &str, p: usize) -> Option<usize> {
    skip_value(src, p)
}

/// [`skip_value`] for a value that is not a plain string.
#[inline(never)]
fn skip_other(src: &str, p: usize) -> Option<usize> {
    let b = src.as_bytes();
    if let Some(end) = compact_value_end(b, p) {
        return Some(end);
    }
    let mut c = Cursor::new(src, p);
    c.skip(0).ok()?;
    Some(c.pos)
}

/// The index after the string whose quote is at `p`, read as the general reader reads it: an
/// escape's backslash and the byte after it are passed over, a control byte is an error.
#[inline(always)]
fn string_end(b: &[u8], p: usize) -> Option<usize> {
    let mut i = find_special(b, p + 1);
    loop {
        match *b.get(i)? {
            b'"' => return Some(i + 1),
            b'\\' => i = find_special(b, i + 2),
            _ => return None,
        }
    }
}

/// The index after `"key":` whose quote is at `p`, for a key followed directly by the colon.
#[inline(always)]
fn compact_key_end(b: &[u8], p: usize) -> Option<usize> {
    if b.get(p) != Some(&b'"') {
        return None;
    }
    let end = string_end(b, p)?;
    (b.get(end) == Some(&b':')).then_some(end + 1)
}

/// Byte classes for [`compact_value_end`]: a byte that continues a number (the general
/// reader's run of `0-9 - + . e E`), and one that starts a value of that run (`0-9 -`).
static CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut c = b'0';
    while c <= b'9' {
        t[c as usize] = NUM | NUM_START;
        c += 1;
    }
    t[b'-' as usize] = NUM | NUM_START;
    t[b'+' as usize] = NUM;
    t[b'.' as usize] = NUM;
    t[b'e' as usize] = NUM;
    t[b'E' as usize] = NUM;
    t
};
const NUM: u8 = 1;
const NUM_START: u8 = 2;

/// The walk's failure index: past every frame (a slice holds at most `isize::MAX` bytes), so
/// that the next read fails, and one step on from it does not overflow. The walk's helpers
/// return it rather than `None`, so a failure costs no test beside that read's bounds check
/// ([`compact_value_end`] checks it where it reads no more).
const BAD: usize = isize::MAX as usize;

/// The special bytes (`"`, `\`, below 0x20) of 64 bytes of the frame as bits, bit `k` for
/// byte `base + k`, found once for a container or a member: a string that ends among them
/// ends at a shift and a count. A 16-byte step per string makes each string wait for the last
/// one's load, compare and mask (about 4 ns a string here: an unknown object of four short
/// members cost 35 ns, one long string 1 ns); the window's four loads wait for nothing. The
/// new first field (an object of three strings) went from 152 to 144 ns a message with it.
#[derive(Clone, Copy)]
struct Window {
    base: usize,
    bits: u64,
}

/// No window: every string scanned (frames under 64 bytes, the walk of short frames).
const NO_WINDOW: Window = Window {
    base: usize::MAX,
    bits: 0,
};

impl Window {
    /// The window over the 64 bytes from `p`, or the frame's last 64 (bits before `p` are
    /// never read); an empty one in a shorter frame.
    #[inline(always)]
    fn at(b: &[u8], p: usize) -> Window {
        #[cfg(polyclob_simd)]
        if let Some(last) = b.len().checked_sub(64) {
            let base = p.min(last);
            if let Some(bits) = crate::decode::x86::special_bits::<64>(b, base) {
                return Window { base, bits };
            }
        }
        let _ = (b, p);
        NO_WINDOW
    }

    /// The first special byte at or after `i`, when the window shows it.
    #[inline(always)]
    fn find(&self, i: usize) -> Option<usize> {
        let off = i.wrapping_sub(self.base);
        if off >= 64 {
            return None;
        }
        let m = self.bits >> off;
        (m != 0).then(|| i + m.trailing_zeros() as usize)
    }
}

/// The index after the string whose quote is at `p` and the byte there (0 at the frame's
/// end), or ([`BAD`], 0): a short plain string in one 16-byte step, else scanned on from
/// where that step stopped ([`walk_string_rest`]). `SHORT`: the frame holds fewer than 16
/// bytes, and the word-at-a-time scan reads it all.
#[inline(always)]
fn walk_string<const SHORT: bool>(b: &[u8], p: usize, w: &Window) -> (usize, u8) {
    if let Some(i) = w.find(p + 1) {
        if b.get(i) == Some(&b'"') {
            return (i + 1, b.get(i + 1).copied().unwrap_or(0));
        }
        return walk_string_rest::<SHORT>(b, i, false);
    }
    #[cfg(polyclob_simd)]
    if !SHORT {
        use crate::decode::x86::{Step, string_step};
        return match string_step(b, p + 1) {
            Step::Done(end, next) => (end, next),
            Step::Special(i) => walk_string_rest::<SHORT>(b, i, false),
            Step::Scan(i) => walk_string_rest::<SHORT>(b, i, true),
        };
    }
    walk_string_rest::<SHORT>(b, p + 1, true)
}

/// The rest of a string from `i` — its first special byte, or (`scan`) where to look for it:
/// as [`walk_string`]. The 16-byte scan is inline, and in a frame's last 16 bytes one step
/// reads them all: the word loop ([`find_special`]) is for frames shorter than 16 bytes only
/// (inline in the long walk, its constants would be loaded on every walk).
#[inline(always)]
fn walk_string_rest<const SHORT: bool>(b: &[u8], mut i: usize, mut scan: bool) -> (usize, u8) {
    loop {
        if scan {
            i = if SHORT {
                find_special(b, i)
            } else {
                scan_long(b, i)
            };
        }
        match b.get(i) {
            Some(b'"') => return (i + 1, b.get(i + 1).copied().unwrap_or(0)),
            Some(b'\\') => {
                // The escaped byte is passed over, whatever it is (as the general reader).
                i += 2;
                scan = true;
            }
            _ => return (BAD, 0),
        }
    }
}

/// [`find_special`] in a frame of 16 bytes or more, in 16-byte steps only.
#[inline(always)]
fn scan_long(b: &[u8], i: usize) -> usize {
    #[cfg(polyclob_simd)]
    {
        use crate::decode::x86::{special_tail16, special16};
        match special16(b, i) {
            Ok(j) => j,
            // `None` only in frames under 16 bytes, which `walk::<true>` reads: a byte loop,
            // which needs no constants and no call (a call in the walk's loop would have it
            // keep more of its state in callee-saved registers).
            Err(j) => special_tail16(b, j).unwrap_or_else(|| {
                let mut k = j;
                while let Some(&c) = b.get(k) {
                    if c == b'"' || c == b'\\' || c < 0x20 {
                        break;
                    }
                    k += 1;
                }
                k
            }),
        }
    }
    #[cfg(not(polyclob_simd))]
    find_special(b, i)
}

/// The index of the value after `"key":`, whose quote (checked by the caller) is at `p`, and
/// the value's first byte (0 at the frame's end), or ([`BAD`], 0).
#[inline(always)]
fn walk_key<const SHORT: bool>(b: &[u8], p: usize, w: &Window) -> (usize, u8) {
    if let Some(i) = w.find(p + 1) {
        if b.get(i..i + 2) == Some(b"\":") {
            return (i + 2, b.get(i + 2).copied().unwrap_or(0));
        }
    }
    #[cfg(polyclob_simd)]
    if !SHORT {
        if let Some(value) = crate::decode::x86::key_in16(b, p + 1) {
            return value;
        }
    }
    let (end, next) = walk_string::<SHORT>(b, p, w);
    if next == b':' {
        (end + 1, b.get(end + 1).copied().unwrap_or(0))
    } else {
        (BAD, 0)
    }
}

/// The index after the scalar value (string, number, `true`, `false`, `null`) that starts
/// with `c` at `p`, or [`BAD`].
#[inline(always)]
fn walk_scalar<const SHORT: bool>(b: &[u8], mut p: usize, c: u8, w: &Window) -> usize {
    if c == b'"' {
        return walk_string::<SHORT>(b, p, w).0;
    }
    if CLASS[c as usize] & NUM_START != 0 {
        p += 1;
        while let Some(&d) = b.get(p) {
            if CLASS[d as usize] & NUM == 0 {
                break;
            }
            p += 1;
        }
        return p;
    }
    match c {
        b't' => word(b, p, b"true"),
        b'f' => word(b, p, b"false"),
        b'n' => word(b, p, b"null"),
        _ => None,
    }
    .unwrap_or(BAD)
}

/// The index after the JSON value at `p` when it is compact (no whitespace) and nested at most
/// 64 deep; `None` otherwise, and also for broken JSON (the general skip
/// then decides, and reports). Whenever this returns an index, [`Cursor::skip`] accepts the
/// value and ends at the same index (tested below).
///
/// One loop over the tokens, each byte read once: a value (short strings and keys in one SSE2
/// step, which also yields the byte after them; numbers through a byte-class table;
/// containers pushed on a bit stack), then what follows it (a `,` and the next member or item,
/// or closing brackets). Nothing here may panic: a panic path in this function, called from
/// the layout readers, changed their code (+30 instructions a `price_change` message).
pub(super) fn compact_value_end(b: &[u8], p: usize) -> Option<usize> {
    let c = *b.get(p)?;
    // `{` or `[` (`[` + 0x20): the walk below; anything else is a scalar, read here (correct
    // in any frame; in one under 16 bytes its string scan is a byte loop).
    if c | 0x20 != b'{' {
        let end = walk_scalar::<false>(b, p, c, &NO_WINDOW);
        return (end <= b.len()).then_some(end);
    }
    // Below, the frame holds 16 bytes at least: its bounds checks need not test that.
    if b.len() < 16 {
        return short_walk(b, p, c);
    }
    walk::<false>(b, p, c, &Window::at(b, p))
}

/// [`compact_value_end`] in a frame shorter than 16 bytes.
#[cold]
#[inline(never)]
fn short_walk(b: &[u8], p: usize, c: u8) -> Option<usize> {
    walk::<true>(b, p, c, &NO_WINDOW)
}

/// [`compact_value_end`]'s loop, from the outermost container's opening `c` at `p`; `SHORT`:
/// the frame holds fewer than 16 bytes.
#[inline(always)]
fn walk<const SHORT: bool>(b: &[u8], mut p: usize, mut c: u8, w: &Window) -> Option<usize> {
    // Bit i: the container at depth i + 1 is an object (1) or an array (0).
    let mut objects: u64 = 0;
    let mut depth = 0u32;
    loop {
        // A value starts at `p` with `c`; `d` becomes the byte after it, at its end `p`.
        let mut d;
        if c == b'"' {
            (p, d) = walk_string::<SHORT>(b, p, w);
        } else if c | 0x20 == b'{' {
            if depth == 64 {
                return None;
            }
            depth += 1;
            p += 1;
            let open = c;
            c = *b.get(p)?;
            if open == b'{' {
                objects = objects << 1 | 1;
                if c == b'"' {
                    (p, c) = walk_key::<SHORT>(b, p, w);
                    continue;
                }
                if c != b'}' {
                    return None;
                }
            } else {
                objects <<= 1;
                if c != b']' {
                    continue;
                }
            }
            // An empty container, closed below.
            d = c;
        } else if CLASS[c as usize] & NUM_START != 0 {
            loop {
                p += 1;
                d = *b.get(p)?;
                if CLASS[d as usize] & NUM == 0 {
                    break;
                }
            }
        } else {
            p = walk_scalar::<SHORT>(b, p, c, w);
            d = *b.get(p)?;
        }
        // After a value: close what ends here, then the next member or item.
        loop {
            p += 1;
            if d == b',' {
                if objects & 1 == 0 {
                    c = *b.get(p)?;
                } else if b.get(p) == Some(&b'"') {
                    (p, c) = walk_key::<SHORT>(b, p, w);
                } else {
                    return None;
                }
                break;
            }
            // The container's closing bracket: `}` is `]` + 0x20.
            if d != b']' | ((objects as u8 & 1) << 5) {
                return None;
            }
            objects >>= 1;
            depth -= 1;
            if depth == 0 {
                return Some(p);
            }
            d = *b.get(p)?;
        }
    }
}

/// The compact member `"key":value` whose quote is at `p`, when no event reads its key
/// ([`is_event_key`]): the index after its value, checked as the general reader checks it.
/// `None` for an event's key (checked before the value is read: a `book` at the
/// `price_change` reader's seams costs one key) and where the walk gives up (whitespace,
/// nesting deeper than 64, broken JSON, a frame under 16 bytes: the caller's slower reader
/// decides).
#[inline(always)]
pub(super) fn unknown_member(b: &[u8], p: usize) -> Option<usize> {
    if b.len() < 16 || b.get(p) != Some(&b'"') {
        return None;
    }
    let (v, c) = walk_key::<false>(b, p, &NO_WINDOW);
    if is_event_key(b.get(p + 1..v.checked_sub(2)?)?) {
        return None;
    }
    // From `p`, not `v`: its loads wait for nothing (the key's own read runs beside them).
    let w = Window::at(b, p);
    let end = if c | 0x20 == b'{' {
        walk::<false>(b, v, c, &w)?
    } else {
        walk_scalar::<false>(b, v, c, &w)
    };
    (end <= b.len()).then_some(end)
}

/// The index after the literal `w` at `p`.
#[inline(always)]
fn word(b: &[u8], p: usize, w: &[u8]) -> Option<usize> {
    (b.get(p..p + w.len())? == w).then_some(p + w.len())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// A random JSON value: every type, nesting, plain and escaped strings, now and then
    /// whitespace.
    fn value(next: &mut dyn FnMut(u64) -> u64, depth: u32, out: &mut String) {
        let ws = |next: &mut dyn FnMut(u64) -> u64| if next(12) == 0 { " " } else { "" };
        match if depth > 5 { next(5) } else { next(7) } {
            0 => out.push_str(["true", "false", "null"][next(3) as usize]),
            1 => {
                out.push_str(["0", "-1.5e3", "12", "0.001", "-", "1.2.3", "7E+2"][next(7) as usize])
            }
            2 | 3 => {
                out.push('"');
                out.push_str(["", "abc", "0x1f", "b\\\"c", "\\u0041", "é"][next(6) as usize]);
                out.push('"');
            }
            4 => out.push_str(["{}", "[]", "{ }", "[ ]"][next(4) as usize]),
            5 => {
                out.push('{');
                for i in 0..=next(3) {
                    if i > 0 {
                        out.push(',');
                        out.push_str(ws(next));
                    }
                    out.push_str(
                        ["\"k\"", "\"\"", "\"a\\\"b\"", "\"long_key_name\""][next(4) as usize],
                    );
                    out.push(':');
                    out.push_str(ws(next));
                    value(next, depth + 1, out);
                }
                out.push('}');
            }
            _ => {
                out.push('[');
                for i in 0..=next(3) {
                    if i > 0 {
                        out.push(',');
                        out.push_str(ws(next));
                    }
                    value(next, depth + 1, out);
                }
                out.push(']');
            }
        }
    }

    /// Wherever the compact walk gives an end, the general skip accepts the value and ends
    /// there; on values with no whitespace it always gives one. Values are
    /// random, then now and then cut, or with a byte inserted or replaced.
    #[test]
    fn compact_walk_agrees_with_the_general_skip() {
        let mut next = crate::testutil::lcg(64);
        let mut walked = 0;
        for _ in 0..50_000 {
            let mut v = String::new();
            value(&mut next, 0, &mut v);
            let plain = !v.contains(' ');
            let mut at = next(v.len() as u64) as usize;
            while !v.is_char_boundary(at) {
                at -= 1;
            }
            let mut frame = match next(6) {
                0 => v[..at].to_string(),
                1 | 2 => {
                    let bad = ["\"", ",", "}", "]", ":", "{", "[", "x", "\u{1}"][next(9) as usize];
                    // Inserted at `at`, or in place of the (ASCII) byte there.
                    let rest = match v.get(at..at + 1) {
                        Some(one) if one.is_ascii() && next(2) == 0 => at + 1,
                        _ => at,
                    };
                    format!("{}{bad}{}", &v[..at], &v[rest..])
                }
                _ => v.clone(),
            };
            frame.push_str(",\"tail\":1}");
            let fast = compact_value_end(frame.as_bytes(), 0);
            let mut c = Cursor::new(&frame, 0);
            let general = c.skip(0).ok().map(|()| c.pos);
            if let Some(end) = fast {
                walked += 1;
                assert_eq!(Some(end), general, "{frame}");
            } else if frame.starts_with(&v) && plain {
                panic!("gave up on {frame}");
            }
            assert_eq!(skip_value(&frame, 0), general, "{frame}");
        }
        assert!(walked > 20_000, "walked only {walked}");
    }

    /// The general skip's answer for `frame` from 0.
    fn general(frame: &str) -> Option<usize> {
        let mut c = Cursor::new(frame, 0);
        c.skip(0).ok().map(|()| c.pos)
    }

    /// Strings of every length around the one-step reads' limits (a key's quote among the
    /// first 14 bytes, a value's among the first 15, 16 bytes left in the frame), plain, with
    /// an escape or with a control byte at each position, as keys and as values, with frames
    /// that end anywhere after them: the walk agrees with the general skip, and reads every
    /// well-formed one.
    #[test]
    fn walk_reads_strings_of_every_length_as_the_general_skip() {
        let mut checked = 0;
        for len in 0..40 {
            for flaw in 0..=2 * len {
                // `flaw` 0: plain; odd: an escaped quote at `flaw / 2`; even: a control byte
                // at `flaw / 2 - 1`.
                let mut text: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
                if flaw % 2 == 1 {
                    text.insert_str(flaw / 2, "\\\"");
                } else if flaw > 0 {
                    text.replace_range(flaw / 2 - 1..flaw / 2, "\u{1}");
                }
                let ok = flaw % 2 == 1 || flaw == 0;
                for shape in [
                    format!("\"{text}\""),
                    format!("{{\"{text}\":1}}"),
                    format!("{{\"k\":\"{text}\",\"{text}\":[]}}"),
                    format!("[\"{text}\",-2.5e3,\"{text}\"]"),
                    format!("[[{{\"{text}\":{{}}}}],\"{text}\"]"),
                ] {
                    for tail in ["", "}", ",\"market\":\"0x1\"}", &",\"pad\":0".repeat(3)] {
                        let frame = format!("{shape}{tail}");
                        let fast = compact_value_end(frame.as_bytes(), 0);
                        assert_eq!(fast, general(&frame), "{frame:?}");
                        assert_eq!(fast.is_some(), ok, "{frame:?}");
                        assert_eq!(skip_value(&frame, 0), general(&frame), "{frame:?}");
                        checked += 1;
                    }
                }
            }
        }
        assert!(checked > 30_000);
    }

    /// Values cut at every byte, and values that end exactly at the frame's end (a number's
    /// run reaches the end; a literal or string is the last thing in it).
    #[test]
    fn walk_agrees_on_every_cut_and_at_the_frame_end() {
        let whole = concat!(
            r#"{"taker_bps":"0","tiers":[1,2.5,-3e+2,true,false,null,{},[],[[]],{"a":[{}]}],"#,
            r#""a\"b":"x\\y"}"#
        );
        for cut in 0..=whole.len() {
            let frame = &whole[..cut];
            let fast = compact_value_end(frame.as_bytes(), 0);
            assert_eq!(fast, general(frame), "{frame:?}");
            assert_eq!(fast.is_some(), cut == whole.len(), "{frame:?}");
        }
        for (frame, end) in [
            ("12", Some(2)),
            ("-0.5e-7", Some(7)),
            ("true", Some(4)),
            ("nul", None),
            ("\"\"", Some(2)),
            ("[12", None),
            ("[12]", Some(4)),
            ("[]", Some(2)),
            ("{}", Some(2)),
            ("[1,]", None),
            ("{\"a\":1,}", None),
            ("{\"a\"}", None),
            ("{\"a\"1}", None),
            ("{\"a\",1}", None),
            ("{\"a\"x\"b\"}", None),
            ("[\"a\":1]", None),
            ("{\"a\":}", None),
            ("[,1]", None),
            ("[1}", None),
            ("{\"a\":1]", None),
            ("]", None),
            ("", None),
        ] {
            assert_eq!(compact_value_end(frame.as_bytes(), 0), end, "{frame:?}");
            assert_eq!(general(frame), end, "{frame:?}");
        }
    }

    #[test]
    fn deep_nesting_goes_to_the_general_skip() {
        let deep = "[".repeat(100) + "]".repeat(100).as_str();
        assert_eq!(compact_value_end(deep.as_bytes(), 0), None);
        assert_eq!(skip_value(&deep, 0), Some(200));
        let shallow = "[".repeat(64) + "]".repeat(64).as_str();
        assert_eq!(compact_value_end(shallow.as_bytes(), 0), Some(128));
        // Objects and arrays mixed, 64 deep (the bit stack full) and 65.
        for levels in [63, 64, 65] {
            let open: String = (0..levels)
                .map(|i| if i % 3 == 0 { "[" } else { "{\"k\":" })
                .collect();
            let close: String = (0..levels)
                .rev()
                .map(|i| if i % 3 == 0 { "]" } else { "}" })
                .collect();
            let frame = format!("{open}1{close},");
            let end = frame.len() - 1;
            let want = (levels <= 64).then_some(end);
            assert_eq!(compact_value_end(frame.as_bytes(), 0), want, "{levels}");
            assert_eq!(skip_value(&frame, 0), Some(end));
        }
    }

    /// `past_to_key` finds the next key after any run of unknown members of every JSON type
    /// (with or without a space after their commas), and gives up at a known key, at broken
    /// JSON and at the object's end.
    #[test]
    fn past_to_key_reads_past_unknown_members() {
        let unknown = |k: &[u8]| k != b"size" && k != b"price";
        let members = [
            r#""fee_rate_bps":"0""#,
            r#""n":-1.5e3"#,
            r#""t":true"#,
            r#""z":null"#,
            r#""e":"a\"b\\""#,
            r#""o":{"taker_bps":"0","tiers":[1,2.5]}"#,
            r#""a":[{"k":[null,"x\"]"]},{}]"#,
            r#""a\"b":"""#,
            r#""price":"3""#,
            r#""bad":"#,
            r#""bad":tru"#,
        ];
        let mut next = crate::testutil::lcg(5);
        for _ in 0..5_000 {
            let picked: Vec<&str> = (0..next(4)).map(|_| members[next(11) as usize]).collect();
            let sep = if next(4) == 0 { ", " } else { "," };
            let mut src = String::from(r#"{"price":"1""#);
            for m in &picked {
                src.push_str(sep);
                src.push_str(m);
            }
            let tail = [r#","size":"2"}"#, "}"][usize::from(next(8) == 0)];
            src.push_str(tail);
            let e = r#"{"price":"1"#.len();
            let got = past_to_key(&src, e, (b"\",", b"\"size\":\""), unknown);
            let readable = picked
                .iter()
                .all(|m| !m.starts_with("\"price\"") && !m.starts_with("\"bad\""));
            let want = (readable && tail != "}").then(|| src.find("\"size\":\"").unwrap() + 8);
            assert_eq!(got, want, "{src}");
        }
    }

    /// The walk's 64-byte window ([`Window`]) and the 32-byte mask of
    /// [`scalar_member_end`] wherever they fall: random values (now and then cut or with a
    /// byte changed) at every offset in frames of every length around 64 bytes, so that the
    /// window starts before the value, at it, or ends inside it, and strings, escapes and
    /// control bytes cross its edge. The walk, [`unknown_member`] and [`past_to_key`] agree
    /// with the general reader.
    #[test]
    fn windows_agree_with_the_general_skip_wherever_they_fall() {
        let mut next = crate::testutil::lcg(65);
        let (mut windowed, mut scalars) = (0, 0);
        for _ in 0..40_000 {
            let mut v = String::new();
            value(&mut next, 0, &mut v);
            if next(4) == 0 {
                let at = next(v.len() as u64) as usize;
                if v.is_char_boundary(at) && v.is_char_boundary(at + 1) {
                    let bad = ["\"", ",", "}", ":", "\\", "\u{1}", "x"][next(7) as usize];
                    v.replace_range(at..at + 1, bad);
                }
            }
            let pre = next(80) as usize;
            let long = "long".repeat(9);
            let key = ["k", "fee_rate_bps", "a\\\"b", "market", &long][next(5) as usize];
            let member = format!("\"{key}\":{v}");
            let tail = format!(",\"size\":\"{}\"}}", "0".repeat(next(90) as usize));
            let frame = format!("{{\"price\":\"{}\",{member}{tail}", "1".repeat(pre));
            let b = frame.as_bytes();
            let p = frame.len() - tail.len() - v.len();
            windowed += usize::from(b.len() >= 64);
            if let Some(end) = compact_value_end(b, p) {
                assert_eq!(Some(end - p), general(&frame[p..]), "{frame}");
            }
            assert_eq!(
                skip_value(&frame, p).map(|e| e - p),
                general(&frame[p..]),
                "{frame}"
            );
            // The member, as the layout reader's seams read it: an event's key gives up, any
            // other the general reader's end of its value.
            let m = p - key.len() - 3;
            let want = (!is_event_key(key.as_bytes()))
                .then(|| general(&frame[p..]).map(|e| p + e))
                .flatten();
            if let Some(end) = unknown_member(b, m) {
                assert_eq!(Some(end), want, "{frame}");
            }
            // A scalar member in one step where it is plain: the general reader's end.
            let scalar = scalar_member_end(b, m, &|_: &[u8]| true);
            if let Some(end) = scalar {
                assert_eq!(Some(end - p), general(&frame[p..]), "{frame}");
            }
            let plain = |t: &str| !t.contains(['\\', '\u{1}', '{', '[', ' ']);
            let read = general(&frame[p..]).is_some() && !v.starts_with(['"', '{', '['])
                || v.len() >= 2 && v.starts_with('"') && v[1..].find('"') == Some(v.len() - 2);
            if plain(key) && plain(&v) && read {
                assert!(scalar.is_some(), "{frame}");
                scalars += 1;
            }
            // From the first member's end to `size`, past the member.
            let unknown = |k: &[u8]| k != b"size" && k != b"price";
            let e = 10 + pre;
            let got = past_to_key(&frame, e, (b"\",", b"\"size\":\""), unknown);
            let readable = general(&frame[p..])
                .is_some_and(|end| frame[p + end..].starts_with(",\"size\":\""));
            assert_eq!(
                got,
                readable.then(|| frame.len() - tail.len() + 9),
                "{frame}"
            );
        }
        assert!(windowed > 30_000, "{windowed}");
        assert!(scalars > 5_000, "{scalars}");
    }

    #[test]
    fn members_by_key() {
        let src = r#"{"min_order_size":"5","neg_risk":false,"price":"0.5","a\"b":{"c":[1]},"z":1}"#;
        let after = |p: usize| skip_member(src, p);
        assert_eq!(after(1), Some(21));
        assert_eq!(after(22), Some(38));
        assert_eq!(after(39), None, "`price` is a key of other events");
        assert_eq!(after(53), Some(69), "an escaped key");
        assert_eq!(next_member(src.as_bytes(), 69), Ok(70));
        assert_eq!(next_member(src.as_bytes(), 75), Err(75));
    }
}
