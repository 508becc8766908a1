//! Cluster mode in the server: a replica's [`gleaner_cluster::Link`] (NATS
//! JetStream: the jobs store, its queue and indexes, sealed records), with
//! what the server shares over it, each beside the capability it serves:
//!
//! - [`pacing`]: each upstream host's turns, for every replica's pacer;
//! - [`cooldowns`]: wall back-offs and proxy cool-downs, watched by all;
//! - [`state`]: the plugin cache and fetch sessions, sealed;
//! - [`rollout`]: plugin uploads carried to every replica.
//!
//! Off unless `GLEANER_NATS_URL` is set; the single binary is unchanged.
//! [`Cluster::share`] hooks the shared pieces into the server's services.

pub mod cooldowns;
pub mod pacing;
pub mod rollout;
pub mod state;

use std::ops::Deref;
use std::sync::Arc;
use std::time::Duration;

pub use gleaner_cluster::{
    index, is_connected, jobs, queue, records, resources, sends, settings, Link,
};

use crate::telemetry::metrics;

/// One replica in the cluster: its link, and the plugin roll-outs it takes
/// part in.
pub struct Cluster {
    /// The connection, streams and buckets.
    pub link: Arc<Link>,
    /// Plugin roll-outs.
    pub rollout: Arc<rollout::Rollout>,
}

impl Deref for Cluster {
    type Target = Link;

    fn deref(&self) -> &Link {
        &self.link
    }
}

impl Cluster {
    /// Connects to NATS and creates what is missing of the streams and
    /// buckets. Fails, with what to check, when NATS cannot be reached.
    pub async fn connect(config: &crate::config::Config) -> anyhow::Result<Arc<Cluster>> {
        let link = Link::connect(
            &config.cluster,
            Duration::from_secs(config.session_ttl_secs),
            config.token_secret.as_deref().unwrap_or_default(),
            metrics::cluster_connected,
        )
        .await?;
        let r = &link.resources;
        let rollout = rollout::Rollout::new(
            r.plugins.clone(),
            r.versions.clone(),
            r.replica_plugins.clone(),
            link.replica.clone(),
            link.seal.clone(),
        );
        Ok(Arc::new(Cluster { link, rollout }))
    }

    /// Hooks the cluster's shared state into the server-wide services.
    pub fn share(&self, services: &crate::capabilities::Services) {
        let r = &self.resources;
        let turns = pacing::SharedPacing::new(self.client.clone(), r.pacing.clone());
        services.http.pacer().share(turns);
        let cooldowns =
            cooldowns::SharedCooldownBucket::new(r.cooldowns.clone(), self.replica.clone());
        cooldowns.watch(services.http.clone());
        let backoff = Duration::from_secs(self.settings.wall_backoff_secs);
        services.http.share_cooldowns(cooldowns, backoff);
        let seal = self.seal.clone();
        services.cache.share(state::CacheBucket::new(
            self.client.clone(),
            r.cache.clone(),
            seal.clone(),
        ));
        services.sessions.share(state::SessionBucket::new(
            self.client.clone(),
            r.sessions.clone(),
            seal,
        ));
    }
}
