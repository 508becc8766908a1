//! The command-line tools: `gleaner plugin check`, `gleaner fetch`, `gleaner
//! doctor` and the server's own flags, run as the built binary.

use crate::common;

use std::process::Command;

use serde_json::Value;

fn gleaner() -> Command {
    let mut c = Command::new(crate::common::server_binary());
    c.current_dir(common::root())
        .env(
            "GLEANER_CACHE_DIR",
            common::root().join("target/gleaner-test-cache"),
        )
        .env_remove("GLEANER_REPLAY")
        .env_remove("GLEANER_CONFIG");
    c
}

#[test]
fn plugin_check_reports_valid_and_broken_plugins() {
    let out = gleaner()
        .args(["plugin", "check", "target/plugins/review-chunk.toml"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("ok         world `processor`"), "{stdout}");

    let out = gleaner()
        .args(["plugin", "check", "target/plugins/review-chunk.wasm"])
        .output()
        .unwrap();
    assert!(out.status.success(), "a component path finds its manifest");

    let dir = common::plugin_dir(&["review-chunk"]);
    let manifest = dir.path().join("review-chunk.toml");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("version = \"0.1.0\"", "version = \"0.2.0\"");
    std::fs::write(&manifest, text).unwrap();
    let out = gleaner()
        .args(["plugin", "check"])
        .arg(&manifest)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(1));
    assert!(
        stdout.contains("problem")
            && stdout.contains(
                "the component reports review-chunk 0.1.0 but its manifest says review-chunk 0.2.0"
            ),
        "{stdout}"
    );

    std::fs::write(&manifest, "name = \"x\"\nkind = \"source\"\n").unwrap();
    let out = gleaner()
        .args(["plugin", "check"])
        .arg(&manifest)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stdout).contains("missing field `route`"));
}

#[test]
fn fetch_writes_reviews_as_json_lines_or_csv() {
    let fetch = |format: &str| {
        let out = gleaner()
            .args([
                "fetch",
                "customer-feedback-hub",
                "https://www.trustpilot.com/review/www.bhphotovideo.com",
                "--max",
                "25",
                "--format",
                format,
            ])
            .args(["--replay", "plugins/customer-feedback-hub/tests"])
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        (out.stdout, stderr)
    };
    let (jsonl, stderr) = fetch("jsonl");
    let reviews: Vec<Value> = String::from_utf8(jsonl)
        .unwrap()
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    assert_eq!(reviews.len(), 25);
    assert!(reviews.iter().all(|r| r["review_id"].is_string()));
    assert!(stderr.contains("Fetched 25 reviews"), "{stderr}");
    assert!(
        stderr.contains("run again with --pagination-token "),
        "{stderr}"
    );

    let (csv, _) = fetch("csv");
    let mut reader = csv::Reader::from_reader(csv.as_slice());
    let headers = reader.headers().unwrap().clone();
    assert_eq!(&headers[0], "review_id");
    assert!(headers.iter().any(|h| h == "review_text"));
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 25);
    for (row, review) in rows.iter().zip(&reviews) {
        assert_eq!(&row[0], review["review_id"].as_str().unwrap());
        assert_eq!(&row[2], review["review_text"].as_str().unwrap_or(""));
    }

    let out = gleaner()
        .args(["fetch", "customer-feedback-hub", "x", "--format", "xml"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("json") && stderr.contains("jsonl") && stderr.contains("csv"),
        "an unknown format names the accepted ones: {stderr}"
    );
}

#[test]
fn completions_and_help_cover_every_subcommand() {
    let out = gleaner().args(["completions", "bash"]).output().unwrap();
    assert!(out.status.success());
    let script = String::from_utf8_lossy(&out.stdout);
    for sub in [
        "serve",
        "fetch",
        "plugin",
        "doctor",
        "precompile",
        "har",
        "completions",
        "demo",
    ] {
        assert!(script.contains(sub), "bash completion lacks {sub}");
    }
    assert!(
        script.contains("--format"),
        "completion knows fetch's flags"
    );
    for args in [
        vec!["--help"],
        vec!["serve", "--help"],
        vec!["fetch", "--help"],
        vec!["fetch", "customer-feedback-hub", "--help"],
        vec!["demo", "--help"],
        vec!["plugin", "check", "--help"],
        vec!["doctor", "--help"],
        vec!["precompile", "--help"],
        vec!["har", "--help"],
        vec!["completions", "--help"],
    ] {
        let out = gleaner().args(&args).output().unwrap();
        assert!(out.status.success(), "{args:?}");
        let help = String::from_utf8_lossy(&out.stdout);
        assert!(help.contains("Usage:"), "{args:?}: {help}");
        // Every argument and option in the help has its description, on its
        // line or (clap's long layout) on the next.
        let lines: Vec<&str> = help.lines().collect();
        for (i, line) in lines.iter().enumerate() {
            let arg = line.trim_start();
            // Options and positionals; "- value: ..." lines list a value's meaning.
            let is_arg = (arg.starts_with('-') && !arg.starts_with("- ")) || arg.starts_with('<');
            if !is_arg {
                continue;
            }
            let inline = arg.split("  ").filter(|w| !w.trim().is_empty()).count() >= 2;
            let below = lines
                .get(i + 1)
                .map(|l| l.trim())
                .is_some_and(|l| !l.is_empty() && !l.starts_with('-') && !l.starts_with('<'));
            assert!(inline || below, "{args:?}: undescribed argument: {line}");
        }
    }
}

#[test]
fn fetch_runs_a_source_locally_from_a_replay() {
    let out = gleaner()
        .args([
            "fetch",
            "customer-feedback-hub",
            "https://www.trustpilot.com/review/www.bhphotovideo.com",
            "--max",
            "25",
        ])
        .args(["--replay", "plugins/customer-feedback-hub/tests"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["all_reviews"].as_array().unwrap().len(), 25);
    assert!(body["next_page"].is_string());
    assert!(
        stderr.contains("Fetched 25 reviews from 2 pages"),
        "{stderr}"
    );

    let out = gleaner()
        .args([
            "fetch",
            "customer-feedback-hub",
            "https://www.trustpilot.com/review/www.bhphotovideo.com",
            "--filter",
            "5",
        ])
        .args([
            "--replay",
            "plugins/customer-feedback-hub/tests/customer-feedback-hub.har",
        ])
        .output()
        .unwrap();
    assert!(out.status.success());
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert!(body["all_reviews"]
        .as_array()
        .unwrap()
        .iter()
        .all(|r| r["review_rating"] == 5.0));

    let out = gleaner()
        .args(["fetch", "no-such-source", "x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("no review source labelled \"no-such-source\"")
            && stderr.contains("customer-feedback-hub (POST /customer-feedback-hub/reviews)"),
        "{stderr}"
    );

    let out = gleaner()
        .args([
            "fetch",
            "customer-feedback-hub",
            "x",
            "--record",
            "a.har",
            "--replay",
            "b.har",
        ])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("cannot be used with"));
}

#[tokio::test]
async fn fetch_records_what_it_fetched() {
    let page = r#"<html><script id="__NEXT_DATA__" type="application/json">{"props":{"pageProps":{"businessUnit":{"displayName":"Shop"},"reviews":[{"id":"a1","text":"Fine.","rating":4,"dates":{"publishedDate":"2024-01-02T00:00:00.000Z"},"consumer":{"displayName":"Al"}}],"filters":{"pagination":{"totalPages":1}}}}}</script></html>"#;
    let router = axum::Router::new().route(
        "/review/{d}",
        axum::routing::get(move || async move { page }),
    );
    let addr = common::upstream(router).await;
    let dir = tempfile::tempdir().unwrap();
    let har = dir.path().join("rec.har");
    let har_arg = har.clone();
    let out = tokio::task::spawn_blocking(move || {
        gleaner()
            .args([
                "fetch",
                "customer-feedback-hub",
                "https://www.trustpilot.com/review/shop.example",
                "--record",
            ])
            .arg(&har_arg)
            .env(
                "GLEANER_UPSTREAM_OVERRIDE",
                format!("www.trustpilot.com=http://{addr}"),
            )
            .output()
            .unwrap()
    })
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let recorded: Value = serde_json::from_str(&std::fs::read_to_string(&har).unwrap()).unwrap();
    assert_eq!(
        recorded["log"]["entries"][0]["request"]["url"],
        "https://www.trustpilot.com/review/shop.example?languages=all&sort=recency"
    );
    let out = gleaner()
        .args([
            "fetch",
            "customer-feedback-hub",
            "https://www.trustpilot.com/review/shop.example",
            "--replay",
        ])
        .arg(&har)
        .output()
        .unwrap();
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        body["all_reviews"][0]["review_id"], "a1",
        "the recording replays"
    );
}

#[test]
fn fetch_honours_the_replay_variable_and_subcommands_take_only_their_flags() {
    let out = gleaner()
        .env("GLEANER_REPLAY", "plugins/customer-feedback-hub/tests")
        .args([
            "fetch",
            "customer-feedback-hub",
            "https://www.trustpilot.com/review/www.bhphotovideo.com",
            "--max",
            "3",
        ])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "GLEANER_REPLAY is used: {stderr}");
    let body: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(body["all_reviews"].as_array().unwrap().len(), 3);

    let out = gleaner().args(["serve", "--max", "3"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2), "serve takes no fetch flags");
    assert!(String::from_utf8_lossy(&out.stderr).contains("unexpected argument '--max'"));
}

#[test]
fn har_rebuilds_every_committed_fixture_exactly() {
    let out_dir = tempfile::tempdir().unwrap();
    // Every plugin's `tests/samples/index.toml` builds its `tests/<plugin>.har`.
    let mut fixtures = vec![(
        "tests/fixtures/sites/index.toml".to_owned(),
        "tests/fixtures/har/sites.har".to_owned(),
    )];
    let mut plugins: Vec<_> = std::fs::read_dir(common::root().join("plugins"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    plugins.sort();
    for p in plugins {
        let index = format!("plugins/{p}/tests/samples/index.toml");
        if common::root().join(&index).exists() {
            fixtures.push((index, format!("plugins/{p}/tests/{p}.har")));
        }
    }
    assert!(
        fixtures.len() >= 3,
        "the plugins' sample indexes were found"
    );
    for (index, committed) in &fixtures {
        let out = out_dir.path().join("rebuilt.har");
        let run = gleaner().args(["har", index]).arg(&out).output().unwrap();
        assert!(
            run.status.success(),
            "{}",
            String::from_utf8_lossy(&run.stderr)
        );
        assert_eq!(
            std::fs::read(&out).unwrap(),
            std::fs::read(common::root().join(committed)).unwrap(),
            "{committed} is what `gleaner har {index}` writes; rebuild it after changing samples"
        );
    }
    let bad = out_dir.path().join("index.toml");
    std::fs::write(
        &bad,
        "[[exchange]]\nurl = \"https://x/\"\nbody_file = \"missing.html\"\n",
    )
    .unwrap();
    let run = gleaner()
        .args(["har"])
        .arg(&bad)
        .arg(out_dir.path().join("x.har"))
        .output()
        .unwrap();
    assert_eq!(run.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&run.stderr).contains("cannot read body_file missing.html"));
}

/// `gleaner doctor` on replayed traffic: a healthy source, and one behind a
/// Cloudflare challenge built from the wall classifier's fixture.
#[test]
fn doctor_reports_what_was_seen() {
    let healthy = gleaner()
        .args(["doctor", "customer-feedback-hub", "--replay"])
        .arg("plugins/customer-feedback-hub/tests")
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&healthy.stdout);
    assert_eq!(healthy.status.code(), Some(0), "{report}");
    assert!(report.contains("answer: 200, 20 reviews"), "{report}");
    assert!(report.contains("wall: none seen"), "{report}");
    assert!(
        report.contains("every field the fixture has came back"),
        "{report}"
    );

    let dir = tempfile::tempdir().unwrap();
    let page = common::root().join("crates/botwall/tests/fixtures/cloudflare-challenge.html");
    std::fs::copy(&page, dir.path().join("challenge.html")).unwrap();
    std::fs::write(
        dir.path().join("index.toml"),
        "[[exchange]]\nurl = \"https://www.trustpilot.com/review/walled.example?languages=all&sort=recency\"\n\
         status = 403\ncontent_type = \"text/html\"\nheaders = { \"cf-mitigated\" = \"challenge\" }\nbody_file = \"challenge.html\"\n",
    )
    .unwrap();
    let har = dir.path().join("walled.har");
    let built = gleaner()
        .arg("har")
        .arg(dir.path().join("index.toml"))
        .arg(&har)
        .output()
        .unwrap();
    assert!(
        built.status.success(),
        "{}",
        String::from_utf8_lossy(&built.stderr)
    );
    let walled = gleaner()
        .args([
            "doctor",
            "customer-feedback-hub",
            "https://www.trustpilot.com/review/walled.example",
            "--replay",
        ])
        .arg(&har)
        .output()
        .unwrap();
    let report = String::from_utf8_lossy(&walled.stdout);
    assert_eq!(walled.status.code(), Some(1), "{report}");
    assert!(
        report.contains("HTTP 403") && report.contains("(cloudflare)"),
        "{report}"
    );
    assert!(report.contains("wall: Cloudflare"), "{report}");
    assert!(report.contains("answer: 502"), "{report}");
}

const BH: &str = "https://www.trustpilot.com/review/www.bhphotovideo.com";

/// `gleaner fetch customer-feedback-hub <BH>` with `args`, replayed: exit
/// status, stdout and stderr.
fn fetch_bh(args: &[&str]) -> (bool, Vec<u8>, String) {
    let out = gleaner()
        .args(["fetch", "customer-feedback-hub", BH])
        .args(args)
        .args(["--replay", "plugins/customer-feedback-hub/tests"])
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    (out.status.success(), out.stdout, stderr)
}

fn ids_of(jsonl: &[u8]) -> Vec<String> {
    common::jsonl_ids(&String::from_utf8_lossy(jsonl))
}

#[test]
fn fetch_takes_every_request_field_as_a_flag_and_follows_the_continuation() {
    // The source's own fields come from its manifest, named as in the API.
    let out = gleaner()
        .args(["fetch", "customer-feedback-hub", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for flag in [
        "--sort-type",
        "--filter-by",
        "--pagination-token",
        "--sync-date",
        "--is-text-formatted",
        "--all",
    ] {
        assert!(help.contains(flag), "{flag} in: {help}");
    }
    assert!(help.contains("recency, relevance"), "{help}");

    // A token sent back by its flag gives the rest, no gap, no duplicate.
    let (ok, first, stderr) = fetch_bh(&["--max", "25", "--format", "jsonl"]);
    assert!(ok, "{stderr}");
    let token = stderr
        .split("run again with --pagination-token ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap_or_else(|| panic!("the token is printed: {stderr}"))
        .to_owned();
    let (ok, rest, stderr) = fetch_bh(&["--pagination-token", &token, "--format", "jsonl"]);
    assert!(ok, "{stderr}");
    let mut paged = ids_of(&first);
    paged.extend(ids_of(&rest));

    // --all follows it by itself, with progress on stderr, to the same reviews.
    let (ok, all, stderr) = fetch_bh(&["--max", "25", "--all", "--format", "jsonl"]);
    assert!(ok, "{stderr}");
    assert_eq!(ids_of(&all), paged);
    assert_eq!(paged.len(), 60, "every review of the fixture");
    let distinct: std::collections::BTreeSet<_> = paged.iter().collect();
    assert_eq!(distinct.len(), 60);
    assert!(stderr.contains("Fetched 25 reviews"), "{stderr}");

    // Typed flags: a filter given by its own flag, the sort by its own.
    let (ok, out, stderr) = fetch_bh(&["--filter-by", "5", "--sort-type", "recency"]);
    assert!(ok, "{stderr}");
    let body: Value = serde_json::from_slice(&out).unwrap();
    let reviews = body["all_reviews"].as_array().unwrap();
    assert!(!reviews.is_empty() && reviews.iter().all(|r| r["review_rating"] == 5.0));
    let (ok, _, stderr) = fetch_bh(&["--sort-type", "sideways"]);
    assert!(!ok);
    assert!(
        stderr.contains("sort_type") && stderr.contains("relevance"),
        "{stderr}"
    );
}

#[test]
fn fetch_on_a_processor_lists_the_sources_by_name_and_route() {
    let out = gleaner()
        .args(["fetch", "review-chunk", "x"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("review-chunk is a processor (POST /features/review-chunk)"),
        "{stderr}"
    );
    assert!(
        stderr.contains("customer-feedback-hub (POST /customer-feedback-hub/reviews)"),
        "{stderr}"
    );
    assert!(!stderr.contains("features, features"), "{stderr}");
}

#[test]
fn doctor_takes_the_forum_post_s_query_from_its_replay_cases() {
    let out = gleaner()
        .args([
            "doctor",
            "forum-site",
            "--replay",
            "plugins/forum-site/tests",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stdout}{stderr}");
    assert!(
        stdout.contains("doctor forum-site https://www.reddit.com/"),
        "{stdout}"
    );
    assert!(stdout.contains("answer: 200"), "{stdout}");
    // Settings the recordings need (test credentials) come from the fixture.
    let out = gleaner()
        .args([
            "doctor",
            "venue-guide",
            "--replay",
            "plugins/venue-guide/tests",
        ])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("answer: 200"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn serve_says_plainly_when_it_finds_no_plugins_and_refuses_a_budget_it_cannot_keep() {
    let empty = tempfile::tempdir().unwrap();
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let mut child = gleaner()
        .args([
            "serve",
            "--addr",
            &format!("127.0.0.1:{port}"),
            "--plugin-dir",
        ])
        .arg(empty.path())
        .env("GLEANER_DATA_DIR", empty.path().join("data"))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            started.elapsed() < std::time::Duration::from_secs(20),
            "never listened"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("no plugins found"), "{stderr}");
    assert!(
        stderr.contains(&empty.path().display().to_string()),
        "{stderr}"
    );
    assert!(stderr.contains("make plugins"), "{stderr}");

    let out = gleaner()
        .args(["serve", "--fetch-budget-ms", "5"])
        .output()
        .unwrap();
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("fetch_budget_ms") && stderr.contains("at least 1000 ms"),
        "{stderr}"
    );

    let out = gleaner().args(["serve", "--help"]).output().unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    for variable in [
        "GLEANER_ADDR",
        "GLEANER_PLUGIN_DIR",
        "GLEANER_API_KEYS",
        "GLEANER_FETCH_BUDGET_MS",
    ] {
        assert!(help.contains(variable), "{variable} in: {help}");
    }
}

/// Run from another folder, the binary finds the plugins staged beside it;
/// `fetch <label> --help` lists the source's own flags there, and for a
/// label no plugin has, says why it lists none and where it looked.
#[test]
fn the_cli_finds_the_plugins_from_any_folder_and_says_where_it_looked() {
    let elsewhere = tempfile::tempdir().unwrap();
    let run = |args: &[&str]| {
        let out = gleaner()
            .current_dir(elsewhere.path())
            .env_remove("GLEANER_PLUGIN_DIR")
            .args(args)
            .output()
            .unwrap();
        (
            out.status.success(),
            String::from_utf8_lossy(&out.stdout).into_owned(),
        )
    };
    let (ok, openapi) = run(&["openapi"]);
    assert!(ok, "{openapi}");
    assert!(
        openapi.contains("/customer-feedback-hub/reviews"),
        "the staged plugins' routes are in the document"
    );
    let (ok, help) = run(&["fetch", "customer-feedback-hub", "--help"]);
    assert!(ok, "{help}");
    assert!(help.contains("--sort-type"), "{help}");
    let (ok, help) = run(&["fetch", "no-such-source", "--help"]);
    assert!(ok, "{help}");
    assert!(
        help.contains("are not listed as flags")
            && help.contains("no review source labelled \"no-such-source\"")
            && help.contains("customer-feedback-hub"),
        "{help}"
    );
    let empty = tempfile::tempdir().unwrap();
    let out = gleaner()
        .current_dir(elsewhere.path())
        .env("GLEANER_PLUGIN_DIR", empty.path())
        .args(["fetch", "customer-feedback-hub", "--help"])
        .output()
        .unwrap();
    let help = String::from_utf8_lossy(&out.stdout);
    assert!(
        help.contains("are not listed as flags")
            && help.contains(&format!("looked in {}", empty.path().display()))
            && help.contains("GLEANER_PLUGIN_DIR"),
        "{help}"
    );
}

/// A log setting the server cannot use is refused at start, in one line that
/// names the variable and the accepted values.
#[test]
fn an_unusable_log_setting_is_refused_at_start_in_one_line() {
    for (name, value, accepted) in [
        ("GLEANER_LOG_FORMAT", "yaml", "`json`"),
        ("GLEANER_LOG", "info,gleaner=loud", "`debug`"),
    ] {
        let out = gleaner()
            .args(["serve", "--addr", "127.0.0.1:0"])
            .env(name, value)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{name}={value} started: {stderr}");
        assert_eq!(stderr.trim().lines().count(), 1, "{stderr}");
        assert!(
            stderr.contains(&format!("{name}=")) && stderr.contains(accepted),
            "{stderr}"
        );
    }
}

/// A plugin setting its plugin does not declare, in the file or the
/// environment, is refused at start in one line naming the accepted keys.
#[test]
fn an_undeclared_plugin_setting_is_refused_at_start_in_one_line() {
    let dir = common::plugin_dir(&["forum-site"]);
    let config = dir.path().join("gleaner.toml");
    std::fs::write(&config, "[plugins.forum-site]\nclient_ld = \"x\"\n").unwrap();
    let serve = |env: (&str, &str)| {
        gleaner()
            .args(["serve", "--addr", "127.0.0.1:0"])
            .env("GLEANER_PLUGIN_DIR", dir.path())
            .env("GLEANER_DATA_DIR", dir.path().join("data"))
            // Start-up notes at info level depend on the machine (whether
            // Chromium is installed); the refusal is what is counted.
            .env("GLEANER_LOG", "warn")
            .env(env.0, env.1)
            .output()
            .unwrap()
    };
    for (env, named) in [
        (
            ("GLEANER_CONFIG", config.to_str().unwrap()),
            "[plugins.forum-site] client_ld",
        ),
        (
            ("GLEANER_PLUGIN_FORUM_SITE_CLIENT_SECRT", "s"),
            "GLEANER_PLUGIN_FORUM_SITE_CLIENT_SECRT",
        ),
    ] {
        let out = serve(env);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{env:?} started: {stderr}");
        let lines: Vec<&str> = stderr.trim().lines().collect();
        assert_eq!(lines.len(), 1, "{stderr}");
        assert!(lines[0].contains(named), "{stderr}");
        assert!(
            lines[0].contains("it accepts `client_id`, `client_secret`")
                || lines[0].contains("it accepts `GLEANER_PLUGIN_FORUM_SITE_CLIENT_ID`"),
            "{stderr}"
        );
    }
}

/// With no plugin serving, `/healthz` answers 503 `no plugins`; in JSON mode
/// every line is JSON, and a plugin that fails to load is one log event.
#[test]
fn a_failed_load_is_one_json_event_and_health_says_no_plugins() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("broken.toml"),
        "name = \"broken\"\nkind = \"processor\"\nroute = \"/broken\"\nversion = \"0.1.0\"\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("broken.wasm"), b"not a component").unwrap();
    let port = common::free_port();
    let mut child = gleaner()
        .args(["serve", "--addr", &format!("127.0.0.1:{port}")])
        .env("GLEANER_PLUGIN_DIR", dir.path())
        .env("GLEANER_DATA_DIR", dir.path().join("data"))
        .env("GLEANER_LOG_FORMAT", "json")
        .env("GLEANER_LOG", "info")
        .stderr(std::process::Stdio::piped())
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let (code, health) = loop {
        assert!(
            started.elapsed().as_secs() < 60,
            "the server never answered"
        );
        if let Some(answer) = get_healthz(port) {
            break answer;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    };
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    assert_eq!(code, 503, "{health}");
    assert_eq!(health["status"], "no plugins", "{health}");
    assert_eq!(health["failed"], serde_json::json!(["broken"]), "{health}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    let events: Vec<Value> = stderr
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("not JSON ({e}): {l}")))
        .collect();
    let about_broken: Vec<&Value> = events
        .iter()
        .filter(|e| e.to_string().contains("broken"))
        .collect();
    assert_eq!(about_broken.len(), 1, "{stderr}");
    assert_eq!(about_broken[0]["level"], "ERROR", "{stderr}");
}

/// `GET /healthz` over a plain connection: the status and the JSON body, or
/// none while nothing listens.
fn get_healthz(port: u16) -> Option<(u16, Value)> {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(("127.0.0.1", port)).ok()?;
    stream
        .write_all(b"GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .ok()?;
    let mut text = String::new();
    stream.read_to_string(&mut text).ok()?;
    let code = text.split(' ').nth(1)?.parse().ok()?;
    let body = text.split_once("\r\n\r\n")?.1;
    Some((code, serde_json::from_str(body).ok()?))
}

/// `gleaner plugin new` writes a standalone crate against this checkout's
/// SDK, refuses a folder in use, and `plugin build` says what a plugin crate
/// needs. (`make template-check` builds such crates and swaps them into a
/// running server.)
#[test]
fn plugin_new_writes_a_standalone_crate_and_build_names_what_is_missing() {
    let dir = tempfile::tempdir().unwrap();
    let crate_dir = dir.path().join("my-processor");
    let out = gleaner()
        .args([
            "plugin",
            "new",
            "my-processor",
            "--kind",
            "processor",
            "--dir",
        ])
        .arg(&crate_dir)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let cargo = std::fs::read_to_string(crate_dir.join("Cargo.toml")).unwrap();
    let parsed: toml::Table = toml::from_str(&cargo).unwrap();
    assert!(parsed.contains_key("workspace"), "{cargo}");
    let sdk = parsed["dependencies"]["gleaner-sdk"]["path"]
        .as_str()
        .unwrap();
    assert_eq!(
        std::path::Path::new(sdk),
        common::root().join("plugins/sdk"),
        "{cargo}"
    );
    let manifest = std::fs::read_to_string(crate_dir.join("manifest.toml")).unwrap();
    assert!(manifest.contains("name = \"my-processor\""), "{manifest}");
    assert!(crate_dir.join("src/lib.rs").is_file());
    assert!(crate_dir.join("tests/replay.toml").is_file());

    let again = gleaner()
        .args(["plugin", "new", "my-processor", "--dir"])
        .arg(&crate_dir)
        .output()
        .unwrap();
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("choose another --dir"));

    let build = gleaner()
        .args(["plugin", "build"])
        .arg(dir.path())
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&build.stderr);
    assert!(!build.status.success());
    assert!(
        stderr.contains("is not a plugin crate") && stderr.contains("gleaner plugin new"),
        "{stderr}"
    );
}
