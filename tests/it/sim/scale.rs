//! Scale: a simulator with 1,000 generated markets serves, pages and trades all of them.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::collections::{HashMap, HashSet};

use alloy_primitives::{B256, U256};
use polyclob::types::Side;
use polyclob_sim::{MarketSpec, Simulator};
use support::*;

#[tokio::test]
async fn a_thousand_generated_markets_have_valid_distinct_ids_and_trade() {
    let specs = MarketSpec::generate(1_000);
    let mut conditions = HashSet::new();
    let mut tokens = HashSet::new();
    let mut groups: HashMap<String, usize> = HashMap::new();
    for m in &specs {
        conditions.insert(m.condition_id().parse::<B256>().unwrap());
        for t in m.tokens() {
            tokens.insert(t.token_id().parse::<U256>().unwrap());
        }
    }
    assert_eq!(
        (conditions.len(), tokens.len()),
        (1_000, 2_000),
        "ids are distinct"
    );
    // Generated markets are CTF markets (a V2 market needs bytes31 ids generate does not make).
    assert!(!specs.iter().any(MarketSpec::is_position_ids));

    let sim = Simulator::builder().markets(specs).start().await.unwrap();
    // Every market is served: the cursor pages of /markets hold all 1,000, neg-risk groups
    // sharing their negRiskMarketID.
    let mut cursor = "MA==".to_owned();
    let mut served = 0;
    while cursor != "LTE=" {
        let (s, page) = get(&sim, &format!("/markets?next_cursor={cursor}")).await;
        assert_eq!(s, 200, "{page}");
        for m in page["data"].as_array().unwrap() {
            served += 1;
            if m["neg_risk"] == true {
                let id = m["neg_risk_market_id"].as_str().unwrap_or("").to_owned();
                *groups.entry(id).or_default() += 1;
            }
        }
        cursor = page["next_cursor"].as_str().unwrap().to_owned();
    }
    assert_eq!(served, 1_000);
    assert_eq!(groups.len(), 100, "{groups:?}");
    assert!(groups.values().all(|&n| n == 4));

    // The last market has a seeded book and takes a funded order.
    let last = &sim.markets()[999];
    let yes = last.tokens()[0].token_id().to_owned();
    let (s, book) = get(&sim, &format!("/book?token_id={yes}")).await;
    assert_eq!(s, 200);
    let ask = book["asks"].as_array().unwrap().last().unwrap()["price"]
        .as_str()
        .unwrap()
        .to_owned();
    let cents: u64 = (ask.parse::<f64>().unwrap() * 100.0).round() as u64;
    let t = Trader::new(&sim, KEY_A).await;
    let mut o = limit(&yes, Side::Buy, cents * 10_000, 5_000_000, 1);
    o.neg_risk = Some(last.is_neg_risk());
    let (s, v, _) = t.post(&o).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
}
