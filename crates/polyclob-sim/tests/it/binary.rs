//! The standalone `polyclob-sim` binary: prints its address, serves, honours its flags.
#![allow(clippy::unwrap_used)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};

struct Kill(std::process::Child);

impl Drop for Kill {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn spawn(args: &[&str]) -> (Kill, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_polyclob-sim"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    (Kill(child), line.trim().to_owned())
}

/// `reqwest::get`, with a TLS provider installed first: in this workspace reqwest is built
/// without one of its own (polyclob hands it a ring configuration explicitly), and a client
/// built without any provider panics, even for plain `http://`.
async fn get(url: String) -> reqwest::Result<reqwest::Response> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::get(url).await
}

#[tokio::test]
async fn prints_its_address_and_serves() {
    let (_child, url) = spawn(&[
        "--port",
        "0",
        "--seed",
        "3",
        "--fail-every",
        "2",
        "--fail-status",
        "503",
        "--fail-path",
        "/time",
    ]);
    assert!(url.starts_with("http://127.0.0.1:"), "{url}");
    assert_eq!(get(format!("{url}/ok")).await.unwrap().status(), 200);
    let v = get(format!("{url}/version"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert_eq!(v, r#"{"version":2}"#);
    assert_eq!(get(format!("{url}/time")).await.unwrap().status(), 200);
    assert_eq!(get(format!("{url}/time")).await.unwrap().status(), 503);
}

#[test]
fn rejects_bad_flags_and_prints_help() {
    let out = Command::new(env!("CARGO_BIN_EXE_polyclob-sim"))
        .arg("--bogus")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--bogus"));
    let out = Command::new(env!("CARGO_BIN_EXE_polyclob-sim"))
        .args(["--fail-status", "500"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(env!("CARGO_BIN_EXE_polyclob-sim"))
        .args(["--fund", "0x12=five"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("ADDRESS=PUSD"));
    let out = Command::new(env!("CARGO_BIN_EXE_polyclob-sim"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("--ws-disconnect-every"));
}

#[tokio::test]
async fn serves_markets_from_a_file() {
    let path =
        std::env::temp_dir().join(format!("polyclob-sim-markets-{}.json", std::process::id()));
    std::fs::write(
        &path,
        r#"[{"condition_id":"0xfeed","question":"File market?","minimum_tick_size":"0.001","minimum_order_size":"1",
            "tokens":[{"token_id":"11","outcome":"Yes","price":"0.2"},{"token_id":"12","outcome":"No","price":"0.8"}]}]"#,
    )
    .unwrap();
    let (_child, url) = spawn(&["--markets", path.to_str().unwrap(), "--page-size", "1"]);
    let page: serde_json::Value = serde_json::from_str(
        &get(format!("{url}/markets"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(page["data"][0]["condition_id"], "0xfeed");
    assert_eq!(page["next_cursor"], "LTE=");
    let book: serde_json::Value = serde_json::from_str(
        &get(format!("{url}/book?token_id=11"))
            .await
            .unwrap()
            .text()
            .await
            .unwrap(),
    )
    .unwrap();
    assert_eq!(book["tick_size"], "0.001");
    assert_eq!(
        book["bids"].as_array().unwrap().last().unwrap()["price"],
        "0.199"
    );
    std::fs::remove_file(&path).unwrap();

    let out = Command::new(env!("CARGO_BIN_EXE_polyclob-sim"))
        .args(["--markets", "/nonexistent/markets.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("--markets"));
}

#[tokio::test]
async fn enforces_the_rate_limit_tier_it_is_given() {
    let out = Command::new(env!("CARGO_BIN_EXE_polyclob-sim"))
        .args(["--rate-limits", "mythril"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("unknown tier"));
    let (_child, url) = spawn(&["--rate-limits", "silver"]);
    let c = polyclob::clob::Client::builder()
        .host(url)
        .signer(
            polyclob::sign::Signer::from_hex(
                "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80",
            )
            .unwrap(),
        )
        .build()
        .unwrap();
    let creds = c
        .create_or_derive_api_key(polyclob::clob::ApiKeyNonce::ZERO)
        .await
        .unwrap();
    c.set_credentials(creds);
    assert_eq!(
        c.sync_rate_limit_tier().await.unwrap(),
        polyclob::http::Tier::Silver
    );
}
