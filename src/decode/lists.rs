//! Lazy iterators over the arrays inside an event: book levels, price changes, maker orders
//! and string lists. Each re-reads the frame bytes on demand and never allocates.

use super::book::{Pattern, pattern};
use super::shape;
use super::skip::{
    key_at, next_member, not_event_key, past_to_key, past_unknown, scalars_to_close, skip_value,
    skip_value_call, unknown_member,
};
use super::{
    Level, Sink, is_event_key, opt_price, opt_side, opt_size, opt_str, opt_text, opt_u64,
    req_price, req_side, req_size, req_str,
};
use crate::decode::json::{
    Cursor, DecodeError, DecodeErrorKind, HASH_LEN, ID_LEN, JsonStr, MARKET_LEN, Raw, RawKind,
    TIMESTAMP_LEN, chunk, err, find_special_guess, price_word_decimal, quote_in_word, skip_ws, sub,
    word_decimal, word8,
};
use crate::fixed::{Price, Size};
use crate::types::Side;

/// Where an array's items start (just after its `[`), or `None` when the field held `null`.
pub(crate) type Span = Option<usize>;

/// Iteration state shared by the list iterators.
#[derive(Clone, Copy, Debug)]
struct ListState<'a> {
    src: &'a str,
    pos: usize,
    first: bool,
    done: bool,
}

/// The result of parsing one item: `Err` = structural (the list ends), `Ok(Err)` = this item
/// is bad but the list goes on.
type Item<T> = Result<Result<T, DecodeError>, DecodeError>;

impl<'a> ListState<'a> {
    fn new(src: &'a str, span: Span) -> Self {
        Self {
            src,
            pos: span.unwrap_or(0),
            first: true,
            done: span.is_none(),
        }
    }

    #[inline]
    fn next_item<T>(
        &mut self,
        parse: impl FnOnce(&mut Cursor<'a>) -> Item<T>,
    ) -> Option<Result<T, DecodeError>> {
        if self.done {
            return None;
        }
        let mut c = Cursor::new(self.src, self.pos);
        if self.first {
            self.first = false;
            if c.close_if(b']') {
                self.pos = c.pos;
                self.done = true;
                return None;
            }
        } else {
            match c.next_or_close(b']') {
                Ok(true) => {}
                Ok(false) => {
                    self.pos = c.pos;
                    self.done = true;
                    return None;
                }
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            }
        }
        match parse(&mut c) {
            Ok(r) => {
                self.pos = c.pos;
                Some(r)
            }
            Err(e) => {
                self.done = true;
                Some(Err(e))
            }
        }
    }
}

/// Reads `{ ... }` calling `on_field(key, cursor)` for each member; a non-object is skipped
/// and reported as `WrongType` for `field`.
#[inline]
fn object<'a>(
    c: &mut Cursor<'a>,
    field: &'static str,
    mut on_field: impl FnMut(&[u8], &mut Cursor<'a>) -> Result<(), DecodeError>,
) -> Result<Result<(), DecodeError>, DecodeError> {
    let at = c.pos;
    if c.peek() != Some(b'{') {
        c.skip(0)?;
        return Ok(Err(err(DecodeErrorKind::WrongType, field, at)));
    }
    c.pos += 1;
    if c.close_if(b'}') {
        return Ok(Ok(()));
    }
    loop {
        let key = c.key()?;
        on_field(key, c)?;
        if !c.next_or_close(b'}')? {
            return Ok(Ok(()));
        }
    }
}

/// The closing quote of a plain string (no escape, no control byte) whose content starts at
/// `i`.
#[inline(always)]
fn plain_end(b: &[u8], i: usize) -> Option<usize> {
    plain_end_guess::<0>(b, i)
}

/// [`plain_end`] for a string predicted to be `N` bytes long (`0`: no prediction; see
/// [`find_special_guess`]).
#[inline(always)]
pub(super) fn plain_end_guess<const N: usize>(b: &[u8], i: usize) -> Option<usize> {
    let j = find_special_guess::<N>(b, i);
    (b.get(j) == Some(&b'"')).then_some(j)
}

/// The literal `l` at `p`; the index after it. Fixed-size array compares, so each literal is a
/// few word compares rather than a `memcmp` call.
#[inline(always)]
pub(super) fn lit<const N: usize>(b: &[u8], p: usize, l: &[u8; N]) -> Option<usize> {
    (chunk::<N>(b, p)? == l).then_some(p + N)
}

/// The shape every exchange level has, `{"price":"<decimal>","size":"<decimal>"}`, with any
/// whitespace between tokens (pretty-printed captures), read without the general object
/// machinery. Returns `None` on any deviation — other key order, extra keys, escapes, a value
/// that does not parse — and the general path then decodes (or reports) the level.
#[inline]
fn fast_level(b: &[u8], p: usize) -> Option<(Level, usize)> {
    /// `: "<decimal>"` from `p`; returns the value and the index after the closing quote.
    #[inline(always)]
    fn value(b: &[u8], p: usize) -> Option<(u64, usize)> {
        let p = lit(b, skip_ws(b, p), b":")?;
        let start = lit(b, skip_ws(b, p), b"\"")?;
        let (v, end) = quoted_decimal(b, start)?;
        Some((v, end + 1))
    }
    let p = lit(b, p, b"{")?;
    let p = lit(b, skip_ws(b, p), b"\"price\"")?;
    let (price, p) = value(b, p)?;
    let p = lit(b, skip_ws(b, p), b",")?;
    let p = lit(b, skip_ws(b, p), b"\"size\"")?;
    let (size, p) = value(b, p)?;
    let p = lit(b, skip_ws(b, p), b"}")?;
    Some((micros_level(price, size)?, p))
}

/// [`fast_level`] out of the compact loop's way: laid out inline, the exchange's own levels
/// paid for the jumps around it.
#[cold]
#[inline(never)]
fn other_level(b: &[u8], p: usize) -> Option<(Level, usize)> {
    fast_level(b, p)
}

/// A level from a price and a size in 10⁻⁶ units, when the price is in range.
#[inline(always)]
fn micros_level(price: u64, size: u64) -> Option<Level> {
    Some(Level {
        price: Price::new(u32::try_from(price).ok()?)?,
        size: Size::from_micros(size),
    })
}

/// A decimal of at most eight bytes starting at `p` and closed by a quote: its value in 10⁻⁶
/// units and the index of the closing quote, read from one word.
#[inline(always)]
fn quoted_decimal(b: &[u8], p: usize) -> Option<(u64, usize)> {
    let w = word8_padded(b, p)?;
    let len = value_len(w, b.get(p + 8))?;
    Some((word_decimal(w, len)?, p + len))
}

/// The eight bytes at `p` as a little-endian word; near the end of the frame, zero bytes
/// (neither digits, quotes nor letters) fill it. `None` only past the end.
#[inline(always)]
pub(super) fn word8_padded(b: &[u8], p: usize) -> Option<u64> {
    word8(b, p).or_else(|| padded::<8>(b.get(p..)?).map(u64::from_le_bytes))
}

/// Length of a quoted value of at most eight bytes: `w` holds its first eight bytes and `after`
/// the byte after them. The closing quote is in the word, or is `after` (eight bytes).
#[inline(always)]
fn value_len(w: u64, after: Option<&u8>) -> Option<usize> {
    quote_in_word(w).or_else(|| (after == Some(&b'"')).then_some(8))
}

/// Bytes [`compact_level`] looks at from a level's start: enough for the longest level it
/// accepts (10 + 7 + 10 + 8 + 2 bytes) plus the word read past each value.
const WIN: usize = 48;

/// `rest` (the frame's last bytes, fewer than `N`) followed by zero bytes: neither digits nor
/// quotes, so the padding can only make a reader give up. Only near the frame's end, where a
/// reader's window would run past it; the zeroing stays off the common path.
#[cold]
fn padded<const N: usize>(rest: &[u8]) -> Option<[u8; N]> {
    let mut pad = [0u8; N];
    pad.get_mut(..rest.len())?.copy_from_slice(rest);
    Some(pad)
}

/// The little-endian word of `N` (2, 4 or 8) bytes of `win` at `at`.
#[inline(always)]
fn le<const N: usize>(win: &[u8; WIN], at: usize) -> u64 {
    let mut w = [0u8; 8];
    w[..N].copy_from_slice(&win[at..at + N]);
    u64::from_le_bytes(w)
}

/// `N` bytes of a literal as the word [`le`] reads.
const fn lit_word<const N: usize>(l: &[u8; N]) -> u64 {
    let mut w = [0u8; 8];
    let mut i = 0;
    while i < N {
        w[i] = l[i];
        i += 1;
    }
    u64::from_le_bytes(w)
}

/// A level exactly as the exchange writes it, `{"price":"<decimal>","size":"<decimal>"}`, no
/// whitespace, read as straight-line word operations: the literals are compared a word at a
/// time, each value's closing quote is found inside one word, and the value is parsed from that
/// same word. Values are at most eight bytes. Anything else returns `None` and [`fast_level`] /
/// the general path decode (or report) the level.
#[inline(always)]
fn compact_level(b: &[u8], p: usize) -> Option<(Level, usize)> {
    let pad;
    let win = match chunk::<WIN>(b, p) {
        Some(bytes) => bytes,
        None => {
            pad = padded::<WIN>(b.get(p..)?)?;
            &pad
        }
    };
    if le::<8>(win, 0) != lit_word(b"{\"price\"") || le::<2>(win, 8) != lit_word(b":\"") {
        return None;
    }
    let w = le::<8>(win, 10);
    let len = quote_in_word(w)?;
    let price = price_word_decimal(w, len)?;
    let e1 = 10 + len;
    if le::<8>(win, e1) != lit_word(b"\",\"size\"") || le::<2>(win, e1 + 8) != lit_word(b":\"") {
        return None;
    }
    let s2 = e1 + 10;
    let w = le::<8>(win, s2);
    let len = value_len(w, win.get(s2 + 8))?;
    let size = word_decimal(w, len)?;
    let e2 = s2 + len;
    if le::<2>(win, e2) != lit_word(b"\"}") {
        return None;
    }
    Some((micros_level(price, size)?, p + e2 + 2))
}

/// Consumes the leading run of levels the fast readers accept ([`compact_level`], then
/// [`fast_level`]), handing each to `emit`. Stops before the first item they do not accept
/// (or at the `]`), leaving the state where the general loop takes over.
#[inline]
fn compact_levels(st: &mut ListState<'_>, mut emit: impl FnMut(Level)) {
    let b = st.src.as_bytes();
    let mut p = st.pos;
    loop {
        p = skip_ws(b, p);
        if !st.first {
            if b.get(p) != Some(&b',') {
                st.pos = p;
                return;
            }
            p = skip_ws(b, p + 1);
        }
        let Some((level, end)) = compact_level(b, p).or_else(|| other_level(b, p)) else {
            return;
        };
        emit(level);
        st.first = false;
        st.pos = end;
        p = end;
    }
}

#[inline]
fn parse_level(c: &mut Cursor<'_>, field: &'static str) -> Item<Level> {
    c.peek();
    if let Some((level, end)) = fast_level(c.src.as_bytes(), c.pos) {
        c.pos = end;
        return Ok(Ok(level));
    }
    parse_level_general(c, field)
}

/// Any level object: keys in any order, extra keys skipped, values through the `fixed` parsers
/// when the fast decimal readers give up (the reference the fast readers are tested against).
fn parse_level_general(c: &mut Cursor<'_>, field: &'static str) -> Item<Level> {
    let src = c.src;
    let mut price = Raw::default();
    let mut size = Raw::default();
    let at = c.pos;
    if let Err(e) = object(c, field, |k, c| {
        match k {
            b"price" => price = c.raw()?,
            b"size" => size = c.raw()?,
            _ => c.skip(0)?,
        }
        Ok(())
    })? {
        return Ok(Err(e));
    }
    if price.at == 0 {
        price.at = at as u32;
    }
    if size.at == 0 {
        size.at = at as u32;
    }
    Ok(req_price(src, &price, "price")
        .and_then(|price| req_size(src, &size, "size").map(|size| Level { price, size })))
}

/// Walks `bids`/`asks` during the first pass. With a capturing sink every level is parsed and
/// delivered; otherwise the array is only checked structurally.
pub(crate) fn walk_levels<S: Sink>(
    c: &mut Cursor<'_>,
    side: Side,
    sink: &mut S,
) -> Result<Span, DecodeError> {
    walk(c, side_field(side), |st| {
        if !S::CAPTURE {
            return None;
        }
        compact_levels(st, |level| {
            sink.level(side, Ok(level));
        });
        Some(rest_levels(st, side, sink))
    })
}

/// The field name of `side`'s levels, for errors.
fn side_field(side: Side) -> &'static str {
    if side == Side::Buy { "bids" } else { "asks" }
}

/// The levels after the straight-line readers' run, through the general reader, to the `]`.
fn rest_levels<S: Sink>(
    st: &mut ListState<'_>,
    side: Side,
    sink: &mut S,
) -> Result<usize, DecodeError> {
    let field = side_field(side);
    while let Some(r) = st.next_item(|c| parse_level(c, field)) {
        if let Err(e) = r {
            if e.kind().is_structural() {
                return Err(e);
            }
        }
        sink.level(side, r);
    }
    Ok(st.pos)
}

/// [`walk_levels`] for the `book` reader, from the value at `v`: the same levels to `sink`, the
/// same span, and the index after the array. The straight-line run is inlined here and the
/// array's end checked directly; the general walk takes what they leave.
#[inline(always)]
pub(super) fn book_levels<S: Sink>(
    src: &str,
    v: usize,
    side: Side,
    sink: &mut S,
) -> Result<(Span, usize), DecodeError> {
    let b = src.as_bytes();
    if S::CAPTURE && b.get(v) == Some(&b'[') {
        let mut st = ListState::new(src, Some(v + 1));
        compact_levels(&mut st, |level| sink.level(side, Ok(level)));
        let p = skip_ws(b, st.pos);
        if b.get(p) == Some(&b']') {
            return Ok((Some(v + 1), p + 1));
        }
        return Ok((Some(v + 1), rest_levels(&mut st, side, sink)?));
    }
    let mut c = Cursor::new(src, v);
    let span = walk_levels(&mut c, side, sink)?;
    Ok((span, c.pos))
}

/// Walks `price_changes` during the first pass (see [`walk_levels`]).
pub(crate) fn walk_changes<S: Sink>(c: &mut Cursor<'_>, sink: &mut S) -> Result<Span, DecodeError> {
    walk(c, "price_changes", |st| {
        if !S::CAPTURE {
            return None;
        }
        while let Some(r) = st.next_item(parse_change) {
            if let Err(e) = r {
                if e.kind().is_structural() {
                    return Some(Err(e));
                }
            }
            sink.change(r);
        }
        Some(Ok(st.pos))
    })
}

/// Shared first-pass walk: `capture` returns the end position after consuming the items, or
/// `None` to have the array skipped structurally.
fn walk<'a>(
    c: &mut Cursor<'a>,
    field: &'static str,
    capture: impl FnOnce(&mut ListState<'a>) -> Option<Result<usize, DecodeError>>,
) -> Result<Span, DecodeError> {
    let at = c.pos;
    match c.peek() {
        Some(b'[') => {
            let span = Some(at + 1);
            let mut st = ListState::new(c.src, span);
            match capture(&mut st) {
                Some(Ok(end)) => c.pos = end,
                Some(Err(e)) => return Err(e),
                None => c.skip(0)?,
            }
            Ok(span)
        }
        Some(b'n') => {
            c.skip(0)?;
            Ok(None)
        }
        Some(_) => {
            c.skip(0)?;
            Err(err(DecodeErrorKind::WrongType, field, at))
        }
        None => Err(err(DecodeErrorKind::Eof, field, at)),
    }
}

/// The levels of one side of a `book`, read lazily from the frame in wire order.
///
/// The exchange sends levels worst-first, but this iterator never assumes an order. A bad
/// level yields an `Err` and iteration continues with the next one.
///
/// ```
/// use polyclob::decode::{decode, Event};
///
/// let frame = r#"{"event_type":"book","asset_id":"1","market":"0x",
///   "bids":[{"price":"0.1","size":"5"},{"price":"x","size":"1"},{"price":"0.2","size":"7"}],
///   "asks":[]}"#;
/// let Some(Ok(Event::Book(b))) = decode(frame).next() else { panic!() };
/// let levels: Vec<_> = b.bids.collect();
/// assert_eq!(levels.len(), 3);
/// assert!(levels[0].is_ok() && levels[1].is_err() && levels[2].is_ok());
/// assert_eq!(b.asks.count(), 0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Levels<'a> {
    st: ListState<'a>,
    field: &'static str,
}

impl<'a> Levels<'a> {
    pub(crate) fn new(src: &'a str, span: Span, field: &'static str) -> Self {
        Self {
            st: ListState::new(src, span),
            field,
        }
    }
}

impl Iterator for Levels<'_> {
    type Item = Result<Level, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let field = self.field;
        self.st.next_item(|c| parse_level(c, field))
    }
}

/// One entry of a `price_change` message: the new size of one level of one asset.
///
/// `size` is the level's new total (`0` removes it); it may be absent, as may the entry's
/// `hash`, `best_bid` and `best_ask`.
///
/// ```
/// use polyclob::types::Side;
/// use polyclob::decode::{decode, Event};
///
/// let frame = r#"{"event_type":"price_change","market":"m","timestamp":"1",
///   "price_changes":[{"asset_id":"a","price":"0.10","side":"BUY","hash":"abc"}]}"#;
/// let Some(Ok(Event::PriceChange(pc))) = decode(frame).next() else { panic!() };
/// let change = pc.changes.clone().next().unwrap()?;
/// assert_eq!((change.asset_id, change.side, change.size), ("a", Side::Buy, None));
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PriceChange<'a> {
    /// Token id of the asset whose level changed.
    pub asset_id: &'a str,
    /// Price of the level.
    pub price: Price,
    /// New total size at that price (`0`: the level is gone); `None` when not sent.
    pub size: Option<Size>,
    /// Book side of the level: `Buy` = bids, `Sell` = asks.
    pub side: Side,
    /// Book hash after the change, when sent.
    pub hash: Option<&'a str>,
    /// The exchange's best bid after the change, when sent.
    pub best_bid: Option<Price>,
    /// The exchange's best ask after the change, when sent.
    pub best_ask: Option<Price>,
}

/// The captured fields of one `price_change` entry.
#[derive(Debug, Default, PartialEq, Eq)]
struct ChangeFields {
    asset_id: Raw,
    price: Raw,
    size: Raw,
    side: Raw,
    hash: Raw,
    best_bid: Raw,
    best_ask: Raw,
}

impl ChangeFields {
    /// Where a field of this entry goes, by key.
    #[inline(always)]
    fn slot(&mut self, key: &[u8]) -> Option<&mut Raw> {
        Some(match key {
            b"asset_id" => &mut self.asset_id,
            b"price" => &mut self.price,
            b"size" => &mut self.size,
            b"side" => &mut self.side,
            b"hash" => &mut self.hash,
            b"best_bid" => &mut self.best_bid,
            b"best_ask" => &mut self.best_ask,
            _ => return None,
        })
    }
}

/// Any `price_change` entry object (the reference [`fast_change`] is tested against).
fn general_change(c: &mut Cursor<'_>) -> Item<ChangeFields> {
    count_entry_read(c.pos);
    let mut f = ChangeFields::default();
    let walked = object(c, "price_changes", |k, c| {
        match f.slot(k) {
            Some(r) => *r = c.raw()?,
            None => c.skip(0)?,
        }
        Ok(())
    })?;
    Ok(walked.map(|()| f))
}

fn parse_change<'a>(c: &mut Cursor<'a>) -> Item<PriceChange<'a>> {
    let src = c.src;
    let at = c.pos;
    if let Some((change, end)) = compact_change(src, at) {
        c.pos = end;
        return Ok(Ok(change));
    }
    let mut f = match fast_change(src, at) {
        Some((f, end)) => {
            c.pos = end;
            f
        }
        None => match general_change(c)? {
            Ok(f) => f,
            Err(e) => return Ok(Err(e)),
        },
    };
    for r in [&mut f.asset_id, &mut f.price, &mut f.side] {
        if r.at == 0 {
            r.at = at as u32;
        }
    }
    Ok(f.change(src))
}

impl ChangeFields {
    /// The typed entry (the one conversion of both entry readers).
    #[inline]
    fn change<'a>(&self, src: &'a str) -> Result<PriceChange<'a>, DecodeError> {
        Ok(PriceChange {
            asset_id: req_str(src, &self.asset_id, "asset_id")?,
            price: req_price(src, &self.price, "price")?,
            size: opt_size(src, &self.size, "size")?,
            side: req_side(src, &self.side, "side")?,
            hash: opt_str(src, &self.hash, "hash")?,
            best_bid: opt_price(src, &self.best_bid, "best_bid")?,
            best_ask: opt_price(src, &self.best_ask, "best_ask")?,
        })
    }
}

#[cfg(test)]
thread_local! {
    /// Where each entry read started (test builds only): the no-cliff test checks that a
    /// message whose shape changed is not read twice.
    pub(super) static ENTRY_READS: core::cell::RefCell<Vec<usize>> =
        const { core::cell::RefCell::new(Vec::new()) };
    /// How many times [`seam`] read past members in front of the message's own or between them.
    pub(super) static SEAM_SKIPS: core::cell::Cell<usize> = const { core::cell::Cell::new(0) };
}

/// Records the start of an entry read at `p` in test builds; nothing otherwise.
#[inline(always)]
fn count_entry_read(p: usize) {
    #[cfg(test)]
    ENTRY_READS.with(|r| r.borrow_mut().push(p));
    #[cfg(not(test))]
    let _ = p;
}

/// A `price_change` entry whose known values are plain strings (no escapes), read without the
/// general object machinery: keys are matched straight from the frame, values captured by one
/// word-at-a-time scan each, other members skipped in place ([`skip_value`]). Returns the
/// captures and the index after the object, or `None` when anything deviates, and the general
/// reader then starts over.
#[inline]
fn fast_change(src: &str, p: usize) -> Option<(ChangeFields, usize)> {
    count_entry_read(p);
    let b = src.as_bytes();
    let p = skip_ws(b, p);
    if b.get(p) != Some(&b'{') {
        return None;
    }
    let p = skip_ws(b, p + 1);
    if b.get(p) == Some(&b'}') {
        return Some((ChangeFields::default(), p + 1));
    }
    change_members(src, p, ChangeFields::default())
}

/// The members of an entry from the key whose quote is at `p` to the object's `}`, into `f`
/// (which may hold the members read before `p`); the captures and the index after the `}`.
#[inline]
fn change_members(src: &str, mut p: usize, mut f: ChangeFields) -> Option<(ChangeFields, usize)> {
    let b = src.as_bytes();
    loop {
        if b.get(p) != Some(&b'"') {
            return None;
        }
        let key_end = plain_end(b, p + 1)?;
        let key = b.get(p + 1..key_end)?;
        let colon = skip_ws(b, key_end + 1);
        if b.get(colon) != Some(&b':') {
            return None;
        }
        let v = skip_ws(b, colon + 1);
        let next = match f.slot(key) {
            Some(r) => {
                if b.get(v) != Some(&b'"') {
                    return None;
                }
                let end = plain_end(b, v + 1)?;
                *r = Raw::new(v + 1, end - v - 1, RawKind::Str);
                end + 1
            }
            None => skip_value(src, v)?,
        };
        match next_member(b, next) {
            Ok(q) => p = q,
            Err(q) if b.get(q) == Some(&b'}') => return Some((f, q + 1)),
            Err(_) => return None,
        }
    }
}

/// A `price_change` entry as the exchange writes it —
/// `{"asset_id":"…","price":"…","size":"…","side":"BUY|SELL","hash":"…","best_bid":"…","best_ask":"…"}`,
/// no whitespace, decimals of at most eight bytes, no escapes — read as straight-line code: the
/// key literals compared a word at a time, the id and hash ends checked at their predicted
/// lengths (else scanned; [`find_special_guess`]), each decimal parsed from the one word that
/// holds it. Members no entry has, wherever they stand between the layout's members (a field
/// the exchange added to its entries, any JSON type), are skipped in place, out of line
/// ([`past_to_key`], [`entry_tail`]), so such an entry is still read once. Returns the entry
/// and the index after its `}`; anything else returns `None`, and [`keyed_entry`] / the
/// general reader take the entry (they accept this shape too, with the same result: tested
/// below).
#[inline(always)]
pub(super) fn compact_change(src: &str, p: usize) -> Option<(PriceChange<'_>, usize)> {
    count_entry_read(p);
    match layout::<HOT>(src, p, Partial::default(), &mut false) {
        Ok(x) => Some(x),
        Err(part) => resume(src, part),
    }
}

/// [`layout`] straight on: every literal where the layout puts it, else it stops.
const HOT: usize = usize::MAX;
/// [`layout`] skipping, in place, members no entry has wherever they stand.
const SKIPPING: usize = usize::MAX - 1;

/// What [`layout`] had read of an entry when it stopped: `k` is the member (0 `asset_id` … 6
/// `best_ask`) whose literal was not at `e`, or `u8::MAX` when the entry is not one the
/// layout readers take; the members before `k` as read. Indices as `u32` (a frame of 4 GiB or
/// more gives up here), so that [`Resume`], which carries it, stays small.
#[derive(Clone, Copy, Debug)]
struct Partial {
    k: u8,
    sell: bool,
    e: u32,
    id_at: u32,
    id_end: u32,
    hash_at: u32,
    hash_end: u32,
    px: u64,
    size: u64,
    bid: u64,
}

impl Default for Partial {
    fn default() -> Self {
        Self {
            k: u8::MAX,
            sell: false,
            e: 0,
            id_at: 0,
            id_end: 0,
            hash_at: 0,
            hash_end: 0,
            px: 0,
            size: 0,
            bid: 0,
        }
    }
}

impl Partial {
    /// Stopped at member `k`, at `e`, with the indices and values read before it.
    #[allow(clippy::too_many_arguments)]
    fn at(
        k: u8,
        e: usize,
        [id_at, id_end, hash_at, hash_end]: [usize; 4],
        [px, size, bid]: [u64; 3],
        sell: bool,
    ) -> Self {
        let small = |i: usize| u32::try_from(i).ok();
        let (Some(e), Some(id_at), Some(id_end), Some(hash_at), Some(hash_end)) = (
            small(e),
            small(id_at),
            small(id_end),
            small(hash_at),
            small(hash_end),
        ) else {
            return Self::default();
        };
        Self {
            k,
            sell,
            e,
            id_at,
            id_end,
            hash_at,
            hash_end,
            px,
            size,
            bid,
        }
    }
}

/// [`compact_change`] once [`layout`] stopped at member `part.k`: the members read before are
/// kept, members no entry has before member `k` are skipped in place ([`past`]), and the rest
/// of the entry is read as the layout reader reads it, skipping where needed (a field the
/// exchange added to its entries, anywhere in them). Out of line and cold: the exchange's
/// layout never comes here, and the straight-line path carries no call (it returns the stop).
#[cold]
#[inline(never)]
fn resume(src: &str, part: Partial) -> Option<(PriceChange<'_>, usize)> {
    match part.k {
        0 => layout::<0>(src, part.e as usize, part, &mut false),
        1 => layout::<1>(src, part.e as usize, part, &mut false),
        2 => layout::<2>(src, part.e as usize, part, &mut false),
        3 => layout::<3>(src, part.e as usize, part, &mut false),
        4 => layout::<4>(src, part.e as usize, part, &mut false),
        5 => layout::<5>(src, part.e as usize, part, &mut false),
        6 => layout::<6>(src, part.e as usize, part, &mut false),
        _ => return None,
    }
    .ok()
}

/// The layout reader of [`compact_change`] (`FROM` = [`HOT`]: every member read here, the
/// literals compared whole; `Err` where one is not where the layout puts it, with what was
/// read) and of [`resume`] (`FROM` = the member whose literal was missing: the members before
/// it come from `part`, unknown members are skipped).
#[inline(always)]
fn layout<'a, const FROM: usize>(
    src: &'a str,
    p: usize,
    part: Partial,
    skipped: &mut bool,
) -> Result<(PriceChange<'a>, usize), Partial> {
    let b = src.as_bytes();
    // Locals, not `part`'s fields, so that the straight-line path keeps them in registers.
    let (mut id_at, mut id_end) = (part.id_at as usize, part.id_end as usize);
    let (mut hash_at, mut hash_end) = (part.hash_at as usize, part.hash_end as usize);
    let (mut px, mut size, mut bid, mut sell) = (part.px, part.size, part.bid, part.sell);
    let mut e = p;
    // Member `k` is read here (not taken from `part`).
    let read = |k: usize| FROM >= SKIPPING || k >= FROM;
    let fail = Partial::default();
    macro_rules! some {
        ($x:expr) => {
            match $x {
                Some(x) => x,
                None => return Err(fail),
            }
        };
    }
    // The literal of member `k` at `e`: `whole`, which is `head` then `key` (see
    // `past_to_key`). Where it is not, the straight-line path stops there; the others skip
    // the members no entry has in front of `key` (the resumed member's literal is known to be
    // missing).
    macro_rules! at {
        ($k:literal, $whole:expr, $head:expr, $key:expr) => {
            match if FROM == $k { None } else { lit(b, e, $whole) } {
                Some(x) => x,
                None if FROM == HOT => {
                    return Err(Partial::at(
                        $k,
                        e,
                        [id_at, id_end, hash_at, hash_end],
                        [px, size, bid],
                        sell,
                    ));
                }
                None => {
                    *skipped = true;
                    some!(past_to_key(src, e, ($head, $key), not_entry_key))
                }
            }
        };
    }
    if read(0) {
        id_at = at!(0, b"{\"asset_id\":\"", b"{", b"\"asset_id\":\"");
        id_end = some!(plain_end_guess::<ID_LEN>(b, id_at));
        e = id_end;
    }
    if read(1) {
        let px_at = at!(1, b"\",\"price\":\"", b"\",", b"\"price\":\"");
        (px, e) = some!(quoted_decimal(b, px_at));
    }
    if read(2) {
        let size_at = at!(2, b"\",\"size\":\"", b"\",", b"\"size\":\"");
        (size, e) = some!(quoted_decimal(b, size_at));
    }
    if read(3) {
        let side_at = at!(3, b"\",\"side\":\"", b"\",", b"\"side\":\"");
        (sell, e) = match lit(b, side_at, b"BUY\"") {
            Some(e) => (false, e),
            None => (true, some!(lit(b, side_at, b"SELL\""))),
        };
    }
    if read(4) {
        hash_at = at!(4, b",\"hash\":\"", b",", b"\"hash\":\"");
        hash_end = some!(plain_end_guess::<HASH_LEN>(b, hash_at));
        e = hash_end;
    }
    if read(5) {
        let bid_at = at!(5, b"\",\"best_bid\":\"", b"\",", b"\"best_bid\":\"");
        (bid, e) = some!(quoted_decimal(b, bid_at));
    }
    let ask_at = at!(6, b"\",\"best_ask\":\"", b"\",", b"\"best_ask\":\"");
    let (ask, e) = some!(quoted_decimal(b, ask_at));
    let end = match lit(b, e, b"\"}") {
        Some(end) => end,
        // (Members after the last one: the exchange's layout reader skips them too.)
        None => some!(entry_tail(src, e)),
    };
    let price = |m: u64| Price::new(u32::try_from(m).ok()?);
    let change = PriceChange {
        asset_id: some!(sub(src, id_at, id_end)),
        price: some!(price(px)),
        size: Some(Size::from_micros(size)),
        side: if sell { Side::Sell } else { Side::Buy },
        hash: Some(some!(sub(src, hash_at, hash_end))),
        best_bid: Some(some!(price(bid))),
        best_ask: Some(some!(price(ask))),
    };
    Ok((change, end))
}

/// [`compact_change`] for an entry of a feed that added members to its entries: every
/// literal compared whole, and where one is missing the members no entry has are skipped in
/// place ([`past_to_key`]).
#[inline(always)]
fn skipping_change(src: &str, p: usize) -> Option<(PriceChange<'_>, usize)> {
    count_entry_read(p);
    layout::<SKIPPING>(src, p, Partial::default(), &mut false).ok()
}

/// Members after the last one of [`compact_change`]'s layout (the closing quote of `best_ask`
/// is at `e`): a field the exchange appended to every entry, skipped in place when its key is
/// not an entry's key, so the entry is read once; the index after the entry's `}`. `None` for
/// anything else (a repeated key: the keyed reader decides). Out of line: the exchange's
/// layout never comes here.
#[cold]
#[inline(never)]
fn entry_tail(src: &str, e: usize) -> Option<usize> {
    let b = src.as_bytes();
    if b.get(e) != Some(&b'"') {
        return None;
    }
    if b.get(e + 1) == Some(&b',') {
        if let Some(end) = scalars_to_close(b, e + 2, &not_entry_key) {
            return Some(end);
        }
    }
    let mut next = e + 1;
    loop {
        match next_member(b, next) {
            Ok(p) => {
                let (key, v) = key_at(src, p)?;
                if entry_slot(key).is_some() {
                    return None;
                }
                next = skip_value(src, v)?;
            }
            Err(q) if b.get(q) == Some(&b'}') => return Some(q + 1),
            Err(_) => return None,
        }
    }
}

/// Members after a message's last expected one, from `after` (just after a value): the index
/// after the object's `}` when no event reads any of them. Out of line.
#[cold]
#[inline(never)]
fn object_tail(src: &str, after: usize) -> Option<usize> {
    let q = past_unknown(src, after, not_event_key)?;
    (src.as_bytes().get(q) == Some(&b'}')).then_some(q + 1)
}

/// A key no `price_change` entry has ([`ChangeFields::slot`]): the layout reader skips it.
fn not_entry_key(key: &[u8]) -> bool {
    entry_slot(key).is_none()
}

/// What [`compact_price_change`] read: `market` and `timestamp` as the general reader captures
/// them, where the `price_changes` items start (after the `[`), and the index after the `}`.
#[derive(Debug)]
pub(crate) struct CompactPriceChange {
    pub(crate) market: Raw,
    pub(crate) timestamp: Raw,
    pub(crate) items: usize,
    pub(crate) end: usize,
}

/// A whole `price_change` message exactly as the exchange sends it (all 49 in the real
/// capture `ws_market_price_change_crossing_burst.json` have this layout):
/// `{"market":"…","price_changes":[<entries>],"timestamp":"…","event_type":"price_change"}`,
/// no whitespace, every entry in [`compact_change`]'s layout (which also takes fields appended
/// to an entry). Entries go to `sink` as they are read. On any other text, `Err` says where
/// it stopped and what it had read, and [`keyed_price_change`] continues from there (the
/// entries already delivered stay delivered); the result is the general reader's on every
/// text either accepts (tested below).
#[inline(always)]
pub(crate) fn compact_price_change<S: Sink>(
    src: &str,
    p: usize,
    sink: &mut S,
) -> Result<CompactPriceChange, Resume> {
    layout_object::<S, HOT, true>(src, p, sink, &mut false)
}

/// [`compact_price_change`] for a feed whose entries have members no entry has (a field the
/// exchange added to its entries): every entry read by [`skipping_change`], which skips them
/// in place, so that no entry is started twice. [`shape`] goes here once such a message was
/// seen, until a message whose entries have no such member (read here as well: the literals
/// are compared whole first) sends the thread back to the exchange's layout. Inlined into
/// [`shape::price_change`]: as a call of its own it returned its large result through memory,
/// and the mid-entry row read 1.35x the exact layout's time instead of 1.18x.
#[inline(always)]
pub(crate) fn skipping_price_change<S: Sink>(
    src: &str,
    p: usize,
    sink: &mut S,
) -> Result<CompactPriceChange, Resume> {
    let mut skipped = false;
    let read = layout_object::<S, SKIPPING, false>(src, p, sink, &mut skipped);
    if read.is_ok() && !skipped {
        shape::learn(shape::EXACT);
    }
    read
}

/// Where the layout reader found its literal `head` then `key` not at `e`, in front of the
/// message's members or between two of them, once the thread has met such members
/// ([`shape::seams`]): compact members no event reads skipped ([`unknown_member`]: each value
/// checked as the general reader checks it), then `key`; the index after it and how many
/// members it skipped (at most 255: more go to the keyed reader). `None` for
/// anything else (the keyed reader decides). Out of line: the exchange's layout never comes
/// here. Not [`past`], which also reads whitespace: 72 instructions more a message.
#[inline(never)]
fn seam<const H: usize, const K: usize>(
    src: &str,
    e: usize,
    head: &[u8; H],
    key: &[u8; K],
) -> Option<(core::num::NonZeroUsize, u8)> {
    let b = src.as_bytes();
    let mut p = lit(b, e, head)?;
    let mut skipped = 0u8;
    loop {
        let end = unknown_member(b, p)?;
        if b.get(end) != Some(&b',') {
            return None;
        }
        skipped = skipped.checked_add(1)?;
        p = end + 1;
        if let Some(after) = lit(b, p, key) {
            #[cfg(test)]
            SEAM_SKIPS.with(|n| n.set(n.get() + 1));
            return Some((core::num::NonZeroUsize::new(after)?, skipped));
        }
    }
}

/// The message whose `{` is at `p`, its entries read by [`layout`] in `MODE`; `SEAMS`: members
/// in front of the message's own or between them skipped once the thread has met them
/// ([`seam`]; not in the skipping-entries mode, whose code it made slower: such a message goes
/// to the keyed reader).
#[inline(always)]
fn layout_object<S: Sink, const MODE: usize, const SEAMS: bool>(
    src: &str,
    p: usize,
    sink: &mut S,
    skipped: &mut bool,
) -> Result<CompactPriceChange, Resume> {
    if src.as_bytes().get(p) != Some(&b'{') {
        return Err(Resume::fail());
    }
    compact_members::<S, MODE, SEAMS>(src, p + 1, sink, skipped)
}

/// [`compact_price_change`] from the quote of the first key at `p` (also where the keyed
/// reader has skipped members in front of the layout's first key); `skipped` is set when an
/// entry had members no entry has between the layout's (`MODE` [`SKIPPING`]).
#[inline(always)]
fn compact_members<S: Sink, const MODE: usize, const SEAMS: bool>(
    src: &str,
    p: usize,
    sink: &mut S,
    skipped: &mut bool,
) -> Result<CompactPriceChange, Resume> {
    let b = src.as_bytes();
    let mut caps = PcCaps::default();
    // The literal `whole` (`head` then `key`) at `e`, in front of the message's members or
    // between two of them: the index after it. Where it is not, members no event reads are
    // skipped first once the thread has met them ([`seam`]), and otherwise the keyed reader
    // continues from `stop`. A `match`, not `lit(..).or_else`: the closure cost the exchange's
    // path 16 instructions.
    macro_rules! seam {
        ($i:expr, $e:expr, $whole:expr, $head:expr, $key:expr, $stop:expr) => {
            match lit(b, $e, $whole) {
                Some(at) => at,
                None if SEAMS && shape::seams() => match seam(src, $e, $head, $key) {
                    Some((at, skipped)) => {
                        caps.others[$i] = skipped;
                        at.get()
                    }
                    None => return Err(Resume::at(caps, $stop)),
                },
                None => return Err(Resume::at(caps, $stop)),
            }
        };
    }
    let market_at = seam!(
        0,
        p,
        b"\"market\":\"",
        b"",
        b"\"market\":\"",
        At::Key(skip_ws(b, p))
    );
    let market_end = plain_end_guess::<MARKET_LEN>(b, market_at).ok_or_else(Resume::fail)?;
    caps.market = Raw::new(market_at, market_end - market_at, RawKind::Str);
    let items = seam!(
        1,
        market_end,
        b"\",\"price_changes\":[",
        b"\",",
        b"\"price_changes\":[",
        At::After(market_end + 1)
    );
    caps.items = Some(items);
    let mut q = items;
    if b.get(q) == Some(&b']') {
        q += 1;
    } else {
        loop {
            count_entry_read(q);
            let (change, end) = match layout::<MODE>(src, q, Partial::default(), skipped) {
                Ok(x) => x,
                // Out of the loop, so that the exchange's layout carries no call.
                Err(part) => {
                    caps.stop = part;
                    return Err(Resume::at(caps, At::Entry(q)));
                }
            };
            if S::CAPTURE {
                sink.change(Ok(change));
            }
            q = end + 1;
            match b.get(end) {
                Some(b',') => {}
                Some(b']') => break,
                _ => return Err(Resume::at(caps, At::Entries(end))),
            }
        }
    }
    let ts_at = seam!(
        2,
        q,
        b",\"timestamp\":\"",
        b",",
        b"\"timestamp\":\"",
        At::After(q)
    );
    let ts_end = plain_end_guess::<TIMESTAMP_LEN>(b, ts_at).ok_or_else(Resume::fail)?;
    caps.timestamp = Raw::new(ts_at, ts_end - ts_at, RawKind::Str);
    let type_at = seam!(
        3,
        ts_end,
        b"\",\"event_type\":\"",
        b"\",",
        b"\"event_type\":\"",
        At::After(ts_end + 1)
    );
    let Some(end) = lit(b, type_at, b"price_change\"}") else {
        caps.is_pc = true;
        let after = lit(b, type_at, b"price_change\"").ok_or_else(Resume::fail)?;
        // Members after the last one: skipped when no event reads them.
        return match object_tail(src, after) {
            Some(end) => Ok(CompactPriceChange {
                market: caps.market,
                timestamp: caps.timestamp,
                items,
                end,
            }),
            None => Err(Resume::at(caps, At::After(after))),
        };
    };
    Ok(CompactPriceChange {
        market: caps.market,
        timestamp: caps.timestamp,
        items,
        end,
    })
}

/// [`compact_price_change`] from the entry at `q` on which the layout reader stopped, with what
/// it had read of it (`caps.stop`): that entry is finished from there ([`resume`]: members no
/// entry has are skipped in place), the rest are read by [`skipping_change`] (a feed that added
/// a member to its entries added it to every one), then the message's layout tail. Where that
/// does not do, `Err` says where the keyed reader continues: at an entry it reads keyed, after
/// the entries, or after the array. Out of line: the exchange's layout never comes here.
#[inline(never)]
fn skipping_entries<S: Sink>(
    src: &str,
    mut q: usize,
    mut caps: PcCaps,
    sink: &mut S,
) -> Result<CompactPriceChange, Resume> {
    let b = src.as_bytes();
    let stop = core::mem::take(&mut caps.stop);
    let mut read = resume(src, stop);
    loop {
        let Some((change, end)) = read else {
            return Err(Resume::at(caps, At::Entry(q)));
        };
        if S::CAPTURE {
            sink.change(Ok(change));
        }
        q = end + 1;
        match b.get(end) {
            Some(b',') => {}
            Some(b']') => break,
            _ => return Err(Resume::at(caps, At::Entries(end))),
        }
        read = skipping_change(src, q);
    }
    let items = caps.items.ok_or_else(Resume::fail)?;
    layout_tail(src, q, caps.market, items).ok_or(Resume::at(caps, At::After(q)))
}

/// What a `price_change` reader has captured so far.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct PcCaps {
    pub(super) market: Raw,
    pub(super) timestamp: Raw,
    /// Where the `price_changes` items start.
    pub(super) items: Option<usize>,
    /// `"event_type":"price_change"` was read.
    pub(super) is_pc: bool,
    /// The members read so far as [`shape`] codes (0: none recorded; see [`shape::push`]).
    pub(super) seq: u64,
    /// How many members no event reads the layout reader skipped ([`seam`]) in front of
    /// `market` (byte 0), of `price_changes` (1), of `timestamp` (2) and of `event_type` (3),
    /// for the order it read ([`layout_prefix`]).
    others: [u8; 4],
    /// What the layout reader had read of the entry on which it stopped ([`At::Entry`]).
    stop: Partial,
}

/// Where [`compact_price_change`] stopped.
#[derive(Clone, Copy, Debug)]
pub(super) enum At {
    /// Nothing to continue: the general reader decodes the element.
    Fail,
    /// At the quote of a member's key (or the object's `}`).
    Key(usize),
    /// Just after a member's value.
    After(usize),
    /// At the `{` of an entry that [`compact_change`] does not read (those before it were
    /// delivered); from [`skipping_entries`], one that [`skipping_change`] does not read
    /// either.
    Entry(usize),
    /// Just after an entry, before the token that follows it.
    Entries(usize),
}

/// [`compact_price_change`]'s captures and where it stopped, for [`keyed_price_change`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Resume {
    caps: PcCaps,
    at: At,
}

impl Resume {
    /// Nothing to continue.
    pub(super) fn fail() -> Self {
        Self::at(PcCaps::default(), At::Fail)
    }

    #[inline(always)]
    pub(super) const fn at(caps: PcCaps, at: At) -> Self {
        Self { caps, at }
    }
}

/// A plain string value (no escape, no control byte) whose quote is at `p`, predicted to be
/// `N` bytes long: its capture and the index after it.
#[inline(always)]
fn plain_string<const N: usize>(b: &[u8], p: usize) -> Option<(Raw, usize)> {
    if b.get(p) != Some(&b'"') {
        return None;
    }
    let end = plain_end_guess::<N>(b, p + 1)?;
    Some((Raw::new(p + 1, end - p - 1, RawKind::Str), end + 1))
}

/// The `price_change` message whose `{` is at `start`, continued from where
/// [`compact_price_change`] stopped: members in any order, whitespace between tokens,
/// members no event reads skipped in place, entries in any layout (see [`entries_at`]: the
/// exchange's, the same with unknown members between, any order). Nothing is read twice
/// except the one entry on which the faster entry readers stopped. `None` —
/// another event's key, a value that is not a plain string, no `"event_type":"price_change"`,
/// an entry the keyed reader does not take — leaves the element to the general reader from its
/// start (the caller resets the sink). The same result as the general reader on every text
/// this accepts (tested below).
#[inline(never)]
pub(crate) fn keyed_price_change<S: Sink>(
    src: &str,
    sink: &mut S,
    resume: Resume,
) -> Option<CompactPriceChange> {
    let b = src.as_bytes();
    let mut caps = resume.caps;
    match resume.at {
        At::Fail => None,
        At::Key(first) => {
            // Members in front of the layout's first key (a field the exchange added at the
            // front) are skipped, then the layout reader takes the rest.
            let p = front(src, first, &mut caps.seq)?;
            if p != first && b.get(p..p + 10) == Some(b"\"market\":\"") {
                return resync(src, p, caps.seq, sink);
            }
            keyed_rest(src, sink, caps, At::Key(p))
        }
        At::After(q) => {
            // The exchange's other events (a book has `market` first too) give up here.
            if let Ok(p) = next_member(b, q) {
                front_key(src, p)?;
            }
            if caps.seq == 0 {
                // The layout reader's members (the learned order's reader records its own).
                caps.seq = layout_prefix(&caps);
            }
            keyed_rest(src, sink, caps, resume.at)
        }
        At::Entry(q) => match skipping_entries(src, q, resume.caps, sink) {
            Ok(pc) => {
                // The next messages' entries are read skipping from the first.
                shape::learn(shape::SKIPPING_ENTRIES);
                Some(pc)
            }
            Err(r) => keyed_rest(src, sink, unrecorded(r.caps), r.at),
        },
        _ => keyed_rest(src, sink, unrecorded(caps), resume.at),
    }
}

/// The codes ([`shape`]) of the members [`compact_members`] read before it stopped, which
/// are the layout's first ones.
fn layout_prefix(caps: &PcCaps) -> u64 {
    let read = [
        (caps.market.kind == RawKind::Str, shape::MARKET),
        (caps.items.is_some(), shape::PRICE_CHANGES),
        (caps.timestamp.kind == RawKind::Str, shape::TIMESTAMP),
        (caps.is_pc, shape::EVENT_TYPE),
    ];
    let mut seq = 0;
    for (&(was_read, code), &others) in read.iter().zip(&caps.others) {
        if was_read {
            seq = (0..others).fold(seq, |seq, _| shape::push(seq, shape::OTHER));
            seq = shape::push(seq, code);
        }
    }
    seq
}

/// `caps` with its member order marked unknown: the entries changed shape, not the order.
fn unrecorded(mut caps: PcCaps) -> PcCaps {
    caps.seq = shape::UNKNOWN;
    caps
}

/// The layout reader again from the `market` key at `p`, after members in front of it
/// (`seq`: their codes).
#[inline(never)]
fn resync<S: Sink>(src: &str, p: usize, seq: u64, sink: &mut S) -> Option<CompactPriceChange> {
    match compact_members::<S, HOT, true>(src, p, sink, &mut false) {
        Ok(pc) => {
            shape::learn(shape::finished(shape::concat(seq, shape::EXACT)));
            Some(pc)
        }
        Err(mut r) => {
            r.caps.seq = shape::concat(seq, layout_prefix(&r.caps));
            keyed_price_change(src, sink, r)
        }
    }
}

/// The first member from the key at `p` on whose key a `price_change` has; members no event
/// reads are skipped (and recorded in `seq`). `None` at another event's key, at the object's
/// end, or on broken JSON.
#[inline(always)]
fn front(src: &str, mut p: usize, seq: &mut u64) -> Option<usize> {
    let b = src.as_bytes();
    loop {
        match front_key(src, p)? {
            None => return Some(p),
            Some(v) => match next_member(b, skip_value_call(src, skip_ws(b, v))?) {
                Ok(q) => {
                    *seq = shape::push(*seq, shape::OTHER);
                    p = q;
                }
                Err(_) => return None,
            },
        }
    }
}

/// For the key at `p`: `Some(None)` when a `price_change` has it, `Some(Some(value))` when no
/// event reads it (skip it), `None` otherwise.
#[inline(always)]
fn front_key(src: &str, p: usize) -> Option<Option<usize>> {
    match pc_key(src.as_bytes(), p) {
        Some((PcKey::Foreign, _)) => return None,
        Some(_) => return Some(None),
        None => {}
    }
    let (key, v) = key_at(src, p)?;
    (!is_event_key(key)).then_some(Some(v))
}

/// [`keyed_price_change`] once the message looks like one: every member from `at` on.
#[inline(never)]
fn keyed_rest<S: Sink>(
    src: &str,
    sink: &mut S,
    mut caps: PcCaps,
    at: At,
) -> Option<CompactPriceChange> {
    let b = src.as_bytes();
    let mut after = match at {
        At::Fail => return None,
        At::Key(p) => members(src, p, &mut caps, sink)?,
        At::After(q) => q,
        At::Entry(q) => entries_at(src, q, Mode::Keyed, sink)?,
        At::Entries(q) => entries_after(src, q, sink)?,
    };
    if let (At::Entry(_) | At::Entries(_), Some(items)) = (at, caps.items) {
        // The entries changed shape, the message may not have: its layout's last members.
        if let Some(pc) = layout_tail(src, after, caps.market, items) {
            return Some(pc);
        }
    }
    let end = loop {
        match next_member(b, after) {
            Ok(p) => after = members(src, p, &mut caps, sink)?,
            Err(q) if b.get(q) == Some(&b'}') => break q + 1,
            Err(_) => return None,
        }
    };
    match caps {
        PcCaps {
            is_pc: true,
            market: Raw {
                kind: RawKind::Str, ..
            },
            items: Some(items),
            timestamp,
            seq,
            ..
        } => {
            shape::learn(shape::finished(seq));
            Some(CompactPriceChange {
                market: caps.market,
                timestamp,
                items,
                end,
            })
        }
        _ => None,
    }
}

/// The members after `price_changes` in the exchange's layout, from just after the array at
/// `q`, `market` and the items read before: the message, or `None` (the keyed loop reads
/// them instead).
#[inline(always)]
fn layout_tail(src: &str, q: usize, market: Raw, items: usize) -> Option<CompactPriceChange> {
    let b = src.as_bytes();
    let ts_at = lit(b, q, b",\"timestamp\":\"")?;
    let ts_end = plain_end_guess::<TIMESTAMP_LEN>(b, ts_at)?;
    let end = lit(b, ts_end, b"\",\"event_type\":\"price_change\"}")?;
    if market.kind != RawKind::Str {
        return None;
    }
    // The message is in the exchange's order.
    shape::learn(shape::EXACT);
    Some(CompactPriceChange {
        market,
        timestamp: Raw::new(ts_at, ts_end - ts_at, RawKind::Str),
        items,
        end,
    })
}

/// The keys of a `price_change` message.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum PcKey {
    Market,
    PriceChanges,
    Timestamp,
    EventType,
    /// `asset_id`: the key the exchange's other events start with (a `book` has it second),
    /// recognised here so that they leave at once.
    Foreign,
}

/// The `price_change` key whose quote is at `p` (compared a word at a time, as the book
/// reader compares its keys) and the index after its colon; `None` for any other key or
/// spelling.
#[inline(always)]
fn pc_key(b: &[u8], p: usize) -> Option<(PcKey, usize)> {
    const MARKET: Pattern = pattern(b"market");
    const PRICE_CHANGES: Pattern = pattern(b"price_changes");
    const TIMESTAMP: Pattern = pattern(b"timestamp");
    const EVENT_TYPE: Pattern = pattern(b"event_type");
    const ASSET_ID: Pattern = pattern(b"asset_id");
    const P_MARK: u32 = MARKET.bytes as u32;
    const P_ASSE: u32 = ASSET_ID.bytes as u32;
    const P_PRIC: u32 = PRICE_CHANGES.bytes as u32;
    const P_TIME: u32 = TIMESTAMP.bytes as u32;
    const P_EVEN: u32 = EVENT_TYPE.bytes as u32;
    if b.get(p) != Some(&b'"') {
        return None;
    }
    let lo = word8_padded(b, p + 1)?;
    let w = u128::from(lo) | u128::from(word8_padded(b, p + 9).unwrap_or(0)) << 64;
    let (key, pat) = match lo as u32 {
        P_MARK => (PcKey::Market, MARKET),
        P_PRIC => (PcKey::PriceChanges, PRICE_CHANGES),
        P_TIME => (PcKey::Timestamp, TIMESTAMP),
        P_EVEN => (PcKey::EventType, EVENT_TYPE),
        P_ASSE => (PcKey::Foreign, ASSET_ID),
        _ => return None,
    };
    if w & pat.mask != pat.bytes {
        return None;
    }
    let colon = skip_ws(b, p + pat.len + 2);
    (b.get(colon) == Some(&b':'))
        .then_some(colon + 1)
        .map(|v| (key, v))
}

/// One member of a `price_change` message, whose key's quote is at `p`, into `caps`; the
/// index after its value.
#[inline(always)]
fn members<S: Sink>(src: &str, p: usize, caps: &mut PcCaps, sink: &mut S) -> Option<usize> {
    let b = src.as_bytes();
    let Some((key, v)) = pc_key(b, p) else {
        let (key, v) = key_at(src, p)?;
        // Another event's key: probably that event, left to the general reader.
        if is_event_key(key) {
            return None;
        }
        caps.seq = shape::push(caps.seq, shape::OTHER);
        return skip_value_call(src, skip_ws(b, v));
    };
    let v = skip_ws(b, v);
    Some(match key {
        PcKey::Foreign => return None,
        PcKey::Market => {
            let (raw, next) = plain_string::<MARKET_LEN>(b, v)?;
            caps.market = raw;
            caps.seq = shape::push(caps.seq, shape::MARKET);
            next
        }
        PcKey::Timestamp => {
            let (raw, next) = plain_string::<TIMESTAMP_LEN>(b, v)?;
            caps.timestamp = raw;
            caps.seq = shape::push(caps.seq, shape::TIMESTAMP);
            next
        }
        PcKey::EventType => {
            caps.is_pc = true;
            caps.seq = shape::push(caps.seq, shape::EVENT_TYPE);
            lit(b, v, b"\"price_change\"")?
        }
        PcKey::PriceChanges => {
            if caps.items.is_some() || b.get(v) != Some(&b'[') {
                return None;
            }
            caps.items = Some(v + 1);
            caps.seq = shape::push(caps.seq, shape::PRICE_CHANGES);
            let p = skip_ws(b, v + 1);
            if b.get(p) == Some(&b']') {
                p + 1
            } else {
                entries_at(src, p, Mode::Layout, sink)?
            }
        }
    })
}

/// How [`entries_at`] reads the next entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Mode {
    /// The exchange's layout, members entries do not have skipped wherever they stand
    /// ([`compact_change`]), else as `Keyed`.
    Layout,
    /// Members in any order ([`keyed_entry`]).
    Keyed,
}

/// The entries of `price_changes` from the one at `p` to the index after the `]`, each to
/// `sink`, read as `mode` says. A feed that changed shape changed it for every entry, so the
/// reader the first entry needed reads the rest: each entry is read once, bar the one on which
/// the faster readers stopped.
pub(super) fn entries_at<S: Sink>(
    src: &str,
    mut p: usize,
    mut mode: Mode,
    sink: &mut S,
) -> Option<usize> {
    let b = src.as_bytes();
    loop {
        let (change, end) = loop {
            match mode {
                Mode::Layout => match compact_change(src, p) {
                    Some(x) => break x,
                    None => mode = Mode::Keyed,
                },
                Mode::Keyed => break keyed_entry(src, p)?,
            }
        };
        if S::CAPTURE {
            sink.change(Ok(change));
        }
        match next_member(b, end) {
            Ok(q) => p = q,
            Err(q) if b.get(q) == Some(&b']') => return Some(q + 1),
            Err(_) => return None,
        }
    }
}

/// [`entries_at`] from just after an entry at `end`.
fn entries_after<S: Sink>(src: &str, end: usize, sink: &mut S) -> Option<usize> {
    let b = src.as_bytes();
    match next_member(b, end) {
        Ok(p) => entries_at(src, p, Mode::Layout, sink),
        Err(q) if b.get(q) == Some(&b']') => Some(q + 1),
        Err(_) => None,
    }
}

/// The first `N` (≤ 8) bytes of `l` as the little-endian word [`word8`] reads.
const fn word_of<const N: usize>(l: &[u8; N]) -> u64 {
    let mut w = 0u64;
    let mut i = 0;
    while i < N && i < 8 {
        w |= (l[i] as u64) << (8 * i);
        i += 1;
    }
    w
}

/// The entry member whose key's quote is at `p`, written as the exchange writes it (no
/// whitespace): its place in [`compact_change`]'s layout (0 `asset_id` … 6 `best_ask`) and
/// the index of its value's opening quote, from one or two word compares that take the key,
/// its closing quote, the colon and the value's quote together. `None` for anything else.
#[inline(always)]
fn entry_member(b: &[u8], p: usize) -> Option<(usize, usize)> {
    const M7: u64 = (1 << 56) - 1;
    const M3: u64 = (1 << 24) - 1;
    const PRICE: u64 = word_of(b"price\":\"");
    const SIZE: u64 = word_of(b"size\":\"");
    const SIDE: u64 = word_of(b"side\":\"");
    const HASH: u64 = word_of(b"hash\":\"");
    const ASSET_ID: u64 = word_of(b"asset_id");
    const BEST_BID: u64 = word_of(b"best_bid");
    const BEST_ASK: u64 = word_of(b"best_ask");
    const COLON: u64 = word_of(b"\":\"");
    let lo = word8(b, p + 1)?;
    if lo == PRICE {
        return Some((1, p + 8));
    }
    match lo & M7 {
        SIZE => return Some((2, p + 7)),
        SIDE => return Some((3, p + 7)),
        HASH => return Some((4, p + 7)),
        _ => {}
    }
    let i = match lo {
        ASSET_ID => 0,
        BEST_BID => 5,
        BEST_ASK => 6,
        _ => return None,
    };
    (word8_padded(b, p + 9)? & M3 == COLON).then_some((i, p + 11))
}

/// The place in [`compact_change`]'s layout of an entry key read by [`key_at`], or `None`
/// when entries do not have it.
#[inline(always)]
fn entry_slot(key: &[u8]) -> Option<usize> {
    Some(match key {
        b"asset_id" => 0,
        b"price" => 1,
        b"size" => 2,
        b"side" => 3,
        b"hash" => 4,
        b"best_bid" => 5,
        b"best_ask" => 6,
        _ => return None,
    })
}

/// A `price_change` entry with its members in any order, members no entry has anywhere
/// (skipped in place, any JSON type), whitespace between tokens: keys matched a word at a
/// time ([`entry_member`]) and values converted where they lie, each decimal parsed from the one
/// word that holds it as the layout reader parses it (longer ones through the `fixed`
/// parsers). Returns the entry and the index after its `}`. `None` where a value is not a plain string, a
/// required member is missing, a value does not convert or the JSON is broken: the general
/// reader decides.
#[inline(never)]
fn keyed_entry(src: &str, p: usize) -> Option<(PriceChange<'_>, usize)> {
    count_entry_read(p);
    let b = src.as_bytes();
    let p = skip_ws(b, p);
    if b.get(p) != Some(&b'{') {
        return None;
    }
    let mut p = skip_ws(b, p + 1);
    let mut asset_id = None;
    let mut price = None;
    let mut size = None;
    let mut side = None;
    let mut hash = None;
    let mut best_bid = None;
    let mut best_ask = None;
    loop {
        let (slot, v) = match entry_member(b, p) {
            Some((i, v)) => (Some(i), v),
            None => {
                // Whitespace, an escape, near the frame's end, or a member entries do not have.
                let (key, v) = key_at(src, p)?;
                (entry_slot(key), skip_ws(b, v))
            }
        };
        let next = match slot {
            Some(i) => match i {
                0 => {
                    let (raw, next) = plain_string::<ID_LEN>(b, v)?;
                    asset_id = Some(raw.text(src));
                    next
                }
                4 => {
                    let (raw, next) = plain_string::<HASH_LEN>(b, v)?;
                    hash = Some(raw.text(src));
                    next
                }
                3 => {
                    if let Some(next) = lit(b, v, b"\"BUY\"") {
                        side = Some(Side::Buy);
                        next
                    } else if let Some(next) = lit(b, v, b"\"SELL\"") {
                        side = Some(Side::Sell);
                        next
                    } else {
                        let (raw, next) = plain_string::<0>(b, v)?;
                        side = Some(req_side(src, &raw, "side").ok()?);
                        next
                    }
                }
                2 => {
                    let (m, next) = entry_decimal(src, v)?;
                    size = Some(m.map_or_else(
                        |r| opt_size(src, &r, "size").ok()?,
                        |m| Some(Size::from_micros(m)),
                    )?);
                    next
                }
                _ => {
                    let (field, slot) = match i {
                        1 => ("price", &mut price),
                        5 => ("best_bid", &mut best_bid),
                        _ => ("best_ask", &mut best_ask),
                    };
                    let (m, next) = entry_decimal(src, v)?;
                    let px = match m {
                        Ok(m) => Price::new(u32::try_from(m).ok()?),
                        Err(r) => opt_price(src, &r, field).ok()?,
                    };
                    *slot = Some(px?);
                    next
                }
            },
            None => {
                // Skipped in place.
                skip_value(src, v)?
            }
        };
        match next_member(b, next) {
            Ok(q) => p = q,
            Err(q) if b.get(q) == Some(&b'}') => {
                let change = PriceChange {
                    asset_id: asset_id?,
                    price: price?,
                    size,
                    side: side?,
                    hash,
                    best_bid,
                    best_ask,
                };
                return Some((change, q + 1));
            }
            Err(_) => return None,
        }
    }
}

/// A decimal value whose quote is at `v`, in 10⁻⁶ units when it fits one word (as the layout
/// reader reads it), else its capture for the `fixed` parsers; and the index after it.
#[inline(always)]
fn entry_decimal(src: &str, v: usize) -> Option<(Result<u64, Raw>, usize)> {
    let b = src.as_bytes();
    if b.get(v) != Some(&b'"') {
        return None;
    }
    if let Some((m, end)) = quoted_decimal(b, v + 1) {
        return Some((Ok(m), end + 1));
    }
    let (raw, next) = plain_string::<0>(b, v)?;
    Some((Err(raw), next))
}

/// The entries of a `price_change` message, read lazily from the frame.
///
/// ```
/// use polyclob::decode::{decode, Event};
/// let frame = r#"{"event_type":"price_change","market":"m","price_changes":[]}"#;
/// let Some(Ok(Event::PriceChange(pc))) = decode(frame).next() else { panic!() };
/// assert_eq!(pc.changes.count(), 0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct PriceChanges<'a> {
    st: ListState<'a>,
}

impl<'a> PriceChanges<'a> {
    pub(crate) fn new(src: &'a str, span: Span) -> Self {
        Self {
            st: ListState::new(src, span),
        }
    }
}

impl<'a> Iterator for PriceChanges<'a> {
    type Item = Result<PriceChange<'a>, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.st.next_item(parse_change)
    }
}

/// One maker leg of a user-channel `trade`.
///
/// ```
/// use polyclob::decode::{decode, Event};
/// let frame = r#"{"event_type":"trade","id":"t","asset_id":"a","side":"BUY","size":"10",
///   "price":"0.57","maker_orders":[{"asset_id":"a","matched_amount":"10","order_id":"0xff",
///   "outcome":"YES","owner":"k","price":"0.57"}]}"#;
/// let Some(Ok(Event::Trade(t))) = decode(frame).next() else { panic!() };
/// let leg = t.maker_orders.clone().next().unwrap()?;
/// assert_eq!((leg.order_id, leg.matched_amount.to_string()), ("0xff", "10".to_string()));
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MakerOrder<'a> {
    /// Token id traded by the maker.
    pub asset_id: &'a str,
    /// The maker order's id.
    pub order_id: &'a str,
    /// Shares matched against this maker order.
    pub matched_amount: Size,
    /// The maker order's price.
    pub price: Price,
    /// Outcome name, when sent.
    pub outcome: Option<JsonStr<'a>>,
    /// API key owning the maker order, when sent.
    pub owner: Option<&'a str>,
    /// Maker address, when sent.
    pub maker_address: Option<&'a str>,
    /// Maker side, when sent.
    pub side: Option<Side>,
    /// Fee rate in basis points, when sent.
    pub fee_rate_bps: Option<u64>,
    /// Index of the maker's outcome in the market's outcome list, when sent (string or
    /// number).
    pub outcome_index: Option<u64>,
}

fn parse_maker<'a>(c: &mut Cursor<'a>) -> Item<MakerOrder<'a>> {
    let src = c.src;
    let mut f: [Raw; 10] = [Raw::default(); 10];
    let at = c.pos;
    if let Err(e) = object(c, "maker_orders", |k, c| {
        let slot = match k {
            b"asset_id" => 0,
            b"order_id" => 1,
            b"matched_amount" => 2,
            b"price" => 3,
            b"outcome" => 4,
            b"owner" => 5,
            b"maker_address" => 6,
            b"side" => 7,
            b"fee_rate_bps" => 8,
            b"outcome_index" => 9,
            _ => return c.skip(0),
        };
        f[slot] = c.raw()?;
        Ok(())
    })? {
        return Ok(Err(e));
    }
    for r in &mut f {
        if r.at == 0 {
            r.at = at as u32;
        }
    }
    Ok((|| {
        Ok(MakerOrder {
            asset_id: req_str(src, &f[0], "asset_id")?,
            order_id: req_str(src, &f[1], "order_id")?,
            matched_amount: req_size(src, &f[2], "matched_amount")?,
            price: req_price(src, &f[3], "price")?,
            outcome: opt_text(src, &f[4], "outcome")?,
            owner: opt_str(src, &f[5], "owner")?,
            maker_address: opt_str(src, &f[6], "maker_address")?,
            side: opt_side(src, &f[7], "side")?,
            fee_rate_bps: opt_u64(src, &f[8]),
            outcome_index: opt_u64(src, &f[9]),
        })
    })())
}

/// The maker legs of a `trade`, read lazily from the frame.
///
/// ```
/// use polyclob::decode::{decode, Event};
/// let frame = r#"{"type":"TRADE","id":"t","asset_id":"a","side":"SELL","size":"1","price":"0.5"}"#;
/// let Some(Ok(Event::Trade(t))) = decode(frame).next() else { panic!() };
/// assert_eq!(t.maker_orders.count(), 0);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct MakerOrders<'a> {
    st: ListState<'a>,
}

impl<'a> MakerOrders<'a> {
    pub(crate) fn new(src: &'a str, span: Span) -> Self {
        Self {
            st: ListState::new(src, span),
        }
    }
}

impl<'a> Iterator for MakerOrders<'a> {
    type Item = Result<MakerOrder<'a>, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.st.next_item(parse_maker)
    }
}

/// A JSON array of strings (`assets_ids`, `outcomes`, `associate_trades`), read lazily.
///
/// ```
/// use polyclob::decode::{decode, Event};
/// let frame = r#"{"event_type":"new_market","market":"0x1","assets_ids":["7","8"],
///   "outcomes":["Yes","No"]}"#;
/// let Some(Ok(Event::NewMarket(m))) = decode(frame).next() else { panic!() };
/// let ids: Vec<_> = m.assets_ids.map(|s| s.unwrap().raw()).collect();
/// assert_eq!(ids, ["7", "8"]);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct StrList<'a> {
    st: ListState<'a>,
    field: &'static str,
}

impl<'a> StrList<'a> {
    pub(crate) fn new(src: &'a str, span: Span, field: &'static str) -> Self {
        Self {
            st: ListState::new(src, span),
            field,
        }
    }
}

impl<'a> Iterator for StrList<'a> {
    type Item = Result<JsonStr<'a>, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let field = self.field;
        self.st.next_item(|c| {
            let src = c.src;
            let r = c.raw()?;
            Ok(opt_text(src, &r, field)
                .and_then(|s| s.ok_or_else(|| err(DecodeErrorKind::WrongType, field, r.at()))))
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
pub(super) mod tests {
    use super::*;

    /// Whenever the fast entry reader accepts a `price_change` entry, it captures exactly what
    /// the general reader captures and ends at the same byte; it accepts every entry whose
    /// values are plain strings. Entries are random: key order, optional and unknown keys,
    /// whitespace, escapes, non-string values, truncation.
    #[test]
    fn fast_change_agrees_with_the_general_reader() {
        let pairs = [
            r#""asset_id":"71321045679252212594626385532706912750332728571942532289631379312455583992563""#,
            r#""price":"0.51""#,
            r#""size":"150.0""#,
            r#""size":"""#,
            r#""side":"BUY""#,
            r#""hash":"0x5e7c2b1f9a""#,
            r#""best_bid":"0.5""#,
            r#""best_ask":"0.52""#,
            r#""fee_rate_bps":"0""#,
            r#""size":null"#,
            r#""price":0.5"#,
            r#""hash":"a\"b""#,
            r#""pri\u0063e":"0.2""#,
            r#""extra":{"a":[1,2]}"#,
            r#" "side" : "SELL" "#,
            "\n \"price\":\t\"0.7\"",
        ];
        let mut seed = 21u64;
        for _ in 0..30_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let n = (seed >> 60) as usize % 8;
            let mut s2 = seed;
            let mut chosen = Vec::new();
            for _ in 0..n {
                s2 = s2.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(3);
                chosen.push(pairs[(s2 >> 33) as usize % pairs.len()]);
            }
            let mut frame = format!("{{{}}}", chosen.join(","));
            match seed % 7 {
                0 => frame.truncate(frame.len() / 2),
                1 => frame.push_str(r#",{"asset_id":"1"}]"#),
                _ => {}
            }
            let mut c = Cursor::new(&frame, 0);
            let general = match general_change(&mut c) {
                Ok(Ok(f)) => Some((f, c.pos)),
                _ => None,
            };
            match fast_change(&frame, 0) {
                Some(got) => assert_eq!(Some(got), general, "{frame}"),
                None => {
                    let plain = chosen.iter().all(|p| {
                        !p.contains('\\')
                            && !p.contains("null")
                            && !p.contains(":0")
                            && !p.contains('{')
                    });
                    assert!(
                        general.is_none() || !plain,
                        "fast reader gave up on {frame}"
                    );
                }
            }
        }
    }

    /// Whenever the compact entry reader accepts an entry, the general reader reads the same
    /// entry to the same end; it accepts the exchange's exact layout. Entries: the exchange's
    /// layout with random value spellings (short and long decimals, empty, escaped, other
    /// sides), sometimes with a key renamed, reordered, spaced or cut short.
    #[test]
    fn compact_change_agrees_with_the_general_reader() {
        let mut seed = 5u64;
        let mut accepted = 0;
        for round in 0..40_000 {
            let mut pick = |n: usize| {
                seed = seed
                    .wrapping_mul(6_364_136_223_846_793_005)
                    .wrapping_add(1_442_695_040_888_963_407);
                (seed >> 33) as usize % n
            };
            // Mostly spellings the compact reader takes, sometimes ones it must leave.
            let mut one = |good: &[&'static str], bad: &[&'static str]| {
                if pick(5) != 0 {
                    good[pick(good.len())]
                } else {
                    bad[pick(bad.len())]
                }
            };
            let prices = ["0.5", "0.51", "0", "0.001", "1", ".5"];
            let sizes = ["150.0", "1234.56", "0", "12345678", "9.99", "7"];
            let bad = ["123456789", "0.1234567", "1e3", "", "1.2.3", "1.5", "-1"];
            let id = one(
                &[
                    "71321045679252212594626385532706912750332728571942532289631379312455583992563",
                    "7",
                ],
                &["", "7\\u0030"],
            );
            let price = one(&prices, &bad);
            let size = one(&sizes, &bad);
            let side = one(&["BUY", "SELL"], &["buy", "BUYX", ""]);
            let hash = one(
                &["0x5e7c2b1f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d", ""],
                &["a\\\"b"],
            );
            let (bid, ask) = (one(&prices, &bad), one(&prices, &bad));
            let mut frame = format!(
                r#"{{"asset_id":"{id}","price":"{price}","size":"{size}","side":"{side}","hash":"{hash}","best_bid":"{bid}","best_ask":"{ask}"}}"#,
            );
            match pick(8) {
                0 => frame = frame.replacen("\"size\"", "\"sizes\"", 1),
                1 => frame = frame.replacen(',', ", ", 1),
                2 => frame.truncate(pick(frame.len() + 1)),
                3 => frame = frame.replacen("\"best_bid\"", "\"best_bi\"", 1),
                _ => {}
            }
            if round % 3 == 0 {
                frame.push_str(r#",{"asset_id":"1"}]"#);
            }
            let mut c = Cursor::new(&frame, 0);
            let general = match general_change(&mut c) {
                Ok(Ok(f)) => f.change(&frame).ok().map(|ch| (ch, c.pos)),
                _ => None,
            };
            if let Some(got) = compact_change(&frame, 0) {
                accepted += 1;
                assert_eq!(Some(got), general, "{frame}");
            } else {
                let exact = frame.starts_with(r#"{"asset_id":""#)
                    && general.is_some_and(|(ch, _)| {
                        ch.size.is_some()
                            && ch.best_bid.is_some()
                            && ch.best_ask.is_some()
                            && ch.hash.is_some()
                    })
                    && !frame.contains(", ")
                    && !frame.contains("\"sizes\"")
                    && !frame.contains("\"best_bi\"")
                    && ["123456789", "0.1234567", "1e3", ".5"]
                        .iter()
                        .all(|x| !frame.contains(&format!("\"{x}\"")))
                    && !frame.contains("\"buy\"");
                assert!(!exact, "compact reader gave up on {frame}");
            }
        }
        assert!(accepted > 3_000, "only {accepted} accepted");
    }

    /// The keyed entry reader and the skipping layout reader against the general reader, on
    /// random entries: the seven members in a random order or the exchange's, some left out,
    /// values of every spelling (short and long decimals, escapes, `null`, numbers), members
    /// entries do not have at random places holding every JSON type (nested, escaped strings),
    /// now and then whitespace. Whenever a reader accepts, it returns exactly what the general
    /// reader makes of the entry and ends where it ends; the keyed reader accepts every
    /// compact entry whose values are plain strings that convert, the skipping reader every such
    /// entry with the seven members in the exchange's order.
    #[test]
    fn keyed_and_skipping_entry_readers_agree_with_the_general_reader() {
        fn pick(next: &mut impl FnMut(u64) -> u64, xs: &[&'static str]) -> &'static str {
            xs[next(xs.len() as u64) as usize]
        }
        let mut next = crate::testutil::lcg(2121);
        let unknown_values = [
            "0",
            "-1.5e3",
            "true",
            "false",
            "null",
            "\"\"",
            "\"a \\\"b\\\" c\"",
            "\"\\u0041\\\\\"",
            "{}",
            "[]",
            r#"{"taker_bps":"0","tiers":[1,2.5]}"#,
            r#"[true,{"k":[null,"x\"]"]},-0.5]"#,
            r#"{"price":"0.5","size":"1"}"#,
        ];
        let unknown_keys = ["fee_rate_bps", "neg_risk", "x", "a\\\"b", "prices"];
        let (mut keyed_took, mut skipping_took) = (0, 0);
        for _ in 0..40_000 {
            let price = pick(
                &mut next,
                &["0.51", "0.5", "1", "0", "0.123456", "0.1234567", "1.5", ""],
            );
            let decimal = [
                "150.0",
                "0",
                "12345678",
                "123456789.5",
                "9.99",
                "1e3",
                "\\u0030",
            ];
            let mut members: Vec<(usize, String)> = vec![
                (
                    0,
                    format!(
                        r#""asset_id":"{}""#,
                        pick(
                            &mut next,
                            &[
                                "7132104567925221259462638553270691275033272857194253228963137931245558399256",
                                "7",
                                "a\\\"b"
                            ]
                        )
                    ),
                ),
                (1, format!(r#""price":"{price}""#)),
                (2, format!(r#""size":"{}""#, pick(&mut next, &decimal))),
                (
                    3,
                    format!(
                        r#""side":"{}""#,
                        pick(&mut next, &["BUY", "SELL", "BUY", "buy"])
                    ),
                ),
                (
                    4,
                    format!(
                        r#""hash":"{}""#,
                        pick(
                            &mut next,
                            &["0x5e7c2b1f9a0b1c2d3e4f5a6b7c8d9e0f1a2b3c4d", ""]
                        )
                    ),
                ),
                (
                    5,
                    format!(
                        r#""best_bid":"{}""#,
                        pick(&mut next, &["0.45", "0.4", "0.1234567"])
                    ),
                ),
                (
                    6,
                    format!(
                        r#""best_ask":"{}""#,
                        pick(&mut next, &["0.55", "1", "0.55"])
                    ),
                ),
            ];
            if next(8) == 0 {
                members[2].1 = r#""size":null"#.to_string();
            }
            let reorder = next(3) == 0;
            if reorder {
                for i in (1..members.len()).rev() {
                    members.swap(i, next(i as u64 + 1) as usize);
                }
            }
            for _ in 0..next(3) {
                let at = next(members.len() as u64) as usize;
                members.remove(at);
            }
            let order: Vec<usize> = members.iter().map(|m| m.0).collect();
            let mut texts: Vec<String> = members.into_iter().map(|m| m.1).collect();
            // The values of the members the entry has: plain strings.
            let known_plain = texts
                .iter()
                .all(|t| !t.contains('\\') && !t.contains("null"));
            for _ in 0..next(3) {
                let at = next(texts.len() as u64 + 1) as usize;
                let member = format!(
                    r#""{}":{}"#,
                    pick(&mut next, &unknown_keys),
                    pick(&mut next, &unknown_values)
                );
                texts.insert(at, member);
            }
            let spaced = next(10) == 0;
            let sep = if spaced { ", " } else { "," };
            let mut frame = format!("{{{}}}", texts.join(sep));
            if spaced {
                frame = frame.replacen("\":", "\" : ", 1);
            }
            frame.push_str(r#",{"asset_id":"1"}]"#);

            let mut c = Cursor::new(&frame, 0);
            let general = match general_change(&mut c) {
                Ok(Ok(f)) => f.change(&frame).ok().map(|ch| (ch, c.pos)),
                _ => None,
            };
            let plain = !spaced && known_plain;
            match keyed_entry(&frame, 0) {
                Some(got) => {
                    keyed_took += 1;
                    assert_eq!(Some(got), general, "keyed: {frame}");
                }
                None => assert!(
                    general.is_none() || !plain,
                    "keyed reader gave up on {frame}"
                ),
            }
            // The layout reader, which hands the entry to `resume` where a literal is missing,
            // takes what the skipping reader takes, with the same result.
            assert_eq!(
                compact_change(&frame, 0),
                skipping_change(&frame, 0),
                "layout: {frame}"
            );
            match skipping_change(&frame, 0) {
                Some(got) => {
                    skipping_took += 1;
                    assert_eq!(Some(got), general, "skipping: {frame}");
                }
                None => {
                    // Decimals of at most eight bytes, as the layout reader takes them.
                    let short = !["123456789.5", "0.1234567\"", "1e3", "\"\","]
                        .iter()
                        .any(|x| frame.contains(x));
                    assert!(
                        general.is_none() || !plain || !short || order != [0, 1, 2, 3, 4, 5, 6],
                        "skipping reader gave up on {frame}"
                    );
                }
            }
        }
        assert!(keyed_took > 3_000, "keyed reader took only {keyed_took}");
        assert!(
            skipping_took > 600,
            "skipping reader took only {skipping_took}"
        );
    }

    /// Records what a reader hands to the sink.
    #[derive(Default)]
    pub(in crate::decode) struct Recorder(pub(in crate::decode) Vec<String>);

    impl Sink for Recorder {
        const CAPTURE: bool = true;
        fn begin(&mut self) {
            self.0.clear();
        }
        fn level(&mut self, side: Side, level: Result<Level, DecodeError>) {
            self.0.push(format!("{side:?} {level:?}"));
        }
        fn change(&mut self, change: Result<PriceChange<'_>, DecodeError>) {
            self.0.push(format!("{change:?}"));
        }
    }

    /// The compact `price_change` reader and its keyed continuation against serde_json on
    /// generated messages in the exchange's layout (0 to 4 entries, random values) and on
    /// mutations of them (reordered or renamed keys, spaces, other event types, cut short, an
    /// entry missing a field): when they accept, the header spans, the end, and every entry it delivered equal what serde_json
    /// reads; it accepts every unmutated message; and the full decoder (which tries it first)
    /// yields the same entries through the lazy iterator.
    #[test]
    fn compact_price_change_agrees_with_serde_json() {
        use crate::decode::{Event, decode};
        let mut next = crate::testutil::lcg(77);
        let mut accepted = 0;
        for _ in 0..5_000 {
            let n = next(5);
            let entries: Vec<String> = (0..n as usize)
                .map(|i| crate::decode::tests::exchange_entry(&mut next, i))
                .collect();
            let exact = crate::decode::tests::exchange_message_of(&mut next, &entries);
            let frame = match next(10) {
                0 => exact.replacen("\"timestamp\"", "\"ts\"", 1),
                1 => exact.replacen(',', ", ", 1),
                2 => exact[..next(exact.len() as u64) as usize].to_string(),
                3 => exact.replacen("price_change\"}", "price_changes\"}", 1),
                4 => exact.replacen(",\"size\":\"", ",\"sz\":\"", 1),
                5 => exact.replacen("\"market\"", "\"asset_id\"", 1),
                _ => exact.clone(),
            };
            let mut rec = Recorder::default();
            let got = match compact_price_change(&frame, 0, &mut rec) {
                Ok(got) => Some(got),
                Err(_) if frame == exact => panic!("compact reader gave up on {frame}"),
                // The continuation, as the decoder runs it.
                Err(resume) => keyed_price_change(&frame, &mut rec, resume),
            };
            let Some(got) = got else { continue };
            accepted += 1;
            let v: serde_json::Value = serde_json::from_str(&frame[..got.end]).unwrap();
            assert_eq!(got.end, frame.len());
            assert_eq!(got.market.text(&frame), v["market"].as_str().unwrap());
            // A renamed `timestamp` is an unknown member now read past: there is none.
            let ts_text = v.get("timestamp").map(|t| t.as_str().unwrap());
            assert_eq!(
                (got.timestamp.kind == RawKind::Str).then(|| got.timestamp.text(&frame)),
                ts_text
            );
            assert_eq!(v["event_type"], "price_change");
            let want = v["price_changes"].as_array().unwrap();
            assert_eq!(rec.0.len(), want.len());
            for (line, w) in rec.0.iter().zip(want) {
                for key in ["asset_id", "hash"] {
                    assert!(line.contains(w[key].as_str().unwrap()), "{line} vs {w}");
                }
                let side = if w["side"] == "BUY" { "Buy" } else { "Sell" };
                assert!(line.contains(&format!("side: {side},")), "{line} vs {w}");
                let price = Price::parse(w["price"].as_str().unwrap().as_bytes()).unwrap();
                assert!(line.contains(&format!("price: {price:?}")), "{line} vs {w}");
                // A renamed `size` is an unknown member now read past: the entry has none.
                let size = w
                    .get("size")
                    .map(|s| Size::parse(s.as_str().unwrap().as_bytes()).unwrap());
                assert!(line.contains(&format!("size: {size:?},")), "{line} vs {w}");
            }
            // The decoder's lazy iterator reads the same entries.
            let Some(Ok(Event::PriceChange(pc))) = decode(&frame).next() else {
                panic!("{frame}")
            };
            let lazy: Vec<String> = pc.changes.map(|c| format!("{c:?}")).collect();
            assert_eq!(lazy, rec.0);
            assert_eq!(pc.json, frame);
            assert_eq!(pc.market, v["market"].as_str().unwrap());
            assert_eq!(pc.timestamp_ms, ts_text.map(|t| t.parse().unwrap()));
        }
        assert!(accepted > 1_500, "only {accepted} accepted");
    }

    /// The two fast level readers return exactly what the general reader returns whenever they
    /// accept a level, and accept every valid short level in the layouts they are for, over
    /// random value spellings (short, long, malformed, escaped), three layouts, and positions
    /// at the end of a frame (the padded window).
    #[test]
    fn fast_level_readers_agree_with_the_general_reader() {
        let values = [
            "0",
            "1",
            ".5",
            "0.45",
            "0.001",
            "1.000000",
            "0.4500001",
            "12345.67",
            "50000.99",
            "123456789",
            "1234567.8",
            "1.5",
            "",
            ".",
            "-1",
            "1e3",
            "0.5.1",
            "9\\u0030",
            "1.",
            "00.10",
            "2",
            "0.5 ",
            "1\\\"",
        ];
        let layouts = [
            r#"{"price":"P","size":"S"}"#,
            r#"{"price": "P", "size": "S"}"#,
            "{\n  \"price\" : \"P\",\r\n\t\"size\":\"S\"        }",
        ];
        let mut seed = 9u64;
        for _ in 0..30_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let p = values[(seed >> 40) as usize % values.len()];
            let s = values[(seed >> 20) as usize % values.len()];
            let layout = (seed >> 10) as usize % layouts.len();
            let tail = if seed & 1 == 0 {
                ""
            } else {
                r#",{"price":"0.5","size":"1"}]"#
            };
            let frame = layouts[layout].replace('P', p).replace('S', s) + tail;
            let b = frame.as_bytes();
            let mut c = Cursor::new(&frame, 0);
            let general = match parse_level_general(&mut c, "bids") {
                Ok(Ok(level)) => Some((level, c.pos)),
                _ => None,
            };
            let short = p.len() <= 7 && s.len() <= 8;
            for (name, got, own) in [
                ("compact", compact_level(b, 0), Some(0)),
                ("fast", fast_level(b, 0), None),
            ] {
                match got {
                    Some(got) => assert_eq!(Some(got), general, "{name} {frame}"),
                    None => {
                        // Each straight-line reader takes every short level of its own layout.
                        let expected =
                            general.is_some() && short && own.is_none_or(|own| own == layout);
                        assert!(!expected, "{name} gave up on {frame}");
                    }
                }
            }
        }
    }
}
