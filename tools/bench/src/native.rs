//! The plugins' algorithms compiled natively and called in-process: the
//! baseline of the WASM tax. Each function does what the plugin's export does
//! (read the JSON input, run the algorithm, write the JSON output), through the
//! plugin's own library, without the optional LLM (off in the benchmarks).

use std::time::Instant;

use gleaner::capabilities::http::OutboundResponse;
use gleaner_sdk::request::ReviewTextInput;
use gleaner_sdk::{FetchError, Page};
use serde_json::json;

/// A processor's `process`, natively: JSON input to JSON output.
pub type Process = fn(&str) -> Result<String, String>;

/// The processors measured both ways: route and native `process`.
pub const PROCESSORS: &[(&str, Process)] = &[
    ("/features/review-chunk", review_chunk),
    ("/features/highlight-review-text", highlight),
    ("/features/review-enhancement", enhance),
];

/// review-chunk's `process`.
pub fn review_chunk(input: &str) -> Result<String, String> {
    #[derive(serde::Deserialize)]
    struct Input {
        review_text: String,
        widget_type: Option<String>,
    }
    let input: Input = gleaner_sdk::request::input(input)?;
    let chunks = plugin_review_chunk::chunks(&input.review_text, input.widget_type.as_deref());
    Ok(json!({ "review_chunck": chunks }).to_string())
}

/// highlight-review-text's `process` (the rules engine).
pub fn highlight(input: &str) -> Result<String, String> {
    let input: ReviewTextInput = gleaner_sdk::request::input(input)?;
    let marked = plugin_highlight_review_text::highlight::highlight(&input.review_text);
    Ok(
        json!({ "review_id": input.review_id.unwrap_or_default(), "review_text": marked })
            .to_string(),
    )
}

/// review-enhancement's `process` (the rules engine).
pub fn enhance(input: &str) -> Result<String, String> {
    let input: ReviewTextInput = gleaner_sdk::request::input(input)?;
    let enhanced = plugin_review_enhancement::enhance::enhance(&input.review_text).text;
    Ok(
        json!({ "review_id": input.review_id.unwrap_or_default(), "review_text": enhanced })
            .to_string(),
    )
}

/// The Trustpilot page the source benchmarks parse: the first page of the
/// fetch customer-feedback-hub's replay cases page through.
pub const TRUSTPILOT_QUERY: &str = "https://www.trustpilot.com/review/www.bhphotovideo.com";

/// A recorded Trustpilot page as the host hands it over, ready to parse natively.
pub struct TrustpilotPage {
    /// The page URL the plugin requests.
    pub url: String,
    /// The parsed query.
    pub target: plugin_customer_feedback_hub::Target,
    /// The recorded response.
    pub response: gleaner_sdk::http::Response,
}

impl TrustpilotPage {
    /// The URL of page 1 (newest first) of [`TRUSTPILOT_QUERY`], as the plugin requests it.
    pub fn url() -> String {
        let target = plugin_customer_feedback_hub::parse_query(TRUSTPILOT_QUERY)
            .expect("the benchmark's query is a Trustpilot page");
        plugin_customer_feedback_hub::page_url(&target, "recency", None, 1)
    }

    /// The page from the host's answer to [`TrustpilotPage::url`] (with the
    /// host's bot-wall verdict, as the plugin receives it).
    pub fn new(answer: OutboundResponse) -> anyhow::Result<TrustpilotPage> {
        let target = plugin_customer_feedback_hub::parse_query(TRUSTPILOT_QUERY)
            .map_err(anyhow::Error::msg)?;
        let response = gleaner_sdk::http::Response {
            status: answer.status,
            headers: answer.headers,
            body: answer.body,
            final_url: answer.final_url,
            wall: answer.wall,
        };
        Ok(TrustpilotPage {
            url: Self::url(),
            target,
            response,
        })
    }

    /// customer-feedback-hub's parser on this page, natively: what `fetch-page`
    /// does once the host has answered its request (a copy of the response
    /// stands for the one the plugin receives).
    pub fn parse(&self) -> Result<Page, FetchError> {
        plugin_customer_feedback_hub::page_from_response(
            &self.url,
            self.response.clone(),
            &self.target,
            1,
            "recency",
        )
    }
}

/// Runs `call` `warmup + n` times, synchronously, and returns the durations of the last `n`.
pub fn timed_sync<R>(
    warmup: usize,
    n: usize,
    mut call: impl FnMut() -> R,
) -> Vec<std::time::Duration> {
    let mut samples = Vec::with_capacity(n);
    for i in 0..warmup + n {
        let started = Instant::now();
        std::hint::black_box(call());
        if i >= warmup {
            samples.push(started.elapsed());
        }
    }
    samples
}
