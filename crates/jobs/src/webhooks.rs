//! Webhooks: announcing a job's end to the URL its owner gave, signed, and
//! retried with exponential backoff until it is answered 2xx. Deliveries and
//! their attempts live in the store, so a restart goes on where it stopped.
//! What a delivery carries and when it is tried again is decided here; the
//! server sends it ([`crate::Sender`]), through its SSRF guard.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

use hmac::{Hmac, Mac};
use sha2::Sha256;

use crate::model::{Millis, PendingDelivery, Topic};

/// Attempts made before a delivery (or an export) is given up.
pub const MAX_ATTEMPTS: u32 = 8;

/// Deliveries sent at once, in all.
pub const CONCURRENT: usize = 32;

/// Deliveries of one owner (API key) sent at once: a key whose receivers hang
/// holds no more than this of [`CONCURRENT`].
pub const PER_OWNER: usize = 4;

/// Deliveries to one receiver (host and port) sent at once.
pub const PER_RECEIVER: usize = 2;

/// The `Gleaner-Signature` header of delivery `id` with `body`, sent at `t`
/// (Unix seconds): `t=<t>,v1=<hex of HMAC-SHA256(secret, "<t>.<id>.<body>")>`.
/// The id is signed too, so a receiver that keeps the ids it has seen for the
/// five minutes a timestamp is good refuses a captured delivery sent again.
pub fn signature(secret: &str, t: i64, id: &str, body: &str) -> String {
    let mut mac = Hmac::<Sha256>::new_from_slice(secret.as_bytes()).expect("HMAC takes any key");
    mac.update(format!("{t}.{id}.{body}").as_bytes());
    format!("t={t},v1={}", hex::encode(mac.finalize().into_bytes()))
}

/// The `Gleaner-Delivery-Id` of a delivery: the same on every attempt of it,
/// different for every other delivery.
pub fn delivery_id(delivery: &PendingDelivery) -> String {
    match delivery.topic {
        Topic::End => format!("{}.{}", delivery.job_id, delivery.id),
        topic => format!("{}.{}.{}", delivery.job_id, topic.code(), delivery.id),
    }
}

/// When the attempt after `attempts` failed ones is due, after `now`: the
/// backoff doubles from `base` (1, 2, 4 … times it); none after
/// [`MAX_ATTEMPTS`]. With the default base of 30 s the eight attempts span
/// about an hour.
pub fn next_attempt(attempts: u32, base: Duration, now: Millis) -> Option<Millis> {
    backoff(attempts, base).map(|delay| now.saturating_add(delay.as_millis() as Millis))
}

/// The wait before the attempt after `attempts` failed ones, for webhook
/// deliveries and exports alike: doubling from `base` (1, 2, 4 … times it);
/// none after [`MAX_ATTEMPTS`].
pub fn backoff(attempts: u32, base: Duration) -> Option<Duration> {
    (attempts < MAX_ATTEMPTS).then(|| base.saturating_mul(1 << attempts.saturating_sub(1).min(20)))
}

/// Who may send now: a pool for all deliveries, and lanes per owner and per
/// receiver within it, so one key's slow receivers delay only that key's
/// deliveries. A delivery waits for its owner's lane, then its receiver's,
/// then the pool, and holds a pool slot only while it is sent.
pub struct Lanes {
    pool: Arc<Semaphore>,
    owners: Mutex<HashMap<String, Arc<Semaphore>>>,
    receivers: Mutex<HashMap<String, Arc<Semaphore>>>,
    in_flight: Mutex<HashSet<String>>,
}

/// The slots one delivery holds while it is sent; dropping them frees them.
pub struct Turn {
    _slots: [OwnedSemaphorePermit; 3],
}

impl Default for Lanes {
    fn default() -> Lanes {
        Lanes {
            pool: Arc::new(Semaphore::new(CONCURRENT)),
            owners: Mutex::default(),
            receivers: Mutex::default(),
            in_flight: Mutex::default(),
        }
    }
}

impl Lanes {
    /// Marks delivery `id` taken; false when it already is (a store that
    /// answers a delivery again while it is being sent).
    pub fn claim(&self, id: &str) -> bool {
        lock(&self.in_flight).insert(id.to_owned())
    }

    /// Ends delivery `id`'s claim.
    pub fn release(&self, id: &str) {
        lock(&self.in_flight).remove(id);
    }

    /// Waits for `delivery`'s turn: its owner's lane, its receiver's, then the pool.
    pub async fn turn(&self, delivery: &PendingDelivery) -> Turn {
        let receiver = url::Url::parse(&delivery.webhook.url)
            .ok()
            .map(|u| {
                format!(
                    "{}:{}",
                    u.host_str().unwrap_or_default(),
                    u.port_or_known_default().unwrap_or(0)
                )
            })
            .unwrap_or_default();
        let owner = lane(&self.owners, &delivery.owner, PER_OWNER);
        let owner = owner.acquire_owned().await.expect("lanes are never closed");
        let receiver = lane(&self.receivers, &receiver, PER_RECEIVER);
        let receiver = receiver
            .acquire_owned()
            .await
            .expect("lanes are never closed");
        let pool = self
            .pool
            .clone()
            .acquire_owned()
            .await
            .expect("the pool is never closed");
        Turn {
            _slots: [owner, receiver, pool],
        }
    }

    /// Drops the lanes nobody holds or waits for.
    pub fn tidy(&self) {
        for lanes in [&self.owners, &self.receivers] {
            lock(lanes).retain(|_, lane| Arc::strong_count(lane) > 1);
        }
    }
}

/// The lane `key` of `lanes`, made with `width` slots when new.
fn lane(lanes: &Mutex<HashMap<String, Arc<Semaphore>>>, key: &str, width: usize) -> Arc<Semaphore> {
    lock(lanes)
        .entry(key.to_owned())
        .or_insert_with(|| Arc::new(Semaphore::new(width)))
        .clone()
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// What one attempt got: the status, or why there was none.
pub type Reply = (Option<u16>, Option<String>);

/// The headers of `delivery` sent at `t` (Unix seconds): its type, the
/// sender, its signature and its id.
pub fn headers(delivery: &PendingDelivery, t: i64) -> Vec<(String, String)> {
    let id = delivery_id(delivery);
    vec![
        ("content-type".into(), "application/json".into()),
        (
            "user-agent".into(),
            concat!("Gleaner/", env!("CARGO_PKG_VERSION")).into(),
        ),
        (
            "gleaner-signature".into(),
            signature(&delivery.webhook.secret, t, &id, &delivery.body),
        ),
        ("gleaner-delivery-id".into(), id),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_signature_is_hmac_of_time_delivery_id_and_body() {
        // Independent check: HMAC-SHA256("key", "1700000000.j1.7.{}").
        let sig = signature("key", 1_700_000_000, "j1.7", "{}");
        assert!(sig.starts_with("t=1700000000,v1="));
        let mut mac = Hmac::<Sha256>::new_from_slice(b"key").unwrap();
        mac.update(b"1700000000.j1.7.{}");
        assert!(sig.ends_with(&hex::encode(mac.finalize().into_bytes())));
    }

    #[test]
    fn attempts_back_off_and_end() {
        let base = Duration::from_secs(30);
        assert_eq!(next_attempt(1, base, 0), Some(30_000));
        assert_eq!(next_attempt(2, base, 0), Some(60_000));
        assert_eq!(next_attempt(7, base, 0), Some(30_000 * 64));
        assert_eq!(next_attempt(MAX_ATTEMPTS, base, 0), None);
        let span: Millis = (1..MAX_ATTEMPTS)
            .map(|a| next_attempt(a, base, 0).unwrap())
            .sum();
        assert!(
            span >= 10 * 60_000,
            "at least ten minutes of retries: {span}"
        );
    }
}
