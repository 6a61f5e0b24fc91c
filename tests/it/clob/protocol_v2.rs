//! A market knows its protocol: a Protocol V2 market found through the CLOB is
//! signed for ExchangeV3 on every order path, its balances are read as `CONDITIONAL-V2`, and
//! its `bytes31` condition id goes out right-padded to 64 hex digits — never as 62. Bad input
//! (an unknown `version`/`v`, a 63-hex id, a position id off the V2 layout) is a typed error.

use crate::support::mock_clob::{MockClob, Reply, auth_verifier, verify_order};
use polyclob::U256;
use polyclob::account::Account;
use polyclob::clob::types::AssetKind;
use polyclob::clob::{Client, Credentials, OrderFilter};
use polyclob::gamma::{ContextError, GammaMarket};
use polyclob::order::{LimitOrder, MarketOrder, TokenId};
use polyclob::sign::Signer;
use polyclob::types::{
    Chain, ConditionId, ExchangeVersion, PositionId, Protocol, ProtocolError, Side, SignatureType,
    TickSize,
};

const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const SECRET: &str = "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==";
const CTF_TOKEN: &str =
    "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const OK: &str = r#"{"success":true,"errorMsg":"","orderID":"0xabc","status":"live","makingAmount":"","takingAmount":"","transactionsHashes":[],"tradeIDs":[]}"#;

/// A binary-module V2 condition (`bytes31`, 62 hex digits: module 1, a 128-bit base hash,
/// arity 0, reserved, resolution chain, condition index 0) and its two position ids.
fn v2_market() -> (String, String, String) {
    let cond = format!("0x01{}{}", "5a".repeat(16), "00".repeat(14));
    let c = ConditionId::parse(&cond).unwrap();
    let yes = PositionId::of(c, 0).unwrap().as_u256().to_string();
    let no = PositionId::of(c, 1).unwrap().as_u256().to_string();
    (cond, yes, no)
}

async fn setup() -> (MockClob, Client, Account) {
    let m = MockClob::start().await;
    m.set_verifier(auth_verifier("key-1", SECRET, "pp", 137));
    let a = Account::builder(Signer::from_hex(KEY).unwrap())
        .client(Client::builder().host(m.url()))
        .credentials(Credentials::new("key-1", SECRET, "pp"))
        .build()
        .unwrap();
    (m, a.client().clone(), a)
}

fn clob_market_body(cond: &str, yes: &str, no: &str, v: &str) -> String {
    format!(
        r#"{{"c":"{cond}00","v":"{v}","t":[{{"t":"{yes}","o":"Yes"}},{{"t":"{no}","o":"No"}}],"mts":0.01,"mos":5,"nr":false,"rfqe":false}}"#
    )
}

#[tokio::test]
async fn a_v2_market_from_the_clob_trades_on_exchange_v3_everywhere() {
    let (m, c, a) = setup().await;
    let os = a.order_signer();
    let (cond, yes, no) = v2_market();
    let padded = format!("{cond}00");
    m.on(
        "GET",
        &format!("/clob-markets/{padded}"),
        vec![Reply::json(clob_market_body(&cond, &yes, &no, "v2"))],
    );
    m.on("POST", "/order", vec![Reply::json(OK)]);
    m.on("POST", "/orders", vec![Reply::json(format!("[{OK},{OK}]"))]);
    m.on("GET", "/version", vec![Reply::json(r#"{"version":2}"#)]);

    // Asked with the 62-hex id: the request carries the padded form.
    let market = c.clob_market(&cond).await.unwrap();
    assert_eq!(market.protocol(), Ok(Protocol::V2));
    assert_eq!(market.condition().unwrap().as_bytes31().unwrap()[0], 0x01);
    assert_eq!(m.requests_to(&format!("/clob-markets/{padded}")).len(), 1);

    // No I/O: the market's protocol decides the exchange.
    let ctx = c
        .market_context_with(&yes, TickSize::Hundredth, false)
        .unwrap();
    assert_eq!(ctx.version(), ExchangeVersion::V3);
    // Native limit and market orders, through the caches `clob_market` filled.
    a.place_limit_order(
        &no,
        &LimitOrder::new(Side::Buy, "0.4".parse().unwrap(), "10".parse().unwrap()),
    )
    .await
    .unwrap();
    a.place_market_order(
        &yes,
        &MarketOrder::new(
            Side::Buy,
            polyclob::order::MarketAmount::Usdc("5".parse().unwrap()),
            "0.6".parse().unwrap(),
        ),
    )
    .await
    .unwrap();
    // A batch of orders built from the same contexts.
    let orders: Vec<_> = [&yes, &no]
        .iter()
        .map(|t| {
            let ctx = c
                .market_context_with(t, TickSize::Hundredth, false)
                .unwrap();
            os.limit_order(
                &ctx,
                &LimitOrder::new(Side::Sell, "0.7".parse().unwrap(), "6".parse().unwrap()),
            )
            .unwrap()
        })
        .collect();
    c.post_orders(&orders).await.unwrap();

    let mut seen = 0;
    for r in m.requests_to("/order") {
        let body: serde_json::Value = serde_json::from_slice(&r.body).unwrap();
        assert_eq!(
            verify_order(&body["order"], 137).unwrap().0,
            ExchangeVersion::V3
        );
        seen += 1;
    }
    for r in m.requests_to("/orders") {
        let body: Vec<serde_json::Value> = serde_json::from_slice(&r.body).unwrap();
        for o in body {
            assert_eq!(
                verify_order(&o["order"], 137).unwrap().0,
                ExchangeVersion::V3
            );
            seen += 1;
        }
    }
    assert_eq!(seen, 4);
    // A CTF token on the same client still signs for the token-ID exchange.
    let ctf = c
        .market_context_with(CTF_TOKEN, TickSize::Hundredth, false)
        .unwrap();
    assert_eq!(ctf.version(), ExchangeVersion::V2);
}

#[tokio::test]
async fn v2_position_balances_are_conditional_v2() {
    let (m, c, _) = setup().await;
    let (cond, yes, no) = v2_market();
    m.on(
        "GET",
        &format!("/clob-markets/{cond}00"),
        vec![Reply::json(clob_market_body(&cond, &yes, &no, "v2"))],
    );
    m.on(
        "GET",
        "/balance-allowance",
        vec![Reply::json(r#"{"balance":"5","allowance":"0"}"#)],
    );
    m.on("GET", "/balance-allowance/update", vec![Reply::json("{}")]);
    c.clob_market(&cond).await.unwrap();
    c.balance_allowance(AssetKind::Conditional, Some(&yes), SignatureType::Eoa)
        .await
        .unwrap();
    c.update_balance_allowance(AssetKind::Conditional, Some(&no), SignatureType::Eoa)
        .await
        .unwrap();
    c.balance_allowance(AssetKind::Conditional, Some(CTF_TOKEN), SignatureType::Eoa)
        .await
        .unwrap();
    c.balance_allowance(AssetKind::Collateral, None, SignatureType::Eoa)
        .await
        .unwrap();
    let types: Vec<String> = m
        .requests()
        .iter()
        .filter(|r| r.path.starts_with("/balance-allowance"))
        .map(|r| r.query_param("asset_type").unwrap())
        .collect();
    assert_eq!(
        types,
        [
            "CONDITIONAL-V2",
            "CONDITIONAL-V2",
            "CONDITIONAL",
            "COLLATERAL"
        ]
    );
}

#[tokio::test]
async fn no_request_carries_a_62_hex_condition() {
    let (m, c, _) = setup().await;
    let (cond, _, _) = v2_market();
    m.on(
        "GET",
        &format!("/markets/{cond}00"),
        vec![Reply::json("{}")],
    );
    m.on(
        "GET",
        "/data/orders",
        vec![Reply::json(
            r#"{"data":[],"next_cursor":"LTE=","limit":100,"count":0}"#,
        )],
    );
    let _ = c.market(&cond).await;
    let _ = c
        .orders(
            &OrderFilter {
                market: Some(cond.clone()),
                ..OrderFilter::default()
            },
            None,
        )
        .await;
    let requests = m.requests();
    assert!(requests.len() >= 2);
    for r in requests {
        let hex62 = |s: &str| {
            s.split(|c: char| !c.is_ascii_hexdigit() && c != 'x')
                .any(|w| w.strip_prefix("0x").is_some_and(|h| h.len() == 62))
        };
        assert!(
            !hex62(&r.path) && !hex62(&r.query),
            "{} ? {}",
            r.path,
            r.query
        );
    }
}

#[tokio::test]
async fn unknown_clob_version_is_a_typed_error() {
    let (m, c, _) = setup().await;
    let (cond, yes, no) = v2_market();
    m.on(
        "GET",
        &format!("/clob-markets/{cond}00"),
        vec![Reply::json(clob_market_body(&cond, &yes, &no, "v7"))],
    );
    let e = c.clob_market(&cond).await.unwrap_err();
    assert!(e.to_string().contains("v7"), "{e}");
    assert!(!c.is_position_token(&yes));
}

#[test]
fn gamma_markets_pick_ids_and_refuse_unknown_versions() {
    let (cond, yes, no) = v2_market();
    let m: GammaMarket = serde_json::from_str(&format!(
        r#"{{"conditionId":"{cond}","version":"v2","positionIds":["{yes}","{no}"],
            "clobTokenIds":"[\"1\",\"2\"]","outcomes":"[\"Yes\",\"No\"]","orderPriceMinTickSize":0.01,
            "resolutionStatus":"active"}}"#
    ))
    .unwrap();
    let t = m.trading(Chain::Polygon, ExchangeVersion::V2).unwrap();
    assert_eq!(t.protocol, Protocol::V2);
    assert_eq!(t.condition_id, format!("{cond}00"), "the 64-hex form");
    assert_eq!(t.contexts[0].token_id().as_str(), yes);
    assert!(
        t.contexts
            .iter()
            .all(|c| c.version() == ExchangeVersion::V3)
    );
    assert_eq!(m.resolution_status, "active");
    assert_eq!(m.condition().unwrap().protocol(), Protocol::V2);

    let unknown: GammaMarket = serde_json::from_str(
        r#"{"version":"v3","clobTokenIds":"[\"1\"]","orderPriceMinTickSize":0.01}"#,
    )
    .unwrap();
    assert!(matches!(
        unknown.trading(Chain::Polygon, ExchangeVersion::V2),
        Err(ContextError::Protocol(ProtocolError::UnknownVersion(v))) if v == "v3"
    ));
    // No version beside `positionIds`: nothing says which list to trade.
    let bare: GammaMarket = serde_json::from_str(&format!(
        r#"{{"positionIds":["{yes}"],"orderPriceMinTickSize":0.01}}"#
    ))
    .unwrap();
    assert!(bare.protocol().is_err());
}

#[test]
fn bad_ids_are_typed_errors() {
    let e = ConditionId::parse(&format!("0x{}", "a".repeat(63))).unwrap_err();
    assert!(matches!(
        e,
        ProtocolError::BadConditionId { digits: 63, .. }
    ));
    // A CTF token id has no V2 layout.
    let ctf = TokenId::parse(CTF_TOKEN.as_bytes()).unwrap();
    assert!(matches!(
        PositionId::parse(&ctf),
        Err(ProtocolError::BadPositionId { .. })
    ));
    assert_eq!(Protocol::of_id(&ctf), Protocol::Ctf);
    let (_, yes, _) = v2_market();
    let yes = TokenId::parse(yes.as_bytes()).unwrap();
    assert_eq!(Protocol::of_id(&yes), Protocol::V2);
    assert_eq!(PositionId::parse(&yes).unwrap().outcome_index(), 0);
    // Outcome index 2 is not a binary outcome.
    let bad = PositionId::parse(&yes).unwrap().as_u256() | U256::from(2u8);
    assert!(PositionId::from_u256(bad).is_err());
}
