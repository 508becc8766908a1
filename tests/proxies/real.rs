//! Proxies as operators run them, started by the test on loopback: Squid
//! carrying HTTPS through `CONNECT` with basic authentication, and a SOCKS5
//! proxy (microsocks) with a user name and password. Behind them is an HTTPS
//! site whose certificate the server trusts through `upstream_ca_file`. Both
//! wires go through them: a plugin's fetch (browser requests, over wreq), a
//! plain API call the HTTP service makes (no profile, over reqwest and
//! rustls), and the requests of a page open in the headless browser. The
//! tests need Debian's squid, microsocks and openssl (and one of them
//! Chromium), so they are `#[ignore]`d: `make test` installs nothing and
//! lists them as ignored, and `make test-proxies` installs the tools and runs
//! them. Run without a tool it needs, a test fails saying what to install.
//! That no log line, HAR entry or metric holds a proxy's credentials is the
//! secrets test's (`security::secrets`); here the answers are checked.

use crate::common;
use crate::sessions::{site_router, PLUGIN, ROUTE};

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use gleaner::capabilities::http::overrides::Overrides;
use gleaner::capabilities::http::policy::Policy;
use gleaner::capabilities::http::proxies::ProxySettings;
use gleaner::capabilities::http::session::Session;
use gleaner::capabilities::http::{HttpError, HttpService, HttpSettings, OutboundRequest};
use gleaner::manifest::{Limits, Network};
use serde_json::json;
use tokio_rustls::rustls;
use tokio_rustls::rustls::pki_types::pem::PemObject;
use tokio_rustls::rustls::pki_types::{CertificateDer, PrivateKeyDer};

/// The site's name, which only Squid can resolve (from its `hosts_file`): an
/// answer under it came through the proxy.
const SITE: &str = "site.proxied.test";
const USER: &str = "gleaner";
const PASSWORD: &str = "pr0xy-s3cret";

/// Fails the test when `tool` is not installed, saying to run
/// `make {target}`, which installs it.
pub(crate) fn require(tool: &str, target: &str) {
    let found = ["/usr/sbin", "/usr/bin", "/sbin", "/bin"]
        .iter()
        .any(|dir| Path::new(dir).join(tool).exists());
    assert!(
        found,
        "{tool} is not installed: run make {target}, which installs Debian's {tool}"
    );
}

/// A test CA and a certificate it signed for one name and 127.0.0.1, made
/// with the openssl CLI.
pub(crate) struct Certificates {
    dir: tempfile::TempDir,
}

impl Certificates {
    /// A new CA, and a certificate for `name` and 127.0.0.1 signed by it.
    pub(crate) fn new(name: &str) -> Certificates {
        let dir = tempfile::tempdir().unwrap();
        let run = |args: &[&str]| {
            let status = Command::new("openssl")
                .args(args)
                .current_dir(dir.path())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status()
                .expect("openssl runs");
            assert!(status.success(), "openssl {args:?}");
        };
        run(&[
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "ca.key",
            "-out",
            "ca.pem",
            "-days",
            "2",
            "-subj",
            "/CN=Gleaner test CA",
            "-addext",
            "basicConstraints=critical,CA:TRUE",
            "-addext",
            "keyUsage=critical,keyCertSign",
        ]);
        run(&[
            "req", "-newkey", "rsa:2048", "-nodes", "-keyout", "site.key", "-out", "site.csr",
            "-subj", "/CN=site",
        ]);
        std::fs::write(
            dir.path().join("site.ext"),
            format!(
                "subjectAltName=DNS:{name},IP:127.0.0.1\nbasicConstraints=CA:FALSE\n\
                 extendedKeyUsage=serverAuth\n"
            ),
        )
        .unwrap();
        run(&[
            "x509",
            "-req",
            "-in",
            "site.csr",
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "site.pem",
            "-days",
            "2",
            "-extfile",
            "site.ext",
        ]);
        Certificates { dir }
    }

    /// One of the files: `ca.pem`, `site.pem`, `site.key`.
    pub(crate) fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    /// A rustls server configuration presenting the certificate, offering
    /// the ALPN protocols `alpn` (none: no ALPN).
    pub(crate) fn server_config(&self, alpn: &[&[u8]]) -> rustls::ServerConfig {
        let certs: Vec<CertificateDer<'static>> =
            CertificateDer::pem_file_iter(self.path("site.pem"))
                .unwrap()
                .collect::<Result<_, _>>()
                .unwrap();
        let key = PrivateKeyDer::from_pem_file(self.path("site.key")).unwrap();
        let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(
            rustls::crypto::ring::default_provider(),
        ))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(certs, key)
        .unwrap();
        config.alpn_protocols = alpn.iter().map(|p| p.to_vec()).collect();
        config
    }
}

/// Serves the session site of `crate::sessions` over HTTPS on loopback.
async fn https_site(certificates: &Certificates) -> (Arc<crate::sessions::Seen>, SocketAddr) {
    let config = certificates.server_config(&[]);
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let (seen, router) = site_router();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let (acceptor, router) = (acceptor.clone(), router.clone());
            tokio::spawn(async move {
                let Ok(stream) = acceptor.accept(tcp).await else {
                    return;
                };
                let service = hyper_util::service::TowerToHyperService::new(router);
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    (seen, addr)
}

/// Waits until something listens on `port`.
fn wait_for(port: u16, what: &str, log: &Path) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    panic!(
        "{what} did not listen on {port}: {}",
        std::fs::read_to_string(log).unwrap_or_default()
    );
}

/// A proxy process, stopped when dropped, with its directory and log.
struct Running {
    child: Child,
    dir: tempfile::TempDir,
    port: u16,
}

impl Drop for Running {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Running {
    fn log(&self, name: &str) -> String {
        std::fs::read_to_string(self.dir.path().join(name)).unwrap_or_default()
    }

    /// The log once it holds `needle`, waiting a little: Squid writes a
    /// tunnel's line when the tunnel closes.
    async fn log_with(&self, name: &str, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let log = self.log(name);
            if log.contains(needle) || Instant::now() > deadline {
                return log;
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }
}

/// Squid on loopback, with basic authentication for [`USER`] and the
/// password `password`, resolving [`SITE`] to 127.0.0.1.
fn squid(password: &str) -> Running {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().to_owned();
    // Squid drops root for its own user, which must read and write here.
    std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o777)).unwrap();
    let hash = Command::new("openssl")
        .args(["passwd", "-apr1", password])
        .output()
        .unwrap();
    let hash = String::from_utf8(hash.stdout).unwrap();
    std::fs::write(path.join("passwd"), format!("{USER}:{}", hash.trim())).unwrap();
    std::fs::write(path.join("hosts"), format!("127.0.0.1 {SITE}\n")).unwrap();
    let port = common::free_port();
    let d = path.display();
    let config = format!(
        "http_port 127.0.0.1:{port}\npid_filename {d}/squid.pid\ncache_log {d}/cache.log\n\
         access_log stdio:{d}/access.log\ncache deny all\nhosts_file {d}/hosts\n\
         netdb_filename none\npinger_enable off\nshutdown_lifetime 0 seconds\ncoredump_dir {d}\n\
         read_timeout 2 seconds\n\
         auth_param basic program /usr/lib/squid/basic_ncsa_auth {d}/passwd\n\
         acl users proxy_auth REQUIRED\nhttp_access allow users\nhttp_access deny all\n"
    );
    std::fs::write(path.join("squid.conf"), config).unwrap();
    let out = std::fs::File::create(path.join("out.log")).unwrap();
    let child = Command::new("squid")
        .args(["-N", "-f"])
        .arg(path.join("squid.conf"))
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap();
    wait_for(port, "squid", &path.join("cache.log"));
    Running { child, dir, port }
}

/// microsocks on loopback, for [`USER`] and [`PASSWORD`].
fn microsocks() -> Running {
    let dir = tempfile::tempdir().unwrap();
    let port = common::free_port();
    let out = std::fs::File::create(dir.path().join("out.log")).unwrap();
    let child = Command::new("microsocks")
        .args([
            "-i",
            "127.0.0.1",
            "-p",
            &port.to_string(),
            "-u",
            USER,
            "-P",
            PASSWORD,
        ])
        .stdout(out.try_clone().unwrap())
        .stderr(out)
        .spawn()
        .unwrap();
    wait_for(port, "microsocks", &dir.path().join("out.log"));
    Running { child, dir, port }
}

/// A server whose plugin reaches the site at `base` through `proxies`,
/// trusting the test CA.
async fn server(base: String, proxies: Vec<String>, ca: PathBuf) -> common::Server {
    common::start(&[PLUGIN], move |c| {
        c.replay = None;
        c.proxies.urls = proxies;
        c.upstream_ca_file = Some(ca);
        c.upstream_override
            .insert(format!("{PLUGIN}:cookies.test"), base);
    })
    .await
}

/// The HTTPS site behind a proxy that knows `USER`/`PASSWORD`: the test CA,
/// what the site has seen, the proxy and its URL, and the site's base URL.
struct Behind {
    certificates: Certificates,
    seen: Arc<crate::sessions::Seen>,
    port: u16,
    proxy: Running,
    url: String,
    base: String,
}

/// The site behind `proxy`, which the plugin reaches as `scheme://` with the
/// user and password, the site named `host`.
async fn behind(proxy: Running, scheme: &str, host: &str) -> Behind {
    let certificates = Certificates::new(SITE);
    let (seen, addr) = https_site(&certificates).await;
    let url = format!("{scheme}://{USER}:{PASSWORD}@127.0.0.1:{}", proxy.port);
    let base = format!("https://{host}:{}", addr.port());
    Behind {
        certificates,
        seen,
        port: addr.port(),
        proxy,
        url,
        base,
    }
}

/// Behind microsocks (SOCKS5), the site is reached by its address.
async fn behind_socks() -> Behind {
    behind(microsocks(), "socks5", "127.0.0.1").await
}

/// Behind Squid, the site's name resolves only in Squid's `hosts_file`.
async fn behind_squid() -> Behind {
    behind(squid(PASSWORD), "http", SITE).await
}

#[tokio::test]
#[ignore = "needs squid and openssl: make test-proxies"]
async fn squid_carries_every_https_request_of_a_fetch_through_connect() {
    require("squid", "test-proxies");
    require("openssl", "test-proxies");
    // The site's name resolves only in Squid: every answer came through it.
    let site = behind_squid().await;
    let ca = site.certificates.path("ca.pem");
    let s = server(site.base.clone(), vec![site.url.clone()], ca).await;
    let (status, body) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(common::ids(&body).len(), 6);
    assert_eq!(site.seen.visits.load(Ordering::SeqCst), 1);
    assert_eq!(
        site.seen.refused.load(Ordering::SeqCst),
        0,
        "cookies went along"
    );
    // The server's pooled tunnels close with it.
    drop(s);
    let connect = format!("CONNECT {SITE}:{}", site.port);
    let log = site.proxy.log_with("access.log", &connect).await;
    assert!(
        log.contains(&connect) && log.contains(USER),
        "Squid tunnelled the fetch as {USER}: {log}"
    );
    assert!(!log.contains(PASSWORD));
}

#[tokio::test]
#[ignore = "needs squid and openssl: make test-proxies"]
async fn a_proxy_that_refuses_the_credentials_is_retired_and_named_without_them() {
    require("squid", "test-proxies");
    require("openssl", "test-proxies");
    let certificates = Certificates::new(SITE);
    let (seen, addr) = https_site(&certificates).await;
    let refusing = squid("another-password");
    let refusing_url = format!("http://{USER}:{PASSWORD}@127.0.0.1:{}", refusing.port);
    let base = format!("https://{SITE}:{}", addr.port());
    let s = server(
        base.clone(),
        vec![refusing_url.clone()],
        certificates.path("ca.pem"),
    )
    .await;
    let (status, body) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 502, "{body}");
    assert_eq!(seen.visits.load(Ordering::SeqCst), 0, "nothing got past");
    let error = body["error"].as_str().unwrap_or_default();
    assert!(
        error.contains("did not carry the request") && error.contains("[proxies] urls"),
        "the error names the proxy's failure and where to fix it: {error}"
    );
    assert!(!body.to_string().contains(PASSWORD), "{body}");
    drop(s);
    let log = refusing.log_with("access.log", "TCP_DENIED/407").await;
    assert!(
        log.contains("TCP_DENIED/407"),
        "Squid refused the credentials: {log}"
    );

    // Beside a working proxy, the refusing one is retired for the site and
    // the fetch goes on through the other.
    let good = squid(PASSWORD);
    let good_url = format!("http://{USER}:{PASSWORD}@127.0.0.1:{}", good.port);
    let s = server(
        base,
        vec![refusing_url, good_url],
        certificates.path("ca.pem"),
    )
    .await;
    let (status, body) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(common::ids(&body).len(), 6);
    assert_eq!(seen.visits.load(Ordering::SeqCst), 1);
}

#[tokio::test]
#[ignore = "needs microsocks and openssl: make test-proxies"]
async fn a_socks5_proxy_with_a_password_carries_the_fetch() {
    require("microsocks", "test-proxies");
    require("openssl", "test-proxies");
    let Behind {
        certificates,
        seen,
        port,
        proxy,
        url,
        base,
    } = behind_socks().await;
    let s = server(base, vec![url], certificates.path("ca.pem")).await;
    let (status, body) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_eq!(status, 200, "{body}");
    assert_eq!(common::ids(&body).len(), 6);
    assert_eq!(seen.refused.load(Ordering::SeqCst), 0, "cookies went along");
    let log = proxy.log("out.log");
    assert!(
        log.contains(&format!("connected to 127.0.0.1:{}", port)),
        "the SOCKS5 proxy carried the fetch: {log}"
    );
    drop(proxy);
    // Without its proxy the fetch cannot reach the site: it went through it.
    let (status, body) = s.post(ROUTE, json!({"query": "q"})).await;
    assert_ne!(status, 200, "{body}");
    assert!(!body.to_string().contains(PASSWORD), "{body}");
}

/// The plugin whose plain API calls [`plain_call`] makes, and the host it
/// names, which an upstream override sends to the site.
const PLAIN_PLUGIN: &str = "plain-api";
const API_HOST: &str = "api.plain.test";

/// A plain API call (no browser profile, so reqwest over rustls) for the
/// site's `/visit` at `base`, sent by Gleaner's HTTP service through `proxy`
/// and trusting the test CA: the answer's status.
async fn plain_call(
    base: &str,
    proxy: String,
    certificates: &Certificates,
) -> Result<u16, HttpError> {
    let target = format!("{PLAIN_PLUGIN}:{API_HOST}");
    let service = HttpService::new(HttpSettings {
        overrides: Overrides::new(&[(target, base.to_owned())].into()).unwrap(),
        proxies: ProxySettings {
            urls: vec![proxy],
            cooldown: Duration::from_secs(60),
            ..ProxySettings::default()
        },
        trusted_roots: std::fs::read(certificates.path("ca.pem")).unwrap(),
        ..HttpSettings::default()
    })
    .unwrap();
    let network = Network {
        allow: vec![format!("https://{API_HOST}")],
        any_public_host: false,
    };
    let policy = Policy::new(PLAIN_PLUGIN, &network, &Limits::default()).unwrap();
    let request = OutboundRequest {
        method: "GET".into(),
        url: format!("https://{API_HOST}/visit"),
        headers: Vec::new(),
        body: None,
        profile: None,
    };
    let deadline = Instant::now() + Duration::from_secs(10);
    let session = Session::new();
    let answer = service.send(&policy, &session, request, deadline).await;
    answer.map(|a| a.status)
}

#[tokio::test]
#[ignore = "needs squid and openssl: make test-proxies"]
async fn squid_carries_a_plain_api_call_through_connect() {
    require("squid", "test-proxies");
    require("openssl", "test-proxies");
    // The site's name resolves only in Squid: an answer came through it.
    let site = behind_squid().await;
    let answer = plain_call(&site.base, site.url.clone(), &site.certificates).await;
    assert_eq!(answer, Ok(200));
    assert_eq!(site.seen.visits.load(Ordering::SeqCst), 1);
    let connect = format!("CONNECT {SITE}:{}", site.port);
    let log = site.proxy.log_with("access.log", &connect).await;
    assert!(
        log.contains(&connect) && log.contains(USER),
        "Squid tunnelled the plain call as {USER}: {log}"
    );
}

#[tokio::test]
#[ignore = "needs microsocks and openssl: make test-proxies"]
async fn a_socks5_proxy_with_a_password_carries_a_plain_api_call() {
    require("microsocks", "test-proxies");
    require("openssl", "test-proxies");
    let Behind {
        certificates,
        seen,
        port,
        proxy,
        url,
        base,
    } = behind_socks().await;
    assert_eq!(plain_call(&base, url.clone(), &certificates).await, Ok(200));
    assert_eq!(seen.visits.load(Ordering::SeqCst), 1);
    let log = proxy.log("out.log");
    assert!(
        log.contains(&format!("connected to 127.0.0.1:{}", port)),
        "the SOCKS5 proxy carried the plain call: {log}"
    );
    drop(proxy);
    // Without its proxy the call cannot reach the site: it went through it.
    let refused = plain_call(&base, url, &certificates).await;
    assert!(refused.is_err(), "{refused:?}");
    assert_eq!(seen.visits.load(Ordering::SeqCst), 1);
}

/// A headless-browser visit through Squid: the page's requests go through
/// the session's proxy like every other request of a fetch, and the cookies
/// the page set land in the session.
#[tokio::test]
#[ignore = "needs squid, openssl and chromium: make test-proxies"]
async fn squid_carries_the_browser_s_requests_too() {
    use crate::browser_visits::direct;
    use gleaner::capabilities::browser::visit::{VisitRequest, Wait};
    use gleaner::capabilities::browser::BrowserService;
    require("squid", "test-proxies");
    require("openssl", "test-proxies");
    let browser = BrowserService::new(&Default::default());
    if let Some(why) = browser.unavailable() {
        panic!("chromium is not installed: run make test-proxies, which installs Debian's chromium ({why})");
    }
    let site = behind_squid().await;
    let http = Arc::new(
        HttpService::new(HttpSettings {
            overrides: Overrides::new(&[(direct::SHOP.to_owned(), site.base.clone())].into())
                .unwrap(),
            proxies: ProxySettings {
                urls: vec![site.url.clone()],
                cooldown: Duration::from_secs(60),
                ..ProxySettings::default()
            },
            trusted_roots: std::fs::read(site.certificates.path("ca.pem")).unwrap(),
            ..HttpSettings::default()
        })
        .unwrap(),
    );
    let session = Arc::new(Session::new());
    let egress = direct::egress(&http, &session);
    let request = VisitRequest {
        url: "https://shop.test/visit".parse().unwrap(),
        wait: Wait::Idle,
        keep: vec![],
    };
    let outcome = browser
        .visit(&egress, &request, Instant::now() + Duration::from_secs(30))
        .await
        .unwrap();
    assert_eq!(outcome.status, 200);
    assert!(outcome.document.contains("Welcome"), "{}", outcome.document);
    assert_eq!(site.seen.visits.load(Ordering::SeqCst), 1);
    let connect = format!("CONNECT {SITE}:{}", site.port);
    let log = site.proxy.log_with("access.log", &connect).await;
    assert!(
        log.contains(&connect) && log.contains(USER),
        "Squid tunnelled the browser's request as {USER}: {log}"
    );
    let page = url::Url::parse("https://shop.test/").unwrap();
    assert!(
        session.cookie(&page, "visitor").is_some(),
        "the cookie the page set is in the session"
    );
}
