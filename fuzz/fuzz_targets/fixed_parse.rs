//! The fixed-point parsers take any bytes without panicking, and whatever they accept
//! round-trips through Display and Decimal exactly.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::fixed::{Price, Size};

fuzz_target!(|data: &[u8]| {
    match Size::parse(data) {
        Ok(size) => {
            let text = size.to_string();
            assert_eq!(Size::parse(text.as_bytes()), Ok(size));
            assert_eq!(Size::try_from(size.to_decimal()), Ok(size));
            let price = Price::parse(data);
            assert_eq!(price.is_ok(), size <= Size::ONE);
        }
        Err(err) => {
            assert!(err.offset() <= data.len());
            assert_eq!(Price::parse(data).unwrap_err(), err);
        }
    }
});
