//! What a user may paste as `query`: a Foursquare venue URL (any host of
//! foursquare.com, with or without a slug, tracking parameters or a trailing
//! slash), a 4sq.com short link, a tip link (`/item/{tip id}`), or a bare
//! 24-hex venue id.

use gleaner_sdk::address::{Refusal, Site};

/// The accepted forms: [`VALID_FORMS`], and [`SITE`]'s after "use".
macro_rules! valid_forms {
    () => {
        "a Foursquare venue URL such as \
https://foursquare.com/v/{name}/{24-hex venue id} (or https://foursquare.com/v/{venue id}), \
a 4sq.com short link, or a bare 24-character venue id such as 4b8c3d87f964a520f7c532e3"
    };
}

/// What a valid query looks like, for error messages (after "use").
pub const VALID_FORMS: &str = valid_forms!();

/// Foursquare's hosts and its short-link host.
const SITE: Site = Site {
    name: "a Foursquare link",
    hosts: &["*.foursquare.com", "4sq.com"],
    forms: concat!("use ", valid_forms!()),
};

/// What a query names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// A venue id (24 lower-case hex digits).
    Venue(String),
    /// A 4sq.com short link to follow (`https://4sq.com/{code}`).
    ShortLink(String),
    /// A tip (`https://foursquare.com/item/{tip id}`), whose venue the API names.
    Tip(String),
}

/// Whether `s` is a Foursquare object id: 24 hexadecimal digits.
pub fn is_object_id(s: &str) -> bool {
    s.len() == 24 && s.bytes().all(|b| b.is_ascii_hexdigit())
}

/// Parses a query into what it names, or says what a valid query looks like.
pub fn parse(query: &str) -> Result<Target, String> {
    let q = query.trim();
    if is_object_id(q) {
        return Ok(Target::Venue(q.to_ascii_lowercase()));
    }
    let address = SITE.parse(q).map_err(|refusal| match refusal {
        Refusal::Elsewhere(other) => SITE.refuse(
            q,
            format_args!(
                "is not {} (host {:?})",
                SITE.name,
                other.url.host_str().unwrap_or_default()
            ),
        ),
        refusal => SITE.refusal(q, &refusal),
    })?;
    let segments = address.segments();
    if address.host == "4sq.com" {
        return match segments.first() {
            Some(code)
                if code
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
            {
                Ok(Target::ShortLink(format!("https://4sq.com/{code}")))
            }
            _ => Err(SITE.refuse(q, "is not a 4sq.com short link to a venue")),
        };
    }
    site_target(&segments)
        .ok_or_else(|| SITE.refuse(q, "is a Foursquare page but not a venue page"))
}

/// The target of a foursquare.com path: `/v/{slug}/{id}[/...]`, `/v/{id}`, `/item/{tip id}`.
fn site_target(segments: &[&str]) -> Option<Target> {
    match segments.first() {
        Some(&"v") => segments[1..]
            .iter()
            .take(2)
            .find(|s| is_object_id(s))
            .map(|id| Target::Venue(id.to_ascii_lowercase())),
        Some(&"item") => segments
            .get(1)
            .filter(|s| is_object_id(s))
            .map(|id| Target::Tip(id.to_ascii_lowercase())),
        _ => None,
    }
}

/// The first venue id linked from an HTML page (`foursquare.com/v/...`), for a
/// short link whose redirect ends on a page other than the venue's.
pub fn venue_in_page(html: &str) -> Option<String> {
    html.match_indices("foursquare.com/v/").find_map(|(at, _)| {
        let tail = &html[at..];
        let end = tail
            .find(|c: char| c == '"' || c == '\'' || c == '<' || c.is_whitespace())
            .unwrap_or(tail.len());
        match SITE.parse(&tail[..end]).map(|a| site_target(&a.segments())) {
            Ok(Some(Target::Venue(id))) => Some(id),
            _ => None,
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const ID: &str = "4b8c3d87f964a520f7c532e3";

    fn venue(q: &str) -> Target {
        parse(q).unwrap_or_else(|e| panic!("{q}: {e}"))
    }

    #[test]
    fn venue_urls_in_every_form() {
        for q in [
            "https://foursquare.com/v/arena/4b8c3d87f964a520f7c532e3",
            "https://foursquare.com/v/4b8c3d87f964a520f7c532e3",
            "https://www.foursquare.com/v/arena/4b8c3d87f964a520f7c532e3/",
            "https://es.foursquare.com/v/arena/4b8c3d87f964a520f7c532e3?ref=abc&utm_source=x",
            "https://m.foursquare.com/v/arena/4b8c3d87f964a520f7c532e3#tips",
            "http://foursquare.com/v/arena/4b8c3d87f964a520f7c532e3",
            "foursquare.com/v/arena/4b8c3d87f964a520f7c532e3",
            "HTTPS://FourSquare.com/v/Arena/4B8C3D87F964A520F7C532E3",
            "https://foursquare.com/v/arena/4b8c3d87f964a520f7c532e3/photos",
            "  4b8c3d87f964a520f7c532e3  ",
        ] {
            assert_eq!(venue(q), Target::Venue(ID.into()), "{q}");
        }
    }

    #[test]
    fn short_links_and_tips() {
        assert_eq!(
            venue("http://4sq.com/aBc12"),
            Target::ShortLink("https://4sq.com/aBc12".into())
        );
        assert_eq!(
            venue("https://www.4sq.com/aBc12?utm_medium=x"),
            Target::ShortLink("https://4sq.com/aBc12".into())
        );
        assert_eq!(
            venue("https://foursquare.com/item/4b5e662a70c603bba7d790b4"),
            Target::Tip("4b5e662a70c603bba7d790b4".into())
        );
    }

    #[test]
    fn refuses_what_is_not_a_venue() {
        for q in [
            "https://www.yelp.com/biz/x",
            "https://foursquare.com/user/123",
            "https://foursquare.com/v/arena",
            "https://foursquare.com/explore?q=pizza",
            "https://4sq.com/",
            "not a url",
            "4b8c3d87f964a520f7c532e",
        ] {
            let e = parse(q).unwrap_err();
            assert!(e.contains("https://foursquare.com/v/"), "{q}: {e}");
        }
        assert!(parse("https://www.yelp.com/biz/x")
            .unwrap_err()
            .contains("not a Foursquare link"));
        assert!(parse("https://foursquare.com/user/1")
            .unwrap_err()
            .contains("not a venue page"));
    }

    #[test]
    fn the_manifest_agrees_with_the_site() {
        SITE.check_manifest(include_str!("../manifest.toml"), parse)
            .unwrap_or_else(|e| panic!("{e}"));
    }

    #[test]
    fn finds_a_venue_linked_from_a_page() {
        let html = r#"<link rel="canonical" href="https://foursquare.com/v/arena/4b8c3d87f964a520f7c532e3">"#;
        assert_eq!(venue_in_page(html).as_deref(), Some(ID));
        assert_eq!(
            venue_in_page("<a href=\"https://foursquare.com/v/x\">"),
            None
        );
    }
}
