//! [`RefPrice`]: the fixed-point value of a reference price (crypto, equity, oracle).
//!
//! RTDS prices are not CLOB prices: they run from fractions of a cent (DOGE) to six figures
//! (BTC), arrive as JSON numbers (`61164.12`), as decimal strings (`"61035.86000000"`) or, for
//! Chainlink, as the oracle's exact E18 integer (`"64997810000000000000000"`). One unsigned
//! integer in units of 10⁻¹⁸ holds all three exactly ([Polymarket RTDS]).
//!
//! [Polymarket RTDS]: https://docs.polymarket.com/market-data/websocket/rtds

use core::fmt;
use core::str::FromStr;

use crate::fixed::{ParseError, ParseErrorKind, format_scaled};

/// A non-negative reference price, exact to 10⁻¹⁸.
///
/// Parsed straight from the feed's text, never through `f64`. Digits past the 18th decimal
/// (binary-float noise in a JSON number such as `1.2345678901234567e-5`) are dropped, rounding
/// toward zero; everything else is exact.
///
/// ```
/// use polyclob::rtds::RefPrice;
///
/// let p = RefPrice::parse(b"61164.12")?;
/// assert_eq!(p.to_string(), "61164.12");
/// assert_eq!(p, RefPrice::from_e18(61_164_120_000_000_000_000_000));
/// assert_eq!(RefPrice::parse(b"6.116412e4")?, p);
/// assert!(RefPrice::parse(b"-1").is_err());
/// # Ok::<(), polyclob::fixed::ParseError>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[must_use]
pub struct RefPrice(u128);

/// 10ⁿ for n in 0..=38 (all that fit a `u128`).
const fn pow10(n: u32) -> Option<u128> {
    10u128.checked_pow(n)
}

impl RefPrice {
    /// Zero.
    pub const ZERO: Self = Self(0);
    /// The largest value (`u128::MAX` units of 10⁻¹⁸, about 3.4 × 10²⁰).
    pub const MAX: Self = Self(u128::MAX);
    /// Decimal places of the representation.
    pub const DECIMALS: u32 = 18;
    /// Units per 1.
    pub const SCALE: u128 = 1_000_000_000_000_000_000;

    /// A value from its raw units of 10⁻¹⁸: Chainlink's exact `full_accuracy_value`.
    ///
    /// ```
    /// use polyclob::rtds::RefPrice;
    /// assert_eq!(RefPrice::from_e18(1_500_000_000_000_000_000).to_string(), "1.5");
    /// ```
    pub const fn from_e18(units: u128) -> Self {
        Self(units)
    }

    /// The raw value in units of 10⁻¹⁸.
    ///
    /// ```
    /// use polyclob::rtds::RefPrice;
    /// assert_eq!(RefPrice::parse(b"0.25")?.as_e18(), 250_000_000_000_000_000);
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    #[must_use]
    pub const fn as_e18(self) -> u128 {
        self.0
    }

    /// Whether this is zero.
    #[must_use]
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// The value in units of 10⁻ᵈ for `d ≤ 18`, rounded toward zero (`None` if `d > 18`).
    ///
    /// ```
    /// use polyclob::rtds::RefPrice;
    /// assert_eq!(RefPrice::parse(b"189.559")?.to_units(2), Some(18_955));
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    #[must_use]
    pub const fn to_units(self, decimals: u32) -> Option<u128> {
        if decimals > Self::DECIMALS {
            return None;
        }
        match pow10(Self::DECIMALS - decimals) {
            Some(d) => Some(self.0 / d),
            None => None,
        }
    }

    /// Parses an unsigned decimal: `digits[.digits][(e|E)[+|-]digits]`, as a JSON number or
    /// a decimal string carries it.
    ///
    /// ```
    /// use polyclob::rtds::RefPrice;
    /// use polyclob::fixed::ParseErrorKind;
    ///
    /// assert_eq!(RefPrice::parse(b"0.08991")?.to_string(), "0.08991");
    /// assert_eq!(RefPrice::parse(b"1e-7")?.as_e18(), 100_000_000_000);
    /// assert_eq!(RefPrice::parse(b"").unwrap_err().kind(), ParseErrorKind::Empty);
    /// assert_eq!(RefPrice::parse(b"1e400").unwrap_err().kind(), ParseErrorKind::Overflow);
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    ///
    /// # Errors
    /// [`ParseError`] for an empty input, a sign on the mantissa, a stray byte, or a value
    /// above [`RefPrice::MAX`].
    pub fn parse(bytes: &[u8]) -> Result<Self, ParseError> {
        let err = |k, at| Err(ParseError::new(k, at));
        let mut i = 0;
        // Significant digits, as an integer, and how many of them follow the point.
        let mut mant: u128 = 0;
        let mut frac_digits: i64 = 0;
        let mut digits = 0usize;
        let mut seen_point = false;
        // Digits dropped because the mantissa already holds 38: a power of ten to add back
        // (integer part) or nothing (fraction).
        let mut dropped_int: i64 = 0;
        while let Some(&c) = bytes.get(i) {
            match c {
                b'0'..=b'9' => {
                    digits += 1;
                    let d = u128::from(c - b'0');
                    match mant.checked_mul(10).and_then(|m| m.checked_add(d)) {
                        Some(m) if !(seen_point && frac_digits >= 40) => {
                            mant = m;
                            if seen_point {
                                frac_digits += 1;
                            }
                        }
                        // Past the mantissa's width: integer digits still scale the value,
                        // fractional ones are below any representable unit and are dropped.
                        _ if !seen_point => dropped_int += 1,
                        _ => {}
                    }
                }
                b'.' if !seen_point => seen_point = true,
                b'e' | b'E' => break,
                b'+' | b'-' if i == 0 => return err(ParseErrorKind::Sign, i),
                _ => return err(ParseErrorKind::InvalidByte, i),
            }
            i += 1;
        }
        if digits == 0 {
            return err(ParseErrorKind::Empty, i);
        }
        let mut exp: i64 = 0;
        if i < bytes.len() {
            // At an exponent marker.
            let at = i;
            i += 1;
            let neg = match bytes.get(i) {
                Some(b'-') => {
                    i += 1;
                    true
                }
                Some(b'+') => {
                    i += 1;
                    false
                }
                _ => false,
            };
            let start = i;
            while let Some(&c) = bytes.get(i) {
                if !c.is_ascii_digit() {
                    return err(ParseErrorKind::InvalidByte, i);
                }
                // Saturate: anything this large over- or underflows anyway.
                exp = (exp * 10 + i64::from(c - b'0')).min(100_000);
                i += 1;
            }
            if i == start {
                return err(ParseErrorKind::Exponent, at);
            }
            if neg {
                exp = -exp;
            }
        }
        // value = mant × 10^(exp + dropped_int − frac_digits); in units: × 10^18.
        let shift = exp + dropped_int - frac_digits + i64::from(Self::DECIMALS);
        let units = if shift >= 0 {
            if mant == 0 {
                0
            } else {
                let Some(p) = u32::try_from(shift).ok().and_then(pow10) else {
                    return err(ParseErrorKind::Overflow, 0);
                };
                match mant.checked_mul(p) {
                    Some(u) => u,
                    None => return err(ParseErrorKind::Overflow, 0),
                }
            }
        } else {
            match u32::try_from(-shift).ok().and_then(pow10) {
                Some(p) => mant / p,
                // Below 10⁻¹⁸ × 10⁻³⁸: rounds to zero.
                None => 0,
            }
        };
        Ok(Self(units))
    }

    /// Writes the shortest exact decimal text into `buf` and returns it, without allocating.
    ///
    /// ```
    /// use polyclob::rtds::RefPrice;
    /// let mut buf = [0u8; 48];
    /// assert_eq!(RefPrice::parse(b"307.91500")?.write_str(&mut buf), "307.915");
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    pub fn write_str(self, buf: &mut [u8; 48]) -> &str {
        format_scaled(self.0, Self::DECIMALS as usize, buf)
    }
}

/// Arithmetic a bot needs on reference prices, exact (integer units of 10⁻¹⁸).
impl RefPrice {
    /// `self + rhs`, `None` on overflow.
    #[must_use]
    pub const fn checked_add(self, rhs: Self) -> Option<Self> {
        match self.0.checked_add(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self − rhs`, `None` when `rhs` is larger (prices are non-negative).
    #[must_use]
    pub const fn checked_sub(self, rhs: Self) -> Option<Self> {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `|self − rhs|`.
    ///
    /// ```
    /// use polyclob::rtds::RefPrice;
    /// let (a, b) = (RefPrice::parse(b"100.5")?, RefPrice::parse(b"101")?);
    /// assert_eq!(a.abs_diff(b).to_string(), "0.5");
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    pub const fn abs_diff(self, rhs: Self) -> Self {
        Self(self.0.abs_diff(rhs.0))
    }

    /// `self − rhs` in signed units of 10⁻¹⁸; `None` beyond `i128` (differences above
    /// 1.7 × 10²⁰).
    #[must_use]
    pub fn diff_e18(self, rhs: Self) -> Option<i128> {
        let d = i128::try_from(self.0.abs_diff(rhs.0)).ok()?;
        Some(if self.0 >= rhs.0 { d } else { -d })
    }

    /// The change from `base` to `self` in basis points, exact to 10⁻⁶ bp (rounded toward
    /// zero): `(self − base) / base × 10 000`. `None` when `base` is zero or the
    /// difference exceeds 1.7 × 10¹⁰ (in price units).
    ///
    /// ```
    /// use polyclob::rtds::RefPrice;
    /// let open = RefPrice::parse(b"64000")?;
    /// let now = RefPrice::parse(b"64032")?;
    /// let bps = now.bps_from(open).unwrap();
    /// assert_eq!(bps.to_string(), "5");
    /// assert_eq!(open.bps_from(now).unwrap().as_micro_bps(), -4_997_501);
    /// assert!(now.bps_from(RefPrice::ZERO).is_none());
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    #[must_use]
    pub fn bps_from(self, base: Self) -> Option<Bps> {
        if base.0 == 0 {
            return None;
        }
        let d = self.diff_e18(base)?;
        // bp × 10⁶ = d / base × 10⁴ × 10⁶.
        let scaled = d.checked_mul(10_000_000_000)?;
        let base = i128::try_from(base.0).ok()?;
        Some(Bps(scaled / base))
    }
}

/// A signed change in basis points, exact to 10⁻⁶ bp ([`RefPrice::bps_from`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Bps(i128);

impl Bps {
    /// The value in millionths of a basis point.
    #[must_use]
    pub const fn as_micro_bps(self) -> i128 {
        self.0
    }

    /// Whole basis points, rounded toward zero.
    #[must_use]
    pub const fn whole(self) -> i128 {
        self.0 / 1_000_000
    }
}

impl fmt::Display for Bps {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 48];
        let text = format_scaled(self.0.unsigned_abs(), 6, &mut buf);
        if self.0 < 0 {
            f.write_str("-")?;
        }
        f.write_str(text)
    }
}

impl fmt::Display for RefPrice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 48];
        f.pad(self.write_str(&mut buf))
    }
}

impl fmt::Debug for RefPrice {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 48];
        write!(f, "RefPrice({})", self.write_str(&mut buf))
    }
}

impl FromStr for RefPrice {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s.as_bytes())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn p(s: &str) -> u128 {
        RefPrice::parse(s.as_bytes()).unwrap().as_e18()
    }

    /// A naive oracle: shift the decimal point by string manipulation.
    fn oracle(int: &str, frac: &str) -> u128 {
        let mut f = frac.to_owned();
        f.truncate(18);
        while f.len() < 18 {
            f.push('0');
        }
        format!("{int}{f}").parse::<u128>().unwrap()
    }

    #[test]
    fn table() {
        assert_eq!(p("0"), 0);
        assert_eq!(p("0.0"), 0);
        assert_eq!(p("1"), RefPrice::SCALE);
        assert_eq!(p(".5"), RefPrice::SCALE / 2);
        assert_eq!(p("5."), 5 * RefPrice::SCALE);
        assert_eq!(p("61164.12"), oracle("61164", "12"));
        assert_eq!(p("61035.86000000"), oracle("61035", "86"));
        assert_eq!(p("0.000000000000000001"), 1);
        assert_eq!(p("0.0000000000000000019"), 1, "truncated past 18 decimals");
        assert_eq!(p("1.5e3"), 1500 * RefPrice::SCALE);
        assert_eq!(p("1.5E+3"), 1500 * RefPrice::SCALE);
        assert_eq!(p("15e-1"), oracle("1", "5"));
        assert_eq!(p("0e99999999"), 0);
        assert_eq!(p("1e-40"), 0);
        assert_eq!(p("340282366920938463463.374607431768211455"), u128::MAX);
    }

    #[test]
    fn errors() {
        for (s, k) in [
            ("", ParseErrorKind::Empty),
            (".", ParseErrorKind::Empty),
            ("-1", ParseErrorKind::Sign),
            ("+1", ParseErrorKind::Sign),
            ("1.2.3", ParseErrorKind::InvalidByte),
            ("1,5", ParseErrorKind::InvalidByte),
            ("1e", ParseErrorKind::Exponent),
            ("1e+", ParseErrorKind::Exponent),
            ("1ex", ParseErrorKind::InvalidByte),
            ("1e1.5", ParseErrorKind::InvalidByte),
            ("340282366920938463464", ParseErrorKind::Overflow),
            ("1e21", ParseErrorKind::Overflow),
            (
                "99999999999999999999999999999999999999999999",
                ParseErrorKind::Overflow,
            ),
        ] {
            assert_eq!(RefPrice::parse(s.as_bytes()).unwrap_err().kind(), k, "{s}");
        }
    }

    #[test]
    fn matches_oracle_on_generated_decimals() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        for _ in 0..5_000 {
            x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
            let int = (x >> 20) % 10_000_000;
            let frac_len = (x % 22) as usize;
            let frac: String = (0..frac_len)
                .map(|k| char::from(b'0' + ((x >> (k % 40)) % 10) as u8))
                .collect();
            let text = if frac_len == 0 {
                int.to_string()
            } else {
                format!("{int}.{frac}")
            };
            assert_eq!(p(&text), oracle(&int.to_string(), &frac), "{text}");
        }
    }

    #[test]
    fn arithmetic() {
        let r = |s: &str| RefPrice::parse(s.as_bytes()).unwrap();
        assert_eq!(r("1.5").checked_add(r("2.25")), Some(r("3.75")));
        assert_eq!(RefPrice::MAX.checked_add(r("0.000000000000000001")), None);
        assert_eq!(r("2").checked_sub(r("3")), None);
        assert_eq!(r("3").checked_sub(r("2")), Some(r("1")));
        assert_eq!(r("2").diff_e18(r("3")), Some(-(RefPrice::SCALE as i128)));
        assert_eq!(RefPrice::MAX.diff_e18(RefPrice::ZERO), None);
        // Against a naive oracle on f64 where f64 is exact enough.
        for (a, b) in [
            ("101", "100"),
            ("99.99", "100"),
            ("64126.5", "64000"),
            ("1", "3"),
        ] {
            let got = r(a).bps_from(r(b)).unwrap().as_micro_bps();
            let want = ((a.parse::<f64>().unwrap() - b.parse::<f64>().unwrap())
                / b.parse::<f64>().unwrap()
                * 1e10)
                .trunc() as i128;
            assert!((got - want).abs() <= 1, "{a} vs {b}: {got} {want}");
        }
        assert_eq!(r("99").bps_from(r("100")).unwrap().to_string(), "-100");
        assert_eq!(r("1").bps_from(r("3")).unwrap().whole(), -6666);
        assert_eq!(RefPrice::MAX.bps_from(r("1")), None);
    }

    #[test]
    fn display_round_trips() {
        for s in [
            "0",
            "1",
            "0.08991",
            "61164.12",
            "340282366920938463463.374607431768211455",
        ] {
            assert_eq!(RefPrice::parse(s.as_bytes()).unwrap().to_string(), s);
        }
        assert_eq!(size_of::<RefPrice>(), 16);
    }
}
