//! A small Chrome DevTools Protocol client over the pipe Chromium opens
//! with `--remote-debugging-pipe`: commands with their answers, and each page
//! session's events on its own channel. No port is opened, so no other
//! process on the machine can drive the browser. Messages are JSON texts
//! ended by a NUL byte, kept as JSON values, so a newer Chromium's extra
//! fields and events cost nothing.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;
use tokio::sync::{mpsc, oneshot};

/// How long a command may wait for its answer.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(15);

/// The largest message taken from the browser (a page's whole HTML comes in one).
const MAX_MESSAGE_BYTES: usize = 256 * 1024 * 1024;

/// An event the browser sent for one page session.
#[derive(Debug)]
pub struct Event {
    /// `Domain.event`.
    pub method: String,
    /// Its parameters.
    pub params: Value,
}

type Pending = Mutex<HashMap<u64, oneshot::Sender<Result<Value, String>>>>;
type Listeners = Mutex<HashMap<String, mpsc::UnboundedSender<Event>>>;

/// A connection to the browser.
pub struct Cdp {
    out: mpsc::UnboundedSender<String>,
    pending: Arc<Pending>,
    listeners: Arc<Listeners>,
    next: AtomicU64,
}

impl Cdp {
    /// Talks to the browser over its DevTools pipe: `to_browser` is what it
    /// reads commands from (its fd 3), `from_browser` what it writes to (fd 4).
    pub fn over_pipe(to_browser: pipe::Sender, from_browser: pipe::Receiver) -> Cdp {
        let (out, mut outbox) = mpsc::unbounded_channel::<String>();
        tokio::spawn(async move {
            let mut sink = to_browser;
            while let Some(message) = outbox.recv().await {
                let mut bytes = message.into_bytes();
                bytes.push(0);
                if sink.write_all(&bytes).await.is_err() {
                    break;
                }
            }
        });
        let pending: Arc<Pending> = Arc::default();
        let listeners: Arc<Listeners> = Arc::default();
        let (answers, events) = (pending.clone(), listeners.clone());
        tokio::spawn(async move {
            let mut stream = tokio::io::BufReader::new(from_browser);
            let mut message = Vec::new();
            loop {
                message.clear();
                let mut bounded = (&mut stream).take(MAX_MESSAGE_BYTES as u64);
                match bounded.read_until(0, &mut message).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                // A message that never ends within the limit: the pipe is
                // out of step, and the browser is given up.
                if message.pop() != Some(0) {
                    break;
                }
                let Ok(value) = serde_json::from_slice::<Value>(&message) else {
                    continue;
                };
                dispatch(value, &answers, &events);
            }
            // The browser went away: every waiting command fails now.
            answers
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
            events
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .clear();
        });
        Cdp {
            out,
            pending,
            listeners,
            next: AtomicU64::new(1),
        }
    }

    /// Whether the connection is gone.
    pub fn is_closed(&self) -> bool {
        self.out.is_closed()
    }

    /// Sends `method` with `params`, to the page `session` or to the browser,
    /// and waits for its result.
    pub async fn call(
        &self,
        session: Option<&str>,
        method: &str,
        params: Value,
    ) -> Result<Value, String> {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        let mut message = json!({"id": id, "method": method, "params": params});
        if let Some(session) = session {
            message["sessionId"] = json!(session);
        }
        let (tx, rx) = oneshot::channel();
        self.pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id, tx);
        if self.out.send(message.to_string()).is_err() {
            return Err("the browser's DevTools connection is closed".into());
        }
        match tokio::time::timeout(COMMAND_TIMEOUT, rx).await {
            Ok(Ok(result)) => result.map_err(|e| format!("{method}: {e}")),
            Ok(Err(_)) => Err(format!("{method}: the browser closed the connection")),
            Err(_) => {
                self.pending
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .remove(&id);
                Err(format!(
                    "{method}: no answer from the browser within {} s",
                    COMMAND_TIMEOUT.as_secs()
                ))
            }
        }
    }

    /// The events of page `session` from now on.
    pub fn events(&self, session: &str) -> mpsc::UnboundedReceiver<Event> {
        let (tx, rx) = mpsc::unbounded_channel();
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(session.to_owned(), tx);
        rx
    }

    /// Stops passing on page `session`'s events.
    pub fn forget(&self, session: &str) {
        self.listeners
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(session);
    }
}

/// Hands an answer to its command, or an event to its page's listener.
fn dispatch(value: Value, pending: &Pending, listeners: &Listeners) {
    if let Some(id) = value["id"].as_u64() {
        let waiting = pending
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id);
        if let Some(tx) = waiting {
            let result = match value.get("error") {
                Some(error) => Err(error["message"].as_str().unwrap_or("failed").to_owned()),
                None => Ok(value["result"].clone()),
            };
            let _ = tx.send(result);
        }
        return;
    }
    let (Some(method), Some(session)) = (value["method"].as_str(), value["sessionId"].as_str())
    else {
        return;
    };
    let listeners = listeners.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(tx) = listeners.get(session) {
        let _ = tx.send(Event {
            method: method.to_owned(),
            params: value["params"].clone(),
        });
    }
}
