//! Any bytes through the RTDS decoder: every payload kind, every lazy point list and every
//! escape must finish without panicking, and a message that decodes once decodes the same
//! way again.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::decode::JsonStr;
use polyclob::rtds::RefPrice;
use polyclob::rtds::decode::{Payload, decode_bytes};

fn text(s: Option<JsonStr<'_>>) {
    if let Some(s) = s {
        let _ = s.to_unescaped();
    }
}

fuzz_target!(|data: &[u8]| {
    // The reference-price parser on its own, against its own Display.
    if let Ok(p) = RefPrice::parse(data) {
        let shown = p.to_string();
        assert_eq!(RefPrice::parse(shown.as_bytes()), Ok(p), "Display round-trips");
    }
    let Ok(msg) = decode_bytes(data) else { return };
    match msg.payload {
        Payload::PriceHistory(h) => h.points.for_each(drop),
        Payload::Trade(t) => {
            text(t.slug);
            text(t.title);
            text(t.outcome);
            text(t.name);
        }
        Payload::Comment(c) => text(c.body),
        Payload::Reaction(r) => text(r.reaction_type),
        _ => {}
    }
    let again = decode_bytes(msg.json.as_bytes()).expect("a message's own JSON decodes");
    assert_eq!((again.topic, again.kind), (msg.topic, msg.kind));
});
