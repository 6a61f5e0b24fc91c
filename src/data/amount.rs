//! [`Amount`]: a signed fixed-point figure (PnL, percentages, handicap lines), exact to 10⁻⁶.

use std::fmt;
use std::str::FromStr;

use crate::fixed::{Price, Size};
use crate::http::rounded::parse_micros_rounded;

/// A signed decimal exact to 10⁻⁶: cash and realized PnL in pUSD, percentages, sports lines.
///
/// [`Price`] and [`Size`] are unsigned; the Data API reports losses as negative numbers, and
/// Gamma sends handicap lines such as `-1.5`. Parsing from the servers' figures rounds half away
/// from zero at the 6th decimal (they compute these values; they are not exchange amounts).
///
/// ```
/// use polyclob::data::Amount;
///
/// let pnl: Amount = "-1082.5533".parse()?;
/// assert_eq!(pnl.as_micros(), -1_082_553_300);
/// assert!(pnl.is_negative());
/// assert_eq!(pnl.to_string(), "-1082.5533");
/// # Ok::<(), polyclob::data::AmountError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[must_use]
pub struct Amount(i64);

/// A text that is not a decimal, or one outside the `i64` micro-unit range.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AmountError;

impl fmt::Display for AmountError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a decimal amount within ±9.2e12")
    }
}

impl std::error::Error for AmountError {}

impl Amount {
    /// Zero.
    pub const ZERO: Self = Self(0);
    /// The largest amount.
    pub const MAX: Self = Self(i64::MAX);
    /// Units per whole pUSD.
    pub const SCALE: i64 = 1_000_000;

    /// An amount from signed micro-units (every `i64` is valid).
    pub const fn from_micros(micros: i64) -> Self {
        Self(micros)
    }

    /// The signed value in units of 10⁻⁶.
    #[must_use]
    pub const fn as_micros(self) -> i64 {
        self.0
    }

    /// Whether this is below zero.
    #[must_use]
    pub const fn is_negative(self) -> bool {
        self.0 < 0
    }

    /// Whether this is zero.
    #[must_use]
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// The sum, `None` on overflow.
    #[must_use]
    pub const fn checked_add(self, rhs: Self) -> Option<Self> {
        match self.0.checked_add(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// The difference, `None` on overflow.
    #[must_use]
    pub const fn checked_sub(self, rhs: Self) -> Option<Self> {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    pub(crate) fn from_micros_i128(m: i128) -> Option<Self> {
        i64::try_from(m).ok().map(Self)
    }
}

impl From<Size> for Amount {
    /// Sizes above `i64::MAX` micro-units (9.2 trillion) saturate.
    fn from(s: Size) -> Self {
        Self(i64::try_from(s.as_micros()).unwrap_or(i64::MAX))
    }
}

impl From<Price> for Amount {
    fn from(p: Price) -> Self {
        Self(i64::from(p.as_micros()))
    }
}

impl FromStr for Amount {
    type Err = AmountError;

    /// Parses `"-1.5"`, `"7.525"`, `"1e-3"`, rounding half away from zero past 6 decimals.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        parse_micros_rounded(s)
            .and_then(Self::from_micros_i128)
            .ok_or(AmountError)
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let abs = self.0.unsigned_abs();
        let int = abs / 1_000_000;
        let frac = abs % 1_000_000;
        let sign = if self.0 < 0 { "-" } else { "" };
        if frac == 0 {
            return f.pad(&format!("{sign}{int}"));
        }
        let mut digits = format!("{frac:06}");
        while digits.ends_with('0') {
            digits.pop();
        }
        f.pad(&format!("{sign}{int}.{digits}"))
    }
}

impl fmt::Debug for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Amount({self})")
    }
}

/// `Option<Amount>` from a JSON number or decimal string, rounded; `""`/`null` → `None`.
pub(crate) fn amount_opt<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> Result<Option<Amount>, D::Error> {
    match crate::http::rounded::micros_opt(d)? {
        None => Ok(None),
        Some(m) => Amount::from_micros_i128(m)
            .map(Some)
            .ok_or_else(|| serde::de::Error::custom("amount out of range")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_of_is_one_word() {
        assert_eq!(size_of::<Amount>(), 8);
    }

    #[test]
    fn parse_and_display_round_trip() {
        for (text, micros, shown) in [
            ("7.525", 7_525_000, "7.525"),
            ("-0.5", -500_000, "-0.5"),
            ("0", 0, "0"),
            ("-12", -12_000_000, "-12"),
            ("0.0000004", 0, "0"),
            ("11.11", 11_110_000, "11.11"),
        ] {
            let a: Amount = text.parse().unwrap();
            assert_eq!(a.as_micros(), micros, "{text}");
            assert_eq!(a.to_string(), shown);
        }
        assert!("x".parse::<Amount>().is_err());
        assert!("1e20".parse::<Amount>().is_err());
        assert_eq!(Amount::from(Size::from_micros(5)).as_micros(), 5);
        assert_eq!(Amount::from_micros(1).checked_add(Amount::MAX), None);
    }
}
