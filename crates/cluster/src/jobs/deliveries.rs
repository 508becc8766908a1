//! Webhook deliveries in the cluster: a record per job in the webhooks
//! bucket, sealed whole (secret and body); a replica takes a due one by
//! moving its next attempt forward (compare-and-set) before it sends.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::JetStreamStore;
use crate::index::{DueIndex, Span};
use crate::Link;
use gleaner_jobs::model::{now_ms, Delivery, Millis, PendingDelivery, Webhook};
use gleaner_jobs::store::{Attempt, JobStore, StoreError};

/// A webhook delivery's record.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct DeliveryRecord {
    job_id: String,
    webhook: Webhook,
    body: String,
    attempts: u32,
    last_status: Option<u16>,
    last_error: Option<String>,
    next_attempt_at: Option<Millis>,
    delivered_at: Option<Millis>,
}

/// Due deliveries read at most per call.
const MAX_DUE: usize = 256;

/// When a delivery is next due: never once delivered or given up.
fn due_at(record: &DeliveryRecord) -> Option<Millis> {
    record
        .next_attempt_at
        .filter(|_| record.delivered_at.is_none())
}

/// The deliveries of `cluster` by their next attempt.
pub(super) fn index(cluster: &Link) -> Arc<DueIndex> {
    DueIndex::follow(
        cluster.resources.webhooks.clone(),
        cluster.seal.clone(),
        |record| due_at(record).map(|t| (t, ())),
    )
}

/// Queues `body` for `webhook`, due now, in place of any delivery queued
/// before for `job_id`.
pub(super) async fn queue(
    store: &JetStreamStore,
    job_id: &str,
    webhook: &Webhook,
    body: &str,
) -> Result<(), StoreError> {
    let record = DeliveryRecord {
        job_id: job_id.to_owned(),
        webhook: webhook.clone(),
        body: body.to_owned(),
        attempts: 0,
        last_status: None,
        last_error: None,
        next_attempt_at: Some(now_ms()),
        delivered_at: None,
    };
    store.webhooks().put(job_id, &record).await?;
    store
        .due_deliveries
        .note(job_id, due_at(&record).map(|t| (t, ())));
    Ok(())
}

/// Takes the deliveries due at `now`, each by moving its next attempt to
/// `lease_until` (compare-and-set): one another replica took first is left
/// out.
pub(super) async fn due(
    store: &JetStreamStore,
    now: Millis,
    lease_until: Millis,
) -> Result<Vec<PendingDelivery>, StoreError> {
    let mut due = Vec::new();
    for job_id in store
        .due_deliveries
        .page(Span::due_at(now), MAX_DUE, |_, _| true)
        .await?
    {
        // Take it: move its next attempt past the time a send takes.
        let Some((mut current, revision)) = store.webhooks().get::<DeliveryRecord>(&job_id).await?
        else {
            store.due_deliveries.note(&job_id, None);
            continue;
        };
        if due_at(&current).is_none_or(|t| t > now) {
            // The index lagged the bucket: put it right.
            store
                .due_deliveries
                .note(&job_id, due_at(&current).map(|t| (t, ())));
            continue;
        }
        current.next_attempt_at = Some(lease_until);
        if store
            .webhooks()
            .swap(&current.job_id, &current, revision)
            .await?
        {
            store.due_deliveries.note(&job_id, Some((lease_until, ())));
            let owner = store
                .job(None, &current.job_id)
                .await?
                .map(|job| job.owner)
                .unwrap_or_default();
            due.push(PendingDelivery {
                id: 0,
                owner,
                webhook: current.webhook,
                job_id: current.job_id,
                body: current.body,
                attempts: current.attempts,
            });
        }
    }
    Ok(due)
}

/// Records `attempt` in the record of `delivery`.
pub(super) async fn record_attempt(
    store: &JetStreamStore,
    delivery: &PendingDelivery,
    attempt: Attempt,
) -> Result<(), StoreError> {
    let recorded = store
        .webhooks()
        .modify::<DeliveryRecord>(&delivery.job_id, |d| {
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
    let due = recorded.as_ref().and_then(due_at).map(|t| (t, ()));
    store.due_deliveries.note(&delivery.job_id, due);
    Ok(())
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
/// out of attempts): its job is kept until it is.
pub(super) async fn pending(store: &JetStreamStore, job_id: &str) -> Result<bool, StoreError> {
    let delivery = store.webhooks().get::<DeliveryRecord>(job_id).await?;
    Ok(delivery.is_some_and(|(d, _)| d.delivered_at.is_none() && d.next_attempt_at.is_some()))
}
