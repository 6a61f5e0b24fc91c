//! The user channel's connection: the account's `order` and `trade` events, authenticated
//! with L2 API credentials and optionally filtered by market (condition id).
//!
//! The feed itself — orders and trades as flat events, each trade's status monotone, the REST
//! catch-up after a break — is the account layer's
//! ([`UserStream`](crate::account::user_events::UserStream)); this module holds what the
//! connection sends and its policy. The channel does not replay what happened while
//! disconnected ([Polymarket user channel]).
//!
//! [Polymarket user channel]: https://docs.polymarket.com/developers/CLOB/websocket/user-channel

use std::collections::BTreeSet;

use super::connection::Policy;
use super::continuity::StreamKind;
use super::feed::Wire;
use super::subscribe::{self, Op};
use crate::clob::Credentials;

/// Polymarket's production user-channel endpoint.
pub(crate) const USER_URL: &str = "wss://ws-subscriptions-clob.polymarket.com/ws/user";

/// The user channel's policy: the market channel's (text `PING` every 10 s, `PONG` within
/// 30 s, dead after 30 s of silence, backoff 1 s → 60 s with equal jitter, reset after 30 s up).
pub(crate) const POLICY: Policy = Policy {
    kind: StreamKind::User,
    url: USER_URL,
    ..super::market::POLICY
};

/// The user channel's messages: the first carries the credentials (wiped once sent); markets
/// change on the open connection with `{"operation","markets"}`.
#[derive(Debug)]
pub(crate) struct UserWire(pub(crate) Credentials);

impl Wire for UserWire {
    fn initial(&self, out: &mut String, ids: &BTreeSet<String>) -> bool {
        subscribe::user_initial(out, &self.0, ids.iter().map(String::as_str));
        true
    }
    fn operation(&self, out: &mut String, ids: &[String], op: Op) {
        subscribe::user_operation(out, ids.iter().map(String::as_str), op);
    }
    fn secret(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn policy_is_the_market_channels() {
        assert_eq!(POLICY.keepalive, Some("PING"));
        assert_eq!(
            POLICY.backoff,
            (Duration::from_secs(1), Duration::from_secs(60))
        );
        assert_eq!(POLICY.url, USER_URL);
    }
}
