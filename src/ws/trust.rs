//! Trust per key: after a break, every key of the broken connection is untrusted until its own
//! re-establishment (its snapshot, its next message, a REST fetch), whatever other keys did.
//!
//! [`Trust`] is the answer every feed gives ([`Feed::trust`](super::feed::Feed::trust),
//! [`Cx::trust`](super::feed::Cx::trust)); [`Keys`] is the table behind it for the feeds whose
//! keys are not books (RTDS, PolyBolt, sports, the user channel). A break costs one increment
//! per connection, not a walk over the keys; a key is interned once (its first message) and
//! asked about without allocating.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::{Duration, Instant};

/// Whether a value derived from a stream can be relied on now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum Trust {
    /// Re-established since the last break of its connection, and fresh.
    Trusted,
    /// A break happened since: waiting for the key's own snapshot (or message, or REST fetch).
    AwaitingSnapshot,
    /// Established, but nothing came for the key for longer than its feed's staleness bound.
    Stale {
        /// Time since the key's last update.
        age: Duration,
    },
    /// The server refused the key (a PolyBolt error acknowledgement, e.g. `bad_filter`).
    Rejected(&'static str),
    /// Never seen.
    Unknown,
}

impl Trust {
    /// Whether the value can be relied on ([`Trust::Trusted`]).
    #[must_use]
    pub fn is_trusted(self) -> bool {
        self == Trust::Trusted
    }
}

#[derive(Debug, Clone)]
struct Slot {
    key: Box<str>,
    shard: usize,
    /// The connection generation at the key's last re-establishment.
    established: Option<u64>,
    last: Instant,
    stale_after: Option<Duration>,
    rejected: Option<&'static str>,
}

/// The trust table of a feed whose keys are not books. Read it through
/// [`Feed::state`](super::feed::Feed::state) or [`Cx::state`](super::feed::Cx::state).
#[derive(Debug, Default)]
pub struct Keys {
    index: HashMap<Box<str>, usize>,
    slots: Vec<Slot>,
    /// Per connection: bumped at every break.
    gens: Vec<u64>,
}

/// Renders a key (`price.crypto|btcusd`, `nfl|19439`) into a stack buffer and calls `f` with
/// it; a key past 192 bytes takes one allocation.
pub(crate) fn with_key<R>(key: std::fmt::Arguments<'_>, f: impl FnOnce(&str) -> R) -> R {
    let mut buf = Stack::default();
    let _ = buf.write_fmt(key);
    match buf.as_str() {
        Some(s) => f(s),
        None => f(&key.to_string()),
    }
}

/// A fixed buffer that refuses to overflow (then `as_str` is `None`).
struct Stack {
    bytes: [u8; 192],
    len: usize,
    overflow: bool,
}

impl Default for Stack {
    fn default() -> Self {
        Self {
            bytes: [0; 192],
            len: 0,
            overflow: false,
        }
    }
}

impl std::fmt::Write for Stack {
    fn write_str(&mut self, s: &str) -> std::fmt::Result {
        let end = self.len + s.len();
        match self.bytes.get_mut(self.len..end) {
            Some(dst) => {
                dst.copy_from_slice(s.as_bytes());
                self.len = end;
            }
            None => self.overflow = true,
        }
        Ok(())
    }
}

impl Stack {
    fn as_str(&self) -> Option<&str> {
        if self.overflow {
            return None;
        }
        std::str::from_utf8(&self.bytes[..self.len]).ok()
    }
}

impl Keys {
    /// The trust of `key` now.
    #[must_use]
    pub fn trust(&self, key: &str) -> Trust {
        match self.index.get(key) {
            Some(&i) => self.of(&self.slots[i], Instant::now()),
            None => Trust::Unknown,
        }
    }

    /// Every key seen that is not [`Trusted`](Trust::Trusted) now: after a break, what to
    /// re-establish (e.g. the sports games to look up on Gamma).
    pub fn untrusted(&self) -> impl Iterator<Item = &str> + '_ {
        let now = Instant::now();
        self.slots
            .iter()
            .filter(move |s| !self.of(s, now).is_trusted())
            .map(|s| &*s.key)
    }

    fn of(&self, s: &Slot, now: Instant) -> Trust {
        if let Some(code) = s.rejected {
            return Trust::Rejected(code);
        }
        if s.established != self.gens.get(s.shard).copied().or(Some(0)) {
            return Trust::AwaitingSnapshot;
        }
        let age = now.saturating_duration_since(s.last);
        match s.stale_after {
            Some(bound) if age > bound => Trust::Stale { age },
            _ => Trust::Trusted,
        }
    }

    fn slot(&mut self, key: &str, shard: usize) -> &mut Slot {
        let i = match self.index.get(key) {
            Some(&i) => i,
            None => {
                let i = self.slots.len();
                self.index.insert(key.into(), i);
                self.slots.push(Slot {
                    key: key.into(),
                    shard,
                    established: None,
                    last: Instant::now(),
                    stale_after: None,
                    rejected: None,
                });
                i
            }
        };
        let s = &mut self.slots[i];
        s.shard = shard;
        s
    }

    /// `key` came back on connection `shard` (its snapshot, or its message where messages
    /// restore); it goes stale after `stale_after` without an update.
    pub(crate) fn establish(&mut self, key: &str, shard: usize, stale_after: Option<Duration>) {
        let generation = self.gens.get(shard).copied().unwrap_or(0);
        let s = self.slot(key, shard);
        s.established = Some(generation);
        s.last = Instant::now();
        s.stale_after = stale_after;
        s.rejected = None;
    }

    /// The server refused `key`.
    pub(crate) fn reject(&mut self, key: &str, shard: usize, code: &'static str) {
        self.slot(key, shard).rejected = Some(code);
    }

    /// An update of `key` (not a re-establishment): it is fresh again if it was trusted.
    pub(crate) fn touch(&mut self, key: &str, shard: usize) {
        self.slot(key, shard).last = Instant::now();
    }

    /// Connection `shard` broke: each of its keys awaits its own re-establishment.
    pub(crate) fn break_shard(&mut self, shard: usize) {
        if self.gens.len() <= shard {
            self.gens.resize(shard + 1, 0);
        }
        self.gens[shard] += 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_break_untrusts_every_key_until_its_own_snapshot() {
        let mut k = Keys::default();
        assert_eq!(k.trust("a"), Trust::Unknown);
        k.establish("a", 0, None);
        k.establish("b", 0, None);
        k.establish("c", 1, None);
        assert!(k.trust("a").is_trusted() && k.trust("c").is_trusted());
        k.break_shard(0);
        assert_eq!(k.trust("a"), Trust::AwaitingSnapshot);
        assert!(
            k.trust("c").is_trusted(),
            "another connection is unaffected"
        );
        k.establish("a", 0, None);
        assert!(k.trust("a").is_trusted());
        assert_eq!(
            k.trust("b"),
            Trust::AwaitingSnapshot,
            "b's snapshot is still due"
        );
        k.touch("b", 0);
        assert_eq!(
            k.trust("b"),
            Trust::AwaitingSnapshot,
            "an update is no snapshot"
        );
        assert_eq!(k.untrusted().collect::<Vec<_>>(), ["b"]);
    }

    #[test]
    fn a_silent_key_goes_stale() {
        let mut k = Keys::default();
        k.establish("x", 0, Some(Duration::ZERO));
        std::thread::sleep(Duration::from_millis(2));
        assert!(matches!(k.trust("x"), Trust::Stale { .. }));
        k.establish("x", 0, Some(Duration::from_secs(60)));
        assert!(k.trust("x").is_trusted());
    }

    #[test]
    fn keys_render_on_the_stack_and_long_ones_still_work() {
        let (ch, sym) = ("price.crypto", "btcusd");
        let key = with_key(format_args!("{ch}|{sym}"), str::to_owned);
        assert_eq!(key, "price.crypto|btcusd");
        let long = "9".repeat(300);
        assert_eq!(with_key(format_args!("p|{long}"), |s| s.len()), 302);
    }
}
