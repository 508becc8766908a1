//! The webhook deliveries waiting to be sent, as a JetStream work queue:
//! one message per delivery (its key: the job id, for a job's end) on `gleaner.webhooks.due` in the
//! stream `GLEANER_WEBHOOK_SENDS`, taken by the one durable consumer
//! `senders` that every replica pulls from.
//!
//! - A replica that takes a message holds it while it sends. Once the
//!   attempt is recorded, the message is acked when the delivery is over
//!   (delivered, or out of attempts), or negatively acked with the delay
//!   until its next attempt (`Nak(delay)`): NATS hands it out again then,
//!   to whichever replica asks first.
//! - A replica that dies holding a message goes silent, and after the ack
//!   wait NATS hands the message to another replica.
//! - The delivery's record in the webhooks bucket stays what is answered
//!   and what decides: a message whose record is not due is put back with
//!   the delay until it is, and one whose record is over or gone is acked.

use std::time::Duration;

use async_nats::jetstream::message::{AckKind, PublishMessage};
use async_nats::jetstream::{self, consumer, stream, Message};
use futures_util::StreamExt;

use crate::records::{self, ClusterError};

/// The stream of deliveries waiting to be sent.
pub const WEBHOOK_SENDS: &str = "GLEANER_WEBHOOK_SENDS";
/// The one subject of that stream.
pub const SENDS_SUBJECT: &str = "gleaner.webhooks.due";
/// The consumer every replica's senders pull from.
const SENDERS: &str = "senders";

/// The queue of webhook deliveries to send.
pub struct SendQueue {
    js: jetstream::Context,
    senders: consumer::PullConsumer,
    /// Whether the stream was made by this replica's start: deliveries
    /// queued by an earlier version (records with no message) are put on it.
    pub created: bool,
}

impl SendQueue {
    /// Finds the stream and its consumer, creating them when missing;
    /// `ack_wait` is how long a silent replica keeps a message.
    pub async fn open(
        js: &jetstream::Context,
        storage: stream::StorageType,
        replicas: usize,
        ack_wait: Duration,
    ) -> anyhow::Result<SendQueue> {
        let created = js.get_stream(WEBHOOK_SENDS).await.is_err();
        let stream = js
            .get_or_create_stream(stream::Config {
                name: WEBHOOK_SENDS.into(),
                description: Some("Gleaner: webhook deliveries waiting to be sent".into()),
                subjects: vec![SENDS_SUBJECT.into()],
                retention: stream::RetentionPolicy::WorkQueue,
                storage,
                num_replicas: replicas,
                duplicate_window: Duration::from_secs(120),
                ..Default::default()
            })
            .await?;
        let senders = stream
            .get_or_create_consumer(
                SENDERS,
                consumer::pull::Config {
                    durable_name: Some(SENDERS.into()),
                    description: Some("Gleaner: every replica's webhook senders".into()),
                    ack_policy: consumer::AckPolicy::Explicit,
                    ack_wait,
                    // Each retry is a redelivery: the record counts attempts.
                    max_deliver: -1,
                    ..Default::default()
                },
            )
            .await?;
        Ok(SendQueue {
            js: js.clone(),
            senders,
            created,
        })
    }

    /// Puts the delivery under `key` on the queue; `queued_at` tells one
    /// queuing from another, so a publish retried is stored once.
    pub async fn push(&self, key: &str, queued_at: u64) -> Result<(), ClusterError> {
        let message = PublishMessage::build()
            .payload(key.as_bytes().to_vec().into())
            .message_id(format!("{key}.{queued_at}"));
        let ack = self
            .js
            .send_publish(SENDS_SUBJECT, message)
            .await
            .map_err(records::fail)?;
        ack.await.map_err(records::fail)?;
        Ok(())
    }

    /// At most `max` messages no replica holds, at once; each is this
    /// replica's until it is settled or its ack wait lapses.
    pub async fn take(&self, max: usize) -> Result<Vec<Message>, ClusterError> {
        let mut batch = self
            .senders
            .fetch()
            .max_messages(max)
            .messages()
            .await
            .map_err(records::fail)?;
        let mut taken = Vec::new();
        while let Some(message) = batch.next().await {
            taken.push(message.map_err(records::fail)?);
        }
        Ok(taken)
    }
}

/// The delivery's key a message carries (its job id, for a job's end).
pub fn key(message: &Message) -> String {
    String::from_utf8_lossy(&message.payload).into_owned()
}

/// Settles `message`: done with for good (`None`), or handed out again
/// after `delay`.
pub async fn settle(message: &Message, again_after: Option<Duration>) -> Result<(), ClusterError> {
    let kind = match again_after {
        None => AckKind::Ack,
        Some(delay) => AckKind::Nak(Some(delay)),
    };
    message.ack_with(kind).await.map_err(records::fail)
}
