//! EIP-1559 (type 2) transactions: RLP encoding, the signing hash, signing with the order
//! path's [`Signer`], and decoding a raw transaction back with its sender.
//!
//! Layout (EIP-1559): `0x02 ‖ rlp([chainId, nonce, maxPriorityFeePerGas, maxFeePerGas, gasLimit,
//! to, value, data, accessList, yParity, r, s])`; the signing hash is the Keccak-256 of the same
//! without the last three fields, and the transaction hash is the Keccak-256 of the signed
//! bytes. The access list is always empty here. Checked against Python `eth-account`
//! (tests/data/onchain_vectors.json).

use core::fmt;

use alloy_primitives::{Address, B256, U256, keccak256};
use alloy_rlp::{Decodable, Encodable, Header};

use super::call::Call;
use crate::sign::eip712::recover_address;
use crate::sign::{SignError, Signature, Signer};

/// The EIP-2718 type byte of an EIP-1559 transaction.
const EIP1559_TYPE: u8 = 0x02;

/// An unsigned EIP-1559 transaction with an empty access list.
///
/// ```
/// use alloy_primitives::{Address, U256};
/// use polyclob::onchain::{Call, Eip1559Tx};
/// use polyclob::sign::Signer;
///
/// let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// let call = Call::new(Address::repeat_byte(1), vec![0xde, 0xad]);
/// let tx = Eip1559Tx::new(137, 0, &call).gas_limit(100_000).fees(50_000_000_000, 30_000_000_000);
/// let signed = tx.sign(&signer)?;
/// let (back, from) = polyclob::onchain::SignedTx::decode(signed.raw())?.into_parts_with_sender()?;
/// assert_eq!(back, tx);
/// assert_eq!(from, signer.address());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct Eip1559Tx {
    /// EIP-155 chain id (137 for Polygon).
    pub chain_id: u64,
    /// The sender's account nonce.
    pub nonce: u64,
    /// Tip per gas for the block producer, in wei.
    pub max_priority_fee_per_gas: u128,
    /// Most the sender pays per gas (base fee + tip), in wei.
    pub max_fee_per_gas: u128,
    /// Gas limit.
    pub gas_limit: u64,
    /// The called contract or recipient (contract creation is not supported).
    pub to: Address,
    /// Native value sent, in wei.
    pub value: U256,
    /// Calldata.
    pub input: Vec<u8>,
}

impl Eip1559Tx {
    /// A transaction carrying `call`, with zero gas and fees (set them before signing).
    #[must_use]
    pub fn new(chain_id: u64, nonce: u64, call: &Call) -> Self {
        Self {
            chain_id,
            nonce,
            max_priority_fee_per_gas: 0,
            max_fee_per_gas: 0,
            gas_limit: 0,
            to: call.to(),
            value: call.value(),
            input: call.data().to_vec(),
        }
    }

    /// Sets the gas limit. Default is 0.
    #[must_use]
    pub const fn gas_limit(mut self, gas: u64) -> Self {
        self.gas_limit = gas;
        self
    }

    /// Sets `maxFeePerGas` and `maxPriorityFeePerGas` (wei). Default is 0 for both.
    #[must_use]
    pub const fn fees(mut self, max_fee_per_gas: u128, max_priority_fee_per_gas: u128) -> Self {
        self.max_fee_per_gas = max_fee_per_gas;
        self.max_priority_fee_per_gas = max_priority_fee_per_gas;
        self
    }

    fn fields_len(&self) -> usize {
        self.chain_id.length()
            + self.nonce.length()
            + self.max_priority_fee_per_gas.length()
            + self.max_fee_per_gas.length()
            + self.gas_limit.length()
            + self.to.as_slice().length()
            + u256_len(&self.value)
            + self.input.as_slice().length()
            + 1 // empty access list: 0xc0
    }

    fn encode_fields(&self, out: &mut Vec<u8>) {
        self.chain_id.encode(out);
        self.nonce.encode(out);
        self.max_priority_fee_per_gas.encode(out);
        self.max_fee_per_gas.encode(out);
        self.gas_limit.encode(out);
        self.to.as_slice().encode(out);
        encode_u256(&self.value, out);
        self.input.as_slice().encode(out);
        out.push(0xc0);
    }

    /// The bytes that are hashed for signing: `0x02 ‖ rlp([…9 fields])`.
    #[must_use]
    pub fn signing_payload(&self) -> Vec<u8> {
        let payload_length = self.fields_len();
        let mut out = Vec::with_capacity(1 + 9 + payload_length);
        out.push(EIP1559_TYPE);
        Header {
            list: true,
            payload_length,
        }
        .encode(&mut out);
        self.encode_fields(&mut out);
        out
    }

    /// The hash the sender signs.
    #[must_use]
    pub fn signing_hash(&self) -> B256 {
        keccak256(self.signing_payload())
    }

    /// Signs with `signer` (RFC 6979, low-s), giving the raw bytes for
    /// `eth_sendRawTransaction`.
    ///
    /// # Errors
    /// A chain id of 0 (a signature valid on no chain) or a tip above the max fee, which
    /// nodes refuse ([`Error::is_invalid_request`](super::Error::is_invalid_request)); a
    /// signing failure, which a valid key does not cause.
    pub fn sign(&self, signer: &Signer) -> Result<SignedTx, super::Error> {
        if self.chain_id == 0 {
            return Err(super::CallError::ZeroId {
                what: "the chain id",
            }
            .into());
        }
        if self.max_priority_fee_per_gas > self.max_fee_per_gas {
            return Err(super::CallError::TipAboveMaxFee {
                tip: self.max_priority_fee_per_gas,
                max_fee: self.max_fee_per_gas,
            }
            .into());
        }
        let sig = signer.sign_prehash(&self.signing_hash().0)?;
        Ok(SignedTx::from_parts(self.clone(), sig))
    }

    /// The most this transaction can cost the sender in fees: `gas_limit × max_fee_per_gas`.
    #[must_use]
    pub fn max_cost(&self) -> U256 {
        (U256::from(self.gas_limit) * U256::from(self.max_fee_per_gas)).saturating_add(self.value)
    }
}

/// A signed EIP-1559 transaction: the raw bytes and their hash.
#[derive(Clone, PartialEq, Eq)]
pub struct SignedTx {
    tx: Eip1559Tx,
    sig: Signature,
    raw: Vec<u8>,
    hash: B256,
}

impl SignedTx {
    fn from_parts(tx: Eip1559Tx, sig: Signature) -> Self {
        let r = U256::from_be_bytes(sig.r());
        let s = U256::from_be_bytes(sig.s());
        let y = u8::from(sig.y_odd());
        let payload_length = tx.fields_len() + y.length() + u256_len(&r) + u256_len(&s);
        let mut raw = Vec::with_capacity(1 + 9 + payload_length);
        raw.push(EIP1559_TYPE);
        Header {
            list: true,
            payload_length,
        }
        .encode(&mut raw);
        tx.encode_fields(&mut raw);
        y.encode(&mut raw);
        encode_u256(&r, &mut raw);
        encode_u256(&s, &mut raw);
        let hash = keccak256(&raw);
        Self { tx, sig, raw, hash }
    }

    /// The transaction.
    #[must_use]
    pub const fn tx(&self) -> &Eip1559Tx {
        &self.tx
    }

    /// The signature (`v` as 27/28; the wire carries the parity 0/1).
    #[must_use]
    pub const fn signature(&self) -> &Signature {
        &self.sig
    }

    /// The raw bytes for `eth_sendRawTransaction`.
    #[must_use]
    pub fn raw(&self) -> &[u8] {
        &self.raw
    }

    /// The transaction hash: `keccak256(raw)`.
    #[must_use]
    pub const fn hash(&self) -> B256 {
        self.hash
    }

    /// The address that signed (public-key recovery over the signing hash).
    ///
    /// # Errors
    /// [`SignError`] when the signature does not recover.
    pub fn recover_sender(&self) -> Result<Address, SignError> {
        recover_address(&self.tx.signing_hash().0, &self.sig)
    }

    /// The transaction and its recovered sender.
    ///
    /// # Errors
    /// As [`recover_sender`](Self::recover_sender).
    pub fn into_parts_with_sender(self) -> Result<(Eip1559Tx, Address), SignError> {
        let from = self.recover_sender()?;
        Ok((self.tx, from))
    }

    /// Decodes raw EIP-1559 transaction bytes (what `eth_sendRawTransaction` carries).
    ///
    /// # Errors
    /// [`TxDecodeError`] for another transaction type, malformed RLP, a non-empty access list,
    /// trailing bytes, or an invalid signature encoding.
    pub fn decode(raw: &[u8]) -> Result<Self, TxDecodeError> {
        let (&ty, mut buf) = raw
            .split_first()
            .ok_or(TxDecodeError("empty transaction"))?;
        if ty != EIP1559_TYPE {
            return Err(TxDecodeError("not an EIP-1559 (type 2) transaction"));
        }
        let header = Header::decode(&mut buf).map_err(|_| TxDecodeError("bad RLP header"))?;
        if !header.list || header.payload_length != buf.len() {
            return Err(TxDecodeError("RLP list length does not match the data"));
        }
        let rlp = |_| TxDecodeError("malformed RLP field");
        let chain_id = u64::decode(&mut buf).map_err(rlp)?;
        let nonce = u64::decode(&mut buf).map_err(rlp)?;
        let max_priority_fee_per_gas = u128::decode(&mut buf).map_err(rlp)?;
        let max_fee_per_gas = u128::decode(&mut buf).map_err(rlp)?;
        let gas_limit = u64::decode(&mut buf).map_err(rlp)?;
        let to = decode_address(&mut buf)?;
        let value = decode_u256(&mut buf)?;
        let input = Header::decode_bytes(&mut buf, false).map_err(rlp)?.to_vec();
        let access = Header::decode(&mut buf).map_err(rlp)?;
        if !access.list || access.payload_length != 0 {
            return Err(TxDecodeError("access lists are not supported"));
        }
        let y = u8::decode(&mut buf).map_err(rlp)?;
        let r = decode_u256(&mut buf)?;
        let s = decode_u256(&mut buf)?;
        if !buf.is_empty() {
            return Err(TxDecodeError("trailing bytes"));
        }
        if y > 1 {
            return Err(TxDecodeError("y parity not 0 or 1"));
        }
        let mut rs = [0u8; 65];
        rs[..32].copy_from_slice(&r.to_be_bytes::<32>());
        rs[32..64].copy_from_slice(&s.to_be_bytes::<32>());
        rs[64] = y;
        let sig = Signature::from_bytes(rs).map_err(|_| TxDecodeError("bad signature"))?;
        let tx = Eip1559Tx {
            chain_id,
            nonce,
            max_priority_fee_per_gas,
            max_fee_per_gas,
            gas_limit,
            to,
            value,
            input,
        };
        let out = Self::from_parts(tx, sig);
        // Non-canonical encodings would re-encode differently; the hash must be of these bytes.
        if out.raw != raw {
            return Err(TxDecodeError("non-canonical encoding"));
        }
        Ok(out)
    }
}

impl fmt::Debug for SignedTx {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SignedTx")
            .field("hash", &self.hash)
            .field("tx", &self.tx)
            .finish_non_exhaustive()
    }
}

// RLP of addresses and 256-bit integers, written here so the feature does not switch on
// alloy-primitives' `rlp` feature (which would rebuild alloy-primitives and everything above
// it in every profile that enables `onchain`).

/// The big-endian bytes of `v` without leading zeros (empty for zero): its RLP string.
fn trimmed(v: &U256) -> ([u8; 32], usize) {
    let b = v.to_be_bytes::<32>();
    let start = b.iter().position(|&x| x != 0).unwrap_or(32);
    (b, start)
}

fn u256_len(v: &U256) -> usize {
    let (b, start) = trimmed(v);
    b[start..].length()
}

fn encode_u256(v: &U256, out: &mut Vec<u8>) {
    let (b, start) = trimmed(v);
    b[start..].encode(out);
}

fn decode_u256(buf: &mut &[u8]) -> Result<U256, TxDecodeError> {
    let b = Header::decode_bytes(buf, false).map_err(|_| TxDecodeError("malformed RLP integer"))?;
    if b.len() > 32 || b.first() == Some(&0) {
        return Err(TxDecodeError("non-canonical RLP integer"));
    }
    Ok(U256::from_be_slice(b))
}

fn decode_address(buf: &mut &[u8]) -> Result<Address, TxDecodeError> {
    let b = Header::decode_bytes(buf, false).map_err(|_| TxDecodeError("malformed RLP `to`"))?;
    Address::try_from(b)
        .map_err(|_| TxDecodeError("`to` is not 20 bytes (creation is not supported)"))
}

/// Raw transaction bytes that are not a well-formed signed EIP-1559 transaction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TxDecodeError(&'static str);

impl TxDecodeError {
    /// What was wrong.
    #[must_use]
    pub const fn what(&self) -> &'static str {
        self.0
    }
}

impl fmt::Display for TxDecodeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "raw transaction: {}", self.0)
    }
}

impl std::error::Error for TxDecodeError {}

#[cfg(test)]
mod tests {
    use super::*;

    const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

    fn sample() -> Eip1559Tx {
        Eip1559Tx::new(
            137,
            7,
            &Call::new(Address::repeat_byte(0x11), vec![1, 2, 3]),
        )
        .gas_limit(21_000)
        .fees(100_000_000_000, 30_000_000_000)
    }

    #[test]
    fn round_trips_and_recovers() {
        let signer = Signer::from_hex(KEY).unwrap();
        let signed = sample().sign(&signer).unwrap();
        let back = SignedTx::decode(signed.raw()).unwrap();
        assert_eq!(back, signed);
        assert_eq!(back.recover_sender().unwrap(), signer.address());
        assert_eq!(back.hash(), keccak256(signed.raw()));
    }

    #[test]
    fn decode_rejects_garbage_without_panicking() {
        let signer = Signer::from_hex(KEY).unwrap();
        let raw = sample().sign(&signer).unwrap().raw().to_vec();
        for cut in 0..raw.len() {
            assert!(SignedTx::decode(&raw[..cut]).is_err(), "prefix {cut}");
        }
        let mut legacy = raw.clone();
        legacy[0] = 0x01;
        assert!(SignedTx::decode(&legacy).is_err());
        let mut extra = raw.clone();
        extra.push(0);
        assert!(SignedTx::decode(&extra).is_err());
        // Flip every byte once: never a panic, and a changed signature never recovers the key.
        for i in 1..raw.len() {
            let mut m = raw.clone();
            m[i] ^= 0x5a;
            if let Ok(tx) = SignedTx::decode(&m) {
                assert_ne!(tx.recover_sender().ok(), Some(signer.address()), "byte {i}");
            }
        }
    }

    #[test]
    fn max_cost() {
        assert_eq!(
            sample().max_cost(),
            U256::from(21_000u64 * 100_000_000_000u64)
        );
    }
}
