//! The `query`: a GetYourGuide activity URL in any form a user pastes.
//!
//! The activity is the path segment ending in `-t<digits>`; the segment before
//! it, when it ends in `-l<digits>`, is its city. A bare id (`t23776`,
//! `23776`) is not accepted: the endpoint takes the URL of the attraction, and
//! its path also addresses the older `reviews.json` listing.

use url::Url;

/// What a valid query looks like, for error messages.
const VALID: &str = "use the URL of a GetYourGuide activity page, such as \
https://www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/ \
(its path ends in -t followed by the activity id)";

/// An activity to read.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The activity id, the digits after `-t`.
    pub id: u64,
    /// The activity page on www.getyourguide.com, ending in `/`, without
    /// locale prefix, query or fragment.
    pub url: String,
}

/// Whether `host` is GetYourGuide's: `getyourguide.<tld>` (one or two
/// labels such as `de`, `co.uk`, `com.au`) or any subdomain of one.
fn is_gyg_host(host: &str) -> bool {
    let labels: Vec<&str> = host.split('.').collect();
    labels
        .iter()
        .position(|l| *l == "getyourguide")
        .is_some_and(|at| {
            let tld = &labels[at + 1..];
            (1..=2).contains(&tld.len())
                && tld.iter().all(|l| {
                    (2..=3).contains(&l.len()) && l.bytes().all(|b| b.is_ascii_lowercase())
                })
        })
}

/// The id of an activity segment `<slug>-t<digits>`.
fn activity_id(segment: &str) -> Option<u64> {
    let (_, digits) = segment.rsplit_once("-t")?;
    let valid = (1..=12).contains(&digits.len()) && digits.bytes().all(|b| b.is_ascii_digit());
    valid
        .then(|| digits.parse().ok())
        .flatten()
        .filter(|id| *id > 0)
}

/// Whether a segment is a city, `<name>-l<digits>`.
fn is_city(segment: &str) -> bool {
    segment
        .rsplit_once("-l")
        .is_some_and(|(_, d)| !d.is_empty() && d.bytes().all(|b| b.is_ascii_digit()))
}

/// Reads a query; the error says what a valid one looks like.
pub fn parse(query: &str) -> Result<Target, String> {
    let q = query.trim();
    if q.is_empty() {
        return Err(format!("the query is empty; {VALID}"));
    }
    let bare = q.strip_prefix(['t', 'T']).unwrap_or(q);
    if bare.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "{q:?} is a bare activity id; this endpoint takes the attraction's URL: {VALID}"
        ));
    }
    let with_scheme = if q.contains("://") {
        q.to_owned()
    } else {
        format!("https://{}", q.trim_start_matches('/'))
    };
    let url = Url::parse(&with_scheme).map_err(|_| format!("{q:?} is not a URL; {VALID}"))?;
    let host = url
        .host_str()
        .unwrap_or_default()
        .trim_end_matches('.')
        .to_ascii_lowercase();
    if !matches!(url.scheme(), "http" | "https") || !is_gyg_host(&host) {
        return Err(format!("{q:?} is not a GetYourGuide address; {VALID}"));
    }
    let segments: Vec<&str> = url
        .path_segments()
        .map(|s| s.filter(|s| !s.is_empty()).collect())
        .unwrap_or_default();
    let Some((at, id)) = segments
        .iter()
        .enumerate()
        .find_map(|(i, s)| activity_id(s).map(|id| (i, id)))
    else {
        return Err(format!(
            "{q:?} is not a GetYourGuide activity page (no -t<id> segment in its path; city, search and supplier pages have no reviews of their own); {VALID}"
        ));
    };
    let start = if at > 0 && is_city(segments[at - 1]) {
        at - 1
    } else {
        at
    };
    Ok(Target {
        id,
        url: format!(
            "{}/{}/",
            crate::endpoints::SITE,
            segments[start..=at].join("/")
        ),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const CANONICAL: &str =
        "https://www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/";

    fn target(q: &str) -> Target {
        parse(q).unwrap_or_else(|e| panic!("{q}: {e}"))
    }

    #[test]
    fn reads_every_url_form_a_user_pastes() {
        for q in [
            CANONICAL,
            "https://www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776",
            "https://www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/?ranking_uuid=0c7f2a4e-1d2b-4c3e-9f10-2a3b4c5d6e7f&date_from=2026-08-01&date_to=2026-08-02",
            "https://www.getyourguide.de/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/",
            "https://www.getyourguide.fr/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/?partner_id=ABC&utm_medium=online_publisher",
            "https://www.getyourguide.co.uk/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/#reviews",
            "https://m.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/",
            "https://www.getyourguide.com/de-de/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/",
            "www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/",
            "getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776",
            "http://www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/",
            "  HTTPS://WWW.GETYOURGUIDE.COM/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/  ",
        ] {
            let t = target(q);
            assert_eq!(t.id, 23776, "{q}");
            assert_eq!(t.url, CANONICAL, "{q}");
        }
    }

    #[test]
    fn an_activity_without_a_city_segment_keeps_its_own_path() {
        let t = target("https://www.getyourguide.com/tempelhof-airport-tour-t23776/?visitor-id=X");
        assert_eq!(t.id, 23776);
        assert_eq!(
            t.url,
            "https://www.getyourguide.com/tempelhof-airport-tour-t23776/"
        );
        let t = target("https://www.getyourguide.com/berlin-l17/tempelhof-t23776/reviews/");
        assert_eq!(
            t.url,
            "https://www.getyourguide.com/berlin-l17/tempelhof-t23776/"
        );
    }

    #[test]
    fn refuses_other_sites_other_pages_and_bare_ids_saying_what_is_valid() {
        for q in [
            "https://www.viator.com/tours/Berlin/Tempelhof/d488-5678P1",
            "https://www.getyourguide.com.evil.example/berlin-l17/x-t23776/",
            "https://getyourguide-reviews.example/berlin-l17/x-t23776/",
            "https://www.getyourguide.com/berlin-l17/",
            "https://www.getyourguide.com/discover-walks-s2584/",
            "https://www.getyourguide.com/s/?q=Berlin",
            "https://www.getyourguide.com/berlin-l17/x-t/",
            "ftp://www.getyourguide.com/berlin-l17/x-t23776/",
            "t23776",
            "23776",
            "",
            "tempelhof tour",
        ] {
            let e = parse(q).unwrap_err();
            assert!(
                e.contains("https://www.getyourguide.com/berlin-l17/") && e.contains("-t"),
                "{q}: {e}"
            );
        }
        assert!(parse("https://www.getyourguide.com/berlin-l17/")
            .unwrap_err()
            .contains("not a GetYourGuide activity page"));
        assert!(parse("t23776").unwrap_err().contains("bare activity id"));
        assert!(parse("https://www.viator.com/x-t1/")
            .unwrap_err()
            .contains("not a GetYourGuide address"));
    }
}
