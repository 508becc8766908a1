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

/// The record under `key`, with its revision.
pub async fn get<T: DeserializeOwned>(
    bucket: &kv::Store,
    key: &str,
) -> Result<Option<(T, u64)>, ClusterError> {
    let Some(entry) = live(bucket, key).await? else {
        return Ok(None);
    };
    let value = serde_json::from_slice(&entry.value).map_err(fail)?;
    Ok(Some((value, entry.revision)))
}

/// Stores `value` under `key` whatever was there.
pub async fn put<T: Serialize>(
    bucket: &kv::Store,
    key: &str,
    value: &T,
) -> Result<u64, ClusterError> {
    let bytes = serde_json::to_vec(value).map_err(fail)?;
    bucket.put(key, bytes.into()).await.map_err(fail)
}

/// Stores `value` under `key` only if nothing is there; false if something was.
pub async fn create<T: Serialize>(
    bucket: &kv::Store,
    key: &str,
    value: &T,
) -> Result<bool, ClusterError> {
    let bytes = serde_json::to_vec(value).map_err(fail)?;
    match bucket.create(key, bytes.into()).await {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == kv::CreateErrorKind::AlreadyExists => Ok(false),
        Err(e) => Err(fail(e)),
    }
}

/// Replaces `value` under `key` if its revision is still `revision`; false
/// when another writer changed it first.
pub async fn swap<T: Serialize>(
    bucket: &kv::Store,
    key: &str,
    value: &T,
    revision: u64,
) -> Result<bool, ClusterError> {
    let bytes = serde_json::to_vec(value).map_err(fail)?;
    match bucket.update(key, bytes.into(), revision).await {
        Ok(_) => Ok(true),
        Err(e) if e.kind() == UpdateErrorKind::WrongLastRevision => Ok(false),
        Err(e) => Err(fail(e)),
    }
}

/// Changes the record under `key` with `change` (which says whether to
/// write), retrying on lost races. The record as it ends up; none when
/// there is no record.
pub async fn modify<T: Serialize + DeserializeOwned>(
    bucket: &kv::Store,
    key: &str,
    mut change: impl FnMut(&mut T) -> bool,
) -> Result<Option<T>, ClusterError> {
    loop {
        let Some((mut value, revision)) = get::<T>(bucket, key).await? else {
            return Ok(None);
        };
        if !change(&mut value) || swap(bucket, key, &value, revision).await? {
            return Ok(Some(value));
        }
    }
}

/// Every record in the bucket.
pub async fn all<T: DeserializeOwned>(bucket: &kv::Store) -> Result<Vec<T>, ClusterError> {
    let mut keys = bucket.keys().await.map_err(fail)?;
    let mut out = Vec::new();
    while let Some(key) = keys.next().await {
        let key = key.map_err(fail)?;
        if let Some((value, _)) = get(bucket, &key).await? {
            out.push(value);
        }
    }
    Ok(out)
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

/// The record under `key`, sealed with `seal`; none when missing, or sealed
/// with another key (that replica's `GLEANER_CLUSTER_KEY` differs).
pub async fn get_sealed<T: DeserializeOwned>(
    bucket: &kv::Store,
    key: &str,
    seal: &super::seal::Seal,
) -> Result<Option<T>, ClusterError> {
    let Some(entry) = live(bucket, key).await? else {
        return Ok(None);
    };
    let Some(plain) = seal.open(key, &entry.value) else {
        tracing::warn!(%key, "a sealed value in the cluster does not open with this replica's key; check that GLEANER_CLUSTER_KEY (or GLEANER_TOKEN_SECRET) is the same on every replica");
        return Ok(None);
    };
    serde_json::from_slice(&plain).map(Some).map_err(fail)
}

/// Stores `value` under `key`, sealed with `seal`.
pub async fn put_sealed<T: Serialize>(
    bucket: &kv::Store,
    key: &str,
    value: &T,
    seal: &super::seal::Seal,
) -> Result<(), ClusterError> {
    let plain = serde_json::to_vec(value).map_err(fail)?;
    let sealed = seal.seal(key, &plain).map_err(ClusterError)?;
    bucket.put(key, sealed.into()).await.map_err(fail)?;
    Ok(())
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
