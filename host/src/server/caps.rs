//! Connection caps: a total, and one per client address (IPv6 by /64), so one
//! client cannot hold every connection the server can keep. At a cap, a new
//! connection is not refused while an older one is only waiting on its
//! client (sending a request head slowly, or idle between requests): the one
//! that has waited longest is closed to make room. So thousands of slow
//! connections from one address — or from many — cannot lock out a fresh
//! client, behind a NAT or not; only connections with requests in flight
//! fill a cap for good.

use std::collections::HashMap;
use std::net::IpAddr;
use std::sync::{Arc, Mutex};

use super::activity::Activity;

/// Open connections, in total and per client address.
#[derive(Debug)]
pub struct ConnectionCaps {
    total_max: usize,
    per_client_max: usize,
    table: Arc<Mutex<Table>>,
}

#[derive(Debug, Default)]
struct Table {
    next_id: u64,
    open: HashMap<u64, Open>,
    /// Connections not told to close, in all and per client.
    live: usize,
    live_per_client: HashMap<IpAddr, usize>,
}

#[derive(Debug)]
struct Open {
    client: IpAddr,
    activity: Arc<Activity>,
    /// Already told to close, to make room.
    evicted: bool,
}

/// One admitted connection; its slots are given back when it is dropped.
#[derive(Debug)]
pub struct Admitted {
    id: u64,
    client: IpAddr,
    table: Arc<Mutex<Table>>,
}

impl ConnectionCaps {
    /// Caps of `total` connections and `per_client` per address.
    pub fn new(total: usize, per_client: usize) -> ConnectionCaps {
        ConnectionCaps {
            total_max: total.max(1),
            per_client_max: per_client.max(1),
            table: Arc::default(),
        }
    }

    /// Admits a connection from `client` whose activity is `activity`, closing
    /// the longest-waiting connection (of that client, at its cap; of anyone,
    /// at the total) to make room; none when every candidate has a request in
    /// flight.
    pub fn admit(&self, client: IpAddr, activity: Arc<Activity>) -> Option<Admitted> {
        let client = crate::api::clients::counted_address(client);
        let mut table = self.table.lock().unwrap_or_else(|p| p.into_inner());
        let of_client = table.live_per_client.get(&client).copied().unwrap_or(0);
        if of_client >= self.per_client_max && !table.evict(Some(client)) {
            return None;
        }
        if table.live >= self.total_max && !table.evict(None) {
            return None;
        }
        table.next_id += 1;
        let id = table.next_id;
        table.open.insert(
            id,
            Open {
                client,
                activity,
                evicted: false,
            },
        );
        table.live += 1;
        *table.live_per_client.entry(client).or_insert(0) += 1;
        Some(Admitted {
            id,
            client,
            table: self.table.clone(),
        })
    }

    /// Connections open now (those told to close included, until they have).
    pub fn open(&self) -> usize {
        self.table
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .open
            .len()
    }
}

impl Table {
    /// Tells the connection (of `client`, or of anyone) that has waited
    /// longest on its client to close; false when none is waiting.
    fn evict(&mut self, client: Option<IpAddr>) -> bool {
        let victim = self
            .open
            .iter_mut()
            .filter(|(_, o)| !o.evicted && client.is_none_or(|c| o.client == c))
            .filter_map(|(_, o)| {
                let since = o.activity.waiting_since()?;
                Some((
                    o.activity.started() + std::time::Duration::from_millis(since),
                    o,
                ))
            })
            .min_by_key(|(since, _)| *since);
        let Some((_, open)) = victim else {
            return false;
        };
        open.evicted = true;
        open.activity.evict.notify_one();
        let client = open.client;
        self.forget(client);
        crate::telemetry::metrics::connection_evicted();
        true
    }

    /// One live connection of `client` fewer.
    fn forget(&mut self, client: IpAddr) {
        self.live = self.live.saturating_sub(1);
        if let Some(count) = self.live_per_client.get_mut(&client) {
            *count -= 1;
            if *count == 0 {
                self.live_per_client.remove(&client);
            }
        }
    }
}

impl Drop for Admitted {
    fn drop(&mut self) {
        let mut table = self.table.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(open) = table.open.remove(&self.id) {
            if !open.evicted {
                table.forget(self.client);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn waiting() -> Arc<Activity> {
        Arc::new(Activity::default())
    }

    fn busy() -> Arc<Activity> {
        let a = Arc::new(Activity::default());
        a.request_started();
        a
    }

    #[test]
    fn at_a_cap_the_longest_waiting_connection_makes_room() {
        let caps = ConnectionCaps::new(3, 2);
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let b: IpAddr = "127.0.0.3".parse().unwrap();
        let oldest = waiting();
        let _a1 = caps.admit(a, oldest.clone()).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let _a2 = caps.admit(a, waiting()).unwrap();
        let _a3 = caps
            .admit(a, waiting())
            .expect("the per-client cap evicts, not refuses");
        assert!(
            futures_util::FutureExt::now_or_never(oldest.evict.notified()).is_some(),
            "the oldest waiting connection of that client was told to close"
        );
        let _b1 = caps
            .admit(b, busy())
            .expect("the total cap evicts a waiting connection");
        assert_eq!(
            caps.open(),
            4,
            "the evicted connections count until they close"
        );
    }

    #[test]
    fn connections_with_requests_in_flight_are_never_evicted() {
        let caps = ConnectionCaps::new(2, 2);
        let a: IpAddr = "127.0.0.2".parse().unwrap();
        let first = caps.admit(a, busy()).unwrap();
        let _second = caps.admit(a, busy()).unwrap();
        assert!(
            caps.admit(a, waiting()).is_none(),
            "nothing to evict: refused"
        );
        drop(first);
        assert!(
            caps.admit(a, waiting()).is_some(),
            "a closed connection frees its slot"
        );
    }

    #[test]
    fn ipv6_clients_share_a_cap_per_64() {
        let caps = ConnectionCaps::new(10, 1);
        let one: IpAddr = "2001:db8::1".parse().unwrap();
        let two: IpAddr = "2001:db8::2".parse().unwrap();
        let _one = caps.admit(one, busy()).unwrap();
        assert!(
            caps.admit(two, busy()).is_none(),
            "same /64, cap 1, nothing waiting"
        );
    }
}
