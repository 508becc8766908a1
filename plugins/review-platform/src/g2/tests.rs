//! The G2 recipe against the fixture's pages (the recorded review values in
//! the documented card markup).

use super::*;
use crate::options::{Filter, Options, Sort};
use gleaner_sdk::Text;

const RECENT_1: &str = include_str!("../../tests/samples/g2-most-recent-p1.html");
const RECENT_3: &str = include_str!("../../tests/samples/g2-most-recent-p3.html");
const HELPFUL: &str = include_str!("../../tests/samples/g2-most-helpful-p1.html");
const CHALLENGE: &str = include_str!("../../tests/samples/g2-datadome-challenge.html");
const REVIEWS: &str = "https://www.g2.com/products/digitalocean/reviews";

fn options(sort: Sort, filter: Option<Filter>) -> Options {
    Options { sort, filter }
}

fn parsed(html: &str) -> parse::ReviewsPage {
    parse::page(html, REVIEWS).unwrap().unwrap()
}

#[test]
fn builds_page_urls() {
    let o = options(Sort::MostRecent, None);
    assert_eq!(
        page_url("digitalocean", &o, 2),
        "https://www.g2.com/products/digitalocean/reviews?order=most_recent&page=2"
    );
    let o = options(Sort::HighestRated, Some(Filter::Stars(4)));
    assert_eq!(
        page_url("x", &o, 1),
        "https://www.g2.com/products/x/reviews?order=highest_rated&page=1&filters%5Bstar_rating%5D=4"
    );
    let o = options(Sort::HighestRated, Some(Filter::Helpful));
    assert!(page_url("x", &o, 1).contains("order=most_helpful"));
}

#[test]
fn maps_a_card() {
    let page = parsed(RECENT_1);
    assert_eq!(page.reviews.len(), 10);
    assert!(page.has_next);
    assert_eq!(page.product.name.as_deref(), Some("DigitalOcean"));
    assert_eq!(page.product.average, Some(4.6));
    assert_eq!(page.product.total, Some(30));
    let first = &page.reviews[0];
    assert_eq!(first.id, "11900006");
    assert_eq!(first.author_name.as_deref(), Some("Mouctar D."));
    assert_eq!(first.rating, Some(4.0));
    assert_eq!(first.date.as_deref(), Some("2025-11-20"));
    assert_eq!(first.helpful_votes, Some(0));
    assert_eq!(first.verified, Some(true), "Validated Reviewer");
    assert!(!first.anonymous);
    let translation = first.translation.as_ref().expect("AI Translated");
    assert!(translation.is_machine_translated && translation.original_text.is_none());
    let extra: serde_json::Value = serde_json::from_str(&first.extra_json).unwrap();
    assert_eq!(
        extra["badges"],
        serde_json::json!(["Incentivized", "Source: Seller invite"])
    );
    let Some(Text::Plain(text)) = &first.text else {
        panic!("plain text expected")
    };
    assert!(text.starts_with("What do you like best about DigitalOcean?\nI really appreciate"));
    assert!(text.contains("\n\nWhat do you dislike about DigitalOcean?\nDatabases"));
    assert!(!text.contains("hosted on G2.com"));
    let anonymous = &page.reviews[1];
    assert_eq!(
        anonymous.author_title.as_deref(),
        Some("Information Technology and Services, Small-Business (50 or fewer emp.)")
    );
    assert_eq!(anonymous.author_url, None);
    assert!(anonymous.anonymous);
}

#[test]
fn reads_reviewers_and_ratings() {
    let r = parse::Reviewer::read(
        Some("David B."),
        &[
            "Product Designer".into(),
            "Small-Business (50 or fewer emp.)".into(),
        ],
    );
    assert_eq!(r.role.as_deref(), Some("Product Designer"));
    assert_eq!(
        r.title().as_deref(),
        Some("Product Designer, Small-Business (50 or fewer emp.)")
    );
    assert_eq!(parse::Reviewer::read(Some("Ann"), &[]).title(), None);
    let card = r#"<section id="reviews"><article><div class="elv-font-bold">Ann</div>
        <div class="elv-stars elv-stars-9"></div><meta content="2024-05-06"><p>Fine.</p></article></section>"#;
    let page = parsed(card);
    let r = &page.reviews[0];
    assert_eq!(r.rating, Some(4.5), "elv-stars-9 is 4.5 of 5");
    assert!(r.id.starts_with("g2-"), "no article id: a content hash");
    assert_eq!(r.review_url.as_deref(), Some(REVIEWS));
    assert_eq!(r.helpful_votes, None, "no helpful control");
    assert_eq!(r.verified, None, "no badge");
    assert!(r.translation.is_none() && r.updated_date.is_none());
    assert!(matches!(&r.text, Some(Text::Plain(t)) if t == "Fine."));
    assert!(!page.has_next);
    assert!(parse::page("<html><body>new look</body></html>", REVIEWS)
        .unwrap()
        .is_none());
}

#[test]
fn rating_updates_are_edits_of_the_day_g2_shows() {
    let page = parsed(RECENT_3);
    let updated: Vec<&str> = page
        .reviews
        .iter()
        .filter_map(|r| r.updated_date.as_deref())
        .collect();
    assert_eq!(updated, ["2025-09-30", "2025-08-07"]);
}

#[test]
fn helpful_keeps_voted_reviews_and_stops_at_the_first_without() {
    let o = options(Sort::MostRecent, Some(Filter::Helpful));
    let page = assemble(parsed(HELPFUL), "digitalocean", &o, 1, "u");
    let votes: Vec<i64> = page
        .reviews
        .iter()
        .filter_map(|r| r.helpful_votes)
        .collect();
    assert_eq!(votes, [5, 3, 2, 1]);
    assert!(page.next_cursor.is_none());
    assert_eq!(page.order, Order::Unordered);
}

#[test]
fn pages_end_where_the_site_links_no_next() {
    let o = options(Sort::MostRecent, None);
    let page = assemble(parsed(RECENT_1), "digitalocean", &o, 1, "u");
    assert_eq!(page.next_cursor, Some(cursor::encode(&Cursor { page: 2 })));
    assert_eq!(page.order, Order::NewestFirst);
    let last = assemble(parsed(RECENT_3), "digitalocean", &o, 3, "u");
    assert!(last.next_cursor.is_none());
    let o = options(Sort::MostRecent, Some(Filter::Stars(5)));
    let page = assemble(parsed(RECENT_1), "digitalocean", &o, 1, "u");
    assert!(
        page.reviews.iter().all(|r| r.rating == Some(5.0)),
        "filtered again here"
    );
}

fn answer(status: u16, headers: &[(&str, &str)], body: &str) -> Response {
    gleaner_sdk::testing::response(
        status,
        "https://www.g2.com/products/x/reviews?order=most_recent&page=1",
        body,
    )
    .with_headers(headers)
}

#[test]
fn refusals_name_what_was_seen_and_what_helps() {
    let e = checked(answer(403, &[("x-datadome", "protected")], CHALLENGE), "x").unwrap_err();
    assert!(
        matches!(&e, FetchError::Blocked(m) if m.contains("HTTP 403 with a DataDome CAPTCHA")
            && m.contains("residential proxy") && m.contains("slower pace")),
        "{e:?}"
    );
    let e = checked(answer(429, &[], ""), "x").unwrap_err();
    assert!(
        matches!(&e, FetchError::Blocked(m) if m.contains("HTTP 429")),
        "{e:?}"
    );
    let e = checked(answer(404, &[], "<html>gone</html>"), "nope").unwrap_err();
    assert!(
        matches!(&e, FetchError::NotFound(m) if m.contains("no product \"nope\"")),
        "{e:?}"
    );
    assert!(matches!(
        checked(answer(500, &[], "x"), "x"),
        Err(FetchError::Upstream(_))
    ));
    assert!(checked(answer(200, &[], RECENT_1), "x").is_ok());
}
