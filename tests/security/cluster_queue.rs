//! Keys take turns in cluster mode too: with one key's 500 jobs waiting in
//! JetStream, another key's job ends within three times the time it takes
//! alone, as on one server; and a job an earlier version left in its one
//! queue still runs.

use std::time::Duration;

use super::job_queue::{assert_turns_taken, OTHER};
use crate::cluster::nats::Nats;
use crate::cluster::{connect, replica_with};
use crate::jobs::{finished, job_request, Site, HUB, KEY};

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn another_keys_job_is_not_held_up_behind_a_backlog_in_the_cluster() {
    let nats = Nats::start();
    let site = Site::with(5);
    *site.delay.lock().unwrap() = Duration::from_millis(300);
    let s = replica_with(&nats, site.serve().await, "a", |c| {
        c.api_keys = vec![KEY.into(), OTHER.into()];
    })
    .await;
    assert_turns_taken(&s).await;
}

/// A job an earlier version left in its one queue (`GLEANER_JOB_QUEUE`)
/// still runs once replicas take jobs by owner.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn a_job_left_in_the_queue_of_an_earlier_version_still_runs() {
    use async_nats::jetstream::{consumer, stream};
    use gleaner::jobs::store::JobStore;

    let nats = Nats::start();
    let site = Site::with(5);
    let addr = site.serve().await;
    let cluster = connect(nats.url(), |_| {}).await.unwrap();
    let old = cluster
        .js
        .create_stream(stream::Config {
            name: "GLEANER_JOB_QUEUE".into(),
            subjects: vec!["gleaner.jobs.queue".into()],
            retention: stream::RetentionPolicy::WorkQueue,
            storage: stream::StorageType::Memory,
            ..Default::default()
        })
        .await
        .unwrap();
    old.create_consumer(consumer::pull::Config {
        durable_name: Some("workers".into()),
        ack_policy: consumer::AckPolicy::Explicit,
        ..Default::default()
    })
    .await
    .unwrap();
    // The job's record, with its id moved from its lane to the old queue.
    let store = gleaner::cluster::jobs::JetStreamStore::new(cluster.link.clone());
    let job = store
        .create_job(gleaner::jobs::model::NewJob {
            owner: cluster.owner_id(KEY),
            endpoint: HUB.into(),
            request: job_request(None)["request"].clone(),
            total: None,
            webhook: None,
            schedule_id: None,
            export: None,
        })
        .await
        .unwrap();
    let mut waiting = cluster.js.get_stream("GLEANER_JOBS_WAITING").await.unwrap();
    waiting.purge().await.unwrap();
    assert_eq!(waiting.info().await.unwrap().state.messages, 0);
    cluster
        .js
        .publish("gleaner.jobs.queue", job.job_id.clone().into())
        .await
        .unwrap()
        .await
        .unwrap();

    let s = replica_with(&nats, addr, "a", |_| {}).await;
    let done = finished(&s, &job.job_id, KEY, Duration::from_secs(30)).await;
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["reviews_collected"], 5, "{done}");
    let mut old = cluster.js.get_stream("GLEANER_JOB_QUEUE").await.unwrap();
    assert_eq!(old.info().await.unwrap().state.messages, 0, "drained");
}
