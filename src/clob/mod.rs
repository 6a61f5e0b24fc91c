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
//! println!("{} bids, best {:?}", book.bids.len(), book.bids.last().map(|l| l.price));
//! println!("mid {}, best bid {}", client.midpoint(&token).await?, client.price(&token, Side::Buy).await?);
//!
//! // Failures are one error type (`polyclob::http::Error`), queried by predicates.
//! if let Err(e) = client.book("12345").await {
//!     println!("{e}: status {:?}, retry after {:?}", e.status(), e.retry_after());
//! }
//! # Ok(()) }
//! ```
//!
//! [`Client`] is built by [`ClientBuilder`] over the crate's one HTTP transport
//! ([`http`](crate::http)), shared with Gamma, the Data API, the relayer and the on-chain
//! JSON-RPC (rustls, HTTP/2 with keep-alive pings, pooled connections, `TCP_NODELAY`, gzip,
//! [proxies](crate::http::Proxy)). Idempotent requests are retried with jittered exponential
//! backoff that honours `Retry-After`; order posts never are. Failures are one opaque
//! [`http::Error`](crate::http::Error) with predicates. This module adds the CLOB's layers:
//! L1/L2 auth, the server clock, caches, the rate-limit and restriction rails, the heartbeat
//! guard. With [`ClientBuilder::order_lane`] orders, cancels and heartbeats go on kept-alive
//! HTTP/1.1 connections of the client's own instead.
//!
//! It holds one call per endpoint. Orders signed by an account's key, its open orders, fills,
//! positions and settlement are the account layer's ([`account`](crate::account)), which is
//! built on this client.
//!
//! Every call that returns rows (pages, `all_*` walks, the list endpoints) returns the rows
//! that did not decode beside the others ([`SkippedRow`](crate::http::SkippedRow): list,
//! index, reason, raw text), counted in [`Client::counters`]; a call whose answer has no room
//! for one (`api_keys`, `prices`, `midpoints`, `post_orders`, …) fails instead (the crate
//! docs, "Errors").
//!
//! | file | what it holds |
//! |---|---|
//! | `client.rs`, `builder.rs`, `request.rs` | [`Client`], [`ClientBuilder`], one CLOB request |
//! | `auth.rs`, `cache.rs`, `rails.rs`, `guard.rs`, `lane.rs` | the layers every request passes: auth headers, caches, rails, heartbeat guard, order lane |
//! | `markets.rs`, `simplified.rs`, `context.rs` | market data, and the market contexts orders are signed with |
//! | `orders.rs`, `heartbeat.rs` | order posts, queries, cancels, scoring; heartbeats |
//! | `api_keys.rs`, `balances.rs`, `session_signers.rs` | API keys, balances and notifications, the session-signer list |
//! | `rewards.rs`, `builder_api.rs`, [`rfq`] | rewards, builder keys and trades, requests for quote |
//! | `geoblock.rs` | the geoblock check (Polymarket's web host) |
//! | `paging.rs`, [`types`], `error.rs` | the page walker, the typed answers, the CLOB's error predicates |

mod api_keys;
mod auth;
mod balances;
mod builder;
mod builder_api;
mod cache;
mod client;
mod context;
mod error;
mod geoblock;
mod guard;
mod heartbeat;
mod lane;
mod markets;
mod orders;
mod paging;
mod rails;
mod request;
mod rewards;
pub mod rfq;
mod session_signers;
mod simplified;
pub mod types;

pub use auth::{ApiKeyNonce, Credentials};
pub use builder::{ClientBuilder, DEFAULT_HOST};
/// The body buffer of [`Client::markets_borrowed`] and [`Client::markets_raw`].
pub use bytes::Bytes;
pub use client::Client;
pub use geoblock::{DEFAULT_GEOBLOCK_HOST, Geoblock};
pub use heartbeat::{HeartbeatHandle, HeartbeatStatus};
#[doc(hidden)]
pub use lane::fuzz_read_response;
pub use markets::MarketList;
pub use orders::{MAX_CANCEL_IDS, OrderFilter, TradeFilter};
pub use rewards::RewardsQuery;
pub use session_signers::{SessionScope, SessionSigner, SessionSigners};
pub use simplified::decode_simplified_page;

// For the compat layer, which speaks the same transport.
pub(crate) use auth::Level;
pub(crate) use paging::PageSpec;
pub(crate) use request::Req;
