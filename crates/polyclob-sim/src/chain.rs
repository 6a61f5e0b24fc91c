//! The simulator's JSON-RPC chain endpoint, `POST /rpc` (features `sim` + `onchain`).
//!
//! Enable it with [`SimBuilder::onchain`](super::SimBuilder::onchain). Serves the methods [`onchain::Settler`](polyclob::onchain::Settler) uses (`eth_chainId`,
//! `eth_call`, `eth_estimateGas`, `eth_getTransactionCount`, `eth_getBalance`,
//! `eth_getBlockByNumber`, `eth_maxPriorityFeePerGas`, `eth_gasPrice`, `eth_sendRawTransaction`,
//! `eth_getTransactionReceipt`), single or batched, and `eth_getCode` (a placeholder
//! bytecode at every address of the contract tables the ledger uses, `0x` elsewhere). A raw transaction is decoded as EIP-1559,
//! its chain id, signature, nonce, fee and the sender's native balance are checked as a node
//! would, and it is mined at once in its own block: applied to the [`Ledger`], or reverted
//! (status 0, state unchanged, the nonce and the fee still spent). Gas is a fixed schedule, not
//! EVM metering.

use std::collections::{BTreeMap, HashMap};

use alloy_primitives::{Address, B256, U256, hex};
use serde_json::{Value, json};

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};

use super::drift::{Drift, Drifts};
use super::ledger::{Ledger, Revert};
use super::market::MarketSpec;
use super::server::{Shared, SimHandle, error_response, json_response};
use polyclob::onchain::{Call, SignedTx};
use polyclob::types::Chain;

/// Base fee of every block: 30 gwei.
const BASE_FEE: u128 = 30_000_000_000;
/// The tip `eth_maxPriorityFeePerGas` suggests: 30 gwei (Polygon's floor is 25).
const TIP: u128 = 30_000_000_000;

/// What `eth_getCode` answers for a contract: the usual Solidity prologue
/// (`PUSH1 0x80 PUSH1 0x40 MSTORE`), standing for bytecode the simulator does not run.
const PLACEHOLDER_CODE: &str = "0x6080604052";

/// Gas a call costs on the simulator: 21,000 + 16 per calldata byte + 30,000.
fn gas_for(data: &[u8]) -> u64 {
    21_000 + 16 * data.len() as u64 + 30_000
}

#[derive(Debug, Clone)]
struct Mined {
    block: u64,
    success: bool,
    gas_used: u64,
    price: u128,
    from: Address,
    to: Address,
}

/// A JSON-RPC error object.
#[derive(Debug)]
struct RpcError {
    code: i64,
    message: String,
    data: Option<Vec<u8>>,
}

impl RpcError {
    fn new(code: i64, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            data: None,
        }
    }

    fn invalid(message: impl Into<String>) -> Self {
        Self::new(-32602, message)
    }

    fn revert(r: &Revert) -> Self {
        Self {
            code: 3,
            message: format!("execution reverted: {}", r.0),
            data: Some(polyclob::onchain::abi::encode_revert_reason(&r.0)),
        }
    }
}

/// The chain: the ledger plus accounts' nonces, receipts and blocks.
#[derive(Debug)]
pub(crate) struct SimChain {
    pub(crate) ledger: Ledger,
    nonces: HashMap<Address, u64>,
    mined: HashMap<B256, Mined>,
    /// Transactions with a future nonce, mined once the gap before them fills (as a node's
    /// queue would).
    queued: HashMap<Address, BTreeMap<u64, SignedTx>>,
    block: u64,
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

    /// Answers one HTTP body: a request object or a batch array.
    pub(crate) fn handle(&mut self, body: &[u8], drift: &Drifts) -> String {
        match serde_json::from_slice::<Value>(body) {
            Ok(Value::Array(items)) if !items.is_empty() => {
                let out: Vec<Value> = items.iter().map(|r| self.one(r, drift)).collect();
                Value::Array(out).to_string()
            }
            Ok(v @ Value::Object(_)) => self.one(&v, drift).to_string(),
            _ => json!({"jsonrpc": "2.0", "id": null,
                        "error": {"code": -32700, "message": "parse error"}})
            .to_string(),
        }
    }

    fn one(&mut self, req: &Value, drift: &Drifts) -> Value {
        let id = req.get("id").cloned().unwrap_or(Value::Null);
        let method = req.get("method").and_then(Value::as_str).unwrap_or("");
        let empty = Value::Array(Vec::new());
        let params = req.get("params").unwrap_or(&empty);
        match self.dispatch(method, params, drift) {
            Ok(result) => json!({"jsonrpc": "2.0", "id": id, "result": result}),
            Err(e) => {
                let mut err = json!({"code": e.code, "message": e.message});
                if let Some(d) = e.data {
                    err["data"] = json!(hex::encode_prefixed(d));
                }
                json!({"jsonrpc": "2.0", "id": id, "error": err})
            }
        }
    }

    fn dispatch(&mut self, method: &str, p: &Value, drift: &Drifts) -> Result<Value, RpcError> {
        let q = |n: u128| json!(format!("{n:#x}"));
        match method {
            "eth_chainId" => Ok(q(u128::from(self.ledger.chain_id()))),
            "net_version" => Ok(json!(self.ledger.chain_id().to_string())),
            "eth_blockNumber" => Ok(q(u128::from(self.block))),
            "eth_gasPrice" => Ok(q(BASE_FEE + TIP)),
            "eth_maxPriorityFeePerGas" => Ok(q(TIP)),
            "eth_getBlockByNumber" => Ok(json!({
                "number": format!("{:#x}", self.block),
                "baseFeePerGas": format!("{BASE_FEE:#x}"),
            })),
            "eth_getTransactionCount" => {
                let who = param_address(p, 0)?;
                Ok(q(u128::from(self.nonces.get(&who).copied().unwrap_or(0))))
            }
            "eth_getBalance" => {
                let who = param_address(p, 0)?;
                let b = self
                    .ledger
                    .balances
                    .native
                    .get(&who)
                    .copied()
                    .unwrap_or_default();
                Ok(json!(format!("{b:#x}")))
            }
            "eth_getCode" => {
                let at = param_address(p, 0)?;
                let deployed = [&self.ledger.contracts, &self.ledger.v2]
                    .iter()
                    .any(|t| t.entries().any(|(_, a)| a == at))
                    && !(drift.has(Drift::MissingContractCode)
                        && Some(at) == self.ledger.v2.router);
                Ok(json!(if deployed { PLACEHOLDER_CODE } else { "0x" }))
            }
            "eth_call" => {
                let (call, _) = param_call(p)?;
                let out = self.ledger.read(&call).map_err(|r| RpcError::revert(&r))?;
                Ok(json!(hex::encode_prefixed(out)))
            }
            "eth_estimateGas" => {
                let (call, from) = param_call(p)?;
                let from = from.unwrap_or(Address::ZERO);
                // A dry run on the real state, undone whatever happens.
                let snapshot = self.ledger.balances.clone();
                let result = self.ledger.apply(from, &call);
                self.ledger.balances = snapshot;
                result.map_err(|r| RpcError::revert(&r))?;
                Ok(q(u128::from(gas_for(call.data()))))
            }
            "eth_sendRawTransaction" => {
                let raw = p
                    .get(0)
                    .and_then(Value::as_str)
                    .and_then(|s| hex::decode(s).ok())
                    .ok_or_else(|| RpcError::invalid("expected raw transaction hex"))?;
                self.send_raw(&raw).map(|h| json!(h.to_string()))
            }
            "eth_getTransactionReceipt" => {
                let hash = p
                    .get(0)
                    .and_then(Value::as_str)
                    .and_then(|s| s.parse::<B256>().ok())
                    .ok_or_else(|| RpcError::invalid("expected a transaction hash"))?;
                Ok(self.mined.get(&hash).map_or(Value::Null, |m| {
                    json!({
                        "transactionHash": hash.to_string(),
                        "status": if m.success { "0x1" } else { "0x0" },
                        "blockNumber": format!("{:#x}", m.block),
                        "gasUsed": format!("{:#x}", m.gas_used),
                        "effectiveGasPrice": format!("{:#x}", m.price),
                        "from": m.from.to_string(),
                        "to": m.to.to_string(),
                    })
                }))
            }
            _ => Err(RpcError::new(
                -32601,
                format!("the method {method} does not exist/is not available"),
            )),
        }
    }

    fn send_raw(&mut self, raw: &[u8]) -> Result<B256, RpcError> {
        let signed = SignedTx::decode(raw)
            .map_err(|e| RpcError::new(-32000, format!("rlp: {}", e.what())))?;
        let tx = signed.tx();
        let chain_id = self.ledger.chain_id();
        if tx.chain_id != chain_id {
            return Err(RpcError::new(
                -32000,
                format!("invalid chain id {} (expected {chain_id})", tx.chain_id),
            ));
        }
        let from = signed
            .recover_sender()
            .map_err(|_| RpcError::new(-32000, "invalid sender: signature does not recover"))?;
        let next = self.nonces.get(&from).copied().unwrap_or(0);
        if tx.nonce < next {
            return Err(RpcError::new(
                -32000,
                format!("nonce too low: next nonce {next}, tx nonce {}", tx.nonce),
            ));
        }
        if tx.max_fee_per_gas < BASE_FEE {
            return Err(RpcError::new(
                -32000,
                format!(
                    "max fee per gas less than block base fee: maxFeePerGas: {}, baseFee: {BASE_FEE}",
                    tx.max_fee_per_gas
                ),
            ));
        }
        if tx.max_priority_fee_per_gas > tx.max_fee_per_gas {
            return Err(RpcError::new(
                -32000,
                "max priority fee per gas higher than max fee per gas",
            ));
        }
        let have = self.native_of(from);
        let cost = tx.max_cost();
        if have < cost {
            return Err(RpcError::new(
                -32000,
                format!(
                    "insufficient funds for gas * price + value: address {from} have {have} want {cost}"
                ),
            ));
        }
        let hash = signed.hash();
        if self.mined.contains_key(&hash) {
            return Err(RpcError::new(-32000, "already known"));
        }
        if tx.nonce > next {
            // A future nonce waits in the account's queue until the gap fills.
            let queue = self.queued.entry(from).or_default();
            if queue.len() >= 64 {
                return Err(RpcError::new(-32000, "txpool is full for this account"));
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

    fn native_of(&self, who: Address) -> U256 {
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

fn param_address(p: &Value, i: usize) -> Result<Address, RpcError> {
    p.get(i)
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| RpcError::invalid("expected an address"))
}

fn param_call(p: &Value) -> Result<(Call, Option<Address>), RpcError> {
    let obj = p
        .get(0)
        .ok_or_else(|| RpcError::invalid("missing call object"))?;
    let to: Address = obj
        .get("to")
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| RpcError::invalid("call without a valid `to`"))?;
    let data = obj
        .get("data")
        .or_else(|| obj.get("input"))
        .and_then(Value::as_str)
        .map_or(Ok(Vec::new()), hex::decode)
        .map_err(|_| RpcError::invalid("bad call data hex"))?;
    let from = obj
        .get("from")
        .and_then(Value::as_str)
        .and_then(|s| s.parse().ok());
    Ok((Call::new(to, data), from))
}

/// `POST /rpc`: the chain's JSON-RPC endpoint (404 when the chain is off).
pub(crate) fn serve(shared: &Shared, body: &[u8]) -> Response<Full<Bytes>> {
    let mut ex = shared.ex();
    match ex.chain.as_mut() {
        Some(chain) => json_response(StatusCode::OK, chain.handle(body, &shared.drift)),
        None => error_response(
            StatusCode::NOT_FOUND,
            "the simulator chain is off (SimBuilder::onchain)",
        ),
    }
}

impl SimHandle {
    /// The chain's JSON-RPC URL, `http://127.0.0.1:<port>/rpc` (with [`SimBuilder::onchain`](super::SimBuilder::onchain)).
    #[must_use]
    pub fn rpc_url(&self) -> String {
        format!("http://{}/rpc", self.addr())
    }

    fn with_chain<T>(&self, f: impl FnOnce(&mut SimChain) -> T) -> Option<T> {
        self.shared.ex().chain.as_mut().map(f)
    }

    /// Credits `amount` collateral (pUSD, 10⁻⁶ units) to `to`; false when the chain is off.
    pub fn fund_collateral(&self, to: Address, amount: U256) -> bool {
        self.with_chain(|c| c.ledger.mint_collateral(to, amount))
            .is_some()
    }

    /// Credits `wei` of the native token (for gas) to `to`; false when the chain is off.
    pub fn fund_native(&self, to: Address, wei: U256) -> bool {
        self.with_chain(|c| {
            let b = c.ledger.balances.native.entry(to).or_default();
            *b = b.saturating_add(wei);
        })
        .is_some()
    }

    /// Resolves a binary market on the chain: outcome `winner` (0 = the first token) pays 1,
    /// the other 0. False for an unknown condition, a bad index or the chain off. A V2
    /// condition may be given in its 62-hex (`bytes31`) or padded 64-hex form.
    pub fn resolve_market(&self, condition_id: &str, winner: usize) -> bool {
        let Some(id) = crate::ledger::condition_word(condition_id) else {
            return false;
        };
        self.with_chain(|c| c.ledger.resolve(id, winner))
            .unwrap_or(false)
    }
}
