//! Continuation tokens: versioned, checksummed and bound to one endpoint and query.
//!
//! A token names the plugin cursor of the page where the previous response stopped
//! and how many reviews of that page were already returned, so sending it back
//! yields exactly the reviews not yet returned, even when `reviews_to_fetch` cut a
//! page in the middle. The checksum detects corruption; tokens are not secrets.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

/// The token format version.
const VERSION: u8 = 1;

/// Where a fetch resumes.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Resume {
    /// The plugin cursor of the page to fetch (none: the first page).
    #[serde(rename = "c")]
    pub cursor: Option<String>,
    /// Reviews at the start of that page already returned.
    #[serde(rename = "k")]
    pub skip: u32,
    /// The sort in force.
    #[serde(rename = "s", default)]
    pub sort: Option<String>,
    /// The filter in force.
    #[serde(rename = "f", default)]
    pub filter: Option<serde_json::Value>,
    /// The sync_date in force.
    #[serde(rename = "d", default)]
    pub sync_date: Option<String>,
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
        "has format version {0}, but this server reads version 1; start the fetch again without it"
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

/// Encodes a resume point for `route` and `query`.
pub fn encode(route: &str, query: &str, resume: &Resume) -> String {
    let envelope = Envelope {
        v: VERSION,
        e: route.to_owned(),
        q: digest(query.trim().as_bytes()),
        resume: resume.clone(),
    };
    let json = serde_json::to_vec(&envelope).expect("token serialises");
    format!("{}.{}", URL_SAFE_NO_PAD.encode(&json), digest(&json))
}

/// Decodes and validates a token for `route` and `query`.
pub fn decode(route: &str, query: &str, token: &str) -> Result<Resume, TokenError> {
    let (body, sum) = token.trim().split_once('.').ok_or(TokenError::Corrupted)?;
    let json = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| TokenError::Corrupted)?;
    if digest(&json) != sum {
        return Err(TokenError::Corrupted);
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

    fn resume() -> Resume {
        Resume {
            cursor: Some("page=3".into()),
            skip: 7,
            sort: Some("recency".into()),
            filter: None,
            sync_date: None,
        }
    }

    #[test]
    fn round_trips() {
        let t = encode("/a/reviews", "q", &resume());
        assert_eq!(decode("/a/reviews", "q", &t).unwrap(), resume());
    }

    #[test]
    fn rejects_corruption_other_endpoints_and_queries() {
        let t = encode("/a/reviews", "q", &resume());
        let mut damaged = t.clone().into_bytes();
        damaged[3] = if damaged[3] == b'A' { b'B' } else { b'A' };
        let damaged = String::from_utf8(damaged).unwrap();
        assert_eq!(
            decode("/a/reviews", "q", &damaged),
            Err(TokenError::Corrupted)
        );
        assert_eq!(
            decode("/a/reviews", "q", "garbage"),
            Err(TokenError::Corrupted)
        );
        assert_eq!(
            decode("/b/reviews", "q", &t),
            Err(TokenError::OtherEndpoint("/a/reviews".into()))
        );
        assert_eq!(
            decode("/a/reviews", "other", &t),
            Err(TokenError::OtherQuery)
        );
    }
}
