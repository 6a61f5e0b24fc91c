//! Gamma's reads beside market discovery, served from the simulator's state: comments
//! (seeded with `SimHandle::comment`; `/comments`, `/comments/{id}`,
//! `/comments/user_address/{address}`), public profiles of every wallet that placed an order
//! or commented (`/public-profile`), the one series all its events belong to (`/series`,
//! `/series/{id}`, `/series-summary/{id}`, `/series-summary/slug/{slug}`), the teams of the
//! sports socket's games (`/teams`, `/teams/{id}`), tags by id and slug, a market's and an
//! event's tags, related tags, and `/sports/market-types`.

use std::collections::BTreeSet;

use alloy_primitives::{Address, U256};
use hyper::StatusCode;
use serde_json::{Value, json};

use super::http::{Resp, error_response, json_response, q};
use super::shared::Shared;
use super::sports::GAMES;
use crate::exchange::state::Exchange;
use crate::scenario::seeded::{CommentSeed, Seeded};

/// The simulator's one series: every event recurs in it.
/// The one tag every market and event carries.
pub(super) const TAG: (&str, &str, &str) = ("1", "Simulated", "simulated");

pub(super) fn tag() -> Value {
    json!({"id": TAG.0, "label": TAG.1, "slug": TAG.2, "forceShow": false})
}

pub(crate) const SERIES: (&str, &str, &str) = ("10", "sim-series", "Simulated series");

/// Serves one of the routes above; `None` for any other path.
pub(super) fn route(
    shared: &Shared,
    ex: &Exchange,
    path: &str,
    query: &[(String, String)],
) -> Option<Resp> {
    let seeded = shared.seeded();
    let not_found = || {
        json_response(
            StatusCode::NOT_FOUND,
            json!({"type": "not found", "error": "not found"}).to_string(),
        )
    };
    let found = |v: Option<Value>| v.map_or_else(not_found, |v| ok(&v));
    Some(match path {
        "/comments" => comments(ex, &seeded, query),
        "/public-profile" => match q(query, "address") {
            Some(a) => found(profile(ex, &seeded, &a.to_ascii_lowercase())),
            None => bad("address is required"),
        },
        "/series" => ok(&json!([series(ex)])),
        "/teams" => teams(query),
        "/sports/market-types" => ok(&json!({"marketTypes": ["moneyline", "spreads", "totals"]})),
        _ => {
            if let Some(rest) = path.strip_prefix("/comments/user_address/") {
                let mut mine: Vec<&CommentSeed> = seeded
                    .comments
                    .iter()
                    .filter(|c| c.author.eq_ignore_ascii_case(rest))
                    .collect();
                mine.reverse();
                offset_page(
                    mine.iter()
                        .map(|c| comment(ex, &seeded, c, false))
                        .collect(),
                    query,
                )
            } else if let Some(id) = path.strip_prefix("/comments/") {
                let Ok(id) = id.parse::<u64>() else {
                    return Some(not_found());
                };
                let thread: Vec<Value> = seeded
                    .comments
                    .iter()
                    .filter(|c| c.id == id || c.parent == Some(id))
                    .map(|c| comment(ex, &seeded, c, q(query, "get_positions") == Some("true")))
                    .collect();
                if thread.is_empty() {
                    not_found()
                } else {
                    ok(&json!(thread))
                }
            } else if let Some(id) = path.strip_prefix("/series-summary/slug/") {
                found((id == SERIES.1).then(|| summary(ex)))
            } else if let Some(id) = path.strip_prefix("/series-summary/") {
                found((id == SERIES.0).then(|| summary(ex)))
            } else if let Some(id) = path.strip_prefix("/series/") {
                found((id == SERIES.0).then(|| series(ex)))
            } else if let Some(id) = path.strip_prefix("/teams/") {
                found(
                    team_rows()
                        .into_iter()
                        .find(|t| id.parse().is_ok_and(|n: u64| t["id"].as_u64() == Some(n))),
                )
            } else if let Some(slug) = path.strip_prefix("/tags/slug/") {
                found((slug == tag()["slug"]).then(tag))
            } else if let Some(rest) = path.strip_prefix("/tags/") {
                match rest.split_once('/') {
                    None => found((rest == tag()["id"]).then(tag)),
                    // The one tag has no related tags.
                    Some((id, "related-tags/tags")) if id == tag()["id"] => ok(&json!([])),
                    _ => not_found(),
                }
            } else if let Some((kind, id)) = tags_of(path) {
                let known = match kind {
                    "markets" => (1..=ex.markets.len()).any(|n| n.to_string() == id),
                    _ => (0..ex.markets.len()).any(|mi| (1000 + mi).to_string() == id),
                };
                if known {
                    ok(&json!([tag()]))
                } else {
                    not_found()
                }
            } else {
                return None;
            }
        }
    })
}

fn ok(v: &Value) -> Resp {
    json_response(StatusCode::OK, v.to_string())
}

fn bad(msg: &str) -> Resp {
    error_response(StatusCode::BAD_REQUEST, msg)
}

/// `("markets" | "events", id)` of `/markets/{id}/tags` and `/events/{id}/tags`.
fn tags_of(path: &str) -> Option<(&str, &str)> {
    let rest = path.strip_suffix("/tags")?;
    for kind in ["markets", "events"] {
        if let Some(id) = rest.strip_prefix("/").and_then(|r| r.strip_prefix(kind)) {
            return id.strip_prefix('/').map(|id| (kind, id));
        }
    }
    None
}

/// `limit` rows from `offset` (Gamma's list paging).
fn offset_page(rows: Vec<Value>, query: &[(String, String)]) -> Resp {
    let num = |k: &str, d: usize| q(query, k).and_then(|v| v.parse().ok()).unwrap_or(d);
    let rows: Vec<Value> = rows
        .into_iter()
        .skip(num("offset", 0))
        .take(num("limit", 20))
        .collect();
    ok(&json!(rows))
}

fn iso(secs: u64) -> String {
    polyclob::types::Timestamp::from_millis(secs.saturating_mul(1_000)).to_string()
}

fn comments(ex: &Exchange, seeded: &Seeded, query: &[(String, String)]) -> Resp {
    let (Some(kind), Some(id)) = (q(query, "parent_entity_type"), q(query, "parent_entity_id"))
    else {
        return json_response(
            StatusCode::UNPROCESSABLE_ENTITY,
            json!({"type": "validation", "error": "parent_entity_type and parent_entity_id are required"}).to_string(),
        );
    };
    if !matches!(kind, "Event" | "Series" | "market") {
        return bad("parent_entity_type must be Event, Series or market");
    }
    // Comments are seeded on events; a series' are those of its events.
    let on = |c: &&CommentSeed| match kind {
        "Event" => c.event_id == id,
        "Series" => id == SERIES.0,
        _ => false,
    };
    let mut rows: Vec<&CommentSeed> = seeded.comments.iter().filter(on).collect();
    rows.reverse(); // newest first
    let positions = q(query, "get_positions") == Some("true");
    offset_page(
        rows.iter()
            .map(|c| comment(ex, seeded, c, positions))
            .collect(),
        query,
    )
}

fn comment(ex: &Exchange, seeded: &Seeded, c: &CommentSeed, positions: bool) -> Value {
    let reply_to = c
        .parent
        .and_then(|p| seeded.comments.iter().find(|x| x.id == p))
        .map(|p| p.author.clone());
    let mut author = profile(ex, seeded, &c.author).unwrap_or_else(|| json!({}));
    author["isMod"] = json!(false);
    author["isCreator"] = json!(false);
    author["baseAddress"] = json!(c.author);
    author["positions"] = json!(if positions {
        held(ex, &c.author, &c.event_id)
    } else {
        Vec::new()
    });
    json!({
        "id": c.id.to_string(), "body": c.body, "parentEntityType": "Event",
        "parentEntityID": c.event_id.parse::<u64>().unwrap_or(0),
        "parentCommentID": c.parent.map(|p| p.to_string()), "userAddress": c.author,
        "replyAddress": reply_to, "createdAt": iso(c.at), "updatedAt": iso(c.at),
        "profile": author, "reactions": [], "reportCount": 0, "reactionCount": 0,
    })
}

/// The author's holdings in the event's market, `positionSize` in 6-decimal base units.
fn held(ex: &Exchange, author: &str, event_id: &str) -> Vec<Value> {
    let (Ok(who), Some(mi)) = (
        author.parse::<Address>(),
        event_id
            .parse::<usize>()
            .ok()
            .and_then(|e| e.checked_sub(1000)),
    ) else {
        return Vec::new();
    };
    let Some(m) = ex.markets.get(mi) else {
        return Vec::new();
    };
    m.spec
        .tokens
        .iter()
        .filter_map(|t| {
            let id = t.token_id().parse::<U256>().ok()?;
            let n = ex.ledger().token_of(who, id);
            (!n.is_zero()).then(|| json!({"tokenId": t.token_id(), "positionSize": n.to_string()}))
        })
        .collect()
}

/// Every wallet the simulator knows: order makers and signers, and comment authors.
fn known(ex: &Exchange, seeded: &Seeded) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = ex
        .orders
        .values()
        .flat_map(|o| {
            [
                o.maker_address.to_ascii_lowercase(),
                o.user.to_ascii_lowercase(),
            ]
        })
        .collect();
    out.extend(seeded.comments.iter().map(|c| c.author.clone()));
    out
}

fn profile(ex: &Exchange, seeded: &Seeded, address: &str) -> Option<Value> {
    if !known(ex, seeded).contains(address) {
        return None;
    }
    let tail = address.get(address.len().saturating_sub(4)..).unwrap_or("");
    Some(json!({
        "createdAt": iso(crate::scenario::seeded::unix_secs()), "proxyWallet": address,
        "profileImage": null, "displayUsernamePublic": true, "bio": null,
        "pseudonym": format!("Sim-{tail}"), "name": format!("sim-{tail}"),
        "users": [{"id": u64::from_str_radix(tail, 16).unwrap_or(0).to_string(), "creator": false, "mod": false}],
        "xUsername": null, "verifiedBadge": false,
    }))
}

/// The series' dates: every market's end date, sorted.
fn dates(ex: &Exchange) -> Vec<String> {
    let set: BTreeSet<String> = ex
        .markets
        .iter()
        .filter_map(|m| m.spec.end_date_iso.get(..10).map(str::to_owned))
        .collect();
    set.into_iter().collect()
}

fn series(ex: &Exchange) -> Value {
    let events: Vec<Value> = (0..ex.markets.len())
        .map(|mi| json!({"id": (1000 + mi).to_string(), "slug": ex.markets[mi].spec.slug}))
        .collect();
    json!({"id": SERIES.0, "slug": SERIES.1, "title": SERIES.2, "ticker": SERIES.1,
        "seriesType": "single", "recurrence": "daily", "active": true, "closed": false,
        "events": events})
}

fn summary(ex: &Exchange) -> Value {
    let dates = dates(ex);
    // Week of the year, from the day of the year (`YYYY-MM-DD` → days since January 1st).
    let week = |d: &str| -> u32 {
        let (m, day) = (
            d[5..7].parse::<u32>().unwrap_or(1),
            d[8..10].parse::<u32>().unwrap_or(1),
        );
        const BEFORE: [u32; 12] = [0, 31, 59, 90, 120, 151, 181, 212, 243, 273, 304, 334];
        (BEFORE[(m as usize - 1).min(11)] + day - 1) / 7 + 1
    };
    let weeks: Vec<u32> = dates.iter().map(|d| week(d)).collect();
    let today = iso(crate::scenario::seeded::unix_secs());
    let open = dates.iter().find(|d| d.as_str() >= &today[..10]);
    json!({"id": SERIES.0, "title": SERIES.2, "slug": SERIES.1, "eventDates": dates,
        "eventWeeks": weeks, "earliest_open_week": open.map(|d| week(d)),
        "earliest_open_date": open, "volume": 0.0, "volume24hr": 0.0})
}

/// The sports socket's games' teams.
fn team_rows() -> Vec<Value> {
    let mut out = Vec::new();
    for g in &GAMES {
        for name in [g.home, g.away] {
            out.push(
                json!({"id": out.len() + 1, "name": name, "league": g.league, "record": "0-0",
                "logo": "", "abbreviation": name, "alias": name,
                "createdAt": "2026-01-01T00:00:00Z", "updatedAt": "2026-01-01T00:00:00Z"}),
            );
        }
    }
    out
}

fn teams(query: &[(String, String)]) -> Resp {
    let leagues: Vec<&str> = query
        .iter()
        .filter(|(k, _)| k == "league")
        .map(|(_, v)| v.as_str())
        .collect();
    let rows = team_rows()
        .into_iter()
        .filter(|t| leagues.is_empty() || leagues.iter().any(|l| t["league"] == *l))
        .collect();
    offset_page(rows, query)
}
