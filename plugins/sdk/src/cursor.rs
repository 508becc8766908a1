//! Plugin cursors: any serialisable state, encoded as an opaque URL-safe string.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::FetchError;

/// Encodes cursor state (base64url of its JSON).
pub fn encode<T: Serialize>(state: &T) -> String {
    URL_SAFE_NO_PAD.encode(serde_json::to_vec(state).unwrap_or_default())
}

/// The cursors of the pages after this one, for `Page::ahead`: one per state,
/// in order. List them when the pages can be enumerated (page numbers up to a
/// known count, offsets up to a known total), and give the first as
/// `next_cursor` too; the host then fetches several at once.
/// The host keeps at most [`MAX_AHEAD`] of them, so no more are encoded (a
/// wildly wrong page count from a site costs nothing).
pub fn ahead<T: Serialize>(states: impl IntoIterator<Item = T>) -> Vec<String> {
    states
        .into_iter()
        .take(MAX_AHEAD)
        .map(|s| encode(&s))
        .collect()
}

/// The most cursors a page lists ahead that the host keeps.
pub use gleaner_contract::MAX_AHEAD;

/// Decodes cursor state; a damaged cursor is a [`FetchError::BadCursor`].
pub fn decode<T: DeserializeOwned>(cursor: &str) -> Result<T, FetchError> {
    let bytes = URL_SAFE_NO_PAD
        .decode(cursor.trim())
        .map_err(|_| FetchError::BadCursor("the cursor is not valid base64url".into()))?;
    serde_json::from_slice(&bytes)
        .map_err(|e| FetchError::BadCursor(format!("the cursor does not hold valid state: {e}")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, serde::Serialize, serde::Deserialize)]
    struct State {
        page: u32,
        build: String,
    }

    #[test]
    fn round_trips_and_rejects_garbage() {
        let s = State {
            page: 3,
            build: "b-1".into(),
        };
        assert_eq!(decode::<State>(&encode(&s)).unwrap(), s);
        assert!(matches!(
            decode::<State>("%%%"),
            Err(FetchError::BadCursor(_))
        ));
        assert!(matches!(
            decode::<State>(&encode(&1)),
            Err(FetchError::BadCursor(_))
        ));
    }
}
