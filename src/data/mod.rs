//! The Data API v2 (`https://data-api.polymarket.com/v2`, no auth): positions (every
//! lifecycle stage, closed included), trades, activity, portfolio value, holders,
//! resolutions (and whether a position is redeemable now), open interest, price history and
//! live volume; the boards (leaderboard, builders, biggest wins); a wallet's approvals, PnL
//! series, profile stats and volume; combo positions and activity; the data's freshness.
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().start().await?;
//! use polyclob::data::{Client, Query};
//!
//! let me = "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266";
//! let data = Client::builder().host(sim.data_api_url()).build()?; // default: Polymarket's host
//! let (positions, unreadable) = data.positions(me).await?;
//! for p in positions {
//!     println!("{}: {:?} shares at {:?}, now worth {:?}", p.outcome, p.size, p.avg_price, p.current_value);
//! }
//! for row in unreadable {
//!     eprintln!("position row {} did not decode: {} ({})", row.index, row.reason, row.raw);
//! }
//! let (trades, skipped) = data.collect(Query::trades().user(me)).await?; // follows every cursor
//! println!("{} trades ({} rows unreadable)", trades.len(), skipped.len());
//! # Ok(()) }
//! ```
//!
//! **No row is dropped unsaid.** Every call that returns rows returns the rows that did not
//! decode beside them ([`SkippedRow`](crate::http::SkippedRow): the row's index, why, and its raw text), or fails; none returns a bare
//! list while leaving rows out. A nested list (a group's holders) that does not decode fails
//! its row, which is then reported. Where a row that did not decode could change an answer,
//! the answer says so: [`Client::redeemability`] is [`Redeemability::Unknown`] then, never
//! [`Redeemability::NoResolution`]. Times are [`Timestamp`](crate::types::Timestamp)s,
//! whichever form (unix seconds or milliseconds, number or string, ISO 8601) a row sends.
//!
//! Every v2 response wraps its payload in `data`; list routes add `pagination`, walked by
//! sending `next_cursor` back as `cursor` until it is `null` ([`Client::pages`],
//! [`Client::collect`]). Fields are snake_case; v1's camelCase captures decode too. Sizes
//! and prices are fixed-point ([`Size`](crate::fixed::Size), [`Price`](crate::fixed::Price));
//! signed figures such as PnL are [`Amount`](crate::fixed::Amount)s.
//!
//! Granularity: a trades row is one **transaction**, while the RTDS `activity` topic sends one
//! message per maker order of a match ([`ws`](crate::ws#what-one-message-stands-for) has the
//! table for every feed).
//!
//! Facts: docs.polymarket.com, "Data API v2" overview and "Migrate from Data API v1 to v2".

mod boards;
mod client;
mod combos;
mod resolution;
mod status;
mod types;
mod wallet;

pub use self::boards::{BiggestWin, BuilderStanding, LeaderboardEntry, LeaderboardStanding};
pub use self::client::{
    Client, ClientBuilder, DEFAULT_HOST, MAX_CONDITIONS, Query, decode_cursor_page,
};
pub use self::combos::{ComboActivity, ComboLeg, ComboLegMarket, ComboPosition};
pub use self::resolution::{
    ConditionVolume, DataPricePoint, LiveVolume, OpenInterest, Redeemability, Resolution,
    ResolutionStatus,
};
pub use self::status::{ServiceStatus, StreamLag};
pub use self::types::{
    Activity, DataTrade, Holder, HolderGroup, PortfolioValue, Position, UNLABELLED_OUTCOME,
};
pub use self::wallet::{ApprovalPair, Approvals, PnlPoint, PnlSeries, UserStats, UserVolume};
