//! The review API's answer, `{"reviews": [{"review", "rating", "created_on", …}]}`,
//! and the mapping of one review object.
//!
//! The keys the plugin reads are in [`keys`], each marked as seen in public
//! recordings or assumed; when ClassPass renames one, that is the one line to
//! change.

use gleaner_sdk::review::{stable_id, ReviewBuilder};
use gleaner_sdk::types::Review;
use gleaner_sdk::{date, json, FetchError};
use serde_json::{json, Value};

use crate::endpoints::SCALE;
use crate::venue::Venue;

/// The keys of a review object.
pub mod keys {
    /// The list of reviews in the answer (seen).
    pub const LIST: &str = "reviews";
    /// Review text (seen).
    pub const TEXT: &str = "review";
    /// Star rating, a number or a numeric string (seen).
    pub const RATING: &str = "rating";
    /// When the review was written, Unix seconds (seen).
    pub const CREATED: &str = "created_on";
    /// The review's id (assumed; without it, an id is derived from the venue,
    /// the date and the text).
    pub const ID: &str = "id";
    /// Name of the class the reviewer attended (assumed).
    pub const CLASS_NAME: &str = "class_name";
    /// The class's instructor (assumed: the key ClassPass's schedule JSON
    /// uses for a class's instructor).
    pub const INSTRUCTOR: &str = "teacher_name";
    /// When the reviewed class took place, Unix seconds like [`CREATED`] (assumed).
    pub const ATTENDED: &str = "attended_on";
}

/// The reviews of one answer; an answer without the list means the API changed.
pub fn list(answer: &Value, venue: &Venue) -> Result<Vec<Value>, FetchError> {
    answer[keys::LIST].as_array().cloned().ok_or_else(|| {
        FetchError::Upstream(format!(
            "the review answer for venue {} has no `{}` list: the ClassPass API changed its layout and the plugin needs an update",
            venue.id,
            keys::LIST
        ))
    })
}

/// A star rating given as a number or as text ("5", "4.0").
fn stars(v: &Value) -> Option<f64> {
    v.as_f64()
        .or_else(|| v.as_str().and_then(|s| s.trim().parse().ok()))
        .filter(|x| (0.0..=SCALE).contains(x))
}

/// A Unix timestamp (seconds; milliseconds when it is that large), as a
/// number or as text, or an ISO 8601 string, → ISO 8601 UTC.
pub fn timestamp(v: &Value) -> Option<String> {
    let millis = |n: f64| n.abs() >= 1e11;
    match v {
        Value::Number(n) => n.as_f64().and_then(|x| {
            if millis(x) {
                date::iso_from_epoch_millis(x as i64)
            } else {
                date::iso_from_epoch_secs(x)
            }
        }),
        Value::String(s) => match s.trim().parse::<f64>() {
            Ok(x) => timestamp(&json!(x)),
            Err(_) => date::looks_iso(s.trim()).then(|| s.trim().to_owned()),
        },
        _ => None,
    }
}

/// The review's id: the site's, else one derived from what identifies it.
fn id(r: &Value, venue: &Venue) -> String {
    match &r[keys::ID] {
        Value::Number(n) => n.to_string(),
        other => json::string(other).unwrap_or_else(|| {
            let created = r[keys::CREATED].to_string();
            let text = r[keys::TEXT].as_str().unwrap_or_default();
            stable_id("cp-", &[&venue.id.to_string(), &created, text])
        }),
    }
}

/// Maps one review object. Reviews have no permalink: `review_url` is the
/// studio page. No public recording shows a reviewer's name, a studio reply or
/// photos in a review object, so those fields stay empty rather than guessed.
pub fn review(r: &Value, venue: &Venue) -> Result<Review, String> {
    let raw_rating = &r[keys::RATING];
    ReviewBuilder::new(id(r, venue))
        .text_plain(r[keys::TEXT].as_str().map(str::to_owned))
        .rating(stars(raw_rating), SCALE)
        .date(timestamp(&r[keys::CREATED]))
        .review_url(Some(venue.url()))
        .extra(json!({
            "class_name": json::string(&r[keys::CLASS_NAME]),
            "instructor": json::string(&r[keys::INSTRUCTOR]),
            "attended_date": timestamp(&r[keys::ATTENDED]),
            "rating_raw": raw_rating,
        }))
        .build()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn venue() -> Venue {
        Venue {
            id: 26727,
            alias: "bloor-hot-yoga-toronto".into(),
            name: None,
            location: None,
            average: None,
            total: None,
            timezone: None,
        }
    }

    fn extra(r: &Review) -> Value {
        serde_json::from_str(&r.extra_json).unwrap()
    }

    #[test]
    fn maps_every_field() {
        let r = review(
            &json!({"id": 91230456, "review": "Bring an extra towel.", "rating": 5,
                "created_on": 1721262048, "class_name": "Hot Power Flow 60",
                "teacher_name": "Priya", "attended_on": 1721239200}),
            &venue(),
        )
        .unwrap();
        assert_eq!(r.id, "91230456");
        assert!(
            matches!(&r.text, Some(gleaner_sdk::Text::Plain(t)) if t == "Bring an extra towel.")
        );
        assert_eq!((r.rating, r.rating_scale_max), (Some(5.0), Some(5.0)));
        assert_eq!(r.date.as_deref(), Some("2024-07-18T00:20:48Z"));
        assert_eq!(
            r.review_url.as_deref(),
            Some("https://classpass.com/studios/bloor-hot-yoga-toronto")
        );
        assert_eq!(r.author_name, None);
        assert!(r.reply.is_none());
        let e = extra(&r);
        assert_eq!(e["class_name"], "Hot Power Flow 60");
        assert_eq!(e["instructor"], "Priya");
        assert_eq!(e["attended_date"], "2024-07-17T18:00:00Z");
        assert_eq!(e["rating_raw"], 5);
    }

    #[test]
    fn ratings_and_dates_as_text_are_read_and_kept_raw() {
        let r = review(
            &json!({"id": "r-1", "review": "x", "rating": "3", "created_on": "1781132325"}),
            &venue(),
        )
        .unwrap();
        assert_eq!(r.rating, Some(3.0));
        assert_eq!(r.date.as_deref(), Some("2026-06-10T22:58:45Z"));
        assert_eq!(extra(&r)["rating_raw"], "3");
        let r = review(
            &json!({"id": 2, "rating": "4.0", "created_on": 1781132325000i64}),
            &venue(),
        )
        .unwrap();
        assert_eq!(r.rating, Some(4.0));
        assert_eq!(r.date.as_deref(), Some("2026-06-10T22:58:45Z"));
    }

    #[test]
    fn odd_values_are_left_out_not_invented() {
        let r = review(
            &json!({"review": "y", "rating": 7, "created_on": "soon"}),
            &venue(),
        )
        .unwrap();
        assert_eq!(r.rating, None);
        assert_eq!(r.rating_scale_max, None);
        assert_eq!(r.date, None);
        assert_eq!(extra(&r)["rating_raw"], 7, "the raw value is kept");
        assert!(r.id.starts_with("cp-"));
        let again = review(
            &json!({"review": "y", "rating": 7, "created_on": "soon"}),
            &venue(),
        )
        .unwrap();
        assert_eq!(r.id, again.id, "derived ids are stable");
        let e = extra(&r);
        assert_eq!(e["class_name"], Value::Null);
        assert_eq!(e["attended_date"], Value::Null);
        assert_eq!(
            timestamp(&json!("2026-09-28T03:13:39.508Z")).as_deref(),
            Some("2026-09-28T03:13:39.508Z")
        );
    }

    #[test]
    fn an_answer_without_the_list_is_a_changed_layout() {
        assert_eq!(list(&json!({"reviews": []}), &venue()).unwrap().len(), 0);
        assert!(matches!(
            list(&json!({"data": {"items": []}}), &venue()),
            Err(FetchError::Upstream(m)) if m.contains("changed its layout")
        ));
    }
}
