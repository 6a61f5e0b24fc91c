//! The fee arithmetic against the venue: every taker leg of real V2 `OrderFilled` events
//! (Polygon, both exchanges, both sides, rates 0.05 and 0.07) recomputed by
//! [`FeeSchedule::taker_fee`] must equal the fee the chain charged, to the micro-unit.

use crate::support::fixtures;

use polyclob::fixed::{Price, Size};
use polyclob::types::FeeSchedule;
use serde_json::Value;

const TAKER_FEES: &str = "polymarket/nautilus_test_data/chain_order_filled_taker_fees.json";

#[test]
fn taker_fees_equal_what_the_chain_charged() {
    let Some(bytes) = fixtures::read_shared(TAKER_FEES) else {
        return;
    };
    let rows: Vec<Value> = serde_json::from_slice(&bytes).expect("a JSON array");
    assert_eq!(rows.len(), 21, "the capture's 21 taker legs");
    let text = |r: &Value, k: &str| r[k].as_str().unwrap_or_else(|| panic!("{k}")).to_owned();
    let mut charged = 0;
    for (i, r) in rows.iter().enumerate() {
        let rate: Price = text(r, "fee_rate").parse().unwrap();
        let price: Price = text(r, "price").parse().unwrap();
        // The shares of the leg: what a BUY receives, what a SELL gives.
        let shares = match text(r, "side").as_str() {
            "BUY" => text(r, "taker_amount_filled"),
            _ => text(r, "maker_amount_filled"),
        };
        let shares = Size::from_micros(shares.parse().unwrap());
        let want = Size::from_micros(text(r, "fee").parse().unwrap());
        let schedule = FeeSchedule::new(rate, 1, true, None).unwrap();
        let fee = schedule.taker_fee([(price, shares)]).unwrap();
        assert_eq!(fee, want, "row {i}: {r}");
        charged += usize::from(!want.is_zero());
    }
    // Rows that could tell a rounding rule from another (19 charged a fee).
    assert_eq!(charged, 19);
}
