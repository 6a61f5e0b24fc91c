//! Exact fixed-point arithmetic on exchange strings, no float anywhere:
//!
//! 1. what an order for 21.04 shares at 0.56 costs, per tick size, with the exchange's
//!    rounding configuration;
//! 2. what a FAK buy of 25 pUSD yields on a fee-enabled market (rate 0.05): the shares, their
//!    cost, the fee on top, and the lot that can be sold back;
//! 3. the P&L of the round trip, signed, with the fees in it.
//!
//! Run: `cargo run --example fixed_point`

use polyclob::fixed::{Amount, CostBasis, Price, Size};
use polyclob::order::{MarketAmount, MarketOrder};
use polyclob::types::{FeeSchedule, OrderType, Side, TickSize};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. One order's cost on every tick.
    let size = Size::parse(b"21.04")?;
    let price: Price = "0.56".parse()?;
    for tick in TickSize::ALL {
        let rc = tick.round_config();
        let cost = price.checked_mul_size(size).ok_or("overflow")?;
        println!(
            "tick {tick:>6}: price on grid: {:5}  in range: {:5}  cost {cost} pUSD \
             (fits {} amount decimals: {})",
            tick.is_on_grid(price),
            tick.in_range(price),
            rc.amount,
            cost.decimal_places() <= rc.amount,
        );
    }

    // 2. A FAK buy of 25 pUSD into an ask of 100 at 0.79, on a market charging 5%.
    let fees = FeeSchedule::new("0.05".parse()?, 1, true, Some("0.25".parse()?)).ok_or("fees")?;
    let tick = TickSize::Hundredth;
    let buy = MarketOrder::new(
        Side::Buy,
        MarketAmount::Usdc("25".parse()?),
        "0.79".parse()?,
    )
    .order_type(OrderType::Fak);
    let asks = [("0.79".parse()?, "100".parse()?)];
    let bought = buy.quote(tick, asks, Some(fees))?;
    let (lot, dust) = bought.shares.split_lot();
    println!(
        "buy 25 pUSD at 0.79: {} shares for {} pUSD plus a {} fee = {} pUSD; sellable {}, dust {}",
        bought.shares,
        bought.value,
        bought.fee,
        bought.cash(),
        lot,
        dust
    );

    // 3. Sell the lot at 0.85 and account for both legs, exactly.
    let sell = MarketOrder::new(Side::Sell, MarketAmount::Shares(lot), "0.85".parse()?)
        .order_type(OrderType::Fak);
    let bids = [("0.85".parse()?, "100".parse()?)];
    let sold = sell.quote(tick, bids, Some(fees))?;
    let mut basis = CostBasis::new();
    let cost = |q: &polyclob::order::MarketQuote, p: &str| {
        p.parse::<Price>()
            .ok()
            .and_then(|p| p.checked_mul_size(q.shares))
            .ok_or("overflow")
    };
    basis.buy(bought.shares, cost(&bought, "0.79")?, bought.fee);
    basis.sell(sold.shares, cost(&sold, "0.85")?, sold.fee);
    let cash = bought.cash().checked_add(sold.cash()).ok_or("overflow")?;
    println!(
        "sell {} at 0.85: {} pUSD less a {} fee; realized P&L {} pUSD (net of both fees), \
         cash {} pUSD, {} shares left at an average {} (entry fee {}), unrealized {} at 0.85",
        sold.shares,
        sold.value,
        sold.fee,
        basis.realized(),
        cash,
        basis.held(),
        basis.avg_price().map_or(Price::ZERO, |p| p),
        basis.fees(),
        basis.unrealized("0.85".parse()?),
    );
    // The realized P&L and what the dust is carried at add up to the cash, to the micro-unit
    // (the dust's cost and entry fee are what the cash spent on it).
    let carried = Amount::from_notional_floor(basis.cost())
        .and_then(|c| c.checked_add(Amount::from(basis.fees())))
        .ok_or("overflow")?;
    assert_eq!(basis.realized().checked_sub(carried), Some(cash));
    Ok(())
}
