//! The CLOB's predicates on the crate's one HTTP [`Error`]: its rails (governor, restriction
//! windows, heartbeat guard, pre-flight), the exchange's trading restrictions and order
//! refusals.

use crate::http::{Error, Kind, Rail};
use crate::order::OrderError;

impl Error {
    /// An order the order layer refused (bad arguments, nothing to match), as an argument
    /// error whose source is the [`OrderError`].
    pub(crate) fn order(e: OrderError) -> Self {
        // The reason is the source's text; a message too would print it twice.
        Self::new(Kind::Argument).with_source(e)
    }

    /// A post the exchange answered with 200, `success: false` and an
    /// `order_version_mismatch` message, as the status error it sends otherwise.
    pub(crate) fn version_mismatch(msg: String) -> Self {
        Self::new(Kind::Status)
            .with_message(msg)
            .with_path("/order")
    }
}

impl Error {
    /// The client's rate-limit governor refused the request without sending it: the signer's
    /// bucket is short. [`retry_after`](Self::retry_after) is when it could go (zero when
    /// [`is_over_capacity`](Self::is_over_capacity)).
    #[must_use]
    pub fn is_throttled(&self) -> bool {
        matches!(self.rail(), Some(Rail::Throttled { .. }))
    }

    /// The request costs more tokens than the bucket can ever hold at the account's tier (a
    /// batch to split, or a cancel-all over too many orders); refused without sending.
    #[must_use]
    pub fn is_over_capacity(&self) -> bool {
        self.rail()
            == Some(Rail::Throttled {
                over_capacity: true,
            })
    }

    /// The heartbeat guard refused a new order: heartbeats failed or stopped, so the exchange
    /// will cancel resting orders. It lifts after the next successful heartbeat.
    #[must_use]
    pub fn is_heartbeat_guard(&self) -> bool {
        self.rail() == Some(Rail::HeartbeatGuard)
    }

    /// A pre-flight check found that the account's key, funder (maker) and API credentials
    /// do not belong together ("maker address not allowed", "signer has to be the API KEY
    /// address" before the exchange says so). The message names both addresses.
    #[must_use]
    pub fn is_preflight(&self) -> bool {
        self.preflight_mismatch().is_some()
    }

    /// What a pre-flight check found, when it refused the order
    /// ([`is_preflight`](Self::is_preflight)).
    ///
    /// ```
    /// use polyclob::account::Account;
    /// use polyclob::clob::Credentials;
    /// use polyclob::http::PreflightMismatch;
    /// use polyclob::sign::{Signer, wallet::Wallet};
    ///
    /// let key = Signer::from_hex("ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80")?;
    /// // A deposit wallet this key does not own: the wallet would refuse its signature.
    /// let wallet = Wallet::DepositWallet("0x2222222222222222222222222222222222222222".parse()?);
    /// let e = Account::builder(key)
    ///     .wallet(wallet)
    ///     .credentials(Credentials::new("key", "c2VjcmV0", "pass"))
    ///     .build() // no I/O: the checks run before the account exists
    ///     .unwrap_err();
    /// assert_eq!(e.preflight_mismatch(), Some(PreflightMismatch::NotWalletOwner));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn preflight_mismatch(&self) -> Option<crate::http::PreflightMismatch> {
        match self.rail() {
            Some(Rail::Preflight(m)) => Some(m),
            _ => None,
        }
    }

    /// HTTP 425: the matching engine is restarting; retry after a short pause
    /// ([`retry_after`](Self::retry_after) when the server named one).
    #[must_use]
    pub fn is_engine_restart(&self) -> bool {
        self.status() == Some(425)
    }

    /// Post-only mode: HTTP 503 with `{"code":"post_only_mode","retry_after_seconds":…}`
    /// (the wait is [`retry_after`](Self::retry_after)), or a non-post-only order refused
    /// locally while that window is open. Post-only orders are still accepted.
    #[must_use]
    pub fn is_post_only_mode(&self) -> bool {
        self.rail() == Some(Rail::PostOnly)
            || (self.is_unavailable()
                && (self.code() == Some("post_only_mode")
                    || self.message_contains(&["post_only", "post-only", "post only"])))
    }

    /// Cancel-only mode (HTTP 503, or refused locally within a window the server announced
    /// with a retry hint): new orders are refused, cancels still work.
    #[must_use]
    pub fn is_cancel_only(&self) -> bool {
        self.rail() == Some(Rail::CancelOnly)
            || (self.is_unavailable()
                && (self.code() == Some("cancel_only_mode")
                    || self.message_contains(&["cancel_only", "cancel-only", "cancel only"])))
    }

    /// A post-only order the exchange refused because it would have matched on arrival: HTTP
    /// 400 `{"error":"invalid post-only order: order crosses book"}` (the exchange's
    /// `INVALID_POST_ONLY_ORDER`, docs.polymarket.com/resources/error-codes). Nothing was
    /// placed; re-price behind the touch and post again. A batch reports the same refusal per
    /// order in its `200` answer: see [`PostOrderResponse::is_post_only_crossing`].
    ///
    /// Not [`is_post_only_mode`](Self::is_post_only_mode) (the exchange accepting only
    /// post-only orders), nor the refusal of a post-only flag on a FOK or FAK order.
    ///
    /// [`PostOrderResponse::is_post_only_crossing`]: super::types::PostOrderResponse::is_post_only_crossing
    ///
    /// ```
    /// # async fn f(client: &polyclob::clob::Client, order: &polyclob::order::SignedOrder) {
    /// match client.post_order(order).await {
    ///     Err(e) if e.is_post_only_crossing() => { /* the book moved: quote one tick back */ }
    ///     other => drop(other),
    /// }
    /// # }
    /// ```
    #[must_use]
    pub fn is_post_only_crossing(&self) -> bool {
        self.is_status()
            && (self
                .code()
                .is_some_and(|c| c.eq_ignore_ascii_case(POST_ONLY_CROSSING_CODE))
                || self.message().is_some_and(is_post_only_crossing_text))
    }

    /// The account is in closed-only mode (`GET /auth/ban-status/closed-only`): it may only
    /// reduce positions, so orders that open them are refused.
    #[must_use]
    pub fn is_closed_only(&self) -> bool {
        self.is_status() && self.message_contains(&["closed_only", "closed-only", "closed only"])
    }

    /// The order was signed for another exchange generation (`order_version_mismatch`):
    /// re-read `/version`, rebuild, re-sign.
    #[must_use]
    pub fn is_order_version_mismatch(&self) -> bool {
        self.message_contains(&["order_version_mismatch"])
    }
}

/// The exchange's name for a post-only order that would cross (its error table's
/// `INVALID_POST_ONLY_ORDER`; `INVALID_POST_ONLY_ORDER_TYPE` is another refusal).
/// The exchange's documented order refusals (docs.polymarket.com/resources/error-codes,
/// "POST order"), as predicates on the one error type: the answer's `code` when the exchange
/// sends one, its message text otherwise (case-insensitive).
impl Error {
    fn refusal(&self, codes: &[&str], texts: &[&str]) -> bool {
        self.is_status()
            && (self
                .code()
                .is_some_and(|c| codes.iter().any(|k| c.eq_ignore_ascii_case(k)))
                || self.message_contains(texts))
    }

    /// A FAK or FOK order found nothing (FAK) or not enough (FOK) to match: the exchange's
    /// `no orders found to match with FAK order …` / `… couldn't be fully filled. FOK orders
    /// are fully filled or killed.` (HTTP 400), or the client's own book walk
    /// ([`OrderError::NoMatch`](crate::order::OrderError::NoMatch)). For a FAK this is a normal
    /// outcome, not a fault: nothing was traded, and resending the same order gets the same
    /// answer until the book changes.
    #[must_use]
    pub fn is_no_match(&self) -> bool {
        self.refusal(
            &["FOK_ORDER_NOT_FILLED_ERROR"],
            &["no orders found to match", "couldn't be fully filled"],
        ) || std::error::Error::source(self)
            .and_then(|s| s.downcast_ref::<crate::order::OrderError>())
            .is_some_and(|e| *e == crate::order::OrderError::NoMatch)
    }

    /// The price is off the market's tick grid (`INVALID_ORDER_MIN_TICK_SIZE`: `… breaks
    /// minimum tick size rule`), or outside its range: the tick size changed since it was
    /// cached (refresh it and rebuild).
    #[must_use]
    pub fn is_tick_size_refusal(&self) -> bool {
        self.refusal(
            &["INVALID_ORDER_MIN_TICK_SIZE"],
            &["minimum tick size", "min tick size"],
        )
    }

    /// The order is smaller than the market's minimum (`INVALID_ORDER_MIN_SIZE`: `Size (…)
    /// lower than the minimum: …`).
    #[must_use]
    pub fn is_below_min_size(&self) -> bool {
        self.refusal(&["INVALID_ORDER_MIN_SIZE"], &["lower than the minimum"])
    }

    /// The same order (same hash) was already placed (`INVALID_ORDER_DUPLICATED`).
    #[must_use]
    pub fn is_duplicate_order(&self) -> bool {
        self.refusal(&["INVALID_ORDER_DUPLICATED"], &["duplicated"])
    }

    /// The funder's balance or allowance does not cover the order
    /// (`INVALID_ORDER_NOT_ENOUGH_BALANCE`: `not enough balance / allowance`).
    #[must_use]
    pub fn is_insufficient_balance(&self) -> bool {
        self.refusal(
            &["INVALID_ORDER_NOT_ENOUGH_BALANCE"],
            &["not enough balance", "not enough allowance"],
        )
    }

    /// The expiration is in the past or too close (`INVALID_ORDER_EXPIRATION`).
    #[must_use]
    pub fn is_invalid_expiration(&self) -> bool {
        self.refusal(&["INVALID_ORDER_EXPIRATION"], &["invalid expiration"])
    }

    /// The exchange could not verify the order's signature (wrong key, funder, signature
    /// type, exchange or chain; an account's pre-flight checks catch the common causes before
    /// sending).
    #[must_use]
    pub fn is_invalid_signature(&self) -> bool {
        self.refusal(&[], &["invalid signature"])
    }

    /// The maker (funder) may not trade this way: `maker address not allowed` (with `please
    /// use the deposit wallet flow`: new API accounts trade from a deposit wallet, POLY_1271),
    /// as the exchange answered it or as the pre-flight caught or explained it
    /// ([`PreflightMismatch::MakerNotAllowed`](crate::http::PreflightMismatch) and
    /// [`DepositWalletRequired`](crate::http::PreflightMismatch::DepositWalletRequired), which
    /// names the key's deposit wallets).
    #[must_use]
    pub fn is_maker_not_allowed(&self) -> bool {
        self.refusal(&[], &["maker address not allowed"])
            || matches!(
                self.preflight_mismatch(),
                Some(
                    crate::http::PreflightMismatch::MakerNotAllowed
                        | crate::http::PreflightMismatch::DepositWalletRequired
                )
            )
    }

    /// The market does not accept orders yet (`MARKET_NOT_READY`).
    #[must_use]
    pub fn is_market_not_ready(&self) -> bool {
        self.refusal(
            &["MARKET_NOT_READY"],
            &["not yet ready", "market not ready"],
        )
    }
}

impl Error {
    /// A cancel refused because the order is in the taker hold (`cannot cancel because the
    /// order is in pending/delayed status`), when the exchange answers it as an error; in a
    /// `200` cancel answer it is [`CancelResponse::is_delayed`]. The order is not lost: it
    /// is matched after the hold, and its remainder can be cancelled then.
    ///
    /// [`CancelResponse::is_delayed`]: super::types::CancelResponse::is_delayed
    #[must_use]
    pub fn is_cancel_delayed(&self) -> bool {
        self.is_status() && self.message().is_some_and(is_delayed_text)
    }
}

/// Whether a cancel refusal names the taker hold.
pub(crate) fn is_delayed_text(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    m.contains("cannot cancel") && m.contains("delayed")
}

const POST_ONLY_CROSSING_CODE: &str = "INVALID_POST_ONLY_ORDER";

/// Whether an error text is the exchange's post-only crossing refusal: `invalid post-only
/// order: order crosses book`, recognised case-insensitively and with the wordings that keep
/// both halves (a post-only marker and a crossing one), or the bare code name.
pub(crate) fn is_post_only_crossing_text(msg: &str) -> bool {
    let m = msg.to_ascii_lowercase();
    let post_only = ["post-only", "post_only", "post only"]
        .iter()
        .any(|n| m.contains(n));
    let crosses = [
        "crosses book",
        "crosses the book",
        "cross the book",
        "would cross",
    ]
    .iter()
    .any(|n| m.contains(n));
    if post_only && crosses {
        return true;
    }
    // The code as a whole word: `INVALID_POST_ONLY_ORDER_TYPE` (FOK/FAK with post-only) is not it.
    let code = POST_ONLY_CROSSING_CODE.to_ascii_lowercase();
    m.match_indices(&code).any(|(at, _)| {
        let before = m[..at].bytes().next_back();
        let after = m[at + code.len()..].bytes().next();
        ![before, after]
            .into_iter()
            .flatten()
            .any(|b| b == b'_' || b.is_ascii_alphanumeric())
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn documented_refusals_by_text_and_code() {
        type P = fn(&Error) -> bool;
        let preds: [(&str, P); 9] = [
            ("no_match", Error::is_no_match),
            ("tick", Error::is_tick_size_refusal),
            ("min_size", Error::is_below_min_size),
            ("duplicate", Error::is_duplicate_order),
            ("balance", Error::is_insufficient_balance),
            ("expiration", Error::is_invalid_expiration),
            ("signature", Error::is_invalid_signature),
            ("maker", Error::is_maker_not_allowed),
            ("not_ready", Error::is_market_not_ready),
        ];
        let cases: &[(&[u8], &str)] = &[
            (br#"{"error":"no orders found to match with FAK order 0xab. FAK orders are partially filled or killed if no match is found."}"#, "no_match"),
            (br#"{"error":"order 0xab couldn't be fully filled. FOK orders are fully filled or killed."}"#, "no_match"),
            (br#"{"error":"x","code":"FOK_ORDER_NOT_FILLED_ERROR"}"#, "no_match"),
            (br#"{"error":"order 0xab is invalid. Price (0.555) breaks minimum tick size rule: 0.01"}"#, "tick"),
            (br#"{"error":"order 0xab is invalid. Size (1) lower than the minimum: 5"}"#, "min_size"),
            (br#"{"error":"order 0xab is invalid. Duplicated."}"#, "duplicate"),
            (br#"{"error":"not enough balance / allowance"}"#, "balance"),
            (br#"{"error":"invalid expiration"}"#, "expiration"),
            (br#"{"error":"invalid signature"}"#, "signature"),
            (br#"{"error":"maker address not allowed, please use the deposit wallet flow"}"#, "maker"),
            (br#"{"error":"the market is not yet ready to process new orders"}"#, "not_ready"),
            (br#"{"error":"something else"}"#, "none"),
        ];
        for (body, want) in cases {
            let e = Error::from_status(400, body, None);
            for (name, p) in &preds {
                assert_eq!(
                    p(&e),
                    name == want,
                    "{name} on {}",
                    String::from_utf8_lossy(body)
                );
            }
        }
        // A 2xx never is; the client's own book walk is a no-match too.
        let e = Error::order(crate::order::OrderError::NoMatch);
        assert!(e.is_no_match() && e.is_argument());
        assert!(!Error::order(crate::order::OrderError::EmptyBook).is_no_match());
    }

    #[test]
    fn predicates_from_status() {
        let e = Error::from_status(503, br#"{"error":"trading is in post_only_mode"}"#, None);
        assert!(e.is_unavailable() && e.is_post_only_mode() && !e.is_cancel_only());
        assert_eq!(e.message(), Some("trading is in post_only_mode"));
        let e = Error::from_status(503, b"exchange in cancel-only mode", None);
        assert!(e.is_cancel_only() && !e.is_post_only_mode());
        let e = Error::from_status(429, b"", Some(Duration::from_secs(2)));
        assert!(e.is_rate_limited() && e.is_transient());
        assert_eq!(e.retry_after(), Some(Duration::from_secs(2)));
        assert_eq!(e.message(), None);
        let e = Error::from_status(425, b"{}", None);
        assert!(e.is_engine_restart());
        let e = Error::from_status(400, br#"{"error":"order_version_mismatch"}"#, None);
        assert!(e.is_order_version_mismatch() && !e.is_transient());
        assert_eq!(e.status(), Some(400));
    }
}
