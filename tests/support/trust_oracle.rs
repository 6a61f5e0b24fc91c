//! A naive trust oracle for the fault tests: fed every owned item a feed yields, it reads the
//! frames with `serde_json` (not with the library's decoders) and records, per key, whether
//! the key was re-established by its own snapshot (or message, or REST fetch) since the last
//! break of its connection. [`Checked`] wraps a feed and, after every item, checks that no key
//! the feed reports [`Trust::Trusted`] lacks that re-establishment: nothing is read as trusted
//! after a break before its own key came back. (The owned tier applies a whole frame before
//! yielding its items, so a key may be trusted an item before the oracle reads its snapshot:
//! such a key is held as a suspect, cleared by its snapshot item, and fails the check if a break
//! of its connection comes first.)
#![allow(dead_code, unreachable_pub)]

use std::collections::HashMap;
use std::pin::Pin;
use std::task::{Context, Poll};

use futures_util::Stream;
use polyclob::account::user_events::{UserEvent, UserFeed};
use polyclob::polybolt::{BoltFeed, Channel, OwnedBoltMessage};
use polyclob::rtds::{OwnedMessage, RtdsFeed};
use polyclob::sports::decode::{GameId, GameKey};
use polyclob::sports::{OwnedSportResult, SportsFeed};
use polyclob::ws::event::OwnedFrame;
use polyclob::ws::feed::{Decoder, Feed, FeedEvent, Frames};
use polyclob::ws::market::{MarketEvent, MarketFeed, ResyncOutcome};
use polyclob::ws::trust::Trust;
use serde_json::Value;

/// How the oracle reads one feed's items and asks the feed about a key.
pub trait Oracled: Decoder + Sized {
    /// The connection an item came from (`None`: not a frame's) and the keys it
    /// re-establishes (`true`) or merely updates (`false`).
    fn keys(item: &Self::Owned) -> (Option<usize>, Vec<(String, bool)>);
    /// The feed's answer for an oracle key.
    fn ask(feed: &Feed<Self>, key: &str) -> Trust;
}

fn json(frame: &OwnedFrame) -> Value {
    frame
        .as_str()
        .and_then(|t| serde_json::from_str(t).ok())
        .unwrap_or(Value::Null)
}

fn text(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

impl Oracled for MarketFeed {
    fn keys(item: &MarketEvent) -> (Option<usize>, Vec<(String, bool)>) {
        match item {
            MarketEvent::Update { event, shard, .. } => {
                let v: Value = serde_json::from_str(event.json()).unwrap_or(Value::Null);
                let keys = match v["event_type"].as_str().unwrap_or("") {
                    "book" => vec![(text(&v["asset_id"]), true)],
                    "price_change" => v["price_changes"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .map(|c| (text(&c["asset_id"]), false))
                        .collect(),
                    _ => Vec::new(),
                };
                (Some(*shard), keys)
            }
            MarketEvent::Restored { asset_id, outcome } => (
                None,
                vec![(asset_id.clone(), *outcome == ResyncOutcome::Applied)],
            ),
            _ => (None, Vec::new()),
        }
    }
    fn ask(feed: &Feed<Self>, key: &str) -> Trust {
        feed.trust(key)
    }
}

impl Oracled for BoltFeed {
    fn keys(item: &OwnedBoltMessage) -> (Option<usize>, Vec<(String, bool)>) {
        let v = json(item.frame());
        let shard = Some(item.frame().shard());
        let Some(ch) = v["channel"].as_str() else {
            return (shard, Vec::new());
        };
        let snapshot = v["snapshot"] == Value::Bool(true);
        // A `price.polymarket` top names its token; a `[]` snapshot names none: the oracle
        // lets it restore any token of the channel (the feed attributes it by order).
        let p = &v["payload"];
        let symbol = if p["asset_id"].is_null() {
            &p["symbol"]
        } else {
            &p["asset_id"]
        };
        if symbol.is_null() {
            return (shard, vec![(format!("{ch}|*"), snapshot)]);
        }
        (shard, vec![(format!("{ch}|{}", text(symbol)), snapshot)])
    }
    fn ask(feed: &Feed<Self>, key: &str) -> Trust {
        let (ch, symbol) = key.split_once('|').unwrap_or((key, ""));
        match Channel::parse(ch) {
            Some(ch) => feed.trust((ch, symbol)),
            None => Trust::Unknown,
        }
    }
}

impl Oracled for RtdsFeed {
    fn keys(item: &OwnedMessage) -> (Option<usize>, Vec<(String, bool)>) {
        let v = json(item.frame());
        let symbol = &v["payload"]["symbol"];
        let keys = if symbol.is_null() {
            Vec::new()
        } else {
            vec![(format!("{}|{}", text(&v["topic"]), text(symbol)), true)]
        };
        (Some(item.frame().shard()), keys)
    }
    fn ask(feed: &Feed<Self>, key: &str) -> Trust {
        let (topic, symbol) = key.split_once('|').unwrap_or((key, ""));
        feed.trust((topic, symbol))
    }
}

impl Oracled for SportsFeed {
    fn keys(item: &OwnedSportResult) -> (Option<usize>, Vec<(String, bool)>) {
        let v = json(item.frame());
        let id = match &v["gameId"] {
            Value::Null => text(&v["metadataGameId"]),
            id => text(id),
        };
        let key = format!("{}|{id}", text(&v["leagueAbbreviation"]));
        (Some(item.frame().shard()), vec![(key, true)])
    }
    fn ask(feed: &Feed<Self>, key: &str) -> Trust {
        let (league, game) = key.split_once('|').unwrap_or((key, ""));
        let id = match game.parse() {
            Ok(n) => GameId::Num(n),
            Err(_) => GameId::Text(game),
        };
        let league = (!league.is_empty()).then_some(league);
        feed.trust(GameKey { league, id })
    }
}

impl Oracled for UserFeed {
    fn keys(item: &UserEvent) -> (Option<usize>, Vec<(String, bool)>) {
        match item {
            UserEvent::Reconciled(r) => (Some(r.shard), vec![(String::new(), true)]),
            _ => (None, Vec::new()),
        }
    }
    fn ask(feed: &Feed<Self>, key: &str) -> Trust {
        feed.trust((!key.is_empty()).then_some(key))
    }
}

impl Oracled for Frames {
    fn keys(_: &OwnedFrame) -> (Option<usize>, Vec<(String, bool)>) {
        (None, Vec::new())
    }
    fn ask(_: &Feed<Self>, _: &str) -> Trust {
        Trust::Unknown
    }
}

/// What the oracle knows of one key.
#[derive(Debug, Default, Clone, Copy)]
struct Known {
    shard: usize,
    /// Re-established by its own item since its connection's last break.
    restored: bool,
}

/// The oracle: keys, their connections, and whether each came back since its last break.
#[derive(Debug, Default)]
pub struct TrustOracle {
    keys: HashMap<String, Known>,
    /// Keys the feed trusted before the oracle read their re-establishment.
    suspects: HashMap<String, usize>,
    /// Items checked, and checks where the feed trusted a key.
    pub checks: u64,
    pub trusted_seen: u64,
}

impl TrustOracle {
    /// Reads one item.
    pub fn observe<D: Oracled>(&mut self, ev: &FeedEvent<D::Owned>) {
        match ev {
            FeedEvent::Message(m) => {
                let (shard, keys) = D::keys(m);
                for (key, restores) in keys {
                    if let Some(channel) = key.strip_suffix("|*") {
                        let prefix = format!("{channel}|");
                        for (name, k) in &mut self.keys {
                            if name.starts_with(&prefix) && Some(k.shard) == shard {
                                k.restored |= restores;
                                self.suspects.remove(name);
                            }
                        }
                        continue;
                    }
                    let k = self.keys.entry(key.clone()).or_default();
                    // The key's connection: the frame's, or the last one known.
                    k.shard = shard.unwrap_or(k.shard);
                    k.restored |= restores;
                    if restores {
                        self.suspects.remove(&key);
                    }
                }
            }
            // Any status of a connection, and a break inside it, breaks its keys.
            FeedEvent::Status(s) => self.broken(s.shard()),
            FeedEvent::Break(b) => self.broken(b.shard),
            _ => {}
        }
    }

    fn broken(&mut self, shard: usize) {
        if let Some(key) = self
            .suspects
            .iter()
            .find(|(_, s)| **s == shard)
            .map(|(k, _)| k)
        {
            panic!(
                "key {key:?} was read as trusted although it was not re-established since its last break"
            );
        }
        for k in self.keys.values_mut().filter(|k| k.shard == shard) {
            k.restored = false;
        }
    }

    /// Checks the feed's answers against what the oracle saw: a key the feed trusts that did
    /// not come back since its last break must come back before the next break.
    pub fn check(&mut self, trust: impl Fn(&str) -> Trust) {
        self.checks += 1;
        for (key, k) in &self.keys {
            if trust(key) == Trust::Trusted {
                self.trusted_seen += 1;
                if !k.restored {
                    self.suspects.insert(key.clone(), k.shard);
                }
            }
        }
    }
}

/// A feed checked against a [`TrustOracle`] after every item it yields.
#[derive(Debug)]
pub struct Checked<D: Oracled + std::fmt::Debug> {
    pub feed: Feed<D>,
    pub oracle: TrustOracle,
}

impl<D: Oracled + std::fmt::Debug> Checked<D> {
    pub fn new(feed: Feed<D>) -> Self {
        Self {
            feed,
            oracle: TrustOracle::default(),
        }
    }
}

impl<D: Oracled + std::fmt::Debug> std::ops::Deref for Checked<D> {
    type Target = Feed<D>;
    fn deref(&self) -> &Feed<D> {
        &self.feed
    }
}

impl<D: Oracled + std::fmt::Debug> std::ops::DerefMut for Checked<D> {
    fn deref_mut(&mut self) -> &mut Feed<D> {
        &mut self.feed
    }
}

impl<D: Oracled + std::fmt::Debug> Stream for Checked<D> {
    type Item = FeedEvent<D::Owned>;
    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let item = Pin::new(&mut this.feed).poll_next(cx);
        if let Poll::Ready(Some(ev)) = &item {
            this.oracle.observe::<D>(ev);
            let feed = &this.feed;
            this.oracle.check(|k| D::ask(feed, k));
        }
        item
    }
}

impl<D: Oracled + std::fmt::Debug> Unpin for Checked<D> {}
