//! Errors read once: for every error type with a cause, the chain a reporter prints by walking
//! `source()` (what anyhow's `{:#}` shows) names each layer's words once, still says why, and
//! carries no secret.
//!
//! The rule these tests hold the crate to (Rust API guidelines): a wrapper's `Display` states
//! its own context only and `source()` returns the cause; a transparent wrapper (one that adds
//! no words) shows the cause's `Display` and returns the cause's own `source()`. Leaf errors
//! return no source.

use std::error::Error as StdError;

use crate::gamma::ContextError;
use crate::http::Error as ClobError;
use crate::order::OrderError;
use crate::sign::SignError;

/// Each layer's own `Display`, outermost first.
/// A reqwest client on the crate's TLS configuration (reqwest is built without a provider of
/// its own, so `reqwest::Client::new()` would panic).
fn plain_reqwest() -> reqwest::Client {
    let tls = crate::http::tls::client_config(&[]).expect("TLS configuration");
    reqwest::Client::builder()
        .tls_backend_preconfigured(tls)
        .build()
        .expect("reqwest client")
}

fn layers(e: &(dyn StdError + 'static)) -> Vec<String> {
    let mut out = vec![e.to_string()];
    let mut next = e.source();
    while let Some(cause) = next {
        out.push(cause.to_string());
        next = cause.source();
    }
    out
}

/// Asserts that `e`'s chain repeats no layer and contains each of `why` exactly once; returns
/// the `{:#}` text.
#[track_caller]
fn reads_once<E: StdError + Send + Sync + 'static>(e: E, why: &[&str]) -> String {
    let layers = layers(&e);
    let lower: Vec<String> = layers.iter().map(|l| l.to_lowercase()).collect();
    for (i, outer) in lower.iter().enumerate() {
        assert!(!outer.is_empty(), "empty layer {i} in {layers:?}");
        for inner in &lower[i + 1..] {
            assert!(
                !outer.contains(inner.as_str()),
                "layer {outer:?} repeats its cause {inner:?}: {layers:?}"
            );
        }
    }
    let alternate = format!("{:#}", anyhow::Error::new(e));
    assert_eq!(
        alternate,
        layers.join(": "),
        "anyhow's {{:#}} walks the same chain"
    );
    let segments: Vec<String> = alternate.split(": ").map(str::to_lowercase).collect();
    for (i, s) in segments.iter().enumerate() {
        assert!(
            !segments[i + 1..].contains(s),
            "segment {s:?} repeats in {alternate:?}"
        );
    }
    let text = alternate.to_lowercase();
    for w in why {
        let n = text.matches(&w.to_lowercase()).count();
        assert_eq!(n, 1, "{w:?} appears {n} times in {alternate:?}");
    }
    alternate
}

/// A leaf error: no cause behind it.
#[track_caller]
fn leaf<E: StdError + Send + Sync + 'static>(e: E) {
    assert!(e.source().is_none(), "{e} has a source");
    assert!(!e.to_string().is_empty());
}

fn secret_error() -> SignError {
    crate::sign::hmac::HmacKey::from_base64url("").expect_err("an empty secret is refused")
}

#[test]
fn sign_and_order_errors() {
    for e in [
        SignError::InvalidPrivateKey("non-hex digit"),
        secret_error(),
        SignError::InvalidSignature("v is not 27 or 28"),
        SignError::RecoveryFailed,
        SignError::Backend("refused"),
    ] {
        leaf(e);
    }
    reads_once(
        OrderError::Sign(secret_error()),
        &["signing failed", "invalid API secret"],
    );
    leaf(OrderError::SaltTooLarge);
    leaf(OrderError::BatchSize { len: 16 });
    // Three layers: market context -> order -> signature.
    let text = reads_once(
        ContextError::Order(OrderError::Sign(SignError::InvalidPrivateKey(
            "non-hex digit",
        ))),
        &[
            "order parameters refused",
            "signing failed",
            "non-hex digit",
        ],
    );
    assert_eq!(
        text,
        "order parameters refused: signing failed: invalid private key: non-hex digit"
    );
    leaf(ContextError::NoTickSize);
    leaf(
        "x".parse::<crate::types::TokenId>()
            .expect_err("not a number"),
    );
}

#[test]
fn client_errors() {
    // A signing failure used to print its cause twice.
    let text = reads_once(
        ClobError::sign(secret_error()),
        &["signing failed", "invalid API secret"],
    );
    assert_eq!(
        text,
        "signing failed: invalid API secret: empty secret at byte 0"
    );
    // An order refused by validation keeps its reason, once.
    reads_once(
        ClobError::order(OrderError::BatchSize { len: 16 }),
        &["invalid argument", "got 16"],
    );
    reads_once(
        ClobError::order(OrderError::Sign(SignError::RecoveryFailed)),
        &["invalid argument", "signing failed", "recovery failed"],
    );
    // reqwest's builder error ("builder error") and its URL cause.
    let bad_url = plain_reqwest()
        .get("no-scheme")
        .build()
        .expect_err("a relative URL");
    reads_once(
        ClobError::from_reqwest(bad_url),
        &["client setup failed", "builder error"],
    );
    // A body that does not decode: the path, then serde's reason.
    let e = crate::http::decode_page::<serde_json::Value>(b"{\"data\":").expect_err("truncated");
    reads_once(e, &["unexpected response body"]);
    // Server and rail errors are leaves with their message.
    let e = ClobError::from_status(400, br#"{"error":"invalid order payload"}"#, None);
    assert!(e.source().is_none());
    reads_once(e, &["HTTP 400", "invalid order payload"]);
}

#[tokio::test]
async fn connect_error_reads_once() {
    // A loopback port that was just released: the connection is refused, no network used.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let e = plain_reqwest()
        .get(format!("http://127.0.0.1:{port}/"))
        .send()
        .await
        .expect_err("nothing listens");
    let e = ClobError::from_reqwest(e);
    assert!(e.is_connect(), "{e:?}");
    reads_once(e, &["connection failed"]);
}

#[cfg(feature = "onchain")]
#[test]
fn onchain_errors() {
    use crate::onchain::{Error, SignedTx};

    reads_once(
        Error::from(secret_error()),
        &["signing failed", "invalid API secret"],
    );
    // Transparent wrappers: the cause's words once, and no source of their own.
    let abi = crate::onchain::abi::Reader::new(&[0; 4])
        .word(0)
        .expect_err("too short");
    reads_once(Error::from(abi), &["ABI decoding"]);
    let tx = SignedTx::decode(&[0x02, 0xc0]).expect_err("not a transaction");
    reads_once(Error::from(tx), &["raw transaction"]);
    let bad_url = plain_reqwest()
        .get("no-scheme")
        .build()
        .expect_err("a relative URL");
    reads_once(
        Error::http(ClobError::from_reqwest(bad_url)),
        &["JSON-RPC request failed", "client setup failed"],
    );
}

#[test]
fn compat_errors_say_why_without_the_key() {
    // 0.1.1 panicked on a bad key; here every call that needs it says why.
    for (key, why) in [
        ("0x12345678", "expected 64 hex digits"),
        (&*format!("0x{}zz", "ab".repeat(31)), "non-hex digit"),
        (&*"0".repeat(64), "not a valid secp256k1 scalar"),
        (&*"f".repeat(64), "not a valid secp256k1 scalar"),
    ] {
        let c = crate::ClobClient::with_l1_headers("http://127.0.0.1:9", key, 137);
        let e = c.need_signer().expect_err("a bad key");
        let text = format!("{e:#}");
        assert!(text.starts_with("Invalid private key: "), "{text}");
        assert!(text.contains(why), "{text}");
        let hex = key.trim_start_matches("0x");
        assert!(!text.contains(hex), "the key leaks into {text}");
        assert!(!format!("{e:?}").contains(hex), "the key leaks into {e:?}");
        assert_eq!(
            text.to_lowercase().matches("invalid private key").count(),
            1,
            "{text}"
        );
    }
}

#[test]
fn no_secret_in_error_text() {
    // Secrets that fail to parse are reported by position, not echoed.
    for secret in ["sEcReT-with spaces", "c2VjcmV0!!!!", "%%%%%%%%"] {
        let e = crate::sign::hmac::HmacKey::from_base64url(secret).expect_err("not base64");
        let wrapped = ClobError::sign(e);
        for text in [
            format!("{:#}", anyhow::Error::new(wrapped)),
            format!("{e:?}"),
        ] {
            assert!(!text.contains(secret), "the secret leaks into {text}");
        }
    }
}

#[tokio::test]
async fn compat_request_on_a_bad_host_reads_once() {
    // `ClobClient::default()` and a host without a scheme fail before any I/O.
    for c in [
        crate::ClobClient::default(),
        crate::ClobClient::new("no-scheme"),
    ] {
        let e = c.get_server_time().await.expect_err("no usable host");
        let text = format!("{e:#}");
        let segments: Vec<String> = text.split(": ").map(str::to_lowercase).collect();
        for (i, s) in segments.iter().enumerate() {
            assert!(!segments[i + 1..].contains(s), "{s:?} repeats in {text:?}");
        }
        assert!(text.contains("builder error"), "{text}");
    }
}
