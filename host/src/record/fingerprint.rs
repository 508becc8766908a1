//! A review's content fingerprint, and what changed between two of them: the
//! rule a tracked schedule finds edits and replies by.
//!
//! The fingerprint covers the fields that carry meaning: the title, the
//! text, the rating on its scale, `updated_date` when the site gives it to
//! the minute or better, and the reply's text. Whitespace runs count as one
//! space, and zero-width characters as nothing. Nothing else counts, so
//! cosmetic churn is never a change: relative dates ("2 days ago", which
//! drift as days pass, hence the reply's date too), view and like counts,
//! avatar and CDN URLs, tracking parameters.

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use super::Review;
use gleaner_jobs::changes::{ChangeKind, Fingerprinted};

/// The fields a change's `before` and `after` show, in the snapshot kept.
const CONTENT: &[&str] = &[
    "review_title",
    "review_text",
    "review_rating",
    "rating_scale_max",
    "updated_date",
];

/// The review as a tracked schedule keeps it.
pub fn of(review: &Review) -> Fingerprinted {
    of_record(&serde_json::to_value(review).unwrap_or(Value::Null))
}

/// A review record (as the API answers it) as a tracked schedule keeps it.
pub fn of_record(record: &Value) -> Fingerprinted {
    let reply = &record["review_reply"];
    let reply = (!reply.is_null()).then(|| {
        json!({
            "text": reply["text"],
            "date": reply["date"],
            "date_precision": reply["date_precision"],
        })
    });
    let updated_precise = record["updated_date"]
        .as_str()
        .filter(|d| d.len() > "YYYY-MM-DD".len());
    let snapshot = json!({
        "review_title": record["review_title"],
        "review_text": record["review_text"],
        "review_rating": record["review_rating"],
        "rating_scale_max": record["rating_scale_max"],
        "updated_date": updated_precise,
        "review_reply": reply,
        "review_date": record["review_date"],
    });
    Fingerprinted {
        review_id: record["review_id"].as_str().unwrap_or_default().to_owned(),
        fingerprint: digest(&snapshot),
        snapshot,
    }
}

/// The digest of a snapshot's meaningful fields, normalized: 24 hex digits
/// of the review's own fields, then 8 of its reply's text (zeros for none),
/// so a short form can still tell an edit from a reply.
fn digest(snapshot: &Value) -> String {
    let mut hash = Sha256::new();
    for field in CONTENT {
        hash.update(canonical(&snapshot[field]).as_bytes());
        hash.update([0]);
    }
    let content = hex::encode(&hash.finalize()[..12]);
    let reply = canonical(&snapshot["review_reply"]["text"]);
    let reply = match reply.is_empty() {
        true => "0".repeat(8),
        false => hex::encode(&Sha256::digest(reply.as_bytes())[..4]),
    };
    format!("{content}{reply}")
}

/// A fingerprint in the 12 hex digits a `sync_cursor` carries per review:
/// 8 of the review's own fields, 4 of its reply (zeros for none).
pub fn short(fingerprint: &str) -> String {
    let (content, reply) = fingerprint.split_at(fingerprint.len().min(24));
    format!(
        "{}{}",
        &content[..content.len().min(8)],
        &reply[..reply.len().min(4)]
    )
}

/// What changed from a review's short fingerprint `was` to the review `now`
/// (its fields as they are now, for the answer).
pub fn short_changes(was: &str, now: &Fingerprinted) -> Vec<ChangeKind> {
    let is = short(&now.fingerprint);
    if was.len() != is.len() || was == is {
        return Vec::new();
    }
    let (was_content, was_reply) = was.split_at(8);
    let (is_content, is_reply) = is.split_at(8);
    let mut found = Vec::new();
    if was_content != is_content {
        found.push(ChangeKind::Updated);
    }
    if was_reply != is_reply {
        found.push(match was_reply.bytes().all(|b| b == b'0') {
            true => ChangeKind::ReplyAdded,
            false => ChangeKind::ReplyUpdated,
        });
    }
    found
}

/// A value as compared: text with its whitespace runs as one space and no
/// zero-width characters; a rating to four decimals; null as nothing.
fn canonical(value: &Value) -> String {
    match value {
        Value::Null => String::new(),
        Value::String(s) => normal_text(s),
        Value::Number(n) => match n.as_f64() {
            Some(f) => format!("{f:.4}"),
            None => n.to_string(),
        },
        other => other.to_string(),
    }
}

fn normal_text(text: &str) -> String {
    let visible = text.chars().filter(|c| {
        !matches!(
            c,
            '\u{200b}' | '\u{200c}' | '\u{200d}' | '\u{2060}' | '\u{feff}'
        )
    });
    let mut out = String::with_capacity(text.len());
    for word in visible.collect::<String>().split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

/// What changed from `kept` to `now`, each with the fields it changed as
/// they were and as they are; nothing when the fingerprints match.
pub fn changes(kept: &Fingerprinted, now: &Fingerprinted) -> Vec<(ChangeKind, (Value, Value))> {
    if kept.fingerprint == now.fingerprint {
        return Vec::new();
    }
    let (old, new) = (&kept.snapshot, &now.snapshot);
    let mut found = Vec::new();
    let (mut before, mut after) = (Map::new(), Map::new());
    for field in CONTENT {
        if canonical(&old[field]) != canonical(&new[field]) {
            before.insert((*field).into(), old[field].clone());
            after.insert((*field).into(), new[field].clone());
        }
    }
    if !before.is_empty() {
        found.push((ChangeKind::Updated, (before.into(), after.into())));
    }
    let (was, is) = (&old["review_reply"], &new["review_reply"]);
    let (had, has) = (canonical(&was["text"]), canonical(&is["text"]));
    if had != has {
        let kind = match had.is_empty() {
            true => ChangeKind::ReplyAdded,
            false => ChangeKind::ReplyUpdated,
        };
        let pair = (
            json!({ "review_reply": was }),
            json!({ "review_reply": is }),
        );
        found.push((kind, pair));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::Reply;

    fn review() -> Review {
        Review {
            review_id: "r1".into(),
            review_title: Some("Great".into()),
            review_text: Some("Fast delivery, kind staff.".into()),
            review_rating: Some(5.0),
            rating_scale_max: Some(5.0),
            review_date: Some("2026-03-01T10:00:00Z".into()),
            helpful_votes: Some(3),
            author_profile_image_url: Some("https://cdn.example/a.jpg?v=1".into()),
            ..Review::default()
        }
    }

    #[test]
    fn cosmetic_churn_is_no_change() {
        let kept = of(&review());
        let mut again = review();
        again.helpful_votes = Some(40);
        again.author_profile_image_url = Some("https://cdn2.example/a.jpg?utm_source=x".into());
        again.review_text = Some("  Fast delivery,\u{200b}  kind\nstaff. ".into());
        again.review_url = Some("https://site.example/r1?ref=feed".into());
        // A day-precise date (from "2 days ago") drifts; it does not count.
        again.updated_date = Some("2026-03-04".into());
        let now = of(&again);
        assert_eq!(kept.fingerprint, now.fingerprint);
        assert!(changes(&kept, &now).is_empty());
    }

    #[test]
    fn an_edit_shows_the_fields_it_changed() {
        let kept = of(&review());
        let mut edited = review();
        edited.review_rating = Some(2.0);
        edited.review_text = Some("Slow this time.".into());
        edited.updated_date = Some("2026-03-05T08:00:00Z".into());
        let found = changes(&kept, &of(&edited));
        assert_eq!(found.len(), 1);
        let (kind, (before, after)) = &found[0];
        assert_eq!(*kind, ChangeKind::Updated);
        assert_eq!(before["review_rating"], 5.0);
        assert_eq!(after["review_rating"], 2.0);
        assert_eq!(after["review_text"], "Slow this time.");
        assert_eq!(after["updated_date"], "2026-03-05T08:00:00Z");
        assert!(before.get("review_title").is_none(), "unchanged: left out");
    }

    #[test]
    fn a_short_fingerprint_tells_an_edit_from_a_reply() {
        let kept = of(&review());
        let was = short(&kept.fingerprint);
        assert_eq!(was.len(), 12);
        assert!(was.ends_with("0000"), "no reply: {was}");
        assert!(short_changes(&was, &kept).is_empty());
        let mut edited = review();
        edited.review_rating = Some(1.0);
        assert_eq!(short_changes(&was, &of(&edited)), [ChangeKind::Updated]);
        let mut replied = review();
        replied.review_reply = Some(Reply {
            text: "Thanks".into(),
            date: None,
            date_precision: None,
            author: None,
        });
        let now = of(&replied);
        assert_eq!(short_changes(&was, &now), [ChangeKind::ReplyAdded]);
        let mut again = replied.clone();
        again.review_reply.as_mut().unwrap().text = "Thanks!".into();
        let was = short(&now.fingerprint);
        assert_eq!(short_changes(&was, &of(&again)), [ChangeKind::ReplyUpdated]);
    }

    #[test]
    fn a_reply_added_then_edited() {
        let kept = of(&review());
        let reply = |text: &str, date: &str| Reply {
            text: text.into(),
            date: Some(date.into()),
            date_precision: Some("day"),
            author: None,
        };
        let mut replied = review();
        replied.review_reply = Some(reply("Thank you!", "2026-03-02"));
        let now = of(&replied);
        let found = changes(&kept, &now);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, ChangeKind::ReplyAdded);
        assert_eq!(found[0].1 .1["review_reply"]["text"], "Thank you!");
        assert!(found[0].1 .0["review_reply"].is_null());
        // The reply's date drifting alone is no change.
        let mut drifted = replied.clone();
        drifted.review_reply = Some(reply("Thank you!", "2026-03-03"));
        assert!(changes(&now, &of(&drifted)).is_empty());
        let mut edited = replied.clone();
        edited.review_reply = Some(reply("Thank you, Ana!", "2026-03-03"));
        let found = changes(&now, &of(&edited));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, ChangeKind::ReplyUpdated);
        // A reply kept with no text (as an older record may hold one) had
        // nothing to show: text now is a reply added.
        let mut blank = review();
        blank.review_reply = Some(reply("", "2026-03-02"));
        let found = changes(&of(&blank), &now);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].0, ChangeKind::ReplyAdded);
    }
}
