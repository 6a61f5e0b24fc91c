//! Property test: the book manager against a naive oracle (a plain `BTreeMap` of canonical
//! decimal strings per side, with its own string-based decimal validation) on random streams
//! of `book`, `price_change` and `tick_size_change` frames, including malformed elements,
//! duplicate levels, varied decimal spellings and shuffled level order.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::print_stdout)]

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::time::Instant;

use polyclob::book::{Book, BookManager, BookState, WalkAmount};
use polyclob::fixed::Size;
use polyclob::types::Side;
use proptest::prelude::*;

/// Four assets, more than `BookManager`'s two-entry cache of recent slots holds: two ids that
/// differ only in their first digit (the index hashes the ends of an id, so these two
/// collide there), an unrelated id and a short one.
const ASSETS: [&str; 4] = [
    "71321045679252212594626385532706912750332728571942532289631379312455583992563",
    "52114319501245915516055106046884209969926127482827954674443846427813813222426",
    "81321045679252212594626385532706912750332728571942532289631379312455583992563",
    "7",
];

// ---- the oracle ------------------------------------------------------------------------------

/// Canonical `I.FFFFFF` form of an unsigned decimal, or `None` if it is not an exact 6-decimal
/// value. Written with string operations only, independent of `polyclob::fixed`.
fn canon(s: &str) -> Option<String> {
    let (i, f) = s.split_once('.').unwrap_or((s, ""));
    if (i.is_empty() && f.is_empty()) || !i.bytes().chain(f.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    if f.len() > 6 && f[6..].bytes().any(|b| b != b'0') {
        return None;
    }
    let f6 = format!("{:0<6}", &f[..f.len().min(6)]);
    let i = i.trim_start_matches('0');
    let i = if i.is_empty() { "0" } else { i };
    if i.len() > 12 {
        return None;
    }
    Some(format!("{i}.{f6}"))
}

fn canon_price(s: &str) -> Option<String> {
    canon(s).filter(|c| c.as_str() <= "1.000000" && c.len() == 8)
}

fn micros(canonical: &str) -> u128 {
    canonical.replace('.', "").parse().unwrap()
}

#[derive(Clone, Debug, Default)]
struct OBook {
    live: bool,
    /// canonical price → canonical size
    bids: BTreeMap<String, String>,
    asks: BTreeMap<String, String>,
    ignored: u64,
}

#[derive(Default)]
struct Oracle {
    books: BTreeMap<String, OBook>,
}

impl Oracle {
    /// Applies one element; returns whether it was rejected.
    fn apply(&mut self, op: &Op) -> bool {
        match op {
            Op::Snapshot { asset, bids, asks } => {
                // Bad levels reject the element before the asset is even registered…
                let mut canonical = [Vec::new(), Vec::new()];
                for (side, levels) in [bids, asks].into_iter().enumerate() {
                    for (p, s) in levels {
                        let (Some(p), Some(s)) = (canon_price(p), canon(s)) else {
                            return true;
                        };
                        canonical[side].push((p, s));
                    }
                }
                // …while a duplicate price is found by the book, after registration.
                let mut sides = [BTreeMap::new(), BTreeMap::new()];
                for (side, levels) in canonical.into_iter().enumerate() {
                    for (p, s) in levels {
                        if sides[side].insert(p, s).is_some() {
                            self.books.entry(ASSETS[*asset].into()).or_default();
                            return true;
                        }
                    }
                }
                for side in &mut sides {
                    side.retain(|_, s| micros(s) != 0);
                }
                let b = self.books.entry(ASSETS[*asset].into()).or_default();
                let [bids, asks] = sides;
                b.bids = bids;
                b.asks = asks;
                b.live = true;
                false
            }
            Op::Change(entries) => {
                let mut parsed = Vec::new();
                for (asset, p, s, side) in entries {
                    let Some(p) = canon_price(p) else { return true };
                    let s = match s.as_deref() {
                        None | Some("") => None,
                        Some(s) => match canon(s) {
                            Some(c) => Some(c),
                            None => return true,
                        },
                    };
                    let buy = match side.as_str() {
                        "BUY" => true,
                        "SELL" => false,
                        _ => return true,
                    };
                    parsed.push((*asset, p, s, buy));
                }
                for (asset, p, s, buy) in parsed {
                    let b = self.books.entry(ASSETS[asset].into()).or_default();
                    let Some(s) = s else { continue };
                    if !b.live {
                        b.ignored += 1;
                        continue;
                    }
                    let side = if buy { &mut b.bids } else { &mut b.asks };
                    if micros(&s) == 0 {
                        side.remove(&p);
                    } else {
                        side.insert(p, s);
                    }
                }
                false
            }
            Op::Tick(asset) => {
                self.books.entry(ASSETS[*asset].into()).or_default().live = false;
                false
            }
        }
    }
}

// ---- the stream --------------------------------------------------------------------------------

#[derive(Clone, Debug)]
enum Op {
    Snapshot {
        asset: usize,
        bids: Vec<(String, String)>,
        asks: Vec<(String, String)>,
    },
    /// (asset, price, size, side)
    Change(Vec<(usize, String, Option<String>, String)>),
    Tick(usize),
}

impl Op {
    fn json(&self) -> String {
        let mut s = String::new();
        match self {
            Op::Snapshot { asset, bids, asks } => {
                let side = |levels: &[(String, String)]| {
                    levels
                        .iter()
                        .map(|(p, s)| format!(r#"{{"price":"{p}","size":"{s}"}}"#))
                        .collect::<Vec<_>>()
                        .join(",")
                };
                write!(
                    s,
                    r#"{{"market":"0x1","asset_id":"{}","timestamp":"1","bids":[{}],"asks":[{}],"event_type":"book"}}"#,
                    ASSETS[*asset],
                    side(bids),
                    side(asks)
                )
                .unwrap();
            }
            Op::Change(entries) => {
                let e: Vec<String> = entries
                    .iter()
                    .map(|(a, p, sz, side)| {
                        let size = sz
                            .as_ref()
                            .map(|v| format!(r#","size":"{v}""#))
                            .unwrap_or_default();
                        format!(
                            r#"{{"asset_id":"{}","price":"{p}"{size},"side":"{side}"}}"#,
                            ASSETS[*a]
                        )
                    })
                    .collect();
                write!(
                    s,
                    r#"{{"event_type":"price_change","market":"0x1","price_changes":[{}]}}"#,
                    e.join(",")
                )
                .unwrap();
            }
            Op::Tick(asset) => {
                write!(
                    s,
                    r#"{{"event_type":"tick_size_change","asset_id":"{}","old_tick_size":"0.01","new_tick_size":"0.001"}}"#,
                    ASSETS[*asset]
                )
                .unwrap();
            }
        }
        s
    }
}

/// Prices on a coarse grid (so updates hit existing levels), in varied spellings, sometimes bad.
fn price() -> impl Strategy<Value = String> {
    prop_oneof![
        20 => (1u32..=20, 0usize..5).prop_map(|(k, form)| {
            let m = k * 50_000; // 0.05 .. 1.00
            let whole = m / 1_000_000;
            let frac = format!("{:06}", m % 1_000_000);
            let short = frac.trim_end_matches('0');
            match (form, short.is_empty()) {
                (_, true) => if form % 2 == 0 { format!("{whole}") } else { format!("{whole}.0") },
                (0, _) => format!("{whole}.{short}"),
                (1, _) => format!(".{short}"),
                (2, _) => format!("{whole}.{frac}"),
                (3, _) => format!("{whole}.{frac}0"),
                _ => format!("00{whole}.{short}"),
            }
        }),
        1 => prop::sample::select(vec!["1.05", "0.4500001", "abc", "", "-0.4", "4e-1", "0.5.1"]).prop_map(String::from),
    ]
}

fn size() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => Just("0".to_string()),
        20 => prop::sample::select(vec!["1", "12.5", "3.000001", "0.000001", "987654321", "250.250000", "7.10"]).prop_map(String::from),
        1 => prop::sample::select(vec!["1.0000001", "x", "", "1e3"]).prop_map(String::from),
    ]
}

fn side() -> impl Strategy<Value = String> {
    prop_oneof![20 => Just("BUY".to_string()), 20 => Just("SELL".to_string()), 1 => Just("buy".to_string())]
}

fn op() -> impl Strategy<Value = Op> {
    let levels = || prop::collection::vec((price(), size()), 0..12);
    prop_oneof![
        3 => (0usize..ASSETS.len(), levels(), levels()).prop_map(|(asset, bids, asks)| Op::Snapshot { asset, bids, asks }),
        8 => prop::collection::vec((0usize..ASSETS.len(), price(), prop::option::weighted(0.9, size()), side()), 1..6).prop_map(Op::Change),
        1 => (0usize..ASSETS.len()).prop_map(Op::Tick),
    ]
}

// ---- the comparison ----------------------------------------------------------------------------

fn ours(book: &Book, side: Side) -> Vec<(String, String)> {
    book.levels(side)
        .map(|l| {
            (
                canon(&l.price.to_string()).unwrap(),
                canon(&l.size.to_string()).unwrap(),
            )
        })
        .collect()
}

fn theirs(map: &BTreeMap<String, String>, side: Side) -> Vec<(String, String)> {
    let it = map.iter().map(|(p, s)| (p.clone(), s.clone()));
    match side {
        Side::Buy => it.rev().collect(), // best = highest first
        Side::Sell => it.collect(),
    }
}

/// Naive market-buy walk over the oracle asks: (shares, cost in 10⁻¹², worst price, complete).
fn naive_buy(asks: &BTreeMap<String, String>, want: u128) -> (u128, u128, Option<u128>, bool) {
    let (mut left, mut shares, mut cost, mut worst) = (want, 0u128, 0u128, None);
    for (p, s) in asks {
        if left == 0 {
            break;
        }
        let take = micros(s).min(left);
        shares += take;
        cost += micros(p) * take;
        worst = Some(micros(p));
        left -= take;
    }
    (shares, cost, worst, left == 0)
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, ..ProptestConfig::default() })]

    #[test]
    fn manager_matches_oracle(stream in prop::collection::vec((op(), 0usize..3), 1..40), want in 1u64..2_000_000_000) {
        let mut books = BookManager::new();
        let mut oracle = Oracle::default();
        let now = Instant::now();
        let mut i = 0;
        while i < stream.len() {
            // Sometimes batch the next few ops into one array frame.
            let n = (stream[i].1 + 1).min(stream.len() - i);
            let ops: Vec<&Op> = stream[i..i + n].iter().map(|(o, _)| o).collect();
            let frame = if n == 1 {
                ops[0].json()
            } else {
                format!("[{}]", ops.iter().map(|o| o.json()).collect::<Vec<_>>().join(","))
            };
            let rejected = ops.iter().filter(|o| oracle.apply(o)).count();
            let summary = books.apply(&frame, now);
            prop_assert_eq!(summary.errors as usize, rejected, "frame {}", frame);
            prop_assert_eq!(summary.events as usize, n);
            i += n;

            for (id, ob) in &oracle.books {
                let b = books.book_unchecked(id).expect("registered by its first event");
                prop_assert_eq!(b.state() == BookState::Live, ob.live);
                prop_assert_eq!(ours(b, Side::Buy), theirs(&ob.bids, Side::Buy));
                prop_assert_eq!(ours(b, Side::Sell), theirs(&ob.asks, Side::Sell));
                prop_assert_eq!(b.ignored_deltas(), ob.ignored);
                let fill = b.walk(Side::Buy, WalkAmount::Shares(Size::from_micros(want)));
                let (shares, cost, worst, complete) = naive_buy(&ob.asks, u128::from(want));
                prop_assert_eq!(u128::from(fill.shares.as_micros()), shares);
                prop_assert_eq!(fill.cost.as_raw(), cost);
                prop_assert_eq!(fill.worst_price.map(|p| u128::from(p.as_micros())), worst);
                prop_assert_eq!(fill.complete, complete);
            }
            prop_assert_eq!(books.len(), oracle.books.len());
        }
    }
}

#[test]
fn oracle_canonicalisation_agrees_on_spellings() {
    assert_eq!(canon(".45").as_deref(), Some("0.450000"));
    assert_eq!(canon("00.4500000").as_deref(), Some("0.450000"));
    assert_eq!(canon("1.").as_deref(), Some("1.000000"));
    assert_eq!(canon("0.4500001"), None);
    assert_eq!(canon_price("1.05"), None);
    assert_eq!(canon_price("1.0").as_deref(), Some("1.000000"));
}
