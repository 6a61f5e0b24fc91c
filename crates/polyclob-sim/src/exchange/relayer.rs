//! The relayer's records, kept with the exchange: executed transactions, deployed deposit
//! wallets and the answers of idempotent submits. Its routes are `wire/relayer.rs`.

use std::collections::{HashMap, HashSet};

use alloy_primitives::{Address, B256};
use serde_json::Value;

/// Executed relayer transactions by id: the chain transaction's hash; deployed deposit
/// wallets; the answers of idempotent submits.
#[derive(Debug, Default)]
pub(crate) struct Relayer {
    pub(crate) done: HashMap<String, String>,
    pub(crate) deployed: HashSet<Address>,
    /// (caller, `Idempotency-Key`) → (keccak of the body, the answer).
    pub(crate) answered: HashMap<(String, String), (B256, Value)>,
}
