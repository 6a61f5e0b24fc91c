//! Subscription messages of the market and user channels, written into a reused buffer.
//!
//! Formats ([Polymarket market channel], [user channel], [dynamic subscriptions]):
//! - market, first message: `{"assets_ids":[…],"type":"market","custom_feature_enabled":…,"initial_dump":…}`
//!   (the key is `assets_ids`, plural "assets");
//! - market, later: `{"assets_ids":[…],"operation":"subscribe"|"unsubscribe","custom_feature_enabled":…}`;
//! - user, first message: `{"auth":{"apiKey":…,"secret":…,"passphrase":…},"markets":[…],"type":"user"}`
//!   (filtered by condition ids);
//! - user, later: `{"markets":[…],"operation":"subscribe"|"unsubscribe"}`.
//!
//! [Polymarket market channel]: https://docs.polymarket.com/developers/CLOB/websocket/market-channel
//! [user channel]: https://docs.polymarket.com/developers/CLOB/websocket/user-channel
//! [dynamic subscriptions]: https://docs.polymarket.com/developers/CLOB/websocket/wss-overview

pub(crate) use super::feed::Op;
use crate::clob::Credentials;
use crate::json::escape::push_string;

/// Overwrite a string's bytes with zeros (`zeroize` keeps the stores from being elided).
pub(crate) fn wipe(s: &mut String) {
    zeroize::Zeroize::zeroize(s);
}

fn push_json_array<'a>(out: &mut String, items: impl IntoIterator<Item = &'a str>) {
    out.push('[');
    for (i, s) in items.into_iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        push_string(out, s);
    }
    out.push(']');
}

fn push_bool(out: &mut String, b: bool) {
    out.push_str(if b { "true" } else { "false" });
}

/// First market-channel message of a connection.
pub(crate) fn market_initial<'a>(
    out: &mut String,
    assets: impl IntoIterator<Item = &'a str>,
    custom_feature_enabled: bool,
    initial_dump: bool,
) {
    out.clear();
    out.push_str("{\"assets_ids\":");
    push_json_array(out, assets);
    out.push_str(",\"type\":\"market\",\"custom_feature_enabled\":");
    push_bool(out, custom_feature_enabled);
    out.push_str(",\"initial_dump\":");
    push_bool(out, initial_dump);
    out.push('}');
}

/// Market-channel subscribe/unsubscribe on an open connection.
pub(crate) fn market_operation<'a>(
    out: &mut String,
    assets: impl IntoIterator<Item = &'a str>,
    op: Op,
    custom_feature_enabled: bool,
) {
    out.clear();
    out.push_str("{\"assets_ids\":");
    push_json_array(out, assets);
    out.push_str(",\"operation\":\"");
    out.push_str(op.as_str());
    out.push_str("\",\"custom_feature_enabled\":");
    push_bool(out, custom_feature_enabled);
    out.push('}');
}

/// First user-channel message of a connection (carries the credentials).
pub(crate) fn user_initial<'a>(
    out: &mut String,
    auth: &Credentials,
    markets: impl IntoIterator<Item = &'a str>,
) {
    out.clear();
    out.push_str("{\"auth\":{\"apiKey\":");
    push_string(out, auth.api_key());
    out.push_str(",\"secret\":");
    push_string(out, auth.secret());
    out.push_str(",\"passphrase\":");
    push_string(out, auth.passphrase());
    out.push_str("},\"markets\":");
    push_json_array(out, markets);
    out.push_str(",\"type\":\"user\"}");
}

/// User-channel subscribe/unsubscribe on an open connection.
pub(crate) fn user_operation<'a>(
    out: &mut String,
    markets: impl IntoIterator<Item = &'a str>,
    op: Op,
) {
    out.clear();
    out.push_str("{\"markets\":");
    push_json_array(out, markets);
    out.push_str(",\"operation\":\"");
    out.push_str(op.as_str());
    out.push_str("\"}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn market_messages() {
        let mut s = String::new();
        market_initial(&mut s, ["1", "2"], true, true);
        assert_eq!(
            s,
            r#"{"assets_ids":["1","2"],"type":"market","custom_feature_enabled":true,"initial_dump":true}"#
        );
        market_initial(&mut s, [], false, false);
        assert_eq!(
            s,
            r#"{"assets_ids":[],"type":"market","custom_feature_enabled":false,"initial_dump":false}"#
        );
        market_operation(&mut s, ["3"], Op::Subscribe, true);
        assert_eq!(
            s,
            r#"{"assets_ids":["3"],"operation":"subscribe","custom_feature_enabled":true}"#
        );
        market_operation(&mut s, ["3", "4"], Op::Unsubscribe, false);
        assert_eq!(
            s,
            r#"{"assets_ids":["3","4"],"operation":"unsubscribe","custom_feature_enabled":false}"#
        );
    }

    #[test]
    fn user_messages() {
        let mut s = String::new();
        let auth = Credentials::new("k", "s", "p");
        user_initial(&mut s, &auth, ["0xab"]);
        assert_eq!(
            s,
            r#"{"auth":{"apiKey":"k","secret":"s","passphrase":"p"},"markets":["0xab"],"type":"user"}"#
        );
        user_operation(&mut s, ["0xcd"], Op::Unsubscribe);
        assert_eq!(s, r#"{"markets":["0xcd"],"operation":"unsubscribe"}"#);
    }

    #[test]
    fn hostile_ids_are_escaped() {
        let mut s = String::new();
        market_operation(&mut s, ["a\"b\\c\n\u{1}"], Op::Subscribe, true);
        assert_eq!(
            s,
            r#"{"assets_ids":["a\"b\\c\n\u0001"],"operation":"subscribe","custom_feature_enabled":true}"#
        );
    }

    #[test]
    fn auth_debug_is_redacted() {
        let auth = Credentials::new("key-1", "TOPSECRET", "PASSPHRASE");
        let d = format!("{auth:?}");
        assert!(d.contains("key-1"));
        assert!(!d.contains("TOPSECRET") && !d.contains("PASSPHRASE"));
    }
}
