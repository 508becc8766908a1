//! Cluster-wide pacing: each upstream host's next turn is one key in the
//! pacing bucket, holding the wall-clock millisecond the next request may
//! start. A replica takes a turn by compare-and-set of that key to the turn
//! after; when another replica changed it first, it reads again and retries,
//! so two replicas never take the same turn and none starts early.
//!
//! Turns across a cluster are [`SLACK`] further apart than the pace's gap: a
//! request leaves a little after its turn (the timer, the scheduler), and the
//! one before it may have left later still, so without it two requests one
//! gap apart could reach the site a millisecond closer than the pace allows.

use std::sync::Arc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use async_nats::jetstream::kv;
use async_trait::async_trait;

use super::records;
use crate::capabilities::http::pacing::{SharedTurns, TooLate};
use gleaner_jobs::clock::millis;

/// What turns across a cluster add to the pace's gap.
pub const SLACK: Duration = Duration::from_millis(10);

/// The pacing bucket, as the shared turns of every replica's pacer.
pub struct SharedPacing {
    client: async_nats::Client,
    bucket: kv::Store,
}

impl SharedPacing {
    /// Turns in `bucket`, reached through `client`.
    pub fn new(client: async_nats::Client, bucket: kv::Store) -> Arc<SharedPacing> {
        Arc::new(SharedPacing { client, bucket })
    }
}

#[async_trait]
impl SharedTurns for SharedPacing {
    fn available(&self) -> bool {
        super::is_connected(&self.client)
    }

    async fn take(
        &self,
        host: &str,
        gap: Duration,
        deadline: SystemTime,
    ) -> Result<Result<SystemTime, TooLate>, String> {
        let key = records::safe_key(host);
        let deadline = millis(deadline);
        let gap = (gap + SLACK).as_millis() as i64;
        loop {
            let current = records::get::<i64>(&self.bucket, &key)
                .await
                .map_err(|e| e.to_string())?;
            // Rounded up, so a turn never starts before the moment it names.
            let now = millis(SystemTime::now()) + 1;
            let start = current.map_or(now, |(next, _)| next.max(now));
            if start >= deadline {
                let wait = Duration::from_millis((start - now) as u64);
                return Ok(Err(TooLate { wait }));
            }
            let next = start + gap;
            let won = match current {
                None => {
                    records::Records::plain(&self.bucket)
                        .create(&key, &next)
                        .await
                }
                Some((_, revision)) => {
                    records::Records::plain(&self.bucket)
                        .swap(&key, &next, revision)
                        .await
                }
            }
            .map_err(|e| e.to_string())?;
            if won {
                return Ok(Ok(UNIX_EPOCH + Duration::from_millis(start as u64)));
            }
        }
    }
}
