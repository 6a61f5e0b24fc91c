//! Explicit proxies (`Proxy`, `proxy()`, `no_proxy()`): REST, an order on the order lane, a
//! market stream and RTDS through loopback HTTP `CONNECT` and SOCKS5 proxies to the
//! simulator; refusals (407, SOCKS auth failure, reply codes, garbage, early close) are clear
//! errors that never show the credentials. The environment variables are tested in `env`, in a child
//! process of their own, since they change the process environment.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod env;

use crate::support::proxy as proxy_support;
use crate::support::rails;

use std::net::SocketAddr;
use std::time::Duration;

use futures_util::StreamExt;
use polyclob::clob::Client;
use polyclob::http::Proxy;
use polyclob::http::ProxyFailure;
use polyclob::http::Throttle;
use polyclob::rtds::{RtdsStream, Subscription};
use polyclob::ws::event::{ConnectError, Disconnect};
use polyclob::ws::event::{OwnedFrame, Status};
use polyclob::ws::feed::FeedEvent;
type Event = FeedEvent<OwnedFrame>;
use polyclob::ws::market::MarketStream;
use polyclob_sim::SimHandle;
use proxy_support::{Behave, Kind, TestProxy, first_frame};
use rails::{KEY_A, YES, client_with, resting_bids, sim};

const SECRET: &str = "pa:ss w0rd-hunter2";

fn sim_addr(sim: &SimHandle) -> SocketAddr {
    sim.http_url()
        .trim_start_matches("http://")
        .parse()
        .unwrap()
}

fn port(sim: &SimHandle) -> u16 {
    sim_addr(sim).port()
}

/// A proxy of `kind` to `upstream` that wants the user `bot` and [`SECRET`].
async fn authed(kind: Kind, upstream: SocketAddr) -> TestProxy {
    TestProxy::start(kind, upstream, Some(("bot", SECRET)), Behave::Serve).await
}

/// REST (absolute form) and the order lane (`CONNECT`) through an HTTP proxy with
/// credentials; the order is accepted and the proxy carried the bytes.
#[tokio::test]
async fn rest_and_lane_through_http_proxy_with_auth() {
    let sim = sim(None).await;
    let px = authed(Kind::Http, sim_addr(&sim)).await;
    let proxy = Proxy::parse(&px.url("http", None))
        .unwrap()
        .basic_auth("bot", SECRET);
    let b = Client::builder()
        .proxy(proxy)
        .order_lane(true)
        .throttle(Throttle::Off);
    assert!(!format!("{b:?}").contains("hunter2"), "{b:?}");
    let c = client_with(&sim, KEY_A, b).await;
    assert!(c.server_time().await.unwrap() > 0);
    let forwards = px.forwards();
    assert!(forwards >= 1, "REST went through the proxy");
    for o in resting_bids(&c, KEY_A, 2, false) {
        let r = c.post_order(&o).await.unwrap();
        assert!(r.success, "{r:?}");
    }
    assert_eq!(c.order_lane_connections(), 1, "the lane carried the orders");
    assert!(px.tunnels() >= 1, "the lane tunnelled with CONNECT");
    assert!(
        px.targets().contains(&format!("127.0.0.1:{}", port(&sim))),
        "{:?}",
        px.targets()
    );
    assert_eq!(px.auth_failures(), 0);
    assert!(px.bytes_down() > 0);
    // Every request the simulator saw came through the proxy (it has no other way in here).
    assert!(sim.requests().iter().any(|r| r.starts_with("POST /order")));
}

/// SOCKS5 with remote DNS and credentials, to a host name that does not resolve: REST, the
/// lane, the Gamma client, a market stream inheriting the client's proxy and RTDS all work,
/// so each went through the proxy.
#[tokio::test]
async fn socks5h_carries_everything_to_an_unresolvable_host() {
    let sim = sim(None).await;
    let px = authed(Kind::Socks5, sim_addr(&sim)).await;
    let proxy = Proxy::parse(&px.url("socks5h", None))
        .unwrap()
        .basic_auth("bot", SECRET);
    let host = format!("http://sim.invalid:{}", port(&sim));
    let c = Client::builder()
        .host(&host)
        .proxy(proxy.clone())
        .order_lane(true)
        .throttle(Throttle::Off)
        .signer(polyclob::sign::Signer::from_hex(KEY_A).unwrap())
        .build()
        .unwrap();
    let creds = c
        .create_or_derive_api_key(polyclob::clob::ApiKeyNonce::ZERO)
        .await
        .unwrap();
    c.set_credentials(creds);
    crate::support::sim::fund_all(
        &sim,
        polyclob::sign::Signer::from_hex(KEY_A).unwrap().address(),
    );
    for o in resting_bids(&c, KEY_A, 1, false) {
        assert!(c.post_order(&o).await.unwrap().success);
    }
    assert_eq!(c.order_lane_connections(), 1);
    let gamma = polyclob::gamma::Client::builder()
        .host(format!("{host}/gamma"))
        .proxy(proxy.clone())
        .build()
        .unwrap();
    let (markets, _) = gamma
        .all_markets(polyclob::gamma::MarketFilter::new())
        .await
        .unwrap();
    assert!(!markets.is_empty());
    let before = px.tunnels();
    assert!(before >= 3, "REST, lane and Gamma tunnels: {before}");

    // Builders and clients never show the credentials.
    let shown = format!(
        "{:?} {:?} {c:?} {proxy:?}",
        MarketStream::builder().proxy(proxy.clone()),
        RtdsStream::builder().proxy(proxy.clone()),
    );
    assert!(
        shown.contains("<redacted>") && !shown.contains("hunter2"),
        "{shown}"
    );

    // A market stream with the client's proxy choice.
    let mut market = MarketStream::builder()
        .url(format!("ws://sim.invalid:{}/ws/market", port(&sim)))
        .proxy_from(&c)
        .assets([YES])
        .frames()
        .build()
        .unwrap();
    let frame = first_frame(&mut market).await;
    assert!(
        frame.as_str().unwrap().contains(YES),
        "{:?}",
        frame.as_str()
    );
    assert!(px.tunnels() > before);

    // RTDS through the same proxy, set on the builder.
    let mut rtds = RtdsStream::builder()
        .url(format!("ws://sim.invalid:{}/rtds", port(&sim)))
        .proxy(proxy)
        .subscribe(Subscription::crypto_prices(["ethusdt"]))
        .build()
        .unwrap();
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match rtds.next().await.unwrap() {
                FeedEvent::Message(_) => break,
                FeedEvent::Status(Status::Disconnected { reason, .. }) => panic!("{reason:?}"),
                _ => {}
            }
        }
    })
    .await
    .expect("an RTDS message through the proxy");
    let targets = px.targets();
    assert!(
        targets.contains(&format!("sim.invalid:{}", port(&sim))),
        "{targets:?}"
    );
    assert_eq!(px.auth_failures(), 0);
}

/// `no_proxy()` goes direct even when a proxy was set before.
#[tokio::test]
async fn no_proxy_goes_direct() {
    let sim = sim(None).await;
    let px = TestProxy::start(Kind::Http, sim_addr(&sim), None, Behave::Serve).await;
    let proxy = Proxy::parse(&px.url("http", None)).unwrap();
    let c = Client::builder()
        .host(sim.http_url())
        .proxy(proxy.clone())
        .no_proxy()
        .order_lane(true)
        .build()
        .unwrap();
    c.prewarm().await.unwrap();
    assert!(c.server_time().await.unwrap() > 0);
    let mut market = MarketStream::builder()
        .url(sim.market_ws_url())
        .proxy(proxy)
        .no_proxy()
        .assets([YES])
        .frames()
        .build()
        .unwrap();
    tokio::time::timeout(Duration::from_secs(5), async {
        while !matches!(market.next().await.unwrap(), Event::Message(_)) {}
    })
    .await
    .unwrap();
    assert_eq!(px.accepts(), 0, "nothing reached the proxy");
}

/// The first connect failure a market stream reports.
async fn ws_failure(proxy: Proxy, sim: &SimHandle) -> ConnectError {
    let mut market = MarketStream::builder()
        .url(format!("ws://sim.invalid:{}/ws/market", port(sim)))
        .proxy(proxy)
        .backoff(Duration::from_millis(10), Duration::from_millis(50))
        .assets([YES])
        .frames()
        .build()
        .unwrap();
    let mut seen = None;
    tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match market.next().await.unwrap() {
                Event::Status(Status::Disconnected {
                    reason: Disconnect::Connect(e),
                    retry_in,
                    ..
                }) => {
                    // The stream backs off and tries again: a second failure proves it.
                    assert!(retry_in > Duration::ZERO);
                    if seen.replace(e).is_some() {
                        break;
                    }
                }
                Event::Message(_) => panic!("connected through a refusing proxy"),
                _ => {}
            }
        }
    })
    .await
    .expect("two connect failures");
    seen.unwrap()
}

/// The first lane connect error (a prewarm opens one lane connection).
async fn lane_error(proxy: Proxy, sim: &SimHandle) -> String {
    let c = Client::builder()
        .host(sim.http_url())
        .proxy(proxy)
        .order_lane(true)
        .connect_timeout(Duration::from_secs(2))
        .build()
        .unwrap();
    let e = c.prewarm().await.expect_err("the proxy refuses");
    let text = format!("{e} / {e:?} / {}", chain(&e));
    assert!(!text.contains("hunter2"), "{text}");
    text
}

fn chain(e: &dyn std::error::Error) -> String {
    let mut s = e.to_string();
    let mut next = e.source();
    while let Some(c) = next {
        s.push_str(": ");
        s.push_str(&c.to_string());
        next = c.source();
    }
    s
}

#[tokio::test]
async fn refusals_are_clear_connect_errors_without_credentials() {
    let sim = sim(None).await;
    let up = sim_addr(&sim);
    let wrong = |p: &TestProxy, scheme: &str| {
        Proxy::parse(&p.url(scheme, None))
            .unwrap()
            .basic_auth("bot", "wrong-hunter2")
    };

    // HTTP proxy: wrong credentials -> 407.
    let px = authed(Kind::Http, up).await;
    let e = ws_failure(wrong(&px, "http"), &sim).await;
    assert_eq!(e, ConnectError::Proxy(ProxyFailure::Status(407)));
    assert!(e.to_string().contains("407"), "{e}");
    assert!(!format!("{e} {e:?}").contains("hunter2"));
    let text = lane_error(wrong(&px, "http"), &sim).await;
    assert!(
        text.contains("407") && text.contains("order lane"),
        "{text}"
    );
    assert!(px.auth_failures() >= 3);

    // HTTP proxy: 403 and 502.
    for code in [403, 502] {
        let px = TestProxy::start(Kind::Http, up, None, Behave::Status(code)).await;
        let p = Proxy::parse(&px.url("http", None)).unwrap();
        assert_eq!(
            ws_failure(p.clone(), &sim).await,
            ConnectError::Proxy(ProxyFailure::Status(code))
        );
        assert!(lane_error(p, &sim).await.contains(&code.to_string()));
    }

    // SOCKS5: wrong password, and no credentials where they are required.
    let px = authed(Kind::Socks5, up).await;
    let e = ws_failure(wrong(&px, "socks5h"), &sim).await;
    assert_eq!(e, ConnectError::Proxy(ProxyFailure::SocksAuth));
    assert!(
        lane_error(wrong(&px, "socks5"), &sim)
            .await
            .contains("username/password")
    );
    let bare = Proxy::parse(&px.url("socks5h", None)).unwrap();
    assert_eq!(
        ws_failure(bare, &sim).await,
        ConnectError::Proxy(ProxyFailure::SocksNoMethod)
    );

    // SOCKS5 reply code 5 (connection refused).
    let px = TestProxy::start(Kind::Socks5, up, None, Behave::Status(5)).await;
    let e = ws_failure(Proxy::parse(&px.url("socks5h", None)).unwrap(), &sim).await;
    assert_eq!(e, ConnectError::Proxy(ProxyFailure::Socks(5)));
    assert!(e.to_string().contains("connection refused"), "{e}");

    // Garbage and an early close, from both kinds.
    for kind in [Kind::Http, Kind::Socks5] {
        let scheme = if kind == Kind::Http {
            "http"
        } else {
            "socks5h"
        };
        let px = TestProxy::start(kind, up, None, Behave::Garbage).await;
        let p = Proxy::parse(&px.url(scheme, None)).unwrap();
        assert_eq!(
            ws_failure(p.clone(), &sim).await,
            ConnectError::Proxy(ProxyFailure::Malformed)
        );
        assert!(lane_error(p, &sim).await.contains("malformed"));
        let px = TestProxy::start(kind, up, None, Behave::Close).await;
        let p = Proxy::parse(&px.url(scheme, None)).unwrap();
        assert_eq!(
            ws_failure(p, &sim).await,
            ConnectError::Proxy(ProxyFailure::Closed)
        );
    }

    // An endless CONNECT answer, and a SOCKS5 reply cut short.
    let px = TestProxy::start(Kind::Http, up, None, Behave::Oversized).await;
    let p = Proxy::parse(&px.url("http", None)).unwrap();
    assert_eq!(
        ws_failure(p.clone(), &sim).await,
        ConnectError::Proxy(ProxyFailure::Oversized)
    );
    assert!(lane_error(p, &sim).await.contains("8 KiB"));
    let px = TestProxy::start(Kind::Socks5, up, None, Behave::Oversized).await;
    let p = Proxy::parse(&px.url("socks5h", None)).unwrap();
    assert_eq!(
        ws_failure(p, &sim).await,
        ConnectError::Proxy(ProxyFailure::Closed)
    );

    // A proxy that never answers: the connect timeout covers the handshake.
    for kind in [Kind::Http, Kind::Socks5] {
        let scheme = if kind == Kind::Http {
            "http"
        } else {
            "socks5h"
        };
        let px = TestProxy::start(kind, up, None, Behave::Hang).await;
        let p = Proxy::parse(&px.url(scheme, None)).unwrap();
        let mut market = MarketStream::builder()
            .url(sim.market_ws_url())
            .proxy(p.clone())
            .connect_timeout(Duration::from_millis(200))
            .assets([YES])
            .frames()
            .build()
            .unwrap();
        let reason = tokio::time::timeout(Duration::from_secs(5), async {
            loop {
                if let Event::Status(Status::Disconnected { reason, .. }) =
                    market.next().await.unwrap()
                {
                    break reason;
                }
            }
        })
        .await
        .unwrap();
        assert_eq!(reason, Disconnect::Connect(ConnectError::Timeout));
        let c = Client::builder()
            .host(sim.http_url())
            .proxy(p)
            .order_lane(true)
            .connect_timeout(Duration::from_millis(200))
            .build()
            .unwrap();
        let e = c.prewarm().await.expect_err("timeout");
        assert!(e.to_string().contains("timed out"), "{e}");
    }

    // Nobody listening at the proxy's address.
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap()
    };
    let e = ws_failure(Proxy::parse(&format!("http://{dead}")).unwrap(), &sim).await;
    assert!(
        matches!(e, ConnectError::Proxy(ProxyFailure::Unreachable(_))),
        "{e:?}"
    );

    // An https:// proxy is refused by the WebSocket builder with a clear reason, and the
    // order lane steps aside (orders go by the pooled client, which speaks to it).
    let e = MarketStream::builder()
        .url(sim.market_ws_url())
        .proxy(Proxy::parse(&format!("https://{dead}")).unwrap())
        .build()
        .expect_err("https proxy");
    assert!(e.to_string().contains("https:// proxies"), "{e}");
    let c = Client::builder()
        .host(sim.http_url())
        .proxy(Proxy::parse(&format!("https://{dead}")).unwrap())
        .order_lane(true)
        .build()
        .unwrap();
    assert_eq!(c.order_lane_connections(), 0);
    assert!(c.prewarm().await.is_err(), "nothing listens at the proxy");
    assert_eq!(
        c.order_lane_connections(),
        0,
        "no lane with an https:// proxy"
    );
}

/// REST through a proxy that refuses with 407: a clear error without the credentials.
#[tokio::test]
async fn rest_error_through_refusing_proxy_hides_credentials() {
    let sim = sim(None).await;
    let px = authed(Kind::Http, sim_addr(&sim)).await;
    let p = Proxy::parse(&px.url("http", Some(("bot", "wrong-hunter2")))).unwrap();
    assert!(!format!("{p:?}").contains("hunter2"));
    let c = Client::builder()
        .host(sim.http_url())
        .proxy(p)
        .retry(polyclob::http::RetryPolicy::none())
        .build()
        .unwrap();
    let e = c.server_time().await.expect_err("407");
    let text = format!("{e} / {e:?} / {}", chain(&e));
    assert!(text.contains("407"), "{text}");
    assert!(!text.contains("hunter2"), "{text}");
    // Through SOCKS5 (reqwest's own SOCKS client) the failure is a connect error.
    let px = authed(Kind::Socks5, sim_addr(&sim)).await;
    let p = Proxy::parse(&px.url("socks5h", Some(("bot", "wrong-hunter2")))).unwrap();
    let c = Client::builder()
        .host(sim.http_url())
        .proxy(p)
        .retry(polyclob::http::RetryPolicy::none())
        .build()
        .unwrap();
    let e = c.server_time().await.expect_err("socks auth");
    let text = format!("{e} / {e:?} / {}", chain(&e));
    assert!(!text.contains("hunter2"), "{text}");
    assert!(px.auth_failures() >= 1);
}
