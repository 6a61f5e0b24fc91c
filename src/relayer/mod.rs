//! Polymarket's relayer: deposit-wallet `WALLET` batches and session signers (docs.polymarket.com,
//! "Deposit wallet migration", "Session keys" and the Relayer API reference), through a
//! [`Client`] of its own.
//!
//! A deposit wallet (POLY_1271) is a smart account: it holds pUSD and positions, and it moves
//! them only in a batch of calls its owner signs. The owner signs the EIP-712 `Batch` of the
//! wallet (domain `DepositWallet`, version `1`, the wallet as verifying contract;
//! `Batch(address wallet,uint256 nonce,uint256 deadline,Call[] calls)` with
//! `Call(address target,uint256 value,bytes data)`), and the relayer submits it through the
//! deposit-wallet factory, paying the gas: `POST /submit` with `type` `WALLET`.
//!
//! The calls are the [`Settler`](crate::onchain::Settler)'s values (approvals, split, merge,
//! redeem, neg-risk conversion; feature `onchain`), so the same code serves an EOA, a Safe or
//! a deposit wallet. `WalletBatch` signs and writes the exact body Polymarket's unified Python
//! SDK sends (known answers: `scripts/make_wallet_batch_vectors.py`);
//! `Client::submit_wallet_batch` posts it and `Client::execute_wallet_batch` does all of
//! it with the client's key (both with feature `onchain`). [`Client::deploy_deposit_wallet`] deploys the owner's deposit
//! wallet (`WALLET-CREATE`) and [`Client::deployed`] asks whether a wallet exists.
//!
//! The relayer's rules, as the client follows them:
//!
//! * **Auth.** Every relayer request carries either a builder key's `POLY_BUILDER_*` headers
//!   (HMAC over timestamp, method, path and body) or a Relayer API key's static
//!   `RELAYER_API_KEY` and `RELAYER_API_KEY_ADDRESS` headers (the docs' Relayer API
//!   reference); methods take either as [`RelayerAuth`] (a `&Credentials` or a
//!   `&`[`RelayerApiKey`] converts). Secrets go out as sensitive headers and are never
//!   printed.
//! * **Nonce.** Each owner has one `WALLET` nonce at the relayer
//!   (`GET /v1/account/transactions/params?address=<owner>&type=WALLET`,
//!   [`Client::wallet_nonce`]); a batch carries it and spends it when it executes.
//!   A batch with another nonce is refused with "batch nonce N does not match on-chain nonce
//!   M" ([`RelayerRefusal::NonceMismatch`]).
//! * **Idempotency.** A signed batch executes at most once: its nonce makes it so. Its
//!   post also carries an `Idempotency-Key` derived from the signed body
//!   (`SignedWalletBatch::idempotency_key`), the header the relayer's session-signer
//!   routes take (the official SDK retries those with the same key): a relayer that honours
//!   it (the simulator's does) answers a repeat with the first answer, the same transaction.
//!   One that does not refuses the repeat by nonce: a `NonceMismatch` whose submitted nonce
//!   is below the relayer's means that nonce is spent (by this batch or another): look the
//!   transaction up, never re-sign blindly. To retry after a lost answer, post the *same*
//!   `SignedWalletBatch` again. `Client::execute_wallet_batch`
//!   re-signs only when its own freshly read nonce was taken before its one post, as the SDK does.
//! * **Deadline.** A batch is void after its deadline (the SDK signs now + 600 s).
//! * **Busy.** "wallet busy … active action" / "wallet has in-flight action" is transient
//!   ([`RelayerRefusal::WalletBusy`]): post the same batch again later.
//!
//! Session signers: [`SessionSignerBatch`] signs the batch that authorizes or revokes one;
//! [`Client::authorize_session_signer`] and [`Client::revoke_session_signer`] do all of it
//! with the client's key (the wallet's owner) and a builder key;
//! [`Client::relay_session_signer_batch`] posts a batch signed elsewhere. They return once the
//! relayer accepts the batch; the signer shows in (or leaves) the CLOB's
//! [`session_signers`](crate::clob::Client::session_signers) when the transaction confirms.
//!
//! ```no_run
//! # async fn f() -> Result<(), Box<dyn std::error::Error>> {
//! use polyclob::clob::Credentials;
//! use polyclob::relayer;
//! use polyclob::sign::{Signer, wallet::derive_deposit_wallets};
//!
//! let owner = Signer::from_hex(&std::env::var("POLYCLOB_PRIVATE_KEY")?)?;
//! let builder_key = Credentials::new("key", "c2VjcmV0", "passphrase");
//! let wallet = derive_deposit_wallets(owner.address())[1];
//! let relayer = relayer::Client::builder().signer(owner).build()?; // the production relayer
//! if !relayer.deployed(wallet).await? {
//!     let tx = relayer.deploy_deposit_wallet(&builder_key, "").await?;
//!     println!("deploying: {} {}", tx.transaction_id, tx.state);
//! }
//! # Ok(()) }
//! ```

mod client;
mod session_signers;
mod types;
mod wallet_batch;

pub use client::{Client, ClientBuilder, DEFAULT_HOST};
pub use session_signers::{
    SessionSignerAction, SessionSignerBatch, SessionSignerReceipt, SignedSessionSignerBatch,
};
pub use types::{RelayerApiKey, RelayerAuth, RelayerRefusal, RelayerState, RelayerTransaction};
pub use wallet_batch::{MAX_METADATA_LEN, wallet_create_body};
#[cfg(feature = "onchain")]
pub use wallet_batch::{SignedWalletBatch, WalletBatch};
