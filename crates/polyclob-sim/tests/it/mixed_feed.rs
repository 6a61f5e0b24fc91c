//! The simulator serves a mixed exchange: CTF and Protocol V2 markets side by side.
//! The CLOB says which is which (`v`), V2 books carry `"version":"v2"` and the exchange's hash
//! covers it, some markets' snapshots omit `tick_size`/`last_trade_price`, and every genuine
//! snapshot of the feed verifies while a corrupted one is flagged.

use std::collections::HashMap;
use std::time::Duration;

use futures_util::StreamExt;
use polyclob::book::{HashStatus, Outcome};
use polyclob::clob::Client;
use polyclob::types::{ConditionId, Protocol};
use polyclob::ws::feed::FeedEvent;
use polyclob::ws::market::MarketEvent;

type BookEvent = FeedEvent<MarketEvent>;
use polyclob::ws::market::MarketStream;
use polyclob_sim::{MarketSpec, Simulator};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_snapshot_of_a_mixed_feed_verifies_v2_sparse() {
    mixed_feed(1).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_snapshot_of_a_mixed_feed_verifies_v2_full() {
    mixed_feed(0).await;
}

/// Markets whose index has parity `sparse_parity` send sparse snapshots: 1 makes the V2
/// market (index 3) and a CTF one sparse, 0 leaves the V2 market's snapshots whole.
async fn mixed_feed(sparse_parity: usize) {
    let specs: Vec<MarketSpec> = MarketSpec::defaults()
        .into_iter()
        .enumerate()
        .map(|(i, m)| m.sparse_books(i % 2 == sparse_parity))
        .collect();
    let v2 = specs.iter().position(MarketSpec::is_position_ids).unwrap();
    let v2_sparse = v2 % 2 == sparse_parity;
    let sim = Simulator::builder()
        .markets(specs.clone())
        .start()
        .await
        .unwrap();
    let client = Client::builder().host(sim.http_url()).build().unwrap();

    // Each market's protocol from the CLOB, and its book metadata from REST.
    let mut protocol_of = HashMap::new();
    let mut tokens = Vec::new();
    for s in &specs {
        let m = client.clob_market(s.condition_id()).await.unwrap();
        assert_eq!(m.protocol().unwrap(), s.protocol());
        let cond = m.condition().unwrap();
        assert_eq!(cond.protocol(), s.protocol());
        if s.is_position_ids() {
            // A bytes31 condition, sent and answered in its padded 64-hex form.
            assert!(cond.as_bytes31().is_some());
            assert_eq!(cond.to_string(), s.condition_id());
        }
        for t in s.tokens() {
            protocol_of.insert(t.token_id().to_owned(), s.protocol());
            tokens.push(t.token_id().to_owned());
        }
    }
    let stream = MarketStream::builder()
        .url(format!("{}/ws/market", sim.ws_url()))
        .assets(tokens.iter().map(String::as_str))
        .build()
        .unwrap();
    let mut books = stream;
    for t in &tokens {
        let rest = client.book(t).await.unwrap();
        assert_eq!(rest.protocol().unwrap(), protocol_of[t]);
        books
            .books_mut()
            .set_book_meta(t, rest.book_meta().unwrap());
    }

    // Snapshots: the initial ones, then the fresh ones simulated trades cause.
    let mut verified: HashMap<(Protocol, bool), u32> = HashMap::new();
    let mut last_v2_frame = None;
    for _ in 0..300 {
        sim.step_activity(5);
        while let Ok(Some(ev)) = tokio::time::timeout(Duration::from_millis(20), books.next()).await
        {
            let BookEvent::Message(MarketEvent::Update { event, outcome, .. }) = &ev else {
                continue;
            };
            let json = event.json();
            if !json.contains(r#""event_type":"book""#) {
                continue;
            }
            let asset = tokens.iter().find(|t| json.contains(t.as_str())).unwrap();
            let protocol = protocol_of[asset];
            assert_eq!(*outcome, Outcome::Applied, "{json}");
            assert_eq!(
                books.state().hash_status(asset),
                Some(HashStatus::Verified),
                "{json}"
            );
            assert_eq!(json.contains(r#""version":"v2""#), protocol == Protocol::V2);
            let sparse = !json.contains("\"tick_size\"");
            *verified.entry((protocol, sparse)).or_default() += 1;
            if protocol == Protocol::V2 {
                last_v2_frame = Some((asset.clone(), json.to_owned()));
            }
        }
        if verified.len() == 3 && verified.values().all(|&n| n >= 3) {
            break;
        }
    }
    // CTF with and without the optional members, V2 as its market is configured.
    for key in [
        (Protocol::Ctf, false),
        (Protocol::Ctf, true),
        (Protocol::V2, v2_sparse),
    ] {
        assert!(
            verified.get(&key).copied().unwrap_or(0) >= 3,
            "{verified:?}"
        );
    }
    for t in &tokens {
        assert_eq!(books.state().hash_mismatch_streak(t), 0);
    }

    // A corrupted V2 snapshot is flagged when it carries every hashed member; a sparse one
    // the client cannot rebuild exactly is "cannot verify", never a mismatch.
    let (asset, frame) = last_v2_frame.unwrap();
    let corrupt = frame.replacen(r#""size":""#, r#""size":"1"#, 1);
    assert_ne!(corrupt, frame);
    let mut outcomes = Vec::new();
    books
        .books_mut()
        .apply_with(&corrupt, std::time::Instant::now(), |u| {
            outcomes.push(u.outcome)
        });
    let (outcome, status) = if v2_sparse {
        (Outcome::Applied, HashStatus::Unverifiable)
    } else {
        (Outcome::HashMismatch, HashStatus::Mismatch)
    };
    assert_eq!(outcomes, [outcome]);
    assert_eq!(books.state().hash_status(&asset), Some(status));
}

/// A V2 market found through Gamma carries its version and position ids, and trades on
/// ExchangeV3: the same contexts the CLOB record gives.
#[tokio::test]
async fn gamma_and_clob_agree_on_a_v2_market() {
    let sim = Simulator::builder().start().await.unwrap();
    let spec = sim
        .markets()
        .into_iter()
        .find(MarketSpec::is_position_ids)
        .unwrap();
    let gamma = polyclob::gamma::Client::builder()
        .host(sim.gamma_url())
        .build()
        .unwrap();
    // The padded 64-hex id alone could be either protocol: the market says which.
    assert_eq!(
        spec.condition_id().parse::<ConditionId>(),
        Err(polyclob::types::ProtocolError::AmbiguousConditionId)
    );
    let cond = ConditionId::parse_for(spec.condition_id(), spec.protocol()).unwrap();
    let (found, _) = gamma
        .all_markets(
            polyclob::gamma::MarketFilter::new().condition_ids([spec.condition_id().to_owned()]),
        )
        .await
        .unwrap();
    let m = found.first().unwrap();
    assert_eq!(m.protocol().unwrap(), Protocol::V2);
    let t = m
        .trading(
            polyclob::types::Chain::Polygon,
            polyclob::types::ExchangeVersion::V2,
        )
        .unwrap();
    assert_eq!(t.protocol, Protocol::V2);
    assert_eq!(t.condition_id, cond.to_string());
    assert!(
        t.contexts
            .iter()
            .all(|c| c.version() == polyclob::types::ExchangeVersion::V3)
    );
}

/// Issue 47, item 2: the simulator's sparse snapshots (no `tick_size`, no
/// `last_trade_price`), watched by a client that registered only what it knows exactly (the
/// minimum size, neg-risk and protocol, no stand-ins) and joined after trades printed: each
/// snapshot is verified when the client's knowledge reproduces it and "cannot verify"
/// otherwise, never a mismatch; nothing is suspect, nothing is resynced.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sparse_snapshots_the_client_cannot_rebuild_are_unverifiable_not_mismatches() {
    use polyclob::book::{BookMeta, BookState};
    let specs: Vec<MarketSpec> = MarketSpec::defaults()
        .into_iter()
        .map(|m| m.sparse_books(true))
        .collect();
    let sim = Simulator::builder()
        .markets(specs.clone())
        .start()
        .await
        .unwrap();
    // Trades print before the client subscribes: it never sees their prices.
    sim.step_activity(40);
    let client = Client::builder().host(sim.http_url()).build().unwrap();
    let mut tokens = Vec::new();
    let mut metas = Vec::new();
    for s in &specs {
        for t in s.tokens() {
            let rest = client.book(t.token_id()).await.unwrap();
            let meta = BookMeta::new(rest.min_order_size.unwrap(), rest.neg_risk.unwrap())
                .with_protocol(s.protocol());
            tokens.push(t.token_id().to_owned());
            metas.push(meta);
        }
    }
    let stream = MarketStream::builder()
        .url(format!("{}/ws/market", sim.ws_url()))
        .assets(tokens.iter().map(String::as_str))
        .build()
        .unwrap();
    let mut books = stream;
    for (t, m) in tokens.iter().zip(&metas) {
        books.books_mut().set_book_meta(t, *m);
    }
    let mut statuses: HashMap<HashStatus, u32> = HashMap::new();
    for _ in 0..200 {
        sim.step_activity(5);
        while let Ok(Some(ev)) = tokio::time::timeout(Duration::from_millis(20), books.next()).await
        {
            let BookEvent::Message(MarketEvent::Update { event, outcome, .. }) = &ev else {
                continue;
            };
            let json = event.json();
            if !json.contains(r#""event_type":"book""#) {
                continue;
            }
            assert!(!json.contains("\"tick_size\""), "{json}");
            assert_eq!(*outcome, Outcome::Applied, "{json}");
            let asset = tokens.iter().find(|t| json.contains(t.as_str())).unwrap();
            let status = books.state().hash_status(asset).unwrap();
            assert!(
                matches!(status, HashStatus::Verified | HashStatus::Unverifiable),
                "{status:?}: {json}"
            );
            assert_eq!(books.state().book(asset).unwrap().state(), BookState::Live);
            *statuses.entry(status).or_default() += 1;
        }
        if statuses
            .get(&HashStatus::Unverifiable)
            .copied()
            .unwrap_or(0)
            >= 3
        {
            break;
        }
    }
    assert!(
        statuses
            .get(&HashStatus::Unverifiable)
            .copied()
            .unwrap_or(0)
            >= 3,
        "{statuses:?}"
    );
    let c = books.counters();
    assert_eq!(c.hash_mismatches, 0);
    assert_eq!(
        c.hash_unverifiable,
        u64::from(statuses[&HashStatus::Unverifiable])
    );
    assert_eq!(c.reconnects, 0, "no resync was chased");
}
