//! Markets the simulator lists: their static description ([`MarketSpec`]), the seed fixture
//! shipped with the crate, and the seeded initial liquidity of their books.

use polyclob::fixed::{Price, Size};
use polyclob::types::{FeeSchedule, TickSize};

use super::rng::Rng;

/// The seed fixture: four markets in the exchange's market-object vocabulary (a plain binary
/// market, a 0.001-tick market, a neg-risk market and a position-ID (ExchangeV3) market).
const DEFAULT_MARKETS: &str = include_str!("data/markets.json");

/// One outcome token of a market.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TokenSpec {
    token_id: String,
    outcome: String,
}

impl TokenSpec {
    /// A token with its decimal id and outcome label (`"Yes"`, `"No"`, …).
    pub fn new(token_id: impl Into<String>, outcome: impl Into<String>) -> Self {
        Self {
            token_id: token_id.into(),
            outcome: outcome.into(),
        }
    }

    /// The decimal token id (or position id on position-ID markets).
    #[must_use]
    pub fn token_id(&self) -> &str {
        &self.token_id
    }

    /// The outcome label.
    #[must_use]
    pub fn outcome(&self) -> &str {
        &self.outcome
    }
}

/// A binary market the simulator lists and trades.
///
/// ```
/// use polyclob::fixed::{Price, Size};
/// use polyclob_sim::MarketSpec;
/// use polyclob::types::TickSize;
///
/// let m = MarketSpec::binary("0xabc", "Will it rain?", ["1", "2"])
///     .tick_size(TickSize::Thousandth)
///     .neg_risk(true)
///     .mid(Price::new(300_000).unwrap())
///     .seed_levels(3)
///     .min_order_size(Size::new(5_000_000).unwrap());
/// assert_eq!(m.tokens()[0].token_id(), "1");
/// assert!(m.is_neg_risk());
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MarketSpec {
    pub(crate) condition_id: String,
    pub(crate) question_id: String,
    pub(crate) question: String,
    pub(crate) slug: String,
    pub(crate) end_date_iso: String,
    pub(crate) tokens: [TokenSpec; 2],
    pub(crate) tick: TickSize,
    pub(crate) min_order_size: Size,
    pub(crate) neg_risk: bool,
    pub(crate) neg_risk_market_id: String,
    pub(crate) position_ids: bool,
    pub(crate) sparse_books: bool,
    pub(crate) mid: Price,
    pub(crate) seed_levels: u32,
    pub(crate) rfq: bool,
    pub(crate) fees: Option<FeeSchedule>,
    /// Gamma's `feeType` (`"crypto_fees"`, …), passed through; empty when not given.
    pub(crate) fee_type: String,
}

impl MarketSpec {
    /// A Yes/No market with tick 0.01, minimum size 5, midpoint 0.5, five seeded levels a side,
    /// not neg-risk, token-ID (ExchangeV2) settlement.
    pub fn binary(
        condition_id: impl Into<String>,
        question: impl Into<String>,
        token_ids: [&str; 2],
    ) -> Self {
        let question = question.into();
        Self {
            condition_id: condition_id.into(),
            question_id: String::new(),
            slug: slugify(&question),
            question,
            end_date_iso: "2027-12-31T00:00:00Z".to_owned(),
            tokens: [
                TokenSpec::new(token_ids[0], "Yes"),
                TokenSpec::new(token_ids[1], "No"),
            ],
            tick: TickSize::Hundredth,
            min_order_size: Size::from_micros(5_000_000),
            neg_risk: false,
            neg_risk_market_id: String::new(),
            position_ids: false,
            sparse_books: false,
            mid: Price::new(500_000).unwrap_or(Price::ZERO),
            seed_levels: 5,
            rfq: true,
            fees: None,
            fee_type: String::new(),
        }
    }

    /// Makes the market fee-enabled with `schedule`: every trade's taker pays
    /// [`FeeSchedule::taker_fee`] (in pUSD, on top of a buy, out of a sell's proceeds), makers
    /// too when the schedule is not taker-only, and makers accrue rebates at its rebate rate;
    /// the CLOB answers `/fee-rate` with `base_fee` 1000, `fd` with the schedule, taker trade
    /// rows carry the rate in `fee_rate_bps`, Gamma says `feesEnabled` with its
    /// `feeSchedule`. Default is none: the market is fee-free (`feesEnabled` false, `fd` all
    /// zero, `/fee-rate` 0, no fee charged).
    ///
    /// ```
    /// use polyclob::types::FeeSchedule;
    /// use polyclob_sim::MarketSpec;
    ///
    /// let p = |s: &str| s.parse().unwrap();
    /// let crypto = FeeSchedule::new(p("0.07"), 1, true, Some(p("0.2"))).unwrap();
    /// let m = MarketSpec::binary("0xabc", "BTC up?", ["1", "2"]).fees(crypto);
    /// assert_eq!(m.fee_schedule(), Some(crypto));
    /// ```
    #[must_use]
    pub fn fees(mut self, schedule: FeeSchedule) -> Self {
        self.fees = Some(schedule);
        self
    }

    /// The market's fee schedule, `None` when it is fee-free.
    #[must_use]
    pub fn fee_schedule(&self) -> Option<FeeSchedule> {
        self.fees
    }

    /// Sets the tick size. Default is 0.01.
    #[must_use]
    pub fn tick_size(mut self, tick: TickSize) -> Self {
        self.tick = tick;
        self
    }

    /// Sets the minimum order size in shares. Default is 5.
    #[must_use]
    pub fn min_order_size(mut self, size: Size) -> Self {
        self.min_order_size = size;
        self
    }

    /// Marks the market neg-risk: orders must be signed against the NegRisk exchange. Default is false.
    #[must_use]
    pub fn neg_risk(mut self, neg_risk: bool) -> Self {
        self.neg_risk = neg_risk;
        self
    }

    /// Marks the market as a Protocol-V2 position-ID market: orders must be signed for
    /// ExchangeV3 (domain `"3"`). Default is false.
    #[must_use]
    pub fn position_ids(mut self, position_ids: bool) -> Self {
        self.position_ids = position_ids;
        self
    }

    /// Makes the market's WS `book` snapshots omit `tick_size` and `last_trade_price`, as some
    /// genuine exchange snapshots do; their hash still covers the market's current values, so
    /// a client verifies them with the values it learnt from the feed (or a REST book).
    /// Default is false.
    #[must_use]
    pub fn sparse_books(mut self, sparse: bool) -> Self {
        self.sparse_books = sparse;
        self
    }

    /// Sets the midpoint of the first token's seeded book (the second token mirrors it at
    /// `1 − mid`). Snapped to the tick grid. Default is 0.5.
    #[must_use]
    pub fn mid(mut self, mid: Price) -> Self {
        self.mid = mid;
        self
    }

    /// Sets how many price levels per side the seed liquidity fills; 0 leaves the books empty.
    /// Default is 5.
    #[must_use]
    pub fn seed_levels(mut self, levels: u32) -> Self {
        self.seed_levels = levels;
        self
    }

    /// Enables or disables request-for-quote trading on the market: `/clob-markets` reports
    /// it as `rfqe`, and RFQ requests and quotes for a disabled market are refused. Default is
    /// true.
    #[must_use]
    pub fn rfq(mut self, enabled: bool) -> Self {
        self.rfq = enabled;
        self
    }

    /// Whether RFQ trading is enabled on the market.
    #[must_use]
    pub fn is_rfq_enabled(&self) -> bool {
        self.rfq
    }

    /// The condition id.
    #[must_use]
    pub fn condition_id(&self) -> &str {
        &self.condition_id
    }

    /// The question text.
    #[must_use]
    pub fn question(&self) -> &str {
        &self.question
    }

    /// The two outcome tokens.
    #[must_use]
    pub fn tokens(&self) -> &[TokenSpec; 2] {
        &self.tokens
    }

    /// The tick size.
    #[must_use]
    pub fn tick(&self) -> TickSize {
        self.tick
    }

    /// Whether the market is neg-risk.
    #[must_use]
    pub fn is_neg_risk(&self) -> bool {
        self.neg_risk
    }

    /// The neg-risk group the market belongs to (Gamma `negRiskMarketID`, the Neg Risk
    /// Adapter's market id), empty when none.
    #[must_use]
    pub fn neg_risk_market_id(&self) -> &str {
        &self.neg_risk_market_id
    }

    /// Whether the market settles position IDs on ExchangeV3.
    #[must_use]
    pub fn is_position_ids(&self) -> bool {
        self.position_ids
    }

    /// The market's protocol: Protocol V2 for a position-ID market, CTF otherwise.
    #[must_use]
    pub fn protocol(&self) -> polyclob::types::Protocol {
        if self.position_ids {
            polyclob::types::Protocol::V2
        } else {
            polyclob::types::Protocol::Ctf
        }
    }

    /// `n` generated markets with valid, distinct ids, for tests at scale (derived from
    /// keccak-256 of the index, so the same `n` gives the same markets): midpoints spread over
    /// 0.10–0.90, every third market on the 0.001 tick, and
    ///
    /// - CTF markets with 32-byte condition ids and 256-bit decimal token ids;
    /// - neg-risk groups among them: markets `10k+6 … 10k+9` share one `negRiskMarketID`
    ///   (four outcomes of one event);
    /// - Protocol V2 markets: every market `10k+5` has a binary `bytes31` condition of the V2
    ///   layout (module 1, a 128-bit base hash, arity and index 0; sent in its padded 64-hex
    ///   form) whose tokens are its two position ids, signed for ExchangeV3.
    ///
    /// ```
    /// let markets = polyclob_sim::MarketSpec::generate(1_000);
    /// assert_eq!(markets.len(), 1_000);
    /// assert!(markets.iter().any(|m| m.is_neg_risk()));
    /// assert_eq!(markets.iter().filter(|m| m.is_position_ids()).count(), 100);
    /// ```
    #[must_use]
    pub fn generate(n: usize) -> Vec<Self> {
        use alloy_primitives::{U256, keccak256};
        let hash = |tag: &str, i: usize| keccak256(format!("polyclob-sim {tag} {i}").as_bytes());
        (0..n)
            .map(|i| {
                let condition = format!("{:#x}", hash("condition", i));
                let token = |k: usize| U256::from_be_bytes(hash("token", 2 * i + k).0).to_string();
                let (yes, no) = (token(0), token(1));
                let mut m = Self::binary(
                    condition,
                    format!("Generated market #{i}: will outcome {i} resolve Yes?"),
                    [&yes, &no],
                );
                m.question_id = format!("{:#x}", hash("question", i));
                if i % 3 == 2 {
                    m.tick = TickSize::Thousandth;
                }
                // 0.10 … 0.90 in cent steps: on either tick.
                let cents = 10 + u32::from(hash("mid", i)[0]) % 81;
                m.mid = Price::new(cents * 10_000).unwrap_or(m.mid);
                if i % 10 >= 6 {
                    m.neg_risk = true;
                    m.neg_risk_market_id = format!("{:#x}", hash("group", i / 10));
                }
                if i % 10 == 5 {
                    use polyclob::types::{ConditionId, PositionId};
                    let mut c = [0u8; 31];
                    c[0] = 1; // the binary module
                    c[1..17].copy_from_slice(&hash("condition", i)[..16]);
                    let condition = ConditionId::v2(c);
                    let position = |o: u8| {
                        // A binary V2 condition of this layout always has valid position ids.
                        PositionId::of(condition, o)
                            .map_or_else(|_| token(o.into()), |p| p.as_u256().to_string())
                    };
                    m.condition_id = condition.to_string();
                    m.tokens = [
                        TokenSpec::new(position(0), "Yes"),
                        TokenSpec::new(position(1), "No"),
                    ];
                    m.position_ids = true;
                }
                m
            })
            .collect()
    }

    /// The markets of the seed fixture shipped with the crate (`src/data/markets.json`).
    ///
    /// ```
    /// let markets = polyclob_sim::MarketSpec::defaults();
    /// assert_eq!(markets.len(), 4);
    /// ```
    #[must_use]
    pub fn defaults() -> Vec<Self> {
        // The fixture is compiled in and covered by a unit test, so parsing cannot fail at
        // run time; an empty list would still be a valid (if dull) exchange.
        parse_markets(DEFAULT_MARKETS).unwrap_or_default()
    }
}

/// Parses a JSON array of market objects (the shape of `src/data/markets.json`: the CLOB
/// market's snake_case vocabulary). A fee-enabled market adds the venue's own fee fields, as
/// the `new_market` event spells them:
///
/// ```
/// let json = r#"[{"condition_id":"0x01","question":"Q","minimum_tick_size":"0.01",
///   "minimum_order_size":"5","tokens":[{"token_id":"1","outcome":"Yes"},{"token_id":"2","outcome":"No"}],
///   "fees_enabled":true,"fee_type":"sports_fees_v2",
///   "fee_schedule":{"rate":"0.03","exponent":1,"taker_only":true,"rebate_rate":"0.25"}}]"#;
/// let markets = polyclob_sim::parse_markets(json)?;
/// assert_eq!(markets[0].fee_schedule().unwrap().rate().to_string(), "0.03");
/// # Ok::<(), String>(())
/// ```
///
/// # Errors
/// A message naming the first missing or malformed field.
pub fn parse_markets(json: &str) -> Result<Vec<MarketSpec>, String> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| format!("markets fixture: {e}"))?;
    let arr = v
        .as_array()
        .ok_or("markets fixture: expected a JSON array")?;
    arr.iter()
        .enumerate()
        .map(|(i, m)| parse_market(m).map_err(|e| format!("market #{i}: {e}")))
        .collect()
}

fn parse_market(m: &serde_json::Value) -> Result<MarketSpec, String> {
    let s = |k: &str| -> Result<String, String> {
        m.get(k)
            .and_then(|v| v.as_str())
            .map(str::to_owned)
            .ok_or_else(|| format!("missing string `{k}`"))
    };
    let tokens = m
        .get("tokens")
        .and_then(|t| t.as_array())
        .ok_or("missing `tokens`")?;
    if tokens.len() != 2 {
        return Err(format!("expected 2 tokens, found {}", tokens.len()));
    }
    let tok = |i: usize| -> Result<TokenSpec, String> {
        let t = &tokens[i];
        let id = t
            .get("token_id")
            .and_then(|v| v.as_str())
            .ok_or("token without `token_id`")?;
        let outcome = t
            .get("outcome")
            .and_then(|v| v.as_str())
            .ok_or("token without `outcome`")?;
        Ok(TokenSpec::new(id, outcome))
    };
    let tick_s = s("minimum_tick_size")?;
    let tick = TickSize::parse(tick_s.as_bytes())
        .ok_or_else(|| format!("unknown tick size {tick_s:?}"))?;
    let min_s = s("minimum_order_size")?;
    let min = Size::parse(min_s.as_bytes())
        .map_err(|e| format!("minimum_order_size {min_s:?}: {e:?}"))?;
    let mid_s = tokens[0]
        .get("price")
        .and_then(|v| v.as_str())
        .unwrap_or("0.5");
    let mid =
        Price::parse(mid_s.as_bytes()).map_err(|e| format!("token price {mid_s:?}: {e:?}"))?;
    let question = s("question")?;
    let fees = parse_fees(m)?;
    Ok(MarketSpec {
        condition_id: s("condition_id")?,
        question_id: s("question_id").unwrap_or_default(),
        slug: s("market_slug").unwrap_or_else(|_| slugify(&question)),
        question,
        end_date_iso: s("end_date_iso").unwrap_or_default(),
        tokens: [tok(0)?, tok(1)?],
        tick,
        min_order_size: min,
        neg_risk: m.get("neg_risk").and_then(|v| v.as_bool()).unwrap_or(false),
        neg_risk_market_id: s("neg_risk_market_id").unwrap_or_default(),
        position_ids: m.get("version").and_then(|v| v.as_str()) == Some("v2"),
        sparse_books: false,
        mid,
        seed_levels: 5,
        rfq: m.get("rfqe").and_then(|v| v.as_bool()).unwrap_or(true),
        fees,
        fee_type: s("fee_type").unwrap_or_default(),
    })
}

/// A market's fees in the markets file, with the venue's own field names (the `new_market`
/// event's): `"fees_enabled": true` and `"fee_schedule": {"rate": "0.03", "exponent": 1,
/// "taker_only": true, "rebate_rate": "0.25"}` (rates as decimal strings or JSON numbers, read
/// exactly; `taker_only` defaults to true, `rebate_rate` to unknown). `fees_enabled` false or
/// absent is a fee-free market, whatever the schedule says.
fn parse_fees(m: &serde_json::Value) -> Result<Option<FeeSchedule>, String> {
    if !m
        .get("fees_enabled")
        .and_then(|v| v.as_bool())
        .unwrap_or(false)
    {
        return Ok(None);
    }
    let f = m
        .get("fee_schedule")
        .filter(|f| f.is_object())
        .ok_or("`fees_enabled` without a `fee_schedule` object")?;
    let fraction = |k: &str| -> Result<Option<Price>, String> {
        let Some(v) = f.get(k).filter(|v| !v.is_null()) else {
            return Ok(None);
        };
        let text = match v {
            serde_json::Value::String(t) => t.clone(),
            serde_json::Value::Number(n) => n.to_string(),
            _ => return Err(format!("fee_schedule.{k}: expected a decimal, got {v}")),
        };
        Price::parse(text.as_bytes())
            .map(Some)
            .map_err(|e| format!("fee_schedule.{k} {text:?}: {e}"))
    };
    let rate = fraction("rate")?.ok_or("fee_schedule.rate is missing")?;
    let exponent = match f.get("exponent") {
        None => 1,
        Some(v) => v
            .as_u64()
            .or_else(|| v.as_str().and_then(|t| t.parse().ok()))
            .and_then(|e| u32::try_from(e).ok())
            .ok_or_else(|| format!("fee_schedule.exponent: expected a whole number, got {v}"))?,
    };
    let taker_only = match f.get("taker_only") {
        None => true,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| format!("fee_schedule.taker_only: expected a bool, got {v}"))?,
    };
    let rebate = fraction("rebate_rate")?;
    FeeSchedule::new(rate, exponent, taker_only, rebate)
        .map(Some)
        .ok_or_else(|| format!("fee_schedule.exponent {exponent}: expected 1 to 4"))
}

fn slugify(q: &str) -> String {
    let mut out = String::with_capacity(q.len());
    for c in q.chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c.to_ascii_lowercase());
        } else if !out.ends_with('-') && !out.is_empty() {
            out.push('-');
        }
    }
    out.trim_end_matches('-').to_owned()
}

/// One seeded resting order of the first token: (is_bid, price micros, size micros).
pub(crate) type SeedOrder = (bool, u32, u64);

/// Seeded liquidity for a market: `seed_levels` levels each side of the first token around
/// its midpoint (snapped to the grid), one or two orders per level of 10–250 whole shares. The
/// second token's book is their mirror image (a bid at p on Yes is an ask at 1−p on No: one
/// book, two views).
pub(crate) fn seed_orders(spec: &MarketSpec, rng: &mut Rng) -> Vec<SeedOrder> {
    let t = spec.tick.as_micros();
    let one = Price::SCALE;
    // Snap the mid onto the grid and keep at least one tick of room on each side.
    let mid = (spec.mid.as_micros() / t * t).clamp(2 * t, one.saturating_sub(2 * t).max(2 * t));
    let mut out = Vec::new();
    for k in 1..=spec.seed_levels {
        let off = k * t;
        // Bid strictly below mid, ask at or above mid + tick: never crossed.
        let bid = mid.checked_sub(off);
        let ask = mid.checked_add(off).filter(|a| *a < one);
        for (is_bid, price) in [(true, bid), (false, ask)] {
            let Some(price) = price.filter(|p| *p >= t && *p <= one - t) else {
                continue;
            };
            let orders = 1 + rng.below(2);
            for _ in 0..orders {
                let size = (10 + rng.below(241)) * 1_000_000;
                out.push((is_bid, price, size));
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fixture_parses() {
        let m = parse_markets(DEFAULT_MARKETS).unwrap();
        assert_eq!(m.len(), 4);
        assert!(m[2].neg_risk);
        assert!(m[3].position_ids);
        assert_eq!(m[1].tick, TickSize::Thousandth);
        assert_eq!(m[0].tokens[0].token_id.len(), 77);
    }

    #[test]
    fn fees_read_the_venues_field_names() {
        let market = |fees: &str| {
            format!(
                r#"[{{"condition_id":"0x1","question":"q","minimum_tick_size":"0.01",
                "minimum_order_size":"5","tokens":[{{"token_id":"1","outcome":"Yes"}},
                {{"token_id":"2","outcome":"No"}}]{fees}}}]"#
            )
        };
        let read = |fees: &str| parse_markets(&market(fees)).map(|m| m[0].fees);
        let p = |s: &str| Price::parse(s.as_bytes()).unwrap();
        assert_eq!(read(""), Ok(None));
        assert_eq!(
            read(
                r#","fees_enabled":true,"fee_type":"sports_fees_v2","fee_schedule":{"rate":"0.03","exponent":1,"taker_only":true,"rebate_rate":0.25}"#
            ),
            Ok(FeeSchedule::new(p("0.03"), 1, true, Some(p("0.25"))))
        );
        assert_eq!(
            read(r#","fees_enabled":false,"fee_schedule":{"rate":"0.03"}"#),
            Ok(None)
        );
        for (fees, says) in [
            (r#","fees_enabled":true"#, "without a `fee_schedule`"),
            (
                r#","fees_enabled":true,"fee_schedule":{}"#,
                "rate is missing",
            ),
            (
                r#","fees_enabled":true,"fee_schedule":{"rate":"1.5"}"#,
                "fee_schedule.rate",
            ),
            (
                r#","fees_enabled":true,"fee_schedule":{"rate":0.03,"exponent":1.5}"#,
                "exponent",
            ),
            (
                r#","fees_enabled":true,"fee_schedule":{"rate":0.03,"exponent":9}"#,
                "1 to 4",
            ),
            (
                r#","fees_enabled":true,"fee_schedule":{"rate":0.03,"taker_only":"yes"}"#,
                "taker_only",
            ),
        ] {
            let e = read(fees).unwrap_err();
            assert!(e.contains(says), "{fees}: {e}");
        }
    }

    #[test]
    fn malformed_fixture_is_an_error() {
        assert!(parse_markets("{}").is_err());
        assert!(
            parse_markets(r#"[{"condition_id":"0x1"}]"#)
                .unwrap_err()
                .contains("tokens")
        );
    }

    #[test]
    fn seeded_books_never_cross() {
        for spec in MarketSpec::defaults() {
            let mut rng = Rng::new(42, 0);
            let orders = seed_orders(&spec, &mut rng);
            assert!(!orders.is_empty());
            let best_bid = orders.iter().filter(|o| o.0).map(|o| o.1).max().unwrap();
            let best_ask = orders.iter().filter(|o| !o.0).map(|o| o.1).min().unwrap();
            assert!(best_bid < best_ask, "{}", spec.question);
            assert!(
                orders
                    .iter()
                    .all(|o| spec.tick.is_on_grid(Price::new(o.1).unwrap()))
            );
        }
    }

    #[test]
    fn seeding_is_deterministic() {
        let spec = &MarketSpec::defaults()[0];
        let a = seed_orders(spec, &mut Rng::new(9, 0));
        let b = seed_orders(spec, &mut Rng::new(9, 0));
        let c = seed_orders(spec, &mut Rng::new(10, 0));
        assert_eq!(a, b);
        assert_ne!(a, c);
    }
}
