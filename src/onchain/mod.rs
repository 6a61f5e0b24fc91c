//! On-chain settlement (feature `onchain`): approvals, split/merge/redeem, neg-risk
//! conversion and balances, as EIP-1559 transactions signed with the order path's
//! [`Signer`](crate::sign::Signer) and sent from an EOA, a Gnosis Safe or a Polymarket proxy
//! wallet.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().onchain(true).start().await?;
//! use polyclob::U256;
//! use polyclob::onchain::Settler;
//! use polyclob::sign::Signer;
//! use std::time::Duration;
//!
//! // Hardhat account #0 (a public test key), funded on the simulator's chain.
//! let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
//! sim.fund_native(signer.address(), U256::from(10u64).pow(U256::from(18u8)));
//! sim.fund_collateral(signer.address(), U256::from(100_000_000u64)); // 100 pUSD
//!
//! let settler = Settler::builder(sim.rpc_url(), signer) // your Polygon node's URL
//!     .poll_interval(Duration::from_millis(5))
//!     .build()?;
//! let sent = settler.ensure_approvals().await?; // exactly the missing approvals
//! assert!(settler.approvals().await?.iter().all(|a| a.granted));
//! let pusd = settler.collateral_balance(settler.holder()).await?;
//! assert_eq!(pusd, U256::from(100_000_000u64));
//! println!("{} approval transactions", sent.len());
//! # Ok(()) }
//! ```
//!
//! | item | what |
//! |---|---|
//! | [`Settler`] | one account's reads (balances, allowances, approvals, resolution) and writes, with nonces, fee caps and receipt waiting |
//! | [`Rpc`] | JSON-RPC over the crate's reqwest/rustls client, batched where the node allows |
//! | [`erc20`], [`erc1155`], [`ctf`], [`neg_risk`], [`router`] | calldata for every call, as [`Call`]s |
//! | [`Selector`], [`abi`] | the calls' function selectors; the ABI encoder and bounds-checked reader |
//! | [`wallet`] | Safe `execTransaction` (EIP-712 `SafeTx`) and proxy-factory wrapping |
//! | [`Eip1559Tx`], [`SignedTx`] | type-2 transactions: encoding, signing, decoding, sender recovery |
//! | [`NonceManager`] | nonces that survive concurrent senders |
//! | [`Error`] | typed failures: revert (with reason), insufficient funds, nonce too low, replaced, timeout, fee cap |
//!
//! Addresses come from the contract table ([`contracts`](crate::types::contracts)), which
//! follows Polymarket's docs: pUSD collateral, ConditionalTokens, the CTF exchanges and the
//! pUSD collateral adapters that CTF split/merge/redeem go through; for Protocol V2 markets,
//! ExchangeV3, the PositionManager that holds positions and the Router that splits, merges
//! and redeems them. The [`Settler`] picks CTF or V2 from the condition id it is given
//! ([`ConditionId`](crate::types::ConditionId): `bytes32` or `bytes31`; a 64-hex id that may
//! be a padded V2 one is never read as CTF by guess).
//!
//! **No call is built that the chain would refuse.** Every calldata and transaction builder,
//! and every [`Settler`] write, refuses what the contract would revert on or the official
//! clients refuse, before anything is signed or sent, with a typed [`CallError`] naming the
//! argument (inside [`Error::is_invalid_request`] on the `Settler`). The CTF and V2 paths
//! share the rules: a zero amount, address or condition; a CTF split or merge partition of
//! fewer than two sets, or one with a zero or overlapping set; a V2 condition of no known
//! module, an outcome other than 0 or 1; a neg-risk redemption of other than two amounts, a
//! conversion naming a question beyond the market's; a transaction or Safe signature for
//! chain 0, a tip above the max fee; an empty proxy batch.
//!
//! The `polyclob-sim` crate (feature `onchain`) serves a minimal chain for all of this
//! (`SimBuilder::onchain`), so the loop approve → trade → resolve → redeem runs offline, as in
//! the example above.

pub mod abi;
mod call;
mod check;
mod client;
pub mod ctf;
pub mod erc1155;
pub mod erc20;
mod error;
pub mod neg_risk;
mod nonce;
pub mod router;
mod rpc;
mod selector;
mod tx;
pub mod wallet;

pub use self::abi::{AbiError, decode_revert_reason};
pub use self::call::Call;
pub use self::check::CallError;
pub use self::client::{Approval, Payouts, Settler, SettlerBuilder};
pub use self::error::Error;
pub use self::nonce::NonceManager;
pub use self::rpc::{Receipt, Rpc};
pub use self::selector::Selector;
pub use self::tx::{Eip1559Tx, SignedTx, TxDecodeError};
