//! The wire front-ends: the exchange's protocols on the loopback server. HTTP: the CLOB's
//! REST routes (`rest`), the programs beside trading (`programs`, `rfq`, `relayer`), Gamma,
//! the Data API and, with feature `onchain`, the chain's JSON-RPC (`rpc`); sockets: the CLOB's
//! market and user channels (`ws`), RTDS, PolyBolt and `sports`. Each parses and authenticates
//! (`auth`), meters (`rails`) and answers from the exchange core; `http` and `shared` hold what
//! they all use, `socket` the connection machinery every socket shares. The front door
//! (`server.rs`) routes to them; they never reach back up.

pub(crate) mod auth;
pub(crate) mod data_api;
pub(crate) mod data_figures;
pub(crate) mod gamma;
pub(crate) mod gamma_more;
pub(crate) mod http;
pub(crate) mod polybolt;
pub(crate) mod programs;
pub(crate) mod rails;
pub(crate) mod relayer;
pub(crate) mod rest;
pub(crate) mod rfq;
#[cfg(feature = "onchain")]
pub(crate) mod rpc;
pub(crate) mod rtds;
pub(crate) mod shared;
pub(crate) mod socket;
pub(crate) mod sports;
pub(crate) mod ws;
