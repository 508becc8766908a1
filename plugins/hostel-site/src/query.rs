//! The `query`: a Hostelworld property URL in any form a user pastes, or the
//! bare numeric property id.

use gleaner_sdk::address::Site;

/// Hostelworld (any host of hostelworld.com) and what a valid query looks like.
const SITE: Site = Site {
    name: "a Hostelworld address",
    hosts: &["*.hostelworld.com"],
    forms: "use a Hostelworld property page such as \
https://www.hostelworld.com/pwa/hosteldetails.php/ClinkNOORD/Amsterdam/93919 \
(or https://www.hostelworld.com/hosteldetails.php/…/93919), or the numeric property id such as 93919",
};

/// A property to read.
#[derive(Debug, Clone, PartialEq)]
pub struct Target {
    /// The numeric property id, e.g. `93919`.
    pub id: String,
    /// The page the user gave, without query string or fragment; none for a bare id.
    pub url: Option<String>,
}

fn is_id(s: &str) -> bool {
    (1..=12).contains(&s.len()) && s.bytes().all(|b| b.is_ascii_digit())
}

/// Reads a query: `https://[www.|m.|<language>.]hostelworld.com/[pwa/]hosteldetails.php/{Name}/{City}/{id}`
/// (any query string, fragment or trailing slash), `…/hostels/p/{id}/{slug}`,
/// or a bare id. The id is the last all-digit path segment of the property path.
pub fn parse(query: &str) -> Result<Target, String> {
    let q = query.trim();
    if is_id(q) {
        return Ok(Target {
            id: q.to_owned(),
            url: None,
        });
    }
    let address = SITE.read(q)?;
    let segments = address.segments();
    let details = segments
        .iter()
        .position(|s| s.eq_ignore_ascii_case("hosteldetails.php"));
    let listing = segments
        .windows(2)
        .position(|w| w[0].eq_ignore_ascii_case("hostels") && w[1] == "p");
    let id = match (details, listing) {
        (Some(at), _) => segments[at + 1..].iter().rev().find(|s| is_id(s)),
        (None, Some(at)) => segments.get(at + 2).filter(|s| is_id(s)),
        (None, None) => None,
    };
    match id {
        Some(id) => Ok(Target {
            id: (*id).to_owned(),
            url: Some(format!(
                "https://{}/{}",
                address
                    .url
                    .host_str()
                    .unwrap_or_default()
                    .trim_end_matches('.'),
                segments.join("/")
            )),
        }),
        None => Err(SITE.refuse(
            q,
            "is not a Hostelworld property page (no property id in it)",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn id(q: &str) -> String {
        parse(q).unwrap_or_else(|e| panic!("{q}: {e}")).id
    }

    #[test]
    fn reads_every_url_form_and_the_bare_id() {
        for q in [
            "93919",
            " 93919 ",
            "https://www.hostelworld.com/pwa/hosteldetails.php/ClinkNOORD/Amsterdam/93919?from=2026-07-01&to=2026-07-04&guests=1",
            "https://www.hostelworld.com/hosteldetails.php/ClinkNOORD/Amsterdam/93919",
            "https://www.hostelworld.com/hosteldetails.php/ClinkNOORD/Amsterdam/93919/",
            "http://hostelworld.com/hosteldetails.php/ClinkNOORD/Amsterdam/93919#reviews",
            "www.hostelworld.com/pwa/hosteldetails.php/ClinkNOORD/Amsterdam/93919",
            "https://www.german.hostelworld.com/hosteldetails.php/ClinkNOORD/Amsterdam/93919?utm_source=newsletter&utm_medium=email",
            "https://m.hostelworld.com/pwa/hosteldetails.php/ClinkNOORD/Amsterdam/93919?source=app",
            "HTTPS://WWW.HOSTELWORLD.COM/PWA/HOSTELDETAILS.PHP/ClinkNOORD/Amsterdam/93919",
            "https://www.hostelworld.com/hostels/p/93919/clinknoord/",
        ] {
            assert_eq!(id(q), "93919", "{q}");
        }
        assert_eq!(
            parse("https://www.hostelworld.com/pwa/hosteldetails.php/ClinkNOORD/Amsterdam/93919/?guests=2")
                .unwrap()
                .url
                .as_deref(),
            Some("https://www.hostelworld.com/pwa/hosteldetails.php/ClinkNOORD/Amsterdam/93919")
        );
        assert_eq!(parse("93919").unwrap().url, None);
    }

    #[test]
    fn refuses_other_sites_and_pages_saying_what_is_valid() {
        for q in [
            "https://www.booking.com/hotel/nl/clinknoord.html",
            "https://hostelworld.com.evil.example/hosteldetails.php/x/y/93919",
            "https://www.hostelworld.com/st/hostels/europe/netherlands/amsterdam/",
            "https://www.hostelworld.com/pwa/s?q=Amsterdam&id=15",
            "https://www.hostelworld.com/hosteldetails.php/ClinkNOORD/Amsterdam/",
            "ClinkNOORD",
            "",
            "93919a",
        ] {
            let e = parse(q).unwrap_err();
            assert!(
                e.contains("hosteldetails.php") && e.contains("93919"),
                "{q}: {e}"
            );
        }
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
