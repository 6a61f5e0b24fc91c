//! On-chain settlement end to end, offline: approve, trade, split/merge, resolve, redeem — for
//! a CTF market and a Protocol V2 market.
//!
//! ```text
//! cargo run --release --example settle
//! ```
//!
//! Starts the simulator with its loopback chain, funds a test account with pUSD and gas, and for
//! each market: grants exactly the missing approvals of its protocol with EIP-1559 transactions
//! (CTF: the exchanges and collateral adapters on ConditionalTokens; V2: ExchangeV3 and the
//! Router on the PositionManager), buys Yes on the CLOB (the fill moves the chain balances;
//! the V2 order is signed for ExchangeV3), splits and merges a set (collateral adapter or
//! Router), resolves the market to Yes, redeems, and prints the account's balances after each
//! step. Exits non-zero if a balance is not what the step implies.

use std::error::Error as StdError;
use std::process::ExitCode;
use std::time::{Duration, Instant};

use polyclob::U256;
use polyclob::clob::ApiKeyNonce;
use polyclob::clob::{Client, ClientBuilder};
use polyclob::fixed::{Price, Size};
use polyclob::onchain::Settler;
use polyclob::order::{LimitOrder, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, ConditionId, ExchangeVersion, OrderType, Protocol, Side};
use polyclob_sim::{MarketSpec, SimHandle, Simulator};

type Res<T> = Result<T, Box<dyn StdError + Send + Sync>>;

/// Hardhat account #0: a public test key, never funded on a real chain.
const TEST_KEY: &str = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
/// Shares bought.
const SHARES: u64 = 20_000_000;
/// Sets split and merged back.
const SET: u64 = 5_000_000;

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

/// A balance in micro-units (pUSD or shares) as its exact decimal.
fn usd(v: U256) -> String {
    Size::from_micros(u64::try_from(v).unwrap_or(u64::MAX)).to_string()
}

/// One market being settled: where its outcome balances live depends on its protocol.
struct Market<'a> {
    settler: &'a Settler,
    spec: MarketSpec,
    condition: ConditionId,
}

impl Market<'_> {
    /// pUSD, Yes and No of the holder (ConditionalTokens for CTF, the PositionManager for V2).
    async fn print(&self, when: &str) -> Res<(U256, U256, U256)> {
        let me = self.settler.holder();
        let pusd = self.settler.collateral_balance(me).await?;
        let out = match self.condition.protocol() {
            Protocol::V2 => self
                .settler
                .position_balances(me, self.condition)
                .await?
                .to_vec(),
            _ => {
                let ids = [
                    self.spec.tokens()[0].token_id().parse::<U256>()?,
                    self.spec.tokens()[1].token_id().parse::<U256>()?,
                ];
                self.settler.outcome_balances(me, &ids).await?
            }
        };
        println!(
            "  {when:<16} pUSD {:>11}   Yes {:>10}   No {:>10}",
            usd(pusd),
            usd(out[0]),
            usd(out[1]),
        );
        Ok((pusd, out[0], out[1]))
    }
}

async fn settle(
    sim: &SimHandle,
    settler: &Settler,
    client: &Client,
    orders: &OrderSigner,
    spec: MarketSpec,
) -> Res<()> {
    let condition = ConditionId::parse_for(spec.condition_id(), spec.protocol())?;
    let protocol = condition.protocol();
    let kind = match protocol {
        Protocol::V2 => "Protocol V2",
        _ => "CTF",
    };
    println!("{kind} market {:?}", spec.question());
    let m = Market {
        settler,
        spec,
        condition,
    };
    let (start, _, _) = m.print("before").await?;

    // 1. Approvals of this market's protocol: exactly the missing ones.
    let receipts = settler.ensure_approvals_for(protocol).await?;
    println!("  approve          {} transactions", receipts.len());
    if !settler
        .approvals_for(protocol)
        .await?
        .iter()
        .all(|a| a.granted)
    {
        return Err("an approval is still missing".into());
    }

    // 2. Trade: the CLOB market record says which protocol (and so which exchange) to sign for.
    let record = client.clob_market(m.spec.condition_id()).await?;
    if record.protocol()? != protocol {
        return Err("the CLOB and the simulator disagree on the market's protocol".into());
    }
    let yes = m.spec.tokens()[0].token_id();
    let ctx = client.market_context(yes).await?;
    let want = protocol.exchange_version(ExchangeVersion::V2);
    if ctx.version() != want {
        return Err(format!("signed for {:?}, not {want:?}", ctx.version()).into());
    }
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
        "  trade            BUY {} Yes on {:?}: {}",
        usd(U256::from(SHARES)),
        ctx.version(),
        resp.status
    );
    let (after_trade, yes_held, _) = m.print("after trade").await?;
    if yes_held != U256::from(SHARES) || sim.settlement_failures() != 0 {
        return Err("the fill did not settle on chain".into());
    }
    let paid = start - after_trade;

    // 3. Split a set and merge it back (collateral adapter or Router).
    let neg_risk = m.spec.is_neg_risk();
    settler
        .split(condition, Size::from_micros(SET), neg_risk)
        .await?;
    let (_, y, n) = m.print("after split").await?;
    if y != U256::from(SHARES + SET) || n != U256::from(SET) {
        return Err("split did not mint a set".into());
    }
    settler
        .merge(condition, Size::from_micros(SET), neg_risk)
        .await?;
    let (after_merge, _, _) = m.print("after merge").await?;
    if after_merge != after_trade {
        return Err("merge did not return the set's collateral".into());
    }

    // 4. Resolve to Yes and redeem the winning shares.
    if !sim.resolve_market(m.spec.condition_id(), 0) {
        return Err("resolve failed".into());
    }
    let receipt = settler.redeem(condition, neg_risk).await?;
    println!(
        "  redeem           tx {} in block {}",
        receipt.hash, receipt.block_number
    );
    let (end, yes_left, _) = m.print("after redeem").await?;
    if yes_left != U256::ZERO || end != start - paid + U256::from(SHARES) {
        return Err("redeem paid the wrong amount".into());
    }
    println!(
        "  result           paid {} for {} Yes, redeemed {}",
        usd(paid),
        usd(U256::from(SHARES)),
        usd(U256::from(SHARES)),
    );
    Ok(())
}

async fn run() -> Res<()> {
    let t0 = Instant::now();
    let sim = Simulator::builder().seed(7).onchain(true).start().await?;
    println!("simulator  {} (chain at {})", sim.http_url(), sim.rpc_url());
    let signer = Signer::from_hex(TEST_KEY)?;
    let me = signer.address();
    sim.fund_native(me, U256::from(10u64).pow(U256::from(18u8)));
    sim.fund_collateral(me, U256::from(100_000_000u64));
    let settler = Settler::builder(sim.rpc_url(), signer.clone())
        .poll_interval(Duration::from_millis(5))
        .build()?;
    let client = ClientBuilder::new()
        .host(sim.http_url())
        .signer(signer.clone())
        .build()?;
    client.set_credentials(client.create_api_key(ApiKeyNonce::ZERO).await?);
    let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa)?;

    // One CTF market and the Protocol V2 (position-ID) market.
    let markets = sim.markets();
    let ctf = markets
        .iter()
        .find(|m| !m.is_position_ids())
        .ok_or("no CTF market")?;
    let v2 = markets
        .iter()
        .find(|m| m.is_position_ids())
        .ok_or("no V2 market")?;
    for spec in [ctf.clone(), v2.clone()] {
        settle(&sim, &settler, &client, &orders, spec).await?;
    }
    println!("done in {:.2} s", t0.elapsed().as_secs_f64());
    Ok(())
}
