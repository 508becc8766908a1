//! The suite on the JetStream store, on a real `nats-server` of its own:
//! each replica a connection of its own to it, with a 1 s ack wait.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gleaner::cluster::jobs::JetStreamStore;
use gleaner::jobs::store::Store;

use super::{for_each_case, Backend};
use crate::cluster::nats::Nats;

/// A NATS server with JetStream, stopped when dropped.
struct JetStream {
    nats: Nats,
}

#[async_trait]
impl Backend for JetStream {
    async fn replica(&self) -> Arc<dyn Store> {
        let cluster = crate::cluster::connect(self.nats.url(), |c| c.job_ack_wait_secs = 1)
            .await
            .unwrap();
        Arc::new(JetStreamStore::new(cluster.link.clone()))
    }

    fn lease(&self) -> Duration {
        Duration::from_secs(1)
    }
}

macro_rules! case {
    ($name:ident) => {
        #[tokio::test]
        #[ignore = "needs nats-server: make test-cluster"]
        async fn $name() {
            let backend = JetStream {
                nats: Nats::start(),
            };
            super::cases::$name(&backend).await;
        }
    };
}

for_each_case!(case);
