//! The reads issue 49 added, under issue 47's rule. Each Data API v2 and Gamma call that
//! returns rows, served a real-shaped page with one bad row at index 1 over loopback, returns
//! the other rows and reports that one (index, reason, its raw text), counted in the client's
//! `counters().skipped_rows`. Each call that answers one object (a status, a wallet's figures,
//! a profile, a tag, a team, a series) fails with a decode error when that object does not
//! decode, a bad row of a list inside it included: never `None`, a default or a shorter list.
//! Shapes: the docs' examples (the row types' doc tests) and what polyclob-sim serves
//! (`wire/data_figures.rs`, `wire/gamma_more.rs`).

use std::error::Error as _;
use std::fmt::Debug;

use polyclob::data::Query;
use polyclob::http::{Error, SkippedRow};
use serde_json::{Value as Json, json};

use super::{data_client, gamma_client, the_bad_row_at_1, v2_page, with_bad};
use crate::support::mock_clob::{MockClob, Reply};

const ME: &str = "0x7c3d5a1e9b2f4c6d8e0a1b3c5d7e9f1a2b4c6d8e";
const COMBO: &str = "0x030b6a2f4c8e1d3b5a7c9e0f2a4b6c8d0e1f3a5b7c9d1e2f4a6b8c0d2e4f6a";

/// The bad row at index 1 was reported whole, and its reason names what was wrong with it.
fn reported(what: &str, skipped: &[SkippedRow], row: &Json, names: &str) {
    the_bad_row_at_1(what, skipped, row);
    assert!(
        skipped[0].reason.contains(names),
        "{what}: the reason does not name {names:?}: {:?}",
        skipped[0]
    );
}

/// `answer` is a decode error (never `Ok`, whatever the default would have been) whose text,
/// its sources included, names `names`. Returns that text.
fn undecoded<T: Debug>(what: &str, answer: Result<T, Error>, names: &str) -> String {
    let e = match answer {
        Ok(v) => panic!("{what}: an object that does not decode answered {v:?}"),
        Err(e) => e,
    };
    assert!(e.is_decode(), "{what}: {e}");
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text = format!("{text}: {s}");
        source = s.source();
    }
    assert!(text.contains(names), "{what}: {names:?} not in {text}");
    text
}

fn combo_leg(index: u32, price: Json) -> Json {
    json!({
        "leg_index": index,
        "leg_position_id": "71321045679252212594626385532706912750332728571942532289631379312455583992563",
        "leg_condition_id": "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1",
        "leg_outcome_index": 0, "leg_outcome_label": "Yes", "leg_status": "OPEN",
        "leg_resolved_at": null, "leg_current_price": price,
        "market": {"market_id": "1", "slug": "will-it-rain", "title": "Will it rain?",
            "question": "Will it rain?", "group_item_title": "", "sports_market_type": "",
            "line": null, "outcomes": ["Yes", "No"], "outcome": "Yes", "image_url": "",
            "icon_url": "", "category": "", "subcategory": "", "tags": [],
            "end_date": "2026-12-31T00:00:00Z",
            "event": {"event_id": "1000", "event_slug": "will-it-rain",
                "event_title": "Will it rain?", "event_image": ""}},
    })
}

fn combo_position(id: &str, legs: Vec<Json>) -> Json {
    json!({
        "combo_condition_id": COMBO, "outcome_index": 0, "outcome_label": "Yes",
        "combo_position_id": id, "proxy_wallet": ME, "current_size": 10.0,
        "entry_avg_price_usdc": 0.25, "entry_cost_usdc": 2.5, "gross_entry_cost_usdc": 2.5,
        "entry_fees_usdc": 0.0, "realized_payout_usdc": 0.0, "status": "OPEN",
        "redeemable": false, "first_entry_at": "2026-12-01T10:00:00Z",
        "first_entry_at_micros": 1_796_119_200_000_000_i64, "legs_total": legs.len(),
        "legs_resolved": 0, "legs_pending": legs.len(), "legs": legs,
        "updated_at": "2026-12-01T10:00:00Z", "updated_at_micros": 1_796_119_200_000_000_i64,
        "resolved_at": null,
    })
}

fn combo_activity(id: &str, amount: Json) -> Json {
    json!({
        "id": format!("{id}-0"), "type": "SPLIT", "proxy_wallet": ME,
        "combo_condition_id": COMBO, "combo_position_id": "1377", "amount_usdc": amount,
        "payout_usdc": null, "block_number": 93_512_031, "timestamp": 1_796_119_200,
        "transaction_hash": id, "legs": [combo_leg(0, json!(0.5)), combo_leg(1, json!(0.5))],
    })
}

/// The Data API's paged reads of issue 49: the trader board, the builders' board and volume,
/// the biggest wins, combo positions and combo activity.
#[tokio::test]
async fn every_data_list_of_issue_49_reports_a_bad_row() {
    let server = MockClob::start().await;
    let data = data_client(&server);
    let serve =
        |path: &str, rows: &[Json]| server.on("GET", path, vec![Reply::json(v2_page(rows))]);

    let entry = |rank: u32, user: &str, pnl: Json| {
        json!({"rank": rank, "user_id": user, "pnl": pnl, "volume": 1491184.383039,
            "user_name": "north", "profile_image": "", "x_username": "", "verified": false})
    };
    let bad = entry(2, "0xbad", json!("a fortune"));
    let rows = with_bad(
        vec![
            entry(1, "0x31e5", json!(966725.578196)),
            entry(2, "0x5f0e", json!(-12.5)),
        ],
        bad.clone(),
    );
    serve("/v2/leaderboard", &rows);
    let (got, skipped) = data
        .collect(Query::leaderboard().period("week"))
        .await
        .unwrap();
    let users: Vec<&str> = got.iter().map(|e| e.user_id.as_str()).collect();
    assert_eq!(users, ["0x31e5", "0x5f0e"]);
    reported("leaderboard", &skipped, &bad, "a fortune");

    let builder = |rank: Json, code: &str| {
        json!({"rank": rank, "builder_name": "Acme", "builder_code": code, "profile_image": "",
            "verified": true, "volume": 40210.75, "active_users": 58})
    };
    let bad = builder(json!("first"), "0xbad");
    let rows = with_bad(
        vec![builder(json!(1), "0xa1"), builder(json!(2), "0xb2")],
        bad.clone(),
    );
    serve("/v2/builders/leaderboard", &rows);
    let (got, skipped) = data.collect(Query::builders().period("all")).await.unwrap();
    let codes: Vec<&str> = got.iter().map(|b| b.builder_code.as_str()).collect();
    assert_eq!(codes, ["0xa1", "0xb2"]);
    reported("builders", &skipped, &bad, "first");

    let bucket = |date: &str, users: Json| {
        json!({"date": date, "rank": 1, "builder_name": "Acme", "builder_code": "0xa1",
            "profile_image": "", "verified": true, "volume": 40210.75, "active_users": users})
    };
    let bad = bucket("2026-12-05", json!("many"));
    let rows = with_bad(
        vec![
            bucket("2026-12-06", json!(58)),
            bucket("2026-12-04", json!(12)),
        ],
        bad.clone(),
    );
    serve("/v2/builders/volume", &rows);
    let (got, skipped) = data.builder_volume("day", 3).await.unwrap();
    let dates: Vec<Option<&str>> = got.iter().map(|b| b.date.as_deref()).collect();
    assert_eq!(dates, [Some("2026-12-06"), Some("2026-12-04")]);
    reported("builder_volume", &skipped, &bad, "many");

    let win = |rank: u32, resolved_at: Json| {
        json!({"win_rank": rank, "kind": "market", "user_id": "0x7c3d", "pnl": 812.44,
            "initial_value": 9.56, "final_value": 822.0, "resolved_at": resolved_at,
            "condition_id": "0x030b", "position_id": "1377", "event_id": 90001,
            "event_slug": "a-b", "event_title": "A / B", "user_name": "", "profile_image": ""})
    };
    let bad = win(2, json!("last week"));
    let rows = with_bad(
        vec![
            win(1, json!(1796601600)),
            win(3, json!("2026-12-06T00:00:00Z")),
        ],
        bad.clone(),
    );
    serve("/v2/biggest-winners", &rows);
    let (got, skipped) = data.collect(Query::biggest_winners()).await.unwrap();
    let ranks: Vec<Option<u32>> = got.iter().map(|w| w.win_rank).collect();
    assert_eq!(ranks, [Some(1), Some(3)]);
    reported("biggest_winners", &skipped, &bad, "last week");

    // A combo whose one leg does not decode is reported whole, never kept with fewer legs.
    let bad = combo_position(
        "1378",
        vec![combo_leg(0, json!(0.5)), combo_leg(1, json!(1.5))],
    );
    let legs = || vec![combo_leg(0, json!(0.5)), combo_leg(1, json!("0.25"))];
    let rows = with_bad(
        vec![
            combo_position("1377", legs()),
            combo_position("1379", legs()),
        ],
        bad.clone(),
    );
    serve("/v2/positions/combos", &rows);
    let (got, skipped) = data.collect(Query::combo_positions(ME)).await.unwrap();
    let ids: Vec<&str> = got.iter().map(|p| p.combo_position_id.as_str()).collect();
    assert_eq!(ids, ["1377", "1379"]);
    assert!(got.iter().all(|p| p.legs.len() == 2));
    reported("combo_positions", &skipped, &bad, "price");

    let bad = combo_activity("0xc2", json!("ten"));
    let rows = with_bad(
        vec![
            combo_activity("0xc3", json!(2.5)),
            combo_activity("0xc1", json!("2.5")),
        ],
        bad.clone(),
    );
    serve("/v2/activity/combos", &rows);
    let (got, skipped) = data.collect(Query::combo_activity(ME)).await.unwrap();
    let txs: Vec<&str> = got.iter().map(|a| a.transaction_hash.as_str()).collect();
    assert_eq!(txs, ["0xc3", "0xc1"]);
    reported("combo_activity", &skipped, &bad, "ten");

    assert_eq!(data.counters().skipped_rows, 6, "one a call");
}

/// The Data API's single answers of issue 49, each served a good object then the same object
/// with one bad field (or one bad row of a list inside it): the first decodes, the second is
/// an error that says it did not decode, counted; a documented miss (`data: null`) is `None`.
#[tokio::test]
async fn every_data_answer_of_issue_49_fails_when_its_object_does_not_decode() {
    let server = MockClob::start().await;
    let data = data_client(&server);
    let serve = |path: &str, good: &Json, bad: &Json| {
        let body = |v: &Json| json!({ "data": v }).to_string();
        server.on(
            "GET",
            path,
            vec![Reply::json(body(good)), Reply::json(body(bad))],
        );
    };
    let did_not_decode = |what: &str, text: &str| {
        assert!(text.contains("did not decode"), "{what}: {text}");
    };

    let good = json!({"computed_at": "2026-12-07T10:15:02Z", "age_seconds": 4,
        "serving": {"lag_seconds": 6, "worst": "pnl", "mechanisms": [
            {"name": "activity_feed", "age_seconds": 2, "blocks_behind": 0},
            {"name": "custody_balances", "age_seconds": 3, "blocks_behind": 1},
            {"name": "pnl", "age_seconds": 6, "blocks_behind": 13}]},
        "ingestion": {"chain_id": 137, "network": "polygon", "cursors": 41,
            "max_synced_block": 93512044, "min_synced_block": 93512031,
            "most_lagged": {"source": "exchange_v3_OrderFilled", "block": 93512031, "behind_max": 13},
            "lagging": [{"source": "exchange_v3_OrderFilled", "block": 93512031, "behind_max": 13}]}});
    let mut bad = good.clone();
    bad["serving"]["mechanisms"][1]["age_seconds"] = json!("stale");
    serve("/v2/status", &good, &bad);
    assert_eq!(data.status().await.unwrap().mechanisms.len(), 3);
    let text = undecoded("status", data.status().await, "stale");
    did_not_decode("status", &text);

    let pair = |id: &str, standard: Json| {
        json!({"id": id, "feature": "trading", "token": "0xC011", "spender": "0xe333",
            "standard": standard, "amount": "max", "approved": true})
    };
    let good = json!({"address": ME, "chain_id": 137, "checked_at": "2026-12-07T10:15:00Z",
        "contracts": [pair("pusd:exchange-v3", json!("ERC20")), pair("ctf:exchange-v3", json!("ERC1155"))]});
    let mut bad = good.clone();
    bad["contracts"][1]["standard"] = json!(["ERC1155"]);
    serve("/v2/approvals", &good, &bad);
    assert_eq!(data.approvals(ME).await.unwrap().contracts.len(), 2);
    let text = undecoded("approvals", data.approvals(ME).await, "text");
    did_not_decode("approvals", &text);

    let point = |t: u64, realized: Json| {
        json!({"timestamp": t, "source_block": 93399250, "realized_market_pnl": 1498.628372,
            "realized_lp_pnl": 0.0, "realized_combo_pnl": -24.666714, "realized_pnl": realized,
            "unrealized_pnl": null, "volume": 18148.642472, "volume_usdc": 11138.238625,
            "trade_count": 248})
    };
    let good = json!({"proxy_wallet": ME, "interval": "1w", "fidelity": "1d",
        "source_fidelity": "1d", "points": [point(1796083200, json!(1473.961658)),
        point(1796169600, json!(1473.961658)), point(1796256000, json!(1480.5))]});
    let mut bad = good.clone();
    bad["points"][1]["realized_pnl"] = json!("n/a");
    serve("/v2/user-pnl", &good, &bad);
    assert_eq!(data.user_pnl(ME, "1w", "1d").await.unwrap().points.len(), 3);
    let text = undecoded("user_pnl", data.user_pnl(ME, "1w", "1d").await, "n/a");
    did_not_decode("user_pnl", &text);

    let good = json!({"proxy_wallet": ME, "trades": 37, "biggest_win": 412.5, "views": 0,
        "join_date": 1771200000, "all_time_pnl": point(1796256000, json!(1480.5))});
    let mut bad = good.clone();
    bad["join_date"] = json!("a while ago");
    serve("/v2/user-stats", &good, &bad);
    assert_eq!(data.user_stats(ME).await.unwrap().unwrap().trades, Some(37));
    let text = undecoded("user_stats", data.user_stats(ME).await, "a while ago");
    did_not_decode("user_stats", &text);

    let good = json!({"volume": 18148.642472, "volume_usdc": 11138.238625, "trade_count": 248});
    let mut bad = good.clone();
    bad["trade_count"] = json!("248 fills");
    serve("/v2/user-volume", &good, &bad);
    assert_eq!(
        data.user_volume(ME, 0, 0).await.unwrap().trade_count,
        Some(248)
    );
    let text = undecoded("user_volume", data.user_volume(ME, 0, 0).await, "248 fills");
    did_not_decode("user_volume", &text);

    let good = json!({"taker_volume_total": 1820.5, "conditions": [
        {"condition_id": "0xdc92", "taker_volume": 1500.25},
        {"condition_id": "0x4356", "taker_volume": 320.25}]});
    let mut bad = good.clone();
    bad["conditions"][1]["taker_volume"] = json!("plenty");
    serve("/v2/live-volume", &good, &bad);
    assert_eq!(
        data.live_volume(&["90001"]).await.unwrap().conditions.len(),
        2
    );
    let text = undecoded("live_volume", data.live_volume(&["90001"]).await, "plenty");
    did_not_decode("live_volume", &text);

    let good = json!({"user_id": ME, "pnl": -12.5, "volume": 340.2, "rank_pnl": null,
        "rank_volume": 8812, "user_name": "", "profile_image": "", "x_username": "",
        "verified": false});
    let mut bad = good.clone();
    bad["rank_volume"] = json!("top ten");
    server.on_query(
        "GET",
        "/v2/leaderboard",
        Some("user="),
        vec![
            Reply::json(json!({ "data": good }).to_string()),
            Reply::json(json!({ "data": bad }).to_string()),
            Reply::json(r#"{"data":null}"#),
        ],
    );
    let standing = || data.leaderboard_standing(ME, "all", "overall");
    assert_eq!(standing().await.unwrap().unwrap().rank_volume, Some(8812));
    let text = undecoded("leaderboard_standing", standing().await, "top ten");
    did_not_decode("leaderboard_standing", &text);
    assert_eq!(
        standing().await.unwrap(),
        None,
        "`data: null` is the documented miss"
    );

    // A user the Data API does not know: `None`, not an error (and not a bad object).
    server.on(
        "GET",
        "/v2/user-stats",
        vec![Reply::json(r#"{"data":null}"#)],
    );
    assert_eq!(data.user_stats(ME).await.unwrap(), None);

    assert_eq!(
        data.counters().skipped_rows,
        7,
        "each bad object counted once"
    );
}

fn comment(id: &str, created: Json, positions: Json) -> Json {
    json!({
        "id": id, "body": "first", "parentEntityType": "Event", "parentEntityID": 1000,
        "parentCommentID": null, "userAddress": ME, "replyAddress": "",
        "createdAt": created, "updatedAt": "2026-12-07T10:15:00Z",
        "profile": {"name": "north", "pseudonym": "Quiet-Heron", "displayUsernamePublic": true,
            "bio": "", "isMod": false, "isCreator": false, "proxyWallet": ME, "baseAddress": ME,
            "profileImage": "", "positions": positions},
        "reactions": [{"id": "5", "commentID": id, "reactionType": "HEART", "icon": "",
            "userAddress": ME, "createdAt": "2026-12-07T10:16:00Z"}],
        "reportCount": 0, "reactionCount": 1,
    })
}

fn tag(id: &str, created: Json) -> Json {
    json!({"id": id, "label": "Politics", "slug": "politics", "forceShow": false,
        "createdAt": created, "updatedAt": "2024-01-01T00:00:00Z"})
}

fn team(id: u32, updated: Json) -> Json {
    json!({"id": id, "name": "Denver Broncos", "league": "nfl", "record": "8-5",
        "logo": "https://x/den.png", "abbreviation": "DEN", "alias": "Broncos",
        "createdAt": "2025-08-01T00:00:00Z", "updatedAt": updated})
}

/// Gamma's lists of issue 49: comments (on an entity, a thread, a wallet's), teams, and the
/// tags related to a tag, of an event, of a market.
#[tokio::test]
async fn every_gamma_list_of_issue_49_reports_a_bad_row() {
    let server = MockClob::start().await;
    let gamma = gamma_client(&server);
    let serve = |path: &str, rows: &[Json]| {
        server.on("GET", path, vec![Reply::json(json!(rows).to_string())]);
    };
    let ts = |s: &str| json!(s);
    let none = json!([]);

    let bad = comment("2", ts("yesterday"), none.clone());
    let rows = with_bad(
        vec![
            comment("3", ts("2026-12-07T10:15:00Z"), none.clone()),
            comment("1", json!(1796119200), none.clone()),
        ],
        bad.clone(),
    );
    serve("/comments", &rows);
    let (got, skipped) = gamma.comments("event", "1000", 10, 0).await.unwrap();
    let ids: Vec<&str> = got.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["3", "1"]);
    reported("comments", &skipped, &bad, "yesterday");

    // A thread whose reply's author holds a position written as shares, not base units.
    let held = |n: &str| json!([{"tokenId": "1", "positionSize": n}]);
    let bad = comment("11", ts("2026-12-07T10:16:00Z"), held("12.5"));
    let rows = with_bad(
        vec![
            comment("10", ts("2026-12-07T10:15:00Z"), held("12500000")),
            comment("12", ts("2026-12-07T10:17:00Z"), none.clone()),
        ],
        bad.clone(),
    );
    serve("/comments/10", &rows);
    let (got, skipped) = gamma.comment_thread("10").await.unwrap();
    let ids: Vec<&str> = got.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["10", "12"]);
    assert_eq!(got[0].profile.positions.len(), 1);
    reported("comment_thread", &skipped, &bad, "12.5");

    let mut bad = comment("21", ts("2026-12-07T10:16:00Z"), none.clone());
    bad["reactions"][0]["createdAt"] = json!("noon");
    let rows = with_bad(
        vec![
            comment("22", ts("2026-12-07T10:17:00Z"), none.clone()),
            comment("20", ts("2026-12-07T10:15:00Z"), none.clone()),
        ],
        bad.clone(),
    );
    serve(&format!("/comments/user_address/{ME}"), &rows);
    let (got, skipped) = gamma.comments_by_user(ME, 10, 0).await.unwrap();
    let ids: Vec<&str> = got.iter().map(|c| c.id.as_str()).collect();
    assert_eq!(ids, ["22", "20"]);
    reported("comments_by_user", &skipped, &bad, "noon");

    let bad = team(2, ts("preseason"));
    let rows = with_bad(
        vec![team(1, ts("2026-01-01T00:00:00Z")), team(3, json!(null))],
        bad.clone(),
    );
    serve("/teams", &rows);
    let (got, skipped) = gamma.teams(10, 0, &["nfl"]).await.unwrap();
    let ids: Vec<&str> = got.iter().map(|t| t.id.as_str()).collect();
    assert_eq!(ids, ["1", "3"]);
    reported("teams", &skipped, &bad, "preseason");

    let bad = tag("3", ts("someday"));
    let rows = with_bad(
        vec![tag("2", ts("2023-11-02T21:22:21Z")), tag("4", json!(null))],
        bad.clone(),
    );
    for (what, path) in [
        ("related_tags", "/tags/2/related-tags/tags"),
        ("event_tags", "/events/90001/tags"),
        ("market_tags", "/markets/501/tags"),
    ] {
        serve(path, &rows);
        let (got, skipped) = match what {
            "related_tags" => gamma.related_tags("2").await,
            "event_tags" => gamma.event_tags("90001").await,
            _ => gamma.market_tags("501").await,
        }
        .unwrap();
        let ids: Vec<&str> = got.iter().map(|t| t.id.as_str()).collect();
        assert_eq!(ids, ["2", "4"], "{what}");
        reported(what, &skipped, &bad, "someday");
    }

    assert_eq!(gamma.counters().skipped_rows, 7, "one a call");
}

/// Gamma's single answers of issue 49, each served a good object then the same object with one
/// bad field (or one bad row of a list inside it): the first decodes, the second is a decode
/// error, counted; a profile that does not decode is an error, never "no profile" (that is a
/// 404).
#[tokio::test]
async fn every_gamma_answer_of_issue_49_fails_when_its_object_does_not_decode() {
    let server = MockClob::start().await;
    let gamma = gamma_client(&server);
    let serve = |path: &str, good: &Json, bad: &Json| {
        server.on(
            "GET",
            path,
            vec![Reply::json(good.to_string()), Reply::json(bad.to_string())],
        );
    };

    let good = json!({"createdAt": "2025-03-01T12:00:00Z", "proxyWallet": ME, "profileImage": null,
        "displayUsernamePublic": true, "bio": null, "pseudonym": "Quiet-Heron", "name": "north",
        "users": [{"id": "12345", "creator": false, "mod": false}, {"id": "12346", "creator": true, "mod": false}],
        "xUsername": null, "verifiedBadge": false});
    let mut bad = good.clone();
    bad["users"][1]["id"] = json!({"n": 12346});
    serve("/public-profile", &good, &bad);
    assert_eq!(
        gamma.public_profile(ME).await.unwrap().unwrap().users.len(),
        2
    );
    undecoded("public_profile", gamma.public_profile(ME).await, "text");
    server.on(
        "GET",
        "/public-profile",
        vec![Reply::status(
            404,
            r#"{"type":"not found","error":"not found"}"#,
        )],
    );
    assert_eq!(
        gamma.public_profile(ME).await.unwrap(),
        None,
        "404 is no profile"
    );

    let good = json!({"id": "10187", "slug": "nfl-2026", "title": "NFL 2026", "ticker": "nfl-2026",
        "seriesType": "single", "recurrence": "daily", "active": true, "closed": false,
        "volume": "120345.5", "events": [{"id": "1000", "slug": "a"}, {"id": "1001", "slug": "b"}]});
    let mut bad = good.clone();
    bad["volume"] = json!("twelve");
    serve("/series/10187", &good, &bad);
    assert_eq!(gamma.series_by_id("10187").await.unwrap().events.len(), 2);
    undecoded("series_by_id", gamma.series_by_id("10187").await, "twelve");

    let good = json!({"id": "10187", "title": "NFL 2026", "slug": "nfl-2026",
        "eventDates": ["2026-09-10", "2026-09-13"], "eventWeeks": [1, 2], "earliest_open_week": 14,
        "earliest_open_date": "2026-12-07", "volume": 120345.5, "volume24hr": 5210.0});
    let mut bad = good.clone();
    bad["earliest_open_week"] = json!("fourteen");
    serve("/series-summary/10187", &good, &bad);
    serve("/series-summary/slug/nfl-2026", &good, &bad);
    assert_eq!(
        gamma
            .series_summary("10187")
            .await
            .unwrap()
            .earliest_open_week,
        Some(14)
    );
    undecoded(
        "series_summary",
        gamma.series_summary("10187").await,
        "fourteen",
    );
    let by_slug = gamma.series_summary_by_slug("nfl-2026").await.unwrap();
    assert_eq!(by_slug.event_dates.len(), 2);
    undecoded(
        "series_summary_by_slug",
        gamma.series_summary_by_slug("nfl-2026").await,
        "fourteen",
    );

    serve(
        "/teams/417",
        &team(417, json!(null)),
        &team(417, json!("later")),
    );
    assert_eq!(gamma.team("417").await.unwrap().id, "417");
    undecoded("team", gamma.team("417").await, "later");

    let good = tag("2", json!("2023-11-02T21:22:21Z"));
    let bad = tag("2", json!("someday"));
    serve("/tags/2", &good, &bad);
    serve("/tags/slug/politics", &good, &bad);
    assert_eq!(gamma.tag("2").await.unwrap().slug, "politics");
    undecoded("tag", gamma.tag("2").await, "someday");
    assert_eq!(gamma.tag_by_slug("politics").await.unwrap().id, "2");
    undecoded(
        "tag_by_slug",
        gamma.tag_by_slug("politics").await,
        "someday",
    );

    serve(
        "/sports/market-types",
        &json!({"marketTypes": ["moneyline", "spreads", "totals"]}),
        &json!({"marketTypes": ["moneyline", {"name": "spreads"}, "totals"]}),
    );
    assert_eq!(gamma.sports_market_types().await.unwrap().len(), 3);
    undecoded(
        "sports_market_types",
        gamma.sports_market_types().await,
        "map",
    );
    // An answer without its list is not "no types".
    server.on(
        "GET",
        "/sports/market-types",
        vec![Reply::json(r#"{"types":["moneyline"]}"#)],
    );
    undecoded(
        "sports_market_types without marketTypes",
        gamma.sports_market_types().await,
        "marketTypes",
    );

    assert_eq!(
        gamma.counters().decode_errors,
        9,
        "each bad object counted once"
    );
}
