//! Fault injection: thousands of fetches against a local Trustpilot-shaped site
//! that fails 5% of its responses the ways real sites fail (500, 429 with
//! Retry-After, a reset connection, a truncated body, a slow first byte). Every
//! fetch completes, returns partial reviews with a continuation, or fails as a
//! whole with a gateway status a client retries; following the continuations
//! always yields the full sequence, with no review lost and none duplicated.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

use super::common;

const HUB: &str = "/customer-feedback-hub/reviews";
const QUERY: &str = "https://www.trustpilot.com/review/www.bhphotovideo.com";
const CONCURRENCY: usize = 128;

/// Fetches to run: `GLEANER_FAULT_FETCHES`, default 5,000.
fn fetches() -> usize {
    std::env::var("GLEANER_FAULT_FETCHES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5_000)
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Fault {
    ServerError,
    TooMany,
    Reset,
    Truncated,
    SlowFirstByte,
}

/// The three pages, as page HTML, and the review ids in order.
fn pages() -> (Vec<String>, Vec<String>) {
    let pages = common::trustpilot_pages();
    let ids = pages
        .iter()
        .flat_map(|p| p.iter().map(|r| r["id"].as_str().unwrap().to_owned()))
        .collect();
    let html = pages
        .iter()
        .map(|p| common::trustpilot_html(p, 3))
        .collect();
    (html, ids)
}

/// A small splitmix hash, so the fault sequence is the same on every run.
fn mix(mut x: u64) -> u64 {
    x = x.wrapping_add(0x9e37_79b9_7f4a_7c15);
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

struct Site {
    pages: Vec<String>,
    served: AtomicU64,
    faults: std::sync::Mutex<BTreeMap<Fault, u64>>,
}

impl Site {
    fn fault(&self, n: u64) -> Option<Fault> {
        let h = mix(n);
        (h % 100 < 5).then_some(match (h / 100) % 5 {
            0 => Fault::ServerError,
            1 => Fault::TooMany,
            2 => Fault::Reset,
            3 => Fault::Truncated,
            _ => Fault::SlowFirstByte,
        })
    }
}

/// Serves one keep-alive connection by hand, so it can fail mid-response.
async fn serve_connection(site: Arc<Site>, mut stream: TcpStream) {
    let mut buf = Vec::new();
    loop {
        let head_end = loop {
            if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                break i + 4;
            }
            let mut chunk = [0u8; 4096];
            match stream.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        };
        let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
        buf.drain(..head_end);
        let target = head.split_whitespace().nth(1).unwrap_or("/");
        let page: usize = target
            .split(['?', '&'])
            .find_map(|p| p.strip_prefix("page="))
            .and_then(|p| p.parse().ok())
            .unwrap_or(1);
        let body = site.pages[(page - 1).min(2)].as_bytes();
        let n = site.served.fetch_add(1, Ordering::SeqCst);
        let fault = site.fault(n);
        if let Some(f) = fault {
            *site.faults.lock().unwrap().entry(f).or_insert(0) += 1;
        }
        let ok_head = format!(
            "HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: {}\r\n\r\n",
            body.len()
        );
        let result = match fault {
            None => async {
                stream.write_all(ok_head.as_bytes()).await?;
                stream.write_all(body).await
            }
            .await,
            Some(Fault::ServerError) => {
                stream
                    .write_all(b"HTTP/1.1 500 Internal Server Error\r\ncontent-length: 5\r\n\r\noops!")
                    .await
            }
            Some(Fault::TooMany) => {
                stream
                    .write_all(b"HTTP/1.1 429 Too Many Requests\r\nretry-after: 1\r\ncontent-length: 4\r\n\r\nslow")
                    .await
            }
            Some(Fault::Reset) => {
                let _ = stream.set_zero_linger();
                return;
            }
            Some(Fault::Truncated) => {
                let _ = stream.write_all(ok_head.as_bytes()).await;
                let _ = stream.write_all(&body[..body.len() / 2]).await;
                return;
            }
            Some(Fault::SlowFirstByte) => {
                tokio::time::sleep(Duration::from_millis(1_500)).await;
                async {
                    stream.write_all(ok_head.as_bytes()).await?;
                    stream.write_all(body).await
                }
                .await
            }
        };
        if result.is_err() {
            return;
        }
    }
}

async fn flaky_site(site: Arc<Site>) -> std::net::SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve_connection(site.clone(), stream));
        }
    });
    addr
}

/// What one fetch, followed to its end, went through.
#[derive(Default)]
struct Chain {
    ids: Vec<String>,
    requests: u64,
    partial: u64,
    retried: BTreeMap<u16, u64>,
}

async fn follow(s: &common::Server, per_request: u64) -> Chain {
    let mut chain = Chain::default();
    let mut token: Option<String> = None;
    loop {
        let mut body = json!({"query": QUERY, "reviews_to_fetch": per_request});
        if let Some(t) = &token {
            body["pagination_token"] = json!(t);
        }
        chain.requests += 1;
        assert!(chain.requests < 200, "a fetch never finished");
        let (status, answer) = s.post(HUB, body).await;
        match status {
            200 => {
                chain.ids.extend(common::ids(&answer));
                let info = &answer["extra_information"];
                if info["stop_reason"] == "source_error" {
                    chain.partial += 1;
                }
                match answer["next_page"].as_str() {
                    Some(t) => token = Some(t.to_owned()),
                    None => return chain,
                }
            }
            502..=504 => {
                // Failed as a whole: nothing was returned, so the same request is retried.
                *chain.retried.entry(status).or_insert(0) += 1;
            }
            other => panic!("unexpected status {other}: {answer}"),
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn following_continuations_through_faults_loses_and_duplicates_nothing() {
    let (html, expected) = pages();
    let site = Arc::new(Site {
        pages: html,
        served: AtomicU64::new(0),
        faults: Default::default(),
    });
    let addr = flaky_site(site.clone()).await;
    // The site is local: the politeness cap of two connections is lifted so the
    // run measures faults, not waiting.
    let dir = common::plugin_dir(&["customer-feedback-hub"]);
    let manifest = dir.path().join("customer-feedback-hub.toml");
    let text = std::fs::read_to_string(&manifest)
        .unwrap()
        .replace("upstream_concurrency = 2", "upstream_concurrency = 64");
    std::fs::write(&manifest, text).unwrap();
    let mut config = common::config(&dir);
    config.replay = None;
    config.max_concurrent_requests = 512;
    config.max_concurrent_per_plugin = 512;
    // Every fetch comes from loopback: the per-address limit is not under test.
    config.max_in_flight_per_client = 512;
    config.upstream_override.insert(
        "customer-feedback-hub:www.trustpilot.com".into(),
        format!("http://{addr}"),
    );
    let s = Arc::new(common::start_with(dir, config).await);
    let total = fetches();
    let started = Instant::now();
    let next = Arc::new(AtomicU64::new(0));
    let mut workers = tokio::task::JoinSet::new();
    for _ in 0..CONCURRENCY {
        let (s, next, expected) = (s.clone(), next.clone(), expected.clone());
        workers.spawn(async move {
            let mut totals = (0u64, 0u64, 0u64, BTreeMap::<u16, u64>::new());
            loop {
                let i = next.fetch_add(1, Ordering::SeqCst) as usize;
                if i >= total {
                    return totals;
                }
                let per_request = [7, 20, 33, 60][i % 4];
                let chain = follow(&s, per_request).await;
                assert_eq!(
                    chain.ids, expected,
                    "fetch {i} ({per_request} per request): the full sequence, in order, once"
                );
                totals.0 += 1;
                totals.1 += chain.requests;
                totals.2 += chain.partial;
                for (k, v) in chain.retried {
                    *totals.3.entry(k).or_insert(0) += v;
                }
            }
        });
    }
    let (mut done, mut requests, mut partial) = (0, 0, 0);
    let mut retried = BTreeMap::new();
    while let Some(r) = workers.join_next().await {
        let (d, q, p, r) = r.unwrap();
        done += d;
        requests += q;
        partial += p;
        for (k, v) in r {
            *retried.entry(k).or_insert(0) += v;
        }
    }
    let faults = site.faults.lock().unwrap().clone();
    eprintln!(
        "fault injection: {done} fetches complete and exact in {:.1} s at {CONCURRENCY} concurrent; \
         {requests} API requests, {partial} partial answers with a continuation, \
         whole-request failures retried {retried:?}; upstream served {} responses, faults {faults:?}",
        started.elapsed().as_secs_f64(),
        site.served.load(Ordering::SeqCst),
    );
    assert_eq!(done as usize, total);
    assert_eq!(
        faults.len(),
        5,
        "every kind of fault was injected: {faults:?}"
    );
}
