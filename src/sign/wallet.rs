//! Wallets: the four signature types, CREATE2 derivation of Polymarket proxy and Gnosis Safe
//! addresses, the ERC-7739 signature of POLY_1271 deposit wallets
//! (<https://docs.polymarket.com/v2-migration>), and the session signer envelope a deposit
//! wallet's session key wraps it in (<https://docs.polymarket.com/trading/session-keys>).

use core::fmt;

use alloy_primitives::{Address, B256, address, b256, keccak256};

use super::Signature;
use super::eip712::ORDER_V2_TYPE;
use crate::types::{Chain, SignatureType};

/// Polymarket's proxy-wallet factory (Polygon only).
pub const PROXY_FACTORY: Address = address!("0xaB45c5A4B0c941a2F231C04C3f49182e1A254052");
/// Init-code hash of the proxy wallets the factory deploys.
pub const PROXY_INIT_CODE_HASH: B256 =
    b256!("0xd21df8dc65880a8606f09fe0ce3df9b8869287ab0b058be05aa9e8af6330a00b");
/// The Gnosis Safe factory Polymarket deploys browser-wallet Safes with (Polygon and Amoy).
pub const SAFE_FACTORY: Address = address!("0xaacFeEa03eb1561C4e67d661e40682Bd20E3541b");
/// Init-code hash of those Safes.
pub const SAFE_INIT_CODE_HASH: B256 =
    b256!("0x2bce2127ff07fb632d16c8347c4ebf501f4841168bed00d9e6ef715ddb6fcecf");

/// `keccak256(0xff ‖ factory ‖ salt ‖ init_code_hash)[12..]`.
fn create2(factory: Address, salt: B256, init_code_hash: B256) -> Address {
    let mut buf = [0u8; 85];
    buf[0] = 0xff;
    buf[1..21].copy_from_slice(factory.as_slice());
    buf[21..53].copy_from_slice(salt.as_slice());
    buf[53..85].copy_from_slice(init_code_hash.as_slice());
    Address::from_slice(&keccak256(buf)[12..])
}

/// The Polymarket proxy wallet (POLY_PROXY maker) of an EOA; `None` on chains without the
/// proxy factory (Amoy).
///
/// ```
/// use alloy_primitives::address;
/// use polyclob::sign::wallet::derive_proxy_wallet;
/// use polyclob::types::Chain;
///
/// let eoa = address!("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/// assert_eq!(
///     derive_proxy_wallet(eoa, Chain::Polygon),
///     Some(address!("0x365f0CA36Ae1f641E02fE3B7743673da42A13A70"))
/// );
/// assert_eq!(derive_proxy_wallet(eoa, Chain::Amoy), None);
/// ```
#[must_use]
pub fn derive_proxy_wallet(eoa: Address, chain: Chain) -> Option<Address> {
    match chain {
        Chain::Polygon => Some(create2(
            PROXY_FACTORY,
            keccak256(eoa.as_slice()),
            PROXY_INIT_CODE_HASH,
        )),
        Chain::Amoy => None,
    }
}

/// The Gnosis Safe (POLY_GNOSIS_SAFE maker) of an EOA: salt `keccak256(abi.encode(eoa))`.
///
/// ```
/// use alloy_primitives::address;
/// use polyclob::sign::wallet::derive_safe_wallet;
/// use polyclob::types::Chain;
///
/// let eoa = address!("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/// let safe = address!("0xd93B25cb943D14d0d34FBaF01Fc93a0f8b5F6E47");
/// assert_eq!(derive_safe_wallet(eoa, Chain::Polygon), safe);
/// assert_eq!(derive_safe_wallet(eoa, Chain::Amoy), safe);
/// ```
#[must_use]
pub fn derive_safe_wallet(eoa: Address, chain: Chain) -> Address {
    // Same factory and init code on both supported chains.
    let _ = chain;
    let mut word = [0u8; 32];
    word[12..].copy_from_slice(eoa.as_slice());
    create2(SAFE_FACTORY, keccak256(word), SAFE_INIT_CODE_HASH)
}

/// The deposit-wallet factory (Polygon): it deploys every POLY_1271 deposit wallet and is
/// the `to` of every relayer `WALLET` batch (the unified Python SDK's production configuration).
pub const DEPOSIT_WALLET_FACTORY: Address = address!("0x00000000000Fb5C9ADea0298D729A0CB3823Cc07");
/// The implementation behind the factory's UUPS (ERC-1967) deposit-wallet proxies.
const DEPOSIT_WALLET_IMPLEMENTATION: Address =
    address!("0x58CA52ebe0DadfdF531Cde7062e76746de4Db1eB");
/// The beacon behind the factory's beacon deposit-wallet proxies.
const DEPOSIT_WALLET_BEACON: Address = address!("0x7A18EDfe055488A3128f01F563e5B479D92ffc3a");

/// The factory's constructor arguments for `owner`'s wallet: `abi.encode(factory, bytes32(owner))`.
fn deposit_wallet_args(owner: Address) -> [u8; 64] {
    let mut args = [0u8; 64];
    args[12..32].copy_from_slice(DEPOSIT_WALLET_FACTORY.as_slice());
    args[44..64].copy_from_slice(owner.as_slice());
    args
}

/// The two init codes the factory has used: Solady's ERC-1967 proxy (UUPS) and its beacon
/// proxy, each with the 64 argument bytes appended (the 10-byte prefix carries their length).
fn deposit_wallet_init_code(owner: Address, beacon: bool) -> Vec<u8> {
    const PREFIX_UUPS: u128 = 0x6100_3D3D_8160_233D_3973;
    const PREFIX_BEACON: u128 = 0x6100_523D_8160_233D_3973;
    let args = deposit_wallet_args(owner);
    let prefix = if beacon { PREFIX_BEACON } else { PREFIX_UUPS } + ((args.len() as u128) << 56);
    let mut code = Vec::with_capacity(10 + 20 + 96 + 64);
    code.extend_from_slice(&prefix.to_be_bytes()[6..]);
    if beacon {
        code.extend_from_slice(DEPOSIT_WALLET_BEACON.as_slice());
        code.extend_from_slice(&alloy_primitives::hex!(
            "60195155f3363d3d373d3d363d602036600436635c60da"
            "1b60e01b36527fa3f0ad74e5423aebfd80d3ef4346578335a9a72aeaee59ff6c"
            "b3582b35133d50545afa5036515af43d6000803e604d573d6000fd5b3d6000f3"
        ));
    } else {
        code.extend_from_slice(DEPOSIT_WALLET_IMPLEMENTATION.as_slice());
        code.extend_from_slice(&alloy_primitives::hex!(
            "6009"
            "5155f3363d3d373d3d363d7f360894a13ba1a3210667c828492db98dca3e2076"
            "cc3735a920a3ca505d382bbc545af43d6000803e6038573d6000fd5b3d6000f3"
        ));
    }
    code.extend_from_slice(&args);
    code
}

/// `owner`'s deposit wallets on Polygon, as the factory deploys them: `[UUPS proxy, beacon
/// proxy]` (the factory has deployed both kinds; which one an owner has depends on when it
/// was created). CREATE2 with salt `keccak256(abi.encode(factory, bytes32(owner)))`.
///
/// ```
/// use alloy_primitives::address;
/// use polyclob::sign::wallet::derive_deposit_wallets;
///
/// let owner = address!("0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266");
/// let [uups, beacon] = derive_deposit_wallets(owner);
/// assert_eq!(uups, address!("0xdf8b9E8f9AB23f261F6e1B171B7454ae6E46Ba76"));
/// assert_eq!(beacon, address!("0xBc0fF067b7740Eff76C1ca93c875Ba6B890d6B50"));
/// ```
#[must_use]
pub fn derive_deposit_wallets(owner: Address) -> [Address; 2] {
    let salt = keccak256(deposit_wallet_args(owner));
    [false, true].map(|beacon| {
        let code = deposit_wallet_init_code(owner, beacon);
        create2(DEPOSIT_WALLET_FACTORY, salt, keccak256(&code))
    })
}

/// Who holds the funds and how the order is authorised.
///
/// | variant | `signatureType` | maker | `signer` field |
/// |---|---|---|---|
/// | `Eoa` | 0 | the EOA | the EOA |
/// | `Proxy(funder)` | 1 | the proxy wallet | the EOA |
/// | `Safe(funder)` | 2 | the Safe | the EOA |
/// | `DepositWallet(wallet)` | 3 (V2/V3 only) | the deposit wallet | the deposit wallet |
/// | `DepositWalletSession(wallet)` | 3 (V2/V3 only) | the deposit wallet | the deposit wallet |
///
/// `DepositWalletSession` is a deposit wallet traded by an authorized **session key**
/// (docs.polymarket.com/trading/session-keys): the key signs the same ERC-7739 envelope its
/// owner would, wrapped in the session signer envelope ([`OrderSignature::session`]), and it
/// authenticates with its own CLOB credentials.
///
/// ```
/// use polyclob::sign::wallet::Wallet;
/// use polyclob::types::{Chain, SignatureType};
///
/// let eoa = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266".parse()?;
/// let w = Wallet::derived_safe(eoa, Chain::Polygon);
/// assert_eq!(w.signature_type(), SignatureType::PolyGnosisSafe);
/// assert_eq!(w.maker(eoa).to_string(), "0xd93B25cb943D14d0d34FBaF01Fc93a0f8b5F6E47");
/// assert_eq!(w.signer(eoa), eoa);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
#[non_exhaustive]
pub enum Wallet {
    /// The EOA trades its own funds.
    #[default]
    Eoa,
    /// A Polymarket proxy wallet (email/Magic accounts) holds the funds.
    Proxy(Address),
    /// A Gnosis Safe (browser-wallet accounts) holds the funds.
    Safe(Address),
    /// An ERC-1271 deposit wallet holds the funds and is the order's signer; the EOA owner
    /// signs an ERC-7739 envelope.
    DepositWallet(Address),
    /// A deposit wallet whose orders a session key the owner authorized signs (the key is
    /// not the owner): the ERC-7739 envelope in a session signer envelope.
    DepositWalletSession(Address),
}

impl Wallet {
    /// The wallet for a signature type and funder address (`None` for EOA).
    #[must_use]
    pub const fn from_parts(signature_type: SignatureType, funder: Address) -> Self {
        match signature_type {
            SignatureType::Eoa => Self::Eoa,
            SignatureType::PolyProxy => Self::Proxy(funder),
            SignatureType::PolyGnosisSafe => Self::Safe(funder),
            SignatureType::Poly1271 => Self::DepositWallet(funder),
        }
    }

    /// A Safe wallet at the address derived from `eoa`.
    #[must_use]
    pub fn derived_safe(eoa: Address, chain: Chain) -> Self {
        Self::Safe(derive_safe_wallet(eoa, chain))
    }

    /// A proxy wallet at the address derived from `eoa`; `None` where proxies do not exist.
    #[must_use]
    pub fn derived_proxy(eoa: Address, chain: Chain) -> Option<Self> {
        derive_proxy_wallet(eoa, chain).map(Self::Proxy)
    }

    /// The `signatureType` value.
    #[must_use]
    pub const fn signature_type(&self) -> SignatureType {
        match self {
            Self::Eoa => SignatureType::Eoa,
            Self::Proxy(_) => SignatureType::PolyProxy,
            Self::Safe(_) => SignatureType::PolyGnosisSafe,
            Self::DepositWallet(_) | Self::DepositWalletSession(_) => SignatureType::Poly1271,
        }
    }

    /// The funder (maker) address, if it is not the EOA.
    #[must_use]
    pub const fn funder(&self) -> Option<Address> {
        match self {
            Self::Eoa => None,
            Self::Proxy(a)
            | Self::Safe(a)
            | Self::DepositWallet(a)
            | Self::DepositWalletSession(a) => Some(*a),
        }
    }

    /// The order's `maker` for an EOA signer.
    #[must_use]
    pub const fn maker(&self, eoa: Address) -> Address {
        match self.funder() {
            Some(a) => a,
            None => eoa,
        }
    }

    /// The order's `signer` field: the deposit wallet for POLY_1271, else the EOA.
    #[must_use]
    pub const fn signer(&self, eoa: Address) -> Address {
        match self {
            Self::DepositWallet(a) | Self::DepositWalletSession(a) => *a,
            _ => eoa,
        }
    }

    /// Whether a session key, not the owner, signs (the session signer envelope).
    #[must_use]
    pub const fn is_session(&self) -> bool {
        matches!(self, Self::DepositWalletSession(_))
    }
}

/// Length of a POLY_1271 signature: 65 + 32 + 32 + 186 + 2.
pub(crate) const POLY_1271_SIGNATURE_LEN: usize = 65 + 32 + 32 + ORDER_V2_TYPE.len() + 2;

/// The session signer envelope's suffix: 32 bytes of `0x6492` (ERC-6492's magic value, reused
/// by Polymarket's deposit wallets to detect a session signer).
pub(crate) const SESSION_MAGIC: [u8; 32] = {
    let mut m = [0u8; 32];
    let mut i = 0;
    while i < 32 {
        m[i] = if i % 2 == 0 { 0x64 } else { 0x92 };
        i += 1;
    }
    m
};

/// Length of a session-wrapped POLY_1271 signature: `signerId ‖ kind ‖ offset ‖ length`, the
/// envelope padded to 32 bytes, the magic.
const SESSION_SIGNATURE_LEN: usize = 128 + POLY_1271_SIGNATURE_LEN.div_ceil(32) * 32 + 32;

/// An order's `signature` field: a plain 65-byte ECDSA signature, the 317-byte ERC-7739
/// envelope of a POLY_1271 deposit wallet, or that envelope in the 480-byte session signer
/// envelope of a deposit wallet's session key. Lives on the stack.
#[derive(Clone, Copy, PartialEq, Eq)]
pub struct OrderSignature {
    bytes: [u8; SESSION_SIGNATURE_LEN],
    len: u16,
}

impl OrderSignature {
    /// A plain ECDSA signature (EOA, proxy, Safe).
    #[must_use]
    pub fn ecdsa(sig: &Signature) -> Self {
        let mut bytes = [0u8; SESSION_SIGNATURE_LEN];
        bytes[..65].copy_from_slice(sig.as_bytes());
        Self { bytes, len: 65 }
    }

    /// The POLY_1271 envelope: `inner ‖ domain separator ‖ hashStruct(order) ‖ ORDER_V2_TYPE ‖
    /// uint16_be(len(ORDER_V2_TYPE))`, where `inner` is the owner's signature over the
    /// `TypedDataSign` digest ([`typed_data_sign_struct_hash`](super::eip712::typed_data_sign_struct_hash)).
    #[must_use]
    pub fn poly_1271(inner: &Signature, domain_separator: &B256, order_struct_hash: &B256) -> Self {
        let mut bytes = [0u8; SESSION_SIGNATURE_LEN];
        let t = ORDER_V2_TYPE.as_bytes();
        bytes[..65].copy_from_slice(inner.as_bytes());
        bytes[65..97].copy_from_slice(domain_separator.as_slice());
        bytes[97..129].copy_from_slice(order_struct_hash.as_slice());
        bytes[129..129 + t.len()].copy_from_slice(t);
        // The type string is 186 bytes: fits a u16.
        let n = (t.len() as u16).to_be_bytes();
        bytes[129 + t.len()..POLY_1271_SIGNATURE_LEN].copy_from_slice(&n);
        Self {
            bytes,
            len: POLY_1271_SIGNATURE_LEN as u16,
        }
    }

    /// The session signer envelope around a deposit wallet's POLY_1271 signature `inner`
    /// made by the authorized `session_signer` (docs.polymarket.com/trading/session-keys, "Add
    /// the Session Signer Envelope"): `abi.encode(bytes32 signerId, uint256 kind = 0
    /// (secp256k1), bytes inner) ‖ 0x6492…6492`, where `signerId` is the session signer's
    /// address left-padded to 32 bytes. 480 bytes for a 317-byte `inner`; an `inner` that is
    /// itself an envelope is returned unchanged.
    ///
    /// ```
    /// use alloy_primitives::{Address, B256};
    /// use polyclob::sign::{Signature, wallet::OrderSignature};
    ///
    /// let mut raw = [7u8; 65];
    /// raw[64] = 27;
    /// let inner = OrderSignature::poly_1271(&Signature::from_bytes(raw)?, &B256::ZERO, &B256::ZERO);
    /// let wrapped = OrderSignature::session(Address::repeat_byte(0x70), &inner);
    /// assert_eq!(wrapped.as_bytes().len(), 480);
    /// assert_eq!(wrapped.session_signer(), Some(Address::repeat_byte(0x70)));
    /// # Ok::<(), polyclob::sign::SignError>(())
    /// ```
    #[must_use]
    pub fn session(session_signer: Address, inner: &Self) -> Self {
        if inner.is_session() {
            return *inner;
        }
        let body = inner.as_bytes();
        let mut bytes = [0u8; SESSION_SIGNATURE_LEN];
        bytes[12..32].copy_from_slice(session_signer.as_slice());
        // kind (secp256k1) = 0: already zero.
        bytes[95] = 0x60;
        bytes[96..128]
            .copy_from_slice(&alloy_primitives::U256::from(body.len()).to_be_bytes::<32>());
        bytes[128..128 + body.len()].copy_from_slice(body);
        let end = 128 + body.len().div_ceil(32) * 32;
        bytes[end..end + 32].copy_from_slice(&SESSION_MAGIC);
        // At most 128 + 320 + 32 bytes: fits a u16.
        Self {
            bytes,
            len: (end + 32) as u16,
        }
    }

    /// Whether this is a session signer envelope.
    #[must_use]
    pub fn is_session(&self) -> bool {
        let n = usize::from(self.len);
        n >= 160 && self.bytes[n - 32..n] == SESSION_MAGIC
    }

    /// The session signer an envelope names; `None` for another signature.
    #[must_use]
    pub fn session_signer(&self) -> Option<Address> {
        self.is_session()
            .then(|| Address::from_slice(&self.bytes[12..32]))
    }

    /// The signature bytes (65, 317 or 480).
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The ECDSA part: the whole signature, the owner's (or session key's) inner signature
    /// of a POLY_1271 envelope, inside the session envelope when there is one.
    #[must_use]
    pub fn ecdsa_part(&self) -> [u8; 65] {
        let at = if self.is_session() { 128 } else { 0 };
        let mut out = [0u8; 65];
        out.copy_from_slice(&self.bytes[at..at + 65]);
        out
    }

    /// Whether this is a POLY_1271 envelope (a session key's included).
    #[must_use]
    pub fn is_poly_1271(&self) -> bool {
        usize::from(self.len) == POLY_1271_SIGNATURE_LEN || self.is_session()
    }

    /// Appends `0x` and lowercase hex to `out`.
    pub fn write_hex(&self, out: &mut Vec<u8>) {
        let bytes = self.as_bytes();
        out.extend_from_slice(b"0x");
        let start = out.len();
        out.resize(start + 2 * bytes.len(), 0);
        super::signature::write_hex_into(bytes, &mut out[start..]);
    }

    /// The `0x…` hex text.
    #[must_use]
    pub fn to_hex_string(&self) -> String {
        let mut v = Vec::with_capacity(2 + 2 * usize::from(self.len));
        self.write_hex(&mut v);
        String::from_utf8(v).unwrap_or_default()
    }
}

/// Why bytes are not a deposit wallet session key's valid order signature
/// ([`OrderSignature::check_session`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionSignatureError {
    /// No `0x6492…6492` suffix: not a session signer envelope (the owner's signature, or
    /// something else).
    NotAnEnvelope,
    /// The envelope's words are inconsistent: its length, the `bytes` offset (`0x60`), or
    /// the inner length.
    Malformed,
    /// The signer id is not a secp256k1 signer's (left-padded, non-zero) address.
    BadSignerId,
    /// A signer kind this crate does not check (`1` is a WebAuthn passkey).
    UnsupportedKind(u8),
    /// The inner signature is not a 317-byte POLY_1271 (ERC-7739) signature of an order.
    NotPoly1271,
    /// The inner signature names another exchange domain.
    DomainMismatch,
    /// The inner signature is over another order.
    OrderMismatch,
    /// The inner ECDSA signature is invalid or does not recover the signer id's address.
    WrongSigner,
}

impl fmt::Display for SessionSignatureError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let msg = match self {
            Self::NotAnEnvelope => "not a session signer envelope (no 0x6492 suffix)",
            Self::Malformed => "malformed session signer envelope",
            Self::BadSignerId => "the session signer id is not an address",
            Self::UnsupportedKind(_) => "a session signer kind other than secp256k1",
            Self::NotPoly1271 => "the enveloped signature is not a POLY_1271 order signature",
            Self::DomainMismatch => "the enveloped signature is for another exchange domain",
            Self::OrderMismatch => "the enveloped signature is over another order",
            Self::WrongSigner => "the enveloped signature is not the session signer's",
        };
        f.write_str(msg)
    }
}

impl std::error::Error for SessionSignatureError {}

impl OrderSignature {
    /// Checks `signature` as the session signer envelope of a deposit `wallet`'s order on
    /// `chain_id`, whose exchange domain separator and struct hash are given, and returns the
    /// session signer it names. What the wallet checks offline: the envelope's shape (as
    /// Polymarket's `SessionSignerLib` decodes it: the magic suffix, offset `0x60`, the
    /// length, a non-zero secp256k1 signer id), the inner POLY_1271 signature's domain,
    /// order and type string, and that its ECDSA signature over the `TypedDataSign` digest
    /// recovers the signer id's address. Whether that signer is authorized for the wallet,
    /// with the CLOB in its scopes and not expired, is the venue's to say
    /// ([`Client::session_signers`](crate::clob::Client::session_signers)).
    ///
    /// # Errors
    /// [`SessionSignatureError`], naming the first check that fails.
    pub fn check_session(
        signature: &[u8],
        domain_separator: &B256,
        order_struct_hash: &B256,
        chain_id: u64,
        wallet: Address,
    ) -> Result<Address, SessionSignatureError> {
        use SessionSignatureError as E;
        let n = signature.len();
        if n < 32 || signature[n - 32..] != SESSION_MAGIC {
            return Err(E::NotAnEnvelope);
        }
        if n < 0xa0 {
            return Err(E::Malformed);
        }
        let word = |i: usize| &signature[32 * i..32 * (i + 1)];
        let small = |w: &[u8]| {
            w[..24]
                .iter()
                .all(|&b| b == 0)
                .then(|| u64::from_be_bytes(w[24..].try_into().unwrap_or([0xff; 8])))
        };
        let (Some(offset), Some(len)) = (small(word(2)), small(word(3))) else {
            return Err(E::Malformed);
        };
        let padded = usize::try_from(len.div_ceil(32) * 32).map_err(|_| E::Malformed)?;
        if offset != 0x60 || n != 0xa0 + padded {
            return Err(E::Malformed);
        }
        match small(word(1)) {
            Some(0) => {}
            Some(k) => return Err(E::UnsupportedKind(u8::try_from(k).unwrap_or(u8::MAX))),
            None => return Err(E::Malformed),
        }
        let id = word(0);
        if id[..12].iter().any(|&b| b != 0) || id[12..].iter().all(|&b| b == 0) {
            return Err(E::BadSignerId);
        }
        let signer = Address::from_slice(&id[12..]);
        let inner = &signature[128..128 + padded.min(n - 160)];
        let inner = &inner[..usize::try_from(len).unwrap_or(usize::MAX).min(inner.len())];
        let ty = ORDER_V2_TYPE.as_bytes();
        if inner.len() != POLY_1271_SIGNATURE_LEN
            || &inner[129..129 + ty.len()] != ty
            || inner[129 + ty.len()..] != (ty.len() as u16).to_be_bytes()
        {
            return Err(E::NotPoly1271);
        }
        if &inner[65..97] != domain_separator.as_slice() {
            return Err(E::DomainMismatch);
        }
        if &inner[97..129] != order_struct_hash.as_slice() {
            return Err(E::OrderMismatch);
        }
        let mut raw = [0u8; 65];
        raw.copy_from_slice(&inner[..65]);
        let digest = super::eip712::signing_hash(
            domain_separator,
            &super::eip712::typed_data_sign_struct_hash(order_struct_hash, chain_id, wallet),
        );
        Signature::from_bytes(raw)
            .ok()
            .and_then(|sig| super::eip712::recover_address(&digest.0, &sig).ok())
            .filter(|who| *who == signer)
            .ok_or(E::WrongSigner)
    }
}

impl fmt::Display for OrderSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_hex_string())
    }
}

impl fmt::Debug for OrderSignature {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "OrderSignature({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn envelope_layout() {
        assert_eq!(POLY_1271_SIGNATURE_LEN, 317);
        let mut raw = [7u8; 65];
        raw[64] = 27;
        let inner = Signature::from_bytes(raw).unwrap();
        let env = OrderSignature::poly_1271(&inner, &B256::repeat_byte(1), &B256::repeat_byte(2));
        let b = env.as_bytes();
        assert_eq!(b.len(), 317);
        assert_eq!(&b[..65], inner.as_bytes());
        assert_eq!(&b[65..97], &[1u8; 32]);
        assert_eq!(&b[97..129], &[2u8; 32]);
        assert_eq!(&b[129..315], ORDER_V2_TYPE.as_bytes());
        assert_eq!(&b[315..], &[0x00, 0xba]);
        let session = OrderSignature::session(Address::repeat_byte(0x70), &env);
        let w = session.as_bytes();
        assert_eq!(w.len(), 480);
        assert_eq!((&w[..12], &w[12..32]), (&[0u8; 12][..], &[0x70u8; 20][..]));
        assert_eq!(&w[32..64], &[0u8; 32], "kind 0: secp256k1");
        assert_eq!(
            (w[95], w[126], w[127]),
            (0x60, 0x01, 0x3d),
            "offset, 317 bytes"
        );
        assert_eq!(&w[128..445], b);
        assert_eq!(&w[445..448], &[0u8; 3]);
        assert_eq!(&w[448..], &SESSION_MAGIC);
        assert!(session.is_session() && session.is_poly_1271() && !env.is_session());
        assert_eq!(session.ecdsa_part(), env.ecdsa_part());
        assert_eq!(OrderSignature::session(Address::ZERO, &session), session);
        assert!(env.is_poly_1271());
        assert_eq!(env.to_hex_string().len(), 2 + 634);
        let plain = OrderSignature::ecdsa(&inner);
        assert_eq!(plain.as_bytes().len(), 65);
        assert_eq!(plain.to_hex_string(), inner.to_hex_string());
    }

    #[test]
    fn wallet_roles() {
        let eoa = Address::repeat_byte(0xee);
        let f = Address::repeat_byte(0xf0);
        for (w, ty, maker, signer) in [
            (Wallet::Eoa, SignatureType::Eoa, eoa, eoa),
            (Wallet::Proxy(f), SignatureType::PolyProxy, f, eoa),
            (Wallet::Safe(f), SignatureType::PolyGnosisSafe, f, eoa),
            (Wallet::DepositWallet(f), SignatureType::Poly1271, f, f),
            (
                Wallet::DepositWalletSession(f),
                SignatureType::Poly1271,
                f,
                f,
            ),
        ] {
            assert_eq!(w.signature_type(), ty);
            assert_eq!(w.maker(eoa), maker);
            assert_eq!(w.signer(eoa), signer);
            assert_eq!(Wallet::from_parts(ty, f).signature_type(), ty);
        }
    }
}
