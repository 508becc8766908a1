//! The older server-rendered review markup, read where a page has no flight
//! data review list.
//!
//! `div#reviews-section` holds `div#reviews`, one `div` per review, and the
//! page links in `ul > ul > li` (`li.active` the current page, `li.next` the
//! next). Inside a review, by position (the class names carry per-build hashes):
//!
//! | path | what |
//! |---|---|
//! | `div[1]/div[1]/span` | the reviewer's name |
//! | `div[1]/div[1]/div[1]` | the date, `MM/YYYY` |
//! | `div[1]/div[2]/span` | the stars |
//! | `div[2]/div[1]/div[1]/span` | the line of work |
//! | `div[2]/div[2]` | the text (whole in the page; "Read more" only unfolds it) |
//! | `div[3]/div[1]/table/tbody/tr` | the sub-ratings on the star scale: `td[1]` label, `td[2]/div[1]/span[1]` number |

use gleaner_sdk::html::{self, ElementRef, Html};
use serde_json::json;

use crate::model::Listing;
use crate::review::{Body, Entry, SCALE};

/// The review list of the older markup, if the page has its review section.
pub fn listing(doc: &Html, page: u32) -> Option<Listing> {
    html::select(doc, "div#reviews-section")
        .ok()?
        .into_iter()
        .next()?;
    let reviews: Vec<Entry> = html::select(doc, "div#reviews-section div#reviews")
        .ok()?
        .into_iter()
        .next()
        .map(|list| children(list, "div").into_iter().map(entry).collect())
        .unwrap_or_default();
    let next = format!("page={}", page + 1);
    let has_next = html::select(doc, "div#reviews-section ul ul li")
        .ok()?
        .into_iter()
        .any(|li| {
            let is_next = li.value().classes().any(|c| c == "next");
            let href = html::first_attr(li, "a", "href").unwrap_or_default();
            (is_next && !href.is_empty()) || href_has(&href, &next)
        });
    Some(Listing {
        reviews,
        page: None,
        total_pages: Some(if has_next { page + 1 } else { page }),
        page_size: None,
        total: None,
    })
}

fn href_has(href: &str, param: &str) -> bool {
    href.split(['?', '&'])
        .any(|part| part.eq_ignore_ascii_case(param))
}

/// The element children of `el` named `tag`, in order.
fn children<'a>(el: ElementRef<'a>, tag: &str) -> Vec<ElementRef<'a>> {
    el.children()
        .filter_map(ElementRef::wrap)
        .filter(|c| c.value().name() == tag)
        .collect()
}

/// Follows an XPath-like path of (tag, 1-based position) steps.
fn at<'a>(el: ElementRef<'a>, path: &[(&str, usize)]) -> Option<ElementRef<'a>> {
    path.iter().try_fold(el, |el, (tag, n)| {
        children(el, tag).get(n.checked_sub(1)?).copied()
    })
}

fn text_at(el: ElementRef<'_>, path: &[(&str, usize)]) -> Option<String> {
    at(el, path).map(html::text).filter(|t| !t.is_empty())
}

fn entry(review: ElementRef<'_>) -> Entry {
    let rating =
        text_at(review, &[("div", 1), ("div", 2), ("span", 1)]).and_then(|t| t.parse::<f64>().ok());
    let body = at(review, &[("div", 2), ("div", 2)])
        .map(|el| el.inner_html().trim().to_owned())
        .filter(|h| !h.is_empty())
        .map(Body::Html);
    let extra = json!({
        "cost": null,
        "job": text_at(review, &[("div", 2), ("div", 1), ("div", 1), ("span", 1)]),
        "photo_overflow_count": null,
    });
    Entry {
        id: None,
        author: text_at(review, &[("div", 1), ("div", 1), ("span", 1)]),
        rating,
        date_text: text_at(review, &[("div", 1), ("div", 1), ("div", 1)]),
        verified: None,
        recommends: None,
        sub_ratings: sub_ratings(review),
        body,
        reply: None,
        photos: Vec::new(),
        extra: extra.as_object().cloned().unwrap_or_default(),
    }
}

/// The sub-rating table: (label as the page shows it, number), in its order,
/// numbers off the star scale left out; none without a table.
fn sub_ratings(review: ElementRef<'_>) -> Vec<(String, f64)> {
    let Some(tbody) = at(
        review,
        &[("div", 3), ("div", 1), ("table", 1), ("tbody", 1)],
    ) else {
        return Vec::new();
    };
    children(tbody, "tr")
        .into_iter()
        .filter_map(|tr| {
            let label = text_at(tr, &[("td", 1)])?;
            let value: f64 = text_at(tr, &[("td", 2), ("div", 1), ("span", 1)])?
                .parse()
                .ok()?;
            (0.0..=SCALE).contains(&value).then_some((label, value))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAGE: &str = r#"<html><body><div id="reviews-section"><div id="reviews">
<div><div><div><div>04/2026</div><span>Carl S.</span></div><div><span>5</span></div></div>
<div><div><div><span>Plumbing</span></div></div><div>Called first.<br>Very polite.</div></div>
<div><div><table><tbody><tr><td>Price</td><td><div><span>4</span></div></td></tr>
<tr><td>On Time</td><td><div><span>5</span></div></td></tr></tbody></table></div></div>
<button>Read more</button></div>
</div><ul><ul><li class="active"><a href="?page=1">1</a></li><li><a href="/x.htm?page=2&amp;featuredReviewsLimit=25">2</a></li></ul></ul></div></body></html>"#;

    #[test]
    fn reads_reviews_by_position() {
        let doc = Html::parse_document(PAGE);
        let l = listing(&doc, 1).unwrap();
        assert_eq!(l.reviews.len(), 1);
        let r = &l.reviews[0];
        assert_eq!(r.author.as_deref(), Some("Carl S."));
        assert_eq!(r.date_text.as_deref(), Some("04/2026"));
        assert_eq!(r.rating, Some(5.0));
        assert_eq!(
            r.body,
            Some(Body::Html("Called first.<br>Very polite.".into()))
        );
        assert_eq!(r.extra["job"], "Plumbing");
        assert_eq!(
            r.sub_ratings,
            vec![("Price".to_owned(), 4.0), ("On Time".to_owned(), 5.0)]
        );
        assert_eq!((r.verified, r.recommends), (None, None));
        assert_eq!(l.total_pages, Some(2), "page 2 is linked");
        let l = listing(&doc, 2).unwrap();
        assert_eq!(l.total_pages, Some(2), "no link to page 3");
        assert!(listing(&Html::parse_document("<p>x</p>"), 1).is_none());
    }
}
