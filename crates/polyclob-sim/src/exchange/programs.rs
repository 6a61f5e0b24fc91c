//! The exchange's programs beside trading, as it keeps them: builder API keys and fees, the
//! deposit wallets' session signers and `WALLET` nonces, Relayer API keys, and the state of
//! RFQ (`rfq.rs`) and the relayer (`relayer.rs`). The routes that read and change them are
//! `wire/programs.rs`, `wire/rfq.rs` and `wire/relayer.rs`.

use std::collections::HashMap;

use alloy_primitives::{Address, B256};

use super::relayer::Relayer;
use super::rfq::Rfq;
use super::rng;

/// One builder API key.
#[derive(Debug, Clone)]
pub(crate) struct BuilderKey {
    pub(crate) key: String,
    /// Lowercase address of the account that created it.
    pub(crate) owner: String,
    pub(crate) created_at: u64,
    pub(crate) revoked_at: Option<u64>,
}

/// Program state kept with the exchange.
#[derive(Debug, Default)]
pub(crate) struct Programs {
    pub(crate) builder_keys: Vec<BuilderKey>,
    /// Builder code → (maker bps, taker bps).
    builder_fees: HashMap<B256, (u32, u32)>,
    /// Requests and quotes (`rfq.rs`).
    pub(crate) rfq: Rfq,
    /// Deposit-wallet owner (lowercase) → its wallet and session signers.
    pub(crate) session_signers: HashMap<String, OwnerSigners>,
    /// The relayer's executed `WALLET` batches (`relayer.rs`).
    pub(crate) relayer: Relayer,
    /// Relayer API keys → the address that owns each.
    pub(crate) relayer_keys: HashMap<String, Address>,
}

/// A deposit wallet's session signers and the owner's next batch nonce, as the relayer
/// keeps them.
#[derive(Debug, Default)]
pub(crate) struct OwnerSigners {
    pub(crate) wallet: Option<Address>,
    pub(crate) nonce: u64,
    /// Signer → (scopes, valid until).
    pub(crate) signers: Vec<(Address, Vec<String>, u64)>,
}

impl Programs {
    /// Sets a builder code's fees (basis points).
    pub(crate) fn set_builder_fee(&mut self, code: B256, maker_bps: u32, taker_bps: u32) {
        self.builder_fees.insert(code, (maker_bps, taker_bps));
    }

    /// The owner's next relayer `WALLET` nonce, when `wallet` may be `owner`'s: a wallet
    /// belongs to the owner that first signed for it, and an owner has one wallet.
    pub(crate) fn wallet_owner_nonce(&self, owner: Address, wallet: Address) -> Option<u64> {
        let me = format!("{owner:#x}");
        let taken = self
            .session_signers
            .iter()
            .any(|(o, r)| *o != me && r.wallet == Some(wallet));
        let rec = self.session_signers.get(&me);
        if taken || rec.and_then(|r| r.wallet).is_some_and(|w| w != wallet) {
            return None;
        }
        Some(rec.map_or(0, |r| r.nonce))
    }

    /// Whether the owner of `wallet` authorized `signer` for the CLOB (scope `CLOB` or
    /// `ALL`) until after `now` (unix seconds).
    pub(crate) fn session_authorized(&self, wallet: Address, signer: Address, now: u64) -> bool {
        self.session_signers
            .values()
            .filter(|r| r.wallet == Some(wallet))
            .flat_map(|r| &r.signers)
            .any(|(a, scopes, until)| {
                *a == signer && *until > now && scopes.iter().any(|s| s == "CLOB" || s == "ALL")
            })
    }

    /// Spends the owner's `WALLET` nonce and records `wallet` as the owner's.
    pub(crate) fn spend_wallet_nonce(&mut self, owner: Address, wallet: Address) {
        let rec = self
            .session_signers
            .entry(format!("{owner:#x}"))
            .or_default();
        rec.wallet = Some(wallet);
        rec.nonce += 1;
    }

    /// A Relayer API key of `owner`, made and kept on first request (deterministic per
    /// address; the exchange makes them with Gamma auth, which the simulator does not serve).
    pub(crate) fn relayer_key(&mut self, owner: Address) -> String {
        let seed = alloy_primitives::keccak256(format!("polyclob-sim relayer key {owner:#x}"));
        let key = rng::uuid_from(seed.as_slice());
        self.relayer_keys.insert(key.clone(), owner);
        key
    }

    /// A builder code's fees (basis points, maker then taker); none for an unknown code.
    pub(crate) fn fee(&self, code: &B256) -> (u32, u32) {
        self.builder_fees.get(code).copied().unwrap_or((0, 0))
    }
}
