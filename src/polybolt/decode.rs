//! Borrowed, allocation-free views of PolyBolt frames.
//!
//! Facts implemented ([PolyBolt WebSocket], [migration guide]):
//! - a data frame is the envelope `{"v":1,"channel","seq","ts","snapshot"?,"dropped"?,"payload"}`;
//!   `seq` is consecutive per connection and per channel (snapshots included) and restarts on
//!   reconnect; `dropped`, when present, counts frames of that channel the server dropped
//!   because the client fell behind; `snapshot: true` marks the one snapshot per subscription;
//! - a live payload is `{symbol, value, full_accuracy_value, timestamp, source}`, plus
//!   `window_seconds` on the TWAP channels and `received_at` / `is_carried_forward` on equity;
//!   `full_accuracy_value` is an exact **decimal string** (not the legacy RTDS E18 integer);
//! - a snapshot payload is `{symbol, source, window_seconds?, data:[{timestamp, value,
//!   full_accuracy_value}, …]}` (the preceding two minutes; possibly empty);
//! - `price.polymarket` (public) carries one token's top of book, snapshot and live alike:
//!   `{market, asset_id, best_bid, best_ask, hash, timestamp}` (prices as decimal strings,
//!   `timestamp` in ms); the snapshot of a token with no recent data is an empty array `[]`;
//! - `seq` is a JSON number (a string is refused: a sequence read loosely is no check);
//! - an acknowledgement is `{"op":"authed"|"subscribed"|"unsubscribed"|"pong"|"error", "rid"?,
//!   "channel"?, "code"?, "provider"?}`; the error codes are `bad_op`, `bad_channel`,
//!   `bad_filter`, `sub_limit`, `rate_limited`, `auth_required`, `auth_expired`,
//!   `auth_unavailable`, `auth_invalid` and `auth_attempts` ([`AckCode`]);
//! - keys may come in any order; unknown keys are skipped.
//!
//! ```
//! use polyclob::polybolt::decode::{decode, BoltMessage, BoltPayload};
//!
//! let frame = r#"{"v":1,"channel":"price.crypto","seq":2,"ts":1788973001000,
//!   "payload":{"symbol":"btcusd","value":64126.0,"full_accuracy_value":"64126.00000001",
//!   "timestamp":1788973001000,"source":"pyth"}}"#;
//! let BoltMessage::Data(env) = decode(frame)? else { panic!("data") };
//! let BoltPayload::Price(p) = env.payload else { panic!("a price") };
//! assert_eq!((env.seq, p.symbol, p.price.to_string()), (2, "btcusd", "64126.00000001".to_owned()));
//! # Ok::<(), polyclob::decode::DecodeError>(())
//! ```
//!
//! [PolyBolt WebSocket]: https://docs.polymarket.com/api-reference/live-data/overview
//! [migration guide]: https://docs.polymarket.com/migrate/rtds-to-polybolt

use crate::decode::{DecodeError, DecodeErrorKind, opt_price, opt_str, req_str};
use crate::fixed::Price;
use crate::json::{Cursor, Raw, RawKind, err, sub};
use crate::rtds::RefPrice;
use crate::rtds::decode::{PricePoints, opt_bool, opt_ref_price, opt_u64, walk_object};

/// A PolyBolt channel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Channel {
    /// `price.crypto`: crypto reference prices (`btcusd`; Chainlink by default, else Pyth).
    Crypto,
    /// `price.crypto.twap`: Chainlink 60 s time-weighted averages.
    CryptoTwap,
    /// `price.equity`: stock, ETF, forex, metal and commodity reference prices (`aapl`).
    Equity,
    /// `price.equity.twap`: Chainlink 60 s forex TWAPs (`eurusd`, `usdjpy`).
    EquityTwap,
    /// `price.polymarket`: a Polymarket token's best bid, best ask and book hash (public: no
    /// credentials), filtered by `asset_id`.
    Polymarket,
}

impl Channel {
    /// Every channel, in index order.
    pub const ALL: [Self; 5] = [
        Self::Crypto,
        Self::CryptoTwap,
        Self::Equity,
        Self::EquityTwap,
        Self::Polymarket,
    ];

    /// The wire name.
    ///
    /// ```
    /// use polyclob::polybolt::Channel;
    /// assert_eq!(Channel::CryptoTwap.as_str(), "price.crypto.twap");
    /// assert_eq!(Channel::parse("price.equity"), Some(Channel::Equity));
    /// ```
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Crypto => "price.crypto",
            Self::CryptoTwap => "price.crypto.twap",
            Self::Equity => "price.equity",
            Self::EquityTwap => "price.equity.twap",
            Self::Polymarket => "price.polymarket",
        }
    }

    /// The channel of a wire name; `None` for names this crate does not know.
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|c| c.as_str() == name)
    }

    /// Position in [`Channel::ALL`].
    #[must_use]
    pub const fn index(self) -> usize {
        self as usize
    }

    /// Whether the channel's filter carries `window_seconds`.
    #[must_use]
    pub const fn is_twap(self) -> bool {
        matches!(self, Self::CryptoTwap | Self::EquityTwap)
    }

    /// Whether subscribing needs CLOB API credentials (every channel but
    /// `price.polymarket`).
    ///
    /// ```
    /// use polyclob::polybolt::Channel;
    /// assert!(Channel::Crypto.needs_auth() && !Channel::Polymarket.needs_auth());
    /// ```
    #[must_use]
    pub const fn needs_auth(self) -> bool {
        !matches!(self, Self::Polymarket)
    }
}

/// One decoded PolyBolt frame, borrowing from it.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum BoltMessage<'a> {
    /// A data envelope (snapshot or live update).
    Data(Envelope<'a>),
    /// An acknowledgement (`authed`, `subscribed`, `error` …).
    Ack(Ack<'a>),
}

/// A data envelope.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Envelope<'a> {
    /// The channel (`None`: a channel this crate does not know; see `channel_name`).
    pub channel: Option<Channel>,
    /// The channel as sent.
    pub channel_name: &'a str,
    /// Sequence number, consecutive per connection and channel.
    pub seq: u64,
    /// The producer's event time (Unix ms), when sent.
    pub ts: Option<u64>,
    /// Whether this is the subscription's initial snapshot.
    pub snapshot: bool,
    /// Frames of this channel the server dropped since the last delivered one (0 when absent).
    pub dropped: u64,
    /// The payload.
    pub payload: BoltPayload<'a>,
}

/// A data envelope's payload.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub enum BoltPayload<'a> {
    /// A live price.
    Price(LivePrice<'a>),
    /// A snapshot: the symbol's recent points.
    Snapshot(BoltSnapshot<'a>),
    /// A `price.polymarket` top of book (snapshot or update: see [`Envelope::snapshot`]).
    Top(BookTop<'a>),
    /// An empty payload `[]`: the `price.polymarket` snapshot of a token with no recent data
    /// (a cold token). It names no asset: which subscription it answers is known only from
    /// the order of the requests.
    Empty,
    /// A payload this decoder does not read (an unknown channel); its JSON text.
    Other(&'a str),
}

/// One token's top of book on `price.polymarket`.
///
/// ```
/// use polyclob::polybolt::decode::{decode, BoltMessage, BoltPayload};
///
/// let frame = r#"{"v":1,"channel":"price.polymarket","seq":1,"ts":1788973000123,"snapshot":true,
///   "payload":{"market":"0x9deb","asset_id":"2174","best_bid":"0.51","best_ask":"0.53",
///   "hash":"3f9c1e7a","timestamp":1788972999871}}"#;
/// let BoltMessage::Data(env) = decode(frame)? else { panic!("data") };
/// let BoltPayload::Top(top) = env.payload else { panic!("a top of book") };
/// assert_eq!((top.asset_id, top.hash), ("2174", Some("3f9c1e7a")));
/// assert_eq!(top.best_bid.map(|p| p.as_micros()), Some(510_000));
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct BookTop<'a> {
    /// The market's condition id.
    pub market: &'a str,
    /// The token id (the subscription's filter).
    pub asset_id: &'a str,
    /// Best bid (`None`: blank or absent, no bids).
    pub best_bid: Option<Price>,
    /// Best ask (`None`: blank or absent, no asks).
    pub best_ask: Option<Price>,
    /// The book's hash, when sent.
    pub hash: Option<&'a str>,
    /// When the book was in this state (Unix ms), when sent.
    pub timestamp_ms: Option<u64>,
}

/// A live reference price.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct LivePrice<'a> {
    /// The symbol (`btcusd`, `aapl`).
    pub symbol: &'a str,
    /// The exact price: `full_accuracy_value` when sent, else the float `value`.
    pub price: RefPrice,
    /// `full_accuracy_value` (the exact decimal string), when sent.
    pub full_accuracy: Option<RefPrice>,
    /// `value` as sent (a float, rounded for display).
    pub value: Option<RefPrice>,
    /// The price's own time (Unix ms), when sent.
    pub timestamp_ms: Option<u64>,
    /// The vendor (`pyth`, `chainlink`, `massive`), when sent.
    pub source: Option<&'a str>,
    /// The TWAP window (`window_seconds`), on the TWAP channels.
    pub window_seconds: Option<u32>,
    /// `received_at` (ms) of an equity price.
    pub received_at_ms: Option<u64>,
    /// `is_carried_forward` of an equity price (the market is closed).
    pub carried_forward: Option<bool>,
}

/// A snapshot: the preceding two minutes of one symbol.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct BoltSnapshot<'a> {
    /// The symbol.
    pub symbol: &'a str,
    /// The vendor, when sent.
    pub source: Option<&'a str>,
    /// The TWAP window, on the TWAP channels.
    pub window_seconds: Option<u32>,
    /// The points, oldest first as sent, read lazily (exact `full_accuracy_value` when
    /// present).
    pub points: PricePoints<'a>,
}

/// What an acknowledgement reports.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum AckOp {
    /// Authentication succeeded.
    Authed,
    /// A subscription was accepted.
    Subscribed,
    /// An unsubscription was accepted.
    Unsubscribed,
    /// The answer to `{"op":"ping"}`.
    Pong,
    /// A request failed; see [`Ack::code`].
    Error,
    /// An `op` this crate does not know.
    Other,
}

/// The code of an error acknowledgement (`{"op":"error","code":…}`).
///
/// What the docs say of each: authentication problems are reported with an error
/// acknowledgement and leave the connection open; `sub_limit`, `rate_limited` and
/// `auth_attempts` are followed by close 4008 ([`AckCode::precedes_close`]).
///
/// ```
/// use polyclob::polybolt::decode::AckCode;
/// assert_eq!(AckCode::parse("auth_unavailable"), AckCode::AuthUnavailable);
/// assert_eq!(AckCode::parse("new_code"), AckCode::Other); // the text stays on `Ack::code_name`
/// assert_eq!(AckCode::SubLimit.as_str(), Some("sub_limit"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AckCode {
    /// `bad_op`: an unknown operation.
    BadOp,
    /// `bad_channel`: an unknown channel.
    BadChannel,
    /// `bad_filter`: a filter the channel does not serve (an unknown symbol or token).
    BadFilter,
    /// `sub_limit`: more than 64 active subscriptions (close 4008 follows).
    SubLimit,
    /// `rate_limited`: more than 20 subscribe/unsubscribe frames a second (close 4008
    /// follows).
    RateLimited,
    /// `auth_required`: a gated channel subscribed before authenticating.
    AuthRequired,
    /// `auth_expired`: the authentication expired; authenticate again.
    AuthExpired,
    /// `auth_unavailable`: authentication is unavailable for now; retry it later.
    AuthUnavailable,
    /// `auth_invalid`: the credentials were refused.
    AuthInvalid,
    /// `auth_attempts`: more than 8 auth frames on the connection (close 4008 follows).
    AuthAttempts,
    /// A code this crate does not know ([`Ack::code_name`] has its text).
    Other,
}

impl AckCode {
    const NAMES: [(Self, &'static str); 10] = [
        (Self::BadOp, "bad_op"),
        (Self::BadChannel, "bad_channel"),
        (Self::BadFilter, "bad_filter"),
        (Self::SubLimit, "sub_limit"),
        (Self::RateLimited, "rate_limited"),
        (Self::AuthRequired, "auth_required"),
        (Self::AuthExpired, "auth_expired"),
        (Self::AuthUnavailable, "auth_unavailable"),
        (Self::AuthInvalid, "auth_invalid"),
        (Self::AuthAttempts, "auth_attempts"),
    ];

    /// The code of a wire name ([`AckCode::Other`] for names this crate does not know).
    #[must_use]
    pub fn parse(name: &str) -> Self {
        Self::NAMES
            .into_iter()
            .find_map(|(c, n)| (n == name).then_some(c))
            .unwrap_or(Self::Other)
    }

    /// The wire name (`None` for [`AckCode::Other`]).
    #[must_use]
    pub fn as_str(self) -> Option<&'static str> {
        Self::NAMES
            .into_iter()
            .find_map(|(c, n)| (c == self).then_some(n))
    }

    /// Whether the server closes the connection with 4008 after this error (`sub_limit`,
    /// `rate_limited`, `auth_attempts`).
    #[must_use]
    pub const fn precedes_close(self) -> bool {
        matches!(
            self,
            Self::SubLimit | Self::RateLimited | Self::AuthAttempts
        )
    }
}

/// An acknowledgement.
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct Ack<'a> {
    /// What it reports.
    pub op: AckOp,
    /// The `op` as sent.
    pub op_name: &'a str,
    /// The request id echoed (`rid`).
    pub rid: Option<&'a str>,
    /// The channel, on `subscribed`/`unsubscribed`/`error`.
    pub channel: Option<&'a str>,
    /// The error code on `error`, typed.
    pub code: Option<AckCode>,
    /// The error code as sent (the text of an [`AckCode::Other`]).
    pub code_name: Option<&'a str>,
    /// The provider actually served, on `subscribed` (a pin may fall back).
    pub provider: Option<&'a str>,
}

/// Decodes one PolyBolt text frame.
///
/// # Errors
/// [`DecodeError`] when the frame is not one JSON object, is neither an acknowledgement
/// (`op`) nor a data envelope (`channel` + `seq` + `payload`), has `v` other than 1, a `seq`
/// that is not a JSON number (`"seq":"66"` is refused), or a payload of a known channel
/// lacks its symbol (`asset_id`), price or market, or holds an invalid one.
pub fn decode(frame: &str) -> Result<BoltMessage<'_>, DecodeError> {
    if u32::try_from(frame.len()).is_err() {
        return Err(err(DecodeErrorKind::TooDeep, "", u32::MAX as usize));
    }
    let mut c = Cursor::new(frame, 0);
    match c.peek() {
        Some(b'{') => {}
        Some(_) => return Err(err(DecodeErrorKind::WrongType, "", c.pos)),
        None => return Err(err(DecodeErrorKind::Eof, "", c.pos)),
    }
    let mut f: [Raw; 11] = Default::default();
    let mut payload: Option<(usize, usize)> = None;
    walk_object(&mut c, "", |c, key| {
        let k = match key {
            b"op" => 0,
            b"rid" => 1,
            b"channel" => 2,
            b"code" => 3,
            b"provider" => 4,
            b"v" => 5,
            b"seq" => 6,
            b"ts" => 7,
            b"snapshot" => 8,
            b"dropped" => 9,
            b"payload" => {
                let at = c.pos;
                c.skip(0)?;
                payload = Some((at, c.pos));
                return Ok(());
            }
            _ => return c.skip(0),
        };
        f[k] = c.raw()?;
        Ok(())
    })?;
    if c.peek().is_some() {
        return Err(err(DecodeErrorKind::Syntax, "", c.pos));
    }
    if let Some(op) = opt_str(frame, &f[0], "op")? {
        let code_name = opt_str(frame, &f[3], "code")?;
        return Ok(BoltMessage::Ack(Ack {
            op: match op {
                "authed" => AckOp::Authed,
                "subscribed" => AckOp::Subscribed,
                "unsubscribed" => AckOp::Unsubscribed,
                "pong" => AckOp::Pong,
                "error" => AckOp::Error,
                _ => AckOp::Other,
            },
            op_name: op,
            rid: opt_str(frame, &f[1], "rid")?,
            channel: opt_str(frame, &f[2], "channel")?,
            code: code_name.map(AckCode::parse),
            code_name,
            provider: opt_str(frame, &f[4], "provider")?,
        }));
    }
    let channel_name = req_str(frame, &f[2], "channel")?;
    if !f[5].is_blank() && opt_u64(frame, &f[5]) != Some(1) {
        return Err(err(DecodeErrorKind::InvalidValue, "v", f[5].at()));
    }
    // A number only: `"66"` may be a producer's bug, and a sequence read loosely is no check.
    let seq = match f[6].kind {
        RawKind::Missing | RawKind::Null => {
            return Err(err(DecodeErrorKind::MissingField, "seq", f[6].at()));
        }
        RawKind::Num => opt_u64(frame, &f[6]),
        _ => None,
    }
    .ok_or_else(|| err(DecodeErrorKind::InvalidValue, "seq", f[6].at()))?;
    let Some((a, b)) = payload else {
        return Err(err(DecodeErrorKind::MissingField, "payload", 0));
    };
    let channel = Channel::parse(channel_name);
    let payload = match channel {
        Some(Channel::Polymarket) => read_top(frame, a)?,
        Some(_) => read_payload(frame, a)?,
        None => BoltPayload::Other(sub(frame, a, b).unwrap_or("")),
    };
    Ok(BoltMessage::Data(Envelope {
        channel,
        channel_name,
        seq,
        ts: opt_u64(frame, &f[7]),
        snapshot: opt_bool(frame, &f[8]).unwrap_or(false),
        dropped: opt_u64(frame, &f[9]).unwrap_or(0),
        payload,
    }))
}

/// Decodes a frame given as bytes, checking that it is UTF-8 first.
///
/// # Errors
/// [`DecodeErrorKind::Utf8`] for bytes that are not UTF-8, else as [`decode`].
pub fn decode_bytes(frame: &[u8]) -> Result<BoltMessage<'_>, DecodeError> {
    match core::str::from_utf8(frame) {
        Ok(s) => decode(s),
        Err(e) => Err(err(DecodeErrorKind::Utf8, "", e.valid_up_to())),
    }
}

/// A `price.polymarket` payload: one top of book, or `[]` (no recent data).
fn read_top(src: &str, at: usize) -> Result<BoltPayload<'_>, DecodeError> {
    let mut c = Cursor::new(src, at);
    if c.peek() == Some(b'[') {
        c.pos += 1;
        if c.close_if(b']') {
            return Ok(BoltPayload::Empty);
        }
        return Err(err(DecodeErrorKind::WrongType, "payload", at));
    }
    let mut f: [Raw; 6] = Default::default();
    walk_object(&mut c, "payload", |c, key| {
        let k = match key {
            b"market" => 0,
            b"asset_id" => 1,
            b"best_bid" => 2,
            b"best_ask" => 3,
            b"hash" => 4,
            b"timestamp" => 5,
            _ => return c.skip(0),
        };
        f[k] = c.raw()?;
        Ok(())
    })?;
    let blank = |r: &Raw, field| {
        if r.is_blank() {
            Err(err(DecodeErrorKind::MissingField, field, at))
        } else {
            Ok(())
        }
    };
    blank(&f[0], "market")?;
    blank(&f[1], "asset_id")?;
    Ok(BoltPayload::Top(BookTop {
        market: req_str(src, &f[0], "market")?,
        asset_id: req_str(src, &f[1], "asset_id")?,
        best_bid: opt_price(src, &f[2], "best_bid")?,
        best_ask: opt_price(src, &f[3], "best_ask")?,
        hash: opt_str(src, &f[4], "hash")?,
        timestamp_ms: opt_u64(src, &f[5]),
    }))
}

fn read_payload(src: &str, at: usize) -> Result<BoltPayload<'_>, DecodeError> {
    let mut c = Cursor::new(src, at);
    let mut f: [Raw; 8] = Default::default();
    let mut data: Option<usize> = None;
    walk_object(&mut c, "payload", |c, key| {
        let k = match key {
            b"symbol" => 0,
            b"value" => 1,
            b"full_accuracy_value" => 2,
            b"timestamp" => 3,
            b"source" => 4,
            b"window_seconds" => 5,
            b"received_at" => 6,
            b"is_carried_forward" => 7,
            b"data" => {
                let a = c.pos;
                let is_array = c.peek() == Some(b'[');
                c.skip(0)?;
                if !is_array {
                    return Err(err(DecodeErrorKind::WrongType, "data", a));
                }
                data = Some(a);
                return Ok(());
            }
            _ => return c.skip(0),
        };
        f[k] = c.raw()?;
        Ok(())
    })?;
    let symbol = req_str(src, &f[0], "symbol")?;
    let source = opt_str(src, &f[4], "source")?;
    let window_seconds = opt_u64(src, &f[5]).and_then(|w| u32::try_from(w).ok());
    if let Some(open) = data {
        return Ok(BoltPayload::Snapshot(BoltSnapshot {
            symbol,
            source,
            window_seconds,
            // PolyBolt's exact value is a decimal string everywhere, never E18.
            points: PricePoints::new(src, open, false),
        }));
    }
    let value = opt_ref_price(src, &f[1], "value", false)?;
    let full_accuracy = opt_ref_price(src, &f[2], "full_accuracy_value", false)?;
    let price = full_accuracy
        .or(value)
        .ok_or_else(|| err(DecodeErrorKind::MissingField, "value", at))?;
    Ok(BoltPayload::Price(LivePrice {
        symbol,
        price,
        full_accuracy,
        value,
        timestamp_ms: opt_u64(src, &f[3]),
        source,
        window_seconds,
        received_at_ms: opt_u64(src, &f[6]),
        carried_forward: opt_bool(src, &f[7]),
    }))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn data(f: &str) -> Envelope<'_> {
        match decode(f).unwrap() {
            BoltMessage::Data(e) => e,
            BoltMessage::Ack(a) => panic!("ack {a:?}"),
        }
    }

    #[test]
    fn documented_frames() {
        let live = r#"{"v":1,"channel":"price.crypto","seq":2,"ts":1788973001000,"payload":{"symbol":"btcusd","value":64126.0,"full_accuracy_value":"64126.00000000","timestamp":1788973001000,"source":"pyth"}}"#;
        let e = data(live);
        assert_eq!(e.channel, Some(Channel::Crypto));
        assert_eq!(
            (e.seq, e.ts, e.snapshot, e.dropped),
            (2, Some(1_788_973_001_000), false, 0)
        );
        let BoltPayload::Price(p) = e.payload else {
            panic!()
        };
        assert_eq!(p.price.to_string(), "64126");
        assert_eq!(p.source, Some("pyth"));
        let snap = r#"{"v":1,"channel":"price.crypto.twap","seq":1,"ts":1788973000000,"snapshot":true,"dropped":3,"payload":{"symbol":"btcusd","source":"chainlink","window_seconds":60,"data":[{"timestamp":1788972880000,"value":64123.5,"full_accuracy_value":"64123.50000000123"},{"timestamp":1788972881000,"value":64125.1,"full_accuracy_value":"64125.10000000"}]}}"#;
        let e = data(snap);
        assert!(e.snapshot);
        assert_eq!(e.dropped, 3);
        let BoltPayload::Snapshot(s) = e.payload else {
            panic!()
        };
        assert_eq!(s.window_seconds, Some(60));
        let pts: Vec<_> = s.points.map(Result::unwrap).collect();
        assert_eq!(pts.len(), 2);
        assert_eq!(
            pts[0].value.to_string(),
            "64123.50000000123",
            "exact, not E18"
        );
        let empty = r#"{"v":1,"channel":"price.equity","seq":1,"ts":1,"snapshot":true,"payload":{"symbol":"aapl","data":[]}}"#;
        let BoltPayload::Snapshot(s) = data(empty).payload else {
            panic!()
        };
        assert_eq!(s.points.count(), 0);
        let ack = r#"{"op":"error","code":"auth_required","channel":"price.crypto","rid":"s1"}"#;
        let BoltMessage::Ack(a) = decode(ack).unwrap() else {
            panic!()
        };
        assert_eq!(
            (a.op, a.code, a.code_name, a.rid),
            (
                AckOp::Error,
                Some(AckCode::AuthRequired),
                Some("auth_required"),
                Some("s1")
            )
        );
    }

    #[test]
    fn polymarket_tops_and_the_cold_snapshot() {
        // The docs' example frame.
        let snap = r#"{"v":1,"channel":"price.polymarket","seq":1,"ts":1788973000123,"snapshot":true,"payload":{"market":"0x9deb0baac40648821f96f01339229a422e2f5c877de55dc4dbf981f95a1e709c","asset_id":"21742633143463906290569050155826241533067272736897614950488156847949938836455","best_bid":"0.51","best_ask":"0.53","hash":"3f9c1e7a","timestamp":1788972999871}}"#;
        let e = data(snap);
        assert_eq!(
            (e.channel, e.snapshot, e.seq),
            (Some(Channel::Polymarket), true, 1)
        );
        let BoltPayload::Top(t) = e.payload else {
            panic!("{:?}", e.payload)
        };
        assert_eq!(
            t.asset_id,
            "21742633143463906290569050155826241533067272736897614950488156847949938836455"
        );
        assert!(t.market.starts_with("0x9deb"));
        assert_eq!(
            (t.best_bid, t.best_ask),
            (Price::new(510_000), Price::new(530_000))
        );
        assert_eq!(
            (t.hash, t.timestamp_ms),
            (Some("3f9c1e7a"), Some(1_788_972_999_871))
        );
        // A one-sided book: a blank or absent side is `None`, not zero.
        let e = data(
            r#"{"v":1,"channel":"price.polymarket","seq":2,"payload":{"market":"m","asset_id":"7","best_bid":"","timestamp":"5"}}"#,
        );
        let BoltPayload::Top(t) = e.payload else {
            panic!()
        };
        assert_eq!((t.best_bid, t.best_ask, t.hash), (None, None, None));
        // A cold token's snapshot is an empty array.
        let cold =
            data(r#"{"v":1,"channel":"price.polymarket","seq":1,"snapshot":true,"payload":[ ]}"#);
        assert!(matches!(cold.payload, BoltPayload::Empty) && cold.snapshot);
        for (f, kind, field) in [
            (
                r#"{"v":1,"channel":"price.polymarket","seq":1,"payload":[{"asset_id":"7"}]}"#,
                DecodeErrorKind::WrongType,
                "payload",
            ),
            (
                r#"{"v":1,"channel":"price.polymarket","seq":1,"payload":{"market":"m","best_bid":"0.5"}}"#,
                DecodeErrorKind::MissingField,
                "asset_id",
            ),
            (
                r#"{"v":1,"channel":"price.polymarket","seq":1,"payload":{"market":"m","asset_id":"7","best_ask":"0.5x"}}"#,
                DecodeErrorKind::Decimal(crate::fixed::ParseErrorKind::InvalidByte),
                "best_ask",
            ),
            (
                r#"{"v":1,"channel":"price.polymarket","seq":1,"payload":"x"}"#,
                DecodeErrorKind::WrongType,
                "payload",
            ),
        ] {
            let e = decode(f).unwrap_err();
            assert_eq!((e.kind(), e.field()), (kind, field), "{f}");
        }
    }

    #[test]
    fn seq_is_a_number_and_ack_codes_are_typed() {
        for (seq, kind) in [
            (r#""66""#, DecodeErrorKind::InvalidValue),
            ("-1", DecodeErrorKind::InvalidValue),
            ("1.5", DecodeErrorKind::InvalidValue),
            ("true", DecodeErrorKind::InvalidValue),
            ("null", DecodeErrorKind::MissingField),
        ] {
            let f = format!(r#"{{"v":1,"channel":"price.crypto","seq":{seq},"payload":{{}}}}"#);
            let e = decode(&f).unwrap_err();
            assert_eq!((e.kind(), e.field()), (kind, "seq"), "{f}");
        }
        assert_eq!(
            data(r#"{"channel":"x","seq":9999999999999999999,"payload":1}"#).seq,
            9_999_999_999_999_999_999
        );
        for (name, code) in [
            ("bad_op", AckCode::BadOp),
            ("bad_channel", AckCode::BadChannel),
            ("bad_filter", AckCode::BadFilter),
            ("sub_limit", AckCode::SubLimit),
            ("rate_limited", AckCode::RateLimited),
            ("auth_required", AckCode::AuthRequired),
            ("auth_expired", AckCode::AuthExpired),
            ("auth_unavailable", AckCode::AuthUnavailable),
            ("auth_invalid", AckCode::AuthInvalid),
            ("auth_attempts", AckCode::AuthAttempts),
            ("AUTH_INVALID", AckCode::Other),
        ] {
            let f = format!(r#"{{"op":"error","code":"{name}","rid":"r"}}"#);
            let BoltMessage::Ack(a) = decode(&f).unwrap() else {
                panic!()
            };
            assert_eq!((a.code, a.code_name), (Some(code), Some(name)));
            assert_eq!(code.as_str().is_some(), code != AckCode::Other);
            assert_eq!(
                code.precedes_close(),
                matches!(name, "sub_limit" | "rate_limited" | "auth_attempts")
            );
        }
        let BoltMessage::Ack(a) = decode(r#"{"op":"authed","rid":"a1"}"#).unwrap() else {
            panic!()
        };
        assert_eq!((a.op, a.code, a.code_name), (AckOp::Authed, None, None));
    }

    #[test]
    fn errors_are_typed() {
        for (f, kind, field) in [
            ("", DecodeErrorKind::Eof, ""),
            ("ping", DecodeErrorKind::WrongType, ""),
            (
                r#"{"v":1,"channel":"price.crypto","payload":{}}"#,
                DecodeErrorKind::MissingField,
                "seq",
            ),
            (
                r#"{"v":2,"channel":"price.crypto","seq":1,"payload":{}}"#,
                DecodeErrorKind::InvalidValue,
                "v",
            ),
            (
                r#"{"v":1,"channel":"price.crypto","seq":1}"#,
                DecodeErrorKind::MissingField,
                "payload",
            ),
            (
                r#"{"v":1,"channel":"price.crypto","seq":1,"payload":{"symbol":"b"}}"#,
                DecodeErrorKind::MissingField,
                "value",
            ),
            (
                r#"{"v":1,"channel":"price.crypto","seq":1,"payload":{"value":1}}"#,
                DecodeErrorKind::MissingField,
                "symbol",
            ),
            (
                r#"{"v":1,"channel":"price.crypto","seq":1,"payload":{"symbol":"b","full_accuracy_value":"1e"}}"#,
                DecodeErrorKind::Decimal(crate::fixed::ParseErrorKind::Exponent),
                "full_accuracy_value",
            ),
            (
                r#"{"v":1,"channel":"price.crypto","seq":1,"payload":{"symbol":"b","data":{}}}"#,
                DecodeErrorKind::WrongType,
                "data",
            ),
            (r#"{"op":"x"} 1"#, DecodeErrorKind::Syntax, ""),
        ] {
            let e = decode(f).unwrap_err();
            assert_eq!((e.kind(), e.field()), (kind, field), "{f}");
        }
        // An unknown channel is not an error.
        let e = data(r#"{"v":1,"channel":"news","seq":1,"payload":{"a":1}}"#);
        assert!(matches!(e.payload, BoltPayload::Other(r#"{"a":1}"#)));
        assert_eq!(e.channel, None);
    }
}
