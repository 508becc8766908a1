//! `gleaner doctor <label> [query]`: for an operator on a machine with
//! internet, one real fetch of a source and what was seen: each response's
//! status and wall, the answer, the review count, and the review fields that
//! came back null although the source's own fixture has them. The exchanges
//! are written to a HAR file, so a failing site becomes a fixture. With
//! `--replay` it reads a recording instead, which is how it is tested.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::{json, Value};

use super::fixtures::{self, Fixture};
use super::plugins::Source;
use crate::capabilities::http::har::{HarRecorder, HarReplay};
use crate::config::Config;
use crate::secrets::Secrets;
use crate::{driver, validate};

/// Reviews asked for: enough for one or two pages.
const SAMPLE_REVIEWS: u64 = 20;

/// Arguments of `gleaner doctor`.
#[derive(Debug, Default)]
pub struct DoctorArgs {
    /// Source label.
    pub label: String,
    /// The query; by default the one the source's fixture pages through.
    pub query: Option<String>,
    /// Where the HAR recording goes.
    pub out: PathBuf,
    /// Read this recording instead of the live site.
    pub replay: Option<PathBuf>,
    /// The repository's plugins directory, for the fixture (`plugins/<label>/tests`).
    pub plugins_src: PathBuf,
}

/// What one fetch answered: status, body.
struct Answer {
    status: u16,
    body: Value,
}

/// Runs the check, prints the report; true when the source looks healthy.
pub async fn doctor(
    config: &Config,
    secrets: &Arc<Secrets>,
    args: DoctorArgs,
) -> anyhow::Result<bool> {
    let (_, manifest) = super::plugins::find(config, &args.label)?;
    let fixture_dir = fixtures::dir_of(&args.plugins_src, &manifest.name);
    let fixture = Fixture::load(&fixture_dir)?;
    let fixture_request = fixture.as_ref().and_then(|f| f.requests.first().cloned());
    let query = match (&args.query, fixture.as_ref().and_then(Fixture::query)) {
        (Some(q), _) => q.clone(),
        (None, Some(q)) => q,
        (None, None) => anyhow::bail!(
            "give a query: {} has no replay.toml whose cases it could take one from",
            fixture_dir.display()
        ),
    };
    // A recording made with the fixture's test settings replays with them;
    // the live site gets the operator's.
    let fixture_settings = fixture.map(|f| f.settings).unwrap_or_default();
    let config = &match &args.replay {
        Some(_) => super::plugins::with_settings(config, &manifest.name, &fixture_settings),
        None => config.clone(),
    };
    let (replay, recorder) = match &args.replay {
        Some(path) => (Some(HarReplay::load_list(path)?), None),
        None => (
            None,
            Some(HarRecorder::new(args.out.clone(), secrets.clone())),
        ),
    };
    let source = super::plugins::load(config, secrets, &args.label, replay, recorder).await?;
    let answer = run(
        config,
        &source,
        json!({"query": query, "reviews_to_fetch": SAMPLE_REVIEWS}),
    )
    .await?;
    println!("doctor {} {query}", args.label);
    let observed = source.runtime.services().http.observed();
    println!("  requests: {}", observed.len());
    let mut walls = Vec::new();
    for seen in &observed {
        let wall = match seen.wall {
            Some(w) => w.code(),
            None if matches!(seen.status, 401 | 403 | 429) => "refused, no wall recognised",
            None => "content",
        };
        println!("    HTTP {} {} ({wall})", seen.status, seen.url);
        if let Some(w) = seen.wall {
            walls.push(w);
        }
    }
    match walls.first() {
        Some(w) => println!("  wall: {} — {}", w.name(), w.remedy()),
        None => println!("  wall: none seen"),
    }
    let reviews = answer.body["all_reviews"].as_array().map_or(0, Vec::len);
    if answer.status == 200 {
        println!(
            "  answer: 200, {reviews} reviews — {}",
            answer.body["message"].as_str().unwrap_or_default()
        );
    } else {
        println!(
            "  answer: {} — {}",
            answer.status,
            answer.body["error"].as_str().unwrap_or_default()
        );
    }
    let mut missing = Vec::new();
    if reviews == 0 {
        println!("  fields: no reviews to compare with the fixture");
    } else if let (Some(request), true) = (fixture_request, fixture_dir.is_dir()) {
        let fixture_config =
            super::plugins::with_settings(config, &manifest.name, &fixture_settings);
        let expected =
            fixture_fields(&fixture_config, secrets, &args.label, &fixture_dir, request).await?;
        let got = non_null_fields(&answer.body);
        missing = expected.difference(&got).cloned().collect();
        if missing.is_empty() {
            println!("  fields: every field the fixture has came back");
        } else {
            println!(
                "  fields null here but set in the fixture: {}",
                missing.join(", ")
            );
        }
    }
    match &args.replay {
        Some(path) => println!("  replayed from {}; nothing recorded", path.display()),
        None => println!(
            "  recorded: {} (a fixture in the making: see PLUGINS.md, \"Recording a HAR\")",
            args.out.display()
        ),
    }
    Ok(answer.status == 200 && reviews > 0 && walls.is_empty() && missing.is_empty())
}

/// Runs one fetch of `body` against the source and answers as the server would.
async fn run(config: &Config, source: &Source, body: Value) -> anyhow::Result<Answer> {
    let Some(options) = source.options() else {
        // The forum post: one record, no paging.
        let query = body["query"].as_str().unwrap_or_default().to_owned();
        let args = super::fetch::FetchArgs {
            query,
            ..Default::default()
        };
        return Ok(match super::fetch::post(config, source, &args).await {
            Ok(body) => Answer { status: 200, body },
            Err(e) => Answer {
                status: 502,
                body: json!({"error": format!("{e:#}")}),
            },
        });
    };
    let key = config.token_key()?;
    let request = validate::source_request(
        &key,
        &source.plugin.manifest.route,
        options,
        body.to_string().as_bytes(),
    )
    .map_err(anyhow::Error::msg)?;
    let outcome = driver::fetch(
        &source.runtime,
        &source.plugin,
        &request,
        &key,
        config.fetch_budget(),
        "doctor",
        &|_, _| {},
    )
    .await;
    Ok(match outcome {
        Ok(o) => Answer {
            status: 200,
            body: o.into_body(options.continuation),
        },
        Err(e) => Answer {
            status: e.status().as_u16(),
            body: json!({"error": e.to_string()}),
        },
    })
}

/// The review fields set on at least one review of the fixture's answer.
async fn fixture_fields(
    config: &Config,
    secrets: &Arc<Secrets>,
    label: &str,
    fixture: &Path,
    mut request: Value,
) -> anyhow::Result<BTreeSet<String>> {
    let replay = HarReplay::load(fixture)?;
    let source = super::plugins::load(config, secrets, label, Some(replay), None).await?;
    if source.options().is_some() {
        request["reviews_to_fetch"] = json!(SAMPLE_REVIEWS);
    }
    let answer = run(config, &source, request).await?;
    Ok(non_null_fields(&answer.body))
}

/// The review fields set (not null, not empty) on at least one review.
fn non_null_fields(body: &Value) -> BTreeSet<String> {
    let mut fields = BTreeSet::new();
    for review in body["all_reviews"].as_array().into_iter().flatten() {
        for (name, value) in review.as_object().into_iter().flatten() {
            let set = match value {
                Value::Null => false,
                Value::Array(a) => !a.is_empty(),
                Value::Object(o) => !o.is_empty(),
                Value::String(s) => !s.is_empty(),
                _ => true,
            };
            if set {
                fields.insert(name.clone());
            }
        }
    }
    fields
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fields_set_on_any_review() {
        let body = json!({"all_reviews": [
            {"review_id": "1", "review_reply": null, "review_media": [], "extra": {}},
            {"review_id": "2", "review_reply": {"text": "x"}, "review_title": ""}
        ]});
        let fields: Vec<String> = non_null_fields(&body).into_iter().collect();
        assert_eq!(fields, ["review_id", "review_reply"]);
    }
}
