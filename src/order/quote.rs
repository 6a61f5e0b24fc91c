//! [`MarketQuote`]: what a market order yields on a book, as the exchange fills it, fees
//! included.

use super::{MarketOrder, OrderError};
use crate::fixed::{Amount, Price, Size};
use crate::types::{ExchangeVersion, FeeSchedule, Side, TickSize};

/// What a market order would trade on a book ([`MarketOrder::quote`]).
///
/// ```
/// use polyclob::fixed::{Price, Size};
/// use polyclob::order::{MarketAmount, MarketOrder};
/// use polyclob::types::{FeeSchedule, OrderType, Side, TickSize};
///
/// let p = |s: &str| s.parse::<Price>().unwrap();
/// let q = |s: &str| s.parse::<Size>().unwrap();
/// let fees = FeeSchedule::new(p("0.05"), 1, true, None).unwrap();
/// // A FAK buy of 25 pUSD against one ask of 100 at 0.79.
/// let buy = MarketOrder::new(Side::Buy, MarketAmount::Usdc(q("25")), p("0.79")).order_type(OrderType::Fak);
/// let quote = buy.quote(TickSize::Hundredth, [(p("0.79"), q("100"))], Some(fees))?;
/// assert_eq!((quote.shares, quote.value, quote.fee), (q("31.6455"), q("24.999945"), q("0.26249")));
/// assert_eq!(quote.cash().to_string(), "-25.262435"); // more than the 25 asked: the fee is on top
/// assert_eq!(quote.shares.split_lot(), (q("31.64"), q("0.0055"))); // what can be sold back
/// # Ok::<(), polyclob::order::OrderError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct MarketQuote {
    /// The order's side.
    pub side: Side,
    /// Shares bought or sold.
    pub shares: Size,
    /// pUSD paid for them (a BUY) or received before the fee (a SELL): each level's
    /// `price × shares`, floored to 10⁻⁶.
    pub value: Size,
    /// The taker fee (zero without a schedule).
    pub fee: Size,
    /// Levels touched.
    pub levels: usize,
}

impl MarketQuote {
    /// The pUSD the trade moves, signed: `−(value + fee)` for a BUY, `value − fee` for a SELL.
    pub fn cash(&self) -> Amount {
        let (value, fee) = (Amount::from(self.value), Amount::from(self.fee));
        let cash = match self.side {
            Side::Buy => Amount::ZERO
                .checked_sub(value)
                .and_then(|v| v.checked_sub(fee)),
            Side::Sell => value.checked_sub(fee),
        };
        // Both are below 2⁶³ micro-units (they fit a `Size` converted without saturation in
        // practice); a saturated figure is the bound, never a wrap.
        cash.unwrap_or(Amount::MIN)
    }
}

impl MarketOrder {
    /// What the order would trade against `levels_best_first` (asks ascending for a BUY, bids
    /// descending for a SELL; the REST `/book` lists both worst first, so iterate it in
    /// reverse) on a market of `tick` charging `fees`, filled as the exchange fills a V2
    /// market order: the shares its signed amounts name (`takerAmount` of a BUY, `makerAmount`
    /// of a SELL) at the resting prices, best first, no worse than the amounts' own price; the
    /// fee on top of a BUY's cost or out of a SELL's proceeds
    /// ([`FeeSchedule::taker_fee`]). A BUY of N pUSD may so cost a little more than N.
    ///
    /// The exchange floors each resting order's pUSD separately, so a level of several orders
    /// may cost up to 10⁻⁶ pUSD per order beyond the first less than quoted (a sell receives as
    /// much less).
    ///
    /// # Errors
    ///
    /// The order's own errors ([`OrderError::SizeZeroAfterRounding`],
    /// [`OrderError::PriceOutOfRange`], [`OrderError::AmountUnit`],
    /// [`OrderError::OrderTypeNotAllowed`] for GTC/GTD); [`OrderError::NoMatch`] for a FOK the
    /// levels cannot fill or an order that would fill nothing; [`OrderError::AmountOverflow`].
    pub fn quote<I>(
        &self,
        tick: TickSize,
        levels_best_first: I,
        fees: Option<FeeSchedule>,
    ) -> Result<MarketQuote, OrderError>
    where
        I: IntoIterator<Item = (Price, Size)>,
    {
        let order_type = self.common.order_type;
        if !order_type.is_immediate() {
            return Err(OrderError::OrderTypeNotAllowed { order_type });
        }
        let (maker, taker) = self.amounts(tick, ExchangeVersion::V2)?;
        let (maker, taker) = (u128::from(maker), u128::from(taker));
        let one = u128::from(Price::SCALE);
        // A level crosses when its price is no worse than the amounts' ratio.
        let (mut left, crosses): (u64, &dyn Fn(u128) -> bool) = match self.side {
            Side::Buy => (taker as u64, &|p| p * taker <= maker * one),
            Side::Sell => (maker as u64, &|p| p * maker >= taker * one),
        };
        let mut quote = MarketQuote {
            side: self.side,
            shares: Size::ZERO,
            value: Size::ZERO,
            fee: Size::ZERO,
            levels: 0,
        };
        let mut fills = Vec::new();
        for (price, size) in levels_best_first {
            if left == 0 || !crosses(u128::from(price.as_micros())) {
                break;
            }
            let take = Size::from_micros(size.as_micros().min(left));
            let value = price
                .checked_mul_size(take)
                .and_then(crate::fixed::Notional::floor_micros)
                .ok_or(OrderError::AmountOverflow)?;
            left -= take.as_micros();
            quote.shares = quote
                .shares
                .checked_add(take)
                .ok_or(OrderError::AmountOverflow)?;
            quote.value = quote
                .value
                .checked_add(Size::from_micros(value))
                .ok_or(OrderError::AmountOverflow)?;
            quote.levels += 1;
            fills.push((price, take));
        }
        if quote.shares.is_zero() || left > 0 && order_type == crate::types::OrderType::Fok {
            return Err(OrderError::NoMatch);
        }
        quote.fee = match fees {
            Some(f) => f.taker_fee(fills).ok_or(OrderError::AmountOverflow)?,
            None => Size::ZERO,
        };
        Ok(quote)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::order::MarketAmount;
    use crate::types::OrderType;

    fn p(s: &str) -> Price {
        s.parse().unwrap()
    }

    fn q(s: &str) -> Size {
        s.parse().unwrap()
    }

    #[test]
    fn sweeps_levels_and_charges_one_fee() {
        let fees = FeeSchedule::new(p("0.05"), 1, true, None).unwrap();
        let asks = [
            (p("0.50"), q("10")),
            (p("0.55"), q("10")),
            (p("0.60"), q("100")),
        ];
        // 15 pUSD at worst 0.60: 25 shares, 5 of them from the third level.
        let buy = MarketOrder::new(Side::Buy, MarketAmount::Usdc(q("15")), p("0.60"))
            .order_type(OrderType::Fak);
        let qt = buy.quote(TickSize::Hundredth, asks, Some(fees)).unwrap();
        assert_eq!((qt.shares, qt.levels), (q("25"), 3));
        // 5 + 5.5 + 3 = 13.5; fee 0.05·(10·0.25 + 10·0.2475 + 5·0.24) = 0.30875 exactly.
        assert_eq!((qt.value, qt.fee), (q("13.5"), q("0.30875")));
        assert_eq!(qt.cash(), Amount::from_micros(-13_808_750));
        // Without a schedule, no fee; a worse price stops the walk.
        let tight = MarketOrder::new(Side::Buy, MarketAmount::Usdc(q("12")), p("0.55"))
            .order_type(OrderType::Fak);
        let qt = tight.quote(TickSize::Hundredth, asks, None).unwrap();
        // 12 / 0.55 = 21.8181 shares asked, 20 within the price: a FAK takes them.
        assert_eq!((qt.shares, qt.fee, qt.levels), (q("20"), Size::ZERO, 2));
        // FOK: all or an error.
        let fok = MarketOrder::new(Side::Buy, MarketAmount::Usdc(q("12")), p("0.55"));
        assert_eq!(
            fok.quote(TickSize::Hundredth, asks, None),
            Err(OrderError::NoMatch)
        );
        // A SELL: the fee comes out of the proceeds.
        let bids = [(p("0.65"), q("100"))];
        let sell = MarketOrder::new(Side::Sell, MarketAmount::Shares(q("7.57")), p("0.60"));
        let qt = sell.quote(TickSize::Hundredth, bids, Some(fees)).unwrap();
        assert_eq!(
            (qt.shares, qt.value, qt.fee),
            (q("7.57"), q("4.9205"), q("0.0861"))
        );
        assert_eq!(qt.cash().to_string(), "4.8344");
        let gtc = sell.order_type(OrderType::Gtc);
        assert!(gtc.quote(TickSize::Hundredth, bids, None).is_err());
    }
}
