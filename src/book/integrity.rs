//! Book-hash verification: is a `book` snapshot the one the exchange hashed?
//!
//! The `hash` of a market-channel `book` message is the lowercase hex SHA-1 of the compact JSON
//!
//! ```text
//! {"market":…,"asset_id":…,"timestamp":…,"hash":"","bids":[{"price":…,"size":…},…],
//!  "asks":[…],"min_order_size":…,"tick_size":…,"neg_risk":…,"last_trade_price":…}
//! ```
//!
//! in that key order, every value exactly as received (`"0.920"` stays `"0.920"`), each level
//! re-written as `{"price","size"}` ([Polymarket's Python client] `generate_orderbook_summary_hash`,
//! the Go server's struct order). A Protocol V2 book carries `"version":"v2"` and its hash
//! covers it as an eleventh member, `…,"last_trade_price":…,"version":"v2"}` (it reproduces
//! a captured V2 book's hash, which the ten members do not); CTF books keep the ten.
//! `min_order_size` and `neg_risk` are not in the WS frame: they come from the market's
//! metadata ([`BookMeta`], e.g. from REST `GET /book` or `GET /markets/{condition_id}`).
//!
//! Snapshots may omit `tick_size` and `last_trade_price` (the captured
//! `ws_market_price_change_crossing_burst.json` ends with such a `book`), yet the exchange
//! hashes the market's *current* values: that snapshot's hash reproduces with the tick size of
//! the earlier snapshot and the price of the trade just printed, and with nothing else tried.
//! So a field the frame omits is hashed with the market's current value: the stand-ins of
//! [`BookMeta`], which [`BookManager`](super::BookManager) keeps up to date from the feed
//! (`book` frames that carry them, `tick_size_change`, `last_trade_price`), written in their
//! shortest decimal form; `""` (the Go zero value) only while nothing is known. Likewise a V2
//! market's book that omits `version` is hashed with `"v2"`.
//!
//! The stand-ins are the client's best knowledge, not the exchange's values: a trade the
//! feed never announced moves the current price, and the exchange writes its text its own
//! way (in a recorded session the hash reproduced only with `"0.490"`, a price no frame had
//! carried, with a trailing zero). So a snapshot that omits either member and does not
//! reproduce with the stand-ins is [`HashStatus::Unverifiable`], never a
//! [`Mismatch`](HashStatus::Mismatch): it does not make the book suspect, is not counted as a
//! mismatch and causes no resync. Only a snapshot that carries every member it is hashed from
//! (or reproduces with the stand-ins) can be a mismatch or verified.
//!
//! Where it runs and what it costs: inside [`BookManager`](super::BookManager)'s apply, on the
//! consumer's task, only on `book` events, only for assets whose [`BookMeta`] was registered
//! with [`BookManager::set_book_meta`](super::BookManager::set_book_meta), and only while
//! [`BookManager::set_verify_hashes`](super::BookManager::set_verify_hashes) is on (the
//! default). Without `BookMeta` nothing is hashed, so verification is a per-feed opt-in. The
//! hash input is written into a scratch buffer the manager owns and reuses (no allocation once
//! it has grown to the largest snapshot; `tests/alloc/book_hash.rs`), then SHA-1'd. Measured
//! (BENCHMARKS.md, "Book hash"): applying the captured 65-level snapshot costs about 1.7× as
//! much with the check as without (1.8× for 64 + 64 levels), mostly SHA-1 — far above 10% of
//! a snapshot's apply, hence opt-in. Deltas (`price_change`), the bulk of the stream, carry no
//! verifiable book hash and are never hashed.
//!
//! ```
//! use polyclob::book::{BookMeta, book_hash};
//! use polyclob::fixed::Size;
//!
//! let frame = r#"{"event_type":"book","market":"0xm","asset_id":"1","timestamp":"5",
//!   "hash":"","bids":[{"price":"0.4","size":"10"}],"asks":[],"tick_size":"0.01",
//!   "last_trade_price":"0.5"}"#;
//! let meta = BookMeta::new(Size::parse(b"5")?, false);
//! let mut scratch = Vec::new();
//! let hash = book_hash(frame, meta, &mut scratch)?;
//! assert_eq!(
//!     std::str::from_utf8(&scratch).unwrap(),
//!     r#"{"market":"0xm","asset_id":"1","timestamp":"5","hash":"","bids":[{"price":"0.4","size":"10"}],"asks":[],"min_order_size":"5","tick_size":"0.01","neg_risk":false,"last_trade_price":"0.5"}"#
//! );
//! assert_eq!(hash.to_string().len(), 40);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! [Polymarket's Python client]: https://github.com/Polymarket/py-clob-client/blob/main/py_clob_client/utilities.py

use std::fmt;

use sha1::{Digest, Sha1};

use crate::fixed::{Price, Size};
use crate::json::simd::{chunk, find_special};
use crate::json::{Cursor, DecodeError, skip_ws};
use crate::types::{Protocol, TickSize};

/// What a `book` frame does not carry but its hash covers: the market's minimum order size,
/// whether it is a neg-risk market, its protocol (a V2 book's hash covers `"version":"v2"`),
/// and the stand-ins for the members a snapshot may omit (the market's current tick size and
/// last trade price).
///
/// ```
/// use polyclob::book::BookMeta;
/// use polyclob::fixed::Size;
/// use polyclob::types::{Protocol, TickSize};
/// let meta = BookMeta::new(Size::parse(b"5")?, true)
///     .with_protocol(Protocol::V2)
///     .with_tick_size(TickSize::Thousandth);
/// assert!(meta.neg_risk());
/// assert_eq!(meta.min_order_size().to_string(), "5");
/// assert_eq!(meta.protocol(), Protocol::V2);
/// assert_eq!(meta.tick_size(), Some(TickSize::Thousandth));
/// assert_eq!(meta.last_trade_price(), None);
/// # Ok::<(), polyclob::fixed::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct BookMeta {
    min_order_size: Size,
    neg_risk: bool,
    protocol: Protocol,
    tick_size: Option<TickSize>,
    last_trade_price: Option<Price>,
}

impl BookMeta {
    /// Metadata from the market's minimum order size and neg-risk flag: a CTF market, no
    /// stand-ins yet.
    #[must_use]
    pub const fn new(min_order_size: Size, neg_risk: bool) -> Self {
        Self {
            min_order_size,
            neg_risk,
            protocol: Protocol::Ctf,
            tick_size: None,
            last_trade_price: None,
        }
    }

    /// The market's protocol. Default is [`Protocol::Ctf`].
    #[must_use]
    pub const fn with_protocol(mut self, protocol: Protocol) -> Self {
        self.protocol = protocol;
        self
    }

    /// The market's current tick size, hashed for a snapshot that omits `tick_size`. Default
    /// is none (hashed as `""`); [`BookManager`](super::BookManager) updates it from the feed.
    #[must_use]
    pub const fn with_tick_size(mut self, tick: TickSize) -> Self {
        self.tick_size = Some(tick);
        self
    }

    /// The market's last trade price, hashed for a snapshot that omits `last_trade_price`.
    /// Default is none (hashed as `""`); [`BookManager`](super::BookManager) updates it from
    /// the feed.
    #[must_use]
    pub const fn with_last_trade_price(mut self, price: Price) -> Self {
        self.last_trade_price = Some(price);
        self
    }

    /// The minimum order size, hashed in its shortest decimal form (`5`, `0.5`).
    pub const fn min_order_size(&self) -> Size {
        self.min_order_size
    }

    /// Whether the market is neg-risk.
    #[must_use]
    pub const fn neg_risk(&self) -> bool {
        self.neg_risk
    }

    /// The market's protocol.
    #[must_use]
    pub const fn protocol(&self) -> Protocol {
        self.protocol
    }

    /// The tick-size stand-in.
    #[must_use]
    pub const fn tick_size(&self) -> Option<TickSize> {
        self.tick_size
    }

    /// The last-trade-price stand-in.
    #[must_use]
    pub const fn last_trade_price(&self) -> Option<Price> {
        self.last_trade_price
    }
}

/// A SHA-1 book hash (20 bytes), shown as 40 lowercase hex digits.
///
/// ```
/// use polyclob::book::BookHash;
/// let h = BookHash::from_bytes([0xab; 20]);
/// assert!(h.matches("ABABABABABABABABABABABABABABABABABABABAB"));
/// assert!(h.matches("0xabababababababababababababababababababab"));
/// assert!(!h.matches("ab"));
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct BookHash([u8; 20]);

impl BookHash {
    /// The hash from its bytes.
    #[must_use]
    pub const fn from_bytes(bytes: [u8; 20]) -> Self {
        Self(bytes)
    }

    /// The 20 bytes.
    #[must_use]
    pub const fn as_bytes(&self) -> &[u8; 20] {
        &self.0
    }

    /// The 40 lowercase hex digits, on the stack.
    #[must_use]
    pub fn to_hex(&self) -> [u8; 40] {
        const HEX: &[u8; 16] = b"0123456789abcdef";
        let mut out = [0u8; 40];
        for (i, b) in self.0.iter().enumerate() {
            out[2 * i] = HEX[usize::from(b >> 4)];
            out[2 * i + 1] = HEX[usize::from(b & 15)];
        }
        out
    }

    /// Whether `text` (40 hex digits, any case, optional `0x`) is this hash.
    #[must_use]
    pub fn matches(&self, text: &str) -> bool {
        let t = text.strip_prefix("0x").unwrap_or(text).as_bytes();
        t.len() == 40 && t.eq_ignore_ascii_case(&self.to_hex())
    }
}

impl fmt::Display for BookHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let hex = self.to_hex();
        // Hex digits are ASCII.
        f.write_str(std::str::from_utf8(&hex).map_err(|_| fmt::Error)?)
    }
}

impl fmt::Debug for BookHash {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "BookHash({self})")
    }
}

/// The result of checking one `book` snapshot. Only [`Mismatch`](Self::Mismatch) says the
/// snapshot is wrong; [`Unverifiable`](Self::Unverifiable) says the client cannot tell.
///
/// ```
/// use polyclob::book::HashStatus;
/// assert!(HashStatus::Mismatch.is_mismatch());
/// assert!(!HashStatus::Unverifiable.is_mismatch());
/// assert!(!HashStatus::Unchecked.is_mismatch());
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum HashStatus {
    /// The snapshot's hash was recomputed and matches.
    Verified,
    /// The recomputed hash differs from the one sent although the snapshot carries every
    /// member the hash covers: the snapshot (or the registered [`BookMeta`]) is wrong.
    Mismatch,
    /// Cannot verify: the snapshot omits `tick_size` or `last_trade_price`, which the exchange
    /// hashes with the market's current values, and the hash does not reproduce with the
    /// values this client knows (see the [module docs](self)). Says nothing against the
    /// snapshot: the book stays trusted, nothing is counted as a mismatch.
    Unverifiable,
    /// Not checked: verification is off, the asset has no [`BookMeta`], or the frame carries
    /// no (or an empty) hash.
    Unchecked,
}

impl HashStatus {
    /// Whether the hash was checked and did not match.
    #[must_use]
    pub const fn is_mismatch(self) -> bool {
        matches!(self, Self::Mismatch)
    }
}

/// A `book` element the hash input could not be written from (it is not a JSON object of the
/// expected shape). `at` is the byte offset in the element.
///
/// ```
/// use polyclob::book::{BookMeta, book_hash};
/// let e = book_hash("[1]", BookMeta::new(Default::default(), false), &mut Vec::new()).unwrap_err();
/// assert_eq!(e.at(), 0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct IntegrityError {
    what: &'static str,
    at: usize,
}

impl IntegrityError {
    /// What was wrong.
    #[must_use]
    pub const fn what(&self) -> &'static str {
        self.what
    }

    /// Byte offset in the element.
    #[must_use]
    pub const fn at(&self) -> usize {
        self.at
    }
}

impl fmt::Display for IntegrityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "book hash input: {} at byte {}", self.what, self.at)
    }
}

impl std::error::Error for IntegrityError {}

const fn bad(what: &'static str, at: usize) -> IntegrityError {
    IntegrityError { what, at }
}

/// Writes the hash input of the `book` element `json` into `out` (cleared first) and returns
/// its SHA-1. `out` is the caller's reusable scratch: no allocation once it is large enough.
///
/// # Errors
/// [`IntegrityError`] when `json` is not an object whose `bids`/`asks` are arrays of objects.
pub fn book_hash(
    json: &str,
    meta: BookMeta,
    out: &mut Vec<u8>,
) -> Result<BookHash, IntegrityError> {
    write_hash_input(json, meta, out)?;
    Ok(BookHash(Sha1::digest(out.as_slice()).into()))
}

/// [`book_hash`], and whether the element omits a member the exchange fills with the
/// market's current value (`tick_size`, `last_trade_price`).
fn hash_and_omits(
    json: &str,
    meta: BookMeta,
    out: &mut Vec<u8>,
) -> Result<(BookHash, bool), IntegrityError> {
    let omits = write_input(json, meta, out)?;
    Ok((BookHash(Sha1::digest(out.as_slice()).into()), omits))
}

/// The raw JSON tokens of the members the hash covers (byte ranges of the element).
#[derive(Clone, Copy, Default)]
struct Members {
    market: Option<(usize, usize)>,
    asset_id: Option<(usize, usize)>,
    timestamp: Option<(usize, usize)>,
    bids: Option<(usize, usize)>,
    asks: Option<(usize, usize)>,
    /// `bids`/`asks` are in the exchange's compact form (hashed as sent).
    compact: [bool; 2],
    tick_size: Option<(usize, usize)>,
    last_trade_price: Option<(usize, usize)>,
    version: Option<(usize, usize)>,
}

/// Writes the hash input of the `book` element `json` into `out` (cleared first).
///
/// # Errors
/// [`IntegrityError`] when `json` is not an object whose `bids`/`asks` are arrays of objects.
pub fn write_hash_input(
    json: &str,
    meta: BookMeta,
    out: &mut Vec<u8>,
) -> Result<(), IntegrityError> {
    write_input(json, meta, out).map(|_| ())
}

/// [`write_hash_input`], returning whether `tick_size` or `last_trade_price` was omitted.
fn write_input(json: &str, meta: BookMeta, out: &mut Vec<u8>) -> Result<bool, IntegrityError> {
    let b = json.as_bytes();
    let m = members(json)?;
    out.clear();
    out.extend_from_slice(b"{\"market\":");
    scalar(b, m.market, out);
    out.extend_from_slice(b",\"asset_id\":");
    scalar(b, m.asset_id, out);
    out.extend_from_slice(b",\"timestamp\":");
    scalar(b, m.timestamp, out);
    out.extend_from_slice(b",\"hash\":\"\",\"bids\":");
    levels(json, m.bids, m.compact[0], out)?;
    out.extend_from_slice(b",\"asks\":");
    levels(json, m.asks, m.compact[1], out)?;
    out.extend_from_slice(b",\"min_order_size\":\"");
    let mut buf = [0u8; 48];
    out.extend_from_slice(meta.min_order_size.write_str(&mut buf).as_bytes());
    out.extend_from_slice(b"\",\"tick_size\":");
    match (m.tick_size, meta.tick_size) {
        (None, Some(t)) => quoted(t.as_str().as_bytes(), out),
        (span, _) => scalar(b, span, out),
    }
    out.extend_from_slice(b",\"neg_risk\":");
    out.extend_from_slice(if meta.neg_risk { b"true" } else { b"false" });
    out.extend_from_slice(b",\"last_trade_price\":");
    match (m.last_trade_price, meta.last_trade_price) {
        (None, Some(p)) => quoted(p.write_str(&mut buf).as_bytes(), out),
        (span, _) => scalar(b, span, out),
    }
    match (m.version, meta.protocol) {
        (Some(span), _) => {
            out.extend_from_slice(b",\"version\":");
            scalar(b, Some(span), out);
        }
        (None, Protocol::V2) => {
            out.extend_from_slice(b",\"version\":");
            quoted(Protocol::V2.as_str().as_bytes(), out);
        }
        (None, _) => {}
    }
    out.push(b'}');
    Ok(m.tick_size.is_none() || m.last_trade_price.is_none())
}

fn quoted(text: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    out.extend_from_slice(text);
    out.push(b'"');
}

/// A scalar member as sent (a string keeps its quotes and escapes), `""` when absent, `null`
/// or a container (the server's struct holds strings: such a frame cannot verify anyway).
fn scalar(b: &[u8], span: Option<(usize, usize)>, out: &mut Vec<u8>) {
    match span.and_then(|(s, e)| b.get(s..e)) {
        Some(raw) if raw.first() == Some(&b'"') => out.extend_from_slice(raw),
        Some(raw) if raw == b"null" || matches!(raw.first(), Some(b'{' | b'[')) => {
            out.extend_from_slice(b"\"\"");
        }
        // A bare number or literal is hashed as the string the server's struct holds.
        Some(raw) => {
            out.push(b'"');
            out.extend_from_slice(raw);
            out.push(b'"');
        }
        None => out.extend_from_slice(b"\"\""),
    }
}

/// A level array re-written as `[{"price":…,"size":…},…]`, values as sent; `[]` when absent.
fn levels(
    json: &str,
    span: Option<(usize, usize)>,
    compact: bool,
    out: &mut Vec<u8>,
) -> Result<(), IntegrityError> {
    let b = json.as_bytes();
    let Some((start, end)) = span else {
        out.extend_from_slice(b"[]");
        return Ok(());
    };
    if b.get(start) != Some(&b'[') {
        // `null` levels: the server's empty slice.
        out.extend_from_slice(b"[]");
        return Ok(());
    }
    if compact {
        // The exchange's own compact levels: the input is the array as sent.
        out.extend_from_slice(&b[start..end]);
        return Ok(());
    }
    out.push(b'[');
    let mut p = skip_ws(b, start + 1);
    let mut first = true;
    while p < end && b.get(p) != Some(&b']') {
        if b.get(p) != Some(&b'{') {
            return Err(bad("a level is not an object", p));
        }
        if let Some(next) = compact_level(b, p) {
            if !first {
                out.push(b',');
            }
            first = false;
            out.extend_from_slice(&b[p..next]);
            p = skip_ws(b, next);
            if b.get(p) == Some(&b',') {
                p = skip_ws(b, p + 1);
            }
            continue;
        }
        let (mut price, mut size) = (None, None);
        p = object(json, p, |key, v, _| match key {
            b"price" => price = Some(v),
            b"size" => size = Some(v),
            _ => {}
        })?;
        if !first {
            out.push(b',');
        }
        first = false;
        out.extend_from_slice(b"{\"price\":");
        scalar(b, price, out);
        out.extend_from_slice(b",\"size\":");
        scalar(b, size, out);
        out.push(b'}');
        p = skip_ws(b, p);
        if b.get(p) == Some(&b',') {
            p = skip_ws(b, p + 1);
        }
    }
    out.push(b']');
    Ok(())
}

/// The members of the top-level object.
fn members(json: &str) -> Result<Members, IntegrityError> {
    let b = json.as_bytes();
    let mut m = Members::default();
    let start = skip_ws(b, 0);
    if b.get(start) != Some(&b'{') {
        return Err(bad("not an object", start));
    }
    object(json, start, |key, v, compact| {
        let slot = match key {
            b"market" => &mut m.market,
            b"asset_id" => &mut m.asset_id,
            b"timestamp" => &mut m.timestamp,
            b"bids" => {
                m.compact[0] = compact;
                &mut m.bids
            }
            b"asks" => {
                m.compact[1] = compact;
                &mut m.asks
            }
            b"tick_size" => &mut m.tick_size,
            b"last_trade_price" => &mut m.last_trade_price,
            b"version" => &mut m.version,
            _ => return,
        };
        *slot = Some(v);
    })?;
    Ok(m)
}

/// Walks the object whose `{` is at `p` with the shared JSON scanner, calling `each(key,
/// value_span, compact_levels)` per member (the key without quotes, as written; whether the
/// value is an array of compact levels); returns the index after its `}`. Values are checked
/// by the scanner's one skipper.
fn object(
    json: &str,
    p: usize,
    mut each: impl FnMut(&[u8], (usize, usize), bool),
) -> Result<usize, IntegrityError> {
    let b = json.as_bytes();
    let invalid = |e: DecodeError| bad("invalid JSON", e.offset());
    let mut c = Cursor::new(json, p + 1);
    if c.close_if(b'}') {
        return Ok(c.pos);
    }
    loop {
        let key = c.key().map_err(invalid)?;
        let v = c.pos;
        let compact_end = if b.get(v) == Some(&b'[') {
            compact_array_end(b, v)
        } else {
            None
        };
        match compact_end {
            Some(end) => c.pos = end,
            None => c.skip(0).map_err(invalid)?,
        }
        each(key, (v, c.pos), compact_end.is_some());
        if !c.next_or_close(b'}').map_err(invalid)? {
            return Ok(c.pos);
        }
    }
}

/// The index after the `]` of the array at `p` when it is `[]` or only levels in the
/// exchange's compact form separated by bare commas (what the exchange sends).
#[inline]
fn compact_array_end(b: &[u8], p: usize) -> Option<usize> {
    let mut q = p + 1;
    if b.get(q) == Some(&b']') {
        return Some(q + 1);
    }
    loop {
        q = compact_level(b, q)?;
        match b.get(q) {
            Some(b',') => q += 1,
            Some(b']') => return Some(q + 1),
            _ => return None,
        }
    }
}

/// A level in the exchange's own compact form, `{"price":"…","size":"…"}` with plain strings,
/// starting at `p`: the index after its `}`. Such a level is hashed verbatim.
#[inline]
fn compact_level(b: &[u8], p: usize) -> Option<usize> {
    // Fixed-size compares: inline loads, not a `memcmp` call per key.
    const PRICE: &[u8; 10] = b"{\"price\":\"";
    const SIZE: &[u8; 10] = b"\",\"size\":\"";
    if chunk::<10>(b, p)? != PRICE {
        return None;
    }
    let q = find_special(b, p + PRICE.len());
    if chunk::<10>(b, q)? != SIZE {
        return None;
    }
    let r = find_special(b, q + SIZE.len());
    (chunk::<2>(b, r)? == b"\"}").then_some(r + 2)
}

/// Verification state kept by a [`BookManager`](super::BookManager): per-slot metadata and
/// last status, and the reused scratch buffer.
#[derive(Debug)]
pub(crate) struct Integrity {
    pub(crate) enabled: bool,
    metas: Vec<Option<BookMeta>>,
    last: Vec<HashStatus>,
    /// Consecutive mismatching snapshots per slot.
    streak: Vec<u32>,
    scratch: Vec<u8>,
}

impl Default for Integrity {
    fn default() -> Self {
        Self {
            enabled: true,
            metas: Vec::new(),
            last: Vec::new(),
            streak: Vec::new(),
            // Room for a deep snapshot before the first growth.
            scratch: Vec::with_capacity(4096),
        }
    }
}

impl Integrity {
    /// Registers `meta`; stand-ins it does not give keep what the feed already taught.
    pub(crate) fn set_meta(&mut self, slot: usize, mut meta: BookMeta) {
        if self.metas.len() <= slot {
            self.metas.resize(slot + 1, None);
        }
        if let Some(old) = self.metas[slot] {
            meta.tick_size = meta.tick_size.or(old.tick_size);
            meta.last_trade_price = meta.last_trade_price.or(old.last_trade_price);
        }
        self.metas[slot] = Some(meta);
    }

    pub(crate) fn meta(&self, slot: usize) -> Option<BookMeta> {
        self.metas.get(slot).copied().flatten()
    }

    /// The market's tick size changed (a `tick_size_change`, or a snapshot that carries it):
    /// the stand-in for snapshots that omit it.
    pub(crate) fn note_tick(&mut self, slot: usize, tick: TickSize) {
        if let Some(Some(m)) = self.metas.get_mut(slot) {
            m.tick_size = Some(tick);
        }
    }

    /// A trade printed (a `last_trade_price`, or a snapshot that carries it): the stand-in
    /// for snapshots that omit it.
    pub(crate) fn note_trade(&mut self, slot: usize, price: Price) {
        if let Some(Some(m)) = self.metas.get_mut(slot) {
            m.last_trade_price = Some(price);
        }
    }

    pub(crate) fn last(&self, slot: usize) -> Option<HashStatus> {
        self.last.get(slot).copied()
    }

    /// Checks the `book` element `json` of the asset in `slot` against `sent`.
    pub(crate) fn check(&mut self, slot: usize, json: &str, sent: Option<&str>) -> HashStatus {
        let status = match (self.enabled, self.meta(slot), sent) {
            (true, Some(meta), Some(sent)) if !sent.is_empty() => {
                match hash_and_omits(json, meta, &mut self.scratch) {
                    Ok((h, _)) if h.matches(sent) => HashStatus::Verified,
                    // Hashed with stand-ins for members the exchange filled itself: a
                    // difference may be the stand-ins', so it proves nothing.
                    Ok((_, true)) => HashStatus::Unverifiable,
                    // An element the decoder accepted but this reader cannot walk is not the
                    // snapshot the exchange hashed either.
                    Ok((_, false)) | Err(_) => HashStatus::Mismatch,
                }
            }
            _ => HashStatus::Unchecked,
        };
        if self.last.len() <= slot {
            // Grows once per new asset (registration already allocates for the book).
            self.last.resize(slot + 1, HashStatus::Unchecked);
            self.streak.resize(slot + 1, 0);
        }
        self.last[slot] = status;
        self.streak[slot] = match status {
            HashStatus::Mismatch => self.streak[slot].saturating_add(1),
            // Says nothing either way: a run of mismatches is neither broken nor extended.
            HashStatus::Unverifiable => self.streak[slot],
            _ => 0,
        };
        status
    }

    pub(crate) fn streak(&self, slot: usize) -> u32 {
        self.streak.get(slot).copied().unwrap_or(0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn meta() -> BookMeta {
        BookMeta::new(Size::parse(b"5").unwrap(), false)
    }

    #[test]
    fn compacts_whatever_the_layout() {
        let pretty = r#"{ "asks" : [ ], "event_type":"book",
            "bids": [ { "size" : "1.50", "price" : ".48" } , {"price":"0.47","size":"2"} ],
            "market" : "m", "asset_id": "a", "timestamp": 17, "extra": {"x":[1,"]"]} }"#;
        let mut out = Vec::new();
        write_hash_input(pretty, meta(), &mut out).unwrap();
        assert_eq!(
            std::str::from_utf8(&out).unwrap(),
            r#"{"market":"m","asset_id":"a","timestamp":"17","hash":"","bids":[{"price":".48","size":"1.50"},{"price":"0.47","size":"2"}],"asks":[],"min_order_size":"5","tick_size":"","neg_risk":false,"last_trade_price":""}"#
        );
    }

    #[test]
    fn broken_elements_are_errors_not_panics() {
        for bad in [
            "",
            "{",
            r#"{"bids":[1]}"#,
            r#"{"bids":[{"price":"1"}"#,
            r#"{"a" 1}"#,
            r#"{"a":"x"#,
            r#"{"a":}"#,
            "\"",
        ] {
            assert!(
                write_hash_input(bad, meta(), &mut Vec::new()).is_err(),
                "{bad}"
            );
        }
    }

    #[test]
    fn sha1_known_answer() {
        // SHA-1("abc"), FIPS 180-1 appendix A.
        let h = BookHash(Sha1::digest(b"abc").into());
        assert_eq!(h.to_string(), "a9993e364706816aba3e25717850c26c9cd0d89d");
    }

    /// A snapshot that omits a member the exchange fills in is verified when the stand-ins
    /// reproduce its hash and unverifiable otherwise, never a mismatch; one that carries
    /// every member is a mismatch when it differs.
    #[test]
    fn omitted_members_never_cry_wolf() {
        let full = r#"{"market":"m","asset_id":"a","bids":[],"asks":[],"tick_size":"0.01","last_trade_price":"0.49"}"#;
        let sparse = r#"{"market":"m","asset_id":"a","bids":[],"asks":[]}"#;
        let no_price = r#"{"market":"m","asset_id":"a","bids":[],"asks":[],"tick_size":"0.01"}"#;
        let exact = meta()
            .with_tick_size(TickSize::Hundredth)
            .with_last_trade_price(Price::parse(b"0.49").unwrap());
        let mut scratch = Vec::new();
        // What the exchange hashed: its current values, one written "0.490".
        let exchange = book_hash(
            &full.replace(r#""0.49""#, r#""0.490""#),
            meta(),
            &mut scratch,
        )
        .unwrap()
        .to_string();
        let mut i = Integrity::default();
        i.set_meta(0, exact);
        assert_eq!(
            i.check(0, sparse, Some(&exchange)),
            HashStatus::Unverifiable
        );
        assert_eq!(
            i.check(0, no_price, Some(&exchange)),
            HashStatus::Unverifiable
        );
        assert_eq!(i.streak(0), 0);
        // The same frames whose hash the stand-ins do reproduce are verified.
        let standin = book_hash(full, meta(), &mut scratch).unwrap().to_string();
        assert_eq!(i.check(0, sparse, Some(&standin)), HashStatus::Verified);
        assert_eq!(i.check(0, no_price, Some(&standin)), HashStatus::Verified);
        // A full frame that differs is a mismatch; an unverifiable one between two
        // mismatches neither ends nor extends the run.
        assert_eq!(i.check(0, full, Some(&exchange)), HashStatus::Mismatch);
        assert_eq!(
            i.check(0, sparse, Some(&exchange)),
            HashStatus::Unverifiable
        );
        assert_eq!(i.streak(0), 1);
        assert_eq!(i.check(0, full, Some(&exchange)), HashStatus::Mismatch);
        assert_eq!(i.streak(0), 2);
    }

    #[test]
    fn unchecked_without_meta_hash_or_switch() {
        let frame = r#"{"market":"m","asset_id":"a","bids":[],"asks":[],"tick_size":"0.01","last_trade_price":"0.5"}"#;
        let mut i = Integrity::default();
        assert_eq!(i.check(0, frame, Some("00")), HashStatus::Unchecked);
        i.set_meta(0, meta());
        assert_eq!(i.check(0, frame, None), HashStatus::Unchecked);
        assert_eq!(i.check(0, frame, Some("")), HashStatus::Unchecked);
        assert_eq!(i.check(0, frame, Some("00")), HashStatus::Mismatch);
        assert_eq!(i.check(0, frame, Some("00")), HashStatus::Mismatch);
        assert_eq!(i.streak(0), 2);
        let mut scratch = Vec::new();
        let good = book_hash(frame, meta(), &mut scratch).unwrap().to_string();
        assert_eq!(i.check(0, frame, Some(&good)), HashStatus::Verified);
        assert_eq!(i.streak(0), 0);
        i.enabled = false;
        assert_eq!(i.check(0, frame, Some("00")), HashStatus::Unchecked);
        assert_eq!(i.last(0), Some(HashStatus::Unchecked));
    }
}
