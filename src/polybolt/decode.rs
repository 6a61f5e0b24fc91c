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
//! - an acknowledgement is `{"op":"authed"|"subscribed"|"unsubscribed"|"pong"|"error", "rid"?,
//!   "channel"?, "code"?, "provider"?}`;
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

use crate::decode::{DecodeError, DecodeErrorKind, opt_str, req_str};
use crate::json::{Cursor, Raw, err, sub};
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
}

impl Channel {
    /// Every channel, in index order.
    pub const ALL: [Self; 4] = [
        Self::Crypto,
        Self::CryptoTwap,
        Self::Equity,
        Self::EquityTwap,
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
    /// A payload this decoder does not read (an unknown channel); its JSON text.
    Other(&'a str),
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
    /// The error code on `error`: `auth_required`, `auth_invalid`, `auth_unavailable`
    /// (these leave the connection open), `bad_filter`, `sub_limit`, `rate_limited`,
    /// `auth_attempts` (the last three precede close 4008).
    pub code: Option<&'a str>,
    /// The provider actually served, on `subscribed` (a pin may fall back).
    pub provider: Option<&'a str>,
}

/// Decodes one PolyBolt text frame.
///
/// # Errors
/// [`DecodeError`] when the frame is not one JSON object, is neither an acknowledgement
/// (`op`) nor a data envelope (`channel` + `seq` + `payload`), has `v` other than 1, or a
/// payload of a known channel lacks its symbol or price or holds an invalid one.
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
            code: opt_str(frame, &f[3], "code")?,
            provider: opt_str(frame, &f[4], "provider")?,
        }));
    }
    let channel_name = req_str(frame, &f[2], "channel")?;
    if !f[5].is_blank() && opt_u64(frame, &f[5]) != Some(1) {
        return Err(err(DecodeErrorKind::InvalidValue, "v", f[5].at()));
    }
    let seq = opt_u64(frame, &f[6]).ok_or_else(|| {
        let kind = if f[6].is_blank() {
            DecodeErrorKind::MissingField
        } else {
            DecodeErrorKind::InvalidValue
        };
        err(kind, "seq", f[6].at())
    })?;
    let Some((a, b)) = payload else {
        return Err(err(DecodeErrorKind::MissingField, "payload", 0));
    };
    let channel = Channel::parse(channel_name);
    let payload = match channel {
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
            (a.op, a.code, a.rid),
            (AckOp::Error, Some("auth_required"), Some("s1"))
        );
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
