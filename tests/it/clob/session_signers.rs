//! Session signers (issue 18): the owner-signed deposit-wallet batch against known answers
//! from Polymarket's official Python client (`scripts/make_session_signer_vectors.py`) and the
//! whole authorize → list → revoke cycle against the simulator;
//! also the geoblock check (a public call outside the CLOB host).
#![allow(clippy::unwrap_used)]

use alloy_primitives::{Address, U256};
use polyclob::clob::SessionScope;
use polyclob::relayer::{SessionSignerAction, SessionSignerBatch};
use polyclob::sign::Signer;
use polyclob::types::Chain;
use serde_json::Value;

use crate::support::sim as support;

fn s(v: &Value) -> &str {
    v.as_str().unwrap()
}

fn batch_of(v: &Value) -> SessionSignerBatch {
    let action = match s(&v["action"]) {
        "authorize" => SessionSignerAction::Authorize {
            scopes: v["scopes"]
                .as_array()
                .unwrap()
                .iter()
                .map(|x| SessionScope::parse(s(x)))
                .collect(),
            valid_until: v["valid_until"].as_u64().unwrap(),
        },
        _ => SessionSignerAction::Revoke,
    };
    let mut b = batch(
        s(&v["wallet"]).parse().unwrap(),
        s(&v["session_signer"]).parse().unwrap(),
        action,
    );
    b.nonce = s(&v["nonce"]).parse().unwrap();
    b.deadline = s(&v["deadline"]).parse().unwrap();
    b
}

/// A batch with nonce 0 and deadline 0; tests set what they need.
fn batch(wallet: Address, signer: Address, action: SessionSignerAction) -> SessionSignerBatch {
    SessionSignerBatch::new(wallet, signer, action, U256::ZERO, 0)
}

#[test]
fn batches_match_the_official_python_client() {
    let text = include_str!(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/session_signer_vectors.json"
    ));
    let doc: Value = serde_json::from_str(text).unwrap();
    assert_eq!(s(&doc["generator"]), "polymarket-client 0.14.0");
    let mut checked = 0;
    for v in doc["vectors"].as_array().unwrap() {
        let b = batch_of(v);
        let chain = Chain::try_from(v["chain_id"].as_u64().unwrap()).unwrap();
        let id = format!("{} {}", s(&v["action"]), s(&v["nonce"]));
        assert_eq!(
            format!("0x{}", alloy_primitives::hex::encode(b.call_data())),
            s(&v["call_data"]),
            "{id}"
        );
        assert_eq!(format!("{:#x}", b.digest(chain)), s(&v["digest"]), "{id}");
        let owner = Signer::from_hex(s(&v["owner_key"])).unwrap();
        assert_eq!(owner.address(), s(&v["owner"]).parse::<Address>().unwrap());
        let signed = b.sign(&owner, chain).unwrap();
        assert_eq!(signed.signature.to_hex_string(), s(&v["signature"]), "{id}");
        assert_eq!(signed.path, s(&v["path"]), "{id}");
        assert_eq!(
            String::from_utf8(signed.body).unwrap(),
            s(&v["body"]),
            "{id}"
        );
        checked += 1;
    }
    assert_eq!(checked, 5);
}

#[test]
fn bad_batches_are_refused_before_signing() {
    let owner =
        Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")
            .unwrap();
    let wallet = Address::repeat_byte(0x11);
    let auth = |scopes: Vec<SessionScope>, valid_until| SessionSignerAction::Authorize {
        scopes,
        valid_until,
    };
    let cases = [
        batch(wallet, Address::ZERO, SessionSignerAction::Revoke),
        batch(wallet, wallet, SessionSignerAction::Revoke),
        batch(wallet, Address::repeat_byte(2), auth(vec![], 1)),
        batch(
            wallet,
            Address::repeat_byte(2),
            auth(vec![SessionScope::All, SessionScope::Clob], 1),
        ),
        batch(
            wallet,
            Address::repeat_byte(2),
            auth(vec![SessionScope::Clob], 0),
        ),
        // Issue 47: a zero wallet, and an expiry in the past (not after the deadline).
        batch(
            Address::ZERO,
            Address::repeat_byte(2),
            SessionSignerAction::Revoke,
        ),
        SessionSignerBatch::new(
            wallet,
            Address::repeat_byte(2),
            auth(vec![SessionScope::Clob], 1_790_000_000),
            U256::ZERO,
            1_796_000_600,
        ),
        SessionSignerBatch::new(
            wallet,
            Address::repeat_byte(2),
            auth(vec![SessionScope::Clob], 1_796_000_600),
            U256::ZERO,
            1_796_000_600,
        ),
    ];
    for b in cases {
        let e = b.sign(&owner, Chain::Polygon).unwrap_err();
        assert!(e.is_argument(), "{b:?}: {e}");
    }
}

#[tokio::test]
async fn authorize_list_and_revoke_against_the_simulator() {
    use polyclob::clob::Client;
    use support::*;

    let sim = start_empty().await;
    let owner = Signer::from_hex(KEY_A).unwrap();
    // The simulator serves the relayer's routes on its HTTP address.
    let relayer = polyclob::relayer::Client::builder()
        .host(sim.http_url())
        .signer(owner.clone())
        .build()
        .unwrap();
    let c = Client::builder()
        .host(sim.http_url())
        .signer(owner.clone())
        .build()
        .unwrap();
    let creds = c
        .create_api_key(polyclob::clob::ApiKeyNonce::ZERO)
        .await
        .unwrap();
    c.set_credentials(creds);
    let builder = c.create_builder_api_key().await.unwrap();
    let l = c.session_signers().await.unwrap();
    assert!(l.signers.is_empty() && l.skipped.is_empty());
    assert_eq!(
        relayer
            .wallet_nonce(&builder, owner.address())
            .await
            .unwrap(),
        U256::ZERO
    );

    let wallet = Address::repeat_byte(0x11);
    let session = Address::repeat_byte(0x22);
    let until = now_s() + 3600;
    let r = relayer
        .authorize_session_signer(
            &builder,
            wallet,
            session,
            vec![SessionScope::Clob],
            Some(until),
            "authorize-1",
        )
        .await
        .unwrap();
    assert_eq!(r.status, "REGISTERED");
    assert!(!r.failed() && !r.transaction_id.is_empty());
    let l = c.session_signers().await.unwrap();
    assert_eq!(l.wallet, Some(wallet));
    assert_eq!(l.signers.len(), 1);
    assert_eq!(
        (
            l.signers[0].address,
            &l.signers[0].scopes,
            l.signers[0].valid_until
        ),
        (session, &vec![SessionScope::Clob], until)
    );

    // The relayer wants the builder key's headers.
    let mut b = batch(wallet, session, SessionSignerAction::Revoke);
    b.nonce = U256::from(1u8);
    b.deadline = now_s() + 600;
    let signed = b.sign(&owner, Chain::Polygon).unwrap();
    let (st, _) = post_json(
        &sim,
        signed.path,
        std::str::from_utf8(&signed.body).unwrap(),
    )
    .await;
    assert_eq!(st, 401);
    // A spent nonce is refused.
    let mut stale = b.clone();
    stale.nonce = U256::ZERO;
    let e = relayer
        .relay_session_signer_batch(
            &builder,
            &stale.sign(&owner, Chain::Polygon).unwrap(),
            "stale",
        )
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(400));
    // Someone else's signature for the wallet, at that key's own next nonce, is refused.
    let mut forged = b.clone();
    forged.nonce = U256::ZERO;
    let intruder = Signer::from_hex(KEY_B).unwrap();
    let e = relayer
        .relay_session_signer_batch(
            &builder,
            &forged.sign(&intruder, Chain::Polygon).unwrap(),
            "forged",
        )
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(400));
    assert!(format!("{e:?}").contains("owner"), "{e:?}");
    assert_eq!(c.session_signers().await.unwrap().signers.len(), 1);

    let r = relayer
        .revoke_session_signer(&builder, wallet, session, "revoke-1")
        .await
        .unwrap();
    assert_eq!((r.status.as_str(), r.fenced), ("CONFIRMED", Some(true)));
    assert!(c.session_signers().await.unwrap().signers.is_empty());
    // Odd bodies get a 400 with the exchange's error shape, never a panic or a 5xx.
    let good = b.sign(&owner, Chain::Polygon).unwrap();
    for (i, body) in [
        "",
        "null",
        "[]",
        "{}",
        r#"{"walletAddress":"0x11","sessionSignerAddress":7,"nonce":"x","deadline":"1"}"#,
        r#"{"walletAddress":"0x1111111111111111111111111111111111111111","sessionSignerAddress":"0x2222222222222222222222222222222222222222","nonce":"1","deadline":"99999999999","signature":"0x00"}"#,
        r#"{"walletAddress":"0x1111111111111111111111111111111111111111","sessionSignerAddress":"0x2222222222222222222222222222222222222222","nonce":"1","deadline":"99999999999","scopes":["ALL","CLOB"],"validUntil":"5","signature":"0x9d65fdce4302f26212d96e86b4e3485dca5a06c959574863bb0759ad5a4fc3e663b347767cc98bc5b80e90540cd959d056e70b95419d12eea08132021892df911c"}"#,
    ]
    .into_iter()
    .enumerate()
    {
        for path in ["/v1/session-signers/authorizations", "/v1/session-signers/revocations"] {
            let mut odd = good.clone();
            odd.path = path;
            odd.body = body.as_bytes().to_vec();
            let e = relayer
                .relay_session_signer_batch(&builder, &odd, &format!("odd-{i}"))
                .await
                .unwrap_err();
            assert_eq!(e.status(), Some(400), "{path} {body}: {e:?}");
        }
    }
    assert!(c.session_signers().await.unwrap().signers.is_empty());

    // A revoked builder key no longer reaches the relayer.
    c.set_credentials(builder.clone());
    c.revoke_builder_api_key().await.unwrap();
    let e = relayer
        .wallet_nonce(&builder, owner.address())
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(401));
}

#[tokio::test]
async fn geoblock_check_reads_the_simulator() {
    let sim = support::start_empty().await;
    let c = polyclob::clob::Client::builder()
        .host(sim.http_url())
        .build()
        .unwrap();
    let g = c.check_geoblock(&sim.http_url()).await.unwrap();
    assert!(!g.blocked);
    assert_eq!(g.ip, "127.0.0.1");
    // A host without the endpoint is a status error, not a silent "not blocked".
    let e = c
        .check_geoblock(&format!("{}/nowhere", sim.http_url()))
        .await
        .unwrap_err();
    assert_eq!(e.status(), Some(404));
}
