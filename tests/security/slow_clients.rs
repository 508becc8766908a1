//! Slow clients: headers or bodies sent a byte at a time, silent keep-alive
//! connections and connection floods are cut by the server's timeouts and caps,
//! while a normal client keeps being answered, and memory comes back after.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpSocket, TcpStream};

use super::process::Process;

const SLOW_CONNECTIONS: usize = 2_000;
/// Source addresses the slow connections come from, so none reaches the per-client cap.
const SOURCES: u8 = 8;

async fn connect_from(source: IpAddr, to: SocketAddr) -> std::io::Result<TcpStream> {
    let socket = TcpSocket::new_v4()?;
    socket.bind(SocketAddr::new(source, 0))?;
    socket.connect(to).await
}

/// Sends a request head one byte at a time, forever; returns when the server closes.
async fn drip_headers(mut stream: TcpStream) -> Duration {
    let started = Instant::now();
    let head = b"POST /features/review-chunk HTTP/1.1\r\nHost: x\r\nX-Slow: ";
    for byte in head.iter().chain(std::iter::repeat(&b'a')) {
        if stream.write_all(&[*byte]).await.is_err() {
            break;
        }
        let mut buf = [0u8; 64];
        match tokio::time::timeout(Duration::from_millis(400), stream.read(&mut buf)).await {
            Ok(Ok(_)) | Ok(Err(_)) => break,
            Err(_) => {}
        }
        if started.elapsed() > Duration::from_secs(60) {
            break;
        }
    }
    started.elapsed()
}

/// One normal request on a fresh connection; its latency.
async fn normal_request(client: &reqwest::Client, url: &str) -> Duration {
    let started = Instant::now();
    let r = client
        .post(url)
        .json(&serde_json::json!({"review_text": "Fast and friendly. Would book again."}))
        .send()
        .await
        .expect("a normal client is answered");
    assert_eq!(r.status(), 200);
    r.bytes().await.unwrap();
    started.elapsed()
}

async fn latencies(url: &str, n: usize) -> Vec<Duration> {
    let client = reqwest::Client::builder()
        .pool_max_idle_per_host(0)
        .build()
        .unwrap();
    let mut all = Vec::new();
    for _ in 0..n {
        all.push(normal_request(&client, url).await);
    }
    all.sort();
    all
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_connections_are_cut_and_normal_clients_answered() {
    let server = Process::start(
        &["review-chunk"],
        &[
            ("GLEANER_HEADER_READ_TIMEOUT_MS", "3000".into()),
            ("GLEANER_BODY_READ_TIMEOUT_MS", "2000".into()),
            ("GLEANER_IDLE_TIMEOUT_MS", "2000".into()),
            ("GLEANER_MAX_CONNECTIONS_PER_CLIENT", "256".into()),
        ],
    );
    let url = server.url("/features/review-chunk");
    latencies(&url, 50).await;
    let before = latencies(&url, 50).await;
    let baseline_rss = server.rss_mib();

    let started = Instant::now();
    let mut drips = tokio::task::JoinSet::new();
    for i in 0..SLOW_CONNECTIONS {
        let source = IpAddr::from([127, 0, 0, 2 + (i % SOURCES as usize) as u8]);
        let stream = connect_from(source, server.addr)
            .await
            .expect("slow connection opens");
        drips.spawn(drip_headers(stream));
    }
    let opened_in = started.elapsed();
    tokio::time::sleep(Duration::from_millis(500)).await;
    let during = latencies(&url, 50).await;
    let peak_rss = server.rss_mib();

    let mut held = Vec::new();
    while let Some(d) = drips.join_next().await {
        held.push(d.unwrap());
    }
    held.sort();
    tokio::time::sleep(Duration::from_secs(2)).await;
    let after_rss = server.rss_mib();
    let after = latencies(&url, 50).await;

    let p = |v: &[Duration], q: f64| v[((v.len() - 1) as f64 * q) as usize].as_secs_f64() * 1e3;
    eprintln!(
        "slow clients: {SLOW_CONNECTIONS} opened in {:.0} ms; held until cut: min {:.1} s, max {:.1} s; \
         normal client p50/p99 ms: before {:.2}/{:.2}, during {:.2}/{:.2}, after {:.2}/{:.2}; \
         RSS MiB: before {baseline_rss:.1}, peak {peak_rss:.1}, after {after_rss:.1}",
        opened_in.as_secs_f64() * 1e3,
        held[0].as_secs_f64(),
        held[held.len() - 1].as_secs_f64(),
        p(&before, 0.5),
        p(&before, 0.99),
        p(&during, 0.5),
        p(&during, 0.99),
        p(&after, 0.5),
        p(&after, 0.99),
    );
    assert!(
        held[held.len() - 1] < Duration::from_secs(10),
        "every slow connection is cut by the header read timeout"
    );
    assert!(
        p(&during, 0.99) < 1_000.0,
        "a normal client stays answered promptly while slow clients are connected"
    );
    assert!(
        after_rss < baseline_rss + 16.0,
        "memory returns near its baseline: {baseline_rss:.1} MiB before, {after_rss:.1} MiB after"
    );
}

#[tokio::test]
async fn bodies_idle_connections_and_floods_are_bounded() {
    let server = Process::start(
        &["review-chunk"],
        &[
            ("GLEANER_BODY_READ_TIMEOUT_MS", "1000".into()),
            ("GLEANER_IDLE_TIMEOUT_MS", "1000".into()),
            ("GLEANER_MAX_CONNECTIONS_PER_CLIENT", "20".into()),
        ],
    );

    // A body sent a byte at a time is answered 408 after the body timeout.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    stream
        .write_all(b"POST /features/review-chunk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{")
        .await
        .unwrap();
    let started = Instant::now();
    let mut response = Vec::new();
    loop {
        let _ = stream.write_all(b" ").await;
        let mut buf = [0u8; 1024];
        match tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buf)).await {
            Ok(Ok(0)) | Ok(Err(_)) => break,
            Ok(Ok(n)) => {
                response.extend_from_slice(&buf[..n]);
                break;
            }
            Err(_) => assert!(started.elapsed() < Duration::from_secs(5), "never cut"),
        }
    }
    let text = String::from_utf8_lossy(&response);
    assert!(text.starts_with("HTTP/1.1 408"), "{text}");
    assert!(text.contains("did not arrive within 1000 ms"), "{text}");

    // A keep-alive connection that falls silent after a request is closed.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    assert!(request_on(&mut stream).await.starts_with("HTTP/1.1 200"));
    let mut buf = vec![0u8; 64];
    let silent = Instant::now();
    let closed = tokio::time::timeout(Duration::from_secs(5), stream.read(&mut buf))
        .await
        .expect("the idle connection is closed");
    assert!(matches!(closed, Ok(0) | Err(_)));
    assert!(silent.elapsed() >= Duration::from_millis(900));

    // One address gets at most its cap of connections; the rest are closed at once.
    let source = IpAddr::from([127, 0, 0, 20]);
    let mut streams = Vec::new();
    for _ in 0..30 {
        streams.push(connect_from(source, server.addr).await.unwrap());
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let mut refused = 0;
    for s in &mut streams {
        let mut buf = [0u8; 1];
        if let Ok(Ok(0) | Err(_)) =
            tokio::time::timeout(Duration::from_millis(10), s.read(&mut buf)).await
        {
            refused += 1;
        }
    }
    assert_eq!(refused, 10, "30 connections from one address, cap 20");
    // Another address is unaffected.
    let client = reqwest::Client::new();
    normal_request(&client, &server.url("/features/review-chunk")).await;
}

/// One request on `stream`, kept alive; the status line of the answer.
async fn request_on(stream: &mut TcpStream) -> String {
    let body = r#"{"review_text":"Good."}"#;
    stream
        .write_all(
            format!(
                "POST /features/review-chunk HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
                body.len()
            )
            .as_bytes(),
        )
        .await
        .unwrap();
    let mut buf = vec![0u8; 4096];
    let n = stream.read(&mut buf).await.unwrap();
    String::from_utf8_lossy(&buf[..n])
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test]
async fn the_idle_timer_is_independent_of_the_header_timer() {
    let server = Process::start(
        &["review-chunk"],
        &[
            ("GLEANER_HEADER_READ_TIMEOUT_MS", "1000".into()),
            ("GLEANER_IDLE_TIMEOUT_MS", "4000".into()),
        ],
    );
    // A keep-alive connection silent for twice the header timeout, but within
    // the idle timeout, still takes its next request.
    let mut stream = TcpStream::connect(server.addr).await.unwrap();
    assert!(request_on(&mut stream).await.starts_with("HTTP/1.1 200"));
    tokio::time::sleep(Duration::from_millis(2_500)).await;
    assert!(
        request_on(&mut stream).await.starts_with("HTTP/1.1 200"),
        "an idle keep-alive connection lives until the idle timeout, not the header timeout"
    );
    // Silent past the idle timeout, it is closed.
    let silent = Instant::now();
    let mut buf = [0u8; 64];
    let closed = tokio::time::timeout(Duration::from_secs(8), stream.read(&mut buf))
        .await
        .expect("the idle connection is closed");
    assert!(matches!(closed, Ok(0) | Err(_)));
    assert!(
        silent.elapsed() >= Duration::from_millis(3_500),
        "{:?}",
        silent.elapsed()
    );
    // A request head that dawdles is still cut at the header timeout.
    let mut slow = TcpStream::connect(server.addr).await.unwrap();
    slow.write_all(b"GET /healthz HTTP/1.1\r\n").await.unwrap();
    let started = Instant::now();
    let cut = tokio::time::timeout(Duration::from_secs(5), slow.read(&mut buf))
        .await
        .expect("the slow head is cut");
    assert!(matches!(cut, Ok(_) | Err(_)));
    assert!(
        started.elapsed() < Duration::from_millis(3_000),
        "{:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn clients_that_never_read_share_one_document_and_are_cut() {
    // Each client asks for the document many times over one connection and
    // reads nothing: more than the kernel's buffers hold, so the answers stall.
    const READERS: usize = 200;
    const ASKED: usize = 40;
    // Every plugin, so the document is the full one (about 200 KB).
    let names: Vec<String> = std::fs::read_dir(super::common::root().join("target/plugins"))
        .unwrap()
        .filter_map(|e| {
            let name = e.ok()?.file_name().to_string_lossy().into_owned();
            name.strip_suffix(".toml").map(str::to_owned)
        })
        .collect();
    let names: Vec<&str> = names.iter().map(String::as_str).collect();
    let server = Process::start(
        &names,
        &[
            ("GLEANER_WRITE_STALL_TIMEOUT_MS", "3000".into()),
            ("GLEANER_MAX_CONNECTIONS_PER_CLIENT", "1000".into()),
        ],
    );
    let document = reqwest::get(server.url("/openapi.json"))
        .await
        .unwrap()
        .bytes()
        .await
        .unwrap()
        .len();
    let before = server.rss_mib();
    let requests = b"GET /openapi.json HTTP/1.1\r\nHost: x\r\n\r\n".repeat(ASKED);
    let mut stalled = Vec::new();
    for _ in 0..READERS {
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_recv_buffer_size(4096).unwrap();
        let mut stream = socket.connect(server.addr).await.unwrap();
        stream.write_all(&requests).await.unwrap();
        stalled.push(stream);
    }
    let opened = Instant::now();
    tokio::time::sleep(Duration::from_millis(1_500)).await;
    let during = server.rss_mib();
    // Past the write-stall timeout (3 s, and a wide margin for a busy machine), every connection has
    // been cut short of what it asked for: reading now finds it reset.
    tokio::time::sleep(Duration::from_millis(8_000).saturating_sub(opened.elapsed())).await;
    let mut reads = tokio::task::JoinSet::new();
    for mut stream in stalled {
        reads.spawn(async move {
            let mut got = 0;
            let mut buf = vec![0u8; 64 * 1024];
            let until = Instant::now() + Duration::from_secs(10);
            loop {
                let left = until.saturating_duration_since(Instant::now());
                match tokio::time::timeout(left, stream.read(&mut buf)).await {
                    Ok(Ok(0)) | Ok(Err(_)) => return (got, true),
                    Ok(Ok(n)) => got += n,
                    Err(_) => return (got, false),
                }
            }
        });
    }
    let mut cut = 0;
    while let Some(r) = reads.join_next().await {
        let (got, closed) = r.unwrap();
        cut += usize::from(closed && got < ASKED * document);
    }
    eprintln!(
        "{READERS} clients asking {ASKED} times for /openapi.json ({document} bytes) and reading nothing: \
         RSS MiB before {before:.1}, while stalled {during:.1}; {cut} cut by the write-stall timeout"
    );
    assert_eq!(cut, READERS, "every stalled connection is cut");
    assert!(
        during < before + 64.0,
        "stalled answers share one buffer: {before:.1} MiB before, {during:.1} MiB with {READERS} stalled"
    );
}
