//! Bulkheads: a request takes one slot of the server-wide pool and one of its
//! plugin's own pool, so a plugin stuck on a slow upstream fills only its own
//! share and every other route keeps answering.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;
use crate::telemetry::metrics::{self, InFlight, Pool};

/// The server-wide pool and one pool per plugin.
#[derive(Debug)]
pub struct Bulkheads {
    global: Arc<Semaphore>,
    per_plugin: usize,
    plugins: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// Slots held by one request; given back when dropped.
#[derive(Debug)]
pub struct Slots {
    _in_flight: InFlight,
    _plugin: OwnedSemaphorePermit,
    _global: OwnedSemaphorePermit,
}

impl Bulkheads {
    /// `global` requests at once in all, `per_plugin` for any one plugin.
    pub fn new(global: usize, per_plugin: usize) -> Bulkheads {
        Bulkheads {
            global: Arc::new(Semaphore::new(global.max(1))),
            per_plugin: per_plugin.max(1),
            plugins: Mutex::default(),
        }
    }

    /// Takes a slot for a request to `plugin`, or answers 503 at once.
    pub fn enter(&self, plugin: &str) -> Result<Slots, ApiError> {
        let pool = {
            let mut plugins = self.plugins.lock().unwrap_or_else(|p| p.into_inner());
            plugins
                .entry(plugin.to_owned())
                .or_insert_with(|| Arc::new(Semaphore::new(self.per_plugin)))
                .clone()
        };
        let plugin_slot = pool.try_acquire_owned().map_err(|_| {
            metrics::refused(plugin, Pool::Plugin);
            ApiError::Overloaded(format!(
                "plugin {plugin} is at its limit of {} requests at once (max_concurrent_per_plugin); retry shortly",
                self.per_plugin
            ))
        })?;
        let global_slot = self.global.clone().try_acquire_owned().map_err(|_| {
            metrics::refused(plugin, Pool::Server);
            ApiError::Overloaded(
                "the server is at its concurrent request limit (max_concurrent_requests); retry shortly".into(),
            )
        })?;
        Ok(Slots {
            _in_flight: InFlight::start(plugin),
            _plugin: plugin_slot,
            _global: global_slot,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_plugin_leaves_the_others_room() {
        let b = Bulkheads::new(3, 2);
        let _a1 = b.enter("slow").unwrap();
        let _a2 = b.enter("slow").unwrap();
        assert!(matches!(b.enter("slow"), Err(ApiError::Overloaded(_))));
        let c1 = b.enter("fast").unwrap();
        assert!(b.enter("fast").is_err(), "the global pool is full");
        drop(c1);
        assert!(b.enter("fast").is_ok());
    }
}
