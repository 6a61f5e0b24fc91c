//! Fixed-point prices, sizes and notionals, parsed straight from decimal bytes.
//!
//! ```
//! use polyclob::fixed::{Price, Size};
//!
//! let price: Price = ".48".parse()?;
//! let size = Size::parse(b"219.217767")?;
//! let notional = price.checked_mul_size(size).expect("in range");
//! assert_eq!(notional.to_string(), "105.22452816");
//! assert_eq!(price.to_string(), "0.48");
//! # Ok::<(), polyclob::fixed::ParseError>(())
//! ```
//!
//! Polymarket quotes every price and size as a decimal *string* (`"0.48"`, `".48"`,
//! `"219.217767"`) and settles in 6-decimal integer units (pUSD and outcome shares both have
//! 6 decimals). These types hold exactly those integers, so no binary floating point ever
//! touches a value that reaches a book or a signature.
//!
//! | type | unit | width | range |
//! |---|---|---|---|
//! | [`Price`] | 10⁻⁶ pUSD per share | `u32` | `0 ..= 1` |
//! | [`Size`] | 10⁻⁶ share or pUSD | `u64` | `0 ..= 18_446_744_073_709.551615` |
//! | [`Notional`] | 10⁻¹² pUSD (the exact product) | `u128` | `0 ..= Size::MAX × 1` |
//! | [`Amount`] | 10⁻⁶ pUSD, signed (P&L, cash flows) | `i64` | `±9_223_372_036_854.775807` |
//!
//! With them, the arithmetic a position needs, exact: [`CostBasis`] (average cost, fees,
//! realized and unrealized P&L), [`Notional::checked_div_size_floor`] (an average price) and
//! [`Size::split_lot`] (the size the exchange accepts for a sell, and the dust).

use core::fmt;
use core::str::FromStr;

use rust_decimal::Decimal;

mod amount;
mod basis;

pub use self::amount::Amount;
pub use self::basis::CostBasis;

/// Number of decimal places carried by [`Price`] and [`Size`].
pub const DECIMALS: u32 = 6;

/// 10^[`DECIMALS`]: the integer value of one whole unit.
pub const SCALE: u64 = 1_000_000;

/// Powers of ten that fit in a `u64`, indexed by exponent.
const POW10: [u64; 20] = {
    let mut table = [1u64; 20];
    let mut i = 1;
    while i < 20 {
        table[i] = table[i - 1] * 10;
        i += 1;
    }
    table
};

/// What was wrong with a decimal string.
///
/// The variants name the first problem found, scanning left to right.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// The input was empty (or only a `.`).
    Empty,
    /// A `+` or `-` sign: prices and sizes are unsigned and never carry a sign on the wire.
    Sign,
    /// An `e`/`E` exponent: the exchange never sends scientific notation.
    Exponent,
    /// A byte that is not an ASCII digit or a single `.`.
    InvalidByte,
    /// A non-zero digit past the 6th decimal place: the value is not representable exactly.
    TooPrecise,
    /// The value does not fit the type's integer width.
    Overflow,
    /// The value parsed but lies outside the type's range (a price above 1).
    OutOfRange,
}

impl ParseErrorKind {
    /// A short, static description of the problem.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Empty => "empty decimal",
            Self::Sign => "sign not allowed",
            Self::Exponent => "exponent not allowed",
            Self::InvalidByte => "invalid byte in decimal",
            Self::TooPrecise => "non-zero digit past the 6th decimal",
            Self::Overflow => "decimal overflows its integer width",
            Self::OutOfRange => "value out of range",
        }
    }
}

/// A decimal string that could not be parsed into a fixed-point value.
///
/// Small and `Copy` so that hot-path decoders can return it without allocating; the
/// [`offset`](Self::offset) is the byte index of the offending byte in the input.
///
/// ```
/// use polyclob::fixed::{ParseErrorKind, Size};
///
/// let err = Size::parse(b"1.0000001").unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::TooPrecise);
/// assert_eq!(err.offset(), 8);
/// assert_eq!(err.to_string(), "non-zero digit past the 6th decimal at byte 8");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct ParseError {
    kind: ParseErrorKind,
    offset: u32,
}

impl ParseError {
    #[inline]
    pub(crate) const fn new(kind: ParseErrorKind, offset: usize) -> Self {
        // Offsets past u32::MAX are clamped: no decimal that long is ever parsed successfully.
        let offset = if offset > u32::MAX as usize {
            u32::MAX
        } else {
            offset as u32
        };
        Self { kind, offset }
    }

    /// What was wrong.
    #[must_use]
    pub const fn kind(&self) -> ParseErrorKind {
        self.kind
    }

    /// Byte offset in the input where the problem was found.
    #[must_use]
    pub const fn offset(&self) -> usize {
        self.offset as usize
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} at byte {}", self.kind.as_str(), self.offset)
    }
}

impl std::error::Error for ParseError {}

/// A [`Decimal`] that has no exact fixed-point counterpart.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DecimalError {
    /// The decimal is negative.
    Negative,
    /// The decimal has a non-zero digit past the 6th decimal place.
    TooPrecise,
    /// The decimal is larger than the type can hold (or, for a price, above 1).
    OutOfRange,
}

impl fmt::Display for DecimalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Negative => "negative decimal",
            Self::TooPrecise => "decimal has a non-zero digit past the 6th decimal",
            Self::OutOfRange => "decimal out of range",
        })
    }
}

impl std::error::Error for DecimalError {}

/// Parses an unsigned decimal into integer units of 10⁻⁶, rejecting anything inexact.
///
/// Accepts `"1"`, `"0.48"`, `".48"`, `"1."`, `"100.0000"` and zeros past the 6th decimal
/// (`"0.5000000"`). The integer part may have leading zeros.
///
/// # Errors
/// Returns a [`ParseError`] naming the first offending byte.
#[inline]
pub fn parse_micros(bytes: &[u8]) -> Result<u64, ParseError> {
    let mut value: u64 = 0;
    let mut i = 0;
    let len = bytes.len();
    let mut int_digits = 0usize;

    // Integer part.
    while i < len {
        let b = bytes[i];
        let d = b.wrapping_sub(b'0');
        if d > 9 {
            break;
        }
        value = match value
            .checked_mul(10)
            .and_then(|v| v.checked_add(u64::from(d)))
        {
            Some(v) => v,
            None => return Err(ParseError::new(ParseErrorKind::Overflow, i)),
        };
        int_digits += 1;
        i += 1;
    }
    // Scale the integer part now so that overflow is reported where it happens.
    let Some(mut micros) = value.checked_mul(SCALE) else {
        return Err(ParseError::new(
            ParseErrorKind::Overflow,
            i.saturating_sub(1),
        ));
    };

    let mut frac_digits = 0usize;
    if i < len && bytes[i] == b'.' {
        i += 1;
        let mut frac: u64 = 0;
        while i < len {
            let b = bytes[i];
            let d = b.wrapping_sub(b'0');
            if d > 9 {
                break;
            }
            if frac_digits < DECIMALS as usize {
                frac = frac * 10 + u64::from(d);
            } else if d != 0 {
                return Err(ParseError::new(ParseErrorKind::TooPrecise, i));
            }
            frac_digits += 1;
            i += 1;
        }
        let shown = frac_digits.min(DECIMALS as usize);
        frac *= POW10[DECIMALS as usize - shown];
        micros = match micros.checked_add(frac) {
            Some(v) => v,
            None => {
                return Err(ParseError::new(
                    ParseErrorKind::Overflow,
                    i.saturating_sub(1),
                ));
            }
        };
    }

    if i < len {
        let kind = match bytes[i] {
            b'+' | b'-' => ParseErrorKind::Sign,
            b'e' | b'E' => ParseErrorKind::Exponent,
            _ => ParseErrorKind::InvalidByte,
        };
        return Err(ParseError::new(kind, i));
    }
    if int_digits == 0 && frac_digits == 0 {
        return Err(ParseError::new(ParseErrorKind::Empty, 0));
    }
    Ok(micros)
}

/// Writes `value / 10^decimals` in its shortest exact form into `buf`, returning the text.
///
/// Trailing fractional zeros and a trailing `.` are trimmed: `480000` at 6 decimals is `"0.48"`.
pub(crate) fn format_scaled(value: u128, decimals: usize, buf: &mut [u8; 48]) -> &str {
    // u128 division is several times slower than u64's; prices and sizes always fit a u64.
    match u64::try_from(value) {
        Ok(v) => format_digits(v, decimals, buf),
        Err(_) => format_digits(value, decimals, buf),
    }
}

fn format_digits<T>(mut value: T, decimals: usize, buf: &mut [u8; 48]) -> &str
where
    T: Copy + PartialEq + From<u8> + core::ops::Div<Output = T> + core::ops::Rem<Output = T>,
    u8: TryFrom<T>,
{
    let ten = T::from(10);
    let zero = T::from(0);
    let digit = |v: T| u8::try_from(v % ten).unwrap_or(0);
    let mut end = buf.len();
    let mut pos = end;
    // Fractional digits, least significant first; trailing zeros are dropped.
    let mut trimming = true;
    for _ in 0..decimals {
        let d = digit(value);
        value = value / ten;
        if trimming && d == 0 {
            end -= 1;
            pos -= 1;
            continue;
        }
        trimming = false;
        pos -= 1;
        buf[pos] = b'0' + d;
    }
    if !trimming {
        pos -= 1;
        buf[pos] = b'.';
    }
    // Integer digits (at least one).
    loop {
        pos -= 1;
        buf[pos] = b'0' + digit(value);
        value = value / ten;
        if value == zero {
            break;
        }
    }
    // Every byte written above is an ASCII digit or '.', so this cannot fail.
    core::str::from_utf8(&buf[pos..end]).unwrap_or("")
}

/// Converts a non-negative `Decimal` to integer units of `10^-decimals`, exactly.
fn decimal_to_scaled(d: Decimal, decimals: u32) -> Result<u128, DecimalError> {
    if d.is_sign_negative() && !d.is_zero() {
        return Err(DecimalError::Negative);
    }
    let mantissa = d.mantissa().unsigned_abs();
    let scale = d.scale();
    if scale <= decimals {
        mantissa
            .checked_mul(10u128.pow(decimals - scale))
            .ok_or(DecimalError::OutOfRange)
    } else {
        let div = 10u128.pow(scale - decimals);
        if mantissa % div != 0 {
            return Err(DecimalError::TooPrecise);
        }
        Ok(mantissa / div)
    }
}

macro_rules! common_impls {
    ($ty:ident, $inner:ty) => {
        impl $ty {
            /// Zero.
            pub const ZERO: Self = Self(0);

            /// The raw integer value in units of 10⁻⁶ (a free borrow of the representation).
            #[must_use]
            #[inline]
            pub const fn as_micros(self) -> $inner {
                self.0
            }

            /// Whether this is zero.
            #[must_use]
            #[inline]
            pub const fn is_zero(self) -> bool {
                self.0 == 0
            }

            /// The exact [`Decimal`] value (scale 6, normalised).
            #[must_use]
            pub fn to_decimal(self) -> Decimal {
                // A u64 mantissa always fits Decimal's 96 bits.
                Decimal::from_i128_with_scale(i128::from(self.0), DECIMALS).normalize()
            }

            /// Writes the shortest exact decimal text into `buf` and returns it, without allocating.
            pub fn write_str(self, buf: &mut [u8; 48]) -> &str {
                format_scaled(u128::from(self.0), DECIMALS as usize, buf)
            }
        }

        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut buf = [0u8; 48];
                f.pad(self.write_str(&mut buf))
            }
        }

        impl fmt::Debug for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                let mut buf = [0u8; 48];
                write!(f, "{}({})", stringify!($ty), self.write_str(&mut buf))
            }
        }

        impl FromStr for $ty {
            type Err = ParseError;

            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Self::parse(s.as_bytes())
            }
        }

        impl TryFrom<Decimal> for $ty {
            type Error = DecimalError;

            fn try_from(d: Decimal) -> Result<Self, Self::Error> {
                Self::from_decimal(d)
            }
        }

        impl From<$ty> for Decimal {
            fn from(v: $ty) -> Decimal {
                v.to_decimal()
            }
        }
    };
}

/// A price in pUSD per share, exact to 10⁻⁶, always within `0 ..= 1`.
///
/// ```
/// use polyclob::fixed::Price;
///
/// let p = Price::parse(b"0.565")?;
/// assert_eq!(p.as_micros(), 565_000);
/// assert_eq!(p.complement(), Price::new(435_000).unwrap());
/// assert!(Price::parse(b"1.01").is_err());
/// # Ok::<(), polyclob::fixed::ParseError>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[must_use]
pub struct Price(u32);

common_impls!(Price, u32);

impl Price {
    /// One pUSD per share, the largest price.
    pub const ONE: Self = Self(SCALE as u32);
    /// The largest price (= [`Price::ONE`]).
    pub const MAX: Self = Self::ONE;
    /// Units per whole pUSD.
    pub const SCALE: u32 = SCALE as u32;

    /// A price from micro-units, or `None` above 1.
    #[inline]
    pub const fn new(micros: u32) -> Option<Self> {
        if micros <= SCALE as u32 {
            Some(Self(micros))
        } else {
            None
        }
    }

    /// Parses a decimal price such as `"0.48"`, `".48"` or `"1"`.
    ///
    /// # Errors
    /// Any [`ParseErrorKind`]; a price above 1 is [`ParseErrorKind::OutOfRange`] at byte 0.
    #[inline]
    pub fn parse(bytes: &[u8]) -> Result<Self, ParseError> {
        let micros = parse_micros(bytes)?;
        if micros > SCALE {
            return Err(ParseError::new(ParseErrorKind::OutOfRange, 0));
        }
        Ok(Self(micros as u32))
    }

    /// Converts an exact [`Decimal`].
    ///
    /// # Errors
    /// Negative, more than 6 decimals, or above 1.
    pub fn from_decimal(d: Decimal) -> Result<Self, DecimalError> {
        match decimal_to_scaled(d, DECIMALS)? {
            v if v <= u128::from(SCALE) => Ok(Self(v as u32)),
            _ => Err(DecimalError::OutOfRange),
        }
    }

    /// `1 − self`: the price of the complementary outcome.
    #[inline]
    pub const fn complement(self) -> Self {
        Self(SCALE as u32 - self.0)
    }

    /// `self + rhs`, or `None` above 1.
    #[inline]
    pub const fn checked_add(self, rhs: Self) -> Option<Self> {
        Self::new(self.0 + rhs.0)
    }

    /// `self − rhs`, or `None` below 0.
    #[inline]
    pub const fn checked_sub(self, rhs: Self) -> Option<Self> {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// The exact value `self × size`.
    ///
    /// Returns `None` only if the product overflows `u128`, which cannot happen for in-range
    /// inputs; the `Option` keeps the arithmetic uniformly checked.
    #[inline]
    pub const fn checked_mul_size(self, size: Size) -> Option<Notional> {
        match (self.0 as u128).checked_mul(size.0 as u128) {
            Some(v) => Some(Notional(v)),
            None => None,
        }
    }
}

/// A quantity of shares or pUSD, exact to 10⁻⁶ (the on-chain unit of both).
///
/// ```
/// use polyclob::fixed::Size;
///
/// let s: Size = "100.0000".parse()?;
/// assert_eq!(s.as_micros(), 100_000_000);
/// assert_eq!(s.to_string(), "100");
/// assert_eq!(Size::parse(b"4.356")?.floor_to(2).to_string(), "4.35");
/// # Ok::<(), polyclob::fixed::ParseError>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[must_use]
pub struct Size(u64);

common_impls!(Size, u64);

impl Size {
    /// One whole share (or pUSD).
    pub const ONE: Self = Self(SCALE);
    /// The largest representable size.
    pub const MAX: Self = Self(u64::MAX);
    /// Units per whole share.
    pub const SCALE: u64 = SCALE;

    /// A size from micro-units. Every `u64` is valid; the `Option` matches the other newtypes.
    #[inline]
    pub const fn new(micros: u64) -> Option<Self> {
        Some(Self(micros))
    }

    /// A size from micro-units.
    #[inline]
    pub const fn from_micros(micros: u64) -> Self {
        Self(micros)
    }

    /// Parses a decimal size such as `"219.217767"` or `"30"`.
    ///
    /// # Errors
    /// Any [`ParseErrorKind`] except `OutOfRange`.
    #[inline]
    pub fn parse(bytes: &[u8]) -> Result<Self, ParseError> {
        parse_micros(bytes).map(Self)
    }

    /// Converts an exact [`Decimal`].
    ///
    /// # Errors
    /// Negative, more than 6 decimals, or above [`Size::MAX`].
    pub fn from_decimal(d: Decimal) -> Result<Self, DecimalError> {
        let v = decimal_to_scaled(d, DECIMALS)?;
        u64::try_from(v)
            .map(Self)
            .map_err(|_| DecimalError::OutOfRange)
    }

    /// Decimal places of share amount the exchange accepts in an order's size: a SELL's
    /// shares, a limit BUY's shares (the lot, protocol.md §3.3–§3.4).
    pub const LOT_DECIMALS: u32 = 2;

    /// Splits a holding into the lot the exchange accepts for a sell ([`LOT_DECIMALS`]
    /// decimals, floored) and the dust left over.
    ///
    /// A FAK buy of pUSD yields shares with up to 4 (or 6) decimals, e.g. 31.6455; a sell of
    /// that size is refused, and the order builder floors it to the lot. The dust cannot be sold
    /// on the book: it is merged with the complementary outcome or redeemed. A GTC/GTD sell also
    /// needs the market's minimum size (typically 5 shares).
    ///
    /// ```
    /// use polyclob::fixed::Size;
    /// let (lot, dust) = Size::parse(b"31.6455")?.split_lot();
    /// assert_eq!((lot.to_string().as_str(), dust.to_string().as_str()), ("31.64", "0.0055"));
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    ///
    /// [`LOT_DECIMALS`]: Self::LOT_DECIMALS
    #[inline]
    pub const fn split_lot(self) -> (Self, Self) {
        let lot = self.floor_to(Self::LOT_DECIMALS);
        (lot, Self(self.0 - lot.0))
    }

    /// Truncates (rounds toward zero) to `decimals` decimal places (0..=6).
    ///
    /// This is the exchange's lot rounding: sizes are floored to 2 decimals
    /// ([`split_lot`](Self::split_lot)).
    #[inline]
    pub const fn floor_to(self, decimals: u32) -> Self {
        if decimals >= DECIMALS {
            return self;
        }
        let unit = POW10[(DECIMALS - decimals) as usize];
        Self(self.0 - self.0 % unit)
    }

    /// `self + rhs`, or `None` on overflow.
    #[inline]
    pub const fn checked_add(self, rhs: Self) -> Option<Self> {
        match self.0.checked_add(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self − rhs`, or `None` below zero.
    #[inline]
    pub const fn checked_sub(self, rhs: Self) -> Option<Self> {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self − rhs`, clamped at zero.
    #[inline]
    pub const fn saturating_sub(self, rhs: Self) -> Self {
        Self(self.0.saturating_sub(rhs.0))
    }

    /// The exact value `self × price`.
    #[inline]
    pub const fn checked_mul_price(self, price: Price) -> Option<Notional> {
        price.checked_mul_size(self)
    }
}

/// An exact pUSD amount with 12 decimals: the product of a [`Price`] and a [`Size`].
///
/// Keeping all 12 digits means `price × size` never rounds; callers choose how to round when
/// converting back to 6-decimal units ([`floor_micros`](Self::floor_micros),
/// [`to_micros_exact`](Self::to_micros_exact)).
///
/// ```
/// use polyclob::fixed::{Price, Size};
///
/// let n = Price::parse(b"0.56")?.checked_mul_size(Size::parse(b"21.04")?).unwrap();
/// assert_eq!(n.to_micros_exact(), Some(11_782_400));
/// # Ok::<(), polyclob::fixed::ParseError>(())
/// ```
#[derive(Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[must_use]
pub struct Notional(u128);

impl Notional {
    /// Zero.
    pub const ZERO: Self = Self(0);
    /// The largest representable notional.
    pub const MAX: Self = Self(u128::MAX);
    /// Decimal places carried.
    pub const DECIMALS: u32 = 12;
    /// Units per whole pUSD (10¹²).
    pub const SCALE: u128 = 1_000_000_000_000;

    /// A notional from raw units of 10⁻¹² pUSD.
    #[inline]
    pub const fn new(raw: u128) -> Option<Self> {
        Some(Self(raw))
    }

    /// A notional from 6-decimal micro-units (e.g. an on-chain pUSD amount).
    #[inline]
    pub const fn from_micros(micros: u64) -> Self {
        Self(micros as u128 * SCALE as u128)
    }

    /// The raw value in units of 10⁻¹².
    #[must_use]
    #[inline]
    pub const fn as_raw(self) -> u128 {
        self.0
    }

    /// Whether this is zero.
    #[must_use]
    #[inline]
    pub const fn is_zero(self) -> bool {
        self.0 == 0
    }

    /// The value in 10⁻⁶ units if it has no digits past the 6th decimal and fits a `u64`.
    #[must_use]
    #[inline]
    pub const fn to_micros_exact(self) -> Option<u64> {
        if self.0 % SCALE as u128 != 0 {
            return None;
        }
        let v = self.0 / SCALE as u128;
        if v > u64::MAX as u128 {
            None
        } else {
            Some(v as u64)
        }
    }

    /// The value truncated to 10⁻⁶ units, or `None` if it does not fit a `u64`.
    #[must_use]
    #[inline]
    pub const fn floor_micros(self) -> Option<u64> {
        let v = self.0 / SCALE as u128;
        if v > u64::MAX as u128 {
            None
        } else {
            Some(v as u64)
        }
    }

    /// Truncates to `decimals` decimal places (0..=12).
    #[inline]
    pub const fn floor_to(self, decimals: u32) -> Self {
        if decimals >= Self::DECIMALS {
            return self;
        }
        let unit = 10u128.pow(Self::DECIMALS - decimals);
        Self(self.0 - self.0 % unit)
    }

    /// Rounds up (away from zero) to `decimals` decimal places (0..=12), or `None` on overflow.
    #[inline]
    pub const fn ceil_to(self, decimals: u32) -> Option<Self> {
        if decimals >= Self::DECIMALS {
            return Some(self);
        }
        let unit = 10u128.pow(Self::DECIMALS - decimals);
        let rem = self.0 % unit;
        if rem == 0 {
            return Some(self);
        }
        match self.0.checked_add(unit - rem) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// Number of decimal places actually used (0..=12), ignoring trailing zeros.
    #[must_use]
    pub const fn decimal_places(self) -> u32 {
        let mut places = Self::DECIMALS;
        let mut v = self.0;
        while places > 0 && v % 10 == 0 {
            v /= 10;
            places -= 1;
        }
        places
    }

    /// `self + rhs`, or `None` on overflow.
    #[inline]
    pub const fn checked_add(self, rhs: Self) -> Option<Self> {
        match self.0.checked_add(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self − rhs`, or `None` below zero.
    #[inline]
    pub const fn checked_sub(self, rhs: Self) -> Option<Self> {
        match self.0.checked_sub(rhs.0) {
            Some(v) => Some(Self(v)),
            None => None,
        }
    }

    /// `self ÷ price` in shares, truncated to 10⁻⁶, or `None` for a zero price or overflow.
    ///
    /// Used for market BUY orders, where the taker amount is the pUSD spent divided by the price.
    #[inline]
    pub const fn checked_div_price_floor(self, price: Price) -> Option<Size> {
        if price.0 == 0 {
            return None;
        }
        // raw / 1e12 / (p / 1e6) shares = raw / p / 1e6 shares = raw / p micro-shares.
        let v = self.0 / price.0 as u128;
        if v > u64::MAX as u128 {
            None
        } else {
            Some(Size(v as u64))
        }
    }

    /// `self ÷ size`: the average price of `size` shares that cost `self`, truncated to
    /// 10⁻⁶; `None` for a zero size or an average above 1.
    ///
    /// ```
    /// use polyclob::fixed::{Notional, Price, Size};
    /// let cost = Notional::from_micros(24_999_945); // 31.6455 shares at 0.79
    /// let shares = Size::parse(b"31.6455")?;
    /// assert_eq!(cost.checked_div_size_floor(shares), Some(Price::parse(b"0.79")?));
    /// assert_eq!(cost.checked_div_size_floor(Size::ZERO), None);
    /// # Ok::<(), polyclob::fixed::ParseError>(())
    /// ```
    #[inline]
    pub const fn checked_div_size_floor(self, size: Size) -> Option<Price> {
        if size.0 == 0 {
            return None;
        }
        // raw / 1e12 pUSD / (s / 1e6) shares = raw / s / 1e6 pUSD per share = raw / s micros.
        let v = self.0 / size.0 as u128;
        if v > SCALE as u128 {
            None
        } else {
            Some(Price(v as u32))
        }
    }

    /// The exact [`Decimal`] value, or `None` if it exceeds Decimal's 96-bit mantissa.
    #[must_use]
    pub fn to_decimal(self) -> Option<Decimal> {
        let v = i128::try_from(self.0).ok()?;
        Decimal::try_from_i128_with_scale(v, Self::DECIMALS)
            .ok()
            .map(|d| d.normalize())
    }

    /// Converts an exact [`Decimal`].
    ///
    /// # Errors
    /// Negative or more than 12 decimals.
    pub fn from_decimal(d: Decimal) -> Result<Self, DecimalError> {
        decimal_to_scaled(d, Self::DECIMALS).map(Self)
    }

    /// Writes the shortest exact decimal text into `buf` and returns it, without allocating.
    pub fn write_str(self, buf: &mut [u8; 48]) -> &str {
        format_scaled(self.0, Self::DECIMALS as usize, buf)
    }
}

impl fmt::Display for Notional {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 48];
        f.pad(self.write_str(&mut buf))
    }
}

impl fmt::Debug for Notional {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut buf = [0u8; 48];
        write!(f, "Notional({})", self.write_str(&mut buf))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_are_pinned() {
        assert_eq!(size_of::<Price>(), 4);
        assert_eq!(size_of::<Size>(), 8);
        assert_eq!(size_of::<Notional>(), 16);
        assert_eq!(size_of::<ParseError>(), 8);
        assert_eq!(size_of::<Option<Price>>(), 8);
    }

    #[test]
    fn parses_wire_shapes() {
        let cases: &[(&str, u64)] = &[
            ("0.48", 480_000),
            (".48", 480_000),
            ("1", 1_000_000),
            ("1.", 1_000_000),
            ("0", 0),
            ("000.5", 500_000),
            ("219.217767", 219_217_767),
            ("100.0000", 100_000_000),
            ("0.5000000000", 500_000),
            ("18446744073709.551615", u64::MAX),
        ];
        for &(text, micros) in cases {
            assert_eq!(parse_micros(text.as_bytes()), Ok(micros), "{text}");
        }
    }

    #[test]
    fn rejects_with_kind_and_offset() {
        use ParseErrorKind::*;
        let cases: &[(&str, ParseErrorKind, usize)] = &[
            ("", Empty, 0),
            (".", Empty, 0),
            ("-1", Sign, 0),
            ("+0.5", Sign, 0),
            ("1e5", Exponent, 1),
            ("1.5E2", Exponent, 3),
            ("0.1234567", TooPrecise, 8),
            ("0.1234560001", TooPrecise, 11),
            ("1.2.3", InvalidByte, 3),
            (" 1", InvalidByte, 0),
            ("1 ", InvalidByte, 1),
            ("0x10", InvalidByte, 1),
            ("18446744073709.551616", Overflow, 20),
            ("18446744073710", Overflow, 13),
            ("99999999999999999999", Overflow, 19),
        ];
        for &(text, kind, offset) in cases {
            let err = parse_micros(text.as_bytes()).unwrap_err();
            assert_eq!((err.kind(), err.offset()), (kind, offset), "{text}");
        }
    }

    #[test]
    fn price_range() {
        assert_eq!(Price::parse(b"1").unwrap(), Price::ONE);
        assert_eq!(Price::parse(b"1.000000").unwrap(), Price::ONE);
        let err = Price::parse(b"1.000001").unwrap_err();
        assert_eq!(err.kind(), ParseErrorKind::OutOfRange);
        assert_eq!(Price::new(1_000_001), None);
    }

    #[test]
    fn display_is_shortest_exact() {
        let cases: &[(u64, &str)] = &[
            (0, "0"),
            (1, "0.000001"),
            (480_000, "0.48"),
            (1_000_000, "1"),
            (219_217_767, "219.217767"),
            (u64::MAX, "18446744073709.551615"),
        ];
        for &(micros, text) in cases {
            assert_eq!(Size::from_micros(micros).to_string(), text);
        }
        assert_eq!(format!("{:>6}", Price::parse(b".5").unwrap()), "   0.5");
    }

    #[test]
    fn decimal_round_trip_and_errors() {
        let d: Decimal = "0.123456".parse().unwrap();
        assert_eq!(Price::try_from(d).unwrap().as_micros(), 123_456);
        assert_eq!(Price::parse(b"0.123456").unwrap().to_decimal(), d);
        let big: Decimal = "100.000000000".parse().unwrap();
        assert_eq!(Size::try_from(big).unwrap().as_micros(), 100_000_000);
        assert_eq!(
            Size::try_from("0.0000001".parse::<Decimal>().unwrap()),
            Err(DecimalError::TooPrecise)
        );
        assert_eq!(
            Size::try_from("-1".parse::<Decimal>().unwrap()),
            Err(DecimalError::Negative)
        );
        assert_eq!(Price::try_from(Decimal::TWO), Err(DecimalError::OutOfRange));
        assert_eq!(Size::try_from(Decimal::MAX), Err(DecimalError::OutOfRange));
        assert_eq!(
            Size::try_from(Decimal::NEGATIVE_ONE * Decimal::ZERO).unwrap(),
            Size::ZERO
        );
    }

    #[test]
    fn lots_and_dust() {
        for (held, lot, dust) in [
            (31_645_500, 31_640_000, 5_500),
            (5_000_000, 5_000_000, 0),
            (9_999, 0, 9_999),
            (0, 0, 0),
            (u64::MAX, u64::MAX - 1_615, 1_615),
        ] {
            let (l, d) = Size::from_micros(held).split_lot();
            assert_eq!((l.as_micros(), d.as_micros()), (lot, dust), "{held}");
        }
    }

    #[test]
    fn notional_math() {
        let p = Price::parse(b"0.56").unwrap();
        let s = Size::parse(b"21.04").unwrap();
        let n = p.checked_mul_size(s).unwrap();
        assert_eq!(n.to_string(), "11.7824");
        assert_eq!(n.decimal_places(), 4);
        assert_eq!(n.to_micros_exact(), Some(11_782_400));
        // Market BUY: 100 pUSD at 0.56 → 178.571428 shares (truncated).
        let spend = Notional::from_micros(100_000_000);
        assert_eq!(
            spend.checked_div_price_floor(p).unwrap().as_micros(),
            178_571_428
        );
        assert_eq!(spend.checked_div_price_floor(Price::ZERO), None);
        let odd = Price::parse(b"0.333333")
            .unwrap()
            .checked_mul_size(Size::ONE)
            .unwrap();
        assert_eq!(odd.floor_to(4).to_string(), "0.3333");
        assert_eq!(odd.ceil_to(4).unwrap().to_string(), "0.3334");
        assert_eq!(Notional::MAX.ceil_to(0), None);
        // Average price: floored, never above 1.
        let avg = |cost: u64, size: u64| {
            Notional::from_micros(cost).checked_div_size_floor(Size::from_micros(size))
        };
        assert_eq!(avg(24_999_945, 31_645_500), Price::new(790_000));
        assert_eq!(avg(1, 3), Price::new(333_333));
        assert_eq!(avg(2_000_002, 2_000_000), None);
        assert_eq!(avg(2_000_000, 2_000_000), Some(Price::ONE));
        assert!(Notional::MAX.to_decimal().is_none());
    }
}
