//! Any bytes through the market decoder and, for every `new_market`/`market_resolved` event,
//! the 2026 field reader and the follow filter: no panic, whatever the fields hold.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::decode::{EventView, decode_bytes};
use polyclob::ws::follow::FollowFilter;

fuzz_target!(|data: &[u8]| {
    let Ok(events) = decode_bytes(data) else { return };
    let filter = FollowFilter::any()
        .tag("crypto")
        .question_contains("above")
        .sports_market_type("moneyline");
    for e in events {
        let (Ok(EventView::NewMarket(m)) | Ok(EventView::MarketResolved(m))) = e else {
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
        let _ = FollowFilter::any().matches(&m, &f);
    }
});
