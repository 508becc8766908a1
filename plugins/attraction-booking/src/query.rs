//! The `query`: a GetYourGuide activity URL in any form a user pastes.
//!
//! The activity is the path segment ending in `-t<digits>`; the segment before
//! it, when it ends in `-l<digits>`, is its city. A bare id (`t23776`,
//! `23776`) is not accepted: the endpoint takes the URL of the attraction, and
//! its path also addresses the older `reviews.json` listing.

use gleaner_sdk::address::Site;

/// GetYourGuide, on any of its country domains, and what a valid query looks like.
const SITE: Site = Site {
    name: "a GetYourGuide address",
    hosts: &["*.getyourguide.*"],
    forms: "use the URL of a GetYourGuide activity page, such as \
https://www.getyourguide.com/berlin-l17/tempelhof-2-hour-airport-history-tour-berlin-airlift-more-t23776/ \
(its path ends in -t followed by the activity id)",
};

/// An activity to read.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The activity id, the digits after `-t`.
    pub id: u64,
    /// The activity page on www.getyourguide.com, ending in `/`, without
    /// locale prefix, query or fragment.
    pub url: String,
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
    let bare = q.strip_prefix(['t', 'T']).unwrap_or(q);
    if !q.is_empty() && bare.bytes().all(|b| b.is_ascii_digit()) {
        return Err(SITE.refuse(
            q,
            "is a bare activity id; this endpoint takes the attraction's URL",
        ));
    }
    let address = SITE.read(q)?;
    let segments = address.segments();
    let Some((at, id)) = segments
        .iter()
        .enumerate()
        .find_map(|(i, s)| activity_id(s).map(|id| (i, id)))
    else {
        return Err(SITE.refuse(
            q,
            "is not a GetYourGuide activity page (no -t<id> segment in its path; city, search and supplier pages have no reviews of their own)",
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

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
