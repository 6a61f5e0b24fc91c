//! The simulator's PolyBolt endpoint through the crate's own streams: auth against the
//! simulator's API keys, snapshot then consecutive `seq`, exact prices, refused credentials,
//! `dropped` under a slow consumer and each close code as a scheduled fault.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::time::Duration;

use futures_util::StreamExt;
use polyclob::clob::Credentials;
use polyclob::polybolt::decode::{AckCode, BoltMessage, BoltPayload};
use polyclob::polybolt::{BoltSubscription, Channel, OwnedBoltMessage, PolyBoltStream};
use polyclob::ws::feed::FeedEvent;

type PolyBoltEvent = FeedEvent<OwnedBoltMessage>;
use polyclob::ws::continuity::{Cause, Lost, Recovery};
use polyclob::ws::event::Disconnect;
use polyclob::ws::event::Status;
use polyclob_sim::{
    Faults, HttpFault, HttpRule, SimHandle, Simulator, Trigger, WsChannel, WsFault, WsRule,
};
use support::{KEY_A, Trader};

const SEC: Duration = Duration::from_secs(1);

async fn sim() -> SimHandle {
    Simulator::builder()
        .seed(3)
        .rtds_interval(Duration::from_millis(20))
        .start()
        .await
        .unwrap()
}

async fn next(s: &mut PolyBoltStream) -> PolyBoltEvent {
    tokio::time::timeout(5 * SEC, s.next())
        .await
        .expect("an event")
        .expect("open")
}

fn data_seq(ev: &PolyBoltEvent) -> Option<(u64, bool, String)> {
    let PolyBoltEvent::Message(m) = ev else {
        return None;
    };
    let Ok(BoltMessage::Data(e)) = m.message() else {
        return None;
    };
    let price = match e.payload {
        BoltPayload::Price(p) => p.price.to_string(),
        BoltPayload::Snapshot(s) => s
            .points
            .last()
            .and_then(Result::ok)
            .map(|p| p.value.to_string())
            .unwrap_or_default(),
        _ => String::new(),
    };
    Some((e.seq, e.snapshot, price))
}

#[tokio::test]
async fn polybolt_authenticates_snapshots_and_counts() {
    let sim = sim().await;
    let t = Trader::new(&sim, KEY_A).await;
    let mut s = PolyBoltStream::builder()
        .url(sim.polybolt_url())
        .no_proxy()
        .credentials(t.creds.clone())
        .subscribe(BoltSubscription::crypto_twap("btcusd"))
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .unwrap();
    let mut seqs = Vec::new();
    while seqs.len() < 5 {
        let ev = next(&mut s).await;
        assert!(!matches!(ev, PolyBoltEvent::Break(_)), "{ev:?}");
        if let Some(d) = data_seq(&ev) {
            seqs.push(d);
        }
    }
    assert!(seqs[0].1, "a snapshot first");
    assert_eq!(
        seqs.iter().map(|d| d.0).collect::<Vec<_>>(),
        [1, 2, 3, 4, 5]
    );
    assert!(
        seqs.iter()
            .all(|d| d.2.contains('.') || d.2.parse::<u64>().is_ok())
    );
    assert!(s.trust((Channel::CryptoTwap, "btcusd")).is_trusted());
}

fn stream(sim: &SimHandle, t: &Trader, subs: &[BoltSubscription]) -> PolyBoltStream {
    subs.iter()
        .fold(
            PolyBoltStream::builder()
                .url(sim.polybolt_url())
                .no_proxy()
                .credentials(t.creds.clone()),
            |b, sub| b.subscribe(sub.clone()),
        )
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .build()
        .unwrap()
}

/// Upgrades to `/polybolt` the simulator has seen.
fn polybolt_connects(sim: &SimHandle) -> usize {
    sim.requests()
        .iter()
        .filter(|r| r.ends_with(" /polybolt"))
        .count()
}

/// A rule closing PolyBolt with `code` once, on its `n`-th frame from now.
fn close_on(code: u16, n: u64) -> Faults {
    Faults::none().ws(
        WsRule::new(Trigger::Window { first: n, count: 1 }, WsFault::Close(code))
            .channel(WsChannel::PolyBolt),
    )
}

/// 4002 (slow consumer) and 4003 (draining) as scheduled faults: one break, a reconnect
/// (4003's within the jitter bound), re-authentication and a new snapshot.
#[tokio::test]
async fn polybolt_close_4002_and_4003_reconnect_with_a_new_snapshot() {
    let sim = sim().await;
    let t = Trader::new(&sim, KEY_A).await;
    let mut s = stream(&sim, &t, &[BoltSubscription::crypto("btcusd")]);
    // Connected and subscribed before the faults are set.
    while data_seq(&next(&mut s).await).is_none() {}
    for code in [4002, 4003] {
        // The 10th frame from now is an update.
        sim.set_faults(close_on(code, 10));
        let connects = polybolt_connects(&sim);
        let mut breaks = Vec::new();
        loop {
            let ev = next(&mut s).await;
            if let PolyBoltEvent::Break(b) = &ev {
                breaks.push(*b);
            }
            if let Some((seq, snap, _)) = data_seq(&ev) {
                if !breaks.is_empty() {
                    assert_eq!(
                        (seq, snap),
                        (1, true),
                        "a new snapshot opens the new connection"
                    );
                    break;
                }
            }
        }
        assert_eq!(breaks.len(), 1, "{breaks:?}");
        assert_eq!(
            breaks[0].cause,
            Cause::Disconnected(Disconnect::Closed { code: Some(code) })
        );
        let Recovery::Reconnect { retry_in, .. } = breaks[0].recovery else {
            panic!("{:?}", breaks[0])
        };
        // 4003: one reconnect after min(10 s, backoff max = 50 ms) at most.
        assert!(retry_in <= Duration::from_millis(50), "{retry_in:?}");
        assert!(s.trust((Channel::Crypto, "btcusd")).is_trusted());
        assert_eq!(polybolt_connects(&sim), connects + 1);
    }
}

/// 4001 (authentication) and 4008 (policy) as scheduled faults: the stream reports the
/// break, stops and ends, with no reconnect loop.
#[tokio::test]
async fn polybolt_close_4001_and_4008_stop_and_report() {
    let sim = sim().await;
    let t = Trader::new(&sim, KEY_A).await;
    // 4008 for this account only: PolyBolt connections are authenticated by API key.
    let other = Trader::new(&sim, support::KEY_B).await;
    for (code, account) in [(4001, None), (4008, Some(&t))] {
        let mut rule = WsRule::new(Trigger::Window { first: 6, count: 1 }, WsFault::Close(code))
            .channel(WsChannel::PolyBolt);
        if let Some(a) = account {
            rule = rule.account(a.address().to_checksum(None));
            // Another account's connection does not count: its frames leave the rule alone.
            let mut o = stream(&sim, &other, &[BoltSubscription::crypto("solusd")]);
            sim.set_faults(Faults::none().ws(rule.clone()));
            for _ in 0..12 {
                assert!(!matches!(next(&mut o).await, PolyBoltEvent::Break(_)));
            }
        } else {
            sim.set_faults(Faults::none().ws(rule));
        }
        let connects = polybolt_connects(&sim);
        let mut s = stream(&sim, &t, &[BoltSubscription::crypto("ethusd")]);
        let mut evs = Vec::new();
        while let Ok(Some(ev)) = tokio::time::timeout(5 * SEC, s.next()).await {
            evs.push(ev);
        }
        let breaks: Vec<_> = evs
            .iter()
            .filter_map(|e| match e {
                PolyBoltEvent::Break(b) => Some(*b),
                _ => None,
            })
            .collect();
        assert_eq!(breaks.len(), 1, "{evs:#?}");
        assert_eq!(breaks[0].recovery, Recovery::Stop);
        assert!(
            evs.iter()
                .any(|e| matches!(e, PolyBoltEvent::Status(Status::Stopped {
                reason: Disconnect::Closed { code: Some(c) }, .. }) if *c == code)),
            "{evs:#?}"
        );
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert_eq!(polybolt_connects(&sim), connects + 1, "no reconnect");
    }
}

/// A client that reads too slowly (the server's writes stall): the server discards what
/// overflows the connection's send queue and says how much in `dropped`; the client reports
/// one break with that count and resnapshots.
#[tokio::test]
async fn a_slow_consumer_hears_what_was_dropped_and_resnapshots() {
    let sim = Simulator::builder()
        .seed(3)
        .rtds_interval(Duration::from_millis(5))
        .start()
        .await
        .unwrap();
    let t = Trader::new(&sim, KEY_A).await;
    // authed, then `subscribed` and a snapshot for each of five symbols: the 20th frame
    // is an update, and the writes stop there for a while.
    sim.set_faults(
        Faults::none().ws(WsRule::new(
            Trigger::Window {
                first: 20,
                count: 1,
            },
            WsFault::Stall(Duration::from_millis(1500)),
        )
        .channel(WsChannel::PolyBolt)),
    );
    let symbols = ["btcusd", "ethusd", "solusd", "xrpusd", "dogeusd"];
    let subs: Vec<_> = symbols
        .iter()
        .map(|s| BoltSubscription::crypto(s))
        .collect();
    let mut s = stream(&sim, &t, &subs);
    let mut evs = Vec::new();
    let resnapshot = loop {
        let ev = next(&mut s).await;
        let after_break = evs.iter().any(|e| matches!(e, PolyBoltEvent::Break(_)));
        if let (true, Some((1, true, _))) = (after_break, data_seq(&ev)) {
            break ev;
        }
        evs.push(ev);
    };
    let breaks: Vec<_> = evs
        .iter()
        .filter_map(|e| match e {
            PolyBoltEvent::Break(b) => Some(*b),
            _ => None,
        })
        .collect();
    // One break per `dropped` the server sent (one, unless the queue overflowed again before
    // the reconnect), each with the server's count.
    assert!(!breaks.is_empty(), "{evs:#?}");
    for b in &breaks {
        assert_eq!(
            b.cause,
            Cause::ServerDropped {
                channel: "price.crypto"
            }
        );
        assert!(matches!(b.lost, Lost::Count(n) if n > 0), "{b:?}");
        assert_eq!(b.recovery, Recovery::Resnapshot);
    }
    // The stream asked for one reconnect itself: reported as a status, not as another break.
    let requested = evs
        .iter()
        .filter(|e| {
            matches!(
                e,
                PolyBoltEvent::Status(Status::Disconnected {
                    reason: Disconnect::Resnapshot,
                    ..
                })
            )
        })
        .count();
    assert_eq!(requested, 1, "{evs:#?}");
    // Until the new snapshot, nothing after the break was trusted; now it is.
    assert!(data_seq(&resnapshot).is_some());
    assert!(s.trust((Channel::Crypto, "btcusd")).is_trusted());
    // Every update delivered before the break was consecutive: nothing was lost silently.
    let seqs: Vec<u64> = evs.iter().filter_map(data_seq).map(|d| d.0).collect();
    assert!(seqs.windows(2).all(|w| w[1] == w[0] + 1), "{seqs:?}");
}

#[tokio::test]
async fn polybolt_refuses_unknown_credentials() {
    let sim = sim().await;
    let mut s = PolyBoltStream::builder()
        .url(sim.polybolt_url())
        .no_proxy()
        .credentials(Credentials::new("nope", "c2VjcmV0", "x"))
        .subscribe(BoltSubscription::crypto("btcusd"))
        .build()
        .unwrap();
    // `auth_invalid` stops the stream (the docs: fix the credentials), naming the code.
    loop {
        if let PolyBoltEvent::Status(Status::Stopped { reason, .. }) = next(&mut s).await {
            assert_eq!(reason, Disconnect::Refused("auth_invalid"));
            break;
        }
    }
    assert!(
        tokio::time::timeout(5 * SEC, s.next())
            .await
            .is_ok_and(|e| matches!(e, Some(PolyBoltEvent::Break(_)))),
        "the break follows its status"
    );
}

type RawWs = crate::support::sim::Ws;

async fn raw_polybolt(sim: &SimHandle) -> RawWs {
    tokio_tungstenite::connect_async(sim.polybolt_url())
        .await
        .unwrap()
        .0
}

/// The next text frames as JSON, until `done` holds of what was read (at most 5 s).
async fn read_until(
    ws: &mut RawWs,
    done: impl Fn(&[serde_json::Value]) -> bool,
) -> Vec<serde_json::Value> {
    let mut got = Vec::new();
    let end = tokio::time::Instant::now() + 5 * SEC;
    while !done(&got) {
        let t = support::next_text(ws, end - tokio::time::Instant::now())
            .await
            .unwrap_or_else(|| panic!("timed out: {got:#?}"));
        got.push(serde_json::from_str(&t).unwrap());
    }
    got
}

/// `price.polymarket` without credentials: the top of book of a token with orders (what
/// `GET /book` shows), `[]` for a cold token, `bad_filter` for a token the simulator does not
/// list, then an update when the cold token's book gets its first order.
#[tokio::test]
async fn polymarket_is_public_with_tops_and_a_cold_snapshot() {
    let sim = Simulator::builder()
        .seed(3)
        .rtds_interval(Duration::from_millis(20))
        .markets(vec![
            polyclob_sim::MarketSpec::defaults()[0].clone(),
            support::empty_market(),
        ])
        .start()
        .await
        .unwrap();
    let warm = sim.markets()[0].tokens()[0].token_id().to_owned();
    let mut ws = raw_polybolt(&sim).await;
    let sub =
        |a: &str| format!(r#"{{"channel":"price.polymarket","filter":{{"asset_id":"{a}"}}}}"#);
    support::send(
        &mut ws,
        &format!(
            r#"{{"op":"subscribe","rid":"s1","subscriptions":[{},{},{}]}}"#,
            sub(&warm),
            sub(support::YES),
            sub("999")
        ),
    )
    .await;
    let snapshots = |v: &[serde_json::Value]| v.iter().filter(|f| f["snapshot"] == true).count();
    let got = read_until(&mut ws, |v| {
        snapshots(v) == 2 && v.iter().any(|f| f["op"] == "error")
    })
    .await;
    let acks: Vec<_> = got.iter().filter_map(|f| f["op"].as_str()).collect();
    assert_eq!(
        acks.iter().filter(|o| **o == "subscribed").count(),
        2,
        "{got:#?}"
    );
    let err = got.iter().find(|f| f["op"] == "error").unwrap();
    assert_eq!(
        (err["code"].as_str(), err["rid"].as_str()),
        (Some("bad_filter"), Some("s1"))
    );

    let (_, book) = support::get(&sim, &format!("/book?token_id={warm}")).await;
    let best = |side: &str, best: fn(f64, f64) -> f64, start: f64| {
        book[side]
            .as_array()
            .unwrap()
            .iter()
            .map(|l| l["price"].as_str().unwrap().parse::<f64>().unwrap())
            .fold(start, best)
    };
    for f in got.iter().filter(|f| f["snapshot"] == true) {
        assert_eq!(f["channel"], "price.polymarket");
        let text = f.to_string();
        let BoltMessage::Data(env) = polyclob::polybolt::decode::decode(&text).unwrap() else {
            panic!()
        };
        match env.payload {
            BoltPayload::Top(t) => {
                assert_eq!(t.asset_id, warm);
                let bid = t.best_bid.unwrap().to_string().parse::<f64>().unwrap();
                let ask = t.best_ask.unwrap().to_string().parse::<f64>().unwrap();
                assert_eq!(bid, best("bids", f64::max, 0.0), "{text}");
                assert_eq!(ask, best("asks", f64::min, 1.0), "{text}");
                assert!(t.hash.is_some_and(|h| !h.is_empty()) && t.timestamp_ms.is_some());
            }
            BoltPayload::Empty => {}
            other => panic!("{other:?}"),
        }
    }
    assert!(
        got.iter().any(|f| f["payload"] == serde_json::json!([])),
        "{got:#?}"
    );

    // The cold token's first order: one update with its top, the other side blank.
    let t = Trader::new(&sim, KEY_A).await;
    let (status, _, body) = t
        .post(&support::limit(
            support::YES,
            polyclob::types::Side::Buy,
            400_000,
            10_000_000,
            1,
        ))
        .await;
    assert_eq!(status, 200, "{body}");
    let got = read_until(&mut ws, |v| {
        v.iter().any(|f| f["payload"]["asset_id"] == support::YES)
    })
    .await;
    let upd = got
        .iter()
        .find(|f| f["payload"]["asset_id"] == support::YES)
        .unwrap();
    assert_eq!(upd.get("snapshot"), None);
    assert_eq!(
        (
            upd["payload"]["best_bid"].as_str(),
            upd["payload"]["best_ask"].as_str()
        ),
        (Some("0.4"), Some(""))
    );
    assert_eq!(upd["payload"]["market"], support::COND);
}

/// `{"op":"auth",…}` with `t`'s credentials.
fn auth_frame(t: &Trader, rid: &str) -> String {
    format!(
        r#"{{"op":"auth","rid":"{rid}","auth":{{"apiKey":"{}","secret":"{}","passphrase":"{}"}}}}"#,
        t.creds.api_key(),
        t.creds.secret(),
        t.creds.passphrase()
    )
}

/// Error acknowledgements as fault rules: `auth_unavailable` twice then `authed` (the
/// connection stays open meanwhile), `bad_filter` on one subscription of a batch, and
/// `rate_limited` followed by close 4008.
#[tokio::test]
async fn error_acks_follow_the_rules() {
    let sim = Simulator::builder()
        .seed(3)
        .rtds_interval(Duration::from_millis(20))
        .faults(
            Faults::none()
                .ws(WsRule::new(
                    Trigger::Window { first: 1, count: 2 },
                    WsFault::ErrorAck {
                        op: "auth",
                        code: "auth_unavailable",
                    },
                )
                .channel(WsChannel::PolyBolt))
                .ws(WsRule::new(
                    Trigger::Window { first: 2, count: 1 },
                    WsFault::ErrorAck {
                        op: "subscribe",
                        code: "bad_filter",
                    },
                )),
        )
        .start()
        .await
        .unwrap();
    let t = Trader::new(&sim, KEY_A).await;
    let mut ws = raw_polybolt(&sim).await;
    for rid in ["a1", "a2", "a3"] {
        support::send(&mut ws, &auth_frame(&t, rid)).await;
    }
    let got = read_until(&mut ws, |v| v.len() == 3).await;
    let answers: Vec<_> = got
        .iter()
        .map(|f| (f["op"].as_str(), f["code"].as_str(), f["rid"].as_str()))
        .collect();
    assert_eq!(
        answers,
        [
            (Some("error"), Some("auth_unavailable"), Some("a1")),
            (Some("error"), Some("auth_unavailable"), Some("a2")),
            (Some("authed"), None, Some("a3")),
        ]
    );
    // Each answer decodes to its typed code.
    let first = got[0].to_string();
    let BoltMessage::Ack(a) = polyclob::polybolt::decode::decode(&first).unwrap() else {
        panic!()
    };
    assert_eq!(a.code, Some(AckCode::AuthUnavailable));

    support::send(
        &mut ws,
        r#"{"op":"subscribe","rid":"s1","subscriptions":[{"channel":"price.crypto","filter":{"symbol":"btcusd"}},{"channel":"price.equity","filter":{"symbol":"aapl"}},{"channel":"price.crypto","filter":{"symbol":"ethusd"}}]}"#,
    )
    .await;
    let got = read_until(&mut ws, |v| {
        v.iter().filter(|f| f["snapshot"] == true).count() == 2
    })
    .await;
    let errors: Vec<_> = got.iter().filter(|f| f["op"] == "error").collect();
    assert_eq!(errors.len(), 1, "{got:#?}");
    assert_eq!(
        (errors[0]["code"].as_str(), errors[0]["channel"].as_str()),
        (Some("bad_filter"), Some("price.equity"))
    );
    let symbols: Vec<_> = got
        .iter()
        .filter(|f| f["snapshot"] == true)
        .map(|f| f["payload"]["symbol"].as_str().unwrap())
        .collect();
    assert_eq!(symbols, ["btcusd", "ethusd"]);

    // A code the docs say closes the connection: the error, then close 4008.
    sim.set_faults(Faults::none().ws(WsRule::new(
        Trigger::EveryNth(1),
        WsFault::ErrorAck {
            op: "subscribe",
            code: "rate_limited",
        },
    )));
    support::send(
        &mut ws,
        r#"{"op":"subscribe","rid":"s2","channel":"price.crypto","filter":{"symbol":"solusd"}}"#,
    )
    .await;
    let end = tokio::time::Instant::now() + 5 * SEC;
    let mut saw_error = false;
    let code = loop {
        let msg = tokio::time::timeout_at(end, ws.next())
            .await
            .expect("closes");
        match msg {
            Some(Ok(tokio_tungstenite::tungstenite::Message::Text(t))) => {
                saw_error |= t.contains(r#""code":"rate_limited""#) && t.contains(r#""rid":"s2""#);
            }
            Some(Ok(tokio_tungstenite::tungstenite::Message::Close(c))) => {
                break c.map(|c| u16::from(c.code));
            }
            Some(Ok(_)) => {}
            other => panic!("{other:?}"),
        }
    };
    assert!(saw_error);
    assert_eq!(code, Some(4008));
}

/// Handshakes refused as the docs say PolyBolt may: 429 and 503 with `Retry-After`.
#[tokio::test]
async fn handshakes_refused_with_retry_after() {
    let rule = |first, fault| {
        HttpRule::new(Trigger::Window { first, count: 1 }, fault).path_prefix("/polybolt")
    };
    let sim = Simulator::builder()
        .faults(
            Faults::none()
                .http(rule(1, HttpFault::RateLimited { retry_after: SEC }))
                .http(rule(
                    2,
                    HttpFault::Overloaded {
                        retry_after: Duration::from_millis(1500),
                    },
                )),
        )
        .start()
        .await
        .unwrap();
    for (status, retry_after) in [(429, "1"), (503, "2")] {
        let err = tokio_tungstenite::connect_async(sim.polybolt_url())
            .await
            .unwrap_err();
        let tokio_tungstenite::tungstenite::Error::Http(resp) = err else {
            panic!("{err}")
        };
        assert_eq!(resp.status().as_u16(), status);
        assert_eq!(
            resp.headers()
                .get("retry-after")
                .and_then(|v| v.to_str().ok()),
            Some(retry_after)
        );
    }
    assert!(
        tokio_tungstenite::connect_async(sim.polybolt_url())
            .await
            .is_ok()
    );
}
