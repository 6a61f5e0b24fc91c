//! On-chain settlement (feature `onchain`): approvals, split/merge/redeem, neg-risk
//! conversion and balances, as EIP-1559 transactions signed with the order path's
//! [`Signer`](crate::sign::Signer) and sent from an EOA, a Gnosis Safe or a Polymarket proxy
//! wallet.
//!
//! | item | what |
//! |---|---|
//! | [`Settler`] | one account's reads (balances, allowances, approvals, resolution) and writes, with nonces, fee caps and receipt waiting |
//! | [`Rpc`] | JSON-RPC over the crate's reqwest/rustls client, batched where the node allows |
//! | [`erc20`], [`erc1155`], [`ctf`], [`neg_risk`] | calldata for every call, as [`Call`]s |
//! | [`wallet`] | Safe `execTransaction` (EIP-712 `SafeTx`) and proxy-factory wrapping |
//! | [`Eip1559Tx`], [`SignedTx`] | type-2 transactions: encoding, signing, decoding, sender recovery |
//! | [`NonceManager`] | nonces that survive concurrent senders |
//! | [`Error`] | typed failures: revert (with reason), insufficient funds, nonce too low, replaced, timeout, fee cap |
//!
//! Addresses come from the contract table ([`contracts`](crate::types::contracts)), which
//! follows Polymarket's docs: pUSD collateral, ConditionalTokens, the V2 exchanges, the Neg
//! Risk Adapter and the pUSD collateral adapters that split/merge/redeem go through.
//!
//! With feature `sim` too, the simulator serves a minimal chain for all of this
//! (`SimBuilder::onchain`), so the loop approve → trade → resolve → redeem runs offline.

pub(crate) mod abi;
mod call;
mod client;
pub mod ctf;
pub mod erc1155;
pub mod erc20;
mod error;
pub mod neg_risk;
mod nonce;
mod rpc;
mod tx;
pub mod wallet;

pub use self::abi::{AbiError, decode_revert_reason};
pub use self::call::Call;
pub use self::client::{Approval, Resolution, Settler, SettlerBuilder};
pub use self::error::Error;
pub use self::nonce::NonceManager;
pub use self::rpc::{Receipt, Rpc};
pub use self::tx::{EIP1559_TYPE, Eip1559Tx, SignedTx, TxDecodeError};

#[cfg(feature = "sim")]
pub(crate) use self::call::sel;
