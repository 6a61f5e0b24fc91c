//! The REST checks: the CLOB's public reads, books and their hashes, Gamma, the Data API; and
//! the read-only credential checks (derive, tier).

use std::time::{SystemTime, UNIX_EPOCH};

use polyclob::clob::types::BookSummary;
use polyclob::clob::{Credentials, MarketList};
use polyclob::http::SkippedRow;
use polyclob::types::{Protocol, Side};

use crate::record::Recorder;
use crate::{Options, Report, fields};

/// The clients every check uses.
pub(crate) struct Ctx<'a> {
    pub(crate) opts: &'a Options,
    pub(crate) clob: polyclob::clob::Client,
    pub(crate) gamma: polyclob::gamma::Client,
    pub(crate) data: polyclob::data::Client,
    pub(crate) raw: reqwest::Client,
    pub(crate) recorder: Recorder,
}

/// Tokens whose books the stream and trade checks use: `(token, protocol)`.
#[derive(Debug, Default)]
pub(crate) struct Picked {
    pub(crate) tokens: Vec<(String, Protocol)>,
    /// Each token's last REST book.
    pub(crate) books: Vec<BookSummary>,
}

/// API credentials derived from `--key`, the key, and a CLOB client holding both.
pub(crate) struct Auth {
    pub(crate) creds: Credentials,
    pub(crate) key: crate::Secret,
    pub(crate) client: polyclob::clob::Client,
}

impl<'a> Ctx<'a> {
    pub(crate) fn new(opts: &'a Options, recorder: Recorder) -> Result<Self, String> {
        let mut clob = polyclob::clob::ClientBuilder::new();
        if let Some(h) = &opts.clob {
            clob = clob.host(h);
        }
        let mut gamma = polyclob::gamma::Client::builder();
        if let Some(h) = &opts.gamma {
            gamma = gamma.host(h);
        }
        let mut data = polyclob::data::Client::builder();
        if let Some(h) = &opts.data {
            data = data.host(h);
        }
        Ok(Self {
            opts,
            clob: clob.build().map_err(|e| format!("CLOB client: {e}"))?,
            gamma: gamma.build().map_err(|e| format!("Gamma client: {e}"))?,
            data: data.build().map_err(|e| format!("Data API client: {e}"))?,
            raw: {
                // The doctor is an application: it may install the process's default rustls
                // provider (ring, polyclob's) for its raw client; reqwest brings none.
                let _ = rustls::crypto::ring::default_provider().install_default();
                reqwest::Client::builder()
                    .timeout(std::time::Duration::from_secs(20))
                    .build()
                    .map_err(|e| format!("HTTP client: {e}"))?
            },
            recorder,
        })
    }

    /// `GET base + path_and_query`, recorded: the status and the body as text.
    pub(crate) async fn raw_get(
        &self,
        what: &str,
        base: &str,
        path_and_query: &str,
    ) -> Result<(u16, String), String> {
        let url = format!("{}{path_and_query}", base.trim_end_matches('/'));
        let resp = self
            .raw
            .get(&url)
            .send()
            .await
            .map_err(|e| format!("GET {path_and_query}: {e}"))?;
        let status = resp.status().as_u16();
        let body = resp
            .text()
            .await
            .map_err(|e| format!("GET {path_and_query}: body: {e}"))?;
        self.recorder
            .rest(what, status, path_and_query, body.as_bytes());
        Ok((status, body))
    }

    /// Unknown members: a fail in strict mode, else a warning; nothing when there are none.
    pub(crate) fn unknown_fields(
        &self,
        report: &mut Report,
        check: &str,
        what: &str,
        unknown: &[String],
    ) {
        if unknown.is_empty() {
            if self.opts.strict {
                report.pass(check, format!("{what}: every member is modeled"));
            }
            return;
        }
        let text = format!(
            "{what}: members polyclob does not model: {}",
            unknown.join(", ")
        );
        if self.opts.strict {
            report.fail(check, text);
        } else {
            report.warn(check, text);
        }
    }
}

fn short(s: &str) -> String {
    if s.len() > 14 {
        format!("{}…", &s[..12])
    } else {
        s.to_owned()
    }
}

fn tag(p: Protocol) -> &'static str {
    match p {
        Protocol::V2 => "v2",
        _ => "ctf",
    }
}

/// The CLOB, Gamma and Data API checks; returns the tokens picked for the stream checks.
pub(crate) async fn rest(ctx: &Ctx<'_>, report: &mut Report) -> Picked {
    // The server clock.
    match ctx.clob.server_time().await {
        Ok(t) => {
            let local = SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let skew = i128::from(t) - i128::from(local);
            if skew.abs() > 10 {
                report.warn(
                    "clob.time",
                    format!(
                        "GET /time {t}: the local clock is {skew} s off (L2 signatures last 30 s)"
                    ),
                );
            } else {
                report.pass("clob.time", format!("GET /time {t}, local skew {skew} s"));
            }
        }
        Err(e) => report.fail("clob.time", format!("GET /time: {}", error_text(&e))),
    }

    // The first `/markets` page holds the oldest markets (mostly closed on the live
    // exchange): candidates come from `/sampling-markets` (active ones) first.
    let mut candidates = markets(ctx, report, MarketList::Sampling).await;
    candidates.extend(markets(ctx, report, MarketList::All).await);
    let mut seen = std::collections::HashSet::new();
    candidates.retain(|t| seen.insert(t.clone()));
    let picked = books(ctx, report, &candidates).await;
    if let Some((token, _)) = picked.tokens.first() {
        reads(ctx, report, token).await;
    }
    gamma(ctx, report).await;
    simplified(ctx, report).await;
    gamma_lists(ctx, report).await;
    data(ctx, report).await;
    resolution(ctx, report, &picked).await;
    picked
}

/// An error as a line's evidence: the status first when there is one.
pub(crate) fn error_text(e: &polyclob::http::Error) -> String {
    match e.status() {
        Some(404) => format!("HTTP 404: the endpoint is gone ({e})"),
        Some(s) => format!("HTTP {s}: {e}"),
        None => e.to_string(),
    }
}

/// `GET /markets` or `GET /sampling-markets` (first page): every row decodes; the token
/// candidates.
async fn markets(ctx: &Ctx<'_>, report: &mut Report, list: MarketList) -> Vec<String> {
    let (check, fields_check, path) = match list {
        MarketList::Sampling => (
            "clob.sampling-markets",
            "clob.sampling-markets.fields",
            "/sampling-markets",
        ),
        _ => ("clob.markets", "clob.markets.fields", "/markets"),
    };
    let body = match ctx.raw_get(check, ctx.clob.host(), path).await {
        Ok((200, body)) => Some(body),
        _ => None,
    };
    let raw = body
        .as_deref()
        .and_then(|b| serde_json::from_str::<serde_json::Value>(b).ok());
    // Rows counted on one body (the list may change between two requests): polyclob's
    // decoder against the rows that body holds.
    let same = body.as_deref().and_then(|b| {
        polyclob::http::decode_page::<polyclob::clob::types::Market<'_>>(b.as_bytes())
            .ok()
            .map(|p| p.data.len())
    });
    let page = match ctx.clob.markets(list, None).await {
        Ok(p) => p,
        Err(e) => {
            report.fail(check, format!("GET {path}: {}", error_text(&e)));
            return Vec::new();
        }
    };
    let rows = raw
        .as_ref()
        .and_then(|v| v.get("data"))
        .and_then(serde_json::Value::as_array);
    let sent = rows.map(Vec::len);
    let decoded = same.unwrap_or(page.data.len());
    match (sent, page.skipped.first()) {
        (_, Some(first)) => report.fail(
            check,
            format!(
                "GET {path}: {} of {} rows did not decode (first: {first:?})",
                page.skipped.len(),
                page.data.len() + page.skipped.len()
            ),
        ),
        (Some(n), None) if n != decoded => report.fail(
            check,
            format!("GET {path}: the server sent {n} rows, polyclob decoded {decoded}"),
        ),
        _ => report.pass(
            check,
            format!("GET {path}: {decoded} rows decoded, none lost"),
        ),
    }
    if let (Some(rows), Some(modeled)) = (
        rows,
        fields::modeled::<polyclob::clob::types::Market<'static>>(),
    ) {
        let unknown = fields::unknown_in(rows, modeled);
        ctx.unknown_fields(report, fields_check, &format!("GET {path} rows"), &unknown);
    }
    page.data
        .iter()
        .filter(|m| m.enable_order_book && m.active && !m.closed)
        .flat_map(|m| m.tokens.iter().map(|t| t.token_id.to_string()))
        .filter(|t| !t.is_empty())
        .take(40)
        .collect()
}

/// One REST book: the raw text and its decoding.
pub(crate) async fn rest_book(ctx: &Ctx<'_>, token: &str) -> Result<(String, BookSummary), String> {
    let path = format!("/book?token_id={token}");
    let (status, body) = ctx.raw_get("clob.book", ctx.clob.host(), &path).await?;
    if status != 200 {
        return Err(format!("GET /book: HTTP {status}"));
    }
    let book: BookSummary =
        serde_json::from_str(&body).map_err(|e| format!("GET /book: does not decode: {e}"))?;
    Ok((body, book))
}

/// Books of up to `tokens` CTF and `tokens` V2 markets: each decodes, names the token asked
/// for, and its hash reproduces on `snapshots` snapshots.
async fn books(ctx: &Ctx<'_>, report: &mut Report, candidates: &[String]) -> Picked {
    let want = ctx.opts.tokens.max(1);
    let mut picked = Picked::default();
    let mut first_error = None;
    for token in candidates {
        let count = |p| picked.tokens.iter().filter(|(_, q)| *q == p).count();
        if count(Protocol::Ctf) >= want && count(Protocol::V2) >= want {
            break;
        }
        match rest_book(ctx, token).await {
            Ok((_, b)) => {
                let p = b.protocol().unwrap_or_default();
                if count(p) < want {
                    picked.tokens.push((token.clone(), p));
                    picked.books.push(b);
                }
            }
            Err(e) => {
                first_error.get_or_insert(e);
            }
        }
    }
    if picked.tokens.is_empty() {
        report.fail(
            "clob.book",
            first_error.unwrap_or_else(|| "no market with an order book on the first page".into()),
        );
        return picked;
    }
    let modeled = fields::modeled::<BookSummary>().unwrap_or(&[]);
    for p in [Protocol::Ctf, Protocol::V2] {
        let tokens: Vec<usize> = (0..picked.tokens.len())
            .filter(|&i| picked.tokens[i].1 == p)
            .collect();
        let name = |what: &str| format!("clob.book.{what}.{}", tag(p));
        if tokens.is_empty() {
            report.warn(
                &name("hash"),
                format!(
                    "no {} market among the first {} tokens: not checked",
                    tag(p),
                    candidates.len()
                ),
            );
            continue;
        }
        let mut scratch = Vec::new();
        let (mut reproduced, mut total) = (0usize, 0usize);
        let mut mismatch: Option<String> = None;
        let mut wrong_token: Option<String> = None;
        let mut unknown = Vec::new();
        for &i in &tokens {
            let token = picked.tokens[i].0.clone();
            for _ in 0..ctx.opts.snapshots.max(1) {
                let (raw, b) = match rest_book(ctx, &token).await {
                    Ok(x) => x,
                    Err(e) => {
                        report.fail(&name("decode"), format!("token {}: {e}", short(&token)));
                        break;
                    }
                };
                if let Ok(v) = serde_json::from_str::<serde_json::Value>(&raw) {
                    unknown.extend(fields::unknown(&v, modeled));
                }
                if b.asset_id != token && wrong_token.is_none() {
                    wrong_token = Some(format!(
                        "GET /book?token_id={}: asset_id is {:?}, not the token asked for",
                        short(&token),
                        short(&b.asset_id)
                    ));
                }
                total += 1;
                let computed = b.book_meta().map_err(|e| e.to_string()).and_then(|m| {
                    polyclob::book::book_hash(&raw, m, &mut scratch).map_err(|e| e.to_string())
                });
                match computed {
                    Ok(h) if h.matches(&b.hash) => reproduced += 1,
                    Ok(h) => {
                        mismatch.get_or_insert(format!(
                            "token {}: server {}, polyclob {}",
                            short(&token),
                            short(&b.hash),
                            short(&h.to_string())
                        ));
                    }
                    Err(e) => {
                        mismatch.get_or_insert(format!("token {}: {e}", short(&token)));
                    }
                }
                picked.books[i] = b;
            }
        }
        unknown.sort();
        unknown.dedup();
        match wrong_token {
            Some(w) => {
                let hint = if unknown.is_empty() {
                    String::new()
                } else {
                    format!(" (members polyclob does not model: {})", unknown.join(", "))
                };
                report.fail(&name("decode"), format!("{w}{hint}"));
            }
            None => report.pass(
                &name("decode"),
                format!(
                    "GET /book: {total} snapshots of {} tokens decode",
                    tokens.len()
                ),
            ),
        }
        match mismatch {
            None => report.pass(
                &name("hash"),
                format!("{reproduced}/{total} snapshot hashes reproduce"),
            ),
            Some(m) => report.fail(
                &name("hash"),
                format!("GET /book hash reproduces on {reproduced}/{total} snapshots only ({m})"),
            ),
        }
        ctx.unknown_fields(report, &name("fields"), "GET /book", &unknown);
    }
    picked
}

/// The per-token public reads each decode.
async fn reads(ctx: &Ctx<'_>, report: &mut Report, token: &str) {
    let c = &ctx.clob;
    let line = |report: &mut Report,
                check: &str,
                path: &str,
                r: Result<String, polyclob::http::Error>| match r {
        Ok(v) => report.pass(check, format!("GET {path} decodes: {v}")),
        Err(e) => report.fail(check, format!("GET {path}: {}", error_text(&e))),
    };
    line(
        report,
        "clob.midpoint",
        "/midpoint",
        c.midpoint(token).await.map(|p| p.to_string()),
    );
    line(
        report,
        "clob.price",
        "/price",
        c.price(token, Side::Buy).await.map(|p| p.to_string()),
    );
    line(
        report,
        "clob.spread",
        "/spread",
        c.spread(token).await.map(|p| p.to_string()),
    );
    line(
        report,
        "clob.tick-size",
        "/tick-size",
        c.tick_size(token).await.map(|t| format!("{t:?}")),
    );
    line(
        report,
        "clob.neg-risk",
        "/neg-risk",
        c.neg_risk(token).await.map(|b| b.to_string()),
    );
    line(
        report,
        "clob.fee-rate",
        "/fee-rate",
        c.fee_rate_bps(token).await.map(|b| format!("{b} bps")),
    );
    line(
        report,
        "clob.last-trade-price",
        "/last-trade-price",
        c.last_trade_price(token).await.map(|t| format!("{t:?}")),
    );
    line(
        report,
        "clob.market-by-token",
        "/markets-by-token",
        c.market_by_token(token).await.map(|m| format!("{m:?}")),
    );
    line(
        report,
        "clob.prices-history",
        "/prices-history",
        c.prices_history(
            token,
            polyclob::clob::types::HistoryRange::Interval(polyclob::clob::types::Interval::OneDay),
            None,
        )
        .await
        .map(|(h, skipped)| format!("{} points, {} did not decode", h.len(), skipped.len())),
    );
    // The batch reads answer one row per token asked: none may go missing.
    let batch =
        |report: &mut Report, check: &str, path: &str, r: Result<usize, polyclob::http::Error>| {
            match r {
                Ok(1) => report.pass(check, format!("{path}: 1 row for the 1 token asked")),
                Ok(n) => report.fail(check, format!("{path}: {n} rows for the 1 token asked")),
                Err(e) => report.fail(check, format!("{path}: {}", error_text(&e))),
            }
        };
    batch(
        report,
        "clob.books",
        "POST /books",
        // A book that did not decode is a missing row here.
        c.books(&[token]).await.map(|(b, _)| b.len()),
    );
    batch(
        report,
        "clob.midpoints",
        "POST /midpoints",
        c.midpoints(&[token]).await.map(|m| m.len()),
    );
}

/// Gamma's first keyset page of markets decodes with no row lost.
async fn gamma(ctx: &Ctx<'_>, report: &mut Report) {
    const CHECK: &str = "gamma.markets";
    let raw = match ctx
        .raw_get(CHECK, ctx.gamma.host(), "/markets/keyset")
        .await
    {
        Ok((200, body)) => serde_json::from_str::<serde_json::Value>(&body).ok(),
        _ => None,
    };
    match ctx
        .gamma
        .markets_page(&polyclob::gamma::MarketFilter::new(), None)
        .await
    {
        Ok(p) => decoded_rows(report, CHECK, "/markets/keyset", p.data.len(), &p.skipped),
        Err(e) => report.fail(CHECK, format!("GET /markets/keyset: {}", error_text(&e))),
    }
    let rows = raw.as_ref().and_then(|v| {
        ["markets", "data"]
            .iter()
            .find_map(|k| v.get(k))
            .or(Some(v))
            .and_then(serde_json::Value::as_array)
    });
    if let (Some(rows), Some(modeled)) = (rows, fields::modeled::<polyclob::gamma::GammaMarket>()) {
        let unknown = fields::unknown_in(rows, modeled);
        ctx.unknown_fields(
            report,
            "gamma.markets.fields",
            "GET /markets/keyset rows",
            &unknown,
        );
    }
}

/// The CLOB's simplified market lists (all and sampling): the first page, no row lost.
async fn simplified(ctx: &Ctx<'_>, report: &mut Report) {
    for (check, path, list) in [
        (
            "clob.simplified-markets",
            "/simplified-markets",
            MarketList::All,
        ),
        (
            "clob.sampling-simplified-markets",
            "/sampling-simplified-markets",
            MarketList::Sampling,
        ),
    ] {
        match ctx.clob.simplified_markets(list, None).await {
            Ok(p) => decoded_rows(report, check, path, p.data.len(), &p.skipped),
            Err(e) => report.fail(check, format!("GET {path}: {}", error_text(&e))),
        }
    }
}

/// One page's verdict: PASS when every row decoded, else FAIL naming how many did not and the
/// first one's error.
pub(crate) fn decoded_rows(
    report: &mut Report,
    check: &str,
    path: &str,
    decoded: usize,
    skipped: &[SkippedRow],
) {
    match skipped.first() {
        None => report.pass(
            check,
            format!("GET {path}: {decoded} rows decoded, none lost"),
        ),
        Some(first) => report.fail(
            check,
            format!(
                "GET {path}: {} of {} rows did not decode (first: {first:?})",
                skipped.len(),
                skipped.len() + decoded
            ),
        ),
    }
}

/// Gamma's other reads: the first keyset page of events, the tags and the sports, each with
/// no row lost.
async fn gamma_lists(ctx: &Ctx<'_>, report: &mut Report) {
    let g = &ctx.gamma;
    match g
        .events_page(&polyclob::gamma::EventFilter::new(), None)
        .await
    {
        Ok(p) => decoded_rows(
            report,
            "gamma.events",
            "/events/keyset",
            p.data.len(),
            &p.skipped,
        ),
        Err(e) => report.fail(
            "gamma.events",
            format!("GET /events/keyset: {}", error_text(&e)),
        ),
    }
    match g.tags(100).await {
        Ok((rows, lost)) => decoded_rows(report, "gamma.tags", "/tags", rows.len(), &lost),
        Err(e) => report.fail("gamma.tags", format!("GET /tags: {}", error_text(&e))),
    }
    match g.sports().await {
        Ok((rows, lost)) => decoded_rows(report, "gamma.sports", "/sports", rows.len(), &lost),
        Err(e) => report.fail("gamma.sports", format!("GET /sports: {}", error_text(&e))),
    }
}

/// The Data API's reads: the trade feed, then the wallet of its first row (a real trader, so
/// the per-user reads have rows) for positions and activity, and the first row's market for
/// holders. Each with no row lost and, in strict mode, the members polyclob does not model.
async fn data(ctx: &Ctx<'_>, report: &mut Report) {
    use polyclob::data::{Activity, HolderGroup, Position, Query};
    const CHECK: &str = "data.trades";
    let first = match ctx.data.page(&Query::trades(), None).await {
        Ok(p) => {
            decoded_rows(report, CHECK, "/v2/trades", p.data.len(), &p.skipped);
            p.data.into_iter().next()
        }
        Err(e) => {
            report.fail(CHECK, format!("GET /v2/trades: {}", error_text(&e)));
            None
        }
    };
    let Some(trade) = first.filter(|t| !t.proxy_wallet.is_empty()) else {
        report.warn(
            "data.positions",
            "the trade feed named no wallet: positions, activity and holders are not checked",
        );
        return;
    };
    let user = &trade.proxy_wallet;
    data_rows(
        ctx,
        report,
        "data.positions",
        &format!("/v2/positions?user={user}"),
        &Query::<Position>::positions(user.as_str()),
    )
    .await;
    data_rows(
        ctx,
        report,
        "data.activity",
        &format!("/v2/activity?user={user}"),
        &Query::<Activity>::activity(user.as_str()),
    )
    .await;
    if !trade.condition_id.is_empty() {
        let condition = &trade.condition_id;
        data_rows(
            ctx,
            report,
            "data.holders",
            &format!("/v2/holders?condition={condition}"),
            &Query::<HolderGroup>::holders(condition.as_str()),
        )
        .await;
    }
}

/// The Data API's resolution and market figures (`src/data/resolution.rs`) for the first
/// picked market: each decodes with no row lost; members polyclob does not model.
async fn resolution(ctx: &Ctx<'_>, report: &mut Report, picked: &Picked) {
    use polyclob::data::{DataPricePoint, OpenInterest, Query, Resolution};
    let (Some((token, _)), Some(book)) = (picked.tokens.first(), picked.books.first()) else {
        report.warn(
            "data.resolutions",
            "no market picked: the resolution endpoints are not checked",
        );
        return;
    };
    // The 64-hex form the Data API requires (a V2 id right-padded), as polyclob sends it.
    let condition =
        polyclob::types::ConditionId::parse_for(&book.market, polyclob::types::Protocol::V2)
            .map_or_else(|_| book.market.clone(), |c| c.to_string());
    data_rows(
        ctx,
        report,
        "data.resolutions",
        &format!("/v2/resolutions?condition={condition}"),
        &Query::<Resolution>::resolutions(&book.market),
    )
    .await;
    data_rows(
        ctx,
        report,
        "data.oi",
        "/v2/oi",
        &Query::<OpenInterest>::open_interest(),
    )
    .await;
    data_rows(
        ctx,
        report,
        "data.prices-history",
        &format!("/v2/prices-history?token_id={token}"),
        &Query::<DataPricePoint>::prices_history(token),
    )
    .await;
}

/// One Data API read: the call works and skips no row, polyclob's decoder keeps every row the
/// server sent (counted on one body: two requests of live data, such as an active wallet's
/// activity, may differ by the rows that came between them), and the members of those rows
/// polyclob does not model (`CHECK.fields`). No row at all is a WARN: nothing was checked.
pub(crate) async fn data_rows<T: serde::de::DeserializeOwned>(
    ctx: &Ctx<'_>,
    report: &mut Report,
    check: &str,
    path_and_query: &str,
    query: &polyclob::data::Query<T>,
) {
    let path = path_and_query.split('?').next().unwrap_or(path_and_query);
    let body = match ctx.raw_get(check, ctx.data.host(), path_and_query).await {
        Ok((200, body)) => Some(body),
        _ => None,
    };
    let raw = body
        .as_deref()
        .and_then(|b| serde_json::from_str::<serde_json::Value>(b).ok());
    let rows = raw
        .as_ref()
        .and_then(|v| v.get("data"))
        .and_then(serde_json::Value::as_array);
    // The raw body read by polyclob's decoder: its rows against the rows the body holds.
    let same = body
        .as_deref()
        .map(|b| polyclob::data::decode_cursor_page::<T>(b.as_bytes()));
    let skipped = |n: usize, first: &SkippedRow, total: usize| {
        format!("GET {path}: {n} of {total} rows did not decode (first: {first:?})")
    };
    match ctx.data.page(query, None).await {
        Err(e) => report.fail(check, format!("GET {path}: {}", error_text(&e))),
        Ok(p) if !p.skipped.is_empty() => report.fail(
            check,
            skipped(
                p.skipped.len(),
                &p.skipped[0],
                p.skipped.len() + p.data.len(),
            ),
        ),
        Ok(p) => match (rows.map(Vec::len), same) {
            (Some(_), Some(Err(e))) => report.fail(
                check,
                format!("GET {path}: the body polyclob read raw does not decode: {e}"),
            ),
            (_, Some(Ok(d))) if !d.skipped.is_empty() => report.fail(
                check,
                skipped(
                    d.skipped.len(),
                    &d.skipped[0],
                    d.skipped.len() + d.data.len(),
                ),
            ),
            (Some(n), Some(Ok(d))) if n != d.data.len() => report.fail(
                check,
                format!(
                    "GET {path}: the server sent {n} rows, polyclob decoded {}",
                    d.data.len()
                ),
            ),
            (Some(n), _) if n > 0 => {
                report.pass(check, format!("GET {path}: {n} rows decoded, none lost"));
            }
            _ if p.data.is_empty() => report.warn(
                check,
                format!("GET {path} answered no row: nothing to decode"),
            ),
            _ => report.pass(
                check,
                format!("GET {path}: {} rows decoded, none lost", p.data.len()),
            ),
        },
    }
    if let (Some(rows), Some(modeled)) = (rows.filter(|r| !r.is_empty()), fields::modeled::<T>()) {
        let unknown = fields::unknown_in(rows, modeled);
        ctx.unknown_fields(
            report,
            &format!("{check}.fields"),
            &format!("GET {path} rows"),
            &unknown,
        );
    }
}

/// With `--key`: API credentials derived (a read: nothing is created) and the account's
/// rate-limit tier.
pub(crate) async fn credentials(ctx: &Ctx<'_>, report: &mut Report) -> Option<Auth> {
    let Some(key) = &ctx.opts.key else {
        report.warn(
            "auth",
            "no key (POLYCLOB_DOCTOR_KEY): PolyBolt, the tier, the user channel and --trade are not checked",
        );
        return None;
    };
    let signer = match polyclob::sign::Signer::from_hex(&key.0) {
        Ok(s) => s,
        Err(_) => {
            report.fail("auth", "the key is not a 32-byte hex private key");
            return None;
        }
    };
    let address = signer.address();
    let mut b = polyclob::clob::ClientBuilder::new().signer(signer);
    if let Some(h) = &ctx.opts.clob {
        b = b.host(h);
    }
    let client = match b.build() {
        Ok(c) => c,
        Err(e) => {
            report.fail("auth", format!("client: {e}"));
            return None;
        }
    };
    let creds = match client
        .derive_api_key(polyclob::clob::ApiKeyNonce::ZERO)
        .await
    {
        Ok(c) => c,
        Err(e) if e.status() == Some(400) => {
            report.warn(
                "auth",
                format!(
                    "GET /auth/derive-api-key for {address}: no API key to derive (the doctor never creates one): {}",
                    error_text(&e)
                ),
            );
            return None;
        }
        Err(e) => {
            report.fail(
                "auth",
                format!("GET /auth/derive-api-key for {address}: {}", error_text(&e)),
            );
            return None;
        }
    };
    client.set_credentials(creds.clone());
    report.pass("auth", format!("API credentials derived for {address}"));
    match client.sync_rate_limit_tier().await {
        Ok(t) => report.pass(
            "ratelimit.tier",
            format!("GET /v1/user/rate-limit-tier: {t:?}"),
        ),
        Err(e) => report.warn(
            "ratelimit.tier",
            format!("GET /v1/user/rate-limit-tier: {}", error_text(&e)),
        ),
    }
    Some(Auth {
        creds,
        key: key.clone(),
        client,
    })
}

/// `--heartbeats` with a key: `POST /v1/heartbeats` starts a chain and answers the id the
/// next one carries, accepts that id back, and refuses a wrong one with the id the chain
/// expects (what polyclob resynchronises on). Opt-in: once a heartbeat is sent, the exchange
/// cancels all the account's open orders when heartbeats stop.
pub(crate) async fn heartbeats(ctx: &Ctx<'_>, auth: Option<&Auth>, report: &mut Report) {
    if !ctx.opts.heartbeats {
        report.warn(
            "heartbeat",
            "not checked: a heartbeat arms the exchange's cancel-on-silence (every open order of the account is cancelled when heartbeats stop); --heartbeats to check",
        );
        return;
    }
    let Some(auth) = auth else {
        report.warn("heartbeat", "not checked: it needs API credentials (--key)");
        return;
    };
    let c = &auth.client;
    const PATH: &str = "POST /v1/heartbeats";
    let first = match c.heartbeat(None).await {
        Ok(h) if !h.heartbeat_id.is_empty() => h.heartbeat_id,
        Ok(h) => {
            report.fail(
                "heartbeat",
                format!(
                    "{PATH} answered no heartbeat_id (error {:?}): polyclob chains each id into the next heartbeat",
                    h.error
                ),
            );
            return;
        }
        Err(e) => {
            report.fail("heartbeat", format!("{PATH}: {}", error_text(&e)));
            return;
        }
    };
    match c.heartbeat(Some(&first)).await {
        Ok(h) if !h.heartbeat_id.is_empty() => report.pass(
            "heartbeat",
            format!("{PATH}: a chain started and its id was accepted back, answering the next"),
        ),
        Ok(h) => report.fail(
            "heartbeat",
            format!(
                "{PATH} with the chain's id: answered no heartbeat_id (error {:?})",
                h.error
            ),
        ),
        Err(e) => report.fail(
            "heartbeat",
            format!("{PATH} with the id it answered: {}", error_text(&e)),
        ),
    }
    match c.heartbeat(Some("polyclob-doctor-wrong-id")).await {
        Err(e) if e.heartbeat_id().is_some() => report.pass(
            "heartbeat.resync",
            format!(
                "{PATH} with a wrong id: HTTP {}, naming the chain's id (polyclob resynchronises on it)",
                e.status().unwrap_or(0)
            ),
        ),
        Err(e) => report.fail(
            "heartbeat.resync",
            format!(
                "{PATH} with a wrong id: {}, without the chain's id to resynchronise on",
                error_text(&e)
            ),
        ),
        Ok(_) => report.warn(
            "heartbeat.resync",
            format!("{PATH} accepted a wrong id: the chain is not checked"),
        ),
    }
}
