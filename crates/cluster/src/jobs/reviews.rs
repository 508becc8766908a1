//! A job's reviews in the cluster: each sealed with the cluster's key and
//! published on the job's own subject of the reviews stream, with a message
//! id that makes a page stored again after a crash store nothing twice; read
//! back a page at a time.

use async_nats::jetstream::message::PublishMessage;
use serde_json::Value;
use sha2::{Digest, Sha256};

use super::JetStreamStore;
use crate::records;
use gleaner_jobs::store::{JobStore, PageWrite, ReviewPage, StoreError};

impl JetStreamStore {
    /// Publishes `payload` on `subject` with a message id; whether it was new.
    pub(super) async fn publish(
        &self,
        subject: String,
        payload: Vec<u8>,
        message_id: &str,
    ) -> Result<async_nats::jetstream::context::PublishAckFuture, StoreError> {
        self.cluster
            .js
            .send_publish(
                subject,
                PublishMessage::build()
                    .payload(payload.into())
                    .message_id(message_id),
            )
            .await
            .map_err(|e| records::fail(e).into())
    }

    /// Publishes each `(review id, payload)` on `subject` with the message
    /// id `<owner>.<review id digest>`, then waits for every ack.
    async fn publish_all<'a>(
        &self,
        subject: &str,
        owner: &str,
        messages: impl Iterator<Item = (&'a String, &'a [u8])>,
    ) -> Result<(), StoreError> {
        let mut acks = Vec::new();
        for (review_id, payload) in messages {
            let message_id = format!("{owner}.{}", digest(review_id));
            acks.push(
                self.publish(subject.to_owned(), payload.to_vec(), &message_id)
                    .await?,
            );
        }
        for ack in acks {
            ack.await.map_err(records::fail)?;
        }
        Ok(())
    }
}

/// A short digest of a review id, for message ids and subjects.
pub(super) fn digest(text: &str) -> String {
    hex::encode(&Sha256::digest(text.as_bytes())[..16])
}

/// Stores `page` of job `id` and its new position; for a schedule's run,
/// records the page's ids as delivered by the schedule too. How many reviews
/// were new to the job.
pub(super) async fn commit(
    store: &JetStreamStore,
    id: &str,
    page: PageWrite,
) -> Result<u64, StoreError> {
    let Some(job) = store.job(None, id).await? else {
        return Err(StoreError(format!(
            "job {id} is gone from the cluster's store"
        )));
    };
    let subject = JetStreamStore::reviews_subject(id);
    // Each review sealed with the cluster's key, its subject the label.
    let sealed: Vec<(&String, Vec<u8>)> = page
        .reviews
        .iter()
        .map(|(r, text)| {
            let sealed = store.cluster.seal.seal(&subject, text.as_bytes());
            sealed.map(|bytes| (r, bytes)).map_err(StoreError)
        })
        .collect::<Result<_, _>>()?;
    let reviews = sealed.iter().map(|(r, bytes)| (*r, bytes.as_slice()));
    store.publish_all(&subject, id, reviews).await?;
    if let Some(schedule) = &job.schedule_id {
        // Every id of the page, new or not: one stored before a crash is
        // delivered by this run all the same.
        let ids = page.reviews.iter().map(|(r, _)| (r, r.as_bytes()));
        store
            .publish_all(&JetStreamStore::delivered_subject(schedule), schedule, ids)
            .await?;
        super::changes::write(store, schedule, &page.changes).await?;
    }
    let stored = records::count(&store.cluster.resources.reviews, &subject).await?;
    let mut added = 0;
    store
        .update_job(id, |j| {
            added = stored.saturating_sub(j.reviews_collected);
            j.reviews_collected = stored.max(j.reviews_collected);
            j.position = page.position.clone();
            j.pages_fetched += page.pages;
            true
        })
        .await?;
    Ok(added)
}

/// Job `id`'s reviews after number `after`, at most `limit`, opened, with
/// the cursor of the next page.
pub(super) async fn page(
    store: &JetStreamStore,
    id: &str,
    after: u64,
    limit: usize,
) -> Result<ReviewPage, StoreError> {
    let subject = JetStreamStore::reviews_subject(id);
    let (messages, more) =
        records::read_subject(&store.cluster.resources.reviews, &subject, after, limit).await?;
    let next = messages.last().map(|(seq, _)| *seq).filter(|_| more);
    let reviews = messages
        .into_iter()
        .map(|(_, sealed)| {
            store
                .cluster
                .seal
                .open(&subject, &sealed)
                .and_then(|text| serde_json::from_slice(&text).ok())
                .unwrap_or(Value::Null)
        })
        .collect();
    Ok((reviews, next))
}
