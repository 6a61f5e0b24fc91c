//! The Data API's boards, wallet figures, combos and freshness (with the `x-trace-id` every
//! answer carries), Gamma's comments, profiles, series summaries and teams, and what
//! polyclob reads from a market's resolution rows. Each decodes with no row lost and, in
//! strict mode, no member polyclob does not model; a read that answered nothing is a WARN
//! (nothing was checked).

use polyclob::data::{
    Approvals, BiggestWin, BuilderStanding, ComboActivity, ComboPosition, LeaderboardEntry,
    LeaderboardStanding, LiveVolume, PnlSeries, Query, Resolution, ResolutionStatus, ServiceStatus,
    UserStats, UserVolume, decode_cursor_page,
};
use serde::de::DeserializeOwned;

use crate::Report;
use crate::checks::{Ctx, Picked, data_rows, decoded_rows, error_text};
use crate::fields;

/// Every check of this file.
pub(crate) async fn reads(ctx: &Ctx<'_>, report: &mut Report) {
    trace_id(ctx, report).await;
    one::<ServiceStatus>(ctx, report, "data.status", "/v2/status").await;
    boards(ctx, report).await;
    // A wallet that trades: the first row of the trade feed.
    let wallet = match ctx.data.page(&Query::trades(), None).await {
        Ok(p) => p
            .data
            .into_iter()
            .map(|t| t.proxy_wallet)
            .find(|w| !w.is_empty()),
        Err(_) => None,
    };
    match &wallet {
        Some(w) => wallet_reads(ctx, report, w).await,
        None => report.warn(
            "data.user-pnl",
            "the trade feed named no wallet: the per-wallet reads are not checked",
        ),
    }
    gamma_reads(ctx, report, wallet.as_deref()).await;
}

/// Every Data API answer carries `x-trace-id` (docs: Data API v2, errors).
async fn trace_id(ctx: &Ctx<'_>, report: &mut Report) {
    const CHECK: &str = "data.trace-id";
    let url = format!("{}/v2/status", ctx.data.host());
    match ctx.raw.get(&url).send().await {
        Ok(r) => match r.headers().get("x-trace-id").and_then(|v| v.to_str().ok()) {
            Some(id) if !id.is_empty() => report.pass(
                CHECK,
                format!(
                    "GET /v2/status (HTTP {}) carried x-trace-id {id}",
                    r.status()
                ),
            ),
            _ => report.fail(
                CHECK,
                format!("GET /v2/status (HTTP {}) carried no x-trace-id", r.status()),
            ),
        },
        Err(e) => report.fail(CHECK, format!("GET /v2/status: {e}")),
    }
}

/// A `{data: T | null}` answer: recorded, decoded by polyclob's own page reader (the calls
/// read it so) with nothing lost, its members modeled. `null` is a WARN.
async fn one<T: DeserializeOwned>(
    ctx: &Ctx<'_>,
    report: &mut Report,
    check: &str,
    path_and_query: &str,
) {
    let path = path_and_query.split('?').next().unwrap_or(path_and_query);
    let (status, body) = match ctx.raw_get(check, ctx.data.host(), path_and_query).await {
        Ok(r) => r,
        Err(e) => return report.fail(check, e),
    };
    if status != 200 {
        return report.fail(check, format!("GET {path}: HTTP {status}: {body:.200}"));
    }
    match decode_cursor_page::<T>(body.as_bytes()) {
        Err(e) => report.fail(check, format!("GET {path}: {e}")),
        Ok(p) if !p.skipped.is_empty() => report.fail(
            check,
            format!(
                "GET {path}: the answer did not decode: {}",
                p.skipped[0].reason
            ),
        ),
        Ok(p) if p.data.is_empty() => {
            report.warn(
                check,
                format!("GET {path} answered no data: nothing to decode"),
            );
        }
        Ok(_) => report.pass(check, format!("GET {path}: decoded")),
    }
    let raw: Option<serde_json::Value> = serde_json::from_str(&body).ok();
    let row = raw
        .as_ref()
        .and_then(|v| v.get("data"))
        .filter(|d| d.is_object());
    if let (Some(row), Some(modeled)) = (row, fields::modeled::<T>()) {
        let unknown = fields::unknown(row, modeled);
        ctx.unknown_fields(
            report,
            &format!("{check}.fields"),
            &format!("GET {path}"),
            &unknown,
        );
    }
}

async fn boards(ctx: &Ctx<'_>, report: &mut Report) {
    data_rows(
        ctx,
        report,
        "data.leaderboard",
        "/v2/leaderboard",
        &Query::<LeaderboardEntry>::leaderboard(),
    )
    .await;
    data_rows(
        ctx,
        report,
        "data.builders",
        "/v2/builders/leaderboard",
        &Query::<BuilderStanding>::builders(),
    )
    .await;
    data_rows(
        ctx,
        report,
        "data.biggest-winners",
        "/v2/biggest-winners",
        &Query::<BiggestWin>::biggest_winners(),
    )
    .await;
    match ctx.data.builder_volume("day", 7).await {
        Ok((rows, lost)) if rows.is_empty() && lost.is_empty() => report.warn(
            "data.builders.volume",
            "GET /v2/builders/volume answered no bucket: nothing to decode",
        ),
        Ok((rows, lost)) => decoded_rows(
            report,
            "data.builders.volume",
            "/v2/builders/volume",
            rows.len(),
            &lost,
        ),
        Err(e) => report.fail(
            "data.builders.volume",
            format!("GET /v2/builders/volume: {}", error_text(&e)),
        ),
    }
}

async fn wallet_reads(ctx: &Ctx<'_>, report: &mut Report, user: &str) {
    one::<LeaderboardStanding>(
        ctx,
        report,
        "data.leaderboard.user",
        &format!("/v2/leaderboard?user={user}"),
    )
    .await;
    one::<PnlSeries>(
        ctx,
        report,
        "data.user-pnl",
        &format!("/v2/user-pnl?user={user}"),
    )
    .await;
    one::<UserStats>(
        ctx,
        report,
        "data.user-stats",
        &format!("/v2/user-stats?user={user}"),
    )
    .await;
    one::<UserVolume>(
        ctx,
        report,
        "data.user-volume",
        &format!("/v2/user-volume?user={user}"),
    )
    .await;
    one::<Approvals>(
        ctx,
        report,
        "data.approvals",
        &format!("/v2/approvals?user={user}"),
    )
    .await;
    // The PnL series' documented compositions hold on its latest point.
    if let Ok(series) = ctx.data.user_pnl(user, "1d", "1h").await
        && let Some(p) = series.points.last()
    {
        let sum = |a: Option<polyclob::fixed::Amount>, b: Option<polyclob::fixed::Amount>| {
            a.zip(b).and_then(|(a, b)| a.checked_add(b))
        };
        let realized = sum(p.realized_market_pnl, p.realized_lp_pnl)
            .and_then(|s| p.realized_combo_pnl.and_then(|c| s.checked_add(c)));
        if realized.is_some() && realized != p.realized_pnl {
            report.fail(
                "data.user-pnl.compose",
                format!(
                    "realized_pnl {:?} is not market + lp + combo {realized:?}",
                    p.realized_pnl
                ),
            );
        } else if p.position_pnl.is_some()
            && sum(p.realized_pnl, p.unrealized_pnl) != p.position_pnl
        {
            report.fail(
                "data.user-pnl.compose",
                format!(
                    "position_pnl {:?} is not realized + unrealized",
                    p.position_pnl
                ),
            );
        } else {
            report.pass(
                "data.user-pnl.compose",
                "the documented compositions hold on the latest point",
            );
        }
    }
    data_rows(
        ctx,
        report,
        "data.combos.positions",
        &format!("/v2/positions/combos?user={user}"),
        &Query::<ComboPosition>::combo_positions(user),
    )
    .await;
    data_rows(
        ctx,
        report,
        "data.combos.activity",
        &format!("/v2/activity/combos?user={user}"),
        &Query::<ComboActivity>::combo_activity(user),
    )
    .await;
}

/// Gamma's comments (on the first event), a public profile (of the trade feed's wallet), the
/// first series' summary and the teams; the first event's live volume on the Data API.
async fn gamma_reads(ctx: &Ctx<'_>, report: &mut Report, wallet: Option<&str>) {
    let g = &ctx.gamma;
    let event = g
        .events_page(&polyclob::gamma::EventFilter::new(), None)
        .await
        .ok()
        .and_then(|p| p.data.into_iter().next());
    match &event {
        Some(e) => {
            match g.comments("Event", &e.id, 20, 0).await {
                Ok((rows, lost)) if rows.is_empty() && lost.is_empty() => {
                    report.warn(
                        "gamma.comments",
                        format!("GET /comments on event {}: no comment to decode", e.id),
                    );
                }
                Ok((rows, lost)) => {
                    decoded_rows(report, "gamma.comments", "/comments", rows.len(), &lost)
                }
                Err(e) => report.fail(
                    "gamma.comments",
                    format!("GET /comments: {}", error_text(&e)),
                ),
            }
            if e.id.bytes().all(|b| b.is_ascii_digit()) {
                one::<LiveVolume>(
                    ctx,
                    report,
                    "data.live-volume",
                    &format!("/v2/live-volume?event_id={}", e.id),
                )
                .await;
            }
        }
        None => report.warn(
            "gamma.comments",
            "no event: comments and live volume are not checked",
        ),
    }
    if let Some(w) = wallet {
        match g.public_profile(w).await {
            Ok(Some(p)) => report.pass(
                "gamma.profile",
                format!("GET /public-profile for {w}: {:?}", p.pseudonym),
            ),
            Ok(None) => report.warn(
                "gamma.profile",
                format!("GET /public-profile for {w}: no profile (404)"),
            ),
            Err(e) => report.fail(
                "gamma.profile",
                format!("GET /public-profile: {}", error_text(&e)),
            ),
        }
    }
    match g.series(1, 0).await {
        Ok((series, _)) => match series.first() {
            Some(s) => match g.series_summary(&s.id).await {
                Ok(sum) => report.pass(
                    "gamma.series-summary",
                    format!(
                        "GET /series-summary/{}: {} dates",
                        s.id,
                        sum.event_dates.len()
                    ),
                ),
                Err(e) => report.fail(
                    "gamma.series-summary",
                    format!("GET /series-summary/{}: {}", s.id, error_text(&e)),
                ),
            },
            None => report.warn(
                "gamma.series-summary",
                "no series: the summary is not checked",
            ),
        },
        Err(e) => report.fail(
            "gamma.series-summary",
            format!("GET /series: {}", error_text(&e)),
        ),
    }
    match g.teams(20, 0, &[]).await {
        Ok((rows, lost)) if rows.is_empty() && lost.is_empty() => {
            report.warn(
                "gamma.teams",
                "GET /teams answered no team: nothing to decode",
            );
        }
        Ok((rows, lost)) => decoded_rows(report, "gamma.teams", "/teams", rows.len(), &lost),
        Err(e) => report.fail("gamma.teams", format!("GET /teams: {}", error_text(&e))),
    }
}

/// What polyclob reads from `/v2/resolutions` ([`polyclob::data::Redeemability`]): every row
/// of the market in a status polyclob knows, a resolved row paying one full set's $1 over its
/// outcomes, a settlement estimate on a documented basis, and a row that names the condition
/// asked (its 64-hex form: the row redeemability reads), for the first picked market. No
/// row is a WARN.
pub(crate) async fn resolution_state(ctx: &Ctx<'_>, report: &mut Report, picked: &Picked) {
    const CHECK: &str = "data.resolutions.state";
    let Some(book) = picked.books.first() else {
        return report.warn(
            CHECK,
            "no market picked: the resolution state is not checked",
        );
    };
    let condition = book.market.as_str();
    // The 64-hex form the Data API requires (a V2 id right-padded), as polyclob sends it.
    let padded = &polyclob::types::ConditionId::parse_for(condition, polyclob::types::Protocol::V2)
        .map_or_else(|_| condition.to_owned(), |c| c.to_string());
    let rows = match ctx.data.resolutions(condition).await {
        Ok((rows, _)) if rows.is_empty() => {
            return report.warn(
                CHECK,
                format!("GET /v2/resolutions for {condition}: no row, nothing to check"),
            );
        }
        Ok((rows, _)) => rows,
        Err(e) => {
            return report.fail(CHECK, format!("GET /v2/resolutions: {}", error_text(&e)));
        }
    };
    if let Some((i, problem)) = rows
        .iter()
        .enumerate()
        .find_map(|(i, r)| resolution_problem(r).map(|p| (i, p)))
    {
        return report.fail(CHECK, format!("GET /v2/resolutions row {i}: {problem}"));
    }
    let question_rows = rows.iter().all(|r| r.condition_id.is_empty());
    if !question_rows
        && !rows
            .iter()
            .any(|r| r.condition_id.eq_ignore_ascii_case(padded))
    {
        return report.fail(
            CHECK,
            format!(
                "GET /v2/resolutions: no row names the condition asked ({padded}); \
                 redeemability would read the first row, {:?}",
                rows[0].condition_id
            ),
        );
    }
    let states: Vec<&str> = rows.iter().map(|r| r.status.as_str()).collect();
    report.pass(
        CHECK,
        format!(
            "GET /v2/resolutions: {} row(s), status {}, each as polyclob reads it",
            rows.len(),
            states.join(", ")
        ),
    );
}

/// What is wrong with one resolution row for polyclob's reading of it, if anything.
fn resolution_problem(r: &Resolution) -> Option<String> {
    const BASES: [&str; 3] = [
        "managed_proposal_expiration",
        "liveness",
        "dvm_round_estimate",
    ];
    if let ResolutionStatus::Unknown(s) = &r.status {
        return Some(if s.is_empty() {
            "no status".to_owned()
        } else {
            format!("status {s:?} is not one polyclob knows")
        });
    }
    if r.is_resolved() {
        let total = r.payouts.iter().try_fold(0u64, |a, &p| a.checked_add(p));
        if r.payouts.len() < 2 || total != Some(1_000_000) {
            return Some(format!(
                "resolved with payouts {:?}: not one per outcome summing to 1,000,000 \
                 micro-pUSD (a full set's $1)",
                r.payouts
            ));
        }
    }
    if r.expected_settlement_time.is_some() && !BASES.contains(&r.settlement_time_basis.as_str()) {
        return Some(format!(
            "an expected settlement time on basis {:?}, not one the docs list ({})",
            r.settlement_time_basis,
            BASES.join(", ")
        ));
    }
    None
}

#[cfg(test)]
mod tests {
    use super::resolution_problem;
    use polyclob::data::Resolution;

    fn row(json: &str) -> Resolution {
        serde_json::from_str(json).unwrap_or_else(|e| panic!("{json}: {e}"))
    }

    #[test]
    fn resolution_rows_as_polyclob_reads_them() {
        for (json, problem) in [
            (r#"{"status":"resolved","payouts":[1000000,0]}"#, None),
            (
                r#"{"status":"resolved","payouts":["500000","500000"]}"#,
                None,
            ),
            (r#"{"status":"active"}"#, None),
            (
                r#"{"status":"proposed","expected_settlement_time":1796601600,
                    "settlement_time_basis":"liveness"}"#,
                None,
            ),
            (
                r#"{"status":"voided"}"#,
                Some("\"voided\" is not one polyclob knows"),
            ),
            (r#"{"reporter":"UMA_OO"}"#, Some("no status")),
            (r#"{"status":"resolved"}"#, Some("payouts []")),
            (
                r#"{"status":"resolved","payouts":[1000000]}"#,
                Some("payouts [1000000]"),
            ),
            (
                r#"{"status":"resolved","payouts":[1,0]}"#,
                Some("summing to 1,000,000"),
            ),
            (
                r#"{"status":"proposed","expected_settlement_time":1796601600,
                    "settlement_time_basis":"vibes"}"#,
                Some("basis \"vibes\""),
            ),
        ] {
            let got = resolution_problem(&row(json));
            match (problem, &got) {
                (None, None) => {}
                (Some(want), Some(got)) if got.contains(want) => {}
                _ => panic!("{json}: {got:?}, expected {problem:?}"),
            }
        }
    }
}
