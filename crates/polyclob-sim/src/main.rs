//! `polyclob-sim`: the offline Polymarket CLOB simulator as a standalone server.
//!
//! Prints the bound address on the first line of stdout, then serves until killed.
//! Run with `--help` for the flags.

use std::process::ExitCode;
use std::time::Duration;

use polyclob::types::Chain;
use polyclob_sim::{
    Crowd, Faults, HttpFault, HttpRule, MarketSpec, Replay, Simulator, Trigger, WsFault, WsRule,
    parse_markets,
};

const HELP: &str = "\
polyclob-sim: an offline Polymarket CLOB on 127.0.0.1 (REST + /ws/market + /ws/user)

USAGE: polyclob-sim [FLAGS]

  --port N                 port to bind (default 0 = ephemeral; the address is printed)
  --seed N                 seed for books, ids, credentials and faults (default 0)
  --markets FILE           JSON array of market objects (default: the built-in fixture); a
                           fee-enabled market adds \"fees_enabled\":true, \"fee_type\" and
                           \"fee_schedule\":{\"rate\",\"exponent\",\"taker_only\",\"rebate_rate\"}
  --generate N             N generated markets instead (CTF, Protocol V2, neg-risk groups)
  --chain 137|80002        chain of the EIP-712 domains (default 137)
  --no-verify              skip signature/HMAC verification (headers still required)
  --heartbeat-timeout S    seconds without heartbeat before cancel-all (default 10)
  --page-size N            items per page on paginated endpoints (default 500)
  --latency-ms N           delay added to every HTTP response
  --jitter-ms N            extra random delay 0..=N ms (seeded)
  --fail-status 425|429|503  status of injected HTTP failures (default 429)
  --fail-every N           inject the failure on every N-th request
  --fail-prob P            inject the failure with probability P (0..1)
  --fail-path PREFIX       only requests whose path starts with PREFIX
  --retry-after S          Retry-After seconds for 429 (default 1)
  --ws-disconnect-every N  drop a WS connection on every N-th outbound frame
  --ws-silence-every N     go silent on every N-th outbound WS frame...
  --ws-silence-ms N        ...for N ms (default 30000)
  --activity-ms N          simulated trading: one activity step every N ms (default off)
  --crowd SEED             the standard crowd (traders named maker, taker, informed, sweeper,
                           seeded from SEED) trades each activity step
  --replay FILE            replay a recorded market-channel feed, one frame per activity step
                           (a book_recorder file, or one raw frame per line)
  --rate-limits TIER       enforce per-signer trading rate limits at TIER (standard, copper,
                           bronze, silver, gold, platinum, diamond, elite; default off)
  --rate-limit-warning     warning mode: over-limit requests pass with Poly-RateLimit-Warning
  --fund ADDRESS=PUSD      credit ADDRESS (the orders' maker) with PUSD whole pUSD and the
                           exchange approvals; repeatable (accounts start empty, and orders
                           their maker cannot cover are refused, as on the exchange)
  --no-balances            accept orders without balances (plumbing tests only)
  --api-key ADDRESS        the account ADDRESS has an API key already (nonce 0), so a client
                           that only derives one (polyclob-doctor) finds it; repeatable
  --deposit-wallet-only ADDRESS
                           the account ADDRESS must trade from its deposit wallet (POLY_1271),
                           as every new API account: its EOA orders are refused; repeatable
  --drift NAME             depart from the exchange's behaviour, for conformance checks
                           (repeatable): renamed-field, extra-book-key, hash-input,
                           removed-endpoint, polybolt-close-code,
                           missing-contract-code (the library's chain), renamed-resolution-field,
                           heartbeat-without-id, renamed-activity-field
  --help                   this text
";

struct Args {
    port: u16,
    seed: u64,
    markets: Option<String>,
    chain: Chain,
    verify: bool,
    heartbeat: u64,
    page_size: usize,
    latency_ms: u64,
    jitter_ms: u64,
    fail_status: u16,
    fail_every: Option<u64>,
    fail_prob: Option<f64>,
    fail_path: Option<String>,
    retry_after: u64,
    ws_disconnect_every: Option<u64>,
    ws_silence_every: Option<u64>,
    ws_silence_ms: u64,
    activity_ms: Option<u64>,
    generate: Option<usize>,
    crowd: Option<u64>,
    replay: Option<String>,
    rate_limits: Option<polyclob::http::Tier>,
    rate_limit_warning: bool,
    fund: Vec<(alloy_primitives::Address, u64)>,
    api_keys: Vec<String>,
    deposit_wallet_only: Vec<String>,
    balances: bool,
    drift: Vec<polyclob_sim::Drift>,
}

fn parse_args() -> Result<Option<Args>, String> {
    let mut a = Args {
        port: 0,
        seed: 0,
        markets: None,
        chain: Chain::Polygon,
        verify: true,
        heartbeat: 10,
        page_size: 500,
        latency_ms: 0,
        jitter_ms: 0,
        fail_status: 429,
        fail_every: None,
        fail_prob: None,
        fail_path: None,
        retry_after: 1,
        ws_disconnect_every: None,
        ws_silence_every: None,
        ws_silence_ms: 30_000,
        activity_ms: None,
        generate: None,
        crowd: None,
        replay: None,
        rate_limits: None,
        rate_limit_warning: false,
        fund: Vec::new(),
        api_keys: Vec::new(),
        deposit_wallet_only: Vec::new(),
        balances: true,
        drift: Vec::new(),
    };
    let mut it = std::env::args().skip(1);
    while let Some(flag) = it.next() {
        let mut val = || it.next().ok_or_else(|| format!("{flag} needs a value"));
        fn num<T: std::str::FromStr>(flag: &str, v: String) -> Result<T, String> {
            v.parse()
                .map_err(|_| format!("{flag}: invalid value {v:?}"))
        }
        match flag.as_str() {
            "--help" | "-h" => return Ok(None),
            "--port" => a.port = num(&flag, val()?)?,
            "--seed" => a.seed = num(&flag, val()?)?,
            "--markets" => a.markets = Some(val()?),
            "--chain" => {
                let id: u64 = num(&flag, val()?)?;
                a.chain =
                    Chain::from_id(id).ok_or_else(|| format!("--chain: unknown chain id {id}"))?;
            }
            "--no-verify" => a.verify = false,
            "--heartbeat-timeout" => a.heartbeat = num(&flag, val()?)?,
            "--page-size" => a.page_size = num(&flag, val()?)?,
            "--latency-ms" => a.latency_ms = num(&flag, val()?)?,
            "--jitter-ms" => a.jitter_ms = num(&flag, val()?)?,
            "--fail-status" => a.fail_status = num(&flag, val()?)?,
            "--fail-every" => a.fail_every = Some(num(&flag, val()?)?),
            "--fail-prob" => a.fail_prob = Some(num(&flag, val()?)?),
            "--fail-path" => a.fail_path = Some(val()?),
            "--retry-after" => a.retry_after = num(&flag, val()?)?,
            "--ws-disconnect-every" => a.ws_disconnect_every = Some(num(&flag, val()?)?),
            "--ws-silence-every" => a.ws_silence_every = Some(num(&flag, val()?)?),
            "--ws-silence-ms" => a.ws_silence_ms = num(&flag, val()?)?,
            "--activity-ms" => a.activity_ms = Some(num(&flag, val()?)?),
            "--generate" => a.generate = Some(num(&flag, val()?)?),
            "--crowd" => a.crowd = Some(num(&flag, val()?)?),
            "--replay" => a.replay = Some(val()?),
            "--rate-limits" => {
                let v = val()?;
                a.rate_limits = Some(
                    polyclob::http::Tier::parse(&v)
                        .ok_or_else(|| format!("--rate-limits: unknown tier {v:?}"))?,
                );
            }
            "--rate-limit-warning" => a.rate_limit_warning = true,
            "--no-balances" => a.balances = false,
            "--api-key" => a.api_keys.push(val()?),
            "--deposit-wallet-only" => a.deposit_wallet_only.push(val()?),
            "--drift" => {
                let v = val()?;
                a.drift.push(
                    polyclob_sim::Drift::parse(&v)
                        .ok_or_else(|| format!("--drift: unknown drift {v:?} (see --help)"))?,
                );
            }
            "--fund" => {
                let v = val()?;
                let parsed = v.split_once('=').and_then(|(addr, pusd)| {
                    let pusd = pusd.parse::<u64>().ok()?.checked_mul(1_000_000)?;
                    Some((addr.parse().ok()?, pusd))
                });
                a.fund.push(
                    parsed.ok_or_else(|| format!("--fund: expected ADDRESS=PUSD, got {v:?}"))?,
                );
            }
            other => return Err(format!("unknown flag {other:?} (try --help)")),
        }
    }
    Ok(Some(a))
}

fn faults(a: &Args) -> Result<Faults, String> {
    let mut f = Faults::none()
        .latency(Duration::from_millis(a.latency_ms))
        .jitter(Duration::from_millis(a.jitter_ms));
    let fault = match a.fail_status {
        425 => HttpFault::TooEarly,
        429 => HttpFault::RateLimited {
            retry_after: Duration::from_secs(a.retry_after),
        },
        503 => HttpFault::Unavailable,
        s => return Err(format!("--fail-status: {s} is not one of 425, 429, 503")),
    };
    let trigger = match (a.fail_every, a.fail_prob) {
        (Some(n), _) => Some(Trigger::EveryNth(n)),
        (None, Some(p)) => Some(Trigger::Probability(p)),
        (None, None) => None,
    };
    if let Some(t) = trigger {
        let mut rule = HttpRule::new(t, fault);
        if let Some(p) = &a.fail_path {
            rule = rule.path_prefix(p.clone());
        }
        f = f.http(rule);
    }
    if let Some(n) = a.ws_disconnect_every {
        f = f.ws(WsRule::new(Trigger::EveryNth(n), WsFault::Disconnect));
    }
    if let Some(n) = a.ws_silence_every {
        let silence = WsFault::Silence(Duration::from_millis(a.ws_silence_ms));
        f = f.ws(WsRule::new(Trigger::EveryNth(n), silence));
    }
    Ok(f)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(Some(a)) => a,
        Ok(None) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("polyclob-sim: {e}");
            return ExitCode::from(2);
        }
    };
    let markets: Vec<MarketSpec> = match (&args.markets, args.generate) {
        (None, Some(n)) => MarketSpec::generate(n),
        (None, None) => MarketSpec::defaults(),
        (Some(path), _) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| parse_markets(&t))
        {
            Ok(m) => m,
            Err(e) => {
                eprintln!("polyclob-sim: --markets {path}: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let replay = match &args.replay {
        None => Replay::default(),
        Some(path) => {
            let read = std::fs::read(path)
                .map_err(|e| e.to_string())
                .and_then(|b| {
                    if b.starts_with(b"polyclob-book-recording ") {
                        Replay::from_recording(&b)
                    } else {
                        String::from_utf8(b)
                            .map_err(|_| "not UTF-8".to_owned())
                            .and_then(|t| Replay::from_jsonl(&t))
                    }
                });
            match read {
                Ok(r) => r,
                Err(e) => {
                    eprintln!("polyclob-sim: --replay {path}: {e}");
                    return ExitCode::from(2);
                }
            }
        }
    };
    let faults = match faults(&args) {
        Ok(f) => f,
        Err(e) => {
            eprintln!("polyclob-sim: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("polyclob-sim: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    rt.block_on(async move {
        let sim = Simulator::builder()
            .port(args.port)
            .seed(args.seed)
            .markets(markets)
            .chain(args.chain)
            .verify_signatures(args.verify)
            .heartbeat_timeout(Duration::from_secs(args.heartbeat))
            .page_size(args.page_size)
            .rate_limits(args.rate_limits)
            .rate_limit_warning_only(args.rate_limit_warning)
            .faults(faults)
            .activity(args.activity_ms.map(Duration::from_millis))
            .crowd(args.crowd.map_or_else(Crowd::new, Crowd::standard))
            .replay(replay)
            .enforce_balances(args.balances);
        let sim = args
            .drift
            .iter()
            .fold(sim, |b, d| b.drift(*d))
            .start()
            .await;
        match sim {
            Ok(sim) => {
                for (address, pusd) in &args.fund {
                    sim.fund(*address, *pusd);
                }
                for address in &args.api_keys {
                    let _ = sim.api_credentials(address, 0);
                }
                for address in &args.deposit_wallet_only {
                    sim.set_deposit_wallet_only(address, true);
                }
                // Write errors are ignored: whoever reads the address may close the pipe
                // after the first line, and the server must keep running.
                use std::io::Write as _;
                let mut out = std::io::stdout().lock();
                let _ = writeln!(out, "{}", sim.http_url());
                let _ = writeln!(
                    out,
                    "# market channel: {0}/ws/market  user channel: {0}/ws/user",
                    sim.ws_url()
                );
                let _ = writeln!(
                    out,
                    "# gamma: {}  data api: {}",
                    sim.gamma_url(),
                    sim.data_api_url()
                );
                let _ = writeln!(out, "# real-time data socket (RTDS): {}", sim.rtds_url());
                for m in sim.markets() {
                    let _ = writeln!(
                        out,
                        "# market {} tokens {} / {}  \"{}\"",
                        m.condition_id(),
                        m.tokens()[0].token_id(),
                        m.tokens()[1].token_id(),
                        m.question()
                    );
                }
                let _ = out.flush();
                drop(out);
                std::future::pending::<()>().await;
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("polyclob-sim: cannot bind 127.0.0.1:{}: {e}", args.port);
                ExitCode::FAILURE
            }
        }
    })
}
