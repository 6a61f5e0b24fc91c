//! The market pages every page bench reads: `GET /markets` and `GET /simplified-markets`,
//! generated (deterministic), compact, keys in the exchange's order (that of
//! `GET /markets/{id}` as captured in the nautilus fixtures), 500 rows a page (`limit` 500).
//!
//! 66-char condition ids, 77-digit token ids, descriptions of 0–40 words with `\"` and `\n`
//! escapes, neg-risk ids only on neg-risk markets, reward rates on half the rows, prices as JSON
//! numbers. Shared by `benches/clob_decode.rs` and `benches/peers/benches/pages.rs` (two
//! workspaces, so each includes this file with `#[path = ...] mod pages;`).
#![allow(dead_code)]

use std::fmt::Write as _;

/// Rows a page.
pub(crate) const ROWS: usize = 500;
/// The cursor both pages return (base64 of `"500"`).
pub(crate) const NEXT: &str = "NTAw";

/// Deterministic xorshift so the pages are the same every run.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn digits(&mut self, n: usize) -> String {
        let mut s = String::with_capacity(n);
        s.push(char::from(b'1' + (self.next() % 9) as u8));
        while s.len() < n {
            s.push(char::from(b'0' + (self.next() % 10) as u8));
        }
        s
    }
    fn hex(&mut self, n: usize) -> String {
        let mut s = String::from("0x");
        while s.len() < n + 2 {
            write!(s, "{:016x}", self.next()).unwrap();
        }
        s.truncate(n + 2);
        s
    }
    /// Words as JSON string content (already escaped): `\"` quotes, `\n` breaks.
    fn words(&mut self, n: usize) -> String {
        const W: [&str; 16] = [
            "market",
            "resolve",
            "Yes",
            "if",
            "the",
            "official",
            "price",
            "of",
            "Bitcoin",
            "exceeds",
            "\\\"threshold\\\"",
            "by",
            "December",
            "31,",
            "2026",
            "otherwise",
        ];
        let mut s = String::new();
        for i in 0..n {
            if i > 0 {
                s.push_str(if self.next() % 23 == 0 { "\\n" } else { " " });
            }
            s.push_str(W[(self.next() % 16) as usize]);
        }
        s
    }
}

/// What one generated market holds (text already JSON-escaped).
pub(crate) struct Row {
    pub(crate) condition_id: String,
    pub(crate) neg_risk: bool,
    pub(crate) neg_risk_market_id: String,
    pub(crate) neg_risk_request_id: String,
    pub(crate) question_id: String,
    pub(crate) question: String,
    pub(crate) description: String,
    /// The reward asset of the row's one rate, when it has one (`"rates":null` otherwise).
    pub(crate) rate: Option<String>,
    pub(crate) yes: String,
    pub(crate) no: String,
    /// The `Yes` price in cents (1–99); `No` is `100 - price`.
    pub(crate) price: u64,
    pub(crate) game: bool,
}

/// The page's rows, the same every run.
pub(crate) fn rows() -> Vec<Row> {
    let mut r = Rng(0x1234_5678_9abc_def1);
    (0..ROWS)
        .map(|_| {
            let neg_risk = r.next() % 3 == 0;
            let words = (r.next() % 41) as usize;
            Row {
                condition_id: r.hex(64),
                neg_risk,
                neg_risk_market_id: if neg_risk { r.hex(64) } else { String::new() },
                neg_risk_request_id: if neg_risk { r.hex(64) } else { String::new() },
                question_id: r.hex(64),
                question: r.words(9),
                description: r.words(words),
                rate: (r.next() % 2 == 0).then(|| r.hex(40)),
                yes: r.digits(77),
                no: r.digits(77),
                price: r.next() % 99 + 1,
                game: r.next() % 4 == 0,
            }
        })
        .collect()
}

fn rewards(w: &mut String, row: &Row) {
    match &row.rate {
        Some(a) => write!(
            w,
            r#""rewards":{{"rates":[{{"asset_address":"{a}","rewards_daily_rate":25}}],"min_size":50,"max_spread":3.5}}"#
        ),
        None => write!(w, r#""rewards":{{"rates":null,"min_size":0,"max_spread":0}}"#),
    }
    .unwrap();
}

fn tokens(w: &mut String, row: &Row) {
    let (p, q) = (row.price, 100 - row.price);
    write!(
        w,
        r#""tokens":[{{"token_id":"{}","outcome":"Yes","price":0.{p:02},"winner":false}},{{"token_id":"{}","outcome":"No","price":0.{q:02},"winner":false}}]"#,
        row.yes, row.no
    )
    .unwrap();
}

fn tail(w: &mut String) {
    write!(
        w,
        r#"],"next_cursor":"{NEXT}","limit":{ROWS},"count":{ROWS}}}"#
    )
    .unwrap();
}

/// `GET /markets`: the full object, keys in the exchange's order.
pub(crate) fn markets_page(rows: &[Row]) -> Vec<u8> {
    let mut w = String::from(r#"{"data":["#);
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            w.push(',');
        }
        let game = if row.game {
            r#""2026-12-30T20:00:00Z""#
        } else {
            "null"
        };
        write!(
            w,
            r#"{{"enable_order_book":true,"active":true,"closed":false,"archived":false,"accepting_orders":true,"accepting_order_timestamp":"2026-03-01T12:00:00Z","minimum_order_size":5,"minimum_tick_size":0.01,"condition_id":"{}","question_id":"{}","question":"{}","description":"{}","market_slug":"will-bitcoin-exceed-the-threshold-by-december-31-2026-{i}","end_date_iso":"2026-12-31T00:00:00Z","game_start_time":{game},"seconds_delay":0,"fpmm":"","maker_base_fee":0,"taker_base_fee":0,"notifications_enabled":true,"neg_risk":{},"neg_risk_market_id":"{}","neg_risk_request_id":"{}","icon":"https://polymarket-upload.s3.us-east-2.amazonaws.com/bitcoin-icon-{i}.png","image":"https://polymarket-upload.s3.us-east-2.amazonaws.com/bitcoin-image-{i}.png","#,
            row.condition_id,
            row.question_id,
            row.question,
            row.description,
            row.neg_risk,
            row.neg_risk_market_id,
            row.neg_risk_request_id,
        )
        .unwrap();
        rewards(&mut w, row);
        w.push_str(r#","is_50_50_outcome":false,"#);
        tokens(&mut w, row);
        w.push_str(r#","tags":["Crypto","Bitcoin","All"]}"#);
    }
    tail(&mut w);
    w.into_bytes()
}

/// `GET /simplified-markets`: `condition_id, rewards, tokens, active, closed, archived,
/// accepting_orders`.
pub(crate) fn simplified_page(rows: &[Row]) -> Vec<u8> {
    let mut w = String::from(r#"{"data":["#);
    for (i, row) in rows.iter().enumerate() {
        if i > 0 {
            w.push(',');
        }
        write!(w, r#"{{"condition_id":"{}","#, row.condition_id).unwrap();
        rewards(&mut w, row);
        w.push(',');
        tokens(&mut w, row);
        w.push_str(r#","active":true,"closed":false,"archived":false,"accepting_orders":true}"#);
    }
    tail(&mut w);
    w.into_bytes()
}
