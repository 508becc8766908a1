//! TLS and HTTP/2 fingerprints on the wire: a loopback listener reads the
//! raw ClientHello a client sends and computes its JA4 (FoxIO's TLS client
//! fingerprint), completes the handshake (ALPN h2, a test CA's certificate)
//! and reads the client's first HTTP/2 frames for its Akamai HTTP/2
//! fingerprint, then answers with an empty 200 and GOAWAY. Sites behind
//! Cloudflare, Akamai, DataDome and PerimeterX judge a client by both before
//! any page is served. A browser request of each session profile must carry
//! its browser's fingerprints (Chrome's and Firefox's cipher sets as
//! published, Chrome's HTTP/2 opening as Chromium sends it, Firefox's
//! pseudo-header order, and never what a plain API call over rustls sends);
//! Debian's Chromium, run headless against the same listener, is the
//! reference they are printed beside and checked against. That test needs
//! Chromium and openssl, so it is `#[ignore]`d: `make test` installs nothing
//! and lists it as ignored, and `make test-browser` installs Chromium and runs
//! it; run without them, it fails saying what to install.

use std::collections::BTreeSet;
use std::net::IpAddr;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gleaner::capabilities::http::policy::Policy;
use gleaner::capabilities::http::profile::{Kind, Profile, PROFILES};
use gleaner::capabilities::http::resolver::{GuardedResolver, Lookup, LookupFuture};
use gleaner::capabilities::http::session::Session;
use gleaner::capabilities::http::{HttpService, HttpSettings, OutboundRequest};
use gleaner::manifest::{Limits, Network};
use tokio::io::AsyncReadExt;
use tokio::sync::mpsc;

use crate::proxies::real::{require, Certificates};

/// The name both clients ask for, so both send SNI.
const NAME: &str = "fingerprint.test";

mod http2;
mod ja4;

use http2::{serve_http2, Http2};
use ja4::{non_grease, ClientHello};

/// What one connection showed: its ClientHello, and its HTTP/2 opening or
/// why none was read.
struct Capture {
    hello: ClientHello,
    http2: Result<Http2, String>,
}

/// Reads TLS records until they hold a whole ClientHello: the bytes read
/// and the hello, or none when the client closes first.
async fn read_hello(tcp: &mut tokio::net::TcpStream) -> Option<(Vec<u8>, ClientHello)> {
    let mut records = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        let n = tcp.read(&mut buf).await.ok().filter(|n| *n > 0)?;
        records.extend_from_slice(&buf[..n]);
        // Join the handshake records' payloads.
        let mut handshake = Vec::new();
        let mut i = 0;
        while i + 5 <= records.len() && records[i] == 0x16 {
            let len = u16::from_be_bytes([records[i + 3], records[i + 4]]) as usize;
            let Some(payload) = records.get(i + 5..i + 5 + len) else {
                break;
            };
            handshake.extend_from_slice(payload);
            i += 5 + len;
        }
        if let Some(hello) = ClientHello::parse(&handshake) {
            return Some((records, hello));
        }
    }
}

/// One connection: the hello read raw, then the bytes read and the rest of
/// the stream handed to rustls, then HTTP/2 read raw over TLS.
async fn capture(
    mut tcp: tokio::net::TcpStream,
    acceptor: tokio_rustls::TlsAcceptor,
) -> Option<Capture> {
    let (records, hello) = read_hello(&mut tcp).await?;
    let (read, write) = tcp.into_split();
    let replayed = tokio::io::join(std::io::Cursor::new(records).chain(read), write);
    let http2 = match acceptor.accept(replayed).await {
        Err(e) => Err(format!("TLS handshake: {e}")),
        Ok(mut tls) if tls.get_ref().1.alpn_protocol() == Some(&b"h2"[..]) => {
            serve_http2(&mut tls).await
        }
        Ok(_) => Err("no ALPN h2 agreed".into()),
    };
    Some(Capture { hello, http2 })
}

/// Listens on loopback with the test certificate, ALPN h2 only, and hands
/// over what each connection shows.
async fn listener(certificates: &Certificates) -> (u16, mpsc::UnboundedReceiver<Capture>) {
    let config = certificates.server_config(&[b"h2"]);
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let socket = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = socket.local_addr().unwrap().port();
    let (tx, rx) = mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = socket.accept().await {
            let (acceptor, tx) = (acceptor.clone(), tx.clone());
            tokio::spawn(async move {
                let shown = tokio::time::timeout(Duration::from_secs(20), capture(tcp, acceptor));
                if let Ok(Some(capture)) = shown.await {
                    let _ = tx.send(capture);
                }
            });
        }
    });
    (port, rx)
}

/// The first connection's hello and HTTP/2 opening within `wait`; panics
/// with what the connections showed instead.
async fn first_http2(
    captures: &mut mpsc::UnboundedReceiver<Capture>,
    wait: Duration,
    client: &str,
) -> (ClientHello, Http2) {
    let deadline = tokio::time::Instant::now() + wait;
    let mut failures = Vec::new();
    loop {
        match tokio::time::timeout_at(deadline, captures.recv()).await {
            Ok(Some(Capture {
                hello,
                http2: Ok(http2),
            })) => return (hello, http2),
            Ok(Some(Capture { http2: Err(e), .. })) => failures.push(e),
            _ => panic!("{client} opened no HTTP/2 connection: {failures:?}"),
        }
    }
}

/// Resolves every name to loopback, which this test's guard lets through.
struct Loopback;

impl Lookup for Loopback {
    fn lookup(&self, _host: &str) -> LookupFuture {
        Box::pin(async { Ok(vec![IpAddr::from([127, 0, 0, 1])]) })
    }
}

/// The hello and HTTP/2 opening of Gleaner's outbound transport for a
/// request of `kind` (none: a plain API call) in a session presenting
/// `browser`, trusting the test CA.
async fn gleaner_capture(
    browser: &'static Profile,
    kind: Option<Kind>,
    certificates: &Certificates,
) -> (ClientHello, Http2) {
    let (port, mut captures) = listener(certificates).await;
    let service = HttpService::new(HttpSettings {
        resolver: GuardedResolver::new(Arc::new(Loopback), |ip: IpAddr| ip.is_loopback()),
        trusted_roots: std::fs::read(certificates.path("ca.pem")).unwrap(),
        ..HttpSettings::default()
    })
    .unwrap();
    let network = Network {
        allow: vec![format!("https://{NAME}:{port}")],
        any_public_host: false,
    };
    let policy = Policy::new("fingerprint", &network, &Limits::default()).unwrap();
    let request = OutboundRequest {
        method: "GET".into(),
        url: format!("https://{NAME}:{port}/"),
        headers: Vec::new(),
        body: None,
        profile: kind,
    };
    let mut session = Session::new();
    session.profile = browser;
    let deadline = Instant::now() + Duration::from_secs(5);
    let answer = service.send(&policy, &session, request, deadline).await;
    let client = format!("{} ({kind:?})", browser.name);
    assert_eq!(
        answer.map(|a| a.status),
        Ok(200),
        "{client} had the listener's answer over HTTP/2"
    );
    first_http2(&mut captures, Duration::from_secs(5), &client).await
}

/// The hello and HTTP/2 opening of Debian's Chromium, headless; fails the
/// test, saying what to install, without it.
async fn chromium_capture(certificates: &Certificates) -> (ClientHello, Http2) {
    let binary = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|b| Path::new(b).exists());
    let Some(binary) = binary else {
        panic!(
            "chromium is not installed: run make test-browser, which installs Debian's chromium"
        );
    };
    let (port, mut captures) = listener(certificates).await;
    let profile = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(binary)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            "--ignore-certificate-errors",
            &format!("--user-data-dir={}", profile.path().display()),
            &format!("--host-resolver-rules=MAP {NAME} 127.0.0.1:{port}"),
            &format!("https://{NAME}/"),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let capture = first_http2(&mut captures, Duration::from_secs(30), "Chromium").await;
    let _ = child.kill().await;
    capture
}

/// Chrome's cipher list as JA4 hashes it: FoxIO's published JA4 of Chrome
/// (t13d1516h2_8daaf6152771_…) and Debian's Chromium measured here agree.
const CHROME_CIPHERS: &str = "8daaf6152771";
/// Firefox's, from FoxIO's published JA4 of Firefox (t13d1715h2_5b57614c22b0_…).
const FIREFOX_CIPHERS: &str = "5b57614c22b0";
/// Chrome's HTTP/2 fingerprint as tls.peet.ws reports it for current Chrome
/// releases; Debian's Chromium 156 measured here sends the same.
const CHROME_HTTP2: &str = "1:65536;2:0;4:6291456;6:262144|15663105|0|m,a,s,p";

#[tokio::test]
#[ignore = "needs chromium and openssl: make test-browser"]
async fn browser_requests_carry_their_browser_s_fingerprint() {
    require("openssl", "test-browser");
    let certificates = Certificates::new(NAME);
    let (plain_hello, plain_h2) = gleaner_capture(&PROFILES[0], None, &certificates).await;
    let (reference, chromium) = chromium_capture(&certificates).await;
    let mut browsers = Vec::new();
    for browser in &PROFILES {
        let (hello, h2) = gleaner_capture(browser, Some(Kind::Document), &certificates).await;
        browsers.push((browser, hello, h2));
    }

    println!("{:<34} {:<38} HTTP/2 (Akamai)", "client", "JA4");
    let row = |client: &str, hello: &ClientHello, h2: &Http2| {
        println!("{client:<34} {:<38} {}", hello.ja4(), h2.akamai());
    };
    row("plain API call (reqwest, rustls)", &plain_hello, &plain_h2);
    row("chromium (Debian, headless)", &reference, &chromium);
    for (browser, hello, h2) in &browsers {
        row(&format!("{} ({:?})", browser.name, browser.wire), hello, h2);
    }

    let plain = plain_hello.ja4();
    assert_eq!(reference.ja4().split('_').nth(1), Some(CHROME_CIPHERS));
    for (browser, hello, h2) in &browsers {
        let ja4 = hello.ja4();
        assert_ne!(ja4, plain, "a browser request does not look like rustls");
        assert!(ja4.starts_with("t13d"), "TLS 1.3 with SNI: {ja4}");
        assert_eq!(hello.alpn.first().map(String::as_str), Some("h2"));
        if browser.name.starts_with("firefox") {
            assert_eq!(ja4.split('_').nth(1), Some(FIREFOX_CIPHERS), "{ja4}");
            assert_eq!(h2.pseudo_headers, ['m', 'p', 'a', 's'], "{}", h2.akamai());
        }
        if !browser.name.starts_with("chrome") {
            continue;
        }
        assert_eq!(ja4.split('_').nth(1), Some(CHROME_CIPHERS), "{ja4}");
        assert!(ja4.starts_with("t13d15"), "Chrome's 15 ciphers: {ja4}");
        assert_eq!(h2.akamai(), CHROME_HTTP2, "Chrome's HTTP/2 opening");
        assert_ne!(h2.akamai(), plain_h2.akamai(), "not what rustls sends");
        assert_eq!(h2.settings, chromium.settings, "Chromium's SETTINGS");
        assert_eq!(h2.window_update, chromium.window_update);
        assert_eq!(h2.pseudo_headers, chromium.pseudo_headers);
        let extensions =
            |h: &ClientHello| -> BTreeSet<u16> { non_grease(&h.extensions).into_iter().collect() };
        let (ours, theirs) = (extensions(hello), extensions(&reference));
        println!(
            "  {}: extensions only in Chromium {:04x?}, only in the emulation {:04x?}",
            browser.name,
            theirs.difference(&ours).collect::<Vec<_>>(),
            ours.difference(&theirs).collect::<Vec<_>>()
        );
    }
}
