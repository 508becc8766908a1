//! Helpers the recipes share to map a review: texts, ratings, the "Name –
//! Country" author line and what it shows of an anonymous reviewer, the
//! "date - Verified booking" line, media URLs, ids.

use serde_json::Value;

/// GetYourGuide rates on 1–5 stars.
pub const SCALE: f64 = 5.0;

/// Image sizes, best first, as media items list them in `urls[]{size,url}`;
/// `thumb` is the avatar size.
const PHOTO_SIZES: &[&str] = &["original", "large", "medium", "small"];
const AVATAR_SIZE: &str = "thumb";

/// A string, or a number written out (ids come as either).
pub fn id(v: &Value) -> Option<String> {
    match v {
        Value::String(s) if !s.trim().is_empty() => Some(s.trim().to_owned()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Non-empty trimmed text. GetYourGuide escapes its texts for HTML inside
/// its JSON answers (`&amp;`, `&quot;`, `&#039;`): every text is decoded once.
pub fn text(v: &Value) -> Option<String> {
    gleaner_sdk::json::escaped(v)
}

/// How the site names a reviewer who chose not to show their name, in the
/// author line ("a GetYourGuide Customer – Germany"), lower-cased.
const ANONYMOUS: &[&str] = &[
    "getyourguide customer",
    "getyourguide traveler",
    "anonymous",
];

/// Whether the shown name is the site's stand-in for an anonymous reviewer.
pub fn is_anonymous(name: &str) -> bool {
    let name = name.to_lowercase();
    ANONYMOUS.iter().any(|a| name.contains(a))
}

/// A star rating, from a number or text such as `"5.0"`; none outside 1–5
/// (an unrated review's 0, say).
pub fn rating(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        .filter(|r| (1.0..=SCALE).contains(r))
}

/// Splits "Name – Country" at its last en or em dash; no dash: a name only.
pub fn split_author(line: &str) -> (Option<String>, Option<String>) {
    let clean = |s: &str| Some(s.trim().to_owned()).filter(|s| !s.is_empty());
    match line.rfind(['–', '—']) {
        Some(at) => {
            let dash = line[at..].chars().next().map_or(1, char::len_utf8);
            (clean(&line[..at]), clean(&line[at + dash..]))
        }
        None => (clean(line), None),
    }
}

/// What the site marks a review from a booking with, after the date in
/// "May 12, 2024 - Verified booking", lower-cased.
const VERIFIED: &str = "verified booking";

/// `Some(true)` when a date line marks the review as from a verified booking;
/// none when it says nothing of it.
pub fn verified(line: &str) -> Option<bool> {
    line.split(" - ")
        .skip(1)
        .any(|part| part.trim().to_lowercase() == VERIFIED)
        .then_some(true)
}

/// The URL of `size` in a media item's `urls[]`.
fn sized(item: &Value, size: &str) -> Option<String> {
    item["urls"]
        .as_array()?
        .iter()
        .find(|u| u["size"].as_str() == Some(size))
        .and_then(|u| text(&u["url"]))
}

/// The avatar and the photos of a `media[]` list: the first item is the
/// reviewer's avatar when it has a `thumb` size; every other item is a
/// traveller photo, at its largest listed size.
pub fn media(list: &Value) -> (Option<String>, Vec<String>) {
    let items = list.as_array().map(Vec::as_slice).unwrap_or_default();
    let avatar = items.first().and_then(|m| sized(m, AVATAR_SIZE));
    let skip = usize::from(avatar.is_some());
    let photos = items
        .iter()
        .skip(skip)
        .filter_map(|m| {
            PHOTO_SIZES
                .iter()
                .find_map(|s| sized(m, s))
                .or_else(|| m["urls"].as_array()?.iter().find_map(|u| text(&u["url"])))
                .or_else(|| text(&m["url"]))
        })
        .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
        .collect();
    (avatar.filter(|u| u.starts_with("http")), photos)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn ratings_ids_and_authors() {
        assert_eq!(rating(&json!("5.0")), Some(5.0));
        assert_eq!(rating(&json!(4)), Some(4.0));
        assert_eq!(rating(&json!(0)), None);
        assert_eq!(rating(&json!("n/a")), None);
        assert_eq!(id(&json!(3946905)).as_deref(), Some("3946905"));
        assert_eq!(id(&json!(" r-1 ")).as_deref(), Some("r-1"));
        assert_eq!(id(&json!(null)), None);
        assert_eq!(
            split_author("Jette Vinther – Denmark"),
            (Some("Jette Vinther".into()), Some("Denmark".into()))
        );
        assert_eq!(
            split_author("Jean-Pierre — France"),
            (Some("Jean-Pierre".into()), Some("France".into()))
        );
        assert_eq!(split_author("Anna"), (Some("Anna".into()), None));
        assert_eq!(split_author(" – Germany"), (None, Some("Germany".into())));
        assert!(is_anonymous("a GetYourGuide Customer"));
        assert!(is_anonymous("Anonymous"));
        assert!(!is_anonymous("Jette Vinther"));
        assert_eq!(verified("May 12, 2024 - Verified booking"), Some(true));
        assert_eq!(verified("May 12, 2024"), None);
        assert_eq!(verified("Verified booking is what I had"), None);
        assert_eq!(
            text(&json!(" up &amp; down, wouldn&#039;t ")).as_deref(),
            Some("up & down, wouldn't")
        );
    }

    #[test]
    fn avatar_first_then_photos_at_their_largest_size() {
        let (avatar, photos) = media(&json!([
            {"urls": [{"size": "thumb", "url": "https://cdn.example/a.jpg"}]},
            {"urls": [{"size": "thumb", "url": "https://cdn.example/p1-t.jpg"}, {"size": "large", "url": "https://cdn.example/p1-l.jpg"}]},
            {"urls": [{"size": "tiny", "url": "https://cdn.example/p2.jpg"}]},
            {"urls": [{"size": "large", "url": "/relative.jpg"}]}
        ]));
        assert_eq!(avatar.as_deref(), Some("https://cdn.example/a.jpg"));
        assert_eq!(
            photos,
            vec!["https://cdn.example/p1-l.jpg", "https://cdn.example/p2.jpg"]
        );
        let (avatar, photos) =
            media(&json!([{"urls": [{"size": "large", "url": "https://cdn.example/p.jpg"}]}]));
        assert_eq!(avatar, None);
        assert_eq!(photos, vec!["https://cdn.example/p.jpg"]);
        assert_eq!(media(&json!(null)), (None, Vec::new()));
    }
}
