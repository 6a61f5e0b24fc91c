//! [`Timestamp`]: the one type for an instant the venue sends, in whichever form it sends it
//! (unix seconds or milliseconds, as a number or a string, or ISO 8601).

use core::fmt;
use core::str::FromStr;

use serde::de::{Deserialize, Deserializer, Error as _, Visitor};

use super::UnknownValue;

/// Unix seconds below this are seconds; from here they are milliseconds (10¹¹ s is the year
/// 5138, 10¹¹ ms is 1973).
const SECONDS_BELOW: u64 = 100_000_000_000;
/// Milliseconds at or above this are refused (the year 5138 again: micro- or nanoseconds).
const MILLIS_BELOW: u64 = 100_000_000_000_000;

/// An instant in UTC, to the millisecond, read from any form the venue sends.
///
/// The same field comes in different forms on different rows of one endpoint (Data API
/// `/v2/resolutions` sends `last_update_timestamp` as ISO 8601 on condition rows and as unix
/// seconds in a string on question rows), so every form is read:
///
/// - a number or a decimal string: unix **seconds** below 10¹¹ (the year 5138), unix
///   **milliseconds** from there up to 10¹⁴; a fraction of a second is kept to the
///   millisecond; anything larger (micro- or nanoseconds) is refused, not guessed;
/// - ISO 8601 / RFC 3339 text: `YYYY-MM-DD`, then optionally `T` (or a space) and `HH:MM`,
///   `:SS`, a fraction, and a zone (`Z`, `±HH:MM`, `±HHMM`, `±HH`); a date alone is midnight
///   and a time without a zone is UTC (the venue's servers write UTC).
///
/// Instants before 1970 are refused; finer digits than a millisecond are dropped. Shown as
/// RFC 3339 in UTC. In a row, `null`, `""` and `0` (the venue's "unset") read as `None`.
///
/// ```
/// use polyclob::types::Timestamp;
///
/// let iso: Timestamp = "2026-10-05T23:00:53Z".parse()?;
/// let secs: Timestamp = "1791241253".parse()?;
/// let millis: Timestamp = serde_json::from_str("1791241253000")?;
/// assert_eq!((iso, secs), (millis, millis));
/// assert_eq!(iso.as_secs(), 1_791_241_253);
/// assert_eq!(iso.to_string(), "2026-10-05T23:00:53Z");
/// assert_eq!("2026-10-06T01:00:53.250+02:00".parse::<Timestamp>()?.as_millis(), 1_791_241_253_250);
/// assert!("yesterday".parse::<Timestamp>().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Timestamp(u64);

impl Timestamp {
    /// The instant `millis` milliseconds after the Unix epoch.
    #[must_use]
    pub const fn from_millis(millis: u64) -> Self {
        Self(millis)
    }

    /// The instant `secs` seconds after the Unix epoch; `None` when it does not fit.
    #[must_use]
    pub const fn from_secs(secs: u64) -> Option<Self> {
        match secs.checked_mul(1000) {
            Some(ms) => Some(Self(ms)),
            None => None,
        }
    }

    /// Milliseconds since the Unix epoch.
    #[must_use]
    pub const fn as_millis(self) -> u64 {
        self.0
    }

    /// Whole seconds since the Unix epoch.
    #[must_use]
    pub const fn as_secs(self) -> u64 {
        self.0 / 1000
    }

    /// Parses any text form: unix seconds or milliseconds (digits, optionally with a
    /// fraction) or ISO 8601.
    ///
    /// # Errors
    /// [`UnknownValue`] when `text` is none of them, names a date that does not exist, lies
    /// before 1970, or is a number too large to be seconds or milliseconds.
    pub fn parse(text: &str) -> Result<Self, UnknownValue> {
        let t = text.trim();
        let bad = UnknownValue::new("timestamp (unix seconds or ms, or ISO 8601)");
        let b = t.as_bytes();
        // `YYYY-` starts a date; digits alone (with at most one `.`) are a number.
        if b.len() >= 5 && b[4] == b'-' {
            return iso(b).map(Self).ok_or(bad);
        }
        let (int, frac) = t.split_once('.').unwrap_or((t, ""));
        if int.is_empty() || !int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()) {
            return Err(bad);
        }
        let n: u64 = int.parse().map_err(|_| bad)?;
        // A fraction of a second, to the millisecond; of a millisecond, dropped.
        let mut milli = 0;
        for (i, c) in frac.bytes().take(3).enumerate() {
            milli += u64::from(c - b'0') * [100, 10, 1][i];
        }
        Self::from_number(n, milli).ok_or(bad)
    }

    /// `n` seconds (plus `milli` ms) or `n` milliseconds, by magnitude.
    fn from_number(n: u64, milli: u64) -> Option<Self> {
        if n < SECONDS_BELOW {
            Some(Self(n * 1000 + milli))
        } else if n < MILLIS_BELOW {
            Some(Self(n))
        } else {
            None
        }
    }

    /// A JSON number: whole or fractional seconds, or milliseconds.
    fn from_f64(f: f64) -> Option<Self> {
        if !f.is_finite() || f < 0.0 {
            return None;
        }
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        if f < SECONDS_BELOW as f64 {
            Some(Self((f * 1000.0) as u64))
        } else if f < MILLIS_BELOW as f64 {
            Some(Self(f as u64))
        } else {
            None
        }
    }
}

/// The milliseconds of an ISO 8601 text.
fn iso(b: &[u8]) -> Option<u64> {
    let mut p = Cursor { b, at: 0 };
    let year = p.digits(4)?;
    p.expect(b'-')?;
    let month = p.digits(2)?;
    p.expect(b'-')?;
    let day = p.digits(2)?;
    if year < 1970 || !(1..=12).contains(&month) || day == 0 || day > days_in_month(year, month) {
        return None;
    }
    let (mut hour, mut minute, mut second, mut milli) = (0, 0, 0, 0);
    let mut offset_min: i64 = 0;
    if matches!(p.peek(), Some(b'T' | b't' | b' ')) {
        p.at += 1;
        hour = p.digits(2)?;
        p.expect(b':')?;
        minute = p.digits(2)?;
        if p.peek() == Some(b':') {
            p.at += 1;
            second = p.digits(2)?;
            if matches!(p.peek(), Some(b'.' | b',')) {
                p.at += 1;
                let start = p.at;
                while p.peek().is_some_and(|c| c.is_ascii_digit()) {
                    if p.at - start < 3 {
                        milli = milli * 10 + u64::from(b[p.at] - b'0');
                    }
                    p.at += 1;
                }
                let n = p.at - start;
                if n == 0 {
                    return None;
                }
                for _ in n..3 {
                    milli *= 10;
                }
            }
        }
        if hour > 23 || minute > 59 || second > 60 {
            return None;
        }
        match p.peek() {
            None => {}
            Some(b'Z' | b'z') => p.at += 1,
            Some(sign @ (b'+' | b'-')) => {
                p.at += 1;
                let h = p.digits(2)?;
                if p.peek() == Some(b':') {
                    p.at += 1;
                }
                let m = if p.peek().is_some() { p.digits(2)? } else { 0 };
                if h > 23 || m > 59 {
                    return None;
                }
                let off = i64::try_from(h * 60 + m).ok()?;
                offset_min = if sign == b'+' { off } else { -off };
            }
            Some(_) => return None,
        }
    }
    if p.at != b.len() {
        return None;
    }
    let days = days_from_civil(year, month, day);
    let secs = i64::try_from(days).ok()? * 86_400
        + i64::try_from(hour * 3600 + minute * 60 + second).ok()?
        - offset_min * 60;
    let secs = u64::try_from(secs).ok()?;
    secs.checked_mul(1000)?.checked_add(milli)
}

struct Cursor<'a> {
    b: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn peek(&self) -> Option<u8> {
        self.b.get(self.at).copied()
    }

    fn expect(&mut self, c: u8) -> Option<()> {
        (self.peek()? == c).then(|| self.at += 1)
    }

    /// Exactly `n` ASCII digits.
    fn digits(&mut self, n: usize) -> Option<u64> {
        let s = self.b.get(self.at..self.at + n)?;
        let mut v = 0;
        for &c in s {
            if !c.is_ascii_digit() {
                return None;
            }
            v = v * 10 + u64::from(c - b'0');
        }
        self.at += n;
        Some(v)
    }
}

const fn is_leap(y: u64) -> bool {
    y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)
}

const fn days_in_month(y: u64, m: u64) -> u64 {
    match m {
        2 if is_leap(y) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days from 1970-01-01 to `y-m-d` (proleptic Gregorian, `y >= 1970`): whole 400-year eras,
/// with the year starting in March so that the leap day is its last.
const fn days_from_civil(y: u64, m: u64, d: u64) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y / 400;
    let yoe = y - era * 400;
    let mp = (m + 9) % 12;
    let doy = (153 * mp + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `(year, month, day)` of `days` after 1970-01-01: the inverse of [`days_from_civil`].
const fn civil_from_days(days: u64) -> (u64, u64, u64) {
    let z = days + 719_468;
    let era = z / 146_097;
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + if m <= 2 { 1 } else { 0 };
    (y, m, d)
}

/// RFC 3339 in UTC: `2026-10-05T23:00:53Z`, with `.mmm` when the milliseconds are not zero.
impl fmt::Display for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let secs = self.0 / 1000;
        let (y, mo, d) = civil_from_days(secs / 86_400);
        let s = secs % 86_400;
        write!(
            f,
            "{y:04}-{mo:02}-{d:02}T{:02}:{:02}:{:02}",
            s / 3600,
            s / 60 % 60,
            s % 60
        )?;
        match self.0 % 1000 {
            0 => f.write_str("Z"),
            ms => write!(f, ".{ms:03}Z"),
        }
    }
}

impl fmt::Debug for Timestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Timestamp({self})")
    }
}

impl FromStr for Timestamp {
    type Err = UnknownValue;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s)
    }
}

/// A JSON number or string in any of the forms of [`Timestamp::parse`].
impl<'de> Deserialize<'de> for Timestamp {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        timestamp_opt(d)?.ok_or_else(|| D::Error::custom("a timestamp is missing"))
    }
}

/// `Option<Timestamp>`: `null`, `""` and `0` (the venue's "unset") are `None`; any other
/// value that is not a timestamp fails the row, with the value in the message.
pub(crate) fn timestamp_opt<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Timestamp>, D::Error> {
    d.deserialize_any(Forms)
}

/// Reads every JSON form of a timestamp (`None` for the "unset" ones).
struct Forms;

const EXPECTED: &str = "a timestamp (unix seconds or ms, or ISO 8601)";

impl<'de> Visitor<'de> for Forms {
    type Value = Option<Timestamp>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(EXPECTED)
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> Result<Self::Value, E> {
        if n == 0 {
            return Ok(None);
        }
        Timestamp::from_number(n, 0)
            .map(Some)
            .ok_or_else(|| E::custom(format_args!("not {EXPECTED}: {n}")))
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> Result<Self::Value, E> {
        match u64::try_from(n) {
            Ok(n) => self.visit_u64(n),
            Err(_) => Err(E::custom(format_args!("not {EXPECTED}: {n}"))),
        }
    }

    fn visit_f64<E: serde::de::Error>(self, f: f64) -> Result<Self::Value, E> {
        if f == 0.0 {
            return Ok(None);
        }
        Timestamp::from_f64(f)
            .map(Some)
            .ok_or_else(|| E::custom(format_args!("not {EXPECTED}: {f}")))
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<Self::Value, E> {
        let t = s.trim();
        if t.is_empty() || t == "0" {
            return Ok(None);
        }
        Timestamp::parse(t)
            .map(Some)
            .map_err(|_| E::custom(format_args!("not {EXPECTED}: {s:?}")))
    }

    fn visit_none<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<Self::Value, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_any(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Days since 1970 by counting, the oracle for the era arithmetic.
    fn naive_days(y: u64, m: u64, d: u64) -> u64 {
        let mut days = 0;
        for year in 1970..y {
            days += if is_leap(year) { 366 } else { 365 };
        }
        for month in 1..m {
            days += days_in_month(y, month);
        }
        days + d - 1
    }

    #[test]
    fn calendar_matches_counting() {
        let mut prev = None;
        for y in 1970..=2500 {
            for m in 1..=12 {
                for d in [1, 15, days_in_month(y, m)] {
                    let days = days_from_civil(y, m, d);
                    assert_eq!(days, naive_days(y, m, d), "{y}-{m}-{d}");
                    assert_eq!(civil_from_days(days), (y, m, d));
                    if d == 1 {
                        if let Some(p) = prev {
                            assert_eq!(days, p + 1, "{y}-{m}-01 follows the month before");
                        }
                    }
                    if d == days_in_month(y, m) {
                        prev = Some(days);
                    }
                }
            }
        }
    }

    #[test]
    fn every_venue_form() {
        let want = Timestamp::from_millis(1_791_241_253_000);
        for text in [
            "2026-10-05T23:00:53Z",
            "2026-10-05t23:00:53z",
            "2026-10-05 23:00:53+00",
            "2026-10-05T23:00:53.000Z",
            "2026-10-05T23:00:53+00:00",
            "2026-10-06T01:00:53+02:00",
            "2026-10-05T20:30:53-0230",
            "2026-10-05T23:00:53",
            " 1791241253 ",
            "1791241253000",
            "1791241253.000",
        ] {
            assert_eq!(Timestamp::parse(text), Ok(want), "{text}");
        }
        assert_eq!(
            Timestamp::parse("2026-10-05T23:00:53.123456789Z")
                .unwrap()
                .as_millis(),
            1_791_241_253_123
        );
        assert_eq!(
            Timestamp::parse("1791241253.5").unwrap().as_millis(),
            1_791_241_253_500
        );
        assert_eq!(
            Timestamp::parse("2026-12-31").unwrap().to_string(),
            "2026-12-31T00:00:00Z"
        );
        assert_eq!(
            Timestamp::parse("2026-10-05T23:00Z").unwrap().as_secs(),
            1_791_241_200
        );
        for bad in [
            "",
            "x",
            "-5",
            "1e9",
            "2026-02-29T00:00:00Z",
            "2026-13-01",
            "2026-00-10",
            "2026-10-05T24:00:00Z",
            "2026-10-05T23:60:00Z",
            "2026-10-05T23:00:53Q",
            "2026-10-05T23:00:53.Z",
            "2026-10-05T23",
            "1969-12-31T23:59:59Z",
            "1970-01-01T00:00:00+01:00",
            "100000000000000",
            "1791241253000000",
        ] {
            assert!(Timestamp::parse(bad).is_err(), "{bad}");
        }
        assert_eq!(
            Timestamp::parse("2028-02-29").unwrap().to_string(),
            "2028-02-29T00:00:00Z"
        );
        assert_eq!(
            Timestamp::from_millis(1_791_241_253_007).to_string(),
            "2026-10-05T23:00:53.007Z"
        );
    }

    #[derive(serde::Deserialize)]
    struct Row {
        #[serde(default, deserialize_with = "timestamp_opt")]
        t: Option<Timestamp>,
    }

    #[test]
    fn json_forms() {
        let t = |json: &str| serde_json::from_str::<Row>(json).map(|r| r.t);
        let want = Some(Timestamp::from_millis(1_791_241_253_000));
        for json in [
            r#"{"t":1791241253}"#,
            r#"{"t":1791241253000}"#,
            r#"{"t":1791241253.0}"#,
            r#"{"t":"1791241253"}"#,
            r#"{"t":"2026-10-05T23:00:53Z"}"#,
        ] {
            assert_eq!(t(json).unwrap(), want, "{json}");
        }
        for json in [
            r#"{"t":null}"#,
            r#"{"t":""}"#,
            r#"{"t":0}"#,
            r#"{"t":"0"}"#,
            "{}",
        ] {
            assert_eq!(t(json).unwrap(), None, "{json}");
        }
        for json in [
            r#"{"t":-1}"#,
            r#"{"t":true}"#,
            r#"{"t":[1]}"#,
            r#"{"t":"soon"}"#,
        ] {
            let e = t(json).unwrap_err().to_string();
            assert!(e.contains("a timestamp (unix seconds or ms"), "{json}: {e}");
        }
        assert!(serde_json::from_str::<Timestamp>("null").is_err());
    }

    #[test]
    fn round_trips_through_text() {
        let mut x = 0x2545_f491_4f6c_dd1d_u64;
        for _ in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let t = Timestamp::from_millis(x % MILLIS_BELOW);
            assert_eq!(Timestamp::parse(&t.to_string()), Ok(t), "{t}");
        }
    }
}
