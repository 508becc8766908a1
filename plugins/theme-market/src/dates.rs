//! Review dates. Envato writes them relative to the moment the page was served
//! ("2 months ago", and Rails' qualified forms "about 1 month ago", "over 1 year
//! ago", "almost 2 years ago"); they are resolved against the response's `Date`
//! header with the SDK's date parser, kept only as precise as their unit (a day
//! for hours and days, the month for months, the year for years), and marked
//! approximate. Absolute dates are kept at their own precision.

use gleaner_sdk::date;

/// Rails' `time_ago_in_words` qualifiers, removed before the SDK reads the rest.
pub const QUALIFIERS: &[&str] = &["about ", "over ", "almost ", "less than "];

pub use gleaner_sdk::date::{Day, Served};

/// A day written `YYYY-MM-DD`.
pub fn iso_day((y, m, d): Day) -> String {
    format!("{y:04}-{m:02}-{d:02}")
}

/// A review's date as the page wrote it, and what it means.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewDate {
    /// ISO 8601: a relative date resolved to the precision of its unit
    /// (`YYYY-MM-DD`, `YYYY-MM` or `YYYY`), or an absolute date at its precision.
    pub iso: Option<String>,
    /// The text on the page.
    pub text: String,
    /// Whether the text was relative (and the date therefore approximate).
    pub relative: bool,
}

/// Reads a review's date text against the day the page was served.
pub fn review_date(text: &str, reference: Option<Served>) -> ReviewDate {
    let text = gleaner_sdk::html::collapse_whitespace(text);
    let lower = text.to_ascii_lowercase();
    let relative =
        lower.ends_with(" ago") || matches!(lower.as_str(), "today" | "yesterday" | "just now");
    let iso = if relative {
        let bare = QUALIFIERS
            .iter()
            .find_map(|q| lower.strip_prefix(q))
            .unwrap_or(&lower);
        date::parse(bare, reference).map(|iso| iso[..precision(bare)].to_owned())
    } else {
        date::parse(&text, None)
    };
    ReviewDate {
        iso,
        text,
        relative,
    }
}

/// How many characters of a resolved `YYYY-MM-DD` a relative date's unit
/// warrants: Rails counts in months past 30 days and in years past a year.
fn precision(relative: &str) -> usize {
    let unit = relative
        .trim_end_matches(" ago")
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .trim_end_matches('s');
    match unit {
        "year" => 4,
        "month" => 7,
        _ => 10,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Served at noon UTC on 2019-10-18.
    fn oct_18() -> Option<Served> {
        Served::from_http("Fri, 18 Oct 2019 12:00:00 GMT")
    }

    #[test]
    fn resolves_relative_dates_against_the_served_day() {
        for (text, want) in [
            ("2 months ago", "2019-08"),
            ("about 2 months ago", "2019-08"),
            ("about 1 month ago", "2019-09"),
            ("18 days ago", "2019-09-30"),
            ("1 day ago", "2019-10-17"),
            ("yesterday", "2019-10-17"),
            ("about 5 hours ago", "2019-10-18"),
            ("less than a minute ago", "2019-10-18"),
            ("over 1 year ago", "2018"),
            ("almost 2 years ago", "2017"),
            ("  5 months\n ago ", "2019-05"),
        ] {
            let d = review_date(text, oct_18());
            assert_eq!(d.iso.as_deref(), Some(want), "{text}");
            assert!(d.relative, "{text}");
        }
        assert_eq!(
            review_date("  5 months\n ago ", oct_18()).text,
            "5 months ago"
        );
    }

    #[test]
    fn keeps_absolute_dates_and_leaves_unknowns_empty() {
        let d = review_date("October 8, 2018", oct_18());
        assert_eq!(d.iso.as_deref(), Some("2018-10-08"));
        assert!(!d.relative);
        assert_eq!(
            review_date("2018-10-08T10:11:12Z", None).iso.as_deref(),
            Some("2018-10-08T10:11:12Z")
        );
        let no_header = review_date("2 months ago", None);
        assert_eq!(no_header.iso, None);
        assert!(no_header.relative);
        assert_eq!(review_date("a while back", oct_18()).iso, None);
        assert_eq!(iso_day((2019, 8, 3)), "2019-08-03");
    }
}
