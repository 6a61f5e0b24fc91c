//! Core protocol types: sides, order types, tick sizes, signature types, chains, the
//! contract table per exchange generation, the exchange's order struct ([`Order`], what
//! EIP-712 hashes) with its [`TokenId`], and the [`Timestamp`] every venue time is read into.
//!
//! `Order` and `TokenId` live here, below both [`sign`](crate::sign) (which hashes them) and
//! [`order`](crate::order) (which builds them and re-exports both), so neither of those two
//! modules imports the other's types in a loop.
//!
//! ```
//! use polyclob::types::{Chain, ExchangeVersion, Side, TickSize, contracts};
//!
//! let tick: TickSize = "0.001".parse()?;
//! assert_eq!(tick.as_micros(), 1_000); // prices are micro-units of pUSD
//! assert_eq!(Side::Buy.as_str(), "BUY");
//!
//! // Where orders for each exchange generation are signed and settled.
//! let v2 = contracts(Chain::Polygon, ExchangeVersion::V2);
//! println!("exchange {}, neg-risk exchange {:?}", v2.exchange, v2.neg_risk_exchange);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! These are the native types. The polymarket-rs-client names at the crate root (`Side::BUY`,
//! `OrderType::GTC`, …) keep their frozen 0.1.1 shapes and convert into these.

use core::fmt;
use core::str::FromStr;

use alloy_primitives::address;

use crate::fixed::{Price, Size};

mod fee;
mod order;
mod protocol;
mod time;
mod token_id;

pub use self::fee::FeeSchedule;
pub use self::order::Order;
#[cfg(feature = "onchain")]
pub(crate) use self::protocol::is_module;
pub(crate) use self::protocol::padded_condition;
pub use self::protocol::{ConditionId, PositionId, Protocol, ProtocolError};
pub use self::time::Timestamp;
pub(crate) use self::time::timestamp_opt;
pub use self::token_id::{TokenId, TokenIdError};
/// The 20-byte address and 32-byte word of the protocol (`alloy-primitives`' types, so naming
/// a maker, a funder or a condition id needs no extra dependency).
pub use alloy_primitives::{Address, B256};

/// A value that is not one of the protocol's names or numbers for a type.
///
/// ```
/// use polyclob::types::TickSize;
///
/// let err = "0.05".parse::<TickSize>().unwrap_err();
/// assert_eq!(err.to_string(), "unknown tick size");
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct UnknownValue {
    what: &'static str,
}

impl UnknownValue {
    const fn new(what: &'static str) -> Self {
        Self { what }
    }

    /// The kind of value that was not recognised (`"tick size"`, `"chain"`, …).
    #[must_use]
    pub const fn what(&self) -> &'static str {
        self.what
    }
}

impl fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown {}", self.what)
    }
}

impl std::error::Error for UnknownValue {}

/// The side of an order or a book level.
///
/// Not `#[non_exhaustive]`: a market has exactly two sides, and exhaustive matches on it are
/// what callers want.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[repr(u8)]
pub enum Side {
    /// Bid: pay pUSD, receive shares. `0` in the signed struct.
    Buy = 0,
    /// Ask: give shares, receive pUSD. `1` in the signed struct.
    Sell = 1,
}

impl Side {
    /// The wire name, `"BUY"` or `"SELL"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Buy => "BUY",
            Self::Sell => "SELL",
        }
    }

    /// The value in the EIP-712 order struct (`uint8 side`).
    #[must_use]
    pub const fn as_u8(self) -> u8 {
        self as u8
    }

    /// The other side.
    #[must_use]
    pub const fn opposite(self) -> Self {
        match self {
            Self::Buy => Self::Sell,
            Self::Sell => Self::Buy,
        }
    }

    /// Parses the wire name. Case-sensitive, as the exchange sends it.
    ///
    /// ```
    /// use polyclob::types::Side;
    /// assert_eq!(Side::parse(b"SELL"), Some(Side::Sell));
    /// assert_eq!(Side::parse(b"sell"), None);
    /// ```
    #[must_use]
    pub const fn parse(bytes: &[u8]) -> Option<Self> {
        match bytes {
            b"BUY" => Some(Self::Buy),
            b"SELL" => Some(Self::Sell),
            _ => None,
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for Side {
    type Err = UnknownValue;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s.as_bytes()).ok_or(UnknownValue::new("side"))
    }
}

/// Time in force of an order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum OrderType {
    /// Good till cancelled (a resting limit order).
    Gtc,
    /// Good till date: rests until its `expiration` (unix seconds, at least now + 60 s).
    Gtd,
    /// Fill or kill: fills completely at once or is cancelled.
    Fok,
    /// Fill and kill: fills what it can at once and cancels the rest.
    Fak,
}

impl OrderType {
    /// The wire name (`"GTC"`, `"GTD"`, `"FOK"`, `"FAK"`).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Gtc => "GTC",
            Self::Gtd => "GTD",
            Self::Fok => "FOK",
            Self::Fak => "FAK",
        }
    }

    /// Whether the order executes immediately against the book (FOK/FAK) instead of resting.
    #[must_use]
    pub const fn is_immediate(self) -> bool {
        matches!(self, Self::Fok | Self::Fak)
    }

    /// Parses the wire name.
    #[must_use]
    pub const fn parse(bytes: &[u8]) -> Option<Self> {
        match bytes {
            b"GTC" => Some(Self::Gtc),
            b"GTD" => Some(Self::Gtd),
            b"FOK" => Some(Self::Fok),
            b"FAK" => Some(Self::Fak),
            _ => None,
        }
    }
}

impl fmt::Display for OrderType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for OrderType {
    type Err = UnknownValue;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s.as_bytes()).ok_or(UnknownValue::new("order type"))
    }
}

/// Decimal places used when rounding an order for a tick size (protocol.md §3.2).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RoundConfig {
    /// Decimal places of the price.
    pub price: u32,
    /// Decimal places of the size (lot size: always 2).
    pub size: u32,
    /// Decimal places of the pUSD amount (`price + 2`).
    pub amount: u32,
}

/// A market's minimum price increment.
///
/// All six sizes the exchange uses. 0.005 and 0.0025 are not powers of ten, so a price is on
/// the grid when it is a whole multiple of the tick, not when it has few enough decimals.
///
/// ```
/// use polyclob::fixed::Price;
/// use polyclob::types::TickSize;
///
/// let tick: TickSize = "0.005".parse()?;
/// assert!(tick.is_on_grid("0.345".parse()?));
/// assert!(!tick.is_on_grid("0.343".parse()?)); // three decimals, but not a multiple of 0.005
/// assert_eq!(tick.round_config().amount, 5);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum TickSize {
    /// 0.1
    Tenth,
    /// 0.01
    Hundredth,
    /// 0.005
    FiveThousandths,
    /// 0.001
    Thousandth,
    /// 0.0025
    TwentyFiveTenThousandths,
    /// 0.0001
    TenThousandth,
}

impl TickSize {
    /// Every tick size, coarsest first.
    pub const ALL: [Self; 6] = [
        Self::Tenth,
        Self::Hundredth,
        Self::FiveThousandths,
        Self::Thousandth,
        Self::TwentyFiveTenThousandths,
        Self::TenThousandth,
    ];

    /// The tick in 10⁻⁶ price units.
    #[must_use]
    pub const fn as_micros(self) -> u32 {
        match self {
            Self::Tenth => 100_000,
            Self::Hundredth => 10_000,
            Self::FiveThousandths => 5_000,
            Self::Thousandth => 1_000,
            Self::TwentyFiveTenThousandths => 2_500,
            Self::TenThousandth => 100,
        }
    }

    /// The tick as a [`Price`].
    pub const fn as_price(self) -> Price {
        match Price::new(self.as_micros()) {
            Some(p) => p,
            // Every tick is far below 1.
            None => Price::ZERO,
        }
    }

    /// The canonical decimal text (`"0.01"`, `"0.0025"`, …).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Tenth => "0.1",
            Self::Hundredth => "0.01",
            Self::FiveThousandths => "0.005",
            Self::Thousandth => "0.001",
            Self::TwentyFiveTenThousandths => "0.0025",
            Self::TenThousandth => "0.0001",
        }
    }

    /// The tick whose size is `price`, if there is one.
    #[must_use]
    pub const fn from_price(price: Price) -> Option<Self> {
        match price.as_micros() {
            100_000 => Some(Self::Tenth),
            10_000 => Some(Self::Hundredth),
            5_000 => Some(Self::FiveThousandths),
            1_000 => Some(Self::Thousandth),
            2_500 => Some(Self::TwentyFiveTenThousandths),
            100 => Some(Self::TenThousandth),
            _ => None,
        }
    }

    /// Parses a tick from decimal text (`"0.01"`, `"0.010"`, `".01"`).
    #[must_use]
    pub fn parse(bytes: &[u8]) -> Option<Self> {
        Price::parse(bytes).ok().and_then(Self::from_price)
    }

    /// Rounding decimals for prices, sizes and amounts (protocol.md §3.2).
    #[must_use]
    pub const fn round_config(self) -> RoundConfig {
        let price = match self {
            Self::Tenth => 1,
            Self::Hundredth => 2,
            Self::FiveThousandths | Self::Thousandth => 3,
            Self::TwentyFiveTenThousandths | Self::TenThousandth => 4,
        };
        RoundConfig {
            price,
            size: Size::LOT_DECIMALS,
            amount: price + 2,
        }
    }

    /// Whether `price` is a whole multiple of the tick.
    #[must_use]
    pub const fn is_on_grid(self, price: Price) -> bool {
        price.as_micros() % self.as_micros() == 0
    }

    /// Whether `tick ≤ price ≤ 1 − tick`, the exchange's accepted price range.
    #[must_use]
    pub const fn in_range(self, price: Price) -> bool {
        let p = price.as_micros();
        p >= self.as_micros() && p <= Price::SCALE - self.as_micros()
    }

    /// The largest grid price ≤ `price` (truncation to the tick, as V2 market orders do).
    pub const fn floor(self, price: Price) -> Price {
        let t = self.as_micros();
        match Price::new(price.as_micros() / t * t) {
            Some(p) => p,
            None => Price::ZERO,
        }
    }

    /// The smallest grid price ≥ `price`, capped at 1.
    pub const fn ceil(self, price: Price) -> Price {
        let t = self.as_micros();
        let up = price.as_micros().div_ceil(t) * t;
        match Price::new(up) {
            Some(p) => p,
            None => Price::ONE,
        }
    }
}

impl fmt::Display for TickSize {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.as_str())
    }
}

impl FromStr for TickSize {
    type Err = UnknownValue;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Self::parse(s.as_bytes()).ok_or(UnknownValue::new("tick size"))
    }
}

impl TryFrom<Price> for TickSize {
    type Error = UnknownValue;

    fn try_from(p: Price) -> Result<Self, Self::Error> {
        Self::from_price(p).ok_or(UnknownValue::new("tick size"))
    }
}

/// How the order's maker authorises it (the `signatureType` field).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
#[repr(u8)]
pub enum SignatureType {
    /// A plain externally owned account signs for itself.
    #[default]
    Eoa = 0,
    /// A Polymarket proxy wallet (email/Magic users); the EOA signs, the proxy is the maker.
    PolyProxy = 1,
    /// A Gnosis Safe (browser-wallet users); the EOA signs, the Safe is the maker.
    PolyGnosisSafe = 2,
    /// An ERC-1271 deposit wallet (V2/V3 only); the EOA owner signs an ERC-7739 envelope.
    Poly1271 = 3,
}

impl SignatureType {
    /// The numeric value sent on the wire and signed.
    #[must_use]
    pub const fn as_u8(self) -> u8 {
        self as u8
    }

    /// The type for a wire value.
    #[must_use]
    pub const fn from_u8(v: u8) -> Option<Self> {
        match v {
            0 => Some(Self::Eoa),
            1 => Some(Self::PolyProxy),
            2 => Some(Self::PolyGnosisSafe),
            3 => Some(Self::Poly1271),
            _ => None,
        }
    }

    /// Whether the maker (funder) is a wallet other than the signing EOA.
    #[must_use]
    pub const fn has_funder(self) -> bool {
        !matches!(self, Self::Eoa)
    }

    /// Whether an exchange generation accepts this type (POLY_1271 arrived with V2).
    #[must_use]
    pub const fn allowed_on(self, version: ExchangeVersion) -> bool {
        !matches!((self, version), (Self::Poly1271, ExchangeVersion::V1))
    }
}

impl TryFrom<u8> for SignatureType {
    type Error = UnknownValue;

    fn try_from(v: u8) -> Result<Self, Self::Error> {
        Self::from_u8(v).ok_or(UnknownValue::new("signature type"))
    }
}

/// The EVM chain the exchange contracts live on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Chain {
    /// Polygon PoS mainnet (137).
    Polygon,
    /// Polygon Amoy testnet (80002).
    Amoy,
}

impl Chain {
    /// The EIP-155 chain id.
    #[must_use]
    pub const fn id(self) -> u64 {
        match self {
            Self::Polygon => 137,
            Self::Amoy => 80002,
        }
    }

    /// The chain for an id.
    #[must_use]
    pub const fn from_id(id: u64) -> Option<Self> {
        match id {
            137 => Some(Self::Polygon),
            80002 => Some(Self::Amoy),
            _ => None,
        }
    }
}

impl TryFrom<u64> for Chain {
    type Error = UnknownValue;

    fn try_from(id: u64) -> Result<Self, Self::Error> {
        Self::from_id(id).ok_or(UnknownValue::new("chain"))
    }
}

impl fmt::Display for Chain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(match self {
            Self::Polygon => "polygon",
            Self::Amoy => "amoy",
        })
    }
}

/// The exchange generation an order is signed for (protocol.md §0, §6).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ExchangeVersion {
    /// CTF Exchange V1: legacy, rejected on production since 2026-04-28.
    V1,
    /// CTF Exchange V2 (token-ID markets): what production accepts.
    V2,
    /// ExchangeV3 (Protocol V2 position-ID markets).
    V3,
}

impl ExchangeVersion {
    /// The EIP-712 domain `version` string.
    #[must_use]
    pub const fn domain_version(self) -> &'static str {
        match self {
            Self::V1 => "1",
            Self::V2 => "2",
            Self::V3 => "3",
        }
    }

    /// The version for the number `GET /version` returns (1 or 2) for token-ID markets.
    #[must_use]
    pub const fn from_clob_version(v: u64) -> Option<Self> {
        match v {
            1 => Some(Self::V1),
            2 => Some(Self::V2),
            _ => None,
        }
    }
}

/// Contract addresses for one (chain, exchange generation) pair.
///
/// Sources: Polymarket's contracts page (docs.polymarket.com `/resources/contracts`, "the single
/// source of truth for all contract addresses") for every Polygon address it lists; each entry
/// below names its source. Where the docs and an SDK disagree, the docs win and the entry
/// says so.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Contracts {
    /// The exchange that settles standard (and, on V3, all) orders; the EIP-712 verifying contract.
    pub exchange: Address,
    /// The exchange for neg-risk markets; `None` on V3, which has a single exchange.
    pub neg_risk_exchange: Option<Address>,
    /// The Neg Risk Adapter, where known: on Polygon the docs list it as "Neg Risk Adapter
    /// (CLOB v1, deprecated)" and Polymarket moved neg-risk split/merge/redeem to the
    /// NegRiskCtfCollateralAdapter; it is kept only for NO-position conversion
    /// ([`Settler::convert_neg_risk`](crate::onchain::Settler)), for which the docs name no
    /// successor. Never approved nor targeted by split/merge/redeem where a collateral adapter
    /// exists.
    pub neg_risk_adapter: Option<Address>,
    /// The collateral token: USDC.e on V1, pUSD on V2/V3.
    pub collateral: Address,
    /// The Gnosis conditional tokens (ERC-1155) contract holding CTF outcome tokens.
    pub conditional_tokens: Address,
    /// The pUSD collateral adapter for split/merge/redeem on standard markets (docs: "approve
    /// the adapter once, then route split, merge, and redeem actions through it"); `None` where
    /// positions are settled on ConditionalTokens directly (USDC.e, V1) or it is not known.
    pub ctf_collateral_adapter: Option<Address>,
    /// The pUSD collateral adapter for neg-risk markets.
    pub neg_risk_collateral_adapter: Option<Address>,
    /// Protocol V2: the PositionManager (ERC-1155) holding V2 positions; `None` off V3.
    pub position_manager: Option<Address>,
    /// Protocol V2: the Router that splits, merges and redeems V2 positions; `None` off V3.
    pub router: Option<Address>,
    /// Protocol V2: the optional AutoRedeemer (listed for completeness; the docs give no call
    /// an integration makes on it).
    pub auto_redeemer: Option<Address>,
}

impl Contracts {
    /// The verifying contract for an order: the neg-risk exchange when `neg_risk` and there is one.
    #[must_use]
    pub const fn exchange_for(&self, neg_risk: bool) -> Address {
        match (neg_risk, self.neg_risk_exchange) {
            (true, Some(addr)) => addr,
            _ => self.exchange,
        }
    }

    /// The ERC-1155 contract holding the outcome positions: the PositionManager on V3,
    /// ConditionalTokens otherwise.
    #[must_use]
    pub const fn outcome_tokens(&self) -> Address {
        match self.position_manager {
            Some(a) => a,
            None => self.conditional_tokens,
        }
    }

    /// Where split, merge and redeem are sent for a market: the Router on V3; else the
    /// collateral adapter for the market type when there is one, else the Neg Risk Adapter
    /// (neg-risk, legacy V1 tables) or ConditionalTokens.
    ///
    /// ```
    /// use polyclob::types::{Chain, ExchangeVersion, contracts};
    ///
    /// let v1 = contracts(Chain::Polygon, ExchangeVersion::V1);
    /// assert_eq!(v1.positions_target(false), v1.conditional_tokens);
    /// let v2 = contracts(Chain::Polygon, ExchangeVersion::V2);
    /// assert_eq!(v2.positions_target(false), v2.ctf_collateral_adapter.unwrap());
    /// assert_eq!(v2.positions_target(true), v2.neg_risk_collateral_adapter.unwrap());
    /// let v3 = contracts(Chain::Polygon, ExchangeVersion::V3);
    /// assert_eq!(v3.positions_target(true), v3.router.unwrap());
    /// ```
    #[must_use]
    pub const fn positions_target(&self, neg_risk: bool) -> Address {
        if let Some(r) = self.router {
            return r;
        }
        match (
            neg_risk,
            self.ctf_collateral_adapter,
            self.neg_risk_collateral_adapter,
            self.neg_risk_adapter,
        ) {
            (false, Some(a), _, _) | (true, _, Some(a), _) | (true, _, None, Some(a)) => a,
            _ => self.conditional_tokens,
        }
    }

    /// Every contract that must be allowed to spend the account's collateral: the exchanges
    /// and the position target(s) (deduplicated, in that order). On V3: ExchangeV3 (to buy) and
    /// the Router (to split).
    #[must_use]
    pub fn collateral_spenders(&self) -> Vec<Address> {
        let mut out = Vec::with_capacity(4);
        let candidates = [
            Some(self.exchange),
            self.neg_risk_exchange,
            Some(self.positions_target(false)),
            Some(self.positions_target(true)),
        ];
        for a in candidates.into_iter().flatten() {
            if !out.contains(&a) {
                out.push(a);
            }
        }
        out
    }

    /// Every contract that must be approved to move the account's outcome positions
    /// (`setApprovalForAll` on [`outcome_tokens`](Self::outcome_tokens)): the spenders except
    /// the token contract itself. On V3: ExchangeV3 (to sell) and the Router (to merge and
    /// redeem).
    #[must_use]
    pub fn token_operators(&self) -> Vec<Address> {
        let mut out = self.collateral_spenders();
        out.retain(|a| *a != self.outcome_tokens());
        out
    }

    /// Every address of the table with its field's name, in declaration order; the entries
    /// this generation does not have are left out.
    ///
    /// ```
    /// use polyclob::types::{Chain, ExchangeVersion, contracts};
    ///
    /// let v3 = contracts(Chain::Polygon, ExchangeVersion::V3);
    /// let names: Vec<&str> = v3.entries().map(|(name, _)| name).collect();
    /// assert_eq!(names, ["exchange", "collateral", "conditional_tokens", "position_manager", "router", "auto_redeemer"]);
    /// ```
    pub fn entries(&self) -> impl Iterator<Item = (&'static str, Address)> + use<> {
        [
            ("exchange", Some(self.exchange)),
            ("neg_risk_exchange", self.neg_risk_exchange),
            ("neg_risk_adapter", self.neg_risk_adapter),
            ("collateral", Some(self.collateral)),
            ("conditional_tokens", Some(self.conditional_tokens)),
            ("ctf_collateral_adapter", self.ctf_collateral_adapter),
            (
                "neg_risk_collateral_adapter",
                self.neg_risk_collateral_adapter,
            ),
            ("position_manager", self.position_manager),
            ("router", self.router),
            ("auto_redeemer", self.auto_redeemer),
        ]
        .into_iter()
        .filter_map(|(name, a)| a.map(|a| (name, a)))
    }
}

// Polygon, from docs.polymarket.com/resources/contracts ("Core Trading Contracts",
// "Collateral Contracts", "Combos Contracts"), read 2026-11-27.
const CTF_POLYGON: Address = address!("0x4D97DCd97eC945f40cF65F87097ACe5EA0476045"); // Conditional Tokens (CTF)
const PUSD: Address = address!("0xC011a7E12a19f7B1f670d46F03B03f3342E82DFB"); // pUSD — CollateralToken (proxy)
// "Neg Risk Adapter (CLOB v1, deprecated)": retired for relayer calls on 2026-07-17.
const NEG_RISK_ADAPTER: Address = address!("0xd91E80cF2E7be2e162c6513ceD06f1dD0dA35296");
const EXCHANGE_V2: Address = address!("0xE111180000d2663C0091e4f400237545B87B996B"); // CTF Exchange
const NEG_RISK_EXCHANGE_V2: Address = address!("0xe2222d279d744050d28e00520010520000310F59"); // Neg Risk CTF Exchange
const CTF_COLLATERAL_ADAPTER: Address = address!("0xAdA100Db00Ca00073811820692005400218FcE1f"); // CtfCollateralAdapter
const NEG_RISK_COLLATERAL_ADAPTER: Address = address!("0xadA2005600Dec949baf300f4C6120000bDB6eAab"); // NegRiskCtfCollateralAdapter
const EXCHANGE_V3: Address = address!("0xe3333700cA9d93003F00f0F71f8515005F6c00Aa"); // Exchange (proxy), Combos Contracts
const POSITION_MANAGER: Address = address!("0x006F54F7f9A22e0000CC2AB60031000000ae9fEF"); // PositionManager (proxy), Combos Contracts
const AUTO_REDEEMER: Address = address!("0xa1200000d0002264C9a1698e001292D00E1b00af"); // AutoRedeemer (proxy), Combos Contracts
// The Router is not in the contracts page's tables; the docs' own Combos split/merge and
// redeem pages (docs.polymarket.com, "Combos" → "Split and merge", Relayer API tab) name it as
// the target of `split`, `merge` and `redeem`, and the V2 contract-integration page points
// there for its address.
const ROUTER: Address = address!("0x12121212006e4CD160D18e3f00711DA5c3372600");
// Amoy: the docs list no Amoy addresses; these are the official clients' configs
// (clob-client-v2, py-clob-client-v2, rs-clob-client-v2).
const CTF_AMOY: Address = address!("0x69308FB512518e39F9b16112fA8d994F4e2Bf8bB");

const POLYGON_V1: Contracts = Contracts {
    // Legacy (pre-2026-04-28) exchanges: the docs call them superseded; orders here are refused.
    exchange: address!("0x4bFb41d5B3570DeFd03C39a9A4D8dE6Bd8B8982E"),
    neg_risk_exchange: Some(address!("0xC5d563A36AE78145C45a50134d48A1215220f80a")),
    neg_risk_adapter: Some(NEG_RISK_ADAPTER),
    // USDC.e, the legacy collateral (docs: the input to CollateralOnramp).
    collateral: address!("0x2791Bca1f2de4661ED88A30C99A7a9449Aa84174"),
    conditional_tokens: CTF_POLYGON,
    ctf_collateral_adapter: None,
    neg_risk_collateral_adapter: None,
    position_manager: None,
    router: None,
    auto_redeemer: None,
};
const POLYGON_V2: Contracts = Contracts {
    exchange: EXCHANGE_V2,
    neg_risk_exchange: Some(NEG_RISK_EXCHANGE_V2),
    // Conversion only; neg-risk split/merge/redeem go through NEG_RISK_COLLATERAL_ADAPTER.
    neg_risk_adapter: Some(NEG_RISK_ADAPTER),
    collateral: PUSD,
    conditional_tokens: CTF_POLYGON,
    ctf_collateral_adapter: Some(CTF_COLLATERAL_ADAPTER),
    neg_risk_collateral_adapter: Some(NEG_RISK_COLLATERAL_ADAPTER),
    position_manager: None,
    router: None,
    auto_redeemer: None,
};
const POLYGON_V3: Contracts = Contracts {
    exchange: EXCHANGE_V3,
    neg_risk_exchange: None,
    neg_risk_adapter: None,
    collateral: PUSD,
    conditional_tokens: CTF_POLYGON,
    ctf_collateral_adapter: None,
    neg_risk_collateral_adapter: None,
    position_manager: Some(POSITION_MANAGER),
    router: Some(ROUTER),
    auto_redeemer: Some(AUTO_REDEEMER),
};
// Amoy V1's neg-risk exchange: py-clob-client 0.34's `config.py` says the Neg Risk Adapter
// `0xd91E…5296`, while every current official client (clob-client-v2, py-clob-client-v2,
// rs-clob-client-v2) and Polymarket's own V1 order test (clob-client-v2
// `exchangeOrderBuilderV1.test.ts`, digest 0xf15790d3…) use `0xC5d5…f80a`. The docs list no
// Amoy address, so the disagreement is between SDKs only; this follows Polymarket's current
// clients and their test vector.
const AMOY_V1: Contracts = Contracts {
    exchange: address!("0xdFE02Eb6733538f8Ea35D585af8DE5958AD99E40"),
    neg_risk_exchange: Some(address!("0xC5d563A36AE78145C45a50134d48A1215220f80a")),
    neg_risk_adapter: None,
    collateral: address!("0x9c4e1703476e875070ee25b56a58b008cfb8fa78"),
    conditional_tokens: CTF_AMOY,
    ctf_collateral_adapter: None,
    neg_risk_collateral_adapter: None,
    position_manager: None,
    router: None,
    auto_redeemer: None,
};
const AMOY_V2: Contracts = Contracts {
    exchange: EXCHANGE_V2,
    neg_risk_exchange: Some(NEG_RISK_EXCHANGE_V2),
    neg_risk_adapter: None,
    collateral: PUSD,
    conditional_tokens: CTF_AMOY,
    ctf_collateral_adapter: None,
    neg_risk_collateral_adapter: None,
    position_manager: None,
    router: None,
    auto_redeemer: None,
};
// Amoy ExchangeV3 from the official clients' configs; no Amoy PositionManager or Router is
// published, so V2 settlement is Polygon-only.
const AMOY_V3: Contracts = Contracts {
    exchange: address!("0x9fE6e61422AdB6F610d8597F9684b16912D50C3D"),
    neg_risk_exchange: None,
    neg_risk_adapter: None,
    collateral: PUSD,
    conditional_tokens: CTF_AMOY,
    ctf_collateral_adapter: None,
    neg_risk_collateral_adapter: None,
    position_manager: None,
    router: None,
    auto_redeemer: None,
};

/// The contract table: addresses for a chain and exchange generation.
///
/// ```
/// use alloy_primitives::address;
/// use polyclob::types::{Chain, ExchangeVersion, contracts};
///
/// let c = contracts(Chain::Polygon, ExchangeVersion::V2);
/// assert_eq!(c.exchange_for(true), address!("0xe2222d279d744050d28e00520010520000310F59"));
/// ```
#[must_use]
pub const fn contracts(chain: Chain, version: ExchangeVersion) -> &'static Contracts {
    match (chain, version) {
        (Chain::Polygon, ExchangeVersion::V1) => &POLYGON_V1,
        (Chain::Polygon, ExchangeVersion::V2) => &POLYGON_V2,
        (Chain::Polygon, ExchangeVersion::V3) => &POLYGON_V3,
        (Chain::Amoy, ExchangeVersion::V1) => &AMOY_V1,
        (Chain::Amoy, ExchangeVersion::V2) => &AMOY_V2,
        (Chain::Amoy, ExchangeVersion::V3) => &AMOY_V3,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price(s: &str) -> Price {
        s.parse().unwrap()
    }

    #[test]
    fn tick_table() {
        let cases: &[(&str, TickSize, u32, u32)] = &[
            ("0.1", TickSize::Tenth, 1, 3),
            ("0.01", TickSize::Hundredth, 2, 4),
            ("0.001", TickSize::Thousandth, 3, 5),
            ("0.0001", TickSize::TenThousandth, 4, 6),
            ("0.005", TickSize::FiveThousandths, 3, 5),
            ("0.0025", TickSize::TwentyFiveTenThousandths, 4, 6),
        ];
        for &(text, tick, price_dp, amount_dp) in cases {
            assert_eq!(text.parse::<TickSize>(), Ok(tick));
            assert_eq!(tick.as_str(), text);
            assert_eq!(tick.as_price().to_string(), text);
            let rc = tick.round_config();
            assert_eq!(
                (rc.price, rc.size, rc.amount),
                (price_dp, 2, amount_dp),
                "{text}"
            );
        }
        assert_eq!("0.010".parse::<TickSize>(), Ok(TickSize::Hundredth));
        assert!("0.05".parse::<TickSize>().is_err());
        assert!("abc".parse::<TickSize>().is_err());
    }

    #[test]
    fn grid_is_a_multiple_check() {
        let t = TickSize::TwentyFiveTenThousandths;
        assert!(t.is_on_grid(price("0.9975")));
        assert!(t.is_on_grid(price("0.0025")));
        assert!(!t.is_on_grid(price("0.0026")));
        assert!(!t.is_on_grid(price("0.001")));
        let t = TickSize::FiveThousandths;
        assert!(t.is_on_grid(price("0.345")));
        assert!(!t.is_on_grid(price("0.344")));
        assert!(TickSize::Hundredth.is_on_grid(price("0.56")));
        assert!(!TickSize::Hundredth.is_on_grid(price("0.565")));
    }

    #[test]
    fn range_floor_ceil() {
        let t = TickSize::Hundredth;
        assert!(t.in_range(price("0.01")));
        assert!(t.in_range(price("0.99")));
        assert!(!t.in_range(price("0.005")));
        assert!(!t.in_range(price("0.995")));
        assert!(!t.in_range(Price::ONE));
        assert_eq!(t.floor(price("0.339")), price("0.33"));
        assert_eq!(t.ceil(price("0.331")), price("0.34"));
        assert_eq!(t.ceil(price("0.34")), price("0.34"));
        assert_eq!(
            TickSize::FiveThousandths.floor(price("0.349")),
            price("0.345")
        );
    }

    #[test]
    fn enums_round_trip() {
        for s in [Side::Buy, Side::Sell] {
            assert_eq!(s.as_str().parse::<Side>(), Ok(s));
            assert_eq!(s.opposite().opposite(), s);
        }
        assert_eq!(Side::Buy.as_u8(), 0);
        assert_eq!(Side::Sell.as_u8(), 1);
        for t in [
            OrderType::Gtc,
            OrderType::Gtd,
            OrderType::Fok,
            OrderType::Fak,
        ] {
            assert_eq!(t.as_str().parse::<OrderType>(), Ok(t));
        }
        for v in 0..=3 {
            assert_eq!(SignatureType::from_u8(v).unwrap().as_u8(), v);
        }
        assert_eq!(SignatureType::from_u8(4), None);
        assert!(!SignatureType::Poly1271.allowed_on(ExchangeVersion::V1));
        assert!(SignatureType::Poly1271.allowed_on(ExchangeVersion::V2));
        assert_eq!(Chain::try_from(137), Ok(Chain::Polygon));
        assert_eq!(Chain::from_id(80002).map(Chain::id), Some(80002));
        assert!(Chain::try_from(1).is_err());
        assert_eq!(
            ExchangeVersion::from_clob_version(2),
            Some(ExchangeVersion::V2)
        );
    }

    #[test]
    fn contract_table_matches_protocol() {
        let v2 = contracts(Chain::Polygon, ExchangeVersion::V2);
        assert_eq!(
            v2.exchange,
            address!("0xE111180000d2663C0091e4f400237545B87B996B")
        );
        assert_eq!(v2.exchange_for(false), v2.exchange);
        let v3 = contracts(Chain::Amoy, ExchangeVersion::V3);
        assert_eq!(
            v3.exchange_for(true),
            v3.exchange,
            "V3 has a single exchange"
        );
        let v1 = contracts(Chain::Polygon, ExchangeVersion::V1);
        assert_eq!(
            v1.exchange_for(true),
            address!("0xC5d563A36AE78145C45a50134d48A1215220f80a")
        );
        assert_ne!(
            contracts(Chain::Amoy, ExchangeVersion::V1).collateral,
            contracts(Chain::Amoy, ExchangeVersion::V2).collateral
        );
    }
}
