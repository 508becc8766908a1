//! A bucket's keys kept in an order of the records' own, by a watch on the
//! bucket: schedules by when they fall due, jobs and schedules by owner and
//! creation time for the lists. NATS pushes each
//! change, so finding what is due, or the first page of a list, reads
//! memory instead of every key of the bucket; the replica's own writes go
//! in at once.
//!
//! The order only says which records to read: callers read each one (and
//! take it by compare-and-set where it matters), so an entry that lags the
//! bucket costs one read and never a second run.

use std::collections::{BTreeSet, HashMap};
use std::ops::Bound;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};
use std::time::Duration;

use async_nats::jetstream::kv;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use tokio::sync::watch;

use crate::records::{fail, ClusterError, Records};
use gleaner_jobs::model::Millis;
use gleaner_seal::Seal;

/// How long a caller waits for the first read of the bucket before it is
/// told to retry.
const FIRST_LOAD: Duration = Duration::from_secs(10);

/// Where a record stands in the order (`K`), and what a list may filter it
/// by without reading it (`V`).
pub type Place<K, V> = Option<(K, V)>;

/// The keys of a bucket by place.
struct Order<K, V> {
    at: HashMap<String, (K, V)>,
    queue: BTreeSet<(K, String)>,
}

impl<K: Ord + Clone, V> Default for Order<K, V> {
    fn default() -> Self {
        Order {
            at: HashMap::new(),
            queue: BTreeSet::new(),
        }
    }
}

impl<K: Ord + Clone, V> Order<K, V> {
    fn set(&mut self, key: &str, place: Place<K, V>) {
        if let Some((old, _)) = self.at.remove(key) {
            self.queue.remove(&(old, key.to_owned()));
        }
        if let Some((k, v)) = place {
            self.queue.insert((k.clone(), key.to_owned()));
            self.at.insert(key.to_owned(), (k, v));
        }
    }

    fn page(&self, range: Span<K>, max: usize, keep: impl Fn(&K, &V) -> bool) -> Vec<String> {
        let taken = |(k, key): &(K, String)| {
            let (_, v) = self.at.get(key)?;
            keep(k, v).then(|| key.clone())
        };
        let within = self.queue.range((range.from, range.to));
        match range.newest_first {
            false => within.filter_map(taken).take(max).collect(),
            true => within.rev().filter_map(taken).take(max).collect(),
        }
    }
}

/// A stretch of the order, read one way.
pub struct Span<K> {
    /// Where it starts (lowest).
    pub from: Bound<(K, String)>,
    /// Where it ends (highest).
    pub to: Bound<(K, String)>,
    /// Highest first.
    pub newest_first: bool,
}

impl Span<Millis> {
    /// Everything due at `now`, soonest first.
    pub fn due_at(now: Millis) -> Self {
        Span {
            from: Bound::Unbounded,
            to: Bound::Excluded((now.saturating_add(1), String::new())),
            newest_first: false,
        }
    }
}

impl Span<(String, Millis)> {
    /// One owner's stretch of an order by `(owner, creation time)`, after
    /// `after` and before `before` (each an [`Index::anchor`]) where given.
    pub fn of_owner(
        owner: &str,
        after: Option<(Millis, String)>,
        before: Option<(Millis, String)>,
        newest_first: bool,
    ) -> Self {
        let whole = |at: Millis| ((owner.to_owned(), at), String::new());
        let at = |(at, key): (Millis, String)| ((owner.to_owned(), at), key);
        Span {
            from: after.map_or(Bound::Included(whole(Millis::MIN)), |a| {
                Bound::Excluded(at(a))
            }),
            to: before.map_or(Bound::Excluded(whole(Millis::MAX)), |b| {
                Bound::Excluded(at(b))
            }),
            newest_first,
        }
    }
}

/// When each of a bucket's records falls due.
pub type DueIndex = Index<Millis, ()>;

/// A bucket's keys in order, followed by a watch.
pub struct Index<K, V> {
    order: Mutex<Order<K, V>>,
    loaded: watch::Sender<bool>,
    follower: Mutex<Option<tokio::task::JoinHandle<()>>>,
}

impl<K, V> Drop for Index<K, V> {
    fn drop(&mut self) {
        let follower = self.follower.get_mut();
        if let Some(task) = follower.unwrap_or_else(PoisonError::into_inner).take() {
            task.abort();
        }
    }
}

impl<K, V> Index<K, V>
where
    K: Ord + Clone + Send + 'static,
    V: Send + 'static,
{
    /// Follows `bucket` (sealed with `seal`), each record placed where
    /// `place` says (left out where it says none). Needs a tokio runtime.
    pub fn follow<T: DeserializeOwned + 'static>(
        bucket: kv::Store,
        seal: Arc<Seal>,
        place: fn(&T) -> Place<K, V>,
    ) -> Arc<Index<K, V>> {
        let index = Arc::new(Index {
            order: Mutex::new(Order::default()),
            loaded: watch::Sender::new(false),
            follower: Mutex::default(),
        });
        let weak = Arc::downgrade(&index);
        let task = tokio::spawn(async move {
            loop {
                let ended = follow_once(&bucket, &seal, place, &weak).await;
                if weak.strong_count() == 0 {
                    return;
                }
                match ended {
                    Ok(()) => {
                        tracing::warn!(bucket = %bucket.name, "the watch of a cluster bucket ended; watching again")
                    }
                    Err(e) => {
                        tracing::warn!(bucket = %bucket.name, error = %e, "cannot watch a cluster bucket; retrying in 1 s")
                    }
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
        *index
            .follower
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(task);
        index
    }

    fn lock(&self) -> MutexGuard<'_, Order<K, V>> {
        self.order.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Records this replica's own write of `key` at once.
    pub fn note(&self, key: &str, place: Place<K, V>) {
        self.lock().set(key, place);
    }

    /// At most `max` keys of `span` that `keep` keeps, in its order, once
    /// the bucket has been read through at least once.
    pub async fn page(
        &self,
        span: Span<K>,
        max: usize,
        keep: impl Fn(&K, &V) -> bool,
    ) -> Result<Vec<String>, ClusterError> {
        self.loaded().await?;
        Ok(self.lock().page(span, max, keep))
    }

    async fn loaded(&self) -> Result<(), ClusterError> {
        let mut loaded = self.loaded.subscribe();
        let ready = tokio::time::timeout(FIRST_LOAD, loaded.wait_for(|l| *l))
            .await
            .is_ok_and(|r| r.is_ok());
        match ready {
            true => Ok(()),
            false => Err(ClusterError(
                "this replica is still reading the cluster's jobs and schedules after its start"
                    .into(),
            )),
        }
    }
}

impl<V: Send + 'static> Index<(String, Millis), V> {
    /// Where the list page after (or before) `id` starts: its creation time
    /// and key; none without an id, or for one the index does not hold (the
    /// list then starts from its end).
    pub async fn anchor(&self, id: Option<&str>) -> Result<Option<(Millis, String)>, ClusterError> {
        let Some(id) = id else { return Ok(None) };
        self.loaded().await?;
        let at = self.lock().at.get(id).map(|((_, at), _)| *at);
        Ok(at.map(|at| (at, id.to_owned())))
    }
}

/// One watch of the bucket from its current values on: the order is built
/// aside until the watch has caught up, then replaces the index's, and
/// every later change goes straight in.
async fn follow_once<T, K, V>(
    bucket: &kv::Store,
    seal: &Seal,
    place: fn(&T) -> Place<K, V>,
    index: &Weak<Index<K, V>>,
) -> Result<(), ClusterError>
where
    T: DeserializeOwned,
    K: Ord + Clone + Send + 'static,
    V: Send + 'static,
{
    let records = Records::sealed(bucket, seal);
    // Read before the watch starts. An empty bucket sends the watch nothing
    // to catch up with; otherwise the watch has caught up once it has sent
    // the message that was last then (it is the last of its key, so the
    // watch sends it, or a later one of that key), or says none is pending.
    let mut stream = bucket.stream.clone();
    let state = stream.info().await.map_err(fail)?.state.clone();
    let mut fresh = Some(Order::default());
    let mut watch = bucket.watch_with_history(">").await.map_err(fail)?;
    if state.messages == 0 {
        install(index, fresh.take());
    }
    while let Some(entry) = watch.next().await {
        let entry = entry.map_err(fail)?;
        let placed = match entry.operation {
            kv::Operation::Put => records
                .open::<T>(&entry.key, &entry.value)?
                .and_then(|record| place(&record)),
            kv::Operation::Delete | kv::Operation::Purge => None,
        };
        match &mut fresh {
            Some(order) => {
                order.set(&entry.key, placed);
                if entry.revision >= state.last_sequence || entry.delta == 0 {
                    install(index, fresh.take());
                }
            }
            None => match index.upgrade() {
                Some(index) => index.lock().set(&entry.key, placed),
                None => return Ok(()),
            },
        }
    }
    Ok(())
}

/// Puts a freshly read order in place and tells the waiting callers.
fn install<K, V>(index: &Weak<Index<K, V>>, order: Option<Order<K, V>>)
where
    K: Ord + Clone + Send + 'static,
    V: Send + 'static,
{
    if let (Some(index), Some(order)) = (index.upgrade(), order) {
        *index.lock() = order;
        index.loaded.send_replace(true);
    }
}

#[cfg(test)]
mod tests {
    use std::ops::Bound::{Excluded, Included, Unbounded};

    use super::{Order, Span};

    #[test]
    fn keys_come_in_order_and_move_when_set_again() {
        let mut order: Order<i64, ()> = Order::default();
        order.set("b", Some((20, ())));
        order.set("a", Some((10, ())));
        order.set("c", Some((30, ())));
        order.set("never", None);
        let until = |t: i64| Span {
            from: Unbounded,
            to: Excluded((t + 1, String::new())),
            newest_first: false,
        };
        assert_eq!(order.page(until(25), 10, |_, _| true), ["a", "b"]);
        assert_eq!(order.page(until(25), 1, |_, _| true), ["a"]);
        order.set("a", Some((40, ())));
        order.set("b", None);
        assert_eq!(order.page(until(35), 10, |_, _| true), ["c"]);
        assert_eq!(order.page(until(40), 10, |_, _| true), ["c", "a"]);
        assert!(order.page(until(5), 10, |_, _| true).is_empty());
    }

    #[test]
    fn a_page_reads_one_owners_stretch_either_way_and_filters() {
        let mut order: Order<(String, i64), bool> = Order::default();
        for (key, owner, at, odd) in [
            ("j1", "k1", 1, true),
            ("j2", "k1", 2, false),
            ("j3", "k2", 3, true),
            ("j4", "k1", 4, true),
        ] {
            order.set(key, Some(((owner.into(), at), odd)));
        }
        let k1 = |to: std::ops::Bound<((String, i64), String)>, newest_first| Span {
            from: Included((("k1".into(), i64::MIN), String::new())),
            to,
            newest_first,
        };
        let end = Excluded((("k1".into(), i64::MAX), String::new()));
        assert_eq!(
            order.page(k1(end.clone(), true), 10, |_, _| true),
            ["j4", "j2", "j1"]
        );
        assert_eq!(
            order.page(k1(end.clone(), false), 2, |_, _| true),
            ["j1", "j2"]
        );
        assert_eq!(order.page(k1(end, true), 10, |_, odd| *odd), ["j4", "j1"]);
        let before_j4 = Excluded((("k1".into(), 4), "j4".into()));
        assert_eq!(
            order.page(k1(before_j4, true), 10, |_, _| true),
            ["j2", "j1"]
        );
    }
}
