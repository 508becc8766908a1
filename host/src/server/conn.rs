//! One client connection: hyper's HTTP/1.1 state machine over an I/O wrapper
//! that reports to the connection's [`Activity`], and a watchdog that closes
//! the connection when one of its timers runs out, when the connection caps
//! pick it to make room, or at shutdown.
//!
//! The wrapper writes vectored, so hyper queues an answer's shared buffers
//! (the OpenAPI document is one, for every connection) instead of copying
//! them per connection; and it swaps hyper's own bodiless refusals for the
//! JSON error ([`super::refusal`]).

use std::io::IoSlice;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{ready, Context, Poll};
use std::time::Duration;

use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tower::ServiceExt;

use super::activity::{Activity, Expired, Timeouts};
use super::{Peer, ServerLimits};

/// Largest buffer hyper keeps per connection; request heads must fit in it.
const MAX_BUF_BYTES: usize = 64 * 1024;

/// How a connection ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// The client or hyper closed it.
    Closed,
    /// One of its timers ran out.
    Expired(Expired),
    /// The connection caps closed it to make room for a new one.
    Evicted,
    /// It had no request in flight when shutdown started.
    Shutdown,
}

/// A TCP stream that reports to its activity, and an answer that replaces
/// one of hyper's refusals, while it is being written.
struct Tracked {
    stream: TcpStream,
    activity: Arc<Activity>,
    swap: Option<(Vec<u8>, usize)>,
}

impl Tracked {
    /// Writes what is left of a replacement answer.
    fn drain_swap(&mut self, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        while let Some((bytes, at)) = &mut self.swap {
            if *at >= bytes.len() {
                self.swap = None;
                break;
            }
            let n = ready!(Pin::new(&mut self.stream).poll_write(cx, &bytes[*at..]))?;
            if n == 0 {
                return Poll::Ready(Err(std::io::ErrorKind::WriteZero.into()));
            }
            *at += n;
        }
        Poll::Ready(Ok(()))
    }

    fn note(&self, poll: &Poll<std::io::Result<usize>>) {
        match poll {
            Poll::Ready(Ok(n)) if *n > 0 => self.activity.wrote(),
            Poll::Pending => self.activity.write_blocked(),
            _ => {}
        }
    }
}

impl Drop for Tracked {
    fn drop(&mut self) {
        // An answer the client never read is dropped with the connection: a
        // reset frees the kernel's send buffer too, where a close would keep
        // it until the client read it all or the peer timed out.
        if self.activity.resets_on_close() {
            let _ = self.stream.set_zero_linger();
        }
    }
}

impl AsyncRead for Tracked {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        // While a request head is read, no more than MAX_BUF_BYTES of it reach
        // hyper, so a head over the limit is refused (431) whatever the size of
        // the reads it arrives in; hyper alone lets one large read through.
        let budget = self.activity.head_budget(MAX_BUF_BYTES);
        if budget == 0 || budget >= buf.remaining() {
            let before = buf.filled().len();
            let poll = Pin::new(&mut self.stream).poll_read(cx, buf);
            self.activity.read(buf.filled().len() - before);
            return poll;
        }
        let mut limited = buf.take(budget);
        let poll = Pin::new(&mut self.stream).poll_read(cx, &mut limited);
        let n = limited.filled().len();
        // SAFETY: the reader initialised the first `n` bytes of the unfilled part.
        unsafe { buf.assume_init(n) };
        buf.advance(n);
        self.activity.read(n);
        poll
    }
}

impl AsyncWrite for Tracked {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        ready!(self.drain_swap(cx))?;
        if let Some(answer) = super::refusal::replacement(buf) {
            self.swap = Some((answer, 0));
            return Poll::Ready(Ok(buf.len()));
        }
        let poll = Pin::new(&mut self.stream).poll_write(cx, buf);
        self.note(&poll);
        poll
    }

    fn poll_write_vectored(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[IoSlice<'_>],
    ) -> Poll<std::io::Result<usize>> {
        ready!(self.drain_swap(cx))?;
        let first = bufs.iter().find(|b| !b.is_empty());
        if let Some(answer) = first.and_then(|b| super::refusal::replacement(b)) {
            self.swap = Some((answer, 0));
            return Poll::Ready(Ok(bufs.iter().map(|b| b.len()).sum()));
        }
        let poll = Pin::new(&mut self.stream).poll_write_vectored(cx, bufs);
        self.note(&poll);
        poll
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        ready!(self.drain_swap(cx))?;
        Pin::new(&mut self.stream).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        ready!(self.drain_swap(cx))?;
        Pin::new(&mut self.stream).poll_shutdown(cx)
    }
}

/// Counts a request as in flight until its response is produced.
struct InFlight(Arc<Activity>);

impl InFlight {
    fn start(activity: &Arc<Activity>) -> InFlight {
        activity.request_started();
        InFlight(activity.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.request_finished();
    }
}

/// A connection ready to be served.
pub struct Connection {
    stream: Tracked,
    peer: SocketAddr,
    router: axum::Router,
    timeouts: Timeouts,
    stop: tokio::sync::watch::Receiver<bool>,
}

impl Connection {
    /// Wraps an accepted stream from `peer`, whose activity the caps already know.
    pub fn new(
        stream: TcpStream,
        peer: SocketAddr,
        activity: Arc<Activity>,
        router: axum::Router,
        limits: &ServerLimits,
        stop: tokio::sync::watch::Receiver<bool>,
    ) -> Connection {
        Connection {
            stream: Tracked {
                stream,
                activity,
                swap: None,
            },
            peer,
            router,
            timeouts: Timeouts {
                header: limits.header_read_timeout,
                idle: limits.idle_timeout,
                write_stall: limits.write_stall_timeout,
            },
            stop,
        }
    }

    /// Serves requests until the connection closes, a timer runs out, the caps
    /// evict it, or shutdown closes it.
    pub async fn run(mut self) -> Outcome {
        let activity = self.stream.activity.clone();
        let router = self.router;
        let for_service = activity.clone();
        let peer = Peer(self.peer);
        let service = hyper::service::service_fn(move |mut request: hyper::Request<_>| {
            let guard = InFlight::start(&for_service);
            request.extensions_mut().insert(peer);
            let router = router.clone();
            async move {
                let response = router.oneshot(request.map(axum::body::Body::new)).await;
                drop(guard);
                response
            }
        });
        let mut builder = hyper::server::conn::http1::Builder::new();
        // The header timer is the watchdog's, so that it and the idle timer
        // each keep their own length.
        builder
            .timer(TokioTimer::new())
            .header_read_timeout(None)
            .max_buf_size(MAX_BUF_BYTES)
            .keep_alive(true);
        let connection = builder.serve_connection(TokioIo::new(self.stream), service);
        tokio::pin!(connection);
        let t = self.timeouts;
        let shortest = t.header.min(t.idle).min(t.write_stall);
        let tick = (shortest / 4).clamp(Duration::from_millis(50), Duration::from_secs(1));
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
                    if let Some(expired) = activity.expired(&t) {
                        if expired == Expired::WriteStall {
                            activity.reset_on_close();
                        }
                        return Outcome::Expired(expired);
                    }
                }
                _ = activity.evict.notified() => return Outcome::Evicted,
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
