//! The `query`: a ClassPass studio URL in any form a user pastes.
//!
//! A studio page is `https://classpass.com/studios/<alias>`; the alias is the
//! last path segment the site gives the studio (the review API needs the
//! numeric venue id, which [`crate::venue`] resolves from it).

use gleaner_sdk::address::{Refusal, Site};

/// ClassPass (any host of classpass.com) and what a valid query looks like.
const SITE: Site = Site {
    name: "a ClassPass address",
    hosts: &["*.classpass.com"],
    forms: "use a ClassPass studio page such as \
https://classpass.com/studios/<studio-alias> (the address of the studio's page on classpass.com, \
with or without www., a language prefix, tracking parameters or a trailing slash)",
};

/// A studio to read.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    /// The studio's alias, e.g. `y7-studio-flatiron-new-york`, as the URL gives
    /// it (aliases are lower-case; upper-case letters are lowered).
    pub alias: String,
}

impl Target {
    /// The studio page on classpass.com.
    pub fn url(&self) -> String {
        crate::endpoints::studio_page(&self.alias)
    }
}

/// Whether `s` can be a studio alias (or a numeric venue id, which the venue
/// API accepts in the same place).
fn is_alias(s: &str) -> bool {
    (1..=200).contains(&s.len())
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

/// Whether a path segment is a language prefix such as `en`, `en-gb` or `fr_FR`.
fn is_locale(s: &str) -> bool {
    let b = s.as_bytes();
    let letters = |r: &[u8]| r.iter().all(u8::is_ascii_alphabetic);
    match b.len() {
        2 => letters(b),
        5 => letters(&b[..2]) && (b[2] == b'-' || b[2] == b'_') && letters(&b[3..]),
        _ => false,
    }
}

/// Reads a query: `https://[www.|m.]classpass.com/[<lang>/]studios/<alias>[/…]`
/// with any query string, fragment or trailing slash, with or without the
/// scheme; also the venue API's own address `https://api.classpass.com/v2/venues/<alias>[/reviews]`
/// (and the site's `/_api/v2/venues/…` form), which a user may copy from a
/// browser's network panel.
pub fn parse(query: &str) -> Result<Target, String> {
    let q = query.trim();
    let address = SITE.parse(q).map_err(|refusal| match refusal {
        Refusal::NotUrl if !q.contains(['/', '.']) => SITE.refuse(
            q,
            "is not a URL (a bare studio name or id is not accepted)",
        ),
        Refusal::Elsewhere(other)
            if other.host.ends_with("app.link") && other.host.contains("classpass") =>
        {
            SITE.refuse(
                q,
                "is a ClassPass share link, which only the app opens; open it and copy the studio page's address",
            )
        }
        refusal => SITE.refusal(q, &refusal),
    })?;
    let segments = address.segments();
    let alias = studio_alias(&segments).or_else(|| api_alias(&segments));
    match alias {
        Some(alias) if is_alias(alias) => Ok(Target {
            alias: alias.to_ascii_lowercase(),
        }),
        _ => Err(SITE.refuse(
            q,
            "is not a ClassPass studio page (class, search and other pages have no studio reviews)",
        )),
    }
}

/// `[<lang>/]studios/<alias>[/…]`.
fn studio_alias<'a>(segments: &[&'a str]) -> Option<&'a str> {
    let start = usize::from(segments.first().is_some_and(|s| is_locale(s)));
    match segments.get(start..)? {
        [studios, alias, ..] if studios.eq_ignore_ascii_case("studios") => Some(alias),
        _ => None,
    }
}

/// `[_api/]v2/venues/<alias>[/reviews]`.
fn api_alias<'a>(segments: &[&'a str]) -> Option<&'a str> {
    let start = usize::from(segments.first() == Some(&"_api"));
    match segments.get(start..)? {
        ["v2", "venues", alias] | ["v2", "venues", alias, "reviews"] => Some(alias),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn alias(q: &str) -> String {
        parse(q).unwrap_or_else(|e| panic!("{q}: {e}")).alias
    }

    #[test]
    fn reads_every_url_form() {
        for q in [
            "https://classpass.com/studios/bloor-hot-yoga-toronto",
            " https://classpass.com/studios/bloor-hot-yoga-toronto/ ",
            "https://www.classpass.com/studios/bloor-hot-yoga-toronto",
            "http://classpass.com/studios/bloor-hot-yoga-toronto#reviews",
            "classpass.com/studios/bloor-hot-yoga-toronto",
            "www.classpass.com/studios/bloor-hot-yoga-toronto?utm_source=share&utm_medium=ios&_branch_match_id=123",
            "https://classpass.com/studios/bloor-hot-yoga-toronto?search-date=2026-09-28",
            "https://m.classpass.com/studios/bloor-hot-yoga-toronto",
            "https://classpass.com/en-gb/studios/bloor-hot-yoga-toronto",
            "https://classpass.com/fr/studios/bloor-hot-yoga-toronto/",
            "HTTPS://CLASSPASS.COM/studios/Bloor-Hot-Yoga-Toronto",
            "https://classpass.com/studios/bloor-hot-yoga-toronto/reviews",
            "https://api.classpass.com/v2/venues/bloor-hot-yoga-toronto",
            "https://classpass.com/_api/v2/venues/bloor-hot-yoga-toronto/reviews?page_size=50&page=0",
        ] {
            assert_eq!(alias(q), "bloor-hot-yoga-toronto", "{q}");
        }
        assert_eq!(
            parse("https://classpass.com/studios/x-1/").unwrap().url(),
            "https://classpass.com/studios/x-1"
        );
    }

    #[test]
    fn refuses_other_sites_and_pages_saying_what_is_valid() {
        for q in [
            "https://www.mindbodyonline.com/explore/locations/rumble-boxing-yorkville",
            "https://classpass.com.evil.example/studios/bloor-hot-yoga-toronto",
            "https://classpass.com/classes/vinyasa-flow-bloor",
            "https://classpass.com/search/toronto-on/fitness-classes",
            "https://classpass.com/studios/",
            "https://classpass.com/studios/bad%20alias",
            "https://classpass.app.link/abc123",
            "bloor-hot-yoga-toronto",
            "26727",
            "",
        ] {
            let e = parse(q).unwrap_err();
            assert!(e.contains("https://classpass.com/studios/"), "{q}: {e}");
        }
        assert!(parse("26727").unwrap_err().contains("not a URL"));
        assert!(parse("https://classpass.com/classes/x")
            .unwrap_err()
            .contains("not a ClassPass studio page"));
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }
}
