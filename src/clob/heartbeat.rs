//! Heartbeats (`POST /v1/heartbeats`): the exchange cancels all open orders of a user whose
//! heartbeats stop, so a crashed bot does not leave orders resting.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use super::auth::Level;
use super::error::Error;
use super::transport::{Client, Req};
use super::types::HeartbeatResponse;

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
}

/// Owns the background heartbeat task; dropping it stops the task.
#[derive(Debug)]
pub struct HeartbeatHandle {
    task: tokio::task::JoinHandle<()>,
    status: Arc<Mutex<HeartbeatStatus>>,
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

    /// Stops the task now (same as dropping the handle).
    pub fn stop(self) {}
}

impl Drop for HeartbeatHandle {
    fn drop(&mut self) {
        self.task.abort();
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
        self.json(
            &Req::post("/v1/heartbeats", body)
                .idempotent(true)
                .auth(Level::L2),
        )
        .await
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
        let task = tokio::spawn(async move {
            let mut id: Option<String> = None;
            loop {
                let result = client.heartbeat(id.as_deref()).await;
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
                        Err(e) => {
                            s.failed += 1;
                            s.last_error = Some(e.to_string());
                            id = None;
                        }
                    }
                    s.last_id.clone_from(&id);
                }
                tokio::time::sleep(interval).await;
            }
        });
        HeartbeatHandle { task, status }
    }
}
