//! Liquidity rewards (docs.polymarket.com/api-reference/rewards): the user's earnings by day
//! (per market and in total), the user's live reward percentages, the markets with active
//! rewards, and one market's raw reward programs; and a maker's fee rebates of a day
//! ([`Client::current_rebates`]). Order scoring lives with the orders
//! ([`Client::order_scoring`]).
//!
//! The user endpoints are L2 and take the account's `signature_type`; the market endpoints
//! are public. Every list pages with `next_cursor` and keeps odd rows out of the page.

use futures_core::Stream;

use super::auth::Level;
use super::client::Client;
use super::paging::PageSpec;
use super::request::Req;
use super::types::{
    CurrentReward, MakerRebate, MarketReward, RewardPercentages, TotalEarning, UserEarning,
    UserMarketEarning,
};
use crate::http::Error;
use crate::http::path_with;
use crate::http::{END_CURSOR, Page, SkippedRow, Walk, decode_page, decode_rows};
use crate::types::SignatureType;

/// Query of `GET /rewards/user/markets`.
///
/// ```
/// let q = polyclob::clob::RewardsQuery::new("2026-11-23").order_by("earnings");
/// assert_eq!(q.date(), "2026-11-23");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RewardsQuery {
    date: String,
    order_by: String,
    position: String,
    no_competition: bool,
}

impl RewardsQuery {
    /// Earnings of `date` (`YYYY-MM-DD`).
    pub fn new(date: impl Into<String>) -> Self {
        Self {
            date: date.into(),
            order_by: String::new(),
            position: String::new(),
            no_competition: false,
        }
    }

    /// Sort key, as the server names it. Default is empty (the server's order).
    #[must_use]
    pub fn order_by(mut self, key: impl Into<String>) -> Self {
        self.order_by = key.into();
        self
    }

    /// Sort direction (`ASC`/`DESC`). Default is empty (the server's).
    #[must_use]
    pub fn position(mut self, position: impl Into<String>) -> Self {
        self.position = position.into();
        self
    }

    /// Only markets without competition. Default is `false`.
    #[must_use]
    pub fn no_competition(mut self, yes: bool) -> Self {
        self.no_competition = yes;
        self
    }

    /// The day asked for.
    #[must_use]
    pub fn date(&self) -> &str {
        &self.date
    }
}

/// `YYYY-MM-DD` with a plausible month and day: the server answers anything else with an
/// opaque 400, so the caller gets a typed argument error first.
fn check_date(date: &str) -> Result<(), Error> {
    let b = date.as_bytes();
    let digits = |r: core::ops::Range<usize>| b[r].iter().all(u8::is_ascii_digit);
    let ok = b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && digits(0..4)
        && digits(5..7)
        && digits(8..10)
        && (1..=12).contains(&((b[5] - b'0') * 10 + (b[6] - b'0')))
        && (1..=31).contains(&((b[8] - b'0') * 10 + (b[9] - b'0')));
    if ok {
        Ok(())
    } else {
        Err(Error::argument(format!(
            "date must be YYYY-MM-DD, got {date:?}"
        )))
    }
}

fn earnings_spec(date: &str, sig: SignatureType) -> Result<PageSpec<UserEarning>, Error> {
    check_date(date)?;
    Ok(PageSpec {
        path: "/rewards/user",
        query: vec![
            ("date", date.to_owned()),
            ("signature_type", sig.as_u8().to_string()),
        ],
        auth: Level::L2,
        decode: |b| decode_page::<UserEarning>(b),
    })
}

fn market_earnings_spec(
    q: &RewardsQuery,
    sig: SignatureType,
) -> Result<PageSpec<UserMarketEarning>, Error> {
    check_date(&q.date)?;
    let mut query = vec![
        ("date", q.date.clone()),
        ("signature_type", sig.as_u8().to_string()),
    ];
    if !q.order_by.is_empty() {
        query.push(("order_by", q.order_by.clone()));
    }
    if !q.position.is_empty() {
        query.push(("position", q.position.clone()));
    }
    if q.no_competition {
        query.push(("no_competition", "true".to_owned()));
    }
    Ok(PageSpec {
        path: "/rewards/user/markets",
        query,
        auth: Level::L2,
        decode: |b| decode_page::<UserMarketEarning>(b),
    })
}

fn current_spec() -> PageSpec<CurrentReward> {
    PageSpec {
        path: "/rewards/markets/current",
        query: Vec::new(),
        auth: Level::None,
        decode: |b| decode_page::<CurrentReward>(b),
    }
}

impl Client {
    /// One page of `GET /rewards/user` (L2): the user's earnings per market on `date`
    /// (`YYYY-MM-DD`).
    ///
    /// # Errors
    ///
    /// A malformed date ([`Error::is_argument`]); credentials, transport, status or decode.
    pub async fn earnings_for_day(
        &self,
        date: &str,
        sig: SignatureType,
        cursor: Option<&str>,
    ) -> Result<Page<UserEarning>, Error> {
        self.page(&earnings_spec(date, sig)?, cursor).await
    }

    /// Every page of `GET /rewards/user`.
    ///
    /// # Errors
    ///
    /// A malformed date, before any request.
    pub fn earnings_for_day_stream(
        &self,
        date: &str,
        sig: SignatureType,
    ) -> Result<impl Stream<Item = Result<Page<UserEarning>, Error>> + Send + 'static, Error> {
        Ok(self.page_stream(earnings_spec(date, sig)?))
    }

    /// All of the user's earnings on `date`, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// A malformed date, or the first page error.
    pub async fn all_earnings_for_day(
        &self,
        date: &str,
        sig: SignatureType,
    ) -> Result<(Vec<UserEarning>, Vec<SkippedRow>), Error> {
        self.collect_all(earnings_spec(date, sig)?).await
    }

    /// `GET /rewards/user/total` (L2): the user's earnings on `date`, summed per reward
    /// asset, and the rows that did not decode.
    ///
    /// # Errors
    ///
    /// A malformed date; credentials, transport, status, or a body that is not an array.
    pub async fn total_earnings_for_day(
        &self,
        date: &str,
        sig: SignatureType,
    ) -> Result<(Vec<TotalEarning>, Vec<SkippedRow>), Error> {
        check_date(date)?;
        let req = Req::get("/rewards/user/total")
            .query("date", date)
            .query("signature_type", &sig.as_u8().to_string())
            .auth(Level::L2);
        self.rows(&req, |b| decode_rows(b)).await
    }

    /// `GET /rebates/current` (public): the maker rebates of `maker_address` on `date`
    /// (`YYYY-MM-DD`), one row per market, plus rows that did not decode. The venue pays them
    /// daily in pUSD from a share of the taker fees the maker's fills carried
    /// ([`FeeSchedule::maker_rebate`](crate::types::FeeSchedule::maker_rebate)).
    ///
    /// # Errors
    ///
    /// A malformed date ([`Error::is_argument`]); transport, status, or a body that is not
    /// an array.
    pub async fn current_rebates(
        &self,
        date: &str,
        maker_address: &str,
    ) -> Result<(Vec<MakerRebate>, Vec<SkippedRow>), Error> {
        check_date(date)?;
        let body = self
            .send(
                &Req::get("/rebates/current")
                    .query("date", date)
                    .query("maker_address", maker_address),
            )
            .await?;
        decode_rows(&body).map_err(|e| e.with_path("/rebates/current"))
    }

    /// One page of `GET /rewards/user/markets` (L2): reward markets with the user's share and
    /// earnings on the query's day.
    ///
    /// # Errors
    ///
    /// A malformed date; credentials, transport, status or decode.
    pub async fn user_earnings_and_markets(
        &self,
        query: &RewardsQuery,
        sig: SignatureType,
        cursor: Option<&str>,
    ) -> Result<Page<UserMarketEarning>, Error> {
        self.page(&market_earnings_spec(query, sig)?, cursor).await
    }

    /// Every row of `GET /rewards/user/markets`, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// A malformed date, or the first page error.
    pub async fn all_user_earnings_and_markets(
        &self,
        query: &RewardsQuery,
        sig: SignatureType,
    ) -> Result<(Vec<UserMarketEarning>, Vec<SkippedRow>), Error> {
        self.collect_all(market_earnings_spec(query, sig)?).await
    }

    /// `GET /rewards/user/percentages` (L2): the share of each market's rewards the user is
    /// earning right now.
    ///
    /// # Errors
    ///
    /// Credentials, transport, status or decode.
    pub async fn reward_percentages(&self, sig: SignatureType) -> Result<RewardPercentages, Error> {
        self.json(
            &Req::get("/rewards/user/percentages")
                .query("signature_type", &sig.as_u8().to_string())
                .auth(Level::L2),
        )
        .await
    }

    /// One page of `GET /rewards/markets/current` (public): markets with active rewards.
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not a page.
    pub async fn current_rewards(
        &self,
        cursor: Option<&str>,
    ) -> Result<Page<CurrentReward>, Error> {
        self.page(&current_spec(), cursor).await
    }

    /// Every page of `GET /rewards/markets/current`.
    pub fn current_rewards_stream(
        &self,
    ) -> impl Stream<Item = Result<Page<CurrentReward>, Error>> + Send + 'static {
        self.page_stream(current_spec())
    }

    /// All markets with active rewards, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// The first page error.
    pub async fn all_current_rewards(
        &self,
    ) -> Result<(Vec<CurrentReward>, Vec<SkippedRow>), Error> {
        self.collect_all(current_spec()).await
    }

    /// One page of `GET /rewards/markets/{condition_id}` (public): the market's present and
    /// future reward programs.
    ///
    /// # Errors
    ///
    /// Transport, status, or a body that is not a page.
    pub async fn market_rewards(
        &self,
        condition_id: &str,
        cursor: Option<&str>,
    ) -> Result<Page<MarketReward>, Error> {
        let path = path_with(
            "/rewards/markets/",
            &crate::types::padded_condition(condition_id),
        );
        let body = self
            .send(
                &Req::get(&path).query("next_cursor", cursor.unwrap_or(crate::http::START_CURSOR)),
            )
            .await?;
        self.inner
            .http
            .rows("/rewards/markets/{condition_id}", decode_page(&body))
    }

    /// Every row of `GET /rewards/markets/{condition_id}`, plus rows that did not decode.
    ///
    /// # Errors
    ///
    /// The first page error.
    pub async fn all_market_rewards(
        &self,
        condition_id: &str,
    ) -> Result<(Vec<MarketReward>, Vec<SkippedRow>), Error> {
        let mut walk = Walk::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = self.market_rewards(condition_id, cursor.as_deref()).await?;
            let next = page.next_cursor.clone();
            let last = page.is_last() || cursor.as_deref() == Some(next.as_str());
            walk.page(page.data, page.skipped);
            if last || next == END_CURSOR {
                return Ok(walk.finish());
            }
            cursor = Some(next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_are_checked_before_sending() {
        assert!(check_date("2026-11-23").is_ok());
        for bad in [
            "2026-13-01",
            "2026-1-01",
            "26-11-23",
            "2026/11/23",
            "",
            "2026-11-00",
        ] {
            assert!(check_date(bad).unwrap_err().is_argument(), "{bad}");
        }
    }
}
