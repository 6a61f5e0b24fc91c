//! Gamma: Polymarket's market-discovery API (`https://gamma-api.polymarket.com`, no auth).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let sim = polyclob_sim::Simulator::builder().start().await?;
//! use polyclob::gamma::{Client, MarketFilter};
//! use polyclob::types::{Chain, ExchangeVersion};
//!
//! let gamma = Client::builder().host(sim.gamma_url()).build()?; // default: Polymarket's host
//! let (markets, skipped) = gamma.all_markets(MarketFilter::new().active(true).closed(false)).await?;
//! println!("{} markets, {} rows unreadable", markets.len(), skipped.len());
//!
//! let market = markets.iter().find(|m| m.is_tradable()).ok_or("nothing to trade")?;
//! let trading = market.trading(Chain::Polygon, ExchangeVersion::V2)?;
//! for (outcome, ctx) in trading.outcomes.iter().zip(&trading.contexts) {
//!     println!("{outcome}: token {} tick {:?}", ctx.token_id().as_str(), ctx.tick());
//! }
//! # Ok(()) }
//! ```
//!
//! [`Client`] lists markets and events with **keyset pagination** (`/markets/keyset` ≤ 100
//! rows a page, `/events/keyset` ≤ 500, `next_cursor` sent back as `after_cursor`, at most
//! 100 `condition_ids` a request — larger sets are chunked), as a `Stream` of pages or
//! collected, and reads tags, series (and their summaries), sports metadata and teams,
//! comments, public profiles and public search. Models are lenient:
//! numbers as strings, JSON arrays inside strings, missing fields; one bad row is reported in
//! `skipped`, never fatal and never silently dropped. Every call that returns rows returns
//! the rows that did not decode beside them ([`SkippedRow`](crate::http::SkippedRow): index, reason, raw text); a nested
//! list (an event's markets, a market's tags) that does not decode fails its row, which is
//! then reported.
//!
//! A Gamma [`GammaMarket`] yields its trading contexts ([`GammaMarket::trading`]): token ids, tick
//! size, neg-risk, minimum size, fees and exchange generation, so an order on a market found
//! here needs no CLOB metadata request.
//!
//! Facts: docs.polymarket.com, Gamma API reference ("List markets (keyset pagination)").

pub(crate) mod client;
mod comments;
mod context;
mod event;
mod filter;
mod market;

pub use self::client::{Client, ClientBuilder, DEFAULT_HOST, decode_keyset_page};
pub use self::comments::{CommentReaction, GammaComment};
pub use self::context::{ContextError, Trading};
pub use self::event::{
    GammaEvent, Profile, ProfilePosition, ProfileUser, SearchResults, Series, SeriesSummary, Sport,
    Tag, Team,
};
pub use self::filter::{
    EventFilter, MAX_CONDITION_IDS, MAX_EVENTS_PAGE, MAX_MARKETS_PAGE, MarketFilter,
};
pub use self::market::GammaMarket;
