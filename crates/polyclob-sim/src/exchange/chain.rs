//! The simulator's chain (feature `onchain`): the [`Ledger`] plus what a node keeps around it,
//! accounts' nonces, receipts and blocks. A raw transaction is decoded as EIP-1559, its chain
//! id, signature, nonce, fee and the sender's native balance are checked as a node would, and
//! it is mined at once in its own block: applied to the ledger, or reverted (status 0, state
//! unchanged, the nonce and the fee still spent). Gas is a fixed schedule, not EVM metering.
//! Its JSON-RPC face, `POST /rpc`, is `wire/rpc.rs`.

use std::collections::{BTreeMap, HashMap};

use alloy_primitives::{Address, B256, U256};

use super::ledger::Ledger;
use super::market::MarketSpec;
use polyclob::onchain::{Call, SignedTx};
use polyclob::types::Chain;

/// Base fee of every block: 30 gwei.
pub(crate) const BASE_FEE: u128 = 30_000_000_000;
/// The tip `eth_maxPriorityFeePerGas` suggests: 30 gwei (Polygon's floor is 25).
pub(crate) const TIP: u128 = 30_000_000_000;

/// Gas a call costs on the simulator: 21,000 + 16 per calldata byte + 30,000.
pub(crate) fn gas_for(data: &[u8]) -> u64 {
    21_000 + 16 * data.len() as u64 + 30_000
}

/// A mined transaction's receipt.
#[derive(Debug, Clone)]
pub(crate) struct Mined {
    pub(crate) block: u64,
    pub(crate) success: bool,
    pub(crate) gas_used: u64,
    pub(crate) price: u128,
    pub(crate) from: Address,
    pub(crate) to: Address,
}

/// The chain: the ledger plus accounts' nonces, receipts and blocks.
#[derive(Debug)]
pub(crate) struct SimChain {
    pub(crate) ledger: Ledger,
    pub(crate) nonces: HashMap<Address, u64>,
    pub(crate) mined: HashMap<B256, Mined>,
    /// Transactions with a future nonce, mined once the gap before them fills (as a node's
    /// queue would).
    queued: HashMap<Address, BTreeMap<u64, SignedTx>>,
    pub(crate) block: u64,
}

impl SimChain {
    pub(crate) fn new(chain: Chain, markets: &[MarketSpec], house: Address) -> Self {
        Self {
            ledger: Ledger::new(chain, markets, house),
            nonces: HashMap::new(),
            mined: HashMap::new(),
            queued: HashMap::new(),
            block: 1,
        }
    }

    /// `eth_sendRawTransaction`: the transaction's hash, or the node's refusal (JSON-RPC
    /// error -32000 on the wire).
    pub(crate) fn send_raw(&mut self, raw: &[u8]) -> Result<B256, String> {
        let signed = SignedTx::decode(raw).map_err(|e| format!("rlp: {}", e.what()))?;
        let tx = signed.tx();
        let chain_id = self.ledger.chain_id();
        if tx.chain_id != chain_id {
            return Err(format!(
                "invalid chain id {} (expected {chain_id})",
                tx.chain_id
            ));
        }
        let from = signed
            .recover_sender()
            .map_err(|_| "invalid sender: signature does not recover".to_owned())?;
        let next = self.nonces.get(&from).copied().unwrap_or(0);
        if tx.nonce < next {
            return Err(format!(
                "nonce too low: next nonce {next}, tx nonce {}",
                tx.nonce
            ));
        }
        if tx.max_fee_per_gas < BASE_FEE {
            return Err(format!(
                "max fee per gas less than block base fee: maxFeePerGas: {}, baseFee: {BASE_FEE}",
                tx.max_fee_per_gas
            ));
        }
        if tx.max_priority_fee_per_gas > tx.max_fee_per_gas {
            return Err("max priority fee per gas higher than max fee per gas".to_owned());
        }
        let have = self.native_of(from);
        let cost = tx.max_cost();
        if have < cost {
            return Err(format!(
                "insufficient funds for gas * price + value: address {from} have {have} want {cost}"
            ));
        }
        let hash = signed.hash();
        if self.mined.contains_key(&hash) {
            return Err("already known".to_owned());
        }
        if tx.nonce > next {
            // A future nonce waits in the account's queue until the gap fills.
            let queue = self.queued.entry(from).or_default();
            if queue.len() >= 64 {
                return Err("txpool is full for this account".to_owned());
            }
            queue.insert(tx.nonce, signed);
            return Ok(hash);
        }
        self.mine(from, &signed);
        // Mine the queued successors the gap was holding back.
        loop {
            let n = self.nonces.get(&from).copied().unwrap_or(0);
            let Some(queued) = self.queued.get_mut(&from).and_then(|q| q.remove(&n)) else {
                break;
            };
            if self.native_of(from) < queued.tx().max_cost() {
                break; // dropped, as a node drops what the sender can no longer pay for
            }
            self.mine(from, &queued);
        }
        Ok(hash)
    }

    pub(crate) fn native_of(&self, who: Address) -> U256 {
        self.ledger
            .balances
            .native
            .get(&who)
            .copied()
            .unwrap_or_default()
    }

    /// Executes a validated transaction carrying the account's next nonce, in a new block:
    /// applied, or reverted (state restored; the nonce and the fee are spent either way).
    fn mine(&mut self, from: Address, signed: &SignedTx) {
        let tx = signed.tx();
        let call = Call::new(tx.to, tx.input.clone()).with_value(tx.value);
        let gas = gas_for(&tx.input);
        // Validated before: max_fee >= BASE_FEE >= 0, so the subtraction cannot underflow.
        let price = BASE_FEE
            + tx.max_priority_fee_per_gas
                .min(tx.max_fee_per_gas.saturating_sub(BASE_FEE));
        let success = if tx.gas_limit < gas {
            false // out of gas
        } else {
            let snapshot = self.ledger.balances.clone();
            match self.ledger.apply(from, &call) {
                Ok(()) => true,
                Err(_) => {
                    self.ledger.balances = snapshot;
                    false
                }
            }
        };
        let gas_used = gas.min(tx.gas_limit);
        let fee = U256::from(gas_used) * U256::from(price);
        let mut left = self.native_of(from).saturating_sub(fee);
        if success {
            left = left.saturating_sub(tx.value);
        }
        self.ledger.balances.native.insert(from, left);
        self.nonces.insert(from, tx.nonce + 1);
        self.block += 1;
        self.mined.insert(
            signed.hash(),
            Mined {
                block: self.block,
                success,
                gas_used,
                price,
                from,
                to: tx.to,
            },
        );
    }
}
