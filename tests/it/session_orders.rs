//! A deposit wallet's order signed by a session key: the session signer envelope around the
//! POLY_1271 signature, reproduced byte for byte from the official Python client's own code
//! (`tests/data/session_order_vectors.json`, made by `scripts/make_session_order_vectors.py`)
//! and from the shared fixture of py-sdk 0.10.0 (skipped with a notice when absent), checked
//! offline by [`OrderSignature::check_session`], and refused for every tampering.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use alloy_primitives::{Address, B256};
use polyclob::order::{Order, OrderSigner, SignedOrder, TokenId};
use polyclob::sign::Signer;
use polyclob::sign::eip712::{compute_exchange_domain, order_struct_hash};
use polyclob::sign::wallet::{OrderSignature, SessionSignatureError, Wallet};
use polyclob::types::{ExchangeVersion, OrderType, Side, SignatureType};
use serde_json::Value;

use crate::support::fixtures;

fn hex(s: &str) -> Vec<u8> {
    alloy_primitives::hex::decode(s.trim_start_matches("0x")).unwrap()
}

fn version(v: &str) -> ExchangeVersion {
    if v == "3" {
        ExchangeVersion::V3
    } else {
        ExchangeVersion::V2
    }
}

/// The vector's order and exchange domain.
fn order_of(v: &Value) -> (Order, B256, u64) {
    let s = |k: &str| v[k].as_str().unwrap();
    let ver = version(s("exchange_version"));
    let chain = v["chain_id"].as_u64().unwrap();
    let mut o = Order::zeroed(ver);
    o.salt = s("salt").parse().unwrap();
    o.maker = s("wallet").parse().unwrap();
    o.signer = o.maker;
    o.token_id = s("token_id").parse::<TokenId>().unwrap();
    o.maker_amount = s("maker_amount").parse().unwrap();
    o.taker_amount = s("taker_amount").parse().unwrap();
    o.side = if s("side") == "SELL" {
        Side::Sell
    } else {
        Side::Buy
    };
    o.signature_type = SignatureType::Poly1271;
    o.timestamp_ms = s("timestamp_ms").parse().unwrap();
    o.builder = s("builder").parse().unwrap();
    let domain = compute_exchange_domain(ver, chain, s("exchange").parse().unwrap());
    (o, domain, chain)
}

fn vectors() -> Vec<Value> {
    let path = format!(
        "{}/tests/data/session_order_vectors.json",
        env!("CARGO_MANIFEST_DIR")
    );
    let v: Value = serde_json::from_slice(&std::fs::read(path).unwrap()).unwrap();
    v["vectors"].as_array().unwrap().clone()
}

#[test]
fn session_signatures_match_the_official_client() {
    for v in vectors() {
        let (order, domain, chain) = order_of(&v);
        let key = Signer::from_hex(v["session_key"].as_str().unwrap()).unwrap();
        let session: Address = v["session_signer"].as_str().unwrap().parse().unwrap();
        assert_eq!(key.address(), session);
        let owner_style = SignedOrder::sign_with_domain(
            &key,
            &domain,
            chain,
            order,
            (OrderType::Gtc, false, false),
        )
        .unwrap();
        assert_eq!(
            owner_style.signature().as_bytes(),
            hex(v["poly_1271_signature"].as_str().unwrap())
        );
        let wrapped = OrderSignature::session(session, owner_style.signature());
        let want = hex(v["session_signature"].as_str().unwrap());
        assert_eq!(wrapped.as_bytes(), want, "{}", v["exchange"]);
        assert_eq!(
            wrapped.to_hex_string(),
            v["session_signature"].as_str().unwrap()
        );
        // Checked offline: the envelope names the key that signed.
        let sh = order_struct_hash(&order);
        assert_eq!(
            OrderSignature::check_session(&want, &domain, &sh, chain, order.maker),
            Ok(session)
        );
    }
}

/// The order builder signs through a session key with `Wallet::DepositWalletSession`: maker
/// and signer are the wallet, type 3, and the signature is the envelope above.
#[test]
fn the_order_signer_wraps_for_a_session_wallet() {
    let v = &vectors()[0];
    let (order, domain, chain) = order_of(v);
    let key = Signer::from_hex(v["session_key"].as_str().unwrap()).unwrap();
    let wallet = order.maker;
    let signer = OrderSigner::new(
        key.clone(),
        polyclob::types::Chain::Polygon,
        Wallet::DepositWalletSession(wallet),
    )
    .unwrap();
    let ctx = polyclob::order::MarketContext::new(
        polyclob::types::Chain::Polygon,
        ExchangeVersion::V2,
        order.token_id,
        polyclob::types::TickSize::Hundredth,
        false,
    )
    .unwrap();
    let req =
        polyclob::order::LimitOrder::new(Side::Buy, "0.5".parse().unwrap(), "100".parse().unwrap())
            .salt(order.salt)
            .created_at_ms(order.timestamp_ms);
    let signed = signer.limit_order(&ctx, &req).unwrap();
    assert_eq!(
        (signed.order().maker, signed.order().signer),
        (wallet, wallet)
    );
    assert_eq!(signed.order().signature_type, SignatureType::Poly1271);
    assert!(signed.signature().is_session());
    assert_eq!(signed.signature().session_signer(), Some(key.address()));
    let sh = order_struct_hash(signed.order());
    let _ = domain;
    assert_eq!(
        OrderSignature::check_session(
            signed.signature().as_bytes(),
            ctx.domain_separator(),
            &sh,
            chain,
            wallet
        ),
        Ok(key.address())
    );
    // The same order signed by the owner's path and wrapped gives the same bytes.
    let plain = SignedOrder::sign_with_domain(
        &key,
        ctx.domain_separator(),
        chain,
        *signed.order(),
        (OrderType::Gtc, false, false),
    )
    .unwrap();
    assert_eq!(
        OrderSignature::session(key.address(), plain.signature()),
        *signed.signature()
    );
}

#[test]
fn every_tampering_is_refused_with_its_reason() {
    use SessionSignatureError as E;
    let v = &vectors()[0];
    let (order, domain, chain) = order_of(v);
    let sh = order_struct_hash(&order);
    let good = hex(v["session_signature"].as_str().unwrap());
    let check = |b: &[u8]| OrderSignature::check_session(b, &domain, &sh, chain, order.maker);
    let flip = |at: usize| {
        let mut b = good.clone();
        b[at] ^= 1;
        b
    };
    assert_eq!(
        check(&good[128..445]),
        Err(E::NotAnEnvelope),
        "the bare POLY_1271"
    );
    assert_eq!(check(&flip(479)), Err(E::NotAnEnvelope));
    assert_eq!(check(&good[..448 - 32]), Err(E::NotAnEnvelope));
    let mut short = good[..96].to_vec();
    short.extend_from_slice(&good[448..]);
    assert_eq!(check(&short), Err(E::Malformed));
    assert_eq!(check(&flip(95)), Err(E::Malformed), "offset");
    assert_eq!(
        check(&flip(126)),
        Err(E::Malformed),
        "a length the envelope does not have"
    );
    assert_eq!(
        check(&flip(127)),
        Err(E::NotPoly1271),
        "316 bytes: same padding, short inner"
    );
    assert_eq!(
        check(&flip(63)),
        Err(E::UnsupportedKind(1)),
        "a passkey signer"
    );
    assert_eq!(check(&flip(0)), Err(E::BadSignerId));
    assert_eq!(check(&flip(20)), Err(E::WrongSigner), "another signer id");
    assert_eq!(
        check(&flip(128 + 5)),
        Err(E::WrongSigner),
        "the ECDSA signature"
    );
    assert_eq!(check(&flip(128 + 70)), Err(E::DomainMismatch));
    assert_eq!(check(&flip(128 + 100)), Err(E::OrderMismatch));
    assert_eq!(
        check(&flip(128 + 200)),
        Err(E::NotPoly1271),
        "the type string"
    );
    assert_eq!(
        OrderSignature::check_session(&good, &domain, &sh, chain, Address::repeat_byte(9)),
        Err(E::WrongSigner),
        "another wallet"
    );
    assert_eq!(
        check(&good),
        Ok(v["session_signer"].as_str().unwrap().parse().unwrap())
    );
}

/// py-sdk 0.10.0's session signatures (Hardhat #0 as the session key), from the shared
/// fixtures: the same bytes, and they check.
#[test]
fn the_shared_py_sdk_fixture() {
    let Some(bytes) = fixtures::read_shared("polymarket/vectors/nautilus_session_signatures.json")
    else {
        return;
    };
    let f: Value = serde_json::from_slice(&bytes).unwrap();
    let o = &f["order"];
    let key = Signer::from_hex(f["private_key"].as_str().unwrap()).unwrap();
    for v in f["vectors"].as_array().unwrap() {
        let want = hex(&v["signature_chunks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|c| c.as_str().unwrap())
            .collect::<String>());
        let mut order = Order::zeroed(ExchangeVersion::V2);
        order.salt = o["salt"].as_u64().unwrap();
        order.maker = o["maker"].as_str().unwrap().parse().unwrap();
        order.signer = o["signer"].as_str().unwrap().parse().unwrap();
        order.token_id = o["tokenId"].as_str().unwrap().parse().unwrap();
        order.maker_amount = o["makerAmount"].as_str().unwrap().parse().unwrap();
        order.taker_amount = o["takerAmount"].as_str().unwrap().parse().unwrap();
        order.side = Side::Buy;
        order.signature_type = SignatureType::Poly1271;
        order.timestamp_ms = o["timestamp"].as_str().unwrap().parse().unwrap();
        let chain = f["chain_id"].as_u64().unwrap();
        let domain = compute_exchange_domain(
            ExchangeVersion::V2,
            chain,
            v["exchange"].as_str().unwrap().parse().unwrap(),
        );
        let sh = order_struct_hash(&order);
        assert_eq!(
            OrderSignature::check_session(&want, &domain, &sh, chain, order.maker),
            Ok(key.address())
        );
        let ours = SignedOrder::sign_with_domain(
            &key,
            &domain,
            chain,
            order,
            (OrderType::Gtc, false, false),
        )
        .unwrap();
        assert_eq!(
            OrderSignature::session(key.address(), ours.signature()).as_bytes(),
            want
        );
    }
}

/// On the simulator: the owner authorizes a session key through the relayer; the key, with
/// its own CLOB credentials, places the wallet's order; an unauthorized key's is refused; an
/// expiry past 180 days is refused before anything is sent.
#[tokio::test]
async fn a_session_key_trades_for_the_wallet_it_was_authorized_for() {
    use crate::support::rails::{KEY_A, KEY_B, YES, market};
    use polyclob::clob::{Client, SessionScope};
    use polyclob::order::LimitOrder;
    use polyclob::sign::wallet::derive_deposit_wallets;
    use polyclob::types::{Chain, TickSize};

    const KEY_C: &str = "5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
    let sim = polyclob_sim::Simulator::builder()
        .markets(vec![market()])
        .start()
        .await
        .unwrap();
    let owner = Signer::from_hex(KEY_A).unwrap();
    let wallet = derive_deposit_wallets(owner.address())[1];
    sim.fund(wallet, 100_000_000);
    let c = Client::builder()
        .host(sim.http_url())
        .signer(owner.clone())
        .build()
        .unwrap();
    c.set_credentials(
        c.create_api_key(polyclob::clob::ApiKeyNonce::ZERO)
            .await
            .unwrap(),
    );
    let builder = c.create_builder_api_key().await.unwrap();
    let relayer = polyclob::relayer::Client::builder()
        .host(sim.http_url())
        .signer(owner.clone())
        .build()
        .unwrap();
    let session = Signer::from_hex(KEY_B).unwrap();
    let too_late = polyclob::relayer::SessionSignerBatch::LIFETIME + 4_000_000_000;
    let e = relayer
        .authorize_session_signer(
            &builder,
            wallet,
            session.address(),
            vec![SessionScope::Clob],
            Some(too_late),
            "late",
        )
        .await
        .unwrap_err();
    assert!(e.is_argument(), "{e}");
    relayer
        .authorize_session_signer(
            &builder,
            wallet,
            session.address(),
            vec![SessionScope::Clob],
            None,
            "ok",
        )
        .await
        .unwrap();
    let listed = c.session_signers().await.unwrap();
    let until = listed.signers[0].valid_until;
    let now = crate::support::sim::now_s();
    assert!(
        until.abs_diff(now + 180 * 86_400) <= 5,
        "now + 180 days: {until}"
    );

    let place = |key: &'static str| {
        let sim_url = sim.http_url();
        async move {
            let k = Signer::from_hex(key).unwrap();
            let c = Client::builder()
                .host(sim_url)
                .signer(k.clone())
                .build()
                .unwrap();
            c.set_credentials(
                c.create_api_key(polyclob::clob::ApiKeyNonce::ZERO)
                    .await
                    .unwrap(),
            );
            let signer =
                OrderSigner::new(k, Chain::Polygon, Wallet::DepositWalletSession(wallet)).unwrap();
            let ctx = c
                .market_context_with(YES, TickSize::Hundredth, false)
                .unwrap();
            let o = signer
                .limit_order(
                    &ctx,
                    &LimitOrder::new(Side::Buy, "0.10".parse().unwrap(), "5".parse().unwrap()),
                )
                .unwrap();
            assert!(o.signature().is_session());
            c.post_order(&o).await
        }
    };
    let ok = place(KEY_B).await.unwrap();
    assert!(ok.success, "{ok:?}");
    let refused = place(KEY_C).await.unwrap_err();
    assert!(
        refused.to_string().contains("invalid signature"),
        "{refused}"
    );
}
