//! The container image, run once: this test starts it, waits for the image's
//! own health check to pass, sends one request, and stops it with SIGTERM.
//! It needs podman and the built image, so it is `#[ignore]`d: `make test`
//! needs no container tooling and lists it as ignored, and `make test-image`
//! installs podman, builds the image (`deploy/image/build-local.sh`) and runs
//! it; run without them, it fails saying what to install. `IMAGE` names the
//! image if it is not `gleaner:latest`.

use std::process::{Command, Output};
use std::time::{Duration, Instant};

use crate::common;

fn podman(args: &[&str]) -> Output {
    Command::new("podman")
        .env(
            "CONTAINERS_CONF",
            common::root().join("deploy/image/containers.conf"),
        )
        .args(args)
        .output()
        .unwrap_or_else(|e| {
            panic!("cannot run podman ({e}): run make test-image, which installs podman and builds the image")
        })
}

#[tokio::test]
#[ignore = "needs podman and the image: make test-image"]
async fn the_image_serves_and_stops() {
    let image = std::env::var("IMAGE").unwrap_or_else(|_| "gleaner:latest".into());
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let name = format!("gleaner-image-test-{port}");
    let addr = format!("127.0.0.1:{port}");
    let run = podman(&[
        "run",
        "--detach",
        "--rm",
        "--name",
        &name,
        "--network",
        "host",
        "--env",
        &format!("GLEANER_ADDR={addr}"),
        "--env",
        "GLEANER_API_KEYS=image-test-key",
        &image,
    ]);
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );
    let started = Instant::now();
    loop {
        let check = podman(&["healthcheck", "run", &name]);
        if check.status.success() {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(90),
            "the image's health check never passed: {}{}",
            String::from_utf8_lossy(&check.stdout),
            String::from_utf8_lossy(&podman(&["logs", &name]).stderr)
        );
        tokio::time::sleep(Duration::from_millis(500)).await;
    }
    let ready_in = started.elapsed();
    let r = reqwest::Client::new()
        .post(format!("http://{addr}/features/review-chunk"))
        .header("x-api-key", "image-test-key")
        .json(&serde_json::json!({"review_text": "Quick check-in. Kind staff."}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    let body: serde_json::Value = r.json().await.unwrap();
    assert_eq!(body["review_chunck"][0], "Quick check-in. Kind staff.");
    let user = podman(&["exec", &name, "id", "-u"]);
    assert_eq!(
        String::from_utf8_lossy(&user.stdout).trim(),
        "10001",
        "runs as its own user"
    );
    let stopping = Instant::now();
    let stop = podman(&["stop", "--time", "20", &name]);
    assert!(
        stop.status.success(),
        "{}",
        String::from_utf8_lossy(&stop.stderr)
    );
    let size = podman(&["image", "inspect", "--format", "{{.Size}}", &image]);
    let size: u64 = String::from_utf8_lossy(&size.stdout)
        .trim()
        .parse()
        .unwrap_or(0);
    eprintln!(
        "image {image}: {} MiB; healthy {:.1} s after start; stopped by SIGTERM in {:.1} s",
        size / (1 << 20),
        ready_in.as_secs_f64(),
        stopping.elapsed().as_secs_f64()
    );
}
