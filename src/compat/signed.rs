//! `SignedOrderRequest`: reachable (returned by `create_order`) but, as in 0.1.1, not
//! nameable from outside the crate.

use core::fmt;

use serde::ser::{Serialize, SerializeStruct, Serializer};

use crate::types::ExchangeVersion;

/// A signed order, ready for `post_order`.
///
/// Keeps every 0.1.1 field and adds the V2 ones (`timestamp`, `metadata`, `builder`). Its JSON
/// is the wire body of the generation it was signed for: V2/V3 orders serialise the V2 field
/// set, V1 orders the 0.1.1 one.
pub struct SignedOrderRequest {
    /// Salt (a JSON number).
    pub salt: u64,
    /// Funder address (EIP-55).
    pub maker: String,
    /// Signing address (EIP-55).
    pub signer: String,
    /// Taker (V1 only; zero address).
    pub taker: String,
    /// Token id, as given.
    pub token_id: String,
    /// Maker amount, 10⁻⁶ units.
    pub maker_amount: String,
    /// Taker amount, 10⁻⁶ units.
    pub taker_amount: String,
    /// Expiration, unix seconds (`"0"` = none).
    pub expiration: String,
    /// Exchange nonce (V1 only).
    pub nonce: String,
    /// Fee rate (V1 only).
    pub fee_rate_bps: String,
    /// `"BUY"`/`"SELL"`.
    pub side: String,
    /// Signature type (0 = EOA).
    pub signature_type: u8,
    /// `0x` + r‖s‖v.
    pub signature: String,
    /// V2/V3: creation time in ms.
    pub timestamp: String,
    /// V2/V3: bytes32 metadata.
    pub metadata: String,
    /// V2/V3: bytes32 builder code.
    pub builder: String,
    pub(crate) version: ExchangeVersion,
    /// What is needed to rebuild and re-sign on `order_version_mismatch`.
    pub(crate) rebuild: Option<super::orders::Rebuild>,
}

impl fmt::Debug for SignedOrderRequest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SignedOrderRequest")
            .field("salt", &self.salt)
            .field("maker", &self.maker)
            .field("signer", &self.signer)
            .field("taker", &self.taker)
            .field("token_id", &self.token_id)
            .field("maker_amount", &self.maker_amount)
            .field("taker_amount", &self.taker_amount)
            .field("expiration", &self.expiration)
            .field("nonce", &self.nonce)
            .field("fee_rate_bps", &self.fee_rate_bps)
            .field("side", &self.side)
            .field("signature_type", &self.signature_type)
            .field("signature", &self.signature)
            .field("timestamp", &self.timestamp)
            .field("metadata", &self.metadata)
            .field("builder", &self.builder)
            .finish()
    }
}

impl Serialize for SignedOrderRequest {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        if self.version == ExchangeVersion::V1 {
            let mut st = s.serialize_struct("SignedOrderRequest", 13)?;
            st.serialize_field("salt", &self.salt)?;
            st.serialize_field("maker", &self.maker)?;
            st.serialize_field("signer", &self.signer)?;
            st.serialize_field("taker", &self.taker)?;
            st.serialize_field("tokenId", &self.token_id)?;
            st.serialize_field("makerAmount", &self.maker_amount)?;
            st.serialize_field("takerAmount", &self.taker_amount)?;
            st.serialize_field("expiration", &self.expiration)?;
            st.serialize_field("nonce", &self.nonce)?;
            st.serialize_field("feeRateBps", &self.fee_rate_bps)?;
            st.serialize_field("side", &self.side)?;
            st.serialize_field("signatureType", &self.signature_type)?;
            st.serialize_field("signature", &self.signature)?;
            st.end()
        } else {
            let mut st = s.serialize_struct("SignedOrderRequest", 13)?;
            st.serialize_field("salt", &self.salt)?;
            st.serialize_field("maker", &self.maker)?;
            st.serialize_field("signer", &self.signer)?;
            st.serialize_field("tokenId", &self.token_id)?;
            st.serialize_field("makerAmount", &self.maker_amount)?;
            st.serialize_field("takerAmount", &self.taker_amount)?;
            st.serialize_field("side", &self.side)?;
            st.serialize_field("expiration", &self.expiration)?;
            st.serialize_field("signatureType", &self.signature_type)?;
            st.serialize_field("timestamp", &self.timestamp)?;
            st.serialize_field("metadata", &self.metadata)?;
            st.serialize_field("builder", &self.builder)?;
            st.serialize_field("signature", &self.signature)?;
            st.end()
        }
    }
}
