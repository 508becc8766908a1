//! Cool-downs a cluster shares: a host that answered with a bot wall is left
//! alone for a while by every replica, and a proxy a host blocked is left out
//! for that host by every replica. A replica announces what it met
//! ([`SharedCooldowns`]); the cluster hears every replica's announcements and
//! applies them here ([`HttpService::apply_cooldown`](super::HttpService::apply_cooldown)).
//! In one process (no cluster) a wall is answered as before, with no back-off.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::telemetry::metrics;
use gleaner_jobs::clock::now_ms;

/// One cool-down, as replicas tell each other.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Cooldown {
    /// `host` answered with `wall`: no request goes to it until `until_ms`.
    Wall {
        /// The upstream host, lower case.
        host: String,
        /// The wall's code (`cloudflare`, `login_wall` …).
        wall: String,
        /// Wall-clock ms the back-off ends.
        until_ms: i64,
        /// The replica that met it.
        replica: String,
    },
    /// `host` blocked the proxy `proxy` (a digest of its URL, never the URL:
    /// it holds credentials) until `until_ms`.
    Proxy {
        /// The proxy's id ([`super::proxies::proxy_id`]).
        proxy: String,
        /// The upstream host, lower case.
        host: String,
        /// Wall-clock ms the cool-down ends.
        until_ms: i64,
    },
}

/// Where a replica announces its cool-downs to the others.
pub trait SharedCooldowns: Send + Sync {
    /// Tells every replica (this one included), without waiting.
    fn announce(&self, cooldown: Cooldown);
    /// This replica's name, for messages.
    fn replica(&self) -> &str;
}

/// Hosts backed off after a wall, and the cluster link that shares them.
#[derive(Default)]
pub struct Backoffs {
    hosts: Mutex<HashMap<String, (String, i64, String)>>,
    shared: OnceLock<(Arc<dyn SharedCooldowns>, Duration)>,
}

impl Backoffs {
    /// Backs hosts off for `length` after a wall, and shares it, from now on.
    pub fn share(&self, shared: Arc<dyn SharedCooldowns>, length: Duration) {
        let _ = self.shared.set((shared, length));
    }

    /// Why requests to `host` are held back now, if they are.
    pub fn refusal(&self, host: &str) -> Option<String> {
        self.shared.get()?;
        let hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let (wall, until, replica) = hosts.get(host)?;
        let left = *until - now_ms();
        (left > 0).then(|| {
            format!(
                "{host} answered with a {wall} wall (seen by replica {replica}); the cluster leaves it \
                 alone for {} more s (GLEANER_WALL_BACKOFF_SECS), then requests resume",
                (left + 999) / 1000
            )
        })
    }

    /// Records a wall met here, and announces it.
    pub fn wall_seen(&self, host: &str, wall: &str) {
        let Some((shared, length)) = self.shared.get() else {
            return;
        };
        let cooldown = Cooldown::Wall {
            host: host.to_ascii_lowercase(),
            wall: wall.to_owned(),
            until_ms: now_ms() + length.as_millis() as i64,
            replica: shared.replica().to_owned(),
        };
        self.apply(&cooldown);
        shared.announce(cooldown);
    }

    /// Applies a wall's back-off heard from the cluster (or met here).
    pub fn apply(&self, cooldown: &Cooldown) {
        let Cooldown::Wall {
            host,
            wall,
            until_ms,
            replica,
        } = cooldown
        else {
            return;
        };
        if *until_ms <= now_ms() {
            return;
        }
        let mut hosts = self.hosts.lock().unwrap_or_else(PoisonError::into_inner);
        let known = hosts
            .get(host)
            .is_some_and(|(_, until, _)| until >= until_ms);
        if !known {
            hosts.insert(host.clone(), (wall.clone(), *until_ms, replica.clone()));
            drop(hosts);
            tracing::info!(%host, %wall, %replica, "backing off a host after a wall");
            metrics::upstream_backoff(host, wall);
        }
    }
}
