//! The HTTP/1.1 listener: accepts connections under the connection caps, serves
//! each with hyper under the header, idle, write-stall and body timeouts, and
//! drains them on shutdown within a deadline.
//!
//! axum's own `serve` has no read timeouts and waits forever for a dawdling
//! client at shutdown, so the accept loop lives here. Each connection is one
//! task; at shutdown, connections with no request in flight are closed at once,
//! the others get until the drain deadline, and whatever is left then is cut and
//! logged.

mod activity;
mod caps;
mod conn;
mod refusal;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use tokio::net::TcpListener;
use tokio::task::JoinSet;

pub use caps::ConnectionCaps;
use conn::Connection;

pub use crate::api::clients::Peer;

/// Connection limits and timeouts, from the configuration.
#[derive(Debug, Clone)]
pub struct ServerLimits {
    /// Time a client has to send a request's headers.
    pub header_read_timeout: Duration,
    /// Time a keep-alive connection may stay silent between requests.
    pub idle_timeout: Duration,
    /// Time an answer may wait on a client that reads nothing.
    pub write_stall_timeout: Duration,
    /// Connections open at once; more are closed on accept.
    pub max_connections: usize,
    /// Connections open at once from one client address.
    pub max_connections_per_client: usize,
    /// Time requests in flight get to finish after shutdown starts.
    pub drain_timeout: Duration,
}

impl ServerLimits {
    /// The limits the configuration sets.
    pub fn from_config(config: &crate::config::Config) -> ServerLimits {
        ServerLimits {
            header_read_timeout: Duration::from_millis(config.header_read_timeout_ms.max(1)),
            idle_timeout: Duration::from_millis(config.idle_timeout_ms.max(1)),
            write_stall_timeout: Duration::from_millis(config.write_stall_timeout_ms.max(1)),
            max_connections: config.max_connections.max(1),
            max_connections_per_client: config.max_connections_per_client.max(1),
            drain_timeout: Duration::from_millis(config.drain_timeout_ms),
        }
    }
}

/// Serves `router` on `listener` until `shutdown` resolves, then drains.
pub async fn serve(
    listener: TcpListener,
    router: axum::Router,
    limits: ServerLimits,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    let caps = Arc::new(ConnectionCaps::new(
        limits.max_connections,
        limits.max_connections_per_client,
    ));
    let (stop_tx, stop_rx) = tokio::sync::watch::channel(false);
    let mut connections = JoinSet::new();
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            _ = &mut shutdown => break,
            accepted = listener.accept() => accepted,
            Some(_) = connections.join_next(), if !connections.is_empty() => continue,
        };
        let (stream, peer) = match accepted {
            Ok(pair) => pair,
            Err(e) => {
                // Out of file descriptors and similar: back off instead of spinning.
                tracing::warn!(error = %e, "accept failed; retrying shortly");
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let activity = std::sync::Arc::new(activity::Activity::default());
        let Some(permit) = caps.admit(peer.ip(), activity.clone()) else {
            tracing::debug!(%peer, "connection refused: connection cap reached and every connection has a request in flight");
            continue;
        };
        let _ = stream.set_nodelay(true);
        let connection = Connection::new(
            stream,
            peer,
            activity,
            router.clone(),
            &limits,
            stop_rx.clone(),
        );
        connections.spawn(async move {
            let outcome = connection.run().await;
            drop(permit);
            (peer, outcome)
        });
    }
    drop(listener);
    let _ = stop_tx.send(true);
    drain(connections, limits.drain_timeout).await;
    Ok(())
}

/// Waits for the connections to finish until `deadline`, then cuts the rest.
async fn drain(mut connections: JoinSet<(SocketAddr, conn::Outcome)>, deadline: Duration) {
    let open = connections.len();
    tracing::info!(
        open,
        drain_ms = deadline.as_millis() as u64,
        "draining connections"
    );
    let finished = tokio::time::timeout(deadline, async {
        while connections.join_next().await.is_some() {}
    })
    .await;
    if finished.is_err() {
        let cut = connections.len();
        connections.abort_all();
        while connections.join_next().await.is_some() {}
        tracing::warn!(
            cut,
            "drain deadline reached: connections still busy were closed"
        );
    }
}
