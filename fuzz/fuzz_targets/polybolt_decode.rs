//! Any bytes through the PolyBolt and sports decoders: envelopes, acknowledgements, lazy
//! snapshot points and escapes must finish without panicking; a price's exact value
//! round-trips through its Display; basis points never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::polybolt::decode::{BoltMessage, BoltPayload, decode_bytes};
use polyclob::rtds::RefPrice;

fuzz_target!(|data: &[u8]| {
    if let Ok(BoltMessage::Data(env)) = decode_bytes(data) {
        match env.payload {
            BoltPayload::Snapshot(s) => s.points.for_each(drop),
            BoltPayload::Price(p) => {
                let shown = p.price.to_string();
                assert_eq!(RefPrice::parse(shown.as_bytes()), Ok(p.price));
                if let Some(v) = p.value {
                    let _ = p.price.bps_from(v);
                    let _ = p.price.diff_e18(v);
                }
            }
            _ => {}
        }
    }
    if let Ok(s) = std::str::from_utf8(data) {
        if let Ok(r) = polyclob::sports::decode::decode(s) {
            for t in [r.home_team, r.away_team, r.status, r.score, r.period, r.turn]
                .into_iter()
                .flatten()
            {
                let _ = t.to_unescaped();
            }
        }
    }
});
