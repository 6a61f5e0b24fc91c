//! The 2026 fields of a `new_market` event: what a program needs to decide whether to follow
//! a market and to trade it without another request.
//!
//! Fields (ts-sdk `packages/bindings/src/subscriptions/clob.ts`, `NewMarketEventSchema`;
//! exchange-2026 §6): `condition_id`, `clob_token_ids`, `tags`, `active`,
//! `order_price_min_tick_size`, `fees_enabled`, `fee_schedule`
//! (`{"rate","exponent","taker_only","rebate_rate"}`), `taker_base_fee`,
//! `sports_market_type`, `line`, `game_start_time`, `group_item_title`. Optional decimals
//! arrive as `""` when absent, which reads as `None`.
//!
//! They are read on demand from the event's JSON ([`MarketMsg::fields`]) rather than on every
//! frame, so the market channel's hot path does not pay for a rare event's dozen fields.

use super::lists::{StrList, array, object};
use super::{
    DecodeError, DecodeErrorKind, JsonStr, MarketMsg, Raw, RawKind, digits_u64, err, opt_str,
    opt_text,
};
use crate::json::Cursor;
use crate::types::{FeeSchedule, TickSize};

/// The 2026 fields of a `new_market` event (all optional on the wire).
///
/// ```
/// use polyclob::decode::{decode, EventView};
/// let frame = r#"{"event_type":"new_market","id":"1","market":"0x31","assets_ids":["7","8"],
///   "tags":["stocks"],"condition_id":"0x31","clob_token_ids":["7","8"],"sports_market_type":"",
///   "line":"","game_start_time":"","order_price_min_tick_size":"0.01","fees_enabled":true,
///   "taker_base_fee":"1000","fee_schedule":{"exponent":"1","rate":"0.07","taker_only":true,"rebate_rate":"0.2"}}"#;
/// let Some(Ok(EventView::NewMarket(m))) = decode(frame).next() else { panic!() };
/// let f = m.fields()?;
/// assert_eq!(f.order_price_min_tick_size.map(|t| t.as_str()), Some("0.01"));
/// assert_eq!(f.fee_schedule.unwrap().rate().to_string(), "0.07");
/// assert_eq!(f.sports_market_type, None);
/// assert_eq!(f.tags.filter_map(Result::ok).map(|t| t.raw()).collect::<Vec<_>>(), ["stocks"]);
/// # Ok::<(), polyclob::decode::DecodeError>(())
/// ```
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct NewMarketFields<'a> {
    /// Condition id (`condition_id`; the same as `market`).
    pub condition_id: Option<&'a str>,
    /// Token ids (`clob_token_ids`), in outcome order.
    pub clob_token_ids: StrList<'a>,
    /// Whether `clob_token_ids` was sent (an empty list otherwise).
    pub has_clob_token_ids: bool,
    /// Tag slugs (`tags`).
    pub tags: StrList<'a>,
    /// Whether the market is active (`active`).
    pub active: Option<bool>,
    /// Minimum tick (`order_price_min_tick_size`).
    pub order_price_min_tick_size: Option<TickSize>,
    /// Whether fees apply (`fees_enabled`).
    pub fees_enabled: Option<bool>,
    /// The fee schedule (`fee_schedule`): `None` when absent, `null`, or without a `rate` or an
    /// `exponent`; a schedule without `taker_only` is taker-only (every published one is).
    pub fee_schedule: Option<FeeSchedule>,
    /// Taker base fee as sent (`taker_base_fee`, an integer).
    pub taker_base_fee: Option<u64>,
    /// Sports market type (`sports_market_type`, e.g. `moneyline`), `None` when blank.
    pub sports_market_type: Option<JsonStr<'a>>,
    /// Handicap or total line (`line`), verbatim (it may be negative), `None` when blank.
    pub line: Option<&'a str>,
    /// Game start time (`game_start_time`) as sent, `None` when blank.
    pub game_start_time: Option<&'a str>,
    /// Title of the market within its event (`group_item_title`).
    pub group_item_title: Option<JsonStr<'a>>,
}

impl<'a> NewMarketFields<'a> {
    /// `game_start_time` as epoch milliseconds, when it is an integer (the ts-sdk reads it so).
    #[must_use]
    pub fn game_start_ms(&self) -> Option<u64> {
        self.game_start_time.and_then(integer)
    }
}

impl<'a> MarketMsg<'a> {
    /// Reads the 2026 `new_market` fields from this event's JSON. Error offsets count from
    /// the start of the event ([`MarketMsg::json`]).
    ///
    /// # Errors
    /// [`DecodeError`] when a field has the wrong JSON type or an invalid value (a tick size
    /// that is not one of the exchange's, a fee rate above 1).
    pub fn fields(&self) -> Result<NewMarketFields<'a>, DecodeError> {
        let src = self.json;
        let mut c = Cursor::new(src, 0);
        let mut r: [Raw; 10] = Default::default();
        let (mut tokens, mut tags, mut fees) = (None, None, None);
        object(&mut c, "", |c| {
            let k = match c.key()? {
                b"condition_id" => 0,
                b"active" => 1,
                b"order_price_min_tick_size" => 2,
                b"fees_enabled" => 3,
                b"taker_base_fee" => 4,
                b"sports_market_type" => 5,
                b"line" => 6,
                b"game_start_time" => 7,
                b"group_item_title" => 8,
                b"clob_token_ids" => return array(c, "clob_token_ids").map(|a| tokens = Some(a)),
                b"tags" => return array(c, "tags").map(|a| tags = Some(a)),
                b"fee_schedule" => return fee_schedule(c).map(|f| fees = f),
                _ => return c.skip(0),
            };
            r[k] = c.raw()?;
            Ok(())
        })??;
        let tick = super::opt_tick(src, &r[2], "order_price_min_tick_size")?;
        Ok(NewMarketFields {
            condition_id: opt_str(src, &r[0], "condition_id")?.filter(|s| !s.is_empty()),
            clob_token_ids: StrList::new(src, tokens.flatten(), "clob_token_ids"),
            has_clob_token_ids: tokens.flatten().is_some(),
            tags: StrList::new(src, tags.flatten(), "tags"),
            active: boolean(src, &r[1], "active")?,
            order_price_min_tick_size: tick,
            fees_enabled: boolean(src, &r[3], "fees_enabled")?,
            fee_schedule: fees.flatten(),
            taker_base_fee: opt_integer(src, &r[4], "taker_base_fee")?,
            sports_market_type: opt_text(src, &r[5], "sports_market_type")?
                .filter(|s| !s.raw().is_empty()),
            line: blank_or(src, &r[6], "line")?,
            game_start_time: blank_or(src, &r[7], "game_start_time")?,
            group_item_title: opt_text(src, &r[8], "group_item_title")?,
        })
    }
}

fn fee_schedule(c: &mut Cursor<'_>) -> Result<Option<Option<FeeSchedule>>, DecodeError> {
    let src = c.src;
    if c.peek() == Some(b'n') {
        c.skip(0)?;
        return Ok(Some(None));
    }
    let mut r: [Raw; 4] = Default::default();
    object(c, "fee_schedule", |c| {
        let k = match c.key()? {
            b"rate" => 0,
            b"exponent" => 1,
            b"taker_only" => 2,
            b"rebate_rate" => 3,
            _ => return c.skip(0),
        };
        r[k] = c.raw()?;
        Ok(())
    })??;
    let bad = |k: usize, field| err(DecodeErrorKind::InvalidValue, field, r[k].at());
    let rate = super::opt_price(src, &r[0], "rate")?;
    let exponent = opt_integer(src, &r[1], "exponent")?
        .map(|v| u32::try_from(v).map_err(|_| bad(1, "exponent")))
        .transpose()?;
    let taker_only = boolean(src, &r[2], "taker_only")?.unwrap_or(true);
    let rebate_rate = super::opt_price(src, &r[3], "rebate_rate")?;
    let (Some(rate), Some(exponent)) = (rate, exponent) else {
        return Ok(Some(None));
    };
    FeeSchedule::new(rate, exponent, taker_only, rebate_rate)
        .map(|f| Some(Some(f)))
        .ok_or_else(|| bad(1, "exponent"))
}

/// A string or number field's text, `None` when missing, `null` or `""`.
fn blank_or<'a>(
    src: &'a str,
    r: &Raw,
    field: &'static str,
) -> Result<Option<&'a str>, DecodeError> {
    if r.is_blank() {
        return Ok(None);
    }
    match r.kind {
        RawKind::Num => Ok(Some(r.text(src))),
        _ => opt_str(src, r, field),
    }
}

/// An integer sent as a string or a number, `None` when blank.
fn opt_integer(src: &str, r: &Raw, field: &'static str) -> Result<Option<u64>, DecodeError> {
    let value = |t| integer(t).ok_or_else(|| err(DecodeErrorKind::InvalidValue, field, r.at()));
    blank_or(src, r, field)?.map(value).transpose()
}

fn integer(t: &str) -> Option<u64> {
    (!t.is_empty() && t.len() <= 19 && t.bytes().all(|b| b.is_ascii_digit()))
        .then(|| digits_u64(t.as_bytes(), 0, t.len()))
        .flatten()
}

fn boolean(src: &str, r: &Raw, field: &'static str) -> Result<Option<bool>, DecodeError> {
    match r.kind {
        RawKind::Missing | RawKind::Null => Ok(None),
        RawKind::Other => match src.as_bytes().get(r.at()) {
            Some(b't') => Ok(Some(true)),
            Some(b'f') => Ok(Some(false)),
            _ => Err(err(DecodeErrorKind::WrongType, field, r.at())),
        },
        _ => Err(err(DecodeErrorKind::WrongType, field, r.at())),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use crate::decode::{DecodeErrorKind, EventView, decode};

    fn fields_of(json: &str) -> Result<(), DecodeErrorKind> {
        let Some(Ok(EventView::NewMarket(m))) = decode(json).next() else {
            panic!("{json}")
        };
        m.fields().map(drop).map_err(|e| e.kind())
    }

    #[test]
    fn sports_fields_and_blanks() {
        let f = r#"{"event_type":"new_market","market":"0x1","sports_market_type":"spreads",
            "line":"-3.5","game_start_time":"1766790415550","active":true,"fees_enabled":false,
            "order_price_min_tick_size":"0.001","taker_base_fee":0,"fee_schedule":null,"tags":null}"#;
        let Some(Ok(EventView::NewMarket(m))) = decode(f).next() else {
            panic!()
        };
        let x = m.fields().unwrap();
        assert_eq!(x.sports_market_type.unwrap().raw(), "spreads");
        assert_eq!(x.line, Some("-3.5"));
        assert_eq!(x.game_start_ms(), Some(1_766_790_415_550));
        assert_eq!((x.active, x.fees_enabled), (Some(true), Some(false)));
        assert_eq!(x.taker_base_fee, Some(0));
        assert_eq!(x.fee_schedule, None);
        assert_eq!(x.tags.count(), 0);
        assert!(!x.has_clob_token_ids);
    }

    #[test]
    fn partial_schedules_are_unknown_and_taker_only_by_default() {
        let read = |schedule: &str| {
            let f = format!(
                r#"{{"event_type":"new_market","market":"0x1","fee_schedule":{schedule}}}"#
            );
            let Some(Ok(EventView::NewMarket(m))) = decode(&f).next() else {
                panic!()
            };
            m.fields().unwrap().fee_schedule
        };
        assert_eq!(read(r#"{"rate":"0.07"}"#), None);
        assert_eq!(read(r#"{"exponent":1}"#), None);
        let f = read(r#"{"rate":0.03,"exponent":"1"}"#).unwrap();
        assert_eq!((f.rate().as_micros(), f.exponent()), (30_000, 1));
        assert!(f.taker_only());
        assert_eq!(f.rebate_rate(), None);
    }

    #[test]
    fn bad_values_are_typed_errors() {
        for (json, kind) in [
            (
                r#"{"event_type":"new_market","market":"0x1","order_price_min_tick_size":"0.02"}"#,
                DecodeErrorKind::InvalidValue,
            ),
            (
                r#"{"event_type":"new_market","market":"0x1","taker_base_fee":"1.5"}"#,
                DecodeErrorKind::InvalidValue,
            ),
            (
                r#"{"event_type":"new_market","market":"0x1","fees_enabled":"yes"}"#,
                DecodeErrorKind::WrongType,
            ),
            (
                r#"{"event_type":"new_market","market":"0x1","tags":"stocks"}"#,
                DecodeErrorKind::WrongType,
            ),
            (
                r#"{"event_type":"new_market","market":"0x1","fee_schedule":{"rate":"1.5"}}"#,
                DecodeErrorKind::Decimal(crate::fixed::ParseErrorKind::OutOfRange),
            ),
            (
                r#"{"event_type":"new_market","market":"0x1","fee_schedule":[]}"#,
                DecodeErrorKind::WrongType,
            ),
            (
                r#"{"event_type":"new_market","market":"0x1","fee_schedule":{"exponent":"x"}}"#,
                DecodeErrorKind::InvalidValue,
            ),
            (
                r#"{"event_type":"new_market","market":"0x1","fee_schedule":{"rate":"0.07","exponent":9}}"#,
                DecodeErrorKind::InvalidValue,
            ),
        ] {
            assert_eq!(fields_of(json), Err(kind), "{json}");
        }
        assert_eq!(
            fields_of(r#"{"event_type":"new_market","market":"0x1"}"#),
            Ok(())
        );
    }
}
