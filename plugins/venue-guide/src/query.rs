//! What a user may paste as `query`: a Foursquare venue URL (any host of
//! foursquare.com, with or without a slug, tracking parameters or a trailing
//! slash), a 4sq.com short link, a tip link (`/item/{tip id}`), or a bare
//! 24-hex venue id.

/// What a valid query looks like, for error messages.
pub const VALID_FORMS: &str = "a Foursquare venue URL such as \
https://foursquare.com/v/{name}/{24-hex venue id} (or https://foursquare.com/v/{venue id}), \
a 4sq.com short link, or a bare 24-character venue id such as 4b8c3d87f964a520f7c532e3";

/// The short-link host and the site's own host.
const SHORT_HOSTS: [&str; 2] = ["4sq.com", "www.4sq.com"];
const SITE_HOST: &str = "foursquare.com";

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
    let (host, segments) = split_url(q)
        .ok_or_else(|| format!("{q:?} is not a Foursquare venue; use {VALID_FORMS}"))?;
    if SHORT_HOSTS.contains(&host.as_str()) {
        return match segments.first() {
            Some(code)
                if code
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
            {
                Ok(Target::ShortLink(format!("https://4sq.com/{code}")))
            }
            _ => Err(format!(
                "{q:?} is not a 4sq.com short link to a venue; use {VALID_FORMS}"
            )),
        };
    }
    if host == SITE_HOST || host.ends_with(".foursquare.com") {
        return site_target(&segments).ok_or_else(|| {
            format!("{q:?} is a Foursquare page but not a venue page; use {VALID_FORMS}")
        });
    }
    Err(format!(
        "{q:?} is not a Foursquare link (host {host:?}); use {VALID_FORMS}"
    ))
}

/// The target of a foursquare.com path: `/v/{slug}/{id}[/...]`, `/v/{id}`, `/item/{tip id}`.
fn site_target(segments: &[String]) -> Option<Target> {
    match segments.first().map(String::as_str) {
        Some("v") => segments[1..]
            .iter()
            .take(2)
            .find(|s| is_object_id(s))
            .map(|id| Target::Venue(id.to_ascii_lowercase())),
        Some("item") => segments
            .get(1)
            .filter(|s| is_object_id(s))
            .map(|id| Target::Tip(id.to_ascii_lowercase())),
        _ => None,
    }
}

/// Splits an absolute or scheme-less URL into its lower-case host and its
/// non-empty, percent-decoded-free path segments (query and fragment dropped).
pub fn split_url(text: &str) -> Option<(String, Vec<String>)> {
    let lower = text.to_ascii_lowercase();
    let rest = if lower.starts_with("https://") {
        &text[8..]
    } else if lower.starts_with("http://") {
        &text[7..]
    } else if lower.starts_with("//") {
        &text[2..]
    } else {
        text
    };
    let end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let authority = &rest[..end];
    let host = authority.rsplit('@').next().unwrap_or(authority);
    let host = host.split(':').next().unwrap_or(host).to_ascii_lowercase();
    let valid_host = host.contains('.')
        && host
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-');
    if !valid_host {
        return None;
    }
    let path = rest[end..].split(['?', '#']).next().unwrap_or_default();
    let segments = path
        .split('/')
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect();
    Some((host, segments))
}

/// The first venue id linked from an HTML page (`foursquare.com/v/...`), for a
/// short link whose redirect ends on a page other than the venue's.
pub fn venue_in_page(html: &str) -> Option<String> {
    html.match_indices("foursquare.com/v/").find_map(|(at, _)| {
        let tail = &html[at..];
        let end = tail
            .find(|c: char| c == '"' || c == '\'' || c == '<' || c.is_whitespace())
            .unwrap_or(tail.len());
        match split_url(&tail[..end]).map(|(_, s)| site_target(&s)) {
            Some(Some(Target::Venue(id))) => Some(id),
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
    fn finds_a_venue_linked_from_a_page() {
        let html = r#"<link rel="canonical" href="https://foursquare.com/v/arena/4b8c3d87f964a520f7c532e3">"#;
        assert_eq!(venue_in_page(html).as_deref(), Some(ID));
        assert_eq!(
            venue_in_page("<a href=\"https://foursquare.com/v/x\">"),
            None
        );
    }
}
