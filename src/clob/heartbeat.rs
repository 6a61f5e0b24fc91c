//! Heartbeats (`POST /v1/heartbeats`): the exchange cancels all open orders of a user whose
//! heartbeats stop, so a crashed bot does not leave orders resting.
//!
//! While [`Client::start_heartbeats`] runs, the client's heartbeat guard refuses new orders
//! ([`Error::is_heartbeat_guard`]) from the moment a heartbeat fails, the task stops, or no
//! heartbeat has succeeded for two intervals, until one succeeds again. An
//! `{"error_msg":"Invalid Heartbeat ID","heartbeat_id":…}` answer resynchronises the chain
//! on the server's id at once instead of counting as a failure.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::auth::Level;
use super::client::Client;
use super::request::Req;
use super::types::HeartbeatResponse;
use crate::http::Error;

/// What the background heartbeat task has seen so far.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct HeartbeatStatus {
    /// Heartbeats the server accepted.
    pub sent: u64,
    /// Heartbeats that failed.
    pub failed: u64,
    /// The id the next heartbeat will carry.
    pub last_id: Option<String>,
    /// The last failure, as text.
    pub last_error: Option<String>,
    /// `Invalid Heartbeat ID` answers that resynchronised the chain on the server's id.
    pub resynced: u64,
}

/// Owns the background heartbeat task; dropping it stops the task.
#[derive(Debug)]
pub struct HeartbeatHandle {
    task: tokio::task::JoinHandle<()>,
    status: Arc<Mutex<HeartbeatStatus>>,
    client: Client,
    deliberate: bool,
}

impl HeartbeatHandle {
    /// A snapshot of the task's counters.
    #[must_use]
    pub fn status(&self) -> HeartbeatStatus {
        self.status
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .clone()
    }

    /// Stops the task now, deliberately: the heartbeat guard is lifted (the exchange will
    /// still cancel resting orders once its heartbeat timeout passes). Dropping the handle
    /// instead also stops the task but leaves the guard refusing new orders until a heartbeat
    /// succeeds, as for a crashed task.
    pub fn stop(mut self) {
        self.deliberate = true;
    }
}

impl Drop for HeartbeatHandle {
    fn drop(&mut self) {
        self.task.abort();
        let guard = &self.client.inner.rails.heartbeat;
        if self.deliberate {
            guard.disarm();
        } else {
            guard.stopped();
        }
    }
}

impl Client {
    /// Sends one heartbeat. Pass the id returned by the previous one (`None` to start a
    /// chain).
    ///
    /// # Errors
    ///
    /// Missing credentials, transport, status or decode.
    pub async fn heartbeat(&self, id: Option<&str>) -> Result<HeartbeatResponse, Error> {
        #[derive(serde::Serialize)]
        struct B<'a> {
            heartbeat_id: Option<&'a str>,
        }
        let body = serde_json::to_vec(&B { heartbeat_id: id }).unwrap_or_default();
        // A repeated heartbeat is harmless, so it may be retried.
        let r: Result<HeartbeatResponse, Error> = self
            .json(
                &Req::post("/v1/heartbeats", body)
                    .idempotent(true)
                    .auth(Level::L2),
            )
            .await;
        let guard = &self.inner.rails.heartbeat;
        match &r {
            Ok(h) if h.error.as_deref().is_none_or(str::is_empty) => {
                crate::telemetry::event!(DEBUG, "polyclob.heartbeat.sent", ok = true);
                guard.succeeded();
            }
            // A resync answer is not a failure: the chain continues on the server's id.
            Err(e) if e.heartbeat_id().is_some() => {
                crate::telemetry::event!(INFO, "polyclob.heartbeat.resync", ok = false);
            }
            _ => {
                crate::telemetry::event!(
                    WARN,
                    "polyclob.heartbeat.failed",
                    ok = false,
                    status = r.as_ref().err().and_then(Error::status).unwrap_or(0),
                    error = %r.as_ref().err().map_or_else(
                        || r.as_ref().ok().and_then(|h| h.error.as_deref()).unwrap_or("").to_owned(),
                        ToString::to_string,
                    ),
                );
                self.inner
                    .rails
                    .heartbeat_failures
                    .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                guard.failed();
            }
        }
        r
    }

    /// Spawns a task on the current Tokio runtime that sends a heartbeat every `interval`,
    /// chaining each returned id into the next call. A failure restarts the chain. The task
    /// stops when the handle is dropped.
    ///
    /// # Panics
    ///
    /// When called outside a Tokio runtime.
    pub fn start_heartbeats(&self, interval: Duration) -> HeartbeatHandle {
        let status = Arc::new(Mutex::new(HeartbeatStatus::default()));
        let client = self.clone();
        let st = Arc::clone(&status);
        self.inner.rails.heartbeat.arm(interval);
        let task = tokio::spawn(async move {
            let mut id: Option<String> = None;
            // At most one immediate resend on the server's id per interval.
            let mut resync_left = 1u8;
            loop {
                let result = client.heartbeat(id.as_deref()).await;
                let mut again = false;
                {
                    let mut s = st.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    match result {
                        Ok(r) if r.error.as_deref().is_none_or(str::is_empty) => {
                            s.sent += 1;
                            id = (!r.heartbeat_id.is_empty()).then_some(r.heartbeat_id);
                        }
                        Ok(r) => {
                            s.failed += 1;
                            s.last_error = r.error;
                            id = None;
                        }
                        Err(e) if e.heartbeat_id().is_some() && resync_left > 0 => {
                            s.resynced += 1;
                            id = e.heartbeat_id().map(str::to_owned);
                            resync_left -= 1;
                            again = true;
                        }
                        Err(e) => {
                            s.failed += 1;
                            s.last_error = Some(e.to_string());
                            // A second resync answer in a row is a failure; keep its id.
                            id = e.heartbeat_id().map(str::to_owned);
                            client.inner.rails.heartbeat.failed();
                        }
                    }
                    s.last_id.clone_from(&id);
                }
                if !again {
                    resync_left = 1;
                    tokio::time::sleep(interval).await;
                }
            }
        });
        HeartbeatHandle {
            task,
            status,
            client: self.clone(),
            deliberate: false,
        }
    }
}
