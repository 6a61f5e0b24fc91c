//! `polyclob::onchain::Settler` against the simulator's loopback chain: approvals, split,
//! merge, redeem, Safe and proxy wallets, typed errors, concurrent nonces, and the loop
//! approve → trade → resolve → redeem with fills moving the chain balances.
#![cfg(feature = "onchain")]

use std::time::Duration;

use alloy_primitives::{Address, B256, U256};
use polyclob::clob::ClientBuilder;
use polyclob::fixed::{Price, Size};
use polyclob::onchain::{Call, Eip1559Tx, Rpc, Settler, erc20};
use polyclob::order::{LimitOrder, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::{Wallet, derive_proxy_wallet, derive_safe_wallet};
use polyclob::types::{Chain, ConditionId, OrderType, Side};
use polyclob_sim::{SimHandle, Simulator};

/// Hardhat/Anvil accounts #0 and #1: public test keys.
const KEY0: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const KEY1: &str = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
/// The first fixture market (binary, not neg-risk).
const CONDITION: &str = "0x5f65177b394277fd294cd75650044e32ba009a95022d88a0c1d565897d72f8f1";
const YES: &str = "71321045679252212594626385532706912750332728571942532289631379312455583992563";
const NO: &str = "52114319501245915516055106046884209969926127482827954674443846427813813222426";

fn usd(n: u64) -> U256 {
    U256::from(n * 1_000_000)
}

fn ids() -> [U256; 2] {
    [YES.parse().unwrap(), NO.parse().unwrap()]
}

async fn sim() -> SimHandle {
    Simulator::builder()
        .seed(3)
        .onchain(true)
        .start()
        .await
        .unwrap()
}

fn settler(sim: &SimHandle, key: &str, wallet: Wallet) -> Settler {
    Settler::builder(sim.rpc_url(), Signer::from_hex(key).unwrap())
        .wallet(wallet)
        .poll_interval(Duration::from_millis(5))
        .receipt_timeout(Duration::from_secs(5))
        .build()
        .unwrap()
}

fn fund(sim: &SimHandle, gas_payer: Address, holder: Address, collateral: U256) {
    assert!(sim.fund_native(gas_payer, U256::from(10u64).pow(U256::from(19u8))));
    assert!(sim.fund_collateral(holder, collateral));
}

#[tokio::test]
async fn ensure_approvals_sends_exactly_the_missing_ones() {
    let sim = sim().await;
    let s = settler(&sim, KEY0, Wallet::Eoa);
    fund(&sim, s.holder(), s.holder(), U256::ZERO);
    let before = s.approvals().await.unwrap();
    assert!(!before.is_empty());
    assert!(before.iter().all(|a| !a.granted));
    // Grant one by hand: ensure_approvals must skip it.
    let one = before[0];
    assert!(one.collateral);
    s.send(erc20::approve(s.contracts().collateral, one.spender, U256::MAX).unwrap())
        .await
        .unwrap();
    let receipts = s.ensure_approvals().await.unwrap();
    assert_eq!(receipts.len(), before.len() - 1);
    assert!(receipts.iter().all(|r| r.success));
    assert!(s.approvals().await.unwrap().iter().all(|a| a.granted));
    assert!(s.ensure_approvals().await.unwrap().is_empty());
    for a in s.approvals().await.unwrap() {
        if !a.collateral {
            assert!(s.is_approved_for_all(s.holder(), a.spender).await.unwrap());
        } else {
            assert_eq!(
                s.collateral_allowance(s.holder(), a.spender).await.unwrap(),
                U256::MAX
            );
        }
    }
}

#[tokio::test]
async fn split_merge_redeem_move_balances() {
    let sim = sim().await;
    let s = settler(&sim, KEY0, Wallet::Eoa);
    let me = s.holder();
    fund(&sim, me, me, usd(100));
    s.ensure_approvals().await.unwrap();
    let cond: B256 = CONDITION.parse().unwrap();
    s.split(
        ConditionId::ctf(cond.0),
        Size::from_micros(60_000_000),
        false,
    )
    .await
    .unwrap();
    assert_eq!(s.collateral_balance(me).await.unwrap(), usd(40));
    assert_eq!(
        s.outcome_balances(me, &ids()).await.unwrap(),
        vec![usd(60), usd(60)]
    );
    s.merge(
        ConditionId::ctf(cond.0),
        Size::from_micros(20_000_000),
        false,
    )
    .await
    .unwrap();
    assert_eq!(s.collateral_balance(me).await.unwrap(), usd(60));
    let r = s.resolution(cond).await.unwrap();
    assert!(!r.is_resolved());
    assert_eq!(r.payout_numerators, vec![U256::ZERO, U256::ZERO]);
    // Redeeming before resolution reverts at estimation, with the contract's reason.
    let e = s.redeem(ConditionId::ctf(cond.0), false).await.unwrap_err();
    assert!(e.is_revert(), "{e}");
    assert_eq!(
        e.revert_reason(),
        Some("result for condition not received yet")
    );
    assert!(sim.resolve_market(CONDITION, 0));
    let r = s.resolution(cond).await.unwrap();
    assert!(r.is_resolved());
    assert_eq!(r.payout_numerators, vec![U256::from(1u8), U256::ZERO]);
    s.redeem(ConditionId::ctf(cond.0), false).await.unwrap();
    assert_eq!(s.collateral_balance(me).await.unwrap(), usd(100));
    assert_eq!(
        s.outcome_balances(me, &ids()).await.unwrap(),
        vec![U256::ZERO; 2]
    );
}

/// Neg-risk positions redeem through the NegRiskCtfCollateralAdapter (the docs retired the Neg
/// Risk Adapter for that); only conversion still targets the old adapter.
#[tokio::test]
async fn neg_risk_redemption_and_conversion() {
    let sim = sim().await;
    let s = settler(&sim, KEY0, Wallet::Eoa);
    let me = s.holder();
    fund(&sim, me, me, usd(10));
    s.ensure_approvals().await.unwrap();
    let c = s.contracts();
    assert!(
        !c.collateral_spenders()
            .contains(&c.neg_risk_adapter.unwrap())
    );
    assert_eq!(
        c.positions_target(true),
        c.neg_risk_collateral_adapter.unwrap()
    );
    let cond: B256 = CONDITION.parse().unwrap();
    s.split(
        ConditionId::ctf(cond.0),
        Size::from_micros(10_000_000),
        true,
    )
    .await
    .unwrap();
    assert!(sim.resolve_market(CONDITION, 1));
    s.redeem(ConditionId::ctf(cond.0), true).await.unwrap();
    // 10 No pay 10; the 10 Yes pay nothing and are burned.
    assert_eq!(s.collateral_balance(me).await.unwrap(), usd(10));
    assert_eq!(
        s.outcome_balances(me, &ids()).await.unwrap(),
        vec![U256::ZERO; 2]
    );
    // A condition id is no neg-risk market id: the adapter refuses (conversion itself is
    // tested through the relayer, tests/it/clob/wallet_batches.rs).
    let e = s
        .convert_neg_risk(cond, 2, U256::from(1u8), Size::from_micros(1_000_000))
        .await
        .unwrap_err();
    assert_eq!(e.revert_reason(), Some("MarketNotPrepared"));
}

#[tokio::test]
async fn safe_and_proxy_wallets_settle_through_their_wrappers() {
    let sim = sim().await;
    let eoa = Signer::from_hex(KEY0).unwrap().address();
    let cond: B256 = CONDITION.parse().unwrap();
    for wallet in [
        Wallet::Safe(derive_safe_wallet(eoa, Chain::Polygon)),
        Wallet::Proxy(derive_proxy_wallet(eoa, Chain::Polygon).unwrap()),
    ] {
        let s = settler(&sim, KEY0, wallet);
        let holder = s.holder();
        assert_ne!(holder, eoa);
        fund(&sim, eoa, holder, usd(10));
        s.ensure_approvals().await.unwrap();
        assert!(s.approvals().await.unwrap().iter().all(|a| a.granted));
        s.split(
            ConditionId::ctf(cond.0),
            Size::from_micros(4_000_000),
            false,
        )
        .await
        .unwrap();
        assert_eq!(sim.collateral_balance(holder), usd(6), "{wallet:?}");
        assert_eq!(sim.outcome_balance(holder, ids()[1]), usd(4));
        // The EOA's own balances are untouched: it only paid gas.
        assert_eq!(sim.outcome_balance(eoa, ids()[1]), U256::ZERO);
    }
    // Another key cannot drive the EOA's Safe: the chain rejects the owner signature.
    let safe = derive_safe_wallet(eoa, Chain::Polygon);
    let intruder = settler(&sim, KEY1, Wallet::Safe(safe));
    fund(
        &sim,
        Signer::from_hex(KEY1).unwrap().address(),
        safe,
        U256::ZERO,
    );
    let e = intruder
        .split(
            ConditionId::ctf(cond.0),
            Size::from_micros(1_000_000),
            false,
        )
        .await
        .unwrap_err();
    assert_eq!(
        e.revert_reason(),
        Some("GS026: signer is not the Safe's owner")
    );
    // Deposit wallets are refused with a typed error, nothing sent.
    let d = settler(&sim, KEY0, Wallet::DepositWallet(Address::repeat_byte(9)));
    assert!(
        !d.split(ConditionId::ctf(cond.0), Size::from_micros(1), false)
            .await
            .unwrap_err()
            .is_revert()
    );
}

#[tokio::test]
async fn typed_errors() {
    let sim = sim().await;
    let s = settler(&sim, KEY0, Wallet::Eoa);
    let me = s.holder();
    let cond: B256 = CONDITION.parse().unwrap();
    // No native token for gas.
    let e = s
        .send(erc20::approve(s.contracts().collateral, me, U256::MAX).unwrap())
        .await
        .unwrap_err();
    assert!(e.is_insufficient_funds(), "{e}");
    fund(&sim, me, me, usd(1));
    // A revert reason from estimation: splitting more than the balance.
    s.ensure_approvals().await.unwrap();
    let e = s
        .split(
            ConditionId::ctf(cond.0),
            Size::from_micros(5_000_000),
            false,
        )
        .await
        .unwrap_err();
    assert!(e.is_revert());
    assert_eq!(
        e.revert_reason(),
        Some("ERC20: transfer amount exceeds balance")
    );
    // Fee cap below the base fee (30 gwei): refused before signing.
    let capped = Settler::builder(sim.rpc_url(), Signer::from_hex(KEY0).unwrap())
        .max_fee_cap(1_000_000_000)
        .build()
        .unwrap();
    assert!(
        capped
            .split(ConditionId::ctf(cond.0), Size::from_micros(1), false)
            .await
            .unwrap_err()
            .is_fee_cap()
    );
    let tight = Settler::builder(sim.rpc_url(), Signer::from_hex(KEY0).unwrap())
        .gas_limit_cap(10_000)
        .build()
        .unwrap();
    assert!(
        tight
            .split(ConditionId::ctf(cond.0), Size::from_micros(1), false)
            .await
            .unwrap_err()
            .is_fee_cap()
    );
    // Wrong chain: a settler for Amoy refuses the Polygon node.
    let amoy = Settler::builder(sim.rpc_url(), Signer::from_hex(KEY0).unwrap())
        .chain(Chain::Amoy)
        .build()
        .unwrap();
    let e = amoy
        .split(ConditionId::ctf(cond.0), Size::from_micros(1), false)
        .await
        .unwrap_err();
    assert!(
        e.is_chain_mismatch() && e.to_string().contains("chain 137"),
        "{e}"
    );

    // Raw transactions: nonce too low, wrong chain id, and a replaced transaction.
    let rpc = Rpc::new(sim.rpc_url()).unwrap();
    let signer = Signer::from_hex(KEY0).unwrap();
    let used = rpc.transaction_count(me, "latest").await.unwrap();
    assert!(used > 0);
    let call = erc20::approve(s.contracts().collateral, me, U256::ZERO).unwrap();
    let stale = Eip1559Tx::new(137, 0, &call)
        .gas_limit(100_000)
        .fees(100_000_000_000, 30_000_000_000)
        .sign(&signer)
        .unwrap();
    let e = rpc.send_raw(stale.raw()).await.unwrap_err();
    assert!(e.is_nonce_too_low(), "{e}");
    let other_chain = Eip1559Tx::new(1, used, &call)
        .gas_limit(100_000)
        .fees(100_000_000_000, 30_000_000_000)
        .sign(&signer)
        .unwrap();
    let e = rpc.send_raw(other_chain.raw()).await.unwrap_err();
    assert!(
        e.is_rpc() && e.to_string().contains("invalid chain id"),
        "{e}"
    );
    // `stale` took nonce 0, which a mined transaction already used: it was replaced.
    let e = s.wait(stale.hash(), 0).await.unwrap_err();
    assert!(e.is_replaced(), "{e}");
    assert_eq!(e.tx_hash(), Some(stale.hash()));
    // A transaction that never arrives, at a future nonce: the wait times out.
    let short = Settler::builder(sim.rpc_url(), Signer::from_hex(KEY0).unwrap())
        .receipt_timeout(Duration::from_millis(50))
        .poll_interval(Duration::from_millis(10))
        .build()
        .unwrap();
    let e = short
        .wait(B256::repeat_byte(7), used + 10)
        .await
        .unwrap_err();
    assert!(
        e.is_timeout() && e.tx_hash() == Some(B256::repeat_byte(7)),
        "{e}"
    );
    // A mined revert: gas too low for the call is status 0 in the receipt.
    let starved = Eip1559Tx::new(137, used, &call)
        .gas_limit(21_000)
        .fees(100_000_000_000, 30_000_000_000)
        .sign(&signer)
        .unwrap();
    let hash = rpc.send_raw(starved.raw()).await.unwrap();
    let e = s.wait(hash, used).await.unwrap_err();
    assert!(e.is_revert() && e.tx_hash() == Some(hash), "{e}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_sends_never_reuse_a_nonce() {
    let sim = sim().await;
    let s = settler(&sim, KEY0, Wallet::Eoa);
    let me = s.holder();
    fund(&sim, me, me, usd(1));
    let rpc = Rpc::new(sim.rpc_url()).unwrap();
    let tasks: Vec<_> = (0..8u8)
        .map(|i| {
            let s = s.clone();
            tokio::spawn(async move {
                let spender = Address::repeat_byte(i + 1);
                s.send(erc20::approve(s.contracts().collateral, spender, U256::from(i)).unwrap())
                    .await
            })
        })
        .collect();
    let mut blocks = Vec::new();
    for t in tasks {
        blocks.push(t.await.unwrap().unwrap().block_number);
    }
    blocks.sort_unstable();
    blocks.dedup();
    assert_eq!(blocks.len(), 8);
    assert_eq!(rpc.transaction_count(me, "latest").await.unwrap(), 8);
    for i in 0..8u8 {
        assert_eq!(
            s.collateral_allowance(me, Address::repeat_byte(i + 1))
                .await
                .unwrap(),
            U256::from(i)
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_safe_sends_are_serialised() {
    let sim = sim().await;
    let eoa = Signer::from_hex(KEY0).unwrap().address();
    let safe = derive_safe_wallet(eoa, Chain::Polygon);
    let s = settler(&sim, KEY0, Wallet::Safe(safe));
    fund(&sim, eoa, safe, usd(1));
    let tasks: Vec<_> = (0..4u8)
        .map(|i| {
            let s = s.clone();
            tokio::spawn(async move {
                let spender = Address::repeat_byte(i + 1);
                s.send(
                    erc20::approve(s.contracts().collateral, spender, U256::from(i + 1)).unwrap(),
                )
                .await
            })
        })
        .collect();
    for t in tasks {
        t.await.unwrap().unwrap();
    }
    for i in 0..4u8 {
        let spender = Address::repeat_byte(i + 1);
        assert_eq!(
            s.collateral_allowance(safe, spender).await.unwrap(),
            U256::from(i + 1)
        );
    }
}

#[tokio::test]
async fn batched_reads_answer_in_order() {
    let sim = sim().await;
    let rpc = Rpc::new(sim.rpc_url()).unwrap();
    let c = polyclob::types::contracts(Chain::Polygon, polyclob::types::ExchangeVersion::V2);
    sim.fund_collateral(Address::repeat_byte(1), U256::from(11u8));
    sim.fund_collateral(Address::repeat_byte(2), U256::from(22u8));
    let calls: Vec<Call> = (1..=2)
        .map(|b| erc20::balance_of(c.collateral, Address::repeat_byte(b)))
        .chain([Call::new(c.collateral, vec![1, 2, 3, 4])])
        .collect();
    let out = rpc.call_many(&calls).await.unwrap();
    assert_eq!(
        U256::from_be_slice(out[0].as_ref().unwrap()),
        U256::from(11u8)
    );
    assert_eq!(
        U256::from_be_slice(out[1].as_ref().unwrap()),
        U256::from(22u8)
    );
    assert!(out[2].as_ref().unwrap_err().is_revert());
}

/// The whole loop: approve, buy on the CLOB (the fill moves chain balances), resolve, redeem.
#[tokio::test]
async fn approve_trade_resolve_redeem() {
    let sim = sim().await;
    let signer = Signer::from_hex(KEY0).unwrap();
    let s = settler(&sim, KEY0, Wallet::Eoa);
    let me = s.holder();
    fund(&sim, me, me, usd(100));
    let client = ClientBuilder::new()
        .host(sim.http_url())
        .signer(signer.clone())
        .build()
        .unwrap();
    let creds = client
        .create_api_key(polyclob::clob::ApiKeyNonce::ZERO)
        .await
        .unwrap();
    client.set_credentials(creds);
    let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa).unwrap();
    let ctx = client.market_context(YES).await.unwrap();
    let buy = |size| {
        LimitOrder::new(
            Side::Buy,
            Price::new(990_000).unwrap(),
            Size::from_micros(size),
        )
        .order_type(OrderType::Gtc)
    };

    // Before approving, the exchange refuses the order: the pUSD is there, the allowance not.
    let refused = client
        .post_order(&orders.limit_order(&ctx, &buy(5_000_000)).unwrap())
        .await
        .unwrap_err();
    assert!(
        refused
            .to_string()
            .contains("not enough balance / allowance"),
        "{refused}"
    );
    assert_eq!(sim.settlement_failures(), 0);
    assert_eq!(sim.outcome_balance(me, ids()[0]), U256::ZERO);

    s.ensure_approvals().await.unwrap();
    let resp = client
        .post_order(&orders.limit_order(&ctx, &buy(10_000_000)).unwrap())
        .await
        .unwrap();
    assert!(resp.success, "{resp:?}");
    assert_eq!(sim.settlement_failures(), 0);
    assert_eq!(sim.outcome_balance(me, ids()[0]), usd(10));
    let paid = usd(100) - s.collateral_balance(me).await.unwrap();
    assert!(paid > usd(4) && paid < usd(10), "paid {paid}");

    assert!(sim.resolve_market(CONDITION, 0));
    s.redeem(
        ConditionId::ctf(CONDITION.parse::<B256>().unwrap().0),
        false,
    )
    .await
    .unwrap();
    assert_eq!(s.collateral_balance(me).await.unwrap(), usd(110) - paid);
    assert_eq!(sim.outcome_balance(me, ids()[0]), U256::ZERO);
}

/// Garbage at the chain endpoint gets JSON-RPC errors, never a dead server.
#[tokio::test]
async fn chain_endpoint_survives_garbage() {
    let sim = sim().await;
    let http = crate::support::sim::http_client();
    let mut seed = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let signer = Signer::from_hex(KEY0).unwrap();
    let good = Eip1559Tx::new(137, 0, &Call::new(Address::repeat_byte(1), vec![1, 2, 3]))
        .gas_limit(100_000)
        .fees(100_000_000_000, 30_000_000_000)
        .sign(&signer)
        .unwrap()
        .raw()
        .to_vec();
    let mut bodies: Vec<String> = vec![
        "".into(),
        "[]".into(),
        "{".into(),
        "[1,2,3]".into(),
        r#"{"method":"eth_call","params":[{"to":"0x12","data":"0xzz"}]}"#.into(),
        r#"{"method":"eth_call","params":"nope"}"#.into(),
        r#"{"method":"eth_getTransactionReceipt","params":[42]}"#.into(),
        r#"{"method":"eth_sendRawTransaction","params":["0x02"]}"#.into(),
    ];
    for _ in 0..300 {
        let mut raw = good.clone();
        let i = (next() as usize) % raw.len();
        raw[i] ^= (next() as u8) | 1;
        raw.truncate(raw.len() - (next() as usize % 4));
        bodies.push(format!(
            r#"{{"jsonrpc":"2.0","id":1,"method":"eth_sendRawTransaction","params":["0x{}"]}}"#,
            alloy_primitives::hex::encode(&raw)
        ));
        let data: Vec<u8> = (0..(next() % 300)).map(|_| next() as u8).collect();
        bodies.push(format!(
            r#"{{"jsonrpc":"2.0","id":2,"method":"eth_call","params":[{{"to":"{}","data":"0x{}"}},"latest"]}}"#,
            [
                "0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB",
                "0x4D97DCd97eC945f40cF65F87097ACe5EA0476045"
            ][(next() % 2) as usize],
            alloy_primitives::hex::encode(&data)
        ));
    }
    for body in bodies {
        let resp = http
            .post(sim.rpc_url())
            .body(body.clone())
            .send()
            .await
            .unwrap();
        assert_eq!(resp.status(), 200, "{body}");
        let v: serde_json::Value = serde_json::from_slice(&resp.bytes().await.unwrap()).unwrap();
        assert!(v.is_object() || v.is_array(), "{body}");
    }
    // Still serving.
    let rpc = Rpc::new(sim.rpc_url()).unwrap();
    assert_eq!(rpc.chain_id().await.unwrap(), 137);
}

/// An RFQ mint and then a merge between two wallets move the chain balances like a split and
/// a merge of the full set: each side pays (or receives) its own price.
#[tokio::test]
async fn rfq_mint_and_merge_settle_on_chain() {
    let sim = sim().await;
    let mut parties = Vec::new();
    for key in [KEY0, KEY1] {
        let signer = Signer::from_hex(key).unwrap();
        let s = settler(&sim, key, Wallet::Eoa);
        let me = s.holder();
        fund(&sim, me, me, usd(100));
        s.ensure_approvals().await.unwrap();
        let client = ClientBuilder::new()
            .host(sim.http_url())
            .signer(signer.clone())
            .build()
            .unwrap();
        let creds = client
            .create_api_key(polyclob::clob::ApiKeyNonce::ZERO)
            .await
            .unwrap();
        client.set_credentials(creds);
        let orders = OrderSigner::new(signer, Chain::Polygon, Wallet::Eoa).unwrap();
        parties.push((client, orders, s, me));
    }
    let (a, sa, seta, me_a) = &parties[0];
    let (b, sb, setb, me_b) = &parties[1];
    let eoa = polyclob::types::SignatureType::Eoa;
    let px = |c: u32| Price::new(c * 10_000).unwrap();
    let ten = Size::from_micros(10_000_000);
    let later = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs()
        + 3600;

    // Mint: A buys 10 YES at 0.60, B buys 10 NO at 0.40.
    let req = a
        .rfq_create_request(YES, Side::Buy, px(60), ten, eoa)
        .await
        .unwrap();
    let q = b
        .rfq_create_quote(&req.request_id, NO, Side::Buy, px(40), ten, eoa)
        .await
        .unwrap();
    a.rfq_accept_quote(sa, &req.request_id, &q.quote_id, later)
        .await
        .unwrap();
    b.rfq_approve_order(sb, &req.request_id, &q.quote_id, later)
        .await
        .unwrap();
    assert_eq!(sim.settlement_failures(), 0);
    assert_eq!(sim.outcome_balance(*me_a, ids()[0]), usd(10));
    assert_eq!(sim.outcome_balance(*me_b, ids()[1]), usd(10));
    assert_eq!(seta.collateral_balance(*me_a).await.unwrap(), usd(94));
    assert_eq!(setb.collateral_balance(*me_b).await.unwrap(), usd(96));

    // Merge: A sells its 10 YES, B its 10 NO at 0.55, so A receives 0.45.
    let req = a
        .rfq_create_request(YES, Side::Sell, px(50), ten, eoa)
        .await
        .unwrap();
    let q = b
        .rfq_create_quote(&req.request_id, NO, Side::Sell, px(55), ten, eoa)
        .await
        .unwrap();
    a.rfq_accept_quote(sa, &req.request_id, &q.quote_id, later)
        .await
        .unwrap();
    b.rfq_approve_order(sb, &req.request_id, &q.quote_id, later)
        .await
        .unwrap();
    assert_eq!(sim.settlement_failures(), 0);
    assert_eq!(sim.outcome_balance(*me_a, ids()[0]), U256::ZERO);
    assert_eq!(sim.outcome_balance(*me_b, ids()[1]), U256::ZERO);
    assert_eq!(
        seta.collateral_balance(*me_a).await.unwrap(),
        U256::from(98_500_000u64)
    );
    assert_eq!(
        setb.collateral_balance(*me_b).await.unwrap(),
        U256::from(101_500_000u64)
    );
}
