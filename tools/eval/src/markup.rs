//! The web-page source on held-out pages with schema.org review markup:
//! 40 pages (real pages saved by other projects' test suites, and a few of
//! schema.org's documented examples), each with the reviews and aggregate it
//! lists, written down by reading the page before the source ever ran on
//! it. The set is third-party page content, so it is kept outside the
//! repository (`$GLEANER_EVAL_DATA/schema-reviews`: `pages/*.html` and
//! `expected.toml`).
//!
//! Each page is served at `https://pNN.heldout.test/page` (its own host,
//! with no robots.txt) and fetched whole. Agreement, fixed before any run:
//! - **exact reviews**: the answer is 200 and lists as many reviews as the
//!   page's `distinct_reviews`, and each expected review is matched by a
//!   different answered one: its author (when written down) equals the
//!   answered `author_name`, its `text_starts` (when not empty) begins the
//!   answered text, its date (when written down) begins `review_date`, and
//!   its rating on its `best` scale (when written down) equals the answered
//!   rating on that scale, within 0.01. Text is compared case-folded, with
//!   whitespace collapsed and typographic quotes and dashes folded to ASCII.
//! - **aggregate**: each key written down (`rating_value`, `best_rating`,
//!   `review_count`, `rating_count`) equals the answer's
//!   `extra_information.source.aggregate_rating`; a page with none written
//!   down agrees when the answer has none.

use serde::Deserialize;
use serde_json::{json, Value};

use gleaner::capabilities::http::har::Exchange;

use crate::data::{Data, ThirdParty};
use crate::score;
use crate::server::{page, Server};
use crate::sites::normalise;

const SET: ThirdParty = ThirdParty {
    dir: "schema-reviews",
    source: "the project's held-out pages with schema.org review markup (third-party page \
             content, kept outside the repository by the team)",
    place: "cp -r <the team's schema-reviews set> \"$GLEANER_EVAL_DATA/schema-reviews\"",
};

const ROUTE: &str = "/web-page/reviews";

#[derive(Debug, Deserialize)]
struct Expected {
    page: Vec<Page>,
}

#[derive(Debug, Deserialize)]
struct Page {
    file: String,
    distinct_reviews: usize,
    #[serde(default)]
    reviews: Vec<Review>,
    #[serde(default)]
    aggregate: Option<Aggregate>,
}

#[derive(Debug, Deserialize)]
struct Review {
    #[serde(default)]
    author: Option<String>,
    #[serde(default)]
    rating: Option<f64>,
    #[serde(default)]
    best: Option<f64>,
    #[serde(default)]
    date: Option<String>,
    #[serde(default)]
    text_starts: Option<String>,
}

#[derive(Debug, Deserialize)]
struct Aggregate {
    rating_value: Option<f64>,
    best_rating: Option<f64>,
    review_count: Option<u64>,
    rating_count: Option<u64>,
}

fn url_of(i: usize) -> String {
    format!("https://p{:02}.heldout.test/page", i + 1)
}

/// The set's expectations in `dir`; what is wrong with them, if they do
/// not read.
fn load(dir: &std::path::Path) -> Result<Expected, String> {
    let text = std::fs::read_to_string(dir.join("expected.toml")).map_err(|e| e.to_string())?;
    toml::from_str(&text).map_err(|e| e.to_string())
}

/// The pages, each on its own host, and a 404 for each host's robots.txt.
pub fn exchanges(data: &Data) -> anyhow::Result<Vec<Exchange>> {
    let Some((dir, Ok(expected))) = data.present(&SET).map(|d| (d.clone(), load(&d))) else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    for (i, p) in expected.page.iter().enumerate() {
        let body = std::fs::read(dir.join("pages").join(&p.file))?;
        let url = url_of(i);
        out.push(page(&url, 200, "text/html; charset=utf-8", body));
        let robots = url.replace("/page", "/robots.txt");
        out.push(page(&robots, 404, "text/plain", b"not found".to_vec()));
    }
    Ok(out)
}

/// Whether answered review `got` is expected review `want`.
fn matches(want: &Review, got: &Value) -> bool {
    if let Some(author) = want.author.as_deref().filter(|a| !a.trim().is_empty()) {
        if normalise(got["author_name"].as_str().unwrap_or_default()) != normalise(author) {
            return false;
        }
    }
    if let Some(start) = want.text_starts.as_deref().filter(|t| !t.trim().is_empty()) {
        if !normalise(got["review_text"].as_str().unwrap_or_default())
            .starts_with(&normalise(start))
        {
            return false;
        }
    }
    if let Some(date) = want.date.as_deref().filter(|d| !d.is_empty()) {
        if !got["review_date"]
            .as_str()
            .unwrap_or_default()
            .starts_with(date)
        {
            return false;
        }
    }
    if let Some(rating) = want.rating {
        let best = want.best.unwrap_or(5.0);
        let (Some(value), Some(max)) = (
            got["review_rating"].as_f64(),
            got["rating_scale_max"].as_f64(),
        ) else {
            return false;
        };
        let on_best = match max == best {
            true => value,
            false => value / max * best,
        };
        if (on_best - rating).abs() > 0.01 {
            return false;
        }
    }
    true
}

/// Whether every expected review is matched by a different answered one.
fn all_matched(want: &[Review], got: &[Value]) -> bool {
    let mut used = vec![false; got.len()];
    want.iter().all(|w| {
        let Some(i) = (0..got.len()).find(|i| !used[*i] && matches(w, &got[*i])) else {
            return false;
        };
        used[i] = true;
        true
    })
}

fn aggregate_agrees(want: Option<&Aggregate>, got: &Value) -> bool {
    let Some(want) = want else {
        return got.is_null();
    };
    let number = |key: &str, v: Option<f64>| {
        v.is_none_or(|v| got[key].as_f64().is_some_and(|g| (g - v).abs() < 0.001))
    };
    let count = |key: &str, v: Option<u64>| v.is_none_or(|v| got[key].as_u64() == Some(v));
    number("rating_value", want.rating_value)
        && number("best_rating", want.best_rating)
        && count("review_count", want.review_count)
        && count("rating_count", want.rating_count)
}

pub async fn run(server: &Server, data: &Data) -> anyhow::Result<()> {
    score::section(
        "Review markup on pages",
        "web-page on the held-out schema-reviews set: the distinct reviews and the \
         aggregate each page lists, written down by reading the pages. Agreement is \
         defined in tools/eval/src/markup.rs.",
    );
    let Some(dir) = data.third_party(&SET) else {
        return Ok(());
    };
    let expected = match load(&dir) {
        Ok(expected) => expected,
        Err(e) => {
            score::note(format!("schema-reviews: expected.toml does not read: {e}"));
            return Ok(());
        }
    };
    let (mut exact, mut agg_hits, mut reviews_hit, mut reviews_n) = (0, 0, 0, 0);
    let n = expected.page.len();
    for (i, p) in expected.page.iter().enumerate() {
        let body = json!({"query": url_of(i), "reviews_to_fetch": 1000});
        let (status, answer) = server.post(ROUTE, &body).await?;
        let got = answer["all_reviews"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        let listed = status == 200 && got.len() == p.distinct_reviews;
        let matched = all_matched(&p.reviews, &got);
        reviews_n += p.reviews.len();
        reviews_hit += p
            .reviews
            .iter()
            .filter(|w| got.iter().any(|g| matches(w, g)))
            .count();
        if listed && matched {
            exact += 1;
        } else {
            score::note(format!(
                "{}: {} reviews answered (HTTP {status}), {} expected{}",
                p.file,
                got.len(),
                p.distinct_reviews,
                if matched {
                    ""
                } else {
                    "; not every expected review matched"
                }
            ));
        }
        let agg = &answer["extra_information"]["source"]["aggregate_rating"];
        if aggregate_agrees(p.aggregate.as_ref(), agg) {
            agg_hits += 1;
        } else {
            score::note(format!(
                "{}: aggregate {agg} differs from the page's",
                p.file
            ));
        }
    }
    score::rate(
        "schema-reviews",
        "pages with exactly their distinct reviews",
        exact,
        n,
    );
    score::rate(
        "schema-reviews",
        "pages whose aggregate agrees",
        agg_hits,
        n,
    );
    score::rate(
        "schema-reviews",
        "expected reviews matched",
        reviews_hit,
        reviews_n,
    );
    Ok(())
}
