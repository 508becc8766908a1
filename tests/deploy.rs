//! The container image and deployment examples (`Dockerfile`, `deploy/`)
//! against the server they deploy: every `GLEANER_*` variable they name is one
//! the server reads, the example configuration is one the server accepts and
//! the ConfigMap holds that same file, the YAML parses and agrees with itself
//! and the Dockerfile (`deploy/check.py`), the image's health check reads a
//! real server's `/healthz`, and `make image` says so when no Docker daemon
//! answers. python3 (with PyYAML) and bash are expected here: without them
//! those tests fail saying what to install. The `make image` test needs the
//! docker command, so it is `#[ignore]`d (`make test` installs nothing);
//! `cargo test --test tests -- --ignored deploy::` runs it where Docker is.

use crate::common;

use std::path::PathBuf;
use std::process::{Command, Output};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use gleaner::config::Config;
use gleaner::runtime::CompileHook;

/// The files that configure a deployed server.
fn deploy_files() -> Vec<PathBuf> {
    let root = common::root();
    let mut files = vec![
        root.join("Dockerfile"),
        root.join("deploy/compose.yaml"),
        root.join("deploy/compose.cluster.yaml"),
        root.join("deploy/gleaner.toml"),
        root.join("deploy/healthcheck.sh"),
    ];
    let kubernetes = root.join("deploy/kubernetes");
    let mut manifests: Vec<PathBuf> = [kubernetes.clone(), kubernetes.join("cluster")]
        .iter()
        .flat_map(|dir| std::fs::read_dir(dir).unwrap())
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file())
        .collect();
    manifests.sort();
    files.extend(manifests);
    files
}

#[test]
fn every_variable_the_deployment_sets_is_one_the_server_reads() {
    // The declaration every setting has (its variable, its TOML key, what it does).
    let known: std::collections::BTreeSet<String> = gleaner::config::settings::variables()
        .map(str::to_owned)
        .collect();
    for name in [
        "GLEANER_ADDR",
        "GLEANER_API_KEYS",
        "GLEANER_CONFIG",
        "GLEANER_LOG",
    ] {
        assert!(known.contains(name), "{name} not found among {known:?}");
    }
    let mut named = 0;
    for file in deploy_files() {
        let text = std::fs::read_to_string(&file).unwrap();
        for name in common::variable_names(&text) {
            named += 1;
            assert!(
                known.contains(&name),
                "{} names {name}, which the server does not read; it reads {known:?}",
                file.display()
            );
        }
    }
    assert!(named >= 20, "only {named} variable names found");
}

/// The text of the block scalar `key: |` in a YAML file, with its indentation removed.
fn block_scalar(yaml: &str, key: &str) -> Option<String> {
    let mut lines = yaml.lines().skip_while(|l| l.trim() != format!("{key}: |"));
    let header = lines.next()?;
    let outer = header.len() - header.trim_start().len();
    let body: Vec<&str> = lines
        .take_while(|l| l.trim().is_empty() || l.len() - l.trim_start().len() > outer)
        .collect();
    let indent = body
        .iter()
        .filter(|l| !l.trim().is_empty())
        .map(|l| l.len() - l.trim_start().len())
        .min()?;
    let mut text: String = body
        .iter()
        .map(|l| format!("{}\n", l.get(indent..).unwrap_or("")))
        .collect();
    while text.ends_with("\n\n") {
        text.pop();
    }
    Some(text)
}

#[test]
fn the_example_configuration_is_accepted_and_the_configmap_holds_it() {
    let path = common::root().join("deploy/gleaner.toml");
    // Unknown settings are refused by the server: a renamed one fails here.
    let config = Config::from_file(&path).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        config.max_total_memory_mib < 1024,
        "the plugin memory cap must stay below the 1 GiB container limit"
    );
    let file = std::fs::read_to_string(&path).unwrap();
    let configmap =
        std::fs::read_to_string(common::root().join("deploy/kubernetes/configmap.yaml")).unwrap();
    let held = block_scalar(&configmap, "gleaner.toml").expect("configmap.yaml has gleaner.toml");
    assert_eq!(
        held, file,
        "deploy/kubernetes/configmap.yaml must hold deploy/gleaner.toml as it is"
    );
}

#[test]
fn the_image_builds_with_the_workspace_toolchain_or_newer() {
    let version = |text: &str, prefix: &str| -> Vec<u32> {
        let line = text
            .lines()
            .find(|l| l.starts_with(prefix))
            .unwrap_or_else(|| panic!("no line starting {prefix}"));
        line[prefix.len()..]
            .trim_matches(|c: char| c == '"' || c.is_whitespace())
            .split('.')
            .map(|n| n.parse().unwrap())
            .collect()
    };
    let workspace = std::fs::read_to_string(common::root().join("Cargo.toml")).unwrap();
    let dockerfile = std::fs::read_to_string(common::root().join("Dockerfile")).unwrap();
    let needed = version(&workspace, "rust-version = ");
    let image = version(&dockerfile, "ARG RUST_VERSION=");
    assert!(
        image >= needed,
        "the Dockerfile builds with Rust {image:?}, the workspace needs {needed:?}"
    );
    assert!(dockerfile.contains("make CARGO=\"cargo --locked\" plugins host"));
    let ignored = std::fs::read_to_string(common::root().join(".dockerignore")).unwrap();
    for entry in ["target/", ".git/"] {
        assert!(
            ignored.lines().any(|l| l == entry),
            ".dockerignore lacks {entry}"
        );
    }
}

/// Whether a command runs here at all.
fn available(program: &str, arg: &str) -> bool {
    Command::new(program)
        .arg(arg)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn the_deployment_yaml_parses_and_agrees_with_itself() {
    assert!(
        available("python3", "--version"),
        "python3 is not installed, so deploy/check.py cannot run: install Debian's python3"
    );
    let out = Command::new("python3")
        .arg(common::root().join("deploy/check.py"))
        .env("PYTHONDONTWRITEBYTECODE", "1")
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_ne!(
        out.status.code(),
        Some(3),
        "deploy/check.py cannot run here (install Debian's python3-yaml): {stderr}"
    );
    assert!(out.status.success(), "{stderr}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("deploy files consistent"));
}

/// Serves `config` on a loopback port until the sender is used or dropped;
/// the address.
async fn serving(config: gleaner::config::Config) -> (String, tokio::sync::oneshot::Sender<()>) {
    let app = gleaner::App::start(config).await.unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(async move {
        app.serve(listener, async {
            let _ = stopped.await;
        })
        .await
        .unwrap();
    });
    (addr, stop)
}

/// Asserts that the health check script counts the server at `addr` alive.
async fn assert_alive(addr: &str) {
    let alive = healthcheck(addr, false).await;
    assert!(
        alive.status.success(),
        "{}",
        String::from_utf8_lossy(&alive.stderr)
    );
}

/// Runs the image's health check script against `addr`.
async fn healthcheck(addr: &str, ready: bool) -> Output {
    let mut command = tokio::process::Command::new("bash");
    command
        .arg(common::root().join("deploy/healthcheck.sh"))
        .env("GLEANER_ADDR", addr);
    if ready {
        command.arg("--ready");
    }
    command.output().await.unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_health_check_is_ready_once_no_plugin_is_loading() {
    assert!(
        available("bash", "--version"),
        "bash is not installed, so deploy/healthcheck.sh cannot run: install Debian's bash"
    );
    // review-chunk comes without its artifact and with an empty compile cache,
    // so it compiles; the compile waits until the test lets it go.
    let dir = common::plugin_dir(&["review-chunk"]);
    let cache = tempfile::tempdir().unwrap();
    let mut config = common::config(&dir);
    config.cache_dir = Some(cache.path().to_owned());
    config.watch = false;
    let (release, gate) = std::sync::mpsc::channel::<()>();
    let gate = Mutex::new(gate);
    config.compile_hook = Some(CompileHook::new(move |_| {
        let _ = gate.lock().unwrap().recv();
    }));
    let (addr, stop) = serving(config).await;
    assert_alive(&addr).await;
    let loading = healthcheck(&addr, true).await;
    assert_eq!(loading.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&loading.stderr);
    assert!(
        stderr.contains("not ready: plugins are still loading") && stderr.contains("review-chunk"),
        "{stderr}"
    );

    drop(release);
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let ready = healthcheck(&addr, true).await;
        if ready.status.success() {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "never ready: {}",
            String::from_utf8_lossy(&ready.stderr)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let _ = stop.send(());

    // Nothing listening: unhealthy, saying where it looked.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let down = healthcheck(&format!("0.0.0.0:{port}"), false).await;
    assert_eq!(down.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&down.stderr);
    assert!(
        stderr.contains(&format!(
            "nothing accepts connections on 127.0.0.1 port {port}"
        )),
        "{stderr}"
    );
}

#[test]
#[ignore = "needs the docker command: make test-docker"]
fn make_image_says_when_no_docker_daemon_answers() {
    assert!(
        available("make", "--version"),
        "make is not installed: install Debian's make"
    );
    assert!(
        available("docker", "--version"),
        "the docker command is not installed: install Docker Engine (Debian's docker.io); \
         this test runs make image against a socket where no daemon answers"
    );
    let socket = tempfile::tempdir().unwrap();
    let out = Command::new("make")
        .args(["--no-print-directory", "image"])
        .current_dir(common::root())
        .env(
            "DOCKER_HOST",
            format!("unix://{}/no-daemon.sock", socket.path().display()),
        )
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains("make image: no Docker daemon answers")
            && stderr.contains("no-daemon.sock"),
        "{stderr}"
    );
}

/// With no plugin loaded, `/healthz` answers 503 `no plugins`: the health
/// check counts the server alive (a restart would load none either) but not
/// ready.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_plugin_the_server_is_alive_but_not_ready() {
    assert!(
        available("bash", "--version"),
        "bash is not installed, so deploy/healthcheck.sh cannot run: install Debian's bash"
    );
    let dir = tempfile::tempdir().unwrap();
    let mut config = common::config(&dir);
    config.watch = false;
    let (addr, stop) = serving(config).await;

    let health = reqwest::get(format!("http://{addr}/healthz"))
        .await
        .unwrap();
    assert_eq!(health.status(), 503);
    let body: serde_json::Value = health.json().await.unwrap();
    assert_eq!(body["status"], "no plugins", "{body}");
    assert_alive(&addr).await;
    let ready = healthcheck(&addr, true).await;
    assert_eq!(ready.status.code(), Some(1));
    let stderr = String::from_utf8_lossy(&ready.stderr);
    assert!(
        stderr.contains("not ready: no plugin is loaded"),
        "{stderr}"
    );
    let _ = stop.send(());
}
