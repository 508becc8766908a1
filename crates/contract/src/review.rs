//! The review contract: what every review a plugin returns must be before it
//! becomes an API record. A review that breaks it fails the request as a
//! plugin fault on the host, and is refused when the SDK builds it.

use serde_json::Value;
use url::Url;

/// Longest review id accepted, in bytes.
pub const MAX_ID_LEN: usize = 512;

/// The fields of a review the contract checks, borrowed from whichever type a
/// side holds them in.
#[derive(Debug, Clone, Default)]
pub struct Fields<'a> {
    /// The id.
    pub id: &'a str,
    /// The rating, on `rating_scale_max`.
    pub rating: Option<f64>,
    /// The top of the rating scale.
    pub rating_scale_max: Option<f64>,
    /// The review's date.
    pub date: Option<&'a str>,
    /// Named URLs: the author's image and page, the review's page.
    pub urls: Vec<(&'static str, Option<&'a str>)>,
    /// Media items: (type, URL).
    pub media: Vec<(&'a str, &'a str)>,
    /// The owner's reply's date.
    pub reply_date: Option<&'a str>,
    /// Helpful votes.
    pub helpful_votes: Option<i64>,
    /// Source-specific fields, as JSON object text (or empty).
    pub extra_json: &'a str,
}

/// The [`Fields`] of a review of either side's WIT bindings (the host's and
/// the guest's `review` records have the same field names).
#[macro_export]
macro_rules! review_fields {
    ($r:expr) => {
        $crate::review::Fields {
            id: &$r.id,
            rating: $r.rating,
            rating_scale_max: $r.rating_scale_max,
            date: $r.date.as_deref(),
            urls: vec![
                (
                    "author_profile_image_url",
                    $r.author_profile_image_url.as_deref(),
                ),
                ("author_url", $r.author_url.as_deref()),
                ("review_url", $r.review_url.as_deref()),
            ],
            media: $r
                .media
                .iter()
                .map(|m| (m.media_type.as_str(), m.url.as_str()))
                .collect(),
            reply_date: $r.reply.as_ref().and_then(|reply| reply.date.as_deref()),
            helpful_votes: $r.helpful_votes,
            extra_json: &$r.extra_json,
        }
    };
}

/// Checks one review; the error says what is wrong.
pub fn check(r: &Fields<'_>) -> Result<(), String> {
    let id = r.id.trim();
    if id.is_empty() || id.len() > MAX_ID_LEN {
        return Err(format!(
            "the id must be 1 to {MAX_ID_LEN} bytes of non-blank text"
        ));
    }
    check_rating(r.rating, r.rating_scale_max)?;
    if let Some(date) = r.date {
        check_date(date)?;
    }
    for (field, url) in &r.urls {
        if let Some(url) = url.filter(|u| !u.trim().is_empty()) {
            check_url(url).map_err(|e| format!("{field}: {e}"))?;
        }
    }
    for (kind, url) in &r.media {
        check_url(url).map_err(|e| format!("media url: {e}"))?;
        if !matches!(*kind, "image" | "video") {
            return Err(format!(
                "media type {kind:?} must be \"image\" or \"video\""
            ));
        }
    }
    if let Some(date) = r.reply_date {
        check_date(date).map_err(|e| format!("reply: {e}"))?;
    }
    if r.helpful_votes.is_some_and(|v| v < 0) {
        return Err("helpful votes cannot be negative".into());
    }
    let extra = r.extra_json.trim();
    if !extra.is_empty() && !matches!(serde_json::from_str::<Value>(extra), Ok(Value::Object(_))) {
        return Err("extra-json must be a JSON object, or empty".into());
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
    let day = format_description!("[year]-[month]-[day]");
    let d = date.trim();
    let ok = time::Date::parse(d, &day).is_ok()
        || (d.len() == 7 && time::Date::parse(&format!("{d}-01"), &day).is_ok())
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

    fn review() -> Fields<'static> {
        Fields {
            id: "r1",
            rating: Some(4.0),
            rating_scale_max: Some(5.0),
            date: Some("2023-12-07T11:23:40.000Z"),
            urls: vec![("author_url", Some("https://example.com/u/1"))],
            helpful_votes: Some(2),
            extra_json: "{\"a\":1}",
            ..Fields::default()
        }
    }

    #[test]
    fn a_good_review_passes() {
        check(&review()).unwrap();
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
        type Breaker = Box<dyn Fn(&mut Fields<'static>)>;
        let cases: Vec<(&str, Breaker)> = vec![
            ("id", Box::new(|r| r.id = "  ")),
            ("outside", Box::new(|r| r.rating = Some(99.0))),
            ("outside", Box::new(|r| r.rating = Some(-1.0))),
            ("outside", Box::new(|r| r.rating = Some(f64::NAN))),
            ("rating-scale-max", Box::new(|r| r.rating_scale_max = None)),
            ("ISO 8601", Box::new(|r| r.date = Some("yesterday"))),
            ("ISO 8601", Box::new(|r| r.date = Some("2024-02-30"))),
            (
                "author_url",
                Box::new(|r| r.urls = vec![("author_url", Some("/u/1"))]),
            ),
            (
                "author_url",
                Box::new(|r| r.urls = vec![("author_url", Some("javascript:alert(1)"))]),
            ),
            ("negative", Box::new(|r| r.helpful_votes = Some(-3))),
            ("extra-json", Box::new(|r| r.extra_json = "[1]")),
            (
                "media type",
                Box::new(|r| r.media = vec![("gif", "https://x.com/a.gif")]),
            ),
            ("reply", Box::new(|r| r.reply_date = Some("soon"))),
        ];
        for (needle, break_it) in cases {
            let mut r = review();
            break_it(&mut r);
            let err = check(&r).unwrap_err();
            assert!(err.contains(needle), "{needle}: {err}");
        }
    }
}
