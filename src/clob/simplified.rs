//! A direct reader for `/simplified-markets` pages: one pass over the body with the shared JSON
//! scanner (`crate::json::Cursor`) instead of serde's visitor machinery. It accepts what a page
//! reader accepts (`super::pagination`: an object whose `data` is an array of objects; numbers
//! by JSON's grammar).
//!
//! Keys are matched by name, so any order and any added member (skipped, checked) read the
//! same; the common value shapes (strings, JSON numbers with at most six decimals, `true`,
//! `false`, `null`) are read in place, and every other shape of a known field (a price as
//! `"0.52"`, a flag as `"true"`, `1e-2`) is handed to the same lenient serde function the
//! derived decoder uses, on that value's bytes alone. Only what the general decoder would
//! reject or report (a row that does not decode, a duplicate key, bad JSON, nesting deeper than
//! the scanner's limit) stops the reader; [`decode_page`] then reads the page and decides.

use std::borrow::Cow;

use super::types::{RewardRate, Rewards, SimplifiedMarket, Token};
use crate::decode::DecodeError;
use crate::fixed::{Price, Size};
use crate::http::Error;
use crate::http::lenient;
use crate::http::{Page, decode_page};
use crate::json::simd::{chunk, word8};
use crate::json::{Cursor, ID_LEN, JsonStr, MARKET_LEN};

/// The containers open around the deepest value the reader visits (page, rows, market,
/// rewards, rates, rate), passed to the shared skipper for every skipped value: a skipped
/// member nested past the scanner's limit stops the reader before serde's limit would.
const DEPTH: u32 = 6;

/// The reader stopped; the general decoder takes the page.
struct Bail;

impl From<DecodeError> for Bail {
    #[inline]
    fn from(_: DecodeError) -> Self {
        Self
    }
}

type R<T> = Result<T, Bail>;

/// Decodes one `/simplified-markets` (or `/sampling-simplified-markets`) page, borrowing from
/// `body`: the result of [`decode_page`]`::<SimplifiedMarket<'_>>`, several times faster.
///
/// ```
/// use polyclob::clob::decode_simplified_page;
///
/// let body = br#"{"data":[{"condition_id":"0x1","rewards":{"rates":null,"min_size":0,"max_spread":0},
///   "tokens":[{"token_id":"1","outcome":"Yes","price":0.52,"winner":false}],"active":true,
///   "closed":false,"archived":false,"accepting_orders":true}],"next_cursor":"LTE=","limit":1,"count":1}"#;
/// let page = decode_simplified_page(body).unwrap();
/// assert_eq!(page.data[0].tokens[0].price.map(|p| p.as_micros()), Some(520_000));
/// assert!(page.is_last());
/// ```
///
/// # Errors
///
/// When `body` is not JSON or not a page object.
pub fn decode_simplified_page(body: &[u8]) -> Result<Page<SimplifiedMarket<'_>>, Error> {
    if let Ok(src) = core::str::from_utf8(body)
        && let Ok(page) = page(&mut Cursor::new(src, 0))
    {
        return Ok(page);
    }
    decode_page(body)
}

fn page<'a>(c: &mut Cursor<'a>) -> R<Page<SimplifiedMarket<'a>>> {
    const NAMES: [&[u8]; 4] = [
        b"\"data\":",
        b"\"next_cursor\":",
        b"\"limit\":",
        b"\"count\":",
    ];
    c.eat(b'{')?;
    let mut data = None;
    let mut next_cursor = None;
    let (mut limit, mut count) = (None, None);
    let mut guess = 0;
    if !c.close_if(b'}') {
        loop {
            let f = field(c, &NAMES, guess)?;
            match f {
                0 => once(&mut data, rows(c)?)?,
                1 => once(&mut next_cursor, text::<0>(c)?)?,
                2 => once(&mut limit, uint(c)?)?,
                3 => once(&mut count, uint(c)?)?,
                _ => c.skip(DEPTH)?,
            }
            if f != OTHER {
                guess = f + 1;
            }
            if !c.next_or_close(b'}')? {
                break;
            }
        }
    }
    // Only whitespace may follow the page.
    if c.peek().is_some() {
        return Err(Bail);
    }
    Ok(Page {
        data: data.unwrap_or_default(),
        next_cursor: next_cursor.unwrap_or_default().into_owned(),
        limit: limit.unwrap_or(0),
        count: count.unwrap_or(0),
        skipped: Vec::new(),
    })
}

/// Stores a field's value, or stops on a key seen twice (serde's "duplicate field").
#[inline(always)]
fn once<T>(slot: &mut Option<T>, v: T) -> R<()> {
    if slot.is_some() {
        return Err(Bail);
    }
    *slot = Some(v);
    Ok(())
}

/// [`field`]'s answer for a key the reader does not know (up to eight names a struct).
const OTHER: usize = 8;

/// Which of `names` the member at the cursor is — its index, or [`OTHER`] for any other key —
/// with the cursor left at the value. `guess` (the member the exchange sends next) is tried
/// first as one compare of the compact `"name":`; otherwise the key is read and looked up, so
/// any order reads the same. After an [`OTHER`] callers keep their guess, so a member the
/// exchange adds costs its own read only.
#[inline(always)]
fn field(c: &mut Cursor<'_>, names: &[&[u8]], guess: usize) -> R<usize> {
    if let Some(pat) = names.get(guess)
        && at(c.src.as_bytes(), c.pos, pat)
    {
        c.pos += pat.len();
        return Ok(guess);
    }
    let k = c.key()?;
    // `names` are spelled `"name":`.
    match names.iter().position(|n| n.get(1..n.len() - 2) == Some(k)) {
        Some(i) => Ok(i),
        // An escaped key may spell a known name; serde would compare it unescaped.
        None if k.contains(&b'\\') => Err(Bail),
        None => Ok(OTHER),
    }
}

/// Whether `b[p..]` starts with `pat`: a few word compares, no call.
#[inline(always)]
fn at(b: &[u8], p: usize, pat: &[u8]) -> bool {
    let l = pat.len();
    let Some(m) = b.get(p..p + l) else {
        return false;
    };
    if l < 4 {
        return m == pat;
    }
    if l < 8 {
        return chunk::<4>(m, 0) == chunk::<4>(pat, 0)
            && chunk::<4>(m, l - 4) == chunk::<4>(pat, l - 4);
    }
    let mut i = 0;
    while i + 8 < l {
        if word8(m, i) != word8(pat, i) {
            return false;
        }
        i += 8;
    }
    word8(m, l - 8) == word8(pat, l - 8)
}

fn rows<'a>(c: &mut Cursor<'a>) -> R<Vec<SimplifiedMarket<'a>>> {
    c.eat(b'[')?;
    let mut out = Vec::new();
    if c.close_if(b']') {
        return Ok(out);
    }
    loop {
        out.push(market(c)?);
        if !c.next_or_close(b']')? {
            return Ok(out);
        }
    }
}

fn market<'a>(c: &mut Cursor<'a>) -> R<SimplifiedMarket<'a>> {
    // The exchange's order.
    const NAMES: [&[u8]; 7] = [
        b"\"condition_id\":",
        b"\"rewards\":",
        b"\"tokens\":",
        b"\"active\":",
        b"\"closed\":",
        b"\"archived\":",
        b"\"accepting_orders\":",
    ];
    c.eat(b'{')?;
    let mut m = SimplifiedMarket::default();
    let mut seen = 0u8;
    let mut guess = 0;
    if c.close_if(b'}') {
        return Ok(m);
    }
    loop {
        let f = field(c, &NAMES, guess)?;
        match f {
            0 => m.condition_id = text::<MARKET_LEN>(c)?,
            1 => m.rewards = rewards(c)?,
            2 => m.tokens = tokens(c)?,
            3 => m.active = flag(c)?,
            4 => m.closed = flag(c)?,
            5 => m.archived = flag(c)?,
            6 => m.accepting_orders = flag(c)?,
            _ => c.skip(DEPTH)?,
        }
        mark(&mut seen, f)?;
        if f != OTHER {
            guess = f + 1;
        }
        if !c.next_or_close(b'}')? {
            return Ok(m);
        }
    }
}

/// Records that field `f` was read, or stops on a second one (serde's "duplicate field");
/// other keys ([`OTHER`]) may repeat.
#[inline(always)]
fn mark(seen: &mut u8, f: usize) -> R<()> {
    if f >= OTHER {
        return Ok(());
    }
    let bit = 1u8 << f;
    if *seen & bit != 0 {
        return Err(Bail);
    }
    *seen |= bit;
    Ok(())
}

fn tokens<'a>(c: &mut Cursor<'a>) -> R<Vec<Token<'a>>> {
    // `null` or any other non-array is an error for serde's `Vec`: the general decoder says so.
    c.eat(b'[')?;
    let mut out = Vec::with_capacity(2);
    if c.close_if(b']') {
        return Ok(out);
    }
    loop {
        out.push(token(c)?);
        if !c.next_or_close(b']')? {
            return Ok(out);
        }
    }
}

fn token<'a>(c: &mut Cursor<'a>) -> R<Token<'a>> {
    const NAMES: [&[u8]; 4] = [
        b"\"token_id\":",
        b"\"outcome\":",
        b"\"price\":",
        b"\"winner\":",
    ];
    c.eat(b'{')?;
    let mut t = Token {
        token_id: Cow::Borrowed(""),
        outcome: Cow::Borrowed(""),
        price: None,
        winner: false,
    };
    let mut seen = 0u8;
    let mut guess = 0;
    if c.close_if(b'}') {
        return Ok(t);
    }
    loop {
        let f = field(c, &NAMES, guess)?;
        match f {
            0 => t.token_id = text::<ID_LEN>(c)?,
            1 => t.outcome = text::<0>(c)?,
            2 => t.price = price_opt(c)?,
            3 => t.winner = flag(c)?,
            _ => c.skip(DEPTH)?,
        }
        mark(&mut seen, f)?;
        if f != OTHER {
            guess = f + 1;
        }
        if !c.next_or_close(b'}')? {
            return Ok(t);
        }
    }
}

fn rewards<'a>(c: &mut Cursor<'a>) -> R<Option<Rewards<'a>>> {
    const NAMES: [&[u8]; 3] = [b"\"rates\":", b"\"min_size\":", b"\"max_spread\":"];
    if null(c) {
        return Ok(None);
    }
    c.eat(b'{')?;
    let mut r = Rewards::default();
    let mut seen = 0u8;
    let mut guess = 0;
    if c.close_if(b'}') {
        return Ok(Some(r));
    }
    loop {
        let f = field(c, &NAMES, guess)?;
        match f {
            0 => r.rates = rates(c)?,
            1 => r.min_size = size(c)?,
            2 => r.max_spread = size(c)?,
            _ => c.skip(DEPTH)?,
        }
        mark(&mut seen, f)?;
        if f != OTHER {
            guess = f + 1;
        }
        if !c.next_or_close(b'}')? {
            return Ok(Some(r));
        }
    }
}

fn rates<'a>(c: &mut Cursor<'a>) -> R<Vec<RewardRate<'a>>> {
    if null(c) {
        return Ok(Vec::new());
    }
    c.eat(b'[')?;
    let mut out = Vec::new();
    if c.close_if(b']') {
        return Ok(out);
    }
    loop {
        out.push(rate(c)?);
        if !c.next_or_close(b']')? {
            return Ok(out);
        }
    }
}

fn rate<'a>(c: &mut Cursor<'a>) -> R<RewardRate<'a>> {
    const NAMES: [&[u8]; 2] = [b"\"asset_address\":", b"\"rewards_daily_rate\":"];
    c.eat(b'{')?;
    let mut r = RewardRate {
        asset_address: Cow::Borrowed(""),
        rewards_daily_rate: Size::ZERO,
    };
    let mut seen = 0u8;
    let mut guess = 0;
    if c.close_if(b'}') {
        return Ok(r);
    }
    loop {
        let f = field(c, &NAMES, guess)?;
        match f {
            0 => r.asset_address = text::<42>(c)?,
            1 => r.rewards_daily_rate = size(c)?,
            _ => c.skip(DEPTH)?,
        }
        mark(&mut seen, f)?;
        if f != OTHER {
            guess = f + 1;
        }
        if !c.next_or_close(b'}')? {
            return Ok(r);
        }
    }
}

/// Consumes `null` if it is next.
#[inline(always)]
fn null(c: &mut Cursor<'_>) -> bool {
    literal(c, b"null")
}

#[inline(always)]
fn literal(c: &mut Cursor<'_>, word: &[u8]) -> bool {
    if c.peek().is_some() && c.src.as_bytes().get(c.pos..c.pos + word.len()) == Some(word) {
        c.pos += word.len();
        true
    } else {
        false
    }
}

/// Text: a string in place (`N`: its predicted length, `0` for none), anything else as
/// `lenient::text` reads it.
#[inline(always)]
fn text<'a, const N: usize>(c: &mut Cursor<'a>) -> R<Cow<'a, str>> {
    if c.peek() == Some(b'"') {
        let (raw, escaped, at) = c.string_guess::<N>()?;
        if !escaped {
            return Ok(Cow::Borrowed(raw));
        }
        return Ok(JsonStr::new(raw, true, at).to_unescaped()?);
    }
    via_serde(c, |d| lenient::text(d))
}

/// A flag: `true`/`false` in place, anything else as `lenient::bool_lenient` reads it.
#[inline(always)]
fn flag(c: &mut Cursor<'_>) -> R<bool> {
    if literal(c, b"true") {
        return Ok(true);
    }
    if literal(c, b"false") {
        return Ok(false);
    }
    via_serde(c, |d| lenient::bool_lenient(d))
}

/// `limit`/`count`: a plain integer in place, anything else as `lenient::u64_lenient`.
fn uint(c: &mut Cursor<'_>) -> R<u64> {
    if let Some(m) = plain_decimal(c, 0) {
        return Ok(m);
    }
    via_serde(c, |d| lenient::u64_lenient(d))
}

#[inline(always)]
fn price_opt(c: &mut Cursor<'_>) -> R<Option<Price>> {
    if let Some(m) = plain_decimal(c, 6) {
        return u32::try_from(m)
            .ok()
            .and_then(Price::new)
            .map(Some)
            .ok_or(Bail);
    }
    via_serde(c, |d| lenient::price_opt(d))
}

#[inline(always)]
fn size(c: &mut Cursor<'_>) -> R<Size> {
    if let Some(m) = plain_decimal(c, 6) {
        return Ok(Size::from_micros(m));
    }
    via_serde(c, |d| lenient::size(d))
}

/// A JSON number spelled `int[.frac]` — `int` of 1 to 9 digits without a leading zero (bar `0`
/// itself), `frac` of 1 to `places` digits — read in place, in units of 10^-`places`, the
/// cursor moved past it. Any other spelling (a sign, an exponent, more digits) leaves the
/// cursor where it was and returns `None`.
///
/// The lenient serde readers read such a number as the nearest `f64` and then take the
/// decimal it is nearest to (below 9·10⁹ with at most six decimals the two are the same), so
/// the result agrees with theirs.
#[inline(always)]
fn plain_decimal(c: &mut Cursor<'_>, places: usize) -> Option<u64> {
    c.peek();
    let b = c.src.as_bytes();
    let start = c.pos;
    let mut i = start;
    let mut v = 0u64;
    while let Some(&d) = b.get(i) {
        let d = d.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        v = v * 10 + u64::from(d);
        i += 1;
        if i - start > 9 {
            return None;
        }
    }
    let int = i - start;
    if int == 0 || (int > 1 && b[start] == b'0') {
        return None;
    }
    let mut scale = 1u64;
    for _ in 0..places {
        scale *= 10;
    }
    let mut micros = v * scale;
    if places > 0 && b.get(i) == Some(&b'.') {
        i += 1;
        let frac = i;
        let mut unit = scale;
        while let Some(&d) = b.get(i) {
            let d = d.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            if i - frac == places {
                return None;
            }
            unit /= 10;
            micros += u64::from(d) * unit;
            i += 1;
        }
        if i == frac {
            return None;
        }
    }
    if matches!(b.get(i), Some(b'0'..=b'9' | b'.' | b'e' | b'E')) {
        return None;
    }
    c.pos = i;
    Some(micros)
}

/// Reads the value at the cursor with one of the derived decoder's lenient field readers, on
/// that value's bytes alone (so every shape reads exactly as it does there).
#[cold]
#[inline(never)]
fn via_serde<'a, T>(
    c: &mut Cursor<'a>,
    f: impl FnOnce(&mut serde_json::Deserializer<serde_json::de::StrRead<'a>>) -> serde_json::Result<T>,
) -> R<T> {
    c.peek();
    let start = c.pos;
    c.skip(DEPTH)?;
    let span = c.src.get(start..c.pos).ok_or(Bail)?;
    let mut de = serde_json::Deserializer::from_str(span);
    let v = f(&mut de).map_err(|_| Bail)?;
    de.end().map_err(|_| Bail)?;
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The general decoder's answer for the same bytes.
    fn general(body: &[u8]) -> Result<Page<SimplifiedMarket<'_>>, Error> {
        decode_page::<SimplifiedMarket<'_>>(body)
    }

    fn direct(body: &[u8]) -> Option<Page<SimplifiedMarket<'_>>> {
        let src = core::str::from_utf8(body).ok()?;
        page(&mut Cursor::new(src, 0)).ok()
    }

    const ROW: &str = r#"{"condition_id":"0xabc","rewards":{"rates":[{"asset_address":"0x2791","rewards_daily_rate":25}],"min_size":50,"max_spread":3.5},"tokens":[{"token_id":"123","outcome":"Yes","price":0.52,"winner":false},{"token_id":"456","outcome":"No","price":0.48,"winner":true}],"active":true,"closed":false,"archived":false,"accepting_orders":true}"#;

    fn body(rows: &[&str]) -> String {
        format!(
            r#"{{"data":[{}],"next_cursor":"LTE=","limit":{n},"count":{n}}}"#,
            rows.join(","),
            n = rows.len()
        )
    }

    /// Both readers give the same page, and the direct one read it without handing over.
    #[track_caller]
    fn agree(b: &str) {
        let want = general(b.as_bytes()).unwrap();
        assert!(want.skipped.is_empty(), "{b}");
        let got = direct(b.as_bytes()).unwrap_or_else(|| panic!("handed over: {b}"));
        assert_eq!(got, want, "{b}");
        assert_eq!(decode_simplified_page(b.as_bytes()).unwrap(), want);
    }

    #[test]
    fn exchange_layout_agrees_with_serde() {
        agree(&body(&[ROW, ROW]));
        agree(&body(&[]));
        agree(r#"{"data":[]}"#);
        agree("{}");
        agree(" { \"data\" : [ {  } ] , \"count\" : 1 } \n");
        // Pretty-printed, keys sorted (another order at every level).
        let v: serde_json::Value = serde_json::from_str(&body(&[ROW, ROW])).unwrap();
        agree(&serde_json::to_string_pretty(&v).unwrap());
    }

    #[test]
    fn other_orders_extra_members_and_shapes_agree_with_serde() {
        // Reordered keys at every level.
        agree(&body(&[
            r#"{"accepting_orders":false,"tokens":[{"winner":true,"price":1,"outcome":"No","token_id":"9"}],"rewards":{"max_spread":0,"min_size":"12.5","rates":null},"condition_id":"0x1","archived":true,"closed":true,"active":false}"#,
        ]));
        // New members of every JSON type, at every level, the page's too.
        agree(&format!(
            r#"{{"extra":{{"a":[1,-2.5e3,true,null,"x\"y"]}},"data":[{}],"next_cursor":"MA==","limit":"500","count":1,"more":[]}}"#,
            ROW.replace(
                r#""active":true"#,
                r#""new_market":{"tags":["a","b\u00e9"]},"active":true,"rank":-0.25e-3,"slug":null"#
            )
            .replace(
                r#""winner":false}"#,
                r#""winner":false,"extra":[[{}]],"fee":0}"#
            )
            .replace(
                r#""rewards_daily_rate":25"#,
                r#""rewards_daily_rate":25,"start":"2026""#
            )
        ));
        // The lenient shapes: numbers as strings, flags as strings and numbers, nulls, escapes,
        // exponents, integers as text, more decimals than the fast path reads.
        agree(&body(&[
            r#"{"condition_id":null,"rewards":null,"tokens":[{"token_id":12345678901234567890,"outcome":"Caf\u00e9 \"A\"","price":"0.5","winner":"TRUE"},{"token_id":"1","outcome":true,"price":null,"winner":1},{"price":""},{"price":1e-2},{"price":0.500000},{"price":0.0000001e1}],"active":"true","closed":0,"archived":null}"#,
            r#"{"rewards":{"rates":[{"asset_address":7,"rewards_daily_rate":"0.1"},{}],"min_size":12345678901,"max_spread":0.1234560}}"#,
        ]));
    }

    #[test]
    fn what_serde_rejects_is_handed_over_and_reported_the_same() {
        let bad_rows = [
            r#"{"condition_id":"0x1","tokens":null}"#,
            r#"{"condition_id":"0x1","tokens":[{"price":1.5}]}"#,
            r#"{"condition_id":"0x1","tokens":[{"price":-0.5}]}"#,
            r#"{"condition_id":"0x1","tokens":[{"price":0.1234567}]}"#,
            r#"{"condition_id":"0x1","active":[]}"#,
            r#"{"condition_id":"0x1","condition_id":"0x2"}"#,
            r#"{"condition_id":"0x1","rewards":{"rates":[1]}}"#,
            r#"{"condition_id":"0x1","rewards":7}"#,
            r#"["0x1"]"#,
            r#"{"condition_id":{"a":1}}"#,
            // serde reads the key unescaped: `condition_id`, twice.
            r#"{"condition_id":"0x1","condition\u005fid":"0x2"}"#,
        ];
        for row in bad_rows {
            let b = body(&[ROW, row, ROW]);
            assert!(direct(b.as_bytes()).is_none(), "{row}");
            let want = general(b.as_bytes()).unwrap();
            let got = decode_simplified_page(b.as_bytes()).unwrap();
            assert_eq!(got, want, "{row}");
        }
        for bad in [
            "",
            "[]",
            "{",
            r#"{"data":[{"condition_id":"0x1"}"#,
            r#"{"data":[{"condition_id":"0x1",}]}"#,
            r#"{"data":[{"x":01}]}"#,
            r#"{"data":[{"x":1.}]}"#,
            r#"{"data":[{"x":"\q"}]}"#,
            r#"{"data":[{"x":"a"}]} x"#,
            r#"{"data":[{"x":tru}]}"#,
            r#"{"data":null}"#,
            r#"{"data":[],"data":[]}"#,
            "{\"data\":[{\"x\":\"\u{1}\"}]}",
        ] {
            assert!(direct(bad.as_bytes()).is_none(), "{bad}");
            assert_eq!(
                decode_simplified_page(bad.as_bytes()).is_err(),
                general(bad.as_bytes()).is_err(),
                "{bad}"
            );
        }
        let deep = format!(
            r#"{{"data":[{{"x":{}{}}}]}}"#,
            "[".repeat(150),
            "]".repeat(150)
        );
        assert!(direct(deep.as_bytes()).is_none());
        assert_eq!(
            decode_simplified_page(deep.as_bytes()).is_err(),
            general(deep.as_bytes()).is_err()
        );
        assert!(decode_simplified_page(&[0xff, b'{', b'}']).is_err());
    }

    /// Every truncation and thousands of one- and two-byte edits of a page: never a panic, and
    /// whatever the direct reader accepts, it reads as serde does.
    #[test]
    fn truncated_and_mutated_pages_agree_with_serde() {
        let page = format!(
            r#"{{"x":[1.5e2,"\u00e9"],{}"#,
            &body(&[
                ROW,
                r#"{"condition_id":"0x2","tokens":[{"price":"0.5","winner":1}]}"#
            ])[1..]
        );
        let check = |b: &[u8]| {
            if let Some(d) = direct(b) {
                let general = general(b).map_err(|_| ());
                assert_eq!(Ok(d), general, "{}", String::from_utf8_lossy(b));
            }
        };
        for end in 0..page.len() {
            check(&page.as_bytes()[..end]);
            assert!(
                decode_simplified_page(&page.as_bytes()[..end]).is_err() || end + 1 >= page.len()
            );
        }
        const BYTES: &[u8] = b"{}[]:,\"\\ 0123456789.-+eEtrufalsn\x01\xff";
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for _ in 0..4_000 {
            let mut b = page.clone().into_bytes();
            for _ in 0..1 + next() % 2 {
                let at = (next() % b.len() as u64) as usize;
                b[at] = BYTES[(next() % BYTES.len() as u64) as usize];
            }
            check(&b);
            let _ = decode_simplified_page(&b);
        }
    }

    #[test]
    fn text_borrows_unless_escaped() {
        let b = body(&[ROW]);
        let p = direct(b.as_bytes()).unwrap();
        assert!(matches!(p.data[0].condition_id, Cow::Borrowed("0xabc")));
        assert!(matches!(p.data[0].tokens[0].token_id, Cow::Borrowed("123")));
        let b = body(&[r#"{"condition\u005fid":"0x1"}"#]);
        assert!(direct(b.as_bytes()).is_none());
        assert_eq!(
            decode_simplified_page(b.as_bytes()).unwrap().data[0].condition_id,
            "0x1"
        );
        let b = body(&[r#"{"condition_id":"0x\"1\""}"#]);
        let p = direct(b.as_bytes()).unwrap();
        assert_eq!(p.data[0].condition_id, "0x\"1\"");
    }
}
