//! Deposit-wallet `WALLET` batches (issue 37): the owner-signed batch, its relayer body and
//! builder headers against known answers from Polymarket's unified Python SDK
//! (`scripts/make_wallet_batch_vectors.py`), with the calls built by `Settler`; then approvals,
//! split, merge and redeem of a CTF and a V2 market through the simulator's relayer, balances
//! checked after each step, and the relayer's refusals.
#![cfg(feature = "onchain")]
#![allow(clippy::unwrap_used)]

use std::time::Duration;

use alloy_primitives::{Address, U256};
use polyclob::clob::{Client, Credentials};
use polyclob::fixed::Size;
use polyclob::onchain::{Call, Settler, erc20, erc1155};
use polyclob::relayer::{RelayerApiKey, RelayerRefusal, RelayerState, WalletBatch};
use polyclob::sign::Signer;
use polyclob::sign::hmac::HmacKey;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, ConditionId, ExchangeVersion, Protocol, contracts};
use polyclob_sim::{MarketSpec, SimHandle, Simulator};
use serde_json::Value;

use crate::support::sim::{KEY_A, KEY_B, now_s};

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

fn settler_for(rpc: &str, key: &str, wallet: Address) -> Settler {
    Settler::builder(rpc, Signer::from_hex(key).unwrap())
        .wallet(Wallet::DepositWallet(wallet))
        .poll_interval(Duration::from_millis(5))
        .build()
        .unwrap()
}

/// The calls of each vector as polyclob builds them (the SDK built the vector's own).
async fn our_calls(name: &str, v: &Value) -> Vec<Call> {
    let wallet: Address = s(&v["wallet"]).parse().unwrap();
    // No I/O below: these builders only encode (the RPC URL is never reached).
    let st = settler_for("http://127.0.0.1:9/rpc", KEY_A, wallet);
    let ctf = contracts(Chain::Polygon, ExchangeVersion::V2);
    let v3 = contracts(Chain::Polygon, ExchangeVersion::V3);
    let ctf_cond: ConditionId = format!("0x{}", "ab".repeat(32)).parse().unwrap();
    let mut v2_bytes = [0xcd; 31];
    v2_bytes[0] = 0x01;
    let v2_cond = ConditionId::v2(v2_bytes);
    let adapter = ctf.ctf_collateral_adapter.unwrap();
    let (router, pm) = (v3.router.unwrap(), v3.position_manager.unwrap());
    match name {
        "ctf_approvals" => vec![
            erc20::approve(ctf.collateral, adapter, U256::MAX).unwrap(),
            erc1155::set_approval_for_all(ctf.conditional_tokens, adapter, true).unwrap(),
        ],
        "ctf_split" => vec![
            st.split_call(ctf_cond, Size::from_micros(25_000_000), false)
                .unwrap(),
        ],
        "neg_risk_merge" => vec![
            st.merge_call(ctf_cond, Size::from_micros(1_500_000), true)
                .unwrap(),
        ],
        "ctf_redeem" => st.redeem_calls(ctf_cond, false).await.unwrap(),
        "v2_approvals" => vec![
            erc20::approve(v3.collateral, router, U256::MAX).unwrap(),
            erc1155::set_approval_for_all(pm, router, true).unwrap(),
        ],
        "v2_split_merge" => vec![
            st.split_call(v2_cond, Size::from_micros(10_000_000), false)
                .unwrap(),
            st.merge_call(v2_cond, Size::from_micros(4_000_000), false)
                .unwrap(),
        ],
        "v2_redeem" => vec![
            st.redeem_outcome_call(v2_cond, 0, U256::from(6_000_000u64))
                .unwrap(),
            st.redeem_outcome_call(v2_cond, 1, U256::from(1u8)).unwrap(),
        ],
        "neg_risk_convert" => vec![
            st.convert_neg_risk_call(
                format!("0x{}00", "5e".repeat(31)).parse().unwrap(),
                3,
                U256::from(0b101u8),
                Size::from_micros(2_000_000),
            )
            .unwrap(),
        ],
        other => panic!("no builder for vector {other}"),
    }
}

#[tokio::test]
async fn batches_match_the_official_python_sdk() {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/wallet_batch_vectors.json"
    ));
    let doc: Value = serde_json::from_str(text).unwrap();
    assert_eq!(s(&doc["generator"]), "polymarket-client 0.14.0");
    assert_eq!(
        s(&doc["factory"]).parse::<Address>().unwrap(),
        polyclob::sign::wallet::DEPOSIT_WALLET_FACTORY
    );
    let b = &doc["builder"];
    let hmac = HmacKey::from_base64url(s(&b["secret"])).unwrap();
    let mut checked = 0;
    for v in doc["vectors"].as_array().unwrap() {
        let name = s(&v["name"]);
        let calls: Vec<Call> = v["calls"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| {
                let data = alloy_primitives::hex::decode(s(&c["data"])).unwrap();
                Call::new(s(&c["to"]).parse().unwrap(), data)
                    .with_value(s(&c["value"]).parse().unwrap())
            })
            .collect();
        // The Settler's values are the SDK's calls, byte for byte.
        assert_eq!(our_calls(name, v).await, calls, "{name}");
        let chain = Chain::try_from(v["chain_id"].as_u64().unwrap()).unwrap();
        let batch = WalletBatch::new(
            s(&v["wallet"]).parse().unwrap(),
            calls,
            s(&v["nonce"]).parse().unwrap(),
            s(&v["deadline"]).parse().unwrap(),
        )
        .metadata(s(&v["metadata"]));
        assert_eq!(
            format!("{:#x}", batch.digest(chain)),
            s(&v["digest"]),
            "{name}"
        );
        let owner = Signer::from_hex(s(&v["owner_key"])).unwrap();
        assert_eq!(owner.address(), s(&v["owner"]).parse::<Address>().unwrap());
        let signed = batch.sign(&owner, chain).unwrap();
        assert_eq!(
            signed.signature.to_hex_string(),
            s(&v["signature"]),
            "{name}"
        );
        let body = String::from_utf8(signed.body.clone()).unwrap();
        assert_eq!(body, s(&v["body"]), "{name}");
        // The builder headers the SDK sent for those bytes are the ones the client computes.
        let h = &v["builder_headers"];
        assert_eq!((s(&v["method"]), s(&v["path"])), ("POST", "/submit"));
        assert_eq!(s(&h["poly_builder_api_key"]), s(&b["key"]));
        assert_eq!(s(&h["poly_builder_passphrase"]), s(&b["passphrase"]));
        let ts = b["time"].as_u64().unwrap();
        assert_eq!(s(&h["poly_builder_timestamp"]), ts.to_string());
        assert_eq!(
            hmac.sign(ts, "POST", "/submit", &signed.body).as_str(),
            s(&h["poly_builder_signature"]),
            "{name}"
        );
        checked += 1;
    }
    assert_eq!(checked, 8);
}

#[test]
fn bad_batches_are_refused_before_signing() {
    let owner = Signer::from_hex(KEY_A).unwrap();
    let wallet = Address::repeat_byte(0xd1);
    let call = Call::new(Address::repeat_byte(1), vec![1, 2, 3, 4]);
    let cases = [
        WalletBatch::new(Address::ZERO, vec![call.clone()], U256::ZERO, 1),
        WalletBatch::new(wallet, vec![], U256::ZERO, 1),
        WalletBatch::new(
            wallet,
            vec![Call::new(Address::ZERO, vec![])],
            U256::ZERO,
            1,
        ),
        WalletBatch::new(wallet, vec![call.clone()], U256::ZERO, 0),
        WalletBatch::new(wallet, vec![call], U256::ZERO, 1).metadata("x".repeat(501)),
    ];
    for b in cases {
        let e = b.sign(&owner, Chain::Polygon).unwrap_err();
        assert!(e.is_argument(), "{b:?}: {e}");
    }
}

/// `POST /submit` with a Relayer API key's headers and an optional `Idempotency-Key`, as a
/// client that sends nothing else would: the status and the body.
async fn raw_submit(
    host: &str,
    key: &RelayerApiKey,
    body: &[u8],
    idempotency_key: Option<&str>,
) -> (u16, String) {
    let mut rb = crate::support::sim::http_client()
        .post(format!("{host}/submit"))
        .header("RELAYER_API_KEY", key.key())
        .header("RELAYER_API_KEY_ADDRESS", key.address().to_checksum(None))
        .header("content-type", "application/json")
        .body(body.to_vec());
    if let Some(k) = idempotency_key {
        rb = rb.header("Idempotency-Key", k);
    }
    let resp = rb.send().await.unwrap();
    (resp.status().as_u16(), resp.text().await.unwrap())
}

fn usd(n: u64) -> U256 {
    U256::from(n) * U256::from(1_000_000u64)
}

struct Rig {
    sim: SimHandle,
    relayer: polyclob::relayer::Client,
    builder: Credentials,
    owner: Signer,
    wallet: Address,
    settler: Settler,
}

impl Rig {
    async fn new() -> Self {
        Self::with_markets(MarketSpec::defaults()).await
    }

    async fn with_markets(markets: Vec<MarketSpec>) -> Self {
        let sim = Simulator::builder()
            .seed(9)
            .markets(markets)
            .onchain(true)
            .start()
            .await
            .unwrap();
        let owner = Signer::from_hex(KEY_A).unwrap();
        let client = Client::builder()
            .host(sim.http_url())
            .signer(owner.clone())
            .build()
            .unwrap();
        let creds = client
            .create_api_key(polyclob::clob::ApiKeyNonce::ZERO)
            .await
            .unwrap();
        client.set_credentials(creds);
        let builder = client.create_builder_api_key().await.unwrap();
        // The deposit wallet the owner's key controls (its address is not derived here).
        let wallet = "0xdf8b9E8f9AB23f261F6e1B171B7454ae6E46Ba76"
            .parse()
            .unwrap();
        assert!(sim.fund_collateral(wallet, usd(100)));
        let settler = settler_for(&sim.rpc_url(), KEY_A, wallet);
        // The simulator serves the relayer's routes on its HTTP address.
        let relayer = polyclob::relayer::Client::builder()
            .host(sim.http_url())
            .signer(owner.clone())
            .build()
            .unwrap();
        Self {
            sim,
            relayer,
            builder,
            owner,
            wallet,
            settler,
        }
    }

    async fn run(&self, calls: Vec<Call>) -> Result<RelayerState, polyclob::http::Error> {
        let t = self
            .relayer
            .execute_wallet_batch(&self.builder, self.wallet, calls, "")
            .await?;
        assert_eq!(t.state, RelayerState::New);
        let looked = self
            .relayer
            .transaction(&self.builder, &t.transaction_id)
            .await
            .unwrap();
        assert!(looked.transaction_hash.is_some());
        Ok(looked.state)
    }

    fn pusd(&self) -> U256 {
        self.sim.collateral_balance(self.wallet)
    }

    fn held(&self, tokens: &[U256; 2]) -> [U256; 2] {
        tokens.map(|t| self.sim.outcome_balance(self.wallet, t))
    }

    async fn nonce(&self) -> U256 {
        self.relayer
            .wallet_nonce(&self.builder, self.owner.address())
            .await
            .unwrap()
    }
}

fn market(sim: &SimHandle, v2: bool) -> (ConditionId, [U256; 2], String) {
    let spec = sim
        .markets()
        .into_iter()
        .find(|m: &MarketSpec| m.is_position_ids() == v2 && !m.is_neg_risk())
        .unwrap();
    let protocol = if v2 { Protocol::V2 } else { Protocol::Ctf };
    let cond = ConditionId::parse_for(spec.condition_id(), protocol).unwrap();
    let tokens = spec.tokens().clone().map(|t| t.token_id().parse().unwrap());
    (cond, tokens, spec.condition_id().to_owned())
}

/// The issue's done-when: deposit-wallet approvals, split, merge and redeem through the
/// simulator's relayer for a CTF and a V2 market, balances checked after each step.
#[tokio::test]
async fn deposit_wallet_settles_ctf_and_v2_markets_through_the_relayer() {
    let r = Rig::new().await;
    for (v2, protocol) in [(false, Protocol::Ctf), (true, Protocol::V2)] {
        let (cond, tokens, cond_hex) = market(&r.sim, v2);
        assert_eq!(cond.protocol(), protocol);
        let start = r.pusd();

        // Approvals: exactly the missing ones, in one batch; then none are missing.
        let approvals = r.settler.approval_calls_for(protocol).await.unwrap();
        assert!(!approvals.is_empty());
        assert_eq!(r.run(approvals).await.unwrap(), RelayerState::Confirmed);
        let after = r.settler.approvals_for(protocol).await.unwrap();
        assert!(after.iter().all(|a| a.granted), "{protocol:?}: {after:?}");
        assert!(
            r.settler
                .approval_calls_for(protocol)
                .await
                .unwrap()
                .is_empty()
        );
        assert_eq!(r.pusd(), start);

        // Split 30, merge 10: collateral and both outcomes move by exactly that.
        let split = r
            .settler
            .split_call(cond, Size::from_micros(30_000_000), false)
            .unwrap();
        r.run(vec![split]).await.unwrap();
        assert_eq!(r.pusd(), start - usd(30));
        assert_eq!(r.held(&tokens), [usd(30), usd(30)]);
        let merge = r
            .settler
            .merge_call(cond, Size::from_micros(10_000_000), false)
            .unwrap();
        r.run(vec![merge]).await.unwrap();
        assert_eq!(r.pusd(), start - usd(20));
        assert_eq!(r.held(&tokens), [usd(20), usd(20)]);

        // Redeem after resolution: the winner pays 1, the loser 0, both are cleared.
        assert!(r.sim.resolve_market(&cond_hex, 0));
        let redeem = r.settler.redeem_calls(cond, false).await.unwrap();
        assert_eq!(redeem.len(), if v2 { 2 } else { 1 });
        r.run(redeem).await.unwrap();
        assert_eq!(r.pusd(), start);
        assert_eq!(r.held(&tokens), [U256::ZERO, U256::ZERO]);
    }
    // Four batches per market, each spending one nonce.
    assert_eq!(r.nonce().await, U256::from(8u8));
}

#[tokio::test]
async fn the_simulators_relayer_refuses_as_the_relayer_does() {
    let r = Rig::new().await;
    let host = r.sim.http_url();
    let (cond, tokens, _) = market(&r.sim, false);
    let split = r
        .settler
        .split_call(cond, Size::from_micros(5_000_000), false)
        .unwrap();

    // Without the approval the split reverts: the batch is refused, nothing moves, no nonce
    // is spent.
    let e = r.run(vec![split.clone()]).await.unwrap_err();
    assert_eq!(e.status(), Some(400));
    assert!(
        e.message().unwrap().contains("insufficient allowance"),
        "{e}"
    );
    assert_eq!(r.nonce().await, U256::ZERO);
    assert_eq!(r.pusd(), usd(100));

    // Approve and split in one batch: all calls run, in order.
    let mut calls = r.settler.approval_calls_for(Protocol::Ctf).await.unwrap();
    calls.push(split.clone());
    r.run(calls).await.unwrap();
    assert_eq!(r.held(&tokens), [usd(5), usd(5)]);
    assert_eq!(r.nonce().await, U256::ONE);

    // A signed batch executes once. Posted again (the retry of a lost answer) it carries the
    // same Idempotency-Key and is answered with the first answer; nothing moves.
    let deadline = now_s() + 600;
    let once = WalletBatch::new(r.wallet, vec![split.clone()], U256::ONE, deadline)
        .sign(&r.owner, Chain::Polygon)
        .unwrap();
    let first = r
        .relayer
        .submit_wallet_batch(&r.builder, &once)
        .await
        .unwrap();
    assert_eq!(r.held(&tokens), [usd(10), usd(10)]);
    let again = r
        .relayer
        .submit_wallet_batch(&r.builder, &once)
        .await
        .unwrap();
    assert_eq!(again, first);
    assert_eq!(r.held(&tokens), [usd(10), usd(10)]);
    assert_eq!(r.nonce().await, U256::from(2u8));
    // Without the key (a relayer that ignores it) the repeat is refused by its spent nonce.
    let key = RelayerApiKey::new(r.sim.relayer_api_key(r.owner.address()), r.owner.address());
    let (status, text) = raw_submit(&host, &key, &once.body, None).await;
    assert_eq!(status, 400, "{text}");
    assert!(
        text.contains("batch nonce 1 does not match on-chain nonce 2"),
        "{text}"
    );
    assert_eq!(r.held(&tokens), [usd(10), usd(10)]);
    // A nonce ahead of the wallet's is refused too.
    let ahead = WalletBatch::new(r.wallet, vec![split.clone()], U256::from(9u8), deadline)
        .sign(&r.owner, Chain::Polygon)
        .unwrap();
    let e = r
        .relayer
        .submit_wallet_batch(&r.builder, &ahead)
        .await
        .unwrap_err();
    assert!(matches!(
        RelayerRefusal::of(&e),
        Some(RelayerRefusal::NonceMismatch { submitted, on_chain })
            if submitted > on_chain
    ));

    // Another key's signature for this wallet, an expired deadline, no builder headers.
    let intruder = Signer::from_hex(KEY_B).unwrap();
    let forged = WalletBatch::new(r.wallet, vec![split.clone()], U256::ZERO, deadline)
        .sign(&intruder, Chain::Polygon)
        .unwrap();
    let e = r
        .relayer
        .submit_wallet_batch(&r.builder, &forged)
        .await
        .unwrap_err();
    assert!(e.message().unwrap().contains("owner"), "{e}");
    let expired = WalletBatch::new(r.wallet, vec![split.clone()], U256::from(2u8), 5)
        .sign(&r.owner, Chain::Polygon)
        .unwrap();
    let e = r
        .relayer
        .submit_wallet_batch(&r.builder, &expired)
        .await
        .unwrap_err();
    assert!(e.message().unwrap().contains("deadline"), "{e}");
    let (status, _) =
        crate::support::sim::post_json(&r.sim, "/submit", std::str::from_utf8(&once.body).unwrap())
            .await;
    assert_eq!(status, 401);

    // Odd bodies: a 400 in the exchange's error shape, never a panic.
    let mut odd = once.clone();
    for body in [
        "",
        "null",
        "{}",
        r#"{"type":"WALLET-CREATE"}"#,
        r#"{"type":"WALLET","from":"0x1","to":"0x00000000000Fb5C9ADea0298D729A0CB3823Cc07"}"#,
    ] {
        odd.body = body.as_bytes().to_vec();
        let e = r
            .relayer
            .submit_wallet_batch(&r.builder, &odd)
            .await
            .unwrap_err();
        assert_eq!(e.status(), Some(400), "{body}: {e}");
    }
    let body = String::from_utf8(once.body.clone()).unwrap();
    for (from, to) in [
        ("\"calls\":[{", "\"calls\":[{\"x\":1},{"),
        ("\"type\":\"WALLET\"", "\"type\":\"SAFE\""),
        (
            "0x00000000000Fb5C9ADea0298D729A0CB3823Cc07",
            "0x1111111111111111111111111111111111111111",
        ),
        ("\"nonce\":\"1\"", "\"nonce\":\"-1\""),
    ] {
        odd.body = body.replacen(from, to, 1).into_bytes();
        assert_ne!(odd.body, once.body);
        let e = r
            .relayer
            .submit_wallet_batch(&r.builder, &odd)
            .await
            .unwrap_err();
        assert_eq!(e.status(), Some(400), "{from}: {e}");
    }
    // Unknown transactions are a 404.
    let e = r.relayer.transaction(&r.builder, "nope").await.unwrap_err();
    assert_eq!(e.status(), Some(404));
    assert_eq!(r.held(&tokens), [usd(10), usd(10)]);
}

/// Neg-risk conversion as a `WALLET` batch: the deposit wallet splits each question of a
/// four-question neg-risk group, approves the Neg Risk Adapter and converts No of questions
/// {0, 2}; the simulator's relayer moves the positions as the adapter does (its fee aside).
#[tokio::test]
async fn deposit_wallet_converts_neg_risk_positions_through_the_relayer() {
    let r = Rig::with_markets(MarketSpec::generate(10)).await;
    let group: Vec<MarketSpec> = r
        .sim
        .markets()
        .into_iter()
        .filter(|m| m.is_neg_risk())
        .collect();
    assert_eq!(group.len(), 4);
    let market_id = group[0].neg_risk_market_id().parse().unwrap();
    assert!(
        group
            .iter()
            .all(|m| m.neg_risk_market_id() == group[0].neg_risk_market_id())
    );
    let tokens: Vec<[U256; 2]> = group
        .iter()
        .map(|m| m.tokens().clone().map(|t| t.token_id().parse().unwrap()))
        .collect();
    let mut calls = r.settler.approval_calls_for(Protocol::Ctf).await.unwrap();
    for m in &group {
        let cond = ConditionId::parse_for(m.condition_id(), m.protocol()).unwrap();
        calls.push(
            r.settler
                .split_call(cond, Size::from_micros(10_000_000), true)
                .unwrap(),
        );
    }
    r.run(calls).await.unwrap();
    assert_eq!(r.pusd(), usd(60));

    let adapter = contracts(Chain::Polygon, ExchangeVersion::V2)
        .neg_risk_adapter
        .unwrap();
    let convert = r
        .settler
        .convert_neg_risk_call(
            market_id,
            4,
            U256::from(0b0101u8),
            Size::from_micros(4_000_000),
        )
        .unwrap();
    // Without the adapter's ERC-1155 approval the conversion reverts: nothing moves.
    let e = r.run(vec![convert.clone()]).await.unwrap_err();
    assert!(e.message().unwrap().contains("NotApprovedForAll"), "{e}");
    let approve = erc1155::set_approval_for_all(
        contracts(Chain::Polygon, ExchangeVersion::V2).conditional_tokens,
        adapter,
        true,
    )
    .unwrap();
    assert_eq!(
        r.run(vec![approve, convert]).await.unwrap(),
        RelayerState::Confirmed
    );
    // No of 0 and 2 went; Yes of 1 and 3 came; one pUSD per share converted, (2 − 1) × 4.
    let held: Vec<[U256; 2]> = tokens.iter().map(|t| r.held(t)).collect();
    assert_eq!(
        held,
        vec![
            [usd(10), usd(6)],
            [usd(14), usd(10)],
            [usd(10), usd(6)],
            [usd(14), usd(10)],
        ]
    );
    assert_eq!(r.pusd(), usd(64));
    // An index set beyond the group's four questions is refused before it is signed (the
    // adapter would revert)...
    let e = r
        .settler
        .convert_neg_risk_call(
            market_id,
            4,
            U256::from(0b1_0001u8),
            Size::from_micros(1_000_000),
        )
        .unwrap_err();
    assert!(e.is_invalid_request(), "{e}");
    assert!(e.to_string().contains("beyond the market's 4"), "{e}");
    // ... and the simulated adapter, handed the calldata anyway, refuses it whole.
    let beyond = polyclob::onchain::Call::new(
        adapter,
        polyclob::onchain::abi::encode_call(
            polyclob::onchain::Selector::ConvertPositions.bytes(),
            &[
                polyclob::onchain::abi::Value::b256(market_id),
                polyclob::onchain::abi::Value::uint(U256::from(0b1_0001u8)),
                polyclob::onchain::abi::Value::uint(U256::from(1_000_000u64)),
            ],
        ),
    );
    let e = r.run(vec![beyond]).await.unwrap_err();
    assert!(e.message().unwrap().contains("InvalidIndexSet"), "{e}");
    assert_eq!(r.pusd(), usd(64));
}

/// The relayer's other rules: a Relayer API key authenticates like a builder key (and a key
/// named for another address does not); an `Idempotency-Key` replays the first answer of its
/// body and refuses another body; `WALLET-CREATE` deploys the key's beacon deposit wallet
/// once, with the body the official SDK sends.
#[tokio::test]
async fn relayer_keys_idempotency_and_wallet_creation() {
    let r = Rig::new().await;
    let host = r.sim.http_url();
    let me = r.owner.address();
    let key = RelayerApiKey::new(r.sim.relayer_api_key(me), me);
    assert!(!format!("{key:?}").contains(key.key()), "{key:?}");

    // The nonce, a batch and its lookup with the Relayer API key.
    assert_eq!(r.relayer.wallet_nonce(&key, me).await.unwrap(), U256::ZERO);
    let approvals = r.settler.approval_calls_for(Protocol::Ctf).await.unwrap();
    let t = r
        .relayer
        .execute_wallet_batch(&key, r.wallet, approvals, "approve")
        .await
        .unwrap();
    let looked = r
        .relayer
        .transaction(&key, &t.transaction_id)
        .await
        .unwrap();
    assert_eq!(looked.state, RelayerState::Confirmed);
    // A key presented for another address, or an unknown key: 401, and no secret in the error.
    let other = RelayerApiKey::new(key.key(), Address::repeat_byte(7));
    let e = r.relayer.wallet_nonce(&other, me).await.unwrap_err();
    assert_eq!(e.status(), Some(401));
    assert!(!format!("{e} {e:?}").contains(key.key()), "{e:?}");
    let made_up = RelayerApiKey::new("not-a-key", me);
    let e = r.relayer.wallet_nonce(&made_up, me).await.unwrap_err();
    assert_eq!(e.status(), Some(401));

    // Idempotency: the first answer of a key is replayed for the same body, once executed.
    let (cond, tokens, _) = market(&r.sim, false);
    let split = |n: u64| {
        r.settler
            .split_call(cond, Size::from_micros(n * 1_000_000), false)
            .unwrap()
    };
    let deadline = now_s() + 600;
    let b1 = WalletBatch::new(r.wallet, vec![split(3)], U256::ONE, deadline)
        .sign(&r.owner, Chain::Polygon)
        .unwrap();
    let (status, first) = raw_submit(&host, &key, &b1.body, Some("op-1")).await;
    assert_eq!(status, 200, "{first}");
    let (status, again) = raw_submit(&host, &key, &b1.body, Some("op-1")).await;
    assert_eq!((status, &again), (200, &first));
    assert_eq!(r.held(&tokens), [usd(3), usd(3)]);
    let b2 = WalletBatch::new(r.wallet, vec![split(4)], U256::from(2u8), deadline)
        .sign(&r.owner, Chain::Polygon)
        .unwrap();
    let (status, text) = raw_submit(&host, &key, &b2.body, Some("op-1")).await;
    assert_eq!(status, 422, "{text}");
    assert_eq!(r.held(&tokens), [usd(3), usd(3)]);
    // A refused request is not remembered: fixed, the same key goes through.
    let (status, _) = raw_submit(&host, &key, &b1.body, Some("op-2")).await;
    assert_eq!(status, 400); // nonce 1 is spent
    let (status, text) = raw_submit(&host, &key, &b2.body, Some("op-2")).await;
    assert_eq!(status, 200, "{text}");
    assert_eq!(r.held(&tokens), [usd(7), usd(7)]);

    // WALLET-CREATE: the body and headers are the official SDK's (known answers), and the
    // simulator's relayer deploys the key's beacon wallet once.
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/wallet_batch_vectors.json"
    ));
    let doc: Value = serde_json::from_str(text).unwrap();
    let b = &doc["builder"];
    let hmac = HmacKey::from_base64url(s(&b["secret"])).unwrap();
    let vector_key = &doc["relayer_key"];
    for v in doc["wallet_create"].as_array().unwrap() {
        let owner: Address = s(&v["owner"]).parse().unwrap();
        let body = polyclob::relayer::wallet_create_body(owner, s(&v["metadata"])).unwrap();
        assert_eq!(std::str::from_utf8(&body).unwrap(), s(&v["body"]));
        assert_eq!((s(&v["method"]), s(&v["path"])), ("POST", "/submit"));
        let h = &v["headers"];
        if let Some(sig) = h.get("poly_builder_signature") {
            let ts = b["time"].as_u64().unwrap();
            assert_eq!(hmac.sign(ts, "POST", "/submit", &body).as_str(), s(sig));
        } else {
            let k = RelayerApiKey::new(
                s(&vector_key["key"]),
                s(&vector_key["address"]).parse().unwrap(),
            );
            assert_eq!(s(&h["relayer_api_key"]), k.key());
            assert_eq!(
                s(&h["relayer_api_key_address"]),
                k.address().to_checksum(None)
            );
        }
    }
    assert!(
        polyclob::relayer::wallet_create_body(me, &"x".repeat(501))
            .unwrap_err()
            .is_argument()
    );
    let beacon = polyclob::sign::wallet::derive_deposit_wallets(me)[1];
    assert!(!r.relayer.deployed(beacon).await.unwrap());
    // The wallet that ran batches exists.
    assert!(r.relayer.deployed(r.wallet).await.unwrap());
    let t = r
        .relayer
        .deploy_deposit_wallet(&r.builder, "Deploy Deposit Wallet")
        .await
        .unwrap();
    assert_eq!(t.state, RelayerState::New);
    let looked = r
        .relayer
        .transaction(&key, &t.transaction_id)
        .await
        .unwrap();
    assert_eq!(looked.state, RelayerState::Confirmed);
    assert!(r.relayer.deployed(beacon).await.unwrap());
    let e = r.relayer.deploy_deposit_wallet(&key, "").await.unwrap_err();
    assert_eq!(e.status(), Some(400), "{e}");
}
