//! Verification glue: L1 ClobAuth headers, L2 HMAC headers and EIP-712 order signatures,
//! checked with the crate's own `sign` module (no cryptography is written here). Failures
//! answer with the exchange's error shapes (protocol.md §2, §3.7; Polymarket error codes page).

use std::str::FromStr;

use alloy_primitives::{Address, B256, U256};
use hyper::http::request::Parts;
use hyper::{HeaderMap, StatusCode};
use serde_json::Value;

use polyclob::order::{Order, TokenId};
use polyclob::sign::Signature;
use polyclob::sign::clob_auth::clob_auth_digest;
use polyclob::sign::eip712::{
    ORDER_V2_TYPE, compute_exchange_domain, order_struct_hash, recover_address, signing_hash,
    typed_data_sign_struct_hash,
};
use polyclob::sign::hmac::HmacKey;
use polyclob::sign::wallet::{derive_proxy_wallet, derive_safe_wallet};
use polyclob::types::{ExchangeVersion, OrderType, Side, SignatureType, contracts};

use super::http::{Reject, Resp};
use super::shared::Shared;
use crate::exchange::keys::ApiKeyRec;
use crate::exchange::orders::NewOrder;
use crate::exchange::state::{Exchange, now_s};

const L1_ERROR: &str = "Invalid L1 Request headers";
const L2_ERROR: &str = "Unauthorized/Invalid api key";

/// A verified L1 request: the signing address (lowercase) and the nonce it signed.
#[derive(Debug)]
pub(crate) struct L1 {
    pub(crate) address: String,
    pub(crate) nonce: u64,
}

fn header<'a>(h: &'a HeaderMap, name: &str) -> Option<&'a str> {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

fn lower_address(a: &Address) -> String {
    format!("{a:#x}")
}

/// Checks the four `POLY_*` L1 headers: the ClobAuth signature must recover to `POLY_ADDRESS`
/// for the signed timestamp and nonce on the configured chain.
pub(crate) fn l1(shared: &Shared, h: &HeaderMap) -> Result<L1, Reject> {
    let unauthorized = || Reject::new(StatusCode::UNAUTHORIZED, L1_ERROR);
    let address = header(h, "poly_address")
        .and_then(|a| Address::from_str(a).ok())
        .ok_or_else(unauthorized)?;
    let ts = header(h, "poly_timestamp")
        .and_then(|t| t.parse::<u64>().ok())
        .ok_or_else(unauthorized)?;
    let nonce = match header(h, "poly_nonce") {
        None => 0,
        Some(n) => n.parse::<u64>().map_err(|_| unauthorized())?,
    };
    let sig = header(h, "poly_signature").ok_or_else(unauthorized)?;
    if shared.verify {
        let sig = Signature::parse_hex(sig).map_err(|_| unauthorized())?;
        let digest = clob_auth_digest(address, shared.chain.id(), ts, U256::from(nonce));
        let signer = recover_address(&digest.0, &sig).map_err(|_| unauthorized())?;
        if signer != address {
            return Err(unauthorized());
        }
    }
    Ok(L1 {
        address: lower_address(&address),
        nonce,
    })
}

/// Checks the five `POLY_*` L2 headers: a known API key with its passphrase, issued to
/// `POLY_ADDRESS`, and an HMAC over `timestamp + METHOD + path + body` (path without query,
/// the exact received body bytes).
pub(crate) fn check_l2(
    shared: &Shared,
    ex: &Exchange,
    parts: &Parts,
    body: &[u8],
) -> Result<ApiKeyRec, Reject> {
    let h = &parts.headers;
    let unauthorized = || Reject::new(StatusCode::UNAUTHORIZED, L2_ERROR);
    let key = header(h, "poly_api_key")
        .and_then(|k| ex.keys.get(k))
        .ok_or_else(unauthorized)?;
    let address = header(h, "poly_address")
        .and_then(|a| Address::from_str(a).ok())
        .ok_or_else(unauthorized)?;
    if lower_address(&address) != key.address
        || header(h, "poly_passphrase") != Some(key.passphrase.as_str())
    {
        return Err(unauthorized());
    }
    let ts = header(h, "poly_timestamp")
        .and_then(|t| t.parse::<u64>().ok())
        .ok_or_else(unauthorized)?;
    let sig = header(h, "poly_signature").ok_or_else(unauthorized)?;
    if shared.verify {
        let mac = HmacKey::from_base64url(&key.secret).map_err(|_| unauthorized())?;
        let expected = mac.sign(ts, parts.method.as_str(), parts.uri.path(), body);
        // Not constant-time: the simulator guards no real secret.
        if expected.as_str() != sig {
            return Err(unauthorized());
        }
    }
    Ok(key.clone())
}

/// Runs `f` with the exchange locked once L2 authentication passed.
pub(crate) fn l2(
    shared: &Shared,
    parts: &Parts,
    body: &[u8],
    f: impl FnOnce(&mut Exchange, &ApiKeyRec) -> Resp,
) -> Resp {
    let mut ex = shared.ex();
    let key = match check_l2(shared, &ex, parts, body) {
        Ok(k) => k,
        Err(r) => return r.into_response(),
    };
    f(&mut ex, &key)
}

/// The relayer's builder-key check: `POLY_BUILDER_*` headers naming a live builder key, its
/// passphrase, and (when the simulator verifies signatures) the HMAC of the request.
pub(crate) fn builder_auth(
    shared: &Shared,
    ex: &Exchange,
    parts: &Parts,
    body: &[u8],
) -> Result<(), Reject> {
    let h = |k: &str| parts.headers.get(k).and_then(|v| v.to_str().ok());
    let refuse = || Reject::new(StatusCode::UNAUTHORIZED, "invalid builder credentials");
    let name = h("poly_builder_api_key").ok_or_else(refuse)?;
    let live = ex
        .programs
        .builder_keys
        .iter()
        .any(|k| k.key == name && k.revoked_at.is_none());
    let key = ex.keys.get(name).filter(|_| live).ok_or_else(refuse)?;
    if h("poly_builder_passphrase") != Some(key.passphrase.as_str()) {
        return Err(refuse());
    }
    let ts = h("poly_builder_timestamp")
        .and_then(|t| t.parse::<u64>().ok())
        .ok_or_else(refuse)?;
    let sig = h("poly_builder_signature").ok_or_else(refuse)?;
    if shared.verify {
        let mac =
            polyclob::sign::hmac::HmacKey::from_base64url(&key.secret).map_err(|_| refuse())?;
        if mac
            .sign(ts, parts.method.as_str(), parts.uri.path(), body)
            .as_str()
            != sig
        {
            return Err(refuse());
        }
    }
    Ok(())
}

/// The relayer's check for its transaction routes, which take a builder key or a Relayer
/// API key (`RELAYER_API_KEY` naming a key of this simulator and `RELAYER_API_KEY_ADDRESS`
/// its owner): the caller's identity (the key), or the `401`.
pub(crate) fn relayer_auth(
    shared: &Shared,
    ex: &Exchange,
    parts: &Parts,
    body: &[u8],
) -> Result<String, Reject> {
    let h = |k: &str| parts.headers.get(k).and_then(|v| v.to_str().ok());
    if let Some(key) = h("relayer_api_key") {
        let owner = h("relayer_api_key_address").and_then(|a| a.parse::<Address>().ok());
        return match ex.programs.relayer_keys.get(key) {
            Some(o) if Some(*o) == owner => Ok(key.to_owned()),
            _ => Err(Reject::new(
                StatusCode::UNAUTHORIZED,
                "invalid relayer API key",
            )),
        };
    }
    builder_auth(shared, ex, parts, body)?;
    Ok(h("poly_builder_api_key").unwrap_or_default().to_owned())
}

fn str_field<'a>(o: &'a Value, k: &str) -> Result<&'a str, String> {
    o.get(k)
        .and_then(Value::as_str)
        .ok_or_else(|| format!("Invalid order payload: `{k}` must be a string"))
}

fn u64_str(o: &Value, k: &str) -> Result<u64, String> {
    let s = str_field(o, k)?;
    s.parse::<u64>()
        .map_err(|_| format!("Invalid order payload: `{k}` {s:?} is not an unsigned integer"))
}

fn address_field(o: &Value, k: &str) -> Result<Address, String> {
    let s = str_field(o, k)?;
    Address::from_str(s)
        .map_err(|_| format!("Invalid order payload: `{k}` {s:?} is not an address"))
}

fn bytes32_field(o: &Value, k: &str) -> Result<B256, String> {
    match o.get(k) {
        None | Some(Value::Null) => Ok(B256::ZERO),
        // The docs' example sends "" for zero metadata.
        Some(Value::String(s)) if s.is_empty() => Ok(B256::ZERO),
        Some(Value::String(s)) => B256::from_str(s)
            .map_err(|_| format!("Invalid order payload: `{k}` {s:?} is not 32 bytes of hex")),
        Some(_) => Err(format!("Invalid order payload: `{k}` must be a string")),
    }
}

/// The exchange's refusal of a non-deposit-wallet maker of an account that must trade from its
/// deposit wallet.
const DEPOSIT_WALLET_REQUIRED: &str =
    "maker address not allowed, please use the deposit wallet flow";

/// Parses one `{"order": {…}, "owner", "orderType", "postOnly", …}` object, checks the
/// owner, the maker/signer/signature-type consistency and the EIP-712 signature against the
/// exchange the market settles on, and returns what the matching engine needs.
pub(crate) fn parse_order(
    shared: &Shared,
    ex: &Exchange,
    key: &ApiKeyRec,
    v: &Value,
) -> Result<NewOrder, String> {
    parse_order_as(shared, ex, key, v, false)
}

/// As [`parse_order`] for the V1 order of an RFQ accept or approve, which the official
/// clients sign as V1 whatever the exchange version.
pub(crate) fn parse_rfq_order(
    shared: &Shared,
    ex: &Exchange,
    key: &ApiKeyRec,
    v: &Value,
) -> Result<NewOrder, String> {
    parse_order_as(shared, ex, key, v, true)
}

fn parse_order_as(
    shared: &Shared,
    ex: &Exchange,
    key: &ApiKeyRec,
    v: &Value,
    rfq: bool,
) -> Result<NewOrder, String> {
    let o = v
        .get("order")
        .filter(|o| o.is_object())
        .ok_or("Invalid order payload: missing `order` object")?;
    let owner = v.get("owner").and_then(Value::as_str).unwrap_or("");
    if owner != key.key {
        return Err("the order owner has to be the owner of the API KEY".into());
    }
    let order_type = match v.get("orderType").and_then(Value::as_str) {
        None => OrderType::Gtc,
        Some(t) => {
            OrderType::parse(t.as_bytes()).ok_or_else(|| format!("Invalid order type {t:?}"))?
        }
    };
    let post_only = v.get("postOnly").and_then(Value::as_bool).unwrap_or(false);

    // A V1 body (nonce/feeRateBps/taker, no timestamp) against a V2 exchange, or the reverse.
    let is_v1_body =
        o.get("timestamp").is_none() && (o.get("nonce").is_some() || o.get("feeRateBps").is_some());
    if if rfq {
        !is_v1_body
    } else {
        is_v1_body != (shared.clob_version == 1)
    } {
        return Err("order_version_mismatch".into());
    }

    let token_text = str_field(o, "tokenId")?;
    let token_id = TokenId::parse(token_text.as_bytes())
        .map_err(|e| format!("Invalid order payload: tokenId: {e}"))?;
    let (mi, _) = ex
        .token(token_text)
        .ok_or_else(|| format!("market not found for token id {token_text}"))?;
    let spec = &ex.markets[mi].spec;
    let version = if is_v1_body {
        ExchangeVersion::V1
    } else if spec.position_ids {
        ExchangeVersion::V3
    } else {
        ExchangeVersion::V2
    };

    let salt = o
        .get("salt")
        .and_then(Value::as_u64)
        .ok_or("Invalid order payload: `salt` must be a JSON number")?;
    let side_text = str_field(o, "side")?;
    let side = Side::parse(side_text.as_bytes())
        .ok_or_else(|| format!("Invalid order payload: side {side_text:?}"))?;
    let sig_type = o
        .get("signatureType")
        .and_then(Value::as_u64)
        .and_then(|n| u8::try_from(n).ok())
        .and_then(SignatureType::from_u8)
        .ok_or("Invalid order payload: `signatureType` must be 0, 1, 2 or 3")?;
    let maker = address_field(o, "maker")?;
    let signer = address_field(o, "signer")?;
    let expiration = match o.get("expiration") {
        None => 0,
        Some(Value::Number(n)) => n.as_u64().ok_or("Invalid order payload: `expiration`")?,
        Some(_) => u64_str(o, "expiration")?,
    };
    let mut order = Order::zeroed(version);
    order.salt = salt;
    order.maker = maker;
    order.signer = signer;
    order.token_id = token_id;
    order.maker_amount = u64_str(o, "makerAmount")?;
    order.taker_amount = u64_str(o, "takerAmount")?;
    order.expiration = expiration;
    order.side = side;
    order.signature_type = sig_type;
    if is_v1_body {
        order.taker = o
            .get("taker")
            .map_or(Ok(Address::ZERO), |_| address_field(o, "taker"))?;
        order.nonce = o.get("nonce").map_or(Ok(0), |_| u64_str(o, "nonce"))?;
        order.fee_rate_bps = o
            .get("feeRateBps")
            .map_or(Ok(0), |_| u64_str(o, "feeRateBps"))?;
    } else {
        order.timestamp_ms = u64_str(o, "timestamp")?;
        order.metadata = bytes32_field(o, "metadata")?;
        order.builder = bytes32_field(o, "builder")?;
    }

    // Who may sign what (protocol.md §1.5). POLY_ADDRESS (the key's address) is the EOA.
    let eoa =
        Address::from_str(&key.address).map_err(|_| "API key has no valid address".to_owned())?;
    // New API accounts trade from their deposit wallet (docs: deposit wallet migration); the
    // exchange's words for any other maker. Lock order: the exchange, then the rails.
    if !rfq
        && sig_type != SignatureType::Poly1271
        && shared.rails().is_deposit_wallet_only(&key.address)
    {
        return Err(DEPOSIT_WALLET_REQUIRED.into());
    }
    match sig_type {
        SignatureType::Eoa if maker != signer || signer != eoa => {
            return Err("invalid order: for signature type EOA (0) maker and signer must both be the API key's address".into());
        }
        SignatureType::PolyProxy | SignatureType::PolyGnosisSafe if signer != eoa => {
            return Err(
                "invalid order: the order signer has to be the address of the API KEY".into(),
            );
        }
        SignatureType::PolyProxy | SignatureType::PolyGnosisSafe => {
            // The funder must be the wallet the factories derive for this EOA (CREATE2); the
            // proxy factory exists on Polygon only, so Amoy proxies are taken as given.
            let expected = if sig_type == SignatureType::PolyProxy {
                derive_proxy_wallet(eoa, shared.chain)
            } else {
                Some(derive_safe_wallet(eoa, shared.chain))
            };
            if let Some(expected) = expected.filter(|w| *w != maker) {
                return Err(format!(
                    "invalid order: maker {maker} is not the {} wallet of {eoa} (expected {expected})",
                    if sig_type == SignatureType::PolyProxy {
                        "Polymarket proxy"
                    } else {
                        "Gnosis Safe"
                    },
                ));
            }
        }
        SignatureType::Poly1271 if version == ExchangeVersion::V1 => {
            return Err(
                "invalid order: signature type POLY_1271 (3) is not valid for V1 orders".into(),
            );
        }
        SignatureType::Poly1271 if maker != signer => {
            return Err("invalid order: for signature type POLY_1271 (3) signer must be the deposit wallet (= maker)".into());
        }
        _ => {}
    }

    let chain_id = shared.chain.id();
    let exchange = contracts(shared.chain, version).exchange_for(spec.neg_risk);
    let domain = compute_exchange_domain(version, chain_id, exchange);
    let struct_hash = order_struct_hash(&order);
    let digest = signing_hash(&domain, &struct_hash);
    let id = format!("{digest:#x}");

    if shared.verify {
        let sig_text = str_field(o, "signature")?;
        let ok = if sig_type == SignatureType::Poly1271 {
            let bytes =
                alloy_primitives::hex::decode(sig_text.strip_prefix("0x").unwrap_or(sig_text))
                    .unwrap_or_default();
            match session_envelope(&bytes) {
                // The owner's own: the key's address signs.
                None => verify_1271(&bytes, &domain, &struct_hash, chain_id, signer, eoa),
                // A session key authenticates with its own credentials and signs as the owner
                // would; the wallet accepts it while the owner's authorization for the CLOB
                // lasts.
                Some(Some((session, inner))) => {
                    session == eoa
                        && verify_1271(inner, &domain, &struct_hash, chain_id, signer, session)
                        && ex.programs.session_authorized(signer, session, now_s())
                }
                Some(None) => false,
            }
        } else {
            Signature::parse_hex(sig_text)
                .ok()
                .and_then(|sig| recover_address(&digest.0, &sig).ok())
                .is_some_and(|who| who == signer)
        };
        if !ok {
            return Err(format!(
                "invalid signature: order {id} is not signed by {signer:#x} for the {} exchange {exchange:#x} (domain version \"{}\", chain {chain_id})",
                if spec.neg_risk { "neg-risk" } else { "CTF" },
                version.domain_version(),
            ));
        }
    }

    Ok(NewOrder {
        id,
        owner: key.key.clone(),
        user: key.address.clone(),
        maker_address: format!("{maker}"),
        token_id: token_text.to_owned(),
        side,
        maker_amount: order.maker_amount,
        taker_amount: order.taker_amount,
        order_type,
        post_only,
        expiration,
        builder: order.builder,
        v1: is_v1_body,
    })
}

/// A session signer envelope (docs.polymarket.com/trading/session-keys):
/// `abi.encode(bytes32 signerId, uint256 kind, bytes inner) ‖ 0x6492…6492`. `None` when
/// `bytes` has no magic suffix; `Some(None)` for a malformed envelope or a kind other than
/// secp256k1 (0); else the session signer and the inner signature.
fn session_envelope(bytes: &[u8]) -> Option<Option<(Address, &[u8])>> {
    const MAGIC: [u8; 2] = [0x64, 0x92];
    let n = bytes.len();
    if n < 32 || bytes[n - 32..].chunks(2).any(|c| c != MAGIC) {
        return None;
    }
    let word = |i: usize| bytes.get(32 * i..32 * (i + 1));
    let num = |i: usize| {
        word(i).and_then(|w| {
            w[..24].iter().all(|&b| b == 0).then(|| {
                w[24..]
                    .iter()
                    .fold(0usize, |a, &b| (a << 8) | usize::from(b))
            })
        })
    };
    let parsed = (|| {
        let (id, kind, offset, len) = (word(0)?, num(1)?, num(2)?, num(3)?);
        let padded = len.checked_add(31)? / 32 * 32;
        let ok = kind == 0
            && offset == 0x60
            && n == 0xa0 + padded
            && id[..12].iter().all(|&b| b == 0)
            && id[12..].iter().any(|&b| b != 0);
        ok.then(|| (Address::from_slice(&id[12..]), &bytes[128..128 + len]))
    })();
    Some(parsed)
}

/// POLY_1271 (ERC-7739): `inner(65) ‖ domain(32) ‖ structHash(32) ‖ typeString ‖ len(u16 BE)`,
/// where the inner signature is `eoa`'s (the owner's, or its session key's) over the
/// `TypedDataSign` wrapper.
fn verify_1271(
    bytes: &[u8],
    domain: &B256,
    struct_hash: &B256,
    chain_id: u64,
    wallet: Address,
    eoa: Address,
) -> bool {
    let ty = ORDER_V2_TYPE.as_bytes();
    let want_len = 65 + 32 + 32 + ty.len() + 2;
    if bytes.len() != want_len {
        return false;
    }
    let mut inner = [0u8; 65];
    inner.copy_from_slice(&bytes[..65]);
    let Ok(inner) = Signature::from_bytes(inner) else {
        return false;
    };
    let tail_ok = &bytes[65..97] == domain.as_slice()
        && &bytes[97..129] == struct_hash.as_slice()
        && &bytes[129..129 + ty.len()] == ty
        && bytes[129 + ty.len()..] == (ty.len() as u16).to_be_bytes();
    let digest = signing_hash(
        domain,
        &typed_data_sign_struct_hash(struct_hash, chain_id, wallet),
    );
    tail_ok && recover_address(&digest.0, &inner).is_ok_and(|who| who == eoa)
}
