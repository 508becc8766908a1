//! The server's start: where it looks for plugins, and the settings and loads
//! it refuses, each in one line.

use serde_json::Value;

use super::gleaner;
use crate::common;

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
