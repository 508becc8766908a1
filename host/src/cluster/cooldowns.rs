//! Cool-downs through a watched bucket: a replica puts each wall back-off and
//! proxy cool-down it decides under its own key (`wall.<host>`,
//! `proxy.<proxy id>.<host>`); every replica watches the bucket, from its
//! current entries on, and applies what it hears. A replica that starts
//! later learns the cool-downs still running.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::kv;
use futures_util::StreamExt;

use super::records::safe_key;
use crate::capabilities::http::cooldowns::{Cooldown, SharedCooldowns};
use crate::capabilities::http::HttpService;
use gleaner_jobs::clock::now_ms;

/// The cool-downs bucket, as one replica's announcer.
pub struct SharedCooldownBucket {
    bucket: kv::Store,
    replica: String,
}

/// A cool-down's key in the bucket.
fn key_of(cooldown: &Cooldown) -> String {
    match cooldown {
        Cooldown::Wall { host, .. } => format!("wall.{}", safe_key(host)),
        Cooldown::Proxy { proxy, host, .. } => format!("proxy.{proxy}.{}", safe_key(host)),
    }
}

impl SharedCooldownBucket {
    /// Announces into `bucket` as `replica`.
    pub fn new(bucket: kv::Store, replica: String) -> Arc<SharedCooldownBucket> {
        Arc::new(SharedCooldownBucket { bucket, replica })
    }

    /// Applies every cool-down in the bucket to `http`, now and as they come,
    /// for as long as the process runs (watching again after a lost link).
    pub fn watch(self: &Arc<Self>, http: Arc<HttpService>) {
        let bucket = self.bucket.clone();
        tokio::spawn(async move {
            loop {
                match bucket.watch_with_history(">").await {
                    Ok(mut entries) => {
                        while let Some(entry) = entries.next().await {
                            let Ok(entry) = entry else { break };
                            if entry.operation != kv::Operation::Put {
                                continue;
                            }
                            match serde_json::from_slice::<Cooldown>(&entry.value) {
                                Ok(cooldown) => http.apply_cooldown(&cooldown),
                                Err(e) => {
                                    tracing::warn!(key = %entry.key, error = %e, "a cool-down in the cluster is not one this replica reads")
                                }
                            }
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot watch the cluster's cool-downs; retrying")
                    }
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }
}

impl SharedCooldowns for SharedCooldownBucket {
    fn announce(&self, cooldown: Cooldown) {
        let bucket = self.bucket.clone();
        tokio::spawn(async move {
            let until = match &cooldown {
                Cooldown::Wall { until_ms, .. } | Cooldown::Proxy { until_ms, .. } => *until_ms,
            };
            if until <= now_ms() {
                return;
            }
            let key = key_of(&cooldown);
            if let Err(e) = super::records::put(&bucket, &key, &cooldown).await {
                tracing::warn!(%key, error = %e, "cannot share a cool-down; the other replicas will meet it themselves");
            }
        });
    }

    fn replica(&self) -> &str {
        &self.replica
    }
}
