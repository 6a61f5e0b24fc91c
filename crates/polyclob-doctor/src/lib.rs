//! `polyclob-doctor`: checks the assumptions polyclob makes about a Polymarket exchange against
//! a live one (or the simulator), with polyclob's own clients, and reports one line per
//! assumption: pass, warn or fail, with the evidence. Read-only unless `--trade`.
//!
//! The binary is a thin shell over [`run`]; tests call [`run`] against the simulator, and
//! [`replay`] decodes a `--record` directory again offline.

use std::fmt;
use std::path::PathBuf;
use std::time::Duration;

mod chain_checks;
mod checks;
mod data_checks;
mod fields;
mod record;
mod replay;
mod stream_checks;
mod trade;

pub use chain_checks::rpc_origin;
pub use replay::{Replayed, replay};

/// Where the exchange lives, and what to check. A host left `None` is polyclob's default
/// (the live exchange).
#[derive(Debug, Clone)]
pub struct Options {
    /// The CLOB REST base URL.
    pub clob: Option<String>,
    /// The Gamma base URL.
    pub gamma: Option<String>,
    /// The Data API base URL.
    pub data: Option<String>,
    /// The market channel URL.
    pub market_ws: Option<String>,
    /// The user channel URL.
    pub user_ws: Option<String>,
    /// The PolyBolt URL.
    pub polybolt: Option<String>,
    /// The sports socket URL.
    pub sports: Option<String>,
    /// The RTDS URL.
    pub rtds: Option<String>,
    /// A JSON-RPC node of the chain (Polygon or Amoy): the contract table is checked against
    /// it. `None`: not checked.
    pub rpc: Option<String>,
    /// REST snapshots per token whose hash must reproduce.
    pub snapshots: usize,
    /// Tokens of each protocol (CTF, V2) to check.
    pub tokens: usize,
    /// How long the streams are watched (deltas, sequence numbers).
    pub duration: Duration,
    /// Fields the server sent that polyclob does not model fail the check.
    pub strict: bool,
    /// A private key (hex): derives API credentials (read-only) for PolyBolt, the tier and
    /// the user channel. Never printed.
    pub key: Option<Secret>,
    /// Place one post-only order far from the touch, see it on the user channel, cancel it.
    pub trade: bool,
    /// With `trade`: the deposit wallet (`0x…`) the order is made from, signature type 3 —
    /// signed by its owner when the key's derived deposit wallets include it, else by the
    /// key as the wallet's session key. `None`: the key's own address (EOA).
    pub wallet: Option<String>,
    /// Send heartbeats (with a key). Opt-in: once one is sent, the exchange cancels every
    /// open order of the account when heartbeats stop.
    pub heartbeats: bool,
    /// Save every response and frame seen under this directory.
    pub record: Option<PathBuf>,
}

impl Options {
    /// The live exchange (every host polyclob's default), 3 snapshots, 2 tokens per
    /// protocol, 60 s of streams.
    #[must_use]
    pub fn live() -> Self {
        Self {
            clob: None,
            gamma: None,
            data: None,
            market_ws: None,
            user_ws: None,
            polybolt: None,
            sports: None,
            rtds: None,
            rpc: None,
            snapshots: 3,
            tokens: 2,
            duration: Duration::from_secs(60),
            strict: false,
            key: None,
            trade: false,
            wallet: None,
            heartbeats: false,
            record: None,
        }
    }

    /// Every host at a simulator's address (`http://127.0.0.1:PORT`), as `polyclob-sim`
    /// lays them out (the chain, `BASE/rpc`, only where the simulator serves one: set `rpc`).
    #[must_use]
    pub fn sim(base: &str) -> Self {
        let base = base.trim_end_matches('/');
        let ws = base.replacen("http", "ws", 1);
        Self {
            clob: Some(base.to_owned()),
            gamma: Some(format!("{base}/gamma")),
            data: Some(format!("{base}/data-api")),
            market_ws: Some(format!("{ws}/ws/market")),
            user_ws: Some(format!("{ws}/ws/user")),
            polybolt: Some(format!("{ws}/polybolt")),
            sports: Some(format!("{ws}/sports")),
            rtds: Some(format!("{ws}/rtds")),
            ..Self::live()
        }
    }
}

/// A private key that never shows in `Debug` or output.
#[derive(Clone)]
pub struct Secret(pub String);

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// How one assumption fared.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verdict {
    /// Holds.
    Pass,
    /// Could not be checked, or holds with a caveat.
    Warn,
    /// Does not hold.
    Fail,
}

/// One line of the report.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Line {
    /// The verdict.
    pub verdict: Verdict,
    /// The check's name, e.g. `clob.book.hash`.
    pub check: String,
    /// The evidence.
    pub evidence: String,
}

impl fmt::Display for Line {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let v = match self.verdict {
            Verdict::Pass => "PASS",
            Verdict::Warn => "WARN",
            Verdict::Fail => "FAIL",
        };
        write!(f, "{v} {:<24} {}", self.check, self.evidence)
    }
}

/// Every line of one run.
#[derive(Debug, Default)]
pub struct Report {
    /// In the order the checks ran.
    pub lines: Vec<Line>,
}

impl Report {
    pub(crate) fn push(&mut self, verdict: Verdict, check: &str, evidence: impl Into<String>) {
        self.lines.push(Line {
            verdict,
            check: check.to_owned(),
            evidence: evidence.into(),
        });
    }

    pub(crate) fn pass(&mut self, check: &str, evidence: impl Into<String>) {
        self.push(Verdict::Pass, check, evidence);
    }

    pub(crate) fn warn(&mut self, check: &str, evidence: impl Into<String>) {
        self.push(Verdict::Warn, check, evidence);
    }

    pub(crate) fn fail(&mut self, check: &str, evidence: impl Into<String>) {
        self.push(Verdict::Fail, check, evidence);
    }

    /// Whether any line failed.
    #[must_use]
    pub fn failed(&self) -> bool {
        self.lines.iter().any(|l| l.verdict == Verdict::Fail)
    }

    /// The lines with `check`'s name.
    #[must_use]
    pub fn named(&self, check: &str) -> Vec<&Line> {
        self.lines.iter().filter(|l| l.check == check).collect()
    }

    /// `N pass, N warn, N fail`.
    #[must_use]
    pub fn summary(&self) -> String {
        let n = |v| self.lines.iter().filter(|l| l.verdict == v).count();
        format!(
            "{} pass, {} warn, {} fail",
            n(Verdict::Pass),
            n(Verdict::Warn),
            n(Verdict::Fail)
        )
    }
}

/// Runs every check `opts` asks for and returns the report.
pub async fn run(opts: &Options) -> Report {
    let mut report = Report::default();
    let recorder = match record::Recorder::new(opts.record.as_deref()) {
        Ok(r) => r,
        Err(e) => {
            report.fail("record", format!("cannot write the recording: {e}"));
            return report;
        }
    };
    let ctx = checks::Ctx::new(opts, recorder);
    let ctx = match ctx {
        Ok(c) => c,
        Err(e) => {
            report.fail("setup", e);
            return report;
        }
    };
    let picked = checks::rest(&ctx, &mut report).await;
    data_checks::reads(&ctx, &mut report).await;
    data_checks::resolution_state(&ctx, &mut report, &picked).await;
    stream_checks::market(&ctx, &picked, &mut report).await;
    let creds = checks::credentials(&ctx, &mut report).await;
    stream_checks::polybolt(&ctx, creds.as_ref(), &mut report).await;
    stream_checks::rtds(&ctx, &mut report).await;
    stream_checks::sports(&ctx, &mut report).await;
    chain_checks::contracts_on_chain(&ctx, &mut report).await;
    if opts.trade {
        trade::round_trip(&ctx, creds.as_ref(), &picked, &mut report).await;
    }
    // Last: a heartbeat arms the exchange's cancel-on-silence for the account.
    checks::heartbeats(&ctx, creds.as_ref(), &mut report).await;
    ctx.recorder.finish(&mut report);
    report
}
