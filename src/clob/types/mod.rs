//! Typed responses. Decoding is lenient where the exchange is: numbers as strings or
//! numbers, `""` for none, unknown enum names kept.

mod account;
mod book;
mod builder;
mod market;
mod order;
mod rewards;

pub(crate) use account::ApiKeyRaw;
pub use account::{AssetKind, BalanceAllowance, HeartbeatResponse, Notification};
pub use book::{BookLevel, BookSummary, HistoryRange, Interval, LastTradeInfo, PricePoint};
pub use builder::{BuilderApiKey, BuilderFeeRate, BuilderTrade};
pub use market::{
    ClobMarket, ClobMarketToken, Market, MarketByToken, RewardRate, Rewards, SimplifiedMarket,
    Token,
};
pub use order::{
    CancelResponse, MakerOrder, OpenOrder, OrderKind, OrderStatus, PostOrderResponse, Trade,
    TradeStatus, TraderSide,
};
pub use rewards::{
    AssetEarning, CurrentReward, MakerRebate, MarketReward, RewardConfig, RewardPercentages,
    RewardToken, TotalEarning, UserEarning, UserMarketEarning,
};
