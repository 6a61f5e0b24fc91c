//! Any bytes through the market decoder and, for every `new_market`/`market_resolved` event,
//! the 2026 field reader and the follow filter: no panic, whatever the fields hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::decode::{Event, decode_bytes};
use polyclob::ws::follow::MarketFilter;

fuzz_target!(|data: &[u8]| {
    let Ok(events) = decode_bytes(data) else { return };
    let filter = MarketFilter::any()
        .tag("crypto")
        .question_contains("above")
        .sports_market_type("moneyline");
    for e in events {
        let (Ok(Event::NewMarket(m)) | Ok(Event::MarketResolved(m))) = e else {
            continue;
        };
        let Ok(f) = m.fields() else { continue };
        f.clob_token_ids.chain(f.tags).for_each(|s| {
            if let Ok(s) = s {
                let _ = s.to_unescaped();
            }
        });
        let _ = f.game_start_ms();
        let _ = filter.matches(&m, &f);
        let _ = MarketFilter::any().matches(&m, &f);
    }
});
