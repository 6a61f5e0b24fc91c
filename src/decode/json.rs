//! The byte scanner under the decoder: errors, borrowed JSON strings, and a cursor that
//! walks a frame without building a tree.
//!
//! The cursor never allocates. Strings are returned as slices of the frame together with a
//! flag saying whether they contain escapes; only [`JsonStr::to_unescaped`] ever copies.

use core::fmt;
use std::borrow::Cow;

use crate::fixed::ParseErrorKind;

/// Nesting limit for skipped values: deeper input is rejected rather than recursed into.
const MAX_DEPTH: u32 = 128;

/// What was wrong with a frame or with one element of it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecodeErrorKind {
    /// Bytes that are not JSON where a value, `:`, `,` or closing bracket was expected.
    Syntax,
    /// The frame ended inside a value.
    Eof,
    /// Arrays or objects nested deeper than the decoder's limit (128), or a frame of 4 GiB or more.
    TooDeep,
    /// The frame is not valid UTF-8.
    Utf8,
    /// A field the event needs is absent (or `null`).
    MissingField,
    /// A field holds the wrong JSON type (for example a number where an object was expected).
    WrongType,
    /// A field the decoder must read verbatim (an id, a price) contains a JSON escape.
    Escaped,
    /// A JSON escape sequence is invalid (bad `\u` hex, lone surrogate, unknown escape).
    BadEscape,
    /// A price or size is not an exact decimal in range.
    Decimal(ParseErrorKind),
    /// A field holds a value outside its set (a side other than `BUY`/`SELL`, an unknown tick).
    InvalidValue,
    /// A book snapshot lists the same price twice on one side.
    DuplicateLevel,
}

impl DecodeErrorKind {
    /// A short, static description.
    ///
    /// ```
    /// use polyclob::decode::DecodeErrorKind;
    /// assert_eq!(DecodeErrorKind::MissingField.as_str(), "missing field");
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Syntax => "invalid JSON",
            Self::Eof => "frame ends inside a value",
            Self::TooDeep => "nesting too deep",
            Self::Utf8 => "frame is not UTF-8",
            Self::MissingField => "missing field",
            Self::WrongType => "field has the wrong JSON type",
            Self::Escaped => "escaped text in a verbatim field",
            Self::BadEscape => "invalid JSON escape",
            Self::Decimal(kind) => kind.as_str(),
            Self::InvalidValue => "value not in the allowed set",
            Self::DuplicateLevel => "duplicate price level",
        }
    }

    /// Whether the error breaks the JSON structure, so nothing after it in the frame can be
    /// decoded. Other errors affect one element only.
    ///
    /// ```
    /// use polyclob::decode::DecodeErrorKind;
    /// assert!(DecodeErrorKind::Syntax.is_structural());
    /// assert!(!DecodeErrorKind::MissingField.is_structural());
    /// ```
    #[must_use]
    pub const fn is_structural(self) -> bool {
        matches!(self, Self::Syntax | Self::Eof | Self::TooDeep | Self::Utf8)
    }
}

/// A frame or element that could not be decoded: small, `Copy`, allocation-free.
///
/// Carries the kind, the field it concerns (`""` for structural errors) and the byte offset
/// in the frame.
///
/// ```
/// use polyclob::decode::{decode, DecodeErrorKind};
///
/// let frame = r#"{"event_type":"last_trade_price","asset_id":"1","market":"0x","price":"1.5"}"#;
/// let err = decode(frame).next().unwrap().unwrap_err();
/// assert_eq!(err.field(), "price");
/// assert!(matches!(err.kind(), DecodeErrorKind::Decimal(_)));
/// assert_eq!(err.to_string(), "value out of range in field `price` at byte 71");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct DecodeError {
    kind: DecodeErrorKind,
    field: &'static str,
    offset: u32,
}

impl DecodeError {
    #[inline]
    pub(crate) const fn new(kind: DecodeErrorKind, field: &'static str, offset: usize) -> Self {
        let offset = if offset > u32::MAX as usize {
            u32::MAX
        } else {
            offset as u32
        };
        Self {
            kind,
            field,
            offset,
        }
    }

    /// What was wrong.
    ///
    /// ```
    /// use polyclob::decode::{decode, DecodeErrorKind};
    /// let err = decode("{").next().unwrap().unwrap_err();
    /// assert_eq!(err.kind(), DecodeErrorKind::Eof);
    /// ```
    #[must_use]
    pub const fn kind(&self) -> DecodeErrorKind {
        self.kind
    }

    /// The JSON field concerned, or `""` when the error is about the structure.
    ///
    /// ```
    /// use polyclob::decode::decode;
    /// let err = decode(r#"{"event_type":"book"}"#).next().unwrap().unwrap_err();
    /// assert_eq!(err.field(), "asset_id");
    /// ```
    #[must_use]
    pub const fn field(&self) -> &'static str {
        self.field
    }

    /// Byte offset in the frame where the problem was found.
    ///
    /// ```
    /// use polyclob::decode::decode;
    /// let err = decode("[1]").next().unwrap().unwrap_err();
    /// assert_eq!(err.offset(), 1);
    /// ```
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.offset as usize
    }
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.field.is_empty() {
            write!(f, "{} at byte {}", self.kind.as_str(), self.offset)
        } else {
            write!(
                f,
                "{} in field `{}` at byte {}",
                self.kind.as_str(),
                self.field,
                self.offset
            )
        }
    }
}

impl std::error::Error for DecodeError {}

/// The contents of a JSON string, borrowed from the frame, still escaped.
///
/// Free text (questions, descriptions, order statuses with a reason) may contain escapes;
/// [`as_str`](Self::as_str) returns the text only when it has none, and
/// [`to_unescaped`](Self::to_unescaped) decodes them (copying only then).
///
/// ```
/// use polyclob::decode::JsonStr;
///
/// let plain = JsonStr::from_raw("Yes");
/// assert_eq!(plain.as_str(), Some("Yes"));
/// let quoted = JsonStr::from_raw(r#"say \"hi\" \u00e9"#);
/// assert_eq!(quoted.as_str(), None);
/// assert_eq!(quoted.to_unescaped()?, "say \"hi\" é");
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct JsonStr<'a> {
    raw: &'a str,
    escaped: bool,
    offset: u32,
}

impl<'a> JsonStr<'a> {
    /// Wraps the raw (still escaped) contents of a JSON string, without the quotes.
    ///
    /// ```
    /// use polyclob::decode::JsonStr;
    /// assert!(JsonStr::from_raw(r"a\nb").is_escaped());
    /// ```
    #[must_use]
    pub fn from_raw(raw: &'a str) -> Self {
        Self {
            raw,
            escaped: raw.as_bytes().contains(&b'\\'),
            offset: 0,
        }
    }

    pub(crate) const fn new(raw: &'a str, escaped: bool, offset: usize) -> Self {
        Self {
            raw,
            escaped,
            offset: if offset > u32::MAX as usize {
                u32::MAX
            } else {
                offset as u32
            },
        }
    }

    /// The contents exactly as they appear between the quotes.
    ///
    /// ```
    /// use polyclob::decode::JsonStr;
    /// assert_eq!(JsonStr::from_raw(r"a\tb").raw(), r"a\tb");
    /// ```
    #[must_use]
    pub const fn raw(&self) -> &'a str {
        self.raw
    }

    /// Whether the contents contain at least one escape sequence.
    ///
    /// ```
    /// use polyclob::decode::JsonStr;
    /// assert!(!JsonStr::from_raw("plain").is_escaped());
    /// ```
    #[must_use]
    pub const fn is_escaped(&self) -> bool {
        self.escaped
    }

    /// The text, when it needs no unescaping.
    ///
    /// ```
    /// use polyclob::decode::JsonStr;
    /// assert_eq!(JsonStr::from_raw("LIVE").as_str(), Some("LIVE"));
    /// ```
    #[must_use]
    pub const fn as_str(&self) -> Option<&'a str> {
        if self.escaped { None } else { Some(self.raw) }
    }

    /// The decoded text: borrowed when there are no escapes, owned otherwise.
    ///
    /// ```
    /// use polyclob::decode::JsonStr;
    /// assert_eq!(JsonStr::from_raw(r"it\u2019s").to_unescaped()?, "it’s");
    /// # Ok::<(), polyclob::decode::DecodeError>(())
    /// ```
    ///
    /// # Errors
    /// [`DecodeErrorKind::BadEscape`] for an invalid escape or a lone surrogate.
    pub fn to_unescaped(&self) -> Result<Cow<'a, str>, DecodeError> {
        if !self.escaped {
            return Ok(Cow::Borrowed(self.raw));
        }
        let mut out = String::with_capacity(self.raw.len());
        self.unescape_into(&mut out)?;
        Ok(Cow::Owned(out))
    }

    /// Appends the decoded text to `out`, reusing its capacity.
    ///
    /// ```
    /// use polyclob::decode::JsonStr;
    /// let mut out = String::new();
    /// JsonStr::from_raw(r"a\/b").unescape_into(&mut out)?;
    /// assert_eq!(out, "a/b");
    /// # Ok::<(), polyclob::decode::DecodeError>(())
    /// ```
    ///
    /// # Errors
    /// [`DecodeErrorKind::BadEscape`] for an invalid escape or a lone surrogate; `out` may then
    /// hold a prefix of the text.
    pub fn unescape_into(&self, out: &mut String) -> Result<(), DecodeError> {
        let s = self.raw;
        let b = s.as_bytes();
        let base = self.offset as usize;
        let bad = |i: usize| DecodeError::new(DecodeErrorKind::BadEscape, "", base + i);
        let mut i = 0;
        let mut run = 0;
        while i < b.len() {
            if b[i] != b'\\' {
                i += 1;
                continue;
            }
            // `run..i` ends before an ASCII backslash, so both ends are char boundaries.
            out.push_str(s.get(run..i).ok_or_else(|| bad(i))?);
            let esc = *b.get(i + 1).ok_or_else(|| bad(i))?;
            i += 2;
            let c = match esc {
                b'"' => '"',
                b'\\' => '\\',
                b'/' => '/',
                b'b' => '\u{8}',
                b'f' => '\u{c}',
                b'n' => '\n',
                b'r' => '\r',
                b't' => '\t',
                b'u' => {
                    let hi = hex4(b, i).ok_or_else(|| bad(i))?;
                    i += 4;
                    let code = if (0xD800..0xDC00).contains(&hi) {
                        // A high surrogate must be followed by `\u` and a low surrogate.
                        if b.get(i) != Some(&b'\\') || b.get(i + 1) != Some(&b'u') {
                            return Err(bad(i));
                        }
                        let lo = hex4(b, i + 2).ok_or_else(|| bad(i))?;
                        if !(0xDC00..0xE000).contains(&lo) {
                            return Err(bad(i));
                        }
                        i += 6;
                        0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00)
                    } else {
                        hi
                    };
                    char::from_u32(code).ok_or_else(|| bad(i))?
                }
                _ => return Err(bad(i - 1)),
            };
            out.push(c);
            run = i;
        }
        out.push_str(s.get(run..).ok_or_else(|| bad(run))?);
        Ok(())
    }
}

impl fmt::Debug for JsonStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.raw, f)
    }
}

impl PartialEq<str> for JsonStr<'_> {
    fn eq(&self, other: &str) -> bool {
        !self.escaped && self.raw == other
    }
}

impl PartialEq<&str> for JsonStr<'_> {
    fn eq(&self, other: &&str) -> bool {
        !self.escaped && self.raw == *other
    }
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = b.get(at..at + 4)?;
    let mut v = 0u32;
    for &d in digits {
        let n = match d {
            b'0'..=b'9' => d - b'0',
            b'a'..=b'f' => d - b'a' + 10,
            b'A'..=b'F' => d - b'A' + 10,
            _ => return None,
        };
        v = v * 16 + u32::from(n);
    }
    Some(v)
}

/// The JSON type of a scalar field as captured by the first pass.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub(crate) enum RawKind {
    /// The field was not present.
    #[default]
    Missing,
    /// A string without escapes.
    Str,
    /// A string with escapes.
    Esc,
    /// A number; `text` is its literal.
    Num,
    Null,
    /// `true`, `false`, an object or an array.
    Other,
}

/// A field value captured by the first pass: where its text (string contents or literal) is in
/// the frame, and its JSON type. Offsets are `u32` to keep the per-element capture small;
/// [`decode`](super::decode) rejects frames of 4 GiB or more.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Raw {
    pub(crate) at: u32,
    pub(crate) len: u32,
    pub(crate) kind: RawKind,
}

impl Raw {
    #[inline]
    pub(crate) fn new(at: usize, len: usize, kind: RawKind) -> Self {
        Self {
            at: at as u32,
            len: len as u32,
            kind,
        }
    }

    /// The captured text.
    #[inline]
    pub(crate) fn text<'a>(&self, src: &'a str) -> &'a str {
        let at = self.at as usize;
        sub(src, at, at + self.len as usize).unwrap_or("")
    }

    #[inline]
    pub(crate) fn at(&self) -> usize {
        self.at as usize
    }

    /// Missing, `null`, or an empty string: "no value" in the exchange's idiom.
    #[inline]
    pub(crate) fn is_blank(&self) -> bool {
        match self.kind {
            RawKind::Missing | RawKind::Null => true,
            RawKind::Str => self.len == 0,
            _ => false,
        }
    }
}

/// Powers of ten for scaling up to six fractional digits.
const SCALE_UP: [u64; 7] = [1_000_000, 100_000, 10_000, 1_000, 100, 10, 1];

/// Reads a plain decimal (`digits[.digits]`, at most 13 integer digits, any zeros past the
/// 6th decimal) starting at `b[i]`, returning its value in 10⁻⁶ units and the index of the
/// first byte after it.
///
/// A byte loop with no overflow checks needed (13 digits × 10⁶ < 2⁶⁴), behind the word-at-a-time
/// readers ([`span_decimal`], [`word_decimal`]) for what they leave: values near the end of
/// the frame, long integers, more than six decimals. It returns `None` for anything else —
/// empty input, more integer digits, a non-zero 7th decimal, a sign — and callers then fall
/// back to [`crate::fixed::Price::parse`]/[`crate::fixed::Size::parse`], which decide and
/// report. The unit tests check it against those parsers.
#[cold]
pub(crate) fn scan_decimal(b: &[u8], mut i: usize) -> Option<(u64, usize)> {
    let start = i;
    let mut int = 0u64;
    while let Some(&c) = b.get(i) {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        int = int * 10 + u64::from(d);
        i += 1;
        if i - start > 13 {
            return None;
        }
    }
    let int_digits = i - start;
    let mut frac = 0u64;
    let mut frac_digits = 0usize;
    if b.get(i) == Some(&b'.') {
        i += 1;
        while let Some(&c) = b.get(i) {
            let d = c.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            if frac_digits < 6 {
                frac = frac * 10 + u64::from(d);
            } else if d != 0 {
                return None;
            }
            frac_digits += 1;
            i += 1;
        }
    }
    if int_digits == 0 && frac_digits == 0 {
        return None;
    }
    Some((int * 1_000_000 + frac * SCALE_UP[frac_digits.min(6)], i))
}
/// The value of the plain decimal that is exactly `b[s..e]`, in 10⁻⁶ units, or `None` when
/// that text is anything else (the caller then falls back to the `fixed` parsers, which
/// decide and report).
///
/// Unlike [`scan_decimal`], the end is already known (found by a quote search), so the parse
/// is not on the critical path from one field to the next. `b` is the whole frame: the word
/// loads may read past `e`.
#[inline(always)]
pub(crate) fn span_decimal(b: &[u8], s: usize, e: usize) -> Option<u64> {
    let len = e.checked_sub(s)?;
    if len <= 8 {
        if let Some(v) = word8(b, s).and_then(|w| word_decimal(w, len)) {
            return Some(v);
        }
    }
    let (v, end) = scan_decimal(b.get(..e)?, s)?;
    (end == e).then_some(v)
}

/// The value of the plain decimal held in the first `len` (0..=8) bytes of `w` (a word read
/// from the frame, first byte lowest), in 10⁻⁶ units; `None` when those bytes are anything
/// else or when the text needs the byte loop (more than six decimals).
#[inline(always)]
pub(crate) fn word_decimal(w: u64, len: usize) -> Option<u64> {
    // One flag (bit 7) per byte that is not an ASCII digit.
    let nd = non_digits(w);
    let n = (nd.trailing_zeros() / 8) as usize;
    if n >= len {
        return (len > 0).then(|| digits_value(w, len) * 1_000_000);
    }
    // n < len <= 8: byte n is in the word and must be the point, and the next non-digit must
    // be the byte just past the text.
    let next = ((nd & nd.wrapping_sub(1)).trailing_zeros() / 8) as usize;
    let m = len - n - 1;
    if (w >> (8 * n)) as u8 != b'.' || next < len || m > 6 || n + m == 0 {
        return None;
    }
    // Drop the point: the fraction's bytes move down by one, next to the integer digits.
    let below = (1u64 << (8 * n)) - 1;
    let joined = (w & below) | ((w >> 8) & !below);
    Some(digits_value(joined, n + m) * SCALE_UP[m])
}

/// [`word_decimal`] for a price. Its usual text, `0.` and one to six digits, takes a shorter
/// path that knows where the point is; anything else goes to [`word_decimal`]. Same result
/// for every input (tested below).
#[inline(always)]
pub(crate) fn price_word_decimal(w: u64, len: usize) -> Option<u64> {
    let m = len.wrapping_sub(2);
    if w & 0xFFFF == u64::from(u16::from_le_bytes(*b"0.")) && (1..=6).contains(&m) {
        let frac = w >> 16;
        return ((non_digits(frac).trailing_zeros() / 8) as usize >= m)
            .then(|| digits_value(frac, m) * SCALE_UP[m]);
    }
    word_decimal(w, len)
}

/// The value of the `len` ASCII digits at `at` in `b` (a frame), or `None` when they are not
/// all digits or do not fit. Up to sixteen digits are read as two words (the 13-digit
/// millisecond timestamps of every market message) instead of a byte loop, whose
/// multiply-add chain was the longest step of a `price_change` after the scans.
#[inline]
pub(crate) fn digits_u64(b: &[u8], at: usize, len: usize) -> Option<u64> {
    // Words past the text are fine to read (other bytes of the frame): only the first `len`
    // bytes are looked at. Near the frame's end, the byte loop.
    let end = at.checked_add(len)?;
    let digits = |w: u64, n: usize| (non_digits(w).trailing_zeros() / 8) as usize >= n;
    match len {
        1..=8 => {
            if let Some(w) = word8(b, at) {
                return digits(w, len).then(|| digits_value(w, len));
            }
        }
        9..=16 => {
            if let (Some(hi), Some(lo)) = (word8(b, at), word8(b, at + 8)) {
                let n = len - 8;
                return (digits(hi, 8) && digits(lo, n))
                    .then(|| digits_value(hi, 8) * POW10[n] + digits_value(lo, n));
            }
        }
        _ => {}
    }
    let mut v = 0u64;
    for &c in b.get(at..end)? {
        let d = c.wrapping_sub(b'0');
        if d > 9 {
            return None;
        }
        v = v.checked_mul(10)?.checked_add(u64::from(d))?;
    }
    (len > 0).then_some(v)
}

/// 10⁰ … 10⁸.
const POW10: [u64; 9] = {
    let mut t = [1u64; 9];
    let mut i = 1;
    while i < t.len() {
        t[i] = t[i - 1] * 10;
        i += 1;
    }
    t
};

/// Bit 7 of each byte of the result is set when that byte of `w` is not an ASCII digit; all
/// other bits are clear.
#[inline(always)]
fn non_digits(w: u64) -> u64 {
    // `x` maps the digits to 0..=9. A byte is not a digit when its low seven bits of `x` are
    // 10 or more (adding 0x76 then sets bit 7, and no byte carries into the next: 0x7F + 0x76
    // < 0x100) or when bit 7 of `x` is set.
    let x = w ^ (LO * 0x30);
    (((x & (LO * 0x7F)) + LO * 0x76) | x) & HI
}

/// Index (0..8) of the first `"` in the word, if it has one.
#[inline(always)]
pub(crate) fn quote_in_word(w: u64) -> Option<usize> {
    let q = w ^ (LO * u64::from(b'"'));
    // The lowest flagged byte of the "has zero byte" test is exact.
    let hit = q.wrapping_sub(LO) & !q & HI;
    (hit != 0).then(|| (hit.trailing_zeros() / 8) as usize)
}

/// Index of the first byte at or after `i` that is not JSON whitespace. One comparison when
/// there is none (the exchange's compact frames); whitespace goes out of line.
#[inline(always)]
pub(crate) fn skip_ws(b: &[u8], i: usize) -> usize {
    match b.get(i) {
        Some(&c) if c > b' ' => i,
        _ => skip_ws_run(b, i),
    }
}

#[cold]
fn skip_ws_run(b: &[u8], mut i: usize) -> usize {
    loop {
        // Whole words of spaces (indentation), then byte steps.
        while word8(b, i) == Some(LO * u64::from(b' ')) {
            i += 8;
        }
        match b.get(i) {
            Some(b' ' | b'\n' | b'\r' | b'\t') => i += 1,
            _ => return i,
        }
    }
}

/// Eight bytes at `i` as a little-endian word, when that many remain.
#[inline(always)]
pub(crate) fn word8(b: &[u8], i: usize) -> Option<u64> {
    chunk::<8>(b, i).map(|c| u64::from_le_bytes(*c))
}

/// The `N` bytes at `i`, when that many remain, behind one compare of `i` with `len - N` (the
/// `len ≥ N` half is the same for the whole frame, and the compiler can hoist it out of loops).
/// The safe spellings (`get(i..)?.first_chunk()`, `get(i..i + N)`) each compile to two range
/// checks merged through flag registers on every read.
#[inline(always)]
#[allow(unsafe_code)]
pub(crate) fn chunk<const N: usize>(b: &[u8], i: usize) -> Option<&[u8; N]> {
    if b.len() < N || i > b.len() - N {
        return None;
    }
    // SAFETY: `i + N <= b.len()` (checked just above, without overflow: `b.len() >= N`), so
    // the `N` bytes from `i` are in bounds and initialised; `[u8; N]` has alignment 1.
    Some(unsafe { &*b.as_ptr().add(i).cast::<[u8; N]>() })
}

/// The value of the first `n` (0..=8) bytes of `w`, which are ASCII digits, most significant
/// first.
#[inline(always)]
fn digits_value(w: u64, n: usize) -> u64 {
    if n == 0 {
        return 0;
    }
    // Keep the digits' values and move them to the top bytes: the bytes below become
    // leading zeros. Then combine neighbours: pairs, quads, the whole word.
    let mut d = (w & (LO * 0x0F)) << (8 * (8 - n));
    d = (d.wrapping_mul(10) + (d >> 8)) & 0x00FF_00FF_00FF_00FF;
    d = (d.wrapping_mul(100) + (d >> 16)) & 0x0000_FFFF_0000_FFFF;
    (d.wrapping_mul(10_000) + (d >> 32)) & 0xFFFF_FFFF
}

const LO: u64 = 0x0101_0101_0101_0101;
const HI: u64 = 0x8080_8080_8080_8080;

/// Index of the first byte at or after `i` that ends a run of plain string content: `"`, `\\`
/// or a control byte (< 0x20), or `b.len()`. Ids, hashes and market ids are 40–77 bytes long:
/// on x86_64 (`polyclob_simd`) 16 bytes per SSE2 step while 16 remain, then (and elsewhere)
/// eight bytes per step (SWAR: the lowest flagged byte of the classic "has zero / has less
/// than" tests is always exact), then the last bytes one at a time.
#[inline]
pub(crate) fn find_special(b: &[u8], mut i: usize) -> usize {
    #[cfg(polyclob_simd)]
    match crate::decode::x86::special16(b, i) {
        Ok(j) => return j,
        Err(j) => i = j,
    }
    while let Some(chunk) = b.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let w = u64::from_le_bytes(word);
        let q = w ^ (LO * u64::from(b'"'));
        let s = w ^ (LO * u64::from(b'\\'));
        let hit = ((q.wrapping_sub(LO) & !q)
            | (s.wrapping_sub(LO) & !s)
            | (w.wrapping_sub(LO * 0x20) & !w))
            & HI;
        if hit != 0 {
            return i + (hit.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            return i;
        }
        i += 1;
    }
    i
}

/// [`find_special`] for a string that is probably short (a key, a small value): its first
/// 16 bytes checked where the caller is, the rest by the call.
#[inline(always)]
pub(crate) fn find_special_short(b: &[u8], i: usize) -> usize {
    #[cfg(polyclob_simd)]
    if let Some(j) = crate::decode::x86::special_in16(b, i) {
        return j;
    }
    find_special(b, i)
}

/// The lengths production frames have (every one in the real captures, bar a few test
/// values): `0x` and 64 hex digits for a market, a 77-digit token id, a 40-byte book hash and
/// a 13-digit millisecond timestamp. Predictions only: other lengths read the same, a little
/// slower.
pub(crate) const MARKET_LEN: usize = 66;
pub(crate) const ID_LEN: usize = 77;
pub(crate) const HASH_LEN: usize = 40;
pub(crate) const TIMESTAMP_LEN: usize = 13;

/// The first index at or after `i` holding `"`, `\\` or a control byte, as
/// [`find_special`], when the caller can predict it: `N` bytes on (the lengths above). A scan
/// must find where each 16 bytes end before it reads the next, while checking a prediction
/// reads them all at once (`x86::special_at`). A wrong guess costs that check and
/// then the scan, with the same result.
#[inline(always)]
pub(crate) fn find_special_guess<const N: usize>(b: &[u8], i: usize) -> usize {
    #[cfg(polyclob_simd)]
    if N > 0 && crate::decode::x86::special_at::<N>(b, i) == Some(true) {
        return i + N;
    }
    find_special(b, i)
}

/// `src[a..b]`, or `None` out of range or off a char boundary: `str::get`, but inlined
/// (`str::get` stayed an out-of-line call on the decoder's hot path).
#[inline(always)]
pub(crate) fn sub(src: &str, a: usize, b: usize) -> Option<&str> {
    let (head, _) = src.split_at_checked(b)?;
    head.split_at_checked(a).map(|(_, tail)| tail)
}

/// A position in a frame. All offsets are absolute, so errors point into the whole frame.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Cursor<'a> {
    pub(crate) src: &'a str,
    pub(crate) pos: usize,
}

#[inline]
pub(crate) fn err(kind: DecodeErrorKind, field: &'static str, at: usize) -> DecodeError {
    DecodeError::new(kind, field, at)
}

impl<'a> Cursor<'a> {
    #[inline]
    pub(crate) const fn new(src: &'a str, pos: usize) -> Self {
        Self { src, pos }
    }

    #[inline]
    fn bytes(&self) -> &'a [u8] {
        self.src.as_bytes()
    }

    /// Skips JSON whitespace and returns the next byte, if any.
    #[inline]
    pub(crate) fn peek(&mut self) -> Option<u8> {
        let b = self.bytes();
        match b.get(self.pos) {
            Some(&c) if c > b' ' => Some(c),
            Some(_) => {
                self.pos = skip_ws(b, self.pos);
                b.get(self.pos).copied()
            }
            None => None,
        }
    }

    /// Skips whitespace and consumes `c`, or fails.
    #[inline]
    pub(crate) fn eat(&mut self, c: u8) -> Result<(), DecodeError> {
        match self.peek() {
            Some(x) if x == c => {
                self.pos += 1;
                Ok(())
            }
            Some(_) => Err(err(DecodeErrorKind::Syntax, "", self.pos)),
            None => Err(err(DecodeErrorKind::Eof, "", self.pos)),
        }
    }

    /// After an element of an object or array: consumes `,` (returns `true`) or `close`
    /// (returns `false`).
    #[inline]
    pub(crate) fn next_or_close(&mut self, close: u8) -> Result<bool, DecodeError> {
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(true)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(false)
            }
            Some(_) => Err(err(DecodeErrorKind::Syntax, "", self.pos)),
            None => Err(err(DecodeErrorKind::Eof, "", self.pos)),
        }
    }

    /// Consumes `close` if it is next (an empty object or array). Whitespace is skipped.
    #[inline]
    pub(crate) fn close_if(&mut self, close: u8) -> bool {
        if self.peek() == Some(close) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// At a `"`: consumes the string, returning its contents, whether it has escapes, and the
    /// offset of its first content byte.
    #[inline(always)]
    pub(crate) fn string(&mut self) -> Result<(&'a str, bool, usize), DecodeError> {
        self.string_guess::<0>()
    }

    /// [`Self::string`] for a string predicted to be `N` bytes long (`0`: no prediction; see
    /// [`find_special_guess`]).
    #[inline(always)]
    pub(crate) fn string_guess<const N: usize>(
        &mut self,
    ) -> Result<(&'a str, bool, usize), DecodeError> {
        let b = self.bytes();
        let start = self.pos + 1;
        let mut i = find_special_guess::<N>(b, start);
        let mut escaped = false;
        loop {
            match b.get(i) {
                Some(b'"') => break,
                Some(b'\\') => {
                    escaped = true;
                    // The escaped byte is never a closing quote; `\u` digits are plain bytes.
                    i = find_special(b, i + 2);
                }
                Some(_) => return Err(err(DecodeErrorKind::Syntax, "", i)),
                None => return Err(err(DecodeErrorKind::Eof, "", b.len())),
            }
        }
        self.pos = i + 1;
        // Both ends sit next to ASCII quotes, so they are char boundaries.
        let text = sub(self.src, start, i).ok_or_else(|| err(DecodeErrorKind::Utf8, "", start))?;
        Ok((text, escaped, start))
    }

    /// Reads an object key and the `:` after it. Expects the cursor at the key's `"`.
    #[inline]
    pub(crate) fn key(&mut self) -> Result<&'a [u8], DecodeError> {
        match self.peek() {
            Some(b'"') => {}
            Some(_) => return Err(err(DecodeErrorKind::Syntax, "", self.pos)),
            None => return Err(err(DecodeErrorKind::Eof, "", self.pos)),
        }
        let (k, _, _) = self.string()?;
        self.eat(b':')?;
        self.peek();
        Ok(k.as_bytes())
    }

    /// Captures a scalar field value; objects and arrays are skipped and marked `Other`.
    #[inline(always)]
    pub(crate) fn raw(&mut self) -> Result<Raw, DecodeError> {
        self.raw_guess::<0>()
    }

    /// [`Self::raw`] for a value predicted to be a string of `N` bytes (see
    /// [`Self::string_guess`]).
    #[inline(always)]
    pub(crate) fn raw_guess<const N: usize>(&mut self) -> Result<Raw, DecodeError> {
        let at = self.pos;
        match self.peek() {
            Some(b'"') => {
                let (text, escaped, at) = self.string_guess::<N>()?;
                let kind = if escaped { RawKind::Esc } else { RawKind::Str };
                Ok(Raw::new(at, text.len(), kind))
            }
            Some(b'n') => {
                self.literal(b"null")?;
                Ok(Raw::new(at, 0, RawKind::Null))
            }
            Some(b'-' | b'0'..=b'9') => {
                self.number()?;
                Ok(Raw::new(at, self.pos - at, RawKind::Num))
            }
            _ => {
                self.skip(0)?;
                Ok(Raw::new(at, 0, RawKind::Other))
            }
        }
    }

    fn literal(&mut self, word: &[u8]) -> Result<(), DecodeError> {
        let end = self.pos + word.len();
        match self.bytes().get(self.pos..end) {
            Some(w) if w == word => {
                self.pos = end;
                Ok(())
            }
            Some(_) => Err(err(DecodeErrorKind::Syntax, "", self.pos)),
            None => Err(err(DecodeErrorKind::Eof, "", self.pos)),
        }
    }

    fn number(&mut self) -> Result<(), DecodeError> {
        let b = self.bytes();
        let start = self.pos;
        while let Some(&c) = b.get(self.pos) {
            if c.is_ascii_digit() || matches!(c, b'-' | b'+' | b'.' | b'e' | b'E') {
                self.pos += 1;
            } else {
                break;
            }
        }
        if self.pos == start {
            Err(err(DecodeErrorKind::Syntax, "", start))
        } else {
            Ok(())
        }
    }

    /// Skips one value of any type, checking its structure.
    pub(crate) fn skip(&mut self, depth: u32) -> Result<(), DecodeError> {
        if depth > MAX_DEPTH {
            return Err(err(DecodeErrorKind::TooDeep, "", self.pos));
        }
        match self.peek() {
            Some(b'"') => self.string().map(|_| ()),
            Some(b'{') => {
                self.pos += 1;
                if self.close_if(b'}') {
                    return Ok(());
                }
                loop {
                    self.key()?;
                    self.skip(depth + 1)?;
                    if !self.next_or_close(b'}')? {
                        return Ok(());
                    }
                }
            }
            Some(b'[') => {
                self.pos += 1;
                if self.close_if(b']') {
                    return Ok(());
                }
                loop {
                    self.skip(depth + 1)?;
                    if !self.next_or_close(b']')? {
                        return Ok(());
                    }
                }
            }
            Some(b't') => self.literal(b"true"),
            Some(b'f') => self.literal(b"false"),
            Some(b'n') => self.literal(b"null"),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(err(DecodeErrorKind::Syntax, "", self.pos)),
            None => Err(err(DecodeErrorKind::Eof, "", self.pos)),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn skip_handles_escapes_and_nesting() {
        let src = r#"{"a":"x\"]}","b":[1,{"c":[true,false,null]},-2.5e3],"d":"\\"} tail"#;
        let mut c = Cursor::new(src, 0);
        c.skip(0).unwrap();
        assert_eq!(&src[c.pos..], " tail");
    }

    #[test]
    fn skip_rejects_truncation_and_depth() {
        for bad in [
            r#"{"a":"#,
            r#"{"a":"x"#,
            "[1,",
            "{\"a\" 1}",
            "tru",
            "[\"\u{1}\"]",
        ] {
            assert!(Cursor::new(bad, 0).skip(0).is_err(), "{bad}");
        }
        let deep = "[".repeat(200) + "]".repeat(200).as_str();
        let e = Cursor::new(&deep, 0).skip(0).unwrap_err();
        assert_eq!(e.kind(), DecodeErrorKind::TooDeep);
    }

    #[test]
    fn find_special_matches_a_byte_loop() {
        let naive = |b: &[u8], i: usize| {
            (i..b.len())
                .find(|&j| b[j] == b'"' || b[j] == b'\\' || b[j] < 0x20)
                .unwrap_or(b.len())
        };
        let mut seed = 1u64;
        for round in 0..40_000 {
            // Half the rounds have long runs without a special byte, so that the 16-byte SSE2
            // steps (x86_64) and the 8-byte SWAR steps both run before the hit and the tail.
            let (len, rare) = if round % 2 == 0 {
                ((seed % 40) as usize, 0)
            } else {
                ((seed % 200) as usize, 3)
            };
            let mut buf = Vec::with_capacity(len);
            for _ in 0..len {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                let pick = ((seed >> 59) as u8) | if (seed >> 20) % 8 < rare { 8 } else { 0 };
                buf.push(match pick {
                    0 => b'"',
                    1 => b'\\',
                    2 => 0x1f,
                    3 => 0x80 | (seed >> 40) as u8,
                    4 => 0x20,
                    5 => 0x21,
                    6 => 0x23,
                    7 => 0x5d,
                    _ => b'0' + pick,
                });
            }
            let start = (seed as usize >> 7) % (len + 1);
            assert_eq!(
                find_special(&buf, start),
                naive(&buf, start),
                "{buf:?} from {start}"
            );
        }
    }

    /// A predicted length gives the scan's answer whether it is right (run of exactly `N`
    /// plain bytes, then a quote), off by a little, or wrong in kind (the byte at `N` is a
    /// backslash or a control byte, or a special byte sits inside the run), including runs
    /// that end too near the frame's end for the check's 16-byte loads, and runs holding a
    /// space or `!` (plain bytes that the check's looser mask flags).
    #[test]
    fn find_special_guess_matches_the_scan() {
        fn check<const N: usize>(seed: &mut u64) {
            for _ in 0..3_000 {
                let mut next = || {
                    *seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    *seed >> 33
                };
                let lead = (next() % 20) as usize;
                let run = (N + (next() % 5) as usize).saturating_sub(2);
                let mut buf: Vec<u8> = (0..lead + run).map(|i| b'0' + (i % 10) as u8).collect();
                buf.push([b'"', b'"', b'\\', 0x1f][(next() % 4) as usize]);
                if next() % 4 == 0 {
                    let at = (next() as usize) % buf.len();
                    buf[at] = b'"';
                }
                if next() % 4 == 0 {
                    let at = (next() as usize) % buf.len();
                    buf[at] = [b' ', b'!'][(next() % 2) as usize];
                }
                let tail = (next() % 24) as usize;
                buf.extend((0..tail).map(|i| if i % 7 == 3 { b'"' } else { b'x' }));
                let scan = find_special(&buf, lead);
                assert_eq!(
                    find_special_guess::<N>(&buf, lead),
                    scan,
                    "N={N} {buf:?} from {lead}"
                );
                // A right guess is taken (not left to the scan), when 16 bytes are there and
                // the run has no space or `!`.
                #[cfg(polyclob_simd)]
                if scan == lead + N
                    && buf.len() >= lead + (N + 1).max(16)
                    && !buf[lead..scan].iter().any(|c| matches!(c, b' ' | b'!'))
                {
                    assert_eq!(
                        crate::decode::x86::special_at::<N>(&buf, lead),
                        Some(true),
                        "N={N} {buf:?} from {lead}"
                    );
                }
            }
        }
        let mut seed = 5u64;
        check::<1>(&mut seed);
        check::<13>(&mut seed);
        check::<15>(&mut seed);
        check::<16>(&mut seed);
        check::<40>(&mut seed);
        check::<66>(&mut seed);
        check::<77>(&mut seed);
    }

    /// `digits_u64` gives `str::parse::<u64>` of the digits (lengths 0–21, a stray non-digit
    /// anywhere, values past `u64::MAX`), in the middle of a frame and at its very end.
    #[test]
    fn digits_u64_matches_parse() {
        let mut seed = 11u64;
        for _ in 0..60_000 {
            let mut next = || {
                seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                seed >> 33
            };
            let len = (next() % 22) as usize;
            let mut text: Vec<u8> = (0..len).map(|_| b'0' + (next() % 10) as u8).collect();
            if len > 0 && next() % 3 == 0 {
                let at = (next() as usize) % len;
                text[at] = [b'"', b'.', b'/', b':', b'a', b' '][(next() % 6) as usize];
            }
            let lead = (next() % 5) as usize;
            let tail = if next() % 2 == 0 { 0 } else { 9 };
            let mut frame = vec![b'"'; lead];
            frame.extend_from_slice(&text);
            frame.extend(std::iter::repeat_n(b'7', tail));
            let expected = core::str::from_utf8(&text)
                .ok()
                .filter(|t| t.bytes().all(|c| c.is_ascii_digit()))
                .and_then(|t| t.parse::<u64>().ok());
            assert_eq!(
                digits_u64(&frame, lead, len),
                expected,
                "{:?}",
                core::str::from_utf8(&frame)
            );
        }
    }

    #[test]
    fn skip_ws_matches_a_byte_loop() {
        let naive = |b: &[u8], i: usize| {
            (i..b.len())
                .find(|&j| !matches!(b[j], b' ' | b'\t' | b'\n' | b'\r'))
                .unwrap_or(b.len())
        };
        let mut seed = 7u64;
        for _ in 0..40_000 {
            seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let len = (seed >> 33) as usize % 120;
            // Mostly whitespace (indentation runs), sometimes a token or a control byte.
            let buf: Vec<u8> = (0..len)
                .map(|_| {
                    seed = seed.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                    match (seed >> 56) as u8 {
                        0..=159 => b' ',
                        160..=189 => b'\n',
                        190..=209 => b'\t',
                        210..=229 => b'\r',
                        230..=239 => 0x0b,
                        240..=247 => b'"',
                        _ => (seed >> 40) as u8,
                    }
                })
                .collect();
            let start = (seed as usize >> 7) % (len + 1);
            assert_eq!(
                skip_ws(&buf, start),
                naive(&buf, start),
                "{buf:?} from {start}"
            );
            let mut c = Cursor::new(core::str::from_utf8(&buf).unwrap_or(""), start);
            if c.src.len() == len {
                let at = naive(&buf, start);
                assert_eq!((c.peek(), c.pos), (buf.get(at).copied(), at));
            }
        }
    }

    #[test]
    fn scan_decimal_agrees_with_the_fixed_parsers() {
        use crate::fixed::parse_micros;
        let mut seed = 3u64;
        let alphabet = b"0123456789.....-e+x ";
        for n in 0..200_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 60) as usize + (n % 3);
            let mut buf = Vec::new();
            let mut s2 = seed;
            for _ in 0..len {
                s2 = s2.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(7);
                let pick = (s2 >> 58) as usize % alphabet.len();
                // Mostly digits, so that long valid numbers are common.
                buf.push(if s2 & 3 == 0 {
                    alphabet[pick]
                } else {
                    b'0' + (pick % 10) as u8
                });
            }
            let full = match scan_decimal(&buf, 0) {
                Some((v, end)) if end == buf.len() => Some(v),
                _ => None,
            };
            if let Some(v) = full {
                assert_eq!(
                    parse_micros(&buf),
                    Ok(v),
                    "{:?}",
                    String::from_utf8_lossy(&buf)
                );
            }
        }
        for t in [
            "0.48",
            ".48",
            "1.",
            "0",
            "219.217767",
            "1.0000000",
            "0012.5",
            "9999999999999.999999",
        ] {
            assert_eq!(
                scan_decimal(t.as_bytes(), 0).map(|r| r.0),
                parse_micros(t.as_bytes()).ok(),
                "{t}"
            );
        }
        for t in ["", ".", "1.0000001", "99999999999999", "-1"] {
            assert!(
                matches!(scan_decimal(t.as_bytes(), 0), None | Some((_, 0))),
                "{t}"
            );
        }
    }

    #[test]
    fn span_decimal_agrees_with_the_byte_loop() {
        let mut seed = 5u64;
        let alphabet = b"0123456789.-e\\\" ";
        for n in 0..300_000 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let len = (seed >> 59) as usize % 16;
            let mut buf = b"xx".to_vec();
            let mut s2 = seed;
            for _ in 0..len {
                s2 = s2.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(7);
                let pick = (s2 >> 58) as usize % alphabet.len();
                buf.push(if s2 & 3 == 0 {
                    alphabet[pick]
                } else {
                    b'0' + (pick % 10) as u8
                });
            }
            let e = buf.len();
            buf.extend_from_slice(if n % 2 == 0 { b"\",\"size\":1" } else { b"7" });
            let want = match scan_decimal(&buf[..e], 2) {
                Some((v, end)) if end == e => Some(v),
                _ => None,
            };
            assert_eq!(
                span_decimal(&buf, 2, e),
                want,
                "{:?}",
                String::from_utf8_lossy(&buf)
            );
        }
    }

    /// The price path equals `word_decimal` on every length, on words that start with `0.`
    /// (its own path) and on others, with digits, points and other bytes after.
    #[test]
    fn price_word_decimal_agrees_with_word_decimal() {
        let mut seed = 9u64;
        let alphabet = b"0123456789.\"x ";
        for n in 0..400_000u32 {
            seed = seed
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            let mut bytes = [0u8; 8];
            let mut s2 = seed;
            for byte in &mut bytes {
                s2 = s2.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(7);
                let pick = (s2 >> 58) as usize % alphabet.len();
                *byte = if s2 & 7 == 0 {
                    alphabet[pick]
                } else {
                    b'0' + (pick % 10) as u8
                };
            }
            if n % 4 != 0 {
                bytes[..2].copy_from_slice(b"0.");
            }
            let w = u64::from_le_bytes(bytes);
            let len = (seed >> 60) as usize % 9;
            assert_eq!(
                price_word_decimal(w, len),
                word_decimal(w, len),
                "{:?} {len}",
                String::from_utf8_lossy(&bytes)
            );
        }
    }

    #[test]
    fn unescape_table() {
        let cases: [(&str, Option<&str>); 7] = [
            (r"a\nb", Some("a\nb")),
            (r"\ud83d\ude00", Some("😀")),
            (r"\u00E9", Some("é")),
            (r"\ud83d", None),
            (r"\x", None),
            (r"\u12", None),
            (r#"q\"\\\/"#, Some("q\"\\/")),
        ];
        for (raw, want) in cases {
            let got = JsonStr::from_raw(raw).to_unescaped().ok();
            assert_eq!(got.as_deref(), want, "{raw}");
        }
    }
}
