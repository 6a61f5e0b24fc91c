//! `--trade`: one post-only BUY at the lowest tick with the minimum size (far below the touch,
//! and post-only so it can never take), seen on the user channel, then cancelled — nothing
//! else, ever. The cancel is sent whatever happened before it.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use polyclob::account::Account;
use polyclob::account::user_events::{UserEvent, UserStream};
use polyclob::fixed::Size;
use polyclob::http::Bucket;
use polyclob::order::LimitOrder;
use polyclob::types::{Side, TickSize};
use polyclob::ws::event::Status;
use polyclob::ws::feed::FeedEvent;

use crate::Report;
use crate::checks::{Auth, Ctx, Picked, error_text};

/// How long the order may take to show on the user channel.
const SEEN: Duration = Duration::from_secs(15);

pub(crate) async fn round_trip(
    ctx: &Ctx<'_>,
    auth: Option<&Auth>,
    picked: &Picked,
    report: &mut Report,
) {
    let Some(auth) = auth else {
        report.fail("trade", "--trade needs a key (POLYCLOB_DOCTOR_KEY)");
        return;
    };
    let Some(((token, _), book)) = picked.tokens.iter().zip(&picked.books).next() else {
        report.fail("trade", "no market with a book to trade");
        return;
    };
    let Ok(signer) = polyclob::sign::Signer::from_hex(&auth.key.0) else {
        report.fail("trade", "the key is not a 32-byte hex private key");
        return;
    };
    let mut client = polyclob::clob::ClientBuilder::new();
    if let Some(h) = &ctx.opts.clob {
        client = client.host(h);
    }
    let account = match Account::builder(signer)
        .client(client)
        .credentials(auth.creds.clone())
        .build()
    {
        Ok(a) => a,
        Err(e) => {
            report.fail("trade", format!("account: {e}"));
            return;
        }
    };
    let tick = book.tick_size.unwrap_or(TickSize::Hundredth);
    let price = tick.as_price();
    let size = book
        .min_order_size
        .filter(|s| !s.is_zero())
        .unwrap_or(Size::from_micros(5_000_000));

    let mut user = UserStream::builder(auth.creds.clone()).markets([book.market.clone()]);
    if let Some(u) = &ctx.opts.user_ws {
        user = user.url(u);
    }
    let mut events = match user.build() {
        Ok(s) => s,
        Err(e) => {
            report.fail(
                "trade.user-channel",
                format!("cannot build the stream: {e}"),
            );
            return;
        }
    };
    let deadline = Instant::now() + SEEN;
    let mut connected = false;
    while !connected {
        match tokio::time::timeout_at(deadline.into(), events.next()).await {
            Ok(Some(FeedEvent::Status(Status::Connected { .. }))) => connected = true,
            Ok(Some(_)) => {}
            _ => break,
        }
    }
    if !connected {
        report.fail(
            "trade.user-channel",
            "the user channel did not connect: no order placed",
        );
        return;
    }

    let req = LimitOrder::new(Side::Buy, price, size).post_only(true);
    let placed = match account.place_limit_order(token, &req).await {
        Ok(p) if p.success && !p.order_id.is_empty() => p,
        Ok(p) => {
            report.fail(
                "trade.place",
                format!("post-only BUY {size} @ {price} refused: {:?}", p.error_msg),
            );
            return;
        }
        Err(e) => {
            report.fail(
                "trade.place",
                format!("post-only BUY {size} @ {price}: {}", error_text(&e)),
            );
            return;
        }
    };
    report.pass(
        "trade.place",
        format!(
            "post-only BUY {size} @ {price} on token {token}: order {} {:?}",
            placed.order_id, placed.status
        ),
    );
    match account.client().rate_limit_status(Bucket::Order) {
        Some(s) => report.pass(
            "ratelimit.headers",
            format!(
                "POST /order answered with Poly-RateLimit headers: remaining {:?}, tier {:?}",
                s.remaining, s.tier_name
            ),
        ),
        None => report.warn(
            "ratelimit.headers",
            "POST /order carried no Poly-RateLimit headers",
        ),
    }

    let deadline = Instant::now() + SEEN;
    let mut seen = false;
    while !seen {
        match tokio::time::timeout_at(deadline.into(), events.next()).await {
            Ok(Some(FeedEvent::Message(UserEvent::Order(o)))) if o.id == placed.order_id => {
                seen = true
            }
            Ok(Some(_)) => {}
            _ => break,
        }
    }
    if seen {
        report.pass(
            "trade.user-channel",
            "the order was seen on the user channel",
        );
    } else {
        report.fail(
            "trade.user-channel",
            format!(
                "order {} not seen on the user channel within {} s",
                placed.order_id,
                SEEN.as_secs()
            ),
        );
    }

    match account.cancel(&placed.order_id).await {
        Ok(c) if c.canceled.contains(&placed.order_id) => {
            report.pass(
                "trade.cancel",
                format!("order {} cancelled", placed.order_id),
            );
        }
        Ok(c) => report.fail(
            "trade.cancel",
            format!(
                "order {} not in the cancel answer (not_canceled: {:?}): CANCEL IT BY HAND",
                placed.order_id, c.not_canceled
            ),
        ),
        Err(e) => report.fail(
            "trade.cancel",
            format!(
                "cancel of order {}: {}: CANCEL IT BY HAND",
                placed.order_id,
                error_text(&e)
            ),
        ),
    }
}
