//! Any bytes through the direct `/simplified-markets` page reader: no panic, and a page it
//! accepts is JSON that serde_json also parses (the reader never invents a page out of
//! bytes the general decoder would refuse).
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::clob::decode_simplified_page;

fuzz_target!(|data: &[u8]| {
    let Ok(page) = decode_simplified_page(data) else {
        return;
    };
    assert!(
        serde_json::from_slice::<serde_json::Value>(data).is_ok(),
        "accepted a page serde_json refuses"
    );
    for m in &page.data {
        let _ = m.tokens.iter().map(|t| t.price).count();
    }
    let _ = page.is_last();
});
