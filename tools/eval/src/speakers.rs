//! Speaker metadata: video-metadata-extraction and the customer line of
//! video-to-casestudy on `eval/speakers/transcripts.jsonl` (main) and
//! `eval/speakers/heldout.jsonl`, transcripts the project wrote with their
//! truth (see `eval/speakers/README.md`).
//!
//! A field is correct when the value equals the truth after lower-casing and
//! collapsing whitespace; a `null` truth requires `null`. Scores are given
//! overall and per style (`punctuated`, `asr`), with the share of non-English
//! transcripts whose four fields all come back `null`.

use serde_json::{json, Value};

use crate::data::Data;
use crate::score;
use crate::server::Server;

const METADATA: &str = "/features/video-metadata-extraction";
const CASE: &str = "/features/video-to-casestudy";
/// The fields scored, as named in the set.
const FIELDS: [&str; 4] = [
    "author_name",
    "author_organisation",
    "author_position",
    "product",
];
/// Most mismatches listed under the table.
const MAX_NOTES: usize = 40;

/// One transcript's outcome.
struct Outcome {
    style: String,
    english: bool,
    /// Per field of `FIELDS`: correct or not.
    correct: [bool; 4],
    /// All four fields came back `null`.
    all_null: bool,
    /// The case study's customer name and organisation match the truth.
    case_name: bool,
    case_org: bool,
}

/// Lower-cased with whitespace collapsed; `None` for null or blank.
fn norm(v: Option<&str>) -> Option<String> {
    let v = v?.split_whitespace().collect::<Vec<_>>().join(" ");
    (!v.is_empty()).then(|| v.to_lowercase())
}

/// The text of `<span class="customer-CLASS">` in the case study, unescaped.
fn customer_span(html: &str, class: &str) -> Option<String> {
    let open = format!("<span class=\"customer-{class}\">");
    let rest = &html[html.find(&open)? + open.len()..];
    let inner = &rest[..rest.find("</span>")?];
    Some(
        inner
            .replace("&lt;", "<")
            .replace("&gt;", ">")
            .replace("&quot;", "\"")
            .replace("&#39;", "'")
            .replace("&amp;", "&"),
    )
}

async fn judge(server: &Server, row: &Value, notes: &mut Vec<String>) -> anyhow::Result<Outcome> {
    let text = row["text"].as_str().unwrap_or_default();
    let id = row["id"].as_str().unwrap_or("?");
    let (status, body) = server.post(METADATA, &json!({ "query": text })).await?;
    if status != 200 {
        notes.push(format!("{id}: metadata answered {status}"));
    }
    let got = |field: &str| {
        let v = if field == "product" {
            &body["extra_information"]["product"]
        } else {
            &body[field]
        };
        v.as_str().map(str::to_owned)
    };
    let mut correct = [false; 4];
    let mut all_null = true;
    for (k, field) in FIELDS.iter().enumerate() {
        let (want, have) = (row[field].as_str(), got(field));
        all_null &= have.is_none();
        correct[k] = norm(want) == norm(have.as_deref());
        if !correct[k] {
            notes.push(format!("{id} {field}: got {have:?}, want {want:?}"));
        }
    }
    let (_, case) = server.post(CASE, &json!({ "query": text })).await?;
    let html = case["case_study_html"].as_str().unwrap_or_default();
    let case_name =
        norm(customer_span(html, "name").as_deref()) == norm(row["author_name"].as_str());
    let case_org = norm(customer_span(html, "organisation").as_deref())
        == norm(row["author_organisation"].as_str());
    Ok(Outcome {
        style: row["style"].as_str().unwrap_or_default().to_owned(),
        english: row["language"] == "en",
        correct,
        all_null,
        case_name,
        case_org,
    })
}

/// The sets: name and file under `eval/`.
const SETS: [(&str, &str); 2] = [
    ("main", "speakers/transcripts.jsonl"),
    ("heldout", "speakers/heldout.jsonl"),
];

/// Runs the benchmark and records its scores.
pub async fn run(server: &Server, data: &Data) -> anyhow::Result<()> {
    score::section(
        "Speaker metadata (video-metadata-extraction, video-to-casestudy)",
        "Transcripts the project wrote, truth written before running (`eval/speakers/`). \
         Exact match after lower-casing and collapsing whitespace; a null truth needs null. \
         `product` is `extra_information.product`; case study rows read its customer line.",
    );
    for (name, file) in SETS {
        let rows: Vec<Value> = std::fs::read_to_string(data.own(file))?
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?;
        score_set(server, name, &rows).await?;
    }
    Ok(())
}

/// Scores one set, its rows labelled `set`.
async fn score_set(server: &Server, set: &str, rows: &[Value]) -> anyhow::Result<()> {
    let mut notes = Vec::new();
    let mut outcomes = Vec::new();
    for row in rows {
        outcomes.push(judge(server, row, &mut notes).await?);
    }
    let english: Vec<&Outcome> = outcomes.iter().filter(|o| o.english).collect();
    let of_style = |style: &str| -> Vec<&Outcome> {
        english
            .iter()
            .copied()
            .filter(|o| o.style == style)
            .collect()
    };
    let groups: [(&str, Vec<&Outcome>); 3] = [
        ("english, all", english.clone()),
        ("english, punctuated", of_style("punctuated")),
        ("english, asr", of_style("asr")),
    ];
    for (group_name, group) in &groups {
        let label = format!("{set}: {group_name}");
        for (k, field) in FIELDS.iter().enumerate() {
            let hits = group.iter().filter(|o| o.correct[k]).count();
            score::rate(&label, field, hits, group.len());
        }
        let all = group
            .iter()
            .filter(|o| o.correct.iter().all(|c| *c))
            .count();
        score::rate(&label, "all four fields", all, group.len());
    }
    let foreign: Vec<&Outcome> = outcomes.iter().filter(|o| !o.english).collect();
    let nulls = foreign.iter().filter(|o| o.all_null).count();
    let label = format!("{set}: non-english");
    score::rate(&label, "all fields null", nulls, foreign.len());
    let label = format!("{set}: all");
    let name = outcomes.iter().filter(|o| o.case_name).count();
    score::rate(&label, "case study customer name", name, outcomes.len());
    let org = outcomes.iter().filter(|o| o.case_org).count();
    score::rate(
        &label,
        "case study customer organisation",
        org,
        outcomes.len(),
    );
    let more = notes.len().saturating_sub(MAX_NOTES);
    for n in notes.into_iter().take(MAX_NOTES) {
        score::note(format!("{set}: {n}"));
    }
    if more > 0 {
        score::note(format!("{set}: {more} more mismatches not listed"));
    }
    Ok(())
}
