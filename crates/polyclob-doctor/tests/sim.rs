//! The doctor against the simulator: a conforming exchange passes every check, and each drift
//! the simulator can inject fails exactly the check it breaks, with a line that says what.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::time::Duration;

use polyclob_doctor::{Options, Report, Secret, Verdict, replay, run};
use polyclob_sim::{Crowd, Drift, SimHandle, Simulator};

/// Hardhat account #0: a public test key, never funded on a real chain.
const KEY: &str = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";

async fn sim(drift: Option<Drift>) -> SimHandle {
    sim_with(drift, Crowd::new()).await
}

async fn sim_with(drift: Option<Drift>, crowd: Crowd) -> SimHandle {
    let b = Simulator::builder()
        .seed(7)
        .crowd(crowd)
        .activity(Some(Duration::from_millis(30)))
        .rtds_interval(Duration::from_millis(50))
        .onchain(true);
    let b = match drift {
        Some(d) => b.drift(d),
        None => b,
    };
    let sim = b.start().await.unwrap();
    // The account already has an API key: the doctor derives it, it never creates one.
    let address = polyclob::sign::Signer::from_hex(KEY).unwrap().address();
    let _ = sim.api_credentials(&format!("{address:#x}"), 0);
    sim
}

fn options(sim: &SimHandle) -> Options {
    Options {
        snapshots: 2,
        tokens: 1,
        duration: Duration::from_secs(1),
        strict: true,
        key: Some(Secret(KEY.to_owned())),
        rpc: Some(sim.rpc_url()),
        heartbeats: true,
        ..Options::sim(&sim.http_url())
    }
}

fn failing(r: &Report) -> Vec<String> {
    r.lines
        .iter()
        .filter(|l| l.verdict == Verdict::Fail)
        .map(ToString::to_string)
        .collect()
}

fn show(r: &Report) -> String {
    r.lines
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

#[tokio::test]
async fn a_conforming_exchange_passes_every_check_and_the_trade_round_trip() {
    // Other traders, so the Data API's trade feed names a wallet whose positions, activity
    // and market holders the doctor then reads.
    let sim = sim_with(None, Crowd::standard(7)).await;
    let data = polyclob::data::Client::builder()
        .host(sim.data_api_url())
        .build()
        .unwrap();
    for _ in 0..200 {
        let page = data.page(&polyclob::data::Query::trades(), None).await;
        if page.is_ok_and(|p| !p.data.is_empty()) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    sim.fund(
        polyclob::sign::Signer::from_hex(KEY).unwrap().address(),
        1_000_000_000,
    );
    // Scenario rows for the reads the crowd's trading does not make: a combo held by every
    // trader (the doctor reads the trade feed's first wallet) and a comment on the first event.
    for t in Crowd::standard(7).traders() {
        assert!(
            sim.seed_combo(t.address(), &[(0, 0), (1, 1)], 10_000_000, 2_500_000)
                .is_some()
        );
    }
    let author = Crowd::standard(7).traders()[0].address();
    sim.comment("1000", author, "a comment for the doctor", None);
    let dir = std::env::temp_dir().join(format!("polyclob-doctor-{}", std::process::id()));
    let opts = Options {
        trade: true,
        record: Some(dir.clone()),
        ..options(&sim)
    };
    let r = run(&opts).await;
    assert!(!r.failed(), "{}", show(&r));
    for check in [
        "clob.time",
        "clob.markets",
        "clob.book.decode.ctf",
        "clob.book.hash.ctf",
        "clob.book.fields.ctf",
        "clob.midpoint",
        "clob.fee-rate",
        "clob.last-trade-price",
        "clob.market-by-token",
        "clob.books",
        "clob.prices-history",
        "clob.midpoints",
        "clob.simplified-markets",
        "clob.sampling-simplified-markets",
        "gamma.events",
        "gamma.tags",
        "gamma.sports",
        "gamma.markets",
        "data.trades",
        "data.activity",
        "data.activity.fields",
        "ws.market.snapshot",
        "ws.market.hash",
        "ws.market.deltas",
        "auth",
        "polybolt.connect",
        "polybolt.snapshot",
        "polybolt.sequence",
        "sports.stream",
        "trade.place",
        "trade.user-channel",
        "trade.cancel",
        "record",
        "data.resolutions",
        "data.resolutions.fields",
        "data.oi",
        "heartbeat",
        "heartbeat.resync",
        "rtds.connect",
        "rtds.decode",
        "chain.id",
        "chain.code",
        "chain.interface",
        "clob.order.shape",
        "data.trace-id",
        "data.status",
        "data.status.fields",
        "data.leaderboard",
        "data.user-pnl",
        "data.user-pnl.compose",
        "data.user-stats",
        "data.user-volume",
        "data.approvals",
        "data.live-volume",
        "data.combos.positions",
        "data.combos.activity",
        "data.resolutions.state",
        "gamma.comments",
        "gamma.profile",
        "gamma.series-summary",
        "gamma.teams",
    ] {
        let lines = r.named(check);
        assert!(
            lines.iter().any(|l| l.verdict == Verdict::Pass),
            "{check} did not pass:\n{}",
            show(&r)
        );
    }
    // The one order was cancelled: nothing of ours rests.
    let index = std::fs::read_to_string(dir.join("rest").join("index.tsv")).unwrap();
    assert!(
        index.lines().any(|l| l.contains("/book?token_id=")),
        "{index}"
    );
    let frames = std::fs::read_to_string(dir.join("ws").join("market.txt")).unwrap();
    assert!(
        frames
            .lines()
            .any(|l| l.contains("\"event_type\":\"book\""))
    );
    // The simulator serves the deprecated RTDS price topics: a warning, not a failure.
    assert!(
        r.named("rtds.prices")
            .iter()
            .any(|l| l.verdict == Verdict::Warn && l.evidence.contains("crypto_prices")),
        "{}",
        show(&r)
    );
    // No secret in the report.
    let text = show(&r);
    assert!(!text.contains(KEY), "the key leaked into the report");
    // Nor the node URL's path (a hosted node's carries its API key): its origin only.
    assert!(!text.contains("/rpc"), "{text}");
    assert!(text.contains(&format!("at {}/…", sim.http_url())), "{text}");

    // The recording replays offline: every body and frame decodes, no row lost.
    let replayed = replay(&dir).unwrap();
    assert!(replayed.problems.is_empty(), "{:?}", replayed.problems);
    assert_eq!(
        replayed.bodies + replayed.error_bodies,
        index.lines().count(),
        "every recorded body was replayed: {replayed:?}"
    );
    assert!(replayed.rows > replayed.bodies, "{replayed:?}");
    let recorded_frames: usize = ["market", "polybolt", "rtds"]
        .iter()
        .map(|c| {
            std::fs::read_to_string(dir.join("ws").join(format!("{c}.txt")))
                .unwrap()
                .lines()
                .count()
        })
        .sum();
    assert_eq!(replayed.frames, recorded_frames, "{replayed:?}");
    let _ = std::fs::remove_dir_all(dir);
}

/// The onboarding path of every new API account: a deposit-wallet-only account passes
/// `--trade --wallet <its deposit wallet>` (owner mode), and without `--wallet` its EOA
/// order fails with the exchange's deposit-wallet words.
#[tokio::test]
async fn a_deposit_wallet_only_account_trades_from_its_wallet() {
    let sim = sim_with(None, Crowd::standard(7)).await;
    let eoa = polyclob::sign::Signer::from_hex(KEY).unwrap().address();
    sim.set_deposit_wallet_only(&format!("{eoa:#x}"), true);
    let wallet = polyclob::sign::wallet::derive_deposit_wallets(eoa)[1];
    sim.fund(wallet, 1_000_000_000);
    // Trading rate limits on: the answers carry the Poly-RateLimit headers the doctor reads.
    sim.set_rate_limits(Some(polyclob::http::Tier::Standard));
    let opts = Options {
        trade: true,
        wallet: Some(format!("{wallet:#x}")),
        heartbeats: false,
        ..options(&sim)
    };
    let r = run(&opts).await;
    assert!(!r.failed(), "{}", show(&r));
    for check in [
        "wallet.kind",
        "wallet.balance",
        "wallet.approvals",
        "trade.place",
        "clob.order.shape",
        "trade.user-channel",
        "trade.cancel",
        "ratelimit.headers",
        "ratelimit.headers.cancel",
    ] {
        assert!(
            r.named(check).iter().any(|l| l.verdict == Verdict::Pass),
            "{check} did not pass:\n{}",
            show(&r)
        );
    }
    assert!(
        r.named("ratelimit.headers")[0]
            .evidence
            .contains("tier standard"),
        "{}",
        show(&r)
    );
    assert!(
        r.named("wallet.kind")[0]
            .evidence
            .contains("the owner signs"),
        "{}",
        show(&r)
    );
    assert!(
        r.named("trade.place")[0]
            .evidence
            .contains("signature type 3"),
        "{}",
        show(&r)
    );

    // The same account from its EOA: refused, in the exchange's words.
    let eoa_run = run(&Options {
        wallet: None,
        ..opts
    })
    .await;
    let place = eoa_run.named("trade.place");
    assert!(
        place
            .iter()
            .any(|l| l.verdict == Verdict::Fail && l.evidence.contains("deposit wallet")),
        "{}",
        show(&eoa_run)
    );
}

/// A deposit wallet traded by a session key: `--wallet` names a wallet not derived from the
/// key, so the doctor signs as the wallet's session key (with the key's own credentials). It
/// fails while the wallet's owner has not authorized the key, and passes once it has
/// (through the relayer, scope CLOB).
#[tokio::test]
async fn a_session_key_trades_the_deposit_wallet_it_was_authorized_for() {
    use polyclob::clob::{ApiKeyNonce, SessionScope};
    use polyclob::sign::Signer;
    /// Hardhat account #1: the wallet's owner.
    const OWNER: &str = "59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
    let sim = sim(None).await;
    let owner = Signer::from_hex(OWNER).unwrap();
    sim.set_deposit_wallet_only(&format!("{:#x}", owner.address()), true);
    let wallet = polyclob::sign::wallet::derive_deposit_wallets(owner.address())[1];
    sim.fund(wallet, 1_000_000_000);
    let opts = Options {
        trade: true,
        wallet: Some(format!("{wallet:#x}")),
        heartbeats: false,
        ..options(&sim)
    };

    let before = run(&opts).await;
    assert!(
        before.named("wallet.kind")[0]
            .evidence
            .contains("as its session key"),
        "{}",
        show(&before)
    );
    assert!(
        before
            .named("trade.place")
            .iter()
            .any(|l| l.verdict == Verdict::Fail),
        "an unauthorized session key's order passed:\n{}",
        show(&before)
    );

    let owner_clob = polyclob::clob::Client::builder()
        .host(sim.http_url())
        .signer(owner.clone())
        .build()
        .unwrap();
    owner_clob.set_credentials(owner_clob.create_api_key(ApiKeyNonce::ZERO).await.unwrap());
    let builder = owner_clob.create_builder_api_key().await.unwrap();
    polyclob::relayer::Client::builder()
        .host(sim.http_url())
        .signer(owner)
        .build()
        .unwrap()
        .authorize_session_signer(
            &builder,
            wallet,
            Signer::from_hex(KEY).unwrap().address(),
            vec![SessionScope::Clob],
            None,
            "doctor",
        )
        .await
        .unwrap();

    let r = run(&opts).await;
    assert!(!r.failed(), "{}", show(&r));
    for check in [
        "wallet.balance",
        "trade.place",
        "clob.order.shape",
        "trade.user-channel",
        "trade.cancel",
    ] {
        assert!(
            r.named(check).iter().any(|l| l.verdict == Verdict::Pass),
            "{check} did not pass:\n{}",
            show(&r)
        );
    }
    assert!(
        r.named("wallet.balance")[0].evidence.contains("1000000000"),
        "the balance read is not the wallet's:\n{}",
        show(&r)
    );
    assert!(
        r.named("trade.place")[0]
            .evidence
            .contains(&format!("from {wallet} (signature type 3)")),
        "{}",
        show(&r)
    );
}

/// A recording made elsewhere (`polyclob-doctor --record DIR` against the live exchange),
/// named by `POLYCLOB_RECORD_DIR`: everything in it decodes with no row lost. Skips, saying
/// so, when the variable is unset.
#[test]
fn a_recording_named_by_polyclob_record_dir_replays() {
    let Some(dir) = std::env::var_os("POLYCLOB_RECORD_DIR") else {
        println!(
            "SKIPPED: POLYCLOB_RECORD_DIR is not set (a `polyclob-doctor --record DIR` directory)"
        );
        return;
    };
    let replayed = replay(std::path::Path::new(&dir)).unwrap();
    assert!(replayed.problems.is_empty(), "{:#?}", replayed.problems);
    assert!(replayed.bodies > 0, "nothing recorded: {replayed:?}");
    println!(
        "replayed {} bodies ({} rows) and {} frames",
        replayed.bodies, replayed.rows, replayed.frames
    );
}

/// Runs the doctor against a simulator with `drift` and returns its failing lines.
async fn fails_with(drift: Drift) -> (Vec<String>, Report) {
    let sim = sim(Some(drift)).await;
    let r = run(&options(&sim)).await;
    (failing(&r), r)
}

#[tokio::test]
async fn a_renamed_field_fails_the_book_decode_naming_the_new_member() {
    let (f, r) = fails_with(Drift::RenamedField).await;
    assert!(
        f.iter().any(|l| l.starts_with("FAIL clob.book.decode.")
            && l.contains("asset_id is \"\"")
            && l.contains("token_id")),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn an_extra_key_in_books_fails_strict_mode_naming_it() {
    let (f, r) = fails_with(Drift::ExtraBookKey).await;
    assert!(
        f.iter().any(|l| l.starts_with("FAIL clob.book.fields.")
            && l.ends_with("members polyclob does not model: fee_schedule")),
        "{}",
        show(&r)
    );
    // It is only a new key: the hash and the decode still hold.
    assert!(
        f.iter().all(|l| !l.contains("clob.book.hash")),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn a_changed_hash_input_fails_the_book_hash() {
    let (f, r) = fails_with(Drift::HashInput).await;
    assert!(
        f.iter()
            .any(|l| l.starts_with("FAIL clob.book.hash.") && l.contains("reproduces on 0/")),
        "{}",
        show(&r)
    );
    assert!(
        f.iter().all(|l| !l.contains("clob.book.decode")),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn a_removed_endpoint_fails_its_check_with_the_status() {
    let (f, r) = fails_with(Drift::RemovedEndpoint).await;
    assert_eq!(f.len(), 1, "only the removed endpoint fails:\n{}", show(&r));
    assert!(
        f[0].starts_with("FAIL clob.midpoint") && f[0].contains("GET /midpoint: HTTP 404"),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn a_new_polybolt_close_code_fails_naming_the_code() {
    let (f, r) = fails_with(Drift::PolyBoltCloseCode).await;
    assert!(
        f.iter().any(|l| l.starts_with("FAIL polybolt.close")
            && l.contains("code 4010")
            && l.contains("does not handle")),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn a_contract_without_code_fails_naming_its_address() {
    let (f, r) = fails_with(Drift::MissingContractCode).await;
    assert_eq!(
        f.len(),
        1,
        "only the chain's code check fails:\n{}",
        show(&r)
    );
    assert!(
        f[0].starts_with("FAIL chain.code") && f[0].contains("no code at v3 router 0x"),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn a_renamed_resolution_field_fails_strict_mode_naming_it() {
    let (f, r) = fails_with(Drift::RenamedResolutionField).await;
    assert_eq!(f.len(), 1, "only the resolution fields fail:\n{}", show(&r));
    assert!(
        f[0].starts_with("FAIL data.resolutions.fields")
            && f[0].ends_with("members polyclob does not model: payout_numerators"),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn a_heartbeat_answer_without_an_id_fails_the_heartbeat_check() {
    let (f, r) = fails_with(Drift::HeartbeatWithoutId).await;
    assert_eq!(f.len(), 1, "only the heartbeat fails:\n{}", show(&r));
    assert!(
        f[0].starts_with("FAIL heartbeat ") && f[0].contains("answered no heartbeat_id"),
        "{}",
        show(&r)
    );
}

#[tokio::test]
async fn a_renamed_activity_field_fails_the_rtds_decode_naming_it() {
    let (f, r) = fails_with(Drift::RenamedActivityField).await;
    assert_eq!(f.len(), 1, "only the RTDS decode fails:\n{}", show(&r));
    assert!(
        f[0].starts_with("FAIL rtds.decode") && f[0].contains("asset"),
        "{}",
        show(&r)
    );
}
