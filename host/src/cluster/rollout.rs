//! Plugin roll-out to every replica. An admin upload on any replica is
//! installed there as before, then its component goes into the object store
//! (named by its digest) and its manifest and version into the versions
//! bucket. Every replica watches that bucket, from its current entries on:
//! for a version it does not serve, it fetches the component, checks it as
//! it checks a local upload, and swaps it in (the hot swap, with no request
//! failing), or keeps what it serves and says why. Each replica reports the
//! version it serves of each plugin in the replicas bucket, which
//! `GET /admin/plugins` shows. A replica that starts later loads the
//! announced versions the same way; a withdrawal removes the plugin everywhere.
//!
//! Announcements and withdrawals are signed with the cluster's key (as
//! secrets in the buckets are sealed with it): a replica ignores, logs and
//! counts one it cannot verify, and a bare delete marker in the bucket, so a
//! client that can write to NATS but holds no cluster key can neither install
//! nor remove a plugin.

use std::sync::Arc;
use std::time::Duration;

use async_nats::jetstream::{kv, object_store::ObjectStore};
use futures_util::StreamExt;
use serde::{Deserialize, Serialize};
use sha2::Digest;
use tokio::io::AsyncReadExt;

use super::records::{self, ClusterError};
use crate::config::Config;
use crate::registry::{upload, Registry};
use crate::runtime::Runtime;
use gleaner_jobs::clock::{now_ms, rfc3339};

/// A version of a plugin announced to every replica.
#[derive(Debug, Clone, Serialize, Deserialize)]
struct Announced {
    name: String,
    version: String,
    sha256: String,
    /// The component's name in the object store.
    object: String,
    /// The manifest's TOML text.
    manifest: String,
    /// The replica it was uploaded to.
    by: String,
    /// Set: the plugin is withdrawn from every replica (the other fields
    /// but `name` are empty).
    #[serde(default)]
    withdrawn: bool,
    /// The cluster key's signature of the fields above.
    #[serde(default)]
    signature: String,
}

impl Announced {
    /// What the signature covers.
    fn signed_parts(&self) -> [&str; 8] {
        let kind = if self.withdrawn {
            "withdraw"
        } else {
            "announce"
        };
        [
            kind,
            &self.name,
            &self.version,
            &self.sha256,
            &self.object,
            &self.manifest,
            &self.by,
            "gleaner-rollout-v1",
        ]
    }
}

/// What one replica serves of one plugin, as it reports it.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct ReplicaVersion {
    /// The replica.
    pub replica: String,
    /// The plugin.
    pub plugin: String,
    /// The version it serves, if any.
    pub version: Option<String>,
    /// Its component's SHA-256.
    pub sha256: Option<String>,
    /// `serving` (the announced version), `refused` (it keeps what it had,
    /// the announced version failed its checks) or `removed`.
    pub state: String,
    /// Why the announced version was refused.
    pub error: Option<String>,
    /// When it reported, RFC 3339.
    pub at: String,
}

/// One replica's part in roll-outs.
pub struct Rollout {
    objects: ObjectStore,
    versions: kv::Store,
    replicas: kv::Store,
    replica: String,
    seal: Arc<gleaner_seal::Seal>,
}

impl Rollout {
    /// The roll-outs of the cluster's plugins store and buckets, as `replica`.
    pub fn new(
        objects: ObjectStore,
        versions: kv::Store,
        replicas: kv::Store,
        replica: String,
        seal: Arc<gleaner_seal::Seal>,
    ) -> Arc<Rollout> {
        Arc::new(Rollout {
            objects,
            versions,
            replicas,
            replica,
            seal,
        })
    }

    /// `record` with its signature.
    fn signed(&self, mut record: Announced) -> Announced {
        record.signature = self.seal.sign(&record.signed_parts());
        record
    }

    /// Announces plugin `name` (installed here) to every replica.
    pub async fn announce(
        &self,
        name: &str,
        manifest: &str,
        component: &[u8],
    ) -> Result<(), ClusterError> {
        let sha256 = hex::encode(sha2::Sha256::digest(component));
        let object = format!("{name}-{sha256}.wasm");
        let mut reader = component;
        self.objects
            .put(object.as_str(), &mut reader)
            .await
            .map_err(records::fail)?;
        let version = toml::from_str::<crate::manifest::Manifest>(manifest)
            .map(|m| m.version)
            .unwrap_or_default();
        let announced = self.signed(Announced {
            name: name.to_owned(),
            version,
            sha256,
            object,
            manifest: manifest.to_owned(),
            by: self.replica.clone(),
            withdrawn: false,
            signature: String::new(),
        });
        records::put(&self.versions, &records::safe_key(name), &announced).await?;
        Ok(())
    }

    /// Removes plugin `name` from every replica: a signed withdrawal.
    pub async fn withdraw(&self, name: &str) -> Result<(), ClusterError> {
        let withdrawal = self.signed(Announced {
            name: name.to_owned(),
            version: String::new(),
            sha256: String::new(),
            object: String::new(),
            manifest: String::new(),
            by: self.replica.clone(),
            withdrawn: true,
            signature: String::new(),
        });
        records::put(&self.versions, &records::safe_key(name), &withdrawal).await?;
        Ok(())
    }

    /// Every replica's report of every plugin, by replica then plugin.
    pub async fn replica_versions(&self) -> Result<Vec<ReplicaVersion>, ClusterError> {
        let mut all = records::all::<ReplicaVersion>(&self.replicas).await?;
        all.sort_by(|a, b| (&a.replica, &a.plugin).cmp(&(&b.replica, &b.plugin)));
        Ok(all)
    }

    /// Follows the announced versions for as long as the process runs,
    /// installing each here (watching again after a lost link).
    pub fn follow(
        self: &Arc<Self>,
        runtime: Arc<Runtime>,
        registry: Arc<Registry>,
        config: Arc<Config>,
    ) {
        let rollout = self.clone();
        tokio::spawn(async move {
            registry.wait_ready().await;
            loop {
                match rollout.versions.watch_with_history(">").await {
                    Ok(mut entries) => {
                        while let Some(entry) = entries.next().await {
                            let Ok(entry) = entry else { break };
                            rollout.apply(&entry, &runtime, &registry, &config).await;
                        }
                    }
                    Err(e) => {
                        tracing::warn!(error = %e, "cannot watch the cluster's plugin versions; retrying")
                    }
                }
                tokio::time::sleep(Duration::from_secs(1)).await;
            }
        });
    }

    async fn apply(
        &self,
        entry: &kv::Entry,
        runtime: &Runtime,
        registry: &Registry,
        config: &Config,
    ) {
        if entry.operation != kv::Operation::Put {
            // A bare delete marker carries no signature: whoever wrote it
            // holds no cluster key, or it would have put a signed withdrawal.
            crate::telemetry::metrics::rollout_unverified();
            tracing::warn!(
                key = %entry.key,
                "an unsigned deletion of a plugin in the cluster's versions bucket is ignored; the plugin stays \
                 (withdraw a plugin with DELETE /admin/plugins/<name>; check who may write to NATS)"
            );
            return;
        }
        let announced: Announced = match serde_json::from_slice(&entry.value) {
            Ok(a) => a,
            Err(e) => {
                tracing::warn!(key = %entry.key, error = %e, "an announced plugin version is not one this replica reads");
                return;
            }
        };
        let name = &announced.name;
        let key_matches = records::safe_key(name) == entry.key;
        if !key_matches
            || !self
                .seal
                .verify(&announced.signed_parts(), &announced.signature)
        {
            crate::telemetry::metrics::rollout_unverified();
            tracing::warn!(
                key = %entry.key,
                plugin = %name,
                "a plugin announcement whose signature does not verify with this replica's cluster key is ignored \
                 (replicas must share GLEANER_CLUSTER_KEY or GLEANER_TOKEN_SECRET; check who may write to NATS)"
            );
            return;
        }
        if announced.withdrawn {
            if upload::remove(registry, name) {
                tracing::info!(plugin = %name, by = %announced.by, "plugin removed on every replica");
            }
            self.report(name, (None, None), "removed", None).await;
            return;
        }
        let announced_version = || {
            (
                Some(announced.version.clone()),
                Some(announced.sha256.clone()),
            )
        };
        let serving = registry.statuses().into_iter().find(|s| &s.name == name);
        let same = serving.as_ref().is_some_and(|s| {
            s.sha256.as_deref() == Some(announced.sha256.as_str())
                && s.version.as_deref() == Some(announced.version.as_str())
        });
        if same {
            self.report(name, announced_version(), "serving", None)
                .await;
            return;
        }
        let outcome = match self.fetch(&announced).await {
            Ok(component) => {
                upload::install(
                    runtime,
                    registry,
                    config,
                    name,
                    &announced.manifest,
                    &component,
                )
                .await
            }
            Err(e) => Err(e),
        };
        match outcome {
            Ok(()) => {
                tracing::info!(plugin = %name, version = %announced.version, by = %announced.by, "plugin version rolled out here");
                self.report(name, announced_version(), "serving", None)
                    .await;
            }
            Err(e) => {
                tracing::warn!(plugin = %name, version = %announced.version, error = %e, "an announced plugin version is refused here; the serving one stays");
                let kept = serving.map(|s| (s.version, s.sha256)).unwrap_or_default();
                self.report(name, kept, "refused", Some(e)).await;
            }
        }
    }

    /// The announced component, checked against its digest.
    async fn fetch(&self, announced: &Announced) -> Result<Vec<u8>, String> {
        let unreadable = |e: &dyn std::fmt::Display| {
            format!(
                "cannot read {} ({} {}) from the object store {}: {e}; upload the plugin again",
                announced.object,
                announced.name,
                announced.version,
                super::resources::PLUGINS_OBJECTS
            )
        };
        let mut object = self
            .objects
            .get(announced.object.as_str())
            .await
            .map_err(|e| unreadable(&e))?;
        let mut component = Vec::new();
        object
            .read_to_end(&mut component)
            .await
            .map_err(|e| unreadable(&e))?;
        let sha256 = hex::encode(sha2::Sha256::digest(&component));
        if sha256 != announced.sha256 {
            return Err(format!(
                "the component of {} in the object store has SHA-256 {sha256}, not the announced {}; upload the plugin again",
                announced.name, announced.sha256
            ));
        }
        Ok(component)
    }

    /// Tells the cluster what this replica serves of `plugin` (`version`
    /// and `sha256`, none when nothing) and in what `state`.
    async fn report(
        &self,
        plugin: &str,
        (version, sha256): (Option<String>, Option<String>),
        state: &str,
        error: Option<String>,
    ) {
        let report = ReplicaVersion {
            replica: self.replica.clone(),
            plugin: plugin.to_owned(),
            version,
            sha256,
            state: state.to_owned(),
            error,
            at: rfc3339(now_ms()),
        };
        let key = format!(
            "{}.{}",
            records::safe_key(&report.replica),
            records::safe_key(&report.plugin)
        );
        if let Err(e) = records::put(&self.replicas, &key, &report).await {
            tracing::warn!(error = %e, "cannot report this replica's plugin version to the cluster");
        }
    }
}
