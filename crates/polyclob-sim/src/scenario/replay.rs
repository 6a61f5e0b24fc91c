//! Replay: a recorded market-channel feed drives the simulator's books, one frame per
//! activity step, and clients' orders meet the replayed liquidity by price-time priority.

use polyclob::fixed::{Price, Size};
use polyclob::types::{OrderType, Side};
use serde_json::Value;

use crate::exchange::rng::Rng;
use crate::exchange::state::{Exchange, SEED_ADDRESS, now_ms};

/// A recorded market-channel feed to replay ([`SimBuilder::replay`]): its raw frames in
/// order.
///
/// Two file formats are read:
///
/// - [`from_jsonl`](Self::from_jsonl): one raw frame per line, exactly as the market channel
///   sent it (a JSON object, or an array of events); blank lines are skipped.
/// - [`from_recording`](Self::from_recording): the `book_recorder` example's file (version 1):
///   the payloads of its `F` records, in order; its status (`S`) and snapshot (`B`) records
///   are not needed.
///
/// Replaying applies each frame to the simulator's books, which belong to the recorded
/// market's other traders (the simulator's own liquidity, `0x…5eed`; give the replayed markets
/// `seed_levels(0)`):
///
/// - `book`: every level of the asset is set to the recorded size (levels absent from the
///   snapshot are emptied);
/// - `price_change`: the level is set to the recorded size;
/// - `last_trade_price`: a trade of the recorded size at the recorded price, the taker on the
///   recorded `side`, executed against the book front to back;
/// - other events are skipped, as are assets the simulator does not list.
///
/// Queue position: a client's order resting at a level joins the queue behind the recorded
/// size already there. A recorded increase joins behind it. A recorded decrease that is not a
/// trade (a cancel) is taken from the back of the queue first, so cancels never move the
/// client ahead while recorded orders behind it remain; only recorded trades advance it: it
/// fills when the recorded traded size at its level exceeds what was ahead of it. The replay
/// does not know the client took liquidity: a level a client's order took from is set back to
/// the recorded size at its next update. Sizes are rounded down to what `size × price`
/// expresses in whole micro-pUSD.
///
/// ```
/// let feed = polyclob_sim::Replay::from_jsonl(
///     r#"{"event_type":"book","asset_id":"1001","market":"0xc1","bids":[{"price":"0.48","size":"100"}],"asks":[]}"#,
/// )
/// .unwrap();
/// assert_eq!(feed.len(), 1);
/// ```
///
/// [`SimBuilder::replay`]: crate::SimBuilder::replay
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Replay {
    frames: Vec<String>,
}

impl Replay {
    /// Reads one raw frame per line.
    ///
    /// # Errors
    /// A message naming the first line that is not JSON.
    pub fn from_jsonl(text: &str) -> Result<Self, String> {
        let mut frames = Vec::new();
        for (i, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            serde_json::from_str::<Value>(line)
                .map_err(|e| format!("line {}: not a JSON frame: {e}", i + 1))?;
            frames.push(line.to_owned());
        }
        Ok(Self { frames })
    }

    /// Reads the frames of a `book_recorder` file (version 1).
    ///
    /// # Errors
    /// A message naming the first malformed record: a missing header, an `F` record whose
    /// length is not a number or runs past the end, a payload that is not UTF-8.
    pub fn from_recording(bytes: &[u8]) -> Result<Self, String> {
        const HEADER: &[u8] = b"polyclob-book-recording 1\n";
        let mut rest = bytes
            .strip_prefix(HEADER)
            .ok_or("not a book_recorder file: missing the `polyclob-book-recording 1` header")?;
        let mut frames = Vec::new();
        let mut line_no = 1;
        while !rest.is_empty() {
            line_no += 1;
            let end = rest.iter().position(|b| *b == b'\n').unwrap_or(rest.len());
            let line = std::str::from_utf8(&rest[..end])
                .map_err(|_| format!("line {line_no}: not UTF-8"))?;
            rest = rest.get(end + 1..).unwrap_or_default();
            if !line.starts_with("F ") {
                continue;
            }
            let len: usize = line
                .rsplit(' ')
                .next()
                .and_then(|n| n.parse().ok())
                .ok_or_else(|| format!("line {line_no}: an F record without a length"))?;
            let payload = rest
                .get(..len)
                .ok_or_else(|| format!("line {line_no}: the frame runs past the end"))?;
            let text = std::str::from_utf8(payload)
                .map_err(|_| format!("line {line_no}: the frame is not UTF-8"))?;
            frames.push(text.to_owned());
            line_no += text.matches('\n').count() + 1;
            rest = rest.get(len..).unwrap_or_default();
            rest = rest.strip_prefix(b"\n").unwrap_or(rest);
        }
        Ok(Self { frames })
    }

    /// Frames in the feed.
    #[must_use]
    pub fn len(&self) -> usize {
        self.frames.len()
    }

    /// Whether the feed has no frames.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.frames.is_empty()
    }
}

/// The feed being replayed and how far it got.
#[derive(Debug, Default)]
pub(crate) struct ReplayState {
    frames: Vec<String>,
    next: usize,
}

/// A decimal field of an event (a string or a number) in micro-units.
fn micros(v: &Value) -> Option<u64> {
    let text = match v {
        Value::String(s) => s.clone(),
        Value::Number(n) => n.to_string(),
        _ => return None,
    };
    Size::parse(text.as_bytes()).ok().map(Size::as_micros)
}

fn side_of(v: &Value) -> Option<Side> {
    Side::parse(v.as_str()?.to_ascii_uppercase().as_bytes())
}

/// `size` rounded down so that `size × price` is whole in micro-pUSD.
fn expressible(size: u64, price: u32) -> u64 {
    let scale = u64::from(Price::SCALE);
    let mut a = u64::from(price);
    let mut b = scale;
    while b != 0 {
        (a, b) = (b, a % b);
    }
    let unit = scale / a.max(1);
    size / unit * unit
}

impl ReplayState {
    /// The feed to replay, from its first frame.
    pub(crate) fn new(replay: Replay) -> Self {
        Self {
            frames: replay.frames,
            next: 0,
        }
    }

    /// Frames of the replayed feed not applied yet.
    pub(crate) fn left(&self) -> usize {
        self.frames.len() - self.next
    }

    /// Applies the next recorded frame (the recorded traders' orders get their ids from
    /// `rng`); false when the feed is over.
    pub(crate) fn frame(&mut self, ex: &mut Exchange, rng: &mut Rng) -> bool {
        let Some(text) = self.frames.get(self.next).cloned() else {
            return false;
        };
        self.next += 1;
        let events = match serde_json::from_str::<Value>(&text) {
            Ok(Value::Array(a)) => a,
            Ok(v) => vec![v],
            Err(_) => return true,
        };
        for e in &events {
            replay_event(ex, rng, e);
        }
        true
    }
}

fn replay_event(ex: &mut Exchange, rng: &mut Rng, e: &Value) {
    let token = |ex: &Exchange, v: &Value| v.as_str().and_then(|id| ex.token(id));
    match e.get("event_type").and_then(Value::as_str) {
        Some("book") => {
            let Some((mi, ti)) = token(ex, &e["asset_id"]) else {
                return;
            };
            let levels = |key: &str| -> Vec<(u32, u64)> {
                e[key]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .filter_map(|l| {
                        let p = u32::try_from(micros(&l["price"])?).ok()?;
                        Some((p, micros(&l["size"])?))
                    })
                    .collect()
            };
            let sides = [(Side::Buy, levels("bids")), (Side::Sell, levels("asks"))];
            // Levels the snapshot does not have go first, so the new ones cross nothing
            // stale.
            for (side, want) in &sides {
                for p in ex.markets[mi].book.view(ti).prices(*side) {
                    if !want.iter().any(|(w, _)| *w == p) {
                        replay_level(ex, rng, mi, ti, *side, p, 0);
                    }
                }
            }
            for (side, want) in sides {
                for (p, size) in want {
                    replay_level(ex, rng, mi, ti, side, p, size);
                }
            }
        }
        Some("price_change") => {
            for c in e["price_changes"].as_array().into_iter().flatten() {
                let (Some((mi, ti)), Some(side), Some(p), Some(size)) = (
                    token(ex, &c["asset_id"]),
                    side_of(&c["side"]),
                    micros(&c["price"]).and_then(|p| u32::try_from(p).ok()),
                    micros(&c["size"]),
                ) else {
                    continue;
                };
                replay_level(ex, rng, mi, ti, side, p, size);
            }
        }
        Some("last_trade_price") => {
            let (Some((mi, ti)), Some(side), Some(p), Some(size)) = (
                token(ex, &e["asset_id"]),
                side_of(&e["side"]),
                micros(&e["price"]).and_then(|p| u32::try_from(p).ok()),
                micros(&e["size"]),
            ) else {
                return;
            };
            let size = expressible(size, p);
            ex.place_as(rng, SEED_ADDRESS, mi, ti, side, p, size, OrderType::Fak);
        }
        _ => {}
    }
}

/// Sets the recorded traders' size at one level to `want`: more joins the back of the
/// queue, less is taken from the back of the queue first.
fn replay_level(
    ex: &mut Exchange,
    rng: &mut Rng,
    mi: usize,
    ti: usize,
    side: Side,
    price: u32,
    want: u64,
) {
    let recorded: Vec<(u64, u64)> = ex.markets[mi]
        .book
        .view(ti)
        .queue(side, price)
        .filter(|(seq, _)| ex.orders.get(seq).is_some_and(|o| o.user == SEED_ADDRESS))
        .collect();
    let have: u64 = recorded.iter().map(|(_, q)| q).sum();
    if want > have {
        let more = expressible(want - have, price);
        if more > 0 {
            ex.place_as(rng, SEED_ADDRESS, mi, ti, side, price, more, OrderType::Gtc);
        }
        return;
    }
    let mut excess = have - want;
    let mut changes = Vec::new();
    for (seq, qty) in recorded.into_iter().rev() {
        if excess == 0 {
            break;
        }
        if qty <= excess {
            ex.cancel_seq(seq);
            excess -= qty;
        } else {
            ex.markets[mi]
                .book
                .reduce(ti, side, price, seq, excess, &mut changes);
            if let Some(o) = ex.orders.get_mut(&seq) {
                o.original -= excess;
            }
            excess = 0;
        }
    }
    if !changes.is_empty() {
        ex.publish_price_changes(mi, ti, &changes, now_ms());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recordings_and_jsonl_read_their_frames() {
        let a = r#"[{"event_type":"book"}]"#;
        let b = "{\"event_type\":\"price_change\",\n\"x\":1}";
        let mut file = b"polyclob-book-recording 1\n".to_vec();
        file.extend_from_slice(b"S 1 0 connected 1001\n");
        file.extend_from_slice(format!("F 2 0 1 {}\n{a}\n", a.len()).as_bytes());
        file.extend_from_slice(b"B 3 1001 live 1 0.01 - - - -\n");
        file.extend_from_slice(format!("F 4 0 1 {}\n{b}\n", b.len()).as_bytes());
        let r = Replay::from_recording(&file).unwrap();
        assert_eq!(r.frames, [a, b]);
        assert!(Replay::from_recording(b"F 1 0 1 5\nabc").is_err());
        let mut short = b"polyclob-book-recording 1\n".to_vec();
        short.extend_from_slice(b"F 1 0 1 50\n{}\n");
        assert!(
            Replay::from_recording(&short)
                .unwrap_err()
                .contains("past the end")
        );
        let j = Replay::from_jsonl(&format!("{a}\n\n{{\"event_type\":\"x\"}}\n")).unwrap();
        assert_eq!(j.len(), 2);
        assert!(Replay::from_jsonl("{\n").unwrap_err().starts_with("line 1"));
    }

    #[test]
    fn sizes_round_to_whole_micro_pusd() {
        assert_eq!(expressible(12_345_678, 480_000), 12_345_675);
        assert_eq!(expressible(12_345_677, 500_000), 12_345_676);
        assert_eq!(expressible(7_000_000, 10_000), 7_000_000);
        assert_eq!(expressible(1_234, 1_000), 1_000);
    }
}
