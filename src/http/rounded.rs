//! Lenient decoders for analytics numbers (Gamma volumes, Data API averages and PnL): JSON
//! numbers or decimal strings with any number of decimals, rounded half away from zero to the
//! crate's 6 decimals. Exact exchange values (order prices, book levels) keep the strict
//! parsers in [`lenient`](super::lenient); these are for figures the servers compute.

use std::borrow::Cow;
use std::fmt;

use serde::Deserializer;
use serde::de::{self, SeqAccess, Visitor};

use super::lenient::{Scalar, scalar};
use crate::fixed::{Amount, Price, Size};

/// Most significant digits kept exactly (`u128` holds 38).
const MAX_DIGITS: usize = 38;

/// Parses a decimal (optional sign, optional fraction, optional exponent) into signed units
/// of 10⁻⁶, rounding half away from zero. `None` when the text is not a decimal or the value
/// does not fit.
pub(crate) fn parse_micros_rounded(text: &str) -> Option<i128> {
    let t = text.trim();
    let (neg, t) = match t.as_bytes().first()? {
        b'-' => (true, &t[1..]),
        b'+' => (false, &t[1..]),
        _ => (false, t),
    };
    let (mantissa, exp) = match t.find(['e', 'E']) {
        Some(i) => (&t[..i], t[i + 1..].parse::<i32>().ok()?),
        None => (t, 0),
    };
    let (int, frac) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    // value = digits × 10^-(frac.len() - exp); micros = digits × 10^(6 - scale).
    let digits = int.bytes().chain(frac.bytes()).skip_while(|&b| b == b'0');
    let mut n: u128 = 0;
    let mut count = 0usize;
    for b in digits {
        count += 1;
        if count > MAX_DIGITS {
            return None;
        }
        n = n * 10 + u128::from(b - b'0');
    }
    let scale = i64::try_from(frac.len()).ok()? - i64::from(exp);
    let shift = 6 - scale;
    let micros = if shift >= 0 {
        let p = 10u128.checked_pow(u32::try_from(shift).ok()?)?;
        n.checked_mul(p)?
    } else {
        let down = u32::try_from(-shift).ok()?;
        if down > MAX_DIGITS as u32 {
            0
        } else {
            let p = 10u128.pow(down);
            let (q, r) = (n / p, n % p);
            if r * 2 >= p { q + 1 } else { q }
        }
    };
    let v = i128::try_from(micros).ok()?;
    Some(if neg { -v } else { v })
}

/// Decimal text of a number-ish scalar; `None` for `""`/`null`.
fn numeric_text<E: de::Error>(s: Scalar<'_>, what: &str) -> Result<Option<i128>, E> {
    let text: Cow<'_, str> = match s {
        Scalar::Null => return Ok(None),
        Scalar::Str(t) if t.trim().is_empty() => return Ok(None),
        Scalar::Str(t) => t,
        Scalar::U64(n) => return Ok(Some(i128::from(n) * 1_000_000)),
        Scalar::I64(n) => return Ok(Some(i128::from(n) * 1_000_000)),
        // Shortest round-trip text: 0.709999959 stays 0.709999959, then rounds to 0.71.
        Scalar::F64(f) if f.is_finite() => Cow::Owned(f.to_string()),
        Scalar::F64(_) | Scalar::Bool(_) | Scalar::Other => {
            return Err(E::custom(format_args!("expected a {what}")));
        }
    };
    parse_micros_rounded(&text)
        .map(Some)
        .ok_or_else(|| E::custom(format_args!("bad {what}: {text:?}")))
}

/// Signed micro-units, rounded: `"-1082.5533"`, `7.525`, `""`, `null`.
pub(crate) fn micros_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i128>, D::Error> {
    numeric_text(scalar(d)?, "number")
}

/// `Option<Amount>` rounded half away from zero to 6 decimals: `"-1.5"`, `7.525`, `"1e-3"`,
/// `""`/`null` → `None`.
pub(crate) fn amount_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Amount>, D::Error> {
    match micros_opt(d)? {
        None => Ok(None),
        Some(m) => Amount::from_micros_i128(m)
            .map(Some)
            .ok_or_else(|| de::Error::custom("amount out of range")),
    }
}

/// `Option<Size>` rounded to 6 decimals; a negative value is an error.
pub(crate) fn size_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Size>, D::Error> {
    match numeric_text::<D::Error>(scalar(d)?, "size")? {
        None => Ok(None),
        Some(m) => u64::try_from(m)
            .ok()
            .and_then(Size::new)
            .map(Some)
            .ok_or_else(|| de::Error::custom(format_args!("size out of range: {m} micros"))),
    }
}

/// `Option<Price>` rounded to 6 decimals; outside `0..=1` is an error.
pub(crate) fn price_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Price>, D::Error> {
    match numeric_text::<D::Error>(scalar(d)?, "price")? {
        None => Ok(None),
        Some(m) => u32::try_from(m)
            .ok()
            .and_then(Price::new)
            .map(Some)
            .ok_or_else(|| de::Error::custom(format_args!("price out of range: {m} micros"))),
    }
}

/// `Option<u32>` from an integer, an integral float or a decimal string (`1000`, `"1000"`).
pub(crate) fn u32_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u32>, D::Error> {
    match numeric_text::<D::Error>(scalar(d)?, "integer")? {
        None => Ok(None),
        Some(m) if m % 1_000_000 == 0 => u32::try_from(m / 1_000_000)
            .map(Some)
            .map_err(|_| de::Error::custom("integer out of range")),
        Some(_) => Err(de::Error::custom("expected an integer")),
    }
}

/// `Option<i64>` from an integer, an integral float or a decimal string; `null`/`""` is
/// `None` (the Data API's "unavailable, never zero").
pub(crate) fn i64_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<i64>, D::Error> {
    match numeric_text::<D::Error>(scalar(d)?, "integer")? {
        None => Ok(None),
        Some(m) if m % 1_000_000 == 0 => i64::try_from(m / 1_000_000)
            .map(Some)
            .map_err(|_| de::Error::custom("integer out of range")),
        Some(_) => Err(de::Error::custom("expected an integer")),
    }
}

/// A list of strings sent either as a JSON array or as a string holding a JSON array
/// (Gamma's `outcomes`, `clobTokenIds`, `outcomePrices`); elements may be numbers. `null`,
/// `""` and missing are the empty list.
pub(crate) fn text_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<String>, D::Error> {
    d.deserialize_any(ListVisitor)
}

/// As [`text_list`], each element a [`Price`] rounded to 6 decimals.
pub(crate) fn price_list<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<Price>, D::Error> {
    text_list(d)?
        .iter()
        .map(|t| {
            parse_micros_rounded(t)
                .and_then(|m| u32::try_from(m).ok())
                .and_then(Price::new)
                .ok_or_else(|| de::Error::custom(format_args!("bad price {t:?} in list")))
        })
        .collect()
}

struct ListVisitor;

/// One list element as text (strings as they are, numbers in decimal).
struct Elem(String);

impl<'de> serde::Deserialize<'de> for Elem {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        super::lenient::string(d).map(Elem)
    }
}

impl<'de> Visitor<'de> for ListVisitor {
    type Value = Vec<String>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list, or a string holding a JSON list")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        if v.trim().is_empty() {
            return Ok(Vec::new());
        }
        let raw: Vec<serde_json::Value> =
            serde_json::from_str(v).map_err(|e| E::custom(format_args!("list in string: {e}")))?;
        raw.into_iter()
            .map(|x| match x {
                serde_json::Value::String(s) => Ok(s),
                serde_json::Value::Number(n) => Ok(n.to_string()),
                other => Err(E::custom(format_args!("unexpected list element {other}"))),
            })
            .collect()
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Vec::new())
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(2));
        while let Some(Elem(s)) = seq.next_element()? {
            out.push(s);
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rounds_half_away_from_zero() {
        let cases: &[(&str, Option<i128>)] = &[
            ("0.709999959", Some(710_000)),
            ("0.2972581967", Some(297_258)),
            ("6291446.590415999", Some(6_291_446_590_416)),
            ("-1082.5533", Some(-1_082_553_300)),
            ("0.0000005", Some(1)),
            ("-0.0000005", Some(-1)),
            ("0.00000049", Some(0)),
            ("1e-7", Some(0)),
            ("1.5E2", Some(150_000_000)),
            ("5", Some(5_000_000)),
            (".5", Some(500_000)),
            ("0", Some(0)),
            ("", None),
            ("-", None),
            ("1.2.3", None),
            ("abc", None),
            ("1e", None),
            ("1e999999", None),
            ("999999999999999999999999999999999999999", None),
        ];
        for (text, want) in cases {
            assert_eq!(parse_micros_rounded(text), *want, "{text:?}");
        }
    }

    #[derive(serde::Deserialize)]
    struct Row {
        #[serde(default, deserialize_with = "text_list")]
        l: Vec<String>,
        #[serde(default, deserialize_with = "price_list")]
        p: Vec<Price>,
        #[serde(default, deserialize_with = "size_opt")]
        s: Option<Size>,
        #[serde(default, deserialize_with = "u32_opt")]
        u: Option<u32>,
    }

    #[test]
    fn lists_in_strings_and_arrays() {
        let r: Row = serde_json::from_str(
            r#"{"l":"[\"Up\", \"Down\"]","p":"[\"0.505\", \"0.495\"]","s":"20328.3747","u":1000}"#,
        )
        .unwrap();
        assert_eq!(r.l, ["Up", "Down"]);
        assert_eq!(
            r.p,
            [Price::new(505_000).unwrap(), Price::new(495_000).unwrap()]
        );
        assert_eq!(r.s, Size::new(20_328_374_700));
        assert_eq!(r.u, Some(1000));
        let r: Row = serde_json::from_str(r#"{"l":["a",1],"p":[0.5],"s":null,"u":"7"}"#).unwrap();
        assert_eq!(r.l, ["a", "1"]);
        assert_eq!(r.p, [Price::new(500_000).unwrap()]);
        assert_eq!((r.s, r.u), (None, Some(7)));
        let r: Row = serde_json::from_str(r#"{"l":"","p":null}"#).unwrap();
        assert!(r.l.is_empty() && r.p.is_empty());
        assert!(serde_json::from_str::<Row>(r#"{"l":"[oops"}"#).is_err());
        assert!(serde_json::from_str::<Row>(r#"{"p":"[\"1.5\"]"}"#).is_err());
        assert!(serde_json::from_str::<Row>(r#"{"s":-1}"#).is_err());
        assert!(serde_json::from_str::<Row>(r#"{"u":1.5}"#).is_err());
    }
}
