//! The consumer side: shards assigned to ids, and the in-order delivery of what they send.

use std::collections::{BTreeSet, HashMap};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use tokio::sync::mpsc;
use tokio::time::Instant;

use super::connection::{Command, Config, Inbound, Shard};
use super::event::{OwnedFrame, Status};

/// Error returned when subscription changes are sent to a stream that has shut down.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed;

impl std::fmt::Display for Closed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("the stream has shut down")
    }
}

impl std::error::Error for Closed {}

struct Slot {
    cmd: mpsc::UnboundedSender<Command>,
    count: usize,
}

struct Assignment {
    /// Dropped on shutdown so the queue closes once the shard tasks have ended.
    tx: Option<mpsc::Sender<Inbound>>,
    slots: Vec<Slot>,
    owner: HashMap<String, usize>,
    next_start: Instant,
    closed: bool,
}

/// Assigns ids to shards (at most `per_shard` each), spawning shards as needed with
/// staggered first connects. Shared between a stream and its handles.
#[allow(unreachable_pub)] // named by the crate-private half of `Decoder`
pub struct Shards {
    cfg: Arc<Config>,
    /// Subscription changes made through the handles.
    changes: AtomicU64,
    runtime: tokio::runtime::Handle,
    per_shard: usize,
    stagger: Duration,
    state: Mutex<Assignment>,
}

impl std::fmt::Debug for Shards {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Shards")
            .field("per_shard", &self.per_shard)
            .field("stagger", &self.stagger)
            .finish_non_exhaustive()
    }
}

impl Shards {
    pub(crate) fn new(
        cfg: Arc<Config>,
        tx: mpsc::Sender<Inbound>,
        runtime: tokio::runtime::Handle,
        per_shard: usize,
        stagger: Duration,
    ) -> Self {
        let state = Assignment {
            tx: Some(tx),
            slots: Vec::new(),
            owner: HashMap::new(),
            next_start: Instant::now(),
            closed: false,
        };
        Self {
            cfg,
            changes: AtomicU64::new(0),
            runtime,
            per_shard: per_shard.max(1),
            stagger,
            state: Mutex::new(state),
        }
    }

    /// The stream's counters.
    pub(crate) fn counters(&self) -> super::StreamCounters {
        self.cfg.counters.snapshot()
    }

    /// The cells behind them, for the consumers that count decode errors and hash mismatches.
    pub(crate) fn counter_cells(&self) -> &super::counters::Counters {
        &self.cfg.counters
    }

    fn lock(&self) -> MutexGuard<'_, Assignment> {
        // A poisoned lock only means another thread panicked mid-update; the map is
        // still structurally valid, so keep going rather than propagate the panic.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Start a shard with `ids` (may be empty: the user channel subscribes to "all").
    fn spawn(&self, st: &mut Assignment, ids: BTreeSet<String>) -> Result<usize, Closed> {
        let tx = st.tx.clone().ok_or(Closed)?;
        let id = st.slots.len();
        let (cmd, cmd_rx) = mpsc::unbounded_channel();
        let now = Instant::now();
        let start = st.next_start.max(now);
        st.next_start = start + self.stagger;
        let start_at = (start > now).then_some(start);
        for asset in &ids {
            st.owner.insert(asset.clone(), id);
        }
        st.slots.push(Slot {
            cmd,
            count: ids.len(),
        });
        let shard = Shard::new(id, Arc::clone(&self.cfg), ids, cmd_rx, tx, start_at);
        self.runtime.spawn(shard.run());
        Ok(id)
    }

    /// Start one shard even without ids (the user channel).
    pub(crate) fn spawn_single(&self, ids: impl IntoIterator<Item = String>) -> Result<(), Closed> {
        let mut st = self.lock();
        let set: BTreeSet<String> = ids.into_iter().collect();
        self.spawn(&mut st, set).map(drop)
    }

    /// How many subscription changes were made (after the start).
    pub(crate) fn changes(&self) -> u64 {
        self.changes.load(Ordering::Acquire)
    }

    /// Add ids, filling existing shards first and opening new ones as needed.
    pub(crate) fn subscribe(&self, ids: impl IntoIterator<Item = String>) -> Result<(), Closed> {
        self.changes.fetch_add(1, Ordering::AcqRel);
        let mut st = self.lock();
        if st.closed {
            return Err(Closed);
        }
        let mut per: HashMap<usize, Vec<String>> = HashMap::new();
        let mut overflow: BTreeSet<String> = BTreeSet::new();
        for id in ids {
            if st.owner.contains_key(&id) || overflow.contains(&id) {
                continue;
            }
            match st.slots.iter().position(|s| s.count < self.per_shard) {
                Some(k) => {
                    st.slots[k].count += 1;
                    st.owner.insert(id.clone(), k);
                    per.entry(k).or_default().push(id);
                }
                None => {
                    overflow.insert(id);
                    if overflow.len() == self.per_shard {
                        self.spawn(&mut st, std::mem::take(&mut overflow))?;
                    }
                }
            }
        }
        if !overflow.is_empty() {
            self.spawn(&mut st, overflow)?;
        }
        for (k, ids) in per {
            // A send fails only if that shard's task has ended (stream dropped).
            st.slots[k]
                .cmd
                .send(Command::Subscribe(ids))
                .map_err(|_| Closed)?;
        }
        Ok(())
    }

    /// Remove ids from whichever shard holds them. Unknown ids are ignored.
    pub(crate) fn unsubscribe(&self, ids: impl IntoIterator<Item = String>) -> Result<(), Closed> {
        self.changes.fetch_add(1, Ordering::AcqRel);
        let mut st = self.lock();
        if st.closed {
            return Err(Closed);
        }
        let mut per: HashMap<usize, Vec<String>> = HashMap::new();
        for id in ids {
            if let Some(k) = st.owner.remove(&id) {
                st.slots[k].count -= 1;
                per.entry(k).or_default().push(id);
            }
        }
        for (k, ids) in per {
            st.slots[k]
                .cmd
                .send(Command::Unsubscribe(ids))
                .map_err(|_| Closed)?;
        }
        Ok(())
    }

    /// Force shard `shard` (or all, with `None`) to reconnect now.
    pub(crate) fn reconnect(&self, shard: Option<usize>) -> Result<(), Closed> {
        self.command(shard, || Command::Reconnect)
    }

    /// Ask shard `shard` for fresh snapshots after a loss (paced by its backoff).
    pub(crate) fn resnapshot(&self, shard: usize) {
        // Fails only after shutdown, when there is nothing to recover.
        let _ = self.command(Some(shard), || Command::Resnapshot);
    }

    fn command(&self, shard: Option<usize>, cmd: impl Fn() -> Command) -> Result<(), Closed> {
        let st = self.lock();
        if st.closed {
            return Err(Closed);
        }
        for (k, slot) in st.slots.iter().enumerate() {
            if shard.is_none_or(|s| s == k) {
                slot.cmd.send(cmd()).map_err(|_| Closed)?;
            }
        }
        Ok(())
    }

    /// Close every connection; the stream then ends.
    pub(crate) fn shutdown(&self) {
        let mut st = self.lock();
        st.closed = true;
        st.tx = None;
        for slot in &st.slots {
            let _ = slot.cmd.send(Command::Shutdown);
        }
    }

    /// Number of shards (connections) opened so far.
    pub(crate) fn shard_count(&self) -> usize {
        self.lock().slots.len()
    }

    /// The ids carried by one shard (sorted; empty for an unknown shard).
    pub(crate) fn ids_of(&self, shard: usize) -> Vec<String> {
        let mut all = self.assignment();
        if shard < all.len() {
            all.swap_remove(shard)
        } else {
            Vec::new()
        }
    }

    /// Every id, sorted.
    pub(crate) fn ids_of_all(&self) -> Vec<String> {
        let mut v = self.assignment().concat();
        v.sort_unstable();
        v
    }

    /// Ids per shard (each sorted), in shard order.
    pub(crate) fn assignment(&self) -> Vec<Vec<String>> {
        let st = self.lock();
        let mut out = vec![Vec::new(); st.slots.len()];
        for (id, &k) in &st.owner {
            out[k].push(id.clone());
        }
        for v in &mut out {
            v.sort_unstable();
        }
        out
    }
}

/// What the consumer receives, in order.
#[derive(Debug)]
pub(crate) enum Delivery {
    Frame(OwnedFrame),
    Status(Status),
}

/// Receives from all shards, drops frames of ended connections, accounts for them.
pub(crate) struct Dispatcher {
    rx: mpsc::Receiver<Inbound>,
    epochs: Vec<Arc<AtomicU64>>,
    /// Frames discarded per shard since its last status report.
    stale: Vec<u64>,
    /// Spin (yielding to the runtime) rather than park while the queue is empty.
    busy_poll: bool,
}

impl std::fmt::Debug for Dispatcher {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Dispatcher")
            .field("shards", &self.epochs.len())
            .finish_non_exhaustive()
    }
}

impl Dispatcher {
    pub(crate) fn new(rx: mpsc::Receiver<Inbound>, busy_poll: bool) -> Self {
        Self {
            rx,
            epochs: Vec::new(),
            stale: Vec::new(),
            busy_poll,
        }
    }

    /// Filter one inbound message; `None` means "nothing to deliver, keep receiving".
    fn accept(&mut self, msg: Inbound) -> Option<Delivery> {
        match msg {
            Inbound::Started { shard, epoch } => {
                if self.epochs.len() <= shard {
                    self.epochs
                        .resize_with(shard + 1, || Arc::new(AtomicU64::new(0)));
                    self.stale.resize(shard + 1, 0);
                }
                self.epochs[shard] = epoch;
                None
            }
            Inbound::Frame {
                shard,
                epoch,
                payload,
                received,
            } => {
                let current = self.epochs.get(shard).map(|e| e.load(Ordering::Acquire));
                if current == Some(epoch) {
                    Some(Delivery::Frame(OwnedFrame {
                        shard,
                        epoch,
                        payload,
                        received,
                    }))
                } else {
                    if let Some(n) = self.stale.get_mut(shard) {
                        *n += 1;
                    }
                    None
                }
            }
            Inbound::Status(mut status) => {
                let k = status.shard();
                let stale = self.stale.get_mut(k).map_or(0, std::mem::take);
                match &mut status {
                    Status::Lagged { dropped, .. } => *dropped += stale,
                    Status::Disconnected { discarded, .. } => *discarded += stale,
                    Status::Connected { .. } | Status::Stopped { .. } => {}
                }
                Some(Delivery::Status(status))
            }
        }
    }

    pub(crate) fn poll_delivery(&mut self, cx: &mut Context<'_>) -> Poll<Option<Delivery>> {
        loop {
            match self.rx.poll_recv(cx) {
                Poll::Ready(Some(msg)) => {
                    if let Some(d) = self.accept(msg) {
                        return Poll::Ready(Some(d));
                    }
                }
                Poll::Ready(None) => return Poll::Ready(None),
                Poll::Pending => {
                    if self.busy_poll {
                        // Ask to be polled again at once instead of sleeping until a shard
                        // wakes us.
                        cx.waker().wake_by_ref();
                    }
                    return Poll::Pending;
                }
            }
        }
    }

    /// A delivery already queued, without waiting.
    pub(crate) fn try_delivery(&mut self) -> Option<Delivery> {
        while let Ok(msg) = self.rx.try_recv() {
            if let Some(d) = self.accept(msg) {
                return Some(d);
            }
        }
        None
    }
}

/// The connections of one feed and the consumer's end of their queue.
#[derive(Debug)]
pub(crate) struct StreamCore {
    pub(crate) shards: Arc<Shards>,
    pub(crate) dispatcher: Dispatcher,
}

impl Drop for StreamCore {
    fn drop(&mut self) {
        // Handles may outlive the stream; without a consumer the shards have no purpose.
        self.shards.shutdown();
    }
}
