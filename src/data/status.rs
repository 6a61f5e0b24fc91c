//! How fresh the Data API's data is (`GET /v2/status`).
//!
//! Facts: docs.polymarket.com, Data API v2 reference, "Get data freshness": two halves, the
//! serving projections (each with its own clock, so a total stall shows) and the ingestion
//! cursors (relative positions, blind to a total stall). The answer is a snapshot refreshed
//! in the background; before the first one the route answers `503` ("not measured yet" is
//! not "no lag").

use serde::Deserialize;

use super::client::{Client, Query};
use crate::http::{Error, lenient, rounded};
use crate::types::{Timestamp, timestamp_opt};

/// The Data API's freshness (`GET /v2/status`), its `serving` and `ingestion` halves read
/// into one row.
///
/// ```
/// use polyclob::data::ServiceStatus;
///
/// let s: ServiceStatus = serde_json::from_str(r#"{"computed_at":"2026-12-07T10:15:02Z","age_seconds":4,
///     "serving":{"lag_seconds":6,"worst":"pnl","mechanisms":[{"name":"pnl","age_seconds":6}]},
///     "ingestion":{"chain_id":137,"network":"polygon","cursors":41,"max_synced_block":93512044,
///     "min_synced_block":93512031,"most_lagged":{"source":"exchange_v3_OrderFilled","block":93512031,"behind_max":13},
///     "lagging":[{"source":"exchange_v3_OrderFilled","block":93512031,"behind_max":13}]}}"#)?;
/// assert_eq!((s.lag_seconds, s.worst.as_str()), (Some(6), "pnl"));
/// assert_eq!(s.most_lagged.unwrap().blocks_behind, Some(13));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "Wire")]
#[non_exhaustive]
pub struct ServiceStatus {
    /// When the snapshot was taken.
    pub computed_at: Option<Timestamp>,
    /// The snapshot's age in seconds (a climbing age means the refresher stalled).
    pub age_seconds: Option<i64>,
    /// The worst age across the serving mechanisms; `None` when none reported.
    pub lag_seconds: Option<i64>,
    /// The mechanism [`lag_seconds`](Self::lag_seconds) came from.
    pub worst: String,
    /// The serving mechanisms (`activity_feed`, `custody_balances`, `pnl`).
    pub mechanisms: Vec<StreamLag>,
    /// The chain the service is configured for (137 = Polygon).
    pub chain_id: Option<i64>,
    /// The chain the ingestion cursors were written for, as the datastore names it.
    pub network: String,
    /// Live ingestion streams found.
    pub cursors: Option<i64>,
    /// The furthest-along cursor's block.
    pub max_synced_block: Option<i64>,
    /// The furthest-behind live stream's block.
    pub min_synced_block: Option<i64>,
    /// The furthest-behind live stream.
    pub most_lagged: Option<StreamLag>,
    /// The furthest-behind live streams, worst first.
    pub lagging: Vec<StreamLag>,
}

/// How far one stream of [`ServiceStatus`] is behind: a serving mechanism (`name`, its
/// `age_seconds` and `blocks_behind` the ingestion tail) or an ingestion cursor (`name` =
/// its `source`, `<contract>_<event>`; `block`, and `blocks_behind` = its `behind_max`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct StreamLag {
    /// The mechanism's name or the cursor's source.
    #[serde(alias = "source", deserialize_with = "lenient::string")]
    pub name: String,
    /// Seconds since the mechanism last advanced (mechanisms only).
    #[serde(deserialize_with = "rounded::i64_opt")]
    pub age_seconds: Option<i64>,
    /// Blocks behind the furthest-along stream.
    #[serde(alias = "behind_max", deserialize_with = "rounded::i64_opt")]
    pub blocks_behind: Option<i64>,
    /// The last block ingested (cursors only).
    #[serde(deserialize_with = "rounded::i64_opt")]
    pub block: Option<i64>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Wire {
    #[serde(deserialize_with = "timestamp_opt")]
    computed_at: Option<Timestamp>,
    #[serde(deserialize_with = "rounded::i64_opt")]
    age_seconds: Option<i64>,
    serving: Serving,
    ingestion: Ingestion,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Serving {
    #[serde(deserialize_with = "rounded::i64_opt")]
    lag_seconds: Option<i64>,
    #[serde(deserialize_with = "lenient::string")]
    worst: String,
    #[serde(deserialize_with = "lenient::null_default")]
    mechanisms: Vec<StreamLag>,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct Ingestion {
    #[serde(deserialize_with = "rounded::i64_opt")]
    chain_id: Option<i64>,
    #[serde(deserialize_with = "lenient::string")]
    network: String,
    #[serde(deserialize_with = "rounded::i64_opt")]
    cursors: Option<i64>,
    #[serde(deserialize_with = "rounded::i64_opt")]
    max_synced_block: Option<i64>,
    #[serde(deserialize_with = "rounded::i64_opt")]
    min_synced_block: Option<i64>,
    most_lagged: Option<StreamLag>,
    #[serde(deserialize_with = "lenient::null_default")]
    lagging: Vec<StreamLag>,
}

impl From<Wire> for ServiceStatus {
    fn from(w: Wire) -> Self {
        Self {
            computed_at: w.computed_at,
            age_seconds: w.age_seconds,
            lag_seconds: w.serving.lag_seconds,
            worst: w.serving.worst,
            mechanisms: w.serving.mechanisms,
            chain_id: w.ingestion.chain_id,
            network: w.ingestion.network,
            cursors: w.ingestion.cursors,
            max_synced_block: w.ingestion.max_synced_block,
            min_synced_block: w.ingestion.min_synced_block,
            most_lagged: w.ingestion.most_lagged,
            lagging: w.ingestion.lagging,
        }
    }
}

impl Client {
    /// `GET /v2/status`: how far behind the chain the data served is.
    ///
    /// # Errors
    /// Transport, status (`503` before the first snapshot: retryable, with `Retry-After`),
    /// or an answer that did not decode.
    pub async fn status(&self) -> Result<ServiceStatus, Error> {
        self.single(&Query::new("/v2/status")).await
    }
}
