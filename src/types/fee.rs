//! [`FeeSchedule`]: a market's trading-fee schedule and the fee arithmetic of the exchange.

use alloy_primitives::U256;

use crate::fixed::{Price, Size};

/// A market's trading-fee schedule, as the venue publishes it in three spellings: Gamma's
/// `feeSchedule {rate, exponent, takerOnly, rebateRate}`, the CLOB market's `fd {r, e, to}`
/// (`GET /clob-markets/{condition_id}`) and the `new_market` event's `fee_schedule`.
///
/// The fee of a trade is `shares × rate × (p·(1−p))^exponent` pUSD at fill price `p`, rounded
/// **down** to 0.00001 pUSD (docs.polymarket.com, trading fees; every `exponent` in use is 1).
/// It is charged in pUSD: on top of the price on a BUY (the shares arrive whole), out of the
/// proceeds on a SELL (the exchange contract's `_chargeFee` pays asset 0, the collateral).
/// Makers pay nothing while the schedule is taker-only, as every published schedule is, and are
/// paid a share of the fees their fills carried ([`maker_rebate`](Self::maker_rebate)).
///
/// `p·(1−p)` is the same for an outcome and its complement, so a fill has one fee whichever
/// token's price it is read in (a mint or a merge included).
///
/// ```
/// use polyclob::fixed::{Price, Size};
/// use polyclob::types::FeeSchedule;
///
/// let p = |s: &str| s.parse::<Price>().unwrap();
/// let fees = FeeSchedule::new(p("0.05"), 1, true, Some(p("0.25"))).unwrap();
/// // A taker sells 7.57 shares at 0.65: 0.0861087… floored to 0.08610.
/// let fee = fees.taker_fee([(p("0.65"), "7.57".parse()?)]).unwrap();
/// assert_eq!(fee.to_string(), "0.0861");
/// assert_eq!(fees.maker_fee([(p("0.65"), "7.57".parse()?)]), Some(Size::ZERO));
/// # Ok::<(), polyclob::fixed::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[must_use]
pub struct FeeSchedule {
    rate: Price,
    exponent: u8,
    taker_only: bool,
    rebate_rate: Option<Price>,
}

/// The fee's rounding unit: 0.00001 pUSD, in micro-units.
const FEE_UNIT: u64 = 10;

/// The largest exponent accepted: `(p·(1−p))^4` in micro-units still fits the arithmetic.
const MAX_EXPONENT: u32 = 4;

impl FeeSchedule {
    /// A schedule of `rate` (a fraction of 1, e.g. 0.05) and `exponent`; makers pay too
    /// unless `taker_only`; `rebate_rate` is the share of the fees paid back to makers, `None`
    /// when the venue did not say (the CLOB's `fd` never does: unknown is not zero).
    ///
    /// `None` for an exponent outside `1..=4`.
    pub const fn new(
        rate: Price,
        exponent: u32,
        taker_only: bool,
        rebate_rate: Option<Price>,
    ) -> Option<Self> {
        if exponent == 0 || exponent > MAX_EXPONENT {
            return None;
        }
        Some(Self {
            rate,
            exponent: exponent as u8,
            taker_only,
            rebate_rate,
        })
    }

    /// The peak rate `r` (the fee per share at `p·(1−p) = 1`).
    pub const fn rate(&self) -> Price {
        self.rate
    }

    /// The exponent `e` of `(p·(1−p))^e`.
    #[must_use]
    pub const fn exponent(&self) -> u32 {
        self.exponent as u32
    }

    /// Whether only takers pay.
    #[must_use]
    pub const fn taker_only(&self) -> bool {
        self.taker_only
    }

    /// The share of the taker fees paid back to makers, when known.
    #[must_use]
    pub const fn rebate_rate(&self) -> Option<Price> {
        self.rebate_rate
    }

    /// The fee a taker pays for one trade, from its fills `(price, shares)` at the prices it
    /// traded at: `rate × Σ (p·(1−p))^e × shares`, exact, then floored to 0.00001 pUSD once
    /// for the trade (the exchange takes one taker fee per match). `None` on overflow.
    ///
    /// How the venue rounds a trade that sweeps several levels is not documented; one floor of
    /// the exact sum is what a single `matchOrders` call (one taker fee) implies.
    #[must_use]
    pub fn taker_fee<I>(&self, fills: I) -> Option<Size>
    where
        I: IntoIterator<Item = (Price, Size)>,
    {
        let raw = self.fee_micros(fills)?;
        Some(Size::from_micros(raw - raw % FEE_UNIT))
    }

    /// The fee a maker pays for its fills: zero on a taker-only schedule, else the taker's
    /// formula on its own fills.
    #[must_use]
    pub fn maker_fee<I>(&self, fills: I) -> Option<Size>
    where
        I: IntoIterator<Item = (Price, Size)>,
    {
        if self.taker_only {
            return Some(Size::ZERO);
        }
        self.taker_fee(fills)
    }

    /// A maker's rebate for its fills of one market and day: `rebate_rate` of the fee those
    /// fills carried (`rate × Σ (p·(1−p))^e × shares`, exact), floored to 10⁻⁶ pUSD. `None`
    /// when the rebate rate is unknown, or on overflow.
    ///
    /// The venue pays rebates daily from a pool of the market's taker fees, "fee-curve
    /// weighted" (docs.polymarket.com, maker rebates); this is that weighting when the pool is
    /// the `rebate_rate` share of the fees and each maker's weight its own fills' fees.
    #[must_use]
    pub fn maker_rebate<I>(&self, fills: I) -> Option<Size>
    where
        I: IntoIterator<Item = (Price, Size)>,
    {
        let share = U256::from(self.rebate_rate?.as_micros());
        let (num, den) = self.fee_fraction(fills)?;
        let v = num.checked_mul(share)? / (den * U256::from(Price::SCALE));
        u64::try_from(v).ok().map(Size::from_micros)
    }

    /// The exact fee in micro-units, floored.
    fn fee_micros<I>(&self, fills: I) -> Option<u64>
    where
        I: IntoIterator<Item = (Price, Size)>,
    {
        let (num, den) = self.fee_fraction(fills)?;
        u64::try_from(num / den).ok()
    }

    /// The fee in micro-pUSD as `num / den`: `num = r·Σ (p·q)^e·s` in micro-units of each
    /// factor, `den = 10^(6 + 12e)`.
    fn fee_fraction<I>(&self, fills: I) -> Option<(U256, U256)>
    where
        I: IntoIterator<Item = (Price, Size)>,
    {
        let one = u64::from(Price::SCALE);
        let mut sum = U256::ZERO;
        for (price, size) in fills {
            let p = u64::from(price.as_micros());
            let curve = U256::from(p * (one - p)).checked_pow(U256::from(self.exponent))?;
            sum = sum.checked_add(curve.checked_mul(U256::from(size.as_micros()))?)?;
        }
        let num = sum.checked_mul(U256::from(self.rate.as_micros()))?;
        let den = U256::from(10u8).pow(U256::from(6 + 12 * u32::from(self.exponent)));
        Some((num, den))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(s: &str) -> Price {
        s.parse().unwrap()
    }

    fn q(s: &str) -> Size {
        s.parse().unwrap()
    }

    #[test]
    fn size_of_is_small() {
        assert_eq!(size_of::<FeeSchedule>(), 16);
    }

    #[test]
    fn exponents_outside_one_to_four_are_refused() {
        assert!(FeeSchedule::new(p("0.05"), 0, true, None).is_none());
        assert!(FeeSchedule::new(p("0.05"), 5, true, None).is_none());
        assert!(FeeSchedule::new(p("0.05"), 4, true, None).is_some());
    }

    /// The worked examples: the V2 SDK's reference (rate 0.25, exponent 2: 100 shares at 0.5
    /// pay 1.5625) and the design's FAK buy (31.6455 shares at 0.79, rate 0.05: 0.2624994…
    /// floored to 0.26249).
    #[test]
    fn known_answers() {
        let sdk = FeeSchedule::new(p("0.25"), 2, true, None).unwrap();
        assert_eq!(sdk.taker_fee([(p("0.5"), q("100"))]), Some(q("1.5625")));
        let five = FeeSchedule::new(p("0.05"), 1, true, Some(p("0.25"))).unwrap();
        assert_eq!(
            five.taker_fee([(p("0.79"), q("31.6455"))]),
            Some(q("0.26249"))
        );
        // Two levels: one floor of the exact sum, not one per level.
        let two = [(p("0.79"), q("0.0008")), (p("0.80"), q("0.0008"))];
        assert_eq!(five.taker_fee(two), Some(q("0.00001")));
        assert_eq!(five.taker_fee([two[0]]), Some(Size::ZERO));
        // 1,000 shares at 0.50: fee-equivalent 12.5, a quarter back to the maker.
        assert_eq!(five.maker_rebate([(p("0.5"), q("1000"))]), Some(q("3.125")));
        assert_eq!(five.maker_fee([(p("0.5"), q("1000"))]), Some(Size::ZERO));
        let both = FeeSchedule::new(p("0.05"), 1, false, None).unwrap();
        assert_eq!(both.maker_fee([(p("0.5"), q("1000"))]), Some(q("12.5")));
        assert_eq!(both.maker_rebate([(p("0.5"), q("1000"))]), None);
        // No fills, or the extremes of the curve: nothing.
        assert_eq!(five.taker_fee([]), Some(Size::ZERO));
        assert_eq!(
            five.taker_fee([(Price::ONE, q("10")), (Price::ZERO, q("10"))]),
            Some(Size::ZERO)
        );
        // The largest exponent and size still compute.
        let steep = FeeSchedule::new(Price::ONE, 4, true, Some(Price::ONE)).unwrap();
        assert_eq!(
            steep
                .taker_fee([(p("0.5"), Size::MAX)])
                .map(|s| s > Size::ZERO),
            Some(true)
        );
    }

    /// Against a naive oracle in exact fractions: `u128` for one fill at exponent 1.
    #[test]
    fn one_fill_matches_a_u128_oracle() {
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        for _ in 0..10_000 {
            let rate = next(1_000_001);
            let price = next(1_000_001);
            let size = next(1_000_000_000_000);
            let s = FeeSchedule::new(Price::new(rate as u32).unwrap(), 1, true, None).unwrap();
            let fee = s
                .taker_fee([(Price::new(price as u32).unwrap(), Size::from_micros(size))])
                .unwrap();
            let exact = u128::from(rate)
                * u128::from(price)
                * u128::from(1_000_000 - price)
                * u128::from(size)
                / 1_000_000_000_000_000_000;
            let want = exact - exact % 10;
            assert_eq!(u128::from(fee.as_micros()), want, "{rate} {price} {size}");
        }
    }
}
