//! Exports of a 100,000-review job: each format streamed through
//! `GET /jobs/{id}/reviews?format=`, read to the end, timed (to the first
//! byte of the body, and in all), and the
//! server's resident memory measured: its peak while streaming against its
//! resident memory before (the peak counter is reset first). The job is
//! written straight into the store, as a run would leave it.

use std::time::Instant;

use gleaner_jobs::model::{JobState, NewJob};
use gleaner_jobs::store::{JobEnd, PageWrite};
use serde_json::json;

use crate::report::{self, Row};

const REVIEWS: usize = 100_000;
const PAGE: usize = 500;

/// `VmRSS` or `VmHWM` of this process, in bytes.
fn memory(field: &str) -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines().find_map(|l| {
                let rest = l.strip_prefix(field)?.strip_prefix(':')?;
                rest.trim().strip_suffix(" kB")?.trim().parse::<u64>().ok()
            })
        })
        .map_or(0, |kib| kib * 1024)
}

/// Resets the peak resident memory counter (`VmHWM`).
fn reset_peak() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}

fn review(i: usize) -> serde_json::Value {
    json!({
        "review_id": format!("r-{i:06}"),
        "review_title": "Quick and friendly",
        "review_text": format!("Ordered on a Monday and it arrived on the Wednesday, well packed; the fit is true to size and the colour matches the photos. Review {i}."),
        "review_rating": (1 + i % 5) as f64,
        "rating_scale_max": 5.0,
        "rating_out_of_5": (1 + i % 5) as f64,
        "review_date": format!("2025-{:02}-{:02}T10:00:00Z", 1 + i % 12, 1 + i % 28),
        "review_date_precision": "second",
        "updated_date": null,
        "author_name": format!("Reviewer {i}"),
        "author_profile_image_url": null, "author_url": null, "author_title": null,
        "author_country": "GB",
        "review_url": format!("https://www.trustpilot.com/reviews/{i:024x}"),
        "review_media": [], "review_reply": null, "helpful_votes": i % 7,
        "language": "en", "language_source": "site", "verified": i.is_multiple_of(2),
        "recommends": null, "anonymous": false, "sub_ratings": [], "translation": null,
        "source": "customer-feedback-hub", "extra": {"labels": ["bench"]},
    })
}

pub async fn report() -> anyhow::Result<()> {
    report::section(
        "exports",
        "A job of 100,000 reviews streamed in each format through GET /jobs/{id}/reviews?format=: \
         the time to read it all, its size, and the server's resident memory at its peak while \
         streaming against before (server and client share this process; the client counts bytes \
         and keeps none).",
    );
    let data = tempfile::tempdir()?;
    let config = crate::local_config(data.path());
    let app = gleaner::App::build(config).await?;
    let store = app.state.jobs.store.clone();
    let job = store
        .create_job(NewJob {
            owner: "anonymous".into(),
            endpoint: "/customer-feedback-hub/reviews".into(),
            request: json!({"query": "https://www.trustpilot.com/review/bench.example"}),
            total: Some(REVIEWS as u64),
            webhook: None,
            schedule_id: None,
            export: None,
        })
        .await?;
    for page in 0..REVIEWS / PAGE {
        let reviews = (page * PAGE..(page + 1) * PAGE)
            .map(|i| (format!("r-{i:06}"), review(i).to_string()))
            .collect();
        store
            .commit_page(
                &job.job_id,
                PageWrite {
                    reviews,
                    position: Some(format!("p{page}")),
                    pages: 1,
                    changes: Default::default(),
                },
            )
            .await?;
    }
    store
        .finish_job(
            &job.job_id,
            JobEnd {
                state: JobState::Succeeded,
                stop_reason: Some("exhausted".into()),
                error: None,
            },
        )
        .await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { app.serve(listener, std::future::pending()).await });
    let client = reqwest::Client::new();
    for format in ["ndjson", "json", "csv", "parquet"] {
        let before = memory("VmRSS");
        reset_peak();
        let started = Instant::now();
        let mut response = client
            .get(format!(
                "{base}/jobs/{}/reviews?format={format}",
                job.job_id
            ))
            .send()
            .await?;
        anyhow::ensure!(
            response.status() == 200,
            "{format}: HTTP {}",
            response.status()
        );
        let mut bytes = 0u64;
        let mut first_byte = None;
        while let Some(chunk) = response.chunk().await? {
            first_byte.get_or_insert_with(|| started.elapsed());
            bytes += chunk.len() as u64;
        }
        let first_byte = first_byte.unwrap_or_default();
        let took = started.elapsed();
        let peak = memory("VmHWM");
        report::row(Row {
            what: format!("{format}: {REVIEWS} reviews"),
            value: Some(format!(
                "first byte after {:.1} ms, {:.2} s in all, {:.1} MiB written; resident memory {:.1} MiB before, peak {:.1} MiB (+{:.1} MiB)",
                first_byte.as_secs_f64() * 1000.0,
                took.as_secs_f64(),
                bytes as f64 / 1048576.0,
                before as f64 / 1048576.0,
                peak as f64 / 1048576.0,
                peak.saturating_sub(before) as f64 / 1048576.0
            )),
            ..Row::default()
        });
    }
    Ok(())
}
