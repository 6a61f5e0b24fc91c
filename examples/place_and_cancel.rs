//! Placing and cancelling signed orders.
//!
//! `cargo run --release --example place_and_cancel` runs against the embedded simulator with
//! Hardhat account #0 (a public test key, never funded). For the real exchange, load your
//! own key from the environment, drop `.host(..)`, and make sure of price and size first.

use polyclob::account::Account;
use polyclob::clob::{ClientBuilder, OrderFilter};
use polyclob::order::LimitOrder;
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{OrderType, Side};
use polyclob_sim::Simulator;

const TEST_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim = Simulator::builder().seed(5).start().await?;
    let token = sim.markets()[0].tokens()[0].token_id().to_owned();

    // The key: zeroized on drop, redacted in Debug, never part of an error message.
    let signer = Signer::from_hex(TEST_KEY)?;
    // The simulator enforces balances like the exchange: the account needs pUSD to buy.
    sim.fund(signer.address(), 1_000 * 1_000_000);
    // The account: the key signs L1 requests (API-key creation) and the orders; the wallet is
    // who funds. `Wallet::Eoa` = the key's own address; Polymarket proxy and Safe wallets are
    // `Wallet::derived_proxy` / `Wallet::derived_safe`, a deposit wallet `Wallet::DepositWallet`.
    // L1 → L2: `connect` creates (or, if one exists, derives) API credentials and installs
    // them; every trading request is then HMAC-signed with them (the five POLY_* headers).
    let account = Account::builder(signer)
        .wallet(Wallet::Eoa)
        .client(ClientBuilder::new().host(sim.http_url()))
        .connect()
        .await?;
    let orders = account.order_signer();

    // Tick size, neg-risk flag and exchange version of the market, fetched once and cached.
    let ctx = account.market_context(&token).await?;

    // A GTC post-only BUY of 10 shares at 0.10: far under the market, so it rests. Prices
    // and sizes are exact decimals; an off-grid price is refused before anything is signed.
    let req = LimitOrder::new(Side::Buy, "0.10".parse()?, "10".parse()?).post_only(true);
    let signed = orders.limit_order(&ctx, &req)?; // EIP-712 (V2 domain) + ECDSA
    println!(
        "signed: maker {} taker {} (micro-units)",
        signed.order().maker_amount,
        signed.order().taker_amount
    );
    let placed = account.post_order(&signed).await?; // POST /order (never retried blindly)
    println!("placed: {} status {}", placed.order_id, placed.status);

    // The same in one call: build, sign and post, re-signing once if the exchange reports
    // a new order version.
    let gtd = LimitOrder::new(Side::Buy, "0.11".parse()?, "5".parse()?)
        .order_type(OrderType::Gtd)
        .expiration(u64::try_from(unix_now())? + 3600);
    let second = account.place_limit_order(&token, &gtd).await?;
    println!("placed: {} status {}", second.order_id, second.status);

    // An off-grid price (tick is 0.01) is a local validation error: nothing was sent.
    let bad = LimitOrder::new(Side::Buy, "0.105".parse()?, "10".parse()?);
    match orders.limit_order(&ctx, &bad) {
        Err(e) => println!("refused locally: {e}"),
        Ok(_) => return Err("an off-grid price was signed".into()),
    }

    // Our open orders on this token (the exchange wants the token's market with it).
    let filter = OrderFilter {
        asset_id: Some(token.clone()),
        market: Some(sim.markets()[0].condition_id().to_owned()),
        ..OrderFilter::default()
    };
    let (open, _skipped) = account.all_orders(&filter).await?;
    for o in &open {
        println!(
            "open:   {} {:?} {:?} size {}",
            o.id, o.side, o.status, o.original_size
        );
    }

    // Cancel one by id, then everything else.
    let r = account.cancel(&placed.order_id).await?;
    println!("cancelled {:?}", r.canceled);
    let r = account.cancel_all().await?;
    println!("cancel-all cancelled {:?}", r.canceled);
    let left = account.all_orders(&filter).await?.0.len();
    println!("open orders left: {left}");
    if left != 0 {
        return Err("orders left after cancel-all".into());
    }
    Ok(())
}

fn unix_now() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() / 1000)
}
