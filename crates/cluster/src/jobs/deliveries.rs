//! Webhook deliveries in the cluster: a record per job in the webhooks
//! bucket, sealed whole (secret and body), and a message per delivery on the
//! send queue ([`crate::sends`]). A replica takes a due one from the queue
//! and moves its record's next attempt forward (compare-and-set) before it
//! sends; its recorded attempt acks the message, or puts it back with the
//! delay until the next attempt.

use std::sync::Arc;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::JetStreamStore;
use crate::records::{self, ClusterError, Records};
use crate::{sends, Link};
use gleaner_jobs::model::{now_ms, Delivery, Millis, PendingDelivery, Topic, Webhook};
use gleaner_jobs::store::{Attempt, JobStore, StoreError};

/// A webhook delivery's record.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct DeliveryRecord {
    job_id: String,
    #[serde(default)]
    topic: Topic,
    webhook: Webhook,
    body: String,
    attempts: u32,
    last_status: Option<u16>,
    last_error: Option<String>,
    next_attempt_at: Option<Millis>,
    delivered_at: Option<Millis>,
}

/// The key of a job's delivery of `topic` in the webhooks bucket, and the
/// payload of its message: the job id for its end (as earlier versions
/// kept it), `<job id>.changes` for a tracked run's changes.
fn key(job_id: &str, topic: Topic) -> String {
    match topic {
        Topic::End => job_id.to_owned(),
        topic => format!("{job_id}.{}", topic.code()),
    }
}

/// Messages taken at most per call.
const MAX_DUE: usize = 256;

/// When a delivery is next due: never once delivered or given up.
fn due_at(record: &DeliveryRecord) -> Option<Millis> {
    record
        .next_attempt_at
        .filter(|_| record.delivered_at.is_none())
}

/// How long from now until `t`: nothing once it has come.
fn until(t: Millis) -> Duration {
    Duration::from_millis(t.saturating_sub(now_ms()).max(0) as u64)
}

/// Queues `body` for `webhook`, due now, in place of any delivery queued
/// before for `job_id`, and puts it on the send queue.
pub(super) async fn queue(
    store: &JetStreamStore,
    job_id: &str,
    topic: Topic,
    webhook: &Webhook,
    body: &str,
) -> Result<(), StoreError> {
    let now = now_ms();
    let key = key(job_id, topic);
    let record = DeliveryRecord {
        job_id: job_id.to_owned(),
        topic,
        webhook: webhook.clone(),
        body: body.to_owned(),
        attempts: 0,
        last_status: None,
        last_error: None,
        next_attempt_at: Some(now),
        delivered_at: None,
    };
    store.webhooks().put(&key, &record).await?;
    store.cluster.resources.sends.push(&key, now as u64).await?;
    Ok(())
}

/// Takes the deliveries due at `now` from the send queue, each by moving
/// its record's next attempt to `lease_until` (compare-and-set), so that a
/// message queued twice is sent once. A message not due goes back with the
/// delay until it is; one whose delivery is over or gone is acked.
pub(super) async fn due(
    store: &JetStreamStore,
    now: Millis,
    lease_until: Millis,
) -> Result<Vec<PendingDelivery>, StoreError> {
    let mut due = Vec::new();
    for message in store.cluster.resources.sends.take(MAX_DUE).await? {
        let key = sends::key(&message);
        let Some((mut current, revision)) = store.webhooks().get::<DeliveryRecord>(&key).await?
        else {
            sends::settle(&message, None).await?;
            continue;
        };
        match due_at(&current) {
            None => {
                sends::settle(&message, None).await?;
                continue;
            }
            Some(t) if t > now => {
                sends::settle(&message, Some(until(t))).await?;
                continue;
            }
            Some(_) => {}
        }
        current.next_attempt_at = Some(lease_until);
        if !store.webhooks().swap(&key, &current, revision).await? {
            // Another replica took it by another message: this one waits
            // for that attempt's end.
            sends::settle(&message, Some(until(lease_until))).await?;
            continue;
        }
        let owner = store
            .job(None, &current.job_id)
            .await?
            .map(|job| job.owner)
            .unwrap_or_default();
        store.hold(&key, message);
        due.push(PendingDelivery {
            id: 0,
            topic: current.topic,
            owner,
            webhook: current.webhook,
            job_id: current.job_id,
            body: current.body,
            attempts: current.attempts,
        });
    }
    Ok(due)
}

/// Records `attempt` in the record of `delivery`, then settles its message:
/// acked once the delivery is over, handed out again at its next attempt.
pub(super) async fn record_attempt(
    store: &JetStreamStore,
    delivery: &PendingDelivery,
    attempt: Attempt,
) -> Result<(), StoreError> {
    let key = key(&delivery.job_id, delivery.topic);
    let recorded = store
        .webhooks()
        .modify::<DeliveryRecord>(&key, |d| {
            d.attempts += 1;
            d.last_status = attempt.status;
            d.last_error = attempt.error.clone();
            d.next_attempt_at = attempt.next_attempt_at;
            if attempt.delivered {
                d.delivered_at = Some(now_ms());
            }
            true
        })
        .await?;
    // A message this replica no longer holds comes back after its ack
    // wait, and is settled by its record then.
    if let Some(message) = store.release(&key) {
        let next = recorded.as_ref().and_then(due_at);
        sends::settle(&message, next.map(until)).await?;
    }
    Ok(())
}

/// Puts each delivery an earlier version left queued (a record still due,
/// with no message) on the send queue: done once, by the replica that made
/// the queue.
pub(super) async fn requeue_earlier(cluster: Arc<Link>) {
    let records = Records::sealed(&cluster.resources.webhooks, &cluster.seal);
    let requeue = async {
        let mut queued = 0;
        for record in records.all::<DeliveryRecord>().await? {
            if let Some(t) = due_at(&record) {
                let key = key(&record.job_id, record.topic);
                cluster.resources.sends.push(&key, t as u64).await?;
                queued += 1;
            }
        }
        Ok::<_, ClusterError>(queued)
    };
    match requeue.await {
        Ok(0) => {}
        Ok(n) => tracing::info!(
            deliveries = n,
            "webhook deliveries of an earlier version queued"
        ),
        Err(e) => {
            tracing::error!(error = %e, "cannot queue the webhook deliveries of an earlier version")
        }
    }
}

/// Where the delivery of `job_id`'s webhook stands, when it has one.
pub(super) async fn of_job(
    store: &JetStreamStore,
    job_id: &str,
) -> Result<Option<Delivery>, StoreError> {
    let record = store.webhooks().get::<DeliveryRecord>(job_id).await?;
    Ok(record.map(|(d, _)| Delivery {
        attempts: d.attempts,
        last_status: d.last_status,
        delivered_at: d.delivered_at,
        last_error: d.last_error,
        next_attempt_at: d.next_attempt_at,
    }))
}

/// Whether `job_id` has a delivery still to be sent (neither delivered nor
/// out of attempts): its job is kept until it has none.
pub(super) async fn pending(store: &JetStreamStore, job_id: &str) -> Result<bool, StoreError> {
    for topic in [Topic::End, Topic::Changes] {
        let delivery = store
            .webhooks()
            .get::<DeliveryRecord>(&key(job_id, topic))
            .await?;
        if delivery.is_some_and(|(d, _)| d.delivered_at.is_none() && d.next_attempt_at.is_some()) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// Deletes every delivery of `job_id`.
pub(super) async fn delete(store: &JetStreamStore, job_id: &str) -> Result<(), StoreError> {
    for topic in [Topic::End, Topic::Changes] {
        records::delete(&store.cluster.resources.webhooks, &key(job_id, topic)).await?;
    }
    Ok(())
}
