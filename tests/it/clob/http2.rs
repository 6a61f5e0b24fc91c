//! The client speaks HTTP/2 (h2c prior knowledge here; ALPN `h2` over TLS in production) and
//! multiplexes requests over one pooled connection.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use polyclob::clob::Client;

/// A minimal h2c server answering `GET /time` with a fixed number; counts connections.
async fn h2_server() -> (String, Arc<AtomicUsize>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let conns = Arc::new(AtomicUsize::new(0));
    let c = Arc::clone(&conns);
    tokio::spawn(async move {
        loop {
            let (sock, _) = listener.accept().await.unwrap();
            c.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let mut conn = h2::server::handshake(sock).await.unwrap();
                while let Some(Ok((req, mut respond))) = conn.accept().await {
                    assert_eq!(req.version(), http::Version::HTTP_2);
                    let body: &[u8] = if req.uri().path() == "/time" {
                        b"1700000000"
                    } else {
                        b"{}"
                    };
                    let resp = http::Response::builder().status(200).body(()).unwrap();
                    let mut send = respond.send_response(resp, false).unwrap();
                    send.send_data(bytes::Bytes::from_static(body), true)
                        .unwrap();
                }
            });
        }
    });
    (format!("http://{addr}"), conns)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn http2_with_one_multiplexed_connection() {
    let (url, conns) = h2_server().await;
    let c = Client::builder()
        .host(url)
        .http2_prior_knowledge(true)
        .build()
        .unwrap();
    c.prewarm().await.unwrap();
    let mut tasks = Vec::new();
    for _ in 0..16 {
        let c = c.clone();
        tasks.push(tokio::spawn(async move { c.server_time().await.unwrap() }));
    }
    for t in tasks {
        assert_eq!(t.await.unwrap(), 1_700_000_000);
    }
    assert_eq!(
        conns.load(Ordering::SeqCst),
        1,
        "16 concurrent requests share one HTTP/2 connection"
    );
}
