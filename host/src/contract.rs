//! The review contract: what the host checks of every review a plugin returns
//! before it becomes an API record. The host trusts no guest, so these checks run
//! here, whatever SDK (if any) the plugin was built with; a review that breaks
//! them fails the request as a plugin fault and never reaches the user.

use serde_json::Value;
use url::Url;

use crate::bindings::types as wit;

/// Longest review id accepted.
const MAX_ID_LEN: usize = 512;

/// A review that breaks the contract, and how.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("review {id:?}: {problem}")]
pub struct ContractError {
    /// The review's id (as sent).
    pub id: String,
    /// What is wrong.
    pub problem: String,
}

/// Checks one review.
pub fn check_review(r: &wit::Review) -> Result<(), ContractError> {
    let fail = |problem: String| ContractError {
        id: r.id.chars().take(80).collect(),
        problem,
    };
    let id = r.id.trim();
    if id.is_empty() || id.len() > MAX_ID_LEN {
        return Err(fail(format!(
            "the id must be 1 to {MAX_ID_LEN} bytes of non-blank text"
        )));
    }
    check_rating(r.rating, r.rating_scale_max).map_err(fail)?;
    if let Some(date) = &r.date {
        check_date(date).map_err(fail)?;
    }
    let urls = [
        ("author_profile_image_url", &r.author_profile_image_url),
        ("author_url", &r.author_url),
        ("review_url", &r.review_url),
    ];
    for (field, url) in urls {
        if let Some(url) = url.as_deref().filter(|u| !u.trim().is_empty()) {
            check_url(url).map_err(|e| fail(format!("{field}: {e}")))?;
        }
    }
    for media in &r.media {
        check_url(&media.url).map_err(|e| fail(format!("media url: {e}")))?;
        if !matches!(media.media_type.as_str(), "image" | "video") {
            return Err(fail(format!(
                "media type {:?} must be \"image\" or \"video\"",
                media.media_type
            )));
        }
    }
    if let Some(date) = r.reply.as_ref().and_then(|reply| reply.date.as_ref()) {
        check_date(date).map_err(|e| fail(format!("reply: {e}")))?;
    }
    if r.helpful_votes.is_some_and(|v| v < 0) {
        return Err(fail("helpful votes cannot be negative".into()));
    }
    let extra = r.extra_json.trim();
    if !extra.is_empty() && !matches!(serde_json::from_str::<Value>(extra), Ok(Value::Object(_))) {
        return Err(fail("extra-json must be a JSON object, or empty".into()));
    }
    Ok(())
}

fn check_rating(rating: Option<f64>, max: Option<f64>) -> Result<(), String> {
    let Some(rating) = rating else {
        return Ok(());
    };
    let Some(max) = max.filter(|m| m.is_finite() && *m > 0.0) else {
        return Err(format!(
            "rating {rating} comes without a positive rating-scale-max"
        ));
    };
    if !rating.is_finite() || !(0.0..=max).contains(&rating) {
        return Err(format!("rating {rating} is outside 0..={max}"));
    }
    Ok(())
}

/// An ISO 8601 calendar date (`YYYY-MM-DD`), a month (`YYYY-MM`, for sources that
/// give only the month), or an RFC 3339 date-time (the offset may be omitted).
pub fn check_date(date: &str) -> Result<(), String> {
    use time::format_description::well_known::Rfc3339;
    use time::macros::format_description;
    let d = date.trim();
    let ok = time::Date::parse(d, &format_description!("[year]-[month]-[day]")).is_ok()
        || (d.len() == 7
            && time::Date::parse(
                &format!("{d}-01"),
                &format_description!("[year]-[month]-[day]"),
            )
            .is_ok())
        || time::OffsetDateTime::parse(d, &Rfc3339).is_ok()
        || time::PrimitiveDateTime::parse(
            d,
            &format_description!(
                "[year]-[month]-[day]T[hour]:[minute]:[second][optional [.[subsecond]]]"
            ),
        )
        .is_ok();
    if ok {
        Ok(())
    } else {
        Err(format!(
            "date {date:?} is not ISO 8601 (YYYY-MM-DD, YYYY-MM or an RFC 3339 date-time)"
        ))
    }
}

fn check_url(url: &str) -> Result<(), String> {
    match Url::parse(url.trim()) {
        Ok(u) if matches!(u.scheme(), "http" | "https") && u.host_str().is_some() => Ok(()),
        _ => Err(format!("{url:?} is not an absolute http(s) URL")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn review() -> wit::Review {
        wit::Review {
            id: "r1".into(),
            title: None,
            text: None,
            rating: Some(4.0),
            rating_scale_max: Some(5.0),
            date: Some("2023-12-07T11:23:40.000Z".into()),
            author_name: None,
            author_profile_image_url: None,
            author_url: Some("https://example.com/u/1".into()),
            author_title: None,
            review_url: None,
            media: vec![],
            reply: None,
            helpful_votes: Some(2),
            language: None,
            extra_json: "{\"a\":1}".into(),
        }
    }

    #[test]
    fn a_good_review_passes() {
        check_review(&review()).unwrap();
        for date in [
            "2024-02-29",
            "2024-05",
            "2024-05-01T10:00:00",
            "2024-05-01T10:00:00+02:00",
        ] {
            check_date(date).unwrap();
        }
    }

    #[test]
    fn every_broken_rule_is_caught() {
        type Breaker = Box<dyn Fn(&mut wit::Review)>;
        let cases: Vec<(&str, Breaker)> = vec![
            ("id", Box::new(|r| r.id = "  ".into())),
            ("outside", Box::new(|r| r.rating = Some(99.0))),
            ("outside", Box::new(|r| r.rating = Some(-1.0))),
            ("outside", Box::new(|r| r.rating = Some(f64::NAN))),
            ("rating-scale-max", Box::new(|r| r.rating_scale_max = None)),
            ("ISO 8601", Box::new(|r| r.date = Some("yesterday".into()))),
            ("ISO 8601", Box::new(|r| r.date = Some("2024-02-30".into()))),
            (
                "author_url",
                Box::new(|r| r.author_url = Some("/u/1".into())),
            ),
            (
                "author_url",
                Box::new(|r| r.author_url = Some("javascript:alert(1)".into())),
            ),
            ("negative", Box::new(|r| r.helpful_votes = Some(-3))),
            ("extra-json", Box::new(|r| r.extra_json = "[1]".into())),
            (
                "media type",
                Box::new(|r| {
                    r.media.push(wit::Media {
                        id: None,
                        media_type: "gif".into(),
                        url: "https://x.com/a.gif".into(),
                        width: None,
                        height: None,
                    })
                }),
            ),
        ];
        for (needle, break_it) in cases {
            let mut r = review();
            break_it(&mut r);
            let err = check_review(&r).unwrap_err().to_string();
            assert!(err.contains(needle), "{needle}: {err}");
        }
    }
}
