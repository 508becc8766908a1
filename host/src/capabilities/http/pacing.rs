//! Politeness: how fast the server may ask one upstream host, across every
//! fetch and every plugin. A plugin's manifest declares its sites' pace
//! (`[limits] min_delay_ms`, `delay_jitter_ms`, `requests_per_minute`); an
//! operator overrides it per host (`[pacing."host"]`). Both rules come down to
//! a minimum gap between the starts of two requests to a host, so each host
//! keeps one reservation: the next moment a request may start. A request
//! whose turn would come after its call's deadline is not sent at all: the
//! fetch returns earlier, with a continuation, rather than late.
//!
//! In a cluster the reservations are shared ([`SharedTurns`]): one request per
//! gap to a host from all replicas together. While the shared ones cannot be
//! reached, each process keeps its own again.

use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant, SystemTime};

use async_trait::async_trait;
use serde::Deserialize;

/// The pace of one host.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Pace {
    /// Least time between the starts of two requests, in ms.
    pub min_delay_ms: u64,
    /// A random extra delay of up to this many ms on top of `min_delay_ms`.
    pub delay_jitter_ms: u64,
    /// Most requests a minute (0: no limit).
    pub requests_per_minute: u32,
}

impl Pace {
    /// Whether this pace asks for no waiting at all.
    pub fn is_unpaced(&self) -> bool {
        *self == Pace::default()
    }

    /// The gap before the next request: the larger of the minimum delay (with
    /// its jitter drawn now) and the rate's interval.
    fn gap(&self) -> Duration {
        let jitter = if self.delay_jitter_ms == 0 {
            0
        } else {
            fastrand::u64(0..=self.delay_jitter_ms)
        };
        let delay = Duration::from_millis(self.min_delay_ms + jitter);
        let rate = match self.requests_per_minute {
            0 => Duration::ZERO,
            n => Duration::from_secs(60) / n,
        };
        delay.max(rate)
    }
}

/// A request that may not start before its call's deadline.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TooLate {
    /// How long it would have had to wait.
    pub wait: Duration,
}

/// Reservations kept outside this process and shared with others (a
/// cluster's key-value bucket, changed by compare-and-set).
#[async_trait]
pub trait SharedTurns: Send + Sync {
    /// Whether they can be reached now; when not, the local ones are used.
    fn available(&self) -> bool;
    /// Takes `host`'s next turn, `gap` after the one before it: the moment
    /// (wall clock) it may start, or [`TooLate`] when that is at or after
    /// `deadline`. A lost race reads again and retries; it never gives a
    /// turn early. `Err` when the shared state failed midway.
    async fn take(
        &self,
        host: &str,
        gap: Duration,
        deadline: SystemTime,
    ) -> Result<Result<SystemTime, TooLate>, String>;
}

/// The server-wide reservations, one per upstream host.
#[derive(Default)]
pub struct Pacer {
    /// Operator overrides by host (lower case).
    overrides: BTreeMap<String, Pace>,
    next_start: Mutex<HashMap<String, Instant>>,
    /// The cluster's reservations, once the replica has joined one.
    shared: OnceLock<Arc<dyn SharedTurns>>,
}

impl std::fmt::Debug for Pacer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pacer")
            .field("overrides", &self.overrides)
            .field("shared", &self.shared.get().is_some())
            .finish()
    }
}

impl Pacer {
    /// A pacer with the operator's per-host overrides.
    pub fn new(overrides: BTreeMap<String, Pace>) -> Pacer {
        let overrides = overrides
            .into_iter()
            .map(|(host, pace)| (host.to_ascii_lowercase(), pace))
            .collect();
        Pacer {
            overrides,
            next_start: Mutex::new(HashMap::new()),
            shared: OnceLock::new(),
        }
    }

    /// Takes turns from `shared` from now on (a cluster replica's).
    pub fn share(&self, shared: Arc<dyn SharedTurns>) {
        let _ = self.shared.set(shared);
    }

    /// The pace that applies to `host`: the operator's, else the plugin's.
    pub fn pace_for(&self, host: &str, declared: Pace) -> Pace {
        self.overrides
            .get(&host.to_ascii_lowercase())
            .copied()
            .unwrap_or(declared)
    }

    /// Waits for `host`'s turn and takes it; refuses, without waiting, when the
    /// turn would come after `deadline`.
    pub async fn wait_turn(
        &self,
        host: &str,
        pace: Pace,
        deadline: Instant,
    ) -> Result<(), TooLate> {
        if pace.is_unpaced() {
            return Ok(());
        }
        if let Some(shared) = self.shared.get().filter(|s| s.available()) {
            let now = Instant::now();
            let until = SystemTime::now() + deadline.saturating_duration_since(now);
            match shared.take(host, pace.gap(), until).await {
                Ok(Ok(start)) => {
                    let wait = start.duration_since(SystemTime::now()).unwrap_or_default();
                    tokio::time::sleep(wait).await;
                    return Ok(());
                }
                Ok(Err(late)) => return Err(late),
                Err(e) => {
                    tracing::warn!(%host, error = %e, "the cluster's pacing failed; this replica paces alone until it returns");
                }
            }
        }
        let start = {
            let mut next = self
                .next_start
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            let now = Instant::now();
            let key = host.to_ascii_lowercase();
            let start = next.get(&key).copied().unwrap_or(now).max(now);
            if start >= deadline {
                return Err(TooLate { wait: start - now });
            }
            next.insert(key, start + pace.gap());
            start
        };
        tokio::time::sleep_until(start.into()).await;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_gap_is_the_larger_rule() {
        let pace = Pace {
            min_delay_ms: 300,
            delay_jitter_ms: 400,
            requests_per_minute: 0,
        };
        for _ in 0..50 {
            let gap = pace.gap();
            assert!(
                gap >= Duration::from_millis(300) && gap <= Duration::from_millis(700),
                "{gap:?}"
            );
        }
        let rate = Pace {
            min_delay_ms: 10,
            delay_jitter_ms: 0,
            requests_per_minute: 30,
        };
        assert_eq!(rate.gap(), Duration::from_secs(2));
    }

    #[tokio::test]
    async fn turns_are_spaced_and_never_late() {
        let pacer = Pacer::new(BTreeMap::from([(
            "Slow.Example".to_owned(),
            Pace {
                min_delay_ms: 100,
                ..Pace::default()
            },
        )]));
        let pace = pacer.pace_for("slow.example", Pace::default());
        assert_eq!(pace.min_delay_ms, 100, "the operator's pace wins");
        let deadline = Instant::now() + Duration::from_secs(5);
        let started = Instant::now();
        for _ in 0..3 {
            pacer
                .wait_turn("slow.example", pace, deadline)
                .await
                .unwrap();
        }
        assert!(
            started.elapsed() >= Duration::from_millis(200),
            "three turns, two gaps"
        );
        let soon = Instant::now() + Duration::from_millis(10);
        let late = pacer
            .wait_turn("slow.example", pace, soon)
            .await
            .unwrap_err();
        assert!(late.wait > Duration::from_millis(10));
        assert!(
            pacer
                .wait_turn("other.example", Pace::default(), soon)
                .await
                .is_ok(),
            "an unpaced host never waits"
        );
    }
}
