//! One review, from the review list's markup (every field the site shows) or
//! from a JSON-LD `Review` (rating, text, date and author name only).

use gleaner_sdk::html::{self, ElementRef};
use gleaner_sdk::json::string;
use gleaner_sdk::review::{stable_id, ReviewBuilder};
use gleaner_sdk::types::Review;
use gleaner_sdk::{date, rating};
use serde_json::{json, Value};
use url::Url;

use crate::selectors::SELECTORS;
use gleaner_sdk::number;

/// The prefix of the content-hash ids of reviews the page gives no id.
pub const ID_PREFIX: &str = "cm-";

/// What a review is mapped against.
#[derive(Debug, Clone)]
pub struct Context {
    /// The canonical product page: the review URL of reviews without a permalink.
    pub product_url: String,
    /// The page that answered: relative links resolve against it.
    pub page_url: String,
    /// The shop's display name: the author of its responses when they name none.
    pub shop_name: Option<String>,
    /// The day the site answered (its `Date` header), for relative dates.
    pub today: Option<date::Served>,
}

/// Maps one review element of the review list.
pub fn from_html(el: ElementRef<'_>, ctx: &Context) -> Result<Review, String> {
    let s = &SELECTORS;
    let author = html::first_text(el, s.author_name);
    let (date, approximate) = match html::first(el, s.date) {
        Some(t) => element_date(t, ctx.today),
        None => (None, false),
    };
    let body = html::first(el, s.body).map(|b| b.inner_html());
    let id = attr(el, s.review_id_attr).unwrap_or_else(|| {
        stable_id(
            ID_PREFIX,
            &[
                author.as_deref().unwrap_or_default(),
                date.as_deref().unwrap_or_default(),
                body.as_deref().unwrap_or_default(),
            ],
        )
    });
    let stars = html::first(el, s.rating).and_then(|r| {
        attr(r, s.rating_attr)
            .and_then(|v| v.parse::<f64>().ok())
            .or_else(|| attr(r, "aria-label").and_then(|l| label_rating(&l)))
    });
    let traits: Vec<String> = el
        .select(&*html::parsed(s.trait_chip).map_err(|e| format!("{e:?}"))?)
        .map(html::text)
        .filter(|t| !t.is_empty())
        .collect();
    let recommends = html::first(el, s.recommend).and_then(|r| {
        attr(r, s.recommend_attr)
            .and_then(|v| yes_no(&v))
            .or_else(|| recommend_text(&html::text(r)))
    });
    let permalink = html::first_attr(el, s.permalink, "href").and_then(|h| link(&ctx.page_url, &h));
    let mut builder = ReviewBuilder::new(id)
        .text_html(body)
        .rating(stars.filter(|v| (1.0..=5.0).contains(v)), 5.0)
        .date(date)
        .author_name(author)
        .author_url(
            html::first_attr(el, s.author_link, "href").and_then(|h| link(&ctx.page_url, &h)),
        )
        .author_image(html::first_attr(el, s.avatar, "src").and_then(|h| link(&ctx.page_url, &h)))
        .review_url(permalink.or_else(|| Some(ctx.product_url.clone())))
        .recommends(recommends)
        .extra(json!({
            "traits": traits,
            "date_approximate": approximate,
        }));
    if let Some(reply) = html::first(el, s.reply) {
        let body = html::first(reply, s.reply_body).map(|b| b.inner_html());
        let when = html::first(reply, s.reply_date).and_then(|t| element_date(t, ctx.today).0);
        let by = html::first_text(reply, s.reply_author).or_else(|| ctx.shop_name.clone());
        builder = builder.reply_html(body, when, by);
    }
    builder.build()
}

/// Maps one JSON-LD `Review` of the `Product` block. It has no id, so the id is
/// a hash of its author, date and text; its URL is the product page.
pub fn from_json_ld(v: &Value, ctx: &Context) -> Result<Review, String> {
    let author = string(&v["author"]["name"]).or_else(|| string(&v["author"]));
    let published = string(&v["datePublished"]).and_then(|d| date::parse(&d, None));
    let body = string(&v["reviewBody"]);
    let max = number::of_json(&v["reviewRating"]["bestRating"]).unwrap_or(5.0);
    let stars =
        number::of_json(&v["reviewRating"]["ratingValue"]).filter(|r| (0.0..=max).contains(r));
    ReviewBuilder::new(stable_id(
        ID_PREFIX,
        &[
            author.as_deref().unwrap_or_default(),
            published.as_deref().unwrap_or_default(),
            body.as_deref().unwrap_or_default(),
        ],
    ))
    .text_plain(body)
    .rating(stars, max)
    .date(published)
    .author_name(author)
    .review_url(Some(ctx.product_url.clone()))
    .extra(json!({"traits": null, "date_approximate": false}))
    .build()
}

fn attr(el: ElementRef<'_>, name: &str) -> Option<String> {
    el.value()
        .attr(name)
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_owned)
}

/// A date element's date: its ISO attribute, else its text; a relative text
/// ("2 months ago") is resolved against `today` and marked approximate.
fn element_date(el: ElementRef<'_>, today: Option<date::Served>) -> (Option<String>, bool) {
    if let Some(iso) = attr(el, SELECTORS.datetime_attr).and_then(|d| date::parse(&d, None)) {
        return (Some(iso), false);
    }
    let text = html::text(el);
    match date::parse(&text, None) {
        Some(d) => (Some(d), false),
        None => {
            let relative = date::parse(&text, today);
            let approximate = relative.is_some();
            (relative, approximate)
        }
    }
}

/// "Rated 4 out of 5 stars" → 4.
fn label_rating(label: &str) -> Option<f64> {
    let numbers: Vec<f64> = label
        .split(|c: char| !(c.is_ascii_digit() || c == '.'))
        .filter_map(|n| n.trim_matches('.').parse().ok())
        .collect();
    match numbers.as_slice() {
        [v] => Some(*v),
        [v, max] if *max == 5.0 => Some(*v),
        _ => None,
    }
    .and_then(|v| rating::parse(&v.to_string(), 5.0).map(|(v, _)| v))
}

fn yes_no(v: &str) -> Option<bool> {
    match v.to_ascii_lowercase().as_str() {
        "yes" | "true" | "1" => Some(true),
        "no" | "false" | "0" => Some(false),
        _ => None,
    }
}

/// "Recommends this product" → yes; "Doesn't recommend this product" → no.
fn recommend_text(text: &str) -> Option<bool> {
    const NEGATIONS: &[&str] = &[
        "no", "not", "don't", "doesn't", "didn't", "wouldn't", "never",
    ];
    let t = text.to_lowercase().replace('\u{2019}', "'");
    if !t.contains("recommend") {
        return None;
    }
    let negative = t
        .split(|c: char| !(c.is_alphanumeric() || c == '\''))
        .any(|w| NEGATIONS.contains(&w));
    Some(!negative)
}

/// An absolute http(s) URL for `href` on `base`, keeping its fragment (a review's anchor).
fn link(base: &str, href: &str) -> Option<String> {
    let url = Url::parse(base).ok()?.join(href.trim()).ok()?;
    matches!(url.scheme(), "http" | "https").then(|| url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;
    use gleaner_sdk::html::Html;
    use gleaner_sdk::Text;

    fn ctx() -> Context {
        Context {
            product_url: "https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family"
                .into(),
            page_url: "https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family?page=2"
                .into(),
            shop_name: Some("Northwind Type Co.".into()),
            today: date::Served::from_http("Tue, 02 Apr 2024 12:00:00 GMT"),
        }
    }

    fn one(html: &str) -> Review {
        let doc = Html::parse_document(html);
        let s = html::selector(SELECTORS.review).unwrap();
        let el = doc.select(&s).next().unwrap();
        from_html(el, &ctx()).unwrap()
    }

    #[test]
    fn maps_every_field_of_a_listed_review() {
        let r = one(r##"<li data-review-id="771">
              <a class="review__author-link" href="/users/annalee"><img class="review__avatar" src="//images.example.org/a.png"><span class="review__author"> annalee </span></a>
              <div data-rating="4" aria-label="Rated 4 out of 5 stars"></div>
              <a class="review__permalink" href="#review-771"><time class="review__date" datetime="2024-03-18T14:02:11Z">March 18, 2024</time></a>
              <p data-recommend="no">Doesn't recommend</p>
              <ul><li class="review__trait">Great quality</li><li class="review__trait">Easy to use</li></ul>
              <div class="review__body"><p>One.</p><p>Two<br>lines.</p></div>
              <div class="review__reply"><time class="review__reply-date" datetime="2024-03-19">March 19, 2024</time>
                <div class="review__reply-body"><p>Thanks!</p><p>Fixed in <b>v2</b>.<br>Enjoy</p></div></div>
            </li>"##);
        assert_eq!(r.id, "771");
        assert_eq!(r.rating, Some(4.0));
        assert_eq!(r.rating_scale_max, Some(5.0));
        assert_eq!(r.date.as_deref(), Some("2024-03-18T14:02:11Z"));
        assert_eq!(r.author_name.as_deref(), Some("annalee"));
        assert_eq!(
            r.author_url.as_deref(),
            Some("https://creativemarket.com/users/annalee")
        );
        assert_eq!(
            r.author_profile_image_url.as_deref(),
            Some("https://images.example.org/a.png")
        );
        assert_eq!(
            r.review_url.as_deref(),
            Some("https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family?page=2#review-771")
        );
        assert!(matches!(&r.text, Some(Text::Html(h)) if h.contains("<p>Two<br>lines.</p>")));
        assert_eq!(r.recommends, Some(false));
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(
            extra,
            json!({"traits": ["Great quality", "Easy to use"], "date_approximate": false})
        );
        let reply = r.reply.unwrap();
        assert!(
            matches!(&reply.text, Text::Html(h) if h == "<p>Thanks!</p><p>Fixed in <b>v2</b>.<br>Enjoy</p>")
        );
        assert_eq!(reply.date.as_deref(), Some("2024-03-19"));
        assert_eq!(reply.author.as_deref(), Some("Northwind Type Co."));
    }

    #[test]
    fn a_bare_review_keeps_its_gaps_empty() {
        let r = one(
            r#"<div data-review-id="x"><span class="review__author">Bo</span>
               <span data-rating="" aria-label="5 out of 5"></span>
               <time class="review__date">3 weeks ago</time>
               <p data-recommend="">Recommends this product</p></div>"#,
        );
        assert_eq!(r.rating, Some(5.0));
        assert_eq!(r.date.as_deref(), Some("2024-03-12"));
        assert!(r.text.is_none() && r.reply.is_none() && r.author_url.is_none());
        assert_eq!(
            r.review_url.as_deref(),
            Some("https://creativemarket.com/NorthwindType/4821337-Alder-Serif-Family")
        );
        assert_eq!(r.recommends, Some(true));
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["traits"], json!([]));
        assert_eq!(extra["date_approximate"], true);
    }

    #[test]
    fn an_out_of_scale_rating_is_dropped_and_a_missing_id_hashed() {
        let html = r#"<div data-review-id=" "><span data-rating="9"></span>
            <time class="review__date" datetime="junk">Jan 5, 2024</time></div>"#;
        let r = one(html);
        assert_eq!(r.rating, None);
        assert_eq!(r.date.as_deref(), Some("2024-01-05"));
        assert!(r.id.starts_with("cm-"));
        assert_eq!(r.id, one(html).id);
    }

    #[test]
    fn maps_a_json_ld_review() {
        let v = json!({"@type": "Review", "author": {"@type": "Person", "name": "kit"},
            "datePublished": "2023-11-02", "reviewBody": "Lovely.\nThanks",
            "reviewRating": {"@type": "Rating", "ratingValue": "4", "bestRating": "5"}});
        let r = from_json_ld(&v, &ctx()).unwrap();
        assert!(r.id.starts_with("cm-"));
        assert_eq!(r.rating, Some(4.0));
        assert_eq!(r.date.as_deref(), Some("2023-11-02"));
        assert_eq!(r.author_name.as_deref(), Some("kit"));
        assert!(matches!(&r.text, Some(Text::Plain(t)) if t == "Lovely.\nThanks"));
        assert_eq!(r.review_url.as_deref(), Some(ctx().product_url.as_str()));
        assert_eq!(r.recommends, None);
        let bare = from_json_ld(&json!({"author": "kit"}), &ctx()).unwrap();
        assert_eq!(bare.rating, None);
        assert_ne!(bare.id, r.id);
    }

    #[test]
    fn reads_ratings_and_recommendations_in_words() {
        assert_eq!(label_rating("Rated 4.5 out of 5 stars"), Some(4.5));
        assert_eq!(label_rating("3 stars"), Some(3.0));
        assert_eq!(label_rating("no rating"), None);
        assert_eq!(recommend_text("Recommends this product"), Some(true));
        assert_eq!(recommend_text("Does not recommend"), Some(false));
        assert_eq!(recommend_text("Doesn\u{2019}t recommend"), Some(false));
        assert_eq!(recommend_text("Great"), None);
        assert_eq!(yes_no("YES"), Some(true));
        assert_eq!(yes_no("maybe"), None);
    }
}
