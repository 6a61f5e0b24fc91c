//! [`Amount`]: a signed pUSD figure (P&L, cash flows; also server-computed percentages and
//! handicap lines), exact to 10⁻⁶.

use core::fmt;
use core::str::FromStr;

use super::{
    DECIMALS, Notional, ParseError, ParseErrorKind, Price, Size, format_scaled, parse_micros,
};

/// A signed decimal exact to 10⁻⁶: realized and unrealized P&L, cash in and out, the Data
/// API's signed figures, Gamma's handicap lines.
///
/// [`Price`], [`Size`] and [`Notional`] are unsigned; a P&L is not. Parsing is exact, like
/// theirs: more than 6 decimals is an error, never a rounding (the Data API's computed figures,
/// which do carry more, are rounded by its decoders before they become an `Amount`).
///
/// ```
/// use polyclob::fixed::{Amount, Size};
///
/// let pnl: Amount = "-1082.5533".parse()?;
/// assert_eq!(pnl.as_micros(), -1_082_553_300);
/// assert!(pnl.is_negative());
/// assert_eq!(pnl.to_string(), "-1082.5533");
/// let proceeds = Amount::from(Size::parse(b"4.9205")?);
/// assert_eq!(proceeds.checked_add(pnl).unwrap().to_string(), "-1077.6328");
/// assert!("0.0000001".parse::<Amount>().is_err());
/// # Ok::<(), polyclob::fixed::ParseError>(())
/// ```
#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
#[must_use]
pub struct Amount(i64);

impl Amount {
    /// Zero.
    pub const ZERO: Self = Self(0);
    /// The largest amount.
    pub const MAX: Self = Self(i64::MAX);
    /// The smallest amount.
    pub const MIN: Self = Self(i64::MIN);
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

    /// Parses `"-1.5"`, `"7.525"`, `"0"`: an optional `-`, then what [`Size::parse`] takes.
    ///
    /// # Errors
    /// Any [`ParseErrorKind`] (offsets count the sign); a value beyond `±i64::MAX` micro-units
    /// is [`ParseErrorKind::Overflow`].
    pub fn parse(bytes: &[u8]) -> Result<Self, ParseError> {
        let (negative, digits) = match bytes.split_first() {
            Some((b'-', rest)) => (true, rest),
            _ => (false, bytes),
        };
        let shift = usize::from(negative);
        let micros =
            parse_micros(digits).map_err(|e| ParseError::new(e.kind(), e.offset() + shift))?;
        let v = i64::try_from(micros).map_err(|_| {
            ParseError::new(ParseErrorKind::Overflow, bytes.len().saturating_sub(1))
        })?;
        Ok(Self(if negative { -v } else { v }))
    }

    /// The amount a notional rounds down to (toward zero), or `None` beyond `i64::MAX` units.
    pub const fn from_notional_floor(n: Notional) -> Option<Self> {
        match n.floor_micros() {
            Some(m) if m <= i64::MAX as u64 => Some(Self(m as i64)),
            _ => None,
        }
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

    /// The magnitude as a [`Size`].
    pub const fn unsigned_abs(self) -> Size {
        Size::from_micros(self.0.unsigned_abs())
    }

    pub(crate) fn from_micros_i128(m: i128) -> Option<Self> {
        i64::try_from(m).ok().map(Self)
    }

    /// Writes the shortest exact decimal text (with a leading `-` when negative) into `buf`
    /// and returns it, without allocating.
    pub fn write_str(self, buf: &mut [u8; 48]) -> &str {
        let base = buf.as_ptr() as usize;
        let digits = format_scaled(u128::from(self.0.unsigned_abs()), DECIMALS as usize, buf);
        // The digits are a slice of `buf` that never starts at its first byte (at most 21 of
        // its 48 bytes are written, right-aligned), so there is room for the sign before them.
        let (start, len) = (digits.as_ptr() as usize - base, digits.len());
        let end = start + len;
        let from = if self.0 < 0 && start > 0 {
            buf[start - 1] = b'-';
            start - 1
        } else {
            start
        };
        core::str::from_utf8(&buf[from..end]).unwrap_or("")
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
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s.as_bytes())
    }
}

impl fmt::Display for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 48];
        f.pad(self.write_str(&mut buf))
    }
}

impl fmt::Debug for Amount {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Amount({self})")
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
            ("-0", 0, "0"),
            ("-12", -12_000_000, "-12"),
            ("0.0000000", 0, "0"),
            ("11.11", 11_110_000, "11.11"),
            ("-9223372036854.775807", -i64::MAX, "-9223372036854.775807"),
        ] {
            let a: Amount = text.parse().unwrap();
            assert_eq!(a.as_micros(), micros, "{text}");
            assert_eq!(a.to_string(), shown);
        }
        assert_eq!(Amount::MIN.to_string(), "-9223372036854.775808");
        assert_eq!(format!("{:>6}", Amount::from_micros(-500_000)), "  -0.5");
        assert_eq!(Amount::from(Size::from_micros(5)).as_micros(), 5);
        assert_eq!(Amount::from_micros(1).checked_add(Amount::MAX), None);
        assert_eq!(Amount::from_micros(-3).unsigned_abs(), Size::from_micros(3));
    }

    #[test]
    fn parse_refuses_what_is_not_exact() {
        use ParseErrorKind::*;
        for (text, kind, offset) in [
            ("x", InvalidByte, 0),
            ("-", Empty, 1),
            ("+1", Sign, 0),
            ("--1", Sign, 1),
            ("1e20", Exponent, 1),
            ("-0.0000004", TooPrecise, 9),
            ("9223372036854.775808", Overflow, 19),
        ] {
            let e = text.parse::<Amount>().unwrap_err();
            assert_eq!((e.kind(), e.offset()), (kind, offset), "{text}");
        }
    }

    #[test]
    fn notional_floors_toward_zero() {
        let n = Price::parse(b"0.333333")
            .unwrap()
            .checked_mul_size(Size::ONE)
            .unwrap();
        assert_eq!(
            Amount::from_notional_floor(n),
            Some(Amount::from_micros(333_333))
        );
        assert_eq!(Amount::from_notional_floor(Notional::MAX), None);
    }
}
