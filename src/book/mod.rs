//! Fixed-point L2 order books and the manager that feeds them from WebSocket frames.
//!
//! ```
//! use polyclob::book::{BookManager, TopState};
//! use std::time::Instant;
//!
//! let mut books = BookManager::new();
//! books.apply(r#"{"event_type":"book","asset_id":"1","market":"m",
//!   "bids":[{"price":"0.5","size":"1"}],"asks":[{"price":"0.5","size":"2"}]}"#, Instant::now());
//! assert_eq!(books.book("1").unwrap().top_state(), TopState::Locked);
//! ```
//!
//! | item | what it is |
//! |---|---|
//! | [`Book`] | one asset's bids and asks, best levels in O(1), depth, market-order walks |
//! | [`BookManager`] | books keyed by interned asset id, applying decoded frames without allocating |
//! | [`book_hash`] | the exchange's SHA-1 `book` hash, recomputed ([`integrity`] says what it covers and costs) |
//!
//! Semantics (Polymarket market channel): `book` replaces a book atomically (a bad level leaves
//! the previous book intact); `price_change` sets a level's size (`0` removes it);
//! `tick_size_change` starts a new epoch in which deltas are ignored until the next `book`;
//! `last_trade_price` and `best_bid_ask` are recorded. Crossed or locked books and staleness
//! are reported ([`Book::top_state`], [`Book::age`]), never hidden.

pub mod integrity;
mod intern;
mod l2;
mod manager;
mod side;

pub use integrity::{BookHash, BookMeta, HashStatus, IntegrityError, book_hash};
pub use l2::{Book, BookSnapshot, BookState, Fill, LastTrade, ReportedBest, TopState, WalkAmount};

pub use manager::{BookManager, FrameSummary, Outcome, Update};
