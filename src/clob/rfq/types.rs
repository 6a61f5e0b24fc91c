//! RFQ wire types: requests and quotes as the server lists them.

use serde::Deserialize;

use crate::fixed::{Price, Size};
use crate::http::lenient::{self, lenient_enum};
use crate::types::Side;

lenient_enum!(
    /// How a quote fills a request.
    MatchType {
        /// The quoter takes the other side of the same token.
        Complementary = "COMPLEMENTARY",
        /// Both sides buy complementary tokens (a mint).
        Mint = "MINT",
        /// Both sides sell complementary tokens (a merge).
        Merge = "MERGE",
    }
);

lenient_enum!(
    /// State filter of the RFQ lists.
    RfqState {
        /// Open requests or quotes.
        Active = "active",
        /// Cancelled, expired or filled.
        Inactive = "inactive",
    }
);

/// `POST /rfq/request` and `POST /rfq/quote` answers.
#[derive(Clone, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RfqCreated {
    /// The new request's id (requests), or the quoted request's id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub request_id: String,
    /// The new quote's id (quotes only).
    #[serde(default, deserialize_with = "lenient::string")]
    pub quote_id: String,
    /// When the request expires, unix seconds (requests only).
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub expiry: u64,
    /// Error text, if the server reported one.
    #[serde(default)]
    pub error: Option<String>,
}

/// One row of `GET /rfq/data/requests`.
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RfqRequest {
    /// Request id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub request_id: String,
    /// The requester's signer address.
    #[serde(default, deserialize_with = "lenient::string")]
    pub user_address: String,
    /// The requester's funding wallet.
    #[serde(default, deserialize_with = "lenient::string")]
    pub proxy_address: String,
    /// Condition id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub condition: String,
    /// Token asked about.
    #[serde(default, deserialize_with = "lenient::string")]
    pub token: String,
    /// The other token of the market.
    #[serde(default, deserialize_with = "lenient::string")]
    pub complement: String,
    /// The requester's side.
    #[serde(default, deserialize_with = "lenient::side_opt")]
    pub side: Option<Side>,
    /// What the requester receives (shares on a BUY, collateral on a SELL).
    #[serde(default, deserialize_with = "lenient::size")]
    pub size_in: Size,
    /// What the requester gives.
    #[serde(default, deserialize_with = "lenient::size")]
    pub size_out: Size,
    /// Price per share.
    #[serde(default, deserialize_with = "lenient::price")]
    pub price: Price,
    /// Expiry, unix seconds.
    #[serde(default, deserialize_with = "lenient::u64_lenient")]
    pub expiry: u64,
}

/// One row of the quote lists (`/rfq/data/requester/quotes`, `/rfq/data/quoter/quotes`,
/// and `/rfq/data/best-quote`).
#[derive(Clone, Debug, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct RfqQuote {
    /// Quote id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub quote_id: String,
    /// The request it answers.
    #[serde(default, deserialize_with = "lenient::string")]
    pub request_id: String,
    /// The quoter's signer address.
    #[serde(default, deserialize_with = "lenient::string")]
    pub user_address: String,
    /// The quoter's funding wallet.
    #[serde(default, deserialize_with = "lenient::string")]
    pub proxy_address: String,
    /// Condition id.
    #[serde(default, deserialize_with = "lenient::string")]
    pub condition: String,
    /// Token quoted.
    #[serde(default, deserialize_with = "lenient::string")]
    pub token: String,
    /// The other token of the market.
    #[serde(default, deserialize_with = "lenient::string")]
    pub complement: String,
    /// The quoter's side.
    #[serde(default, deserialize_with = "lenient::side_opt")]
    pub side: Option<Side>,
    /// What the quoter receives.
    #[serde(default, deserialize_with = "lenient::size")]
    pub size_in: Size,
    /// What the quoter gives.
    #[serde(default, deserialize_with = "lenient::size")]
    pub size_out: Size,
    /// Price per share.
    #[serde(default, deserialize_with = "lenient::price")]
    pub price: Price,
    /// How the quote fills the request; complementary when not sent.
    #[serde(default = "complementary")]
    pub match_type: MatchType,
}

fn complementary() -> MatchType {
    MatchType::Complementary
}
