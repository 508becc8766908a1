//! The query (a show page URL or a show id) and the storefront.

use gleaner_sdk::address::Site;

/// The hosts whose `/podcast/` pages name an Apple Podcasts show, and what a
/// valid query looks like.
const SITE: Site = Site {
    name: "an Apple Podcasts show",
    hosts: &[
        "podcasts.apple.com",
        "embed.podcasts.apple.com",
        "itunes.apple.com",
        "geo.itunes.apple.com",
    ],
    forms: "give an Apple Podcasts show page URL such as \
https://podcasts.apple.com/us/podcast/<show-name>/id<number>, or the show id (id<number> or <number>)",
};

/// An Apple Podcasts show named by a query.
#[derive(Debug, PartialEq, Eq)]
pub struct Target {
    /// The numeric show id.
    pub id: String,
    /// The storefront in the URL (`us`, `jp`, ...), lower case; none for a bare id.
    pub storefront: Option<String>,
}

/// Parses a show page URL (`podcasts.apple.com/{cc}/podcast/{slug}/id{N}`, with
/// or without storefront or slug, tracking parameters and trailing slash; the
/// legacy `itunes.apple.com` form) or a bare `id<N>` / `<N>`.
pub fn parse(query: &str) -> Result<Target, String> {
    let q = query.trim();
    if let Some(id) = bare_id(q) {
        return Ok(Target {
            id,
            storefront: None,
        });
    }
    let address = SITE.read(q)?;
    let segments = address.segments();
    let storefront = segments
        .first()
        .filter(|s| s.len() == 2 && s.chars().all(|c| c.is_ascii_alphabetic()))
        .map(|s| s.to_ascii_lowercase());
    let rest = &segments[usize::from(storefront.is_some())..];
    let id = match rest.first().copied() {
        Some("podcast") => rest.iter().rev().find_map(|s| id_segment(s)),
        // The legacy store link: .../viewPodcast?id=<N>
        _ if rest
            .last()
            .is_some_and(|s| s.eq_ignore_ascii_case("viewPodcast")) =>
        {
            address.param("id").and_then(|v| digits(&v))
        }
        _ => None,
    };
    match id {
        Some(id) => Ok(Target { id, storefront }),
        None if rest.first().is_some_and(|s| *s == "app") => {
            Err(SITE.refuse(q, "is an App Store app, not a podcast"))
        }
        None => Err(SITE.refuse(q, "is not an Apple Podcasts show page")),
    }
}

/// `id123`, `ID123` or `123`.
fn bare_id(q: &str) -> Option<String> {
    let rest = match q.get(..2) {
        Some(prefix) if prefix.eq_ignore_ascii_case("id") => &q[2..],
        _ => q,
    };
    digits(rest)
}

/// A path segment `id<N>`.
fn id_segment(segment: &str) -> Option<String> {
    digits(segment.strip_prefix("id")?)
}

fn digits(s: &str) -> Option<String> {
    (!s.is_empty() && s.len() <= 20 && s.bytes().all(|b| b.is_ascii_digit())).then(|| s.to_owned())
}

/// Checks a `country` value: a two-letter storefront code, any case; lower case.
pub fn storefront(value: &str) -> Result<String, String> {
    let v = value.trim();
    if v.len() == 2 && v.chars().all(|c| c.is_ascii_alphabetic()) {
        Ok(v.to_ascii_lowercase())
    } else {
        Err(format!(
            "`country` must be a two-letter Apple storefront code (ISO 3166-1 alpha-2, any case) \
such as \"us\", \"gb\" or \"jp\"; got {value:?}"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(q: &str) -> (String, Option<String>) {
        let t = parse(q).unwrap_or_else(|e| panic!("{q}: {e}"));
        (t.id, t.storefront)
    }

    #[test]
    fn show_urls_in_every_form() {
        let us = ("1200361736".to_owned(), Some("us".to_owned()));
        for q in [
            "https://podcasts.apple.com/us/podcast/the-daily/id1200361736",
            "https://podcasts.apple.com/us/podcast/the-daily/id1200361736/",
            "https://podcasts.apple.com/us/podcast/the-daily/id1200361736?i=1000651234567",
            "https://podcasts.apple.com/US/podcast/the-daily/id1200361736?uo=4&at=1l3v",
            "https://podcasts.apple.com/us/podcast/id1200361736",
            "podcasts.apple.com/us/podcast/the-daily/id1200361736#episodes",
            "http://itunes.apple.com/us/podcast/the-daily/id1200361736?mt=2",
            "https://itunes.apple.com/us/podcast/id1200361736",
            "https://embed.podcasts.apple.com/us/podcast/the-daily/id1200361736",
            "  https://www.podcasts.apple.com/us/podcast/the-daily/id1200361736  ",
        ] {
            assert_eq!(ok(q), us, "{q}");
        }
        assert_eq!(
            ok("https://podcasts.apple.com/jp/podcast/%E3%83%8B%E3%83%A5%E3%83%BC%E3%82%B9/id1473872585"),
            ("1473872585".into(), Some("jp".into()))
        );
        assert_eq!(
            ok("https://podcasts.apple.com/podcast/the-daily/id1200361736"),
            ("1200361736".into(), None)
        );
        assert_eq!(
            ok("https://itunes.apple.com/WebObjects/MZStore.woa/wa/viewPodcast?id=1200361736"),
            ("1200361736".into(), None)
        );
    }

    #[test]
    fn bare_ids() {
        assert_eq!(ok("id1200361736"), ("1200361736".into(), None));
        assert_eq!(ok("ID1200361736"), ("1200361736".into(), None));
        assert_eq!(ok(" 1200361736 "), ("1200361736".into(), None));
    }

    #[test]
    fn other_pages_say_what_is_valid() {
        for q in [
            "https://open.spotify.com/show/2MAi0BvDc6GTFvKFPXnkCL",
            "https://podcasts.apple.com/us/browse",
            "https://podcasts.apple.com/us/podcast/the-daily",
            "https://apps.apple.com/us/app/podcasts/id525463029",
            "https://podcasts.apple.com.evil.example/us/podcast/x/id1",
            "ftp://podcasts.apple.com/us/podcast/x/id1",
            "the daily",
            "id",
            "",
        ] {
            let e = parse(q).unwrap_err();
            assert!(
                e.contains("https://podcasts.apple.com/us/podcast/"),
                "{q}: {e}"
            );
        }
        assert!(parse("https://itunes.apple.com/us/app/x/id525463029")
            .unwrap_err()
            .contains("App Store app"));
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn storefront_codes() {
        assert_eq!(storefront("GB").unwrap(), "gb");
        assert_eq!(storefront("jp").unwrap(), "jp");
        for bad in ["usa", "u", "", "1a", "u s"] {
            let e = storefront(bad).unwrap_err();
            assert!(e.contains("`country`") && e.contains("two-letter"), "{e}");
        }
    }
}
