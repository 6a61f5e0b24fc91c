//! What the per-message allocation checks of the price streams share: a long replay through
//! a borrowed decoder, and a stream's zero-copy dispatch measured after warm-up against a
//! loopback server on its own thread.
#![allow(clippy::expect_used)]

use crate::support::counting_alloc;
use crate::support::ws_server::WsServer;

use std::sync::Arc;

/// Deliveries before measuring, then deliveries measured.
pub(crate) const WARM: u64 = 5_000;
pub(crate) const MEASURED: u64 = 20_000;

/// Decodes every frame once (warm-up), then 100,000 messages more, asserting that `read`
/// (decode and touch every value) allocates nothing.
pub(crate) fn assert_replay_allocates_nothing(frames: &[String], read: impl Fn(&str) -> u128) {
    let mut sum = 0u128;
    for f in frames {
        sum = sum.wrapping_add(read(f));
    }
    let before = counting_alloc::allocations();
    let mut n = 0u64;
    while n < 100_000 {
        for f in frames {
            sum = sum.wrapping_add(read(f));
            n += 1;
        }
    }
    let allocs = counting_alloc::allocations() - before;
    assert!(sum != 0);
    assert_eq!(allocs, 0, "{allocs} allocations over {n} messages");
}

/// A loopback server running on a thread of its own, so its work never lands on the
/// measured thread's counters.
pub(crate) fn server_thread() -> Arc<WsServer> {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .expect("rt");
        rt.block_on(async move {
            let server = Arc::new(WsServer::start().await);
            tx.send(Arc::clone(&server)).expect("send");
            std::future::pending::<()>().await;
        });
    });
    rx.recv().expect("server")
}

/// Dispatches [`WARM`] messages of `$stream` to `$handler`, then measures [`MEASURED`] more:
/// only polls that complete without yielding count, so the reading task (same thread) never
/// runs inside a measured window. `$delivered` reads the handler's message count. Asserts
/// zero allocations.
macro_rules! assert_dispatch_allocates_nothing {
    ($stream:expr, $handler:expr, $delivered:expr) => {{
        use futures_util::FutureExt as _;
        use $crate::stream_replay::{MEASURED, WARM};
        let delivered = $delivered;
        while delivered(&$handler) < WARM {
            assert!($stream.dispatch(&mut $handler).await);
        }
        let (mut measured, mut allocs) = (0u64, 0u64);
        while delivered(&$handler) < WARM + MEASURED {
            let before = $crate::support::counting_alloc::allocations();
            let polled = $stream.dispatch(&mut $handler).now_or_never();
            let after = $crate::support::counting_alloc::allocations();
            match polled {
                Some(open) => {
                    assert!(open);
                    measured += 1;
                    allocs += after - before;
                }
                None => tokio::time::sleep(std::time::Duration::from_millis(1)).await,
            }
        }
        assert!(
            measured >= MEASURED / 2,
            "only {measured} deliveries measured"
        );
        assert_eq!(allocs, 0, "{allocs} allocations over {measured} deliveries");
    }};
}
pub(crate) use assert_dispatch_allocates_nothing;
