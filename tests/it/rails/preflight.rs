//! Pre-flight checks: the order's signer must be the API key's address, and the funder the
//! wallet its signature type implies; mismatches are refused before signing, naming both
//! addresses, and nothing is sent.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::rails;

use polyclob::clob::{PreflightMismatch, Throttle};
use polyclob::order::{LimitOrder, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, Side};
use rails::*;

fn req() -> LimitOrder {
    LimitOrder::new(Side::Buy, "0.2".parse().unwrap(), "5".parse().unwrap())
}

#[tokio::test]
async fn signer_must_be_the_api_key_address() {
    let sim = sim(None).await;
    let c = client(&sim, KEY_A, Throttle::Off).await;
    let b = order_signer(KEY_B);
    let e = c.place_limit_order(&b, YES, &req()).await.unwrap_err();
    assert!(e.is_preflight() && e.is_refused_locally(), "{e:?}");
    assert_eq!(
        e.preflight_mismatch(),
        Some(PreflightMismatch::ApiKeySigner)
    );
    let msg = e.to_string();
    let a_addr = c.address().unwrap().to_string();
    let b_addr = b.signer().address().to_string();
    assert!(
        msg.contains("signer has to be the API KEY address"),
        "{msg}"
    );
    assert!(msg.contains(&a_addr) && msg.contains(&b_addr), "{msg}");
    assert_eq!(sim.rail_stats().admitted, 0);
    // The right signer goes through.
    let a = order_signer(KEY_A);
    c.place_limit_order(&a, YES, &req()).await.unwrap();
}

#[test]
fn funder_must_match_the_signature_type() {
    let c = polyclob::clob::Client::builder()
        .signer(Signer::from_hex(KEY_A).unwrap())
        .build()
        .unwrap();
    let eoa = c.address().unwrap();
    let key = || Signer::from_hex(KEY_A).unwrap();
    let stranger: alloy_primitives::Address = "0x2222222222222222222222222222222222222222"
        .parse()
        .unwrap();
    // Right wallets pass: the key's own, including either deposit wallet the factory derives.
    let [uups, beacon] = polyclob::sign::wallet::derive_deposit_wallets(eoa);
    for w in [
        Wallet::Eoa,
        Wallet::derived_safe(eoa, Chain::Polygon),
        Wallet::derived_proxy(eoa, Chain::Polygon).unwrap(),
        Wallet::DepositWallet(uups),
        Wallet::DepositWallet(beacon),
    ] {
        c.preflight(&OrderSigner::new(key(), Chain::Polygon, w).unwrap())
            .unwrap();
    }
    // A Safe or proxy that is not the signer's: named, with the expected wallet.
    let safe = polyclob::sign::wallet::derive_safe_wallet(eoa, Chain::Polygon);
    let e = c
        .preflight(&OrderSigner::new(key(), Chain::Polygon, Wallet::Safe(stranger)).unwrap())
        .unwrap_err();
    let msg = e.to_string();
    assert!(
        e.is_preflight() && msg.contains("maker address not allowed"),
        "{msg}"
    );
    assert_eq!(
        e.preflight_mismatch(),
        Some(PreflightMismatch::MakerNotAllowed)
    );
    assert!(
        msg.contains(&stranger.to_string()) && msg.contains(&safe.to_string()),
        "{msg}"
    );
    let e = c
        .preflight(&OrderSigner::new(key(), Chain::Polygon, Wallet::Proxy(safe)).unwrap())
        .unwrap_err();
    assert!(
        e.is_preflight() && e.to_string().contains("proxy wallet"),
        "{e}"
    );
    // A deposit wallet the key does not own: its POLY_1271 signature would be refused.
    let e = c
        .preflight(
            &OrderSigner::new(key(), Chain::Polygon, Wallet::DepositWallet(stranger)).unwrap(),
        )
        .unwrap_err();
    assert_eq!(
        e.preflight_mismatch(),
        Some(PreflightMismatch::NotWalletOwner)
    );
    let msg = e.to_string();
    assert!(msg.contains("signer mismatch"), "{msg}");
    assert!(
        msg.contains(&stranger.to_string()) && msg.contains(&uups.to_string()),
        "{msg}"
    );
    // The factory is Polygon's: elsewhere ownership is not derived, the wallet passes.
    let amoy = polyclob::clob::Client::builder()
        .chain(Chain::Amoy)
        .signer(key())
        .build()
        .unwrap();
    amoy.preflight(&OrderSigner::new(key(), Chain::Amoy, Wallet::DepositWallet(stranger)).unwrap())
        .unwrap();
    // A deposit wallet (or proxy, Safe) that is the signer itself cannot even be prepared.
    assert!(OrderSigner::new(key(), Chain::Polygon, Wallet::DepositWallet(eoa)).is_err());
    // The chain must be the client's.
    let e = c
        .preflight(&OrderSigner::new(key(), Chain::Amoy, Wallet::Eoa).unwrap())
        .unwrap_err();
    assert!(e.is_preflight() && e.to_string().contains("chain"), "{e}");
    assert_eq!(e.preflight_mismatch(), Some(PreflightMismatch::Chain));
}

#[tokio::test]
async fn remote_preflight_asks_the_exchange_about_the_key() {
    let sim = sim(None).await;
    let c = client(&sim, KEY_A, Throttle::Off).await;
    let a = order_signer(KEY_A);
    c.preflight_remote(&a).await.unwrap();
    // B's credentials installed on A's client: the exchange refuses them for A.
    let b = client(&sim, KEY_B, Throttle::Off).await;
    c.set_credentials(b.credentials().unwrap());
    let e = c.preflight_remote(&a).await.unwrap_err();
    assert!(e.is_preflight(), "{e:?}");
    assert!(
        e.to_string().contains(&a.signer().address().to_string()),
        "{e}"
    );
    // And without credentials it is an auth error, not a request.
    let fresh = polyclob::clob::Client::builder()
        .host(sim.http_url())
        .signer(Signer::from_hex(KEY_A).unwrap())
        .build()
        .unwrap();
    assert!(fresh.preflight_remote(&a).await.unwrap_err().is_auth());
}

/// An account that must trade from its deposit wallet: the simulator refuses its EOA, proxy
/// and Safe orders in the exchange's words, the client answers with a typed predicate that
/// names the deposit wallets to use, and the key's deposit wallet then trades.
#[tokio::test]
async fn deposit_wallet_accounts_are_refused_other_makers_and_told_which_wallet() {
    let sim = sim(None).await;
    let c = client(&sim, KEY_A, Throttle::Off).await;
    let eoa = c.address().unwrap();
    sim.set_deposit_wallet_only(&eoa.to_string(), true);
    let [uups, beacon] = polyclob::sign::wallet::derive_deposit_wallets(eoa);
    let key = || Signer::from_hex(KEY_A).unwrap();
    for w in [
        Wallet::Eoa,
        Wallet::derived_safe(eoa, Chain::Polygon),
        Wallet::derived_proxy(eoa, Chain::Polygon).unwrap(),
    ] {
        let orders = OrderSigner::new(key(), Chain::Polygon, w).unwrap();
        // The local pre-flight passes: whether an account must use its deposit wallet is the
        // exchange's to say, and it says so on the first order.
        c.preflight(&orders).unwrap();
        let e = c.place_limit_order(&orders, YES, &req()).await.unwrap_err();
        assert_eq!(
            e.preflight_mismatch(),
            Some(PreflightMismatch::DepositWalletRequired),
            "{w:?}: {e}"
        );
        assert!(e.is_maker_not_allowed(), "{e}");
        let msg = e.to_string();
        assert!(
            msg.contains("please use the deposit wallet flow")
                && msg.contains(&uups.to_string())
                && msg.contains(&beacon.to_string()),
            "{msg}"
        );
        // The exchange's own answer is kept as the source: a 400 in its words.
        let source = std::error::Error::source(&e)
            .and_then(|s| s.downcast_ref::<polyclob::clob::Error>())
            .unwrap();
        assert_eq!(source.status(), Some(400));
        assert!(source.is_maker_not_allowed());
        // A raw post of the same order gets the plain refusal, with the same predicate.
        let ctx = c
            .market_context_with(YES, polyclob::types::TickSize::Hundredth, false)
            .unwrap();
        let signed = orders.limit_order(&ctx, &req()).unwrap();
        let e = c.post_order(&signed).await.unwrap_err();
        assert!(e.is_maker_not_allowed() && e.status() == Some(400), "{e}");
    }
    assert!(
        c.orders(&Default::default(), None)
            .await
            .unwrap()
            .data
            .is_empty()
    );
    // From the deposit wallet (POLY_1271) the order rests.
    sim.fund(uups, 1_000_000_000);
    let dw = OrderSigner::new(key(), Chain::Polygon, Wallet::DepositWallet(uups)).unwrap();
    let placed = c.place_limit_order(&dw, YES, &req()).await.unwrap();
    assert!(placed.success, "{placed:?}");
    // And the rule is per account: another account's EOA orders still go through.
    let b = client(&sim, KEY_B, Throttle::Off).await;
    b.place_limit_order(&order_signer(KEY_B), YES, &req())
        .await
        .unwrap();
    sim.set_deposit_wallet_only(&eoa.to_string(), false);
    c.place_limit_order(&order_signer(KEY_A), YES, &req())
        .await
        .unwrap();
}
