//! `polyclob-doctor`: checks polyclob's assumptions against the live exchange (default) or
//! any hosts given. Exit status: 0 when nothing failed, 1 when a check failed, 2 on bad
//! arguments. Run with `--help` for the flags.

use std::process::ExitCode;
use std::time::Duration;

use polyclob_doctor::{Options, Secret, rpc_origin, run};

const HELP: &str = "\
polyclob-doctor: checks polyclob's assumptions against a Polymarket exchange, one line each

USAGE: polyclob-doctor [FLAGS]        (no flags: the live exchange, read-only)

  --sim URL            every host at a polyclob-sim address (http://127.0.0.1:PORT)
  --clob URL           CLOB REST host          --gamma URL     Gamma host
  --data URL           Data API host           --ws URL        market channel URL
  --user-ws URL        user channel URL        --polybolt URL  PolyBolt URL
  --sports URL         sports socket URL     --rtds URL      RTDS URL
  --rpc URL            a Polygon (or Amoy) JSON-RPC node: every address of polyclob's
                       contract table has code and answers the read polyclob makes on it
  --snapshots N        REST book snapshots per token whose hash must reproduce (default 3)
  --tokens N           tokens of each protocol (CTF, V2) to check (default 2)
  --duration SECS      how long streams are watched (default 60)
  --strict             fail on fields the server sends that polyclob does not model
  --key-env VAR        read a private key (hex) from VAR (default POLYCLOB_DOCTOR_KEY, if
                       set): API credentials are derived, never created; PolyBolt, the
                       rate-limit tier and the user channel are checked. Never printed.
  --trade              with a key: one post-only BUY at the lowest tick and minimum size,
                       seen on the user channel, cancelled. Nothing else is ever sent.
  --wallet ADDR        with --trade: make the order from deposit wallet ADDR (signature
                       type 3): as its owner when ADDR is the key's deposit wallet, else as
                       its session key; checks the wallet's balance and approvals first
  --heartbeats         with a key: check POST /v1/heartbeats (3 heartbeats). CAUTION: once
                       one is sent, the exchange cancels every open order of the account
                       when heartbeats stop; use a key with no resting orders.
  --record DIR         save every response and frame (layout: the crate's README)
  --help               this text
";

fn parse() -> Result<Option<Options>, String> {
    let mut o = Options::live();
    let mut key_env = "POLYCLOB_DOCTOR_KEY".to_owned();
    let mut args = std::env::args().skip(1);
    while let Some(flag) = args.next() {
        let mut val = || args.next().ok_or_else(|| format!("{flag} needs a value"));
        let num = |v: String| {
            v.parse::<u64>()
                .map_err(|_| format!("{flag}: {v:?} is not a whole number"))
        };
        match flag.as_str() {
            "--help" | "-h" => return Ok(None),
            "--sim" => {
                let v = val()?;
                o = Options {
                    snapshots: o.snapshots,
                    tokens: o.tokens,
                    duration: o.duration,
                    strict: o.strict,
                    trade: o.trade,
                    wallet: o.wallet.take(),
                    heartbeats: o.heartbeats,
                    rpc: o.rpc.take(),
                    record: o.record.take(),
                    ..Options::sim(&v)
                };
            }
            "--clob" => o.clob = Some(val()?),
            "--gamma" => o.gamma = Some(val()?),
            "--data" => o.data = Some(val()?),
            "--ws" => o.market_ws = Some(val()?),
            "--user-ws" => o.user_ws = Some(val()?),
            "--polybolt" => o.polybolt = Some(val()?),
            "--sports" => o.sports = Some(val()?),
            "--rtds" => o.rtds = Some(val()?),
            "--rpc" => o.rpc = Some(val()?),
            "--snapshots" => o.snapshots = usize::try_from(num(val()?)?).unwrap_or(usize::MAX),
            "--tokens" => o.tokens = usize::try_from(num(val()?)?).unwrap_or(usize::MAX),
            "--duration" => o.duration = Duration::from_secs(num(val()?)?),
            "--strict" => o.strict = true,
            "--key-env" => key_env = val()?,
            "--trade" => o.trade = true,
            "--wallet" => o.wallet = Some(val()?),
            "--heartbeats" => o.heartbeats = true,
            "--record" => o.record = Some(val()?.into()),
            other => return Err(format!("unknown flag {other:?} (try --help)")),
        }
    }
    o.key = std::env::var(&key_env)
        .ok()
        .filter(|k| !k.is_empty())
        .map(Secret);
    Ok(Some(o))
}

fn host(h: &Option<String>) -> &str {
    h.as_deref().unwrap_or("default")
}

fn main() -> ExitCode {
    let opts = match parse() {
        Ok(Some(o)) => o,
        Ok(None) => {
            print!("{HELP}");
            return ExitCode::SUCCESS;
        }
        Err(e) => {
            eprintln!("polyclob-doctor: {e}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("polyclob-doctor: cannot start the runtime: {e}");
            return ExitCode::from(2);
        }
    };
    println!(
        "polyclob-doctor {} — clob {}, gamma {}, data {}, ws {}, polybolt {}, rtds {}, sports {}, rpc {}; {} snapshots, {} tokens/protocol, {} s streams{}{}{}{}",
        env!("CARGO_PKG_VERSION"),
        host(&opts.clob),
        host(&opts.gamma),
        host(&opts.data),
        host(&opts.market_ws),
        host(&opts.polybolt),
        host(&opts.rtds),
        host(&opts.sports),
        opts.rpc
            .as_deref()
            .map_or_else(|| "none".to_owned(), rpc_origin),
        opts.snapshots,
        opts.tokens,
        opts.duration.as_secs(),
        if opts.strict { ", strict" } else { "" },
        if opts.key.is_some() {
            ", with a key"
        } else {
            ""
        },
        if opts.trade { ", --trade" } else { "" },
        if opts.heartbeats {
            ", --heartbeats"
        } else {
            ""
        },
    );
    let report = rt.block_on(run(&opts));
    for line in &report.lines {
        println!("{line}");
    }
    println!("{}", report.summary());
    if report.failed() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    }
}
