//! TLS fingerprints on the wire: a loopback listener reads the raw
//! ClientHello a client sends and computes its JA4 (FoxIO's TLS client
//! fingerprint), then closes the connection. Sites behind Cloudflare, Akamai,
//! DataDome and PerimeterX judge a client by it before any HTTP is sent.
//! A browser request of each session profile must carry its browser's
//! fingerprint (Chrome's and Firefox's cipher sets as published, and never the
//! rustls one a plain API call keeps); Debian's Chromium, run headless against
//! the same listener, is the reference it is printed beside (skipped, and said
//! so, when Chromium is not installed).

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
use sha2::Digest;
use tokio::io::AsyncReadExt;

/// The name both clients ask for, so both send SNI.
const NAME: &str = "fingerprint.test";

/// A ClientHello's fields that JA4 reads.
#[derive(Debug, Default, PartialEq, Eq)]
struct ClientHello {
    /// The record's `legacy_version` field.
    legacy_version: u16,
    ciphers: Vec<u16>,
    /// Extension types in the order sent.
    extensions: Vec<u16>,
    /// `supported_versions`, in order.
    versions: Vec<u16>,
    /// `signature_algorithms`, in order.
    signature_algorithms: Vec<u16>,
    /// ALPN protocols, in order.
    alpn: Vec<String>,
    sni: bool,
}

/// GREASE values (RFC 8701): `0x?a?a` with both bytes equal.
fn grease(v: u16) -> bool {
    v & 0x0f0f == 0x0a0a && v >> 8 == v & 0xff
}

fn u16_at(b: &[u8], i: usize) -> Option<u16> {
    Some(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?]))
}

impl ClientHello {
    /// Reads a ClientHello from the handshake bytes (the records' payloads
    /// joined), or none when they do not hold a whole one.
    fn parse(h: &[u8]) -> Option<ClientHello> {
        if *h.first()? != 1 {
            return None;
        }
        let len = u32::from_be_bytes([0, *h.get(1)?, *h.get(2)?, *h.get(3)?]) as usize;
        let body = h.get(4..4 + len)?;
        let mut hello = ClientHello {
            legacy_version: u16_at(body, 0)?,
            ..ClientHello::default()
        };
        let mut i = 2 + 32;
        let session_len = *body.get(i)? as usize;
        i += 1 + session_len;
        let ciphers_len = u16_at(body, i)? as usize;
        i += 2;
        for c in body.get(i..i + ciphers_len)?.chunks(2) {
            hello.ciphers.push(u16::from_be_bytes([c[0], *c.get(1)?]));
        }
        i += ciphers_len;
        let compression_len = *body.get(i)? as usize;
        i += 1 + compression_len;
        let extensions_len = u16_at(body, i)? as usize;
        i += 2;
        let end = i + extensions_len;
        while i + 4 <= end {
            let kind = u16_at(body, i)?;
            let len = u16_at(body, i + 2)? as usize;
            let data = body.get(i + 4..i + 4 + len)?;
            hello.extensions.push(kind);
            match kind {
                0x0000 => hello.sni = true,
                0x000d => hello.signature_algorithms = u16_list(data.get(2..)?),
                0x002b => hello.versions = u16_list(data.get(1..)?),
                0x0010 => {
                    let mut j = 2;
                    while let Some(&n) = data.get(j) {
                        let name = data.get(j + 1..j + 1 + n as usize)?;
                        hello.alpn.push(String::from_utf8_lossy(name).into_owned());
                        j += 1 + n as usize;
                    }
                }
                _ => {}
            }
            i += 4 + len;
        }
        Some(hello)
    }

    /// The JA4 fingerprint: `t<version><d|i><ciphers><extensions><alpn>_<ciphers
    /// hash>_<extensions and signature algorithms hash>`.
    fn ja4(&self) -> String {
        let version = self
            .versions
            .iter()
            .copied()
            .filter(|v| !grease(*v))
            .max()
            .unwrap_or(self.legacy_version);
        let version = match version {
            0x0304 => "13",
            0x0303 => "12",
            0x0302 => "11",
            0x0301 => "10",
            _ => "00",
        };
        let ciphers: Vec<u16> = self
            .ciphers
            .iter()
            .copied()
            .filter(|c| !grease(*c))
            .collect();
        let extensions: Vec<u16> = self
            .extensions
            .iter()
            .copied()
            .filter(|e| !grease(*e))
            .collect();
        let alpn = match self.alpn.first().map(|a| a.as_bytes()) {
            Some([first, .., last]) => format!("{}{}", *first as char, *last as char),
            Some([only]) => format!("{}{}", *only as char, *only as char),
            _ => "00".into(),
        };
        let a = format!(
            "t{version}{}{:02}{:02}{alpn}",
            if self.sni { 'd' } else { 'i' },
            ciphers.len().min(99),
            extensions.len().min(99)
        );
        let mut sorted_ciphers = ciphers.clone();
        sorted_ciphers.sort_unstable();
        let b = hash12(&hex_list(&sorted_ciphers));
        let mut sorted_extensions: Vec<u16> = extensions
            .iter()
            .copied()
            .filter(|e| !matches!(e, 0x0000 | 0x0010))
            .collect();
        sorted_extensions.sort_unstable();
        let algorithms: Vec<u16> = self
            .signature_algorithms
            .iter()
            .copied()
            .filter(|s| !grease(*s))
            .collect();
        let c_text = if algorithms.is_empty() {
            hex_list(&sorted_extensions)
        } else {
            format!("{}_{}", hex_list(&sorted_extensions), hex_list(&algorithms))
        };
        format!("{a}_{b}_{}", hash12(&c_text))
    }
}

fn u16_list(b: &[u8]) -> Vec<u16> {
    b.chunks(2)
        .filter(|c| c.len() == 2)
        .map(|c| u16::from_be_bytes([c[0], c[1]]))
        .collect()
}

fn hex_list(values: &[u16]) -> String {
    values
        .iter()
        .map(|v| format!("{v:04x}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// The first 12 hex digits of the text's SHA-256, or twelve zeros for none.
fn hash12(text: &str) -> String {
    if text.is_empty() {
        return "000000000000".into();
    }
    hex::encode(sha2::Sha256::digest(text.as_bytes()))[..12].to_owned()
}

/// Listens on loopback and hands over the ClientHello of the first client
/// that sends one.
async fn listener() -> (u16, tokio::sync::oneshot::Receiver<ClientHello>) {
    let socket = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = socket.local_addr().unwrap().port();
    let (tx, rx) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let mut tx = Some(tx);
        while let Ok((mut stream, _)) = socket.accept().await {
            let mut records = Vec::new();
            let mut handshake = Vec::new();
            let mut buf = [0u8; 4096];
            while let Ok(n) = stream.read(&mut buf).await {
                if n == 0 {
                    break;
                }
                records.extend_from_slice(&buf[..n]);
                // Join the handshake records' payloads.
                handshake.clear();
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
                    if let Some(tx) = tx.take() {
                        let _ = tx.send(hello);
                    }
                    break;
                }
            }
        }
    });
    (port, rx)
}

/// Resolves every name to loopback, which this test's guard lets through.
struct Loopback;

impl Lookup for Loopback {
    fn lookup(&self, _host: &str) -> LookupFuture {
        Box::pin(async { Ok(vec![IpAddr::from([127, 0, 0, 1])]) })
    }
}

/// The ClientHello Gleaner's outbound transport sends for a request of
/// `kind` (none: a plain API call) in a session presenting `browser`.
async fn gleaner_hello(browser: &'static Profile, kind: Option<Kind>) -> ClientHello {
    let (port, hello) = listener().await;
    let service = HttpService::new(HttpSettings {
        resolver: GuardedResolver::new(Arc::new(Loopback), |ip: IpAddr| ip.is_loopback()),
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
    // The listener closes after the hello: the request fails, the hello is read.
    let _ = service.send(&policy, &session, request, deadline).await;
    tokio::time::timeout(Duration::from_secs(5), hello)
        .await
        .expect("Gleaner sent a ClientHello")
        .unwrap()
}

/// The ClientHello of Debian's Chromium, headless, or none without it.
async fn chromium_hello() -> Option<ClientHello> {
    let binary = ["/usr/bin/chromium", "/usr/bin/chromium-browser"]
        .into_iter()
        .find(|b| Path::new(b).exists());
    let Some(binary) = binary else {
        println!("skipped: chromium not installed (make test-browser installs it)");
        return None;
    };
    let (port, hello) = listener().await;
    let profile = tempfile::tempdir().unwrap();
    let mut child = tokio::process::Command::new(binary)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--no-first-run",
            &format!("--user-data-dir={}", profile.path().display()),
            &format!("--host-resolver-rules=MAP {NAME} 127.0.0.1:{port}"),
            &format!("https://{NAME}/"),
        ])
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let hello = tokio::time::timeout(Duration::from_secs(30), hello).await;
    let _ = child.kill().await;
    Some(hello.expect("Chromium sent a ClientHello").unwrap())
}

#[test]
fn ja4_reads_a_hello_as_specified() {
    // A TLS 1.3 hello with GREASE, SNI, ALPN h2 and two signature algorithms.
    let hello = ClientHello {
        legacy_version: 0x0303,
        ciphers: vec![0x1a1a, 0x1302, 0x1301],
        extensions: vec![0x2a2a, 0x0000, 0x0010, 0x002b, 0x000d],
        versions: vec![0x3a3a, 0x0304, 0x0303],
        signature_algorithms: vec![0x0403, 0x0804],
        alpn: vec!["h2".into(), "http/1.1".into()],
        sni: true,
    };
    let ja4 = hello.ja4();
    assert!(ja4.starts_with("t13d0204h2_"), "{ja4}");
    let parts: Vec<&str> = ja4.split('_').collect();
    assert_eq!(parts[1], hash12("1301,1302"), "sorted, GREASE left out");
    assert_eq!(parts[2], hash12("000d,002b_0403,0804"), "no SNI or ALPN");
    assert!(grease(0x0a0a) && grease(0xfafa) && !grease(0x0a1a));
}

/// Chrome's cipher list as JA4 hashes it: FoxIO's published JA4 of Chrome
/// (t13d1516h2_8daaf6152771_…) and Debian's Chromium measured here agree.
const CHROME_CIPHERS: &str = "8daaf6152771";
/// Firefox's, from FoxIO's published JA4 of Firefox (t13d1715h2_5b57614c22b0_…).
const FIREFOX_CIPHERS: &str = "5b57614c22b0";

#[tokio::test]
async fn browser_requests_carry_their_browser_s_fingerprint() {
    let plain = gleaner_hello(&PROFILES[0], None).await.ja4();
    println!("plain API call (reqwest, rustls): {plain}");
    let reference = chromium_hello().await;
    if let Some(reference) = &reference {
        println!("chromium (Debian, headless): {}", reference.ja4());
        assert_eq!(reference.ja4().split('_').nth(1), Some(CHROME_CIPHERS));
    }
    for browser in &PROFILES {
        let hello = gleaner_hello(browser, Some(Kind::Document)).await;
        let ja4 = hello.ja4();
        println!("{} ({:?}): {ja4}", browser.name, browser.wire);
        assert_ne!(ja4, plain, "a browser request does not look like rustls");
        assert!(ja4.starts_with("t13d"), "TLS 1.3 with SNI: {ja4}");
        assert_eq!(hello.alpn.first().map(String::as_str), Some("h2"));
        if browser.name.starts_with("firefox") {
            assert_eq!(ja4.split('_').nth(1), Some(FIREFOX_CIPHERS), "{ja4}");
        }
        if browser.name.starts_with("chrome") {
            assert_eq!(ja4.split('_').nth(1), Some(CHROME_CIPHERS), "{ja4}");
            assert!(
                ja4.starts_with("t13d15"),
                "Chrome's 15 cipher suites: {ja4}"
            );
            if let Some(reference) = &reference {
                let ours: std::collections::BTreeSet<u16> = hello
                    .extensions
                    .iter()
                    .copied()
                    .filter(|e| !grease(*e))
                    .collect();
                let theirs: std::collections::BTreeSet<u16> = reference
                    .extensions
                    .iter()
                    .copied()
                    .filter(|e| !grease(*e))
                    .collect();
                println!(
                    "  extensions only in Chromium: {:04x?}; only in the emulation: {:04x?}",
                    theirs.difference(&ours).collect::<Vec<_>>(),
                    ours.difference(&theirs).collect::<Vec<_>>()
                );
            }
        }
    }
}
