//! Query filters for Gamma's keyset lists (`/markets/keyset`, `/events/keyset`), built like
//! reqwest's builders: by-value setters that state their default.

use crate::fixed::Size;

/// Most markets one `/markets/keyset` page may hold (docs.polymarket.com, Gamma keyset lists).
pub const MAX_MARKETS_PAGE: u32 = 100;
/// Most events one `/events/keyset` page may hold.
pub const MAX_EVENTS_PAGE: u32 = 500;
/// Most `condition_ids` one Gamma request may carry; larger sets are split into chunks.
pub const MAX_CONDITION_IDS: usize = 100;

/// The methods both filters share, written inside their `impl` (rustdoc lists them in
/// place): the page size clamped to `$max`, and `pair`, which the setters push through.
macro_rules! filter_common {
    ($max:ident) => {
        #[doc = concat!("Page size, at most [`", stringify!($max), "`] (larger values are clamped). Default is")]
        /// Gamma's own default.
        pub fn limit(mut self, limit: u32) -> Self {
            self.limit = Some(limit.clamp(1, $max));
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

        fn pair(mut self, key: &'static str, value: String) -> Self {
            self.pairs.push((key, value));
            self
        }
    };
}

/// By-value setters that each append one `key=value` query pair, written inside an `impl`
/// block that has a `pair(self, &'static str, String) -> Self` (so the methods stay in one
/// `impl` and in source order, as rustdoc shows them). Each entry is its doc comment, then
/// `name(arg: kind) => "key";` where `kind` is `bool` (`true`/`false`), `size` (a pUSD
/// amount, as its decimal) or `text` (anything `Into<String>`, sent as is).
macro_rules! query_setters {
    ($( $(#[$attr:meta])* $name:ident($arg:ident: $kind:ident) => $key:literal; )*) => {
        $( query_setters!(@one $(#[$attr])* $name $arg $kind $key); )*
    };
    (@one $(#[$attr:meta])* $name:ident $arg:ident bool $key:literal) => {
        $(#[$attr])*
        pub fn $name(self, $arg: bool) -> Self {
            self.pair($key, $arg.to_string())
        }
    };
    (@one $(#[$attr:meta])* $name:ident $arg:ident size $key:literal) => {
        $(#[$attr])*
        pub fn $name(self, $arg: Size) -> Self {
            self.pair($key, $arg.to_string())
        }
    };
    (@one $(#[$attr:meta])* $name:ident $arg:ident text $key:literal) => {
        $(#[$attr])*
        pub fn $name(self, $arg: impl Into<String>) -> Self {
            self.pair($key, $arg.into())
        }
    };
}

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

    filter_common!(MAX_MARKETS_PAGE);

    query_setters! {
        /// Closed (`true`) or open (`false`) markets. Default is unset (Gamma lists open markets).
        closed(closed: bool) => "closed";

        /// Active (`true`) or inactive markets. Default is unset.
        active(active: bool) => "active";

        /// Archived (`true`) or unarchived markets. Default is unset.
        archived(archived: bool) => "archived";

        /// Markets with this tag id; may be repeated. Default is every tag.
        tag_id(id: text) => "tag_id";

        /// Also match related tags of `tag_id`. Default is unset.
        related_tags(yes: bool) => "related_tags";

        /// Minimum liquidity in pUSD. Default is none.
        liquidity_min(min: size) => "liquidity_num_min";

        /// Maximum liquidity in pUSD. Default is none.
        liquidity_max(max: size) => "liquidity_num_max";

        /// Minimum lifetime volume in pUSD. Default is none.
        volume_min(min: size) => "volume_num_min";

        /// Maximum lifetime volume in pUSD. Default is none.
        volume_max(max: size) => "volume_num_max";

        /// Earliest start date (ISO 8601). Default is none.
        start_date_min(date: text) => "start_date_min";

        /// Latest start date (ISO 8601). Default is none.
        start_date_max(date: text) => "start_date_max";

        /// Earliest end date (ISO 8601). Default is none.
        end_date_min(date: text) => "end_date_min";

        /// Latest end date (ISO 8601). Default is none.
        end_date_max(date: text) => "end_date_max";

        /// Markets with this slug; may be repeated. Default is any.
        slug(slug: text) => "slug";

        /// Markets holding this CLOB token id; may be repeated. Default is any.
        clob_token_id(id: text) => "clob_token_ids";

        /// Sports markets of this type (`"moneyline"`, …); may be repeated. Default is any.
        sports_market_type(kind: text) => "sports_market_types";

        /// Sort by this field (e.g. `"volume24hr"`). Default is Gamma's order.
        order(field: text) => "order";

        /// Sort ascending (`true`) or descending. Default is Gamma's.
        ascending(yes: bool) => "ascending";
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

    filter_common!(MAX_EVENTS_PAGE);

    query_setters! {
        /// Closed (`true`) or open (`false`) events. Default is unset.
        closed(closed: bool) => "closed";

        /// Active (`true`) or inactive events. Default is unset.
        active(active: bool) => "active";

        /// Featured events only. Default is unset.
        featured(yes: bool) => "featured";

        /// Events with this tag id; may be repeated. Default is every tag.
        tag_id(id: text) => "tag_id";

        /// Events with this tag slug. Default is every tag.
        tag_slug(slug: text) => "tag_slug";

        /// Minimum liquidity in pUSD. Default is none.
        liquidity_min(min: size) => "liquidity_min";

        /// Maximum liquidity in pUSD. Default is none.
        liquidity_max(max: size) => "liquidity_max";

        /// Minimum volume in pUSD. Default is none.
        volume_min(min: size) => "volume_min";

        /// Maximum volume in pUSD. Default is none.
        volume_max(max: size) => "volume_max";

        /// Earliest end date (ISO 8601). Default is none.
        end_date_min(date: text) => "end_date_min";

        /// Latest end date (ISO 8601). Default is none.
        end_date_max(date: text) => "end_date_max";

        /// Events with this slug; may be repeated. Default is any.
        slug(slug: text) => "slug";

        /// Sort by this field. Default is Gamma's order.
        order(field: text) => "order";

        /// Sort ascending (`true`) or descending. Default is Gamma's.
        ascending(yes: bool) => "ascending";
    }

    /// Events of one sports game: `game_id`, the sports socket's numeric `gameId`
    /// ([`GameId::Num`](crate::sports::decode::GameId::Num)); may be repeated. How a bot
    /// learns a game's end it missed (the socket sends `ended: true` once). Cricket's string
    /// `metadataGameId` has no documented Gamma filter. Default is any game.
    ///
    /// ```
    /// use polyclob::gamma::EventFilter;
    /// let f = EventFilter::new().game_id(19439).game_id(1317359);
    /// # let _ = f;
    /// ```
    pub fn game_id(self, id: u64) -> Self {
        self.pair("game_id", id.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn setters_push_their_pairs_in_order() {
        let f = MarketFilter::new()
            .closed(true)
            .tag_id("235")
            .tag_id(String::from("2"))
            .liquidity_min(Size::from_micros(1_500_000))
            .sports_market_type("moneyline")
            .ascending(false)
            .limit(0);
        let pairs: Vec<(&str, &str)> = f.pairs.iter().map(|(k, v)| (*k, v.as_str())).collect();
        assert_eq!(
            pairs,
            [
                ("closed", "true"),
                ("tag_id", "235"),
                ("tag_id", "2"),
                ("liquidity_num_min", "1.5"),
                ("sports_market_types", "moneyline"),
                ("ascending", "false"),
            ]
        );
        assert_eq!(f.page_limit(), 1);
        let e = EventFilter::new()
            .volume_max(Size::from_micros(2_000_000))
            .tag_slug("politics")
            .featured(true)
            .game_id(19439)
            .game_id(7);
        assert_eq!(
            e.pairs,
            [
                ("volume_max", "2".to_owned()),
                ("tag_slug", "politics".to_owned()),
                ("featured", "true".to_owned()),
                ("game_id", "19439".to_owned()),
                ("game_id", "7".to_owned()),
            ]
        );
        assert_eq!((e.page_limit(), e.limit(9_999).page_limit()), (0, 500));
    }
}
