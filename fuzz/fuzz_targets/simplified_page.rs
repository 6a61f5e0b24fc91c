//! Any bytes through the direct `/simplified-markets` page reader: no panic, and a page it
//! accepts is a JSON object by serde_json's grammar (`IgnoredAny`: numbers of any magnitude,
//! the crate's number contract, `src/json/scanner.rs`), so the reader never invents a page
//! out of bytes that are not JSON, nor out of a bare array.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::clob::decode_simplified_page;

fuzz_target!(|data: &[u8]| {
    let Ok(page) = decode_simplified_page(data) else {
        return;
    };
    assert!(
        serde_json::from_slice::<serde::de::IgnoredAny>(data).is_ok(),
        "accepted a page that is not JSON"
    );
    assert_eq!(
        data.iter().find(|b| !b.is_ascii_whitespace()),
        Some(&b'{'),
        "accepted a page that is not an object"
    );
    for m in &page.data {
        let _ = m.tokens.iter().map(|t| t.price).count();
    }
    let _ = page.is_last();
});
