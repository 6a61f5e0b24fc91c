//! The relayer's deposit-wallet `WALLET` batches: `POST /submit` and
//! `GET /v1/account/transactions/{id}`, served on the simulator's host beside the
//! session-signer routes (programs.rs), sharing their builder-key check and the owner's
//! `WALLET` nonce.
//!
//! A batch is checked as the relayer and the wallet check it: a live builder key, type
//! `WALLET` addressed to the deposit-wallet factory, the owner's signature over the `Batch`
//! digest, a wallet no other owner signed for, a deadline still ahead, the owner's next nonce
//! ("batch nonce N does not match on-chain nonce M" otherwise, the relayer's words). Its calls
//! then run on the ledger as the wallet, all or none: a call that reverts refuses the whole
//! batch with its reason and spends no nonce (the simulator's relayer simulates before it
//! sends, so a failing batch never becomes a transaction). An accepted batch answers
//! `STATE_NEW` and is `STATE_CONFIRMED` with a transaction hash on lookup.
//!
//! Also served: a builder key or a Relayer API key (`RELAYER_API_KEY` +
//! `RELAYER_API_KEY_ADDRESS`) authenticates `/submit`, the nonce and transaction lookups;
//! `WALLET-CREATE` deploys the signer's deposit wallet (the factory's beacon wallet of
//! `from`), and `GET /deployed?address=…&type=WALLET` reports deployed wallets (created, or
//! used by an executed batch). A `/submit` with an `Idempotency-Key` the same caller already
//! used is answered with the first answer and not executed again (the same body), or refused
//! with `422` (another body); only executed requests are remembered.

use alloy_primitives::{Address, B256, U256};
use hyper::StatusCode;
use hyper::http::request::Parts;
use serde_json::{Value, json};

use polyclob::onchain::Call;
use polyclob::relayer::{MAX_METADATA_LEN, WalletBatch};
use polyclob::sign::wallet::DEPOSIT_WALLET_FACTORY;
use polyclob::sign::wallet::derive_deposit_wallets;

use super::auth::relayer_auth;
use super::http::{Reject, Resp, error_response, ok, q};
use super::shared::Shared;
use crate::exchange::rng;
use crate::exchange::state::now_s;

/// The most calls one batch may carry here (a bound on the work one request makes).
const MAX_CALLS: usize = 64;

fn bad(message: &str) -> Resp {
    error_response(StatusCode::BAD_REQUEST, message)
}

/// A `0x` hex string of bytes (empty data allowed).
fn hex_bytes(s: &str) -> Option<Vec<u8>> {
    alloy_primitives::hex::decode(s.strip_prefix("0x")?).ok()
}

/// The batch a `WALLET` envelope carries, and its signature; `Err` is the refusal message.
fn parse(v: &Value) -> Result<(Address, WalletBatch, polyclob::sign::Signature), String> {
    let text = |o: &Value, k: &str| o.get(k).and_then(Value::as_str).map(str::to_owned);
    let kind = text(v, "type").unwrap_or_default();
    if kind != "WALLET" {
        return Err(format!(
            "unsupported transaction type {kind:?}: the simulator's relayer takes WALLET batches"
        ));
    }
    let from = text(v, "from")
        .and_then(|s| s.parse::<Address>().ok())
        .ok_or("Invalid payload: from must be an address")?;
    let to = text(v, "to").and_then(|s| s.parse::<Address>().ok());
    if to != Some(DEPOSIT_WALLET_FACTORY) {
        return Err("Invalid payload: to must be the deposit wallet factory".to_owned());
    }
    let nonce = text(v, "nonce")
        .filter(|s| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit()))
        .and_then(|s| s.parse::<U256>().ok())
        .ok_or("Invalid payload: nonce must be a decimal string")?;
    let signature = text(v, "signature")
        .and_then(|s| polyclob::sign::Signature::parse_hex(&s).ok())
        .ok_or("Invalid payload: signature must be 65 bytes of hex")?;
    let metadata = text(v, "metadata").unwrap_or_default();
    if metadata.chars().count() > MAX_METADATA_LEN {
        return Err(format!(
            "Invalid payload: metadata is longer than {MAX_METADATA_LEN} characters"
        ));
    }
    let p = v
        .get("depositWalletParams")
        .filter(|p| p.is_object())
        .ok_or("Invalid payload: depositWalletParams is required")?;
    let wallet = text(p, "depositWallet")
        .and_then(|s| s.parse::<Address>().ok())
        .ok_or("Invalid payload: depositWallet must be an address")?;
    let deadline = text(p, "deadline")
        .and_then(|s| s.parse::<u64>().ok())
        .ok_or("Invalid payload: deadline must be Unix seconds")?;
    let raw = p
        .get("calls")
        .and_then(Value::as_array)
        .filter(|a| !a.is_empty() && a.len() <= MAX_CALLS)
        .ok_or_else(|| format!("Invalid payload: calls must hold 1 to {MAX_CALLS} calls"))?;
    let mut calls = Vec::with_capacity(raw.len());
    for (i, c) in raw.iter().enumerate() {
        let call = (|| {
            let target = text(c, "target")?.parse::<Address>().ok()?;
            let value = text(c, "value")?.parse::<U256>().ok()?;
            let data = hex_bytes(&text(c, "data")?)?;
            Some(Call::new(target, data).with_value(value))
        })()
        .ok_or_else(|| format!("Invalid payload: call {i} needs target, value and hex data"))?;
        calls.push(call);
    }
    let batch = WalletBatch::new(wallet, calls, nonce, deadline).metadata(metadata);
    Ok((from, batch, signature))
}

/// `POST /submit`.
pub(crate) fn submit(shared: &Shared, parts: &Parts, body: &[u8]) -> Resp {
    let caller = match relayer_auth(shared, &shared.ex(), parts, body) {
        Ok(c) => c,
        Err(r) => return r.into_response(),
    };
    let key = parts
        .headers
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|k| !k.is_empty())
        .map(|k| (caller, k.to_owned()));
    let hash = alloy_primitives::keccak256(body);
    if let Some(k) = &key {
        if let Some((seen, answer)) = shared.ex().programs.relayer.answered.get(k) {
            return if *seen == hash {
                ok(answer)
            } else {
                error_response(
                    StatusCode::UNPROCESSABLE_ENTITY,
                    "Idempotency-Key was used with another request body",
                )
            };
        }
    }
    let Ok(v) = serde_json::from_slice::<Value>(body) else {
        return bad("Invalid payload: expected a JSON object");
    };
    let answer = if v.get("type").and_then(Value::as_str) == Some("WALLET-CREATE") {
        wallet_create(shared, &v, hash)
    } else {
        wallet_batch(shared, &v, body)
    };
    match answer {
        Ok(a) => {
            if let Some(k) = key {
                shared
                    .ex()
                    .programs
                    .relayer
                    .answered
                    .insert(k, (hash, a.clone()));
            }
            ok(&a)
        }
        Err(r) => r.into_response(),
    }
}

/// `WALLET-CREATE`: deploys `from`'s deposit wallet (the factory's beacon wallet).
fn wallet_create(shared: &Shared, v: &Value, seed: B256) -> Result<Value, Reject> {
    let text = |k: &str| v.get(k).and_then(Value::as_str);
    let from = text("from")
        .and_then(|s| s.parse::<Address>().ok())
        .ok_or_else(|| Reject::bad("Invalid payload: from must be an address"))?;
    if text("to").and_then(|s| s.parse::<Address>().ok()) != Some(DEPOSIT_WALLET_FACTORY) {
        return Err(Reject::bad(
            "Invalid payload: to must be the deposit wallet factory",
        ));
    }
    if text("metadata").unwrap_or_default().chars().count() > MAX_METADATA_LEN {
        return Err(Reject::bad(format!(
            "Invalid payload: metadata is longer than {MAX_METADATA_LEN} characters"
        )));
    }
    let wallet = derive_deposit_wallets(from)[1];
    let mut ex = shared.ex();
    if !ex.programs.relayer.deployed.insert(wallet) {
        return Err(Reject::bad(format!(
            "deposit wallet {wallet} is already deployed"
        )));
    }
    let id = rng::uuid_from(seed.as_slice());
    let hash = format!("{:#x}", alloy_primitives::keccak256(id.as_bytes()));
    ex.programs.relayer.done.insert(id.clone(), hash);
    Ok(json!({"transactionID": id, "state": "STATE_NEW"}))
}

/// A `WALLET` batch: checked, then run on the ledger as the wallet, all or none.
fn wallet_batch(shared: &Shared, v: &Value, body: &[u8]) -> Result<Value, Reject> {
    let (from, batch, sig) = parse(v).map_err(Reject::bad)?;
    let digest = batch.digest(shared.chain);
    match polyclob::sign::eip712::recover_address(&digest.0, &sig) {
        Ok(signer) if signer == from => {}
        _ => {
            return Err(Reject::bad(
                "invalid signature: the batch is not signed by `from`",
            ));
        }
    }
    if batch.deadline <= now_s() {
        return Err(Reject::bad("the batch deadline has passed"));
    }
    let mut ex = shared.ex();
    let Some(next) = ex.programs.wallet_owner_nonce(from, batch.wallet) else {
        return Err(Reject::bad(
            "the signature is not the deposit wallet owner's",
        ));
    };
    if U256::from(next) != batch.nonce {
        return Err(Reject::bad(format!(
            "batch nonce {} does not match on-chain nonce {next}",
            batch.nonce
        )));
    }
    let ledger = ex.ledger_mut();
    let snapshot = ledger.balances.clone();
    for (i, call) in batch.calls.iter().enumerate() {
        if let Err(r) = ledger.apply(batch.wallet, call) {
            ledger.balances = snapshot;
            return Err(Reject::bad(format!(
                "transaction simulation failed: call {i} reverted: {}",
                r.0
            )));
        }
    }
    ex.programs.spend_wallet_nonce(from, batch.wallet);
    let seed = alloy_primitives::keccak256(body);
    let id = rng::uuid_from(seed.as_slice());
    let hash = format!("{:#x}", alloy_primitives::keccak256(sig.to_hex_string()));
    ex.programs.relayer.done.insert(id.clone(), hash);
    ex.programs.relayer.deployed.insert(batch.wallet);
    Ok(json!({"transactionID": id, "state": "STATE_NEW"}))
}

/// `GET /deployed?address=…&type=WALLET`: public, as the SDK calls it without a key.
pub(crate) fn deployed(shared: &Shared, query: &[(String, String)]) -> Resp {
    let Some(wallet) = q(query, "address").and_then(|a| a.parse::<Address>().ok()) else {
        return bad("address is required");
    };
    if q(query, "type") != Some("WALLET") {
        return bad("the simulator's relayer tracks deposit wallets only: type=WALLET");
    }
    let deployed = shared.ex().programs.relayer.deployed.contains(&wallet);
    ok(&json!({ "deployed": deployed }))
}

/// `GET /v1/account/transactions/{id}`.
pub(crate) fn transaction(shared: &Shared, parts: &Parts, id: &str) -> Resp {
    let ex = shared.ex();
    if let Err(r) = relayer_auth(shared, &ex, parts, b"") {
        return r.into_response();
    }
    match ex.programs.relayer.done.get(id) {
        Some(hash) => ok(&json!({
            "transaction_id": id,
            "transaction_hash": hash,
            "state": "STATE_CONFIRMED",
        })),
        None => error_response(StatusCode::NOT_FOUND, "transaction not found"),
    }
}
