//! The Data API and Gamma: every row-returning call with one bad row in a real-shaped page;
//! `/v2/resolutions` pages of every lifecycle stage and both timestamp forms decode whole and
//! `redeemability` is right for each. tests/data/data_api/resolutions holds the resolution
//! pages.

use crate::support::mock_clob::{MockClob, Reply};

use polyclob::data::{self, Position, Query, Redeemability, ResolutionStatus};
use polyclob::gamma::{self, EventFilter, MarketFilter};
use polyclob::types::{ConditionId, PositionId, Protocol, Timestamp, TokenId};
use serde_json::{Value as Json, json};

fn ours(rel: &str) -> Vec<u8> {
    let path = format!("{}/tests/data/{rel}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

use super::{data_client, gamma_client, one_bad_at_1, v2_page, with_bad};

fn position(condition: &str, outcome: u32, size: &str) -> Position {
    serde_json::from_value(json!({
        "condition_id": condition, "outcome_index": outcome, "current_size": size
    }))
    .unwrap()
}

const CTF: &str = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1";
const V2: &str = "0x01a3f5c7e9b1d3f5a7c9e1b3d5f7a9c1e3000000000000000000000000000000";

/// Pending (unix seconds in a string), active (ISO 8601), resolved (ISO 8601 and unix
/// seconds), and a neg-risk event's mixed rows: every row decodes, every field is read, and
/// `redeemability` answers what each stage means.
#[tokio::test]
async fn resolution_pages_decode_whole_and_redeemability_is_right_for_each() {
    let server = MockClob::start().await;
    let data = data_client(&server);
    let serve = |file: &str| {
        server.on(
            "GET",
            "/v2/resolutions",
            vec![Reply::json(ours(&format!("data_api/resolutions/{file}")))],
        );
    };
    let ts = |s: &str| s.parse::<Timestamp>().unwrap();

    serve("pending.json");
    let (rows, skipped) = data.resolutions(CTF).await.unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    let r = &rows[0];
    assert_eq!(r.status, ResolutionStatus::Proposed);
    assert_eq!(r.last_update_timestamp, Some(ts("2026-10-05T09:30:58Z")));
    assert_eq!(r.expected_settlement_time, Some(ts("2026-10-05T11:30:58Z")));
    assert_eq!(r.settlement_time_basis, "managed_proposal_expiration");
    assert_eq!(r.proposed_price.as_deref(), Some("1000000000000000000"));
    assert_eq!(
        (r.reproposed_price.as_deref(), r.price.as_deref()),
        (None, None),
        "69 is unset"
    );
    assert_eq!(r.log_index, Some(212));
    assert_eq!(r.reporter, "UMA_OO");
    assert_eq!(
        data.redeemability(&position(CTF, 1, "10")).await.unwrap(),
        Redeemability::NotResolved {
            status: ResolutionStatus::Proposed
        }
    );
    // The request carried the condition and nothing else.
    let req = server.requests_to("/v2/resolutions").pop().unwrap();
    assert_eq!(req.query_param("condition").as_deref(), Some(CTF));
    assert_eq!(req.query_param("event_id"), None);

    serve("active.json");
    let (rows, skipped) = data.resolutions(&V2[..64]).await.unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    assert_eq!(rows[0].status, ResolutionStatus::Active);
    assert_eq!(
        rows[0].last_update_timestamp,
        Some(ts("2026-09-30T18:12:07Z"))
    );
    assert_eq!(
        (rows[0].market_type.as_str(), rows[0].log_index),
        ("BINARY", None)
    );
    assert!(rows[0].payouts.is_empty() && rows[0].resolved_at.is_none());
    assert_eq!(
        server
            .requests_to("/v2/resolutions")
            .pop()
            .unwrap()
            .query_param("condition")
            .as_deref(),
        Some(V2),
        "a 62-hex V2 id is sent padded"
    );
    assert_eq!(
        data.redeemability(&position(V2, 0, "3")).await.unwrap(),
        Redeemability::NotResolved {
            status: ResolutionStatus::Active
        }
    );

    for file in ["resolved.json", "resolved_seconds.json"] {
        serve(file);
        let (rows, skipped) = data.resolutions(CTF).await.unwrap();
        assert!(skipped.is_empty(), "{file}: {skipped:?}");
        let r = &rows[0];
        assert!(r.is_resolved(), "{file}");
        assert_eq!(
            r.last_update_timestamp,
            Some(ts("2026-10-05T23:00:53Z")),
            "{file}"
        );
        let (winner, loser) = if r.payout(0) == Some(1_000_000) {
            (0, 1)
        } else {
            (1, 0)
        };
        assert_eq!(
            data.redeemability(&position(CTF, winner, "10"))
                .await
                .unwrap(),
            Redeemability::Redeemable {
                payout_per_share: 1_000_000
            },
            "{file}"
        );
        assert_eq!(
            data.redeemability(&position(CTF, loser, "10"))
                .await
                .unwrap(),
            Redeemability::Lost,
            "{file}"
        );
    }
    serve("resolved.json");
    let r = &data.resolutions(CTF).await.unwrap().0[0];
    assert_eq!(r.resolved_at, Some(ts("2026-10-05T23:00:53Z")));
    assert_eq!((r.resolved_block, r.log_index), (77_123_456, Some(87)));
    assert!(r.was_disputed);
    assert_eq!(r.was_arbitrated, Some(false));
    assert_eq!(r.resolution_source, "reported");

    // An event's rows: neg-risk siblings, one derived, one still disputed.
    serve("event.json");
    let (rows, skipped) = data
        .collect(Query::resolutions_of_event("90001"))
        .await
        .unwrap();
    assert!(skipped.is_empty(), "{skipped:?}");
    let statuses: Vec<&ResolutionStatus> = rows.iter().map(|r| &r.status).collect();
    assert_eq!(
        statuses,
        [
            &ResolutionStatus::Resolved,
            &ResolutionStatus::Resolved,
            &ResolutionStatus::Disputed
        ]
    );
    assert_eq!(rows[1].resolution_source, "derived");
    assert_eq!(rows[2].settlement_time_basis, "dvm_round_estimate");
    assert!(rows[2].new_version_q);
    assert_eq!(
        rows[2].last_update_timestamp,
        Some(ts("2026-10-05T11:30:58Z"))
    );
}

/// A resolution row that does not decode makes redeemability unknown, never "no
/// resolution"; an empty answer is "no resolution".
#[tokio::test]
async fn a_bad_resolution_row_is_unknown_not_absent() {
    let server = MockClob::start().await;
    let data = data_client(&server);
    let mut page: Json =
        serde_json::from_slice(&ours("data_api/resolutions/resolved.json")).unwrap();
    page["data"][0]["payouts"] = json!(["all of it", 0]);
    server.on(
        "GET",
        "/v2/resolutions",
        vec![Reply::json(page.to_string())],
    );
    let (rows, skipped) = data.resolutions(CTF).await.unwrap();
    assert!(rows.is_empty());
    assert_eq!(skipped[0].index, 0);
    let r = data.redeemability(&position(CTF, 1, "10")).await.unwrap();
    assert!(matches!(r, Redeemability::Unknown { .. }), "{r:?}");
    assert!(r.to_string().contains("did not decode"), "{r}");

    server.on(
        "GET",
        "/v2/resolutions",
        vec![Reply::json(r#"{"data":[]}"#)],
    );
    assert_eq!(
        data.redeemability(&position(CTF, 1, "10")).await.unwrap(),
        Redeemability::NoResolution
    );
    // `null` data is a documented miss too.
    server.on(
        "GET",
        "/v2/resolutions",
        vec![Reply::json(r#"{"data":null}"#)],
    );
    assert_eq!(data.resolutions(CTF).await.unwrap(), (vec![], vec![]));
}

/// Every Data API call that returns rows, over loopback, with one bad row in a real-shaped
/// page: the row is reported, the others are returned.
#[tokio::test]
async fn every_data_call_reports_a_bad_row() {
    let server = MockClob::start().await;
    let data = data_client(&server);
    let me = "0x983eedfbd75803602e4a6e6ea9aab6dc6b9c6748";
    let rows = |file: &str| -> Vec<Json> {
        let v: Json = serde_json::from_slice(&ours(file)).unwrap();
        v["data"].as_array().unwrap().clone()
    };

    let positions = with_bad(
        rows("data_api/positions_v2.json"),
        json!({"token_id": "9", "current_size": "lots"}),
    );
    server.on(
        "GET",
        "/v2/positions",
        vec![Reply::json(v2_page(&positions))],
    );
    let (got, skipped) = data.positions(me).await.unwrap();
    assert_eq!(got.len(), 2);
    one_bad_at_1("positions", &skipped);
    assert!(skipped[0].reason.contains("size"), "{:?}", skipped[0]);
    let (got, skipped) = data.closed_positions(me).await.unwrap();
    assert_eq!(got.len(), 2);
    one_bad_at_1("closed_positions", &skipped);

    let trades = vec![
        json!({"proxy_wallet": me, "side": "BUY", "token_id": "1", "condition_id": CTF, "size": 10, "price": 0.61, "timestamp": 1786179735, "outcome": "Yes", "outcome_index": 0, "transaction_hash": "0x01"}),
        json!({"proxy_wallet": me, "side": "SELL", "token_id": "1", "condition_id": CTF, "size": 4, "price": 1.5, "timestamp": 1786179736}),
        json!({"proxy_wallet": me, "side": "SELL", "token_id": "1", "condition_id": CTF, "size": 5, "price": "0.62", "timestamp": "1786179737"}),
    ];
    server.on("GET", "/v2/trades", vec![Reply::json(v2_page(&trades))]);
    let (got, skipped) = data.trades(me).await.unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[1].timestamp.unwrap().as_secs(), 1_786_179_737);
    one_bad_at_1("trades", &skipped);

    let activity = with_bad(
        rows("data_api/activity_v2.json"),
        json!({"type": "TRADE", "timestamp": "yesterday"}),
    );
    server.on("GET", "/v2/activity", vec![Reply::json(v2_page(&activity))]);
    let (got, skipped) = data.activity(me).await.unwrap();
    assert_eq!(got.len(), 2);
    assert_eq!(got[0].timestamp.unwrap().as_secs(), 1_786_179_735);
    one_bad_at_1("activity", &skipped);
    assert!(skipped[0].reason.contains("timestamp"), "{:?}", skipped[0]);

    // A holder that does not decode fails its group, which is reported.
    let groups = with_bad(
        rows("data_api/holders_v2.json"),
        json!({"token_id": "3", "holders": [{"proxy_wallet": "0xdd", "amount": "much"}]}),
    );
    server.on("GET", "/v2/holders", vec![Reply::json(v2_page(&groups))]);
    let (got, skipped) = data.holders(CTF).await.unwrap();
    assert_eq!(
        got.iter().map(|g| g.token_id.as_str()).collect::<Vec<_>>(),
        ["1", "2"]
    );
    one_bad_at_1("holders", &skipped);

    let resolutions: Json =
        serde_json::from_slice(&ours("data_api/resolutions/event.json")).unwrap();
    let mut res = resolutions["data"].as_array().unwrap().clone();
    res[1]["last_update_timestamp"] = json!("last tuesday");
    server.on("GET", "/v2/resolutions", vec![Reply::json(v2_page(&res))]);
    let (got, skipped) = data.resolutions(CTF).await.unwrap();
    assert_eq!(got.len(), 2);
    one_bad_at_1("resolutions", &skipped);

    let points = vec![
        json!({"t": 1790000000, "p": 0.52}),
        json!({"t": 1790000060, "p": 2}),
        json!({"t": "1790000120", "p": "0.5"}),
    ];
    server.on(
        "GET",
        "/v2/prices-history",
        vec![Reply::json(v2_page(&points))],
    );
    let (got, skipped) = data.collect(Query::prices_history("1")).await.unwrap();
    assert_eq!(got.len(), 2);
    one_bad_at_1("prices_history", &skipped);

    let oi = vec![
        json!({"condition_id": CTF, "value": "12.5"}),
        json!({"condition_id": "0xbb", "value": []}),
        json!({"condition_id": "GLOBAL", "value": 99}),
    ];
    server.on("GET", "/v2/oi", vec![Reply::json(v2_page(&oi))]);
    let (got, skipped) = data.collect(Query::open_interest()).await.unwrap();
    assert_eq!(got.len(), 2);
    one_bad_at_1("open_interest", &skipped);

    // A single-row answer whose row does not decode says so.
    server.on(
        "GET",
        "/v2/value",
        vec![Reply::json(
            r#"{"data":{"proxy_wallet":"0x1","value":"a lot"}}"#,
        )],
    );
    let e = data.value(me).await.unwrap_err();
    assert!(e.to_string().contains("did not decode"), "{e}");
    // One bad row a call, each counted once, the value's too.
    assert_eq!(data.counters().skipped_rows, 9);
}

/// Across pages, a skipped row's index counts every row of the walk: it names one row.
#[tokio::test]
async fn collect_indexes_skipped_rows_across_pages() {
    let server = MockClob::start().await;
    let data = data_client(&server);
    let first = json!({"data": [{"token_id": "1"}, {"token_id": "2", "current_size": "x"}],
        "pagination": {"has_more": true, "next_cursor": "c2"}});
    let second = json!({"data": [{"token_id": "3"}, {"token_id": "4", "avg_price": 7}],
        "pagination": {"has_more": false, "next_cursor": null}});
    server.on_query(
        "GET",
        "/v2/positions",
        Some("cursor=c2"),
        vec![Reply::json(second.to_string())],
    );
    server.on("GET", "/v2/positions", vec![Reply::json(first.to_string())]);
    let (rows, skipped) = data.positions("0x1").await.unwrap();
    assert_eq!(
        rows.iter().map(|r| r.token_id.as_str()).collect::<Vec<_>>(),
        ["1", "3"]
    );
    assert_eq!(skipped.iter().map(|s| s.index).collect::<Vec<_>>(), [1, 3]);
}

/// Every Gamma call that returns rows, over loopback, with one bad row in a real-shaped page.
#[tokio::test]
async fn every_gamma_call_reports_a_bad_row() {
    let server = MockClob::start().await;
    let gamma = gamma_client(&server);

    let page: Json = serde_json::from_slice(&ours("gamma/markets_keyset.json")).unwrap();
    let good: Vec<Json> = page["markets"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|m| serde_json::from_value::<gamma::GammaMarket>((*m).clone()).is_ok())
        .cloned()
        .collect();
    assert_eq!(good.len(), 2);
    // A market whose nested event does not decode is reported whole, not thinned.
    let markets = with_bad(good, json!({"id": "9", "events": [{"id": "1"}, 7]}));
    let body = json!({"markets": markets, "next_cursor": null}).to_string();
    server.on("GET", "/markets/keyset", vec![Reply::json(body)]);
    let page = gamma
        .markets_page(&MarketFilter::new(), None)
        .await
        .unwrap();
    assert_eq!(page.data.len(), 2);
    one_bad_at_1("markets_page", &page.skipped);
    let (all, skipped) = gamma.all_markets(MarketFilter::new()).await.unwrap();
    assert_eq!(all.len(), 2);
    one_bad_at_1("all_markets", &skipped);

    let page: Json = serde_json::from_slice(&ours("gamma/events_keyset_last.json")).unwrap();
    let event = page["events"][0].clone();
    let mut other = event.clone();
    other["id"] = json!("90002");
    let events = with_bad(
        vec![event, other],
        json!({"id": "90003", "markets": [{"id": "1"}, {"id": "2", "outcomePrices": "[\"2\"]"}]}),
    );
    let body = json!({"events": events}).to_string();
    server.on("GET", "/events/keyset", vec![Reply::json(body)]);
    let page = gamma.events_page(&EventFilter::new(), None).await.unwrap();
    assert_eq!(page.data.len(), 2);
    assert_eq!(
        page.data[1].markets.len(),
        2,
        "a good event keeps every market"
    );
    one_bad_at_1("events_page", &page.skipped);
    let (all, skipped) = gamma.all_events(EventFilter::new()).await.unwrap();
    assert_eq!(all.len(), 2);
    one_bad_at_1("all_events", &skipped);

    let tags = json!([{"id": "2", "label": "Politics", "slug": "politics"}, {"id": {"x": 1}}, {"id": 3, "label": "Sports"}]);
    server.on("GET", "/tags", vec![Reply::json(tags.to_string())]);
    let (got, skipped) = gamma.tags(10).await.unwrap();
    assert_eq!(got.len(), 2);
    one_bad_at_1("tags", &skipped);

    let series = json!([{"id": "10684", "slug": "btc-5m", "recurrence": "5m", "volume": "12.5"}, {"id": "2", "volume": "twelve"}, {"id": "3", "events": null}]);
    server.on("GET", "/series", vec![Reply::json(series.to_string())]);
    let (got, skipped) = gamma.series(10, 0).await.unwrap();
    assert_eq!(got.len(), 2);
    one_bad_at_1("series", &skipped);

    let sports = json!([{"sport": "nba", "tags": "1,745", "series": "10345"}, {"sport": {"name": "nfl"}}, {"sport": "epl", "tags": "1,82"}]);
    server.on("GET", "/sports", vec![Reply::json(sports.to_string())]);
    let (got, skipped) = gamma.sports().await.unwrap();
    assert_eq!(got.len(), 2);
    one_bad_at_1("sports", &skipped);

    // Search reports its bad rows by list and index; `optimized=true` answers carry
    // `hasMore` at the top level.
    let search = json!({"events": [{"id": "1"}, {"id": "2", "negRisk": [1]}, {"id": "3"}],
        "profiles": [{"name": "a", "proxyWallet": "0x1"}], "hasMore": true});
    server.on(
        "GET",
        "/public-search",
        vec![Reply::json(search.to_string())],
    );
    let found = gamma.search("x", 0).await.unwrap();
    assert_eq!(found.events.len(), 2);
    assert_eq!(found.skipped.len(), 1);
    let bad = &found.skipped[0];
    assert_eq!((bad.list, bad.index), ("events", 1), "{bad:?}");
    assert_eq!(bad.raw, r#"{"id":"2","negRisk":[1]}"#);
    assert!(found.has_more);
    assert_eq!(gamma.counters().skipped_rows, 8);
}

/// Issue 47, item 3: a Data API row's condition comes with its protocol, from the row's
/// token: a V2 position's padded condition is V2, a CTF token's condition CTF.
#[test]
fn data_rows_type_their_condition_from_the_token() {
    let v2 = ConditionId::parse_for(V2, Protocol::V2).unwrap();
    let yes = PositionId::of(v2, 0).unwrap().as_u256().to_string();
    let row: Position =
        serde_json::from_value(json!({"condition_id": V2, "token_id": yes})).unwrap();
    let c = row.condition().unwrap();
    assert_eq!((c.protocol(), c), (Protocol::V2, v2));
    // The same padded id alone is refused, not guessed.
    assert!(V2.parse::<ConditionId>().is_err());
    let row: Position = serde_json::from_value(json!({"condition_id": V2})).unwrap();
    assert!(row.condition().is_err());

    let page = data::decode_cursor_page::<data::DataTrade>(&v2_page(&[
        json!({"condition_id": CTF, "token_id": "71321045679252212594626385532706912750332728571942532289631379312455583992563"}),
        json!({"condition_id": V2, "token_id": yes}),
    ]))
    .unwrap();
    assert_eq!(page.data[0].condition().unwrap().protocol(), Protocol::Ctf);
    assert_eq!(page.data[1].condition().unwrap().protocol(), Protocol::V2);
    let a: data::Activity =
        serde_json::from_value(json!({"condition_id": V2, "token_id": yes})).unwrap();
    assert_eq!(a.condition().unwrap(), v2);
    // A V2 position of another condition says nothing about this one: not V2.
    let other = PositionId::of(ConditionId::v2([2; 31]), 0)
        .unwrap()
        .as_u256()
        .to_string();
    let t = TokenId::parse(other.as_bytes()).unwrap();
    assert_eq!(
        ConditionId::parse_with_token(V2, &t).unwrap().protocol(),
        Protocol::Ctf
    );
}
