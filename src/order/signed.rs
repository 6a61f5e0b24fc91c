//! A signed order and its POST body (protocol.md §3.7).

use alloy_primitives::B256;

use super::builder::checksum_hex;
use super::wire::{push_u64, push_u64_str};
use super::{MarketContext, Order, OrderError};
use crate::json::escape::push_str;
use crate::sign::Signer;
use crate::sign::eip712::{
    order_hash, order_struct_hash, signing_hash, typed_data_sign_struct_hash,
};
use crate::sign::wallet::OrderSignature;
use crate::types::{ExchangeVersion, OrderType, SignatureType};

/// A signed order, ready to post: the struct values, the signature (65 bytes, or the 317-byte
/// POLY_1271 envelope), the order hash, and the body flags. All on the stack.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SignedOrder {
    order: Order,
    signature: OrderSignature,
    hash: B256,
    order_type: OrderType,
    post_only: bool,
    defer_exec: bool,
    maker_hex: [u8; 42],
    signer_hex: [u8; 42],
}

impl SignedOrder {
    /// Signs an order as given, with no validation of its values — for reproducing a known
    /// order exactly (tests, tools, the simulator). Orders for trading come from
    /// [`OrderSigner`](super::OrderSigner), which validates them.
    ///
    /// POLY_1271 orders (signature type 3) are wrapped in the ERC-7739 envelope with
    /// `order.signer` as the deposit wallet.
    ///
    /// # Errors
    /// [`OrderError::Sign`] if the backend fails.
    pub fn sign(
        signer: &Signer,
        market: &MarketContext,
        order: Order,
        order_type: OrderType,
        post_only: bool,
        defer_exec: bool,
    ) -> Result<Self, OrderError> {
        Self::sign_with_domain(
            signer,
            market.domain_separator(),
            market.chain().id(),
            order,
            (order_type, post_only, defer_exec),
        )
    }

    /// As [`sign`](Self::sign), against an explicit domain separator and chain id.
    ///
    /// # Errors
    /// [`OrderError::Sign`] if the backend fails.
    pub fn sign_with_domain(
        signer: &Signer,
        domain: &B256,
        chain_id: u64,
        order: Order,
        flags: (OrderType, bool, bool),
    ) -> Result<Self, OrderError> {
        let maker_hex = checksum_hex(&order.maker);
        let signer_hex = checksum_hex(&order.signer);
        Self::sign_inner(
            signer, domain, chain_id, order, flags, maker_hex, signer_hex, false,
        )
    }

    /// Signs for an [`OrderSigner`](super::OrderSigner); `session`: the key is a deposit
    /// wallet's session key (the signature gets the session signer envelope).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn sign_prepared(
        signer: &Signer,
        market: &MarketContext,
        order: Order,
        flags: (OrderType, bool, bool),
        maker_hex: [u8; 42],
        signer_hex: [u8; 42],
        session: bool,
    ) -> Result<Self, OrderError> {
        Self::sign_inner(
            signer,
            market.domain_separator(),
            market.chain().id(),
            order,
            flags,
            maker_hex,
            signer_hex,
            session,
        )
    }

    #[allow(clippy::too_many_arguments)]
    fn sign_inner(
        signer: &Signer,
        domain: &B256,
        chain_id: u64,
        order: Order,
        (order_type, post_only, defer_exec): (OrderType, bool, bool),
        maker_hex: [u8; 42],
        signer_hex: [u8; 42],
        session: bool,
    ) -> Result<Self, OrderError> {
        let (hash, signature) = if order.signature_type == SignatureType::Poly1271 {
            let struct_hash = order_struct_hash(&order);
            let envelope = typed_data_sign_struct_hash(&struct_hash, chain_id, order.signer);
            let inner = signer.sign_prehash(&signing_hash(domain, &envelope).0)?;
            let hash = signing_hash(domain, &struct_hash);
            let mut sig = OrderSignature::poly_1271(&inner, domain, &struct_hash);
            if session {
                sig = OrderSignature::session(signer.address(), &sig);
            }
            (hash, sig)
        } else {
            // One fused call: the struct hash never leaves the vector registers (AVX-512).
            let hash = order_hash(domain, &order);
            (hash, OrderSignature::ecdsa(&signer.sign_prehash(&hash.0)?))
        };
        Ok(Self {
            order,
            signature,
            hash,
            order_type,
            post_only,
            defer_exec,
            maker_hex,
            signer_hex,
        })
    }

    /// The struct values.
    #[must_use]
    pub const fn order(&self) -> &Order {
        &self.order
    }

    /// The exchange generation the order was signed for.
    #[must_use]
    pub const fn version(&self) -> ExchangeVersion {
        self.order.version
    }

    /// The signature as sent in the body.
    #[must_use]
    pub const fn signature(&self) -> &OrderSignature {
        &self.signature
    }

    /// The order hash (the EIP-712 signing hash; the CLOB's `orderID`).
    #[must_use]
    pub const fn hash(&self) -> &B256 {
        &self.hash
    }

    /// The order hash as bytes.
    #[must_use]
    pub const fn hash_bytes(&self) -> [u8; 32] {
        self.hash.0
    }

    /// The time in force chosen at build time.
    #[must_use]
    pub const fn order_type(&self) -> OrderType {
        self.order_type
    }

    /// The post-only flag chosen at build time.
    #[must_use]
    pub const fn post_only(&self) -> bool {
        self.post_only
    }

    /// The `deferExec` flag chosen at build time.
    #[must_use]
    pub const fn defer_exec(&self) -> bool {
        self.defer_exec
    }

    /// Appends the `POST /order` body with the flags chosen at build time.
    pub fn write_json(&self, owner: &str, out: &mut Vec<u8>) {
        self.write_post_body(owner, self.order_type, self.post_only, self.defer_exec, out);
    }

    /// The `POST /order` body (allocates; see [`write_json`](Self::write_json)).
    #[must_use]
    pub fn to_json(&self, owner: &str) -> Vec<u8> {
        let mut out = Vec::with_capacity(1024);
        self.write_json(owner, &mut out);
        out
    }

    /// Appends the `POST /order` body with explicit flags: compact JSON, `salt` and
    /// `signatureType` as numbers, every other order field a string, key order as the Python
    /// SDKs send it. V1 bodies carry no `deferExec`. `owner` is the API key (JSON-escaped).
    ///
    /// The caller validates the flags (post-only only with GTC/GTD); [`write_json`](Self::write_json)
    /// uses the ones validated at build time.
    pub fn write_post_body(
        &self,
        owner: &str,
        order_type: OrderType,
        post_only: bool,
        defer_exec: bool,
        out: &mut Vec<u8>,
    ) {
        let o = &self.order;
        let v1 = o.version == ExchangeVersion::V1;
        out.extend_from_slice(br#"{"order":{"salt":"#);
        push_u64(out, o.salt);
        out.extend_from_slice(br#","maker":""#);
        out.extend_from_slice(&self.maker_hex);
        out.extend_from_slice(br#"","signer":""#);
        out.extend_from_slice(&self.signer_hex);
        if v1 {
            out.extend_from_slice(br#"","taker":""#);
            if o.taker == alloy_primitives::Address::ZERO {
                // All digits: the checksum cannot change the case.
                out.extend_from_slice(b"0x0000000000000000000000000000000000000000");
            } else {
                out.extend_from_slice(&checksum_hex(&o.taker));
            }
        }
        out.extend_from_slice(br#"","tokenId":""#);
        out.extend_from_slice(o.token_id.as_digits());
        out.extend_from_slice(br#"","makerAmount":"#);
        push_u64_str(out, o.maker_amount);
        out.extend_from_slice(br#","takerAmount":"#);
        push_u64_str(out, o.taker_amount);
        if v1 {
            out.extend_from_slice(br#","expiration":"#);
            push_u64_str(out, o.expiration);
            out.extend_from_slice(br#","nonce":"#);
            push_u64_str(out, o.nonce);
            out.extend_from_slice(br#","feeRateBps":"#);
            push_u64_str(out, o.fee_rate_bps);
            out.extend_from_slice(br#","side":""#);
            out.extend_from_slice(o.side.as_str().as_bytes());
            out.extend_from_slice(br#"","signatureType":"#);
            push_u64(out, u64::from(o.signature_type.as_u8()));
        } else {
            out.extend_from_slice(br#","side":""#);
            out.extend_from_slice(o.side.as_str().as_bytes());
            out.extend_from_slice(br#"","expiration":"#);
            push_u64_str(out, o.expiration);
            out.extend_from_slice(br#","signatureType":"#);
            push_u64(out, u64::from(o.signature_type.as_u8()));
            out.extend_from_slice(br#","timestamp":"#);
            push_u64_str(out, o.timestamp_ms);
            out.extend_from_slice(br#","metadata":""#);
            push_b256(out, &o.metadata);
            out.extend_from_slice(br#"","builder":""#);
            push_b256(out, &o.builder);
            out.push(b'"');
        }
        out.extend_from_slice(br#","signature":""#);
        self.signature.write_hex(out);
        out.extend_from_slice(br#""},"owner":"#);
        push_str(out, owner);
        out.extend_from_slice(br#","orderType":""#);
        out.extend_from_slice(order_type.as_str().as_bytes());
        out.push(b'"');
        if !v1 {
            out.extend_from_slice(br#","deferExec":"#);
            out.extend_from_slice(if defer_exec { b"true" } else { b"false" });
        }
        out.extend_from_slice(br#","postOnly":"#);
        out.extend_from_slice(if post_only { b"true" } else { b"false" });
        out.push(b'}');
    }
}

fn push_b256(out: &mut Vec<u8>, v: &B256) {
    let mut hex = [0u8; 66];
    hex[0] = b'0';
    hex[1] = b'x';
    crate::sign::signature_hex_into(v.as_slice(), &mut hex[2..]);
    out.extend_from_slice(&hex);
}
