//! Any bytes through the PolyBolt and sports decoders: envelopes, acknowledgements (their
//! codes typed), lazy snapshot points, `price.polymarket` tops and escapes must finish without
//! panicking; a price's exact value round-trips through its Display; basis points never
//! panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use polyclob::fixed::Price;
use polyclob::polybolt::decode::{AckCode, BoltMessage, BoltPayload, decode_bytes};
use polyclob::rtds::RefPrice;
use polyclob::sports::decode::GameState;

fuzz_target!(|data: &[u8]| {
    if let Ok(BoltMessage::Ack(a)) = decode_bytes(data) {
        if let (Some(code), Some(name)) = (a.code, a.code_name) {
            assert_eq!(code, AckCode::parse(name));
            assert!(code.as_str().is_none_or(|s| s == name));
        }
    }
    if let Ok(BoltMessage::Data(env)) = decode_bytes(data) {
        match env.payload {
            BoltPayload::Top(t) => {
                for p in [t.best_bid, t.best_ask].into_iter().flatten() {
                    assert_eq!(p.to_string().parse::<Price>(), Ok(p));
                }
            }
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
            // The key shows, the issues name fields, and the state is the status's.
            let _ = r.key.to_string();
            assert_eq!(r.issues.iter().count(), r.issues.len());
            assert_eq!(r.state, r.status.map(|s| GameState::parse(s.raw())));
        }
    }
});
