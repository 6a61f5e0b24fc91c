//! Session signers (docs.polymarket.com/trading/session-keys): authorizing and revoking are
//! deposit-wallet transactions relayed by Polymarket's relayer
//! (`POST /v1/session-signers/authorizations` and `/revocations`). The owner signs an EIP-712
//! `Batch` of the wallet holding one self-call, `authorizeSessionSigner(address,uint256)` or
//! `revokeSessionSigner(address)`. [`SessionSignerBatch`] builds and signs that batch and the
//! exact relayer body, checked against the official Python client
//! (`scripts/make_session_signer_vectors.py`). The listing is a CLOB call
//! ([`Client::session_signers`](crate::clob::Client::session_signers)).

use alloy_primitives::{Address, B256, U256};
use serde::Deserialize;

use super::wallet_batch::{batch_digest, word_address};
use crate::clob::SessionScope;
use crate::http::Error;
use crate::sign::keccak::keccak256;
use crate::sign::{Signature, Signer};
use crate::types::Chain;

/// Relayer `POST`: authorize a session signer.
const AUTHORIZATIONS_PATH: &str = "/v1/session-signers/authorizations";
/// Relayer `POST`: revoke a session signer.
const REVOCATIONS_PATH: &str = "/v1/session-signers/revocations";

/// The relayer's answer to an authorization or revocation.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct SessionSignerReceipt {
    /// `SUBMITTED`, `REGISTRY_PENDING`, `REGISTERED` (authorizations); `PENDING`, `FENCED`,
    /// `SWEPT`, `CHAIN_SUBMITTED`, `CONFIRMED` (revocations); `FAILED`, `SUPERSEDED`,
    /// `REPAIR_REQUIRED` are terminal failures.
    #[serde(default)]
    pub status: String,
    /// The relayer transaction (`GET /v1/account/transactions/{id}` on the relayer).
    #[serde(default)]
    pub transaction_id: String,
    /// The chain transaction, once known.
    #[serde(default)]
    pub transaction_hash: Option<String>,
    /// Revocations: whether the signer is already fenced off from trading.
    #[serde(default)]
    pub fenced: Option<bool>,
}

impl SessionSignerReceipt {
    /// Whether the relayer reported a terminal failure.
    #[must_use]
    pub fn failed(&self) -> bool {
        matches!(
            self.status.as_str(),
            "FAILED" | "SUPERSEDED" | "REPAIR_REQUIRED"
        )
    }
}

/// What a [`SessionSignerBatch`] does.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionSignerAction {
    /// Authorize the signer for `scopes` until `valid_until` (Unix seconds).
    Authorize {
        /// Venues; [`SessionScope::All`] must stand alone.
        scopes: Vec<SessionScope>,
        /// Expiry, Unix seconds.
        valid_until: u64,
    },
    /// Revoke the signer.
    Revoke,
}

/// The owner-signed deposit-wallet batch that authorizes or revokes one session signer, and
/// the relayer body that carries it.
///
/// ```
/// use alloy_primitives::{Address, U256};
/// use polyclob::clob::SessionScope;
/// use polyclob::relayer::{SessionSignerAction, SessionSignerBatch};
/// use polyclob::sign::Signer;
/// use polyclob::types::Chain;
///
/// let owner = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// let batch = SessionSignerBatch::new(
///     Address::repeat_byte(0x11),
///     Address::repeat_byte(0x22),
///     SessionSignerAction::Authorize { scopes: vec![SessionScope::Clob], valid_until: 1_900_000_000 },
///     U256::from(7u8),
///     1_800_000_600,
/// );
/// let signed = batch.sign(&owner, Chain::Polygon)?;
/// assert_eq!(signed.path, "/v1/session-signers/authorizations");
/// assert!(String::from_utf8(signed.body)?.contains(r#""scopes":["CLOB"]"#));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SessionSignerBatch {
    /// The deposit wallet.
    pub wallet: Address,
    /// The session signer's address.
    pub session_signer: Address,
    /// Authorize or revoke.
    pub action: SessionSignerAction,
    /// The wallet nonce from the relayer's `/v1/account/transactions/params`.
    pub nonce: U256,
    /// Unix seconds after which the batch is void (the official client uses now + 600).
    pub deadline: u64,
}

/// A signed [`SessionSignerBatch`]: the relayer path and the exact body to post there.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct SignedSessionSignerBatch {
    /// `/v1/session-signers/authorizations` or `/v1/session-signers/revocations`.
    pub path: &'static str,
    /// The JSON body, compact, keys in the official client's order.
    pub body: Vec<u8>,
    /// The owner's signature over [`SessionSignerBatch::digest`].
    pub signature: Signature,
}

fn word_u256(v: U256) -> [u8; 32] {
    v.to_be_bytes::<32>()
}

impl SessionSignerBatch {
    /// How long an authorization lasts, in seconds: 180 days, the one expiry the docs take
    /// ("now plus 180 days. Other values are rejected", docs.polymarket.com/trading/session-keys).
    pub const LIFETIME: u64 = 180 * 86_400;

    /// A batch for `wallet` that applies `action` to `session_signer`, with the relayer's
    /// `nonce` and a `deadline` in Unix seconds.
    #[must_use]
    pub fn new(
        wallet: Address,
        session_signer: Address,
        action: SessionSignerAction,
        nonce: U256,
        deadline: u64,
    ) -> Self {
        Self {
            wallet,
            session_signer,
            action,
            nonce,
            deadline,
        }
    }

    fn check(&self) -> Result<(), Error> {
        if self.wallet == Address::ZERO {
            return Err(Error::argument(
                "the deposit wallet must not be the zero address",
            ));
        }
        if self.session_signer == Address::ZERO {
            return Err(Error::argument(
                "session signer must not be the zero address",
            ));
        }
        if self.session_signer == self.wallet {
            return Err(Error::argument(
                "session signer must differ from the deposit wallet",
            ));
        }
        if let SessionSignerAction::Authorize {
            scopes,
            valid_until,
        } = &self.action
        {
            if scopes.is_empty() || scopes.iter().any(|s| s.as_str().is_empty()) {
                return Err(Error::argument("session signer scopes must name a scope"));
            }
            if scopes.len() > 1 && scopes.contains(&SessionScope::All) {
                return Err(Error::argument(
                    "session signer scope ALL cannot be combined with another",
                ));
            }
            if *valid_until == 0 {
                return Err(Error::argument("session signer expiry must be set"));
            }
            // The batch may run until its deadline: an expiry before then (one in the past,
            // with the client's deadline of now + the batch lifetime) would authorize a
            // signer that is, or soon is, no longer valid.
            if *valid_until <= self.deadline {
                return Err(Error::argument(format!(
                    "session signer expiry {valid_until} is not after the batch deadline {} \
                     (an expiry in the past, or before the batch can run)",
                    self.deadline
                )));
            }
        }
        Ok(())
    }

    /// The wallet self-call the batch carries.
    #[must_use]
    pub fn call_data(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(68);
        match &self.action {
            SessionSignerAction::Authorize { valid_until, .. } => {
                out.extend_from_slice(&keccak256(b"authorizeSessionSigner(address,uint256)")[..4]);
                out.extend_from_slice(&word_address(&self.session_signer));
                out.extend_from_slice(&word_u256(U256::from(*valid_until)));
            }
            SessionSignerAction::Revoke => {
                out.extend_from_slice(&keccak256(b"revokeSessionSigner(address)")[..4]);
                out.extend_from_slice(&word_address(&self.session_signer));
            }
        }
        out
    }

    /// The EIP-712 digest the owner signs on `chain`: a deposit-wallet `Batch` of the one
    /// self-call.
    #[must_use]
    pub fn digest(&self, chain: Chain) -> B256 {
        let data = self.call_data();
        batch_digest(
            chain,
            self.wallet,
            self.nonce,
            self.deadline,
            std::iter::once((self.wallet, U256::ZERO, data.as_slice())),
        )
    }

    /// The relayer body for `signature`.
    #[must_use]
    pub fn body(&self, signature: &Signature) -> Vec<u8> {
        let mut o = serde_json::Map::new();
        let cs = |a: &Address| a.to_checksum(None);
        o.insert("deadline".into(), self.deadline.to_string().into());
        o.insert("nonce".into(), self.nonce.to_string().into());
        if let SessionSignerAction::Authorize { scopes, .. } = &self.action {
            let names: Vec<serde_json::Value> = scopes.iter().map(|s| s.as_str().into()).collect();
            o.insert("scopes".into(), names.into());
        }
        o.insert(
            "sessionSignerAddress".into(),
            cs(&self.session_signer).into(),
        );
        o.insert("signature".into(), signature.to_hex_string().into());
        if let SessionSignerAction::Authorize { valid_until, .. } = &self.action {
            o.insert("validUntil".into(), valid_until.to_string().into());
        }
        o.insert("walletAddress".into(), cs(&self.wallet).into());
        // Strings and arrays of strings only: serialization cannot fail.
        serde_json::to_vec(&serde_json::Value::Object(o)).unwrap_or_default()
    }

    /// Signs the batch with the wallet owner's key on `chain`.
    ///
    /// # Errors
    ///
    /// ([`Error::is_argument`]) a zero wallet or signer, a signer equal to the wallet, no
    /// scopes, `ALL` with another scope, a zero expiry or one not after the batch's
    /// `deadline` (in the past); a signing failure.
    pub fn sign(&self, owner: &Signer, chain: Chain) -> Result<SignedSessionSignerBatch, Error> {
        self.check()?;
        let digest = self.digest(chain);
        let signature = owner
            .sign_prehash(&digest.0)
            .map_err(|_| Error::argument("the session signer batch could not be signed"))?;
        Ok(SignedSessionSignerBatch {
            path: match self.action {
                SessionSignerAction::Authorize { .. } => AUTHORIZATIONS_PATH,
                SessionSignerAction::Revoke => REVOCATIONS_PATH,
            },
            body: self.body(&signature),
            signature,
        })
    }
}
