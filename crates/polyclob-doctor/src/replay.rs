//! Replays a `--record DIR` offline: every REST body and every frame is decoded again with
//! polyclob's own decoders, and a row the server sent that polyclob did not decode is a
//! problem, as is a body or a channel no decoder is known for (nothing is skipped silently).

use std::fs;
use std::path::Path;
use std::time::Instant;

use polyclob::book::BookManager;
use polyclob::data::{
    self, Activity, DataPricePoint, HolderGroup, OpenInterest, Position, Resolution,
    decode_cursor_page,
};
use serde_json::Value;

/// What a replay decoded, and what it could not.
#[derive(Debug, Default)]
pub struct Replayed {
    /// REST bodies decoded (the ones recorded with HTTP 200).
    pub bodies: usize,
    /// Rows in those bodies, every one decoded (a book or other single object is one row).
    pub rows: usize,
    /// Bodies recorded with another status: error answers, kept but not decoded.
    pub error_bodies: usize,
    /// WebSocket frames decoded, every channel.
    pub frames: usize,
    /// `file: why` for each body or frame that did not decode, lost a row, or has no decoder.
    pub problems: Vec<String>,
}

/// Decodes everything recorded under `dir` (the layout of the README, "Recording layout").
///
/// # Errors
/// When `dir` holds no `rest/index.tsv`, or a file the index names cannot be read.
pub fn replay(dir: &Path) -> Result<Replayed, String> {
    let mut out = Replayed::default();
    let index_path = dir.join("rest").join("index.tsv");
    let index =
        fs::read_to_string(&index_path).map_err(|e| format!("{}: {e}", index_path.display()))?;
    for line in index.lines().filter(|l| !l.is_empty()) {
        let cols: Vec<&str> = line.split('\t').collect();
        let [n, what, status, path] = cols[..] else {
            out.problems
                .push(format!("index.tsv: {line:?} does not have 4 columns"));
            continue;
        };
        let file = dir.join("rest").join(format!("{n}.json"));
        let body = fs::read(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        if status != "200" {
            out.error_bodies += 1;
            continue;
        }
        match rest_rows(what, &body) {
            Ok(rows) => {
                out.bodies += 1;
                out.rows += rows;
            }
            Err(why) => out
                .problems
                .push(format!("rest/{n}.json ({what} {path}): {why}")),
        }
    }
    let ws = dir.join("ws");
    let mut channels: Vec<_> = fs::read_dir(&ws)
        .map_err(|e| format!("{}: {e}", ws.display()))?
        .filter_map(Result::ok)
        .map(|e| e.path())
        .collect();
    channels.sort();
    for file in channels {
        let text = fs::read_to_string(&file).map_err(|e| format!("{}: {e}", file.display()))?;
        let name = file
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let mut books = BookManager::new();
        for (i, frame) in text.lines().enumerate() {
            let decoded = match name.as_str() {
                "market.txt" => {
                    let s = books.apply(frame, Instant::now());
                    if s.errors == 0 {
                        Ok(())
                    } else {
                        Err(format!("{} elements did not decode", s.errors))
                    }
                }
                "polybolt.txt" => polyclob::polybolt::decode::decode(frame)
                    .map(drop)
                    .map_err(|e| e.to_string()),
                "rtds.txt" => polyclob::rtds::decode::decode(frame)
                    .map(drop)
                    .map_err(|e| e.to_string()),
                _ => Err("no decoder for this channel".to_owned()),
            };
            match decoded {
                Ok(()) => out.frames += 1,
                Err(why) => out
                    .problems
                    .push(format!("ws/{name} line {}: {why}", i + 1)),
            }
        }
    }
    Ok(out)
}

/// The rows of one REST body, each decoded by the type polyclob reads it as.
fn rest_rows(what: &str, body: &[u8]) -> Result<usize, String> {
    let raw: Value = serde_json::from_slice(body).map_err(|e| format!("not JSON: {e}"))?;
    let sent = |v: &Value| v.as_array().map(Vec::len);
    let (decoded, skipped, sent) = match what {
        "clob.sampling-markets" | "clob.markets" => {
            let p = polyclob::http::decode_page::<polyclob::clob::types::Market<'_>>(body)
                .map_err(|e| e.to_string())?;
            (
                p.data.len(),
                p.skipped.len(),
                raw.get("data").and_then(sent),
            )
        }
        "clob.book" => {
            let b: polyclob::clob::types::BookSummary =
                serde_json::from_slice(body).map_err(|e| e.to_string())?;
            if b.asset_id.is_empty() {
                return Err("the book names no asset_id".to_owned());
            }
            (1, 0, Some(1))
        }
        "gamma.markets" => {
            let p = polyclob::gamma::decode_keyset_page::<polyclob::gamma::GammaMarket>(body)
                .map_err(|e| e.to_string())?;
            let rows = ["markets", "data"]
                .iter()
                .find_map(|k| raw.get(k))
                .unwrap_or(&raw);
            (p.data.len(), p.skipped.len(), sent(rows))
        }
        "data.resolutions" => cursor_rows::<Resolution>(body, &raw)?,
        "data.oi" => cursor_rows::<OpenInterest>(body, &raw)?,
        "data.prices-history" => cursor_rows::<DataPricePoint>(body, &raw)?,
        "data.positions" => cursor_rows::<Position>(body, &raw)?,
        "data.activity" => cursor_rows::<Activity>(body, &raw)?,
        "data.holders" => cursor_rows::<HolderGroup>(body, &raw)?,
        "data.leaderboard" => cursor_rows::<data::LeaderboardEntry>(body, &raw)?,
        "data.leaderboard.user" => cursor_rows::<data::LeaderboardStanding>(body, &raw)?,
        "data.builders" => cursor_rows::<data::BuilderStanding>(body, &raw)?,
        "data.biggest-winners" => cursor_rows::<data::BiggestWin>(body, &raw)?,
        "data.status" => cursor_rows::<data::ServiceStatus>(body, &raw)?,
        "data.approvals" => cursor_rows::<data::Approvals>(body, &raw)?,
        "data.user-pnl" => cursor_rows::<data::PnlSeries>(body, &raw)?,
        "data.user-stats" => cursor_rows::<data::UserStats>(body, &raw)?,
        "data.user-volume" => cursor_rows::<data::UserVolume>(body, &raw)?,
        "data.live-volume" => cursor_rows::<data::LiveVolume>(body, &raw)?,
        "data.combos.positions" => cursor_rows::<data::ComboPosition>(body, &raw)?,
        "data.combos.activity" => cursor_rows::<data::ComboActivity>(body, &raw)?,
        other => return Err(format!("no decoder for {other:?}")),
    };
    if skipped > 0 {
        return Err(format!(
            "{skipped} of {} rows did not decode",
            decoded + skipped
        ));
    }
    match sent {
        Some(n) if n != decoded => Err(format!("the server sent {n} rows, {decoded} decoded")),
        _ => Ok(decoded),
    }
}

/// A Data API `{data}` body: decoded, skipped, sent.
fn cursor_rows<T: serde::de::DeserializeOwned>(
    body: &[u8],
    raw: &Value,
) -> Result<(usize, usize, Option<usize>), String> {
    let p = decode_cursor_page::<T>(body).map_err(|e| e.to_string())?;
    let sent = raw.get("data").and_then(Value::as_array).map(Vec::len);
    Ok((p.data.len(), p.skipped.len(), sent))
}
