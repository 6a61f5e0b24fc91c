//! Production-shaped market-channel frames (compact JSON as the exchange sends it: 77-digit
//! asset ids, 0x-prefixed 64-hex markets, 40-hex hashes, millisecond timestamps as strings,
//! levels worst-first), generated deterministically. Shared by the zero-allocation test and
//! the hot-path bench.
#![allow(dead_code)]

use std::fmt::Write as _;

/// A small deterministic generator (64-bit LCG), so tests need no `rand`.
pub(crate) struct Lcg(pub(crate) u64);

impl Lcg {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// A 77-digit token id.
pub(crate) fn asset_id(i: u64) -> String {
    let mut s =
        String::from("7132104567925221259462638553270691275033272857194253228963137931245558");
    write!(s, "{:07}", 3_992_563 + i).unwrap();
    assert_eq!(s.len(), 77);
    s
}

fn hex(rng: &mut Lcg, n: usize) -> String {
    (0..n)
        .map(|_| char::from(b"0123456789abcdef"[rng.below(16) as usize]))
        .collect()
}

fn size(rng: &mut Lcg) -> String {
    format!("{}.{:02}", 1 + rng.below(50_000), rng.below(100))
}

/// Price text in thousandths (`450` → `"0.45"`), in the exchange's short form.
pub(crate) fn price(thousandths: u64) -> String {
    let s = format!("0.{thousandths:03}");
    let s = s.trim_end_matches('0');
    if s == "0." { "0".into() } else { s.into() }
}

/// A `book` with `levels` levels per side around 0.45/0.55, worst-first, `event_type` last.
pub(crate) fn book(rng: &mut Lcg, asset: &str, levels: u64) -> String {
    let mut s = format!(
        r#"{{"market":"0x{}","asset_id":"{asset}","timestamp":"{}","hash":"{}","bids":["#,
        hex(rng, 64),
        1_790_658_661_234u64 + rng.below(1_000_000),
        hex(rng, 40)
    );
    for i in 0..levels {
        let p = 450 - (levels - 1 - i); // ascending: best (0.45) last
        if i > 0 {
            s.push(',');
        }
        write!(s, r#"{{"price":"{}","size":"{}"}}"#, price(p), size(rng)).unwrap();
    }
    s.push_str(r#"],"asks":["#);
    for i in 0..levels {
        let p = 550 + (levels - 1 - i); // descending: best (0.55) last
        if i > 0 {
            s.push(',');
        }
        write!(s, r#"{{"price":"{}","size":"{}"}}"#, price(p), size(rng)).unwrap();
    }
    s.push_str(r#"],"tick_size":"0.001","event_type":"book","last_trade_price":"0.450"}"#);
    s
}

/// A `price_change` with `n` entries near the top of book of `asset` (a mix of updates,
/// inserts and removals), with hashes and reported best bid/ask.
pub(crate) fn price_change(rng: &mut Lcg, asset: &str, n: usize) -> String {
    let mut s = format!(r#"{{"market":"0x{}","price_changes":["#, hex(rng, 64));
    for i in 0..n {
        let buy = rng.below(2) == 0;
        let p = if buy {
            440 + rng.below(14)
        } else {
            547 + rng.below(14)
        };
        let sz = if rng.below(4) == 0 {
            "0".to_string()
        } else {
            size(rng)
        };
        if i > 0 {
            s.push(',');
        }
        write!(
            s,
            r#"{{"asset_id":"{asset}","price":"{}","size":"{sz}","side":"{}","hash":"{}","best_bid":"0.45","best_ask":"0.55"}}"#,
            price(p),
            if buy { "BUY" } else { "SELL" },
            hex(rng, 40)
        )
        .unwrap();
    }
    write!(
        s,
        r#"],"timestamp":"{}","event_type":"price_change"}}"#,
        1_790_658_674_035u64 + rng.below(1000)
    )
    .unwrap();
    s
}

pub(crate) fn last_trade(rng: &mut Lcg, asset: &str) -> String {
    format!(
        r#"{{"asset_id":"{asset}","event_type":"last_trade_price","fee_rate_bps":"0","market":"0x{}","price":"{}","side":"BUY","size":"{}","timestamp":"1750428146322"}}"#,
        hex(rng, 64),
        price(440 + rng.below(20)),
        size(rng)
    )
}

pub(crate) fn tick_size_change(rng: &mut Lcg, asset: &str) -> String {
    format!(
        r#"{{"event_type":"tick_size_change","asset_id":"{asset}","market":"0x{}","old_tick_size":"0.01","new_tick_size":"0.001","timestamp":"1757908892351"}}"#,
        hex(rng, 64)
    )
}

pub(crate) fn best_bid_ask(rng: &mut Lcg, asset: &str) -> String {
    format!(
        r#"{{"event_type":"best_bid_ask","market":"0x{}","asset_id":"{asset}","best_bid":"0.45","best_ask":"0.55","spread":"0.1","timestamp":"1766789469958"}}"#,
        hex(rng, 64)
    )
}
