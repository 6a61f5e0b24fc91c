//! EIP-712 for the exchange orders and ClobAuth: type hashes, precomputed domain separators,
//! struct hashing hand-encoded into stack buffers, and signature recovery.
//!
//! Facts: <https://docs.polymarket.com/v2-migration>.
//! Every constant here is checked against `keccak256` of its definition in the tests.

use alloy_primitives::{Address, B256, U256, b256};

use super::keccak::{eip712_hash, keccak256};

use super::{SignError, Signature};
use crate::types::Order;
use crate::types::{Chain, ExchangeVersion};

/// `Order` type string of the V1 exchange (12 fields).
pub const ORDER_V1_TYPE: &str = "Order(uint256 salt,address maker,address signer,address taker,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint256 expiration,uint256 nonce,uint256 feeRateBps,uint8 side,uint8 signatureType)";
/// `Order` type string of the V2 and V3 exchanges (11 fields).
pub const ORDER_V2_TYPE: &str = "Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)";
/// ERC-7739 `TypedDataSign` type string wrapping a V2 order (POLY_1271 deposit wallets).
pub const TYPED_DATA_SIGN_TYPE: &str = "TypedDataSign(Order contents,string name,string version,uint256 chainId,address verifyingContract,bytes32 salt)Order(uint256 salt,address maker,address signer,uint256 tokenId,uint256 makerAmount,uint256 takerAmount,uint8 side,uint8 signatureType,uint256 timestamp,bytes32 metadata,bytes32 builder)";
/// `ClobAuth` type string (L1 authentication).
pub const CLOB_AUTH_TYPE: &str =
    "ClobAuth(address address,string timestamp,uint256 nonce,string message)";
/// The fixed ClobAuth message (signed as its hash, [`CLOB_AUTH_MESSAGE_HASH`]).
#[cfg(test)]
const CLOB_AUTH_MESSAGE: &str = "This message attests that I control the given wallet";

/// `keccak256(ORDER_V1_TYPE)`.
pub const ORDER_V1_TYPEHASH: B256 =
    b256!("0xa852566c4e14d00869b6db0220888a9090a13eccdaea03713ff0a3d27bf9767c");
/// `keccak256(ORDER_V2_TYPE)`.
pub const ORDER_V2_TYPEHASH: B256 =
    b256!("0xbb86318a2138f5fa8ae32fbe8e659f8fcf13cc6ae4014a707893055433818589");
/// `keccak256("EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)")`.
pub const DOMAIN_TYPEHASH: B256 =
    b256!("0x8b73c3c69bb8fe3d512ecc4cf759cc79239f7b179b0ffacaa9a75d522b39400f");
/// `keccak256("EIP712Domain(string name,string version,uint256 chainId)")` (ClobAuth's domain).
pub const CLOB_AUTH_DOMAIN_TYPEHASH: B256 =
    b256!("0xc2f8787176b8ac6bf7215b4adcc1e069bf4ab82d9ab1df05a57a91d425935b6e");
/// `keccak256(CLOB_AUTH_TYPE)`.
pub const CLOB_AUTH_TYPEHASH: B256 =
    b256!("0x52578c5c725a28a84fedc8c22aa47947822942f35b4dc350db028e45320e035c");
/// `keccak256(TYPED_DATA_SIGN_TYPE)`.
const TYPED_DATA_SIGN_TYPEHASH: B256 =
    b256!("0x6ba028565cb324c2aa02bb714b9816d0bddd557a2f33bb36cf13272a4256bd42");

/// `keccak256("Polymarket CTF Exchange")`.
const EXCHANGE_NAME_HASH: B256 =
    b256!("0xf30041e9aac4c4d3a1481d2941dfb0a844a72040e9bbc79a810d1ec5b5d6c7af");
/// `keccak256("ClobAuthDomain")`.
const CLOB_AUTH_NAME_HASH: B256 =
    b256!("0x64feabfd0e91bed17f4270585553ca8456298e8f507363a4b725be4e4da29810");
/// `keccak256("1")`, `keccak256("2")`, `keccak256("3")`.
const VERSION_1_HASH: B256 =
    b256!("0xc89efdaa54c0f20c7adf612882df0950f5a951637e0307cdcb4c672f298b8bc6");
const VERSION_2_HASH: B256 =
    b256!("0xad7c5bef027816a800da1736444fb58a807ef4c9603b7848673f7e3a68eb14a5");
const VERSION_3_HASH: B256 =
    b256!("0x2a80e1ef1d7842f27f2e6be0972bb708b9a135c38860dbe73c27c3486c34f4de");
/// `keccak256(CLOB_AUTH_MESSAGE)`.
const CLOB_AUTH_MESSAGE_HASH: B256 =
    b256!("0x474924bb27022542020023b4a52fb834ca5e3dd70b9a4d7e7fe9ca13228cbda3");
/// `keccak256("DepositWallet")`: the ERC-7739 app name of POLY_1271 deposit wallets.
const DEPOSIT_WALLET_NAME_HASH: B256 =
    b256!("0xd682b529a17cda19aa275f3a050608f9e9401fadd1b0d233d81519972295828b");

// Domain separators for every (chain, version, exchange) of `types::contracts`, computed once
// here (the tests recompute each from the table).
const POLYGON_V1: B256 =
    b256!("0x1a573e3617c78403b5b4b892827992f027b03d4eaf570048b8ee8cdd84d151be");
const POLYGON_V1_NEG_RISK: B256 =
    b256!("0x82cb6aa85babb812f4b521a12b10f0cbc68d2b44be7bc02c047004f544adb49f");
const POLYGON_V2: B256 =
    b256!("0x3264e159346253e26a64e00b69032db0e7d32f94628de3e6eecb50304d7af3d2");
const POLYGON_V2_NEG_RISK: B256 =
    b256!("0x9b858f53327b0bd13af8ec14cfb35234fb9eb7b0504d1a4e61f433840d30e81a");
const POLYGON_V3: B256 =
    b256!("0x466c63910185bbd55e8679264200c4e0abdcbb0c6264eb3d41d13326022e095b");
const AMOY_V1: B256 = b256!("0x44b180a7e548e2d916b5410176db13a07744966f9b6c93c4bccdabebbcdfca93");
// Amoy V1 neg-risk: the current official clients' exchange `0xC5d5…f80a` (the contract
// table's note on Amoy V1 says why not py-clob-client 0.34's `0xd91E…5296`).
const AMOY_V1_NEG_RISK: B256 =
    b256!("0x9fa10822e4b86fd1eed68ea1c2628e0ee9a6c523cb2570592768432cfdb09bf1");
const AMOY_V2: B256 = b256!("0xa440cbd865bc0c6243d7a8df9a8bf48a8827b0a4abbb61c30e96d305423af148");
const AMOY_V2_NEG_RISK: B256 =
    b256!("0x1468e39841f0a0e05d3762b235cb7acecabf8cd7b6d3a672965a5d415bf9378e");
const AMOY_V3: B256 = b256!("0xdf8b5fd204134b8d562677d7fc9346884e8f02ef2fd43358239393723e8833e6");
const CLOB_AUTH_POLYGON: B256 =
    b256!("0xcfc66be2a3b30464cb3b588324101f660c9a205fa76e8e5f83ee16a528e1c4cb");
const CLOB_AUTH_AMOY: B256 =
    b256!("0xa1df8f4e3112eaee2448fbec9ab79f68278407e49d9cf52e3dd3d9692fcac9b6");

const fn version_hash(version: ExchangeVersion) -> B256 {
    match version {
        ExchangeVersion::V1 => VERSION_1_HASH,
        ExchangeVersion::V2 => VERSION_2_HASH,
        ExchangeVersion::V3 => VERSION_3_HASH,
    }
}

#[inline]
fn put_u64(word: &mut [u8], v: u64) {
    word[..24].fill(0);
    word[24..32].copy_from_slice(&v.to_be_bytes());
}

#[inline]
fn put_address(word: &mut [u8], a: &Address) {
    word[..12].fill(0);
    word[12..32].copy_from_slice(a.as_slice());
}

/// An exchange domain separator computed from its parts (used for tables and custom domains).
///
/// ```
/// use polyclob::sign::eip712::{compute_exchange_domain, exchange_domain};
/// use polyclob::types::{Chain, ExchangeVersion, contracts};
///
/// let c = contracts(Chain::Polygon, ExchangeVersion::V2);
/// assert_eq!(
///     compute_exchange_domain(ExchangeVersion::V2, 137, c.exchange),
///     exchange_domain(Chain::Polygon, ExchangeVersion::V2, false),
/// );
/// ```
#[must_use]
pub fn compute_exchange_domain(
    version: ExchangeVersion,
    chain_id: u64,
    verifying_contract: Address,
) -> B256 {
    let mut buf = [0u8; 160];
    buf[..32].copy_from_slice(DOMAIN_TYPEHASH.as_slice());
    buf[32..64].copy_from_slice(EXCHANGE_NAME_HASH.as_slice());
    buf[64..96].copy_from_slice(version_hash(version).as_slice());
    put_u64(&mut buf[96..128], chain_id);
    put_address(&mut buf[128..160], &verifying_contract);
    keccak256(&buf)
}

/// The precomputed domain separator of the exchange that settles an order: version,
/// chain, and the neg-risk exchange when `neg_risk` (ignored on V3, which has one exchange).
#[must_use]
pub const fn exchange_domain(chain: Chain, version: ExchangeVersion, neg_risk: bool) -> B256 {
    match (chain, version, neg_risk) {
        (Chain::Polygon, ExchangeVersion::V1, false) => POLYGON_V1,
        (Chain::Polygon, ExchangeVersion::V1, true) => POLYGON_V1_NEG_RISK,
        (Chain::Polygon, ExchangeVersion::V2, false) => POLYGON_V2,
        (Chain::Polygon, ExchangeVersion::V2, true) => POLYGON_V2_NEG_RISK,
        (Chain::Polygon, ExchangeVersion::V3, _) => POLYGON_V3,
        (Chain::Amoy, ExchangeVersion::V1, false) => AMOY_V1,
        (Chain::Amoy, ExchangeVersion::V1, true) => AMOY_V1_NEG_RISK,
        (Chain::Amoy, ExchangeVersion::V2, false) => AMOY_V2,
        (Chain::Amoy, ExchangeVersion::V2, true) => AMOY_V2_NEG_RISK,
        (Chain::Amoy, ExchangeVersion::V3, _) => AMOY_V3,
    }
}

/// The ClobAuth domain separator (`name="ClobAuthDomain"`, `version="1"`, no verifying
/// contract) for a chain id; precomputed for Polygon and Amoy.
#[must_use]
pub fn clob_auth_domain(chain_id: u64) -> B256 {
    match chain_id {
        137 => CLOB_AUTH_POLYGON,
        80002 => CLOB_AUTH_AMOY,
        _ => {
            let mut buf = [0u8; 128];
            buf[..32].copy_from_slice(CLOB_AUTH_DOMAIN_TYPEHASH.as_slice());
            buf[32..64].copy_from_slice(CLOB_AUTH_NAME_HASH.as_slice());
            buf[64..96].copy_from_slice(VERSION_1_HASH.as_slice());
            put_u64(&mut buf[96..128], chain_id);
            keccak256(&buf)
        }
    }
}

/// `hashStruct(Order)` for the order's generation: 12 words for V1, 11 for V2/V3, encoded by
/// hand into a stack buffer.
#[must_use]
pub fn order_struct_hash(order: &Order) -> B256 {
    with_order_encoding(order, keccak256)
}

/// Calls `f` with `typeHash ‖ encodeData(order)` for the order's generation, encoded by hand
/// into a stack buffer.
#[inline]
fn with_order_encoding<R>(order: &Order, f: impl FnOnce(&[u8]) -> R) -> R {
    match order.version {
        ExchangeVersion::V1 => {
            let mut buf = [0u8; 13 * 32];
            buf[..32].copy_from_slice(ORDER_V1_TYPEHASH.as_slice());
            put_u64(&mut buf[32..64], order.salt);
            put_address(&mut buf[64..96], &order.maker);
            put_address(&mut buf[96..128], &order.signer);
            put_address(&mut buf[128..160], &order.taker);
            buf[160..192].copy_from_slice(&order.token_id.as_u256().to_be_bytes::<32>());
            put_u64(&mut buf[192..224], order.maker_amount);
            put_u64(&mut buf[224..256], order.taker_amount);
            put_u64(&mut buf[256..288], order.expiration);
            put_u64(&mut buf[288..320], order.nonce);
            put_u64(&mut buf[320..352], order.fee_rate_bps);
            put_u64(&mut buf[352..384], u64::from(order.side.as_u8()));
            put_u64(&mut buf[384..416], u64::from(order.signature_type.as_u8()));
            f(&buf)
        }
        ExchangeVersion::V2 | ExchangeVersion::V3 => {
            let mut buf = [0u8; 12 * 32];
            buf[..32].copy_from_slice(ORDER_V2_TYPEHASH.as_slice());
            put_u64(&mut buf[32..64], order.salt);
            put_address(&mut buf[64..96], &order.maker);
            put_address(&mut buf[96..128], &order.signer);
            buf[128..160].copy_from_slice(&order.token_id.as_u256().to_be_bytes::<32>());
            put_u64(&mut buf[160..192], order.maker_amount);
            put_u64(&mut buf[192..224], order.taker_amount);
            put_u64(&mut buf[224..256], u64::from(order.side.as_u8()));
            put_u64(&mut buf[256..288], u64::from(order.signature_type.as_u8()));
            put_u64(&mut buf[288..320], order.timestamp_ms);
            buf[320..352].copy_from_slice(order.metadata.as_slice());
            buf[352..384].copy_from_slice(order.builder.as_slice());
            f(&buf)
        }
    }
}

/// The EIP-712 signing hash `keccak256(0x19 0x01 ‖ domain ‖ struct_hash)`.
///
/// For an order this is also the exchange's order hash (the `orderID` the CLOB returns).
#[must_use]
pub fn signing_hash(domain_separator: &B256, struct_hash: &B256) -> B256 {
    let mut buf = [0u8; 66];
    buf[0] = 0x19;
    buf[1] = 0x01;
    buf[2..34].copy_from_slice(domain_separator.as_slice());
    buf[34..66].copy_from_slice(struct_hash.as_slice());
    keccak256(&buf)
}

/// The order hash: the signing hash of `order` under `domain_separator`.
#[must_use]
pub fn order_hash(domain_separator: &B256, order: &Order) -> B256 {
    with_order_encoding(order, |encoded| eip712_hash(domain_separator, encoded))
}

/// `hashStruct(ClobAuth)` for an address, a timestamp (unix seconds, hashed as its decimal
/// string) and a nonce.
#[must_use]
pub fn clob_auth_struct_hash(address: Address, timestamp_secs: u64, nonce: U256) -> B256 {
    let mut digits = [0u8; 20];
    let ts = write_u64_decimal(timestamp_secs, &mut digits);
    let mut buf = [0u8; 160];
    buf[..32].copy_from_slice(CLOB_AUTH_TYPEHASH.as_slice());
    put_address(&mut buf[32..64], &address);
    buf[64..96].copy_from_slice(keccak256(ts).as_slice());
    buf[96..128].copy_from_slice(&nonce.to_be_bytes::<32>());
    buf[128..160].copy_from_slice(CLOB_AUTH_MESSAGE_HASH.as_slice());
    keccak256(&buf)
}

/// The ERC-7739 `TypedDataSign` struct hash a deposit-wallet owner signs for a V2/V3 order
/// (`name="DepositWallet"`, `version="1"`, `verifyingContract` = the deposit wallet, zero salt).
#[must_use]
pub fn typed_data_sign_struct_hash(
    order_struct_hash: &B256,
    chain_id: u64,
    deposit_wallet: Address,
) -> B256 {
    let mut buf = [0u8; 7 * 32];
    buf[..32].copy_from_slice(TYPED_DATA_SIGN_TYPEHASH.as_slice());
    buf[32..64].copy_from_slice(order_struct_hash.as_slice());
    buf[64..96].copy_from_slice(DEPOSIT_WALLET_NAME_HASH.as_slice());
    buf[96..128].copy_from_slice(VERSION_1_HASH.as_slice());
    put_u64(&mut buf[128..160], chain_id);
    put_address(&mut buf[160..192], &deposit_wallet);
    // bytes32 salt = 0: already zero.
    keccak256(&buf)
}

/// `"00"`, `"01"`, …, `"99"`: two decimal digits per table entry.
const DIGIT_PAIRS: [u8; 200] = {
    let mut t = [0u8; 200];
    let mut i = 0;
    while i < 100 {
        t[2 * i] = b'0' + (i / 10) as u8;
        t[2 * i + 1] = b'0' + (i % 10) as u8;
        i += 1;
    }
    t
};

/// Writes `v` in decimal into `buf`, returning the digits.
///
/// Two digits per division: the salt (16 digits) and the millisecond timestamp (13) are a
/// dependent chain of divisions, so halving the chain halves their cost.
pub(crate) fn write_u64_decimal(mut v: u64, buf: &mut [u8; 20]) -> &[u8] {
    let mut i = buf.len();
    while v >= 100 {
        // v % 100 < 100, so the index is in the table.
        let pair = 2 * (v % 100) as usize;
        v /= 100;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    }
    if v >= 10 {
        let pair = 2 * v as usize;
        i -= 2;
        buf[i..i + 2].copy_from_slice(&DIGIT_PAIRS[pair..pair + 2]);
    } else {
        i -= 1;
        buf[i] = b'0' + v as u8;
    }
    &buf[i..]
}

/// The address that produced `sig` over `digest` (ECDSA public-key recovery).
///
/// The offline exchange simulator uses it to check order and ClobAuth signatures.
///
/// # Errors
/// [`SignError::InvalidSignature`] when `r`/`s` are not valid scalars;
/// [`SignError::RecoveryFailed`] when no public key matches.
///
/// ```
/// use polyclob::sign::{Signer, eip712::recover_address};
///
/// let signer = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
/// let digest = [0x42u8; 32];
/// let sig = signer.sign_prehash(&digest)?;
/// assert_eq!(recover_address(&digest, &sig)?, signer.address());
/// # Ok::<(), polyclob::sign::SignError>(())
/// ```
pub fn recover_address(digest: &[u8; 32], sig: &Signature) -> Result<Address, SignError> {
    super::ecdsa::recover(digest, sig)
}

#[cfg(test)]
mod tests {
    use super::*;
    // The oracle: alloy's Keccak (sha3 crate), independent of `super::keccak`.
    use crate::types::contracts;
    use alloy_primitives::keccak256;

    #[test]
    fn constants_are_the_hashes_of_their_definitions() {
        let cases: &[(&B256, &[u8])] = &[
            (&ORDER_V1_TYPEHASH, ORDER_V1_TYPE.as_bytes()),
            (&ORDER_V2_TYPEHASH, ORDER_V2_TYPE.as_bytes()),
            (
                &DOMAIN_TYPEHASH,
                b"EIP712Domain(string name,string version,uint256 chainId,address verifyingContract)",
            ),
            (&CLOB_AUTH_DOMAIN_TYPEHASH, b"EIP712Domain(string name,string version,uint256 chainId)"),
            (&CLOB_AUTH_TYPEHASH, CLOB_AUTH_TYPE.as_bytes()),
            (&TYPED_DATA_SIGN_TYPEHASH, TYPED_DATA_SIGN_TYPE.as_bytes()),
            (&EXCHANGE_NAME_HASH, b"Polymarket CTF Exchange"),
            (&CLOB_AUTH_NAME_HASH, b"ClobAuthDomain"),
            (&VERSION_1_HASH, b"1"),
            (&VERSION_2_HASH, b"2"),
            (&VERSION_3_HASH, b"3"),
            (&CLOB_AUTH_MESSAGE_HASH, CLOB_AUTH_MESSAGE.as_bytes()),
            (&DEPOSIT_WALLET_NAME_HASH, b"DepositWallet"),
        ];
        for (constant, text) in cases {
            assert_eq!(
                **constant,
                keccak256(text),
                "{}",
                String::from_utf8_lossy(text)
            );
        }
        assert!(TYPED_DATA_SIGN_TYPE.ends_with(ORDER_V2_TYPE));
        assert_eq!(ORDER_V2_TYPE.len(), 0xba);
    }

    #[test]
    fn domain_table_matches_contract_table() {
        for chain in [Chain::Polygon, Chain::Amoy] {
            for version in [
                ExchangeVersion::V1,
                ExchangeVersion::V2,
                ExchangeVersion::V3,
            ] {
                for neg_risk in [false, true] {
                    let exchange = contracts(chain, version).exchange_for(neg_risk);
                    assert_eq!(
                        exchange_domain(chain, version, neg_risk),
                        compute_exchange_domain(version, chain.id(), exchange),
                        "{chain} {version:?} neg_risk={neg_risk}"
                    );
                }
            }
            let mut buf = [0u8; 128];
            buf[..32].copy_from_slice(CLOB_AUTH_DOMAIN_TYPEHASH.as_slice());
            buf[32..64].copy_from_slice(keccak256("ClobAuthDomain").as_slice());
            buf[64..96].copy_from_slice(keccak256("1").as_slice());
            buf[96..128].copy_from_slice(&U256::from(chain.id()).to_be_bytes::<32>());
            assert_eq!(clob_auth_domain(chain.id()), keccak256(buf));
        }
        // A chain outside the table is computed, not mistaken for one inside it.
        assert_ne!(clob_auth_domain(1), clob_auth_domain(137));
    }

    #[test]
    fn decimal_writer() {
        let mut b = [0u8; 20];
        assert_eq!(write_u64_decimal(0, &mut b), b"0");
        assert_eq!(write_u64_decimal(10000000, &mut b), b"10000000");
        assert_eq!(write_u64_decimal(u64::MAX, &mut b), b"18446744073709551615");
        // Against the standard formatter around every digit-count boundary and on a spread.
        let mut cases: Vec<u64> = (0..1000).collect();
        for k in 1..20 {
            let p = 10u64.pow(k);
            cases.extend([
                p - 1,
                p,
                p + 1,
                p + 9,
                p + 10,
                p.saturating_mul(9).saturating_add(p / 2),
            ]);
        }
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for _ in 0..10_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            cases.push(x >> (x % 64));
        }
        for v in cases {
            assert_eq!(
                write_u64_decimal(v, &mut b),
                v.to_string().as_bytes(),
                "{v}"
            );
        }
    }

    #[test]
    fn recovery_rejects_garbage() {
        let mut raw = [0u8; 65];
        raw[64] = 27;
        let sig = Signature::from_bytes(raw).unwrap();
        assert!(recover_address(&[1u8; 32], &sig).is_err());
    }
}
