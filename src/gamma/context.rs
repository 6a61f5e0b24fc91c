//! From discovery to trading: a Gamma [`GammaMarket`] carries everything an order needs (token ids,
//! tick size, neg-risk, minimum size, fees, settlement generation), so the CLOB's metadata
//! endpoints (`/tick-size`, `/neg-risk`, `/clob-markets`) need not be asked.

use super::market::GammaMarket;
use crate::fixed::Size;
use crate::order::{MarketContext, OrderError, TokenId};
use crate::types::{
    Chain, ExchangeVersion, FeeSchedule, Protocol, ProtocolError, padded_condition,
};

/// Why a Gamma market could not yield trading contexts.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ContextError {
    /// The market lists no CLOB token (or position) ids: it does not trade on the CLOB.
    NoTokens,
    /// The market has no (known) `orderPriceMinTickSize`.
    NoTickSize,
    /// A token id is not a decimal U256; `index` is its outcome index.
    BadTokenId {
        /// Outcome index of the bad id.
        index: usize,
    },
    /// The outcome index is past the market's token list.
    NoSuchOutcome {
        /// The index asked for.
        index: usize,
        /// How many tokens the market has.
        len: usize,
    },
    /// The order layer refused the parameters (e.g. a V2-only tick on V1).
    Order(OrderError),
    /// The market's `version` is unknown.
    Protocol(ProtocolError),
}

impl ContextError {
    /// Whether the market simply does not trade on the CLOB (no token ids).
    #[must_use]
    pub fn is_not_tradable(&self) -> bool {
        matches!(self, Self::NoTokens)
    }

    /// Whether the market's data was malformed (bad id, missing tick size).
    #[must_use]
    pub fn is_malformed(&self) -> bool {
        matches!(
            self,
            Self::NoTickSize | Self::BadTokenId { .. } | Self::Protocol(_)
        )
    }
}

impl std::fmt::Display for ContextError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::NoTokens => f.write_str("the market lists no CLOB token ids"),
            Self::NoTickSize => f.write_str("the market has no known orderPriceMinTickSize"),
            Self::BadTokenId { index } => write!(f, "token id of outcome {index} is not a U256"),
            Self::NoSuchOutcome { index, len } => {
                write!(
                    f,
                    "outcome {index} is out of range: the market has {len} tokens"
                )
            }
            // The cause is `source()`, not repeated here.
            Self::Order(_) => f.write_str("order parameters refused"),
            Self::Protocol(_) => f.write_str("the market's protocol is not usable"),
        }
    }
}

impl std::error::Error for ContextError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            Self::Order(e) => Some(e),
            Self::Protocol(e) => Some(e),
            _ => None,
        }
    }
}

/// A Gamma market prepared for trading: one [`MarketContext`] per outcome plus the order
/// constraints and fees, built with no I/O.
///
/// ```
/// use polyclob::gamma::GammaMarket;
/// use polyclob::types::{Chain, ExchangeVersion, TickSize};
///
/// let m: GammaMarket = serde_json::from_str(r#"{"conditionId":"0xc","outcomes":"[\"Yes\",\"No\"]",
///     "clobTokenIds":"[\"11\",\"22\"]","orderPriceMinTickSize":0.01,"orderMinSize":5,"negRisk":true}"#)?;
/// let t = m.trading(Chain::Polygon, ExchangeVersion::V2)?;
/// let yes = t.context_for("Yes").unwrap();
/// assert_eq!(yes.token_id().as_str(), "11");
/// assert_eq!(yes.tick(), TickSize::Hundredth);
/// assert!(yes.neg_risk());
/// assert_eq!(t.min_order_size.to_string(), "5");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Trading {
    /// The condition id (the CLOB's `market`) in the 64-hex form every endpoint wants: a V2
    /// `bytes31` id is right-padded with a zero byte.
    pub condition_id: String,
    /// The market's protocol: it chose the ids, the exchange and the settlement path.
    pub protocol: Protocol,
    /// Outcome labels, parallel to [`contexts`](Self::contexts) (may be shorter when Gamma
    /// omits them).
    pub outcomes: Vec<String>,
    /// One signing context per outcome token, in outcome order.
    pub contexts: Vec<MarketContext>,
    /// Minimum order size in shares (zero when Gamma does not say).
    pub min_order_size: Size,
    /// Whether trading fees apply.
    pub fees_enabled: bool,
    /// The fee schedule, when Gamma lists one.
    pub fee_schedule: Option<FeeSchedule>,
    /// Taker base fee in basis points (legacy V1 field).
    pub taker_base_fee_bps: Option<u32>,
    /// Whether the market accepts orders now.
    pub accepting_orders: bool,
}

impl Trading {
    /// The context of the outcome labelled `outcome` (ASCII case-insensitive).
    #[must_use]
    pub fn context_for(&self, outcome: &str) -> Option<&MarketContext> {
        let i = self
            .outcomes
            .iter()
            .position(|o| o.eq_ignore_ascii_case(outcome))?;
        self.contexts.get(i)
    }
}

impl GammaMarket {
    /// The exchange generation orders on this market are signed for: ExchangeV3 on
    /// position-ID markets (Gamma `version` `"v2"`), otherwise `clob_version` (what the CLOB's
    /// `GET /version` says; [`ExchangeVersion::V2`] today).
    #[must_use]
    pub fn exchange_version(&self, clob_version: ExchangeVersion) -> ExchangeVersion {
        self.protocol()
            .unwrap_or_default()
            .exchange_version(clob_version)
    }

    /// The signing context of outcome `index` (0 = first outcome), with no I/O.
    ///
    /// # Errors
    /// See [`ContextError`].
    pub fn context(
        &self,
        chain: Chain,
        clob_version: ExchangeVersion,
        index: usize,
    ) -> Result<MarketContext, ContextError> {
        let protocol = self.protocol().map_err(ContextError::Protocol)?;
        let ids = self.token_ids();
        if ids.is_empty() {
            return Err(ContextError::NoTokens);
        }
        let id = ids.get(index).ok_or(ContextError::NoSuchOutcome {
            index,
            len: ids.len(),
        })?;
        let tick = self.tick_size.ok_or(ContextError::NoTickSize)?;
        let token =
            TokenId::parse(id.trim().as_bytes()).map_err(|_| ContextError::BadTokenId { index })?;
        MarketContext::new(
            chain,
            protocol.exchange_version(clob_version),
            token,
            tick,
            self.neg_risk,
        )
        .map_err(ContextError::Order)
    }

    /// Every outcome's context plus the order constraints and fees.
    ///
    /// # Errors
    /// See [`ContextError`].
    pub fn trading(
        &self,
        chain: Chain,
        clob_version: ExchangeVersion,
    ) -> Result<Trading, ContextError> {
        let protocol = self.protocol().map_err(ContextError::Protocol)?;
        let n = self.token_ids().len();
        if n == 0 {
            return Err(ContextError::NoTokens);
        }
        let contexts = (0..n)
            .map(|i| self.context(chain, clob_version, i))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Trading {
            condition_id: padded_condition(&self.condition_id).into_owned(),
            protocol,
            outcomes: self.outcomes.clone(),
            contexts,
            min_order_size: self.min_order_size.unwrap_or(Size::ZERO),
            fees_enabled: self.fees_enabled,
            fee_schedule: self.fee_schedule,
            taker_base_fee_bps: self.taker_base_fee,
            accepting_orders: self.accepting_orders,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::TickSize;

    fn market(json: &str) -> GammaMarket {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn contexts_follow_the_market() {
        let m = market(
            r#"{"conditionId":"0xc","outcomes":"[\"Up\",\"Down\"]","clobTokenIds":"[\"11\",\"22\"]",
                "orderPriceMinTickSize":0.005,"orderMinSize":5,"negRisk":false,"feesEnabled":true,
                "feeSchedule":{"rate":0.07,"exponent":1,"takerOnly":true}}"#,
        );
        let t = m.trading(Chain::Polygon, ExchangeVersion::V2).unwrap();
        assert_eq!(t.contexts.len(), 2);
        assert_eq!(t.contexts[1].token_id().as_str(), "22");
        assert_eq!(t.contexts[0].tick(), TickSize::FiveThousandths);
        assert_eq!(t.context_for("down").unwrap().token_id().as_str(), "22");
        assert!(t.fees_enabled);
        // 0.005 is V2-only: on V1 the order layer refuses it.
        assert!(matches!(
            m.trading(Chain::Polygon, ExchangeVersion::V1),
            Err(ContextError::Order(_))
        ));
        assert_eq!(
            m.context(Chain::Polygon, ExchangeVersion::V2, 2),
            Err(ContextError::NoSuchOutcome { index: 2, len: 2 })
        );
    }

    #[test]
    fn position_id_markets_sign_for_v3() {
        let m = market(
            r#"{"version":"v2","positionIds":["5","6"],"clobTokenIds":"[\"1\",\"2\"]",
                "orderPriceMinTickSize":"0.01","negRisk":true}"#,
        );
        let c = m.context(Chain::Polygon, ExchangeVersion::V2, 0).unwrap();
        assert_eq!(c.version(), ExchangeVersion::V3);
        assert_eq!(c.token_id().as_str(), "5");
        assert!(!c.neg_risk(), "V3 has one exchange");
    }

    #[test]
    fn malformed_markets_are_typed_errors() {
        let e = market(r#"{"orderPriceMinTickSize":0.01}"#)
            .trading(Chain::Polygon, ExchangeVersion::V2)
            .unwrap_err();
        assert!(e.is_not_tradable());
        let e = market(r#"{"clobTokenIds":["1"]}"#)
            .trading(Chain::Polygon, ExchangeVersion::V2)
            .unwrap_err();
        assert_eq!(e, ContextError::NoTickSize);
        let e = market(r#"{"clobTokenIds":["0x1"],"orderPriceMinTickSize":0.01}"#)
            .trading(Chain::Polygon, ExchangeVersion::V2)
            .unwrap_err();
        assert_eq!(e, ContextError::BadTokenId { index: 0 });
        assert!(e.is_malformed());
        assert!(!e.to_string().is_empty());
    }
}
