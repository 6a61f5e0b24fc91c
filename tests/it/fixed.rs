//! Property tests: the fixed-point parsers against a naive `u128` decimal oracle, and the cost
//! basis against the cash that went in and out.

use polyclob::fixed::{Amount, CostBasis, Notional, ParseErrorKind, Price, Size, parse_micros};
use proptest::prelude::*;
use rust_decimal::Decimal;

/// The oracle: a deliberately simple parser over `u128` that accepts the same grammar
/// (`digits? ('.' digits?)?`, at least one digit) and returns `None` for anything it rejects.
fn oracle(text: &str) -> Option<u128> {
    let (int, frac) = match text.split_once('.') {
        Some((i, f)) => (i, f),
        None => (text, ""),
    };
    if int.is_empty() && frac.is_empty() {
        return None;
    }
    if !int.bytes().chain(frac.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    let mut value: u128 = 0;
    for b in int.bytes() {
        value = value.checked_mul(10)?.checked_add(u128::from(b - b'0'))?;
    }
    let mut micros = value.checked_mul(1_000_000)?;
    for (i, b) in frac.bytes().enumerate() {
        let d = u128::from(b - b'0');
        if i < 6 {
            micros += d * 10u128.pow(5 - i as u32);
        } else if d != 0 {
            return None;
        }
    }
    Some(micros)
}

fn decimal_text() -> impl Strategy<Value = String> {
    prop_oneof![
        // Well-formed decimals of every length class, with optional leading/trailing zeros.
        (0u64..=u64::MAX, 0usize..10, any::<bool>()).prop_map(|(v, trailing, dot_first)| {
            let s = format!(
                "{}.{:06}{}",
                v / 1_000_000,
                v % 1_000_000,
                "0".repeat(trailing)
            );
            if dot_first && v < 1_000_000 {
                s.trim_start_matches('0').to_string()
            } else {
                s
            }
        }),
        "[0-9]{0,16}(\\.[0-9]{0,9})?",
        // Near-miss shapes: signs, exponents, stray bytes, double dots.
        "[-+]?[0-9.eE ]{0,12}",
        // Arbitrary bytes as text.
        any::<String>(),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(20_000))]

    #[test]
    fn parser_agrees_with_oracle(text in decimal_text()) {
        let ours = parse_micros(text.as_bytes());
        let expected = oracle(&text).filter(|&v| v <= u128::from(u64::MAX));
        match (ours, expected) {
            (Ok(v), Some(e)) => prop_assert_eq!(u128::from(v), e),
            (Err(err), None) => prop_assert!(err.offset() <= text.len()),
            (ours, expected) => prop_assert!(false, "{text:?}: ours {ours:?}, oracle {expected:?}"),
        }
    }

    #[test]
    fn price_is_size_restricted_to_one(text in decimal_text()) {
        match (Price::parse(text.as_bytes()), Size::parse(text.as_bytes())) {
            (Ok(p), Ok(s)) => prop_assert_eq!(u64::from(p.as_micros()), s.as_micros()),
            (Err(e), Ok(s)) => {
                prop_assert_eq!(e.kind(), ParseErrorKind::OutOfRange);
                prop_assert!(s > Size::ONE);
            }
            (Err(a), Err(b)) => prop_assert_eq!(a, b),
            (Ok(_), Err(_)) => prop_assert!(false, "price accepted what size rejected"),
        }
    }

    #[test]
    fn display_round_trips(micros in any::<u64>()) {
        let size = Size::from_micros(micros);
        let text = size.to_string();
        prop_assert_eq!(text.parse::<Size>(), Ok(size));
        prop_assert!(!text.ends_with('.'));
        prop_assert!(!text.contains('.') || !text.ends_with('0'), "trailing zero in {text}");
        if let Some(price) = Price::new((micros % 1_000_001) as u32) {
            prop_assert_eq!(price.to_string().parse::<Price>(), Ok(price));
        }
    }

    #[test]
    fn decimal_round_trips(micros in any::<u64>()) {
        let size = Size::from_micros(micros);
        let d = size.to_decimal();
        prop_assert_eq!(d.to_string(), size.to_string());
        prop_assert_eq!(Size::try_from(d), Ok(size));
        prop_assert_eq!(Decimal::from(size), d);
    }

    #[test]
    fn notional_is_exact(p in 0u32..=1_000_000, s in any::<u64>()) {
        let price = Price::new(p).unwrap();
        let size = Size::from_micros(s);
        let n = price.checked_mul_size(size).unwrap();
        prop_assert_eq!(n.as_raw(), u128::from(p) * u128::from(s));
        // Display of the product agrees with the oracle's reading of it.
        let text = n.to_string();
        let (int, frac) = text.split_once('.').unwrap_or((&text, ""));
        let raw: u128 = int.parse::<u128>().unwrap() * Notional::SCALE
            + if frac.is_empty() { 0 } else {
                frac.parse::<u128>().unwrap() * 10u128.pow(12 - frac.len() as u32)
            };
        prop_assert_eq!(raw, n.as_raw());
        if let Some(d) = n.to_decimal() {
            prop_assert_eq!(Notional::from_decimal(d), Ok(n));
        }
    }

    /// Whatever the order of buys and sells, the basis loses nothing: the P&L realized equals
    /// the cash in and out plus the cost and fees of the shares still held (exactly, then
    /// truncated), the shares held are what was bought less what was sold, and the average
    /// price stays within the prices paid.
    #[test]
    fn cost_basis_conserves_the_cash(legs in prop::collection::vec(
        (any::<bool>(), 1u64..=500_000_000, 1u32..=999_999, 0u64..=100_000), 1..60
    )) {
        let mut basis = CostBasis::new();
        let (mut cash, mut held) = (0i128, 0u64);
        let (mut lo, mut hi) = (u32::MAX, 0u32);
        for (buy, size, price, fee) in legs {
            let price_ = Price::new(price).unwrap();
            let fee_ = Size::from_micros(fee);
            if buy || held == 0 {
                let cost = price_.checked_mul_size(Size::from_micros(size)).unwrap();
                basis.buy(Size::from_micros(size), cost, fee_);
                cash -= cost.as_raw() as i128 + i128::from(fee) * 1_000_000;
                held += size;
                (lo, hi) = (lo.min(price), hi.max(price));
            } else {
                let size = size.min(held);
                let proceeds = price_.checked_mul_size(Size::from_micros(size)).unwrap();
                basis.sell(Size::from_micros(size), proceeds, fee_);
                cash += proceeds.as_raw() as i128 - i128::from(fee) * 1_000_000;
                held -= size;
            }
            prop_assert_eq!(basis.held(), Size::from_micros(held));
            let open = basis.cost().as_raw() as i128 + i128::from(basis.fees().as_micros()) * 1_000_000;
            let want = (cash + open) / 1_000_000;
            prop_assert_eq!(basis.realized(), Amount::from_micros(i64::try_from(want).unwrap()));
            if let Some(avg) = basis.avg_price() {
                prop_assert!(avg.as_micros() + 1 >= lo && avg.as_micros() <= hi, "{avg:?} outside {lo}..={hi}");
            }
        }
    }
}
