//! Any bytes through the WebSocket decoder: every event, every lazy list, every escape and
//! the owned round trip must finish without panicking.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::decode::{EventView, JsonStr, decode_bytes};

fn text(s: Option<JsonStr<'_>>) {
    if let Some(s) = s {
        let _ = s.to_unescaped();
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(events) = decode_bytes(data) else { return };
    for e in events {
        let Ok(e) = e else { continue };
        match &e {
            EventView::Book(b) => {
                for l in b.bids.chain(b.asks) {
                    let _ = l;
                }
            }
            EventView::PriceChange(pc) => pc.changes.for_each(drop),
            EventView::NewMarket(m) | EventView::MarketResolved(m) => {
                text(m.question);
                text(m.description);
                text(m.winning_outcome);
                m.assets_ids.chain(m.outcomes).for_each(|s| text(s.ok()));
            }
            EventView::Order(o) => {
                text(o.status);
                text(o.cancel_reason());
                o.associate_trades.for_each(drop);
            }
            EventView::Trade(t) => t.maker_orders.for_each(|m| text(m.ok().and_then(|m| m.outcome))),
            _ => {}
        }
        let owned = e.to_owned_event();
        assert!(owned.event().is_ok(), "an element that decoded once decodes again");
    }
});
