//! [`CallError`]: the argument checks of the calldata and transaction builders, so a call the
//! contract would revert or the official clients refuse is refused before anything is signed
//! or any gas is spent, with the argument named. The same rules hold on the CTF and the
//! Protocol V2 paths: a zero amount, the zero address, a zero condition; a CTF partition of
//! fewer than two sets (ConditionalTokens: "got empty or singleton partition"), an empty,
//! zero or overlapping index set; a V2 condition whose module byte is none of the V2 modules,
//! an outcome other than 0 or 1; a neg-risk redemption of other than two amounts, a
//! conversion whose index set names a question beyond the market's (NegRiskAdapter:
//! `InvalidIndexSet`, `NoConvertiblePositions`); a transaction or Safe signature for chain 0,
//! a tip above the max fee; an empty proxy batch.

use core::fmt;

use alloy_primitives::{Address, B256, U256};

use crate::types::{ConditionId, Protocol};

/// Arguments a calldata builder refuses; nothing was encoded or sent.
///
/// ```
/// use alloy_primitives::{Address, B256, U256};
/// use polyclob::onchain::{CallError, ctf};
///
/// let overlapping = [U256::from(1u8), U256::from(3u8)]; // both hold outcome 0
/// let e = ctf::split_position(
///     Address::repeat_byte(0xad), Address::repeat_byte(0xc0), B256::ZERO,
///     B256::repeat_byte(7), &overlapping, U256::from(1_000_000u64),
/// ).unwrap_err();
/// assert_eq!(e, CallError::OverlappingPartition { first: U256::from(1u8), second: U256::from(3u8) });
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum CallError {
    /// An address argument is the zero address.
    ZeroAddress {
        /// Which argument.
        what: &'static str,
    },
    /// An amount that must move something is zero.
    ZeroAmount {
        /// Which argument.
        what: &'static str,
    },
    /// A partition or list of index sets with no element.
    EmptyPartition,
    /// An index set of zero (it names no outcome).
    ZeroIndexSet,
    /// Two index sets of a partition share an outcome.
    OverlappingPartition {
        /// The earlier index set.
        first: U256,
        /// The later one, sharing a bit with `first`.
        second: U256,
    },
    /// A split or merge partition of one index set (ConditionalTokens reverts: "got empty or
    /// singleton partition").
    SingletonPartition,
    /// An id that names nothing is zero (a condition, a neg-risk market, a chain).
    ZeroId {
        /// Which argument.
        what: &'static str,
    },
    /// A condition of the other protocol: the Router takes V2 (`bytes31`) conditions, the
    /// ConditionalTokens calls CTF ones.
    WrongProtocol {
        /// The protocol the call takes.
        expected: Protocol,
    },
    /// A V2 condition whose module byte (its first) is none of the V2 modules (1 binary,
    /// 2 neg-risk, 3 combinatorial, 4 directional): no position of it exists.
    UnknownModule {
        /// The module byte.
        module: u8,
    },
    /// An outcome index other than 0 (YES) or 1 (NO).
    OutcomeIndex {
        /// The index given.
        outcome: u8,
    },
    /// A list of the wrong length (a neg-risk redemption takes `[yes, no]`).
    Length {
        /// Which argument.
        what: &'static str,
        /// The length the call takes.
        expected: usize,
        /// The length given.
        got: usize,
    },
    /// A neg-risk conversion on a market of fewer than two questions (the adapter reverts
    /// `NoConvertiblePositions`).
    TooFewQuestions {
        /// The market's question count.
        questions: u8,
    },
    /// A neg-risk index set naming a question at or beyond the market's question count (the
    /// adapter reverts `InvalidIndexSet`).
    IndexSetBeyondQuestions {
        /// The index set.
        index_set: U256,
        /// The market's question count.
        questions: u8,
    },
    /// A transaction whose tip (`maxPriorityFeePerGas`) is above its `maxFeePerGas` (nodes
    /// refuse it).
    TipAboveMaxFee {
        /// The tip, in wei.
        tip: u128,
        /// The max fee, in wei.
        max_fee: u128,
    },
    /// A batch with no call in it.
    EmptyBatch,
}

impl fmt::Display for CallError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::ZeroAddress { what } => write!(f, "{what} is the zero address"),
            Self::ZeroAmount { what } => write!(f, "{what} is zero"),
            Self::EmptyPartition => f.write_str("the partition (index sets) is empty"),
            Self::ZeroIndexSet => f.write_str("an index set is 0 (it names no outcome)"),
            Self::OverlappingPartition { first, second } => write!(
                f,
                "index sets {first:#x} and {second:#x} overlap (a partition's sets are disjoint)"
            ),
            Self::SingletonPartition => {
                f.write_str("the partition has one index set; a split or merge needs at least two")
            }
            Self::ZeroId { what } => write!(f, "{what} is zero"),
            Self::WrongProtocol { expected } => match expected {
                Protocol::V2 => f.write_str(
                    "the condition is a CTF (bytes32) one; this call takes a Protocol V2 \
                     (bytes31) condition (CTF conditions settle through the collateral adapters)",
                ),
                _ => f.write_str(
                    "the condition is a Protocol V2 (bytes31) one; this call takes a CTF \
                     (bytes32) condition (V2 conditions settle through the Router)",
                ),
            },
            Self::UnknownModule { module } => write!(
                f,
                "the condition's module byte {module:#04x} is not a Protocol V2 module (1-4)"
            ),
            Self::OutcomeIndex { outcome } => {
                write!(f, "outcome index {outcome} is not 0 (YES) or 1 (NO)")
            }
            Self::Length {
                what,
                expected,
                got,
            } => write!(f, "{what} has {got} entries; the call takes {expected}"),
            Self::TooFewQuestions { questions } => write!(
                f,
                "the neg-risk market has {questions} question(s); converting needs at least two"
            ),
            Self::IndexSetBeyondQuestions {
                index_set,
                questions,
            } => write!(
                f,
                "index set {index_set:#x} names a question beyond the market's {questions}"
            ),
            Self::TipAboveMaxFee { tip, max_fee } => write!(
                f,
                "the tip of {tip} wei is above the max fee of {max_fee} wei"
            ),
            Self::EmptyBatch => f.write_str("the batch holds no call"),
        }
    }
}

impl std::error::Error for CallError {}

pub(crate) fn address(a: Address, what: &'static str) -> Result<(), CallError> {
    if a == Address::ZERO {
        return Err(CallError::ZeroAddress { what });
    }
    Ok(())
}

pub(crate) fn amount(a: U256, what: &'static str) -> Result<(), CallError> {
    if a.is_zero() {
        return Err(CallError::ZeroAmount { what });
    }
    Ok(())
}

pub(crate) fn id(v: B256, what: &'static str) -> Result<(), CallError> {
    if v.is_zero() {
        return Err(CallError::ZeroId { what });
    }
    Ok(())
}

/// The `bytes31` word of a V2 condition: V2, of a known module.
pub(crate) fn v2_condition(c: ConditionId) -> Result<B256, CallError> {
    match c.module_id() {
        None => Err(CallError::WrongProtocol {
            expected: Protocol::V2,
        }),
        Some(m) if !crate::types::is_module(m) => Err(CallError::UnknownModule { module: m }),
        Some(_) => Ok(B256::from(*c.as_bytes32())),
    }
}

pub(crate) fn outcome(outcome: u8) -> Result<(), CallError> {
    if outcome > 1 {
        return Err(CallError::OutcomeIndex { outcome });
    }
    Ok(())
}

/// A split or merge partition: at least two sets, then as [`partition`].
pub(crate) fn split_partition(sets: &[U256]) -> Result<(), CallError> {
    if sets.len() == 1 {
        return Err(CallError::SingletonPartition);
    }
    partition(sets)
}

/// Non-empty, no zero set, pairwise disjoint (quadratic: partitions have a few sets).
pub(crate) fn partition(sets: &[U256]) -> Result<(), CallError> {
    if sets.is_empty() {
        return Err(CallError::EmptyPartition);
    }
    for (i, a) in sets.iter().enumerate() {
        if a.is_zero() {
            return Err(CallError::ZeroIndexSet);
        }
        if let Some(b) = sets[..i].iter().find(|b| !(**b & *a).is_zero()) {
            return Err(CallError::OverlappingPartition {
                first: *b,
                second: *a,
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn partitions() {
        let u = |v: u64| U256::from(v);
        assert_eq!(partition(&[u(1), u(2)]), Ok(()));
        assert_eq!(partition(&[u(1), u(2), u(4)]), Ok(()));
        assert_eq!(partition(&[u(3), u(4)]), Ok(()));
        assert_eq!(partition(&[]), Err(CallError::EmptyPartition));
        assert_eq!(partition(&[u(1), u(0)]), Err(CallError::ZeroIndexSet));
        assert_eq!(
            partition(&[u(1), u(2), u(6)]),
            Err(CallError::OverlappingPartition {
                first: u(2),
                second: u(6)
            })
        );
        assert_eq!(
            partition(&[u(5), u(5)]),
            Err(CallError::OverlappingPartition {
                first: u(5),
                second: u(5)
            })
        );
        assert!(address(Address::ZERO, "spender").is_err());
        assert_eq!(
            amount(U256::ZERO, "amount").unwrap_err().to_string(),
            "amount is zero"
        );
    }
}
