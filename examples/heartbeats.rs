//! Heartbeats: the exchange cancels every open order of an account whose heartbeats stop,
//! so a crashed or stuck bot does not leave orders resting.
//!
//! `cargo run --release --example heartbeats` shows it against the embedded simulator with
//! a 600 ms timeout (the real exchange's is longer: check its documentation).

use std::time::Duration;

use polyclob::account::Account;
use polyclob::clob::ClientBuilder;
use polyclob::order::LimitOrder;
use polyclob::sign::Signer;
use polyclob::types::Side;
use polyclob_sim::Simulator;

/// Hardhat account #0: a public test key, never funded.
const TEST_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let sim = Simulator::builder()
        .seed(9)
        .heartbeat_timeout(Duration::from_millis(600))
        .start()
        .await?;
    let token = sim.markets()[0].tokens()[0].token_id().to_owned();
    let signer = Signer::from_hex(TEST_KEY)?;
    // The simulator enforces balances like the exchange: the account needs pUSD to buy.
    sim.fund(signer.address(), 1_000 * 1_000_000);
    let account = Account::builder(signer)
        .client(ClientBuilder::new().host(sim.http_url()))
        .connect() // creates or derives the API key
        .await?;

    // One resting order to protect.
    let req = LimitOrder::new(Side::Buy, "0.10".parse()?, "10".parse()?).post_only(true);
    let id = account.place_limit_order(&token, &req).await?.order_id;
    println!("placed {}…", &id[..18]);

    // Manual heartbeats: each response carries the id the next one must send (a chain).
    let first = account.heartbeat(None).await?;
    let second = account.heartbeat(Some(&first.heartbeat_id)).await?;
    println!(
        "manual heartbeats: {} → {}",
        first.heartbeat_id, second.heartbeat_id
    );

    // Or let a background task do it. It chains the ids, restarts the chain after a failure,
    // and stops when the handle is dropped. Send well within the timeout.
    let beats = account.start_heartbeats(Duration::from_millis(150));
    tokio::time::sleep(Duration::from_millis(1200)).await; // twice the timeout
    let status = beats.status();
    println!(
        "background task: {} sent, {} failed",
        status.sent, status.failed
    );
    println!(
        "after 1.2 s with heartbeats: {:?}",
        account.order(&id).await?.status
    );

    // Simulate a crash: stop heartbeating. After the timeout the exchange cancels all of
    // this account's orders.
    beats.stop();
    tokio::time::sleep(Duration::from_millis(1200)).await;
    let after = account.order(&id).await?.status;
    println!("after 1.2 s of silence:      {after:?}");
    if account.all_orders(&Default::default()).await?.0.is_empty() {
        println!("no open orders left: the exchange cancelled them");
        Ok(())
    } else {
        Err("orders still open after the heartbeat timeout".into())
    }
}
