//! web-page: the reviews any public page publishes for machines to read.
//!
//! Recipe: check the site's robots.txt ([`robots`]), `GET` the page
//! (refusing an answer that is not HTML), read its structured data in the
//! three syntaxes ([`markup`]), find the reviews and aggregate ratings
//! ([`schema`]), map each review to the record ([`mapping`]), return each
//! distinct review once, and follow the page's `rel=next` link
//! ([`paging`]). The answer's `extra_information.source` says what the page
//! holds ([`summary`]): its aggregate rating, the item reviewed, the reviews
//! found per syntax, the aggregate's count against the reviews listed, and
//! whether the markup has what Google's review snippets require.

pub mod mapping;
pub mod markup;
pub mod paging;
pub mod robots;
pub mod schema;
pub mod summary;
pub mod values;
pub mod widgets;

use std::collections::HashSet;

use gleaner_sdk::date::Served;
use gleaner_sdk::html::Html;
use gleaner_sdk::http::{self, Response};
use gleaner_sdk::types::Review;
use gleaner_sdk::{cursor, review, website, FetchError, Page, PageRequest, SourceMeta};
use serde_json::{json, Value};

use crate::markup::Syntax;
use crate::widgets::{Position, Widget};

gleaner_sdk::export_source!(
    |req: PageRequest| fetch_page(&req),
    prepare = gleaner_sdk::html::prepare_parser
);

/// What the plugin reads, for messages.
const WHAT: &str = "the page";
/// How many reviews of earlier pages the cursor remembers, to return a
/// review repeated on a later page once.
const REMEMBERED: usize = 200;
/// What a page is searched for, for the notice of a page with none.
const LOOKED_FOR: &str = "schema.org Review or AggregateRating markup in JSON-LD (<script type=\"application/ld+json\">), Microdata (itemscope/itemprop) or RDFa (typeof/property)";

/// The plugin's cursor: the next page, and what the pages before it found.
#[derive(Debug, Clone, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct State {
    /// The next page's URL.
    pub url: String,
    /// Its number, counting the first page as 1.
    pub page: u32,
    /// Short digests of the reviews answered already (the latest
    /// [`REMEMBERED`]).
    pub seen: Vec<String>,
    /// Reviews found so far per syntax: JSON-LD, Microdata, RDFa.
    pub found: [u32; 3],
    /// Distinct reviews answered so far.
    pub listed: u32,
    /// Reviews flagged for contradicting markup so far.
    pub contradictions: u32,
    /// The aggregate rating of the first page that gave one.
    pub aggregate: Option<Value>,
    /// The item of the first page that named one.
    pub item: Option<Value>,
    /// The day of the last review of the page before, for the order.
    pub last_day: Option<String>,
    /// The review widgets the first page embeds.
    pub widgets: Vec<Widget>,
    /// What each widget's endpoint says: its count and average.
    pub widget_totals: Vec<Value>,
    /// The widget being read (its index) and where, once the pages are read.
    pub widget: Option<(usize, Position)>,
}

fn fetch_page(req: &PageRequest) -> Result<Page, FetchError> {
    let state = req.cursor_state::<State>()?;
    let url = match &state {
        Some(s) => s.url.clone(),
        None => website::page_url(&req.query).map_err(|e| match e {
            website::WebsiteError::Input(m) | website::WebsiteError::Site(m) => {
                FetchError::BadQuery(m)
            }
        })?,
    };
    let mut state = state.unwrap_or(State {
        url: url.clone(),
        page: 1,
        ..State::default()
    });
    if let Some((i, at)) = state.widget.clone() {
        return widget_page(state, i, &at);
    }
    robots::check(&url)?;
    let response = html_page(http::get_html(&url)?.checked(WHAT)?)?;
    let text = response.text();
    let doc = Html::parse_document(&text);
    let page_url = response.final_url.clone();
    let markup = markup::read(&text, &doc, &page_url);
    let index = schema::Index::of(&markup);
    let found = schema::find(&markup, &index);
    let ctx = mapping::Context {
        page_url: page_url.clone(),
        served: response.header("date").and_then(Served::from_http),
    };
    for r in &found.reviews {
        let slot = match r.syntax {
            Syntax::JsonLd => 0,
            Syntax::Microdata => 1,
            Syntax::Rdfa => 2,
        };
        state.found[slot] += 1;
    }
    let reviews = distinct(&found, &ctx, &mut state);
    if state.aggregate.is_none() {
        state.aggregate = summary::aggregate(&found);
    }
    if state.item.is_none() {
        state.item = summary::item_reviewed(&found);
    }
    if state.page == 1 {
        state.widgets = widgets::detect(&text, &doc);
    }
    let next = paging::next(&page_url, response.header("link"), &doc);
    let order = review::order_by_dates(&reviews, state.last_day.as_deref());
    let mut extra = page_extra(&state, &page_url);
    extra["rich_result_eligible"] = summary::rich_result(&found);
    if state.found.iter().all(|n| *n == 0) && state.aggregate.is_none() && state.widgets.is_empty()
    {
        extra["notice"] = json!(format!(
            "no reviews: {page_url} has no {LOOKED_FOR}, and no review widget this source reads"
        ));
    }
    let meta = meta(&state, page_url, extra);
    state.last_day = reviews
        .last()
        .and_then(|r| r.date.as_deref())
        .and_then(|d| d.get(..10))
        .map(str::to_owned);
    let next_cursor = match next {
        Some(next) => {
            state.url = next;
            state.page += 1;
            Some(cursor::encode(&state))
        }
        // The page's own reviews are read: on to its widgets.
        None => state.widgets.first().map(Widget::first).map(|at| {
            state.widget = Some((0, at));
            cursor::encode(&state)
        }),
    };
    Ok(Page {
        ahead: Vec::new(),
        reviews,
        next_cursor,
        order,
        meta,
    })
}

/// One page of a widget's reviews, each review the page's markup or an
/// earlier page gave left out; then the next page, or the next widget.
fn widget_page(mut state: State, i: usize, at: &Position) -> Result<Page, FetchError> {
    let widget = state.widgets.get(i).cloned().ok_or_else(|| {
        FetchError::BadCursor(
            "the continuation names no widget of the page; start the fetch again".into(),
        )
    })?;
    let fetched = widgets::fetch(&widget, at)?;
    let reviews = state.keep_new(fetched.reviews.into_iter().map(|r| {
        let text = r.text.as_ref().map(|t| match t {
            gleaner_sdk::Text::Plain(s) | gleaner_sdk::Text::Html(s) => s.clone(),
        });
        let key = mapping::key(
            r.author_name.as_deref(),
            text.as_deref().or(r.title.as_deref()),
            r.date.as_deref(),
        );
        (key, r, false)
    }));
    let vendor = widget.vendor().name();
    let totals =
        json!({"vendor": vendor, "total": fetched.total, "average_rating": fetched.average});
    match state
        .widget_totals
        .iter_mut()
        .find(|t| t["vendor"] == vendor)
    {
        Some(kept) => *kept = totals,
        None => state.widget_totals.push(totals),
    }
    if state.aggregate.is_none() && (fetched.total.is_some() || fetched.average.is_some()) {
        state.aggregate = Some(json!({
            "rating_value": fetched.average,
            "best_rating": 5.0,
            "worst_rating": 1.0,
            "review_count": fetched.total,
            "rating_count": null,
        }));
    }
    let mut extra = page_extra(&state, &state.url);
    extra["widget"] = json!(vendor);
    if let Some(limit) = &fetched.limit {
        extra["source_limit"] = json!(limit);
    }
    let meta = meta(&state, state.url.clone(), extra);
    state.widget = match fetched.next {
        Some(next) => Some((i, next)),
        None => state.widgets.get(i + 1).map(|w| (i + 1, w.first())),
    };
    let next_cursor = state.widget.is_some().then(|| cursor::encode(&state));
    Ok(Page {
        ahead: Vec::new(),
        reviews,
        next_cursor,
        order: gleaner_sdk::Order::Unordered,
        meta,
    })
}

/// What every answer says about the page: what was found on it and its
/// widgets so far.
fn page_extra(state: &State, page_url: &str) -> Value {
    json!({
        "page_url": page_url,
        "page": state.page,
        "aggregate_rating": state.aggregate,
        "item_reviewed": state.item,
        "found": {
            "json_ld": state.found[0],
            "microdata": state.found[1],
            "rdfa": state.found[2],
            "widgets": widget_list(state),
        },
        "declared_vs_found": summary::declared_vs_found(state.aggregate.as_ref(), state.listed as usize),
        "contradictions": state.contradictions,
        "robots_txt": if robots::respected() { "respected" } else { "ignored by the operator's setting" },
    })
}

/// The widgets found, with what their endpoints said so far.
fn widget_list(state: &State) -> Value {
    Value::Array(
        state
            .widgets
            .iter()
            .map(|w| {
                let mut described = w.describe();
                let vendor = w.vendor().name();
                described["vendor"] = json!(vendor);
                if let Some(t) = state.widget_totals.iter().find(|t| t["vendor"] == vendor) {
                    described["total"] = t["total"].clone();
                    described["average_rating"] = t["average_rating"].clone();
                }
                described
            })
            .collect(),
    )
}
/// The answer, when it is an HTML page; a 502 naming the content type when
/// it is not.
fn html_page(response: Response) -> Result<Response, FetchError> {
    let declared = response.header("content-type").map(str::to_ascii_lowercase);
    let html_type = declared
        .as_deref()
        .is_none_or(|t| t.contains("html") || t.contains("xml"));
    let text = response.text();
    let head = text.trim_start();
    let head = head[..head.len().min(1024)].to_ascii_lowercase();
    let looks_html = [
        "<!doctype html",
        "<html",
        "<head",
        "<body",
        "<?xml",
        "<meta",
        "<!--",
    ]
    .iter()
    .any(|t| head.contains(t));
    if !html_type || (declared.is_none() && !looks_html) {
        return Err(FetchError::Upstream(format!(
            "{} answered with content type {}, not an HTML page; give the address of a web page that shows reviews",
            response.final_url,
            declared.as_deref().unwrap_or("none (and the body is not HTML)")
        )));
    }
    Ok(response)
}

/// The page's reviews, each once: a review read in two syntaxes, twice in
/// one, or on an earlier page is left out.
fn distinct(found: &schema::Found, ctx: &mapping::Context, state: &mut State) -> Vec<Review> {
    let mapped = found.reviews.iter().filter_map(|r| mapping::review(r, ctx));
    state.keep_new(mapped.map(|m| (m.key, m.review, !m.flags.is_empty())))
}

impl State {
    /// The reviews (each with what makes it the same review elsewhere, and
    /// whether its markup contradicts itself) not answered already, which
    /// it then remembers and counts.
    fn keep_new(
        &mut self,
        reviews: impl IntoIterator<Item = (String, Review, bool)>,
    ) -> Vec<Review> {
        let mut seen: HashSet<String> = self.seen.iter().cloned().collect();
        let mut out = Vec::new();
        for (key, kept, flagged) in reviews {
            let digest = review::stable_id("", &[&key])[..12].to_owned();
            if !seen.insert(digest.clone()) {
                continue;
            }
            self.seen.push(digest);
            if flagged {
                self.contradictions += 1;
            }
            out.push(kept);
        }
        let excess = self.seen.len().saturating_sub(REMEMBERED);
        self.seen.drain(..excess);
        review::distinct_ids(&mut out);
        self.listed += out.len() as u32;
        out
    }
}

fn meta(state: &State, page_url: String, extra: Value) -> SourceMeta {
    let agg = state.aggregate.as_ref();
    let average = agg.and_then(|a| {
        let (value, best) = (a["rating_value"].as_f64()?, a["best_rating"].as_f64()?);
        let worst = a["worst_rating"].as_f64().unwrap_or(1.0);
        let on_five = match best == 5.0 && (worst == 1.0 || worst == 0.0) {
            true => value,
            false => gleaner_sdk::rating::rescale(value, best, 5.0)?,
        };
        (0.0..=5.0).contains(&on_five).then_some(on_five)
    });
    let total = agg.and_then(|a| a["review_count"].as_u64().or(a["rating_count"].as_u64()));
    SourceMeta {
        resolved_url: Some(page_url),
        name: state
            .item
            .as_ref()
            .and_then(|i| i["name"].as_str())
            .map(str::to_owned),
        average_rating: average,
        total_reviews: total,
        extra_json: extra.to_string(),
    }
}
