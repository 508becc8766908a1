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
use sha2::Digest;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::sync::mpsc;

use crate::proxies::real::{require, Certificates};

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

/// The values that are not GREASE, in order.
fn non_grease(values: &[u16]) -> Vec<u16> {
    values.iter().copied().filter(|v| !grease(*v)).collect()
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
        let version = non_grease(&self.versions).into_iter().max();
        let version = match version.unwrap_or(self.legacy_version) {
            0x0304 => "13",
            0x0303 => "12",
            0x0302 => "11",
            0x0301 => "10",
            _ => "00",
        };
        let ciphers = non_grease(&self.ciphers);
        let extensions = non_grease(&self.extensions);
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
        let mut sorted_ciphers = ciphers;
        sorted_ciphers.sort_unstable();
        let b = hash12(&hex_list(&sorted_ciphers));
        let mut sorted_extensions: Vec<u16> = extensions
            .iter()
            .copied()
            .filter(|e| !matches!(e, 0x0000 | 0x0010))
            .collect();
        sorted_extensions.sort_unstable();
        let algorithms = non_grease(&self.signature_algorithms);
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

/// A client's HTTP/2 opening as Akamai's HTTP/2 fingerprint reads it
/// ("Passive Fingerprinting of HTTP/2 Clients", Black Hat Europe 2017).
#[derive(Debug, Default, PartialEq, Eq)]
struct Http2 {
    /// The first SETTINGS frame's `(id, value)` pairs, in the order sent.
    settings: Vec<(u16, u32)>,
    /// The first connection-level WINDOW_UPDATE's increment.
    window_update: Option<u32>,
    /// PRIORITY frames as `(stream, exclusive, depends on, weight)`, the
    /// weight 1-256 (the byte sent plus one).
    priorities: Vec<(u32, bool, u32, u16)>,
    /// The first HEADERS frame's pseudo-headers as `m`, `a`, `s`, `p`.
    pseudo_headers: Vec<char>,
}

impl Http2 {
    /// `SETTINGS|WINDOW_UPDATE|PRIORITY|PSEUDO_HEADER_ORDER`: `id:value`
    /// joined by `;`, the increment or `00`, `stream:exclusive:depends:weight`
    /// joined by `,` or `0`, the letters joined by `,`.
    fn akamai(&self) -> String {
        let settings: Vec<String> = self
            .settings
            .iter()
            .map(|(id, value)| format!("{id}:{value}"))
            .collect();
        let window = self.window_update.map_or("00".into(), |w| w.to_string());
        let mut priorities: Vec<String> = self
            .priorities
            .iter()
            .map(|(s, e, d, w)| format!("{s}:{}:{d}:{w}", u8::from(*e)))
            .collect();
        if priorities.is_empty() {
            priorities.push("0".into());
        }
        let pseudo: Vec<String> = self.pseudo_headers.iter().map(char::to_string).collect();
        let (settings, priorities) = (settings.join(";"), priorities.join(","));
        format!("{settings}|{window}|{priorities}|{}", pseudo.join(","))
    }
}

/// What a client sends first on an HTTP/2 connection (RFC 9113 §3.4).
const PREFACE: &[u8; 24] = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
/// The frame types read or sent here (RFC 9113 §6).
const HEADERS: u8 = 0x1;
const PRIORITY: u8 = 0x2;
const SETTINGS: u8 = 0x4;
const GOAWAY: u8 = 0x7;
const WINDOW_UPDATE: u8 = 0x8;
const CONTINUATION: u8 = 0x9;
/// Frame flags: SETTINGS' ACK and HEADERS' END_STREAM share a bit.
const ACK: u8 = 0x1;
const END_STREAM: u8 = 0x1;
const END_HEADERS: u8 = 0x4;
const PADDED: u8 = 0x8;
const PRIORITY_FLAG: u8 = 0x20;

/// One HTTP/2 frame.
struct Frame {
    kind: u8,
    flags: u8,
    stream: u32,
    payload: Vec<u8>,
}

async fn read_frame(r: &mut (impl AsyncRead + Unpin)) -> std::io::Result<Frame> {
    let mut head = [0u8; 9];
    r.read_exact(&mut head).await?;
    let mut payload = vec![0; u32::from_be_bytes([0, head[0], head[1], head[2]]) as usize];
    r.read_exact(&mut payload).await?;
    Ok(Frame {
        kind: head[3],
        flags: head[4],
        stream: u31_at(&head, 5).unwrap_or_default(),
        payload,
    })
}

/// A 31-bit value (the reserved or exclusive bit cleared) at `i`.
fn u31_at(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_be_bytes(b.get(i..i + 4)?.try_into().ok()?) & 0x7fff_ffff)
}

/// A frame's bytes.
fn frame(kind: u8, flags: u8, stream: u32, payload: &[u8]) -> Vec<u8> {
    let mut bytes = (payload.len() as u32).to_be_bytes()[1..].to_vec();
    bytes.extend_from_slice(&[kind, flags]);
    bytes.extend_from_slice(&stream.to_be_bytes());
    bytes.extend_from_slice(payload);
    bytes
}

/// A HEADERS frame's header block fragment, without padding and priority.
fn fragment(f: &Frame) -> Option<&[u8]> {
    let mut p = &f.payload[..];
    let mut pad = 0;
    if f.flags & PADDED != 0 {
        pad = *p.first()? as usize;
        p = &p[1..];
    }
    if f.flags & PRIORITY_FLAG != 0 {
        p = p.get(5..)?;
    }
    p.get(..p.len().checked_sub(pad)?)
}

/// Reads a client's preface and frames up to the end of its first request's
/// header block: what they say, and the request's stream.
async fn read_http2(r: &mut (impl AsyncRead + Unpin)) -> Result<(Http2, u32), String> {
    let mut preface = [0u8; 24];
    r.read_exact(&mut preface)
        .await
        .map_err(|e| format!("no HTTP/2 preface: {e}"))?;
    if &preface != PREFACE {
        return Err(format!("not an HTTP/2 preface: {preface:?}"));
    }
    let mut h2 = Http2::default();
    let mut settings_seen = false;
    let mut request = None;
    let mut block = Vec::new();
    loop {
        let f = read_frame(r)
            .await
            .map_err(|e| format!("reading frames: {e}"))?;
        match f.kind {
            SETTINGS if f.flags & ACK == 0 && !settings_seen => {
                settings_seen = true;
                h2.settings = f
                    .payload
                    .chunks_exact(6)
                    .map(|c| (u16::from_be_bytes([c[0], c[1]]), u31_at(c, 2).unwrap()))
                    .collect();
            }
            WINDOW_UPDATE if f.stream == 0 && h2.window_update.is_none() => {
                h2.window_update = u31_at(&f.payload, 0);
            }
            PRIORITY if f.payload.len() == 5 => h2.priorities.push((
                f.stream,
                f.payload[0] & 0x80 != 0,
                u31_at(&f.payload, 0).unwrap(),
                u16::from(f.payload[4]) + 1,
            )),
            HEADERS if request.is_none() => {
                request = Some(f.stream);
                block.extend_from_slice(fragment(&f).ok_or("a malformed HEADERS frame")?);
            }
            CONTINUATION if request == Some(f.stream) => block.extend_from_slice(&f.payload),
            _ => {}
        }
        if let (Some(stream), HEADERS | CONTINUATION) = (request, f.kind) {
            if f.flags & END_HEADERS != 0 {
                h2.pseudo_headers =
                    pseudo_header_order(&block).ok_or("an undecodable header block")?;
                return Ok((h2, stream));
            }
        }
    }
}

/// An HPACK integer with a `prefix`-bit prefix at `*i` (RFC 7541 §5.1).
fn hpack_int(b: &[u8], i: &mut usize, prefix: u32) -> Option<usize> {
    let max = (1usize << prefix) - 1;
    let mut value = *b.get(*i)? as usize & max;
    *i += 1;
    if value < max {
        return Some(value);
    }
    for shift in (0..28).step_by(7) {
        let byte = *b.get(*i)?;
        *i += 1;
        value += ((byte & 0x7f) as usize) << shift;
        if byte & 0x80 == 0 {
            return Some(value);
        }
    }
    None
}

/// Skips an HPACK string literal (RFC 7541 §5.2): its length, then as many bytes.
fn skip_string(b: &[u8], i: &mut usize) -> Option<()> {
    *i += hpack_int(b, i, 7)?;
    (*i <= b.len()).then_some(())
}

/// The pseudo-header a static table index names (RFC 7541 Appendix A):
/// 1 `:authority`, 2-3 `:method`, 4-5 `:path`, 6-7 `:scheme`.
fn pseudo_letter(index: usize) -> Option<char> {
    match index {
        1 => Some('a'),
        2 | 3 => Some('m'),
        4 | 5 => Some('p'),
        6 | 7 => Some('s'),
        _ => None,
    }
}

/// The pseudo-headers of a header block, in order: indexed fields and
/// literals with an indexed name; a literal name is never a pseudo-header
/// here, and values are skipped by their length.
fn pseudo_header_order(block: &[u8]) -> Option<Vec<char>> {
    let mut letters = Vec::new();
    let mut i = 0;
    while let Some(&first) = block.get(i) {
        let (index, literal) = match first {
            b if b & 0x80 != 0 => (hpack_int(block, &mut i, 7)?, false),
            b if b & 0xc0 == 0x40 => (hpack_int(block, &mut i, 6)?, true),
            b if b & 0xe0 == 0x20 => {
                hpack_int(block, &mut i, 5)?; // a dynamic table size update
                continue;
            }
            _ => (hpack_int(block, &mut i, 4)?, true),
        };
        if literal {
            if index == 0 {
                skip_string(block, &mut i)?;
            }
            skip_string(block, &mut i)?;
        }
        letters.extend(pseudo_letter(index));
    }
    Some(letters)
}

/// Serves HTTP/2 on an accepted connection: sends the server's preface (an
/// empty SETTINGS; a client may wait for it), reads the client's opening,
/// and answers its request with an empty 200 (`:status 200` is the static
/// table's index 8) and GOAWAY.
async fn serve_http2(tls: &mut (impl AsyncRead + AsyncWrite + Unpin)) -> Result<Http2, String> {
    let preface = frame(SETTINGS, 0, 0, &[]);
    tls.write_all(&preface).await.map_err(|e| e.to_string())?;
    let (http2, stream) = read_http2(tls).await?;
    let mut bytes = frame(SETTINGS, ACK, 0, &[]);
    bytes.extend(frame(HEADERS, END_STREAM | END_HEADERS, stream, &[0x88]));
    let goaway = [stream.to_be_bytes(), [0; 4]].concat(); // NO_ERROR
    bytes.extend(frame(GOAWAY, 0, 0, &goaway));
    let _ = tls.write_all(&bytes).await;
    let _ = tls.shutdown().await;
    Ok(http2)
}

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

#[tokio::test]
async fn the_akamai_fingerprint_reads_an_opening_as_specified() {
    let mut wire = PREFACE.to_vec();
    let settings = [
        [0, 1, 0, 1, 0, 0],
        [0, 2, 0, 0, 0, 0],
        [0, 4, 0, 0x60, 0, 0],
    ];
    wire.extend(frame(SETTINGS, 0, 0, &settings.concat()));
    wire.extend(frame(WINDOW_UPDATE, 0, 0, &15_663_105u32.to_be_bytes()));
    wire.extend(frame(PRIORITY, 0, 3, &[0x80, 0, 0, 1, 200]));
    // :method GET; :authority "ab" (literal, incremental indexing, name 1);
    // x: "y" (literal name); :scheme https; :path "/r" (literal, never
    // indexed, name 4), in a padded HEADERS frame with a priority and a
    // CONTINUATION.
    let block = [
        &[0x82, 0x41, 2, b'a', b'b', 0x40, 1, b'x', 1, b'y'][..],
        &[0x87, 0x14, 2, b'/', b'r'][..],
    ];
    let mut headers = vec![2, 0x80, 0, 0, 0, 255];
    headers.extend_from_slice(block[0]);
    headers.extend_from_slice(&[0, 0]);
    wire.extend(frame(HEADERS, PADDED | PRIORITY_FLAG, 1, &headers));
    wire.extend(frame(CONTINUATION, END_HEADERS, 1, block[1]));
    let (h2, stream) = read_http2(&mut &wire[..]).await.unwrap();
    assert_eq!(stream, 1);
    assert_eq!(
        h2.akamai(),
        "1:65536;2:0;4:6291456|15663105|3:1:1:201|m,a,s,p"
    );
    assert_eq!(Http2::default().akamai(), "|00|0|");
    let mut i = 0;
    assert_eq!(hpack_int(&[0x1f, 0x9a, 0x0a], &mut i, 5), Some(1337));
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
