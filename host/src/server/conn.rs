//! One client connection: hyper's HTTP/1.1 state machine over an I/O wrapper that
//! notes when bytes last moved, a request-in-flight count, and a watchdog that
//! closes the connection when it stays silent with no request in flight.

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tower::ServiceExt;

use super::ServerLimits;

/// Largest buffer hyper keeps per connection; request heads must fit in it.
const MAX_BUF_BYTES: usize = 64 * 1024;

/// How a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The client or hyper closed it.
    Closed,
    /// It stayed silent past the idle timeout.
    Idle,
    /// It had no request in flight when shutdown started.
    Shutdown,
}

/// Activity shared between the I/O wrapper, the service and the watchdog.
#[derive(Debug)]
struct Activity {
    since: Instant,
    last_io_ms: AtomicU64,
    in_flight: AtomicUsize,
}

impl Activity {
    fn touch(&self) {
        let now = self.since.elapsed().as_millis() as u64;
        self.last_io_ms.store(now, Ordering::Relaxed);
    }

    fn silent_for(&self) -> Duration {
        let last = self.last_io_ms.load(Ordering::Relaxed);
        Duration::from_millis((self.since.elapsed().as_millis() as u64).saturating_sub(last))
    }

    fn busy(&self) -> bool {
        self.in_flight.load(Ordering::Acquire) > 0
    }
}

/// A TCP stream that records when bytes moved.
struct Tracked {
    stream: TcpStream,
    activity: Arc<Activity>,
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let before = buf.filled().len();
        let poll = Pin::new(&mut self.stream).poll_read(cx, buf);
        if buf.filled().len() > before {
            self.activity.touch();
        }
        poll
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
        if matches!(poll, Poll::Ready(Ok(n)) if n > 0) {
            self.activity.touch();
        }
        poll
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Counts a request as in flight until its response is produced.
struct InFlight(Arc<Activity>);

impl InFlight {
    fn start(activity: &Arc<Activity>) -> InFlight {
        activity.in_flight.fetch_add(1, Ordering::AcqRel);
        InFlight(activity.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.in_flight.fetch_sub(1, Ordering::AcqRel);
        self.0.touch();
    }
}

/// A connection ready to be served.
pub struct Connection {
    stream: Tracked,
    router: axum::Router,
    header_read_timeout: Duration,
    idle_timeout: Duration,
    stop: tokio::sync::watch::Receiver<bool>,
}

impl Connection {
    /// Wraps an accepted stream.
    pub fn new(
        stream: TcpStream,
        router: axum::Router,
        limits: &ServerLimits,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Connection {
        let activity = Arc::new(Activity {
            since: Instant::now(),
            last_io_ms: AtomicU64::new(0),
            in_flight: AtomicUsize::new(0),
        });
        Connection {
            stream: Tracked { stream, activity },
            router,
            header_read_timeout: limits.header_read_timeout,
            idle_timeout: limits.idle_timeout,
            stop,
        }
    }

    /// Serves requests until the connection closes, idles out, or shutdown closes it.
    pub async fn run(mut self) -> Outcome {
        let activity = self.stream.activity.clone();
        let router = self.router;
        let for_service = activity.clone();
        let service = hyper::service::service_fn(move |request: hyper::Request<_>| {
            let guard = InFlight::start(&for_service);
            let router = router.clone();
            async move {
                let response = router.oneshot(request.map(axum::body::Body::new)).await;
                drop(guard);
                response
            }
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(self.header_read_timeout)
            .max_buf_size(MAX_BUF_BYTES)
            .keep_alive(true);
        let connection = builder.serve_connection(TokioIo::new(self.stream), service);
        tokio::pin!(connection);
        let tick = (self.idle_timeout / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
        let mut draining = *self.stop.borrow();
        if draining {
            return Outcome::Shutdown;
        }
        loop {
            tokio::select! {
                result = connection.as_mut() => {
                    if let Err(e) = result {
                        tracing::debug!(error = %e, "connection ended with an error");
                    }
                    return Outcome::Closed;
                }
                _ = tokio::time::sleep(tick) => {
                    if !activity.busy() && activity.silent_for() >= self.idle_timeout {
                        return Outcome::Idle;
                    }
                }
                changed = self.stop.changed(), if !draining => {
                    draining = true;
                    if changed.is_err() || !activity.busy() {
                        return Outcome::Shutdown;
                    }
                    // Let the request in flight finish, then close.
                    connection.as_mut().graceful_shutdown();
                }
            }
        }
    }
}
