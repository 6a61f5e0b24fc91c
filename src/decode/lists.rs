//! The arrays inside an event: book levels, `price_change` entries, maker orders and string
//! lists, as lazy iterators that re-read the frame on demand and never allocate, and the
//! walkers that hand levels and entries to a [`Sink`] while the element is first read.
//!
//! An item is read in the exchange's exact layout by straight-line code ([`exact_level`],
//! [`exact_change`], which skips members no entry has in place: [`member`]); on any miss, by
//! the general item reader from the item's start ([`general_level`], [`general_change`], which
//! reads each compact member, found by its key, with the exact reader's primitives), which the
//! walkers then leave the rest of the array to. Both agree on what they accept (tested below).

use super::{
    Level, Sink, opt_price, opt_size, opt_str, opt_text, opt_u64, opt_word, req_price, req_side,
    req_size, req_str,
};
use crate::fixed::{Price, Size};
use crate::json::decimal::{price_word_decimal, quote_in_word, scan_decimal, word_decimal};
use crate::json::simd::{chunk, find_special_guess, word8};
use crate::json::{
    Cursor, DecodeError, DecodeErrorKind, HASH_LEN, ID_LEN, JsonStr, Raw, RawKind, err, sub,
};
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

/// Reads `{ ... }` calling `on_member(cursor)` at each member's key (which it reads); a
/// non-object is skipped and reported as `WrongType` for `field`.
#[inline]
pub(super) fn object<'a>(
    c: &mut Cursor<'a>,
    field: &'static str,
    mut on_member: impl FnMut(&mut Cursor<'a>) -> Result<(), DecodeError>,
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
        on_member(c)?;
        if !c.next_or_close(b'}')? {
            return Ok(Ok(()));
        }
    }
}

/// The literal `l` at `p`; the index after it. A fixed-size compare: a few word compares,
/// not a `memcmp` call.
#[inline(always)]
pub(super) fn lit<const N: usize>(b: &[u8], p: usize, l: &[u8; N]) -> Option<usize> {
    (chunk::<N>(b, p)? == l).then_some(p + N)
}

/// A plain string (no escape, no control byte) whose opening quote is at `p`, predicted to be
/// `N` bytes long (`0`: no prediction): where its text starts and ends (at the closing quote).
#[inline(always)]
pub(super) fn plain<const N: usize>(b: &[u8], p: usize) -> Option<(usize, usize)> {
    if b.get(p) != Some(&b'"') {
        return None;
    }
    let end = find_special_guess::<N>(b, p + 1);
    (b.get(end) == Some(&b'"')).then_some((p + 1, end))
}

/// The literal `l` at `q` (just after a value), after any members whose key `known` does not
/// name: a field the exchange added, skipped in place with the scanner's checked skipper, so
/// the reader that expects `l` goes on instead of the element being read again. The index
/// after `l`.
#[inline(always)]
pub(super) fn member<const N: usize>(
    src: &str,
    q: usize,
    l: &[u8; N],
    known: impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    let b = src.as_bytes();
    lit(b, q, l).or_else(|| lit(b, past_unknown(src, q, known)?, l))
}

/// The index after the members `,"key":value` at `q` whose key `known` does not name (at the
/// object's `{`, the first member has no comma); `None` when there is none, or when one is not
/// compact (`"key":` with a plain key) and valid JSON. Out of line: the exchange's layout never
/// comes here.
#[cold]
#[inline(never)]
pub(super) fn past_unknown(
    src: &str,
    mut q: usize,
    known: impl Fn(&[u8]) -> bool,
) -> Option<usize> {
    let b = src.as_bytes();
    let open = q;
    while b.get(q) == Some(&b',') || (q == open && b.get(q) == Some(&b'{')) {
        let (k, e) = plain::<0>(b, q + 1)?;
        if known(b.get(k..e)?) {
            break;
        }
        let mut c = Cursor::new(src, lit(b, e, b"\":")?);
        c.skip(0).ok()?;
        q = c.pos;
    }
    (q != open).then_some(q)
}

/// The eight bytes at `p` as a little-endian word; near the end of the frame, zero bytes
/// (neither digits nor quotes) fill it. `None` only past the end.
#[inline(always)]
fn word8_padded(b: &[u8], p: usize) -> Option<u64> {
    word8(b, p).or_else(|| Some(u64::from_le_bytes(padded::<8>(b.get(p..)?))))
}

/// A decimal whose text starts at `p` and ends at a quote: its value in 10⁻⁶ units and the
/// index of the quote. Text of up to eight bytes is read from the one word that holds it;
/// longer text by the byte loop. `PRICE` takes the shorter path for `0.…`.
#[inline(always)]
fn quoted_decimal<const PRICE: bool>(b: &[u8], p: usize) -> Option<(u64, usize)> {
    let w = word8_padded(b, p)?;
    let len = quote_in_word(w).or_else(|| (b.get(p + 8) == Some(&b'"')).then_some(8));
    match len {
        Some(len) if PRICE => Some((price_word_decimal(w, len)?, p + len)),
        Some(len) => Some((word_decimal(w, len)?, p + len)),
        None => long_decimal(b, p),
    }
}

/// [`quoted_decimal`] for text of nine bytes or more (sizes such as `3149725.72`).
#[cold]
fn long_decimal(b: &[u8], p: usize) -> Option<(u64, usize)> {
    let (v, e) = scan_decimal(b, p)?;
    (b.get(e) == Some(&b'"')).then_some((v, e))
}

/// A level from a price and a size in 10⁻⁶ units, when the price is in range.
#[inline(always)]
fn micros_level(price: u64, size: u64) -> Option<Level> {
    Some(Level {
        price: Price::new(u32::try_from(price).ok()?)?,
        size: Size::from_micros(size),
    })
}

/// A level exactly as the exchange writes it, `{"price":"<decimal>","size":"<decimal>"}`, no
/// whitespace, no escapes: the level and the index after its `}`. `None` for anything else.
/// Straight-line code: the literals compared a word at a time, each short value parsed from
/// the word that holds it.
#[inline(always)]
fn exact_level(b: &[u8], p: usize) -> Option<(Level, usize)> {
    let (price, e) = quoted_decimal::<true>(b, lit(b, p, b"{\"price\":\"")?)?;
    let (size, e) = quoted_decimal::<false>(b, lit(b, e, b"\",\"size\":\"")?)?;
    Some((micros_level(price, size)?, lit(b, e, b"\"}")?))
}

/// `rest` (the frame's last bytes, fewer than `N`) followed by zero bytes, which are neither
/// digits nor quotes: the padding can only make a reader miss. Off the common path.
#[cold]
fn padded<const N: usize>(rest: &[u8]) -> [u8; N] {
    let mut pad = [0u8; N];
    let n = rest.len().min(N);
    pad[..n].copy_from_slice(&rest[..n]);
    pad
}

/// One level at the cursor: [`exact_level`], else [`general_level`] from the level's start.
#[inline]
fn parse_level(c: &mut Cursor<'_>, field: &'static str) -> Item<Level> {
    c.peek();
    if let Some((level, end)) = exact_level(c.src.as_bytes(), c.pos) {
        c.pos = end;
        return Ok(Ok(level));
    }
    general_level(c, field)
}

/// Any level object: keys in any order, extra keys skipped, values through the `fixed` parsers
/// when the fast decimal readers give up (the reference the fast readers are tested against).
fn general_level(c: &mut Cursor<'_>, field: &'static str) -> Item<Level> {
    let src = c.src;
    let mut price = Raw::default();
    let mut size = Raw::default();
    let at = c.pos;
    if let Err(e) = object(c, field, |c| {
        match c.key()? {
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

/// Walks `bids`/`asks` (the value at the cursor) while the element is first read: with a
/// capturing sink every level is parsed and handed to it; otherwise the array is only checked.
pub(crate) fn walk_levels<S: Sink>(
    c: &mut Cursor<'_>,
    side: Side,
    sink: &mut S,
) -> Result<Span, DecodeError> {
    let field = side_field(side);
    walk(c, field, |st| {
        if !S::CAPTURE {
            return None;
        }
        // Once a level misses the exchange's layout, the general reader reads the rest.
        let missed = exact_run(st, exact_level, |level| sink.level(side, Ok(level)));
        while let Some(r) = st.next_item(|c| {
            if missed {
                general_level(c, field)
            } else {
                parse_level(c, field)
            }
        }) {
            if let Err(e) = r {
                if e.kind().is_structural() {
                    return Some(Err(e));
                }
            }
            sink.level(side, r);
        }
        Some(Ok(st.pos))
    })
}

/// Consumes the leading run of items `read` accepts, back to back after bare commas (compact
/// JSON), handing each to `emit`; stops before the first it does not accept (then `true`: the
/// array is not in the exchange's layout, the general item reader takes the rest) or at
/// anything else (the `]`, a space).
#[inline(always)]
fn exact_run<T>(
    st: &mut ListState<'_>,
    read: impl Fn(&[u8], usize) -> Option<(T, usize)>,
    mut emit: impl FnMut(T),
) -> bool {
    let b = st.src.as_bytes();
    loop {
        let p = if st.first {
            st.pos
        } else if b.get(st.pos) == Some(&b',') {
            st.pos + 1
        } else {
            return false;
        };
        let Some((item, end)) = read(b, p) else {
            return b.get(p) == Some(&b'{');
        };
        emit(item);
        st.first = false;
        st.pos = end;
    }
}

/// The field name of `side`'s levels, for errors.
fn side_field(side: Side) -> &'static str {
    if side == Side::Buy { "bids" } else { "asks" }
}

/// Walks `price_changes` while the element is first read (see [`walk_levels`]).
pub(crate) fn walk_changes<S: Sink>(c: &mut Cursor<'_>, sink: &mut S) -> Result<Span, DecodeError> {
    walk(c, "price_changes", |st| {
        if !S::CAPTURE {
            return None;
        }
        let src = st.src;
        let read = |_: &[u8], p| exact_change(src, p);
        let missed = exact_run(st, read, |change| sink.change(Ok(change)));
        while let Some(r) = st.next_item(|c| {
            if missed {
                general_change(c)
            } else {
                parse_change(c)
            }
        }) {
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

/// Where an array-valued field's items start (`None` for `null`), the cursor moved past it
/// (checked); its items are read lazily later.
pub(super) fn array(c: &mut Cursor<'_>, field: &'static str) -> Result<Span, DecodeError> {
    walk(c, field, |_| None)
}

/// [`array`] with `capture`, which consumes the items and returns the end (or `None`: the
/// array is skipped).
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
/// use polyclob::decode::{decode, EventView};
///
/// let frame = r#"{"event_type":"book","asset_id":"1","market":"0x",
///   "bids":[{"price":"0.1","size":"5"},{"price":"x","size":"1"},{"price":"0.2","size":"7"}],
///   "asks":[]}"#;
/// let Some(Ok(EventView::Book(b))) = decode(frame).next() else { panic!() };
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
/// use polyclob::decode::{decode, EventView};
///
/// let frame = r#"{"event_type":"price_change","market":"m","timestamp":"1",
///   "price_changes":[{"asset_id":"a","price":"0.10","side":"BUY","hash":"abc"}]}"#;
/// let Some(Ok(EventView::PriceChange(pc))) = decode(frame).next() else { panic!() };
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

/// The members of a `price_change` entry, by their index in [`ChangeFields`].
const ENTRY_NAMES: [&str; 7] = [
    "asset_id", "price", "size", "side", "hash", "best_bid", "best_ask",
];

/// Each entry member's key `"name":` as a little-endian word of sixteen bytes with the mask of
/// its bytes, its length and its index in [`ENTRY_NAMES`], at its [`key_slot`]: one compare
/// matches a key (an empty slot, word 1 and mask 0, matches nothing).
const KEYS: [(u128, u128, usize, usize); 16] = {
    let mut t = [(1, 0, 0, 0); 16];
    let mut i = 0;
    while i < 7 {
        let name = ENTRY_NAMES[i].as_bytes();
        let (mut w, mut m, mut j) = (0u128, 0u128, 0);
        while j < name.len() + 3 {
            let c = match j {
                0 => b'"',
                _ if j <= name.len() => name[j - 1],
                _ => b"\":"[j - 1 - name.len()],
            };
            (w, m) = (w | (c as u128) << (8 * j), m | 0xFF << (8 * j));
            j += 1;
        }
        assert!(t[key_slot(w)].1 == 0, "two entry members share a slot");
        t[key_slot(w)] = (w, m, j, i);
        i += 1;
    }
    t
};

/// Where a key's word is in [`KEYS`]: bits of the name's third and sixth bytes.
const fn key_slot(w: u128) -> usize {
    ((w >> 24 ^ w >> 48) & 15) as usize
}

/// The index of the entry member named `key`.
fn entry_member(key: &[u8]) -> Option<usize> {
    ENTRY_NAMES.iter().position(|n| n.as_bytes() == key)
}

/// An entry's members as read: the text of the strings and of members the cursor read, the
/// value of those the compact reader converted (10⁻⁶ units; side 0 `BUY`, 1 `SELL`) or [`UNREAD`].
#[derive(Debug)]
struct ChangeFields {
    raw: [Raw; 7],
    value: [u64; 7],
}

/// No value read: more than any decimal the readers accept (at most 13 integer digits).
const UNREAD: u64 = u64::MAX;

impl ChangeFields {
    /// The compact member `"key":value` of an entry at `p` with a plain value, read with the
    /// exact reader's primitives: the key by one word compare, the value converted at once.
    /// The index after it; `None` for anything else.
    #[inline(always)]
    fn compact(&mut self, b: &[u8], p: usize) -> Option<usize> {
        let w = u128::from_le_bytes(*chunk::<16>(b, p)?);
        let (k, m, n, i) = KEYS[key_slot(w)];
        if w & m != k {
            return None;
        }
        let v = p + n;
        let (value, end) = match i {
            0 | 4 => {
                let (at, end) = match i {
                    0 => plain::<ID_LEN>(b, v)?,
                    _ => plain::<HASH_LEN>(b, v)?,
                };
                self.raw[i] = Raw::new(at, end - at, RawKind::Str);
                return Some(end + 1);
            }
            3 => match lit(b, v, b"\"BUY\"") {
                Some(end) => (0, end),
                None => (1, lit(b, v, b"\"SELL\"")?),
            },
            2 => quoted_decimal::<false>(b, lit(b, v, b"\"")?)?,
            // A price out of range goes to the cursor, whose parsers report it.
            _ => quoted_decimal::<true>(b, lit(b, v, b"\"")?)
                .filter(|&(px, _)| px <= u64::from(Price::MAX.as_micros()))?,
        };
        self.value[i] = value;
        Some(end + usize::from(i != 3))
    }

    /// The typed entry: the compact reader's values, else the `fixed` parsers on the text.
    #[inline]
    fn change<'a>(&self, src: &'a str) -> Result<PriceChange<'a>, DecodeError> {
        let r = &self.raw;
        let value = |i: usize| (self.value[i] != UNREAD).then_some(self.value[i]);
        let fast_price = |i: usize| value(i).and_then(|m| Price::new(u32::try_from(m).ok()?));
        let opt = |i| {
            fast_price(i).map_or_else(|| opt_price(src, &r[i], ENTRY_NAMES[i]), |p| Ok(Some(p)))
        };
        Ok(PriceChange {
            asset_id: req_str(src, &r[0], "asset_id")?,
            price: fast_price(1).map_or_else(|| req_price(src, &r[1], "price"), Ok)?,
            size: match value(2) {
                Some(m) => Some(Size::from_micros(m)),
                None => opt_size(src, &r[2], "size")?,
            },
            side: match value(3) {
                Some(0) => Side::Buy,
                Some(_) => Side::Sell,
                None => req_side(src, &r[3], "side")?,
            },
            hash: opt_str(src, &r[4], "hash")?,
            best_bid: opt(5)?,
            best_ask: opt(6)?,
        })
    }
}

/// A `price_change` entry as the exchange writes it —
/// `{"asset_id":"…","price":"…","size":"…","side":"BUY|SELL","hash":"…","best_bid":"…","best_ask":"…"}`,
/// no whitespace, no escapes — as straight-line code: the key literals compared a word at a
/// time, the id and hash ends checked at their predicted lengths, each short decimal read from
/// the one word that holds it. Members no entry has, between or after these (a field the
/// exchange added, any JSON value), are skipped in place ([`member`]). The entry and the index
/// after its `}`; `None` for anything else.
#[inline(always)]
fn exact_change(src: &str, p: usize) -> Option<(PriceChange<'_>, usize)> {
    let b = src.as_bytes();
    let (id_at, id_end) = plain::<ID_LEN>(b, lit(b, p, b"{\"asset_id\":")?)?;
    let at = member(src, id_end + 1, b",\"price\":\"", is_entry_key)?;
    let (px, e) = quoted_decimal::<true>(b, at)?;
    let at = member(src, e + 1, b",\"size\":\"", is_entry_key)?;
    let (size, e) = quoted_decimal::<false>(b, at)?;
    let at = member(src, e + 1, b",\"side\":\"", is_entry_key)?;
    let (side, e) = match lit(b, at, b"BUY\"") {
        Some(e) => (Side::Buy, e),
        None => (Side::Sell, lit(b, at, b"SELL\"")?),
    };
    let at = member(src, e, b",\"hash\":", is_entry_key)?;
    let (hash_at, hash_end) = plain::<HASH_LEN>(b, at)?;
    let at = member(src, hash_end + 1, b",\"best_bid\":\"", is_entry_key)?;
    let (bid, e) = quoted_decimal::<true>(b, at)?;
    let at = member(src, e + 1, b",\"best_ask\":\"", is_entry_key)?;
    let (ask, e) = quoted_decimal::<true>(b, at)?;
    let end = member(src, e + 1, b"}", is_entry_key)?;
    let price = |m: u64| Price::new(u32::try_from(m).ok()?);
    let change = PriceChange {
        asset_id: sub(src, id_at, id_end)?,
        price: price(px)?,
        size: Some(Size::from_micros(size)),
        side,
        hash: Some(sub(src, hash_at, hash_end)?),
        best_bid: Some(price(bid)?),
        best_ask: Some(price(ask)?),
    };
    Some((change, end))
}

/// Whether a `price_change` entry has the member `key`.
fn is_entry_key(key: &[u8]) -> bool {
    entry_member(key).is_some()
}

/// One entry at the cursor: [`exact_change`], else [`general_change`] from the entry's start.
#[inline]
fn parse_change<'a>(c: &mut Cursor<'a>) -> Item<PriceChange<'a>> {
    c.peek();
    if let Some((change, end)) = exact_change(c.src, c.pos) {
        c.pos = end;
        return Ok(Ok(change));
    }
    general_change(c)
}

/// Any `price_change` entry, the one reader after [`exact_change`] (and its reference): any
/// order, spelling or extra member (skipped). Compact plain members go through
/// [`ChangeFields::compact`] in place, others through the cursor and the `fixed` parsers.
fn general_change<'a>(c: &mut Cursor<'a>) -> Item<PriceChange<'a>> {
    let at = c.pos;
    let b = c.src.as_bytes();
    let mut f = ChangeFields {
        raw: [Raw::default(); 7],
        value: [UNREAD; 7],
    };
    let walked = object(c, "price_changes", |c| {
        // A run of compact members after bare commas, in place; the cursor for any other.
        let mut p = c.pos;
        while let Some(end) = f.compact(b, p) {
            match b.get(end) {
                Some(b',') => p = end + 1,
                _ => {
                    c.pos = end;
                    return Ok(());
                }
            }
        }
        c.pos = p;
        match entry_member(c.key()?) {
            Some(i) => (f.raw[i], f.value[i]) = (c.raw()?, UNREAD),
            None => c.skip(0)?,
        }
        Ok(())
    })?;
    if let Err(e) = walked {
        return Ok(Err(e));
    }
    for i in [0, 1, 3] {
        if f.raw[i].at == 0 {
            f.raw[i].at = at as u32;
        }
    }
    Ok(f.change(c.src))
}

/// The entries of a `price_change` message, read lazily from the frame.
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"event_type":"price_change","market":"m","price_changes":[]}"#;
/// let Some(Ok(EventView::PriceChange(pc))) = decode(frame).next() else { panic!() };
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
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"event_type":"trade","id":"t","asset_id":"a","side":"BUY","size":"10",
///   "price":"0.57","maker_orders":[{"asset_id":"a","matched_amount":"10","order_id":"0xff",
///   "outcome":"YES","owner":"k","price":"0.57"}]}"#;
/// let Some(Ok(EventView::Trade(t))) = decode(frame).next() else { panic!() };
/// let leg = t.maker_orders.clone().next().unwrap()?;
/// assert_eq!((leg.order_id, leg.matched_amount.to_string()), ("0xff", "10".to_string()));
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MakerOrderView<'a> {
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

/// The members of a maker leg [`parse_maker`] keeps, by their index in its fields.
const MAKER_NAMES: [&str; 10] = [
    "asset_id",
    "order_id",
    "matched_amount",
    "price",
    "outcome",
    "owner",
    "maker_address",
    "side",
    "fee_rate_bps",
    "outcome_index",
];

fn parse_maker<'a>(c: &mut Cursor<'a>) -> Item<MakerOrderView<'a>> {
    let src = c.src;
    let mut f: [Raw; 10] = [Raw::default(); 10];
    let at = c.pos;
    if let Err(e) = object(c, "maker_orders", |c| {
        let key = c.key()?;
        match MAKER_NAMES.iter().position(|n| n.as_bytes() == key) {
            Some(i) => f[i] = c.raw()?,
            None => c.skip(0)?,
        }
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
        Ok(MakerOrderView {
            asset_id: req_str(src, &f[0], "asset_id")?,
            order_id: req_str(src, &f[1], "order_id")?,
            matched_amount: req_size(src, &f[2], "matched_amount")?,
            price: req_price(src, &f[3], "price")?,
            outcome: opt_text(src, &f[4], "outcome")?,
            owner: opt_str(src, &f[5], "owner")?,
            maker_address: opt_str(src, &f[6], "maker_address")?,
            side: opt_word(src, &f[7], "side", Side::parse)?,
            fee_rate_bps: opt_u64(src, &f[8]),
            outcome_index: opt_u64(src, &f[9]),
        })
    })())
}

/// The maker legs of a `trade`, read lazily from the frame.
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"type":"TRADE","id":"t","asset_id":"a","side":"SELL","size":"1","price":"0.5"}"#;
/// let Some(Ok(EventView::Trade(t))) = decode(frame).next() else { panic!() };
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
    type Item = Result<MakerOrderView<'a>, DecodeError>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        self.st.next_item(parse_maker)
    }
}

/// A JSON array of strings (`assets_ids`, `outcomes`, `associate_trades`), read lazily.
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"event_type":"new_market","market":"0x1","assets_ids":["7","8"],
///   "outcomes":["Yes","No"]}"#;
/// let Some(Ok(EventView::NewMarket(m))) = decode(frame).next() else { panic!() };
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

    /// `text` with a space after every `,` and `:` outside strings.
    fn spaced(text: &str) -> String {
        let (mut out, mut in_str, mut esc) = (String::new(), false, false);
        for ch in text.chars() {
            out.push(ch);
            match ch {
                _ if esc => esc = false,
                '\\' if in_str => esc = true,
                '"' => in_str = !in_str,
                ',' | ':' if !in_str => out.push(' '),
                _ => {}
            }
        }
        out
    }

    /// Whenever [`exact_change`] accepts an entry, [`general_change`] reads the same entry to
    /// the same end; it accepts the exchange's layout with plain values. Entries: that layout
    /// with values spelled at random (short, long and empty decimals, escapes, numbers, other
    /// sides), sometimes with a key renamed, a member added, spaces, or cut short.
    #[test]
    fn exact_change_agrees_with_the_general_reader() {
        let decimals = [
            "0.5",
            ".45",
            "1",
            "12345.67",
            "3149725.72",
            "0.4500001",
            "",
            "1e3",
            "-1",
            "0.5.1",
            "9\\u0030",
        ];
        let mut next = crate::testutil::lcg(5);
        let mut accepted = 0;
        for _ in 0..30_000 {
            let mut d = || match next(8) {
                0 | 1 => decimals[next(decimals.len() as u64) as usize],
                _ => decimals[next(3) as usize],
            };
            let (price, size, bid, ask) = (d(), d(), d(), d());
            let side = ["BUY", "SELL", "BUY", "SELL", "buy", "B\\u0055Y"][next(6) as usize];
            let mut frame = format!(
                r#"{{"asset_id":"7132104567925221259462638553270691275033272857194253228963137931245558399256","price":"{price}","size":"{size}","side":"{side}","hash":"{:040x}","best_bid":"{bid}","best_ask":"{ask}"}}"#,
                next(u64::MAX)
            );
            match next(8) {
                0 => frame = frame.replacen("\"size\"", "\"sz\"", 1),
                1 => frame = frame.replacen(",\"side\"", ",\"fee_rate_bps\":\"0\",\"side\"", 1),
                2 => frame = frame.replacen(',', ", ", 1),
                3 => frame.truncate(next(frame.len() as u64) as usize),
                5 | 6 => {
                    // Members in another order: `side` first, or `hash` last.
                    let name = if next(2) == 0 {
                        ",\"side\":\""
                    } else {
                        ",\"hash\":\""
                    };
                    if let Some(at) = frame.find(name) {
                        let end = at + name.len() + frame[at + name.len()..].find('"').unwrap();
                        let member: String = frame.drain(at..=end).collect();
                        let to = if name.contains("side") {
                            frame.find(",\"price\"")
                        } else {
                            frame.rfind('}')
                        };
                        frame.insert_str(to.unwrap_or(frame.len()), &member);
                    }
                }
                4 => {
                    frame = frame.replacen("\"price\":\"", "\"price\":", 1).replacen(
                        "\",\"size",
                        ",\"size",
                        1,
                    )
                }
                _ => {}
            }
            let tail = if next(2) == 0 {
                ""
            } else {
                r#",{"asset_id":"1"}]"#
            };
            let frame = frame + tail;
            let mut c = Cursor::new(&frame, 0);
            let general = match general_change(&mut c) {
                Ok(Ok(change)) => Some((change, c.pos)),
                _ => None,
            };
            // A space after every `,` and `:` sends each member to the cursor instead of the
            // compact reader: the same entry.
            let spaced = spaced(&frame);
            let mut c = Cursor::new(&spaced, 0);
            let slow = match general_change(&mut c) {
                Ok(Ok(change)) => Some(change),
                _ => None,
            };
            assert_eq!(general.map(|g| g.0), slow, "{frame}");
            match exact_change(&frame, 0) {
                Some(got) => {
                    accepted += 1;
                    assert_eq!(Some(got), general, "{frame}");
                }
                None => {
                    let plain = [price, size, bid, ask].iter().all(|v| {
                        crate::json::decimal::scan_decimal(v.as_bytes(), 0)
                            .is_some_and(|(_, e)| e == v.len())
                    }) && (side == "BUY" || side == "SELL");
                    let layout = frame.starts_with(r#"{"asset_id":"7132"#)
                        && !frame.contains("sz")
                        && !frame.contains("fee")
                        && !frame.contains(", ")
                        && frame.contains("\"price\":\"")
                        && frame.find(",\"size\"") < frame.find(",\"side\"")
                        && frame.find(",\"hash\"") < frame.find(",\"best_bid\"")
                        && general.is_some_and(|(_, end)| end == frame.len() - tail.len());
                    assert!(!(plain && layout), "exact reader gave up on {frame}");
                }
            }
        }
        assert!(accepted > 2_000, "{accepted}");
    }

    /// Whenever [`exact_level`] accepts a level, [`general_level`] returns the same level and
    /// end; it accepts every valid level in the exchange's layout. Values spelled at random
    /// (short, long, malformed, escaped) in three layouts, at the frame's end (the padded word)
    /// or not.
    #[test]
    fn exact_level_agrees_with_the_general_reader() {
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
            "3149725.72",
            "",
            ".",
            "-1",
            "1e3",
            "0.5.1",
            "9\\u0030",
            "1.",
            "00.10",
            "0.5 ",
            "1\\\"",
        ];
        let layouts = [
            r#"{"price":"P","size":"S"}"#,
            r#"{"price": "P", "size": "S"}"#,
            r#"{"size":"S","price":"P"}"#,
        ];
        let mut next = crate::testutil::lcg(9);
        for _ in 0..30_000 {
            let p = values[next(values.len() as u64) as usize];
            let s = values[next(values.len() as u64) as usize];
            let layout = next(layouts.len() as u64) as usize;
            let tail = if next(2) == 0 {
                ""
            } else {
                r#",{"price":"0.5","size":"1"}]"#
            };
            let frame = layouts[layout].replace('P', p).replace('S', s) + tail;
            let mut c = Cursor::new(&frame, 0);
            let general = match general_level(&mut c, "bids") {
                Ok(Ok(level)) => Some((level, c.pos)),
                _ => None,
            };
            match exact_level(frame.as_bytes(), 0) {
                Some(got) => assert_eq!(Some(got), general, "{frame}"),
                None => assert!(
                    general.is_none() || layout != 0 || p.contains('\\') || s.contains('\\'),
                    "exact reader gave up on {frame}"
                ),
            }
        }
    }
}
