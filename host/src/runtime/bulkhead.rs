//! Bulkheads: a request takes one slot of the server-wide pool and one of its
//! plugin's own pool, so a plugin stuck on a slow upstream fills only its own
//! share and every other route keeps answering. Part of the server-wide pool
//! is kept for the plugins that never wait on the network (the text
//! processors): requests to the others may hold at most the rest, so slow
//! sources and website processors together can never refuse a fast route.
//!
//! Within that network share, the last quarter is kept for plugins holding
//! less than their floor (a sixteenth of the share): a plugin past its floor
//! takes another network slot only while more than that quarter is free. So
//! however many clients or addresses keep requests hanging on slow sites, and
//! on however many plugins, a source whose site answers still gets its floor
//! of requests at once.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use crate::error::ApiError;
use crate::telemetry::metrics::{self, InFlight, Pool};

/// The server-wide pool and one pool per plugin.
#[derive(Debug)]
pub struct Bulkheads {
    global: Arc<Semaphore>,
    /// What plugins that reach the network may hold of `global`.
    network: Arc<Semaphore>,
    /// Network slots any plugin may take while few are free.
    floor: usize,
    /// Free network slots kept for plugins holding less than `floor`.
    headroom: usize,
    per_plugin: usize,
    plugins: Mutex<HashMap<String, Arc<Semaphore>>>,
}

/// Slots held by one request; given back when dropped.
#[derive(Debug)]
pub struct Slots {
    _in_flight: InFlight,
    _plugin: OwnedSemaphorePermit,
    _network: Option<OwnedSemaphorePermit>,
    _global: OwnedSemaphorePermit,
}

/// Whether a plugin may wait on the network.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reach {
    /// It computes only: its calls end in milliseconds.
    Local,
    /// It reaches sites (or the LLM), so its calls last as long as they do.
    Network,
}

impl Bulkheads {
    /// `global` requests at once in all, `per_plugin` for any one plugin, and
    /// `reserved_local` of `global` kept for plugins that never reach the network.
    pub fn new(global: usize, per_plugin: usize, reserved_local: usize) -> Bulkheads {
        let global = global.max(1);
        let network = global.saturating_sub(reserved_local).max(1);
        Bulkheads {
            global: Arc::new(Semaphore::new(global)),
            network: Arc::new(Semaphore::new(network)),
            floor: (network / 16).max(1),
            headroom: network / 4,
            per_plugin: per_plugin.max(1),
            plugins: Mutex::default(),
        }
    }

    /// Takes a slot for a request to `plugin`, or answers 503 at once.
    pub fn enter(&self, plugin: &str, reach: Reach) -> Result<Slots, ApiError> {
        // One lock over taking the plugin's slot and its network slot, so the
        // floor and the headroom are read and taken as one step.
        let mut plugins = self.plugins.lock().unwrap_or_else(|p| p.into_inner());
        let pool = plugins
            .entry(plugin.to_owned())
            .or_insert_with(|| Arc::new(Semaphore::new(self.per_plugin)));
        let held = self.per_plugin - pool.available_permits();
        let plugin_slot = pool.clone().try_acquire_owned().map_err(|_| {
            metrics::refused(plugin, Pool::Plugin);
            ApiError::Overloaded(format!(
                "plugin {plugin} is at its limit of {} requests at once (max_concurrent_per_plugin); retry shortly",
                self.per_plugin
            ))
        })?;
        let network_slot = match reach {
            Reach::Local => None,
            Reach::Network => Some(self.network_slot(plugin, held)?),
        };
        drop(plugins);
        let global_slot = self.global.clone().try_acquire_owned().map_err(|_| {
            metrics::refused(plugin, Pool::Server);
            ApiError::Overloaded(
                "the server is at its concurrent request limit (max_concurrent_requests); retry shortly".into(),
            )
        })?;
        Ok(Slots {
            _in_flight: InFlight::start(plugin),
            _plugin: plugin_slot,
            _network: network_slot,
            _global: global_slot,
        })
    }

    /// A network slot for `plugin`, which holds `held` already.
    fn network_slot(&self, plugin: &str, held: usize) -> Result<OwnedSemaphorePermit, ApiError> {
        if held >= self.floor && self.network.available_permits() <= self.headroom {
            metrics::refused(plugin, Pool::Network);
            return Err(ApiError::Overloaded(format!(
                "plugin {plugin} already holds {held} requests waiting on sites, and the last {} \
                 slots for plugins that wait on sites are kept for plugins holding fewer than {} \
                 (max_concurrent_requests less reserved_for_local_plugins); retry shortly",
                self.headroom, self.floor
            )));
        }
        self.network.clone().try_acquire_owned().map_err(|_| {
            metrics::refused(plugin, Pool::Network);
            ApiError::Overloaded(
                "plugins that wait on sites already hold their share of the server's requests \
                 (max_concurrent_requests less reserved_for_local_plugins); retry shortly"
                    .into(),
            )
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_full_plugin_leaves_the_others_room() {
        let b = Bulkheads::new(3, 2, 0);
        let _a1 = b.enter("slow", Reach::Network).unwrap();
        let _a2 = b.enter("slow", Reach::Network).unwrap();
        assert!(matches!(
            b.enter("slow", Reach::Network),
            Err(ApiError::Overloaded(_))
        ));
        let c1 = b.enter("fast", Reach::Network).unwrap();
        assert!(
            b.enter("fast", Reach::Network).is_err(),
            "the global pool is full"
        );
        drop(c1);
        assert!(b.enter("fast", Reach::Network).is_ok());
    }

    #[test]
    fn slow_plugins_never_take_the_reserved_share() {
        let b = Bulkheads::new(4, 4, 2);
        let _s1 = b.enter("source-a", Reach::Network).unwrap();
        let _s2 = b.enter("source-b", Reach::Network).unwrap();
        assert!(
            b.enter("source-c", Reach::Network).is_err(),
            "only 2 of 4 for network plugins"
        );
        let _f1 = b.enter("chunk", Reach::Local).unwrap();
        let _f2 = b.enter("chunk", Reach::Local).unwrap();
        assert!(
            b.enter("chunk", Reach::Local).is_err(),
            "the global pool is full"
        );
    }

    #[test]
    fn plugins_past_their_floor_leave_the_headroom() {
        // 32 network slots: a floor of 2 per plugin, the last 8 kept.
        let b = Bulkheads::new(32, 32, 0);
        let slow: Vec<_> = (0..24)
            .map(|i| b.enter(["a", "b", "c"][i % 3], Reach::Network).unwrap())
            .collect();
        let refused = b.enter("a", Reach::Network).unwrap_err();
        assert!(refused.to_string().contains("fewer than 2"), "{refused}");
        let _d1 = b.enter("d", Reach::Network).unwrap();
        let _d2 = b.enter("d", Reach::Network).unwrap();
        assert!(b.enter("d", Reach::Network).is_err(), "d is at its floor");
        let _e = b.enter("e", Reach::Network).unwrap();
        drop(slow);
        assert!(b.enter("d", Reach::Network).is_ok(), "room again");
    }
}
