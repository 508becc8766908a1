//! The SSRF matrix: address forms that mean "this machine" or a private network,
//! through a plugin's raw HTTP and through a website processor, and redirects
//! that lead there. A ground-truth listener on loopback counts every connection
//! it accepts: it must count none.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use axum::extract::Path;
use axum::http::StatusCode;
use axum::response::IntoResponse;
use axum::routing::get;
use axum::Router;
use serde_json::{json, Value};
use tokio::io::AsyncWriteExt;

use super::common;

/// Listens on 127.0.0.1 and [::1] on one port and counts accepted connections.
async fn ground_truth() -> (u16, Arc<AtomicUsize>) {
    let hits = Arc::new(AtomicUsize::new(0));
    let v4 = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = v4.local_addr().unwrap().port();
    let mut listeners = vec![v4];
    if let Ok(v6) = tokio::net::TcpListener::bind(("::1", port)).await {
        listeners.push(v6);
    }
    for listener in listeners {
        let hits = hits.clone();
        tokio::spawn(async move {
            while let Ok((mut stream, _)) = listener.accept().await {
                hits.fetch_add(1, Ordering::SeqCst);
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\nreached")
                    .await;
            }
        });
    }
    (port, hits)
}

/// Forms of a loopback or private address, with the ground truth's port.
fn address_forms(port: u16) -> Vec<String> {
    let hosts = [
        "127.0.0.1",
        "localhost",
        "LOCALHOST",
        "localhost.",
        "127.0.0.1.",
        "127.1",
        "127.0.1",
        "2130706433",
        "0x7f000001",
        "0x7f.0.0.1",
        "0177.0.0.1",
        "0177.0000.0000.0001",
        "127.000.000.001",
        "%31%32%37.0.0.1",
        "127%2E0%2E0%2E1",
        "127。0。0。1",
        "①②⑦.0.0.1",
        "127.0.0.2",
        "127.255.255.254",
        "0.0.0.0",
        "0",
        "0x0",
        "[::1]",
        "[0:0:0:0:0:0:0:1]",
        "[::ffff:127.0.0.1]",
        "[::ffff:7f00:1]",
        "[0:0:0:0:0:ffff:127.0.0.1]",
        "[::127.0.0.1]",
        "[::]",
        "[64:ff9b::127.0.0.1]",
        "[2002:7f00:1::]",
        "ip6-localhost",
        "user:pass@127.0.0.1",
        "public.example@127.0.0.1",
        "10.0.0.1",
        "172.16.0.1",
        "192.168.0.1",
        "169.254.169.254",
        "100.64.0.1",
        "198.18.0.1",
        "[fd00::1]",
        "[fe80::1]",
        "[::ffff:10.0.0.1]",
        "[::ffff:169.254.169.254]",
    ];
    let mut forms: Vec<String> = hosts
        .iter()
        .map(|h| format!("http://{h}:{port}/"))
        .collect();
    forms.extend([
        format!("https://127.0.0.1:{port}/"),
        format!("http://127.0.0.1:{port}/admin/plugins"),
        format!("http://localhost:{port}/?url=https://example.com"),
        format!("http://127.0.0.1:{port}#@example.com/"),
        format!("http://example.com@127.0.0.1:{port}/"),
        format!("http://[::1]:{port}/%2e%2e/"),
        format!("http:\\\\127.0.0.1:{port}\\"),
        format!("http:/127.0.0.1:{port}/"),
    ]);
    forms
}

/// Redirect targets the upstream answers with, each to the ground truth.
fn redirect_targets(port: u16) -> Vec<(u16, String)> {
    let targets = [
        format!("http://127.0.0.1:{port}/"),
        format!("http://localhost:{port}/"),
        format!("http://[::1]:{port}/"),
        format!("http://2130706433:{port}/"),
        format!("http://0x7f000001:{port}/"),
        format!("http://0.0.0.0:{port}/"),
        format!("http://[::ffff:127.0.0.1]:{port}/"),
        format!("http://127.1:{port}/"),
        format!("//127.0.0.1:{port}/"),
        format!("http:127.0.0.1:{port}/"),
        format!("http:\\\\127.0.0.1:{port}\\"),
        format!("https://127.0.0.1:{port}/"),
        format!("http://redirector.test@127.0.0.1:{port}/"),
        format!("http://LOCALHOST:{port}/"),
        format!(" http://127.0.0.1:{port}/"),
        format!("http://127.0.0.1:{port}/#redirector.test"),
        "http://169.254.169.254/latest/meta-data/".to_owned(),
        "http://10.0.0.1/".to_owned(),
        format!("/chain/{port}"),
        format!("http://redirector.test/chain/{port}"),
    ];
    let mut all = Vec::new();
    for (i, target) in targets.into_iter().enumerate() {
        let status = [301, 302, 303, 307, 308][i % 5];
        all.push((status, target));
    }
    all
}

async fn redirector(port: u16) -> std::net::SocketAddr {
    let targets = Arc::new(redirect_targets(port));
    let router = Router::new()
        .route(
            "/r/{i}",
            get({
                let targets = targets.clone();
                move |Path(i): Path<usize>| {
                    let (status, target) = targets[i].clone();
                    async move {
                        (
                            StatusCode::from_u16(status).unwrap(),
                            [("location", target)],
                        )
                            .into_response()
                    }
                }
            }),
        )
        .route(
            "/chain/{port}",
            get(|Path(port): Path<u16>| async move {
                (
                    StatusCode::FOUND,
                    [("location", format!("http://127.0.0.1:{port}/from-chain"))],
                )
                    .into_response()
            }),
        );
    common::upstream(router).await
}

/// Whether a raw fetch was held: an error, never a status from the target.
fn held(body: &Value) -> bool {
    body.get("status").is_none() && body["error"].is_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_address_form_or_redirect_reaches_an_internal_listener() {
    let (port, hits) = ground_truth().await;
    let upstream = redirector(port).await;
    let s = common::start(&["test-misbehave", "domain-to-asset"], move |c| {
        c.replay = None;
        c.upstream_override
            .insert("redirector.test".into(), format!("http://{upstream}"));
    })
    .await;

    let forms = address_forms(port);
    assert!(forms.len() >= 50, "{} address forms", forms.len());
    let mut tried = 0;
    for form in &forms {
        let (status, body) = s
            .post("/test/misbehave", json!({"mode": "fetch", "url": form}))
            .await;
        assert_eq!(status, 200, "{form}: {body}");
        assert!(held(&body), "raw fetch of {form}: {body}");
        let (status, body) = s
            .post("/features/domain-to-asset", json!({"query": form}))
            .await;
        assert_eq!(status, 400, "processor with {form}: {body}");
        tried += 2;
        assert_eq!(
            hits.load(Ordering::SeqCst),
            0,
            "{form} reached the listener"
        );
    }

    let redirects = redirect_targets(port);
    assert!(redirects.len() >= 20);
    for (i, (status, target)) in redirects.iter().enumerate() {
        let url = format!("http://redirector.test/r/{i}");
        let (code, body) = s
            .post("/test/misbehave", json!({"mode": "fetch", "url": url}))
            .await;
        assert_eq!(code, 200, "{status} → {target}: {body}");
        // Held: refused, or resolved (as WHATWG URL rules say) to a path on the redirector itself.
        let stayed = body["final_url"]
            .as_str()
            .is_some_and(|u| u.starts_with("http://redirector.test/"));
        assert!(
            held(&body) || stayed,
            "raw fetch redirected {status} → {target:?}: {body}"
        );
        let (code, body) = s
            .post("/features/domain-to-asset", json!({"query": url}))
            .await;
        assert_eq!(
            code, 400,
            "processor redirected {status} → {target:?}: {body}"
        );
        tried += 2;
        assert_eq!(
            hits.load(Ordering::SeqCst),
            0,
            "{status} → {target:?} reached the listener"
        );
    }
    eprintln!(
        "ssrf matrix: {} address forms and {} redirect forms, {tried} requests through two paths, \
         {} reached the listener",
        forms.len(),
        redirects.len(),
        hits.load(Ordering::SeqCst)
    );
}

#[tokio::test]
async fn a_scoped_override_redirects_only_its_own_plugin() {
    let (port, hits) = ground_truth().await;
    let s = common::start(&["test-misbehave", "domain-to-asset"], move |c| {
        c.replay = None;
        c.upstream_override.insert(
            "test-misbehave:inside.test".into(),
            format!("http://127.0.0.1:{port}"),
        );
    })
    .await;
    let (status, body) = s
        .post(
            "/features/domain-to-asset",
            json!({"query": "http://inside.test/"}),
        )
        .await;
    assert_eq!(status, 400, "{body}");
    assert_eq!(
        hits.load(Ordering::SeqCst),
        0,
        "another plugin's override is not used"
    );
    let (status, body) = s
        .post(
            "/test/misbehave",
            json!({"mode": "fetch", "url": "http://inside.test/"}),
        )
        .await;
    assert_eq!(status, 200);
    assert_eq!(
        body["status"], 200,
        "the plugin the override names uses it: {body}"
    );
    assert_eq!(hits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_replay_refuses_private_addresses_as_the_live_guard_does() {
    let s = common::start(&["test-misbehave"], |c| {
        c.replay = Some(common::har_dir());
    })
    .await;
    for url in [
        "http://127.0.0.1:9/",
        "http://10.0.0.1/",
        "http://169.254.169.254/latest/meta-data/",
        "http://[::1]/",
        "http://localhost/",
    ] {
        let (status, body) = s
            .post("/test/misbehave", json!({"mode": "fetch", "url": url}))
            .await;
        assert_eq!(status, 200, "{url}: {body}");
        let error = body["error"].as_str().unwrap_or_default();
        assert!(
            error.contains("denied by the host") && error.contains("public addresses"),
            "{url} is refused by the guard, not answered as a replay miss: {body}"
        );
        assert!(
            error.contains("GLEANER_UPSTREAM_OVERRIDE")
                && error.contains("Testing against a local site"),
            "the refusal says how to aim a plugin at a local site: {body}"
        );
    }
}
