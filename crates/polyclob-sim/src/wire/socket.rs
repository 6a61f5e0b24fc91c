//! A server-side WebSocket connection behind the fault filter, as every socket uses it (the
//! CLOB's channels, RTDS, PolyBolt, sports): [`Conn`] sends frames through the fault rules,
//! [`Timed`] adds the tick of the timed sockets, [`End`] says how a connection ends.

use std::sync::Arc;
use std::time::Instant;

use futures_util::{SinkExt, StreamExt};
use tokio_tungstenite::WebSocketStream;
use tokio_tungstenite::tungstenite::protocol::frame::CloseFrame;
use tokio_tungstenite::tungstenite::protocol::frame::coding::CloseCode;
use tokio_tungstenite::tungstenite::{Message, Utf8Bytes};

use super::shared::Shared;
use crate::scenario::faults::{About, WsAction, WsChannel, WsFrame};

/// Why the connection loop ended.
#[derive(Debug)]
pub(crate) enum End {
    /// Close politely (client closed, shutdown, bad auth).
    Close(Option<CloseFrame>),
    /// Drop the socket without a close frame (fault injection, kick, lag).
    Drop,
}

pub(crate) struct Conn<S> {
    pub(crate) tx: S,
    pub(crate) shared: Arc<Shared>,
    /// The endpoint, for the fault rules.
    pub(crate) channel: WsChannel,
    /// The authenticated account, `(lowercase address, API key)`, for the fault rules.
    pub(crate) account: Option<(String, String)>,
    pub(crate) silent_until: Option<Instant>,
}

impl<S> Conn<S>
where
    S: futures_util::Sink<Message> + Unpin,
{
    pub(crate) fn new(tx: S, shared: &Arc<Shared>, channel: WsChannel) -> Self {
        Self {
            tx,
            shared: Arc::clone(shared),
            channel,
            account: None,
            silent_until: None,
        }
    }

    /// Sends a text frame about no market through the fault filter and flushes it; `Err`
    /// means end the connection now.
    pub(crate) async fn send(&mut self, text: impl Into<Utf8Bytes>) -> Result<(), End> {
        self.feed(text.into(), About::Nothing).await?;
        self.flush().await
    }

    /// Queues a text frame through the fault filter without flushing it (a batch is flushed
    /// once, see [`Conn::flush`]); `Err` means end the connection now.
    pub(crate) async fn feed(&mut self, mut text: Utf8Bytes, about: About<'_>) -> Result<(), End> {
        let frame = WsFrame {
            channel: self.channel,
            account: self.account.as_ref().map(|(a, k)| (a.as_str(), k.as_str())),
            about,
        };
        let action = self.shared.faults().on_ws_frame(&frame);
        if self.silent_until.is_some_and(|t| Instant::now() < t) {
            return Ok(());
        }
        match action {
            WsAction::Send => {}
            WsAction::Corrupt => text = malformed(&text),
            WsAction::SilenceUntil(t) => {
                self.silent_until = Some(t);
                return Ok(());
            }
            WsAction::Stall(d) => {
                // What is queued waits with this frame: the client sees nothing meanwhile.
                self.flush().await?;
                tokio::time::sleep(d).await;
            }
            WsAction::Disconnect => return Err(End::Drop),
            WsAction::Close(code) => {
                return Err(End::Close(Some(CloseFrame {
                    code: CloseCode::from(code),
                    reason: "fault".into(),
                })));
            }
        }
        self.tx
            .feed(Message::Text(text))
            .await
            .map_err(|_| End::Drop)
    }

    /// Writes the queued frames to the socket.
    pub(crate) async fn flush(&mut self) -> Result<(), End> {
        self.tx.flush().await.map_err(|_| End::Drop)
    }

    /// Sends a WebSocket ping frame (a protocol keepalive, not data: the fault rules do not
    /// count it, but a silence holds it back like everything else).
    pub(crate) async fn ping(&mut self) -> Result<(), End> {
        if self.silent_until.is_some_and(|t| Instant::now() < t) {
            return Ok(());
        }
        self.tx
            .send(Message::Ping(Default::default()))
            .await
            .map_err(|_| End::Drop)
    }
}

/// A user-channel trade message made malformed: its `price` is no longer a number (`"0.57x"`),
/// everything else (the `id`) as it was.
fn malformed(text: &str) -> Utf8Bytes {
    let Ok(mut v) = serde_json::from_str::<serde_json::Value>(text) else {
        return format!("{text}x").into();
    };
    let price = v["price"].as_str().unwrap_or("").to_owned();
    v["price"] = serde_json::Value::String(format!("{price}x"));
    v.to_string().into()
}

impl End {
    /// The close frame of a simulator that is shutting down.
    pub(crate) fn going_away() -> Self {
        End::Close(Some(CloseFrame {
            code: CloseCode::Away,
            reason: "server shutting down".into(),
        }))
    }
}

/// How long a closing connection waits for its consumer to take the close frame.
pub(crate) const CLOSE_WAIT: std::time::Duration = std::time::Duration::from_secs(5);

/// The write half of a timed socket, behind the fault filter.
pub(crate) type TimedConn<T> = Conn<futures_util::stream::SplitSink<WebSocketStream<T>, Message>>;

/// What every timed socket (RTDS, PolyBolt, sports) starts its loop with: the connection's
/// halves, a tick of [`SimBuilder::rtds_interval`](crate::SimBuilder::rtds_interval) (late
/// ticks skipped), and the signals that end it.
pub(crate) struct Timed<T> {
    pub(crate) conn: TimedConn<T>,
    pub(crate) rx: futures_util::stream::SplitStream<WebSocketStream<T>>,
    pub(crate) ticker: tokio::time::Interval,
    pub(crate) interval: std::time::Duration,
    /// The interval in milliseconds, at least 1.
    pub(crate) interval_ms: u64,
    pub(crate) kick: tokio::sync::watch::Receiver<u64>,
    pub(crate) shutdown: tokio::sync::watch::Receiver<bool>,
}

impl<T> Timed<T>
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    pub(crate) fn new(ws: WebSocketStream<T>, shared: &Arc<Shared>, channel: WsChannel) -> Self {
        let (tx, rx) = ws.split();
        let interval = shared.rtds_interval;
        let mut ticker = tokio::time::interval(interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Skip);
        Self {
            conn: Conn::new(tx, shared, channel),
            rx,
            ticker,
            interval,
            interval_ms: u64::try_from(interval.as_millis())
                .unwrap_or(u64::MAX)
                .max(1),
            kick: shared.kick.subscribe(),
            shutdown: shared.shutdown.clone(),
        }
    }
}

/// Ends a timed socket as `end` says: a close frame (waiting at most [`CLOSE_WAIT`] for a
/// stalled consumer to take it), or a dropped socket.
pub(crate) async fn finish<T>(mut conn: TimedConn<T>, end: End)
where
    T: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin,
{
    if let End::Close(frame) = end {
        let _ = tokio::time::timeout(CLOSE_WAIT, conn.tx.send(Message::Close(frame))).await;
    }
}

/// Aborts the task when dropped.
pub(crate) struct AbortOnDrop(pub(crate) tokio::task::JoinHandle<()>);

impl Drop for AbortOnDrop {
    fn drop(&mut self) {
        self.0.abort();
    }
}
