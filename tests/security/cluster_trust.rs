//! The cluster trusts only replicas that authenticate to NATS: a replica
//! refuses to join a NATS server without credentials (a token, a credentials
//! file or a client certificate), unless `GLEANER_NATS_INSECURE=true` says
//! this is a trial on one machine. Refused in settings, before any
//! connection: no NATS server is needed here.

use std::time::Instant;

use crate::cluster::startup::refused;
use crate::common;

#[test]
fn a_replica_without_nats_credentials_refuses_to_start() {
    let started = Instant::now();
    let text = refused(&[
        ("GLEANER_NATS_URL", "nats://127.0.0.1:1"),
        ("GLEANER_TOKEN_SECRET", common::TOKEN_SECRET),
    ]);
    let took = started.elapsed();
    eprintln!(
        "refused an insecure cluster start {} ms after launch",
        took.as_millis()
    );
    assert!(
        text.contains("needs NATS credentials")
            && text.contains("GLEANER_NATS_TOKEN")
            && text.contains("GLEANER_NATS_INSECURE=true"),
        "{text}"
    );
    // With the switch, the settings pass and the replica goes on to connect.
    let text = refused(&[
        ("GLEANER_NATS_URL", "nats://127.0.0.1:1"),
        ("GLEANER_TOKEN_SECRET", common::TOKEN_SECRET),
        ("GLEANER_NATS_INSECURE", "true"),
    ]);
    assert!(
        text.contains("cannot connect to NATS at nats://127.0.0.1:1"),
        "{text}"
    );
}

/// A client that can write to NATS but holds no cluster key can neither
/// remove a plugin (a bare delete marker on the versions bucket) nor install
/// one (an announcement of its own, with a component it put in the object
/// store): each replica ignores and counts both, and serves on.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn a_nats_client_without_the_cluster_key_can_neither_remove_nor_install_a_plugin() {
    use serde_json::json;
    use sha2::Digest;
    use std::time::Duration;

    use crate::cluster::nats::{Nats, TOKEN};
    use crate::cluster::rollout::{swap_replica, upload_v2, ADMIN};
    use crate::hotswap::{served_version, staged};

    let nats = Nats::start();
    let a = swap_replica(&nats, "a").await;
    // A signed announcement: version 2.0.0, uploaded through the admin API.
    upload_v2(&a).await;
    assert_eq!(served_version(&a).await, (200, Some("2.0.0".into())));

    let intruder = async_nats::ConnectOptions::new()
        .token(TOKEN.into())
        .connect(nats.url())
        .await
        .unwrap();
    let js = async_nats::jetstream::new(intruder);
    let versions = js.get_key_value("gleaner_plugin_versions").await.unwrap();
    // (a) A bare delete marker.
    versions.delete("test-swap").await.unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        served_version(&a).await,
        (200, Some("2.0.0".into())),
        "an unsigned deletion removed the plugin"
    );
    // (b) An announcement of the intruder's own, with a component it stored.
    let component = staged("test-swap-v1.wasm");
    let sha256 = hex::encode(sha2::Sha256::digest(&component));
    let objects = js.get_object_store("gleaner_plugins").await.unwrap();
    let object = format!("test-swap-{sha256}.wasm");
    objects
        .put(object.as_str(), &mut component.as_slice())
        .await
        .unwrap();
    let forged = json!({
        "name": "test-swap",
        "version": "1.0.0",
        "sha256": sha256,
        "object": object,
        "manifest": String::from_utf8(staged("test-swap-v1.toml")).unwrap(),
        "by": "intruder",
        "signature": "00".repeat(32),
    });
    versions
        .put("test-swap", forged.to_string().into())
        .await
        .unwrap();
    tokio::time::sleep(Duration::from_secs(1)).await;
    assert_eq!(
        served_version(&a).await,
        (200, Some("2.0.0".into())),
        "a forged announcement installed its version"
    );
    let metrics = a
        .client
        .get(a.url("/metrics"))
        .header("x-api-key", ADMIN)
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let ignored: f64 = metrics
        .lines()
        .find_map(|l| l.strip_prefix("gleaner_rollout_unverified_total "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or(0.0);
    assert!(ignored >= 2.0, "both were counted: {ignored}");
}

/// The NATS configuration the deploy files ship (`deploy/nats/nats.conf`)
/// takes no client without credentials, and its user `gleaner` may do all a
/// replica does: a job runs through the cluster's streams and buckets.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[ignore = "needs nats-server: make test-cluster"]
async fn the_shipped_nats_configuration_admits_the_replicas_user_alone_and_what_it_stores_is_sealed(
) {
    use std::time::Duration;

    use crate::cluster::nats::Nats;
    use crate::jobs::{finished, job_request, submit, Site, KEY};

    let password = "nats-password-for-this-test-0123";
    let conf = common::root().join("deploy/nats/nats.conf");
    let nats = Nats::start_with_env(
        &["-c", conf.to_str().unwrap()],
        &[("GLEANER_NATS_PASSWORD", password)],
    );
    let anonymous = crate::cluster::connect(nats.url(), |c| c.nats_token = None).await;
    assert!(
        anonymous.is_err(),
        "a client without credentials was let in"
    );
    let wrong = crate::cluster::connect(nats.url(), |c| {
        c.nats_token = None;
        c.nats_user = Some("gleaner".into());
        c.nats_password = Some("not-the-password".into());
    })
    .await;
    assert!(wrong.is_err(), "a wrong password was let in");

    let site = Site::with(25);
    let addr = site.serve().await;
    let a = crate::cluster::replica_with(&nats, addr, "a", |c| {
        c.cluster.nats_token = None;
        c.cluster.nats_user = Some("gleaner".into());
        c.cluster.nats_password = Some(password.into());
    })
    .await;
    let id = submit(&a, job_request(None)).await;
    let done = finished(&a, &id, KEY, Duration::from_secs(30)).await;
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["reviews_collected"], 25, "{done}");

    // The job's record names its owner by an HMAC under the cluster's key,
    // not by a hash anyone could compute from a guessed API key.
    use sha2::Digest;
    let client = async_nats::ConnectOptions::new()
        .user_and_password("gleaner".into(), password.into())
        .connect(nats.url())
        .await
        .unwrap();
    let js = async_nats::jetstream::new(client);
    let jobs = js.get_key_value("gleaner_jobs").await.unwrap();
    let raw = jobs.get(&id).await.unwrap().expect("the job's record");
    let text = String::from_utf8_lossy(&raw);
    let bare = hex::encode(&sha2::Sha256::digest(KEY.as_bytes())[..12]);
    assert!(
        !text.contains(&bare),
        "the owner is the key's bare hash: {text}"
    );
    // The record is sealed: neither its request nor its state is in clear,
    // and neither are the reviews in the stream.
    assert!(
        !text.contains("jobs.example") && !text.contains("succeeded"),
        "the job's record is in clear: {text}"
    );
    let reviews = js.get_stream("GLEANER_JOB_REVIEWS").await.unwrap();
    let first = reviews.get_raw_message(1).await.unwrap();
    let payload = String::from_utf8_lossy(&first.payload);
    assert!(
        !payload.contains("review_id"),
        "a review is in clear in the stream: {payload}"
    );
}
