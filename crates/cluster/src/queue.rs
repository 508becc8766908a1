//! The cluster's jobs waiting for a worker, in one lane per owner (API key),
//! which workers take in turns: a key with thousands of jobs waiting holds
//! up another key's job by at most one turn, as on one server.
//!
//! - A job waits as one message, its id, on `gleaner.jobs.waiting.<lane>`,
//!   the lane being a digest of its owner, in the work-queue stream
//!   `GLEANER_JOBS_WAITING`. The message stays until the job's end is
//!   recorded, so a lane's message count is its owner's unfinished jobs.
//! - Each lane has its durable consumer, `waiting-<lane>`, filtered on its
//!   subject: a worker that dies goes silent, and after the ack wait the job
//!   goes to another worker.
//! - The one queue of earlier versions (`GLEANER_JOB_QUEUE`, consumer
//!   `workers`) is drained as one more lane while it exists.

use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Duration;

use async_nats::jetstream::message::PublishMessage;
use async_nats::jetstream::{self, consumer, stream, Message};
use futures_util::StreamExt;
use sha2::{Digest, Sha256};

use crate::records::{self, ClusterError};

/// The stream of waiting jobs.
pub const JOBS_WAITING: &str = "GLEANER_JOBS_WAITING";
/// The subject prefix of a lane.
pub const WAITING_SUBJECT: &str = "gleaner.jobs.waiting";
/// The work queue of earlier versions, drained while it exists.
pub const LEGACY_QUEUE: &str = "GLEANER_JOB_QUEUE";
/// Its one consumer.
const LEGACY_WORKERS: &str = "workers";
/// Deliveries of one job message before it is given up: a job whose workers
/// died this many times fails.
pub const MAX_DELIVER: i64 = gleaner_jobs::store::MAX_INTERRUPTIONS as i64 + 1;

/// One owner's lane (a digest of the owner), or the queue of earlier versions.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum Lane {
    /// An owner's lane.
    Owner(String),
    /// `GLEANER_JOB_QUEUE`.
    Legacy,
}

/// The waiting jobs: their stream, each lane's consumer, and whose turn is next.
pub struct JobQueue {
    js: jetstream::Context,
    stream: stream::Stream,
    legacy: Option<consumer::PullConsumer>,
    ack_wait: Duration,
    consumers: Mutex<HashMap<String, consumer::PullConsumer>>,
    turn: AtomicUsize,
}

impl JobQueue {
    /// Finds the stream of waiting jobs, creating it when missing, and the
    /// queue of earlier versions if one is left.
    pub async fn open(
        js: &jetstream::Context,
        storage: stream::StorageType,
        replicas: usize,
        ack_wait: Duration,
    ) -> anyhow::Result<JobQueue> {
        let stream = js
            .get_or_create_stream(stream::Config {
                name: JOBS_WAITING.into(),
                description: Some("Gleaner: jobs waiting for a worker, a lane per owner".into()),
                subjects: vec![format!("{WAITING_SUBJECT}.*")],
                retention: stream::RetentionPolicy::WorkQueue,
                storage,
                num_replicas: replicas,
                duplicate_window: Duration::from_secs(120),
                ..Default::default()
            })
            .await?;
        let legacy = match js.get_stream(LEGACY_QUEUE).await {
            Ok(old) => old.get_consumer(LEGACY_WORKERS).await.ok(),
            Err(_) => None,
        };
        Ok(JobQueue {
            js: js.clone(),
            stream,
            legacy,
            ack_wait,
            consumers: Mutex::default(),
            turn: AtomicUsize::new(0),
        })
    }

    /// The lane of `owner`.
    fn lane(owner: &str) -> String {
        hex::encode(&Sha256::digest(owner.as_bytes())[..12])
    }

    fn subject(lane: &str) -> String {
        format!("{WAITING_SUBJECT}.{lane}")
    }

    /// Puts job `id` of `owner` in its owner's lane (once, whatever the retries).
    pub async fn push(&self, owner: &str, id: &str) -> Result<(), ClusterError> {
        let message = PublishMessage::build()
            .payload(id.as_bytes().to_vec().into())
            .message_id(id);
        let ack = self
            .js
            .send_publish(Self::subject(&Self::lane(owner)), message)
            .await
            .map_err(records::fail)?;
        ack.await.map_err(records::fail)?;
        Ok(())
    }

    /// How many jobs of `owner` wait or run (their end not yet recorded).
    pub async fn unfinished(&self, owner: &str) -> Result<u64, ClusterError> {
        records::count(&self.stream, &Self::subject(&Self::lane(owner))).await
    }

    /// The lanes holding messages, starting one further on at each call, so
    /// each lane has the first turn in its turn.
    pub async fn lanes_in_turn(&self) -> Result<VecDeque<Lane>, ClusterError> {
        let mut subjects = self
            .stream
            .info_with_subjects(format!("{WAITING_SUBJECT}.*"))
            .await
            .map_err(records::fail)?;
        let mut lanes = Vec::new();
        while let Some(entry) = subjects.next().await {
            let (subject, count) = entry.map_err(records::fail)?;
            if let Some(lane) = subject.strip_prefix(&format!("{WAITING_SUBJECT}.")) {
                if count > 0 {
                    lanes.push(lane.to_owned());
                }
            }
        }
        lanes.sort();
        let mut turn: VecDeque<Lane> = lanes.into_iter().map(Lane::Owner).collect();
        if !turn.is_empty() {
            let start = self.turn.fetch_add(1, Ordering::Relaxed) % turn.len();
            turn.rotate_left(start);
        }
        if let Some(legacy) = &self.legacy {
            let mut legacy = legacy.clone();
            if legacy.info().await.is_ok_and(|i| i.num_pending > 0) {
                turn.push_front(Lane::Legacy);
            }
        }
        Ok(turn)
    }

    /// The next message of `lane` no worker holds, if any, at once.
    pub async fn next(&self, lane: &Lane) -> Result<Option<Message>, ClusterError> {
        let consumer = match lane {
            Lane::Legacy => match &self.legacy {
                Some(c) => c.clone(),
                None => return Ok(None),
            },
            Lane::Owner(lane) => self.consumer(lane).await?,
        };
        let mut batch = consumer
            .fetch()
            .max_messages(1)
            .messages()
            .await
            .map_err(records::fail)?;
        match batch.next().await {
            Some(message) => Ok(Some(message.map_err(records::fail)?)),
            None => Ok(None),
        }
    }

    /// The consumer of `lane`, found or created once.
    async fn consumer(&self, lane: &str) -> Result<consumer::PullConsumer, ClusterError> {
        if let Some(c) = self.cached(lane) {
            return Ok(c);
        }
        let name = format!("waiting-{lane}");
        let consumer = self
            .stream
            .get_or_create_consumer(
                &name,
                consumer::pull::Config {
                    durable_name: Some(name.clone()),
                    description: Some("Gleaner: the workers of one owner's jobs".into()),
                    filter_subject: Self::subject(lane),
                    ack_policy: consumer::AckPolicy::Explicit,
                    ack_wait: self.ack_wait,
                    max_deliver: MAX_DELIVER,
                    ..Default::default()
                },
            )
            .await
            .map_err(records::fail)?;
        self.consumers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(lane.to_owned(), consumer.clone());
        Ok(consumer)
    }

    fn cached(&self, lane: &str) -> Option<consumer::PullConsumer> {
        self.consumers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(lane)
            .cloned()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_owner_has_its_own_lane_and_a_subject_token() {
        let a = JobQueue::lane("owner-a");
        assert_eq!(a.len(), 24);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, JobQueue::lane("owner-b"));
        assert_eq!(a, JobQueue::lane("owner-a"));
        // The anonymous owner (no API keys) has a lane too.
        assert_eq!(JobQueue::lane("").len(), 24);
    }
}
