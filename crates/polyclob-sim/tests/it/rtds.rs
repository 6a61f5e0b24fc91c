//! The simulator's RTDS endpoint through the crate's own `RtdsStream`: deterministic
//! synthetic prices (the same series on every connection), the history dump after a
//! filtered subscribe, `orders_matched` for the simulator's own fills, and recovery from
//! injected WS faults.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::collections::BTreeMap;
use std::time::Duration;

use futures_util::StreamExt;
use polyclob::rtds::decode::{Payload, PriceSource};
use polyclob::rtds::{ActivityFilter, OwnedMessage, RefPrice, RtdsStream, Subscription};
use polyclob::ws::feed::FeedEvent;

type RtdsEvent = FeedEvent<OwnedMessage>;
use polyclob::types::Side;
use polyclob::ws::event::Status;
use polyclob_sim::{Faults, Simulator, Trigger, WsFault, WsRule};
use support::{COND, KEY_A, KEY_B, Trader, YES, empty_market, limit};
use tokio::time::Instant;

const C: u64 = 10_000; // one cent in micro-units
const S: u64 = 1_000_000; // one share

fn stream(url: &str, subs: Vec<Subscription>) -> RtdsStream {
    let mut b = RtdsStream::builder()
        .url(url)
        .backoff(Duration::from_millis(10), Duration::from_millis(100));
    for s in subs {
        b = b.subscribe(s);
    }
    b.build().unwrap()
}

/// Collects (symbol → timestamp → price) from updates until `n` updates per symbol arrived,
/// and the history dumps.
async fn collect_prices(
    s: &mut RtdsStream,
    symbols: &[&str],
    n: usize,
) -> (
    BTreeMap<String, BTreeMap<u64, RefPrice>>,
    BTreeMap<String, usize>,
) {
    let mut updates: BTreeMap<String, BTreeMap<u64, RefPrice>> = BTreeMap::new();
    let mut dumps = BTreeMap::new();
    let deadline = Instant::now() + Duration::from_secs(5);
    while symbols
        .iter()
        .any(|sym| updates.get(*sym).is_none_or(|u| u.len() < n))
    {
        let ev = tokio::time::timeout_at(deadline, s.next())
            .await
            .expect("prices in time")
            .expect("open");
        let RtdsEvent::Message(m) = ev else { continue };
        match m.message().unwrap().payload {
            Payload::Price(p) => {
                // The exact value and the float agree (the series has 5 decimals).
                assert_eq!(Some(p.price), p.value, "{p:?}");
                assert!(p.full_accuracy.is_some());
                updates
                    .entry(p.symbol.to_owned())
                    .or_default()
                    .insert(p.timestamp_ms.unwrap(), p.price);
            }
            Payload::PriceHistory(h) => {
                let pts: Vec<_> = h.points.collect::<Result<_, _>>().unwrap();
                assert!(
                    pts.windows(2)
                        .all(|w| w[0].timestamp_ms < w[1].timestamp_ms)
                );
                dumps.insert(h.symbol.to_owned(), pts.len());
            }
            other => panic!("unexpected {other:?}"),
        }
    }
    (updates, dumps)
}

#[tokio::test]
async fn synthetic_prices_are_deterministic_across_connections() {
    let sim = Simulator::builder()
        .seed(11)
        .rtds_interval(Duration::from_millis(20))
        .start()
        .await
        .unwrap();
    let subs = || {
        vec![
            Subscription::chainlink_prices(Some("btc/usd")),
            Subscription::crypto_prices(["ethusdt"]),
        ]
    };
    let mut a = stream(&sim.rtds_url(), subs());
    let mut b = stream(&sim.rtds_url(), subs());
    let (ua, da) = collect_prices(&mut a, &["btc/usd", "ethusdt"], 6).await;
    let (ub, _) = collect_prices(&mut b, &["btc/usd", "ethusdt"], 6).await;
    assert_eq!(da.get("btc/usd"), Some(&3), "history dump of three points");
    assert_eq!(da.get("ethusdt"), Some(&3));
    for sym in ["btc/usd", "ethusdt"] {
        let (pa, pb) = (&ua[sym], &ub[sym]);
        // Ticks sit on the interval grid and move.
        assert!(pa.keys().all(|t| t % 20 == 0), "{pa:?}");
        let distinct: std::collections::BTreeSet<_> = pa.values().collect();
        assert!(distinct.len() > 1, "{sym} does not move: {pa:?}");
        // Same tick, same value, whichever connection saw it.
        let common: Vec<_> = pa.keys().filter(|t| pb.contains_key(t)).collect();
        assert!(!common.is_empty());
        for t in common {
            assert_eq!(pa[t], pb[t], "{sym} at {t}");
        }
    }
    // Near the seeded bases (±0.2 %).
    let btc = ua["btc/usd"].values().next().unwrap().to_units(0).unwrap();
    assert!((99_800..=100_200).contains(&btc), "{btc}");
    // A second simulator with the same seed prints the same series.
    let sim2 = Simulator::builder()
        .seed(11)
        .rtds_interval(Duration::from_millis(20))
        .start()
        .await
        .unwrap();
    let mut c = stream(&sim2.rtds_url(), subs());
    let (ua, uc) = tokio::join!(
        collect_prices(&mut a, &["btc/usd"], 12),
        collect_prices(&mut c, &["btc/usd"], 12)
    );
    let (pa, pc) = (&ua.0["btc/usd"], &uc.0["btc/usd"]);
    let common: Vec<_> = pa.keys().filter(|t| pc.contains_key(t)).collect();
    assert!(!common.is_empty(), "{pa:?} {pc:?}");
    for t in common {
        assert_eq!(pa[t], pc[t], "same seed, same value at {t}");
    }
}

#[tokio::test]
async fn a_fill_shows_up_as_orders_matched() {
    let sim = Simulator::builder()
        .markets(vec![empty_market()])
        .start()
        .await
        .unwrap();
    let (_, market) = support::get(&sim, &format!("/markets/{COND}")).await;
    let slug = market["market_slug"].as_str().unwrap().to_owned();
    let mut all = stream(
        &sim.rtds_url(),
        vec![Subscription::orders_matched(ActivityFilter::All)],
    );
    let mut this = stream(
        &sim.rtds_url(),
        vec![Subscription::orders_matched(ActivityFilter::Market(&slug))],
    );
    let mut other = stream(
        &sim.rtds_url(),
        vec![Subscription::orders_matched(ActivityFilter::Market(
            "another-market",
        ))],
    );
    // Let the three connections subscribe before trading.
    for s in [&mut all, &mut this, &mut other] {
        let ev = tokio::time::timeout(Duration::from_secs(2), s.next())
            .await
            .unwrap();
        assert!(matches!(
            ev,
            Some(RtdsEvent::Status(Status::Connected { .. }))
        ));
    }
    tokio::time::sleep(Duration::from_millis(100)).await;

    let a = Trader::new(&sim, KEY_A).await;
    let b = Trader::new(&sim, KEY_B).await;
    let (s1, _, _) = a.post(&limit(YES, Side::Sell, 55 * C, 10 * S, 1)).await;
    let (s2, r, _) = b.post(&limit(YES, Side::Buy, 56 * C, 6 * S, 2)).await;
    assert_eq!((s1, s2), (200, 200), "{r}");

    for s in [&mut all, &mut this] {
        let ev = tokio::time::timeout(Duration::from_secs(2), async {
            loop {
                if let Some(RtdsEvent::Message(m)) = s.next().await {
                    return m;
                }
            }
        })
        .await
        .expect("orders_matched in time");
        let msg = ev.message().unwrap();
        assert_eq!((msg.topic, msg.kind), ("activity", "orders_matched"));
        let Payload::Trade(t) = msg.payload else {
            panic!("{msg:?}")
        };
        assert_eq!(t.asset, YES);
        assert_eq!(t.condition_id, Some(COND));
        assert_eq!(t.side, Side::Buy, "the taker's side");
        assert_eq!(t.price.as_micros(), 550_000, "the maker's price");
        assert_eq!(t.size.as_micros(), 6 * S);
        assert_eq!(t.slug.and_then(|s| s.as_str()), Some(slug.as_str()));
        assert_eq!(
            t.proxy_wallet.map(str::to_ascii_lowercase),
            Some(format!("{:#x}", b.address()))
        );
        assert!(t.transaction_hash.is_some_and(|h| h.starts_with("0x")));
    }
    // The connection filtered to another market saw nothing.
    let quiet = tokio::time::timeout(Duration::from_millis(200), other.next()).await;
    assert!(quiet.is_err(), "{quiet:?}");
}

#[tokio::test]
async fn injected_disconnects_are_survived_with_resubscription() {
    let sim = Simulator::builder()
        .rtds_interval(Duration::from_millis(10))
        .faults(Faults::none().ws(WsRule::new(Trigger::EveryNth(7), WsFault::Disconnect)))
        .start()
        .await
        .unwrap();
    let mut s = stream(
        &sim.rtds_url(),
        vec![Subscription::equity_prices(Some("AAPL"))],
    );
    let (mut prices, mut reconnects) = (0, 0);
    let deadline = Instant::now() + Duration::from_secs(5);
    while reconnects < 2 || prices < 10 {
        let ev = tokio::time::timeout_at(deadline, s.next())
            .await
            .expect("progress")
            .expect("open");
        match ev {
            RtdsEvent::Message(m) => {
                if let Payload::Price(p) = m.message().unwrap().payload {
                    assert_eq!((p.source, p.symbol), (PriceSource::Equity, "aapl"));
                    prices += 1;
                }
            }
            RtdsEvent::Status(Status::Connected {
                reconnect: true, ..
            }) => reconnects += 1,
            _ => {}
        }
    }
}
