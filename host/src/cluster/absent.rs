//! Cluster mode in a binary built without the `cluster` feature: the settings
//! are still read (so a configuration stays valid), but no replica can join a
//! cluster, and start-up says which feature and make target would.

pub use gleaner_cluster::settings;

use std::sync::Arc;

use serde_json::Value;

use crate::features::Missing;

/// A link to the cluster: this binary can make none, so the type has no value.
pub enum Cluster {}

impl Cluster {
    /// Fails: cluster mode needs the `cluster` feature.
    pub async fn connect(_config: &crate::config::Config) -> anyhow::Result<Arc<Cluster>> {
        Err(Missing::new("cluster", "cluster mode (GLEANER_NATS_URL)").into())
    }

    /// Never called: there is no cluster.
    pub fn share(&self, _services: &crate::capabilities::Services) {
        match *self {}
    }

    /// Never called: there is no cluster.
    pub fn health(&self) -> Value {
        match *self {}
    }

    /// Never called: there is no cluster.
    pub fn owner_id(&self, _key: &str) -> String {
        match *self {}
    }
}
