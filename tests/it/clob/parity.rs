//! Issue 18 through the native client against the simulator: builder keys, fees and
//! attributed trades; rewards (percentages, earnings by day and in total, reward markets);
//! pre-migration orders; paging and odd rows.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use alloy_primitives::B256;
use futures_util::TryStreamExt as _;
use polyclob::clob::types::{TradeStatus, UserEarning};
use polyclob::clob::{Client, RewardsQuery, TradeFilter};
use polyclob::fixed::{Price, Size};
use polyclob::http::decode_page;
use polyclob::order::{LimitOrder, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, Side, SignatureType, TickSize};
use polyclob_sim::{SimHandle, Simulator};
use support::*;

const CODE: B256 = B256::new([0xb1; 32]);

async fn client(sim: &SimHandle, key: &str) -> Client {
    crate::support::sim::fund_all(sim, Signer::from_hex(key).unwrap().address());
    let c = Client::builder()
        .host(sim.http_url())
        .signer(Signer::from_hex(key).unwrap())
        .build()
        .unwrap();
    let creds = c
        .create_api_key(polyclob::clob::ApiKeyNonce::ZERO)
        .await
        .unwrap();
    c.set_credentials(creds);
    c
}

fn signer(key: &str, code: B256) -> OrderSigner {
    OrderSigner::new(Signer::from_hex(key).unwrap(), Chain::Polygon, Wallet::Eoa)
        .unwrap()
        .builder_code(code)
}

fn px(cents: u32) -> Price {
    Price::new(cents * 10_000).unwrap()
}

fn sz(shares: u64) -> Size {
    Size::from_micros(shares * 1_000_000)
}

async fn post(c: &Client, s: &OrderSigner, token: &str, side: Side, cents: u32, shares: u64) {
    let ctx = c
        .market_context_with(token, TickSize::Hundredth, false)
        .unwrap();
    let signed = s
        .limit_order(&ctx, &LimitOrder::new(side, px(cents), sz(shares)))
        .unwrap();
    let r = c.post_order(&signed).await.unwrap();
    assert!(r.success, "{r:?}");
}

fn today() -> String {
    let days = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        / 86_400;
    // Civil date of `days` (H. Hinnant), the test's own oracle for the sim's.
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

#[tokio::test]
async fn builder_keys_are_created_listed_and_revoked() {
    let sim = start_empty().await;
    let c = client(&sim, KEY_A).await;
    let own = c.credentials().unwrap();
    let (keys, skipped) = c.builder_api_keys().await.unwrap();
    assert!(keys.is_empty() && skipped.is_empty());

    let b = c.create_builder_api_key().await.unwrap();
    assert_ne!(b.api_key(), own.api_key());
    let (keys, _) = c.builder_api_keys().await.unwrap();
    assert_eq!(keys.len(), 1);
    assert_eq!(keys[0].key, b.api_key());
    assert!(!keys[0].is_revoked());
    assert!(keys[0].created_at.is_some());

    // Revoking with the account's own key is refused: it is not a builder key.
    let e = c.revoke_builder_api_key().await.unwrap_err();
    assert_eq!(e.status(), Some(400), "{e}");

    // The builder key authenticates until it is revoked with itself.
    c.set_credentials(b.clone());
    assert_eq!(c.builder_api_keys().await.unwrap().0.len(), 1);
    c.revoke_builder_api_key().await.unwrap();
    let e = c.builder_api_keys().await.unwrap_err();
    assert!(e.is_auth() || e.status() == Some(401), "{e}");

    c.set_credentials(own);
    let (keys, _) = c.builder_api_keys().await.unwrap();
    assert!(keys[0].is_revoked());

    // Another account sees none of them.
    let other = client(&sim, KEY_B).await;
    assert!(other.builder_api_keys().await.unwrap().0.is_empty());
}

#[tokio::test]
async fn builder_fees_and_attributed_trades_follow_the_fills() {
    let sim = Simulator::builder()
        .markets(vec![empty_market()])
        .page_size(1)
        .start()
        .await
        .unwrap();
    sim.set_builder_fee(CODE, 0, 100);
    let a = client(&sim, KEY_A).await;
    let b = client(&sim, KEY_B).await;

    let f = a.builder_fee_rate(CODE).await.unwrap();
    assert_eq!(
        (f.builder_maker_fee_rate_bps, f.builder_taker_fee_rate_bps),
        (0, 100)
    );
    let other = a.builder_fee_rate(B256::new([7; 32])).await.unwrap();
    assert_eq!(other.builder_taker_fee_rate_bps, 0);
    assert!(
        a.builder_fee_rate(B256::ZERO)
            .await
            .unwrap_err()
            .is_argument()
    );
    assert!(
        a.builder_trades(B256::ZERO, &TradeFilter::default(), None)
            .await
            .unwrap_err()
            .is_argument()
    );

    // A rests a YES bid attributed to CODE; B (no code) sells 6 into it: A's maker leg.
    post(&a, &signer(KEY_A, CODE), YES, Side::Buy, 40, 10).await;
    post(&b, &signer(KEY_B, B256::ZERO), YES, Side::Sell, 40, 6).await;
    // B rests a NO bid with CODE; A (no code) sells 5 into it: B's maker leg.
    post(&b, &signer(KEY_B, CODE), NO, Side::Buy, 45, 5).await;
    post(&a, &signer(KEY_A, B256::ZERO), NO, Side::Sell, 45, 5).await;
    // B rests a NO bid without code; A sells 5 into it with CODE: A's taker leg.
    post(&b, &signer(KEY_B, B256::ZERO), NO, Side::Buy, 30, 5).await;
    post(&a, &signer(KEY_A, CODE), NO, Side::Sell, 30, 5).await;

    let f = TradeFilter::default();
    let (rows, skipped) = a.all_builder_trades(CODE, &f).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(rows.len(), 3, "{rows:#?}");
    let maker_a = rows
        .iter()
        .find(|r| r.trade_type == "MAKER" && r.side == Some(Side::Buy) && r.asset_id == YES)
        .unwrap();
    assert_eq!(maker_a.size, sz(6));
    assert_eq!(maker_a.price, px(40));
    assert_eq!(maker_a.size_usdc, Size::from_micros(2_400_000));
    assert_eq!(maker_a.fee, Size::ZERO); // maker fee 0 bps
    // The trade's own settlement status, whatever stage the simulator has reached.
    assert!(matches!(
        maker_a.status,
        TradeStatus::Matched | TradeStatus::Mined | TradeStatus::Confirmed
    ));
    let maker_b = rows
        .iter()
        .find(|r| r.asset_id == NO && r.trade_type == "MAKER")
        .unwrap();
    assert_eq!(
        (maker_b.trade_type.as_str(), maker_b.size, maker_b.side),
        ("MAKER", sz(5), Some(Side::Buy))
    );
    let taker = rows.iter().find(|r| r.trade_type == "TAKER").unwrap();
    assert_eq!((taker.side, taker.size), (Some(Side::Sell), sz(5)));
    assert_eq!(taker.size_usdc, Size::from_micros(1_500_000));
    assert_eq!(taker.fee_usdc, Size::from_micros(15_000)); // 1 % of 1.50
    assert!(!taker.taker_order_hash.is_empty());

    // Page size 1: the stream walks three pages, the filter narrows server-side.
    let pages: Vec<_> = a
        .builder_trades_stream(CODE, &f)
        .unwrap()
        .try_collect()
        .await
        .unwrap();
    assert_eq!(pages.len(), 3);
    let only_no = TradeFilter {
        asset_id: Some(NO.to_owned()),
        ..TradeFilter::default()
    };
    assert_eq!(
        a.all_builder_trades(CODE, &only_no).await.unwrap().0.len(),
        2
    );
    // No credentials needed (py-clob-client-v2 sends none).
    let anon = Client::builder().host(sim.http_url()).build().unwrap();
    assert_eq!(anon.all_builder_trades(CODE, &f).await.unwrap().0.len(), 3);
}

#[tokio::test]
async fn rewards_follow_resting_size_and_maker_fills() {
    let sim = start_empty().await;
    let a = client(&sim, KEY_A).await;
    let b = client(&sim, KEY_B).await;
    let sa = signer(KEY_A, B256::ZERO);
    let sb = signer(KEY_B, B256::ZERO);
    let eoa = SignatureType::Eoa;

    let (current, _) = a.all_current_rewards().await.unwrap();
    assert_eq!(current.len(), 1);
    assert_eq!(current[0].condition_id, COND);
    assert_eq!(current[0].rewards_config[0].rate_per_day, sz(10));
    assert_eq!(current[0].rewards_min_size, sz(5));
    assert_eq!(current[0].rewards_max_spread, sz(3));

    // Nothing resting: nobody scores.
    assert!(
        a.reward_percentages(eoa)
            .await
            .unwrap()
            .by_market
            .is_empty()
    );

    // A bids 0.49 × 100, B offers 0.51 × 50: midpoint 0.50, both within 3 cents.
    post(&a, &sa, YES, Side::Buy, 49, 100).await;
    post(&b, &sb, YES, Side::Sell, 51, 50).await;
    let pa = a.reward_percentages(eoa).await.unwrap();
    assert_eq!(pa.by_market[COND], Size::from_micros(66_666_666));
    let pb = b.reward_percentages(eoa).await.unwrap();
    assert_eq!(pb.by_market[COND], Size::from_micros(33_333_333));
    // B sells 20 into A's bid (A is maker for 20); A buys 47 of B's offer (B is maker for
    // 47), which leaves B 3 shares, below the minimum size: B no longer scores.
    post(&b, &sb, YES, Side::Sell, 49, 20).await;
    post(&a, &sa, YES, Side::Buy, 51, 47).await;
    assert!(
        b.reward_percentages(eoa)
            .await
            .unwrap()
            .by_market
            .is_empty()
    );
    assert_eq!(
        a.reward_percentages(eoa).await.unwrap().by_market[COND],
        sz(100)
    );
    let day = today();
    let (ea, skipped) = a.all_earnings_for_day(&day, eoa).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(ea.len(), 1);
    // 20 of the day's 67 maker shares: 20/67 of 10 pUSD, floored to the micro.
    assert_eq!(ea[0].earnings, Size::from_micros(2_985_074));
    assert_eq!(ea[0].condition_id, COND);
    assert!(ea[0].date.starts_with(&day));
    let (tb, skipped) = b.total_earnings_for_day(&day, eoa).await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(tb.len(), 1);
    assert_eq!(tb[0].earnings, Size::from_micros(7_014_925));
    let (mb, _) = b
        .all_user_earnings_and_markets(&RewardsQuery::new(day.as_str()), eoa)
        .await
        .unwrap();
    assert_eq!(mb[0].market.condition_id, COND);
    assert_eq!(mb[0].earning_percentage, Size::from_micros(70_149_253));
    assert_eq!(mb[0].earnings[0].earnings, Size::from_micros(7_014_925));
    assert_eq!(mb[0].market.tokens.len(), 2);

    // Another day: nothing.
    assert!(
        a.all_earnings_for_day("2020-01-01", eoa)
            .await
            .unwrap()
            .0
            .is_empty()
    );
    assert!(
        a.total_earnings_for_day("2020-01-01", eoa)
            .await
            .unwrap()
            .0
            .is_empty()
    );
    // A malformed date never leaves the client.
    assert!(
        a.earnings_for_day("2026-1-1", eoa, None)
            .await
            .unwrap_err()
            .is_argument()
    );

    let (mr, _) = a.all_market_rewards(COND).await.unwrap();
    assert_eq!(mr.len(), 1);
    assert_eq!(mr[0].rewards_config[0].total_days, 365);
    assert_eq!(
        a.market_rewards("0xdead", None).await.unwrap_err().status(),
        Some(404)
    );
    // The user endpoints need L2.
    let anon = Client::builder().host(sim.http_url()).build().unwrap();
    assert!(anon.reward_percentages(eoa).await.is_err());
}

#[tokio::test]
async fn pre_migration_orders_are_the_v1_orders() {
    // A V1 exchange: every order is a V1 order, and listed as pre-migration.
    let sim = Simulator::builder()
        .markets(vec![empty_market()])
        .clob_version(1)
        .start()
        .await
        .unwrap();
    let a = client(&sim, KEY_A).await;
    a.refresh_exchange_version().await.unwrap();
    post(&a, &signer(KEY_A, B256::ZERO), YES, Side::Buy, 20, 10).await;
    let (orders, skipped) = a.all_pre_migration_orders().await.unwrap();
    assert!(skipped.is_empty());
    assert_eq!(orders.len(), 1);
    assert_eq!(orders[0].asset_id, YES);

    // On V2, live V2 orders are not pre-migration orders.
    let sim = start_empty().await;
    let a = client(&sim, KEY_A).await;
    post(&a, &signer(KEY_A, B256::ZERO), YES, Side::Buy, 20, 10).await;
    assert!(a.pre_migration_orders(None).await.unwrap().data.is_empty());
    assert!(a.all_orders(&Default::default()).await.unwrap().0.len() == 1);
}

#[test]
fn one_odd_reward_row_never_fails_the_page() {
    let body = br#"{"data":[
        {"date":"2026-11-23T00:00:00Z","condition_id":"0x1","earnings":1.25,"asset_rate":1},
        {"date":"2026-11-23T00:00:00Z","condition_id":"0x2","earnings":"lots"},
        {"condition_id":"0x3","earnings":"0.000001"}],"next_cursor":"LTE=","limit":100,"count":3}"#;
    let p = decode_page::<UserEarning>(body).unwrap();
    assert_eq!(p.data.len(), 2);
    assert_eq!(p.skipped[0].index, 1);
    assert_eq!(p.data[0].earnings, Size::from_micros(1_250_000));
    assert_eq!(p.data[1].earnings, Size::from_micros(1));
}

/// Known answers from py-clob-client-v2 1.2.1 (scripts/make_clob_vectors.py): the exact RFQ
/// bodies and their L2 HMACs, including the V1 orders signed by accept and approve.
#[test]
fn rfq_bodies_match_py_clob_client_v2() {
    use polyclob::clob::rfq::{RfqAmounts, RfqOrderTerms, RfqQuote, order_body};
    use polyclob::order::{MarketContext, TokenId};
    use polyclob::sign::hmac::HmacKey;
    use polyclob::types::ExchangeVersion;
    use serde_json::Value;

    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/clob_vectors.json");
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    let key = HmacKey::from_base64url(v["secret"].as_str().unwrap()).unwrap();
    let ts = v["l2_timestamp"].as_u64().unwrap();
    let owner = v["owner"].as_str().unwrap();
    let s = |x: &Value| x.as_str().unwrap().to_owned();
    let mut checked = 0;
    for r in v["requests"]
        .as_array()
        .unwrap()
        .iter()
        .chain(v["quotes"].as_array().unwrap())
    {
        let tick = TickSize::parse(s(&r["tick"]).as_bytes()).unwrap();
        let side = Side::parse(s(&r["side"]).as_bytes()).unwrap();
        let a = RfqAmounts::new(
            &s(&r["token_id"]),
            side,
            Price::parse(s(&r["price"]).as_bytes()).unwrap(),
            Size::parse(s(&r["size"]).as_bytes()).unwrap(),
            tick,
        )
        .unwrap();
        let body = a.to_json(r["request_id"].as_str(), SignatureType::Eoa);
        assert_eq!(
            String::from_utf8(body.clone()).unwrap(),
            s(&r["body"]),
            "{}",
            r["id"]
        );
        let sig = key.sign(ts, "POST", &s(&r["path"]), &body);
        assert_eq!(sig.as_str(), s(&r["poly_signature"]), "{}", r["id"]);
        checked += 1;
    }
    for o in v["orders"].as_array().unwrap() {
        let quote: RfqQuote = serde_json::from_value(o["quote"].clone()).unwrap();
        let terms = match o["kind"].as_str().unwrap() {
            "accept" => RfqOrderTerms::accept(&quote).unwrap(),
            _ => RfqOrderTerms::approve(&quote).unwrap(),
        };
        let chain = Chain::from_id(o["chain"].as_u64().unwrap()).unwrap();
        let ctx = MarketContext::new(
            chain,
            ExchangeVersion::V1,
            TokenId::parse(terms.token_id.as_bytes()).unwrap(),
            TickSize::parse(s(&o["tick"]).as_bytes()).unwrap(),
            o["neg_risk"].as_bool().unwrap(),
        )
        .unwrap();
        let signer = OrderSigner::new(
            Signer::from_hex(v["private_key"].as_str().unwrap()).unwrap(),
            chain,
            Wallet::Eoa,
        )
        .unwrap();
        let signed = terms
            .sign(
                &signer,
                &ctx,
                o["expiration"].as_u64().unwrap(),
                o["salt"].as_u64(),
                Some(ts * 1000),
            )
            .unwrap();
        let body = order_body(
            &s(&o["request_id"]),
            &s(&o["quote"]["quoteId"]),
            owner,
            &signed,
        );
        assert_eq!(
            String::from_utf8(body.clone()).unwrap(),
            s(&o["body"]),
            "{}",
            o["id"]
        );
        let sig = key.sign(ts, "POST", &s(&o["path"]), &body);
        assert_eq!(sig.as_str(), s(&o["poly_signature"]), "{}", o["id"]);
        checked += 1;
    }
    assert_eq!(checked, 11);
}

#[tokio::test]
async fn rfq_round_trip_settles_as_a_trade_on_rest_and_the_user_channel() {
    use polyclob::clob::rfq::{RfqFilter, RfqState};

    let sim = start_empty().await;
    let a = client(&sim, KEY_A).await; // requester
    let b = client(&sim, KEY_B).await; // quoter
    let (sa, sb) = (signer(KEY_A, B256::ZERO), signer(KEY_B, B256::ZERO));
    let eoa = SignatureType::Eoa;

    // A's user channel, subscribed before anything trades.
    let creds = a.credentials().unwrap();
    let mut wa = ws(&sim, "user").await;
    send(
        &mut wa,
        &format!(
            r#"{{"auth":{{"apiKey":"{}","secret":"{}","passphrase":"{}"}},"markets":[],"type":"user"}}"#,
            creds.api_key(),
            creds.secret(),
            creds.passphrase()
        ),
    )
    .await;
    send(&mut wa, "PING").await;
    assert_eq!(next_text(&mut wa, LONG).await.as_deref(), Some("PONG"));

    // Off-grid prices never leave the client.
    assert!(
        a.rfq_create_request(YES, Side::Buy, Price::new(525_000).unwrap(), sz(100), eoa)
            .await
            .unwrap_err()
            .is_argument()
    );
    let req = a
        .rfq_create_request(YES, Side::Buy, px(52), sz(100), eoa)
        .await
        .unwrap();
    assert!(!req.request_id.is_empty() && req.expiry > 0);
    let only = RfqFilter {
        ids: vec![req.request_id.clone()],
        ..RfqFilter::default()
    };
    let (rows, _) = b.all_rfq_requests(&only).await.unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (
            rows[0].side,
            rows[0].size_in,
            rows[0].size_out,
            rows[0].price
        ),
        (Some(Side::Buy), sz(100), sz(52), px(52))
    );

    // Two quotes; the requester's best is the cheaper one.
    let q1 = b
        .rfq_create_quote(&req.request_id, YES, Side::Sell, px(51), sz(100), eoa)
        .await
        .unwrap();
    let q2 = b
        .rfq_create_quote(&req.request_id, YES, Side::Sell, px(50), sz(100), eoa)
        .await
        .unwrap();
    // A quote on the wrong side is refused by the exchange.
    assert_eq!(
        b.rfq_create_quote(&req.request_id, YES, Side::Buy, px(50), sz(100), eoa)
            .await
            .unwrap_err()
            .status(),
        Some(400)
    );
    let best = a.rfq_best_quote(&req.request_id).await.unwrap();
    assert_eq!(
        (best.quote_id.as_str(), best.price),
        (q2.quote_id.as_str(), px(50))
    );
    assert_eq!(
        a.all_rfq_requester_quotes(&RfqFilter::default())
            .await
            .unwrap()
            .0
            .len(),
        2
    );
    assert_eq!(
        b.all_rfq_quoter_quotes(&RfqFilter::default())
            .await
            .unwrap()
            .0
            .len(),
        2
    );
    assert!(
        a.all_rfq_quoter_quotes(&RfqFilter::default())
            .await
            .unwrap()
            .0
            .is_empty()
    );
    b.rfq_cancel_quote(&q1.quote_id).await.unwrap();
    let active = RfqFilter {
        state: Some(RfqState::Active),
        ..RfqFilter::default()
    };
    assert_eq!(b.all_rfq_quoter_quotes(&active).await.unwrap().0.len(), 1);

    // Approving before the requester accepted is refused; so is accepting someone else's.
    assert_eq!(
        b.rfq_approve_order(&sb, &req.request_id, &q2.quote_id, 0)
            .await
            .unwrap_err()
            .status(),
        Some(400)
    );
    let later = now_s() + 3600;
    a.rfq_accept_quote(&sa, &req.request_id, &q2.quote_id, later)
        .await
        .unwrap();
    b.rfq_approve_order(&sb, &req.request_id, &q2.quote_id, later)
        .await
        .unwrap();

    // One trade, 100 YES at 0.50, A the taker (buyer), B the maker.
    let (ta, _) = a.all_trades(&TradeFilter::default()).await.unwrap();
    assert_eq!(ta.len(), 1);
    assert_eq!(
        (ta[0].side, ta[0].size, ta[0].price),
        (Some(Side::Buy), sz(100), px(50))
    );
    let (tb, _) = b.all_trades(&TradeFilter::default()).await.unwrap();
    assert_eq!(tb.len(), 1);
    assert_eq!(tb[0].id, ta[0].id);
    let e = wait_event(&mut wa, "trade", LONG).await.unwrap();
    assert_eq!(e["id"], ta[0].id.as_str());
    assert_eq!(e["size"], "100");
    assert_eq!(e["price"], "0.5");
    // The request is no longer active, and cannot be accepted twice.
    let (rows, _) = a.all_rfq_requests(&active).await.unwrap();
    assert!(rows.is_empty());
    assert!(
        a.rfq_accept_quote(&sa, &req.request_id, &q2.quote_id, later)
            .await
            .is_err()
    );
    assert!(a.rfq_config().await.unwrap().is_object());
}

/// A quote on the complement token settles too: both buying mints the full set, both
/// selling merges it. The requester's order carries the complement of the quoted price; the
/// trade shows on REST for both sides (the maker leg on its own token) and on the user channel.
#[tokio::test]
async fn rfq_mint_and_merge_quotes_settle_as_trades() {
    use polyclob::clob::rfq::{MatchType, RfqFilter};

    let sim = start_empty().await;
    let a = client(&sim, KEY_A).await; // requester
    let b = client(&sim, KEY_B).await; // quoter
    let (sa, sb) = (signer(KEY_A, B256::ZERO), signer(KEY_B, B256::ZERO));
    let eoa = SignatureType::Eoa;
    let later = now_s() + 3600;
    assert!(a.clob_market(COND).await.unwrap().rfq_enabled);

    let creds = a.credentials().unwrap();
    let mut wa = ws(&sim, "user").await;
    send(
        &mut wa,
        &format!(
            r#"{{"auth":{{"apiKey":"{}","secret":"{}","passphrase":"{}"}},"markets":[],"type":"user"}}"#,
            creds.api_key(),
            creds.secret(),
            creds.passphrase()
        ),
    )
    .await;
    send(&mut wa, "PING").await;
    assert_eq!(next_text(&mut wa, LONG).await.as_deref(), Some("PONG"));

    // Mint: A buys 100 YES, B buys 100 NO at 0.47, so A pays 0.53.
    let req = a
        .rfq_create_request(YES, Side::Buy, px(52), sz(100), eoa)
        .await
        .unwrap();
    // On the complement token a quote must take the request's side.
    assert_eq!(
        b.rfq_create_quote(&req.request_id, NO, Side::Sell, px(47), sz(100), eoa)
            .await
            .unwrap_err()
            .status(),
        Some(400)
    );
    let q = b
        .rfq_create_quote(&req.request_id, NO, Side::Buy, px(47), sz(100), eoa)
        .await
        .unwrap();
    let (rows, _) = a
        .all_rfq_requester_quotes(&RfqFilter::default())
        .await
        .unwrap();
    assert_eq!(rows.len(), 1);
    assert_eq!(
        (
            &rows[0].match_type,
            rows[0].token.as_str(),
            rows[0].complement.as_str()
        ),
        (&MatchType::Mint, NO, YES)
    );
    a.rfq_accept_quote(&sa, &req.request_id, &q.quote_id, later)
        .await
        .unwrap();
    b.rfq_approve_order(&sb, &req.request_id, &q.quote_id, later)
        .await
        .unwrap();
    let (ta, _) = a.all_trades(&TradeFilter::default()).await.unwrap();
    assert_eq!(ta.len(), 1);
    let t = &ta[0];
    assert_eq!(
        (t.asset_id.as_str(), t.side, t.size, t.price),
        (YES, Some(Side::Buy), sz(100), px(53))
    );
    assert_eq!(t.maker_orders.len(), 1);
    let m = &t.maker_orders[0];
    assert_eq!(
        (m.asset_id.as_str(), m.side, m.matched_amount, m.price),
        (NO, Some(Side::Buy), sz(100), px(47))
    );
    let (tb, _) = b.all_trades(&TradeFilter::default()).await.unwrap();
    assert_eq!(tb.len(), 1);
    assert_eq!(tb[0].id, t.id);
    let e = wait_event(&mut wa, "trade", LONG).await.unwrap();
    assert_eq!(
        (&e["id"], &e["asset_id"], &e["price"]),
        (
            &serde_json::json!(t.id),
            &serde_json::json!(YES),
            &serde_json::json!("0.53")
        )
    );
    assert_eq!(e["maker_orders"][0]["asset_id"], NO);

    // Merge: A sells 40 YES, B sells 40 NO at 0.55, so A receives 0.45.
    let req = a
        .rfq_create_request(YES, Side::Sell, px(40), sz(40), eoa)
        .await
        .unwrap();
    let q = b
        .rfq_create_quote(&req.request_id, NO, Side::Sell, px(55), sz(40), eoa)
        .await
        .unwrap();
    let got = b
        .all_rfq_quoter_quotes(&RfqFilter {
            ids: vec![q.quote_id.clone()],
            ..RfqFilter::default()
        })
        .await
        .unwrap()
        .0;
    assert_eq!(got[0].match_type, MatchType::Merge);
    a.rfq_accept_quote(&sa, &req.request_id, &q.quote_id, later)
        .await
        .unwrap();
    b.rfq_approve_order(&sb, &req.request_id, &q.quote_id, later)
        .await
        .unwrap();
    let (ta, _) = a.all_trades(&TradeFilter::default()).await.unwrap();
    assert_eq!(ta.len(), 2);
    let t = ta.iter().find(|t| t.side == Some(Side::Sell)).unwrap();
    assert_eq!(
        (t.asset_id.as_str(), t.size, t.price),
        (YES, sz(40), px(45))
    );
    assert_eq!(
        (
            t.maker_orders[0].asset_id.as_str(),
            t.maker_orders[0].side,
            t.maker_orders[0].price
        ),
        (NO, Some(Side::Sell), px(55))
    );
    // The mint's MATCHED and CONFIRMED events come first; the merge's follow.
    let mut seen = Vec::new();
    while let Some(e) = wait_event(&mut wa, "trade", LONG).await {
        seen.push(e["id"].as_str().unwrap_or_default().to_owned());
        if seen.last() == Some(&t.id) {
            break;
        }
    }
    assert_eq!(seen.last(), Some(&t.id), "{seen:?}");
}

/// `rfqe` on `/clob-markets` follows the market's RFQ switch, and a market without RFQ
/// refuses requests.
#[tokio::test]
async fn rfq_disabled_market_says_so_and_refuses_requests() {
    let sim = Simulator::builder()
        .markets(vec![empty_market().rfq(false)])
        .start()
        .await
        .unwrap();
    let a = client(&sim, KEY_A).await;
    assert!(!a.clob_market(COND).await.unwrap().rfq_enabled);
    let e = a
        .rfq_create_request(YES, Side::Buy, px(52), sz(100), SignatureType::Eoa)
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(400));
}

/// Odd bodies on the new simulator routes get a 4xx with the exchange's error shape, never a
/// panic or a 5xx.
#[tokio::test]
async fn sim_program_routes_refuse_bad_input_with_typed_errors() {
    let sim = start_empty().await;
    let t = Trader::new(&sim, KEY_A).await;
    let bodies = [
        "",
        "null",
        "[]",
        "{}",
        r#"{"assetIn":"1001","assetOut":"1001","amountIn":"1","amountOut":"1"}"#,
        r#"{"assetIn":"0","assetOut":"0","amountIn":"1","amountOut":"1"}"#,
        r#"{"assetIn":"1001","assetOut":"0","amountIn":"0","amountOut":"1"}"#,
        r#"{"assetIn":"1001","assetOut":"0","amountIn":"-5","amountOut":"1"}"#,
        r#"{"assetIn":"1001","assetOut":"0","amountIn":"3000000","amountOut":"1000000"}"#,
        r#"{"assetIn":"9999","assetOut":"0","amountIn":"1000000","amountOut":"500000"}"#,
        r#"{"requestId":"nope","quoteId":"nope"}"#,
        r#"{"requestId":7,"quoteId":[1]}"#,
    ];
    let routes = [
        ("POST", "/rfq/request"),
        ("POST", "/rfq/quote"),
        ("DELETE", "/rfq/request"),
        ("DELETE", "/rfq/quote"),
        ("POST", "/rfq/request/accept"),
        ("POST", "/rfq/quote/approve"),
        ("DELETE", "/auth/builder-api-key"),
    ];
    for (method, path) in routes {
        for body in bodies {
            let (s, v, _) = t.l2(method, path, Some(body)).await;
            assert!((400..500).contains(&s), "{method} {path} {body}: {s} {v}");
            assert!(v["error"].is_string(), "{method} {path} {body}: {v}");
        }
    }
    for path in [
        "/rewards/user?date=2026-02-30x",
        "/rewards/user/total",
        "/rfq/data/best-quote",
        "/rfq/data/best-quote?requestId=nope",
        "/builder/trades?builder_code=0x00",
        "/builder/trades",
        "/data/pre-migration-orders?next_cursor=%%%",
    ] {
        let (s, v, _) = t.l2("GET", path, None).await;
        assert!((400..500).contains(&s), "{path}: {s} {v}");
    }
    for path in ["/fees/builder-fees/xyz", "/rewards/markets/0xnope"] {
        let (s, _) = get(&sim, path).await;
        assert!((400..500).contains(&s), "{path}: {s}");
    }
}

#[tokio::test]
async fn fee_schedule_reads_the_market_of_a_token() {
    let sim = start_empty().await;
    let c = Client::builder().host(sim.http_url()).build().unwrap();
    // A fee-free market: `fd` all zero is no schedule.
    assert_eq!(c.fee_schedule(NO).await.unwrap(), None);
    // The lookup also filled the tick-size cache for both tokens of the market.
    assert_eq!(c.cached_tick_size(YES), Some(TickSize::Hundredth));
    assert_eq!(c.fee_schedule("999").await.unwrap_err().status(), Some(404));
}
