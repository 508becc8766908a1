//! The processors in-process: every processor's instantiate + call with
//! realistic inputs, `--loop` for profiling one, and the near-duplicate check
//! `insights: true` adds per review.

use std::time::{Duration, Instant};

use crate::{replay_app, report, root, timed};

/// `--loop ROUTE BODY SECONDS`: calls the processor at ROUTE with BODY
/// in-process, one call after another, for SECONDS, and prints the calls
/// made: a steady load on the call path alone (no HTTP) for `perf record`.
pub(crate) async fn call_loop(args: &[String]) -> anyhow::Result<()> {
    let (route, body, seconds, callers) = match args {
        [route, body, seconds] => (route, body, seconds, "1"),
        [route, body, seconds, callers] => (route, body, seconds, callers.as_str()),
        _ => anyhow::bail!("usage: bench --loop ROUTE BODY SECONDS [CALLERS] (e.g. /features/review-chunk '{{\"review_text\":\"…\"}}' 10 2)"),
    };
    let seconds: u64 = seconds
        .parse()
        .map_err(|_| anyhow::anyhow!("SECONDS is {seconds:?}; give a whole number of seconds"))?;
    let callers: usize = callers
        .parse()
        .ok()
        .filter(|n| *n >= 1)
        .ok_or_else(|| anyhow::anyhow!("CALLERS is {callers:?}; give a whole number from 1"))?;
    let app = replay_app().await?;
    let runtime = app.state.runtime.clone();
    let plugin = app.state.registry.get(route).ok_or_else(|| {
        anyhow::anyhow!(
            "no plugin serves {route}; give a processor's route, such as /features/review-chunk"
        )
    })?;
    let until = Instant::now() + Duration::from_secs(seconds);
    let mut tasks = Vec::new();
    for _ in 0..callers {
        let (runtime, plugin, body, route) =
            (runtime.clone(), plugin.clone(), body.clone(), route.clone());
        tasks.push(tokio::spawn(async move {
            let mut calls = 0u64;
            while Instant::now() < until {
                let deadline = Instant::now() + Duration::from_secs(10);
                runtime
                    .process(&plugin, "bench", &body, deadline)
                    .await?
                    .map_err(|e| anyhow::anyhow!("{route} answered an error: {e:?}"))?;
                calls += 1;
            }
            anyhow::Ok(calls)
        }));
    }
    let mut calls = 0u64;
    for task in tasks {
        calls += task.await??;
    }
    println!(
        "{calls} calls in {seconds} s by {callers} caller(s): {:.0} calls/s",
        calls as f64 / seconds as f64
    );
    Ok(())
}

/// Latency of every processor's instantiate + call, with realistic inputs (the
/// website processors answered from the HAR fixtures).
pub(crate) async fn processor_latency() -> anyhow::Result<()> {
    let app = replay_app().await?;
    let runtime = app.state.runtime.clone();
    let transcript = "um hi so my name is sarah jones and i'm the head of marketing at bluefin analytics uh before we used to spend like two days every month building reports by hand it was really painful and then we started using acme crm and honestly it cut our reporting time by 40 percent so yeah i would recommend it";
    let review = "Setup took ten minutes. Since switching, our team closes tickets 3x faster and we saved about $2,000 a month. i recieved great support , the the staff was definately helpful!!";
    let cases = [
        (
            "/features/review-chunk",
            serde_json::json!({"review_text": review, "widget_type": "card"}),
        ),
        (
            "/features/highlight-review-text",
            serde_json::json!({"review_id": "r1", "review_text": review}),
        ),
        (
            "/features/review-enhancement",
            serde_json::json!({"review_id": "r1", "review_text": review}),
        ),
        (
            "/features/review-insights",
            serde_json::json!({"review_id": "r1", "review_text": thousand_characters(), "review_rating": 4}),
        ),
        (
            "/features/video-metadata-extraction",
            serde_json::json!({"query": transcript}),
        ),
        (
            "/features/video-to-casestudy",
            serde_json::json!({"query": transcript}),
        ),
        (
            "/features/domain-to-asset",
            serde_json::json!({"query": "https://www.bluefin-analytics.com"}),
        ),
        (
            "/public/v1/wol-meta-info",
            serde_json::json!({"email": "a@bluefin-analytics.com", "website": "https://www.bluefin-analytics.com"}),
        ),
    ];
    for (route, input) in cases {
        let plugin = app
            .state
            .registry
            .get(route)
            .ok_or_else(|| anyhow::anyhow!("{route} not loaded"))?;
        let input = input.to_string();
        let samples = timed(20, 200, || async {
            let deadline = Instant::now() + Duration::from_secs(10);
            runtime
                .process(&plugin, "bench", &input, deadline)
                .await?
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            Ok(())
        })
        .await?;
        report(&format!("processor {route} (instantiate + call)"), samples);
    }
    near_duplicate_check(10_000);
    Ok(())
}

/// What `insights: true` adds per review for `duplicate_of`, in the host: the
/// near-duplicate check of a 1,000-character review against a job's earlier
/// ones, `n` reviews in all (each a seeded shuffle of the same words, so
/// most pairs share many shingles and bands: more candidates to compare than
/// unrelated reviews give).
fn near_duplicate_check(n: usize) {
    use gleaner_text::near_duplicate::NearDuplicates;
    let words: Vec<String> = thousand_characters()
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    let mut rng = fastrand::Rng::with_seed(1);
    let texts: Vec<String> = (0..n)
        .map(|_| {
            let mut shuffled = words.clone();
            rng.shuffle(&mut shuffled);
            shuffled.join(" ")
        })
        .collect();
    let mut index = NearDuplicates::default();
    let mut samples = Vec::with_capacity(n);
    let mut found = 0;
    for (i, text) in texts.iter().enumerate() {
        let started = Instant::now();
        found += usize::from(index.check(&i.to_string(), text).is_some());
        samples.push(started.elapsed());
    }
    report(
        &format!(
            "near-duplicate check per 1,000-character review, {n} in one job ({found} flagged)"
        ),
        samples,
    );
}

/// A review of exactly 1,000 characters: a real one (the replayed Trustpilot
/// fixture's longest English reviews, joined) cut at the thousandth.
fn thousand_characters() -> String {
    let path =
        root().join("plugins/customer-feedback-hub/tests/samples/trustpilot-nextdata-reviews.json");
    let reviews: Vec<serde_json::Value> = std::fs::read_to_string(path)
        .ok()
        .and_then(|t| serde_json::from_str(&t).ok())
        .unwrap_or_default();
    let mut texts: Vec<&str> = reviews
        .iter()
        .filter(|r| r["language"] == "en")
        .filter_map(|r| r["text"].as_str())
        .collect();
    texts.sort_by_key(|t| std::cmp::Reverse(t.len()));
    let joined = texts.join(" ");
    joined.chars().take(1_000).collect()
}
