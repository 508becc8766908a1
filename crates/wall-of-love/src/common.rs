//! What the four adapters share: reading loose JSON values, the author line,
//! ratings and dates, Mux video URLs, transcripts, the offset cursor,
//! and telling a bot challenge from a changed page.

use gleaner_sdk::http::Response;
use gleaner_sdk::json::string;
use gleaner_sdk::{botwall, date, FetchError, SourceMeta};
use serde_json::{json, Value};

/// A Mux video stream (HLS) by playback id.
pub const MUX_STREAM: &str = "https://stream.mux.com/{playback_id}.m3u8";
/// The poster frame Mux serves for a playback id.
pub const MUX_THUMBNAIL: &str = "https://image.mux.com/{playback_id}/thumbnail.jpg";
/// Keys a video item's transcript may sit under (none of the recorded Shapo
/// items has one; the names are the usual ones and are read wherever present).
pub const TRANSCRIPT_KEYS: &[&str] = &["transcript", "transcription"];

/// The plugin's cursor for paged products: where the next page starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Offset {
    /// Items of the wall already returned.
    pub offset: u32,
}

/// `v` when it is an absolute http(s) URL (anything else is dropped, not guessed at).
pub fn http_url(v: Option<String>) -> Option<String> {
    v.filter(|u| u.starts_with("https://") || u.starts_with("http://"))
}

/// The first non-empty string among `keys` of `obj`.
pub fn first_string(obj: &Value, keys: &[&str]) -> Option<String> {
    keys.iter().find_map(|k| string(&obj[*k]))
}

/// "title, company", or whichever of the two exists.
pub fn author_title(title: Option<String>, company: Option<String>) -> Option<String> {
    match (title, company) {
        (Some(t), Some(c)) if t != c => Some(format!("{t}, {c}")),
        (Some(t), _) => Some(t),
        (None, c) => c,
    }
}

/// A 1–5 star rating (a number, or a number written as text); none otherwise.
pub fn stars(v: &Value) -> Option<f64> {
    let n = v
        .as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))?;
    (1.0..=5.0).contains(&n).then_some(n)
}

/// An ISO 8601 date from an ISO string (kept as it is), epoch seconds or milliseconds.
pub fn iso_date(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => date::parse(s, None),
        Value::Number(n) => date::parse(&n.as_i64()?.to_string(), None),
        _ => None,
    }
}

/// The HLS stream of a Mux playback id.
pub fn mux_stream(playback_id: &str) -> String {
    MUX_STREAM.replace("{playback_id}", playback_id)
}

/// The thumbnail of a Mux playback id.
pub fn mux_thumbnail(playback_id: &str) -> String {
    MUX_THUMBNAIL.replace("{playback_id}", playback_id)
}

/// A transcript on an item (or its `video` object): a string, or an object with `text`.
pub fn transcript(item: &Value) -> Option<String> {
    let holders = [item, &item["video"]];
    holders.iter().find_map(|h| {
        TRANSCRIPT_KEYS
            .iter()
            .find_map(|k| string(&h[*k]).or_else(|| string(&h[*k]["text"])))
    })
}

/// The error for a 2xx answer that lacks its data: "blocked" when it is a bot
/// wall (a challenge served with 200), else `changed` (the layout changed).
pub fn missing(response: &Response, what: &str, changed: FetchError) -> FetchError {
    match botwall::detect(response) {
        Some(wall) => botwall::blocked(wall, what, response),
        None => changed,
    }
}

/// The page metadata every adapter returns.
pub fn meta(
    resolved_url: String,
    name: Option<String>,
    average_rating: Option<f64>,
    total_reviews: Option<u64>,
    extra: Value,
) -> SourceMeta {
    SourceMeta {
        resolved_url: Some(resolved_url),
        name,
        average_rating,
        total_reviews,
        extra_json: if extra.is_object() {
            extra.to_string()
        } else {
            json!({}).to_string()
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn author_lines() {
        let s = |v: &str| Some(v.to_owned());
        assert_eq!(
            author_title(s("CEO"), s("Acme")).as_deref(),
            Some("CEO, Acme")
        );
        assert_eq!(author_title(None, s("Acme")).as_deref(), Some("Acme"));
        assert_eq!(author_title(s("CEO"), None).as_deref(), Some("CEO"));
        assert_eq!(author_title(None, None), None);
    }

    #[test]
    fn ratings_and_dates() {
        assert_eq!(stars(&json!(5)), Some(5.0));
        assert_eq!(stars(&json!("4")), Some(4.0));
        assert_eq!(stars(&json!(0)), None);
        assert_eq!(stars(&json!(6)), None);
        assert_eq!(stars(&Value::Null), None);
        assert_eq!(
            iso_date(&json!("2024-08-01T22:09:42.218Z")).as_deref(),
            Some("2024-08-01T22:09:42.218Z")
        );
        assert_eq!(
            iso_date(&json!(1_700_000_000_000i64)).as_deref(),
            Some("2023-11-14T22:13:20Z")
        );
        assert_eq!(iso_date(&json!("soon")), None);
    }

    #[test]
    fn transcripts_and_mux() {
        assert_eq!(
            transcript(&json!({"video": {"transcript": " hi "}})).as_deref(),
            Some("hi")
        );
        assert_eq!(
            transcript(&json!({"transcription": {"text": "x"}})).as_deref(),
            Some("x")
        );
        assert_eq!(transcript(&json!({"video": {"playbackId": "p"}})), None);
        assert_eq!(
            mux_stream("abc"),
            "https://stream.mux.com/abc.m3u8".to_owned()
        );
        assert_eq!(
            mux_thumbnail("abc"),
            "https://image.mux.com/abc/thumbnail.jpg"
        );
    }
}
