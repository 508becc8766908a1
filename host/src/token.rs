//! Continuation tokens: versioned, signed and bound to one endpoint and query.
//!
//! A token names the plugin cursor of the page where the previous response stopped
//! and how many reviews of that page were already returned, so sending it back
//! yields exactly the reviews not yet returned, even when `reviews_to_fetch` cut a
//! page in the middle. Tokens are signed with HMAC-SHA256 under the server's
//! [`TokenKey`], so a client can read a token but cannot forge or alter one. The
//! fields a token carries are validated again when it comes back, as if the
//! client had sent them.

use std::path::Path;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use hmac::{Hmac, Mac};
use serde::{Deserialize, Serialize};

pub mod link;
mod sync;
use sha2::{Digest, Sha256};
pub use sync::{decode_sync, encode_sync, SyncCursor, MAX_SYNC_CURSOR_BYTES};

/// The token format version.
const VERSION: u8 = 2;

/// Shortest accepted secret, in bytes.
const MIN_SECRET_LEN: usize = 32;

/// The secret tokens are signed with. Replicas that share tokens share the key.
#[derive(Clone)]
pub struct TokenKey(Vec<u8>);

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKey(<redacted>)")
    }
}

/// Why the token key could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// The configured secret is too short.
    #[error("the token secret (GLEANER_TOKEN_SECRET or token_secret) has {0} bytes; use at least {MIN_SECRET_LEN}, e.g. the output of `openssl rand -hex 32`")]
    TooShort(usize),
    /// The persisted secret could not be read or written.
    #[error("cannot keep the token secret in {path}: {source}; set GLEANER_DATA_DIR to a writable directory, or set GLEANER_TOKEN_SECRET")]
    Io {
        /// The secret file.
        path: std::path::PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
}

impl TokenKey {
    /// A key from a configured secret of at least 32 bytes.
    pub fn from_secret(secret: &[u8]) -> Result<TokenKey, KeyError> {
        if secret.len() < MIN_SECRET_LEN {
            return Err(KeyError::TooShort(secret.len()));
        }
        Ok(TokenKey(secret.to_vec()))
    }

    /// The configured secret, else the one persisted in `data_dir/token-secret`,
    /// generated (32 random bytes, mode 0600) on first use.
    pub fn load(secret: Option<&str>, data_dir: &Path) -> Result<TokenKey, KeyError> {
        if let Some(secret) = secret {
            return TokenKey::from_secret(secret.as_bytes());
        }
        let path = data_dir.join("token-secret");
        let io = |source| KeyError::Io {
            path: path.clone(),
            source,
        };
        match std::fs::read(&path) {
            Ok(bytes) => return TokenKey::from_secret(&bytes),
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(io(e)),
            Err(_) => {}
        }
        gleaner_seal::private_files::create(data_dir).map_err(io)?;
        let mut secret = [0u8; MIN_SECRET_LEN];
        getrandom::getrandom(&mut secret).map_err(|e| io(std::io::Error::other(e.to_string())))?;
        let secret = hex::encode(secret);
        // Written under a unique name, then linked into place: a concurrent
        // starter either wins or reads the complete file of the winner.
        let temp = data_dir.join(format!(".token-secret-{}", uuid::Uuid::new_v4()));
        write_private(&temp, secret.as_bytes()).map_err(io)?;
        let linked = std::fs::hard_link(&temp, &path);
        let _ = std::fs::remove_file(&temp);
        match linked {
            Ok(()) => TokenKey::from_secret(secret.as_bytes()),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                TokenKey::from_secret(&std::fs::read(&path).map_err(io)?)
            }
            Err(e) => Err(io(e)),
        }
    }

    /// The key secrets at rest are sealed with: `GLEANER_CLUSTER_KEY`'s
    /// (`seal_key`) when set, else one derived from this secret.
    pub fn seal(&self, seal_key: Option<&str>) -> gleaner_seal::Seal {
        gleaner_seal::Seal::new(seal_key, &self.0)
    }

    /// Adds the secret to those the host keeps out of everything it sends.
    pub fn register_as_secret(&self, secrets: &crate::secrets::Secrets) {
        if let Ok(text) = std::str::from_utf8(&self.0) {
            secrets.register(crate::secrets::Kind::TokenSecret, [text]);
        }
    }

    fn sign(&self, bytes: &[u8]) -> Vec<u8> {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(bytes);
        mac.finalize().into_bytes().to_vec()
    }

    fn verify(&self, bytes: &[u8], signature: &[u8]) -> bool {
        let mut mac = Hmac::<Sha256>::new_from_slice(&self.0).expect("HMAC takes any key length");
        mac.update(bytes);
        mac.verify_slice(signature).is_ok()
    }
}

fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    use std::io::Write;
    let mut options = std::fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    options.open(path)?.write_all(bytes)
}

/// A day in a token, written YYYY-MM-DD.
mod day {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    const FORMAT: &[time::format_description::BorrowedFormatItem<'static>] =
        time::macros::format_description!("[year]-[month]-[day]");

    pub fn serialize<S: Serializer>(day: &Option<time::Date>, s: S) -> Result<S::Ok, S::Error> {
        day.map(|d| d.format(FORMAT).map_err(serde::ser::Error::custom))
            .transpose()?
            .serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<time::Date>, D::Error> {
        Option::<String>::deserialize(d)?
            .map(|text| time::Date::parse(&text, FORMAT).map_err(serde::de::Error::custom))
            .transpose()
    }
}

/// Where a fetch resumes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    /// The plugin cursor of the page to fetch (none: the first page).
    #[serde(rename = "c")]
    pub cursor: Option<String>,
    /// Reviews at the start of that page already returned.
    #[serde(rename = "k")]
    pub skip: u32,
    /// A digest of the last of them ([`review_digest`]), so the count is
    /// checked against the page when the token comes back ([`realign`]).
    #[serde(rename = "l", default, skip_serializing_if = "Option::is_none")]
    pub last: Option<String>,
    /// The sort in force.
    #[serde(rename = "s", default)]
    pub sort: Option<String>,
    /// The filter in force.
    #[serde(rename = "f", default)]
    pub filter: Option<serde_json::Value>,
    /// The sync_date in force, kept as the day it is (written YYYY-MM-DD).
    #[serde(rename = "d", default, with = "day")]
    pub sync_date: Option<time::Date>,
    /// The id of the fetch's session (cookies and browser profile), which
    /// stays in the server; never the cookies themselves.
    #[serde(rename = "i", default, skip_serializing_if = "Option::is_none")]
    pub session: Option<String>,
}

#[derive(Serialize, Deserialize)]
struct Envelope {
    v: u8,
    /// Route of the endpoint that issued it.
    e: String,
    /// Digest of the query it continues.
    q: String,
    #[serde(flatten)]
    resume: Resume,
}

/// Why a token was refused.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum TokenError {
    /// Not a token this server issued, or damaged.
    #[error("is corrupted or not a token issued by this service; send back the value exactly as received, or omit it to start over")]
    Corrupted,
    /// Issued by an older or newer format.
    #[error(
        "has format version {0}, but this server reads version {VERSION}; start the fetch again without it"
    )]
    Version(u8),
    /// Issued by another endpoint.
    #[error("was issued by {0}, not this endpoint; send it back to the endpoint that returned it")]
    OtherEndpoint(String),
    /// Issued for another query.
    #[error(
        "was issued for a different query; send the same query as the request that returned it"
    )]
    OtherQuery,
}

fn digest(bytes: &[u8]) -> String {
    hex::encode(&Sha256::digest(bytes)[..12])
}

/// The short digest of a review id a token carries: enough to find the
/// review again on its page, without the id itself.
pub fn review_digest(review_id: &str) -> String {
    hex::encode(&Sha256::digest(review_id.trim().as_bytes())[..8])
}

/// Where a resumed page starts, checked against the page as it is now.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Realigned {
    /// The page is as the token left it: start after the `skip` reviews.
    Unchanged(usize),
    /// The page has moved (reviews were added or removed above): start after
    /// the last review returned, found at its new place.
    Moved(usize),
    /// The last review returned is not on the page any more, or the count
    /// does not fit the page: start at its beginning, so nothing is lost.
    Restarted,
}

impl Realigned {
    /// Reviews of the page to skip.
    pub fn skip(self) -> usize {
        match self {
            Realigned::Unchanged(n) | Realigned::Moved(n) => n,
            Realigned::Restarted => 0,
        }
    }
}

/// Checks a token's `skip` (and the digest of its last review, `last`)
/// against the ids of the page it resumes. A count is never trusted beyond
/// the page: one that does not fit restarts the page rather than skip
/// reviews the client never received.
pub fn realign(ids: &[&str], skip: u32, last: Option<&str>) -> Realigned {
    let skip = skip as usize;
    if skip == 0 {
        return Realigned::Unchanged(0);
    }
    let Some(last) = last else {
        return if skip < ids.len() {
            Realigned::Unchanged(skip)
        } else {
            Realigned::Restarted
        };
    };
    if ids
        .get(skip - 1)
        .is_some_and(|id| review_digest(id) == last)
    {
        return Realigned::Unchanged(skip);
    }
    match ids.iter().position(|id| review_digest(id) == last) {
        Some(at) => Realigned::Moved(at + 1),
        None => Realigned::Restarted,
    }
}

/// Encodes and signs a resume point for `route` and `query`.
pub fn encode(key: &TokenKey, route: &str, query: &str, resume: &Resume) -> String {
    let envelope = Envelope {
        v: VERSION,
        e: route.to_owned(),
        q: digest(query.trim().as_bytes()),
        resume: resume.clone(),
    };
    let json = serde_json::to_vec(&envelope).expect("token serialises");
    format!(
        "{}.{}",
        URL_SAFE_NO_PAD.encode(&json),
        URL_SAFE_NO_PAD.encode(key.sign(&json))
    )
}

/// The version a token claims, read without trusting it.
#[derive(Deserialize)]
struct Claimed {
    v: u8,
}

/// Verifies and decodes a token for `route` and `query`.
pub fn decode(key: &TokenKey, route: &str, query: &str, token: &str) -> Result<Resume, TokenError> {
    let (body, signature) = token.trim().split_once('.').ok_or(TokenError::Corrupted)?;
    let json = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| TokenError::Corrupted)?;
    let signature = URL_SAFE_NO_PAD.decode(signature).unwrap_or_default();
    if !key.verify(&json, &signature) {
        // An older token format is told apart, so its holder knows to start over.
        return match serde_json::from_slice::<Claimed>(&json) {
            Ok(claimed) if claimed.v != VERSION => Err(TokenError::Version(claimed.v)),
            _ => Err(TokenError::Corrupted),
        };
    }
    let envelope: Envelope = serde_json::from_slice(&json).map_err(|_| TokenError::Corrupted)?;
    if envelope.v != VERSION {
        return Err(TokenError::Version(envelope.v));
    }
    if envelope.e != route {
        return Err(TokenError::OtherEndpoint(envelope.e));
    }
    if envelope.q != digest(query.trim().as_bytes()) {
        return Err(TokenError::OtherQuery);
    }
    Ok(envelope.resume)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A position, for the tests of tokens and cursors.
    pub(super) fn resume() -> Resume {
        Resume {
            cursor: Some("page=3".into()),
            skip: 7,
            last: Some(review_digest("r7")),
            sort: Some("recency".into()),
            filter: None,
            sync_date: None,
            session: None,
        }
    }

    fn key() -> TokenKey {
        TokenKey::from_secret(&[7u8; 32]).unwrap()
    }

    #[test]
    fn round_trips() {
        let t = encode(&key(), "/a/reviews", "q", &resume());
        assert_eq!(decode(&key(), "/a/reviews", "q", &t).unwrap(), resume());
    }

    #[test]
    fn refuses_forged_and_foreign_tokens() {
        let t = encode(&key(), "/a/reviews", "q", &resume());
        let other = TokenKey::from_secret(&[8u8; 32]).unwrap();
        assert_eq!(
            decode(&other, "/a/reviews", "q", &t),
            Err(TokenError::Corrupted)
        );
        // Re-encoding the body with another sort keeps the old signature: refused.
        let (body, signature) = t.split_once('.').unwrap();
        let mut json: serde_json::Value =
            serde_json::from_slice(&URL_SAFE_NO_PAD.decode(body).unwrap()).unwrap();
        json["s"] = "forged".into();
        let forged = format!(
            "{}.{signature}",
            URL_SAFE_NO_PAD.encode(serde_json::to_vec(&json).unwrap())
        );
        assert_eq!(
            decode(&key(), "/a/reviews", "q", &forged),
            Err(TokenError::Corrupted)
        );
        // A version-1 token (unkeyed checksum) is told to start over.
        json["v"] = 1.into();
        let bytes = serde_json::to_vec(&json).unwrap();
        let old = format!("{}.{}", URL_SAFE_NO_PAD.encode(&bytes), digest(&bytes));
        assert_eq!(
            decode(&key(), "/a/reviews", "q", &old),
            Err(TokenError::Version(1))
        );
    }

    #[test]
    fn keys_are_persisted_and_checked() {
        let dir = tempfile::tempdir().unwrap();
        let a = TokenKey::load(None, dir.path()).unwrap();
        let b = TokenKey::load(None, dir.path()).unwrap();
        assert_eq!(a.0, b.0, "the generated secret is reused");
        assert!(matches!(
            TokenKey::load(Some("short"), dir.path()),
            Err(KeyError::TooShort(5))
        ));
        assert!(!format!("{a:?}").contains(&String::from_utf8_lossy(&a.0).to_string()));
    }

    #[test]
    fn rejects_corruption_other_endpoints_and_queries() {
        let key = key();
        let t = encode(&key, "/a/reviews", "q", &resume());
        let mut damaged = t.clone().into_bytes();
        damaged[3] = if damaged[3] == b'A' { b'B' } else { b'A' };
        let damaged = String::from_utf8(damaged).unwrap();
        assert_eq!(
            decode(&key, "/a/reviews", "q", &damaged),
            Err(TokenError::Corrupted)
        );
        assert_eq!(
            decode(&key, "/a/reviews", "q", "garbage"),
            Err(TokenError::Corrupted)
        );
        assert_eq!(
            decode(&key, "/b/reviews", "q", &t),
            Err(TokenError::OtherEndpoint("/a/reviews".into()))
        );
        assert_eq!(
            decode(&key, "/a/reviews", "other", &t),
            Err(TokenError::OtherQuery)
        );
    }

    #[test]
    fn a_skip_count_is_checked_against_its_page() {
        let page = ["r1", "r2", "r3", "r4"];
        let d = |id: &str| Some(review_digest(id));
        assert_eq!(realign(&page, 0, None), Realigned::Unchanged(0));
        assert_eq!(
            realign(&page, 2, d("r2").as_deref()),
            Realigned::Unchanged(2)
        );
        // Two new reviews pushed the page down: resume after r2 where it is now.
        let moved = ["n1", "n2", "r1", "r2", "r3"];
        assert_eq!(realign(&moved, 2, d("r2").as_deref()), Realigned::Moved(4));
        // r2 is gone, or the count overruns the page: the page from its start.
        assert_eq!(
            realign(&["x", "y"], 2, d("r2").as_deref()),
            Realigned::Restarted
        );
        assert_eq!(
            realign(&page, 4_000_000_000, d("zz").as_deref()),
            Realigned::Restarted
        );
        assert_eq!(realign(&page, 9, None), Realigned::Restarted);
        assert_eq!(realign(&page, 4, None), Realigned::Restarted);
        assert_eq!(realign(&page, 3, None), Realigned::Unchanged(3));
        assert_eq!(realign(&[], 1, d("r1").as_deref()).skip(), 0);
    }
}
