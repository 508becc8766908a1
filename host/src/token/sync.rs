//! `sync_cursor`: a signed string naming the newest reviews a fetch from
//! the top saw (their id digests and short content fingerprints, and the
//! oldest one's date), as many as fit in [`MAX_SYNC_CURSOR_BYTES`].

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::{Deserialize, Serialize};

use super::{digest, review_digest, TokenError, TokenKey};

/// What a `sync_cursor` carries: the endpoint and query it belongs to, and
/// short digests of the newest reviews a fetch saw.
#[derive(Serialize, Deserialize)]
struct SyncEnvelope {
    /// `"sync"`, so a continuation token is never read as a cursor.
    t: String,
    e: String,
    q: String,
    /// Digests of the reviews' ids ([`review_digest`]), newest first.
    r: Vec<String>,
    /// The date of the oldest of them, when known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    d: Option<String>,
    /// Each one's short content fingerprint, in the same order (none from
    /// servers before fingerprints).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    f: Vec<String>,
}

/// What a verified `sync_cursor` names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyncCursor {
    /// The reviews' ids as [`review_digest`] gives them: compare with those.
    pub digests: Vec<String>,
    /// The date of the oldest review named, as the source wrote it, when
    /// known: reviews wholly older were there when the cursor was issued.
    pub floor: Option<String>,
    /// Each named review's short content fingerprint
    /// ([`crate::record::fingerprint::short`]), by digest.
    pub fingerprints: Vec<(String, String)>,
}

/// The longest `sync_cursor` made: it names as many of the newest reviews
/// as fit.
pub const MAX_SYNC_CURSOR_BYTES: usize = 4_096;

/// Encodes and signs a `sync_cursor` naming the reviews `named` (newest
/// first: their ids and short fingerprints), the oldest of which is dated
/// `floor`; as many of them as fit in [`MAX_SYNC_CURSOR_BYTES`], and how
/// many that is.
pub fn encode_sync(
    key: &TokenKey,
    route: &str,
    query: &str,
    named: &[(String, String)],
    floor: Option<String>,
) -> (String, usize) {
    let encode = |take: usize| {
        let envelope = SyncEnvelope {
            t: "sync".into(),
            e: route.to_owned(),
            q: digest(query.trim().as_bytes()),
            r: named[..take]
                .iter()
                .map(|(id, _)| review_digest(id))
                .collect(),
            d: floor.clone(),
            f: named[..take].iter().map(|(_, f)| f.clone()).collect(),
        };
        let json = serde_json::to_vec(&envelope).expect("cursor serialises");
        format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(&json),
            URL_SAFE_NO_PAD.encode(key.sign(&json))
        )
    };
    let all = encode(named.len());
    if all.len() <= MAX_SYNC_CURSOR_BYTES {
        return (all, named.len());
    }
    // The most that fit (at least one): found by halving.
    let (mut fits, mut over) = (1, named.len());
    while over - fits > 1 {
        let mid = (fits + over) / 2;
        match encode(mid).len() <= MAX_SYNC_CURSOR_BYTES {
            true => fits = mid,
            false => over = mid,
        }
    }
    (encode(fits), fits)
}

/// Verifies a `sync_cursor` for `route` and `query`; what it names.
pub fn decode_sync(
    key: &TokenKey,
    route: &str,
    query: &str,
    cursor: &str,
) -> Result<SyncCursor, TokenError> {
    let (body, signature) = cursor.trim().split_once('.').ok_or(TokenError::Corrupted)?;
    let json = URL_SAFE_NO_PAD
        .decode(body)
        .map_err(|_| TokenError::Corrupted)?;
    let signature = URL_SAFE_NO_PAD.decode(signature).unwrap_or_default();
    if !key.verify(&json, &signature) {
        return Err(TokenError::Corrupted);
    }
    let envelope: SyncEnvelope =
        serde_json::from_slice(&json).map_err(|_| TokenError::Corrupted)?;
    if envelope.t != "sync" {
        return Err(TokenError::Corrupted);
    }
    if envelope.e != route {
        return Err(TokenError::OtherEndpoint(envelope.e));
    }
    if envelope.q != digest(query.trim().as_bytes()) {
        return Err(TokenError::OtherQuery);
    }
    let fingerprints = match envelope.f.len() == envelope.r.len() {
        true => envelope.r.iter().cloned().zip(envelope.f).collect(),
        false => Vec::new(),
    };
    Ok(SyncCursor {
        digests: envelope.r,
        floor: envelope.d,
        fingerprints,
    })
}

#[cfg(test)]
mod tests {
    use super::super::tests::resume;
    use super::super::{decode, encode};
    use super::*;

    fn key() -> TokenKey {
        TokenKey::from_secret(&[7u8; 32]).unwrap()
    }

    #[test]
    fn a_sync_cursor_names_its_reviews_and_belongs_to_its_query() {
        let ids = [
            ("r1".to_owned(), "0123456789ab".to_owned()),
            ("r2".to_owned(), "ba9876543210".to_owned()),
        ];
        let (c, named) = encode_sync(&key(), "/a/reviews", "q", &ids, Some("2026-11-02".into()));
        assert_eq!(named, 2);
        let named = decode_sync(&key(), "/a/reviews", "q", &c).unwrap();
        assert_eq!(named.digests, [review_digest("r1"), review_digest("r2")]);
        assert_eq!(
            named.fingerprints[1],
            (review_digest("r2"), "ba9876543210".to_owned())
        );
        assert_eq!(named.floor.as_deref(), Some("2026-11-02"));
        assert_eq!(
            decode_sync(&key(), "/b/reviews", "q", &c),
            Err(TokenError::OtherEndpoint("/a/reviews".into()))
        );
        assert_eq!(
            decode_sync(&key(), "/a/reviews", "other", &c),
            Err(TokenError::OtherQuery)
        );
        let other = TokenKey::from_secret(&[9u8; 32]).unwrap();
        assert_eq!(
            decode_sync(&other, "/a/reviews", "q", &c),
            Err(TokenError::Corrupted)
        );
        // A continuation token is not a cursor, nor the other way round.
        let token = encode(&key(), "/a/reviews", "q", &resume());
        assert_eq!(
            decode_sync(&key(), "/a/reviews", "q", &token),
            Err(TokenError::Corrupted)
        );
        assert!(decode(&key(), "/a/reviews", "q", &c).is_err());
    }

    #[test]
    fn a_sync_cursor_names_as_many_as_fit_in_4_kib() {
        let many: Vec<(String, String)> = (0..500)
            .map(|i| (format!("review-{i}"), format!("{i:012x}")))
            .collect();
        let route = "/customer-feedback-hub/reviews";
        let (c, named) = encode_sync(&key(), route, "q", &many, Some("2026-11-02".into()));
        assert!(c.len() <= MAX_SYNC_CURSOR_BYTES, "{}", c.len());
        // 86 with a day as the floor; 85 with a timestamp's 24 characters.
        assert_eq!(named, 86);
        let opened = decode_sync(&key(), route, "q", &c).unwrap();
        assert_eq!(opened.digests.len(), named);
        assert_eq!(
            opened.digests[0],
            review_digest("review-0"),
            "the newest kept"
        );
    }
}
