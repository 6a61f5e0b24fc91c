//! `polyclob::onchain::Rpc` against a scripted loopback JSON-RPC node: batching and its
//! fallback, answers that are not JSON-RPC, and the node error texts the typed errors read.
#![cfg(feature = "onchain")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob;

use alloy_primitives::{Address, B256, U256};
use mock_clob::{MockClob, Reply};
use polyclob::onchain::{Call, Rpc, erc20};

fn word(n: u64) -> String {
    format!("0x{:064x}", n)
}

#[tokio::test]
async fn batches_fall_back_to_single_requests_when_refused() {
    let node = MockClob::start().await;
    node.on(
        "POST",
        "/rpc",
        vec![
            // The batch is answered with one error object: this node does not batch.
            Reply::json(r#"{"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"batch requests are disabled"}}"#),
            Reply::json(format!(r#"{{"jsonrpc":"2.0","id":3,"result":"{}"}}"#, word(5))),
            Reply::json(format!(r#"{{"jsonrpc":"2.0","id":4,"result":"{}"}}"#, word(6))),
            Reply::json(format!(r#"{{"jsonrpc":"2.0","id":5,"result":"{}"}}"#, word(7))),
            Reply::json(format!(r#"{{"jsonrpc":"2.0","id":6,"result":"{}"}}"#, word(8))),
        ],
    );
    let rpc = Rpc::new(format!("{}/rpc", node.url())).unwrap();
    let token = Address::repeat_byte(1);
    let calls = [
        erc20::balance_of(token, Address::repeat_byte(2)),
        erc20::balance_of(token, Address::repeat_byte(3)),
    ];
    let out = rpc.call_many(&calls).await.unwrap();
    let vals: Vec<U256> = out
        .into_iter()
        .map(|r| U256::from_be_slice(&r.unwrap()))
        .collect();
    assert_eq!(vals, vec![U256::from(5u8), U256::from(6u8)]);
    // The next batch goes one by one at once: no second refused array.
    let out = rpc.call_many(&calls).await.unwrap();
    assert_eq!(
        U256::from_be_slice(out[1].as_ref().unwrap()),
        U256::from(8u8)
    );
    let bodies: Vec<String> = node
        .requests_to("/rpc")
        .iter()
        .map(|r| String::from_utf8_lossy(&r.body).into_owned())
        .collect();
    assert_eq!(bodies.len(), 5);
    assert!(bodies[0].starts_with('['));
    assert!(
        bodies[1..]
            .iter()
            .all(|b| b.starts_with('{') && b.contains("\"eth_call\""))
    );
}

#[tokio::test]
async fn batch_answers_are_matched_by_id_not_position() {
    let node = MockClob::start().await;
    // Answers out of order, one an error.
    node.on(
        "POST",
        "/rpc",
        vec![Reply::json(format!(
            r#"[{{"jsonrpc":"2.0","id":2,"error":{{"code":3,"message":"execution reverted: nope","data":"0x08c379a0000000000000000000000000000000000000000000000000000000000000002000000000000000000000000000000000000000000000000000000000000000046e6f706500000000000000000000000000000000000000000000000000000000"}}}},{{"jsonrpc":"2.0","id":1,"result":"{}"}}]"#,
            word(9)
        ))],
    );
    let rpc = Rpc::new(format!("{}/rpc", node.url())).unwrap();
    let c = Call::new(Address::repeat_byte(1), vec![1, 2, 3, 4]);
    let out = rpc.call_many(&[c.clone(), c]).await.unwrap();
    assert_eq!(
        U256::from_be_slice(out[0].as_ref().unwrap()),
        U256::from(9u8)
    );
    let e = out[1].as_ref().unwrap_err();
    assert!(e.is_revert());
    assert_eq!(e.revert_reason(), Some("nope"));
}

#[tokio::test]
async fn non_json_rpc_answers_are_typed_errors() {
    let node = MockClob::start().await;
    node.on(
        "POST",
        "/rpc",
        vec![
            Reply::status(502, "<html>bad gateway</html>"),
            Reply::json("not json"),
            Reply::json(r#"{"jsonrpc":"2.0","id":1}"#),
            Reply::json(r#"{"jsonrpc":"2.0","id":1,"result":"0xnothex"}"#),
            Reply::json(r#"{"jsonrpc":"2.0","id":1,"error":{"code":-32000,"message":"replacement transaction underpriced"}}"#),
            Reply::json(r#"{"jsonrpc":"2.0","id":1,"result":{"status":"0x1"}}"#),
        ],
    );
    let rpc = Rpc::new(format!("{}/rpc", node.url())).unwrap();
    let e = rpc.chain_id().await.unwrap_err();
    assert!(e.to_string().contains("HTTP 502"), "{e}");
    assert!(
        rpc.chain_id()
            .await
            .unwrap_err()
            .to_string()
            .contains("not JSON")
    );
    assert!(
        rpc.chain_id()
            .await
            .unwrap_err()
            .to_string()
            .contains("neither result nor error")
    );
    assert!(
        rpc.chain_id()
            .await
            .unwrap_err()
            .to_string()
            .contains("bad quantity")
    );
    let e = rpc.send_raw(&[2, 0xc0]).await.unwrap_err();
    assert!(e.is_rpc() && e.rpc_code() == Some(-32000), "{e}");
    // A receipt missing its fields.
    let e = rpc.receipt(B256::ZERO).await.unwrap_err();
    assert!(e.to_string().contains("receipt field missing"), "{e}");
}

#[tokio::test]
async fn unreachable_node_is_an_error_not_a_hang() {
    // A port nothing listens on (bound, then closed).
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/rpc", l.local_addr().unwrap());
    drop(l);
    let rpc = Rpc::new(url).unwrap();
    let e = rpc.chain_id().await.unwrap_err();
    assert!(!e.is_revert() && !e.is_rpc());
    assert!(std::error::Error::source(&e).is_some());
}
