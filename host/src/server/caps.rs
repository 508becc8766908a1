//! Connection caps: a total, and one per client address, so one client cannot
//! hold every connection the server can keep.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

/// Open connections, in total and per client address.
#[derive(Debug)]
pub struct ConnectionCaps {
    total: Arc<tokio::sync::Semaphore>,
    per_client_max: usize,
    per_client: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

/// One admitted connection; its slots are given back when it is dropped.
#[derive(Debug)]
pub struct Admitted {
    _total: tokio::sync::OwnedSemaphorePermit,
    client: IpAddr,
    per_client: Arc<Mutex<HashMap<IpAddr, usize>>>,
}

impl ConnectionCaps {
    /// Caps of `total` connections and `per_client` per address.
    pub fn new(total: usize, per_client: usize) -> ConnectionCaps {
        ConnectionCaps {
            total: Arc::new(tokio::sync::Semaphore::new(total)),
            per_client_max: per_client,
            per_client: Arc::default(),
        }
    }

    /// Admits a connection from `client`, or none when a cap is reached.
    pub fn admit(&self, client: IpAddr) -> Option<Admitted> {
        let total = self.total.clone().try_acquire_owned().ok()?;
        let mut counts = self.per_client.lock().unwrap_or_else(|p| p.into_inner());
        let count = counts.entry(client).or_insert(0);
        if *count >= self.per_client_max {
            return None;
        }
        *count += 1;
        Some(Admitted {
            _total: total,
            client,
            per_client: self.per_client.clone(),
        })
    }

    /// Connections open now.
    pub fn open(&self) -> usize {
        self.per_client
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .values()
            .sum()
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut counts = self.per_client.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(count) = counts.get_mut(&self.client) {
            *count -= 1;
            if *count == 0 {
                counts.remove(&self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn caps_total_and_per_client() {
        let caps = ConnectionCaps::new(3, 2);
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let a1 = caps.admit(a).unwrap();
        let _a2 = caps.admit(a).unwrap();
        assert!(caps.admit(a).is_none(), "per-client cap");
        let _b1 = caps.admit(b).unwrap();
        assert!(caps.admit(b).is_none(), "total cap");
        drop(a1);
        assert!(
            caps.admit(b).is_some(),
            "a closed connection frees its slots"
        );
        assert_eq!(caps.open(), 2);
    }
}
