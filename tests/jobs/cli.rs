//! The command line's job and schedule commands against a running server.

use serde_json::Value;

use crate::common;

use super::fixture::*;

/// Runs the `gleaner` binary against `s` with `args`; its exit status,
/// stdout and stderr.
async fn cli(s: &common::Server, args: &[&str]) -> (bool, String, String) {
    let mut command = std::process::Command::new(crate::common::server_binary());
    command
        .args(args)
        .env("GLEANER_SERVER", s.url(""))
        .env("GLEANER_API_KEY", KEY);
    let out = tokio::task::spawn_blocking(move || command.output().unwrap())
        .await
        .unwrap();
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_command_line_submits_follows_and_reads_jobs_and_schedules() {
    let site = Site::with(45);
    let s = keyed(&site).await;
    let (ok, out, err) = cli(&s, &["jobs", "submit", HUB, "--query", QUERY, "--wait"]).await;
    assert!(ok, "{out}\n{err}");
    let job: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(job["state"], "succeeded", "{out}");
    assert!(
        err.contains("succeeded: 45 reviews"),
        "the end is reported: {err}"
    );
    let id = job["job_id"].as_str().unwrap();

    let (ok, out, err) = cli(&s, &["jobs", "reviews", id, "--format", "jsonl"]).await;
    assert!(ok, "{err}");
    assert_eq!(common::jsonl_ids(&out), site.ids());
    let (ok, out, _) = cli(&s, &["jobs", "reviews", id, "--format", "csv"]).await;
    assert!(ok);
    let mut rows = csv::Reader::from_reader(out.as_bytes());
    assert_eq!(rows.records().count(), 45);
    let (ok, out, _) = cli(&s, &["jobs", "list", "--state", "succeeded"]).await;
    assert!(ok);
    assert!(out.contains(id), "{out}");
    let (ok, _, err) = cli(&s, &["jobs", "status", "no-such-job"]).await;
    assert!(!ok);
    assert!(err.contains("404") || err.contains("no job"), "{err}");

    let (ok, out, err) = cli(
        &s,
        &["schedules", "add", HUB, "--query", QUERY, "--every", "1d"],
    )
    .await;
    assert!(ok, "{err}");
    let schedule: Value = serde_json::from_str(&out).unwrap();
    let sid = schedule["schedule_id"].as_str().unwrap();
    site.add_newer(2);
    let (ok, out, err) = cli(&s, &["schedules", "run", sid, "--wait"]).await;
    assert!(ok, "{out}\n{err}");
    let run: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        run["reviews_collected"], 47,
        "the first run delivers everything: {run}"
    );
    let (ok, out, _) = cli(&s, &["schedules", "list"]).await;
    assert!(ok && out.contains(sid), "{out}");
    let (ok, _, err) = cli(&s, &["schedules", "remove", sid]).await;
    assert!(ok, "{err}");
    let (_, out, _) = cli(&s, &["schedules", "list"]).await;
    assert!(!out.contains(sid), "{out}");
}
