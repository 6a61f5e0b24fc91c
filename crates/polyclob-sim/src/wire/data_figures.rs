//! The Data API's computed figures, served from the simulator's own trades and ledger: the
//! boards (`/v2/leaderboard` and its `?user=` standing, `/v2/builders/leaderboard`,
//! `/v2/builders/volume`, `/v2/biggest-winners`), a wallet's `/v2/user-pnl`, `/v2/user-stats`,
//! `/v2/user-volume` and `/v2/approvals`, `/v2/live-volume`, `/v2/status`, and the combo rows
//! (`/v2/positions/combos`, `/v2/activity/combos`, from combos seeded with
//! `SimHandle::seed_combo`: the simulator trades no combos).
//!
//! PnL is a replay of each wallet's own fills by the average-cost method: a buy adds its cost,
//! a sell realizes `size × (price − average)`; open shares are marked at the token's last
//! taker price, or at the payout once the market resolved. The finite board windows (`day`,
//! `week`, `month`) rank the marked equity change over the window (now less the window's
//! start), `all` the realized figure, as the docs define them. Fees and rebates are not in
//! the replay (the simulator's fee model is not part of it): their atoms are `null`
//! ("uncovered") on the PnL points; a fee-aware cost basis plugs into [`replay`] (a buy's
//! cost and a sale's proceeds net of the fill's fee).

use std::collections::{BTreeMap, BTreeSet};

use alloy_primitives::{Address, B256, U256};
use serde_json::{Value, json};

use super::data_api::{FillRow, ONE, bad, fills, num, ok, page};
use super::http::q;
use super::shared::Shared;
use crate::exchange::state::{Exchange, SEED_ADDRESS};
use crate::scenario::seeded::{ComboSeed, Seeded, unix_secs};
use polyclob::types::Side;

type Resp = super::http::Resp;

const DAY: u64 = 86_400;

/// Serves one of the routes above; `None` for any other path.
pub(super) fn route(
    shared: &Shared,
    ex: &Exchange,
    path: &str,
    query: &[(String, String)],
    user: Option<&str>,
) -> Option<Resp> {
    let now = unix_secs();
    let seeded = shared.seeded();
    let need_user = || bad("user", "user is required");
    Some(match path {
        "/v2/status" => status(ex, now),
        "/v2/approvals" => match user {
            Some(u) => approvals(ex, u, now),
            None => need_user(),
        },
        "/v2/leaderboard" => match window(query, "time_period") {
            Err(r) => *r,
            Ok(w) => leaderboard(ex, &seeded, query, user, w, now),
        },
        "/v2/builders/leaderboard" => match window(query, "time_period") {
            Err(r) => *r,
            Ok(w) => builders(ex, query, w, now),
        },
        "/v2/builders/volume" => builder_volume(ex, query),
        "/v2/biggest-winners" => match window(query, "time_period") {
            Err(r) => *r,
            Ok(w) => {
                let rows = wins(ex, &seeded, now)
                    .into_iter()
                    .filter(|w0| w.is_none_or(|w| w0.resolved_at + w >= now))
                    .enumerate()
                    .map(|(i, w)| w.to_json(i + 1))
                    .collect();
                page(rows, query)
            }
        },
        "/v2/user-pnl" => match user.or_else(|| q(query, "user_address")) {
            Some(u) => user_pnl(ex, &seeded, query, &u.to_ascii_lowercase(), now),
            None => need_user(),
        },
        "/v2/user-stats" => match user {
            Some(u) => user_stats(ex, &seeded, u, now),
            None => need_user(),
        },
        "/v2/user-volume" => match user {
            Some(u) => user_volume(ex, query, u),
            None => need_user(),
        },
        "/v2/live-volume" => live_volume(ex, query),
        "/v2/positions/combos" | "/v2/activity/combos" => match user {
            Some(u) => combos(ex, &seeded, query, u, path == "/v2/activity/combos"),
            None => need_user(),
        },
        _ => return None,
    })
}

/// The board window in seconds (`None` = `all`), or the `400` (boxed: a response is large).
fn window(query: &[(String, String)], key: &str) -> Result<Option<u64>, Box<Resp>> {
    match q(query, key).unwrap_or("day") {
        "day" => Ok(Some(DAY)),
        "week" => Ok(Some(7 * DAY)),
        "month" => Ok(Some(30 * DAY)),
        "all" => Ok(None),
        other => Err(Box::new(bad(key, &format!("unknown {key} {other:?}")))),
    }
}

/// One wallet's position in one token during the replay.
#[derive(Debug, Default, Clone, Copy)]
struct Held {
    /// Micro-shares.
    shares: i128,
    /// Micro-pUSD paid for them.
    cost: i128,
}

/// A wallet's fills replayed up to a time.
#[derive(Debug, Default, Clone)]
struct Replay {
    held: BTreeMap<(usize, usize), Held>,
    /// Micro-pUSD realized by sales.
    realized: i128,
    /// Micro-shares filled, both sides.
    volume: i128,
    /// Micro-pUSD filled.
    volume_usdc: i128,
    trades: i64,
    markets: BTreeSet<usize>,
    first: Option<u64>,
}

/// Replays `wallet`'s fills of `all` up to `until` (unix seconds, inclusive).
fn replay(all: &[FillRow], wallet: &str, until: u64) -> Replay {
    let mut r = Replay::default();
    for f in all.iter().filter(|f| f.wallet == wallet && f.time <= until) {
        let size = i128::from(f.size);
        let cash = size * i128::from(f.price) / ONE;
        r.volume += size;
        r.volume_usdc += cash;
        r.trades += 1;
        r.markets.insert(f.market);
        r.first.get_or_insert(f.time);
        let h = r.held.entry((f.market, f.token)).or_default();
        match f.side {
            Side::Buy => {
                h.shares += size;
                h.cost += cash;
            }
            Side::Sell => {
                let sold = size.min(h.shares.max(0));
                let basis = if h.shares > 0 {
                    h.cost * sold / h.shares
                } else {
                    0
                };
                r.realized += cash - basis;
                h.cost -= basis;
                h.shares -= sold;
            }
        }
    }
    r
}

/// The mark of token `(market, token)` at `at`: its payout once resolved by then, else its
/// last taker price up to then.
fn mark(ex: &Exchange, all: &[FillRow], seeded: &Seeded, key: (usize, usize), at: u64) -> i128 {
    let spec = &ex.markets[key.0].spec;
    let resolved = seeded
        .resolved_at
        .get(&spec.condition_id.to_ascii_lowercase())
        .is_some_and(|&t| t <= at);
    if resolved && let Some(p) = ex.ledger().payouts(&spec.condition_id) {
        return i128::from(p[key.1]) * ONE;
    }
    all.iter()
        .rev()
        .find(|f| f.taker && (f.market, f.token) == key && f.time <= at)
        .map_or(0, |f| i128::from(f.price))
}

impl Replay {
    /// Micro-pUSD: the open shares at their marks at `at`, less what they cost.
    fn unrealized(&self, ex: &Exchange, all: &[FillRow], seeded: &Seeded, at: u64) -> i128 {
        self.held
            .iter()
            .filter(|(_, h)| h.shares > 0)
            .map(|(k, h)| h.shares * mark(ex, all, seeded, *k, at) / ONE - h.cost)
            .sum()
    }
}

/// Every wallet that traded (the simulator's own liquidity excepted).
fn wallets(all: &[FillRow]) -> BTreeSet<String> {
    all.iter()
        .map(|f| f.wallet.clone())
        .filter(|w| !w.is_empty() && w != SEED_ADDRESS)
        .collect()
}

/// Competition ranks of `values` sorted descending: ties share one, the next skips.
fn competition_ranks(values: &[i128]) -> Vec<u32> {
    let mut ranks = Vec::with_capacity(values.len());
    for (i, v) in values.iter().enumerate() {
        let r = if i > 0 && values[i - 1] == *v {
            ranks[i - 1]
        } else {
            i as u32 + 1
        };
        ranks.push(r);
    }
    ranks
}

/// `(wallet, pnl, volume)` over the window for every wallet.
fn standings(
    ex: &Exchange,
    all: &[FillRow],
    seeded: &Seeded,
    w: Option<u64>,
    now: u64,
) -> Vec<(String, i128, i128)> {
    wallets(all)
        .into_iter()
        .map(|wallet| {
            let end = replay(all, &wallet, now);
            let (pnl, volume) = match w {
                None => (end.realized, end.volume),
                Some(w) => {
                    let from = now.saturating_sub(w);
                    let start = replay(all, &wallet, from);
                    let equity = |r: &Replay, t| r.realized + r.unrealized(ex, all, seeded, t);
                    (
                        equity(&end, now) - equity(&start, from),
                        end.volume - start.volume,
                    )
                }
            };
            (wallet, pnl, volume)
        })
        .collect()
}

fn leaderboard(
    ex: &Exchange,
    seeded: &Seeded,
    query: &[(String, String)],
    user: Option<&str>,
    w: Option<u64>,
    now: u64,
) -> Resp {
    let all = fills(ex);
    let sort_volume = match q(query, "sort_by").unwrap_or("PNL") {
        "PNL" => false,
        "VOLUME" => true,
        other => return bad("sort_by", &format!("unknown sort_by {other:?}")),
    };
    // The simulator's markets have no Gamma category: every one is in `overall` only.
    let category = q(query, "category").unwrap_or("overall");
    let mut rows = if category == "overall" {
        standings(ex, &all, seeded, w, now)
    } else {
        Vec::new()
    };
    let board = |rows: &mut Vec<(String, i128, i128)>, by_volume: bool| {
        rows.sort_by(|a, b| {
            let key = |r: &(String, i128, i128)| if by_volume { r.2 } else { r.1 };
            key(b).cmp(&key(a)).then_with(|| a.0.cmp(&b.0))
        });
        let keys: Vec<i128> = rows
            .iter()
            .map(|r| if by_volume { r.2 } else { r.1 })
            .collect();
        competition_ranks(&keys)
    };
    if let Some(user) = user {
        let rank_of = |rows: &mut Vec<(String, i128, i128)>, by_volume| {
            let ranks = board(rows, by_volume);
            rows.iter().position(|r| r.0 == user).map(|i| ranks[i])
        };
        let rank_pnl = rank_of(&mut rows, false);
        let rank_volume = rank_of(&mut rows, true);
        let Some(me) = rows.iter().find(|r| r.0 == user) else {
            return ok(&json!({ "data": null }));
        };
        return ok(&json!({"data": {
            "user_id": me.0, "pnl": num(me.1), "volume": num(me.2),
            "rank_pnl": rank_pnl, "rank_volume": rank_volume,
            "user_name": "", "profile_image": "", "x_username": "", "verified": false,
        }}));
    }
    let ranks = board(&mut rows, sort_volume);
    let rows = rows
        .iter()
        .zip(ranks)
        .map(|(r, rank)| {
            json!({"rank": rank, "user_id": r.0, "pnl": num(r.1), "volume": num(r.2),
                "user_name": "", "profile_image": "", "x_username": "", "verified": false})
        })
        .collect();
    page(rows, query)
}

/// Every order fill with the builder code its order was signed with: `(builder, wallet,
/// size, time)`, builder-attributed fills only.
fn builder_fills(ex: &Exchange) -> Vec<(B256, String, u64, u64)> {
    let mut out = Vec::new();
    for t in &ex.trades {
        if t.status == "FAILED" {
            continue;
        }
        let mut one = |seq: u64, size: u64| {
            if let Some(o) = ex.order_by_seq(seq)
                && o.builder != B256::ZERO
            {
                let wallet = o.maker_address.to_ascii_lowercase();
                out.push((o.builder, wallet, size, t.match_time));
            }
        };
        one(t.taker_seq, t.size);
        for f in &t.fills {
            one(f.maker_seq, f.size);
        }
    }
    out
}

/// Builder rows of `fills` ranked by volume: `(rank, code, volume, active users)`.
fn builder_rows(fills: &[&(B256, String, u64, u64)]) -> Vec<(u32, String, i128, usize)> {
    let mut by: BTreeMap<B256, (i128, BTreeSet<&str>)> = BTreeMap::new();
    for (code, wallet, size, _) in fills {
        let e = by.entry(*code).or_default();
        e.0 += i128::from(*size);
        e.1.insert(wallet.as_str());
    }
    let mut rows: Vec<(String, i128, usize)> = by
        .into_iter()
        .map(|(c, (v, users))| (format!("{c:#x}"), v, users.len()))
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let ranks = competition_ranks(&rows.iter().map(|r| r.1).collect::<Vec<_>>());
    rows.into_iter()
        .zip(ranks)
        .map(|((c, v, u), r)| (r, c, v, u))
        .collect()
}

fn builder_json(
    date: Option<&str>,
    (rank, code, volume, users): &(u32, String, i128, usize),
) -> Value {
    let mut v = json!({"rank": rank, "builder_name": code, "builder_code": code,
        "profile_image": "", "verified": false, "volume": num(*volume), "active_users": users});
    if let Some(d) = date {
        v["date"] = json!(d);
    }
    v
}

fn builders(ex: &Exchange, query: &[(String, String)], w: Option<u64>, now: u64) -> Resp {
    let all = builder_fills(ex);
    let inside: Vec<_> = all
        .iter()
        .filter(|f| w.is_none_or(|w| f.3 + w >= now))
        .collect();
    let rows = builder_rows(&inside)
        .iter()
        .map(|r| builder_json(None, r))
        .collect();
    page(rows, query)
}

/// `YYYY-MM-DD` of a unix day number.
fn date_of(day: u64) -> String {
    // Civil from days (Howard Hinnant's algorithm).
    let z = day as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!("{y:04}-{m:02}-{d:02}")
}

fn builder_volume(ex: &Exchange, query: &[(String, String)]) -> Resp {
    let interval = ["interval", "timePeriod", "time_period"]
        .iter()
        .find_map(|k| q(query, k))
        .unwrap_or("day");
    // Bucket starts as unix days.
    let bucket = |t: u64| -> u64 {
        let day = t / DAY;
        match interval {
            "week" => day - (day + 3) % 7, // Mondays (day 0 was a Thursday)
            "month" | "all" => {
                let d = date_of(day);
                let (y, m) = (&d[..4], &d[5..7]);
                let first = if interval == "all" { "01" } else { m };
                days_from_civil(y.parse().unwrap_or(1970), first.parse().unwrap_or(1))
            }
            _ => day,
        }
    };
    if !matches!(interval, "day" | "week" | "month" | "all") {
        return bad("interval", &format!("unknown interval {interval:?}"));
    }
    let limit = match q(query, "limit").map(str::parse::<usize>) {
        None => 30,
        Some(Ok(l)) if l <= 90 => l,
        _ => return bad("limit", "limit must be between 0 and 90"),
    };
    let all = builder_fills(ex);
    let mut buckets: BTreeMap<u64, Vec<&(B256, String, u64, u64)>> = BTreeMap::new();
    for f in &all {
        buckets.entry(bucket(f.3)).or_default().push(f);
    }
    let rows: Vec<Value> = buckets
        .iter()
        .rev()
        .take(limit)
        .flat_map(|(day, fills)| {
            let date = date_of(*day);
            builder_rows(fills)
                .iter()
                .map(|r| builder_json(Some(&date), r))
                .collect::<Vec<_>>()
        })
        .collect();
    ok(&json!({ "data": rows }))
}

/// Unix day of the first of month `m` of year `y`.
fn days_from_civil(y: i64, m: u32) -> u64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = i64::from((m + 9) % 12);
    let doy = (153 * mp + 2) / 5;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    u64::try_from(era * 146_097 + doe - 719_468).unwrap_or(0)
}

/// One winning position of a resolved market (or a seeded combo that resolved a win).
struct Win {
    wallet: String,
    combo: bool,
    initial: i128,
    final_value: i128,
    resolved_at: u64,
    condition_id: String,
    position_id: String,
    event_id: String,
    event_slug: String,
    title: String,
}

impl Win {
    fn to_json(&self, rank: usize) -> Value {
        json!({
            "win_rank": rank, "kind": if self.combo { "combo" } else { "market" },
            "user_id": self.wallet, "pnl": num(self.final_value - self.initial),
            "initial_value": num(self.initial), "final_value": num(self.final_value),
            "resolved_at": self.resolved_at, "condition_id": self.condition_id,
            "position_id": self.position_id,
            "event_id": self.event_id.parse::<u64>().unwrap_or(0), "event_slug": self.event_slug,
            "event_title": self.title, "user_name": "", "profile_image": "",
        })
    }
}

/// Every winning position, the biggest first.
fn wins(ex: &Exchange, seeded: &Seeded, now: u64) -> Vec<Win> {
    let all = fills(ex);
    let mut out = Vec::new();
    for wallet in wallets(&all) {
        let r = replay(&all, &wallet, now);
        for ((mi, ti), h) in &r.held {
            let spec = &ex.markets[*mi].spec;
            let paid = ex.ledger().payouts(&spec.condition_id);
            if h.shares <= 0 || paid.is_none_or(|p| p[*ti] == 0) {
                continue;
            }
            out.push(Win {
                wallet: wallet.clone(),
                combo: false,
                initial: h.cost,
                final_value: h.shares,
                resolved_at: seeded
                    .resolved_at
                    .get(&spec.condition_id.to_ascii_lowercase())
                    .copied()
                    .unwrap_or(now),
                condition_id: spec.condition_id.clone(),
                position_id: spec.tokens[*ti].token_id().to_owned(),
                event_id: (1000 + mi).to_string(),
                event_slug: spec.slug.clone(),
                title: spec.question.clone(),
            });
        }
    }
    for c in &seeded.combos {
        if let ComboState::Won(at) = combo_state(ex, seeded, c) {
            out.push(Win {
                wallet: c.wallet.clone(),
                combo: true,
                initial: i128::from(c.cost),
                final_value: i128::from(c.shares),
                resolved_at: at,
                condition_id: c.condition_id.clone(),
                position_id: c.position_id.clone(),
                event_id: String::new(),
                event_slug: String::new(),
                title: c
                    .legs
                    .iter()
                    .map(|(m, _)| ex.markets[*m].spec.question.as_str())
                    .collect::<Vec<_>>()
                    .join(" / "),
            });
        }
    }
    out.sort_by(|a, b| {
        (b.final_value - b.initial)
            .cmp(&(a.final_value - a.initial))
            .then_with(|| a.wallet.cmp(&b.wallet))
    });
    out
}

/// The grid step of a `fidelity`, and the window of an `interval` (`None` = whole history);
/// or the `400` (boxed: a response is large).
fn pnl_grid(query: &[(String, String)]) -> Result<(u64, Option<u64>, &str, &str), Box<Resp>> {
    let fidelity = q(query, "fidelity").unwrap_or("1h");
    let step = match fidelity {
        "1d" => DAY,
        "18h" => 18 * 3_600,
        "12h" => 12 * 3_600,
        "3h" => 3 * 3_600,
        "1h" => 3_600,
        other => {
            return Err(Box::new(bad(
                "fidelity",
                &format!("unknown fidelity {other:?}"),
            )));
        }
    };
    let interval = q(query, "interval").unwrap_or("1d");
    let window = match interval {
        "max" | "all" => None,
        "1m" => Some(30 * DAY),
        "1w" => Some(7 * DAY),
        "1d" => Some(DAY),
        "12h" => Some(12 * 3_600),
        "6h" => Some(6 * 3_600),
        other => {
            return Err(Box::new(bad(
                "interval",
                &format!("unknown interval {other:?}"),
            )));
        }
    };
    Ok((step, window, interval, fidelity))
}

/// A cumulative PnL point of `wallet` at `at`, every composition the docs state holding.
fn pnl_point(ex: &Exchange, all: &[FillRow], seeded: &Seeded, wallet: &str, at: u64) -> Value {
    let r = replay(all, wallet, at);
    let unrealized = r.unrealized(ex, all, seeded, at);
    let realized = r.realized;
    // The simulator pays no rebates, rewards, yield or referrals: covered, and zero.
    let income = 0i128;
    json!({
        "timestamp": at, "source_block": at,
        "realized_market_pnl": num(realized), "realized_lp_pnl": num(0), "realized_combo_pnl": num(0),
        "realized_pnl": num(realized), "unrealized_pnl": num(unrealized),
        "maker_rebate": num(0), "taker_rebate": num(0), "reward_income": num(0),
        "yield_income": num(0), "referral_income": num(0), "wallet_income": num(income),
        "sponsored_income": num(0),
        "position_pnl": num(realized + unrealized), "settled_pnl": num(realized + income),
        "economic_pnl": num(realized + unrealized + income),
        // Not in the replay: uncovered, never zero.
        "fees_refunded": null, "fees": null, "fees_paid": null, "trade_pnl": null,
        "deposits": null, "withdrawals": null, "cashflow_net": null,
        "volume": num(r.volume), "volume_usdc": num(r.volume_usdc), "trade_count": r.trades,
    })
}

fn user_pnl(
    ex: &Exchange,
    seeded: &Seeded,
    query: &[(String, String)],
    wallet: &str,
    now: u64,
) -> Resp {
    let (step, window, interval, fidelity) = match pnl_grid(query) {
        Ok(g) => g,
        Err(r) => return *r,
    };
    let all = fills(ex);
    let first = replay(&all, wallet, now).first.unwrap_or(now);
    let from = window.map_or(first, |w| now.saturating_sub(w));
    let mut points = Vec::new();
    let mut t = from - from % step;
    while t < now {
        points.push(pnl_point(ex, &all, seeded, wallet, t));
        t += step;
    }
    // The latest point is now: the live series' open bucket.
    points.push(pnl_point(ex, &all, seeded, wallet, now));
    ok(
        &json!({"data": {"proxy_wallet": wallet, "interval": interval, "fidelity": fidelity,
        "source_fidelity": fidelity, "points": points}}),
    )
}

fn user_stats(ex: &Exchange, seeded: &Seeded, user: &str, now: u64) -> Resp {
    let all = fills(ex);
    let r = replay(&all, user, now);
    let combos = seeded.combos.iter().any(|c| c.wallet == user);
    if r.first.is_none() && !combos {
        return ok(&json!({ "data": null }));
    }
    let best = wins(ex, seeded, now)
        .iter()
        .filter(|w| w.wallet == user)
        .map(|w| w.final_value - w.initial)
        .max()
        .filter(|&p| p > ONE)
        .unwrap_or(0);
    ok(&json!({"data": {
        "proxy_wallet": user, "trades": r.markets.len(), "biggest_win": num(best), "views": 0,
        "join_date": r.first, "all_time_pnl": r.first.map(|_| pnl_point(ex, &all, seeded, user, now)),
    }}))
}

fn user_volume(ex: &Exchange, query: &[(String, String)], user: &str) -> Resp {
    let bound = |k: &str| {
        q(query, k)
            .and_then(|v| v.parse::<u64>().ok())
            .filter(|&v| v > 0)
    };
    // Whole UTC days: the start floored, the end through the end of its day.
    let start = bound("start").map_or(0, |s| s - s % DAY);
    let end = bound("end").map_or(u64::MAX, |e| e - e % DAY + DAY - 1);
    let (mut volume, mut cash, mut count) = (0i128, 0i128, 0i64);
    for f in fills(ex)
        .iter()
        .filter(|f| f.wallet == user && (start..=end).contains(&f.time))
    {
        volume += i128::from(f.size);
        cash += i128::from(f.size) * i128::from(f.price) / ONE;
        count += 1;
    }
    ok(&json!({"data": {"volume": num(volume), "volume_usdc": num(cash), "trade_count": count}}))
}

fn live_volume(ex: &Exchange, query: &[(String, String)]) -> Resp {
    let raw = ["event_id", "id", "eventId"]
        .iter()
        .find_map(|k| q(query, k))
        .unwrap_or("");
    let mut ids: Vec<u64> = raw
        .split(',')
        .filter_map(|s| s.trim().parse().ok())
        .collect();
    ids.sort_unstable();
    ids.dedup();
    if ids.is_empty() {
        return bad("event_id", "event_id is required (integer ids)");
    }
    if ids.len() > 20 {
        return bad("event_id", "at most 20 distinct event ids");
    }
    let all = fills(ex);
    let mut rows: Vec<(String, i128)> = (0..ex.markets.len())
        .filter(|mi| ids.contains(&(1000 + *mi as u64)))
        .map(|mi| {
            let v = all
                .iter()
                .filter(|f| f.taker && f.market == mi)
                .map(|f| i128::from(f.size))
                .sum();
            (ex.markets[mi].spec.condition_id.clone(), v)
        })
        .collect();
    rows.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    let total: i128 = rows.iter().map(|r| r.1).sum();
    let conditions: Vec<Value> = rows
        .iter()
        .map(|(c, v)| json!({"condition_id": c, "taker_volume": num(*v)}))
        .collect();
    ok(&json!({"data": {"taker_volume_total": num(total), "conditions": conditions}}))
}

fn status(ex: &Exchange, now: u64) -> Resp {
    let block = ex.trades.end() as i64;
    let network = if ex.cfg.chain == polyclob::types::Chain::Polygon {
        "polygon"
    } else {
        "amoy"
    };
    let computed = polyclob::types::Timestamp::from_millis(now.saturating_mul(1_000));
    ok(&json!({"data": {
        "computed_at": computed.to_string(), "age_seconds": 0,
        "serving": {"lag_seconds": 0, "worst": "pnl", "mechanisms": [
            {"name": "activity_feed", "age_seconds": 0, "blocks_behind": 0},
            {"name": "custody_balances", "age_seconds": 0, "blocks_behind": 0},
            {"name": "pnl", "age_seconds": 0, "blocks_behind": 0},
        ]},
        "ingestion": {"chain_id": ex.cfg.chain.id(), "network": network, "cursors": 1,
            "max_synced_block": block, "min_synced_block": block,
            "most_lagged": {"source": "exchange_OrderFilled", "block": block, "behind_max": 0},
            "lagging": [{"source": "exchange_OrderFilled", "block": block, "behind_max": 0}]},
    }}))
}

fn approvals(ex: &Exchange, user: &str, now: u64) -> Resp {
    let Ok(who) = user.parse::<Address>() else {
        return bad("user", "user must be an EVM address");
    };
    let ledger = ex.ledger();
    let mut rows = Vec::new();
    let name = |table: &polyclob::types::Contracts, a: Address| {
        table
            .entries()
            .find(|(_, x)| *x == a)
            .map_or("contract", |(n, _)| n)
    };
    for table in [&ledger.contracts, &ledger.v2] {
        for spender in table.collateral_spenders() {
            let allowance = ledger.allowance_of(who, spender);
            let amount = if allowance == U256::MAX {
                "max".to_owned()
            } else {
                allowance.to_string()
            };
            rows.push(json!({"id": format!("collateral:{}", name(table, spender)),
                "feature": "trading", "token": format!("{:#x}", table.collateral),
                "spender": format!("{spender:#x}"), "standard": "ERC20",
                "amount": amount, "approved": !allowance.is_zero()}));
        }
        let (token, pm) = match table.position_manager {
            Some(pm) => (pm, true),
            None => (table.conditional_tokens, false),
        };
        for op in table.token_operators() {
            rows.push(json!({"id": format!("positions:{}", name(table, op)),
                "feature": "trading", "token": format!("{token:#x}"),
                "spender": format!("{op:#x}"), "standard": "ERC1155",
                "approved": ledger.is_operator_of(who, op, pm)}));
        }
    }
    let checked = polyclob::types::Timestamp::from_millis(now.saturating_mul(1_000));
    ok(
        &json!({"data": {"address": format!("{who:#x}"), "chain_id": ex.cfg.chain.id(),
        "checked_at": checked.to_string(), "contracts": rows}}),
    )
}

/// Where a seeded combo stands: open while a leg's market is unresolved, then won (when
/// every leg's outcome paid) or lost, at the last leg's resolution.
enum ComboState {
    Open,
    Won(u64),
    Lost(u64),
}

fn combo_state(ex: &Exchange, seeded: &Seeded, c: &ComboSeed) -> ComboState {
    let mut last = 0;
    let mut won = true;
    for (m, o) in &c.legs {
        let spec = &ex.markets[*m].spec;
        let (Some(p), Some(at)) = (
            ex.ledger().payouts(&spec.condition_id),
            seeded
                .resolved_at
                .get(&spec.condition_id.to_ascii_lowercase()),
        ) else {
            return ComboState::Open;
        };
        won &= p[*o] > 0;
        last = last.max(*at);
    }
    if won {
        ComboState::Won(last)
    } else {
        ComboState::Lost(last)
    }
}

fn iso(secs: u64) -> String {
    polyclob::types::Timestamp::from_millis(secs.saturating_mul(1_000)).to_string()
}

/// A seeded combo's legs with their markets and events, as the Data API enriches them.
fn combo_legs(ex: &Exchange, seeded: &Seeded, c: &ComboSeed) -> Vec<Value> {
    c.legs
        .iter()
        .enumerate()
        .map(|(i, (m, o))| {
            let s = &ex.markets[*m].spec;
            let resolved = ex
                .ledger()
                .payouts(&s.condition_id)
                .zip(seeded.resolved_at.get(&s.condition_id.to_ascii_lowercase()));
            let (status, at, price) = match resolved {
                Some((p, at)) if p[*o] > 0 => ("RESOLVED_WIN", Some(iso(*at)), ONE),
                Some((_, at)) => ("RESOLVED_LOSS", Some(iso(*at)), 0),
                None => {
                    let last = ex.markets[*m].last_trade[*o].map(|(p, _)| i128::from(p));
                    let mid = ex.markets[*m].spec.mid.as_micros();
                    let seed = if *o == 0 { mid } else { 1_000_000 - mid };
                    ("OPEN", None, last.unwrap_or(i128::from(seed)))
                }
            };
            let outcomes: Vec<&str> = s.tokens.iter().map(|t| t.outcome()).collect();
            json!({
                "leg_index": i, "leg_position_id": s.tokens[*o].token_id(),
                "leg_condition_id": s.condition_id, "leg_outcome_index": o,
                "leg_outcome_label": s.tokens[*o].outcome(), "leg_status": status,
                "leg_resolved_at": at, "leg_current_price": num(price),
                "market": {"market_id": (m + 1).to_string(), "slug": s.slug, "title": s.question,
                    "question": s.question, "group_item_title": "", "sports_market_type": "",
                    "line": null, "outcomes": outcomes, "outcome": s.tokens[*o].outcome(),
                    "image_url": "", "icon_url": "", "category": "", "subcategory": "",
                    "tags": [], "end_date": s.end_date_iso,
                    "event": {"event_id": (1000 + m).to_string(), "event_slug": s.slug,
                        "event_title": s.question, "event_image": ""}},
            })
        })
        .collect()
}

fn combos(
    ex: &Exchange,
    seeded: &Seeded,
    query: &[(String, String)],
    user: &str,
    activity: bool,
) -> Resp {
    let conditions: Vec<String> = ["condition", "condition_id", "conditionId"]
        .iter()
        .filter_map(|k| q(query, k))
        .flat_map(|v| v.split(','))
        .map(|c| c.trim().to_ascii_lowercase())
        .filter(|c| !c.is_empty())
        .collect();
    let mine = seeded
        .combos
        .iter()
        .filter(|c| c.wallet == user)
        .filter(|c| conditions.is_empty() || conditions.contains(&c.condition_id));
    let rows: Vec<Value> = if activity {
        let mut rows: Vec<Value> = mine
            .enumerate()
            .map(|(i, c)| {
                let tx = format!("0x{:064x}", 0xc0_0000 + i);
                json!({"id": format!("{tx}-0"), "type": "SPLIT", "proxy_wallet": c.wallet,
                    "combo_condition_id": c.condition_id, "combo_position_id": c.position_id,
                    "amount_usdc": num(i128::from(c.cost)), "payout_usdc": null,
                    "block_number": 1 + i, "timestamp": c.at, "transaction_hash": tx,
                    "legs": combo_legs(ex, seeded, c)})
            })
            .collect();
        rows.reverse(); // newest first
        rows
    } else {
        let wanted: Vec<String> = q(query, "status")
            .map(|s| {
                s.split(',')
                    .map(|p| p.trim().to_ascii_uppercase())
                    .collect()
            })
            .unwrap_or_default();
        mine.filter_map(|c| {
            let (status, redeemable, resolved) = match combo_state(ex, seeded, c) {
                ComboState::Open => ("OPEN", false, None),
                ComboState::Won(at) => ("RESOLVED_WIN", true, Some(at)),
                ComboState::Lost(at) => ("RESOLVED_LOSS", false, Some(at)),
            };
            let listed = if wanted.is_empty() {
                true
            } else if wanted == ["REDEEMABLE"] {
                redeemable
            } else {
                wanted
                    .iter()
                    .any(|w| w == status || (w == "OPEN" && redeemable))
            };
            let legs = combo_legs(ex, seeded, c);
            let done = legs.iter().filter(|l| l["leg_status"] != "OPEN").count();
            let avg = i128::from(c.cost) * ONE / i128::from(c.shares.max(1));
            listed.then(|| {
                json!({"combo_condition_id": c.condition_id, "outcome_index": 0,
                    "outcome_label": "Yes", "combo_position_id": c.position_id,
                    "proxy_wallet": c.wallet, "current_size": num(i128::from(c.shares)),
                    "entry_avg_price_usdc": num(avg), "entry_cost_usdc": num(i128::from(c.cost)),
                    "gross_entry_cost_usdc": num(i128::from(c.cost)), "entry_fees_usdc": num(0),
                    "realized_payout_usdc": num(0), "status": status, "redeemable": redeemable,
                    "first_entry_at": iso(c.at), "first_entry_at_micros": c.at * 1_000_000,
                    "legs_total": legs.len(), "legs_resolved": done,
                    "legs_pending": legs.len() - done, "legs": legs,
                    "updated_at": iso(resolved.unwrap_or(c.at)),
                    "updated_at_micros": resolved.unwrap_or(c.at) * 1_000_000,
                    "resolved_at": resolved.map(iso)})
            })
        })
        .collect()
    };
    page(rows, query)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_and_dates() {
        assert_eq!(
            competition_ranks(&[9, 7, 7, 5, 5, 5, 1]),
            [1, 2, 2, 4, 4, 4, 7]
        );
        assert_eq!(date_of(0), "1970-01-01");
        assert_eq!(date_of(20_000), "2024-10-04");
        assert_eq!(days_from_civil(2024, 10), 19_997);
        assert_eq!(days_from_civil(1970, 1), 0);
    }
}
