//! The command-line tools: `gleaner plugin check`, `gleaner fetch`, `gleaner
//! doctor` and the server's own flags, run as the built binary (`fetch` and
//! the server's start in their own files).

use crate::common;

use std::process::Command;

mod fetch;
mod serve;

pub(super) fn gleaner() -> Command {
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
