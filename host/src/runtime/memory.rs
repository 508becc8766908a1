//! Memory limits of plugin instances: each instance is capped by its plugin's
//! `limits.memory_mib`, all live instances together by the server-wide
//! [`MemoryPool`], and the instances of any one plugin by its share of the
//! pool (`max_plugin_memory_share`, half by default), so a burst of calls to
//! one memory-hungry plugin leaves the others room. A call whose growth would
//! pass a cap waits briefly for other calls to give memory back, then fails as
//! an overload (503), never as a plugin fault.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

use crate::telemetry::metrics::PluginMeters;

/// How long a growth waits for the pool before the call is failed.
const POOL_WAIT: Duration = Duration::from_millis(500);

/// Bytes held by all live plugin instances, under a cap, and by each plugin's
/// instances, under its share. Both are atomics a growth adds to and a store
/// gives back to, with no lock: every call takes and gives back memory, and
/// calls on different cores would otherwise queue on one lock.
#[derive(Debug)]
pub struct MemoryPool {
    cap: usize,
    share: usize,
    all: AtomicUsize,
    /// What each plugin's instances hold, by plugin name: looked up once per
    /// load ([`MemoryPool::held_by`]), so a call touches only its plugin's.
    plugins: std::sync::Mutex<HashMap<Arc<str>, Arc<AtomicUsize>>>,
    freed: Notify,
    /// Growths waiting for memory to be given back: only then does giving
    /// back wake anyone (waking takes the notifier's lock on every call).
    waiting: AtomicUsize,
}

impl MemoryPool {
    /// A pool of `cap` bytes, of which one plugin may hold `share_percent` (1 to 100).
    pub fn new(cap: usize, share_percent: usize) -> Arc<MemoryPool> {
        let share = (cap as u128 * share_percent.clamp(1, 100) as u128 / 100) as usize;
        Arc::new(MemoryPool {
            cap,
            share: share.max(1),
            all: AtomicUsize::new(0),
            plugins: std::sync::Mutex::default(),
            freed: Notify::new(),
            waiting: AtomicUsize::new(0),
        })
    }

    /// The pool's cap in bytes.
    pub fn cap(&self) -> usize {
        self.cap
    }

    /// Bytes held now.
    pub fn used(&self) -> usize {
        self.all.load(Ordering::SeqCst)
    }

    /// The count of what the instances of `plugin` hold (one per plugin name,
    /// shared by its versions).
    pub fn held_by(&self, plugin: &str) -> Arc<AtomicUsize> {
        let mut plugins = self.plugins.lock().unwrap_or_else(|p| p.into_inner());
        plugins.entry(plugin.into()).or_default().clone()
    }

    fn try_take(&self, held: &AtomicUsize, bytes: usize) -> Result<(), Full> {
        // The pool's cap is named first when both would be passed.
        if self.used().saturating_add(bytes) > self.cap {
            return Err(Full::Pool);
        }
        if held.load(Ordering::SeqCst).saturating_add(bytes) > self.share {
            return Err(Full::Share);
        }
        add_within(&self.all, bytes, self.cap).map_err(|()| Full::Pool)?;
        if add_within(held, bytes, self.share).is_err() {
            // Another call of the plugin took the rest of its share since the
            // check above. Nobody is woken for this short-lived hold: a
            // growth woken by it would find what it found before.
            subtract(&self.all, bytes);
            return Err(Full::Share);
        }
        Ok(())
    }

    async fn take(&self, held: &AtomicUsize, bytes: usize) -> Result<(), Full> {
        if self.try_take(held, bytes).is_ok() {
            return Ok(());
        }
        // Counted before trying again, so a give-back either happens before
        // that try (which then sees the memory) or sees the count and wakes.
        self.waiting.fetch_add(1, Ordering::SeqCst);
        let _waiting = Waiting(&self.waiting);
        let mut last = Full::Pool;
        let wait = async {
            loop {
                let freed = self.freed.notified();
                match self.try_take(held, bytes) {
                    Ok(()) => return,
                    Err(full) => last = full,
                }
                freed.await;
            }
        };
        match tokio::time::timeout(POOL_WAIT, wait).await {
            Ok(()) => Ok(()),
            Err(_) => Err(last),
        }
    }

    fn give_back(&self, held: &AtomicUsize, bytes: usize) {
        if bytes == 0 {
            return;
        }
        subtract(held, bytes);
        subtract(&self.all, bytes);
        self.wake();
    }

    fn wake(&self) {
        if self.waiting.load(Ordering::SeqCst) > 0 {
            self.freed.notify_waiters();
        }
    }
}

// The counts are read and written in sequentially consistent order, like
// `waiting`: a growth that counts itself as waiting and then finds the pool
// full, and a give-back that lowers a count and then finds nobody waiting,
// cannot both happen, so no give-back is missed by a waiting growth.

/// Adds `bytes` to `count` unless that passes `cap`.
fn add_within(count: &AtomicUsize, bytes: usize, cap: usize) -> Result<(), ()> {
    count
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
            now.checked_add(bytes).filter(|after| *after <= cap)
        })
        .map(drop)
        .map_err(drop)
}

/// Takes `bytes` from `count`, stopping at 0.
fn subtract(count: &AtomicUsize, bytes: usize) {
    let _ = count.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |now| {
        Some(now.saturating_sub(bytes))
    });
}

/// Counts one growth as waiting for memory while it lives.
struct Waiting<'a>(&'a AtomicUsize);

impl Drop for Waiting<'_> {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Which cap a growth ran into.
#[derive(Debug, Clone, Copy)]
enum Full {
    Pool,
    Share,
}

/// The plugin's own memory cap was reached: a plugin fault.
#[derive(Debug, thiserror::Error)]
#[error("it exceeded its memory cap of {cap_mib} MiB (limits.memory_mib in its manifest)")]
pub struct MemoryCapExceeded {
    /// The cap in MiB.
    pub cap_mib: usize,
}

/// The server-wide pool, or the plugin's share of it, stayed full: an
/// overload, retried later by the client.
#[derive(Debug, thiserror::Error)]
pub enum MemoryPoolExhausted {
    /// All plugins together hold the pool.
    #[error("plugin instances already hold the server's memory limit of {cap_mib} MiB (max_total_memory_mib)")]
    Pool {
        /// The pool's cap in MiB.
        cap_mib: usize,
    },
    /// This plugin's instances hold its share.
    #[error("this plugin's instances already hold their share of {share_mib} MiB of the server's plugin memory (max_plugin_memory_share)")]
    Share {
        /// The share in MiB.
        share_mib: usize,
    },
}

/// The memory limiter of one store: its plugin's cap plus its share of the pool.
pub struct MemoryBudget {
    pool: Arc<MemoryPool>,
    /// The plugin's memory histogram.
    meters: Arc<PluginMeters>,
    /// What all the plugin's instances hold ([`MemoryPool::held_by`]).
    plugin_held: Arc<AtomicUsize>,
    cap: usize,
    held: usize,
}

impl MemoryBudget {
    /// A budget of at most `cap` bytes drawn from `pool` for an instance of
    /// the plugin `meters` measures, whose instances hold `plugin_held`.
    pub fn new(
        pool: Arc<MemoryPool>,
        meters: Arc<PluginMeters>,
        plugin_held: Arc<AtomicUsize>,
        cap: usize,
    ) -> MemoryBudget {
        MemoryBudget {
            pool,
            meters,
            plugin_held,
            cap,
            held: 0,
        }
    }

    /// Bytes this store's memories hold: their initial sizes and every growth.
    pub fn held(&self) -> usize {
        self.held
    }
}

impl Drop for MemoryBudget {
    fn drop(&mut self) {
        // A store ends with its call: what it held is the call's memory.
        self.meters.memory(self.held);
        self.pool.give_back(&self.plugin_held, self.held);
    }
}

/// Table elements one instance may have.
const MAX_TABLE_ELEMENTS: usize = 100_000;

#[async_trait::async_trait]
impl wasmtime::ResourceLimiterAsync for MemoryBudget {
    async fn memory_growing(
        &mut self,
        current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        if desired > self.cap {
            return Err(wasmtime::Error::new(MemoryCapExceeded {
                cap_mib: self.cap >> 20,
            }));
        }
        let more = desired.saturating_sub(current);
        if let Err(full) = self.pool.take(&self.plugin_held, more).await {
            return Err(wasmtime::Error::new(match full {
                Full::Pool => MemoryPoolExhausted::Pool {
                    cap_mib: self.pool.cap >> 20,
                },
                Full::Share => MemoryPoolExhausted::Share {
                    share_mib: self.pool.share >> 20,
                },
            }));
        }
        self.held += more;
        Ok(true)
    }

    async fn table_growing(
        &mut self,
        _current: usize,
        desired: usize,
        _maximum: Option<usize>,
    ) -> wasmtime::Result<bool> {
        Ok(desired <= MAX_TABLE_ELEMENTS)
    }

    fn instances(&self) -> usize {
        64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use wasmtime::ResourceLimiterAsync;

    fn budget(pool: &Arc<MemoryPool>, plugin: &str, cap: usize) -> MemoryBudget {
        let meters = Arc::new(PluginMeters::new(plugin));
        MemoryBudget::new(pool.clone(), meters, pool.held_by(plugin), cap)
    }

    #[tokio::test]
    async fn one_plugin_holds_at_most_its_share() {
        let pool = MemoryPool::new(10, 50);
        let mut a = budget(&pool, "highlight", 8);
        assert!(a.memory_growing(0, 5, None).await.unwrap());
        let mut b = budget(&pool, "highlight", 8);
        let err = b.memory_growing(0, 1, None).await.unwrap_err();
        assert!(matches!(
            err.downcast_ref::<MemoryPoolExhausted>(),
            Some(MemoryPoolExhausted::Share { .. })
        ));
        let mut c = budget(&pool, "chunk", 8);
        assert!(
            c.memory_growing(0, 5, None).await.unwrap(),
            "another plugin still has room"
        );
    }

    #[test]
    fn calls_on_many_threads_never_hold_more_than_the_pool() {
        let pool = MemoryPool::new(1000, 60);
        let peak = Arc::new(AtomicUsize::new(0));
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(4)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async {
            let tasks: Vec<_> = (0..8)
                .map(|i| {
                    let (pool, peak) = (pool.clone(), peak.clone());
                    tokio::spawn(async move {
                        let plugin = if i % 2 == 0 { "even" } else { "odd" };
                        for _ in 0..2000 {
                            let mut b = budget(&pool, plugin, 1000);
                            if b.memory_growing(0, 100, None).await.is_ok() {
                                peak.fetch_max(pool.used(), Ordering::Relaxed);
                                assert!(pool.held_by(plugin).load(Ordering::Relaxed) <= 600);
                            }
                            tokio::task::yield_now().await;
                        }
                    })
                })
                .collect();
            for task in tasks {
                task.await.unwrap();
            }
        });
        assert!(peak.load(Ordering::Relaxed) <= 1000);
        assert_eq!(pool.used(), 0, "every budget gave its memory back");
        assert_eq!(pool.held_by("even").load(Ordering::Relaxed), 0);
    }

    #[tokio::test]
    async fn pool_caps_all_budgets_and_gets_memory_back() {
        let pool = MemoryPool::new(10, 100);
        let mut a = budget(&pool, "a", 8);
        assert!(a.memory_growing(0, 6, None).await.unwrap());
        let err = a.memory_growing(6, 9, None).await.unwrap_err();
        assert!(err.downcast_ref::<MemoryCapExceeded>().is_some());
        let mut b = budget(&pool, "b", 8);
        let err = b.memory_growing(0, 5, None).await.unwrap_err();
        assert!(err.downcast_ref::<MemoryPoolExhausted>().is_some());
        assert_eq!(pool.used(), 6);
        // A waiting growth goes through when another budget gives memory back.
        let waiter = tokio::spawn(async move {
            let ok = b.memory_growing(0, 5, None).await.is_ok();
            (ok, b)
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        drop(a);
        let (ok, b) = waiter.await.unwrap();
        assert!(ok);
        assert_eq!(pool.used(), 5);
        drop(b);
        assert_eq!(pool.used(), 0);
    }
}
