//! Query filters for Gamma's keyset lists (`/markets/keyset`, `/events/keyset`), built like
//! reqwest's builders: by-value setters that state their default.

use crate::fixed::Size;

/// Most markets one `/markets/keyset` page may hold (docs.polymarket.com, Gamma keyset lists).
pub const MAX_MARKETS_PAGE: u32 = 100;
/// Most events one `/events/keyset` page may hold.
pub const MAX_EVENTS_PAGE: u32 = 500;
/// Most `condition_ids` one Gamma request may carry; larger sets are split into chunks.
pub const MAX_CONDITION_IDS: usize = 100;

/// Filters for [`Client::markets`](super::Client::markets) and friends.
///
/// ```
/// use polyclob::fixed::Size;
/// use polyclob::gamma::MarketFilter;
///
/// let f = MarketFilter::new()
///     .closed(false)
///     .tag_id("235")
///     .liquidity_min(Size::from_micros(1_000_000_000))
///     .end_date_max("2027-01-01T00:00:00Z")
///     .limit(500); // clamped to 100
/// assert_eq!(f.page_limit(), 100);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct MarketFilter {
    pub(crate) pairs: Vec<(&'static str, String)>,
    pub(crate) condition_ids: Vec<String>,
    limit: Option<u32>,
}

impl MarketFilter {
    /// No filter: Gamma's defaults (which list open markets only).
    pub fn new() -> Self {
        Self::default()
    }

    /// Page size, at most [`MAX_MARKETS_PAGE`] (larger values are clamped). Default is
    /// Gamma's own default.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit.clamp(1, MAX_MARKETS_PAGE));
        self
    }

    /// The page size that will be sent, if any.
    #[must_use]
    pub fn page_limit(&self) -> u32 {
        self.limit.unwrap_or(0)
    }

    pub(crate) fn limit_opt(&self) -> Option<u32> {
        self.limit
    }

    /// Closed (`true`) or open (`false`) markets. Default is unset (Gamma lists open markets).
    pub fn closed(self, closed: bool) -> Self {
        self.pair("closed", closed.to_string())
    }

    /// Active (`true`) or inactive markets. Default is unset.
    pub fn active(self, active: bool) -> Self {
        self.pair("active", active.to_string())
    }

    /// Archived (`true`) or unarchived markets. Default is unset.
    pub fn archived(self, archived: bool) -> Self {
        self.pair("archived", archived.to_string())
    }

    /// Markets with this tag id; may be repeated. Default is every tag.
    pub fn tag_id(self, id: impl Into<String>) -> Self {
        self.pair("tag_id", id.into())
    }

    /// Also match related tags of `tag_id`. Default is unset.
    pub fn related_tags(self, yes: bool) -> Self {
        self.pair("related_tags", yes.to_string())
    }

    /// Minimum liquidity in pUSD. Default is none.
    pub fn liquidity_min(self, min: Size) -> Self {
        self.pair("liquidity_num_min", min.to_string())
    }

    /// Maximum liquidity in pUSD. Default is none.
    pub fn liquidity_max(self, max: Size) -> Self {
        self.pair("liquidity_num_max", max.to_string())
    }

    /// Minimum lifetime volume in pUSD. Default is none.
    pub fn volume_min(self, min: Size) -> Self {
        self.pair("volume_num_min", min.to_string())
    }

    /// Maximum lifetime volume in pUSD. Default is none.
    pub fn volume_max(self, max: Size) -> Self {
        self.pair("volume_num_max", max.to_string())
    }

    /// Earliest start date (ISO 8601). Default is none.
    pub fn start_date_min(self, date: impl Into<String>) -> Self {
        self.pair("start_date_min", date.into())
    }

    /// Latest start date (ISO 8601). Default is none.
    pub fn start_date_max(self, date: impl Into<String>) -> Self {
        self.pair("start_date_max", date.into())
    }

    /// Earliest end date (ISO 8601). Default is none.
    pub fn end_date_min(self, date: impl Into<String>) -> Self {
        self.pair("end_date_min", date.into())
    }

    /// Latest end date (ISO 8601). Default is none.
    pub fn end_date_max(self, date: impl Into<String>) -> Self {
        self.pair("end_date_max", date.into())
    }

    /// Markets with this slug; may be repeated. Default is any.
    pub fn slug(self, slug: impl Into<String>) -> Self {
        self.pair("slug", slug.into())
    }

    /// Markets holding this CLOB token id; may be repeated. Default is any.
    pub fn clob_token_id(self, id: impl Into<String>) -> Self {
        self.pair("clob_token_ids", id.into())
    }

    /// Sports markets of this type (`"moneyline"`, …); may be repeated. Default is any.
    pub fn sports_market_type(self, kind: impl Into<String>) -> Self {
        self.pair("sports_market_types", kind.into())
    }

    /// Sort by this field (e.g. `"volume24hr"`). Default is Gamma's order.
    pub fn order(self, field: impl Into<String>) -> Self {
        self.pair("order", field.into())
    }

    /// Sort ascending (`true`) or descending. Default is Gamma's.
    pub fn ascending(self, yes: bool) -> Self {
        self.pair("ascending", yes.to_string())
    }

    /// Markets with these condition ids. Any number: requests carry at most
    /// [`MAX_CONDITION_IDS`] each and the answers are joined. Default is any.
    pub fn condition_ids<I, S>(mut self, ids: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.condition_ids.extend(ids.into_iter().map(Into::into));
        self
    }

    fn pair(mut self, key: &'static str, value: String) -> Self {
        self.pairs.push((key, value));
        self
    }
}

/// Filters for [`Client::events`](super::Client::events) and friends.
///
/// ```
/// use polyclob::gamma::EventFilter;
///
/// let f = EventFilter::new().closed(false).featured(true).limit(1000);
/// assert_eq!(f.page_limit(), 500);
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[must_use]
pub struct EventFilter {
    pub(crate) pairs: Vec<(&'static str, String)>,
    limit: Option<u32>,
}

impl EventFilter {
    /// No filter.
    pub fn new() -> Self {
        Self::default()
    }

    /// Page size, at most [`MAX_EVENTS_PAGE`] (larger values are clamped). Default is
    /// Gamma's own default.
    pub fn limit(mut self, limit: u32) -> Self {
        self.limit = Some(limit.clamp(1, MAX_EVENTS_PAGE));
        self
    }

    /// The page size that will be sent, if any.
    #[must_use]
    pub fn page_limit(&self) -> u32 {
        self.limit.unwrap_or(0)
    }

    pub(crate) fn limit_opt(&self) -> Option<u32> {
        self.limit
    }

    /// Closed (`true`) or open (`false`) events. Default is unset.
    pub fn closed(self, closed: bool) -> Self {
        self.pair("closed", closed.to_string())
    }

    /// Active (`true`) or inactive events. Default is unset.
    pub fn active(self, active: bool) -> Self {
        self.pair("active", active.to_string())
    }

    /// Featured events only. Default is unset.
    pub fn featured(self, yes: bool) -> Self {
        self.pair("featured", yes.to_string())
    }

    /// Events with this tag id; may be repeated. Default is every tag.
    pub fn tag_id(self, id: impl Into<String>) -> Self {
        self.pair("tag_id", id.into())
    }

    /// Events with this tag slug. Default is every tag.
    pub fn tag_slug(self, slug: impl Into<String>) -> Self {
        self.pair("tag_slug", slug.into())
    }

    /// Minimum liquidity in pUSD. Default is none.
    pub fn liquidity_min(self, min: Size) -> Self {
        self.pair("liquidity_min", min.to_string())
    }

    /// Maximum liquidity in pUSD. Default is none.
    pub fn liquidity_max(self, max: Size) -> Self {
        self.pair("liquidity_max", max.to_string())
    }

    /// Minimum volume in pUSD. Default is none.
    pub fn volume_min(self, min: Size) -> Self {
        self.pair("volume_min", min.to_string())
    }

    /// Maximum volume in pUSD. Default is none.
    pub fn volume_max(self, max: Size) -> Self {
        self.pair("volume_max", max.to_string())
    }

    /// Earliest end date (ISO 8601). Default is none.
    pub fn end_date_min(self, date: impl Into<String>) -> Self {
        self.pair("end_date_min", date.into())
    }

    /// Latest end date (ISO 8601). Default is none.
    pub fn end_date_max(self, date: impl Into<String>) -> Self {
        self.pair("end_date_max", date.into())
    }

    /// Events with this slug; may be repeated. Default is any.
    pub fn slug(self, slug: impl Into<String>) -> Self {
        self.pair("slug", slug.into())
    }

    /// Sort by this field. Default is Gamma's order.
    pub fn order(self, field: impl Into<String>) -> Self {
        self.pair("order", field.into())
    }

    /// Sort ascending (`true`) or descending. Default is Gamma's.
    pub fn ascending(self, yes: bool) -> Self {
        self.pair("ascending", yes.to_string())
    }

    fn pair(mut self, key: &'static str, value: String) -> Self {
        self.pairs.push((key, value));
        self
    }
}
