//! __NAME__: a review source built from the Gleaner template.
//!
//! It reads `https://reviews.example.com/api/<business>/reviews?page=N&sort=S`,
//! a JSON API answering `{"business": {...}, "reviews": [...], "next_page": N|null}`.
//! Replace the URL and the field mapping with the real site's.

use gleaner_sdk::json::string;
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::{cursor, http, FetchError, Order, Page, PageRequest, SourceMeta};
use serde::{Deserialize, Serialize};
use serde_json::Value;

gleaner_sdk::export_source!(|req: PageRequest| fetch_page(&req));




/// Where the next page starts.
#[derive(Serialize, Deserialize)]
struct Cursor {
    page: u64,
}

/// The business id from `https://reviews.example.com/<business>` or a bare id.
fn business(query: &str) -> Result<String, FetchError> {
    let id = query
        .trim()
        .trim_start_matches("https://reviews.example.com/")
        .trim_end_matches('/')
        .to_owned();
    let valid = !id.is_empty() && id.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if valid {
        Ok(id)
    } else {
        Err(FetchError::BadQuery(format!(
            "{query:?} is not a business page; use https://reviews.example.com/<business> or the business id"
        )))
    }
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let id = business(&req.query)?;
    let page = req.cursor_state::<Cursor>()?.map_or(1, |c| c.page);
    let sort = req.sort_or("newest");
    let url = format!("https://reviews.example.com/api/{id}/reviews?page={page}&sort={sort}");
    let data: Value = http::get_json(&url, &[], "reviews.example.com API")?;
    let reviews = data["reviews"]
        .as_array()
        .ok_or_else(|| FetchError::Upstream("the answer has no `reviews` list".into()))?
        .iter()
        .map(review)
        .collect::<Result<Vec<_>, _>>()
        .map_err(FetchError::Upstream)?;
    let business = &data["business"];
    Ok(Page {
        ahead: Vec::new(),
        reviews,
        next_cursor: data["next_page"].as_u64().map(|page| cursor::encode(&Cursor { page })),
        order: if sort == "newest" { Order::NewestFirst } else { Order::OldestFirst },
        meta: SourceMeta {
            resolved_url: Some(format!("https://reviews.example.com/{id}")),
            name: business["name"].as_str().map(str::to_owned),
            average_rating: business["rating"].as_f64(),
            total_reviews: business["review_count"].as_u64(),
            extra_json: String::new(),
        },
    })
}

fn review(r: &Value) -> Result<gleaner_sdk::types::Review, String> {
    let id = r["id"].as_str().ok_or("a review has no id")?;
    ReviewBuilder::new(id)
        .title(string(&r["title"]))
        .text_plain(string(&r["body"]))
        .rating(r["stars"].as_f64(), 5.0)
        .date(string(&r["date"]).and_then(|d| gleaner_sdk::date::parse(&d, None)))
        .author_name(string(&r["author"]))
        .review_url(Some(format!("https://reviews.example.com/review/{id}")))
        .verified(r["verified"].as_bool())
        .build()
}
