//! Fixed-point parsing against the baselines a client would otherwise use: `rust_decimal`
//! (exact, allocation-free but slower) and `f64` (fast but inexact). Same inputs, same run.

use std::fmt::Write as _;
use std::hint::black_box;

use criterion::{Criterion, criterion_group, criterion_main};
use polyclob::fixed::{Price, Size};
use rust_decimal::Decimal;

/// Production-shaped price and size strings from book levels and trades.
const INPUTS: [&str; 8] = [
    "0.48",
    ".52",
    "0.001",
    "0.9975",
    "219.217767",
    "30",
    "100.0000",
    "12345.67",
];

fn parse(c: &mut Criterion) {
    let mut g = c.benchmark_group("parse_decimal_x8");
    g.bench_function("polyclob_size", |b| {
        b.iter(|| {
            let mut acc = 0u64;
            for s in INPUTS {
                acc = acc.wrapping_add(
                    Size::parse(black_box(s).as_bytes()).map_or(0, |v| v.as_micros()),
                );
            }
            acc
        })
    });
    g.bench_function("baseline_rust_decimal", |b| {
        b.iter(|| {
            let mut acc = 0u32;
            for s in INPUTS {
                acc = acc.wrapping_add(black_box(s).parse::<Decimal>().map_or(0, |d| d.scale()));
            }
            acc
        })
    });
    g.bench_function("baseline_f64", |b| {
        b.iter(|| {
            let mut acc = 0.0f64;
            for s in INPUTS {
                acc += black_box(s).parse::<f64>().unwrap_or(0.0);
            }
            acc
        })
    });
    g.finish();

    let price = Price::parse(b"0.48").expect("valid");
    let decimal = price.to_decimal();
    let mut g = c.benchmark_group("display_price");
    g.bench_function("polyclob_write_str", |b| {
        let mut buf = [0u8; 48];
        b.iter(|| black_box(price).write_str(&mut buf).len())
    });
    g.bench_function("baseline_rust_decimal_fmt", |b| {
        let mut sink = Sink {
            buf: [0; 48],
            len: 0,
        };
        b.iter(|| {
            sink.len = 0;
            write!(sink, "{}", black_box(decimal)).map(|()| sink.len)
        })
    });
    g.finish();
}

/// A `fmt::Write` over a stack buffer, so neither row pays for an allocation.
struct Sink {
    buf: [u8; 48],
    len: usize,
}

impl std::fmt::Write for Sink {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        self.buf
            .get_mut(self.len..end)
            .ok_or(std::fmt::Error)?
            .copy_from_slice(s.as_bytes());
        self.len = end;
        Ok(())
    }
}

criterion_group!(benches, parse);
criterion_main!(benches);
