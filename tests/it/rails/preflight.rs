//! Pre-flight checks: an account signs with the key its API credentials are asked for, and its
//! funder must be the wallet its signature type implies; a wrong wallet is refused before the
//! account exists, naming both addresses, and nothing is sent. Credentials that belong to
//! another key are caught by the exchange (and by the remote pre-flight).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::rails;

use polyclob::account::Account;
use polyclob::clob::{ClientBuilder, Credentials};
use polyclob::http::{Error, PreflightMismatch, Throttle};
use polyclob::order::{LimitOrder, OrderSigner};
use polyclob::sign::Signer;
use polyclob::sign::wallet::Wallet;
use polyclob::types::{Chain, Side};
use polyclob_sim::SimHandle;
use rails::*;

fn req() -> LimitOrder {
    LimitOrder::new(Side::Buy, "0.2".parse().unwrap(), "5".parse().unwrap())
}

fn key() -> Signer {
    Signer::from_hex(KEY_A).unwrap()
}

/// A's account with `wallet` and `creds`, on `host`, built without I/O.
fn account_on(
    host: &str,
    chain: Chain,
    wallet: Wallet,
    creds: Credentials,
) -> Result<Account, Error> {
    Account::builder(key())
        .wallet(wallet)
        .client(
            ClientBuilder::new()
                .host(host)
                .chain(chain)
                .throttle(Throttle::Off),
        )
        .credentials(creds)
        .build()
}

async fn account(sim: &SimHandle, wallet: Wallet) -> Account {
    let creds = client(sim, KEY_A, Throttle::Off)
        .await
        .credentials()
        .unwrap();
    account_on(&sim.http_url(), Chain::Polygon, wallet, creds).unwrap()
}

#[test]
fn funder_must_match_the_signature_type() {
    let build = |chain, w| {
        account_on(
            "http://127.0.0.1:9",
            chain,
            w,
            Credentials::new("k", "AAAA", "p"),
        )
    };
    let eoa = key().address();
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
        build(Chain::Polygon, w).unwrap();
    }
    // A Safe or proxy that is not the signer's: named, with the expected wallet.
    let safe = polyclob::sign::wallet::derive_safe_wallet(eoa, Chain::Polygon);
    let e = build(Chain::Polygon, Wallet::Safe(stranger)).unwrap_err();
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
    let e = build(Chain::Polygon, Wallet::Proxy(safe)).unwrap_err();
    assert!(
        e.is_preflight() && e.to_string().contains("proxy wallet"),
        "{e}"
    );
    // A deposit wallet the key does not own: its POLY_1271 signature would be refused.
    let e = build(Chain::Polygon, Wallet::DepositWallet(stranger)).unwrap_err();
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
    build(Chain::Amoy, Wallet::DepositWallet(stranger)).unwrap();
    // A deposit wallet (or proxy, Safe) that is the signer itself cannot even be prepared.
    assert!(OrderSigner::new(key(), Chain::Polygon, Wallet::DepositWallet(eoa)).is_err());
    assert!(
        build(Chain::Polygon, Wallet::DepositWallet(eoa))
            .unwrap_err()
            .is_argument()
    );
}

/// Credentials of another key: the remote pre-flight names the key, the exchange refuses the
/// orders, and nothing rests.
#[tokio::test]
async fn credentials_of_another_key_are_caught() {
    let sim = sim(None).await;
    account(&sim, Wallet::Eoa)
        .await
        .preflight_remote()
        .await
        .unwrap();
    let b = client(&sim, KEY_B, Throttle::Off).await;
    let a_with_b = account_on(
        &sim.http_url(),
        Chain::Polygon,
        Wallet::Eoa,
        b.credentials().unwrap(),
    )
    .unwrap();
    let e = a_with_b.preflight_remote().await.unwrap_err();
    assert!(e.is_preflight(), "{e:?}");
    assert_eq!(
        e.preflight_mismatch(),
        Some(PreflightMismatch::ApiKeySigner)
    );
    assert!(e.to_string().contains(&key().address().to_string()), "{e}");
    assert!(a_with_b.place_limit_order(YES, &req()).await.is_err());
    let (open, _) = b.all_orders(&Default::default()).await.unwrap();
    assert!(open.is_empty(), "{open:?}");
}

/// An account that must trade from its deposit wallet: the simulator refuses its EOA, proxy
/// and Safe orders in the exchange's words, the account answers with a typed predicate that
/// names the deposit wallets to use, and the key's deposit wallet then trades.
#[tokio::test]
async fn deposit_wallet_accounts_are_refused_other_makers_and_told_which_wallet() {
    let sim = sim(None).await;
    let eoa = key().address();
    sim.set_deposit_wallet_only(&eoa.to_string(), true);
    let [uups, beacon] = polyclob::sign::wallet::derive_deposit_wallets(eoa);
    for w in [
        Wallet::Eoa,
        Wallet::derived_safe(eoa, Chain::Polygon),
        Wallet::derived_proxy(eoa, Chain::Polygon).unwrap(),
    ] {
        // The local pre-flight passes: whether an account must use its deposit wallet is the
        // exchange's to say, and it says so on the first order.
        let a = account(&sim, w).await;
        let e = a.place_limit_order(YES, &req()).await.unwrap_err();
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
            .and_then(|s| s.downcast_ref::<polyclob::http::Error>())
            .unwrap();
        assert_eq!(source.status(), Some(400));
        assert!(source.is_maker_not_allowed());
        // A raw post of the same order gets the plain refusal, with the same predicate.
        let ctx = a
            .client()
            .market_context_with(YES, polyclob::types::TickSize::Hundredth, false)
            .unwrap();
        let signed = a.order_signer().limit_order(&ctx, &req()).unwrap();
        let e = a.post_order(&signed).await.unwrap_err();
        assert!(e.is_maker_not_allowed() && e.status() == Some(400), "{e}");
    }
    let eoa_account = account(&sim, Wallet::Eoa).await;
    let (open, _) = eoa_account.all_orders(&Default::default()).await.unwrap();
    assert!(open.is_empty());
    // From the deposit wallet (POLY_1271) the order rests.
    sim.fund(uups, 1_000_000_000);
    let dw = account(&sim, Wallet::DepositWallet(uups)).await;
    let placed = dw.place_limit_order(YES, &req()).await.unwrap();
    assert!(placed.success, "{placed:?}");
    // And the rule is per account: another account's EOA orders still go through.
    let b = Account::builder(Signer::from_hex(KEY_B).unwrap())
        .client(
            ClientBuilder::new()
                .host(sim.http_url())
                .throttle(Throttle::Off),
        )
        .credentials(
            client(&sim, KEY_B, Throttle::Off)
                .await
                .credentials()
                .unwrap(),
        )
        .build()
        .unwrap();
    b.place_limit_order(YES, &req()).await.unwrap();
    sim.set_deposit_wallet_only(&eoa.to_string(), false);
    eoa_account.place_limit_order(YES, &req()).await.unwrap();
}
