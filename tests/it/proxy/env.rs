//! The default proxy choice honours the environment like reqwest (and so
//! polymarket-rs-client 0.1.1): `HTTP_PROXY` carries REST (native and the drop-in), the order
//! lane, a market stream and on-chain JSON-RPC to a host name only the proxy can reach;
//! loopback and `NO_PROXY` hosts and `no_proxy()` go direct.
//!
//! The test changes the process environment, which is unsound while other threads may read
//! it, and the harness runs the suite's tests in parallel: so it runs its body in a child
//! process of the test binary that runs only this test, and sets the variables there before
//! any runtime thread exists.
#![allow(clippy::unwrap_used, clippy::expect_used, unsafe_code)]

use crate::support::proxy as proxy_support;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::StreamExt;
use polyclob::clob::Client;
use polyclob::ws::event::{OwnedFrame, Status};
use polyclob::ws::feed::FeedEvent;
type Event = FeedEvent<OwnedFrame>;
use polyclob::ws::market::MarketStream;
use polyclob_sim::{MarketSpec, Simulator};
use proxy_support::{Behave, Kind, TestProxy, first_frame};

/// Set in the child process that runs the body.
const CHILD: &str = "POLYCLOB_PROXY_ENV_CHILD";

#[test]
fn environment_proxies() {
    if std::env::var_os(CHILD).is_none() {
        // The harness's name of this test: the module path without the crate's name.
        let module = module_path!().split_once("::").unwrap().1;
        let name = format!("{module}::environment_proxies");
        let out = std::process::Command::new(std::env::current_exe().unwrap())
            .args([name.as_str(), "--exact", "--test-threads=1", "--nocapture"])
            .env(CHILD, "1")
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stdout.contains("test result: ok. 1 passed"),
            "the child process running {name} failed ({}):\n{stdout}\n{stderr}",
            out.status
        );
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let proxy_addr = listener.local_addr().unwrap();
    for k in [
        "HTTPS_PROXY",
        "https_proxy",
        "http_proxy",
        "ALL_PROXY",
        "all_proxy",
        "no_proxy",
        "REQUEST_METHOD",
    ] {
        // SAFETY: the child process's only test, before any other thread of it exists
        // (the harness's main thread only waits for it).
        unsafe { std::env::remove_var(k) };
    }
    // SAFETY: as above.
    unsafe {
        std::env::set_var("HTTP_PROXY", format!("http://{proxy_addr}"));
        std::env::set_var("NO_PROXY", "example.org, bypass.invalid");
    }
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(run(listener));
}

async fn run(listener: std::net::TcpListener) {
    let cond = "0x00000000000000000000000000000000000000000000000000000000000000c1";
    let sim = Simulator::builder().markets(vec![MarketSpec::binary(
        cond,
        "Proxy test",
        ["1001", "1002"],
    )]);
    #[cfg(feature = "onchain")]
    let sim = sim.onchain(true);
    let sim = sim.start().await.unwrap();
    let up: SocketAddr = sim
        .http_url()
        .trim_start_matches("http://")
        .parse()
        .unwrap();
    let px = TestProxy::start_on(listener, Kind::Http, up, None, Behave::Serve);
    // Only the proxy knows where `sim.invalid` is.
    let host = format!("http://sim.invalid:{}", up.port());

    // Native REST: absolute-form requests to the proxy.
    let c = Client::builder().host(&host).build().unwrap();
    assert!(c.server_time().await.unwrap() > 0);
    assert!(px.forwards() >= 1);

    // The drop-in: the 0.1.1 behaviour ("system proxy env honoured").
    let forwards = px.forwards();
    let compat = polyclob::ClobClient::new(&host);
    assert!(compat.get_server_time().await.unwrap() > 0);
    assert!(
        px.forwards() > forwards,
        "the drop-in went through the proxy"
    );

    // The order lane: a CONNECT tunnel.
    let c = Client::builder()
        .host(&host)
        .order_lane(true)
        .build()
        .unwrap();
    c.prewarm().await.unwrap();
    assert_eq!(c.order_lane_connections(), 1);
    let tunnels = px.tunnels();
    assert!(tunnels >= 1);

    // A market stream: a CONNECT tunnel, then the upgrade and the data.
    let mut market = MarketStream::builder()
        .url(format!("ws://sim.invalid:{}/ws/market", up.port()))
        .assets(["1001"])
        .frames()
        .build()
        .unwrap();
    first_frame(&mut market).await;
    assert!(px.tunnels() > tunnels);

    // On-chain JSON-RPC.
    #[cfg(feature = "onchain")]
    {
        let forwards = px.forwards();
        let signer = polyclob::sign::Signer::from_hex(
            "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
        )
        .unwrap();
        let me = signer.address();
        let settler = polyclob::onchain::Settler::builder(format!("{host}/rpc"), signer)
            .build()
            .unwrap();
        settler.collateral_balance(me).await.unwrap();
        assert!(px.forwards() > forwards, "JSON-RPC went through the proxy");
    }

    // Direct: loopback targets, NO_PROXY hosts, and `no_proxy()`.
    let accepts = px.accepts();
    let c = Client::builder()
        .host(sim.http_url())
        .order_lane(true)
        .build()
        .unwrap();
    c.prewarm().await.unwrap();
    assert!(c.server_time().await.unwrap() > 0);
    let mut market = MarketStream::builder()
        .url(sim.market_ws_url())
        .assets(["1001"])
        .frames()
        .build()
        .unwrap();
    tokio::time::timeout(Duration::from_secs(5), async {
        while !matches!(market.next().await.unwrap(), Event::Message(_)) {}
    })
    .await
    .unwrap();
    drop(market);
    let quick = polyclob::http::RetryPolicy::none();
    let bypass = Client::builder()
        .host(format!("http://bypass.invalid:{}", up.port()))
        .retry(quick)
        .build()
        .unwrap();
    assert!(bypass.server_time().await.is_err(), "direct: no such host");
    let direct = Client::builder()
        .host(&host)
        .no_proxy()
        .retry(quick)
        .build()
        .unwrap();
    assert!(direct.server_time().await.is_err(), "direct: no such host");
    let mut market = MarketStream::builder()
        .url(format!("ws://sim.invalid:{}/ws/market", up.port()))
        .no_proxy()
        .assets(["1001"])
        .frames()
        .build()
        .unwrap();
    let ev = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            if let Event::Status(s @ Status::Disconnected { .. }) = market.next().await.unwrap() {
                break s;
            }
        }
    })
    .await
    .unwrap();
    assert!(matches!(ev, Status::Disconnected { .. }));
    assert_eq!(px.accepts(), accepts, "none of these reached the proxy");
}
