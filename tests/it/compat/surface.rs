//! The polymarket-rs-client 0.1.1 contract (compat-api.md §1): every method, every type
//! (struct literals, exhaustive matches), `Send` futures, and a root that exports nothing
//! else. Most of this file is a compile test; the tests at the end run it against the mock.
#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::type_complexity,
    dead_code,
    unused_must_use
)]

use std::collections::HashMap;

use polymarket_rs_client::*;
use rust_decimal::Decimal;

// The drop-in rename users do in Cargo.toml, spelled in Rust.
extern crate polyclob as polymarket_rs_client;

fn assert_send<T: Send>(_: &T) {}

fn types_by_literal_and_match() {
    let side = Side::BUY;
    let _: u8 = match side {
        Side::BUY => Side::BUY as u8,
        Side::SELL => 1,
    };
    assert_eq!(Side::SELL.as_str(), "SELL");
    let ot = OrderType::GTC;
    match ot {
        OrderType::GTC | OrderType::FOK | OrderType::GTD => {}
    }
    assert_eq!(OrderType::FOK.as_str(), "FOK");
    let at = AssetType::COLLATERAL;
    match at {
        AssetType::COLLATERAL | AssetType::CONDITIONAL => {}
    }
    assert_eq!(AssetType::CONDITIONAL.to_string(), "CONDITIONAL");
    let mut bap = BalanceAllowanceParams {
        asset_type: Some(AssetType::CONDITIONAL),
        token_id: Some("1".into()),
        signature_type: None,
    };
    bap.set_signature_type(2);
    let _: Vec<(&str, String)> = bap.to_query_params();
    let _ = BalanceAllowanceParams::default();
    let tp = TradeParams {
        id: None,
        maker_address: None,
        market: Some("m".into()),
        asset_id: None,
        before: Some(1),
        after: None,
    };
    let _: Vec<(&str, String)> = tp.to_query_params();
    let op = OpenOrderParams {
        id: None,
        asset_id: Some("a".into()),
        market: None,
    };
    let _: Vec<(&str, &String)> = op.to_query_params();
    let oo = OpenOrder {
        associate_trades: vec![],
        id: String::new(),
        status: String::new(),
        market: String::new(),
        original_size: Decimal::ONE,
        outcome: String::new(),
        maker_address: String::new(),
        owner: String::new(),
        price: Decimal::ONE,
        side: Side::BUY,
        size_matched: Decimal::ZERO,
        asset_id: String::new(),
        expiration: 0,
        order_type: OrderType::GTD,
        created_at: 0,
    };
    let OpenOrder {
        associate_trades: _,
        id: _,
        status: _,
        market: _,
        original_size: _,
        outcome: _,
        maker_address: _,
        owner: _,
        price: _,
        side: _,
        size_matched: _,
        asset_id: _,
        expiration: _,
        order_type: _,
        created_at: _,
    } = oo;
    let oa = OrderArgs {
        token_id: "1".into(),
        price: Decimal::new(5, 1),
        size: Decimal::TEN,
        side: Side::BUY,
    };
    let _ = OrderArgs::new("1", oa.price, oa.size, oa.side);
    let _ = MarketOrderArgs {
        token_id: "1".into(),
        amount: Decimal::TEN,
    };
    let e = ExtraOrderArgs {
        fee_rate_bps: 0,
        nonce: U256::ZERO,
        taker: String::new(),
    };
    let d = ExtraOrderArgs::default();
    assert_eq!(d.taker, format!("0x{}", "0".repeat(40)));
    assert_eq!((e.fee_rate_bps, d.nonce), (0, U256::ZERO));
    let _ = CreateOrderOptions {
        tick_size: Some(Decimal::new(1, 2)),
        neg_risk: Some(false),
    };
    let _ = CreateOrderOptions::default();
    let obs = OrderBookSummary {
        market: String::new(),
        asset_id: String::new(),
        hash: String::new(),
        timestamp: 0,
        bids: vec![OrderSummary {
            price: Decimal::ONE,
            size: Decimal::ONE,
        }],
        asks: vec![],
    };
    let OrderBookSummary {
        market: _,
        asset_id: _,
        hash: _,
        timestamp: _,
        bids: _,
        asks: _,
    } = obs;
    let creds = ApiCreds {
        api_key: "k".into(),
        secret: "s".into(),
        passphrase: "p".into(),
    };
    let _ = ApiCreds::default();
    let _ = ApiKeysResponse {
        api_keys: vec![creds.api_key.clone()],
    };
    let mid = MidpointResponse { mid: Decimal::ONE };
    serde_json::to_string(&mid).unwrap();
    let _ = PriceResponse {
        price: Decimal::ONE,
    };
    let _ = SpreadResponse {
        spread: Decimal::ONE,
    };
    let _ = TickSizeResponse {
        minimum_tick_size: Decimal::ONE,
    };
    let _ = NegRiskResponse { neg_risk: true };
    let _ = BookParams {
        token_id: "1".into(),
        side: Side::SELL,
    };
    let _: Value = Value::Null;
    let _: ClientResult<()> = Err(anyhow!("x")).context("y");
    let _: fn() -> ClientResult<u8, std::fmt::Error> = || Ok(1);
}

#[cfg(feature = "eth-signer")]
fn eth_signer_bound<S: EthSigner>(_: &S) {}

/// Every one of the 50 methods with its exact argument and return types.
async fn all_fifty_methods(host: &str) -> ClientResult<()> {
    let creds = ApiCreds::default();
    let mut c: ClobClient = ClobClient::new(host);
    let _: ClobClient = ClobClient::with_l1_headers(host, "0x01", 137);
    let _: ClobClient = ClobClient::with_l2_headers(host, "0x01", 137, creds.clone());
    let _: ClobClient = ClobClient::default();
    c.set_api_creds(creds);
    let _: Option<String> = c.get_address();
    let _: Option<String> = c.get_collateral_address();
    let _: Option<String> = c.get_conditional_address();
    let _: Option<String> = c.get_exchange_address();
    let ids: Vec<String> = vec!["1".into()];
    let f = c.get_ok();
    assert_send(&f);
    let _: bool = f.await;
    let _: u64 = c.get_server_time().await?;
    let _: MidpointResponse = c.get_midpoint("1").await?;
    let _: HashMap<String, Decimal> = c.get_midpoints(&ids).await?;
    let _: PriceResponse = c.get_price("1", Side::BUY).await?;
    let _: HashMap<String, HashMap<Side, Decimal>> = c
        .get_prices(&[BookParams {
            token_id: "1".into(),
            side: Side::BUY,
        }])
        .await?;
    let _: SpreadResponse = c.get_spread("1").await?;
    let _: HashMap<String, Decimal> = c.get_spreads(&ids).await?;
    let _: Decimal = c.get_tick_size("1").await?;
    let _: bool = c.get_neg_risk("1").await?;
    let _: OrderBookSummary = c.get_order_book("1").await?;
    let _: Vec<OrderBookSummary> = c.get_order_books(&ids).await?;
    let _: Value = c.get_last_trade_price("1").await?;
    let _: Value = c.get_last_trade_prices(&ids).await?;
    let _: Value = c.get_sampling_markets(None).await?;
    let _: Value = c.get_sampling_simplified_markets(Some("MA==")).await?;
    let _: Value = c.get_markets(None).await?;
    let _: Value = c.get_simplified_markets(None).await?;
    let _: Value = c.get_market("0x1").await?;
    let _: Value = c.get_market_trades_events("0x1").await?;
    let _: ApiCreds = c.create_api_key(None).await?;
    let _: ApiCreds = c.derive_api_key(Some(U256::from(1))).await?;
    let _: ApiCreds = c.create_or_derive_api_key(None).await?;
    let args = OrderArgs::new("1", Decimal::new(5, 1), Decimal::TEN, Side::BUY);
    let f = c.create_order(&args, None, None, None);
    assert_send(&f);
    let order = f.await?;
    let _: (
        u64,
        &String,
        &String,
        &String,
        &String,
        &String,
        &String,
        &String,
        &String,
        &String,
        &String,
        u8,
        &String,
    ) = (
        order.salt,
        &order.maker,
        &order.signer,
        &order.taker,
        &order.token_id,
        &order.maker_amount,
        &order.taker_amount,
        &order.expiration,
        &order.nonce,
        &order.fee_rate_bps,
        &order.side,
        order.signature_type,
        &order.signature,
    );
    serde_json::to_string(&order)?;
    let _ = format!("{order:?}");
    let _ = PostOrder::new(
        c.create_order(
            &args,
            Some(0),
            Some(ExtraOrderArgs::default()),
            Some(&CreateOrderOptions::default()),
        )
        .await?,
        String::new(),
        OrderType::GTC,
    );
    let mo = c
        .create_market_order(
            &MarketOrderArgs {
                token_id: "1".into(),
                amount: Decimal::TEN,
            },
            None,
            None,
        )
        .await?;
    let _: Vec<String> = c.get_api_keys().await?;
    let _: String = c.delete_api_key().await?;
    let _: Value = c.post_order(mo, OrderType::FOK).await?;
    let _: Value = c.create_and_post_order(&args).await?;
    let _: Value = c.cancel("0x1").await?;
    let _: Value = c.cancel_orders(&ids).await?;
    let _: Value = c.cancel_all().await?;
    let _: Value = c.cancel_market_orders(Some("m"), None).await?;
    let _: Vec<OpenOrder> = c
        .get_orders(
            Some(&OpenOrderParams {
                id: None,
                asset_id: None,
                market: None,
            }),
            None,
        )
        .await?;
    let _: OpenOrder = c.get_order("0x1").await?;
    let _: Vec<Value> = c.get_trades(None, Some("MA==")).await?;
    let _: Value = c.get_notifications().await?;
    let _: Value = c.drop_notifications(&ids).await?;
    let _: Value = c
        .get_balance_allowance(Some(BalanceAllowanceParams::default()))
        .await?;
    let _: Value = c.update_balance_allowance(None).await?;
    let _: bool = c.is_order_scoring("0x1").await?;
    let _: HashMap<String, bool> = c.are_orders_scoring(&["0x1"]).await?;
    Ok(())
}

#[test]
fn client_traits() {
    fn bounds<T: Default + Send + Sync + Unpin>() {}
    bounds::<ClobClient>();
    types_by_literal_and_match();
    // The whole method tour is a Send future (users tokio::spawn these).
    let f = all_fifty_methods("http://127.0.0.1:1");
    assert_send(&f);
    drop(f);
}

/// The crate root holds exactly the contract's names plus our public modules.
#[test]
fn root_exports_nothing_else() {
    let allowed_names = [
        "U256",
        "Context",
        "ClientResult",
        "anyhow",
        "Value",
        "EthSigner",
        "ClobClient",
        "AssetType",
        "BalanceAllowanceParams",
        "TradeParams",
        "OpenOrder",
        "OpenOrderParams",
        "PostOrder",
        "OrderArgs",
        "OrderBookSummary",
        "MarketOrderArgs",
        "OrderSummary",
        "ExtraOrderArgs",
        "CreateOrderOptions",
        "ApiKeysResponse",
        "MidpointResponse",
        "PriceResponse",
        "SpreadResponse",
        "TickSizeResponse",
        "NegRiskResponse",
        "OrderType",
        "Side",
        "BookParams",
        "ApiCreds",
    ];
    let lib = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs")).unwrap();
    // Join statements so multi-line `pub use … { … };` blocks are one string.
    let code: String = lib
        .lines()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect::<Vec<_>>()
        .join(" ");
    let mut exported = Vec::new();
    for stmt in code.split(';') {
        let s = stmt.trim();
        let s = s.rsplit(']').next().unwrap_or(s).trim(); // drop leading attributes
        if let Some(rest) = s.strip_prefix("pub use ") {
            let inner = rest
                .split_once('{')
                .map_or(rest, |(_, b)| b.trim_end_matches('}'));
            for item in inner.split(',') {
                let item = item.trim();
                if item.is_empty() {
                    continue;
                }
                let name = item
                    .rsplit(" as ")
                    .next()
                    .unwrap()
                    .rsplit("::")
                    .next()
                    .unwrap()
                    .trim();
                exported.push(name.to_owned());
            }
        } else if let Some(m) = s.strip_prefix("pub mod ") {
            exported.push(format!("mod {}", m.trim()));
        } else {
            for kw in [
                "pub fn ",
                "pub struct ",
                "pub enum ",
                "pub trait ",
                "pub type ",
                "pub const ",
                "pub static ",
            ] {
                if let Some(i) = s.find(kw) {
                    // `pub struct ReadmeDoctests` is cfg(doctest)-only.
                    let name = s[i + kw.len()..]
                        .split(|c: char| !c.is_alphanumeric() && c != '_')
                        .next()
                        .unwrap();
                    if name != "ReadmeDoctests" {
                        exported.push(name.to_owned());
                    }
                }
            }
        }
    }
    let modules: Vec<_> = exported
        .iter()
        .filter(|e| e.starts_with("mod "))
        .cloned()
        .collect();
    let names: Vec<_> = exported
        .iter()
        .filter(|e| !e.starts_with("mod "))
        .cloned()
        .collect();
    for n in &names {
        assert!(
            allowed_names.contains(&n.as_str()),
            "root exports {n}, which is not in the 0.1.1 contract"
        );
    }
    for n in allowed_names {
        assert!(names.iter().any(|e| e == n), "root misses {n}");
    }
    for m in &modules {
        assert!(
            [
                "mod account",
                "mod clob",
                "mod fixed",
                "mod http",
                "mod order",
                "mod sign",
                "mod types",
                "mod book",
                "mod ws",
                "mod sim",
                "mod gamma",
                "mod data",
                "mod decode",
                "mod rtds",
                "mod polybolt",
                "mod sports",
                "mod onchain",
                "mod relayer"
            ]
            .contains(&m.as_str()),
            "unexpected public module {m}"
        );
    }
    // No exported macros sneak into the root from elsewhere.
    let src = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/src"));
    let mut stack = vec![src.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|x| x == "rs") {
                assert!(
                    !std::fs::read_to_string(&p)
                        .unwrap()
                        .contains("#[macro_export]"),
                    "{} exports a macro at the root",
                    p.display()
                );
            }
        }
    }
}
