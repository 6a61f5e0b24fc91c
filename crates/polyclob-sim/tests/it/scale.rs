//! Scale: a simulator with 1,000 generated markets serves, pages and trades all of them.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::collections::{HashMap, HashSet};

use alloy_primitives::{B256, U256};
use polyclob::types::{ConditionId, ExchangeVersion, PositionId, Protocol, Side};
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
    // One market in ten is a Protocol V2 market: a padded bytes31 condition of the V2 layout
    // whose tokens are its position ids.
    let v2: Vec<&MarketSpec> = specs.iter().filter(|m| m.is_position_ids()).collect();
    assert_eq!(v2.len(), 100);
    for m in &v2 {
        let c = ConditionId::parse_for(m.condition_id(), Protocol::V2).unwrap();
        for (o, t) in m.tokens().iter().enumerate() {
            let p = PositionId::of(c, u8::try_from(o).unwrap()).unwrap();
            assert_eq!(t.token_id(), p.as_u256().to_string());
        }
        assert!(!m.is_neg_risk());
    }

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

    // So does a V2 market, with an order signed for ExchangeV3.
    let m = sim
        .markets()
        .into_iter()
        .find(MarketSpec::is_position_ids)
        .unwrap();
    let yes = m.tokens()[0].token_id().to_owned();
    let (_, book) = get(&sim, &format!("/book?token_id={yes}")).await;
    let ask = book["asks"].as_array().unwrap().last().unwrap()["price"]
        .as_str()
        .unwrap()
        .to_owned();
    // Every third generated market is on the 0.001 tick: the price in micro-units.
    let micros: u64 = (ask.parse::<f64>().unwrap() * 1e6).round() as u64;
    let mut o = limit(&yes, Side::Buy, micros, 5_000_000, 2);
    o.version = Some(ExchangeVersion::V3);
    let (s, v, _) = t.post(&o).await;
    assert_eq!((s, v["status"].as_str()), (200, Some("matched")), "{v}");
}

/// 1,000 generated markets (CTF, V2, neg-risk groups) under the standard crowd, 20 of them
/// following a driven BTC random walk, stream to ten market-channel connections of 200 assets
/// each (the exchange's cap per connection): every published frame reaches its connection
/// and no connection is dropped,
/// and the test prints what the simulator's steps cost against the frames they produced
/// (crates/polyclob-sim/README.md, "Scale", quotes a run).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_thousand_markets_stream_under_the_crowd_without_loss() {
    use futures_util::{SinkExt, StreamExt};
    use polyclob_sim::{Crowd, FairValue, PricePath};
    use std::time::{Duration, Instant};

    const STEPS: usize = 300;
    let specs = MarketSpec::generate(1_000);
    let sim = Simulator::builder()
        .markets(specs.clone())
        .crowd(Crowd::standard(3))
        .start()
        .await
        .unwrap();
    sim.drive_reference(
        "btc",
        PricePath::random_walk(100_000_000_000, 40_000_000, 9).jumps(20_000, 500_000_000),
    );
    // 0.01 per $200 of BTC.
    for m in specs.iter().step_by(50) {
        let fair = FairValue::reference("btc", 100_000_000_000, 20_000_000_000);
        assert!(sim.drive_market(m.condition_id(), fair));
    }
    let assets: Vec<String> = specs
        .iter()
        .flat_map(|m| m.tokens().iter().map(|t| t.token_id().to_owned()))
        .collect();
    let received = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let mut readers = Vec::new();
    for chunk in assets.chunks(200) {
        let (mut ws, _) = tokio_tungstenite::connect_async(sim.market_ws_url())
            .await
            .unwrap();
        let sub = serde_json::json!({"assets_ids": chunk, "type": "market", "custom_feature_enabled": true});
        ws.send(tokio_tungstenite::tungstenite::Message::Text(
            sub.to_string().into(),
        ))
        .await
        .unwrap();
        // The snapshot frame, then count every frame until the connection ends.
        let received = std::sync::Arc::clone(&received);
        readers.push(tokio::spawn(async move {
            let first = ws.next().await.unwrap().unwrap();
            assert!(first.to_text().unwrap().contains("\"book\""));
            while let Some(Ok(m)) = ws.next().await {
                if m.is_text() {
                    received.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                }
            }
        }));
    }
    // Let every subscription land before the first step.
    tokio::time::sleep(Duration::from_millis(300)).await;
    let before = sim.market_frames_published();
    let t0 = Instant::now();
    let mut stepping = Duration::ZERO;
    for _ in 0..STEPS {
        let s = Instant::now();
        sim.step_activity(1);
        stepping += s.elapsed();
        // Paced so that the clients, on the same two cores, are not what is measured
        // falling behind.
        tokio::time::sleep(Duration::from_millis(2)).await;
    }
    let published = sim.market_frames_published() - before;
    let got = || received.load(std::sync::atomic::Ordering::Relaxed);
    let deadline = Instant::now() + Duration::from_secs(60);
    while got() < published && Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let wall = t0.elapsed();
    // A connection the simulator dropped (a client too slow) would stop counting.
    assert!(
        readers.iter().all(|r| !r.is_finished()),
        "no connection ended"
    );
    for r in readers {
        r.abort();
    }
    assert!(
        published > 5 * STEPS as u64,
        "the crowd kept the books moving: {published}"
    );
    assert_eq!(got(), published, "every frame reached its connection");
    eprintln!(
        "1,000 markets, {STEPS} crowd steps: {published} frames; the simulator's steps took {:.0} ms ({:.0} frames/s of stepping, {:.1} µs a step); all delivered to the 10 connections {:.1} s after the first step",
        stepping.as_secs_f64() * 1e3,
        published as f64 / stepping.as_secs_f64(),
        stepping.as_secs_f64() * 1e6 / STEPS as f64,
        wall.as_secs_f64(),
    );
}
