//! The chain's JSON-RPC endpoint, `POST /rpc` (feature `onchain`), over the simulator's chain
//! (`exchange/chain.rs`).
//!
//! Enable it with [`SimBuilder::onchain`](crate::SimBuilder::onchain). Serves the methods
//! [`onchain::Settler`](polyclob::onchain::Settler) uses (`eth_chainId`, `eth_call`,
//! `eth_estimateGas`, `eth_getTransactionCount`, `eth_getBalance`, `eth_getBlockByNumber`,
//! `eth_maxPriorityFeePerGas`, `eth_gasPrice`, `eth_sendRawTransaction`,
//! `eth_getTransactionReceipt`), single or batched, and `eth_getCode` (a placeholder bytecode
//! at every address of the contract tables the ledger uses, `0x` elsewhere).

use alloy_primitives::{Address, B256, hex};
use serde_json::{Value, json};

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Response, StatusCode};

use super::http::{error_response, json_response};
use super::shared::Shared;
use crate::exchange::chain::{BASE_FEE, SimChain, TIP, gas_for};
use crate::exchange::ledger::Revert;
use crate::scenario::drift::{Drift, Drifts};
use polyclob::onchain::Call;

/// What `eth_getCode` answers for a contract: the usual Solidity prologue
/// (`PUSH1 0x80 PUSH1 0x40 MSTORE`), standing for bytecode the simulator does not run.
const PLACEHOLDER_CODE: &str = "0x6080604052";

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

/// Answers one HTTP body: a request object or a batch array.
fn handle(chain: &mut SimChain, body: &[u8], drift: &Drifts) -> String {
    match serde_json::from_slice::<Value>(body) {
        Ok(Value::Array(items)) if !items.is_empty() => {
            let out: Vec<Value> = items.iter().map(|r| one(chain, r, drift)).collect();
            Value::Array(out).to_string()
        }
        Ok(v @ Value::Object(_)) => one(chain, &v, drift).to_string(),
        _ => json!({"jsonrpc": "2.0", "id": null,
                    "error": {"code": -32700, "message": "parse error"}})
        .to_string(),
    }
}

fn one(chain: &mut SimChain, req: &Value, drift: &Drifts) -> Value {
    let id = req.get("id").cloned().unwrap_or(Value::Null);
    let method = req.get("method").and_then(Value::as_str).unwrap_or("");
    let empty = Value::Array(Vec::new());
    let params = req.get("params").unwrap_or(&empty);
    match dispatch(chain, method, params, drift) {
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

fn dispatch(
    chain: &mut SimChain,
    method: &str,
    p: &Value,
    drift: &Drifts,
) -> Result<Value, RpcError> {
    let q = |n: u128| json!(format!("{n:#x}"));
    match method {
        "eth_chainId" => Ok(q(u128::from(chain.ledger.chain_id()))),
        "net_version" => Ok(json!(chain.ledger.chain_id().to_string())),
        "eth_blockNumber" => Ok(q(u128::from(chain.block))),
        "eth_gasPrice" => Ok(q(BASE_FEE + TIP)),
        "eth_maxPriorityFeePerGas" => Ok(q(TIP)),
        "eth_getBlockByNumber" => Ok(json!({
            "number": format!("{:#x}", chain.block),
            "baseFeePerGas": format!("{BASE_FEE:#x}"),
        })),
        "eth_getTransactionCount" => {
            let who = param_address(p, 0)?;
            Ok(q(u128::from(chain.nonces.get(&who).copied().unwrap_or(0))))
        }
        "eth_getBalance" => {
            let who = param_address(p, 0)?;
            let b = chain
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
            let deployed = [&chain.ledger.contracts, &chain.ledger.v2]
                .iter()
                .any(|t| t.entries().any(|(_, a)| a == at))
                && !(drift.has(Drift::MissingContractCode) && Some(at) == chain.ledger.v2.router);
            Ok(json!(if deployed { PLACEHOLDER_CODE } else { "0x" }))
        }
        "eth_call" => {
            let (call, _) = param_call(p)?;
            let out = chain.ledger.read(&call).map_err(|r| RpcError::revert(&r))?;
            Ok(json!(hex::encode_prefixed(out)))
        }
        "eth_estimateGas" => {
            let (call, from) = param_call(p)?;
            let from = from.unwrap_or(Address::ZERO);
            // A dry run on the real state, undone whatever happens.
            let snapshot = chain.ledger.balances.clone();
            let result = chain.ledger.apply(from, &call);
            chain.ledger.balances = snapshot;
            result.map_err(|r| RpcError::revert(&r))?;
            Ok(q(u128::from(gas_for(call.data()))))
        }
        "eth_sendRawTransaction" => {
            let raw = p
                .get(0)
                .and_then(Value::as_str)
                .and_then(|s| hex::decode(s).ok())
                .ok_or_else(|| RpcError::invalid("expected raw transaction hex"))?;
            chain
                .send_raw(&raw)
                .map(|h| json!(h.to_string()))
                .map_err(|message| RpcError::new(-32000, message))
        }
        "eth_getTransactionReceipt" => {
            let hash = p
                .get(0)
                .and_then(Value::as_str)
                .and_then(|s| s.parse::<B256>().ok())
                .ok_or_else(|| RpcError::invalid("expected a transaction hash"))?;
            Ok(chain.mined.get(&hash).map_or(Value::Null, |m| {
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
        Some(chain) => json_response(StatusCode::OK, handle(chain, body, &shared.drift)),
        None => error_response(
            StatusCode::NOT_FOUND,
            "the simulator chain is off (SimBuilder::onchain)",
        ),
    }
}
