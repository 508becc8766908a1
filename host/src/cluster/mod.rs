//! Cluster mode: replicas that share jobs and state through NATS JetStream.
//! Nothing here is a queue, lock or consensus of our own: work-queue streams,
//! key-value buckets (compare-and-set on revisions) and their watches do it.
//! Off unless `GLEANER_NATS_URL` is set; the single binary is unchanged.
//!
//! - [`settings`]: what turns it on, and how the state is kept;
//! - [`resources`]: the streams and buckets, created at start when missing;
//! - [`jobs`]: the jobs store on them, behind [`crate::jobs::store::Store`];
//! - [`pacing`]: each upstream host's turns, for every replica's pacer.
//!
//! [`Cluster::share`] hooks the shared pieces into the server's services.

pub mod jobs;
pub mod pacing;
pub mod records;
pub mod resources;
pub mod settings;

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use async_nats::connection::State;
use async_nats::jetstream;
use serde_json::{json, Value};

use crate::telemetry::metrics;
use settings::ClusterConfig;

/// How long a replica waits for NATS at start before it gives up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One replica's link to the cluster.
pub struct Cluster {
    /// The NATS connection; it reconnects by itself.
    pub client: async_nats::Client,
    /// JetStream on it.
    pub js: jetstream::Context,
    /// This replica's name.
    pub replica: String,
    /// The settings it was started with.
    pub settings: ClusterConfig,
    /// The streams and buckets.
    pub resources: resources::Resources,
}

impl Cluster {
    /// Connects to NATS and creates what is missing of the streams and
    /// buckets. Fails, with what to check, when NATS cannot be reached.
    pub async fn connect(settings: &ClusterConfig) -> anyhow::Result<Arc<Cluster>> {
        let url = settings.nats_url.clone().unwrap_or_default();
        let replica = settings.replica();
        let mut options = match &settings.nats_creds {
            Some(path) => async_nats::ConnectOptions::with_credentials_file(path)
                .await
                .with_context(|| {
                    format!(
                        "cannot read the NATS credentials file {} (GLEANER_NATS_CREDS)",
                        path.display()
                    )
                })?,
            None => async_nats::ConnectOptions::new(),
        };
        if let Some(token) = &settings.nats_token {
            options = options.token(token.clone());
        }
        if let Some(ca) = &settings.nats_tls_ca {
            options = options.add_root_certificates(ca.clone()).require_tls(true);
        }
        if let (Some(cert), Some(key)) = (&settings.nats_tls_cert, &settings.nats_tls_key) {
            options = options.add_client_certificate(cert.clone(), key.clone());
        }
        let options = options
            .name(format!("gleaner {replica}"))
            .connection_timeout(CONNECT_TIMEOUT)
            .max_reconnects(None)
            .event_callback(|event| async move {
                match event {
                    async_nats::Event::Connected => {
                        tracing::info!("connected to NATS again; shared state is back");
                        metrics::cluster_connected(true);
                    }
                    async_nats::Event::Disconnected => {
                        tracing::warn!("lost NATS; serving synchronous fetches on local state until it returns");
                        metrics::cluster_connected(false);
                    }
                    other => tracing::info!(event = %other, "NATS event"),
                }
            });
        let client = options.connect(url.as_str()).await.with_context(|| {
            format!(
                "cannot connect to NATS at {url} (GLEANER_NATS_URL): check that the server runs \
                 with JetStream (-js), the address, and the credentials or token"
            )
        })?;
        metrics::cluster_connected(true);
        let js = jetstream::new(client.clone());
        let resources = resources::Resources::ensure(&js, settings)
            .await
            .context("cannot create the cluster's streams and buckets; check that JetStream is enabled on the NATS server (-js) and that its account may create streams")?;
        tracing::info!(%replica, nats = %url, "cluster mode: jobs and state are shared through NATS JetStream");
        Ok(Arc::new(Cluster {
            client,
            js,
            replica,
            settings: settings.clone(),
            resources,
        }))
    }

    /// Hooks the cluster's shared state into the server-wide services.
    pub fn share(&self, services: &crate::capabilities::Services) {
        let turns = pacing::SharedPacing::new(self.client.clone(), self.resources.pacing.clone());
        services.http.pacer().share(turns);
    }

    /// Whether the connection to NATS is up now.
    pub fn connected(&self) -> bool {
        self.client.connection_state() == State::Connected
    }

    /// The cluster part of `/healthz`.
    pub fn health(&self) -> Value {
        json!({
            "replica": self.replica,
            "nats": if self.connected() { "connected" } else { "disconnected" },
            "shared_state": self.connected(),
        })
    }
}
