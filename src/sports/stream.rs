//! [`SportsStream`]: the sports socket as a feed ([`ws::feed`](crate::ws::feed)).
//!
//! One connection, nothing to subscribe ([Sports WebSocket]): the stream connects and sends
//! nothing of its own. The live server sends WebSocket (protocol) pings every 15 s, answered
//! by the transport, and never the text `ping` the docs describe (a text `ping` is still
//! answered with `pong`); liveness is counted in missed server pings (default three: 45 s of
//! silence), so a quiet period between matches is not a break. A dead connection is replaced
//! with backoff, like any other end; the reconnect hook runs after every reconnect.
//!
//! Trust is per game: after a break every game is untrusted until its next message. The socket
//! has no snapshot and sends `ended` once, so a game that ended during an outage is only learnt
//! over REST: [`untrusted_games`](Feed::untrusted_games) lists the games to look up with Gamma's
//! `/events?game_id=` ([`EventFilter::game_id`](crate::gamma::EventFilter::game_id)).
//!
//! [Sports WebSocket]: https://docs.polymarket.com/market-data/websocket/sports

use std::collections::BTreeSet;
use std::time::Duration;

use crate::decode::{DecodeError, DecodeErrorKind};
use crate::ws::Closed;
use crate::ws::backoff::Jitter;
use crate::ws::connection::Policy;
use crate::ws::continuity::StreamKind;
use crate::ws::event::{OwnedFrame, Status};
use crate::ws::feed::{
    BuildError, Control, Cx, Decoder, Feed, FeedBuilder, Handler, Owned, Reread, Sealed, Wire,
};
use crate::ws::shards::Shards;
use crate::ws::subscribe::Op;
use crate::ws::trust::{Keys, Trust, with_key};

use super::decode::{GameId, GameKey, SportResult, decode};

/// Polymarket's production sports socket.
pub(crate) const SPORTS_URL: &str = "wss://sports-api.polymarket.com/ws";

/// The live server's protocol-ping interval (public captures; the docs say a text `ping`
/// every 5 s, which the live socket never sends).
pub(crate) const SPORTS_PING_INTERVAL: Duration = Duration::from_secs(15);

/// The sports socket's policy: no keepalive of the client's; dead after three missed server
/// pings; backoff 1 s → 30 s with full jitter ("exponential backoff", the docs), reset after
/// 30 s up; no close codes are documented.
const POLICY: Policy = Policy {
    kind: StreamKind::Sports,
    url: SPORTS_URL,
    keepalive: None,
    any_frame_answers: true,
    ping_interval: SPORTS_PING_INTERVAL,
    pong_timeout: SPORTS_PING_INTERVAL,
    silence_timeout: Duration::from_secs(45),
    backoff: (Duration::from_secs(1), Duration::from_secs(30)),
    jitter: Jitter::Full,
    healthy_after: Duration::from_secs(30),
    closes: &[],
};

/// Nothing to subscribe; a text `ping` is answered with `pong`.
#[derive(Debug)]
struct SportsWire;

impl Wire for SportsWire {
    fn initial(&self, _: &mut String, _: &BTreeSet<String>) -> bool {
        false
    }
    fn operation(&self, out: &mut String, _: &[String], _: Op) {
        out.clear();
    }
    fn control(&self, text: &str) -> Control {
        if text == "ping" {
            Control::Reply("pong")
        } else {
            Control::Data
        }
    }
}

/// The live sports connection.
///
/// ```no_run
/// # async fn demo() -> Result<(), Box<dyn std::error::Error>> {
/// use futures_util::StreamExt;
/// use polyclob::sports::SportsStream;
/// use polyclob::ws::feed::FeedEvent;
///
/// let mut sports = SportsStream::builder().build()?;
/// while let Some(ev) = sports.next().await {
///     match ev {
///         FeedEvent::Message(r) => {
///             let r = r.message()?;
///             println!("{} {:?} {:?}", r.key, r.score, r.period);
///         }
///         // Reconcile these through Gamma (`EventFilter::game_id`).
///         FeedEvent::Break(_) => println!("{:?}", sports.untrusted_games().collect::<Vec<_>>()),
///         _ => {}
///     }
/// }
/// # Ok(()) }
/// ```
pub type SportsStream = Feed<SportsFeed>;

/// The sports socket's decoder; its state is the trust of each game.
#[derive(Debug, Default)]
pub struct SportsFeed {
    keys: Keys,
}

/// A sports message that owns its frame.
pub type OwnedSportResult = Owned<SportsFeed>;

impl Feed<SportsFeed> {
    /// A builder with the sports socket's policy (`wss://sports-api.polymarket.com/ws`, dead after
    /// three missed protocol pings: the live server sends one every 15 s).
    #[must_use]
    pub fn builder() -> FeedBuilder<SportsFeed> {
        FeedBuilder::new(SportsFeed::default(), &POLICY)
    }

    /// The games not trusted now: after a break, each game seen until its next message.
    pub fn untrusted_games(&self) -> impl Iterator<Item = GameKey<'_>> + '_ {
        self.state().untrusted().map(|k| {
            let (league, id) = k.split_once('|').unwrap_or(("", k));
            let id = id.parse().map_or(GameId::Text(id), GameId::Num);
            GameKey {
                league: (!league.is_empty()).then_some(league),
                id,
            }
        })
    }
}

impl FeedBuilder<SportsFeed> {
    /// Liveness in server pings: the connection is dead after `missed` intervals of `every`
    /// with nothing received. Default is three missed 15 s pings.
    #[must_use]
    pub fn server_pings(self, every: Duration, missed: u32) -> Self {
        self.silence_timeout(every.saturating_mul(missed.max(1)))
    }
}

impl Sealed for SportsFeed {
    type Sub = String;
    type Refused = Closed;
    type Remote = ();

    fn render(sub: String) -> String {
        sub
    }
    fn wire(&mut self) -> Result<Box<dyn Wire>, BuildError> {
        Ok(Box::new(SportsWire))
    }
    fn remote(&mut self) {}
    fn state(&self) -> &Keys {
        &self.keys
    }
    fn trust(keys: &Keys, game: GameKey<'_>) -> Trust {
        with_key(format_args!("{game}"), |k| keys.trust(k))
    }
    fn frame<H: Handler<Self>>(&mut self, f: &OwnedFrame, _: &Shards, h: &mut H, _: bool) {
        let r = match f
            .as_str()
            .map_or_else(|| Self::reread(f.as_bytes()), decode)
        {
            Ok(r) => r,
            Err(e) => return h.on_invalid(&e, &Cx::new(Some(f), &self.keys)),
        };
        with_key(format_args!("{}", r.key), |k| {
            self.keys.establish(k, f.shard(), None);
        });
        h.on_message(&r, &Cx::new(Some(f), &self.keys));
    }
    fn status(&mut self, status: &Status, _: &Shards) {
        self.keys.break_shard(status.shard());
    }
    fn to_owned(_: &SportResult<'_>, cx: &Cx<'_, Self>) -> OwnedSportResult {
        Owned::new(cx)
    }
}

impl Reread for SportsFeed {
    fn reread(frame: &[u8]) -> Result<SportResult<'_>, DecodeError> {
        match core::str::from_utf8(frame) {
            Ok(s) => decode(s),
            Err(e) => Err(DecodeError::new(DecodeErrorKind::Utf8, "", e.valid_up_to())),
        }
    }
}

impl Decoder for SportsFeed {
    type Message<'a> = SportResult<'a>;
    type Owned = OwnedSportResult;
    /// The game: its league and its `gameId` (or cricket's `metadataGameId`).
    type Key<'a> = GameKey<'a>;
    type State = Keys;
}
