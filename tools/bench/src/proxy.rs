//! What a proxy adds to each request: one GET to a local upstream, direct and
//! through a local forward proxy, both through the host's HTTP service (policy,
//! session, pacing, classification) with the upstream override.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::Request;
use axum::response::Response;
use gleaner::capabilities::http::overrides::Overrides;
use gleaner::capabilities::http::policy::Policy;
use gleaner::capabilities::http::profile::Kind;
use gleaner::capabilities::http::proxies::ProxySettings;
use gleaner::capabilities::http::session::Session;
use gleaner::capabilities::http::{HttpService, HttpSettings, OutboundRequest};
use gleaner::manifest::{Limits, Network};

use crate::report;

async fn serve(router: axum::Router) -> anyhow::Result<std::net::SocketAddr> {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    tokio::spawn(async move { axum::serve(listener, router).await });
    Ok(addr)
}

/// A forward proxy for plain-http targets.
async fn forward(request: Request) -> Response {
    let client = reqwest::Client::builder()
        .no_proxy()
        .build()
        .expect("client builds");
    let (parts, _) = request.into_parts();
    match client
        .get(parts.uri.to_string())
        .headers(parts.headers)
        .send()
        .await
    {
        Ok(answer) => {
            let status = answer.status();
            let bytes = answer.bytes().await.unwrap_or_default();
            let mut response = Response::new(Body::from(bytes));
            *response.status_mut() = status;
            response
        }
        Err(_) => {
            let mut response = Response::new(Body::empty());
            *response.status_mut() = axum::http::StatusCode::BAD_GATEWAY;
            response
        }
    }
}

async fn timed(service: &HttpService, policy: &Policy, n: usize) -> anyhow::Result<Vec<Duration>> {
    let session = Session::new();
    let mut samples = Vec::with_capacity(n);
    for i in 0..n + 20 {
        let request = OutboundRequest {
            method: "GET".into(),
            url: "http://bench.test/reviews?page=1".into(),
            headers: Vec::new(),
            body: None,
            profile: Some(Kind::Json),
        };
        let started = Instant::now();
        let answer = service
            .send(
                policy,
                &session,
                request,
                Instant::now() + Duration::from_secs(5),
            )
            .await
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        anyhow::ensure!(
            answer.status == 200,
            "the upstream answered {}",
            answer.status
        );
        if i >= 20 {
            samples.push(started.elapsed());
        }
    }
    Ok(samples)
}

/// Times requests direct and through a proxy.
pub async fn overhead_per_request(n: usize) -> anyhow::Result<()> {
    let body = r#"{"reviews":[{"id":"r1","text":"Fine."}],"next":null}"#;
    let upstream = serve(axum::Router::new().fallback(move || async move { body })).await?;
    let proxy = serve(axum::Router::new().fallback(forward)).await?;
    let overrides = Overrides::new(&BTreeMap::from([(
        "bench:bench.test".to_owned(),
        format!("http://{upstream}"),
    )]))
    .map_err(anyhow::Error::msg)?;
    let network = Network {
        allow: vec!["http://bench.test".into()],
        any_public_host: false,
    };
    let policy = Policy::new("bench", &network, &Limits::default()).map_err(anyhow::Error::msg)?;
    let direct = Arc::new(HttpService::new(HttpSettings {
        overrides: overrides.clone(),
        ..HttpSettings::default()
    })?);
    let proxied = Arc::new(HttpService::new(HttpSettings {
        overrides,
        proxies: ProxySettings {
            urls: vec![format!("http://bench:secret@{proxy}")],
            per_plugin: BTreeMap::new(),
            cooldown: Duration::from_secs(600),
        },
        ..HttpSettings::default()
    })?);
    report(
        "local GET through the HTTP service, direct",
        timed(&direct, &policy, n).await?,
    );
    report(
        "local GET through the HTTP service, via a local forward proxy",
        timed(&proxied, &policy, n).await?,
    );
    Ok(())
}
