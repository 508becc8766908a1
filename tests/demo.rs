//! `gleaner demo` (what `make demo` runs): every endpoint answers its own
//! example, the one `/openapi.json` shows and `/docs` "Try it out" sends,
//! with 200 from the recorded site traffic, with no setting given: the demo
//! takes what each plugin's recordings need from its fixture.

use std::net::SocketAddr;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

struct Demo {
    child: Child,
    addr: SocketAddr,
    _data: tempfile::TempDir,
}

impl Drop for Demo {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

async fn start_demo() -> Demo {
    start_demo_with(&[], Stdio::null()).await
}

/// The demo with `env` set over the defaults, its stderr to `stderr`.
async fn start_demo_with(env: &[(&str, &str)], stderr: Stdio) -> Demo {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut command = Command::new(crate::common::server_binary());
    command
        .current_dir(common::root())
        .args(["demo", "--addr", &addr.to_string()])
        .env("GLEANER_DATA_DIR", data.path())
        .env("GLEANER_WATCH", "false")
        .env("GLEANER_LOG", "warn")
        // Every example's reviews must meet the record's rules.
        .env("GLEANER_STRICT_RECORDS", "true")
        .stdout(Stdio::null())
        .stderr(stderr);
    for (name, _) in std::env::vars() {
        if name.starts_with("GLEANER_PLUGIN_")
            || [
                "GLEANER_CONFIG",
                "GLEANER_API_KEYS",
                "GLEANER_REPLAY",
                "GLEANER_PLUGIN_DIR",
            ]
            .contains(&name.as_str())
        {
            command.env_remove(name);
        }
    }
    for (name, value) in env {
        command.env(name, value);
    }
    let child = command.spawn().unwrap();
    let demo = Demo {
        child,
        addr,
        _data: data,
    };
    let started = Instant::now();
    loop {
        let health = match reqwest::get(format!("http://{addr}/healthz")).await {
            Ok(r) => r.json::<Value>().await.ok(),
            Err(_) => None,
        };
        let ready = health.is_some_and(|h| h["status"] == "ok");
        if ready {
            break demo;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the demo did not come up"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test]
async fn every_endpoint_answers_its_example_in_the_demo() {
    let demo = start_demo().await;
    let client = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let doc: Value = client
        .get(format!("http://{}/openapi.json", demo.addr))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let mut answered = Vec::new();
    let mut failed = Vec::new();
    for (route, item) in doc["paths"].as_object().unwrap() {
        let Some(example) =
            item["post"]["requestBody"]["content"]["application/json"].get("example")
        else {
            continue;
        };
        let r = client
            .post(format!("http://{}{route}", demo.addr))
            .json(example)
            .send()
            .await
            .unwrap();
        let status = r.status().as_u16();
        let body = r.text().await.unwrap();
        if status == 200 {
            answered.push(route.clone());
        } else {
            failed.push(format!("{route} {example}: {status} {body:.300}"));
        }
    }
    assert!(
        failed.is_empty(),
        "examples the demo does not answer:\n{}",
        failed.join("\n")
    );
    assert!(
        answered.len() >= 22,
        "{} endpoints answered: {answered:?}",
        answered.len()
    );
}

/// In JSON mode every line the demo writes is a JSON object: the start-up
/// report, the routes and the replay notice too.
#[tokio::test]
async fn in_json_mode_every_line_of_the_demo_is_json() {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("stderr.log");
    let file = std::fs::File::create(&log).unwrap();
    let demo = start_demo_with(
        &[("GLEANER_LOG_FORMAT", "json"), ("GLEANER_LOG", "info")],
        Stdio::from(file),
    )
    .await;
    drop(demo);
    let text = std::fs::read_to_string(&log).unwrap();
    let lines: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    assert!(lines.len() > 3, "the demo logged: {text}");
    for line in &lines {
        let event: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("a line that is not JSON ({e}): {line}"));
        assert!(event["level"].is_string(), "{line}");
    }
    for wanted in [
        "recorded traffic",
        "\"route\":\"/customer-feedback-hub/reviews\"",
        "GLEANER_WEBHOOK_ALLOW_PRIVATE",
    ] {
        assert!(text.contains(wanted), "no {wanted} in: {text}");
    }
    assert!(!text.contains("\u{1b}["), "no colour in a log file");
}

/// The job example of docs/api.md, sent as written to the demo (the
/// receiver's port aside): the job pages the recordings to their end, and its
/// webhook reaches the receiver on this machine, signed; a job whose receiver
/// is not listening shows why in its status, and when it is tried again.
#[tokio::test]
async fn the_api_guide_s_job_example_works_in_the_demo() {
    use std::sync::{Arc, Mutex};

    let guide = std::fs::read_to_string(common::root().join("docs/api.md")).unwrap();
    let curl = "curl -s localhost:8080/jobs -H 'content-type: application/json' -d '";
    let from = guide.find(curl).expect("the guide has the job example") + curl.len();
    let to = from + guide[from..].find("\n}'").expect("the example's body ends") + 2;
    let example = &guide[from..to];
    assert!(
        example.contains("http://127.0.0.1:9000/hooks/gleaner"),
        "{example}"
    );

    let seen: Arc<Mutex<Vec<String>>> = Arc::default();
    let keep = seen.clone();
    let receiver = common::upstream(axum::Router::new().route(
        "/hooks/gleaner",
        axum::routing::post(move |body: String| {
            let keep = keep.clone();
            async move {
                keep.lock().unwrap().push(body);
                axum::http::StatusCode::OK
            }
        }),
    ))
    .await;
    // A port nothing listens on any more.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let demo = start_demo().await;
    let client = reqwest::Client::new();
    let submit = |body: String| {
        let request = client
            .post(format!("http://{}/jobs", demo.addr))
            .header("content-type", "application/json")
            .body(body);
        async move {
            let r = request.send().await.unwrap();
            (r.status().as_u16(), r.json::<Value>().await.unwrap())
        }
    };
    let status_of = |id: String| {
        let request = client.get(format!("http://{}/jobs/{id}", demo.addr));
        async move { request.send().await.unwrap().json::<Value>().await.unwrap() }
    };

    let (status, job) = submit(example.replace("127.0.0.1:9000", &receiver.to_string())).await;
    assert_eq!(status, 202, "{job}");
    assert_eq!(
        job["webhook"],
        serde_json::json!({"attempts": 0, "last_status": null, "last_error": null,
                           "next_attempt_at": null, "delivered_at": null})
    );
    let (status, unheard) = submit(example.replace("127.0.0.1:9000", &closed.to_string())).await;
    assert_eq!(status, 202, "{unheard}");

    let started = Instant::now();
    let id = job["job_id"].as_str().unwrap().to_owned();
    let done = loop {
        let job = status_of(id.clone()).await;
        if job["webhook"]["delivered_at"].is_string() {
            break job;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never delivered: {job}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    assert_eq!(done["state"], "succeeded", "{done}");
    assert_eq!(done["webhook"]["last_status"], 200, "{done}");
    assert!(done["webhook"]["next_attempt_at"].is_null(), "{done}");
    let deliveries = seen.lock().unwrap().clone();
    assert_eq!(deliveries.len(), 1);
    let event: Value = serde_json::from_str(&deliveries[0]).unwrap();
    assert_eq!(event["event"], "job.succeeded");
    assert_eq!(event["job"]["job_id"], id.as_str());

    let id = unheard["job_id"].as_str().unwrap().to_owned();
    let failed = loop {
        let job = status_of(id.clone()).await;
        if job["webhook"]["attempts"].as_u64().unwrap_or(0) >= 1 {
            break job;
        }
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "never attempted: {job}"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    };
    let webhook = &failed["webhook"];
    assert!(webhook["last_status"].is_null(), "{failed}");
    assert!(
        webhook["last_error"]
            .as_str()
            .is_some_and(|e| e.to_ascii_lowercase().contains("refused")),
        "{failed}"
    );
    assert!(webhook["next_attempt_at"].is_string(), "{failed}");
    assert!(webhook["delivered_at"].is_null(), "{failed}");
}
