//! A source only a browser can read, on the test site `https://shop.test`:
//! - a page under `/cookie/` stands for an API behind a JavaScript challenge:
//!   `/api/reviews?page=N` answers a challenge (403) until the browser has
//!   run the page's script, which computes the clearance cookie; plain HTTP
//!   goes first, the browser only after the wall, then every page is plain
//!   HTTP again;
//! - any other page is read in the browser: its `.review` elements, which a
//!   script may insert after its own requests, keeping what `/api/` answered.

use gleaner_sdk::browser::{self, Wait};
use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::{cursor, html, http, FetchError, Order, Page, PageRequest};
use serde_json::{json, Value};

gleaner_sdk::export_source!(fetch_page);

const ORIGIN: &str = "https://shop.test";

fn fetch_page(req: PageRequest) -> Result<Page, FetchError> {
    if req.query.starts_with(&format!("{ORIGIN}/cookie/")) {
        api_page(&req)
    } else {
        rendered(&req.query)
    }
}

/// One page of the API, the browser opened only when the challenge answers.
fn api_page(req: &PageRequest) -> Result<Page, FetchError> {
    let page = req.cursor_state::<u32>()?.unwrap_or(1);
    let url = format!("{ORIGIN}/api/reviews?page={page}");
    let response = browser::after_wall(&req.query, Wait::Selector("#ready".into()), || {
        http::get_as(http::Profile::Json, &url, &[])
    })?;
    let body: Value = response.checked("the test API")?.json()?;
    let reviews = body["reviews"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|id| review(id, &format!("Review {id}.")))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Page {
        ahead: Vec::new(),
        reviews,
        next_cursor: body["next"].as_u64().map(|n| cursor::encode(&n)),
        order: Order::Unordered,
        meta: gleaner_sdk::meta(Some(url), None),
    })
}

/// The `.review` elements of the page as the browser's scripts left it.
fn rendered(url: &str) -> Result<Page, FetchError> {
    let page = browser::visit(url, Wait::Selector(".review".into()), &["/api/"])?;
    let document = html::Html::parse_document(&page.document);
    let reviews = html::select(&document, ".review")?
        .into_iter()
        .map(|e| {
            review(
                e.value().attr("data-id").unwrap_or_default(),
                &html::text(e),
            )
        })
        .collect::<Result<Vec<_>, _>>()?;
    let kept: Vec<Value> = page
        .kept
        .iter()
        .map(|k| json!({"url": k.url, "status": k.status, "bytes": k.body.len()}))
        .collect();
    let mut meta = gleaner_sdk::meta(Some(page.final_url), None);
    meta.extra_json =
        json!({"kept": kept, "cookies": page.cookies, "status": page.status}).to_string();
    Ok(Page {
        ahead: Vec::new(),
        reviews,
        next_cursor: None,
        order: Order::Unordered,
        meta,
    })
}

fn review(id: &str, text: &str) -> Result<gleaner_sdk::types::Review, FetchError> {
    ReviewBuilder::new(id)
        .text_plain(Some(text.to_owned()))
        .build()
        .map_err(FetchError::Upstream)
}
