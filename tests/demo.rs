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
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let addr: SocketAddr = format!("127.0.0.1:{port}").parse().unwrap();
    let data = tempfile::tempdir().unwrap();
    let mut command = Command::new(env!("CARGO_BIN_EXE_gleaner"));
    command
        .current_dir(common::root())
        .args(["demo", "--addr", &addr.to_string()])
        .env("GLEANER_DATA_DIR", data.path())
        .env("GLEANER_WATCH", "false")
        .env("GLEANER_LOG", "warn")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
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
