//! Typed responses. Decoding is lenient where the exchange is: numbers as strings or
//! numbers, `""` for none, unknown enum names kept.

mod account;
mod book;
mod builder;
pub(crate) mod lenient;
mod market;
mod order;
mod rewards;
pub(crate) mod rounded;

pub(crate) use account::ApiKeyRaw;
pub use account::{AssetKind, BalanceAllowance, HeartbeatResponse, Notification};
pub use book::{
    BookLevel, BookLevels, BookSummary, HistoryRange, Interval, LastTradeInfo, PricePoint,
};
pub use builder::{BuilderApiKey, BuilderFeeRate, BuilderTrade};
pub use market::{
    ClobMarket, ClobMarketToken, FeeCurve, Market, MarketByToken, RewardRate, Rewards,
    SimplifiedMarket, Token,
};
pub use order::{
    CancelResponse, MakerOrder, OpenOrder, OrderKind, OrderStatus, PostOrderResponse, Trade,
    TradeStatus, TraderSide,
};
pub use rewards::{
    AssetEarning, CurrentReward, MarketReward, RewardConfig, RewardPercentages, RewardToken,
    TotalEarning, UserEarning, UserMarketEarning,
};

/// The old name of [`BookSummary`], kept for one minor release (another module has a type of
/// that name).
#[deprecated(since = "0.2.0", note = "renamed `BookSummary`")]
pub type Book = BookSummary; // renamed-alias: Book

/// The old name of [`LastTradeInfo`], kept for one minor release (another module has a type of
/// that name).
#[deprecated(since = "0.2.0", note = "renamed `LastTradeInfo`")]
pub type LastTrade = LastTradeInfo; // renamed-alias: LastTrade

/// The old name of [`BookLevel`], kept for one minor release (another module has a type of
/// that name).
#[deprecated(since = "0.2.0", note = "renamed `BookLevel`")]
pub type Level = BookLevel; // renamed-alias: Level

/// The old name of [`BookLevels`], kept for one minor release (another module has a type of
/// that name).
#[deprecated(since = "0.2.0", note = "renamed `BookLevels`")]
pub type Levels = BookLevels; // renamed-alias: Levels
