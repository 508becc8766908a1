//! Cluster mode against a real NATS server with JetStream and several
//! replicas: jobs that move to another replica when their worker dies, any
//! replica answering for any job, schedules that run once per period, and a
//! NATS outage under load.
//!
//! The tests that start a NATS server need Debian's `nats-server`, so they
//! are `#[ignore]`d: `make test` installs nothing and lists them as ignored,
//! and `make test-cluster` installs it and runs them; run without it, they
//! fail saying what to install. `GLEANER_NATS_SERVER` names the binary if it
//! is not on the PATH.

mod jobs;
pub(crate) mod nats;
mod pacing;
pub(crate) mod rollout;
mod shared;
pub(crate) mod startup;
mod webhooks;

use std::net::SocketAddr;

use crate::common;
use crate::jobs::KEY;

/// An in-process replica of the cluster at `nats`, fetching from `site`,
/// taking [`KEY`], giving up on a silent worker after 2 s.
async fn replica(nats: &nats::Nats, site: SocketAddr, name: &str) -> common::Server {
    replica_with(nats, site, name, |_| {}).await
}

/// As [`replica`], after `adjust` edits the configuration.
pub(crate) async fn replica_with(
    nats: &nats::Nats,
    site: SocketAddr,
    name: &str,
    adjust: impl FnOnce(&mut gleaner::config::Config),
) -> common::Server {
    let (url, name) = (nats.url(), name.to_owned());
    common::start(&["customer-feedback-hub"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("www.trustpilot.com".into(), format!("http://{site}"));
        c.api_keys = vec![KEY.into()];
        c.cluster.nats_url = Some(url);
        c.cluster.nats_token = Some(nats::TOKEN.into());
        c.cluster.job_ack_wait_secs = 2;
        c.cluster.replica_name = Some(name);
        adjust(c);
    })
    .await
}

/// The test's own link to the cluster at `url` (as a replica's, with the
/// test servers' token secret), after `adjust` edits its cluster settings.
pub(crate) async fn connect(
    url: String,
    adjust: impl FnOnce(&mut gleaner::cluster::settings::ClusterConfig),
) -> anyhow::Result<std::sync::Arc<gleaner::cluster::Cluster>> {
    let mut config = gleaner::config::Config {
        token_secret: Some(common::TOKEN_SECRET.into()),
        ..Default::default()
    };
    config.cluster.nats_url = Some(url);
    config.cluster.nats_token = Some(nats::TOKEN.into());
    adjust(&mut config.cluster);
    gleaner::cluster::Cluster::connect(&config).await
}

/// The environment of a replica run as a process, as [`replica`] sets it.
fn replica_env(nats: &nats::Nats, site: SocketAddr, name: &str) -> Vec<(&'static str, String)> {
    vec![
        ("GLEANER_NATS_URL", nats.url()),
        ("GLEANER_NATS_TOKEN", nats::TOKEN.into()),
        ("GLEANER_JOB_ACK_WAIT_SECS", "2".into()),
        ("GLEANER_REPLICA_NAME", name.into()),
        ("GLEANER_TOKEN_SECRET", common::TOKEN_SECRET.into()),
        ("GLEANER_API_KEYS", KEY.into()),
        (
            "GLEANER_UPSTREAM_OVERRIDE",
            format!("www.trustpilot.com=http://{site}"),
        ),
    ]
}
