//! Drift: the simulator departs from the exchange's documented behaviour on purpose, one way at
//! a time, so a conformance checker (`polyclob-doctor`) can be shown to catch each kind of
//! change the real exchange has made under its clients: a renamed field, a new key, a new hash
//! formula, a removed endpoint, a new close code, a contract moved away from its address.

use std::sync::atomic::{AtomicU16, Ordering};

/// One deliberate departure from the exchange's documented behaviour
/// ([`SimBuilder::drift`](crate::SimBuilder::drift), [`SimHandle::set_drift`](crate::SimHandle::set_drift)).
///
/// ```
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// use polyclob_sim::{Drift, Simulator};
///
/// let sim = Simulator::builder().drift(Drift::RemovedEndpoint).start().await?;
/// let token = sim.markets()[0].tokens()[0].token_id().to_owned();
/// let client = polyclob::clob::Client::builder().host(sim.http_url()).build()?;
/// assert_eq!(client.midpoint(&token).await.unwrap_err().status(), Some(404));
/// # Ok(()) }
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Drift {
    /// REST books (`GET /book`) name the token `token_id` instead of `asset_id`.
    RenamedField,
    /// REST books carry one more member, `"fee_schedule":"standard"`, outside the hash.
    ExtraBookKey,
    /// Book hashes cover a member the book does not carry (a changed hash input): no client
    /// following the documented formula reproduces them.
    HashInput,
    /// `GET /midpoint` is gone: it answers 404.
    RemovedEndpoint,
    /// PolyBolt closes a connection with code 4010 (a code the docs do not list) right after
    /// the first subscription's snapshot.
    PolyBoltCloseCode,
    /// The chain (feature `onchain`) has no code at the Router's address (`eth_getCode`
    /// answers `0x`), as if the contract table named an address nothing is deployed at.
    MissingContractCode,
    /// Data API resolutions (`GET /v2/resolutions`) name the payouts `payout_numerators`
    /// instead of `payouts`.
    RenamedResolutionField,
    /// `POST /v1/heartbeats` answers `{"status":"ok"}` (the shape of the docs' example) with no
    /// `heartbeat_id` to chain into the next heartbeat.
    HeartbeatWithoutId,
    /// RTDS `activity` `orders_matched` payloads name the token `asset_id` instead of `asset`.
    RenamedActivityField,
}

impl Drift {
    /// Every drift, in declaration order.
    pub const ALL: [Drift; 9] = [
        Drift::RenamedField,
        Drift::ExtraBookKey,
        Drift::HashInput,
        Drift::RemovedEndpoint,
        Drift::PolyBoltCloseCode,
        Drift::MissingContractCode,
        Drift::RenamedResolutionField,
        Drift::HeartbeatWithoutId,
        Drift::RenamedActivityField,
    ];

    /// The flag's name (`renamed-field`, `extra-book-key`, `hash-input`, `removed-endpoint`,
    /// `polybolt-close-code`, `missing-contract-code`, `renamed-resolution-field`,
    /// `heartbeat-without-id`, `renamed-activity-field`), as the binary's `--drift` takes it.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Drift::RenamedField => "renamed-field",
            Drift::ExtraBookKey => "extra-book-key",
            Drift::HashInput => "hash-input",
            Drift::RemovedEndpoint => "removed-endpoint",
            Drift::PolyBoltCloseCode => "polybolt-close-code",
            Drift::MissingContractCode => "missing-contract-code",
            Drift::RenamedResolutionField => "renamed-resolution-field",
            Drift::HeartbeatWithoutId => "heartbeat-without-id",
            Drift::RenamedActivityField => "renamed-activity-field",
        }
    }

    /// The drift named `name` ([`Drift::name`]).
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|d| d.name() == name)
    }

    const fn bit(self) -> u16 {
        1 << self as u8
    }
}

/// The close code of [`Drift::PolyBoltCloseCode`].
pub(crate) const UNKNOWN_CLOSE: u16 = 4010;

/// The drifts switched on, as bits.
#[derive(Debug, Default)]
pub(crate) struct Drifts(AtomicU16);

impl Drifts {
    pub(crate) fn new(on: &[Drift]) -> Self {
        let d = Self::default();
        d.set(on);
        d
    }

    pub(crate) fn set(&self, on: &[Drift]) {
        let bits = on.iter().fold(0, |b, d| b | d.bit());
        self.0.store(bits, Ordering::Relaxed);
    }

    pub(crate) fn has(&self, d: Drift) -> bool {
        self.0.load(Ordering::Relaxed) & d.bit() != 0
    }

    /// Whether `path` is an endpoint a drift removed.
    pub(crate) fn removed(&self, path: &str) -> bool {
        self.has(Drift::RemovedEndpoint) && path == "/midpoint"
    }

    /// The REST `/book` object as the drifts change it (compact JSON, members in order).
    pub(crate) fn rest_book(&self, mut text: String) -> String {
        if self.has(Drift::HashInput) {
            if let Some(at) = text.find("\"hash\":\"") {
                let start = at + "\"hash\":\"".len();
                if let Some(len) = text[start..].find('"') {
                    // The documented input (hash emptied) plus a member the book does not carry.
                    let mut input = String::with_capacity(text.len() + 32);
                    input.push_str(&text[..start]);
                    input.push_str(&text[start + len..text.len() - 1]);
                    input.push_str(",\"fee_rate_bps\":\"0\"}");
                    let hash = alloy_primitives::hex::encode(<sha1::Sha1 as sha1::Digest>::digest(
                        input.as_bytes(),
                    ));
                    text.replace_range(start..start + len, &hash);
                }
            }
        }
        if self.has(Drift::RenamedField) {
            text = text.replacen("\"asset_id\":", "\"token_id\":", 1);
        }
        if self.has(Drift::ExtraBookKey) && text.ends_with('}') {
            text.pop();
            text.push_str(",\"fee_schedule\":\"standard\"}");
        }
        text
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip_and_bits_are_distinct() {
        for d in Drift::ALL {
            assert_eq!(Drift::parse(d.name()), Some(d));
        }
        let on = Drifts::new(&[Drift::ExtraBookKey]);
        assert!(on.has(Drift::ExtraBookKey) && !on.has(Drift::HashInput));
        assert_eq!(
            on.rest_book(r#"{"asset_id":"1","hash":"ab"}"#.to_owned()),
            r#"{"asset_id":"1","hash":"ab","fee_schedule":"standard"}"#
        );
        on.set(&[Drift::RenamedField, Drift::HashInput]);
        let out = on.rest_book(r#"{"asset_id":"1","hash":"ab"}"#.to_owned());
        assert!(out.starts_with(r#"{"token_id":"1","hash":""#), "{out}");
        assert_eq!(out.len(), r#"{"token_id":"1","hash":""}"#.len() + 40);
    }
}
