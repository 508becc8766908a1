//! The web-page source on a 1 MiB page: a product whose JSON-LD lists
//! reviews that its Microdata lists again, so every review is read twice and
//! returned once. Time per fetch (one page, served by a local upstream with
//! no delay) and the plugin's memory per call (the
//! `gleaner_plugin_memory_bytes` histogram the server keeps).

use std::time::Duration;

use serde_json::{json, Value};

use crate::report::{self, Row};
use crate::upstream::Upstream;

/// The page's size, at least.
const PAGE_BYTES: usize = 1 << 20;
/// Fetches measured, after one to warm up.
const RUNS: usize = 30;

/// A product page of about [`PAGE_BYTES`], and how many distinct reviews it lists.
pub fn page() -> (String, usize) {
    let text = "The kettle boils a full litre in under four minutes, the handle stays cool, \
                and the lid opens wide enough to clean the limescale filter by hand. ";
    let (mut ld, mut micro, mut n, mut ld_bytes) = (Vec::new(), String::new(), 0, 0);
    while ld_bytes + micro.len() < PAGE_BYTES {
        let (author, day) = (
            format!("Reviewer {n}"),
            format!("2025-{:02}-{:02}", 1 + n % 12, 1 + n % 28),
        );
        let body = format!("{text}Review number {n}.");
        let review = json!({"@type": "Review", "author": {"@type": "Person", "name": author},
            "datePublished": day, "reviewBody": body, "reviewRating": {"@type": "Rating", "ratingValue": 1 + n % 5}});
        ld_bytes += review.to_string().len() + 1;
        ld.push(review);
        micro.push_str(&format!(
            "<li itemprop=\"review\" itemscope itemtype=\"https://schema.org/Review\"><span itemprop=\"author\">{author}</span> \
             <time itemprop=\"datePublished\" datetime=\"{day}\">{day}</time><p itemprop=\"reviewBody\">{body}</p>\
             <div itemprop=\"reviewRating\" itemscope itemtype=\"https://schema.org/Rating\"><meta itemprop=\"ratingValue\" content=\"{}\"></div></li>\n",
            1 + n % 5
        ));
        n += 1;
    }
    let product = json!({"@context": "https://schema.org", "@type": "Product", "name": "Bench Kettle",
        "aggregateRating": {"@type": "AggregateRating", "ratingValue": 4.1, "reviewCount": n}, "review": ld});
    let html = format!(
        "<!doctype html><html><head><title>Bench Kettle</title><script type=\"application/ld+json\">{product}</script></head>\
         <body><div itemscope itemtype=\"https://schema.org/Product\"><h1 itemprop=\"name\">Bench Kettle</h1><ol>{micro}</ol></div></body></html>"
    );
    (html, n)
}

/// The histogram's sum and count for `plugin` in a Prometheus text.
fn memory_of(metrics: &str, plugin: &str) -> Option<(f64, f64)> {
    let read = |suffix: &str| {
        metrics.lines().find_map(|l| {
            let rest = l.strip_prefix(&format!(
                "gleaner_plugin_memory_bytes_{suffix}{{plugin=\"{plugin}\"}} "
            ))?;
            rest.trim().parse::<f64>().ok()
        })
    };
    Some((read("sum")?, read("count")?))
}

pub async fn report() -> anyhow::Result<()> {
    report::section(
        "web-page on a 1 MiB page",
        "One fetch of a product page of 1 MiB (JSON-LD and Microdata listing the same reviews) \
         from a local upstream without delay: the answer's time, and the plugin's linear memory \
         per call.",
    );
    let (html, reviews) = page();
    let size = html.len();
    let answers: crate::upstream::Answers =
        std::sync::Arc::new(move |_method, path, _body| match path {
            "/robots.txt" => Some((404, "text/plain".into(), b"none".to_vec())),
            _ => Some((
                200,
                "text/html; charset=utf-8".into(),
                html.clone().into_bytes(),
            )),
        });
    let upstream = Upstream::start(Duration::ZERO, answers).await?;
    let data = tempfile::tempdir()?;
    let mut config = crate::local_config(data.path());
    config
        .upstream_override
        .insert("bench.example".into(), format!("http://{}", upstream.addr));
    let app = gleaner::App::build(config).await?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let base = format!("http://{}", listener.local_addr()?);
    tokio::spawn(async move { app.serve(listener, std::future::pending()).await });
    let client = reqwest::Client::new();
    let body = json!({"query": "https://bench.example/kettle", "reviews_to_fetch": 10000});
    let mut samples = Vec::new();
    let mut answered = 0;
    for i in 0..=RUNS {
        let started = std::time::Instant::now();
        let answer: Value = client
            .post(format!("{base}/web-page/reviews"))
            .json(&body)
            .send()
            .await?
            .json()
            .await?;
        let took = started.elapsed();
        answered = answer["all_reviews"].as_array().map_or(0, Vec::len);
        anyhow::ensure!(
            answered == reviews,
            "the page lists {reviews} reviews; the answer has {answered}: {answer}"
        );
        if i > 0 {
            samples.push(took);
        }
    }
    report::samples(
        &format!(
            "fetch of a {} KiB page, {answered} reviews read twice",
            size / 1024
        ),
        &samples,
        None,
    );
    let metrics = client
        .get(format!("{base}/metrics"))
        .send()
        .await?
        .text()
        .await?;
    if let Some((sum, count)) = memory_of(&metrics, "web-page") {
        report::row(Row {
            what: "web-page linear memory per call".into(),
            value: Some(format!(
                "{:.1} MiB (mean of {count} calls)",
                sum / count / 1048576.0
            )),
            ..Row::default()
        });
    }
    Ok(())
}
