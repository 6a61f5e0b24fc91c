//! The byte scanner every JSON reader of the crate shares (the WebSocket decoder, RTDS, the
//! REST page readers, the book hash): its errors, borrowed JSON strings ([`JsonStr`]), the
//! captured scalar ([`Raw`]) and the [`Cursor`] that walks a text without building a tree,
//! with the one checked value skipper ([`Cursor::skip`]).
//!
//! The cursor never allocates. Strings are returned as slices of the text together with a
//! flag saying whether they contain escapes; only [`JsonStr::to_unescaped`] ever copies.
//! Strings are found by the shared scan ([`find_special`]).
//!
//! **The number contract**, one for every reader on this scanner: a number is accepted when it
//! matches JSON's grammar (RFC 8259 §6: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`),
//! whatever its magnitude. A reader that converts a number checks its range then, into its own
//! type, with a typed error; a number that is only skipped is never converted. This is
//! serde_json's view for values it does not convert (`IgnoredAny`, `RawValue`); its
//! `Value` also refuses numbers outside the `f64` range, which the grammar does not. Strings
//! likewise: every escape must be one JSON defines (`\u` with four hex digits), and surrogate
//! pairs are checked only where text is unescaped ([`JsonStr::to_unescaped`]).

use core::fmt;
use std::borrow::Cow;

use super::simd::{LO, find_special, find_special_guess, word8};
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
        let base = self.offset as usize;
        self.unescape_with(|piece| match piece {
            Ok(text) => {
                out.push_str(text);
                Ok(())
            }
            Err(at) => Err(DecodeError::new(DecodeErrorKind::BadEscape, "", base + at)),
        })
    }

    /// The one unescaper: hands `put` the decoded text in order, as runs of plain text and
    /// unescaped characters (`Ok`), and an invalid escape as `Err(offset of its backslash)`;
    /// the walk stops at the first error `put` returns.
    fn unescape_with<E>(
        &self,
        mut put: impl FnMut(Result<&str, usize>) -> Result<(), E>,
    ) -> Result<(), E> {
        let s = self.raw;
        let b = s.as_bytes();
        let (mut run, mut buf) = (0, [0; 4]);
        while let Some(i) = (run..b.len()).find(|&i| b[i] == b'\\') {
            // `run..i` ends before an ASCII backslash, and every escape's end is after an
            // ASCII byte: all char boundaries.
            put(Ok(s.get(run..i).unwrap_or_default()))?;
            let (c, next) = escape_at(b, i);
            put(c.map(|c| &*c.encode_utf8(&mut buf)).ok_or(i))?;
            run = next;
        }
        put(Ok(s.get(run..).unwrap_or_default()))
    }
}

/// Writes the unescaped text without allocating. An invalid escape (a lone surrogate, or
/// anything in text given to [`JsonStr::from_raw`]) is written as U+FFFD, as
/// `String::from_utf8_lossy` writes invalid bytes.
///
/// ```
/// use polyclob::decode::JsonStr;
/// assert_eq!(JsonStr::from_raw(r#"say \"hi\" \ud83d\ude00"#).to_string(), "say \"hi\" 😀");
/// assert_eq!(JsonStr::from_raw(r"a\ud83db").to_string(), "a\u{fffd}b");
/// ```
impl fmt::Display for JsonStr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.unescape_with(|piece| f.write_str(piece.unwrap_or("\u{fffd}")))
    }
}

/// The escape whose backslash is at `b[i]`: its character (`None` when it is invalid: an
/// unknown escape, bad hex, a lone surrogate) and the index after the bytes it took.
fn escape_at(b: &[u8], i: usize) -> (Option<char>, usize) {
    let c = match b.get(i + 1) {
        Some(b'"') => '"',
        Some(b'\\') => '\\',
        Some(b'/') => '/',
        Some(b'b') => '\u{8}',
        Some(b'f') => '\u{c}',
        Some(b'n') => '\n',
        Some(b'r') => '\r',
        Some(b't') => '\t',
        Some(b'u') => {
            let Some(hi) = hex4(b, i + 2) else {
                return (None, i + 1);
            };
            let lo = b
                .get(i + 6..i + 8)
                .is_some_and(|t| t == b"\\u")
                .then(|| hex4(b, i + 8));
            return match (hi, lo.flatten()) {
                (0xD800..0xDC00, Some(lo @ 0xDC00..0xE000)) => {
                    let code = 0x10000 + ((hi - 0xD800) << 10) + (lo - 0xDC00);
                    (char::from_u32(code), i + 12)
                }
                // A surrogate alone is no character: `from_u32` says `None`.
                _ => (char::from_u32(hi), i + 6),
            };
        }
        _ => return (None, i + 1),
    };
    (Some(c), i + 2)
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

/// Four hex digits.
fn is_hex4(h: &[u8]) -> bool {
    h.iter().all(u8::is_ascii_hexdigit)
}

fn hex4(b: &[u8], at: usize) -> Option<u32> {
    let digits = b.get(at..at + 4).filter(|h| is_hex4(h))?;
    u32::from_str_radix(core::str::from_utf8(digits).ok()?, 16).ok()
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
/// `decode` rejects frames of 4 GiB or more.
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

/// The lengths production frames have (every one in the real captures, bar a few test
/// values): `0x` and 64 hex digits for a market, a 77-digit token id, a 40-byte book hash and
/// a 13-digit millisecond timestamp. Predictions only: other lengths read the same, a little
/// slower.
pub(crate) const MARKET_LEN: usize = 66;
pub(crate) const ID_LEN: usize = 77;
pub(crate) const HASH_LEN: usize = 40;
pub(crate) const TIMESTAMP_LEN: usize = 13;

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
                    // An escape as JSON's grammar has it (a lone surrogate is the unescaper's
                    // business); its bytes are never a closing quote.
                    let n = match b.get(i + 1) {
                        Some(b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't') => 2,
                        Some(b'u') if b.get(i + 2..i + 6).is_some_and(is_hex4) => 6,
                        Some(_) => return Err(err(DecodeErrorKind::Syntax, "", i)),
                        None => return Err(err(DecodeErrorKind::Eof, "", b.len())),
                    };
                    i = find_special(b, i + n);
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

    /// A number as JSON's grammar has it (see the module docs: any magnitude).
    fn number(&mut self) -> Result<(), DecodeError> {
        let b = self.bytes();
        let digits = |mut i: usize| {
            let from = i;
            while b.get(i).is_some_and(u8::is_ascii_digit) {
                i += 1;
            }
            (i > from).then_some(i)
        };
        let bad = |i| Err(err(DecodeErrorKind::Syntax, "", i));
        let mut i = self.pos + usize::from(b.get(self.pos) == Some(&b'-'));
        i = match b.get(i) {
            Some(b'0') => i + 1,
            Some(b'1'..=b'9') => digits(i).unwrap_or(i),
            _ => return bad(i),
        };
        if b.get(i) == Some(&b'.') {
            let Some(j) = digits(i + 1) else {
                return bad(i + 1);
            };
            i = j;
        }
        if matches!(b.get(i), Some(b'e' | b'E')) {
            i += 1 + usize::from(matches!(b.get(i + 1), Some(b'+' | b'-')));
            let Some(j) = digits(i) else { return bad(i) };
            i = j;
        }
        self.pos = i;
        Ok(())
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

    /// The skipper takes exactly what JSON's grammar takes (the number contract in the module
    /// docs), the same as serde_json's `IgnoredAny`, on numbers and escapes spelled at random.
    #[test]
    fn skip_follows_json_grammar() {
        let parts = [
            "-", "0", "1", "9", ".", "e", "E", "+", "x", "\\u12a4", "\\uZZ", "\\q", "\\n", "\"",
            "a",
        ];
        let mut next = crate::testutil::lcg(8);
        let mut both = 0;
        for _ in 0..50_000 {
            let body: String = (0..1 + next(6))
                .map(|_| parts[next(parts.len() as u64) as usize])
                .collect();
            for text in [format!("[{body}]"), format!("[\"{body}\"]")] {
                let mut c = Cursor::new(&text, 0);
                let whole = c.skip(0).is_ok() && c.peek().is_none();
                let serde = serde_json::from_str::<serde::de::IgnoredAny>(&text).is_ok();
                assert_eq!(whole, serde, "{text}");
                both += usize::from(serde);
            }
        }
        assert!(both > 5_000, "{both}");
        // Any magnitude: the grammar has no range.
        assert!(Cursor::new("[33333E3333,-1e-400]", 0).skip(0).is_ok());
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

    /// `Display` writes what `to_unescaped` returns, and U+FFFD for each invalid escape (the
    /// rest of the text kept): named escapes, `\u` in both cases, surrogate pairs, lone or
    /// reversed surrogates, short hex, multi-byte text around them.
    #[test]
    fn display_writes_the_unescaped_text() {
        let parts = [
            "a",
            "é",
            "€",
            r"\n",
            r"\t",
            r#"\""#,
            r"\\",
            r"\/",
            r"\u00e9",
            r"\u00E9",
            r"\ud83d",
            r"\ude00",
            r"\ud83d\ude00",
            r"\u12",
            r"\x",
            "\\",
            r"\u0000",
        ];
        let mut next = crate::testutil::lcg(36);
        for _ in 0..20_000 {
            let raw: String = (0..next(8))
                .map(|_| parts[next(parts.len() as u64) as usize])
                .collect();
            let s = JsonStr::from_raw(&raw);
            let shown = s.to_string();
            match s.to_unescaped() {
                Ok(text) => assert_eq!(shown, text, "{raw}"),
                Err(e) => {
                    assert!(shown.contains('\u{fffd}'), "{raw} -> {shown}");
                    assert_eq!(raw.as_bytes()[e.offset()], b'\\', "{raw}");
                }
            }
        }
        let cases = [
            (r"\ud83d\ude00!", "😀!"),
            (r"\uD83D\uDE00", "😀"),
            (r"x\ude00\ud83dy", "x\u{fffd}\u{fffd}y"),
            (r"\ud83d\u0041", "\u{fffd}A"),
            (r"\u12", "\u{fffd}u12"),
            (r"é\", "é\u{fffd}"),
            ("plain", "plain"),
        ];
        for (raw, want) in cases {
            assert_eq!(JsonStr::from_raw(raw).to_string(), want, "{raw}");
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
