//! Shared setup of the `rails_*` tests: a simulator with one empty market, a native client
//! with API credentials for a Hardhat key, and resting orders to post.
#![allow(dead_code, unreachable_pub, clippy::unwrap_used, clippy::expect_used)]

use polyclob::clob::{Client, ClientBuilder};
use polyclob::http::Throttle;
use polyclob::order::{LimitOrder, OrderSigner, SignedOrder};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, Side, TickSize};
use polyclob_sim::{MarketSpec, SimHandle, Simulator};

/// Hardhat accounts #0 and #1: public test keys, never funded on a real chain.
pub const KEY_A: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
pub const KEY_B: &str = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

pub const COND: &str = "0x00000000000000000000000000000000000000000000000000000000000000c1";
pub const YES: &str = "1001";
pub const NO: &str = "1002";

pub fn market() -> MarketSpec {
    MarketSpec::binary(COND, "Empty test market", [YES, NO]).seed_levels(0)
}

/// A simulator with one empty market and the given trading limits.
pub async fn sim(limits: Option<polyclob::http::Tier>) -> SimHandle {
    Simulator::builder()
        .markets(vec![market()])
        .rate_limits(limits)
        .start()
        .await
        .unwrap()
}

/// A client for `key` with credentials from the simulator (`POST /auth/api-key`), its
/// account funded ([`super::sim::fund_all`]).
pub async fn client_with(sim: &SimHandle, key: &str, b: ClientBuilder) -> Client {
    super::sim::fund_all(sim, Signer::from_hex(key).unwrap().address());
    let c = b
        .host(sim.http_url())
        .signer(Signer::from_hex(key).unwrap())
        .build()
        .unwrap();
    let creds = c
        .create_or_derive_api_key(polyclob::clob::ApiKeyNonce::ZERO)
        .await
        .unwrap();
    c.set_credentials(creds);
    c
}

pub async fn client(sim: &SimHandle, key: &str, throttle: Throttle) -> Client {
    client_with(sim, key, Client::builder().throttle(throttle)).await
}

pub fn order_signer(key: &str) -> OrderSigner {
    OrderSigner::new(Signer::from_hex(key).unwrap(), Chain::Polygon, Wallet::Eoa).unwrap()
}

/// `n` distinct resting bids on `YES` (0.01 to 0.49, random salts), signed up front.
pub fn resting_bids(c: &Client, key: &str, n: usize, post_only: bool) -> Vec<SignedOrder> {
    let signer = order_signer(key);
    let ctx = c
        .market_context_with(YES, TickSize::Hundredth, false)
        .unwrap();
    (0..n)
        .map(|i| {
            let price = polyclob::fixed::Price::new(10_000 * (1 + (i % 49) as u32)).unwrap();
            let req = LimitOrder::new(Side::Buy, price, "5".parse().unwrap()).post_only(post_only);
            signer.limit_order(&ctx, &req).unwrap()
        })
        .collect()
}
