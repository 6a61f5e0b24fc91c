//! Exact fixed-point amount math for every tick size (protocol.md §3.2–§3.4).
//!
//! All arithmetic is on integers: prices and sizes in 10⁻⁶ units, intermediate products in
//! `u128`. The SDKs' rule for amounts with too many decimals — round **up** at `amount + 4`
//! decimals, then **down** at `amount` decimals — is applied to the exact rational value, so
//! there is no binary-float artefact (size 4.35 stays 4.35; protocol.md §3.6).

use super::OrderError;
use crate::fixed::{Notional, Price, Size};
use crate::types::{ExchangeVersion, OrderType, Side, TickSize};

/// `(makerAmount, takerAmount)` in 10⁻⁶ units.
pub(crate) type Amounts = (u64, u64);

const POW10: [u128; 11] = [
    1,
    10,
    100,
    1_000,
    10_000,
    100_000,
    1_000_000,
    10_000_000,
    100_000_000,
    1_000_000_000,
    10_000_000_000,
];

/// The micro-units of `num / den` under the SDK rounding rule with `amount_dp` decimals.
fn sdk_round_micros(num: u128, den: u128, amount_dp: u32) -> Result<u64, OrderError> {
    let a = amount_dp.min(6) as usize;
    // ceil(x · 10^(a+4))
    let scaled = num
        .checked_mul(POW10[a + 4])
        .ok_or(OrderError::AmountOverflow)?;
    let up = scaled.div_ceil(den);
    // floor at a decimals, then to micro-units
    let units = up / POW10[4];
    let micros = units
        .checked_mul(POW10[6 - a])
        .ok_or(OrderError::AmountOverflow)?;
    u64::try_from(micros).map_err(|_| OrderError::AmountOverflow)
}

fn check_price(price: Price, tick: TickSize) -> Result<(), OrderError> {
    if !tick.in_range(price) {
        return Err(OrderError::PriceOutOfRange { price, tick });
    }
    Ok(())
}

/// Amounts of a limit (GTC/GTD) order: the price must be on the tick grid and in range; the
/// size is floored to 2 decimals (the lot size).
///
/// BUY: maker = size·price pUSD, taker = size shares. SELL: maker = size shares, taker =
/// size·price pUSD.
///
/// # Errors
/// [`OrderError::PriceOffGrid`], [`OrderError::PriceOutOfRange`],
/// [`OrderError::SizeZeroAfterRounding`], [`OrderError::AmountOverflow`].
pub(crate) fn limit_amounts(
    side: Side,
    price: Price,
    size: Size,
    tick: TickSize,
) -> Result<Amounts, OrderError> {
    if !tick.is_on_grid(price) {
        return Err(OrderError::PriceOffGrid { price, tick });
    }
    check_price(price, tick)?;
    let lots = size.floor_to(tick.round_config().size);
    if lots.is_zero() {
        return Err(OrderError::SizeZeroAfterRounding { size });
    }
    let product = u128::from(price.as_micros()) * u128::from(lots.as_micros());
    let notional = sdk_round_micros(product, Notional::SCALE, tick.round_config().amount)?;
    let shares = lots.as_micros();
    Ok(match side {
        Side::Buy => (notional, shares),
        Side::Sell => (shares, notional),
    })
}

/// The price a market order is signed at: V1 rounds half-to-even at the tick's decimals,
/// V2/V3 truncate to the tick (protocol.md §3.4 step 2); the result must be in range.
///
/// # Errors
/// [`OrderError::PriceOutOfRange`].
pub(crate) fn market_order_price(
    price: Price,
    tick: TickSize,
    version: ExchangeVersion,
) -> Result<Price, OrderError> {
    let rounded = match version {
        ExchangeVersion::V1 => {
            let t = tick.as_micros();
            let (q, r) = (price.as_micros() / t, price.as_micros() % t);
            let up = r * 2 > t || (r * 2 == t && q % 2 == 1);
            Price::new((q + u32::from(up)) * t).unwrap_or(Price::ONE)
        }
        _ => tick.floor(price),
    };
    check_price(rounded, tick)?;
    Ok(rounded)
}

/// Amounts of a market (FOK/FAK) order for `amount` (pUSD to spend on a BUY, shares to sell
/// on a SELL) at the worst acceptable `price`, after [`market_order_price`].
///
/// BUY: maker = floor(amount, 2) pUSD, taker = maker / price shares (SDK rounding). SELL:
/// maker = floor(amount, 2) shares, taker = maker·price pUSD.
///
/// # Errors
/// As [`market_order_price`], plus [`OrderError::SizeZeroAfterRounding`] and
/// [`OrderError::AmountOverflow`].
pub(crate) fn market_amounts(
    side: Side,
    price: Price,
    amount: Size,
    tick: TickSize,
    version: ExchangeVersion,
) -> Result<Amounts, OrderError> {
    let price = market_order_price(price, tick, version)?;
    let maker = amount.floor_to(tick.round_config().size);
    if maker.is_zero() {
        return Err(OrderError::SizeZeroAfterRounding { size: amount });
    }
    let a = tick.round_config().amount;
    let taker = match side {
        Side::Buy => sdk_round_micros(
            u128::from(maker.as_micros()),
            u128::from(price.as_micros()),
            a,
        )?,
        Side::Sell => sdk_round_micros(
            u128::from(price.as_micros()) * u128::from(maker.as_micros()),
            Notional::SCALE,
            a,
        )?,
    };
    Ok((maker.as_micros(), taker))
}

/// The price of a market order from a book walk that starts at the **best** level.
///
/// `levels` must be the opposite side of the book, best first: asks ascending for a BUY, bids
/// descending for a SELL. (The REST `/book` lists levels worst-first — iterate it in reverse.)
/// A BUY accumulates `size·price` until it covers `amount` pUSD; a SELL accumulates `size`
/// until it covers `amount` shares. The price of the level where the target is reached is
/// returned. Without enough liquidity, FOK fails with [`OrderError::NoMatch`] and FAK takes the
/// worst level seen.
///
/// # Errors
/// [`OrderError::NoMatch`], [`OrderError::EmptyBook`], [`OrderError::OrderTypeNotAllowed`]
/// for GTC/GTD, [`OrderError::AmountOverflow`].
///
/// ```
/// use polyclob::fixed::{Price, Size};
/// use polyclob::order::market_price;
/// use polyclob::types::{OrderType, Side};
///
/// let p = |s: &str| s.parse::<Price>().unwrap();
/// let q = |s: &str| s.parse::<Size>().unwrap();
/// // REST order: worst first.
/// let asks = [(p("0.60"), q("100")), (p("0.55"), q("100")), (p("0.50"), q("100"))];
/// let price = market_price(Side::Buy, q("75"), OrderType::Fok, asks.iter().rev().copied())?;
/// assert_eq!(price, p("0.55")); // 0.50·100 = 50 < 75, then + 0.55·100 ≥ 75
/// # Ok::<(), polyclob::order::OrderError>(())
/// ```
pub fn market_price<I>(
    side: Side,
    amount: Size,
    order_type: OrderType,
    levels_best_first: I,
) -> Result<Price, OrderError>
where
    I: IntoIterator<Item = (Price, Size)>,
{
    if !order_type.is_immediate() {
        return Err(OrderError::OrderTypeNotAllowed { order_type });
    }
    let target = match side {
        Side::Buy => Notional::from_micros(amount.as_micros()),
        Side::Sell => Notional::from_micros(amount.as_micros()),
    };
    let mut acc = Notional::ZERO;
    let mut last = None;
    for (price, size) in levels_best_first {
        let add = match side {
            Side::Buy => price
                .checked_mul_size(size)
                .ok_or(OrderError::AmountOverflow)?,
            Side::Sell => Notional::from_micros(size.as_micros()),
        };
        acc = acc.checked_add(add).ok_or(OrderError::AmountOverflow)?;
        last = Some(price);
        if acc >= target {
            return Ok(price);
        }
    }
    match (last, order_type) {
        (None, _) => Err(OrderError::EmptyBook),
        (Some(worst), OrderType::Fak) => Ok(worst),
        _ => Err(OrderError::NoMatch),
    }
}

/// Amounts of a market BUY sized in shares, at the worst acceptable `price` (after
/// [`market_order_price`]): taker = `shares` floored to the lot (2 decimals), maker = taker ×
/// price rounded **up** to the cent (the exchange takes at most 2 decimals of pUSD on a market
/// BUY's maker side), so the order buys the shares asked for at a price no worse than `price`
/// plus under a cent in total. The exchange fills a BUY by its taker amount (shares) and
/// charges the resting orders' prices, so on a book the spend is what the levels cost.
///
/// # Errors
/// As [`market_amounts`].
pub(crate) fn market_buy_shares_amounts(
    price: Price,
    shares: Size,
    tick: TickSize,
    version: ExchangeVersion,
) -> Result<Amounts, OrderError> {
    let price = market_order_price(price, tick, version)?;
    let taker = shares.floor_to(tick.round_config().size);
    if taker.is_zero() {
        return Err(OrderError::SizeZeroAfterRounding { size: shares });
    }
    let maker = price
        .checked_mul_size(taker)
        .and_then(|n| n.ceil_to(2))
        .and_then(Notional::floor_micros)
        .ok_or(OrderError::AmountOverflow)?;
    Ok((maker, taker.as_micros()))
}

/// The worst ask level (best first, none above `limit`) a BUY of `shares` reaches. FOK needs
/// the whole quantity within `limit` ([`OrderError::NoMatch`] otherwise); FAK takes what
/// there is.
pub(crate) fn shares_price<I>(
    shares: Size,
    limit: Price,
    order_type: OrderType,
    asks_best_first: I,
) -> Result<Price, OrderError>
where
    I: IntoIterator<Item = (Price, Size)>,
{
    if !order_type.is_immediate() {
        return Err(OrderError::OrderTypeNotAllowed { order_type });
    }
    let mut left = shares;
    let mut last = None;
    for (price, size) in asks_best_first {
        if price > limit || left.is_zero() {
            break;
        }
        left = left.checked_sub(size).unwrap_or(Size::ZERO);
        last = Some(price);
    }
    match last {
        None => Err(OrderError::EmptyBook),
        Some(_) if !left.is_zero() && order_type == OrderType::Fok => Err(OrderError::NoMatch),
        Some(price) => Ok(price),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Known answers, exact decimals: no float artefact (Python SDKs turn 4.35 into 4.34);
    /// V2 truncates a market price to the tick; a shares-sized BUY rounds its spend up.
    #[test]
    fn known_amounts() {
        let p = |s: &str| s.parse::<Price>().unwrap();
        let z = |s: &str| s.parse::<Size>().unwrap();
        let h = TickSize::Hundredth;
        assert_eq!(
            limit_amounts(Side::Buy, p("0.56"), z("21.04"), h).unwrap(),
            (11_782_400, 21_040_000)
        );
        assert_eq!(
            limit_amounts(Side::Sell, p("0.33"), z("4.35"), h).unwrap(),
            (4_350_000, 1_435_500)
        );
        // BUY 100 pUSD at 0.56: 178.5714 shares; 0.339 is truncated to 0.33.
        let v2 = ExchangeVersion::V2;
        assert_eq!(
            market_amounts(Side::Buy, p("0.56"), z("100"), h, v2).unwrap(),
            (100_000_000, 178_571_400)
        );
        assert_eq!(
            market_amounts(Side::Buy, p("0.339"), z("10"), h, v2).unwrap(),
            (10_000_000, 30_303_000)
        );
        // 15 shares at worst 0.55: up to 8.25 pUSD; 7 at 0.333 (tick 0.001): 2.331 → 2.34.
        assert_eq!(
            market_buy_shares_amounts(p("0.55"), z("15"), h, v2).unwrap(),
            (8_250_000, 15_000_000)
        );
        assert_eq!(
            market_buy_shares_amounts(p("0.333"), z("7"), TickSize::Thousandth, v2).unwrap(),
            (2_340_000, 7_000_000)
        );
    }

    fn p(s: &str) -> Price {
        s.parse().unwrap()
    }
    fn q(s: &str) -> Size {
        s.parse().unwrap()
    }

    #[test]
    fn limit_table_all_ticks() {
        use Side::*;
        use TickSize::*;
        let cases: &[(Side, &str, &str, TickSize, u64, u64)] = &[
            (Buy, "0.56", "21.04", Hundredth, 11_782_400, 21_040_000),
            (Buy, "0.5", "21.04", Hundredth, 10_520_000, 21_040_000),
            (Sell, "0.056", "21.04", Thousandth, 21_040_000, 1_178_240),
            (Buy, "0.5", "21.04", Tenth, 10_520_000, 21_040_000),
            (Sell, "0.0056", "100", TenThousandth, 100_000_000, 560_000),
            (Buy, "0.345", "12.5", FiveThousandths, 4_312_500, 12_500_000),
            (
                Sell,
                "0.9975",
                "7",
                TwentyFiveTenThousandths,
                7_000_000,
                6_982_500,
            ),
            (Sell, "0.33", "4.35", Hundredth, 4_350_000, 1_435_500),
            (Buy, "0.123", "33.33", Thousandth, 4_099_590, 33_330_000),
            // sizes are floored to the 0.01 lot
            (Buy, "0.5", "10.019999", Hundredth, 5_005_000, 10_010_000),
            (Sell, "0.0001", "0.01", TenThousandth, 10_000, 1),
        ];
        for &(side, price, size, tick, maker, taker) in cases {
            assert_eq!(
                limit_amounts(side, p(price), q(size), tick),
                Ok((maker, taker)),
                "{side} {size}@{price} tick {tick}"
            );
        }
    }

    #[test]
    fn limit_errors() {
        let t = TickSize::Hundredth;
        assert_eq!(
            limit_amounts(Side::Buy, p("0.565"), q("1"), t),
            Err(OrderError::PriceOffGrid {
                price: p("0.565"),
                tick: t
            })
        );
        assert_eq!(
            limit_amounts(Side::Buy, p("0.343"), q("1"), TickSize::FiveThousandths),
            Err(OrderError::PriceOffGrid {
                price: p("0.343"),
                tick: TickSize::FiveThousandths
            })
        );
        for bad in ["0", "1", "0.995"] {
            assert!(matches!(
                limit_amounts(Side::Buy, p(bad), q("1"), t),
                Err(OrderError::PriceOffGrid { .. } | OrderError::PriceOutOfRange { .. })
            ));
        }
        assert_eq!(
            limit_amounts(Side::Buy, p("0.99"), q("1"), t).map(|a| a.0),
            Ok(990_000)
        );
        assert_eq!(
            limit_amounts(Side::Buy, p("0.5"), q("0.009999"), t),
            Err(OrderError::SizeZeroAfterRounding {
                size: q("0.009999")
            })
        );
        assert_eq!(
            limit_amounts(Side::Buy, p("0.5"), Size::MAX, t),
            Ok((
                Size::MAX.floor_to(2).as_micros() / 2,
                Size::MAX.floor_to(2).as_micros()
            ))
        );
    }

    #[test]
    fn market_table() {
        use ExchangeVersion::*;
        let t = TickSize::Hundredth;
        assert_eq!(
            market_amounts(Side::Buy, p("0.56"), q("100"), t, V2),
            Ok((100_000_000, 178_571_400))
        );
        assert_eq!(
            market_amounts(Side::Buy, p("0.56"), q("100"), t, V1),
            Ok((100_000_000, 178_571_400))
        );
        assert_eq!(
            market_amounts(Side::Sell, p("0.42"), q("55.55"), t, V2),
            Ok((55_550_000, 23_331_000))
        );
        assert_eq!(
            market_amounts(Side::Buy, p("0.339"), q("10"), t, V2),
            Ok((10_000_000, 30_303_000))
        );
        // V1 rounds half-to-even, V2 truncates.
        assert_eq!(market_order_price(p("0.339"), t, V1), Ok(p("0.34")));
        assert_eq!(market_order_price(p("0.335"), t, V1), Ok(p("0.34")));
        assert_eq!(market_order_price(p("0.345"), t, V1), Ok(p("0.34")));
        assert_eq!(market_order_price(p("0.339"), t, V3), Ok(p("0.33")));
        assert_eq!(
            market_order_price(p("0.009"), t, V2),
            Err(OrderError::PriceOutOfRange {
                price: p("0"),
                tick: t
            })
        );
        assert_eq!(
            market_amounts(Side::Buy, p("0.5"), q("0.001"), t, V2),
            Err(OrderError::SizeZeroAfterRounding { size: q("0.001") })
        );
        // Shares for a huge pUSD amount at a tiny price do not fit the u64 amount field.
        assert_eq!(
            market_amounts(
                Side::Buy,
                p("0.0001"),
                Size::MAX,
                TickSize::TenThousandth,
                V2
            ),
            Err(OrderError::AmountOverflow)
        );
        assert!(
            market_amounts(
                Side::Sell,
                p("0.9999"),
                Size::MAX,
                TickSize::TenThousandth,
                V2
            )
            .is_ok()
        );
    }

    /// The implementation's one-line form against the SDKs' prose: "if the value has more
    /// than `a` decimals, round up at `a + 4`; if it still has more than `a`, round down at `a`".
    #[test]
    fn sdk_rounding_rule_against_naive_oracle() {
        fn oracle(num: u128, den: u128, a: u32) -> u64 {
            let exact_at = |k: u32| (num * 10u128.pow(k)) % den == 0;
            let units_a = if exact_at(a) {
                num * 10u128.pow(a) / den
            } else {
                // Round up at a + 4 decimals (units of 10^-(a+4)), then down at a.
                let up = (num * 10u128.pow(a + 4)).div_ceil(den);
                up / 10_000
            };
            (units_a * 10u128.pow(6 - a)) as u64
        }
        for maker in [
            1u128,
            7,
            999_999,
            10_000_000,
            123_450_000,
            99_990_000,
            999_999_995,
        ] {
            for den in [
                100u128,
                2_500,
                5_000,
                10_000,
                330_000,
                999_900,
                1_000_000_000,
            ] {
                for a in 3..=6 {
                    assert_eq!(
                        sdk_round_micros(maker, den, a).unwrap(),
                        oracle(maker, den, a)
                    );
                }
            }
        }
        // 0.999999995: rounding up at 8 decimals carries into the units → 1.0000, where plain
        // truncation at 4 decimals would give 0.9999.
        assert_eq!(
            sdk_round_micros(999_999_995, 1_000_000_000, 4),
            Ok(1_000_000)
        );
        assert_eq!(sdk_round_micros(99_999_999, 100_000_000, 4), Ok(999_900));
    }

    #[test]
    fn book_walk_starts_at_the_best_level() {
        let asks_worst_first = [
            (p("0.60"), q("100")),
            (p("0.55"), q("100")),
            (p("0.50"), q("100")),
        ];
        let best_first = || asks_worst_first.iter().rev().copied();
        assert_eq!(
            market_price(Side::Buy, q("50"), OrderType::Fok, best_first()),
            Ok(p("0.50"))
        );
        assert_eq!(
            market_price(Side::Buy, q("50.01"), OrderType::Fok, best_first()),
            Ok(p("0.55"))
        );
        assert_eq!(
            market_price(Side::Buy, q("165"), OrderType::Fok, best_first()),
            Ok(p("0.60"))
        );
        assert_eq!(
            market_price(Side::Buy, q("166"), OrderType::Fok, best_first()),
            Err(OrderError::NoMatch)
        );
        assert_eq!(
            market_price(Side::Buy, q("166"), OrderType::Fak, best_first()),
            Ok(p("0.60"))
        );
        // A peer's bug: walking the REST array from index 0 prices a small BUY at the worst ask.
        assert_eq!(
            market_price(
                Side::Buy,
                q("10"),
                OrderType::Fok,
                asks_worst_first.iter().copied()
            ),
            Ok(p("0.60"))
        );
        let bids_worst_first = [(p("0.40"), q("10")), (p("0.45"), q("10"))];
        let bids = || bids_worst_first.iter().rev().copied();
        assert_eq!(
            market_price(Side::Sell, q("10"), OrderType::Fok, bids()),
            Ok(p("0.45"))
        );
        assert_eq!(
            market_price(Side::Sell, q("15"), OrderType::Fok, bids()),
            Ok(p("0.40"))
        );
        assert_eq!(
            market_price(Side::Sell, q("25"), OrderType::Fok, bids()),
            Err(OrderError::NoMatch)
        );
        assert_eq!(
            market_price(Side::Sell, q("1"), OrderType::Fok, core::iter::empty()),
            Err(OrderError::EmptyBook)
        );
        assert_eq!(
            market_price(Side::Sell, q("1"), OrderType::Gtc, bids()),
            Err(OrderError::OrderTypeNotAllowed {
                order_type: OrderType::Gtc
            })
        );
    }

    /// The SDK rules written with `rust_decimal` (as the official Rust SDK computes them), as
    /// an oracle for the integer implementation.
    mod oracle {
        use super::*;
        use proptest::prelude::*;
        use rust_decimal::{Decimal, RoundingStrategy};

        fn sdk_round(x: Decimal, a: u32) -> Decimal {
            if x.scale() <= a {
                return x;
            }
            let up = x.round_dp_with_strategy(a + 4, RoundingStrategy::AwayFromZero);
            if up.normalize().scale() <= a {
                up
            } else {
                up.round_dp_with_strategy(a, RoundingStrategy::ToZero)
            }
        }

        fn micros(x: Decimal) -> u64 {
            (x * Decimal::from(1_000_000u32))
                .trunc()
                .try_into()
                .unwrap()
        }

        proptest! {
            #[test]
            fn limit_matches_decimal_oracle(
                tick_i in 0usize..6, steps in 1u32..10_000, size in 1u64..10_000_000_000, buy: bool
            ) {
                let tick = TickSize::ALL[tick_i];
                let max_steps = Price::SCALE / tick.as_micros() - 1;
                let price = Price::new((1 + steps % max_steps) * tick.as_micros()).unwrap();
                let size = Size::from_micros(size);
                let side = if buy { Side::Buy } else { Side::Sell };
                let got = limit_amounts(side, price, size, tick);
                let lots = size.to_decimal().round_dp_with_strategy(2, RoundingStrategy::ToZero);
                if lots.is_zero() {
                    prop_assert!(got.is_err());
                } else {
                    let notional = sdk_round(lots * price.to_decimal(), tick.round_config().amount);
                    let want = if buy {
                        (micros(notional), micros(lots))
                    } else {
                        (micros(lots), micros(notional))
                    };
                    prop_assert_eq!(got.unwrap(), want);
                }
            }

            #[test]
            fn market_buy_matches_decimal_oracle(
                tick_i in 0usize..6, steps in 1u32..10_000, amount in 10_000u64..10_000_000_000
            ) {
                let tick = TickSize::ALL[tick_i];
                let max_steps = Price::SCALE / tick.as_micros() - 1;
                let price = Price::new((1 + steps % max_steps) * tick.as_micros()).unwrap();
                let amount = Size::from_micros(amount);
                let got = market_amounts(Side::Buy, price, amount, tick, ExchangeVersion::V2).unwrap();
                let maker = amount.to_decimal().round_dp_with_strategy(2, RoundingStrategy::ToZero);
                let taker = sdk_round(maker / price.to_decimal(), tick.round_config().amount);
                prop_assert_eq!(got, (micros(maker), micros(taker)));
            }
        }
    }
}
