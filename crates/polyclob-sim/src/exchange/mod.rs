//! The exchange core: markets and their books, orders and the rules that place, match, rest
//! and cancel them, trades and how they settle, API keys, balances (the ledger and, with
//! feature `onchain`, the chain around it), the programs beside trading, and the frames every
//! change publishes. It knows no HTTP, socket or scenario: the wire front-ends (`wire/`) and
//! the scenario tools (`scenario/`) use it, never the reverse.

mod accounts;
#[cfg(feature = "onchain")]
pub(crate) mod chain;
pub(crate) mod engine;
pub(crate) mod events;
mod feed;
mod house;
pub(crate) mod keys;
// Without the chain, its calldata execution has no caller.
#[cfg_attr(not(feature = "onchain"), allow(dead_code))]
pub(crate) mod ledger;
pub(crate) mod market;
pub(crate) mod orders;
pub(crate) mod programs;
pub(crate) mod rebates;
pub(crate) mod relayer;
pub(crate) mod rfq;
pub(crate) mod rng;
pub(crate) mod settlement;
pub(crate) mod state;
pub(crate) mod trades;
pub(crate) mod trigger;
