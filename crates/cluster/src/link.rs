//! One replica's link to the cluster: the NATS connection, JetStream on it,
//! the streams and buckets, and the key what they hold is sealed with.

use std::sync::Arc;
use std::time::Duration;

use anyhow::Context as _;
use async_nats::connection::State;
use async_nats::jetstream;
use serde_json::{json, Value};

use crate::resources;
use crate::settings::ClusterConfig;

/// Whether `client` is connected to NATS now: what every shared piece asks
/// before it uses the cluster rather than this replica's own state.
pub fn is_connected(client: &async_nats::Client) -> bool {
    client.connection_state() == State::Connected
}

/// How long a replica waits for NATS at start before it gives up.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);

/// One replica's link to the cluster.
pub struct Link {
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
    /// The key secrets in the buckets are sealed with.
    pub seal: Arc<gleaner_seal::Seal>,
}

impl Link {
    /// Connects to NATS and creates what is missing of the streams and
    /// buckets (sessions kept `session_ttl`); `on_connection` hears of every
    /// loss and return of the connection. Fails, with what to check, when NATS cannot be reached.
    pub async fn connect(
        settings: &ClusterConfig,
        session_ttl: Duration,
        token_secret: &str,
        on_connection: fn(&str, bool),
    ) -> anyhow::Result<Arc<Link>> {
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
        if let (Some(user), Some(password)) = (&settings.nats_user, &settings.nats_password) {
            options = options.user_and_password(user.clone(), password.clone());
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
            .event_callback({
                let replica = replica.clone();
                move |event| {
                    let replica = replica.clone();
                    async move {
                        match event {
                            async_nats::Event::Connected => {
                                tracing::info!("connected to NATS again; shared state is back");
                                on_connection(&replica, true);
                            }
                            async_nats::Event::Disconnected => {
                                tracing::warn!("lost NATS; serving synchronous fetches on local state until it returns");
                                on_connection(&replica, false);
                            }
                            other => tracing::info!(event = %other, "NATS event"),
                        }
                    }
                }
            });
        let client = options.connect(url.as_str()).await.with_context(|| {
            format!(
                "cannot connect to NATS at {url} (GLEANER_NATS_URL): check that the server runs \
                 with JetStream (-js), the address, and the credentials or token"
            )
        })?;
        on_connection(&replica, true);
        let js = jetstream::new(client.clone());
        let resources = resources::Resources::ensure(&js, settings, session_ttl)
            .await
            .context("cannot create the cluster's streams and buckets; check that JetStream is enabled on the NATS server (-js) and that its account may create streams")?;
        tracing::info!(%replica, nats = %url, "cluster mode: jobs and state are shared through NATS JetStream");
        if !settings.has_credentials() {
            tracing::warn!(
                nats = %url,
                "joined NATS without credentials (GLEANER_NATS_INSECURE): anyone who reaches this NATS \
                 server can remove plugins from every replica and read every job; for a trial on one \
                 machine only"
            );
        }
        let seal = Arc::new(gleaner_seal::Seal::new(
            settings.seal_key.as_deref(),
            token_secret.as_bytes(),
        ));
        Ok(Arc::new(Link {
            client,
            js,
            replica,
            settings: settings.clone(),
            resources,
            seal,
        }))
    }

    /// The owner id API key `key` stands for in the cluster: an HMAC under
    /// the cluster's key (not a bare hash anyone could compute from a guess).
    pub fn owner_id(&self, key: &str) -> String {
        self.seal.sign(&["owner", key])[..24].to_owned()
    }

    /// Whether the connection to NATS is up now.
    pub fn connected(&self) -> bool {
        is_connected(&self.client)
    }

    /// The cluster part of `/healthz`.
    pub fn health(&self) -> Value {
        json!({
            "replica": self.replica,
            "nats": if self.connected() { "connected" } else { "disconnected" },
            "shared_state": self.connected(),
            "insecure": !self.settings.has_credentials(),
        })
    }
}
