//! Connection caps that make room instead of locking clients out. Slow
//! connections that never finish their request head — thousands from one
//! address (a NAT, an ingress), or enough from many addresses to fill the
//! server's total — are closed oldest first when a new client arrives, so a
//! normal client behind the same address, or from a fresh one, is served.

use std::net::{IpAddr, SocketAddr};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpSocket;

use super::process::Process;

/// Opens a connection from `source` that sends half a request head and then
/// nothing; the task ends when the server closes it.
async fn half_open(source: IpAddr, to: SocketAddr) -> tokio::task::JoinHandle<()> {
    let socket = TcpSocket::new_v4().unwrap();
    socket.bind(SocketAddr::new(source, 0)).unwrap();
    let mut stream = socket.connect(to).await.expect("a slow connection opens");
    let _ = stream
        .write_all(b"POST /features/review-chunk HTTP/1.1\r\nHost: x\r\nX-Slow: ")
        .await;
    tokio::spawn(async move {
        let mut buf = [0u8; 256];
        while let Ok(n) = stream.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
}

/// `n` normal requests from `source`, each on a new connection: how many
/// were answered 200, and the 95th percentile of their latency in ms.
async fn normal_client(source: IpAddr, url: &str, n: usize) -> (usize, f64) {
    let client = reqwest::Client::builder()
        .local_address(source)
        .pool_max_idle_per_host(0)
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap();
    let mut ok = 0;
    let mut times = Vec::new();
    for _ in 0..n {
        let started = Instant::now();
        let answered = client
            .post(url)
            .json(&serde_json::json!({"review_text": "Fast and friendly. Would book again."}))
            .send()
            .await;
        if let Ok(r) = answered {
            ok += usize::from(r.status() == 200 && r.bytes().await.is_ok());
        }
        times.push(started.elapsed().as_secs_f64() * 1e3);
    }
    times.sort_by(f64::total_cmp);
    (ok, times[(times.len() * 95).div_ceil(100) - 1])
}

/// A server whose header timeout is far off, so only the caps act.
fn server() -> Process {
    Process::start(
        &["review-chunk"],
        &[("GLEANER_HEADER_READ_TIMEOUT_MS", "120000".into())],
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn thousands_of_slow_connections_from_one_address_do_not_lock_it_out() {
    let server = server();
    let shared = IpAddr::from([127, 0, 4, 1]);
    let mut slow = Vec::new();
    for _ in 0..2_000 {
        slow.push(half_open(shared, server.addr).await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let (ok, p95) = normal_client(shared, &server.url("/features/review-chunk"), 90).await;
    let closed = slow.iter().filter(|t| t.is_finished()).count();
    eprintln!(
        "2,000 slow connections from one address, then a normal client behind it: \
         {ok}/90 answered, p95 {p95:.2} ms; {closed} slow connections closed to make room"
    );
    assert_eq!(ok, 90, "the client behind the same address is served");
    assert!(
        closed >= 2_000 - 256,
        "past the per-address cap of 256 the oldest slow connections were closed: {closed}"
    );
    assert!(
        server
            .metric("gleaner_connections_evicted_total", &[])
            .await
            >= (2_000 - 256) as f64
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn slow_connections_filling_the_server_make_room_for_a_fresh_address() {
    let server = server();
    let mut slow = Vec::new();
    for i in 0..4_600 {
        let source = IpAddr::from([127, 0, 5, 1 + (i % 18) as u8]);
        slow.push(half_open(source, server.addr).await);
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let fresh = IpAddr::from([127, 0, 6, 1]);
    let (ok, p95) = normal_client(fresh, &server.url("/features/review-chunk"), 90).await;
    let closed = slow.iter().filter(|t| t.is_finished()).count();
    eprintln!(
        "4,600 slow connections from 18 addresses, then a fresh client: \
         {ok}/90 answered, p95 {p95:.2} ms; {closed} slow connections closed to make room"
    );
    assert_eq!(ok, 90, "a fresh address is served with the server full");
    assert!(
        closed >= 4_600 - 4_096,
        "past the total cap of 4,096 the oldest slow connections were closed: {closed}"
    );
}
