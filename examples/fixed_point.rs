//! Exact fixed-point arithmetic on exchange strings: what an order for 21.04 shares at 0.56
//! costs, per tick size, with the exchange's rounding configuration.
//!
//! Run: `cargo run --example fixed_point`

use polyclob::fixed::{Price, Size};
use polyclob::types::TickSize;

fn main() -> Result<(), Box<dyn std::error::Error>> {
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
    Ok(())
}
