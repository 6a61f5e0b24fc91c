//! The crate's one HTTP transport, under its own name (as `reqwest` and `std::io` name theirs:
//! `http::Error`, `http::Proxy`), serving the CLOB, Gamma, the Data API, the relayer and the
//! on-chain JSON-RPC: the tuned `reqwest` client and what it is built from, the rustls
//! configuration (shared with the WebSocket streams), proxies, the DNS cache, the retry
//! policy, the circuit breaker, the client-side rate limits, the one error type, and the pages
//! and rows every client's answers are read into.
//!
//! **No row is dropped silently** ([`SkippedRow`]): every call of the crate that returns rows
//! returns the rows that did not decode beside the others (index, reason, raw text) or fails;
//! [`ClientCounters::skipped_rows`] counts them and tracing reports each one
//! (`polyclob.http.skipped_row`).
//!
//! Host-specific layers (the CLOB's auth, rails, caches and order lane) wrap it in their own
//! modules; every client fails with [`Error`].
//!
//! ```
//! use std::time::Duration;
//! use polyclob::http::{BreakerConfig, Proxy, RetryPolicy};
//!
//! let client = polyclob::clob::Client::builder()
//!     .host("http://127.0.0.1:1")
//!     .retry(RetryPolicy::default())
//!     .breaker(BreakerConfig::default())
//!     .proxy(Proxy::parse("socks5://127.0.0.1:1080")?)
//!     .timeout(Duration::from_secs(2))
//!     .build()?;
//! # let _ = client;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod breaker;
mod client;
mod counters;
#[cfg(not(feature = "hickory-dns"))]
mod dns;
mod error;
pub(crate) mod host_builder;
pub(crate) mod lenient;
pub(crate) mod limits;
mod page;
pub(crate) mod proxy;
pub(crate) mod ratelimit;
mod retry;
pub(crate) mod rounded;
mod rows;
mod settings;
pub(crate) mod tls;
mod tunnel;

pub use breaker::{BreakerConfig, BreakerState};
pub(crate) use client::{Client, Req, decode, path_with};
pub use counters::ClientCounters;
pub use error::{ApiErrorCode, Error, PreflightMismatch};
pub(crate) use error::{Kind, Rail};
#[cfg(feature = "simd-json")]
pub use page::decode_page_simd;
pub(crate) use page::decode_rows;
pub use page::{CursorPage, END_CURSOR, Page, START_CURSOR, decode_page};
pub use proxy::{Proxy, ProxyError, ProxyKind};
pub use ratelimit::{
    Bucket, BucketStats, Governor, Limit, RateLimitStatus, Throttle, Throttled, Tier,
};
pub use ratelimit::{Pacer, PerWindow};
pub use retry::RetryPolicy;
pub(crate) use retry::parse_retry_after;
pub use rows::SkippedRow;
pub(crate) use rows::{Rows, Walk, decode_each};
pub(crate) use settings::Settings;
pub use tunnel::ProxyFailure;
#[doc(hidden)]
pub use tunnel::fuzz_proxy_replies;
pub(crate) use tunnel::tunnel;
