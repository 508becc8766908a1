//! The streams and key-value buckets a cluster keeps its state in, created by
//! the first replica that starts and found by the others. Each is kept in the
//! storage and with the copies the settings name (`GLEANER_NATS_STORAGE`,
//! `GLEANER_NATS_REPLICAS`); docs/deploying.md lists them.

use std::time::Duration;

use async_nats::jetstream::{self, kv, stream};

use crate::queue::JobQueue;
use crate::sends::SendQueue;
use crate::settings::ClusterConfig;

/// Every job's reviews, on the subject `gleaner.reviews.<job id>`.
pub const REVIEWS: &str = "GLEANER_JOB_REVIEWS";
/// The subject prefix of a job's reviews.
pub const REVIEWS_SUBJECT: &str = "gleaner.reviews";
/// The review ids each schedule's runs delivered, on `gleaner.delivered.<schedule id>`.
pub const DELIVERED: &str = "GLEANER_SCHEDULE_DELIVERED";
/// The subject prefix of a schedule's delivered ids.
pub const DELIVERED_SUBJECT: &str = "gleaner.delivered";
/// A tracked schedule's fingerprints, one message per review on
/// `gleaner.tracked.<schedule id>.<review id digest>`.
pub const TRACKED: &str = "GLEANER_SCHEDULE_TRACKED";
/// The subject prefix of the fingerprints.
pub const TRACKED_SUBJECT: &str = "gleaner.tracked";
/// A tracked schedule's change records, on `gleaner.changes.<schedule id>`.
pub const CHANGES: &str = "GLEANER_SCHEDULE_CHANGES";
/// The subject prefix of the change records.
pub const CHANGES_SUBJECT: &str = "gleaner.changes";
/// How long a review's message id is remembered, so a page stored again
/// after a worker's crash stores nothing twice.
pub const DUPLICATE_WINDOW: Duration = Duration::from_secs(3_600);

/// Job records (state, counts and the position to resume from), by job id.
pub const JOBS_BUCKET: &str = "gleaner_jobs";
/// Schedules, by schedule id.
pub const SCHEDULES_BUCKET: &str = "gleaner_schedules";
/// Webhook deliveries, by job id.
pub const WEBHOOKS_BUCKET: &str = "gleaner_webhooks";
/// Each upstream host's next turn (wall-clock ms), by host.
pub const PACING_BUCKET: &str = "gleaner_pacing";
/// How long a host's turn is kept after it was set: long past any gap.
const PACING_MAX_AGE: Duration = Duration::from_secs(3_600);
/// Wall back-offs and proxy cool-downs, watched by every replica.
pub const COOLDOWNS_BUCKET: &str = "gleaner_cooldowns";
/// The plugin cache, sealed, by plugin and key digest.
pub const CACHE_BUCKET: &str = "gleaner_cache";
/// The longest a cached value lives, whatever its own time to live.
const CACHE_MAX_AGE: Duration = Duration::from_secs(7 * 86_400);
/// Fetch sessions, sealed, by session id.
pub const SESSIONS_BUCKET: &str = "gleaner_sessions";
/// Plugin components, named `<plugin>-<sha256>.wasm`.
pub const PLUGINS_OBJECTS: &str = "gleaner_plugins";
/// The announced version of each plugin (manifest, digest), by plugin name.
pub const VERSIONS_BUCKET: &str = "gleaner_plugin_versions";
/// What each replica serves of each plugin, by `<replica>.<plugin>`.
pub const REPLICAS_BUCKET: &str = "gleaner_replica_plugins";

/// Handles on the streams and buckets.
pub struct Resources {
    /// The jobs waiting for a worker, a lane per owner.
    pub queue: JobQueue,
    /// The webhook deliveries waiting to be sent.
    pub sends: SendQueue,
    /// Jobs' reviews.
    pub reviews: stream::Stream,
    /// Schedules' delivered ids.
    pub delivered: stream::Stream,
    /// Tracked schedules' fingerprints.
    pub tracked: stream::Stream,
    /// Tracked schedules' change records.
    pub changes: stream::Stream,
    /// Job records.
    pub jobs: kv::Store,
    /// Schedules.
    pub schedules: kv::Store,
    /// Webhook deliveries.
    pub webhooks: kv::Store,
    /// Hosts' turns.
    pub pacing: kv::Store,
    /// Cool-downs.
    pub cooldowns: kv::Store,
    /// The plugin cache.
    pub cache: kv::Store,
    /// Fetch sessions.
    pub sessions: kv::Store,
    /// Plugin components.
    pub plugins: async_nats::jetstream::object_store::ObjectStore,
    /// Announced plugin versions.
    pub versions: kv::Store,
    /// Replicas' plugin versions.
    pub replica_plugins: kv::Store,
}

impl Resources {
    /// Finds each stream and bucket, creating what is missing.
    pub async fn ensure(
        js: &jetstream::Context,
        settings: &ClusterConfig,
        session_ttl: Duration,
    ) -> anyhow::Result<Resources> {
        let storage = match settings.storage.as_str() {
            "memory" => stream::StorageType::Memory,
            _ => stream::StorageType::File,
        };
        let replicas = settings.replicas.max(1);
        let queue = JobQueue::open(js, storage, replicas, settings.ack_wait()).await?;
        let sends = SendQueue::open(js, storage, replicas, settings.ack_wait()).await?;
        let log = |name: &str, subject: &str, description: &str| stream::Config {
            name: name.into(),
            description: Some(description.into()),
            subjects: vec![format!("{subject}.*")],
            storage,
            num_replicas: replicas,
            duplicate_window: DUPLICATE_WINDOW,
            allow_direct: true,
            ..Default::default()
        };
        let reviews = js
            .get_or_create_stream(log(REVIEWS, REVIEWS_SUBJECT, "Gleaner: jobs' reviews"))
            .await?;
        let delivered = js
            .get_or_create_stream(log(
                DELIVERED,
                DELIVERED_SUBJECT,
                "Gleaner: the review ids each schedule delivered",
            ))
            .await?;
        let tracked = js
            .get_or_create_stream(stream::Config {
                subjects: vec![format!("{TRACKED_SUBJECT}.*.*")],
                max_messages_per_subject: 1,
                ..log(
                    TRACKED,
                    TRACKED_SUBJECT,
                    "Gleaner: tracked schedules' fingerprints",
                )
            })
            .await?;
        let changes = js
            .get_or_create_stream(log(
                CHANGES,
                CHANGES_SUBJECT,
                "Gleaner: tracked schedules' change records",
            ))
            .await?;
        // A bucket found or created, keeping one value per key for `max_age`
        // after its last change (zero: for good).
        let bucket = |name: &'static str, description: &'static str, max_age: Duration| {
            key_value(
                js,
                kv::Config {
                    bucket: name.into(),
                    description: description.into(),
                    history: 1,
                    max_age,
                    storage,
                    num_replicas: replicas,
                    ..Default::default()
                },
            )
        };
        let forever = Duration::ZERO;
        Ok(Resources {
            queue,
            sends,
            reviews,
            delivered,
            tracked,
            changes,
            jobs: bucket(JOBS_BUCKET, "Gleaner: job records", forever).await?,
            schedules: bucket(SCHEDULES_BUCKET, "Gleaner: schedules", forever).await?,
            webhooks: bucket(WEBHOOKS_BUCKET, "Gleaner: webhook deliveries", forever).await?,
            pacing: bucket(
                PACING_BUCKET,
                "Gleaner: each upstream host's next turn",
                PACING_MAX_AGE,
            )
            .await?,
            cooldowns: bucket(
                COOLDOWNS_BUCKET,
                "Gleaner: wall back-offs and proxy cool-downs",
                Duration::from_secs(86_400),
            )
            .await?,
            cache: bucket(
                CACHE_BUCKET,
                "Gleaner: the plugin cache, sealed",
                CACHE_MAX_AGE,
            )
            .await?,
            sessions: bucket(
                SESSIONS_BUCKET,
                "Gleaner: fetch sessions, sealed",
                session_ttl.max(Duration::from_secs(1)),
            )
            .await?,
            plugins: match js.get_object_store(PLUGINS_OBJECTS).await {
                Ok(store) => store,
                Err(_) => {
                    js.create_object_store(async_nats::jetstream::object_store::Config {
                        bucket: PLUGINS_OBJECTS.into(),
                        description: Some("Gleaner: plugin components".into()),
                        storage,
                        num_replicas: replicas,
                        ..Default::default()
                    })
                    .await?
                }
            },
            versions: bucket(
                VERSIONS_BUCKET,
                "Gleaner: announced plugin versions",
                forever,
            )
            .await?,
            replica_plugins: bucket(
                REPLICAS_BUCKET,
                "Gleaner: what each replica serves",
                forever,
            )
            .await?,
        })
    }
}

/// The bucket `config` names, created when missing. Its stream is made
/// here, as JetStream's key-value convention defines it (`KV_<bucket>` on
/// `$KV.<bucket>.>`, one message kept per key, rollups, direct gets): the
/// client's own bucket creation first asks for account details in a form
/// NATS 2.9 does not answer, while everything after works on 2.9 and later.
pub async fn key_value(js: &jetstream::Context, config: kv::Config) -> anyhow::Result<kv::Store> {
    if let Ok(store) = js.get_key_value(config.bucket.clone()).await {
        return Ok(store);
    }
    let bucket = &config.bucket;
    js.get_or_create_stream(stream::Config {
        name: format!("KV_{bucket}"),
        description: Some(config.description.clone()),
        subjects: vec![format!("$KV.{bucket}.>")],
        max_messages_per_subject: config.history.max(1),
        max_age: config.max_age,
        storage: config.storage,
        num_replicas: config.num_replicas.max(1),
        allow_rollup: true,
        deny_delete: true,
        allow_direct: true,
        discard: stream::DiscardPolicy::New,
        duplicate_window: Duration::from_secs(120),
        ..Default::default()
    })
    .await?;
    Ok(js.get_key_value(bucket.clone()).await?)
}
