//! The crate's one HTTP transport, serving the CLOB, Gamma, the Data API, the relayer and the
//! on-chain JSON-RPC: the tuned `reqwest` client and what it is built from, the rustls
//! configuration (shared with the WebSocket streams), proxies, the DNS cache, the retry
//! policy, the circuit breaker and the one error type. Host-specific layers (the CLOB's auth,
//! rails, caches and order lane) wrap it in their own modules.
//!
//! Private: its public types are re-exported where users found them (`polyclob::clob::Proxy`,
//! `polyclob::clob::Error`, …).

mod breaker;
mod client;
mod counters;
#[cfg(not(feature = "hickory-dns"))]
mod dns;
mod error;
pub(crate) mod host_builder;
pub(crate) mod proxy;
mod retry;
mod settings;
pub(crate) mod tls;
mod tunnel;

pub use breaker::{BreakerConfig, BreakerState};
pub(crate) use client::{Client, Req, decode, encode_into, from_body, path_with};
pub use counters::ClientCounters;
pub use error::{Error, PreflightMismatch};
pub(crate) use error::{Kind, Rail};
pub use proxy::{Proxy, ProxyError, ProxyKind};
pub use retry::RetryPolicy;
pub(crate) use retry::parse_retry_after;
pub(crate) use settings::Settings;
pub use tunnel::ProxyFailure;
#[doc(hidden)]
pub use tunnel::fuzz_proxy_replies;
pub(crate) use tunnel::tunnel;
