//! A loopback mock CLOB: a real HTTP/1.1 server on 127.0.0.1:0 with scripted answers.
//!
//! - Routes are scripted per `(METHOD, path)` (optionally per query), each a queue of
//!   responses; the last one repeats.
//! - Every request is recorded with its exact body bytes and headers.
//! - Error statuses, `Retry-After`, slow answers, malformed bodies and dropped connections
//!   are all just scripted responses.
//! - An optional verifier checks auth headers and answers 401 when they are wrong (the L2
//!   HMAC is recomputed over the bytes received, not over a re-serialisation).
#![allow(
    dead_code,
    unreachable_pub,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::type_complexity
)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request as it arrived.
#[derive(Clone, Debug)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub query: String,
    /// Header names lowercased.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
    /// The verifier's verdict, if one is installed and the request carried auth headers.
    pub auth: Option<Result<(), String>>,
}

impl Recorded {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn query_param(&self, key: &str) -> Option<String> {
        self.query.split('&').find_map(|kv| {
            let (k, v) = kv.split_once('=')?;
            (k == key).then(|| percent_decode(v))
        })
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(if b[i] == b'+' { b' ' } else { b[i] });
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// A scripted answer.
#[derive(Clone, Debug)]
pub struct Reply {
    pub status: u16,
    pub body: Vec<u8>,
    pub headers: Vec<(String, String)>,
    pub delay: Duration,
    /// Close the connection without answering.
    pub hang_up: bool,
}

impl Reply {
    pub fn json(body: impl Into<Vec<u8>>) -> Self {
        Self {
            status: 200,
            body: body.into(),
            headers: Vec::new(),
            delay: Duration::ZERO,
            hang_up: false,
        }
    }

    pub fn status(status: u16, body: impl Into<Vec<u8>>) -> Self {
        Self {
            status,
            ..Self::json(body)
        }
    }

    pub fn header(mut self, k: &str, v: &str) -> Self {
        self.headers.push((k.to_owned(), v.to_owned()));
        self
    }

    pub fn delay(mut self, d: Duration) -> Self {
        self.delay = d;
        self
    }

    pub fn hang_up() -> Self {
        Self {
            hang_up: true,
            ..Self::json("")
        }
    }
}

/// Checks the auth headers of a request; `Err(reason)` makes the mock answer 401.
pub type Verifier = Arc<dyn Fn(&Recorded) -> Option<Result<(), String>> + Send + Sync>;

#[derive(Default)]
struct State {
    routes: HashMap<(String, String), Vec<(Option<String>, Vec<Reply>)>>,
    log: Vec<Recorded>,
    verifier: Option<Verifier>,
}

/// The server. Dropping it stops accepting connections.
pub struct MockClob {
    pub addr: SocketAddr,
    state: Arc<Mutex<State>>,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for MockClob {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl MockClob {
    pub async fn start() -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let state = Arc::new(Mutex::new(State::default()));
        let st = Arc::clone(&state);
        let task = tokio::spawn(async move {
            loop {
                let Ok((sock, _)) = listener.accept().await else {
                    continue;
                };
                let _ = sock.set_nodelay(true);
                tokio::spawn(serve(sock, Arc::clone(&st)));
            }
        });
        Self { addr, state, task }
    }

    pub fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Scripts `method path` to answer with `replies` in turn; the last repeats.
    pub fn on(&self, method: &str, path: &str, replies: Vec<Reply>) {
        self.on_query(method, path, None, replies);
    }

    /// Like [`on`], only for requests whose query contains `query_has`.
    pub fn on_query(&self, method: &str, path: &str, query_has: Option<&str>, replies: Vec<Reply>) {
        let mut s = self.state.lock().unwrap();
        let v = s
            .routes
            .entry((method.to_owned(), path.to_owned()))
            .or_default();
        // Re-scripting a route replaces it; more specific (query-matched) routes come first.
        v.retain(|(q, _)| q.as_deref() != query_has);
        v.push((query_has.map(str::to_owned), replies));
        v.sort_by_key(|(q, _)| q.is_none());
    }

    pub fn set_verifier(&self, v: Verifier) {
        self.state.lock().unwrap().verifier = Some(v);
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.state.lock().unwrap().log.clone()
    }

    pub fn requests_to(&self, path: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.path == path)
            .collect()
    }

    pub fn clear_log(&self) {
        self.state.lock().unwrap().log.clear();
    }
}

async fn serve(mut sock: TcpStream, state: Arc<Mutex<State>>) {
    let mut buf: Vec<u8> = Vec::with_capacity(8192);
    loop {
        // Read until the end of the header block.
        let header_end = loop {
            if let Some(p) = find(&buf, b"\r\n\r\n") {
                break p;
            }
            let mut chunk = [0u8; 8192];
            match sock.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..header_end]).into_owned();
        let mut lines = head.split("\r\n");
        let request_line = lines.next().unwrap_or_default().to_owned();
        let mut parts = request_line.split(' ');
        let method = parts.next().unwrap_or_default().to_owned();
        let target = parts.next().unwrap_or_default().to_owned();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| {
                l.split_once(':')
                    .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_owned()))
            })
            .collect();
        let len: usize = headers
            .iter()
            .find(|(k, _)| k == "content-length")
            .and_then(|(_, v)| v.parse().ok())
            .unwrap_or(0);
        let body_start = header_end + 4;
        while buf.len() < body_start + len {
            let mut chunk = [0u8; 8192];
            match sock.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
        let body = buf[body_start..body_start + len].to_vec();
        buf.drain(..body_start + len);
        let (path, query) = match target.split_once('?') {
            Some((p, q)) => (p.to_owned(), q.to_owned()),
            None => (target.clone(), String::new()),
        };
        let mut rec = Recorded {
            method: method.clone(),
            path: path.clone(),
            query: query.clone(),
            headers,
            body,
            auth: None,
        };

        let reply = {
            let mut s = state.lock().unwrap();
            rec.auth = s.verifier.as_ref().and_then(|v| v(&rec));
            let denied = matches!(&rec.auth, Some(Err(_)));
            let reason = rec.auth.clone();
            s.log.push(rec);
            if denied {
                let msg = match reason {
                    Some(Err(m)) => m,
                    _ => String::new(),
                };
                Reply::status(
                    401,
                    serde_json::json!({ "error": format!("Unauthorized/Invalid api key: {msg}") })
                        .to_string(),
                )
            } else {
                match s.routes.get_mut(&(method, path)) {
                    Some(routes) => {
                        let slot = routes
                            .iter_mut()
                            .find(|(q, _)| q.as_deref().is_none_or(|q| query.contains(q)));
                        match slot {
                            Some((_, replies)) if replies.len() > 1 => replies.remove(0),
                            Some((_, replies)) if replies.len() == 1 => replies[0].clone(),
                            _ => Reply::status(404, r#"{"error":"no scripted reply"}"#),
                        }
                    }
                    None => Reply::status(404, r#"{"error":"not found"}"#),
                }
            }
        };
        if !reply.delay.is_zero() {
            tokio::time::sleep(reply.delay).await;
        }
        if reply.hang_up {
            return;
        }
        let mut out = format!(
            "HTTP/1.1 {} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\n",
            reply.status,
            reply.body.len()
        );
        for (k, v) in &reply.headers {
            out.push_str(&format!("{k}: {v}\r\n"));
        }
        out.push_str("\r\n");
        let mut bytes = out.into_bytes();
        bytes.extend_from_slice(&reply.body);
        if sock.write_all(&bytes).await.is_err() {
            return;
        }
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// A verifier that checks L1 headers (recovering the ClobAuth signer) and L2 headers
/// (recomputing the HMAC over the exact bytes received) against the given credentials.
pub fn auth_verifier(api_key: &str, secret: &str, passphrase: &str, chain_id: u64) -> Verifier {
    let api_key = api_key.to_owned();
    let passphrase = passphrase.to_owned();
    let key = polyclob::sign::hmac::HmacKey::from_base64url(secret).unwrap();
    Arc::new(move |r: &Recorded| {
        let address = r.header("poly_address")?;
        let ts: u64 = match r.header("poly_timestamp").and_then(|t| t.parse().ok()) {
            Some(t) => t,
            None => return Some(Err("bad poly_timestamp".into())),
        };
        let sig = r.header("poly_signature").unwrap_or_default();
        if let Some(nonce) = r.header("poly_nonce") {
            let Ok(nonce) = nonce.parse::<alloy_primitives::U256>() else {
                return Some(Err("bad nonce".into()));
            };
            let Ok(addr) = address.parse::<alloy_primitives::Address>() else {
                return Some(Err("bad address".into()));
            };
            let digest = polyclob::sign::clob_auth::clob_auth_digest(addr, chain_id, ts, nonce);
            let Ok(sig) = polyclob::sign::Signature::parse_hex(sig) else {
                return Some(Err("bad L1 signature".into()));
            };
            return Some(
                match polyclob::sign::eip712::recover_address(&digest.0, &sig) {
                    Ok(a) if a == addr => Ok(()),
                    _ => Err("L1 signature does not recover to poly_address".into()),
                },
            );
        }
        if r.header("poly_api_key") != Some(api_key.as_str()) {
            return Some(Err("unknown api key".into()));
        }
        if r.header("poly_passphrase") != Some(passphrase.as_str()) {
            return Some(Err("bad passphrase".into()));
        }
        let expected = key.sign(ts, &r.method, &r.path, &r.body);
        if expected.as_str() != sig {
            return Some(Err("HMAC mismatch".into()));
        }
        if r.method == "POST" && (r.path == "/order" || r.path == "/orders") {
            let Ok(v) = serde_json::from_slice::<serde_json::Value>(&r.body) else {
                return Some(Err("order body is not JSON".into()));
            };
            let posts = if let Some(a) = v.as_array() {
                a.clone()
            } else {
                vec![v]
            };
            for p in &posts {
                if let Err(e) = verify_order(&p["order"], chain_id) {
                    return Some(Err(format!("invalid signature: {e}")));
                }
            }
        }
        Some(Ok(()))
    })
}

/// Recomputes the EIP-712 hash of a posted order (trying every exchange generation and both
/// neg-risk domains) and checks that it recovers to the order's `signer`. Returns which domain
/// matched.
pub fn verify_order(
    o: &serde_json::Value,
    chain_id: u64,
) -> Result<(polyclob::types::ExchangeVersion, bool), String> {
    use polyclob::types::{Chain, ExchangeVersion, Side, SignatureType};
    let s = |k: &str| o[k].as_str().ok_or_else(|| format!("{k} is not a string"));
    let n = |k: &str| -> Result<u64, String> {
        s(k)?.parse().map_err(|_| format!("{k} is not an integer"))
    };
    let addr = |k: &str| -> Result<alloy_primitives::Address, String> {
        s(k)?.parse().map_err(|_| format!("{k} is not an address"))
    };
    let b256 = |k: &str| -> Result<alloy_primitives::B256, String> {
        s(k)?.parse().map_err(|_| format!("{k} is not bytes32"))
    };
    let chain = Chain::from_id(chain_id).ok_or("unknown chain")?;
    let v1 = o.get("taker").is_some();
    let mut order = polyclob::order::Order::zeroed(ExchangeVersion::V1);
    order.salt = o["salt"].as_u64().ok_or("salt is not a JSON number")?;
    order.maker = addr("maker")?;
    order.signer = addr("signer")?;
    order.token_id =
        polyclob::order::TokenId::parse(s("tokenId")?.as_bytes()).map_err(|_| "bad tokenId")?;
    order.maker_amount = n("makerAmount")?;
    order.taker_amount = n("takerAmount")?;
    order.expiration = n("expiration")?;
    order.side = Side::parse(s("side")?.as_bytes()).ok_or("bad side")?;
    order.signature_type = o["signatureType"]
        .as_u64()
        .and_then(|t| u8::try_from(t).ok())
        .and_then(SignatureType::from_u8)
        .ok_or("bad signatureType")?;
    if v1 {
        order.taker = addr("taker")?;
        order.nonce = n("nonce")?;
        order.fee_rate_bps = n("feeRateBps")?;
    } else {
        order.timestamp_ms = n("timestamp")?;
        order.metadata = b256("metadata")?;
        order.builder = b256("builder")?;
    }
    let sig =
        polyclob::sign::Signature::parse_hex(s("signature")?).map_err(|_| "bad signature hex")?;
    let versions: &[ExchangeVersion] = if v1 {
        &[ExchangeVersion::V1]
    } else {
        &[ExchangeVersion::V2, ExchangeVersion::V3]
    };
    for &version in versions {
        for neg_risk in [false, true] {
            order.version = version;
            let domain = polyclob::sign::eip712::exchange_domain(chain, version, neg_risk);
            let hash = polyclob::sign::eip712::order_hash(&domain, &order);
            if polyclob::sign::eip712::recover_address(&hash.0, &sig).ok() == Some(order.signer) {
                return Ok((version, neg_risk));
            }
        }
    }
    Err("signature does not recover to signer under any exchange domain".into())
}
