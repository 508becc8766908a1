//! The next page of a page's reviews, where the page links one: an HTTP
//! `Link` header with `rel="next"`, else `<link rel="next">` or
//! `<a rel="next">` in the page. Only a page on the same host is followed.

use gleaner_sdk::html::{self, Html};
use gleaner_sdk::webpage::resolve;
use url::Url;

/// The next page's URL, if the page links one on its own host.
pub fn next(page_url: &str, link_header: Option<&str>, doc: &Html) -> Option<String> {
    let from_header = link_header.and_then(header_next);
    let from_page = || {
        html::select(doc, "link[rel][href], a[rel][href]")
            .ok()?
            .into_iter()
            .find(|el| {
                el.value().attr("rel").is_some_and(|rel| {
                    rel.split_whitespace()
                        .any(|r| r.eq_ignore_ascii_case("next"))
                })
            })
            .and_then(|el| el.value().attr("href").map(str::to_owned))
    };
    let href = from_header.or_else(from_page)?;
    let next = resolve(page_url, href.trim())?;
    let (here, there) = (Url::parse(page_url).ok()?, Url::parse(&next).ok()?);
    let same_host = here.host_str() == there.host_str() && here.port() == there.port();
    let mut here_plain = here.clone();
    here_plain.set_fragment(None);
    let mut there_plain = there.clone();
    there_plain.set_fragment(None);
    (same_host && here_plain != there_plain).then(|| there_plain.into())
}

/// The target of a `Link` header's `rel="next"` link.
fn header_next(header: &str) -> Option<String> {
    for link in split_links(header) {
        let Some((target, params)) = link.trim().split_once('>') else {
            continue;
        };
        let target = target.trim().strip_prefix('<')?;
        let is_next = params.split(';').any(|p| {
            let Some((name, value)) = p.split_once('=') else {
                return false;
            };
            name.trim().eq_ignore_ascii_case("rel")
                && value
                    .trim()
                    .trim_matches('"')
                    .split_whitespace()
                    .any(|r| r.eq_ignore_ascii_case("next"))
        });
        if is_next {
            return Some(target.to_owned());
        }
    }
    None
}

/// A `Link` header's links, split at the commas between them (not at those
/// inside a `<…>` target).
fn split_links(header: &str) -> Vec<&str> {
    let (mut out, mut start, mut in_target) = (Vec::new(), 0, false);
    for (i, c) in header.char_indices() {
        match c {
            '<' => in_target = true,
            '>' => in_target = false,
            ',' if !in_target => {
                out.push(&header[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&header[start..]);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn doc(body: &str) -> Html {
        Html::parse_document(body)
    }

    #[test]
    fn the_header_then_the_page_name_the_next_page() {
        let page = "https://shop.example/p/kettle";
        let header = r#"<https://shop.example/p/kettle?page=1,a>; rel="prev", </p/kettle?page=3>; rel="next""#;
        assert_eq!(
            next(page, Some(header), &doc("")).as_deref(),
            Some("https://shop.example/p/kettle?page=3")
        );
        let html = r#"<a rel="nofollow next" href="?page=2">More</a>"#;
        assert_eq!(
            next(page, None, &doc(html)).as_deref(),
            Some("https://shop.example/p/kettle?page=2")
        );
        let html = r#"<link rel="next" href="https://other.example/p?page=2">"#;
        assert_eq!(
            next(page, None, &doc(html)),
            None,
            "another host is not followed"
        );
        let html = r##"<a rel="next" href="#reviews">More</a>"##;
        assert_eq!(
            next(page, None, &doc(html)),
            None,
            "the page itself is no next page"
        );
    }
}
