//! The kind-specific request tables of a manifest: a review source's
//! `[source]` (its continuation, sort and filter) and a processor's
//! `[processor]` (its fields and declared response body).

use serde::Deserialize;

use super::fields::FieldSpec;
use super::output::{self, OutputSpec};

/// How a review source continues a fetch.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Continuation {
    /// A string token, `pagination_token` in requests and `next_page` in responses.
    PaginationToken,
    /// An object, `pagination_data` in requests and responses.
    PaginationData,
    /// No continuation field: the host pages internally within the budget.
    None,
}

/// Where a source's review ids come from.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, serde::Serialize)]
#[serde(rename_all = "snake_case")]
pub enum ReviewIds {
    /// The site's own id for each review: it stays when the review is edited.
    #[default]
    Site,
    /// A digest of the review's content (the site gives none): an edit
    /// makes it another review, so changes cannot be tracked.
    Content,
}

/// Request options of a review source.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SourceOptions {
    /// How the endpoint continues a fetch.
    pub continuation: Continuation,
    /// The sort field, if the endpoint has one.
    #[serde(default)]
    pub sort: Option<FieldSpec>,
    /// The filter field, if the endpoint has one.
    #[serde(default)]
    pub filter: Option<FieldSpec>,
    /// Whether review dates are the source's local dates rather than UTC.
    #[serde(default)]
    pub local_dates: bool,
    /// The endpoint's `is_text_formatted` when a request omits it (true unless
    /// the endpoint documents otherwise).
    #[serde(default = "default_text_formatted")]
    pub text_formatted_default: bool,
    /// What `query` takes (the URL forms and identifiers the source reads),
    /// shown in the OpenAPI document.
    #[serde(default)]
    pub query_description: Option<String>,
    /// The keys of each review's `extra` (`[source.extra]`): shown per route in
    /// the OpenAPI document, and checked on every review.
    #[serde(default)]
    pub extra: Option<output::OutputSpec>,
    /// Where its review ids come from (`review_ids`, default `site`).
    #[serde(default)]
    pub review_ids: ReviewIds,
}

fn default_text_formatted() -> bool {
    true
}

/// Request fields of a processor, and the response body it declares.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProcessorOptions {
    /// The accepted fields.
    #[serde(default)]
    pub fields: Vec<FieldSpec>,
    /// The response body (`[processor.output]`); none leaves it undescribed.
    #[serde(default)]
    pub output: Option<OutputSpec>,
}
