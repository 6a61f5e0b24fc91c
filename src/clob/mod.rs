//! The native CLOB REST client.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().start().await?;
//! use polyclob::clob::{ClientBuilder, MarketList};
//! use polyclob::types::Side;
//!
//! // One client per process (a cheap `Clone`); the default host is https://clob.polymarket.com.
//! let client = ClientBuilder::new().host(sim.http_url()).build()?;
//! let page = client.markets(MarketList::All, None).await?; // rows it cannot read go to `skipped`
//! let token = page.data[0].tokens[0].token_id.to_string();
//!
//! let book = client.book(&token).await?; // levels as the exchange sends them: worst first
//! println!("{} bids, best {:?}", book.bids.levels.len(), book.bids.levels.last().map(|l| l.price));
//! println!("mid {}, best bid {}", client.midpoint(&token).await?, client.price(&token, Side::Buy).await?);
//!
//! // Failures are one error type, queried by predicates.
//! if let Err(e) = client.book("12345").await {
//!     println!("{e}: status {:?}, retry after {:?}", e.status(), e.retry_after());
//! }
//! # Ok(()) }
//! ```
//!
//! [`Client`] is built by [`ClientBuilder`] over the crate's one HTTP transport, shared with
//! Gamma, the Data API and the on-chain JSON-RPC (rustls, HTTP/2 with keep-alive pings, pooled
//! connections, `TCP_NODELAY`, gzip, [proxies](Proxy)). Idempotent requests are retried with
//! jittered exponential backoff that honours `Retry-After`; order posts never are. Failures
//! are one opaque [`Error`] with predicates. This module adds the CLOB's layers: L1/L2 auth,
//! the server clock, caches, the rate-limit and restriction rails, the heartbeat guard. With
//! [`ClientBuilder::order_lane`] orders, cancels and heartbeats go on kept-alive HTTP/1.1
//! connections of the client's own instead.

mod account;
mod account_extras;
mod auth;
mod builder;
mod builder_api;
mod cache;
mod error;
mod guard;
mod heartbeat;
mod lane;
mod markets;
mod orders;
pub(crate) mod pagination;
mod preflight;
mod rails;
mod ratelimit;
pub mod relayer;
mod rewards;
pub mod rfq;
pub mod session_signers;
mod simplified;
mod token_market;
pub mod tracker;
mod trading;
mod trading_account;
mod transport;
pub mod types;

pub use account_extras::{DEFAULT_GEOBLOCK_HOST, Geoblock};
pub use auth::{ApiKeyNonce, Credentials};
pub use builder::{ClientBuilder, DEFAULT_HOST};
/// The body buffer of [`Client::markets_borrowed`] and [`Client::markets_raw`].
pub use bytes::Bytes;
pub use heartbeat::{HeartbeatHandle, HeartbeatStatus};
#[doc(hidden)]
pub use lane::fuzz_read_response;
pub use markets::MarketList;
pub use orders::{MAX_CANCEL_IDS, OrderFilter, TradeFilter};
#[cfg(feature = "simd-json")]
pub use pagination::decode_page_simd;
pub use pagination::{END_CURSOR, Page, START_CURSOR, SkippedRow, decode_page};
pub use ratelimit::{
    Bucket, BucketStats, Governor, Limit, Pacer, PerWindow, RateLimitStatus, Throttle, Throttled,
    Tier,
};
pub use rewards::RewardsQuery;
pub use simplified::decode_simplified_page;
pub use tracker::Tracker;
pub use trading_account::{Account, AccountBuilder};
pub use transport::Client;

// The transport's public types, where users have always found them.
#[doc(hidden)]
pub use crate::http::fuzz_proxy_replies;
pub use crate::http::{
    BreakerConfig, BreakerState, ClientCounters, Error, PreflightMismatch, Proxy, ProxyError,
    ProxyFailure, ProxyKind, RetryPolicy,
};

// For the compat layer, which speaks the same transport.
pub(crate) use auth::Level;
pub(crate) use pagination::PageSpec;
pub(crate) use transport::Req;
