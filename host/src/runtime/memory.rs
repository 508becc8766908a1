//! Memory limits of plugin instances: each instance is capped by its plugin's
//! `limits.memory_mib`, and all live instances together by the server-wide
//! [`MemoryPool`]. A call whose growth would pass the pool's cap waits briefly
//! for other calls to give memory back, then fails as an overload (503), never
//! as a plugin fault.

use std::sync::Arc;
use std::time::Duration;

use tokio::sync::Notify;

/// How long a growth waits for the pool before the call is failed.
const POOL_WAIT: Duration = Duration::from_millis(500);

/// Bytes held by all live plugin instances, under a cap.
#[derive(Debug)]
pub struct MemoryPool {
    cap: usize,
    used: std::sync::Mutex<usize>,
    freed: Notify,
}

impl MemoryPool {
    /// A pool of `cap` bytes.
    pub fn new(cap: usize) -> Arc<MemoryPool> {
        Arc::new(MemoryPool {
            cap,
            used: std::sync::Mutex::new(0),
            freed: Notify::new(),
        })
    }

    /// Bytes held now.
    pub fn used(&self) -> usize {
        *self.used.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn try_take(&self, bytes: usize) -> bool {
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        if *used + bytes > self.cap {
            return false;
        }
        *used += bytes;
        true
    }

    async fn take(&self, bytes: usize) -> bool {
        let wait = async {
            loop {
                let freed = self.freed.notified();
                if self.try_take(bytes) {
                    return;
                }
                freed.await;
            }
        };
        tokio::time::timeout(POOL_WAIT, wait).await.is_ok()
    }

    fn give_back(&self, bytes: usize) {
        if bytes == 0 {
            return;
        }
        let mut used = self.used.lock().unwrap_or_else(|p| p.into_inner());
        *used = used.saturating_sub(bytes);
        drop(used);
        self.freed.notify_waiters();
    }
}

/// The plugin's own memory cap was reached: a plugin fault.
#[derive(Debug, thiserror::Error)]
#[error("it exceeded its memory cap of {cap_mib} MiB (limits.memory_mib in its manifest)")]
pub struct MemoryCapExceeded {
    /// The cap in MiB.
    pub cap_mib: usize,
}

/// The server-wide pool stayed full: an overload, retried later by the client.
#[derive(Debug, thiserror::Error)]
#[error("plugin instances already hold the server's memory limit of {cap_mib} MiB (max_total_memory_mib)")]
pub struct MemoryPoolExhausted {
    /// The pool's cap in MiB.
    pub cap_mib: usize,
}

/// The memory limiter of one store: its plugin's cap plus its share of the pool.
pub struct MemoryBudget {
    pool: Arc<MemoryPool>,
    cap: usize,
    held: usize,
}

impl MemoryBudget {
    /// A budget of at most `cap` bytes drawn from `pool`.
    pub fn new(pool: Arc<MemoryPool>, cap: usize) -> MemoryBudget {
        MemoryBudget { pool, cap, held: 0 }
    }
}

impl Drop for MemoryBudget {
    fn drop(&mut self) {
        self.pool.give_back(self.held);
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
        if !self.pool.take(more).await {
            return Err(wasmtime::Error::new(MemoryPoolExhausted {
                cap_mib: self.pool.cap >> 20,
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

    #[tokio::test]
    async fn pool_caps_all_budgets_and_gets_memory_back() {
        let pool = MemoryPool::new(10);
        let mut a = MemoryBudget::new(pool.clone(), 8);
        assert!(a.memory_growing(0, 6, None).await.unwrap());
        let err = a.memory_growing(6, 9, None).await.unwrap_err();
        assert!(err.downcast_ref::<MemoryCapExceeded>().is_some());
        let mut b = MemoryBudget::new(pool.clone(), 8);
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
