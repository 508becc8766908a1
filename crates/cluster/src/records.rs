//! Typed records in key-value buckets, changed by compare-and-set on their
//! revision (a lost race reads again and retries), and messages read back
//! from one subject of a stream. The cluster's modules keep their state
//! through these and nothing else.

use std::fmt::Display;

use async_nats::jetstream::consumer::{self, pull};
use async_nats::jetstream::kv::{self, UpdateErrorKind};
use async_nats::jetstream::stream;
use futures_util::StreamExt;
use serde::de::DeserializeOwned;
use serde::Serialize;

use gleaner_seal::Seal;

/// A name (a host, a plugin, an id) as a bucket key: itself, in lower case,
/// where the bucket's key rules allow it, else a digest of it.
pub fn safe_key(host: &str) -> String {
    let host = host.to_ascii_lowercase();
    let plain = !host.is_empty()
        && !host.starts_with('.')
        && !host.ends_with('.')
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'));
    if plain {
        host
    } else {
        use sha2::Digest;
        format!(
            "h_{}",
            hex::encode(&sha2::Sha256::digest(host.as_bytes())[..16])
        )
    }
}

/// A failure talking to JetStream, in words for an operator.
#[derive(Debug, thiserror::Error)]
#[error("NATS JetStream: {0}; check that the NATS server runs and this replica reaches it (GLEANER_NATS_URL)")]
pub struct ClusterError(pub String);

/// Wraps any JetStream error.
pub fn fail(e: impl Display) -> ClusterError {
    ClusterError(e.to_string())
}

/// The live entry under `key` (none when missing or deleted).
async fn live(bucket: &kv::Store, key: &str) -> Result<Option<kv::Entry>, ClusterError> {
    let entry = bucket.entry(key).await.map_err(fail)?;
    Ok(entry.filter(|e| e.operation == kv::Operation::Put))
}

/// A bucket's records, in clear or sealed with the cluster's key (what NATS
/// keeps is then ciphertext, each value bound to its key, so a client that
/// can read the bucket but holds no key reads nothing, and a value moved
/// under another key does not open).
#[derive(Clone, Copy)]
pub struct Records<'a> {
    bucket: &'a kv::Store,
    seal: Option<&'a Seal>,
}

impl<'a> Records<'a> {
    /// The records of `bucket`, in clear.
    pub fn plain(bucket: &'a kv::Store) -> Records<'a> {
        Records { bucket, seal: None }
    }

    /// The records of `bucket`, sealed with `seal`.
    pub fn sealed(bucket: &'a kv::Store, seal: &'a Seal) -> Records<'a> {
        Records {
            bucket,
            seal: Some(seal),
        }
    }

    fn encode<T: Serialize>(&self, key: &str, value: &T) -> Result<Vec<u8>, ClusterError> {
        let plain = serde_json::to_vec(value).map_err(fail)?;
        match self.seal {
            None => Ok(plain),
            Some(seal) => seal.seal(key, &plain).map_err(ClusterError),
        }
    }

    /// The value stored under `key`; none when it is sealed and does not
    /// open with this replica's key.
    fn decode<T: DeserializeOwned>(
        &self,
        key: &str,
        bytes: &[u8],
    ) -> Result<Option<T>, ClusterError> {
        let plain = match self.seal {
            None => return serde_json::from_slice(bytes).map(Some).map_err(fail),
            Some(seal) => seal.open(key, bytes),
        };
        match plain {
            Some(plain) => serde_json::from_slice(&plain).map(Some).map_err(fail),
            None => {
                tracing::warn!(%key, "a sealed value in the cluster does not open with this replica's key; check that GLEANER_CLUSTER_KEY (or GLEANER_TOKEN_SECRET) is the same on every replica");
                Ok(None)
            }
        }
    }

    /// A value of this bucket read elsewhere (a watch), as [`Records::get`]
    /// would give it.
    pub fn open<T: DeserializeOwned>(
        &self,
        key: &str,
        bytes: &[u8],
    ) -> Result<Option<T>, ClusterError> {
        self.decode(key, bytes)
    }

    /// The record under `key`, with its revision.
    pub async fn get<T: DeserializeOwned>(
        &self,
        key: &str,
    ) -> Result<Option<(T, u64)>, ClusterError> {
        let Some(entry) = live(self.bucket, key).await? else {
            return Ok(None);
        };
        Ok(self.decode(key, &entry.value)?.map(|v| (v, entry.revision)))
    }

    /// Stores `value` under `key` whatever was there.
    pub async fn put<T: Serialize>(&self, key: &str, value: &T) -> Result<u64, ClusterError> {
        let bytes = self.encode(key, value)?;
        self.bucket.put(key, bytes.into()).await.map_err(fail)
    }

    /// Stores `value` under `key` only if nothing is there; false if something was.
    pub async fn create<T: Serialize>(&self, key: &str, value: &T) -> Result<bool, ClusterError> {
        let bytes = self.encode(key, value)?;
        match self.bucket.create(key, bytes.into()).await {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(fail(e)),
        }
    }

    /// Replaces `value` under `key` if its revision is still `revision`;
    /// false when another writer changed it first.
    pub async fn swap<T: Serialize>(
        &self,
        key: &str,
        value: &T,
        revision: u64,
    ) -> Result<bool, ClusterError> {
        let bytes = self.encode(key, value)?;
        match self.bucket.update(key, bytes.into(), revision).await {
            Ok(_) => Ok(true),
            Err(e) if e.kind() == UpdateErrorKind::WrongLastRevision => Ok(false),
            Err(e) => Err(fail(e)),
        }
    }

    /// Changes the record under `key` with `change` (which says whether to
    /// write), retrying on lost races. The record as it ends up; none when
    /// there is no record.
    pub async fn modify<T: Serialize + DeserializeOwned>(
        &self,
        key: &str,
        mut change: impl FnMut(&mut T) -> bool,
    ) -> Result<Option<T>, ClusterError> {
        loop {
            let Some((mut value, revision)) = self.get::<T>(key).await? else {
                return Ok(None);
            };
            if !change(&mut value) || self.swap(key, &value, revision).await? {
                return Ok(Some(value));
            }
        }
    }

    /// Every record in the bucket.
    pub async fn all<T: DeserializeOwned>(&self) -> Result<Vec<T>, ClusterError> {
        let mut keys = self.bucket.keys().await.map_err(fail)?;
        let mut out = Vec::new();
        // A key written while the listing runs can be listed twice; each is
        // read once, at its latest.
        let mut seen = std::collections::HashSet::new();
        while let Some(key) = keys.next().await {
            let key = key.map_err(fail)?;
            if !seen.insert(key.clone()) {
                continue;
            }
            if let Some((value, _)) = self.get(&key).await? {
                out.push(value);
            }
        }
        Ok(out)
    }
}

/// The record under `key` of a bucket in clear, with its revision.
pub async fn get<T: DeserializeOwned>(
    bucket: &kv::Store,
    key: &str,
) -> Result<Option<(T, u64)>, ClusterError> {
    Records::plain(bucket).get(key).await
}

/// Stores `value` under `key` of a bucket in clear.
pub async fn put<T: Serialize>(
    bucket: &kv::Store,
    key: &str,
    value: &T,
) -> Result<u64, ClusterError> {
    Records::plain(bucket).put(key, value).await
}

/// Every record of a bucket in clear.
pub async fn all<T: DeserializeOwned>(bucket: &kv::Store) -> Result<Vec<T>, ClusterError> {
    Records::plain(bucket).all().await
}

/// Deletes the record under `key`.
pub async fn delete(bucket: &kv::Store, key: &str) -> Result<(), ClusterError> {
    bucket.delete(key).await.map_err(fail)
}

/// Messages on `subject` after stream sequence `after`, at most `limit`, as
/// `(sequence, payload)`, and whether more are stored after them.
pub async fn read_subject(
    stream: &stream::Stream,
    subject: &str,
    after: u64,
    limit: usize,
) -> Result<(Vec<(u64, Vec<u8>)>, bool), ClusterError> {
    let reader = stream
        .create_consumer(pull::Config {
            deliver_policy: consumer::DeliverPolicy::ByStartSequence {
                start_sequence: after + 1,
            },
            ack_policy: consumer::AckPolicy::None,
            filter_subject: subject.to_owned(),
            inactive_threshold: std::time::Duration::from_secs(30),
            ..Default::default()
        })
        .await
        .map_err(fail)?;
    let pending = reader.cached_info().num_pending as usize;
    let name = reader.cached_info().name.clone();
    let want = pending.min(limit);
    let mut out = Vec::with_capacity(want);
    while out.len() < want {
        let mut batch = reader
            .fetch()
            .max_messages(want - out.len())
            .messages()
            .await
            .map_err(fail)?;
        let before = out.len();
        while let Some(message) = batch.next().await {
            let message = message.map_err(fail)?;
            let sequence = message.info().map_err(fail)?.stream_sequence;
            out.push((sequence, message.payload.to_vec()));
        }
        if out.len() == before {
            break;
        }
    }
    let _ = stream.delete_consumer(&name).await;
    Ok((out, pending > want))
}

/// How many messages `subject` holds.
pub async fn count(stream: &stream::Stream, subject: &str) -> Result<u64, ClusterError> {
    let mut subjects = stream.info_with_subjects(subject).await.map_err(fail)?;
    let mut total = 0u64;
    while let Some(entry) = subjects.next().await {
        total += entry.map_err(fail)?.1 as u64;
    }
    Ok(total)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_become_bucket_keys() {
        assert_eq!(safe_key("WWW.Trustpilot.com"), "www.trustpilot.com");
        assert!(safe_key("[::1]").starts_with("h_"));
        assert!(safe_key("xn--bcher-kva.example").starts_with("xn--"));
        assert!(safe_key("a b").starts_with("h_"));
    }
}
