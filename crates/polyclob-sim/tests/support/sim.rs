//! Shared helpers for the simulator's integration tests: a plain HTTP client that signs L1/L2
//! headers and orders with the crate's `sign` module, and a small WS client.

#![allow(dead_code, unreachable_pub, clippy::unwrap_used)]

use std::time::{Duration, SystemTime, UNIX_EPOCH};

use alloy_primitives::{Address, U256};
use futures_util::{SinkExt, StreamExt};
use polyclob::clob::Credentials;
use polyclob::order::{Order, TokenId};
use polyclob::sign::Signer;
use polyclob::sign::clob_auth::L1Headers;
use polyclob::sign::eip712::{compute_exchange_domain, order_hash};
use polyclob::sign::hmac::HmacKey;
use polyclob::types::{Chain, ExchangeVersion, Side, SignatureType, contracts};
use polyclob_sim::{MarketSpec, SimHandle, Simulator};
use serde_json::{Value, json};
use tokio::net::TcpStream;
use tokio_tungstenite::tungstenite::Message;
use tokio_tungstenite::{MaybeTlsStream, WebSocketStream};

/// Hardhat/Anvil account #0 (protocol.md §0.5): a public test key.
pub const KEY_A: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
/// Hardhat/Anvil account #1: a second public test key.
pub const KEY_B: &str = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";

pub fn now_s() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs()
}

/// Installs ring as the process's default TLS provider (later calls do nothing). reqwest is
/// built without a provider of its own (polyclob hands it ring explicitly), so building a
/// plain reqwest client without one panics.
pub fn install_tls() {
    let _ = rustls::crypto::ring::default_provider().install_default();
}

/// A plain reqwest client (see [`install_tls`]).
pub fn http_client() -> reqwest::Client {
    install_tls();
    reqwest::Client::new()
}

pub async fn start(seed: u64) -> SimHandle {
    Simulator::builder().seed(seed).start().await.unwrap()
}

pub fn markets() -> Vec<MarketSpec> {
    MarketSpec::defaults()
}

/// A trading identity: key, credentials, HTTP client.
pub struct Trader {
    pub signer: Signer,
    pub creds: Credentials,
    pub base: String,
    pub http: reqwest::Client,
}

pub fn l1_headers(signer: &Signer, ts: u64, nonce: u64) -> Vec<(&'static str, String)> {
    let h = L1Headers::new(signer, 137, ts, U256::from(nonce)).unwrap();
    vec![
        ("POLY_ADDRESS", h.address().to_owned()),
        ("POLY_SIGNATURE", h.signature().to_owned()),
        ("POLY_TIMESTAMP", h.timestamp().to_owned()),
        ("POLY_NONCE", h.nonce().to_owned()),
    ]
}

impl Trader {
    /// Creates credentials through `POST /auth/api-key` (L1) for a funded account: its EOA
    /// and its derived Safe and proxy wallets each get [`FUNDS`] pUSD and [`SHARES`] of every
    /// outcome token of the simulator's markets, with the exchange approvals.
    pub async fn new(sim: &SimHandle, key: &str) -> Self {
        let t = Self::unfunded(sim, key).await;
        fund_all(sim, t.address());
        t
    }

    /// Creates credentials through `POST /auth/api-key` (L1) for an account with no money.
    pub async fn unfunded(sim: &SimHandle, key: &str) -> Self {
        let signer = Signer::from_hex(key).unwrap();
        let http = http_client();
        let mut req = http.post(format!("{}/auth/api-key", sim.http_url()));
        for (k, v) in l1_headers(&signer, now_s(), 0) {
            req = req.header(k, v);
        }
        let resp = req.send().await.unwrap();
        assert_eq!(resp.status(), 200);
        let v: Value = serde_json::from_str(&resp.text().await.unwrap()).unwrap();
        let creds = Credentials::new(
            v["apiKey"].as_str().unwrap(),
            v["secret"].as_str().unwrap(),
            v["passphrase"].as_str().unwrap(),
        );
        Self {
            signer,
            creds,
            base: sim.http_url(),
            http,
        }
    }

    pub fn address(&self) -> Address {
        self.signer.address()
    }

    /// An L2-signed request; `path` may carry a query string (not signed, as on the exchange).
    pub async fn l2(
        &self,
        method: &str,
        path_and_query: &str,
        body: Option<&str>,
    ) -> (u16, Value, reqwest::header::HeaderMap) {
        let path = path_and_query.split('?').next().unwrap();
        let ts = now_s();
        let body_bytes = body.unwrap_or("").as_bytes();
        let sig = HmacKey::from_base64url(self.creds.secret())
            .unwrap()
            .sign(ts, method, path, body_bytes);
        let m = reqwest::Method::from_bytes(method.as_bytes()).unwrap();
        let mut req = self
            .http
            .request(m, format!("{}{}", self.base, path_and_query))
            .header("POLY_ADDRESS", self.address().to_checksum(None))
            .header("POLY_SIGNATURE", sig.as_str())
            .header("POLY_TIMESTAMP", ts.to_string())
            .header("POLY_API_KEY", self.creds.api_key())
            .header("POLY_PASSPHRASE", self.creds.passphrase());
        if let Some(b) = body {
            req = req
                .header("content-type", "application/json")
                .body(b.to_owned());
        }
        let resp = req.send().await.unwrap();
        let status = resp.status().as_u16();
        let headers = resp.headers().clone();
        let text = resp.text().await.unwrap();
        let v = serde_json::from_str(&text).unwrap_or(Value::String(text));
        (status, v, headers)
    }

    /// Builds, signs and serializes a V2/V3 limit or market order body.
    pub fn order_body(&self, o: &OrderSpec) -> (String, String) {
        // Fixture markets carry their own flags; custom test markets are plain V2.
        let spec = markets()
            .into_iter()
            .find(|m| m.tokens().iter().any(|t| t.token_id() == o.token));
        let v3 = spec.as_ref().is_some_and(MarketSpec::is_position_ids);
        let version = o.version.unwrap_or(if v3 {
            ExchangeVersion::V3
        } else {
            ExchangeVersion::V2
        });
        let neg_risk = o
            .neg_risk
            .unwrap_or(spec.as_ref().is_some_and(MarketSpec::is_neg_risk));
        let mut order = Order::zeroed(version);
        order.salt = o.salt;
        order.maker = o.maker.unwrap_or(self.address());
        order.signer = self.address();
        order.token_id = TokenId::parse(o.token.as_bytes()).unwrap();
        order.maker_amount = o.maker_amount;
        order.taker_amount = o.taker_amount;
        order.side = o.side;
        order.signature_type = o.sig_type;
        order.timestamp_ms = 1_767_225_600_123 + o.salt;
        order.expiration = o.expiration;
        let exchange = contracts(Chain::Polygon, version).exchange_for(neg_risk);
        let domain = compute_exchange_domain(version, 137, exchange);
        let hash = order_hash(&domain, &order);
        let signer: &Signer = o.sign_with.as_deref().unwrap_or(&self.signer);
        let sig = signer.sign_prehash(&hash.0).unwrap().to_hex_string();
        let body = json!({
            "order": {
                "salt": order.salt,
                "maker": order.maker.to_checksum(None),
                "signer": order.signer.to_checksum(None),
                "tokenId": o.token,
                "makerAmount": order.maker_amount.to_string(),
                "takerAmount": order.taker_amount.to_string(),
                "side": o.side.as_str(),
                "expiration": o.expiration.to_string(),
                "signatureType": o.sig_type.as_u8(),
                "timestamp": order.timestamp_ms.to_string(),
                "metadata": format!("{:#x}", order.metadata),
                "builder": format!("{:#x}", order.builder),
                "signature": sig,
            },
            "owner": o.owner.clone().unwrap_or_else(|| self.creds.api_key().to_owned()),
            "orderType": o.order_type,
            "deferExec": false,
            "postOnly": o.post_only,
        });
        (body.to_string(), format!("{hash:#x}"))
    }

    /// Posts one order; returns (status, response, expected order id).
    pub async fn post(&self, o: &OrderSpec) -> (u16, Value, String) {
        let (body, id) = self.order_body(o);
        let (s, v, _) = self.l2("POST", "/order", Some(&body)).await;
        (s, v, id)
    }
}

/// What to put in a test order. Prices/sizes are given as amounts (10⁻⁶ units).
#[derive(Clone)]
pub struct OrderSpec {
    pub token: String,
    pub side: Side,
    pub maker_amount: u64,
    pub taker_amount: u64,
    pub order_type: &'static str,
    pub post_only: bool,
    pub expiration: u64,
    pub salt: u64,
    pub sig_type: SignatureType,
    pub maker: Option<Address>,
    pub owner: Option<String>,
    pub version: Option<ExchangeVersion>,
    pub neg_risk: Option<bool>,
    pub sign_with: Option<std::sync::Arc<Signer>>,
}

impl std::fmt::Debug for OrderSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OrderSpec")
            .field("token", &self.token)
            .field("side", &self.side)
            .finish()
    }
}

/// A limit order: `size` shares (micro) at `price` (micro).
pub fn limit(token: &str, side: Side, price: u64, size: u64, salt: u64) -> OrderSpec {
    let usdc = size * price / 1_000_000;
    let (maker_amount, taker_amount) = match side {
        Side::Buy => (usdc, size),
        Side::Sell => (size, usdc),
    };
    OrderSpec {
        token: token.to_owned(),
        side,
        maker_amount,
        taker_amount,
        order_type: "GTC",
        post_only: false,
        expiration: 0,
        salt,
        sig_type: SignatureType::Eoa,
        maker: None,
        owner: None,
        version: None,
        neg_risk: None,
        sign_with: None,
    }
}

pub async fn get(sim: &SimHandle, path: &str) -> (u16, Value) {
    let resp = http_client()
        .get(format!("{}{}", sim.http_url(), path))
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

pub async fn post_json(sim: &SimHandle, path: &str, body: &str) -> (u16, Value) {
    let resp = http_client()
        .post(format!("{}{}", sim.http_url(), path))
        .body(body.to_owned())
        .send()
        .await
        .unwrap();
    let status = resp.status().as_u16();
    let text = resp.text().await.unwrap();
    (
        status,
        serde_json::from_str(&text).unwrap_or(Value::String(text)),
    )
}

pub type Ws = WebSocketStream<MaybeTlsStream<TcpStream>>;

pub async fn ws(sim: &SimHandle, channel: &str) -> Ws {
    let (ws, _) = tokio_tungstenite::connect_async(format!("{}/ws/{channel}", sim.ws_url()))
        .await
        .unwrap();
    ws
}

pub async fn send(ws: &mut Ws, text: &str) {
    ws.send(Message::Text(text.to_owned().into()))
        .await
        .unwrap();
}

/// The next text frame, or `None` after `timeout` / on close.
pub async fn next_text(ws: &mut Ws, timeout: Duration) -> Option<String> {
    loop {
        match tokio::time::timeout(timeout, ws.next()).await {
            Ok(Some(Ok(Message::Text(t)))) => return Some(t.to_string()),
            Ok(Some(Ok(Message::Ping(_) | Message::Pong(_)))) => continue,
            _ => return None,
        }
    }
}

/// Next frame parsed as JSON events (a frame may be one object or an array of them).
pub async fn next_events(ws: &mut Ws, timeout: Duration) -> Option<Vec<Value>> {
    let t = next_text(ws, timeout).await?;
    match serde_json::from_str::<Value>(&t).ok()? {
        Value::Array(a) => Some(a),
        v => Some(vec![v]),
    }
}

/// Reads frames until one contains an event with `event_type == kind`.
pub async fn wait_event(ws: &mut Ws, kind: &str, timeout: Duration) -> Option<Value> {
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        let left = deadline.checked_duration_since(tokio::time::Instant::now())?;
        let evs = next_events(ws, left).await?;
        if let Some(e) = evs.into_iter().find(|e| e["event_type"] == kind) {
            return Some(e);
        }
    }
}

/// A plain market with empty books: condition `COND`, tokens `YES`/`NO`, tick 0.01, min 5.
/// What [`Trader::new`] funds its account with: 1,000,000 pUSD (micro-units).
pub const FUNDS: u64 = 1_000_000 * 1_000_000;
/// The shares of each outcome token [`Trader::new`] funds (micro-units): 100,000.
pub const SHARES: u64 = 100_000 * 1_000_000;

/// Funds `eoa` and its derived Safe and proxy wallets with [`FUNDS`] pUSD and [`SHARES`] of
/// every outcome token on `sim`.
pub fn fund_all(sim: &SimHandle, eoa: Address) {
    use polyclob::sign::wallet::{derive_proxy_wallet, derive_safe_wallet};
    let wallets = [
        Some(eoa),
        Some(derive_safe_wallet(eoa, Chain::Polygon)),
        derive_proxy_wallet(eoa, Chain::Polygon),
    ];
    for w in wallets.into_iter().flatten() {
        sim.fund(w, FUNDS);
        for m in sim.markets() {
            for t in m.tokens() {
                assert!(sim.fund_tokens(w, t.token_id(), SHARES));
            }
        }
    }
}

pub const COND: &str = "0x00000000000000000000000000000000000000000000000000000000000000c1";
pub const YES: &str = "1001";
pub const NO: &str = "1002";

pub fn empty_market() -> MarketSpec {
    MarketSpec::binary(COND, "Empty test market", [YES, NO]).seed_levels(0)
}

pub async fn start_empty() -> SimHandle {
    Simulator::builder()
        .markets(vec![empty_market()])
        .start()
        .await
        .unwrap()
}

pub const SHORT: Duration = Duration::from_millis(300);
pub const LONG: Duration = Duration::from_secs(5);
