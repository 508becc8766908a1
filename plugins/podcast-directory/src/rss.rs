//! Apple's public review feed as JSON: pages 1 to 10 of about 50 reviews,
//! every value wrapped as `{"label": ...}`, `entry` an object when the page
//! holds a single review, and on old feeds a metadata entry without a rating.

use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::types::Review;
use gleaner_sdk::{http, FetchError};
use serde_json::{json, Map, Value};

use crate::{fill, label, number, refused, site, Context, Fetched, Sort, Step};

const WHAT: &str = "Apple's public review feed";

/// The feed's address for `page`.
pub fn url(ctx: &Context, page: u32) -> String {
    fill(
        site::RSS_FEED,
        &[
            ("cc", &ctx.cc),
            ("page", &page.to_string()),
            ("id", &ctx.id),
            ("sort", ctx.sort.name()),
        ],
    )
}

/// Reads `page`; `page_size` is how many reviews page 1 held (0 on page 1).
pub fn fetch(ctx: &Context, page: u32, page_size: usize) -> Result<Fetched, FetchError> {
    let resp = http::get(&url(ctx, page), &[("accept", "application/json")])?;
    if !resp.is_success() {
        return Err(refused(WHAT, &resp));
    }
    let body: Value = serde_json::from_slice(&resp.body).map_err(|_| refused(WHAT, &resp))?;
    parse_feed(&body, ctx, page, page_size)
}

/// Maps one feed page and decides whether another follows.
pub fn parse_feed(
    body: &Value,
    ctx: &Context,
    page: u32,
    page_size: usize,
) -> Result<Fetched, FetchError> {
    let feed = body.get("feed").filter(|f| f.is_object()).ok_or_else(|| {
        FetchError::Upstream(format!(
            "{WHAT} answered without a `feed` object; its format may have changed"
        ))
    })?;
    let entries: Vec<&Value> = match &feed["entry"] {
        Value::Array(items) => items.iter().collect(),
        Value::Null => Vec::new(),
        single @ Value::Object(_) => vec![single],
        _ => {
            return Err(FetchError::Upstream(format!(
                "{WHAT} has an `entry` that is neither a list nor an object; its format may have changed"
            )))
        }
    };
    let mut reviews = Vec::new();
    let mut name_hint = None;
    for entry in entries {
        if entry.get("im:rating").is_none() {
            // Old feeds: the show's own metadata, not a review.
            name_hint = name_hint.or_else(|| label(&entry["im:name"]));
            continue;
        }
        reviews.push(review(entry, &ctx.cc).map_err(FetchError::Upstream)?);
    }
    let page_size = if page == 1 { reviews.len() } else { page_size };
    let last = last_page(feed);
    let more_pages = !reviews.is_empty()
        && match last {
            Some(last) => page < last,
            None => reviews.len() >= site::RSS_PAGE_SIZE,
        };
    let next = (more_pages && page < site::RSS_MAX_PAGES).then_some(Step::Rss {
        page: page + 1,
        page_size,
    });
    // Pages are numbered up to the feed's last page (at most the tenth): list
    // them all, so the host can fetch several at once.
    let ahead = match (last, &next) {
        (Some(last), Some(_)) => (page + 1..=last.min(site::RSS_MAX_PAGES))
            .map(|page| Step::Rss { page, page_size })
            .collect(),
        _ => Vec::new(),
    };
    let mut extra = Map::new();
    extra.insert("recipe".into(), json!("rss"));
    extra.insert("page".into(), json!(page));
    extra.insert("last_page".into(), json!(last));
    let capped = page >= site::RSS_MAX_PAGES
        && !reviews.is_empty()
        && (last.is_some_and(|l| l > site::RSS_MAX_PAGES) || reviews.len() >= page_size.max(1));
    if capped {
        extra.insert("source_limit".into(), json!(limit_text(ctx)));
    }
    Ok(Fetched {
        reviews,
        next,
        ahead,
        extra,
        name_hint,
    })
}

/// Why a fetch stops at page 10 although the show has more reviews.
fn limit_text(ctx: &Context) -> String {
    let other = match ctx.sort {
        Sort::MostRecent => "mosthelpful",
        Sort::MostHelpful => "mostrecent",
    };
    let mut text = format!(
        "Apple's public review feed serves at most {} pages (about {} reviews) per storefront and sort; \
this show has more reviews in the \"{}\" storefront than the feed reaches \
(sort_type \"{other}\" or another `country` lists other reviews)",
        site::RSS_MAX_PAGES,
        site::RSS_MAX_PAGES as usize * site::RSS_PAGE_SIZE,
        ctx.cc
    );
    if let Some(why) = &ctx.web_api_unavailable {
        text.push_str(&format!(
            "; Apple's web review API, which pages further, was not available ({})",
            why.trim_end_matches('.')
        ));
    }
    text
}

/// The page number of the feed's `rel="last"` link.
pub fn last_page(feed: &Value) -> Option<u32> {
    let links: Vec<&Value> = match &feed["link"] {
        Value::Array(items) => items.iter().collect(),
        single @ Value::Object(_) => vec![single],
        _ => Vec::new(),
    };
    let href = links
        .iter()
        .map(|l| &l["attributes"])
        .find(|a| a["rel"] == "last")?["href"]
        .as_str()?;
    let after = &href[href.find("page=")? + "page=".len()..];
    let digits: String = after.chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

/// The review text: `content` is an object, or on some feeds a list of a text
/// and an HTML version (the text one is taken).
fn content(entry: &Value) -> (Option<String>, bool) {
    let pick = |c: &Value| (label(c), c["attributes"]["type"] == "html");
    match &entry["content"] {
        Value::Array(items) => items
            .iter()
            .find(|c| c["attributes"]["type"] != "html")
            .or(items.first())
            .map_or((None, false), pick),
        other => pick(other),
    }
}

/// Maps one feed entry.
pub fn review(e: &Value, cc: &str) -> Result<Review, String> {
    let id = label(&e["id"]).ok_or_else(|| format!("{WHAT} has a review without an id"))?;
    let (text, is_html) = content(e);
    let builder = ReviewBuilder::new(id)
        .title(label(&e["title"]))
        .rating(number(&e["im:rating"]["label"]), 5.0)
        .date(label(&e["updated"]).filter(|d| gleaner_sdk::date::looks_iso(d)))
        .author_name(label(&e["author"]["name"]))
        .author_url(label(&e["author"]["uri"]).filter(|u| u.starts_with("http")))
        .helpful_votes(number(&e["im:voteSum"]["label"]).map(|v| v as i64))
        .extra(json!({
            "recipe": "rss",
            "storefront": cc,
            "vote_count": number(&e["im:voteCount"]["label"]).map(|v| v as i64),
            "version": label(&e["im:version"]),
            "content_type": e["im:contentType"]["attributes"]["term"],
            "content_type_label": e["im:contentType"]["attributes"]["label"],
        }));
    let builder = if is_html {
        builder.text_html(text)
    } else {
        builder.text_plain(text)
    };
    builder.build()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::show::Info;

    const REAL: &str =
        include_str!("../tests/samples/itunes-rss-customerreviews-jp-app-trimmed.json");
    const SINGLE: &str = include_str!("../tests/samples/rss-1598765432-us-mostrecent-p1.json");
    const TENTH: &str = include_str!("../tests/samples/rss-1322200189-us-mostrecent-p10.json");

    fn ctx(cc: &str, sort: Sort) -> Context {
        Context {
            id: "1".into(),
            cc: cc.into(),
            sort,
            show: Info::unknown(cc, "1"),
            web_api_unavailable: None,
        }
    }

    fn page(text: &str, number: u32, size: usize) -> Fetched {
        let body: Value = serde_json::from_str(text).unwrap();
        parse_feed(&body, &ctx("us", Sort::MostRecent), number, size).unwrap()
    }

    #[test]
    fn the_real_feed_maps() {
        let p = parse_feed(
            &serde_json::from_str(REAL).unwrap(),
            &ctx("jp", Sort::MostRecent),
            1,
            0,
        )
        .unwrap();
        assert_eq!(p.reviews.len(), 3);
        assert_eq!(p.next, None, "three reviews and no links: the only page");
        let r = &p.reviews[0];
        assert_eq!(r.id, "6290024630");
        assert_eq!(r.title.as_deref(), Some("神アプリ"));
        assert_eq!(r.rating, Some(4.0));
        assert_eq!(r.rating_scale_max, Some(5.0));
        assert_eq!(r.date, None, "the recording has no `updated`");
        assert_eq!(r.author_name.as_deref(), Some("ヤミ。"));
        assert_eq!(
            r.author_url.as_deref(),
            Some("https://itunes.apple.com/jp/reviews/id638572168")
        );
        assert_eq!(r.helpful_votes, Some(0));
        match &r.text {
            Some(gleaner_sdk::Text::Plain(t)) => assert!(t.contains("ました！\n面白い")),
            other => panic!("{other:?}"),
        }
        let extra: Value = serde_json::from_str(&r.extra_json).unwrap();
        assert_eq!(extra["version"], "3.4.3");
        assert_eq!(extra["vote_count"], 0);
        assert_eq!(extra["content_type"], "Application");
        assert_eq!(extra["storefront"], "jp");
        let third: Value = serde_json::from_str(&p.reviews[2].extra_json).unwrap();
        assert_eq!(
            third["vote_count"],
            Value::Null,
            "the third entry has no im:voteCount"
        );
        assert_eq!(p.reviews[2].helpful_votes, Some(1));
    }

    #[test]
    fn a_single_entry_is_an_object() {
        let p = page(SINGLE, 1, 0);
        assert_eq!(p.reviews.len(), 1);
        assert_eq!(p.next, None);
        assert!(p.reviews[0].date.as_deref().unwrap().ends_with("-07:00"));
    }

    #[test]
    fn old_feeds_put_metadata_first() {
        let body = json!({"feed": {"entry": [
            {"im:name": {"label": "The Show"}, "id": {"label": "https://podcasts.apple.com/x"}},
            {"id": {"label": "7"}, "im:rating": {"label": "5"}, "content": [
                {"label": "plain", "attributes": {"type": "text"}},
                {"label": "<p>html</p>", "attributes": {"type": "html"}}
            ]}
        ]}});
        let p = parse_feed(&body, &ctx("us", Sort::MostHelpful), 1, 0).unwrap();
        assert_eq!(p.reviews.len(), 1);
        assert_eq!(p.reviews[0].id, "7");
        assert_eq!(p.name_hint.as_deref(), Some("The Show"));
        assert!(matches!(&p.reviews[0].text, Some(gleaner_sdk::Text::Plain(t)) if t == "plain"));
    }

    #[test]
    fn page_ten_is_the_end() {
        let p = page(TENTH, 10, 3);
        assert_eq!(p.next, None);
        let limit = p.extra["source_limit"].as_str().unwrap();
        assert!(limit
            .starts_with("Apple's public review feed serves at most 10 pages (about 500 reviews)"));
        // A short tenth page: the feed simply ends there.
        let p = page(TENTH, 10, 50);
        assert!(!p.extra.contains_key("source_limit"));
    }

    #[test]
    fn next_pages() {
        let body = |n: usize, last: Option<u32>| {
            let entries: Vec<Value> = (0..n)
                .map(|i| json!({"id": {"label": i.to_string()}, "im:rating": {"label": "3"}}))
                .collect();
            let link = last.map(|l| json!([{"attributes": {"rel": "last", "href": format!("https://itunes.apple.com/us/rss/customerreviews/page={l}/id=1/sortby=mostrecent/xml?urlDesc=/customerreviews/id=1/json")}}]));
            json!({"feed": {"entry": entries, "link": link}})
        };
        let c = ctx("us", Sort::MostRecent);
        assert_eq!(
            parse_feed(&body(3, Some(4)), &c, 1, 0).unwrap().next,
            Some(Step::Rss {
                page: 2,
                page_size: 3
            })
        );
        let steps = |pages: std::ops::RangeInclusive<u32>| -> Vec<Step> {
            pages.map(|page| Step::Rss { page, page_size: 3 }).collect()
        };
        assert_eq!(
            parse_feed(&body(3, Some(4)), &c, 1, 0).unwrap().ahead,
            steps(2..=4),
            "every page up to the last"
        );
        assert_eq!(
            parse_feed(&body(3, Some(12)), &c, 8, 3).unwrap().ahead,
            steps(9..=10)
        );
        assert_eq!(parse_feed(&body(3, Some(4)), &c, 4, 3).unwrap().next, None);
        assert!(parse_feed(&body(3, Some(4)), &c, 4, 3)
            .unwrap()
            .ahead
            .is_empty());
        assert!(
            parse_feed(&body(50, None), &c, 2, 50)
                .unwrap()
                .ahead
                .is_empty(),
            "no last page: the next one only"
        );
        assert_eq!(
            parse_feed(&body(50, None), &c, 2, 50).unwrap().next,
            Some(Step::Rss {
                page: 3,
                page_size: 50
            })
        );
        assert_eq!(parse_feed(&body(49, None), &c, 1, 0).unwrap().next, None);
        assert_eq!(parse_feed(&body(0, Some(4)), &c, 2, 3).unwrap().next, None);
        assert_eq!(
            parse_feed(&json!({"feed": {"author": {}}}), &c, 1, 0)
                .unwrap()
                .reviews
                .len(),
            0
        );
        assert!(parse_feed(&json!({"status": "x"}), &c, 1, 0).is_err());
        let beyond = parse_feed(&body(2, Some(12)), &c, 10, 50).unwrap();
        assert!(beyond.extra.contains_key("source_limit"));
    }
}
