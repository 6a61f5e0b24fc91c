//! A post-only order that would cross the book, typed: the simulator answers it the way the
//! exchange does (`400` `invalid post-only order: order crosses book`, and per order inside a
//! batch's `200`), and a loopback mock replays the exchange's exact bodies. The restriction
//! predicates (post-only mode, cancel-only, closed-only) never fire on it, nor it on them.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::support::mock_clob;
use crate::support::rails;

use std::time::Duration;

use polyclob::clob::Client;
use polyclob::clob::types::PostOrderResponse;
use polyclob::fixed::{Price, Size};
use polyclob::http::{Error, RetryPolicy, Throttle};
use polyclob::order::{LimitOrder, SignedOrder};
use polyclob::types::{Side, TickSize};
use rails::*;

const CROSSING: &str = "invalid post-only order: order crosses book";

fn order(c: &Client, key: &str, side: Side, cents: u32, post_only: bool) -> SignedOrder {
    let ctx = c
        .market_context_with(YES, TickSize::Hundredth, false)
        .unwrap();
    let req = LimitOrder::new(
        side,
        Price::new(cents * 10_000).unwrap(),
        Size::from_micros(5_000_000),
    )
    .post_only(post_only);
    order_signer(key).limit_order(&ctx, &req).unwrap()
}

fn assert_no_restriction(e: &Error) {
    assert!(
        !e.is_post_only_mode() && !e.is_cancel_only() && !e.is_closed_only(),
        "{e:?}"
    );
    assert!(!e.is_refused_locally() && !e.is_transient(), "{e:?}");
}

#[tokio::test]
async fn simulator_refuses_a_crossing_post_only_order_like_the_exchange() {
    let sim = sim(None).await;
    let a = client(&sim, KEY_A, Throttle::Refuse).await;
    let b = client(&sim, KEY_B, Throttle::Refuse).await;
    // B offers at 0.60.
    let ask = b
        .post_order(&order(&b, KEY_B, Side::Sell, 60, false))
        .await
        .unwrap();
    assert_eq!(ask.status, polyclob::clob::types::OrderStatus::Live);

    // A post-only bid at the ask would take it: refused, nothing placed, the ask intact.
    let e = a
        .post_order(&order(&a, KEY_A, Side::Buy, 60, true))
        .await
        .unwrap_err();
    assert!(
        e.is_post_only_crossing() && e.status() == Some(400),
        "{e:?}"
    );
    assert_eq!(e.message(), Some(CROSSING));
    assert_no_restriction(&e);
    let book = a.book(YES).await.unwrap();
    assert_eq!(book.asks.len(), 1, "the ask was not taken");
    assert!(book.bids.is_empty(), "nothing rested for A");

    // One tick back it rests; the same price without post-only takes the ask.
    let maker = a
        .post_order(&order(&a, KEY_A, Side::Buy, 59, true))
        .await
        .unwrap();
    assert!(maker.success && !maker.is_post_only_crossing());
    assert_eq!(maker.status, polyclob::clob::types::OrderStatus::Live);

    // In a batch the refusal is per order, inside the 200 answer.
    let batch = a
        .post_orders(&[
            order(&a, KEY_A, Side::Buy, 61, true),
            order(&a, KEY_A, Side::Buy, 58, true),
        ])
        .await
        .unwrap();
    assert_eq!(batch.len(), 2);
    assert!(batch[0].is_post_only_crossing(), "{:?}", batch[0]);
    assert_eq!(batch[0].error_msg, CROSSING);
    assert!(batch[0].order_id.is_empty());
    assert!(
        !batch[1].is_post_only_crossing()
            && batch[1].status == polyclob::clob::types::OrderStatus::Live
    );

    let taker = a
        .post_order(&order(&a, KEY_A, Side::Buy, 60, false))
        .await
        .unwrap();
    assert_eq!(taker.status, polyclob::clob::types::OrderStatus::Matched);

    // A post-only window is the other predicate, never this one.
    sim.set_post_only(Some(Duration::from_secs(30)));
    let e = a
        .post_order(&order(&a, KEY_A, Side::Buy, 50, false))
        .await
        .unwrap_err();
    assert!(e.is_post_only_mode() && !e.is_post_only_crossing(), "{e:?}");
    // A post-only order still goes in the window, and still may not cross.
    b.post_order(&order(&b, KEY_B, Side::Sell, 70, true))
        .await
        .unwrap();
    let e = a
        .post_order(&order(&a, KEY_A, Side::Buy, 70, true))
        .await
        .unwrap_err();
    assert!(e.is_post_only_crossing() && !e.is_post_only_mode(), "{e:?}");
    sim.set_post_only(None);

    // Cancel-only and closed-only answers are not crossings either.
    sim.set_cancel_only(true);
    let e = a
        .post_order(&order(&a, KEY_A, Side::Buy, 40, true))
        .await
        .unwrap_err();
    assert!(e.is_cancel_only() && !e.is_post_only_crossing(), "{e:?}");
    sim.set_cancel_only(false);
    sim.set_closed_only(&a.address().unwrap().to_string(), true);
    let e = a
        .post_order(&order(&a, KEY_A, Side::Buy, 40, true))
        .await
        .unwrap_err();
    assert!(e.is_closed_only() && !e.is_post_only_crossing(), "{e:?}");
}

#[tokio::test]
async fn the_exchanges_exact_bodies_are_typed() {
    use mock_clob::{MockClob, Reply};
    let m = MockClob::start().await;
    // docs.polymarket.com/resources/error-codes: `POST /order` answers 400 with `error`;
    // `POST /orders` answers 200 with one entry per order (this shape, `success: true`).
    m.on(
        "POST",
        "/order",
        vec![Reply::status(400, format!(r#"{{"error":"{CROSSING}"}}"#))],
    );
    m.on(
        "POST",
        "/orders",
        vec![Reply::json(format!(
            r#"[{{"errorMsg":"{CROSSING}","orderID":"","takingAmount":"","makingAmount":"","status":"","success":true}},{{"errorMsg":"post-only mode: only post-only orders and cancels are allowed","orderID":"","takingAmount":"","makingAmount":"","status":"","success":true}},{{"errorMsg":"invalid post-only order: only GTC and GTD order types are allowed","orderID":"","takingAmount":"","makingAmount":"","status":"","success":true}},{{"errorMsg":"","orderID":"0x01","takingAmount":"","makingAmount":"","status":"live","success":true}}]"#
        ))],
    );
    let c = Client::builder()
        .host(m.url())
        .retry(RetryPolicy::none())
        .signer(polyclob::sign::Signer::from_hex(KEY_A).unwrap())
        .credentials(polyclob::clob::Credentials::new(
            "key-1",
            "c2VjcmV0LXNlY3JldC1zZWNyZXQtc2VjcmV0LXNlYw==",
            "pp",
        ))
        .throttle(Throttle::Off)
        .build()
        .unwrap();
    let o = order(&c, KEY_A, Side::Buy, 60, true);
    let e = c.post_order(&o).await.unwrap_err();
    assert!(
        e.is_post_only_crossing() && e.status() == Some(400),
        "{e:?}"
    );
    assert_eq!(e.message(), Some(CROSSING));
    assert_no_restriction(&e);

    let rs: Vec<PostOrderResponse> = c.post_orders(&[o, o, o, o]).await.unwrap();
    let crossing: Vec<bool> = rs
        .iter()
        .map(PostOrderResponse::is_post_only_crossing)
        .collect();
    assert_eq!(crossing, [true, false, false, false]);
    assert!(rs[0].success, "the exchange says success: true even so");
}
