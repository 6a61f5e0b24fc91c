//! Sending a [`Call`] as the funds' holder: directly from the EOA, through a Gnosis Safe's
//! `execTransaction`, or through Polymarket's proxy-wallet factory.
//!
//! - **Safe** (browser-wallet accounts, a 1-of-1 Safe owned by the EOA): the owner signs the
//!   Safe's EIP-712 `SafeTx` hash (domain `{chainId, verifyingContract: safe}`, Safe ≥ 1.3) and
//!   any account submits `execTransaction(to, value, data, 0, 0, 0, 0, 0x0, 0x0, r‖s‖v)` to the
//!   Safe; here the EOA itself submits and pays the gas.
//! - **Proxy** (email/Magic accounts): the EOA calls `proxy([(typeCode 1 = CALL, to, value,
//!   data)])` on the proxy-wallet factory, which forwards the calls from the caller's proxy
//!   wallet (Polymarket's proxy-factories contracts; the factory address is the docs' "Polymarket
//!   Proxy Factory").
//!
//! Deposit wallets (POLY_1271) settle through Polymarket's relayer, which is not this module.

use alloy_primitives::{Address, B256, U256, b256, keccak256};

use super::abi::{Value, encode_args, encode_call};
use super::{Call, CallError, Error, Selector, check};
use crate::sign::wallet::PROXY_FACTORY;
use crate::sign::{Signature, Signer};

/// `keccak256("SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)")`.
const SAFE_TX_TYPEHASH: B256 =
    b256!("0xbb8310d486368db6bd6f849402fdd73ad53d316b5a4b2644ad6efe0f941286d8");
/// `keccak256("EIP712Domain(uint256 chainId,address verifyingContract)")` (Safe ≥ 1.3.0).
const SAFE_DOMAIN_TYPEHASH: B256 =
    b256!("0x47e79534a245952e8b16893a336b85a3d9ea9fa8c573f3d803afb92a79469218");

/// The proxy factory's call type for a plain `CALL`.
const PROXY_CALL_TYPE: u8 = 1;

/// The Safe's EIP-712 domain separator.
#[must_use]
fn safe_domain_separator(chain_id: u64, safe: Address) -> B256 {
    keccak256(encode_args(&[
        Value::b256(SAFE_DOMAIN_TYPEHASH),
        Value::small(chain_id),
        Value::address(safe),
    ]))
}

/// The hash a Safe owner signs to execute `call` with the Safe's `nonce` (operation CALL, no
/// gas refund).
///
/// ```
/// use alloy_primitives::{Address, U256};
/// use polyclob::onchain::{Call, wallet::safe_tx_hash};
///
/// let call = Call::new(Address::repeat_byte(1), vec![]);
/// let a = safe_tx_hash(137, Address::repeat_byte(2), &call, U256::ZERO);
/// let b = safe_tx_hash(137, Address::repeat_byte(2), &call, U256::from(1u8));
/// assert_ne!(a, b); // the nonce makes each execution unique
/// ```
#[must_use]
pub fn safe_tx_hash(chain_id: u64, safe: Address, call: &Call, nonce: U256) -> B256 {
    let struct_hash = keccak256(encode_args(&[
        Value::b256(SAFE_TX_TYPEHASH),
        Value::address(call.to()),
        Value::uint(call.value()),
        Value::b256(keccak256(call.data())),
        Value::small(0), // operation: CALL
        Value::small(0), // safeTxGas
        Value::small(0), // baseGas
        Value::small(0), // gasPrice
        Value::address(Address::ZERO),
        Value::address(Address::ZERO),
        Value::uint(nonce),
    ]));
    let mut buf = [0u8; 66];
    buf[0] = 0x19;
    buf[1] = 0x01;
    buf[2..34].copy_from_slice(safe_domain_separator(chain_id, safe).as_slice());
    buf[34..].copy_from_slice(struct_hash.as_slice());
    keccak256(buf)
}

/// `execTransaction(…)` on `safe` running `call` with the owner's `signature` (`r‖s‖v`,
/// `v` = 27/28).
#[must_use]
fn exec_transaction(safe: Address, call: &Call, signature: &Signature) -> Call {
    Call::new(
        safe,
        encode_call(
            Selector::ExecTransaction.bytes(),
            &[
                Value::address(call.to()),
                Value::uint(call.value()),
                Value::Bytes(call.data()),
                Value::small(0),
                Value::small(0),
                Value::small(0),
                Value::small(0),
                Value::address(Address::ZERO),
                Value::address(Address::ZERO),
                Value::Bytes(signature.as_bytes()),
            ],
        ),
    )
}

/// Signs `call` as the Safe's owner and wraps it in `execTransaction`.
///
/// ```
/// use alloy_primitives::{Address, U256};
/// use polyclob::onchain::{Call, wallet::sign_safe_call};
/// use polyclob::sign::Signer;
///
/// let owner = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// let call = Call::new(Address::repeat_byte(1), vec![0xab]);
/// let safe = Address::repeat_byte(2);
/// assert!(sign_safe_call(&owner, 137, safe, &call, U256::ZERO).is_ok());
/// // A signature for chain 0 is valid on no chain: refused, not signed.
/// assert!(sign_safe_call(&owner, 0, safe, &call, U256::ZERO).unwrap_err().is_invalid_request());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Errors
/// A chain id of 0 or a zero Safe address ([`Error::is_invalid_request`]); a signing failure.
pub fn sign_safe_call(
    signer: &Signer,
    chain_id: u64,
    safe: Address,
    call: &Call,
    nonce: U256,
) -> Result<Call, Error> {
    if chain_id == 0 {
        return Err(CallError::ZeroId {
            what: "the chain id",
        }
        .into());
    }
    check::address(safe, "the Safe")?;
    let sig = signer.sign_prehash(&safe_tx_hash(chain_id, safe, call, nonce).0)?;
    Ok(exec_transaction(safe, call, &sig))
}

/// `nonce()` on a Safe (a read): the nonce its next `SafeTx` must carry.
#[must_use]
pub(crate) fn safe_nonce(safe: Address) -> Call {
    Call::new(safe, encode_call(Selector::SafeNonce.bytes(), &[]))
}

/// `proxy([(CALL, to, value, data)…])` on the proxy-wallet factory: the caller's proxy wallet
/// runs `calls` in order.
///
/// ```
/// use alloy_primitives::Address;
/// use polyclob::onchain::{Call, wallet::proxy_calls};
///
/// let wrapped = proxy_calls(&[Call::new(Address::repeat_byte(1), vec![0xab])])?;
/// assert_eq!(wrapped.to(), polyclob::sign::wallet::PROXY_FACTORY);
/// assert_eq!(&wrapped.data()[..4], &[0x34, 0xee, 0x97, 0x91]);
/// assert!(proxy_calls(&[]).is_err());
/// # Ok::<(), polyclob::onchain::CallError>(())
/// ```
///
/// # Errors
/// [`CallError::EmptyBatch`] for no call.
pub fn proxy_calls(calls: &[Call]) -> Result<Call, CallError> {
    if calls.is_empty() {
        return Err(CallError::EmptyBatch);
    }
    let items = calls
        .iter()
        .map(|c| {
            Value::Tuple(vec![
                Value::small(u64::from(PROXY_CALL_TYPE)),
                Value::address(c.to()),
                Value::uint(c.value()),
                Value::Bytes(c.data()),
            ])
        })
        .collect();
    Ok(Call::new(
        PROXY_FACTORY,
        encode_call(Selector::Proxy.bytes(), &[Value::Array(items)]),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typehashes_are_hashes_of_their_types() {
        assert_eq!(
            SAFE_TX_TYPEHASH,
            keccak256(
                "SafeTx(address to,uint256 value,bytes data,uint8 operation,uint256 safeTxGas,uint256 baseGas,uint256 gasPrice,address gasToken,address refundReceiver,uint256 nonce)"
            )
        );
        assert_eq!(
            SAFE_DOMAIN_TYPEHASH,
            keccak256("EIP712Domain(uint256 chainId,address verifyingContract)")
        );
    }

    #[test]
    fn proxy_layout_decodes() {
        let c = proxy_calls(&[
            Call::new(Address::repeat_byte(1), vec![0xab; 3]),
            Call::new(Address::repeat_byte(2), vec![]).with_value(U256::from(5u8)),
        ])
        .unwrap();
        let (_, r) = super::super::abi::split_selector(c.data()).unwrap();
        let items = r.tuples(0).unwrap();
        assert_eq!(items.len(), 2);
        assert_eq!(items[0].small(0).unwrap(), 1);
        assert_eq!(items[0].address(1).unwrap(), Address::repeat_byte(1));
        assert_eq!(items[0].bytes(3).unwrap(), &[0xab; 3]);
        assert_eq!(items[1].uint(2).unwrap(), U256::from(5u8));
        assert!(items[1].bytes(3).unwrap().is_empty());
    }
}
