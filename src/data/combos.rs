//! Combo (combinatorial market) positions and activity from the Data API v2.
//!
//! A combo is one position over several legs (outcomes of other markets), on a condition of
//! the Positions Framework's combinatorial module: a 31-byte id with module byte `0x03`, sent
//! here as the server gives it (the combo routes are not documented to take the 64-hex padded
//! form the other routes want). Each row carries its legs with their markets and events.
//!
//! Facts: docs.polymarket.com, Data API v2 reference ("List combo positions", "List combo
//! activity"). Trading combos (the requester RFQ) is not offered: see the coverage page
//! (`docs/coverage.md`) for what the docs leave undefined.

use serde::Deserialize;

use super::client::Query;
use crate::fixed::Amount;
use crate::fixed::{Price, Size};
use crate::http::rounded::amount_opt;
use crate::http::{lenient, rounded};
use crate::types::{Timestamp, timestamp_opt};

/// A wallet's holding in one combo outcome (`GET /v2/positions/combos`).
///
/// ```
/// use polyclob::data::ComboPosition;
///
/// let p: ComboPosition = serde_json::from_str(r#"{"combo_condition_id":"0x030b98f62eadaee25b8c04abe48fb41d480000000000000000000000000000",
///     "outcome_index":0,"outcome_label":"Yes","combo_position_id":"1377","proxy_wallet":"0x7c3d",
///     "current_size":10,"entry_avg_price_usdc":0.25,"entry_cost_usdc":2.5,"gross_entry_cost_usdc":2.55,
///     "entry_fees_usdc":0.05,"realized_payout_usdc":0,"status":"OPEN","redeemable":false,
///     "first_entry_at":"2026-07-29T23:01:47Z","legs_total":2,"legs_resolved":1,"legs_pending":1,
///     "legs":[{"leg_index":0,"leg_position_id":"5375","leg_condition_id":"0x4356","leg_outcome_index":1,
///       "leg_outcome_label":"No","leg_status":"RESOLVED_WIN","leg_resolved_at":"2026-07-29T23:01:47Z",
///       "leg_current_price":1.0,"market":{"market_id":"3054121","slug":"mlb","title":"Rockies vs. Padres",
///       "outcomes":["Rockies","Padres"],"outcome":"No","line":null,"tags":[],"end_date":"",
///       "event":{"event_id":"738032","event_slug":"mlb","event_title":"Rockies vs. Padres","event_image":""}}}],
///     "updated_at":"2026-07-29T23:01:47Z","updated_at_micros":1785366107000000}"#)?;
/// assert_eq!(p.legs[0].market.event_id, "738032");
/// assert_eq!(p.entry_fees.unwrap().to_string(), "0.05");
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ComboPosition {
    /// The combo condition (`0x03…`).
    #[serde(deserialize_with = "lenient::string")]
    pub combo_condition_id: String,
    /// The combo outcome held; `999` when the server could not label it.
    #[serde(deserialize_with = "rounded::u32_opt")]
    pub outcome_index: Option<u32>,
    /// The outcome's label.
    #[serde(deserialize_with = "lenient::string")]
    pub outcome_label: String,
    /// The combo position's token id.
    #[serde(deserialize_with = "lenient::string")]
    pub combo_position_id: String,
    /// The holder.
    #[serde(deserialize_with = "lenient::string")]
    pub proxy_wallet: String,
    /// Shares held.
    #[serde(deserialize_with = "rounded::size_opt")]
    pub current_size: Option<Size>,
    /// Weighted-average entry price per share (`entry_avg_price_usdc`).
    #[serde(
        rename = "entry_avg_price_usdc",
        deserialize_with = "rounded::price_opt"
    )]
    pub entry_avg_price: Option<Price>,
    /// Entry cost basis in pUSD, rounded weighted average (`entry_cost_usdc`).
    #[serde(rename = "entry_cost_usdc", deserialize_with = "rounded::size_opt")]
    pub entry_cost: Option<Size>,
    /// Exact fee-inclusive entry basis in pUSD (`gross_entry_cost_usdc`); the fee-exclusive
    /// basis is this less [`entry_fees`](Self::entry_fees), never `entry_cost + entry_fees`.
    #[serde(
        rename = "gross_entry_cost_usdc",
        deserialize_with = "rounded::size_opt"
    )]
    pub gross_entry_cost: Option<Size>,
    /// The buy fees in [`gross_entry_cost`](Self::gross_entry_cost) (`entry_fees_usdc`).
    #[serde(rename = "entry_fees_usdc", deserialize_with = "rounded::size_opt")]
    pub entry_fees: Option<Size>,
    /// Redemption payout received so far, in pUSD (turnover, not profit;
    /// `realized_payout_usdc`).
    #[serde(
        rename = "realized_payout_usdc",
        deserialize_with = "rounded::size_opt"
    )]
    pub realized_payout: Option<Size>,
    /// `OPEN`, `REDEEMABLE`, `RESOLVED_WIN`, `RESOLVED_LOSS`, `RESOLVED_PARTIAL`.
    #[serde(deserialize_with = "lenient::string")]
    pub status: String,
    /// Whether it can be redeemed now.
    #[serde(deserialize_with = "lenient::bool_lenient")]
    pub redeemable: bool,
    /// First acquisition.
    #[serde(deserialize_with = "timestamp_opt")]
    pub first_entry_at: Option<Timestamp>,
    /// [`first_entry_at`](Self::first_entry_at) in microseconds (the paging key).
    #[serde(deserialize_with = "rounded::i64_opt")]
    pub first_entry_at_micros: Option<i64>,
    /// Legs in the combo.
    #[serde(deserialize_with = "rounded::u32_opt")]
    pub legs_total: Option<u32>,
    /// Legs whose markets resolved.
    #[serde(deserialize_with = "rounded::u32_opt")]
    pub legs_resolved: Option<u32>,
    /// Legs still open.
    #[serde(deserialize_with = "rounded::u32_opt")]
    pub legs_pending: Option<u32>,
    /// The legs, in order. One that does not decode fails the position (reported as a
    /// skipped row).
    #[serde(deserialize_with = "lenient::null_default")]
    pub legs: Vec<ComboLeg>,
    /// Last event touching the position.
    #[serde(deserialize_with = "timestamp_opt")]
    pub updated_at: Option<Timestamp>,
    /// [`updated_at`](Self::updated_at) in microseconds (the incremental-sync key).
    #[serde(deserialize_with = "rounded::i64_opt")]
    pub updated_at_micros: Option<i64>,
    /// When the combo fully resolved; `None` while a leg is open.
    #[serde(deserialize_with = "timestamp_opt")]
    pub resolved_at: Option<Timestamp>,
}

/// One lifecycle or redemption event of a combo (`GET /v2/activity/combos`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ComboActivity {
    /// `<transaction hash>-<log index>`.
    #[serde(deserialize_with = "lenient::string")]
    pub id: String,
    /// `SPLIT`, `MERGE`, `CONVERT`, `COMPRESS`, `WRAP`, `UNWRAP` or `REDEEM`.
    #[serde(rename = "type", deserialize_with = "lenient::string")]
    pub kind: String,
    /// The wallet.
    #[serde(deserialize_with = "lenient::string")]
    pub proxy_wallet: String,
    /// The combo condition.
    #[serde(deserialize_with = "lenient::string")]
    pub combo_condition_id: String,
    /// The combo position touched.
    #[serde(deserialize_with = "lenient::string")]
    pub combo_position_id: String,
    /// The block (with the log index, the feed's order).
    #[serde(deserialize_with = "rounded::i64_opt")]
    pub block_number: Option<i64>,
    /// When it happened.
    #[serde(deserialize_with = "timestamp_opt")]
    pub timestamp: Option<Timestamp>,
    /// The transaction.
    #[serde(deserialize_with = "lenient::string")]
    pub transaction_hash: String,
    /// The combo's legs.
    #[serde(deserialize_with = "lenient::null_default")]
    pub legs: Vec<ComboLeg>,
    /// The cash amount in pUSD (`amount_usdc`); `None` where no cash moved.
    #[serde(rename = "amount_usdc", deserialize_with = "rounded::size_opt")]
    pub amount: Option<Size>,
    /// The redemption payout in pUSD on a `REDEEM` (`payout_usdc`); `None` otherwise.
    #[serde(rename = "payout_usdc", deserialize_with = "rounded::size_opt")]
    pub payout: Option<Size>,
}

/// One leg of a combo: the outcome it takes on another market, and that market.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
#[non_exhaustive]
pub struct ComboLeg {
    /// Position of the leg in the combo, from 0 (`leg_index`).
    #[serde(rename = "leg_index", deserialize_with = "rounded::u32_opt")]
    pub index: Option<u32>,
    /// The leg's outcome token (`leg_position_id`).
    #[serde(rename = "leg_position_id", deserialize_with = "lenient::string")]
    pub position_id: String,
    /// The leg's market condition (`leg_condition_id`).
    #[serde(rename = "leg_condition_id", deserialize_with = "lenient::string")]
    pub condition_id: String,
    /// The outcome taken; `999` when unlabelled (`leg_outcome_index`).
    #[serde(rename = "leg_outcome_index", deserialize_with = "rounded::u32_opt")]
    pub outcome_index: Option<u32>,
    /// Its label (`leg_outcome_label`).
    #[serde(rename = "leg_outcome_label", deserialize_with = "lenient::string")]
    pub outcome_label: String,
    /// `OPEN`, `RESOLVED_WIN` or `RESOLVED_LOSS` (`leg_status`).
    #[serde(rename = "leg_status", deserialize_with = "lenient::string")]
    pub status: String,
    /// When the leg's market closed (`leg_resolved_at`); `None` while open.
    #[serde(rename = "leg_resolved_at", deserialize_with = "timestamp_opt")]
    pub resolved_at: Option<Timestamp>,
    /// The outcome's live price (`leg_current_price`).
    #[serde(rename = "leg_current_price", deserialize_with = "rounded::price_opt")]
    pub current_price: Option<Price>,
    /// The leg's market and its event.
    pub market: ComboLegMarket,
}

/// The market of a [`ComboLeg`], with its event's fields (the wire nests them in `event`).
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(from = "WireLegMarket")]
#[non_exhaustive]
pub struct ComboLegMarket {
    /// Gamma's market id (not the condition: that is the leg's).
    pub market_id: String,
    /// Market slug.
    pub slug: String,
    /// Short per-leg label, falling back to the question.
    pub title: String,
    /// The full question.
    pub question: String,
    /// The leg's outcome on this market.
    pub outcome: String,
    /// The market's outcome labels, in index order.
    pub outcomes: Vec<String>,
    /// The short label as Gamma has it.
    pub group_item_title: String,
    /// Sports market type (`moneyline`, `totals`, …); empty for other markets.
    pub sports_market_type: String,
    /// The sports line; `None` without one.
    pub line: Option<Amount>,
    /// Image URL.
    pub image_url: String,
    /// Icon URL.
    pub icon_url: String,
    /// Gamma category.
    pub category: String,
    /// Gamma subcategory.
    pub subcategory: String,
    /// End date; `None` when Gamma has none.
    pub end_date: Option<Timestamp>,
    /// The event's Gamma id.
    pub event_id: String,
    /// The event's slug.
    pub event_slug: String,
    /// The event's title.
    pub event_title: String,
    /// The event's image URL.
    pub event_image: String,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireLegMarket {
    #[serde(deserialize_with = "lenient::string")]
    market_id: String,
    #[serde(deserialize_with = "lenient::string")]
    slug: String,
    #[serde(deserialize_with = "lenient::string")]
    title: String,
    #[serde(deserialize_with = "lenient::string")]
    question: String,
    #[serde(deserialize_with = "lenient::string")]
    outcome: String,
    #[serde(deserialize_with = "rounded::text_list")]
    outcomes: Vec<String>,
    #[serde(deserialize_with = "lenient::string")]
    group_item_title: String,
    #[serde(deserialize_with = "lenient::string")]
    sports_market_type: String,
    #[serde(deserialize_with = "amount_opt")]
    line: Option<Amount>,
    #[serde(deserialize_with = "lenient::string")]
    image_url: String,
    #[serde(deserialize_with = "lenient::string")]
    icon_url: String,
    #[serde(deserialize_with = "lenient::string")]
    category: String,
    #[serde(deserialize_with = "lenient::string")]
    subcategory: String,
    #[serde(deserialize_with = "timestamp_opt")]
    end_date: Option<Timestamp>,
    event: WireLegEvent,
}

#[derive(Deserialize, Default)]
#[serde(default)]
struct WireLegEvent {
    #[serde(deserialize_with = "lenient::string")]
    event_id: String,
    #[serde(deserialize_with = "lenient::string")]
    event_slug: String,
    #[serde(deserialize_with = "lenient::string")]
    event_title: String,
    #[serde(deserialize_with = "lenient::string")]
    event_image: String,
}

impl From<WireLegMarket> for ComboLegMarket {
    fn from(w: WireLegMarket) -> Self {
        Self {
            market_id: w.market_id,
            slug: w.slug,
            title: w.title,
            question: w.question,
            outcome: w.outcome,
            outcomes: w.outcomes,
            group_item_title: w.group_item_title,
            sports_market_type: w.sports_market_type,
            line: w.line,
            image_url: w.image_url,
            icon_url: w.icon_url,
            category: w.category,
            subcategory: w.subcategory,
            end_date: w.end_date,
            event_id: w.event.event_id,
            event_slug: w.event.event_slug,
            event_title: w.event.event_title,
            event_image: w.event.event_image,
        }
    }
}

/// The documented `status` values of `/v2/positions/combos`.
const COMBO_STATUSES: &[&str] = &[
    "OPEN",
    "REDEEMABLE",
    "PARTIAL",
    "RESOLVED_WIN",
    "RESOLVED_LOSS",
    "RESOLVED_PARTIAL",
];

impl Query<ComboPosition> {
    /// `GET /v2/positions/combos` of `user` (the held positions unless
    /// [`status`](Self::status) or [`updated_between`](Self::updated_between) says otherwise).
    pub fn combo_positions(user: impl Into<String>) -> Self {
        Self::new("/v2/positions/combos").pair("user", user.into())
    }

    /// Lifecycle filter: `OPEN`, `REDEEMABLE` (alone), `PARTIAL`, `RESOLVED_WIN`,
    /// `RESOLVED_LOSS`, `RESOLVED_PARTIAL`, or several of the others comma-separated.
    /// Default is the held positions.
    pub fn status(self, status: &str) -> Self {
        let parts: Vec<&str> = status.split(',').map(str::trim).collect();
        let mut q = self;
        let mut sent = Vec::new();
        for p in &parts {
            q = q.one_of("status", p, COMBO_STATUSES);
            sent.push(p.to_ascii_uppercase());
        }
        if parts.len() > 1 && sent.iter().any(|s| s == "REDEEMABLE") {
            return q.refuse(format!(
                "status REDEEMABLE must be alone, got {status:?} (`/v2/positions/combos`)"
            ));
        }
        // One `status` pair with the whole list (the docs' comma-separated form).
        q.drop_pairs("status").pair("status", sent.join(","))
    }

    /// Order: `FIRST_ENTRY`, `ENTRY_COST`, `CURRENT_VALUE` (an alias of `ENTRY_COST`) or
    /// `UPDATED`. Default is the server's (`FIRST_ENTRY`; `ENTRY_COST` under `REDEEMABLE`).
    pub fn sort_by(self, sort: &str) -> Self {
        self.one_of(
            "sort_by",
            sort,
            &["FIRST_ENTRY", "ENTRY_COST", "CURRENT_VALUE", "UPDATED"],
        )
    }

    /// `ASC` or `DESC`. Default is the server's (`DESC`).
    pub fn direction(self, direction: &str) -> Self {
        self.one_of("sort_direction", direction, &["ASC", "DESC"])
    }

    /// Only positions updated between `after` and `before` (unix seconds, inclusive; 0
    /// leaves a side open): the incremental-sync view (every live row, not only held ones,
    /// unless a status is given), best walked `sort_by("UPDATED").direction("ASC")`.
    pub fn updated_between(self, after: u64, before: u64) -> Self {
        let mut q = self;
        if after > 0 {
            q = q.pair("updated_after", after.to_string());
        }
        if before > 0 {
            q = q.pair("updated_before", before.to_string());
        }
        q
    }
}

impl Query<ComboActivity> {
    /// `GET /v2/activity/combos` of `user`, newest first.
    pub fn combo_activity(user: impl Into<String>) -> Self {
        Self::new("/v2/activity/combos").pair("user", user.into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn combo_ids_are_sent_as_given_and_statuses_checked() {
        let id = "0x030b98f62eadaee25b8c04abe48fb41d480000000000000000000000000000";
        let q = Query::combo_positions("0x1")
            .condition(id)
            .status("open, resolved_win")
            .sort_by("updated")
            .direction("asc")
            .updated_between(10, 0);
        let r = q.request(None).unwrap();
        assert_eq!(
            r.query,
            format!(
                "user=0x1&status=OPEN%2CRESOLVED_WIN&sort_by=UPDATED&sort_direction=ASC&updated_after=10&condition={id}"
            )
        );
        for bad in ["REDEEMABLE,OPEN", "CLOSED", ""] {
            let e = Query::combo_positions("0x1").status(bad).request(None);
            assert!(e.unwrap_err().is_argument(), "{bad}");
        }
        assert!(
            Query::combo_positions("0x1")
                .status("REDEEMABLE")
                .request(None)
                .is_ok()
        );
    }
}
