//! The Data API v2 (`https://data-api.polymarket.com/v2`, no auth): positions (every
//! lifecycle stage, closed included), trades, activity, portfolio value and holders.
//!
//! Every v2 response wraps its payload in `data`; list routes add `pagination`, walked by
//! sending `next_cursor` back as `cursor` until it is `null` ([`Client::pages`],
//! [`Client::collect`]). Fields are snake_case; v1's camelCase captures decode too. Sizes
//! and prices are fixed-point ([`Size`](crate::fixed::Size), [`Price`](crate::fixed::Price));
//! signed figures such as PnL are [`Amount`].
//!
//! Facts: docs.polymarket.com, "Data API v2" overview and "Migrate from Data API v1 to v2".

pub(crate) mod amount;
mod client;
mod types;

pub use self::amount::{Amount, AmountError};
pub use self::client::{
    Client, ClientBuilder, CursorPage, DEFAULT_HOST, MAX_CONDITIONS, Query, decode_cursor_page,
};
pub use self::types::{Activity, Holder, HolderGroup, Position, Trade, UNLABELLED_OUTCOME, Value};
pub use crate::clob::{Error, SkippedRow};
