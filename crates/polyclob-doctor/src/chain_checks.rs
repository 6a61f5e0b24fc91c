//! `--rpc URL`: the contract table against a chain. Every address of the tables polyclob uses
//! for the chain's id (the CTF generation, `ExchangeVersion::V2`, and the Protocol V2 one,
//! `V3`; `V1` is the superseded generation whose orders are refused) has code, and each
//! contract polyclob reads answers one cheap read with the selector polyclob sends.

use polyclob::U256;
use polyclob::onchain::{Call, Rpc, ctf, erc20, erc1155};
use polyclob::types::{Address, B256, Chain, ExchangeVersion, contracts};
use serde_json::{Value, json};

use crate::Report;
use crate::checks::Ctx;

/// One address of the tables: the generation, the field's name.
struct Entry {
    version: &'static str,
    name: &'static str,
    address: Address,
}

impl Entry {
    fn label(&self) -> String {
        format!("{} {} {}", self.version, self.name, self.address)
    }
}

/// The read polyclob makes on a contract of the kind `name` names, when it makes one: ERC-20
/// `balanceOf` on the collateral, `getOutcomeSlotCount` on ConditionalTokens, ERC-1155
/// `balanceOf` on the PositionManager. Each answers one 32-byte word on any argument.
fn read_for(name: &str, at: Address) -> Option<(&'static str, Call)> {
    match name {
        "collateral" => Some(("balanceOf(address)", erc20::balance_of(at, Address::ZERO))),
        "conditional_tokens" => Some((
            "getOutcomeSlotCount(bytes32)",
            ctf::outcome_slot_count(at, B256::ZERO),
        )),
        "position_manager" => Some((
            "balanceOf(address,uint256)",
            erc1155::balance_of(at, Address::ZERO, U256::ZERO),
        )),
        _ => None,
    }
}

/// A node URL as the doctor prints it: scheme and host only. A hosted node's URL often
/// carries an API key (in its path, its query or before an `@`), and the doctor never prints
/// a secret.
///
/// ```
/// use polyclob_doctor::rpc_origin;
/// assert_eq!(rpc_origin("https://u:pw@polygon.example/v2/KEY?x=1"), "https://polygon.example/…");
/// assert_eq!(rpc_origin("http://127.0.0.1:8545"), "http://127.0.0.1:8545");
/// ```
#[must_use]
pub fn rpc_origin(url: &str) -> String {
    let Some(at) = url.find("://") else {
        return "<the --rpc URL>".to_owned();
    };
    let rest = &url[at + 3..];
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let more = if end < rest.len() { "/…" } else { "" };
    format!("{}{host}{more}", &url[..at + 3])
}

/// `chain.id`, `chain.code`, `chain.interface`; nothing without `--rpc`.
pub(crate) async fn contracts_on_chain(ctx: &Ctx<'_>, report: &mut Report) {
    let Some(url) = &ctx.opts.rpc else {
        report.warn("chain", "no --rpc URL: the contract table is not checked");
        return;
    };
    // Error texts may quote the URL: only its origin is printed.
    let shown = rpc_origin(url);
    let text = |e: &dyn std::fmt::Display| e.to_string().replace(url.as_str(), &shown);
    let rpc = match Rpc::new(url.as_str()) {
        Ok(r) => r,
        Err(e) => {
            report.fail("chain.id", format!("--rpc {shown}: {}", text(&e)));
            return;
        }
    };
    let chain = match rpc.chain_id().await {
        Ok(id) => match Chain::from_id(id) {
            Some(c) => {
                report.pass("chain.id", format!("eth_chainId {id} ({c:?}) at {shown}"));
                c
            }
            None => {
                report.fail(
                    "chain.id",
                    format!("eth_chainId {id}: polyclob has contract tables for Polygon (137) and Amoy (80002) only"),
                );
                return;
            }
        },
        Err(e) => {
            report.fail("chain.id", format!("eth_chainId: {}", text(&e)));
            return;
        }
    };

    let mut entries: Vec<Entry> = Vec::new();
    for (version, v) in [("v2", ExchangeVersion::V2), ("v3", ExchangeVersion::V3)] {
        for (name, address) in contracts(chain, v).entries() {
            if !entries.iter().any(|e| e.address == address) {
                entries.push(Entry {
                    version,
                    name,
                    address,
                });
            }
        }
    }

    let calls: Vec<(&str, Value)> = entries
        .iter()
        .map(|e| ("eth_getCode", json!([e.address.to_string(), "latest"])))
        .collect();
    let answers = match rpc.batch(&calls).await {
        Ok(a) => a,
        Err(e) => {
            report.fail("chain.code", format!("eth_getCode: {}", text(&e)));
            return;
        }
    };
    let mut missing = Vec::new();
    for (e, answer) in entries.iter().zip(&answers) {
        match answer {
            Ok(Value::String(code)) if code.len() > 2 => {}
            Ok(Value::String(_)) => missing.push(format!("no code at {}", e.label())),
            Ok(other) => missing.push(format!("{}: eth_getCode answered {other}", e.label())),
            Err(err) => missing.push(format!("{}: {}", e.label(), text(err))),
        }
    }
    match missing.first() {
        None => report.pass(
            "chain.code",
            format!(
                "all {} addresses of the {chain:?} V2 and V3 tables have code",
                entries.len()
            ),
        ),
        Some(first) => report.fail(
            "chain.code",
            format!(
                "{} of {} addresses of the {chain:?} tables fail: {first}",
                missing.len(),
                entries.len()
            ),
        ),
    }

    let mut read = Vec::new();
    let mut broken = Vec::new();
    for e in &entries {
        let Some((signature, call)) = read_for(e.name, e.address) else {
            continue;
        };
        match rpc.call(&call, None).await {
            Ok(word) if word.len() == 32 => read.push(format!("{} {signature}", e.name)),
            Ok(other) => broken.push(format!(
                "{} {signature} answered {} bytes, not one word",
                e.label(),
                other.len()
            )),
            Err(err) => broken.push(format!("{} {signature}: {}", e.label(), text(&err))),
        }
    }
    match broken.first() {
        None if read.is_empty() => report.warn(
            "chain.interface",
            "no contract polyclob reads is in the table: not checked",
        ),
        None => report.pass(
            "chain.interface",
            format!(
                "{} (the exchanges, adapters and Router take only writes from polyclob: code checked)",
                read.join(", ")
            ),
        ),
        Some(first) => report.fail(
            "chain.interface",
            format!("{} read(s) failed, first: {first}", broken.len()),
        ),
    }
}
