//! Function selectors of the calls this module encodes and reads: the first four bytes of the
//! Keccak-256 of each function's signature, as they open a [`Call`](super::Call)'s calldata.
//!
//! ```
//! use alloy_primitives::{Address, U256};
//! use polyclob::onchain::{Selector, erc20};
//!
//! let call = erc20::approve(Address::repeat_byte(1), Address::repeat_byte(2), U256::MAX).unwrap();
//! let selector = call.selector().and_then(Selector::of);
//! assert_eq!(selector, Some(Selector::Approve));
//! assert_eq!(Selector::Approve.signature(), "approve(address,uint256)");
//! ```

/// A function of the contracts the crate calls, known by its selector.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Selector {
    /// ERC-20 `approve(address,uint256)`.
    Approve,
    /// ERC-20 `allowance(address,address)`.
    Allowance,
    /// ERC-20 `balanceOf(address)`.
    BalanceOf,
    /// ERC-20 `transfer(address,uint256)`.
    Transfer,
    /// ERC-1155 `setApprovalForAll(address,bool)`.
    SetApprovalForAll,
    /// ERC-1155 `isApprovedForAll(address,address)`.
    IsApprovedForAll,
    /// ERC-1155 `balanceOf(address,uint256)`.
    BalanceOf1155,
    /// ERC-1155 `balanceOfBatch(address[],uint256[])`.
    BalanceOfBatch,
    /// ConditionalTokens `splitPosition(address,bytes32,bytes32,uint256[],uint256)`.
    SplitPosition,
    /// ConditionalTokens `mergePositions(address,bytes32,bytes32,uint256[],uint256)`.
    MergePositions,
    /// ConditionalTokens `redeemPositions(address,bytes32,bytes32,uint256[])`.
    RedeemPositions,
    /// ConditionalTokens `payoutNumerators(bytes32,uint256)`.
    PayoutNumerators,
    /// ConditionalTokens `payoutDenominator(bytes32)`.
    PayoutDenominator,
    /// ConditionalTokens `getOutcomeSlotCount(bytes32)`.
    GetOutcomeSlotCount,
    /// Neg Risk Adapter `convertPositions(bytes32,uint256,uint256)`.
    ConvertPositions,
    /// Neg Risk Adapter `redeemPositions(bytes32,uint256[])`.
    NegRiskRedeem,
    /// Gnosis Safe `execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)`.
    ExecTransaction,
    /// Gnosis Safe `nonce()`.
    SafeNonce,
    /// Polymarket proxy factory `proxy((uint8,address,uint256,bytes)[])`.
    Proxy,
    /// Protocol V2 Router `split(bytes31,uint256)`.
    RouterSplit,
    /// Protocol V2 Router `merge(bytes31,uint256)`.
    RouterMerge,
    /// Protocol V2 Router `redeem(bytes31,uint256,uint256)`.
    RouterRedeem,
    /// Protocol V2 PositionManager `getPayout(uint256,uint256)`.
    GetPayout,
}

impl Selector {
    /// Every selector, in the order the enum lists them.
    pub const ALL: [Self; 23] = [
        Self::Approve,
        Self::Allowance,
        Self::BalanceOf,
        Self::Transfer,
        Self::SetApprovalForAll,
        Self::IsApprovedForAll,
        Self::BalanceOf1155,
        Self::BalanceOfBatch,
        Self::SplitPosition,
        Self::MergePositions,
        Self::RedeemPositions,
        Self::PayoutNumerators,
        Self::PayoutDenominator,
        Self::GetOutcomeSlotCount,
        Self::ConvertPositions,
        Self::NegRiskRedeem,
        Self::ExecTransaction,
        Self::SafeNonce,
        Self::Proxy,
        Self::RouterSplit,
        Self::RouterMerge,
        Self::RouterRedeem,
        Self::GetPayout,
    ];

    /// The four bytes that open the calldata.
    #[must_use]
    pub const fn bytes(self) -> [u8; 4] {
        match self {
            Self::Approve => [0x09, 0x5e, 0xa7, 0xb3],
            Self::Allowance => [0xdd, 0x62, 0xed, 0x3e],
            Self::BalanceOf => [0x70, 0xa0, 0x82, 0x31],
            Self::Transfer => [0xa9, 0x05, 0x9c, 0xbb],
            Self::SetApprovalForAll => [0xa2, 0x2c, 0xb4, 0x65],
            Self::IsApprovedForAll => [0xe9, 0x85, 0xe9, 0xc5],
            Self::BalanceOf1155 => [0x00, 0xfd, 0xd5, 0x8e],
            Self::BalanceOfBatch => [0x4e, 0x12, 0x73, 0xf4],
            Self::SplitPosition => [0x72, 0xce, 0x42, 0x75],
            Self::MergePositions => [0x9e, 0x72, 0x12, 0xad],
            Self::RedeemPositions => [0x01, 0xb7, 0x03, 0x7c],
            Self::PayoutNumerators => [0x05, 0x04, 0xc8, 0x14],
            Self::PayoutDenominator => [0xdd, 0x34, 0xde, 0x67],
            Self::GetOutcomeSlotCount => [0xd4, 0x2d, 0xc0, 0xc2],
            Self::ConvertPositions => [0xc6, 0x47, 0x48, 0xc4],
            Self::NegRiskRedeem => [0xdb, 0xec, 0xcb, 0x23],
            Self::ExecTransaction => [0x6a, 0x76, 0x12, 0x02],
            Self::SafeNonce => [0xaf, 0xfe, 0xd0, 0xe0],
            Self::Proxy => [0x34, 0xee, 0x97, 0x91],
            Self::RouterSplit => [0x82, 0xd3, 0xb9, 0xf1],
            Self::RouterMerge => [0x5b, 0x63, 0x68, 0x5e],
            Self::RouterRedeem => [0xd2, 0x17, 0xa3, 0xcc],
            Self::GetPayout => [0x4c, 0x61, 0x9e, 0x4c],
        }
    }

    /// The function's signature, whose Keccak-256 starts with [`bytes`](Self::bytes).
    #[must_use]
    pub const fn signature(self) -> &'static str {
        match self {
            Self::Approve => "approve(address,uint256)",
            Self::Allowance => "allowance(address,address)",
            Self::BalanceOf => "balanceOf(address)",
            Self::Transfer => "transfer(address,uint256)",
            Self::SetApprovalForAll => "setApprovalForAll(address,bool)",
            Self::IsApprovedForAll => "isApprovedForAll(address,address)",
            Self::BalanceOf1155 => "balanceOf(address,uint256)",
            Self::BalanceOfBatch => "balanceOfBatch(address[],uint256[])",
            Self::SplitPosition => "splitPosition(address,bytes32,bytes32,uint256[],uint256)",
            Self::MergePositions => "mergePositions(address,bytes32,bytes32,uint256[],uint256)",
            Self::RedeemPositions => "redeemPositions(address,bytes32,bytes32,uint256[])",
            Self::PayoutNumerators => "payoutNumerators(bytes32,uint256)",
            Self::PayoutDenominator => "payoutDenominator(bytes32)",
            Self::GetOutcomeSlotCount => "getOutcomeSlotCount(bytes32)",
            Self::ConvertPositions => "convertPositions(bytes32,uint256,uint256)",
            Self::NegRiskRedeem => "redeemPositions(bytes32,uint256[])",
            Self::ExecTransaction => {
                "execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)"
            }
            Self::SafeNonce => "nonce()",
            Self::Proxy => "proxy((uint8,address,uint256,bytes)[])",
            Self::RouterSplit => "split(bytes31,uint256)",
            Self::RouterMerge => "merge(bytes31,uint256)",
            Self::RouterRedeem => "redeem(bytes31,uint256,uint256)",
            Self::GetPayout => "getPayout(uint256,uint256)",
        }
    }

    /// The selector whose bytes are `bytes`, if it is one of these (a [`Call`](super::Call)'s
    /// [`selector`](super::Call::selector)).
    #[must_use]
    pub fn of(bytes: [u8; 4]) -> Option<Self> {
        Self::ALL.into_iter().find(|s| s.bytes() == bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_are_the_hashes_of_their_signatures() {
        for s in Selector::ALL {
            let h = alloy_primitives::keccak256(s.signature().as_bytes());
            assert_eq!(h[..4], s.bytes(), "{}", s.signature());
            assert_eq!(Selector::of(s.bytes()), Some(s));
        }
        assert_eq!(Selector::of([0; 4]), None);
    }
}
