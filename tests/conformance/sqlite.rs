//! The suite on the SQLite store: each replica a handle of its own (its own
//! connection and thread) on one file.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gleaner::jobs::sqlite::SqliteStore;
use gleaner::jobs::store::Store;
use gleaner_seal::Seal;

use super::{for_each_case, Backend};

/// A store file in a temporary directory.
struct Sqlite {
    dir: tempfile::TempDir,
}

impl Sqlite {
    fn new() -> Sqlite {
        Sqlite {
            dir: tempfile::tempdir().unwrap(),
        }
    }
}

#[async_trait]
impl Backend for Sqlite {
    async fn replica(&self) -> Arc<dyn Store> {
        let seal = Arc::new(Seal::new(None, b"a-token-secret-of-at-least-32-bytes!!"));
        let path = self.dir.path().join("jobs.sqlite3");
        Arc::new(SqliteStore::open(&path, seal).unwrap())
    }

    /// One server holds its jobs until it stops: a restart takes them again.
    fn lease(&self) -> Duration {
        Duration::ZERO
    }
}

macro_rules! case {
    ($name:ident) => {
        #[tokio::test]
        async fn $name() {
            super::cases::$name(&Sqlite::new()).await;
        }
    };
}

for_each_case!(case);
