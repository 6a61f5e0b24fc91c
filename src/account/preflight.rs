//! Pre-flight checks for the most reported order failures, "maker address not allowed"
//! (with or without "please use the deposit wallet flow"), "signer has to be the API KEY
//! address" and a deposit wallet's "signer mismatch". An account signs its orders with the key
//! its client authenticates with, on the client's chain, so those two agree by construction;
//! what is checked is the funder (maker): it must be the wallet the signature type implies
//! (EOA = the signer; proxy and Safe = the wallets derived from the signer; POLY_1271 = a
//! deposit wallet the signer owns, on Polygon one of the two the factory derives for it; never
//! the signer itself: that one [`OrderSigner::new`] already refuses, as it does a zero funder).
//! Each refusal says which with [`Error::preflight_mismatch`].
//!
//! [`AccountBuilder`](super::AccountBuilder) runs the local checks (no I/O) before an account
//! exists; [`Account::preflight_remote`](super::Account::preflight_remote) also asks the
//! exchange whether the API key belongs to the signer.

use alloy_primitives::Address;

use crate::clob::Client;
use crate::http::{Error, PreflightMismatch, Rail};
use crate::order::OrderSigner;
use crate::sign::wallet::{
    Wallet, derive_deposit_wallets, derive_proxy_wallet, derive_safe_wallet,
};
use crate::types::Chain;

fn mismatch(what: PreflightMismatch, msg: String) -> Error {
    Error::refused(Rail::Preflight(what), msg, None)
}

/// The local checks of an order signer's funder against its key.
pub(crate) fn check(order_signer: &OrderSigner) -> Result<(), Error> {
    let eoa = order_signer.signer().address();
    let expected: Option<(Address, &str)> = match order_signer.wallet() {
        Wallet::Proxy(_) => derive_proxy_wallet(eoa, order_signer.chain()).map(|a| (a, "proxy")),
        Wallet::Safe(_) => Some((derive_safe_wallet(eoa, order_signer.chain()), "Safe")),
        _ => None,
    };
    let maker = order_signer.maker();
    match (order_signer.wallet(), expected) {
        (Wallet::Eoa, _) if maker != eoa => Err(mismatch(
            PreflightMismatch::MakerNotAllowed,
            format!(
                "maker address not allowed: an EOA order's maker must be the signer {eoa}, not \
                 {maker}"
            ),
        )),
        (Wallet::Proxy(_) | Wallet::Safe(_), Some((want, kind))) if maker != want => Err(mismatch(
            PreflightMismatch::MakerNotAllowed,
            format!(
                "maker address not allowed: the funder {maker} is not the {kind} wallet of the \
                 signer {eoa}, which is {want}"
            ),
        )),
        // The factory is Polygon's; elsewhere ownership cannot be derived here.
        (Wallet::DepositWallet(wallet), _)
            if order_signer.chain() == Chain::Polygon
                && !derive_deposit_wallets(eoa).contains(&wallet) =>
        {
            let [uups, beacon] = derive_deposit_wallets(eoa);
            Err(mismatch(
                PreflightMismatch::NotWalletOwner,
                format!(
                    "signer mismatch: the key {eoa} does not own the deposit wallet {wallet} (its \
                     deposit wallet is {uups} or {beacon}), so the wallet would refuse its \
                     POLY_1271 signature"
                ),
            ))
        }
        _ => Ok(()),
    }
}

/// Explains the exchange's "maker address not allowed, please use the deposit wallet flow"
/// for `order_signer`: the same error, refused as
/// [`PreflightMismatch::DepositWalletRequired`] with the deposit wallets the key would trade
/// from. Other errors pass unchanged.
pub(crate) fn explain(order_signer: &OrderSigner, e: Error) -> Error {
    if !e.is_maker_not_allowed()
        || !e.message_contains(&["deposit wallet"])
        || matches!(
            order_signer.wallet(),
            Wallet::DepositWallet(_) | Wallet::DepositWalletSession(_)
        )
    {
        return e;
    }
    let eoa = order_signer.signer().address();
    let [uups, beacon] = derive_deposit_wallets(eoa);
    let msg = format!(
        "maker address not allowed, please use the deposit wallet flow: this API account trades \
         from its deposit wallet (POLY_1271), not from {}; sign with Wallet::DepositWallet of \
         the key {eoa} ({uups}, or {beacon} for wallets from the beacon factory) and fund and \
         approve it with relayer WALLET batches (polyclob::relayer)",
        order_signer.maker()
    );
    mismatch(PreflightMismatch::DepositWalletRequired, msg).with_source(e)
}

/// The local checks, then `GET /auth/api-keys` to confirm that the API key is one of the
/// signer's.
pub(crate) async fn remote(client: &Client, order_signer: &OrderSigner) -> Result<(), Error> {
    check(order_signer)?;
    let eoa = order_signer.signer().address();
    let key = client
        .credentials()
        .map(|c| c.api_key().to_owned())
        .ok_or_else(|| Error::auth("posting orders needs API credentials (L2): none were given"))?;
    match client.api_keys().await {
        Ok(keys) if keys.iter().any(|k| k == &key) => Ok(()),
        Ok(_) => Err(mismatch(
            PreflightMismatch::ApiKeySigner,
            format!(
                "signer has to be the API KEY address: the API key {key} is not one of {eoa}'s"
            ),
        )),
        Err(e) if e.status() == Some(401) => Err(mismatch(
            PreflightMismatch::ApiKeySigner,
            format!(
                "signer has to be the API KEY address: the exchange refused the API key {key} \
             for {eoa} ({})",
                e.message().unwrap_or("401")
            ),
        )),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sign::Signer;

    const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

    fn orders(wallet: Wallet) -> OrderSigner {
        OrderSigner::new(Signer::from_hex(KEY).unwrap(), Chain::Polygon, wallet).unwrap()
    }

    #[test]
    fn the_deposit_wallet_refusal_is_explained() {
        let refusal = || {
            Error::from_status(
                400,
                br#"{"error":"maker address not allowed, please use the deposit wallet flow"}"#,
                None,
            )
        };
        let eoa = orders(Wallet::Eoa);
        let e = explain(&eoa, refusal());
        assert_eq!(
            e.preflight_mismatch(),
            Some(PreflightMismatch::DepositWalletRequired)
        );
        let [uups, beacon] = derive_deposit_wallets(eoa.signer().address());
        let msg = e.to_string();
        assert!(
            msg.contains(&uups.to_string()) && msg.contains(&beacon.to_string()),
            "{msg}"
        );
        let source = std::error::Error::source(&e).and_then(|s| s.downcast_ref::<Error>());
        assert_eq!(source.and_then(Error::status), Some(400));
        // A deposit-wallet order, or another refusal, is passed through unchanged.
        let dw = orders(Wallet::DepositWallet(uups));
        assert_eq!(explain(&dw, refusal()).status(), Some(400));
        let plain = Error::from_status(400, br#"{"error":"maker address not allowed"}"#, None);
        assert!(explain(&eoa, plain).preflight_mismatch().is_none());
        assert!(
            explain(&eoa, Error::argument("x"))
                .preflight_mismatch()
                .is_none()
        );
    }
}
