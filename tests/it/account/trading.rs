//! One account object: the key, wallet, chain and credentials given once, against the
//! simulator.
#![allow(clippy::unwrap_used)]

use polyclob::account::Account;
use polyclob::clob::{ClientBuilder, Credentials};
use polyclob::order::LimitOrder;
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, Side};
use polyclob_sim::Simulator;

const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

fn signer() -> Signer {
    Signer::from_hex(KEY).unwrap()
}

#[tokio::test]
async fn connect_creates_then_derives_the_same_key_and_trades() {
    let sim = Simulator::builder().seed(5).start().await.unwrap();
    // The simulator, like the exchange, refuses orders an account cannot pay for.
    crate::support::sim::fund_all(&sim, signer().address());
    let token = sim.markets()[0].tokens()[0].token_id().to_owned();
    let connect = || {
        Account::builder(signer())
            .client(ClientBuilder::new().host(sim.http_url()))
            .connect()
    };
    let first = connect().await.unwrap();
    let again = connect().await.unwrap();
    assert_eq!(first.credentials().api_key(), again.credentials().api_key());
    assert_eq!(first.maker(), signer().address());
    assert_eq!(first.order_signer().chain(), first.client().chain());

    let bid =
        LimitOrder::new(Side::Buy, "0.10".parse().unwrap(), "10".parse().unwrap()).post_only(true);
    let placed = first.place_limit_order(&token, &bid).await.unwrap();
    assert!(placed.success, "{placed:?}");
    // The other handle's L2 calls work too: same key, same credentials.
    let open = again.order(&placed.order_id).await.unwrap();
    assert_eq!(open.id, placed.order_id);
    let canceled = first.cancel(&placed.order_id).await.unwrap();
    assert_eq!(canceled.canceled, vec![placed.order_id.clone()]);
}

#[tokio::test]
async fn build_without_credentials_is_an_auth_error_and_with_them_needs_no_io() {
    // A host nothing listens on: `build` must not touch it.
    let client = || ClientBuilder::new().host("http://127.0.0.1:9");
    let e = Account::builder(signer())
        .client(client())
        .build()
        .unwrap_err();
    assert!(e.is_auth(), "{e}");
    let account = Account::builder(signer())
        .client(client())
        .credentials(Credentials::new("k", "AAAA", "p"))
        .build()
        .unwrap();
    assert_eq!(account.credentials().api_key(), "k");
    assert_eq!(account.client().address(), Some(signer().address()));
}

#[tokio::test]
async fn a_wallet_that_is_not_the_signers_is_refused_before_any_request() {
    let stranger = "0x000000000000000000000000000000000000dEaD"
        .parse()
        .unwrap();
    let e = Account::builder(signer())
        .wallet(Wallet::Safe(stranger))
        .client(ClientBuilder::new().host("http://127.0.0.1:9"))
        .connect()
        .await
        .unwrap_err();
    assert!(e.is_preflight(), "{e}");
    assert!(e.to_string().contains("maker address not allowed"), "{e}");
    // The derived Safe is accepted, and the chain is the client builder's.
    let safe = Wallet::derived_safe(signer().address(), Chain::Amoy);
    let account = Account::builder(signer())
        .wallet(safe)
        .client(
            ClientBuilder::new()
                .host("http://127.0.0.1:9")
                .chain(Chain::Amoy),
        )
        .credentials(Credentials::new("k", "AAAA", "p"))
        .build()
        .unwrap();
    assert_eq!(account.order_signer().chain(), Chain::Amoy);
    assert_ne!(account.maker(), signer().address());
}
