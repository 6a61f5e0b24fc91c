//! Known-answer check: order bodies and L1/L2 headers produced by Polymarket's own SDKs
//! (`../shared/fixtures/vectors/vectors.json`) are accepted by the simulator byte for byte,
//! and the order id it returns is the vector's EIP-712 digest. Skips without the fixtures.
#![allow(clippy::unwrap_used)]

use crate::support::fixtures;

use polyclob::clob::Credentials;
use polyclob::fixed::{Price, Size};
use polyclob::types::{Chain, TickSize};
use polyclob_sim::{MarketSpec, Simulator};
use serde_json::Value;

fn vectors() -> Option<Value> {
    let bytes = fixtures::read_shared("vectors/vectors.json")?;
    Some(serde_json::from_slice(&bytes).unwrap())
}

#[tokio::test]
async fn sdk_order_bodies_are_accepted_with_their_exact_headers() {
    let Some(v) = vectors() else { return };
    let creds = &v["l2_creds"];
    let mut checked = 0;
    let mut accepted = Vec::new();
    for o in v["v2_orders"]
        .as_array()
        .unwrap()
        .iter()
        .chain(v["v3_orders"].as_array().unwrap())
    {
        let id = o["id"].as_str().unwrap();
        let i = &o["inputs"];
        let token = i
            .get("token_id")
            .or_else(|| i.get("position_id"))
            .and_then(Value::as_str)
            .unwrap();
        let chain = Chain::from_id(i["chain_id"].as_u64().unwrap()).unwrap();
        let tick = TickSize::parse(i["tick_size"].as_str().unwrap().as_bytes()).unwrap();
        let market = MarketSpec::binary(
            "0x00000000000000000000000000000000000000000000000000000000000000a1",
            id,
            [token, "1"],
        )
        .tick_size(tick)
        .neg_risk(i["neg_risk"].as_bool().unwrap_or(false))
        .position_ids(o["protocol"] == "v3")
        .min_order_size(Size::ZERO)
        .mid(Price::new(500_000).unwrap())
        .seed_levels(30);
        let sim = Simulator::builder()
            .chain(chain)
            .markets(vec![market])
            .start()
            .await
            .unwrap();
        // The exchange refuses makers without the money or tokens an order needs: fund the
        // vector's maker for both sides.
        let body: Value = serde_json::from_str(o["post_body"].as_str().unwrap()).unwrap();
        let maker = body["order"]["maker"].as_str().unwrap().parse().unwrap();
        sim.fund(maker, crate::support::sim::FUNDS);
        assert!(sim.fund_tokens(maker, token, crate::support::sim::SHARES));
        let headers = &o["l2_headers"];
        sim.register_api_credentials(
            headers["POLY_ADDRESS"].as_str().unwrap(),
            0,
            &Credentials::new(
                creds["apiKey"].as_str().unwrap(),
                creds["secret"].as_str().unwrap(),
                creds["passphrase"].as_str().unwrap(),
            ),
        );
        let mut req = crate::support::sim::http_client().post(format!("{}/order", sim.http_url()));
        for (k, val) in headers.as_object().unwrap() {
            req = req.header(k.as_str(), val.as_str().unwrap());
        }
        let resp = req
            .body(o["post_body"].as_str().unwrap().to_owned())
            .send()
            .await
            .unwrap();
        let status = resp.status().as_u16();
        let body: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
        let digest = o["eip712"]["digest"].as_str().unwrap();
        if status == 200 {
            assert_eq!(body["orderID"], digest, "{id}");
            accepted.push(id.to_owned());
        } else {
            // Past the signature check, an order may still be refused on market grounds
            // (a GTD already expired, a market order without enough liquidity).
            let err = body["error"].as_str().unwrap();
            assert!(
                err.contains("Expiration") || err.contains("FOK") || err.contains("FAK"),
                "{id}: {status} {err}"
            );
            assert!(
                err.contains(digest),
                "{id}: the refusal names the order hash: {err}"
            );
        }
        // Tampering with one signed field must break the signature.
        let tampered = o["post_body"]
            .as_str()
            .unwrap()
            .replacen("\"salt\":", "\"salt\":1", 1);
        let mut req = crate::support::sim::http_client().post(format!("{}/order", sim.http_url()));
        for (k, val) in headers.as_object().unwrap() {
            req = req.header(k.as_str(), val.as_str().unwrap());
        }
        // The HMAC no longer matches either: the L2 check fires first.
        assert_eq!(
            req.body(tampered).send().await.unwrap().status(),
            401,
            "{id}"
        );
        checked += 1;
    }
    assert_eq!(checked, 15);
    // Every limit order (incl. proxy, Safe, POLY_1271, neg-risk, V3, Amoy) goes through.
    for must in [
        "v2_01",
        "v2_02",
        "v2_04",
        "v2_06_tick_00025",
        "v2_10_proxy_builder_metadata",
        "v2_11_safe",
        "v2_12_poly1271_deposit_wallet",
        "v3_01_position_id",
        "v3_02_position_id_amoy_sell",
    ] {
        assert!(
            accepted.iter().any(|a| a == must),
            "{must} not accepted; accepted: {accepted:?}"
        );
    }
}

#[tokio::test]
async fn sdk_l1_headers_create_keys() {
    let Some(v) = vectors() else { return };
    for l1 in v["l1_clob_auth"].as_array().unwrap() {
        let chain = Chain::from_id(l1["chain_id"].as_u64().unwrap()).unwrap();
        let sim = Simulator::builder().chain(chain).start().await.unwrap();
        let mut req =
            crate::support::sim::http_client().post(format!("{}/auth/api-key", sim.http_url()));
        for (k, val) in l1["headers"].as_object().unwrap() {
            req = req.header(k.as_str(), val.as_str().unwrap());
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 200, "{}", l1["id"]);
        // The same headers against the other chain's domain are refused.
        let other = if chain == Chain::Polygon {
            Chain::Amoy
        } else {
            Chain::Polygon
        };
        let sim = Simulator::builder().chain(other).start().await.unwrap();
        let mut req =
            crate::support::sim::http_client().post(format!("{}/auth/api-key", sim.http_url()));
        for (k, val) in l1["headers"].as_object().unwrap() {
            req = req.header(k.as_str(), val.as_str().unwrap());
        }
        assert_eq!(req.send().await.unwrap().status(), 401, "{}", l1["id"]);
    }
}
