//! On-chain settlement end to end, offline: approve, trade, resolve, redeem.
//!
//! ```text
//! cargo run --release --features onchain --example settle
//! ```
//!
//! Starts the simulator with its loopback chain, funds a test account with pUSD and gas,
//! grants exactly the missing approvals with EIP-1559 transactions, buys Yes on the CLOB (the
//! fill moves the chain balances), resolves the market to Yes, redeems, and prints the
//! account's balances before and after each step. Exits non-zero if a balance is not what the
//! step implies.

use std::error::Error as StdError;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use alloy_primitives::{Address, B256, U256};
use polyclob::clob::ClientBuilder;
use polyclob::fixed::{Price, Size};
use polyclob::onchain::Settler;
use polyclob::order::{LimitOrder, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, OrderType, Side};
use polyclob_sim::Simulator;

type Res<T> = Result<T, Box<dyn StdError + Send + Sync>>;

/// Hardhat account #0: a public test key, never funded on a real chain.
const TEST_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
/// Shares bought.
const SHARES: u64 = 20_000_000;

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> ExitCode {
    match run().await {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("settle failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn usd(v: U256) -> String {
    let micros = u128::try_from(v).unwrap_or(u128::MAX);
    format!("{}.{:06}", micros / 1_000_000, micros % 1_000_000)
}

struct Account<'a> {
    settler: &'a Settler,
    tokens: [U256; 2],
}

impl Account<'_> {
    async fn print(&self, when: &str) -> Res<(U256, U256, U256)> {
        let me = self.settler.holder();
        let pusd = self.settler.collateral_balance(me).await?;
        let out = self.settler.outcome_balances(me, &self.tokens).await?;
        let gas = self.settler.rpc().balance(me).await?;
        println!(
            "{when:<16} pUSD {:>11}   Yes {:>10}   No {:>10}   gas {:>9} POL",
            usd(pusd),
            usd(out[0]),
            usd(out[1]),
            usd(gas / U256::from(1_000_000_000_000u64)), // wei -> micro-POL
        );
        Ok((pusd, out[0], out[1]))
    }
}

async fn run() -> Res<()> {
    let t0 = Instant::now();
    let sim = Simulator::builder().seed(7).onchain(true).start().await?;
    println!("simulator  {} (chain at {})", sim.http_url(), sim.rpc_url());
    let signer = Signer::from_hex(TEST_KEY)?;
    let me: Address = signer.address();
    let market = sim.markets().into_iter().next().ok_or("no market")?;
    let condition: B256 = market.condition_id().parse()?;
    let tokens = [
        market.tokens()[0].token_id().parse::<U256>()?,
        market.tokens()[1].token_id().parse::<U256>()?,
    ];
    println!("market     {:?}", market.question());
    println!("account    {me}");

    sim.fund_native(me, U256::from(10u64).pow(U256::from(18u8)));
    sim.fund_collateral(me, U256::from(100_000_000u64));
    let settler = Settler::builder(sim.rpc_url(), signer.clone())
        .poll_interval(Duration::from_millis(5))
        .build()?;
    let acct = Account {
        settler: &settler,
        tokens,
    };
    let (start, _, _) = acct.print("before").await?;

    // 1. Approvals: exactly the missing ones, one EIP-1559 transaction each.
    let receipts = settler.ensure_approvals().await?;
    println!(
        "approve    {} transactions (pUSD allowances and ERC-1155 operators for {} contracts)",
        receipts.len(),
        settler.contracts().collateral_spenders().len()
    );
    if !settler.approvals().await?.iter().all(|a| a.granted) {
        return Err("an approval is still missing".into());
    }
    acct.print("after approvals").await?;

    // 2. Trade: buy Yes on the CLOB; the fill settles on the chain.
    let client = ClientBuilder::new()
        .host(sim.http_url())
        .signer(signer.clone())
        .build()?;
    client.set_credentials(client.create_api_key(U256::ZERO).await?);
    let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa)?;
    let yes = market.tokens()[0].token_id();
    let ctx = client.market_context(yes).await?;
    let order = LimitOrder::new(
        Side::Buy,
        Price::new(990_000).ok_or("price")?,
        Size::from_micros(SHARES),
    )
    .order_type(OrderType::Gtc);
    let resp = client
        .post_order(&orders.limit_order(&ctx, &order)?)
        .await?;
    println!(
        "trade      BUY {} Yes: {} (order {})",
        usd(U256::from(SHARES)),
        resp.status,
        resp.order_id
    );
    let (after_trade, yes_held, _) = acct.print("after trade").await?;
    if yes_held != U256::from(SHARES) || sim.settlement_failures() != 0 {
        return Err("the fill did not settle on chain".into());
    }
    let paid = start - after_trade;

    // 3. Resolve: the market resolves to Yes.
    if !sim.resolve_market(market.condition_id(), 0) {
        return Err("resolve failed".into());
    }
    let r = settler.resolution(condition).await?;
    println!(
        "resolve    payouts {:?} / {}",
        r.payout_numerators
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>(),
        r.payout_denominator
    );

    // 4. Redeem the winning shares for pUSD.
    let receipt = settler.redeem(condition, market.is_neg_risk()).await?;
    println!(
        "redeem     tx {} in block {}, gas {}",
        receipt.hash, receipt.block_number, receipt.gas_used
    );
    let (end, yes_left, _) = acct.print("after redeem").await?;
    if yes_left != U256::ZERO || end != start - paid + U256::from(SHARES) {
        return Err("redeem paid the wrong amount".into());
    }
    println!(
        "result     paid {} for {} Yes, redeemed {}: profit {} pUSD",
        usd(paid),
        usd(U256::from(SHARES)),
        usd(U256::from(SHARES)),
        usd(end - start)
    );
    println!("done in {:.2} s", t0.elapsed().as_secs_f64());
    Ok(())
}
