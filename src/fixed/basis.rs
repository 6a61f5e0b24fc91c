//! [`CostBasis`]: one outcome token's position by the average-cost method, fees included, in
//! exact fixed-point arithmetic.

use super::{Amount, Notional, Price, SCALE, Size};

/// 10⁻¹² units per 10⁻⁶ unit.
const MICRO: u128 = SCALE as u128;

/// One token's position by the average-cost method: the shares held, what they cost, the
/// fees paid to get them, and the P&L realized by selling, exact to 10⁻¹² pUSD inside.
///
/// Feed it each leg of a trade as it settles: [`buy`](Self::buy) and [`sell`](Self::sell) take
/// the leg's shares, its exact pUSD value (the sum of `price × shares` over its fills, as a
/// [`Notional`]) and the fee the leg paid. A taker's trade that swept several levels is one
/// leg; each maker fill is one. A sale removes the average cost and the average entry fee of
/// the shares sold, so realized P&L is net of fees on both sides:
/// `proceeds − sell fee − cost of the shares sold − their entry fees`.
///
/// Selling more than was bought (shares from a split, or held before tracking began) realizes
/// P&L on the bought shares only; the rest has no basis. The order of legs matters, as in any
/// average-cost book.
///
/// ```
/// use polyclob::fixed::{CostBasis, Notional, Price, Size};
///
/// let p = |s: &str| s.parse::<Price>().unwrap();
/// let q = |s: &str| s.parse::<Size>().unwrap();
/// let mut yes = CostBasis::new();
/// // Bought 31.6455 shares at 0.79 (24.999945 pUSD) and paid a 0.26249 fee.
/// yes.buy(q("31.6455"), p("0.79").checked_mul_size(q("31.6455")).unwrap(), q("0.26249"));
/// assert_eq!(yes.avg_price(), Some(p("0.79")));
/// // Sold the lot, 31.64, at 0.85, paying a 0.2017 fee.
/// yes.sell(q("31.64"), p("0.85").checked_mul_size(q("31.64")).unwrap(), q("0.2017"));
/// assert_eq!(yes.held(), q("0.0055"));
/// assert_eq!(yes.realized().to_string(), "1.434256");
/// assert_eq!(yes.fees().to_string(), "0.000046"); // the dust's share of the entry fee
/// # Ok::<(), polyclob::fixed::ParseError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct CostBasis {
    /// Shares bought and still held, 10⁻⁶.
    shares: u64,
    /// What they cost, 10⁻¹² pUSD.
    cost: u128,
    /// The buy fees attributed to them, 10⁻⁶ pUSD.
    fees: u64,
    /// Every share ever bought, 10⁻⁶.
    bought: u64,
    /// Realized P&L, 10⁻¹² pUSD.
    realized: i128,
}

impl CostBasis {
    /// An empty position.
    pub const fn new() -> Self {
        Self {
            shares: 0,
            cost: 0,
            fees: 0,
            bought: 0,
            realized: 0,
        }
    }

    /// A buy leg: `size` shares for `cost` pUSD, plus `fee` (zero for a maker on a taker-only
    /// market). Totals beyond the integer widths saturate.
    pub fn buy(&mut self, size: Size, cost: Notional, fee: Size) {
        self.shares = self.shares.saturating_add(size.as_micros());
        self.bought = self.bought.saturating_add(size.as_micros());
        self.cost = self.cost.saturating_add(cost.as_raw());
        self.fees = self.fees.saturating_add(fee.as_micros());
    }

    /// A sell leg: `size` shares for `proceeds` pUSD, less `fee` (taken from the proceeds).
    /// Only the shares held carry a basis: of a sale larger than the holding, the excess and
    /// its share of the proceeds and fee are left out.
    pub fn sell(&mut self, size: Size, proceeds: Notional, fee: Size) {
        let size = u128::from(size.as_micros());
        let held = u128::from(self.shares);
        let sold = size.min(held);
        if sold == 0 {
            return;
        }
        // The part of the leg that had a basis (all of it unless it sold more than was held).
        let part = |v: u128| if sold == size { v } else { v * sold / size };
        let proceeds = part(proceeds.as_raw());
        let fee = part(u128::from(fee.as_micros()) * MICRO);
        let cost = self.cost * sold / held;
        // `fees × sold` fits: both factors are below 2⁶⁴.
        let fees = u128::from(self.fees) * sold / held;
        let gain = i128::try_from(proceeds).unwrap_or(i128::MAX);
        let loss = [fee, cost, fees * MICRO].into_iter().fold(0i128, |a, v| {
            a.saturating_add(i128::try_from(v).unwrap_or(i128::MAX))
        });
        self.realized = self.realized.saturating_add(gain).saturating_sub(loss);
        self.cost -= cost;
        // `fees ≤ self.fees` and `sold ≤ self.shares`, so both fit and neither underflows.
        self.fees -= u64::try_from(fees).unwrap_or(self.fees);
        self.shares -= u64::try_from(sold).unwrap_or(self.shares);
    }

    /// Shares bought and still held (not those without a basis).
    pub const fn held(&self) -> Size {
        Size::from_micros(self.shares)
    }

    /// Every share ever bought.
    pub const fn bought(&self) -> Size {
        Size::from_micros(self.bought)
    }

    /// What the shares held cost, exact (fees apart).
    pub const fn cost(&self) -> Notional {
        Notional(self.cost)
    }

    /// The buy fees attributed to the shares held.
    pub const fn fees(&self) -> Size {
        Size::from_micros(self.fees)
    }

    /// The average price of the shares held, fees apart (floored), or `None` when none are held.
    #[must_use]
    pub const fn avg_price(&self) -> Option<Price> {
        self.cost().checked_div_size_floor(self.held())
    }

    /// Realized P&L, net of fees, truncated toward zero to 10⁻⁶ pUSD.
    pub fn realized(&self) -> Amount {
        to_amount(self.realized)
    }

    /// Unrealized P&L at `mark`: the shares held at that price, less their cost and their
    /// entry fees; truncated toward zero to 10⁻⁶ pUSD.
    pub fn unrealized(&self, mark: Price) -> Amount {
        let value = u128::from(self.shares) * u128::from(mark.as_micros());
        let basis = self.cost.saturating_add(u128::from(self.fees) * MICRO);
        let signed = |v: u128| i128::try_from(v).unwrap_or(i128::MAX);
        to_amount(signed(value).saturating_sub(signed(basis)))
    }
}

/// 10⁻¹² units to an [`Amount`], truncated toward zero, saturating.
fn to_amount(raw: i128) -> Amount {
    let micros = raw / MICRO as i128;
    Amount::from_micros(i64::try_from(micros).unwrap_or(if micros < 0 {
        i64::MIN
    } else {
        i64::MAX
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn q(s: &str) -> Size {
        s.parse().unwrap()
    }

    fn n(price: &str, size: &str) -> Notional {
        price
            .parse::<Price>()
            .unwrap()
            .checked_mul_size(q(size))
            .unwrap()
    }

    #[test]
    fn fees_enter_the_basis_and_leave_with_the_shares() {
        let mut b = CostBasis::new();
        b.buy(q("10"), n("0.40", "10"), q("0.012"));
        b.buy(q("10"), n("0.60", "10"), q("0.012"));
        assert_eq!(b.avg_price(), Some("0.5".parse().unwrap()));
        assert_eq!(
            (b.held(), b.bought(), b.fees()),
            (q("20"), q("20"), q("0.024"))
        );
        // Half sold at 0.70 with a 0.0105 fee: 7 − 0.0105 − 5 − 0.012.
        b.sell(q("10"), n("0.70", "10"), q("0.0105"));
        assert_eq!(b.realized().to_string(), "1.9775");
        assert_eq!((b.held(), b.fees()), (q("10"), q("0.012")));
        assert_eq!(b.unrealized("0.45".parse().unwrap()).to_string(), "-0.512");
        // Selling 15 of the 10 held: two thirds of the leg had a basis.
        b.sell(q("15"), n("0.30", "15"), q("0.0015"));
        assert_eq!(b.realized().to_string(), "-0.0355");
        assert_eq!(
            (b.held(), b.fees(), b.cost()),
            (Size::ZERO, Size::ZERO, Notional::ZERO)
        );
        assert_eq!(b.avg_price(), None);
        // A sale with nothing held changes nothing.
        let before = b;
        b.sell(q("1"), n("0.5", "1"), Size::ZERO);
        assert_eq!(b, before);
    }

    #[test]
    fn losses_truncate_toward_zero() {
        let mut b = CostBasis::new();
        b.buy(q("3"), n("0.333333", "3"), Size::ZERO);
        b.sell(q("1"), n("0.1", "1"), Size::ZERO);
        // 0.1 − 0.333333 = −0.233333, exactly.
        assert_eq!(b.realized(), Amount::from_micros(-233_333));
        assert_eq!(to_amount(-1_999_999), Amount::from_micros(-1));
        assert_eq!(to_amount(i128::MIN), Amount::MIN);
    }
}
