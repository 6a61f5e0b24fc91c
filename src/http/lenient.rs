//! Lenient field decoders for what the exchange really sends: numbers as strings or as JSON
//! numbers, `""` for "none", `null` for missing, and unknown enum names.

use std::borrow::Cow;
use std::fmt;
use std::io::Write as _;

use serde::Deserializer;
use serde::de::{self, IgnoredAny, MapAccess, SeqAccess, Visitor};

use crate::fixed::{Price, Size};
use crate::types::{FeeSchedule, Side, TickSize};

/// One JSON scalar, borrowed where possible; containers collapse to `Other`.
pub(crate) enum Scalar<'de> {
    Str(Cow<'de, str>),
    U64(u64),
    I64(i64),
    F64(f64),
    Bool(bool),
    Null,
    Other,
}

struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a JSON value")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v.to_owned())))
    }
    fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
        Ok(Scalar::Str(Cow::Owned(v)))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Scalar::U64(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Scalar::I64(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Scalar::F64(v))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Scalar::Bool(v))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Scalar::Null)
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

pub(crate) fn scalar<'de, D: Deserializer<'de>>(d: D) -> Result<Scalar<'de>, D::Error> {
    d.deserialize_any(ScalarVisitor)
}

/// Shortest round-trip text of a float, on the stack.
fn with_float_text<R>(f: f64, g: impl FnOnce(&[u8]) -> R) -> Option<R> {
    let mut buf = [0u8; 40];
    let mut cur = std::io::Cursor::new(&mut buf[..]);
    write!(cur, "{f}").ok()?;
    let n = usize::try_from(cur.position()).ok()?;
    Some(g(&buf[..n]))
}

/// `f` in units of 10⁻⁶ when it is the double nearest to a decimal with at most 6 places (what
/// its shortest text would parse to), without formatting it. `None`: not exact, negative or
/// too large; the caller then goes through the text.
fn exact_micros(f: f64) -> Option<u64> {
    // Below 2^53 / 10^6 distinct multiples of 10⁻⁶ are many ulps apart, so "n / 10^6 rounds to
    // f" identifies the one decimal the shortest text of f spells.
    if !(0.0..=9.0e9).contains(&f) {
        return None;
    }
    let m = (f * 1e6).round();
    #[allow(
        clippy::float_cmp,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    (m / 1e6 == f).then_some(m as u64)
}

/// A number-ish scalar in units of 10⁻⁶ (`None` for `""`/`null`), with the errors of
/// [`parse_micros`](crate::fixed::parse_micros) on the decimal text. JSON numbers are read
/// without going through text where that is exact.
fn micros<E: de::Error>(s: Scalar<'_>, what: &str) -> Result<Option<u64>, E> {
    let err = |e: crate::fixed::ParseError| E::custom(format_args!("{what}: {e}"));
    let text = |b: &[u8]| crate::fixed::parse_micros(b).map(Some).map_err(err);
    match s {
        Scalar::Null => Ok(None),
        Scalar::Str(t) if t.trim().is_empty() => Ok(None),
        Scalar::Str(t) => text(t.trim().as_bytes()),
        Scalar::U64(n) => match n.checked_mul(crate::fixed::SCALE) {
            Some(m) => Ok(Some(m)),
            None => with_int_text(n, text),
        },
        Scalar::I64(n) => with_int_text(n, text),
        Scalar::F64(f) => match exact_micros(f) {
            Some(m) => Ok(Some(m)),
            None => with_float_text(f, text)
                .unwrap_or_else(|| Err(E::custom(format_args!("bad {what}")))),
        },
        Scalar::Bool(_) | Scalar::Other => Err(E::custom(format_args!("expected a {what}"))),
    }
}

/// Decimal text of an integer, on the stack.
fn with_int_text<R>(n: impl fmt::Display, g: impl FnOnce(&[u8]) -> R) -> R {
    let mut buf = [0u8; 24];
    let mut cur = std::io::Cursor::new(&mut buf[..]);
    // 24 bytes hold any i64/u64.
    let _ = write!(cur, "{n}");
    let n = usize::try_from(cur.position()).unwrap_or(0);
    g(&buf[..n])
}

/// `Option<Price>`: `"0.52"`, `0.52`, `""`, `null`.
pub(crate) fn price_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Price>, D::Error> {
    match micros::<D::Error>(scalar(d)?, "price")? {
        None => Ok(None),
        Some(m) => u32::try_from(m)
            .ok()
            .and_then(Price::new)
            .map(Some)
            .ok_or_else(|| {
                de::Error::custom(format_args!(
                    "price: {}",
                    crate::fixed::ParseError::new(crate::fixed::ParseErrorKind::OutOfRange, 0)
                ))
            }),
    }
}

/// `Price`, where missing/empty means zero.
pub(crate) fn price<'de, D: Deserializer<'de>>(d: D) -> Result<Price, D::Error> {
    price_opt(d).map(Option::unwrap_or_default)
}

/// `Option<Size>`: `"12.5"`, `12.5`, `""`, `null`.
pub(crate) fn size_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Size>, D::Error> {
    micros::<D::Error>(scalar(d)?, "size").map(|m| m.map(Size::from_micros))
}

/// `Size`, where missing/empty means zero.
pub(crate) fn size<'de, D: Deserializer<'de>>(d: D) -> Result<Size, D::Error> {
    size_opt(d).map(Option::unwrap_or_default)
}

/// `Option<TickSize>` from `0.01` or `"0.01"`; an unknown tick is `None`, not an error.
pub(crate) fn tick_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<TickSize>, D::Error> {
    let s = scalar(d)?;
    if matches!(s, Scalar::Bool(_) | Scalar::Other) {
        return Err(de::Error::custom("expected a tick size"));
    }
    // Text that is not a tick is "unknown", not an error.
    Ok(micros::<D::Error>(s, "tick size")
        .ok()
        .flatten()
        .and_then(|m| u32::try_from(m).ok())
        .and_then(Price::new)
        .and_then(TickSize::from_price))
}

/// `u64` from a number or a decimal string; `""`/`null` → 0; a fractional value is truncated.
pub(crate) fn u64_lenient<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    match scalar(d)? {
        Scalar::U64(n) => Ok(n),
        Scalar::I64(n) => Ok(u64::try_from(n).unwrap_or(0)),
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        Scalar::F64(f) => Ok(if f.is_finite() && f > 0.0 {
            f as u64
        } else {
            0
        }),
        Scalar::Null => Ok(0),
        Scalar::Str(s) => {
            let t = s.trim();
            let int = t.split('.').next().unwrap_or_default();
            if int.is_empty() {
                Ok(0)
            } else {
                int.parse()
                    .map_err(|_| de::Error::custom(format_args!("expected an integer, got {t:?}")))
            }
        }
        Scalar::Bool(_) | Scalar::Other => Err(de::Error::custom("expected an integer")),
    }
}

/// `u128` (raw 6-decimal token amounts) from a number or a decimal string.
pub(crate) fn u128_lenient<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
    match scalar(d)? {
        Scalar::U64(n) => Ok(u128::from(n)),
        Scalar::Str(s) if s.trim().is_empty() => Ok(0),
        Scalar::Str(s) => s
            .trim()
            .parse()
            .map_err(|_| de::Error::custom(format_args!("expected an amount, got {s:?}"))),
        Scalar::Null => Ok(0),
        _ => Err(de::Error::custom("expected an amount")),
    }
}

/// `bool` from `true`/`false`, `"true"`/`"false"`, `1`/`0` (or in a string); `null`, `""` or missing (with
/// `#[serde(default)]`) are false. Other text or numbers fail the row: `"maybe"` is not read
/// as false.
pub(crate) fn bool_lenient<'de, D: Deserializer<'de>>(d: D) -> Result<bool, D::Error> {
    match scalar(d)? {
        Scalar::Bool(b) => Ok(b),
        Scalar::Null => Ok(false),
        Scalar::U64(n @ (0 | 1)) => Ok(n == 1),
        Scalar::Str(s)
            if matches!(s.trim(), "" | "0") || s.trim().eq_ignore_ascii_case("false") =>
        {
            Ok(false)
        }
        Scalar::Str(s) if s.trim() == "1" || s.trim().eq_ignore_ascii_case("true") => Ok(true),
        _ => Err(de::Error::custom("expected a bool")),
    }
}

/// `Option<bool>` from `true`, `"true"`, `0`/`1`; `null`, `""` or missing (with
/// `#[serde(default)]`) are `None`: absence stays visible. Other text fails the row.
pub(crate) fn bool_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    match scalar(d)? {
        Scalar::Bool(b) => Ok(Some(b)),
        Scalar::Null => Ok(None),
        Scalar::U64(n) => Ok(Some(n != 0)),
        Scalar::Str(s) if s.trim().is_empty() => Ok(None),
        Scalar::Str(s) if s.trim().eq_ignore_ascii_case("true") => Ok(Some(true)),
        Scalar::Str(s) if s.trim().eq_ignore_ascii_case("false") => Ok(Some(false)),
        _ => Err(de::Error::custom("expected a bool")),
    }
}

/// Text from a string, a number or `null` (→ `""`), borrowed when the input allows.
pub(crate) fn text<'de, D: Deserializer<'de>>(d: D) -> Result<Cow<'de, str>, D::Error> {
    match scalar(d)? {
        Scalar::Str(s) => Ok(s),
        Scalar::Null => Ok(Cow::Borrowed("")),
        Scalar::U64(n) => Ok(Cow::Owned(n.to_string())),
        Scalar::I64(n) => Ok(Cow::Owned(n.to_string())),
        Scalar::F64(f) => Ok(Cow::Owned(f.to_string())),
        Scalar::Bool(b) => Ok(Cow::Borrowed(if b { "true" } else { "false" })),
        Scalar::Other => Err(de::Error::custom("expected text")),
    }
}

/// Owned text, same rules as [`text`].
pub(crate) fn string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
    text(d).map(Cow::into_owned)
}

/// Owned text as [`text`], `null` and `""` being `None`.
pub(crate) fn string_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
    let t = text(d)?;
    Ok((!t.trim().is_empty()).then(|| t.into_owned()))
}

/// `Option<Side>` from `"BUY"`/`"SELL"` (any case); anything else is `None`.
pub(crate) fn side_opt<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Side>, D::Error> {
    match scalar(d)? {
        Scalar::Str(s) => Ok(Side::parse(s.trim().to_ascii_uppercase().as_bytes())),
        _ => Ok(None),
    }
}

/// `null` (or a missing field, with `#[serde(default)]`) as the type's default.
pub(crate) fn null_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: serde::Deserialize<'de> + Default,
{
    <Option<T> as serde::Deserialize>::deserialize(d).map(Option::unwrap_or_default)
}

/// Declares a string enum that keeps unknown names in `Unknown(String)`.
macro_rules! lenient_enum {
    ($(#[$m:meta])* $name:ident { $($(#[$vm:meta])* $var:ident = $text:literal),+ $(,)? }) => {
        $crate::http::lenient::lenient_enum!(
            $(#[$m])* $name prefix "" { $($(#[$vm])* $var = $text),+ }
        );
    };
    // `prefix`: an optional wire prefix dropped before matching (`TRADE_STATUS_CONFIRMED`).
    ($(#[$m:meta])* $name:ident prefix $prefix:literal { $($(#[$vm:meta])* $var:ident = $text:literal),+ $(,)? }) => {
        $(#[$m])*
        #[derive(Clone, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $($(#[$vm])* $var,)+
            /// A name this version does not know, kept verbatim.
            Unknown(String),
        }

        impl $name {
            /// The wire name.
            #[must_use]
            pub fn as_str(&self) -> &str {
                match self {
                    $(Self::$var => $text,)+
                    Self::Unknown(s) => s,
                }
            }

            /// Parses a wire name (ASCII case-insensitive); unknown names become `Unknown`.
            #[must_use]
            pub fn parse(s: &str) -> Self {
                let p: &str = $prefix;
                let bare = match s.get(..p.len()) {
                    Some(head) if !p.is_empty() && head.eq_ignore_ascii_case(p) => &s[p.len()..],
                    _ => s,
                };
                $(if bare.eq_ignore_ascii_case($text) { return Self::$var; })+
                Self::Unknown(s.to_owned())
            }
        }

        impl core::fmt::Display for $name {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::http::lenient::text(d).map(|s| Self::parse(&s))
            }
        }
    };
}
pub(crate) use lenient_enum;

/// A market's fee schedule in either of the venue's JSON spellings: Gamma's `feeSchedule
/// {rate, exponent, takerOnly, rebateRate}` or the CLOB market's `fd {r, e, to}`. `None` when
/// absent or `null`, and when partial or malformed (no `rate`, an `exponent` that is not a whole
/// number in `1..=4`): the schedule is then unknown, and the row keeps its other fields. A
/// schedule that does not say `takerOnly` is taker-only, as every published one is.
pub(crate) fn fee_schedule_opt<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<FeeSchedule>, D::Error> {
    let v: Option<serde_json::Value> = serde::Deserialize::deserialize(d)?;
    Ok(v.as_ref().and_then(fee_schedule_of))
}

fn fee_schedule_of(v: &serde_json::Value) -> Option<FeeSchedule> {
    let field = |names: &[&str]| {
        names
            .iter()
            .find_map(|n| v.get(*n))
            .filter(|x| !x.is_null())
    };
    let rate = price_opt(field(&["rate", "r"])?).ok()??;
    let exponent = size_opt(field(&["exponent", "e"])?).ok()??.as_micros();
    let exponent = u32::try_from(exponent / Size::SCALE)
        .ok()
        .filter(|_| exponent % Size::SCALE == 0)?;
    let taker_only = match field(&["takerOnly", "taker_only", "to"]) {
        Some(x) => bool_lenient(x).ok()?,
        None => true,
    };
    let rebate_rate = match field(&["rebateRate", "rebate_rate"]) {
        Some(x) => price_opt(x).ok()?,
        None => None,
    };
    FeeSchedule::new(rate, exponent, taker_only, rebate_rate)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(serde::Deserialize)]
    struct Row<'a> {
        #[serde(default, deserialize_with = "price_opt")]
        p: Option<Price>,
        #[serde(default, deserialize_with = "size")]
        s: Size,
        #[serde(default, deserialize_with = "tick_opt")]
        t: Option<TickSize>,
        #[serde(default, deserialize_with = "u64_lenient")]
        n: u64,
        #[serde(default, deserialize_with = "bool_lenient")]
        b: bool,
        #[serde(default, borrow, deserialize_with = "text")]
        x: Cow<'a, str>,
    }

    #[test]
    fn accepts_what_the_exchange_sends() {
        let r: Row<'_> = serde_json::from_str(
            r#"{"p":"0.52","s":12.5,"t":0.001,"n":"1700000000123","b":"true","x":"abc"}"#,
        )
        .unwrap();
        assert_eq!(r.p, Price::new(520_000));
        assert_eq!(r.s, Size::from_micros(12_500_000));
        assert_eq!(r.t, Some(TickSize::Thousandth));
        assert_eq!(r.n, 1_700_000_000_123);
        assert!(r.b);
        assert!(matches!(r.x, Cow::Borrowed("abc")));
        let r: Row<'_> =
            serde_json::from_str(r#"{"p":"","s":"","t":"0.05","n":"","b":null,"x":null}"#).unwrap();
        assert_eq!(
            (r.p, r.s, r.t, r.n, r.b, &*r.x),
            (None, Size::ZERO, None, 0, false, "")
        );
        let r: Row<'_> = serde_json::from_str("{}").unwrap();
        assert_eq!(r.p, None);
        assert!(serde_json::from_str::<Row<'_>>(r#"{"p":"abc"}"#).is_err());
        assert!(serde_json::from_str::<Row<'_>>(r#"{"p":"1.5"}"#).is_err());
        assert!(serde_json::from_str::<Row<'_>>(r#"{"n":[1]}"#).is_err());
        for (b, want) in [
            ("false", false),
            ("\"False\"", false),
            ("\"\"", false),
            ("0", false),
            ("1", true),
            ("\" TRUE\"", true),
            ("\"1\"", true),
            ("\"0\"", false),
        ] {
            let json = format!(r#"{{"b":{b}}}"#);
            let r: Row<'_> = serde_json::from_str(&json).unwrap();
            assert_eq!(r.b, want, "{b}");
        }
        // A flag the client cannot read fails its row instead of reading as false.
        for b in ["\"maybe\"", "\"yes\"", "2", "0.5"] {
            assert!(
                serde_json::from_str::<Row<'_>>(&format!(r#"{{"b":{b}}}"#)).is_err(),
                "{b}"
            );
        }
    }

    /// The float fast path reads every JSON number exactly as its shortest text would parse.
    #[test]
    fn float_fast_path_agrees_with_the_text() {
        let mut x = 0x9e37_79b9_7f4a_7c15_u64;
        for i in 0..200_000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let places = (i % 9) as i32;
            let int = x % 10_u64.pow(1 + (i % 10));
            let f = int as f64 / 10f64.powi(places);
            let text = with_float_text(f, |b| crate::fixed::parse_micros(b).ok()).unwrap();
            let fast = exact_micros(f);
            if fast.is_some() {
                assert_eq!(fast, text, "{f}");
            }
            if places <= 6 && f < 1.0e8 {
                assert!(fast.is_some(), "{f} should be exact");
            }
        }
        for f in [-0.5, 1.0e20, f64::NAN, f64::INFINITY, 0.1234567] {
            assert_eq!(exact_micros(f), None, "{f}");
        }
        assert!(serde_json::from_str::<Row<'_>>(r#"{"p":1.5}"#).is_err());
        assert!(serde_json::from_str::<Row<'_>>(r#"{"p":0.1234567}"#).is_err());
        assert!(serde_json::from_str::<Row<'_>>(r#"{"s":-3}"#).is_err());
        assert!(serde_json::from_str::<Row<'_>>(r#"{"t":true}"#).is_err());
        let r: Row<'_> = serde_json::from_str(r#"{"p":1,"s":18446744073709,"t":0.0025}"#).unwrap();
        assert_eq!(r.p, Price::new(1_000_000));
        assert_eq!(r.s, Size::from_micros(18_446_744_073_709_000_000));
        assert_eq!(r.t, Some(TickSize::TwentyFiveTenThousandths));
        assert!(serde_json::from_str::<Row<'_>>(r#"{"s":18446744073710}"#).is_err());
    }

    #[allow(unreachable_pub)]
    mod color {
        super::lenient_enum!(
            /// test
            Color { Red = "RED", Blue = "BLUE" }
        );
    }
    pub(crate) use color::Color;

    #[test]
    fn unknown_enum_names_are_kept() {
        let c: Vec<Color> = serde_json::from_str(r#"["red","BLUE","GREEN"]"#).unwrap();
        assert_eq!(
            c,
            vec![Color::Red, Color::Blue, Color::Unknown("GREEN".into())]
        );
        assert_eq!(c[2].as_str(), "GREEN");
    }

    #[test]
    fn fee_schedules_in_both_spellings() {
        let read = |json: &str| -> Option<FeeSchedule> {
            #[derive(serde::Deserialize)]
            struct Row {
                #[serde(default, deserialize_with = "fee_schedule_opt")]
                f: Option<FeeSchedule>,
            }
            serde_json::from_str::<Row>(&format!(r#"{{"f":{json}}}"#))
                .unwrap()
                .f
        };
        let p = |s: &str| s.parse::<Price>().unwrap();
        let gamma = read(r#"{"exponent":1,"rate":0.04,"takerOnly":true,"rebateRate":0.25}"#);
        assert_eq!(gamma, FeeSchedule::new(p("0.04"), 1, true, Some(p("0.25"))));
        let fd = read(r#"{"r":0.05,"e":1,"to":true}"#);
        assert_eq!(fd, FeeSchedule::new(p("0.05"), 1, true, None));
        assert_eq!(
            read(r#"{"r":"0.07","e":"1.0"}"#),
            FeeSchedule::new(p("0.07"), 1, true, None)
        );
        // Fee-free (`fd` all zero), partial, malformed: unknown, and the row still decodes.
        for json in [
            r#"{"r":0,"e":0,"to":false}"#,
            r#"{"rate":0.04}"#,
            r#"{"rate":0.04,"exponent":1.5}"#,
            r#"{"rate":1.5,"exponent":1}"#,
            r#"{"rate":0.04,"exponent":1,"takerOnly":[]}"#,
            r#""standard""#,
            "null",
        ] {
            assert_eq!(read(json), None, "{json}");
        }
    }
}
