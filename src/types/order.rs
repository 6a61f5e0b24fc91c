//! The unsigned order: every field of the V1 and V2/V3 structs plus the wire-only ones.

use alloy_primitives::{Address, B256};

use super::TokenId;
use crate::types::{ExchangeVersion, Side, SignatureType};

/// An order's field values, before signing.
///
/// One type covers all generations: V1 signs `taker`, `expiration`, `nonce` and `feeRateBps`;
/// V2/V3 sign `timestamp`, `metadata` and `builder` instead and send `expiration` unsigned in
/// the JSON body (protocol.md §1.2, §1.3). Fields of the other generation are ignored by the
/// hashing and the serialisation.
///
/// Usually built by the order builder; public fields let tests and tools
/// reproduce any order exactly.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Order {
    /// Which exchange generation (and struct) this order is for.
    pub version: ExchangeVersion,
    /// Uniqueness salt; at most 2⁵³ − 1 because the body sends it as a JSON number.
    pub salt: u64,
    /// The funds holder (EOA, proxy, Safe or deposit wallet).
    pub maker: Address,
    /// The address whose signature authorises the order.
    pub signer: Address,
    /// V1 only: the allowed taker (zero = anyone).
    pub taker: Address,
    /// The CTF token id (V1/V2) or position id (V3).
    pub token_id: TokenId,
    /// What the maker gives, in 10⁻⁶ units.
    pub maker_amount: u64,
    /// What the maker receives, in 10⁻⁶ units.
    pub taker_amount: u64,
    /// Unix seconds, 0 = none. Signed on V1, body-only on V2/V3.
    pub expiration: u64,
    /// V1 only: the exchange's cancellation nonce.
    pub nonce: u64,
    /// V1 only: the fee rate in basis points.
    pub fee_rate_bps: u64,
    /// Buy or sell.
    pub side: Side,
    /// How the maker authorises the order.
    pub signature_type: SignatureType,
    /// V2/V3 only: creation time in milliseconds.
    pub timestamp_ms: u64,
    /// V2/V3 only: free-form bytes32 (zero by default).
    pub metadata: B256,
    /// V2/V3 only: the builder code (zero by default).
    pub builder: B256,
}

impl Order {
    /// An all-zero order for `version` (the upstream SDKs' `Default`), for tests and tools.
    #[must_use]
    pub const fn zeroed(version: ExchangeVersion) -> Self {
        Self {
            version,
            salt: 0,
            maker: Address::ZERO,
            signer: Address::ZERO,
            taker: Address::ZERO,
            token_id: TokenId::ZERO,
            maker_amount: 0,
            taker_amount: 0,
            expiration: 0,
            nonce: 0,
            fee_rate_bps: 0,
            side: Side::Buy,
            signature_type: SignatureType::Eoa,
            timestamp_ms: 0,
            metadata: B256::ZERO,
            builder: B256::ZERO,
        }
    }
}
