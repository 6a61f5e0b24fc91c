//! Pre-flight checks for the two most reported order failures, "maker address not allowed"
//! and "signer has to be the API KEY address": before signing, the order's signer must be the
//! address the API credentials belong to, and the funder (maker) must be the wallet its
//! signature type implies (EOA = the signer; proxy and Safe = the wallets derived from the
//! signer; POLY_1271 = a deposit wallet, which is never the signer itself: that one
//! [`OrderSigner::new`] already refuses, as it does a zero funder).
//!
//! [`Client::preflight`] runs the local checks (no I/O, also run by the `place_*` helpers);
//! [`Client::preflight_remote`] also asks the exchange whether the API key belongs to the
//! signer.

use alloy_primitives::Address;

use super::transport::Client;
use crate::http::{Error, Rail};
use crate::order::OrderSigner;
use crate::sign::wallet::{Wallet, derive_proxy_wallet, derive_safe_wallet};

fn mismatch(msg: String) -> Error {
    Error::refused(Rail::Preflight, msg, None)
}

/// The local checks of an order signer against the client's credentials and chain.
pub(crate) fn check(client: &Client, order_signer: &OrderSigner) -> Result<(), Error> {
    let eoa = order_signer.signer().address();
    if order_signer.chain() != client.chain() {
        return Err(mismatch(format!(
            "the order signer is prepared for chain {} but the client signs for chain {}",
            order_signer.chain().id(),
            client.chain().id()
        )));
    }
    let Some(api_address) = client.address() else {
        return Err(Error::auth(
            "posting orders needs the client's private key (L2 headers): none was given",
        ));
    };
    if api_address != eoa {
        return Err(mismatch(format!(
            "signer has to be the API KEY address: the order signer is {eoa} but the API \
             credentials belong to {api_address}"
        )));
    }
    let expected: Option<(Address, &str)> = match order_signer.wallet() {
        Wallet::Proxy(_) => derive_proxy_wallet(eoa, order_signer.chain()).map(|a| (a, "proxy")),
        Wallet::Safe(_) => Some((derive_safe_wallet(eoa, order_signer.chain()), "Safe")),
        _ => None,
    };
    let maker = order_signer.maker();
    match (order_signer.wallet(), expected) {
        (Wallet::Eoa, _) if maker != eoa => Err(mismatch(format!(
            "maker address not allowed: an EOA order's maker must be the signer {eoa}, not {maker}"
        ))),
        (Wallet::Proxy(_) | Wallet::Safe(_), Some((want, kind))) if maker != want => {
            Err(mismatch(format!(
                "maker address not allowed: the funder {maker} is not the {kind} wallet of the \
                 signer {eoa}, which is {want}"
            )))
        }
        _ => Ok(()),
    }
}

impl Client {
    /// Checks, without I/O, that `order_signer` can place orders through this client: same
    /// chain, its key is the one the API credentials belong to, and its funder is the wallet
    /// its signature type implies.
    ///
    /// ```
    /// use polyclob::clob::Client;
    /// use polyclob::order::OrderSigner;
    /// use polyclob::sign::{Signer, wallet::Wallet};
    /// use polyclob::types::Chain;
    ///
    /// let key = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    /// let other = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
    /// let client = Client::builder().signer(Signer::from_hex(key)?).build()?;
    /// let mine = OrderSigner::new(Signer::from_hex(key)?, Chain::Polygon, Wallet::Eoa)?;
    /// client.preflight(&mine)?;
    /// let theirs = OrderSigner::new(Signer::from_hex(other)?, Chain::Polygon, Wallet::Eoa)?;
    /// let e = client.preflight(&theirs).unwrap_err();
    /// assert!(e.is_preflight());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::is_preflight`] naming the mismatch and both addresses; [`Error::is_auth`]
    /// when the client has no private key.
    pub fn preflight(&self, order_signer: &OrderSigner) -> Result<(), Error> {
        check(self, order_signer)
    }

    /// [`preflight`](Self::preflight), then `GET /auth/api-keys` to confirm that the API key
    /// is one of the signer's.
    ///
    /// # Errors
    ///
    /// As [`preflight`](Self::preflight); [`Error::is_preflight`] when the exchange does not
    /// list the key for the signer (or refuses the credentials with 401); transport errors.
    pub async fn preflight_remote(&self, order_signer: &OrderSigner) -> Result<(), Error> {
        check(self, order_signer)?;
        let eoa = order_signer.signer().address();
        let key = self
            .credentials()
            .map(|c| c.api_key().to_owned())
            .ok_or_else(|| {
                Error::auth("posting orders needs API credentials (L2): none were given")
            })?;
        match self.api_keys().await {
            Ok(keys) if keys.iter().any(|k| k == &key) => Ok(()),
            Ok(_) => Err(mismatch(format!(
                "signer has to be the API KEY address: the API key {key} is not one of {eoa}'s"
            ))),
            Err(e) if e.status() == Some(401) => Err(mismatch(format!(
                "signer has to be the API KEY address: the exchange refused the API key {key} \
                 for {eoa} ({})",
                e.message().unwrap_or("401")
            ))),
            Err(e) => Err(e),
        }
    }
}
