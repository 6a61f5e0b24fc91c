//! Following new markets: read `new_market` events and subscribe the new tokens that pass a
//! filter (tags, question text, sports market type).
//!
//! The market channel announces every new market to connections subscribed with
//! `custom_feature_enabled` ([Polymarket market channel]; the market feed's default).
//! [`FollowNewMarkets`] wraps any market [`Handler`]: every message goes to the inner handler
//! unchanged, and a `new_market` event whose market passes the [`FollowFilter`] has its token
//! ids subscribed through the feed's [`FeedHandle`]. The subscription then behaves like any
//! other: the book of a new token starts from its snapshot, under the same trust rules.
//!
//! [Polymarket market channel]: https://docs.polymarket.com/developers/CLOB/websocket/market-channel

use std::fmt;
use std::sync::Arc;

use super::event::Status;
use super::feed::{Cx, FeedHandle, Handler};
use super::market::{MarketFeed, MarketMessage};
use crate::decode::{EventView as Decoded, JsonStr, MarketMsg, NewMarketFields, decode};

type Predicate = Arc<dyn Fn(&MarketMsg<'_>, &NewMarketFields<'_>) -> bool + Send + Sync>;

/// Which new markets to follow. Each kind of criterion set (tags, question words, sports
/// types, predicate) must match; within a kind, any value matches. No criterion: every
/// market. Text comparisons ignore ASCII case.
///
/// ```
/// use polyclob::ws::follow::FollowFilter;
/// let f = FollowFilter::any().tag("crypto").tag("stocks").question_contains("above");
/// # let _ = f;
/// ```
#[derive(Clone, Default)]
pub struct FollowFilter {
    tags: Vec<String>,
    question: Vec<String>,
    sports: Vec<String>,
    predicate: Option<Predicate>,
}

impl fmt::Debug for FollowFilter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("FollowFilter")
            .field("tags", &self.tags)
            .field("question", &self.question)
            .field("sports", &self.sports)
            .field("predicate", &self.predicate.is_some())
            .finish()
    }
}

/// Case-insensitive ASCII substring search, without allocating.
fn contains_ignore_case(hay: &str, needle: &str) -> bool {
    let (h, n) = (hay.as_bytes(), needle.as_bytes());
    n.is_empty() || h.windows(n.len()).any(|w| w.eq_ignore_ascii_case(n))
}

/// Compares a JSON string (maybe escaped) with `want`, ignoring ASCII case.
fn text_eq(s: &JsonStr<'_>, want: &str) -> bool {
    match s.as_str() {
        Some(t) => t.eq_ignore_ascii_case(want),
        None => s.to_unescaped().is_ok_and(|t| t.eq_ignore_ascii_case(want)),
    }
}

impl FollowFilter {
    /// Every new market.
    #[must_use]
    pub fn any() -> Self {
        Self::default()
    }

    /// Follow markets carrying this tag (slug, e.g. `crypto`). May be repeated (any of).
    #[must_use]
    pub fn tag(mut self, tag: impl Into<String>) -> Self {
        self.tags.push(tag.into());
        self
    }

    /// Follow markets whose question contains this text. May be repeated (any of).
    #[must_use]
    pub fn question_contains(mut self, text: impl Into<String>) -> Self {
        self.question.push(text.into());
        self
    }

    /// Follow sports markets of this type (`moneyline`, `spreads`, `totals` …). May be
    /// repeated (any of).
    #[must_use]
    pub fn sports_market_type(mut self, kind: impl Into<String>) -> Self {
        self.sports.push(kind.into());
        self
    }

    /// An extra condition on the decoded event and its 2026 fields.
    #[must_use]
    pub fn matching<F>(mut self, f: F) -> Self
    where
        F: Fn(&MarketMsg<'_>, &NewMarketFields<'_>) -> bool + Send + Sync + 'static,
    {
        self.predicate = Some(Arc::new(f));
        self
    }

    /// Whether a `new_market` event passes.
    #[must_use]
    pub fn matches(&self, msg: &MarketMsg<'_>, fields: &NewMarketFields<'_>) -> bool {
        let tags_ok = self.tags.is_empty()
            || fields
                .tags
                .filter_map(Result::ok)
                .any(|t| self.tags.iter().any(|w| text_eq(&t, w)));
        let question_ok = self.question.is_empty()
            || msg.question.is_some_and(|q| {
                let text = q.to_unescaped().unwrap_or_default();
                self.question.iter().any(|w| contains_ignore_case(&text, w))
            });
        let sports_ok = self.sports.is_empty()
            || fields
                .sports_market_type
                .is_some_and(|s| self.sports.iter().any(|w| text_eq(&s, w)));
        tags_ok
            && question_ok
            && sports_ok
            && self.predicate.as_ref().is_none_or(|p| p(msg, fields))
    }
}

/// A frame [`Handler`] that follows new markets; see the [module docs](self).
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use polyclob::ws::feed::{Cx, Handler};
/// use polyclob::ws::follow::{FollowNewMarkets, FollowFilter};
/// use polyclob::ws::market::{MarketFeed, MarketMessage, MarketStream};
///
/// struct Print;
/// impl Handler<MarketFeed> for Print {
///     fn on_message(&mut self, m: &MarketMessage<'_>, _: &Cx<'_, MarketFeed>) { println!("{m:?}"); }
/// }
/// let mut stream = MarketStream::builder().assets(["7604"]).build()?;
/// let mut follow = FollowNewMarkets::new(stream.handle(), FollowFilter::any().tag("crypto"), Print);
/// stream.run(&mut follow).await;
/// # Ok(()) }
/// ```
#[derive(Debug)]
pub struct FollowNewMarkets<H> {
    handle: FeedHandle<MarketFeed>,
    filter: FollowFilter,
    inner: H,
    followed: u64,
    ids: Vec<String>,
}

impl<H> FollowNewMarkets<H> {
    /// Follows the markets `filter` accepts on the stream behind `handle`, passing every
    /// frame on to `inner`.
    #[must_use]
    pub fn new(handle: FeedHandle<MarketFeed>, filter: FollowFilter, inner: H) -> Self {
        Self {
            handle,
            filter,
            inner,
            followed: 0,
            ids: Vec::new(),
        }
    }

    /// Reads one frame's text: subscribes the tokens of every accepted `new_market` event in
    /// it and returns how many markets were followed. For the owned tier (call it on each
    /// `new_market` event's JSON); the handler tier calls it for you.
    pub fn observe(&mut self, frame: &str) -> usize {
        if !frame.contains("new_market") {
            return 0;
        }
        decode(frame)
            .filter(|ev| matches!(ev, Ok(Decoded::NewMarket(m)) if self.follow(m)))
            .count()
    }

    /// Subscribes the tokens of `m` if the filter accepts it.
    fn follow(&mut self, m: &MarketMsg<'_>) -> bool {
        let Ok(fields) = m.fields() else { return false };
        if !self.filter.matches(m, &fields) {
            return false;
        }
        // `clob_token_ids` when sent, else `assets_ids` (the older field).
        let list = if fields.has_clob_token_ids {
            fields.clob_token_ids
        } else {
            m.assets_ids
        };
        self.ids.clear();
        self.ids.extend(
            list.filter_map(Result::ok)
                .filter_map(|s| s.as_str())
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
        );
        let ok = !self.ids.is_empty() && self.handle.subscribe(self.ids.drain(..)).is_ok();
        self.followed += u64::from(ok);
        ok
    }

    /// Markets followed so far.
    #[must_use]
    pub fn followed(&self) -> u64 {
        self.followed
    }

    /// The wrapped handler.
    #[must_use]
    pub fn inner(&self) -> &H {
        &self.inner
    }

    /// The wrapped handler, mutably.
    pub fn inner_mut(&mut self) -> &mut H {
        &mut self.inner
    }

    /// Unwraps the handler.
    pub fn into_inner(self) -> H {
        self.inner
    }
}

impl<H: Handler<MarketFeed>> Handler<MarketFeed> for FollowNewMarkets<H> {
    fn on_message(&mut self, msg: &MarketMessage<'_>, cx: &Cx<'_, MarketFeed>) {
        self.inner.on_message(msg, cx);
        if let MarketMessage::Update(u) = msg {
            if let Decoded::NewMarket(m) = &u.event {
                self.follow(m);
            }
        }
    }
    fn on_invalid(&mut self, error: &crate::decode::DecodeError, cx: &Cx<'_, MarketFeed>) {
        self.inner.on_invalid(error, cx);
    }
    fn on_status(&mut self, status: &Status, cx: &Cx<'_, MarketFeed>) {
        self.inner.on_status(status, cx);
    }
    fn on_break(&mut self, brk: &super::continuity::Break, cx: &Cx<'_, MarketFeed>) {
        self.inner.on_break(brk, cx);
    }
    fn on_lag(&mut self, lag: &super::feed::Lag, cx: &Cx<'_, MarketFeed>) {
        self.inner.on_lag(lag, cx);
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn check(filter: &FollowFilter, json: &str) -> bool {
        let Some(Ok(Decoded::NewMarket(m))) = decode(json).next() else {
            panic!()
        };
        filter.matches(&m, &m.fields().unwrap())
    }

    #[test]
    fn criteria_combine_and_within_or() {
        let stocks = r#"{"event_type":"new_market","market":"0x1","question":"Will NVIDIA close ABOVE $240?","tags":["stocks","Tech"]}"#;
        let nba = r#"{"event_type":"new_market","market":"0x2","question":"Lakers vs. Celtics","tags":["sports"],"sports_market_type":"moneyline"}"#;
        assert!(check(&FollowFilter::any(), stocks));
        assert!(check(
            &FollowFilter::any().tag("crypto").tag("tech"),
            stocks
        ));
        assert!(!check(&FollowFilter::any().tag("crypto"), stocks));
        assert!(check(
            &FollowFilter::any().question_contains("above"),
            stocks
        ));
        assert!(!check(&FollowFilter::any().question_contains("above"), nba));
        assert!(check(
            &FollowFilter::any().sports_market_type("MONEYLINE"),
            nba
        ));
        assert!(!check(
            &FollowFilter::any().sports_market_type("moneyline"),
            stocks
        ));
        assert!(!check(
            &FollowFilter::any().tag("stocks").question_contains("below"),
            stocks
        ));
        let f = FollowFilter::any().matching(|m, _| m.market == "0x2");
        assert!(check(&f, nba) && !check(&f, stocks));
    }

    #[test]
    fn substring_ignores_ascii_case() {
        assert!(contains_ignore_case("Will it RAIN?", "rain"));
        assert!(contains_ignore_case("x", ""));
        assert!(!contains_ignore_case("ra", "rain"));
    }
}
