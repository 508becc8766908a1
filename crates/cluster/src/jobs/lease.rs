//! A worker's hold on a job message of the queue: progress acks while the
//! job runs, so the message goes to no other worker, and the ack once the
//! job's end is recorded.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::message::{AckKind, Acker};
use async_trait::async_trait;

use gleaner_jobs::store::Lease;

/// A worker's hold on a job message: progress acks on a timer, and the ack
/// when the job's end is recorded.
pub(super) struct QueueLease {
    acker: Arc<Acker>,
    heartbeat: tokio::task::JoinHandle<()>,
}

impl QueueLease {
    pub(super) fn new(acker: Acker, ack_wait: Duration) -> QueueLease {
        let acker = Arc::new(acker);
        let beat = acker.clone();
        let heartbeat = tokio::spawn(async move {
            let every = (ack_wait / 3).max(Duration::from_millis(200));
            loop {
                tokio::time::sleep(every).await;
                if let Err(e) = beat.ack_with(AckKind::Progress).await {
                    tracing::warn!(error = %e, "cannot tell NATS a job is still running; another replica may take it after the ack wait");
                }
            }
        });
        QueueLease { acker, heartbeat }
    }
}

impl Drop for QueueLease {
    fn drop(&mut self) {
        self.heartbeat.abort();
    }
}

#[async_trait]
impl Lease for QueueLease {
    async fn keep(&self) {
        let _ = self.acker.ack_with(AckKind::Progress).await;
    }

    async fn done(&self) {
        self.heartbeat.abort();
        if let Err(e) = self.acker.ack().await {
            tracing::warn!(error = %e, "cannot ack a finished job; a worker will find it finished and drop it");
        }
    }
}
