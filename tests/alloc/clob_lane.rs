//! Allocations per `post_order` on the order lane against the reqwest path, on one
//! current-thread runtime (so the connection's work is counted too): the lane's request side
//! reuses its buffers, so what is left is the order body, the `Req` and response decoding.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::counting_alloc;
use crate::support::rails;

use std::io::{Read, Write};

use polyclob::clob::{ClientBuilder, Credentials};
use polyclob::http::Throttle;
use polyclob::sign::Signer;
use rails::{KEY_A, resting_bids};

const ACCEPTED: &str = r#"{"errorMsg":"","orderID":"0x3f6f2c1b0c4d7a9e5f8b2a1d0e9c8b7a6f5e4d3c2b1a09f8e7d6c5b4a3928170","takingAmount":"","makingAmount":"","status":"live","success":true}"#;

/// A blocking keep-alive server on its own threads (its allocations are not counted here).
fn server() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", l.local_addr().unwrap());
    std::thread::spawn(move || {
        for s in l.incoming() {
            let Ok(mut s) = s else { return };
            std::thread::spawn(move || {
                let mut buf = Vec::new();
                let mut chunk = [0u8; 4096];
                loop {
                    let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
                        match s.read(&mut chunk) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                        continue;
                    };
                    let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
                    let len: usize = head
                        .lines()
                        .find_map(|l| l.strip_prefix("content-length: "))
                        .map_or(0, |v| v.trim().parse().unwrap());
                    if buf.len() < end + 4 + len {
                        match s.read(&mut chunk) {
                            Ok(0) | Err(_) => return,
                            Ok(n) => buf.extend_from_slice(&chunk[..n]),
                        }
                        continue;
                    }
                    buf.drain(..end + 4 + len);
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{ACCEPTED}",
                        ACCEPTED.len()
                    );
                    if s.write_all(reply.as_bytes()).is_err() {
                        return;
                    }
                }
            });
        }
    });
    url
}

fn per_order(lane: bool) -> f64 {
    let url = server();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async {
        let c = ClientBuilder::new()
            .host(&url)
            .signer(Signer::from_hex(KEY_A).unwrap())
            .throttle(Throttle::Off)
            .order_lane(lane)
            .build()
            .unwrap();
        c.set_credentials(Credentials::new(
            "00000000-0000-0000-0000-000000000001",
            "dGVzdC1zZWNyZXQtMzItYnl0ZXMtbG9uZy12YWx1ZS0wMQ==",
            "lane-passphrase",
        ));
        let orders = resting_bids(&c, KEY_A, 60, false);
        for o in &orders[..10] {
            assert!(c.post_order(o).await.unwrap().success);
        }
        let before = counting_alloc::allocations();
        for o in &orders[10..] {
            assert!(c.post_order(o).await.unwrap().success);
        }
        (counting_alloc::allocations() - before) as f64 / 50.0
    })
}

#[test]
fn the_lane_allocates_less_per_order_than_reqwest() {
    let lane = per_order(true);
    let plain = per_order(false);
    println!("allocations per post_order: lane {lane:.1}, reqwest {plain:.1}");
    assert!(lane * 2.0 <= plain, "lane {lane}, reqwest {plain}");
    // Body, owner, Req, response body, headers map, decoded strings: a bounded handful.
    assert!(lane <= 8.0, "lane {lane}");
}
