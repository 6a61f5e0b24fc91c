//! [`NonceManager`]: hands out account nonces to concurrent senders without gaps or reuse.
//!
//! The first reservation reads `eth_getTransactionCount(addr, "pending")`; later ones count
//! up locally under one lock, so two tasks sending at once never sign the same nonce. A send
//! that fails before reaching the mempool gives its nonce back only if it is still the newest
//! one handed out (otherwise a gap would strand the later ones); a `nonce too low` answer
//! drops the local count so the next reservation re-reads the node.

use std::sync::Arc;

use alloy_primitives::Address;
use tokio::sync::Mutex;

use super::error::Error;
use super::rpc::Rpc;

/// Per-account nonce counter shared by the clones of a client.
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), polyclob::onchain::Error> {
/// use polyclob::onchain::NonceManager;
///
/// let nonces = NonceManager::new();
/// nonces.set(7).await;
/// let rpc = polyclob::onchain::Rpc::new("http://127.0.0.1:9")?; // not called: the count is known
/// let me = alloy_primitives::Address::ZERO;
/// assert_eq!(nonces.reserve(&rpc, me).await?, 7);
/// assert_eq!(nonces.reserve(&rpc, me).await?, 8);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, Default)]
pub struct NonceManager {
    next: Arc<Mutex<Option<u64>>>,
}

impl NonceManager {
    /// A manager that reads the node on first use.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Reserves the next nonce for `address`.
    ///
    /// # Errors
    /// When the pending transaction count cannot be read.
    pub async fn reserve(&self, rpc: &Rpc, address: Address) -> Result<u64, Error> {
        let mut next = self.next.lock().await;
        let n = match *next {
            Some(n) => n,
            None => rpc.transaction_count(address, "pending").await?,
        };
        *next = Some(n.saturating_add(1));
        Ok(n)
    }

    /// Gives back `nonce` after a send that never reached the node, when no later nonce was
    /// handed out since; returns whether it was taken back.
    pub async fn release(&self, nonce: u64) -> bool {
        let mut next = self.next.lock().await;
        if *next == Some(nonce.saturating_add(1)) {
            *next = Some(nonce);
            true
        } else {
            false
        }
    }

    /// Forgets the local count: the next reservation re-reads the node (after `nonce too low`,
    /// or a transaction sent by another tool).
    pub async fn resync(&self) {
        *self.next.lock().await = None;
    }

    /// Sets the next nonce to hand out.
    pub async fn set(&self, next: u64) {
        *self.next.lock().await = Some(next);
    }
}
