//! DNS rebinding: the connection goes to exactly the addresses that passed the
//! guard. A resolver that answers an allowed address first and a forbidden one
//! after must never see its second answer used, over either transport (plain
//! API calls and browser requests).

use std::net::IpAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::routing::get;
use axum::Router;
use gleaner::capabilities::http::policy::Policy;
use gleaner::capabilities::http::profile::Kind;
use gleaner::capabilities::http::resolver::{GuardedResolver, Lookup, LookupFuture};
use gleaner::capabilities::http::{HttpError, HttpService, HttpSettings, OutboundRequest};
use gleaner::manifest::{Limits, Network};

/// Stands in for "public": only this address passes the test's guard.
const ALLOWED: [u8; 4] = [127, 0, 0, 2];
const FORBIDDEN: [u8; 4] = [127, 0, 0, 3];

fn allowed(ip: IpAddr) -> bool {
    ip == IpAddr::from(ALLOWED)
}

/// Answers the allowed address on the first lookup and the forbidden one after.
struct Rebinding {
    lookups: AtomicUsize,
}

impl Lookup for Rebinding {
    fn lookup(&self, _host: &str) -> LookupFuture {
        let n = self.lookups.fetch_add(1, Ordering::SeqCst);
        let ip = if n == 0 { ALLOWED } else { FORBIDDEN };
        Box::pin(async move { Ok(vec![IpAddr::from(ip)]) })
    }
}

/// Always answers the forbidden address.
struct Forbidden;

impl Lookup for Forbidden {
    fn lookup(&self, _host: &str) -> LookupFuture {
        Box::pin(async move { Ok(vec![IpAddr::from(FORBIDDEN)]) })
    }
}

async fn listener(ip: [u8; 4], port: u16, hits: Arc<AtomicUsize>) -> u16 {
    let socket = tokio::net::TcpListener::bind((IpAddr::from(ip), port))
        .await
        .unwrap();
    let port = socket.local_addr().unwrap().port();
    let router = Router::new().fallback(get(move || {
        hits.fetch_add(1, Ordering::SeqCst);
        async { "reached" }
    }));
    tokio::spawn(async move { axum::serve(socket, router).await.unwrap() });
    port
}

fn service(lookup: Arc<dyn Lookup>) -> HttpService {
    HttpService::new(HttpSettings {
        resolver: GuardedResolver::new(lookup, allowed),
        ..HttpSettings::default()
    })
    .unwrap()
}

fn policy(port: u16) -> Policy {
    let network = Network {
        allow: vec![format!("http://rebind.test:{port}")],
        any_public_host: false,
    };
    Policy::new("rebinding-test", &network, &Limits::default()).unwrap()
}

/// A GET of the test name: a plain API call, or (`kind`) a browser request,
/// which goes out over the browser transport.
fn get_request(port: u16, kind: Option<Kind>) -> OutboundRequest {
    OutboundRequest {
        method: "GET".into(),
        url: format!("http://rebind.test:{port}/x"),
        headers: vec![("connection".into(), "close".into())],
        body: None,
        profile: kind,
    }
}

/// Both transports: the guard is below each of them.
const TRANSPORTS: [Option<Kind>; 2] = [None, Some(Kind::Document)];

#[tokio::test]
async fn connections_use_only_the_addresses_that_passed_the_check() {
    for kind in TRANSPORTS {
        let good_hits = Arc::new(AtomicUsize::new(0));
        let bad_hits = Arc::new(AtomicUsize::new(0));
        let port = listener(ALLOWED, 0, good_hits.clone()).await;
        listener(FORBIDDEN, port, bad_hits.clone()).await;

        let lookup = Arc::new(Rebinding {
            lookups: AtomicUsize::new(0),
        });
        let http = service(lookup.clone());
        let deadline = Instant::now() + Duration::from_secs(5);
        let response = http
            .send(
                &policy(port),
                &Default::default(),
                get_request(port, kind),
                deadline,
            )
            .await
            .expect("the first answer is allowed and is the one connected to");
        assert_eq!(response.body, b"reached");
        assert_eq!(good_hits.load(Ordering::SeqCst), 1);
        assert_eq!(
            lookup.lookups.load(Ordering::SeqCst),
            1,
            "one lookup per connection: no second lookup between check and connect"
        );

        // The next connection looks the name up again and gets the forbidden answer: refused.
        let again = http
            .send(
                &policy(port),
                &Default::default(),
                get_request(port, kind),
                deadline,
            )
            .await;
        assert!(matches!(again, Err(HttpError::Denied(_))), "{again:?}");
        assert_eq!(
            bad_hits.load(Ordering::SeqCst),
            0,
            "the rebound address is never reached"
        );
    }
}

#[tokio::test]
async fn a_name_with_only_forbidden_addresses_is_denied() {
    for kind in TRANSPORTS {
        let bad_hits = Arc::new(AtomicUsize::new(0));
        let port = listener(FORBIDDEN, 0, bad_hits.clone()).await;
        let http = service(Arc::new(Forbidden));
        let deadline = Instant::now() + Duration::from_secs(5);
        let result = http
            .send(
                &policy(port),
                &Default::default(),
                get_request(port, kind),
                deadline,
            )
            .await;
        match result {
            Err(HttpError::Denied(message)) => assert!(message.contains("no public address")),
            other => panic!("expected a denial, got {other:?}"),
        }
        assert_eq!(bad_hits.load(Ordering::SeqCst), 0);
    }
}
