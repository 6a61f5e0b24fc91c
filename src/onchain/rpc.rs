//! [`Rpc`]: a JSON-RPC 2.0 client on the crate's one HTTP transport, with batching.
//!
//! Only the handful of `eth_*` methods settlement needs, typed at the edge: quantities are
//! parsed from their `0x…` hex, data from hex bytes; anything else is an [`Error`] (never a
//! panic). Batches are sent as one JSON array when the node accepts it and fall back to one
//! request per call when it does not (some hosted endpoints disable batching).

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use alloy_primitives::{Address, B256, U256, hex};
use serde_json::{Value, json};

use super::call::Call;
use super::error::{Error, Kind};

/// A JSON-RPC endpoint (a Polygon node URL the user gives, or the simulator's chain).
///
/// Cheap to clone (one `Arc`).
///
/// ```no_run
/// # async fn f() -> Result<(), polyclob::onchain::Error> {
/// let rpc = polyclob::onchain::Rpc::new("https://polygon-rpc.example")?;
/// let chain_id = rpc.chain_id().await?;
/// # let _ = chain_id; Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct Rpc {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    /// The transport, its host the endpoint URL as given.
    http: crate::http::Client,
    next_id: AtomicU64,
    /// Cleared once the node refuses a batch; later batches go one by one.
    batch_ok: AtomicBool,
}

/// A mined transaction's receipt, as far as settlement needs it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Receipt {
    /// The transaction hash.
    pub hash: B256,
    /// `true` when the transaction succeeded (status 1).
    pub success: bool,
    /// The block it was mined in.
    pub block_number: u64,
    /// Gas used.
    pub gas_used: u64,
    /// The price paid per gas, in wei.
    pub effective_gas_price: u128,
}

/// Per-request timeout of the default transport (a node may take long to answer).
const REQUEST_TIMEOUT: Duration = Duration::from_secs(30);

impl Rpc {
    /// A client for `url` on the crate's HTTP transport (TLS, pool, DNS cache as the CLOB
    /// client's) with a 30 s request timeout.
    ///
    /// # Errors
    /// When the TLS configuration or the HTTP client cannot be built.
    ///
    /// The proxy environment variables are honoured (`HTTPS_PROXY`, `HTTP_PROXY`,
    /// `ALL_PROXY`, `NO_PROXY`; [`Proxy`](crate::http::Proxy#where-it-applies)).
    pub fn new(url: impl Into<String>) -> Result<Self, Error> {
        Self::build(url.into(), crate::http::proxy::Setting::Env)
    }

    /// As [`new`](Self::new), with the builder's proxy choice.
    pub(crate) fn with_proxy(
        url: impl Into<String>,
        proxy: crate::http::proxy::Setting,
    ) -> Result<Self, Error> {
        Self::build(url.into(), proxy)
    }

    fn build(url: String, proxy: crate::http::proxy::Setting) -> Result<Self, Error> {
        let mut settings = crate::http::Settings::new(url);
        settings.timeout = Some(REQUEST_TIMEOUT);
        let route = proxy.resolve();
        settings.proxy = proxy;
        let http = settings
            .build(&route)
            .map_err(|e| Error::invalid("HTTP client").with_source(e))?;
        Ok(Self::on(http))
    }

    /// A client for `url` over an existing `reqwest::Client` (shares its pool and settings).
    #[must_use]
    pub fn with_client(http: reqwest::Client, url: impl Into<String>) -> Self {
        Self::on(crate::http::Client::from_reqwest(http, url.into()))
    }

    fn on(http: crate::http::Client) -> Self {
        Self {
            inner: Arc::new(Inner {
                http,
                next_id: AtomicU64::new(1),
                batch_ok: AtomicBool::new(true),
            }),
        }
    }

    /// The endpoint URL.
    #[must_use]
    pub fn url(&self) -> &str {
        self.inner.http.host()
    }

    async fn post(&self, body: &Value) -> Result<Value, Error> {
        let http = &self.inner.http;
        let rb = http
            .request_url(reqwest::Method::POST, http.host())
            .header(reqwest::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        let (status, bytes) = http.exchange(rb).await.map_err(Error::http)?;
        if !(200..300).contains(&status) && crate::json::from_body::<Value>(&bytes).is_err() {
            return Err(Error::new(Kind::Status(status)));
        }
        crate::json::from_body(&bytes).map_err(|_| Error::new(Kind::Decode("response is not JSON")))
    }

    /// One JSON-RPC call; the `result` member, or the node's error classified.
    ///
    /// # Errors
    /// Transport failures, HTTP errors, and the node's JSON-RPC errors (reverts, insufficient
    /// funds, nonce too low, …) as [`Error`] predicates.
    pub async fn request(&self, method: &str, params: Value) -> Result<Value, Error> {
        let id = self.inner.next_id.fetch_add(1, Ordering::Relaxed);
        let body = json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params});
        let resp = self.post(&body).await?;
        take_result(resp)
    }

    /// Several calls in one JSON-RPC batch (or one by one where the node refuses batches).
    /// Results come back in the order of `calls`, each on its own.
    ///
    /// # Errors
    /// The outer error is a transport failure of the whole batch.
    pub async fn batch(&self, calls: &[(&str, Value)]) -> Result<Vec<Result<Value, Error>>, Error> {
        if calls.len() > 1 && self.inner.batch_ok.load(Ordering::Relaxed) {
            let first = self
                .inner
                .next_id
                .fetch_add(calls.len() as u64, Ordering::Relaxed);
            let body: Vec<Value> = calls
                .iter()
                .enumerate()
                .map(|(i, (m, p))| {
                    json!({"jsonrpc": "2.0", "id": first + i as u64, "method": m, "params": p})
                })
                .collect();
            let resp = self.post(&Value::Array(body)).await?;
            if let Value::Array(items) = resp {
                let mut out: Vec<Option<Result<Value, Error>>> =
                    (0..calls.len()).map(|_| None).collect();
                for item in items {
                    let slot = item
                        .get("id")
                        .and_then(Value::as_u64)
                        .and_then(|id| id.checked_sub(first))
                        .and_then(|i| usize::try_from(i).ok())
                        .and_then(|i| out.get_mut(i));
                    if let Some(slot) = slot {
                        *slot = Some(take_result(item));
                    }
                }
                return Ok(out
                    .into_iter()
                    .map(|r| {
                        r.unwrap_or_else(|| {
                            Err(Error::new(Kind::Decode("batch answer misses an id")))
                        })
                    })
                    .collect());
            }
            // A single error object for the whole batch: the node does not batch.
            self.inner.batch_ok.store(false, Ordering::Relaxed);
        }
        let mut out = Vec::with_capacity(calls.len());
        for (m, p) in calls {
            out.push(self.request(m, p.clone()).await);
        }
        Ok(out)
    }

    /// `eth_chainId`.
    ///
    /// # Errors
    /// As [`request`](Self::request).
    pub async fn chain_id(&self) -> Result<u64, Error> {
        quantity_u64(&self.request("eth_chainId", json!([])).await?)
    }

    /// `eth_call` of `call` from `from` at the latest block; the return data.
    ///
    /// # Errors
    /// As [`request`](Self::request); a revert is [`Error::is_revert`] with its reason.
    pub async fn call(&self, call: &Call, from: Option<Address>) -> Result<Vec<u8>, Error> {
        data_bytes(&self.request("eth_call", call_params(call, from)).await?)
    }

    /// Several `eth_call`s in one batch.
    ///
    /// # Errors
    /// The outer error is a transport failure; each call has its own result.
    pub async fn call_many(&self, calls: &[Call]) -> Result<Vec<Result<Vec<u8>, Error>>, Error> {
        let reqs: Vec<(&str, Value)> = calls
            .iter()
            .map(|c| ("eth_call", call_params(c, None)))
            .collect();
        Ok(self
            .batch(&reqs)
            .await?
            .into_iter()
            .map(|r| r.and_then(|v| data_bytes(&v)))
            .collect())
    }

    /// `eth_estimateGas` for `call` sent from `from`.
    ///
    /// # Errors
    /// As [`request`](Self::request); a call that would revert is [`Error::is_revert`].
    pub async fn estimate_gas(&self, call: &Call, from: Address) -> Result<u64, Error> {
        let p = call_params(call, Some(from));
        let Value::Array(mut a) = p else {
            return Err(Error::invalid("params"));
        };
        a.truncate(1);
        quantity_u64(&self.request("eth_estimateGas", Value::Array(a)).await?)
    }

    /// `eth_getTransactionCount(address, block)`: `"pending"` for the next nonce to use,
    /// `"latest"` for the mined count.
    ///
    /// # Errors
    /// As [`request`](Self::request).
    pub async fn transaction_count(&self, address: Address, block: &str) -> Result<u64, Error> {
        quantity_u64(
            &self
                .request(
                    "eth_getTransactionCount",
                    json!([address.to_string(), block]),
                )
                .await?,
        )
    }

    /// `eth_getBalance(address, "latest")`: the native balance in wei.
    ///
    /// # Errors
    /// As [`request`](Self::request).
    pub async fn balance(&self, address: Address) -> Result<U256, Error> {
        quantity_u256(
            &self
                .request("eth_getBalance", json!([address.to_string(), "latest"]))
                .await?,
        )
    }

    /// The latest block's `baseFeePerGas`.
    ///
    /// # Errors
    /// As [`request`](Self::request); a pre-London node has no base fee.
    pub async fn base_fee(&self) -> Result<u128, Error> {
        let block = self
            .request("eth_getBlockByNumber", json!(["latest", false]))
            .await?;
        let fee = block
            .get("baseFeePerGas")
            .ok_or(Error::new(Kind::Decode("block without baseFeePerGas")))?;
        quantity_u128(fee)
    }

    /// `eth_maxPriorityFeePerGas`: the node's suggested tip.
    ///
    /// # Errors
    /// As [`request`](Self::request).
    pub async fn max_priority_fee(&self) -> Result<u128, Error> {
        quantity_u128(&self.request("eth_maxPriorityFeePerGas", json!([])).await?)
    }

    /// `eth_sendRawTransaction`; the hash the node reports.
    ///
    /// # Errors
    /// As [`request`](Self::request): insufficient funds, nonce too low, underpriced, …
    pub async fn send_raw(&self, raw: &[u8]) -> Result<B256, Error> {
        let v = self
            .request("eth_sendRawTransaction", json!([hex::encode_prefixed(raw)]))
            .await?;
        parse_b256(&v)
    }

    /// `eth_getTransactionReceipt`; `None` while the transaction is not mined.
    ///
    /// # Errors
    /// As [`request`](Self::request), or a receipt missing its fields.
    pub async fn receipt(&self, hash: B256) -> Result<Option<Receipt>, Error> {
        let v = self
            .request("eth_getTransactionReceipt", json!([hash.to_string()]))
            .await?;
        if v.is_null() {
            return Ok(None);
        }
        let field = |name: &'static str| {
            v.get(name)
                .ok_or(Error::new(Kind::Decode("receipt field missing")))
        };
        Ok(Some(Receipt {
            hash,
            success: quantity_u64(field("status")?)? == 1,
            block_number: quantity_u64(field("blockNumber")?)?,
            gas_used: quantity_u64(field("gasUsed")?)?,
            effective_gas_price: v.get("effectiveGasPrice").map_or(Ok(0), quantity_u128)?,
        }))
    }
}

fn call_params(call: &Call, from: Option<Address>) -> Value {
    let mut obj = json!({"to": call.to().to_string(), "data": hex::encode_prefixed(call.data())});
    if call.value() != U256::ZERO {
        obj["value"] = json!(format!("{:#x}", call.value()));
    }
    if let Some(f) = from {
        obj["from"] = json!(f.to_string());
    }
    json!([obj, "latest"])
}

fn take_result(mut resp: Value) -> Result<Value, Error> {
    if let Some(err) = resp.get("error").filter(|e| !e.is_null()) {
        let code = err.get("code").and_then(Value::as_i64).unwrap_or(0);
        let message = err.get("message").and_then(Value::as_str).unwrap_or("");
        let data = err
            .get("data")
            .and_then(Value::as_str)
            .and_then(|s| hex::decode(s).ok());
        return Err(Error::from_rpc(code, message, data.as_deref()));
    }
    match resp.get_mut("result") {
        Some(r) => Ok(r.take()),
        None => Err(Error::new(Kind::Decode("neither result nor error"))),
    }
}

fn hex_str(v: &Value) -> Result<&str, Error> {
    v.as_str()
        .and_then(|s| s.strip_prefix("0x"))
        .ok_or(Error::new(Kind::Decode("expected a 0x-prefixed string")))
}

/// A JSON-RPC quantity (`0x…` hex, no leading zeros required) as U256.
pub(crate) fn quantity_u256(v: &Value) -> Result<U256, Error> {
    let s = hex_str(v)?;
    if s.is_empty() || s.len() > 64 {
        return Err(Error::new(Kind::Decode("bad quantity")));
    }
    U256::from_str_radix(s, 16).map_err(|_| Error::new(Kind::Decode("bad quantity")))
}

pub(crate) fn quantity_u64(v: &Value) -> Result<u64, Error> {
    u64::try_from(quantity_u256(v)?).map_err(|_| Error::new(Kind::Decode("quantity above u64")))
}

pub(crate) fn quantity_u128(v: &Value) -> Result<u128, Error> {
    u128::try_from(quantity_u256(v)?).map_err(|_| Error::new(Kind::Decode("quantity above u128")))
}

pub(crate) fn data_bytes(v: &Value) -> Result<Vec<u8>, Error> {
    hex::decode(hex_str(v)?).map_err(|_| Error::new(Kind::Decode("bad hex data")))
}

pub(crate) fn parse_b256(v: &Value) -> Result<B256, Error> {
    let bytes = data_bytes(v)?;
    B256::try_from(bytes.as_slice()).map_err(|_| Error::new(Kind::Decode("expected 32 bytes")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quantities_parse_strictly() {
        assert_eq!(quantity_u64(&json!("0x0")).unwrap(), 0);
        assert_eq!(quantity_u64(&json!("0x1a")).unwrap(), 26);
        for bad in [
            json!("1a"),
            json!("0x"),
            json!(26),
            json!("0xzz"),
            json!(null),
        ] {
            assert!(quantity_u64(&bad).is_err(), "{bad}");
        }
        assert!(quantity_u64(&json!("0x10000000000000000")).is_err());
        assert_eq!(data_bytes(&json!("0x0102")).unwrap(), vec![1, 2]);
        assert!(data_bytes(&json!("0x012")).is_err());
        assert!(parse_b256(&json!("0x01")).is_err());
    }

    #[test]
    fn results_and_errors() {
        assert_eq!(
            take_result(json!({"jsonrpc":"2.0","id":1,"result":"0x1"})).unwrap(),
            json!("0x1")
        );
        let e =
            take_result(json!({"error":{"code":-32000,"message":"nonce too low"}})).unwrap_err();
        assert!(e.is_nonce_too_low());
        assert!(take_result(json!({"id":1})).is_err());
    }
}
