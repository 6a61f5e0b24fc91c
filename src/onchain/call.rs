//! [`Call`]: one contract call (target, value, calldata), and the function selectors used.

use core::fmt;

use alloy_primitives::{Address, U256};

/// One contract call: the target, the native value sent with it, and the ABI calldata.
///
/// Every write in this module is built as a `Call` first, so it can be inspected, sent from an
/// EOA, or wrapped for a Safe or proxy wallet ([`wallet`](super::wallet)).
///
/// ```
/// use alloy_primitives::{Address, U256};
/// use polyclob::onchain::erc20;
///
/// let call = erc20::approve(Address::repeat_byte(1), Address::repeat_byte(2), U256::MAX);
/// assert_eq!(call.to(), Address::repeat_byte(1));
/// assert_eq!(&call.data()[..4], &[0x09, 0x5e, 0xa7, 0xb3]);
/// assert_eq!(call.data().len(), 4 + 64);
/// ```
#[derive(Clone, PartialEq, Eq, Hash)]
pub struct Call {
    to: Address,
    value: U256,
    data: Vec<u8>,
}

impl Call {
    /// A call of `data` on `to`, sending no native value.
    #[must_use]
    pub const fn new(to: Address, data: Vec<u8>) -> Self {
        Self {
            to,
            value: U256::ZERO,
            data,
        }
    }

    /// The same call sending `value` wei of the native token. Default is zero.
    #[must_use]
    pub const fn with_value(mut self, value: U256) -> Self {
        self.value = value;
        self
    }

    /// The contract called.
    #[must_use]
    pub const fn to(&self) -> Address {
        self.to
    }

    /// The native value sent, in wei.
    #[must_use]
    pub const fn value(&self) -> U256 {
        self.value
    }

    /// The calldata: selector and ABI-encoded arguments.
    #[must_use]
    pub fn data(&self) -> &[u8] {
        &self.data
    }

    /// The calldata, consuming the call.
    #[must_use]
    pub fn into_data(self) -> Vec<u8> {
        self.data
    }

    /// The 4-byte function selector, if the calldata has one.
    #[must_use]
    pub fn selector(&self) -> Option<[u8; 4]> {
        self.data.get(..4).and_then(|s| s.try_into().ok())
    }
}

impl fmt::Debug for Call {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Call")
            .field("to", &self.to)
            .field("value", &self.value)
            .field("data", &alloy_primitives::hex::encode_prefixed(&self.data))
            .finish()
    }
}

/// Function selectors: the first four bytes of the Keccak-256 of each signature (checked by
/// the test below and by the eth-abi known answers).
pub(crate) mod sel {
    pub(crate) const APPROVE: [u8; 4] = [0x09, 0x5e, 0xa7, 0xb3];
    pub(crate) const ALLOWANCE: [u8; 4] = [0xdd, 0x62, 0xed, 0x3e];
    pub(crate) const BALANCE_OF: [u8; 4] = [0x70, 0xa0, 0x82, 0x31];
    pub(crate) const TRANSFER: [u8; 4] = [0xa9, 0x05, 0x9c, 0xbb];
    pub(crate) const SET_APPROVAL_FOR_ALL: [u8; 4] = [0xa2, 0x2c, 0xb4, 0x65];
    pub(crate) const IS_APPROVED_FOR_ALL: [u8; 4] = [0xe9, 0x85, 0xe9, 0xc5];
    pub(crate) const BALANCE_OF_1155: [u8; 4] = [0x00, 0xfd, 0xd5, 0x8e];
    pub(crate) const BALANCE_OF_BATCH: [u8; 4] = [0x4e, 0x12, 0x73, 0xf4];
    pub(crate) const SPLIT_POSITION: [u8; 4] = [0x72, 0xce, 0x42, 0x75];
    pub(crate) const MERGE_POSITIONS: [u8; 4] = [0x9e, 0x72, 0x12, 0xad];
    pub(crate) const REDEEM_POSITIONS: [u8; 4] = [0x01, 0xb7, 0x03, 0x7c];
    pub(crate) const PAYOUT_NUMERATORS: [u8; 4] = [0x05, 0x04, 0xc8, 0x14];
    pub(crate) const PAYOUT_DENOMINATOR: [u8; 4] = [0xdd, 0x34, 0xde, 0x67];
    pub(crate) const GET_OUTCOME_SLOT_COUNT: [u8; 4] = [0xd4, 0x2d, 0xc0, 0xc2];
    pub(crate) const CONVERT_POSITIONS: [u8; 4] = [0xc6, 0x47, 0x48, 0xc4];
    pub(crate) const NEG_RISK_REDEEM: [u8; 4] = [0xdb, 0xec, 0xcb, 0x23];
    pub(crate) const EXEC_TRANSACTION: [u8; 4] = [0x6a, 0x76, 0x12, 0x02];
    pub(crate) const SAFE_NONCE: [u8; 4] = [0xaf, 0xfe, 0xd0, 0xe0];
    pub(crate) const PROXY: [u8; 4] = [0x34, 0xee, 0x97, 0x91];
    pub(crate) const ROUTER_SPLIT: [u8; 4] = [0x82, 0xd3, 0xb9, 0xf1];
    pub(crate) const ROUTER_MERGE: [u8; 4] = [0x5b, 0x63, 0x68, 0x5e];
    pub(crate) const ROUTER_REDEEM: [u8; 4] = [0xd2, 0x17, 0xa3, 0xcc];
    pub(crate) const GET_PAYOUT: [u8; 4] = [0x4c, 0x61, 0x9e, 0x4c];

    #[cfg(test)]
    pub(crate) const ALL: &[([u8; 4], &str)] = &[
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
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selectors_are_the_hashes_of_their_signatures() {
        for (selector, signature) in sel::ALL {
            let h = alloy_primitives::keccak256(signature.as_bytes());
            assert_eq!(&h[..4], selector, "{signature}");
        }
    }

    #[test]
    fn accessors_and_debug() {
        let c = Call::new(Address::repeat_byte(3), vec![1, 2, 3, 4, 5]).with_value(U256::from(9u8));
        assert_eq!(c.selector(), Some([1, 2, 3, 4]));
        assert_eq!(c.value(), U256::from(9u8));
        assert!(format!("{c:?}").contains("0x0102030405"));
        assert_eq!(Call::new(Address::ZERO, vec![1]).selector(), None);
    }
}
