//! L1, L2 and order-signature verification by the simulator, with the exchange's error shapes.
#![allow(clippy::unwrap_used)]

use crate::support::sim as support;

use std::sync::Arc;

use polyclob::clob::Credentials;
use polyclob::sign::Signer;
use polyclob::types::{ExchangeVersion, Side, SignatureType};
use serde_json::Value;
use support::*;

async fn l1(
    sim: &polyclob_sim::SimHandle,
    method: reqwest::Method,
    path: &str,
    headers: Vec<(&str, String)>,
) -> (u16, Value) {
    let mut req = http_client().request(method, format!("{}{path}", sim.http_url()));
    for (k, v) in headers {
        req = req.header(k, v);
    }
    let resp = req.send().await.unwrap();
    let s = resp.status().as_u16();
    (
        s,
        serde_json::from_str(&resp.text().await.unwrap()).unwrap(),
    )
}

#[tokio::test]
async fn api_keys_are_created_once_and_derived_deterministically() {
    let sim = start(5).await;
    let signer = Signer::from_hex(KEY_A).unwrap();
    let (s, created) = l1(
        &sim,
        reqwest::Method::POST,
        "/auth/api-key",
        l1_headers(&signer, now_s(), 0),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(created["apiKey"].as_str().unwrap().len(), 36);
    assert_eq!(
        created["secret"].as_str().unwrap().len(),
        44,
        "base64url of 32 bytes, padded"
    );
    let (s, again) = l1(
        &sim,
        reqwest::Method::POST,
        "/auth/api-key",
        l1_headers(&signer, now_s(), 0),
    )
    .await;
    assert_eq!(s, 400);
    assert!(again["error"].is_string());
    let (s, derived) = l1(
        &sim,
        reqwest::Method::GET,
        "/auth/derive-api-key",
        l1_headers(&signer, now_s(), 0),
    )
    .await;
    assert_eq!(s, 200);
    assert_eq!(derived, created);
    // Another nonce is another key; never-created nonce cannot be derived.
    let (s, _) = l1(
        &sim,
        reqwest::Method::GET,
        "/auth/derive-api-key",
        l1_headers(&signer, now_s(), 7),
    )
    .await;
    assert_eq!(s, 400);
    let (_, other) = l1(
        &sim,
        reqwest::Method::POST,
        "/auth/api-key",
        l1_headers(&signer, now_s(), 7),
    )
    .await;
    assert_ne!(other["apiKey"], created["apiKey"]);
    // Same seed, same (address, nonce) -> same credentials on another simulator.
    let sim2 = start(5).await;
    let (_, again2) = l1(
        &sim2,
        reqwest::Method::POST,
        "/auth/api-key",
        l1_headers(&signer, now_s(), 0),
    )
    .await;
    assert_eq!(again2, created);
    // And the handle hands out the same credentials.
    let c = sim.api_credentials(&signer.address().to_string(), 0);
    assert_eq!(c.api_key(), created["apiKey"].as_str().unwrap());
    assert!(
        !format!("{c:?}").contains(c.secret()),
        "secret redacted in Debug"
    );
}

#[tokio::test]
async fn bad_l1_signatures_are_rejected() {
    let sim = start(1).await;
    let a = Signer::from_hex(KEY_A).unwrap();
    let b = Signer::from_hex(KEY_B).unwrap();
    // Signed by B, claiming to be A.
    let mut h = l1_headers(&b, now_s(), 0);
    h[0].1 = a.address().to_checksum(None);
    let (s, e) = l1(&sim, reqwest::Method::POST, "/auth/api-key", h).await;
    assert_eq!(
        (s, e["error"].as_str().unwrap()),
        (401, "Invalid L1 Request headers")
    );
    // Timestamp differing from the signed one.
    let mut h = l1_headers(&a, 1_700_000_000, 0);
    h[2].1 = "1700000001".into();
    assert_eq!(
        l1(&sim, reqwest::Method::POST, "/auth/api-key", h).await.0,
        401
    );
    // Nonce differing from the signed one.
    let mut h = l1_headers(&a, now_s(), 0);
    h[3].1 = "1".into();
    assert_eq!(
        l1(&sim, reqwest::Method::POST, "/auth/api-key", h).await.0,
        401
    );
    // Missing header, garbage signature.
    let h = l1_headers(&a, now_s(), 0)
        .into_iter()
        .take(3)
        .filter(|(k, _)| *k != "POLY_SIGNATURE")
        .collect();
    assert_eq!(
        l1(&sim, reqwest::Method::POST, "/auth/api-key", h).await.0,
        401
    );
    let mut h = l1_headers(&a, now_s(), 0);
    h[1].1 = "0xzz".into();
    assert_eq!(
        l1(&sim, reqwest::Method::POST, "/auth/api-key", h).await.0,
        401
    );
    // Lowercase POLY_ADDRESS (RS2 style) is accepted.
    let mut h = l1_headers(&a, now_s(), 0);
    h[0].1 = h[0].1.to_lowercase();
    assert_eq!(
        l1(&sim, reqwest::Method::POST, "/auth/api-key", h).await.0,
        200
    );
}

#[tokio::test]
async fn l2_hmac_covers_method_path_and_exact_body() {
    let sim = start(1).await;
    let t = Trader::new(&sim, KEY_A).await;
    // The query string is not part of the signed path.
    let (s, page, _) = t.l2("GET", "/data/orders?next_cursor=MA==", None).await;
    assert_eq!(s, 200);
    assert_eq!(page["next_cursor"], "LTE=");
    let (s, keys, _) = t.l2("GET", "/auth/api-keys", None).await;
    assert_eq!(s, 200);
    assert_eq!(keys["apiKeys"][0], t.creds.api_key());

    // Body bytes changed after signing: rejected.
    let ts = now_s();
    let signed = r#"{"orderID":"0x01"}"#;
    let sent = r#"{"orderID": "0x01"}"#;
    let sig = polyclob::sign::hmac::HmacKey::from_base64url(t.creds.secret())
        .unwrap()
        .sign(ts, "DELETE", "/order", signed.as_bytes());
    let resp = http_client()
        .delete(format!("{}/order", sim.http_url()))
        .header("POLY_ADDRESS", t.address().to_checksum(None))
        .header("POLY_SIGNATURE", sig.as_str())
        .header("POLY_TIMESTAMP", ts.to_string())
        .header("POLY_API_KEY", t.creds.api_key())
        .header("POLY_PASSPHRASE", t.creds.passphrase())
        .body(sent)
        .send()
        .await
        .unwrap();
    assert_eq!(resp.status(), 401);
    let e: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
    assert_eq!(e["error"], "Unauthorized/Invalid api key");

    // Wrong passphrase, unknown key, another address.
    let mut bad = Trader {
        signer: Signer::from_hex(KEY_A).unwrap(),
        creds: t.creds.clone(),
        base: t.base.clone(),
        http: t.http.clone(),
    };
    let c = &t.creds;
    bad.creds = Credentials::new(c.api_key(), c.secret(), "nope");
    assert_eq!(bad.l2("GET", "/data/orders", None).await.0, 401);
    bad.creds = Credentials::new(
        "00000000-0000-4000-8000-000000000000",
        c.secret(),
        c.passphrase(),
    );
    assert_eq!(bad.l2("GET", "/data/orders", None).await.0, 401);
    bad.creds = t.creds.clone();
    bad.signer = Signer::from_hex(KEY_B).unwrap();
    assert_eq!(bad.l2("GET", "/data/orders", None).await.0, 401);
    // Right secret, wrong method in the signature.
    bad.signer = Signer::from_hex(KEY_A).unwrap();
    bad.creds = Credentials::new(
        c.api_key(),
        "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
        c.passphrase(),
    );
    assert_eq!(bad.l2("GET", "/data/orders", None).await.0, 401);
}

fn yes_token(market: usize) -> String {
    markets()[market].tokens()[0].token_id().to_owned()
}

#[tokio::test]
async fn order_id_is_the_eip712_hash_and_signatures_must_match_the_exchange() {
    let sim = start(1).await;
    let t = Trader::new(&sim, KEY_A).await;
    // Plain market: V2 CTF exchange.
    let o = limit(&yes_token(0), Side::Buy, 400_000, 10_000_000, 1);
    let (s, v, id) = t.post(&o).await;
    assert_eq!(s, 200, "{v}");
    assert_eq!(v["success"], true);
    assert_eq!(v["orderID"], id.as_str());
    assert_eq!(v["status"], "live");

    // Neg-risk market signed against the CTF exchange instead of the NegRisk exchange.
    let mut o = limit(&yes_token(2), Side::Buy, 400_000, 10_000_000, 2);
    o.neg_risk = Some(false);
    let (s, v, _) = t.post(&o).await;
    assert_eq!(s, 400);
    let msg = v["error"].as_str().unwrap();
    assert!(
        msg.contains("invalid signature") && msg.contains("neg-risk"),
        "{msg}"
    );
    o.neg_risk = None;
    assert_eq!(t.post(&o).await.0, 200);

    // Position-ID market: must be domain "3" (ExchangeV3), domain "2" is rejected.
    let mut o = limit(&yes_token(3), Side::Buy, 400_000, 10_000_000, 3);
    o.version = Some(ExchangeVersion::V2);
    assert_eq!(t.post(&o).await.0, 400);
    o.version = None;
    assert_eq!(t.post(&o).await.0, 200);

    // Signed by someone else.
    let mut o = limit(&yes_token(0), Side::Buy, 400_000, 10_000_000, 4);
    o.sign_with = Some(Arc::new(Signer::from_hex(KEY_B).unwrap()));
    assert_eq!(t.post(&o).await.0, 400);

    // Duplicate: the same signed order twice.
    let o = limit(&yes_token(0), Side::Buy, 400_000, 10_000_000, 5);
    assert_eq!(t.post(&o).await.0, 200);
    let (s, v, _) = t.post(&o).await;
    assert_eq!(s, 400);
    assert!(v["error"].as_str().unwrap().contains("Duplicated"));
}

#[tokio::test]
async fn v1_bodies_get_order_version_mismatch() {
    let sim = start(1).await;
    let t = Trader::new(&sim, KEY_A).await;
    let (body, _) = t.order_body(&limit(&yes_token(0), Side::Buy, 400_000, 10_000_000, 1));
    let mut v: Value = serde_json::from_str(&body).unwrap();
    let o = v["order"].as_object_mut().unwrap();
    o.remove("timestamp");
    o.remove("metadata");
    o.remove("builder");
    o.insert("nonce".into(), "0".into());
    o.insert("feeRateBps".into(), "0".into());
    o.insert(
        "taker".into(),
        "0x0000000000000000000000000000000000000000".into(),
    );
    let (s, e, _) = t.l2("POST", "/order", Some(&v.to_string())).await;
    assert_eq!(
        (s, e),
        (400, serde_json::json!({"error": "order_version_mismatch"}))
    );
}

#[tokio::test]
async fn maker_signer_owner_consistency() {
    let sim = start(1).await;
    let t = Trader::new(&sim, KEY_A).await;
    let other = Signer::from_hex(KEY_B).unwrap().address();
    // EOA with a different maker.
    let mut o = limit(&yes_token(0), Side::Buy, 400_000, 10_000_000, 1);
    o.maker = Some(other);
    let (s, v, _) = t.post(&o).await;
    assert_eq!(s, 400);
    assert!(v["error"].as_str().unwrap().contains("EOA"));
    // Proxy / Safe: maker is the funder wallet derived from the key's EOA (CREATE2), signer
    // the EOA; any other funder is refused.
    use polyclob::sign::wallet::{derive_proxy_wallet, derive_safe_wallet};
    use polyclob::types::Chain;
    o.sig_type = SignatureType::PolyGnosisSafe;
    let (s, v, _) = t.post(&o).await;
    assert_eq!(s, 400);
    assert!(v["error"].as_str().unwrap().contains("Gnosis Safe"), "{v}");
    o.maker = Some(derive_safe_wallet(t.address(), Chain::Polygon));
    assert_eq!(t.post(&o).await.0, 200);
    let mut o = limit(&yes_token(0), Side::Buy, 400_000, 10_000_000, 2);
    o.sig_type = SignatureType::PolyProxy;
    o.maker = Some(other);
    assert_eq!(t.post(&o).await.0, 400);
    o.maker = derive_proxy_wallet(t.address(), Chain::Polygon);
    assert_eq!(t.post(&o).await.0, 200);
    // Owner must be the API key.
    let mut o = limit(&yes_token(0), Side::Buy, 400_000, 10_000_000, 3);
    o.owner = Some("someone-else".into());
    let (s, v, _) = t.post(&o).await;
    assert_eq!(s, 400);
    assert!(v["error"].as_str().unwrap().contains("owner"));
    // Malformed payloads.
    for bad in [
        "{}",
        "[]",
        "not json",
        r#"{"order":{"salt":"1"},"owner":"x"}"#,
    ] {
        let (s, v, _) = t.l2("POST", "/order", Some(bad)).await;
        assert_eq!(s, 400, "{bad}");
        assert!(v["error"].is_string());
    }
}

#[tokio::test]
async fn verification_can_be_switched_off() {
    let sim = polyclob_sim::Simulator::builder()
        .verify_signatures(false)
        .start()
        .await
        .unwrap();
    let t = Trader::new(&sim, KEY_A).await;
    let mut o = limit(&yes_token(0), Side::Buy, 400_000, 10_000_000, 1);
    o.sign_with = Some(Arc::new(Signer::from_hex(KEY_B).unwrap()));
    assert_eq!(t.post(&o).await.0, 200);
    // The API key is still required.
    let (s, _) = get(&sim, "/data/orders").await;
    assert_eq!(s, 401);
}
