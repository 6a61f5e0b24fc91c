//! The prepared market context: everything about a market the order path needs, computed once.

use alloy_primitives::{Address, B256};

use super::{OrderError, TokenId};
use crate::sign::eip712::exchange_domain;
use crate::types::{Chain, ExchangeVersion, TickSize, contracts};

/// A market's signing context: chain, exchange generation, token, tick size, neg-risk flag, and
/// the precomputed verifying contract and domain separator.
///
/// Built once per market (no network call on the order path: peers.md "zero network calls");
/// [`with_tick`](Self::with_tick) follows a `tick_size_change` without rebuilding the rest.
///
/// ```
/// use polyclob::order::MarketContext;
/// use polyclob::types::{Chain, ExchangeVersion, TickSize};
///
/// let token = "71321045679252212594626385532706912750332728571942532289631379312455583992563".parse()?;
/// let m = MarketContext::new(Chain::Polygon, ExchangeVersion::V2, token, TickSize::Hundredth, true)?;
/// assert_eq!(m.exchange().to_string(), "0xe2222d279d744050d28e00520010520000310F59");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MarketContext {
    chain: Chain,
    version: ExchangeVersion,
    token_id: TokenId,
    tick: TickSize,
    neg_risk: bool,
    exchange: Address,
    domain: B256,
}

impl MarketContext {
    /// The context for a token on a chain and exchange generation.
    ///
    /// # Errors
    /// [`OrderError::TickNotAllowed`] for the V2-only tick sizes (0.005, 0.0025) on V1.
    pub fn new(
        chain: Chain,
        version: ExchangeVersion,
        token_id: TokenId,
        tick: TickSize,
        neg_risk: bool,
    ) -> Result<Self, OrderError> {
        check_tick(tick, version)?;
        // V3 has a single exchange: the neg-risk flag does not change the domain.
        let neg_risk = neg_risk && version != ExchangeVersion::V3;
        Ok(Self {
            chain,
            version,
            token_id,
            tick,
            neg_risk,
            exchange: contracts(chain, version).exchange_for(neg_risk),
            domain: exchange_domain(chain, version, neg_risk),
        })
    }

    /// Checks a verifying contract the caller got elsewhere (config, an API response) against
    /// this market: the classic "invalid signature" is a neg-risk market signed against the
    /// standard exchange.
    ///
    /// # Errors
    /// [`OrderError::ExchangeMismatch`] when `exchange` is this generation's other exchange;
    /// [`OrderError::UnknownExchange`] when it is none of them.
    ///
    /// ```
    /// use polyclob::order::{MarketContext, OrderError};
    /// use polyclob::types::{Chain, ExchangeVersion, TickSize, contracts};
    ///
    /// let m = MarketContext::new(Chain::Polygon, ExchangeVersion::V2, "1".parse()?, TickSize::Hundredth, true)?;
    /// let standard = contracts(Chain::Polygon, ExchangeVersion::V2).exchange;
    /// assert_eq!(m.check_exchange(standard), Err(OrderError::ExchangeMismatch { neg_risk: true }));
    /// assert_eq!(m.check_exchange(m.exchange()), Ok(()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn check_exchange(&self, exchange: Address) -> Result<(), OrderError> {
        if exchange == self.exchange {
            return Ok(());
        }
        let c = contracts(self.chain, self.version);
        if exchange == c.exchange_for(!self.neg_risk) {
            return Err(OrderError::ExchangeMismatch {
                neg_risk: self.neg_risk,
            });
        }
        Err(OrderError::UnknownExchange)
    }

    /// The same market with a new tick size (after a `tick_size_change` message).
    ///
    /// # Errors
    /// [`OrderError::TickNotAllowed`] as in [`new`](Self::new).
    pub fn with_tick(mut self, tick: TickSize) -> Result<Self, OrderError> {
        check_tick(tick, self.version)?;
        self.tick = tick;
        Ok(self)
    }

    /// The chain.
    #[must_use]
    pub const fn chain(&self) -> Chain {
        self.chain
    }

    /// The exchange generation.
    #[must_use]
    pub const fn version(&self) -> ExchangeVersion {
        self.version
    }

    /// The token (or position) id.
    #[must_use]
    pub const fn token_id(&self) -> &TokenId {
        &self.token_id
    }

    /// The tick size.
    #[must_use]
    pub const fn tick(&self) -> TickSize {
        self.tick
    }

    /// Whether orders settle on the neg-risk exchange (always `false` on V3).
    #[must_use]
    pub const fn neg_risk(&self) -> bool {
        self.neg_risk
    }

    /// The verifying contract.
    #[must_use]
    pub const fn exchange(&self) -> Address {
        self.exchange
    }

    /// The EIP-712 domain separator.
    #[must_use]
    pub const fn domain_separator(&self) -> &B256 {
        &self.domain
    }
}

fn check_tick(tick: TickSize, version: ExchangeVersion) -> Result<(), OrderError> {
    let v2_only = matches!(
        tick,
        TickSize::FiveThousandths | TickSize::TwentyFiveTenThousandths
    );
    if v2_only && version == ExchangeVersion::V1 {
        return Err(OrderError::TickNotAllowed { tick, version });
    }
    Ok(())
}
