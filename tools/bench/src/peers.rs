//! Peers: review-chunk's sentence mode against pySBD over the corpus of real
//! review texts, and forum-site against PRAW fetching the same post, its
//! community and its author from one local upstream that adds 100 ms to each
//! request. The Python peers run from the virtualenv `make bench-peers`
//! installs (`target/bench/venv`); without it this section says how to get it.

use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::report::{self, duration, times, Row, Summary};
use crate::server::ServerProcess;
use crate::upstream::{self, Upstream};
use crate::{bench_dir, root};

/// The delay the local upstream adds to every request.
const UPSTREAM_DELAY: Duration = Duration::from_millis(100);
/// The post forum-site and PRAW fetch (forum-site's recorded post).
const POST_URL: &str = "https://www.reddit.com/r/SubTestBot1/comments/jlbw48/test_self_post/";
const POST_ID: &str = "jlbw48";
/// Timed fetches per series.
const FETCHES: usize = 10;

fn python() -> PathBuf {
    bench_dir().join("venv/bin/python")
}

fn script(name: &str) -> PathBuf {
    root().join("tools/bench/src/peers").join(name)
}

/// Runs a peer script with the virtualenv's Python; its stdout is one JSON object.
fn run_python(args: &[&str]) -> anyhow::Result<Value> {
    let output = Command::new(python()).args(args).output()?;
    anyhow::ensure!(
        output.status.success(),
        "{} failed: {}",
        args.first().copied().unwrap_or_default(),
        String::from_utf8_lossy(&output.stderr)
    );
    Ok(serde_json::from_slice(&output.stdout)?)
}

/// The whole section: sentences, then forum posts.
pub async fn report(corpus: &[String]) -> anyhow::Result<()> {
    let have_python = python().exists();
    if !have_python {
        report::note(
            "pySBD and PRAW are not installed: run `make bench-peers` (it makes the virtualenv \
             target/bench/venv from PyPI), then `make bench` again. Only the Gleaner side is measured below.",
        );
    }
    sentences(corpus, have_python).await?;
    forum_posts(have_python).await?;
    Ok(())
}

fn split(text: &str) -> Vec<String> {
    gleaner_text::segment::sentences(text)
        .into_iter()
        .map(|s| s.trim().to_owned())
        .filter(|s| !s.is_empty())
        .collect()
}

/// Sentences per second over the corpus: native, as a plugin, and pySBD.
async fn sentences(corpus: &[String], have_python: bool) -> anyhow::Result<()> {
    anyhow::ensure!(!corpus.is_empty(), "the review corpus is empty");
    let chars: usize = corpus.iter().map(|t| t.chars().count()).sum();
    let ours: Vec<Vec<String>> = corpus.iter().map(|t| split(t)).collect();
    let per_round: usize = ours.iter().map(Vec::len).sum();
    report::note(format!(
        "corpus: {} distinct review texts ({chars} characters) from the source plugins' recorded pages; \
         review-chunk finds {per_round} sentences in them",
        corpus.len()
    ));
    let rounds = rounds_for(Duration::from_secs(2), || {
        for t in corpus {
            std::hint::black_box(gleaner_text::segment::sentences(t));
        }
    });
    let native = report::samples(
        "review-chunk sentence mode, native (gleaner_text::segment), one pass over the corpus",
        &rounds,
        None,
    );
    let native_rate = per_round as f64 / native.median.as_secs_f64();
    report::row(Row {
        what: "review-chunk sentence mode, native: sentences/s".into(),
        value: Some(format!("{native_rate:.0} sentences/s")),
        ..Row::default()
    });
    let plugin_rate = plugin_sentences(corpus, per_round).await?;
    report::row(Row {
        what: "review-chunk sentence mode as a plugin (one call per review, instantiation included): sentences/s"
            .into(),
        value: Some(format!("{plugin_rate:.0} sentences/s")),
        ratio: Some(format!("{} native", times(plugin_rate / native_rate))),
        ..Row::default()
    });
    if !have_python {
        return Ok(());
    }
    let corpus_file = bench_dir().join("corpus.json");
    std::fs::create_dir_all(bench_dir())?;
    std::fs::write(&corpus_file, serde_json::to_vec(corpus)?)?;
    let answer = run_python(&[
        script("pysbd_segment.py").to_str().unwrap_or_default(),
        corpus_file.to_str().unwrap_or_default(),
        "5",
    ])?;
    let rounds: Vec<Duration> = answer["round_seconds"]
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(Value::as_f64)
                .map(Duration::from_secs_f64)
                .collect()
        })
        .unwrap_or_default();
    let theirs: Vec<Vec<String>> = serde_json::from_value(answer["sentences"].clone())?;
    let their_count: usize = theirs.iter().map(Vec::len).sum();
    let pysbd = report::samples(
        &format!(
            "pySBD {} (Python {}), one pass over the corpus",
            answer["pysbd"].as_str().unwrap_or("?"),
            answer["python"].as_str().unwrap_or("?")
        ),
        &rounds,
        None,
    );
    let pysbd_rate = their_count as f64 / pysbd.median.as_secs_f64().max(1e-12);
    report::row(Row {
        what: "pySBD: sentences/s".into(),
        value: Some(format!("{pysbd_rate:.0} sentences/s")),
        ratio: Some(format!(
            "review-chunk native {} faster; as a plugin {} faster",
            times(native_rate / pysbd_rate),
            times(plugin_rate / pysbd_rate)
        )),
        ..Row::default()
    });
    let same = ours.iter().zip(&theirs).filter(|(a, b)| a == b).count();
    report::note(format!(
        "pySBD finds {their_count} sentences; the two split {same} of {} texts identically",
        corpus.len()
    ));
    Ok(())
}

/// Runs `pass` until `at_least` has passed (and at least 5 times); the time of each pass.
fn rounds_for(at_least: Duration, mut pass: impl FnMut()) -> Vec<Duration> {
    pass();
    let started = Instant::now();
    let mut rounds = Vec::new();
    while rounds.len() < 5 || started.elapsed() < at_least {
        let t = Instant::now();
        pass();
        rounds.push(t.elapsed());
    }
    rounds
}

/// Sentences/s of review-chunk's `sentence` mode through the runtime, one call per review.
async fn plugin_sentences(corpus: &[String], per_round: usize) -> anyhow::Result<f64> {
    let app = crate::replay_app().await?;
    let runtime = app.state.runtime.clone();
    let plugin = app
        .state
        .registry
        .get("/features/review-chunk")
        .ok_or_else(|| anyhow::anyhow!("review-chunk not loaded (make plugins)"))?;
    let inputs: Vec<String> = corpus
        .iter()
        .map(|t| json!({"review_text": t, "widget_type": "sentence"}).to_string())
        .collect();
    let mut found = 0usize;
    let mut passes = Vec::new();
    let started = Instant::now();
    while passes.len() < 2 || started.elapsed() < Duration::from_secs(2) {
        let t = Instant::now();
        found = 0;
        for input in &inputs {
            let out = runtime
                .process(
                    &plugin,
                    "bench",
                    input,
                    Instant::now() + Duration::from_secs(10),
                )
                .await?
                .map_err(|e| anyhow::anyhow!("{e:?}"))?;
            let body: Value = serde_json::from_str(&out.body)?;
            found += body["review_chunck"].as_array().map_or(0, Vec::len);
        }
        passes.push(t.elapsed());
    }
    if found != per_round {
        report::note(format!(
            "the plugin found {found} sentences and the native build {per_round}: they differ"
        ));
    }
    let s = report::samples(
        "review-chunk sentence mode as a plugin, one pass over the corpus",
        &passes,
        None,
    );
    Ok(found as f64 / s.median.as_secs_f64().max(1e-12))
}

fn spawn_forum_site(port: u16, upstream: &Upstream, oauth: bool) -> ServerProcess {
    let base = upstream.base();
    let overrides = format!("forum-site:www.reddit.com={base},forum-site:oauth.reddit.com={base}");
    let mut env = vec![("GLEANER_UPSTREAM_OVERRIDE", overrides)];
    if oauth {
        env.push(("GLEANER_PLUGIN_FORUM_SITE_CLIENT_ID", "bench".into()));
        env.push(("GLEANER_PLUGIN_FORUM_SITE_CLIENT_SECRET", "bench".into()));
    }
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    crate::server::spawn_server_env(
        port,
        &root().join("target/gleaner-cache"),
        &crate::staged_plugins(),
        &env,
    )
}

/// Times forum-site fetches through a server; returns them with what the upstream saw.
async fn forum_site_series(
    upstream: &Upstream,
    oauth: bool,
) -> anyhow::Result<(Vec<Duration>, Vec<upstream::Seen>)> {
    let port = crate::server::free_port();
    let _server = spawn_forum_site(port, upstream, oauth);
    let client = reqwest::Client::builder().no_proxy().build()?;
    crate::server::wait_ready(&client, port).await;
    let url = format!("http://127.0.0.1:{port}/forum-site/post");
    let body = json!({ "query": POST_URL }).to_string();
    let fetch = || async {
        let r = client
            .post(&url)
            .header("content-type", "application/json")
            .body(body.clone())
            .send()
            .await?;
        let status = r.status();
        let text = r.text().await?;
        anyhow::ensure!(status.is_success(), "forum-site answered {status}: {text}");
        Ok(())
    };
    // The first fetch connects (and, with OAuth, takes the token, kept in the plugin's cache).
    fetch().await?;
    let mut samples = Vec::new();
    let mut seen = Vec::new();
    for _ in 0..FETCHES {
        upstream.clear();
        let t = Instant::now();
        fetch().await?;
        samples.push(t.elapsed());
        seen = upstream.seen();
    }
    Ok((samples, seen))
}

/// The requests as "`GET /path` at +0 ms, ..." from the first one's start.
fn describe(seen: &[upstream::Seen]) -> String {
    let Some(t0) = seen.first().map(|s| s.start) else {
        return "none".into();
    };
    let parts: Vec<String> = seen
        .iter()
        .map(|s| {
            format!(
                "`{}` at +{} ms",
                s.request,
                s.start.duration_since(t0).as_millis()
            )
        })
        .collect();
    parts.join(", ")
}

/// forum-site against PRAW, both against the local upstream with its delay.
async fn forum_posts(have_python: bool) -> anyhow::Result<()> {
    let samples_dir = root().join("plugins/forum-site/tests/samples");
    let upstream = Upstream::start(UPSTREAM_DELAY, upstream::reddit(&samples_dir)?).await?;
    report::note(format!(
        "forum posts: one local upstream adds {} ms to every request and answers with forum-site's recorded post, community and author",
        UPSTREAM_DELAY.as_millis()
    ));
    let mut ours = Vec::new();
    for (oauth, what) in [
        (
            false,
            "forum-site via gleaner, public JSON API (no credentials)",
        ),
        (
            true,
            "forum-site via gleaner, OAuth (token cached by the plugin)",
        ),
    ] {
        let (samples, seen) = forum_site_series(&upstream, oauth).await?;
        let s = Summary::of(&samples);
        let (requests, most) = (seen.len(), upstream::max_in_flight(&seen));
        report::row(Row {
            what: what.into(),
            n: Some(s.n),
            median: Some(duration(s.median)),
            p99: Some(duration(s.p99)),
            value: Some(format!(
                "{requests} upstream requests a fetch, at most {most} at once"
            )),
            ratio: None,
        });
        report::note(format!(
            "{what}, the requests of one fetch: {}",
            describe(&seen)
        ));
        ours.push(s.median);
    }
    if !have_python {
        return Ok(());
    }
    upstream.clear();
    let answer = run_python(&[
        script("praw_fetch.py").to_str().unwrap_or_default(),
        &upstream.base(),
        POST_ID,
        &FETCHES.to_string(),
    ])?;
    let seen = upstream.seen();
    let series = |key: &str| -> Vec<Duration> {
        answer[key]
            .as_array()
            .map(|a| {
                a.iter()
                    .filter_map(Value::as_f64)
                    .map(Duration::from_secs_f64)
                    .collect()
            })
            .unwrap_or_default()
    };
    let version = answer["praw"].as_str().unwrap_or("?").to_owned();
    let (public, oauth) = (ours[0], ours[1]);
    let cold = Summary::of(&series("new_client_per_fetch_s"));
    let warm = Summary::of(&series("one_client_s"));
    for (s, what, against, name) in [
        (
            cold,
            format!("PRAW {version}, a new client per fetch (token request included)"),
            public,
            "forum-site public",
        ),
        (
            warm,
            format!("PRAW {version}, one client (token taken once)"),
            oauth,
            "forum-site OAuth",
        ),
    ] {
        report::row(Row {
            what,
            n: Some(s.n),
            median: Some(duration(s.median)),
            p99: Some(duration(s.p99)),
            value: None,
            ratio: Some(format!(
                "{name} {} faster",
                times(s.median.as_secs_f64() / against.as_secs_f64().max(1e-12))
            )),
        });
    }
    let first: Vec<upstream::Seen> = seen.iter().take(4).cloned().collect();
    report::note(format!(
        "PRAW sent {} requests for its {} fetches, at most {} at once; a new client's fetch: {}",
        seen.len(),
        2 * FETCHES + 1,
        upstream::max_in_flight(&seen),
        describe(&first)
    ));
    Ok(())
}
