//! A source whose site needs a session, as GetYourGuide's does: a first visit
//! to `http://cookies.test/visit` sets a visitor cookie and a CSRF cookie; the
//! API at `/api/reviews?page=N` answers only with both cookies and the CSRF
//! value echoed in `x-csrf`. The visit is made once per session: on the first
//! page, and again only when the API refuses (the session expired).

use gleaner_sdk::review::ReviewBuilder;
use gleaner_sdk::{cursor, http, session, FetchError, Order, Page, PageRequest, PluginInfo};
use serde_json::Value;

gleaner_sdk::plugin_bindings!("source");

const VISIT: &str = "http://cookies.test/visit";
const API: &str = "http://cookies.test/api/reviews";

struct SessionSource;

impl exports::gleaner::plugin::source_plugin::Guest for SessionSource {
    fn info() -> PluginInfo {
        gleaner_sdk::plugin_info!()
    }

    fn fetch_page(req: PageRequest) -> Result<Page, FetchError> {
        let page = req.cursor_state::<u32>()?;
        if page.is_none() {
            http::prime(VISIT)?;
        }
        let page = page.unwrap_or(1);
        let url = format!("{API}?page={page}");
        let mut response = api(&url)?;
        if response.status == 403 {
            http::prime(VISIT)?;
            response = api(&url)?;
        }
        let body: Value = response.checked("the test API")?.json()?;
        let reviews = body["reviews"]
            .as_array()
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
            .map(|id| {
                ReviewBuilder::new(id)
                    .text_plain(Some(format!("Review {id}.")))
                    .build()
                    .map_err(FetchError::Upstream)
            })
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Page {
            ahead: Vec::new(),
            reviews,
            next_cursor: body["next"].as_u64().map(|n| cursor::encode(&n)),
            order: Order::Unordered,
            meta: gleaner_sdk::meta(Some(url), None),
        })
    }
}

/// The API call, with the CSRF cookie echoed as the site asks.
fn api(url: &str) -> Result<http::Response, FetchError> {
    let csrf = session::cookie(url, "csrf").unwrap_or_default();
    http::get_as(http::Profile::Json, url, &[("x-csrf", csrf.as_str())])
}

export!(SessionSource);
