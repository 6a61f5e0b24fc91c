//! The front door's server: the loopback listener, the per-request pipeline (faults, then a
//! WebSocket upgrade or an HTTP front-end) and the timers that sweep the exchange and run the
//! simulated market's activity.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::{Duration, Instant};

use http_body_util::{BodyExt, Limited};
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper::{Request, StatusCode};
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::net::TcpListener;

use crate::scenario::faults::{HttpFault, RequestView};
use crate::wire::http::{Resp, error_response};
use crate::wire::rails::Arrival;
#[cfg(feature = "onchain")]
use crate::wire::rpc;
use crate::wire::shared::Shared;
use crate::wire::{data_api, gamma, rest, ws};

/// Largest request body accepted (a batch of 15 orders is ~15 KiB).
const MAX_BODY: usize = 1 << 20;

/// Accepts connections until shutdown, each served (HTTP/1.1 or h2c, with upgrades) by
/// [`handle`].
pub(crate) async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    let mut shutdown = shared.shutdown.clone();
    loop {
        let stream = tokio::select! {
            r = listener.accept() => match r {
                Ok((s, _)) => s,
                // Transient accept errors (EMFILE, aborted handshakes): keep serving.
                Err(_) => {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                    continue;
                }
            },
            _ = shutdown.changed() => return,
        };
        let _ = stream.set_nodelay(true);
        let shared = Arc::clone(&shared);
        tokio::spawn(async move {
            let mut shutdown = shared.shutdown.clone();
            let svc_shared = Arc::clone(&shared);
            let svc = service_fn(move |req| handle(req, Arc::clone(&svc_shared)));
            let builder = hyper_util::server::conn::auto::Builder::new(TokioExecutor::new());
            let conn = builder.serve_connection_with_upgrades(TokioIo::new(stream), svc);
            tokio::select! {
                _ = conn => {}
                _ = shutdown.changed() => {}
            }
        });
    }
}

/// Sweeps every 100 ms, and at once when a settlement step or a held order is due.
pub(crate) async fn sweep_loop(shared: Arc<Shared>) {
    let mut shutdown = shared.shutdown.clone();
    let wake = Arc::clone(&shared.ex().settling.wake);
    let mut next = tokio::time::Instant::now();
    loop {
        tokio::select! {
            () = tokio::time::sleep_until(next) => {}
            () = wake.notified() => {}
            _ = shutdown.changed() => return,
        }
        let mut ex = shared.ex();
        ex.sweep();
        let tick = std::time::Instant::now() + Duration::from_millis(100);
        let due = ex.next_due().map_or(tick, |d| d.min(tick));
        next = tokio::time::Instant::from_std(due);
    }
}

/// Runs an activity step every `SimBuilder::activity` interval, retimed or stopped with
/// `SimHandle::set_activity`.
pub(crate) async fn activity_loop(shared: Arc<Shared>) {
    let mut shutdown = shared.shutdown.clone();
    let mut config = shared.activity_interval.subscribe();
    loop {
        let interval = *config.borrow_and_update();
        match interval {
            Some(every) if !every.is_zero() => {
                tokio::select! {
                    _ = tokio::time::sleep(every) => shared.activity().step(&mut shared.ex()),
                    _ = config.changed() => {}
                    _ = shutdown.changed() => return,
                }
            }
            _ => {
                tokio::select! {
                    r = config.changed() => if r.is_err() { return },
                    _ = shutdown.changed() => return,
                }
            }
        }
    }
}

fn fault_response(f: HttpFault) -> Resp {
    let status = StatusCode::from_u16(f.status()).unwrap_or(StatusCode::SERVICE_UNAVAILABLE);
    let mut r = error_response(status, f.message());
    if let Some(retry_after) = f.retry_after() {
        let secs = retry_after.as_secs() + u64::from(retry_after.subsec_nanos() > 0);
        if let Ok(v) = hyper::header::HeaderValue::from_str(&secs.to_string()) {
            r.headers_mut().insert(hyper::header::RETRY_AFTER, v);
        }
    }
    r
}

/// What the fault rules see of a request.
fn request_view<'a>(
    headers: &'a hyper::HeaderMap,
    uri: &'a hyper::Uri,
    body: &'a [u8],
) -> RequestView<'a> {
    let header = |k: &str| headers.get(k).and_then(|v| v.to_str().ok());
    RequestView {
        path: uri.path(),
        query: uri.query().unwrap_or(""),
        address: header("POLY_ADDRESS"),
        api_key: header("POLY_API_KEY"),
        body,
    }
}

/// Waits out the injected latency, then answers with the injected fault if there is one.
async fn faulted(delay: Duration, fault: Option<HttpFault>) -> Option<Resp> {
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    fault.map(fault_response)
}

/// One request: stamped and logged, then the fault rules, then a WebSocket upgrade or the
/// first HTTP front-end whose routes it is (Gamma, the Data API, the chain's JSON-RPC, the
/// CLOB's REST routes and the programs beside them).
async fn handle(mut req: Request<Incoming>, shared: Arc<Shared>) -> Result<Resp, Infallible> {
    // Stamped before anything else runs: the exchange meters requests at its edge, so a
    // request's place in the rate-limit buckets is its arrival, not when a busy handler
    // reached it (see `Shared::metered`).
    req.extensions_mut().insert(Arrival(Instant::now()));
    shared.log_request(req.method(), req.uri().path());
    if ws::is_upgrade(&req) {
        let (delay, fault) =
            shared
                .faults()
                .on_request(&request_view(req.headers(), req.uri(), b""));
        if let Some(r) = faulted(delay, fault).await {
            return Ok(r);
        }
        return Ok(ws::upgrade(req, shared));
    }
    let (parts, body) = req.into_parts();
    // The body is read before the fault rules run, so a rule can target the market it names.
    let body = match Limited::new(body, MAX_BODY).collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => {
            return Ok(error_response(
                StatusCode::PAYLOAD_TOO_LARGE,
                "Payload exceeds the limit",
            ));
        }
    };
    let (delay, fault) =
        shared
            .faults()
            .on_request(&request_view(&parts.headers, &parts.uri, &body));
    // The Data API answers its faults in its own documented error shape.
    let fault = fault.map(|f| (f, data_api::owns(parts.uri.path())));
    if !delay.is_zero() {
        tokio::time::sleep(delay).await;
    }
    match fault {
        Some((f, true)) => return Ok(data_api::fault(f)),
        Some((f, false)) => return Ok(fault_response(f)),
        None => {}
    }
    // The edge's per-IP limits, at the request's arrival.
    let at = parts
        .extensions
        .get::<Arrival>()
        .map_or_else(Instant::now, |a| a.0);
    let limited = shared
        .rails()
        .ip_admit(parts.method.as_str(), parts.uri.path(), at);
    if let Err(retry_after) = limited {
        let f = HttpFault::RateLimited { retry_after };
        return Ok(if data_api::owns(parts.uri.path()) {
            data_api::fault(f)
        } else {
            fault_response(f)
        });
    }
    if let Some(r) = gamma::route(&shared, &parts).or_else(|| data_api::route(&shared, &parts)) {
        return Ok(r);
    }
    #[cfg(feature = "onchain")]
    if parts.uri.path() == "/rpc" && parts.method == hyper::Method::POST {
        return Ok(rpc::serve(&shared, &body));
    }
    Ok(rest::route(&shared, &parts, &body))
}
