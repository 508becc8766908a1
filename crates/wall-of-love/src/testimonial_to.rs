//! Testimonial.to: the server-rendered embed of a space's wall,
//! `embed-v2.testimonial.to/w/<space>`, parsed card by card with CSS selectors.
//! The embed renders `initialCount` cards and a "load more" button; a page of
//! this plugin asks for `offset + PAGE_SIZE` cards and returns those past
//! `offset`, so the cursor holds the offset.

use gleaner_sdk::html::{self, ElementRef, Html, Selector};
use gleaner_sdk::listing::{self, Shown};
use gleaner_sdk::review::{self, ReviewBuilder};
use gleaner_sdk::types::Review;
use gleaner_sdk::{date, http, FetchError, Order, Page};
use serde_json::json;

use crate::common::{self, Offset};

/// The embed, asked for `count` cards of `tag`.
pub const EMBED_URL: &str = "https://embed-v2.testimonial.to/w/{slug}?theme=light&card=base&loadMore=on&initialCount={count}&tag={tag}";
/// The space's public wall.
pub const WALL_URL: &str = "https://testimonial.to/{slug}/all";
/// Cards per page (the embed's usual `initialCount`).
pub const PAGE_SIZE: u32 = 20;

/// The author line of a card: "Name, Title".
pub const NAME: &str = "span.font-bold.not-italic.text-left.text-lg";
/// The testimonial text box of a card.
pub const TEXT_BOX: &str = "div.tweet-text.text-lg";
/// The text itself, as HTML.
pub const TEXT: &str = "div.tweet-text.text-lg > div";
/// The author's avatar.
pub const AVATAR: &str = ".rounded-full img, img.rounded-full";
/// Images attached to a testimonial (video thumbnails included, told apart below).
pub const IMAGES: &str = r#"img[src*="cdn.testimonial.to/testimonials/"]"#;
/// The poster of a video testimonial.
pub const VIDEO_THUMBNAIL: &str = r#"img[src*="/videoThumbnail"]"#;
/// Links out of a card (the author's social link).
pub const LINKS: &str = r#"a[href^="http"]"#;
/// The page title.
pub const TITLE: &str = "title";
/// Where a card's media names its testimonial: `cdn.testimonial.to/testimonials/<uuid>/…`.
pub const TESTIMONIAL_CDN: &str = "cdn.testimonial.to/testimonials/";
/// Where a card names its video stream: `stream.mux.com/<playback id>`.
pub const MUX_STREAM_HOST: &str = "stream.mux.com/";

/// How an embed may say the wall holds nothing yet, besides the texts every
/// site uses (`listing::NO_REVIEW_TEXTS`).
pub const EMPTY_TEXTS: &[&str] = &["no testimonials yet", "be the first to leave a testimonial"];

/// Fetches the page of cards of a space's wall that starts at `offset`.
pub fn fetch(slug: &str, tag: &str, offset: u32) -> Result<Page, FetchError> {
    let url = embed_url(slug, tag, offset + PAGE_SIZE);
    let what = "Testimonial.to wall embed";
    let response = http::get_html(&url)?.checked(what)?;
    parse_embed(&response.text(), slug, tag, offset, &url)
}

/// The embed URL for `count` cards.
pub fn embed_url(slug: &str, tag: &str, count: u32) -> String {
    EMBED_URL
        .replace("{slug}", &http::encode_component(slug))
        .replace("{count}", &count.to_string())
        .replace("{tag}", &http::encode_component(tag))
}

/// Maps the cards of an embed page past `offset`. A first page without cards
/// is an empty wall when it says so (its "no testimonials yet" wording, a
/// count of 0), and a changed layout otherwise.
pub fn parse_embed(
    html_text: &str,
    slug: &str,
    tag: &str,
    offset: u32,
    embed_url: &str,
) -> Result<Page, FetchError> {
    let doc = Html::parse_document(html_text);
    let wall_url = WALL_URL.replace("{slug}", slug);
    let names = html::select(&doc, NAME)?;
    let title = html::select(&doc, TITLE)?
        .first()
        .map(|t| html::text(*t))
        .filter(|t| !t.is_empty());
    let meta = |loaded: u32, notice: Option<String>| {
        let mut extra = json!({
            "product": "testimonial.to",
            "space": slug,
            "tag": tag,
            "wall_url": wall_url,
            "embed_url": embed_url,
            "cards_loaded": loaded,
        });
        if let Some(notice) = notice {
            extra["notice"] = json!(notice);
        }
        common::meta(wall_url.clone(), title.clone(), None, None, extra)
    };
    if names.is_empty() && offset == 0 {
        let count = Shown::Number("testimonial count", shown_count(&doc));
        let Some(signal) = listing::no_reviews(&doc, EMPTY_TEXTS, &[count]) else {
            return Err(listing::layout_changed(
                "Testimonial.to wall embed",
                embed_url,
                &[("testimonial card", NAME), ("testimonial text", TEXT)],
            ));
        };
        let mut page_meta = meta(
            0,
            Some(format!(
                "this Testimonial.to wall has no testimonials yet ({signal})"
            )),
        );
        page_meta.total_reviews = Some(0);
        return Ok(Page {
            ahead: Vec::new(),
            reviews: Vec::new(),
            next_cursor: None,
            order: Order::Unordered,
            meta: page_meta,
        });
    }
    let selectors = Selectors::new()?;
    let cards: Vec<Review> = names
        .iter()
        .map(|name| card(*name, &selectors, &wall_url).map_err(FetchError::Upstream))
        .collect::<Result<_, _>>()?;
    let loaded = cards.len() as u32;
    let requested = offset + PAGE_SIZE;
    let reviews: Vec<Review> = cards.into_iter().skip(offset as usize).collect();
    let next_cursor = (loaded >= requested && !reviews.is_empty())
        .then(|| gleaner_sdk::cursor::encode(&Offset { offset: requested }));
    Ok(Page {
        ahead: Vec::new(),
        reviews,
        next_cursor,
        order: Order::Unordered,
        meta: meta(loaded, None),
    })
}

/// A testimonial count the embed shows ("0 testimonials"), where it shows one.
fn shown_count(doc: &Html) -> Option<f64> {
    let text = listing::visible_text(doc.root_element()).to_lowercase();
    let words: Vec<&str> = text.split_whitespace().collect();
    words
        .windows(2)
        .find_map(|w| w[1].starts_with("testimonial").then(|| w[0].parse().ok())?)
}

/// The parsed selectors a card needs.
struct Selectors {
    name: Selector,
    text_box: Selector,
    text: Selector,
    images: Selector,
    thumbnail: Selector,
    links: Selector,
}

impl Selectors {
    fn new() -> Result<Selectors, FetchError> {
        Ok(Selectors {
            name: html::selector(NAME)?,
            text_box: html::selector(TEXT_BOX)?,
            text: html::selector(TEXT)?,
            images: html::selector(IMAGES)?,
            thumbnail: html::selector(VIDEO_THUMBNAIL)?,
            links: html::selector(LINKS)?,
        })
    }
}

/// The card of an author line: its largest ancestor holding no other author
/// line, stopping at the first that holds the text box.
fn card_of<'a>(name: ElementRef<'a>, s: &Selectors) -> ElementRef<'a> {
    let mut card = name;
    for element in name.ancestors().filter_map(ElementRef::wrap) {
        if element.select(&s.name).nth(1).is_some() {
            break;
        }
        card = element;
        if element.select(&s.text_box).next().is_some() {
            break;
        }
    }
    card
}

/// The token after `marker` in `haystack`, made of characters `keep` accepts.
fn token_after(haystack: &str, marker: &str, keep: fn(char) -> bool) -> Option<String> {
    let start = haystack.find(marker)? + marker.len();
    let token: String = haystack[start..].chars().take_while(|c| keep(*c)).collect();
    (!token.is_empty()).then_some(token)
}

/// A date shown on the card: a leaf element outside the text whose whole text is a date.
fn card_date(card: ElementRef<'_>, s: &Selectors) -> Option<String> {
    let in_text = |e: ElementRef<'_>| {
        e.ancestors()
            .filter_map(ElementRef::wrap)
            .any(|a| s.text_box.matches(&a))
    };
    card.descendent_elements()
        .filter(|e| e.child_elements().next().is_none() && !in_text(*e))
        .map(html::text)
        .filter(|t| (6..=40).contains(&t.len()))
        .find_map(|t| date::parse(&t, None))
}

/// Maps one card, found by its author line.
fn card(name: ElementRef<'_>, s: &Selectors, wall_url: &str) -> Result<Review, String> {
    let card = card_of(name, s);
    let line = html::text(name);
    let (author, role) = match line.split_once(',') {
        Some((n, r)) => (n.trim().to_owned(), Some(r.trim().to_owned())),
        None => (line.clone(), None),
    };
    let text = card.select(&s.text).next().map(|t| t.inner_html());
    let plain = card
        .select(&s.text)
        .next()
        .map(html::text)
        .unwrap_or_default();
    let markup = card.html();
    let avatar = common::http_url(html::first_attr(card, AVATAR, "src"));
    let thumbnail = card
        .select(&s.thumbnail)
        .next()
        .and_then(|i| i.attr("src"))
        .map(str::to_owned);
    let playback = token_after(&markup, MUX_STREAM_HOST, |c| c.is_ascii_alphanumeric());
    let uuid = token_after(&markup, TESTIMONIAL_CDN, |c| {
        c.is_ascii_hexdigit() || c == '-'
    });
    let id = uuid.unwrap_or_else(|| review::stable_id("tt-", &[&line, &plain]));
    let social = card
        .select(&s.links)
        .filter_map(|a| a.attr("href"))
        .find(|h| !h.contains("testimonial.to"))
        .map(str::to_owned);
    let mut builder = ReviewBuilder::new(id)
        .text_html(text)
        .date(card_date(card, s))
        .author_name(Some(author))
        .author_title(role)
        .author_image(avatar.clone())
        .author_url(social)
        .review_url(Some(wall_url.to_owned()))
        .extra(json!({
            "author_line": line,
            "video_thumbnail_url": thumbnail.clone()
                .or_else(|| playback.as_deref().map(common::mux_thumbnail)),
        }));
    for img in card.select(&s.images) {
        let Some(src) = img.attr("src") else { continue };
        let is_thumbnail = Some(src) == thumbnail.as_deref();
        let absolute = src.starts_with("https://") || src.starts_with("http://");
        if absolute && !is_thumbnail && Some(src) != avatar.as_deref() {
            builder = builder.media(review::image(src));
        }
    }
    if let Some(p) = playback {
        builder = builder.media(review::video(Some(p.clone()), common::mux_stream(&p)));
    }
    builder.build()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_the_embed_url() {
        assert_eq!(
            embed_url("acme co", "all", 40),
            "https://embed-v2.testimonial.to/w/acme%20co?theme=light&card=base&loadMore=on&initialCount=40&tag=all"
        );
    }

    #[test]
    fn an_embed_without_cards_is_a_changed_layout() {
        let e = parse_embed("<html><body></body></html>", "x", "all", 0, "https://e/").unwrap_err();
        assert!(matches!(e, FetchError::Upstream(ref m) if m.contains("layout changed")));
    }
}
