//! Function selectors of the calls this module encodes and reads: the first four bytes of the
//! Keccak-256 of each function's signature, as they open a [`Call`](super::Call)'s calldata.
//!
//! ```
//! use alloy_primitives::{Address, U256};
//! use polyclob::onchain::{erc20, selector};
//!
//! let call = erc20::approve(Address::repeat_byte(1), Address::repeat_byte(2), U256::MAX).unwrap();
//! assert_eq!(call.selector(), Some(selector::APPROVE));
//! ```

/// ERC-20 `approve(address,uint256)`.
pub const APPROVE: [u8; 4] = [0x09, 0x5e, 0xa7, 0xb3];
/// ERC-20 `allowance(address,address)`.
pub const ALLOWANCE: [u8; 4] = [0xdd, 0x62, 0xed, 0x3e];
/// ERC-20 `balanceOf(address)`.
pub const BALANCE_OF: [u8; 4] = [0x70, 0xa0, 0x82, 0x31];
/// ERC-20 `transfer(address,uint256)`.
pub const TRANSFER: [u8; 4] = [0xa9, 0x05, 0x9c, 0xbb];
/// ERC-1155 `setApprovalForAll(address,bool)`.
pub const SET_APPROVAL_FOR_ALL: [u8; 4] = [0xa2, 0x2c, 0xb4, 0x65];
/// ERC-1155 `isApprovedForAll(address,address)`.
pub const IS_APPROVED_FOR_ALL: [u8; 4] = [0xe9, 0x85, 0xe9, 0xc5];
/// ERC-1155 `balanceOf(address,uint256)`.
pub const BALANCE_OF_1155: [u8; 4] = [0x00, 0xfd, 0xd5, 0x8e];
/// ERC-1155 `balanceOfBatch(address[],uint256[])`.
pub const BALANCE_OF_BATCH: [u8; 4] = [0x4e, 0x12, 0x73, 0xf4];
/// ConditionalTokens `splitPosition(address,bytes32,bytes32,uint256[],uint256)`.
pub const SPLIT_POSITION: [u8; 4] = [0x72, 0xce, 0x42, 0x75];
/// ConditionalTokens `mergePositions(address,bytes32,bytes32,uint256[],uint256)`.
pub const MERGE_POSITIONS: [u8; 4] = [0x9e, 0x72, 0x12, 0xad];
/// ConditionalTokens `redeemPositions(address,bytes32,bytes32,uint256[])`.
pub const REDEEM_POSITIONS: [u8; 4] = [0x01, 0xb7, 0x03, 0x7c];
/// ConditionalTokens `payoutNumerators(bytes32,uint256)`.
pub const PAYOUT_NUMERATORS: [u8; 4] = [0x05, 0x04, 0xc8, 0x14];
/// ConditionalTokens `payoutDenominator(bytes32)`.
pub const PAYOUT_DENOMINATOR: [u8; 4] = [0xdd, 0x34, 0xde, 0x67];
/// ConditionalTokens `getOutcomeSlotCount(bytes32)`.
pub const GET_OUTCOME_SLOT_COUNT: [u8; 4] = [0xd4, 0x2d, 0xc0, 0xc2];
/// Neg Risk Adapter `convertPositions(bytes32,uint256,uint256)`.
pub const CONVERT_POSITIONS: [u8; 4] = [0xc6, 0x47, 0x48, 0xc4];
/// Neg Risk Adapter `redeemPositions(bytes32,uint256[])`.
pub const NEG_RISK_REDEEM: [u8; 4] = [0xdb, 0xec, 0xcb, 0x23];
/// Gnosis Safe `execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)`.
pub const EXEC_TRANSACTION: [u8; 4] = [0x6a, 0x76, 0x12, 0x02];
/// Gnosis Safe `nonce()`.
pub const SAFE_NONCE: [u8; 4] = [0xaf, 0xfe, 0xd0, 0xe0];
/// Polymarket proxy factory `proxy((uint8,address,uint256,bytes)[])`.
pub const PROXY: [u8; 4] = [0x34, 0xee, 0x97, 0x91];
/// Protocol V2 Router `split(bytes31,uint256)`.
pub const ROUTER_SPLIT: [u8; 4] = [0x82, 0xd3, 0xb9, 0xf1];
/// Protocol V2 Router `merge(bytes31,uint256)`.
pub const ROUTER_MERGE: [u8; 4] = [0x5b, 0x63, 0x68, 0x5e];
/// Protocol V2 Router `redeem(bytes31,uint256,uint256)`.
pub const ROUTER_REDEEM: [u8; 4] = [0xd2, 0x17, 0xa3, 0xcc];
/// Protocol V2 PositionManager `getPayout(uint256,uint256)`.
pub const GET_PAYOUT: [u8; 4] = [0x4c, 0x61, 0x9e, 0x4c];

#[cfg(test)]
mod tests {
    use super::*;

    /// Every selector against the hash of its signature.
    const ALL: &[([u8; 4], &str)] = &[
        (APPROVE, "approve(address,uint256)"),
        (ALLOWANCE, "allowance(address,address)"),
        (BALANCE_OF, "balanceOf(address)"),
        (TRANSFER, "transfer(address,uint256)"),
        (SET_APPROVAL_FOR_ALL, "setApprovalForAll(address,bool)"),
        (IS_APPROVED_FOR_ALL, "isApprovedForAll(address,address)"),
        (BALANCE_OF_1155, "balanceOf(address,uint256)"),
        (BALANCE_OF_BATCH, "balanceOfBatch(address[],uint256[])"),
        (
            SPLIT_POSITION,
            "splitPosition(address,bytes32,bytes32,uint256[],uint256)",
        ),
        (
            MERGE_POSITIONS,
            "mergePositions(address,bytes32,bytes32,uint256[],uint256)",
        ),
        (
            REDEEM_POSITIONS,
            "redeemPositions(address,bytes32,bytes32,uint256[])",
        ),
        (PAYOUT_NUMERATORS, "payoutNumerators(bytes32,uint256)"),
        (PAYOUT_DENOMINATOR, "payoutDenominator(bytes32)"),
        (GET_OUTCOME_SLOT_COUNT, "getOutcomeSlotCount(bytes32)"),
        (
            CONVERT_POSITIONS,
            "convertPositions(bytes32,uint256,uint256)",
        ),
        (NEG_RISK_REDEEM, "redeemPositions(bytes32,uint256[])"),
        (
            EXEC_TRANSACTION,
            "execTransaction(address,uint256,bytes,uint8,uint256,uint256,uint256,address,address,bytes)",
        ),
        (SAFE_NONCE, "nonce()"),
        (PROXY, "proxy((uint8,address,uint256,bytes)[])"),
        (ROUTER_SPLIT, "split(bytes31,uint256)"),
        (ROUTER_MERGE, "merge(bytes31,uint256)"),
        (ROUTER_REDEEM, "redeem(bytes31,uint256,uint256)"),
        (GET_PAYOUT, "getPayout(uint256,uint256)"),
    ];

    #[test]
    fn selectors_are_the_hashes_of_their_signatures() {
        for (selector, signature) in ALL {
            let h = alloy_primitives::keccak256(signature.as_bytes());
            assert_eq!(&h[..4], selector, "{signature}");
        }
    }
}
