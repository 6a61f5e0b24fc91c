//! `--trade`: one post-only BUY at the lowest tick with the minimum size (far below the touch,
//! and post-only so it can never take), seen on the user channel, then cancelled — nothing
//! else, ever. The cancel is sent whatever happened before it.
//!
//! With `--wallet ADDR` the order is a deposit wallet's (signature type 3, maker = signer =
//! ADDR), the path every new API account takes: signed by its owner when ADDR is one of the
//! key's derived deposit wallets, else by the key as the wallet's session key (with its own
//! credentials). The wallet's pUSD and allowances (`/balance-allowance`, signature type 3)
//! and its indexed approvals (the Data API's `/v2/approvals`) are checked first.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use polyclob::account::Account;
use polyclob::account::user_events::{UserEvent, UserStream};
use polyclob::clob::types::{AssetKind, OrderStatus};
use polyclob::fixed::Size;
use polyclob::http::Bucket;
use polyclob::order::LimitOrder;
use polyclob::sign::Signer;
use polyclob::sign::wallet::{Wallet, derive_deposit_wallets};
use polyclob::types::{Side, SignatureType, TickSize};
use polyclob::ws::event::Status;
use polyclob::ws::feed::FeedEvent;

use crate::Report;
use crate::checks::{Auth, Ctx, Picked, error_text};

/// `--wallet ADDR`: the wallet's kind for this key (owner or session key), its balance and
/// allowances on the CLOB, and its approvals on the Data API. `None` (after a FAIL) when it
/// cannot be traded from.
async fn deposit_wallet(
    ctx: &Ctx<'_>,
    auth: &Auth,
    signer: &Signer,
    text: &str,
    report: &mut Report,
) -> Option<Wallet> {
    let derived = derive_deposit_wallets(signer.address());
    let Ok(addr) = text.trim().parse() else {
        report.fail(
            "wallet.kind",
            format!("--wallet {text:?} is not an address"),
        );
        return None;
    };
    let owner = derived.contains(&addr);
    let wallet = if owner {
        Wallet::DepositWallet(addr)
    } else {
        Wallet::DepositWalletSession(addr)
    };
    report.pass(
        "wallet.kind",
        if owner {
            format!("{addr} is the key's deposit wallet: the owner signs (POLY_1271)")
        } else {
            format!(
                "{addr} is not derived from the key {}: the key signs as its session key \
                 (POLY_1271 in the session signer envelope; the key's own deposit wallet \
                 would be {})",
                signer.address(),
                derived[1]
            )
        },
    );
    match auth
        .client
        .balance_allowance(AssetKind::Collateral, None, SignatureType::Poly1271)
        .await
    {
        Ok(b) if b.balance == 0 => report.warn(
            "wallet.balance",
            "GET /balance-allowance (signature type 3): the wallet holds no pUSD",
        ),
        Ok(b) => report.pass(
            "wallet.balance",
            format!(
                "GET /balance-allowance (signature type 3): {} micro-pUSD, {} allowances",
                b.balance,
                b.allowances.len()
            ),
        ),
        Err(e) => {
            report.fail(
                "wallet.balance",
                format!(
                    "GET /balance-allowance?signature_type=3: {}",
                    error_text(&e)
                ),
            );
            return None;
        }
    }
    let user = format!("{addr:#x}");
    match ctx.data.approvals(&user).await {
        Ok(a) => {
            let trading: Vec<_> = a
                .contracts
                .iter()
                .filter(|c| c.feature.eq_ignore_ascii_case("trading"))
                .collect();
            let missing = trading.iter().filter(|c| !c.approved).count();
            if trading.is_empty() || missing > 0 {
                report.warn(
                    "wallet.approvals",
                    format!(
                        "GET /v2/approvals: {missing} of {} trading approvals not granted",
                        trading.len()
                    ),
                );
            } else {
                report.pass(
                    "wallet.approvals",
                    format!(
                        "GET /v2/approvals: all {} trading approvals granted",
                        trading.len()
                    ),
                );
            }
        }
        Err(e) => report.fail(
            "wallet.approvals",
            format!("GET /v2/approvals: {}", error_text(&e)),
        ),
    }
    Some(wallet)
}

/// `GET /data/order/{id}` of the order just placed: a status the docs list, `original_size`
/// in shares as placed (not 6-decimal units), `size_matched` within it.
async fn order_shape(account: &Account, id: &str, size: Size, report: &mut Report) {
    const CHECK: &str = "clob.order.shape";
    match account.order(id).await {
        Ok(o) if matches!(o.status, OrderStatus::Unknown(_)) => {
            report.fail(
                CHECK,
                format!("order {id}: status {:?} is not one the docs list", o.status),
            );
        }
        Ok(o) if o.original_size != size || o.size_matched > o.original_size => report.fail(
            CHECK,
            format!(
                "order {id}: original_size {} (placed {size}), size_matched {}",
                o.original_size, o.size_matched
            ),
        ),
        Ok(o) => report.pass(
            CHECK,
            format!(
                "order {id}: {:?}, {} of {} matched, type {:?}",
                o.status, o.size_matched, o.original_size, o.order_type
            ),
        ),
        Err(e) => report.fail(CHECK, format!("GET /data/order/{id}: {}", error_text(&e))),
    }
}

/// The `Poly-RateLimit-*` headers of the last `bucket` answer, which the governor learns
/// the account's bucket and tier from (docs: trading rate limits): a `Remaining` it can
/// read (negative is debt), a tier it knows, and no more left than that tier's burst (more
/// would mean the exchange's buckets outgrew polyclob's table). None at all is a WARN.
fn rate_headers(account: &Account, bucket: Bucket, what: &str, report: &mut Report) {
    let check = match bucket {
        Bucket::Cancel => "ratelimit.headers.cancel",
        _ => "ratelimit.headers",
    };
    let Some(s) = account.client().rate_limit_status(bucket) else {
        return report.warn(check, format!("{what} carried no Poly-RateLimit headers"));
    };
    let Some(left) = s.remaining else {
        return report.fail(
            check,
            format!("{what}: Poly-RateLimit headers without a Remaining polyclob can read"),
        );
    };
    match (s.tier, &s.tier_name) {
        (None, Some(name)) => report.fail(
            check,
            format!("{what}: Poly-RateLimit-Tier {name:?} is not a tier polyclob knows"),
        ),
        (Some(t), _) if left > i64::from(t.limit(bucket).burst) => report.fail(
            check,
            format!(
                "{what}: Poly-RateLimit-Remaining {left} is above the {} tier's {} burst of {}: \
                 polyclob's tier table is behind the exchange's",
                t.as_str(),
                bucket.as_str(),
                t.limit(bucket).burst
            ),
        ),
        (tier, _) => report.pass(
            check,
            format!(
                "{what}: Poly-RateLimit-Remaining {left}, tier {}, reset {}{}",
                tier.map_or("(not sent)", |t| t.as_str()),
                s.reset
                    .map_or_else(|| "(not sent)".to_owned(), |r| r.to_string()),
                if s.warning { ", warning mode" } else { "" }
            ),
        ),
    }
}

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
    let wallet = match &ctx.opts.wallet {
        None => Wallet::Eoa,
        Some(text) => match deposit_wallet(ctx, auth, &signer, text, report).await {
            Some(w) => w,
            None => return,
        },
    };
    let mut client = polyclob::clob::ClientBuilder::new();
    if let Some(h) = &ctx.opts.clob {
        client = client.host(h);
    }
    let account = match Account::builder(signer)
        .client(client)
        .wallet(wallet)
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
            "post-only BUY {size} @ {price} on token {token} from {} (signature type {}): order {} {:?}",
            account.maker(),
            wallet.signature_type() as u8,
            placed.order_id,
            placed.status
        ),
    );
    order_shape(&account, &placed.order_id, size, report).await;
    rate_headers(&account, Bucket::Order, "POST /order", report);

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

    let cancelled = account.cancel(&placed.order_id).await;
    rate_headers(&account, Bucket::Cancel, "DELETE /order", report);
    match cancelled {
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
