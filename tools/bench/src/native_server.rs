//! The native server: the same kind of axum routes as the plugin routes, with
//! the plugins' algorithms called natively instead of through wasmtime. The
//! benchmark runs it as a process of its own (`bench --native-server PORT`),
//! as the plugin routes run in the `gleaner` process, and loads both alike.
//!
//! Per request it runs the host's own server code around the algorithm: the
//! same answer layer (request id, security headers, the secrets scrubber over
//! every answer, with the same secrets registered), the request span and
//! request metrics (the Prometheus recorder installed as the server installs
//! it), the API key check, the per-client in-flight limits, method and content
//! type, the body read under its limits, the bulkheads, validation against the
//! plugin's manifest, the call's session and the scrubbing of the output with
//! it; then it calls the algorithm natively. Only what calling a component
//! adds is left out. The review route pages through one page as the driver
//! does for a `reviews_to_fetch` within the first page: one session, the page
//! through the host's HTTP service (replayed), the review contract and text
//! formatting, and a signed continuation token.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderValue, Method, Request};
use axum::response::{IntoResponse, Response};
use gleaner::api::answer::{self, RequestId};
use gleaner::api::auth::ApiKeys;
use gleaner::api::clients::{self, ClientLimits, TrustedProxies};
use gleaner::bindings::types as wit;
use gleaner::capabilities::http::policy::Policy;
use gleaner::capabilities::http::profile::Kind;
use gleaner::capabilities::http::session::Session;
use gleaner::capabilities::http::OutboundRequest;
use gleaner::capabilities::Services;
use gleaner::config::Config;
use gleaner::error::{ApiError, ErrorShape};
use gleaner::manifest::{FieldSpec, Manifest};
use gleaner::record::Review;
use gleaner::runtime::bulkhead::{Bulkheads, Reach};
use gleaner::telemetry::metrics::NONE;
use gleaner::token::{Resume, TokenKey};
use serde_json::{json, Value};
use tracing::Instrument;

use crate::native::{self, Process};
use crate::root;

/// Which native call a route makes.
enum Handler {
    /// A processor: its manifest's fields and its native `process`.
    Processor {
        fields: Vec<FieldSpec>,
        process: Process,
    },
    /// customer-feedback-hub's review route.
    Trustpilot { policy: Policy },
}

struct Route {
    manifest: Manifest,
    handler: Handler,
}

struct Native {
    config: Config,
    keys: ApiKeys,
    clients: ClientLimits,
    trusted: TrustedProxies,
    bulkheads: Bulkheads,
    services: Services,
    tokens: TokenKey,
    routes: HashMap<String, Route>,
}

fn manifest(name: &str) -> anyhow::Result<Manifest> {
    Ok(Manifest::load(
        &root().join("plugins").join(name).join("manifest.toml"),
    )?)
}

/// Serves the native routes on `addr` until the process is stopped, with the
/// Trustpilot pages answered from the recordings in `replay`.
pub async fn run(addr: SocketAddr, replay: &std::path::Path) -> anyhow::Result<()> {
    let config = Config {
        replay: Some(replay.to_owned()),
        ..Config::default()
    };
    let replayed = gleaner::capabilities::http::har::HarReplay::load_list(replay)?;
    let secrets = Arc::new(gleaner::secrets::Secrets::default());
    let services = gleaner::services(&config, secrets.clone(), Some(replayed), None, false)?;
    let mut routes = HashMap::new();
    for (route, process) in native::PROCESSORS {
        let name = route.trim_start_matches("/features/");
        let manifest = manifest(name)?;
        let fields = manifest
            .processor
            .as_ref()
            .map(|p| p.fields.clone())
            .unwrap_or_default();
        routes.insert(
            manifest.route.clone(),
            Route {
                manifest,
                handler: Handler::Processor {
                    fields,
                    process: *process,
                },
            },
        );
    }
    let trustpilot = manifest("customer-feedback-hub")?;
    let policy = Policy::new(&trustpilot.name, &trustpilot.network, &trustpilot.limits)
        .map_err(anyhow::Error::msg)?;
    routes.insert(
        trustpilot.route.clone(),
        Route {
            manifest: trustpilot,
            handler: Handler::Trustpilot { policy },
        },
    );
    // The same secrets as the server's, so the answer layer scrubs alike.
    let _ = gleaner::telemetry::metrics::install();
    let mut secret = [0u8; 32];
    getrandom::getrandom(&mut secret).map_err(|e| anyhow::anyhow!("no random secret: {e}"))?;
    let tokens = TokenKey::from_secret(hex::encode(secret).as_bytes())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    tokens.register_as_secret(&secrets);
    let state = Arc::new(Native {
        keys: ApiKeys::new(&config.api_keys),
        clients: ClientLimits::new(
            config.max_in_flight_per_key,
            config.max_in_flight_per_client,
        ),
        trusted: TrustedProxies::parse(&config.trusted_proxies).map_err(anyhow::Error::msg)?,
        bulkheads: Bulkheads::new(
            config.max_concurrent_requests,
            config.max_concurrent_per_plugin,
            config.reserved_for_local_plugins,
        ),
        tokens,
        services,
        routes,
        config,
    });
    let limits = gleaner::server::ServerLimits::from_config(&state.config);
    let router = axum::Router::new()
        .fallback(dispatch)
        .with_state(state)
        .layer(axum::middleware::from_fn_with_state(secrets, answer::layer));
    let listener = tokio::net::TcpListener::bind(addr).await?;
    gleaner::server::serve(listener, router, limits, std::future::pending()).await?;
    Ok(())
}

/// As the host's dispatcher: the request span, the handler, the plugin
/// headers, the request metric and the "served" event.
async fn dispatch(State(state): State<Arc<Native>>, request: Request<Body>) -> Response {
    let started = Instant::now();
    let request_id = request
        .extensions()
        .get::<RequestId>()
        .map(|id| id.0.clone())
        .unwrap_or_else(answer::new_request_id);
    let path = request.uri().path().to_owned();
    let method = request.method().clone();
    let route = state.routes.get(&path);
    let (route_label, plugin_label) = match route {
        Some(r) => (r.manifest.route.clone(), r.manifest.name.clone()),
        None => (NONE.to_owned(), NONE.to_owned()),
    };
    let span = tracing::info_span!(
        "request",
        request_id = %request_id,
        %method,
        %path,
        plugin = %plugin_label,
        version = "native",
    );
    let mut response = match handle(&state, route, request)
        .instrument(span.clone())
        .await
    {
        Ok(r) => r,
        Err(e) => e.into_shaped_response(ErrorShape::Simple),
    };
    gleaner::api::served(
        &mut response,
        route.map(|r| (r.manifest.name.as_str(), "native")),
        (&route_label, &plugin_label),
        &span,
        started,
    );
    response
}

async fn handle(
    state: &Native,
    route: Option<&Route>,
    request: Request<Body>,
) -> Result<Response, ApiError> {
    let key = state
        .keys
        .which(request.headers())
        .map_err(|()| ApiError::Unauthorized)?;
    let Some(route) = route else {
        return Err(ApiError::NotFound("no native route here".into()));
    };
    if request.method() != Method::POST {
        return Err(ApiError::MethodNotAllowed {
            method: request.method().to_string(),
            path: request.uri().path().to_owned(),
        });
    }
    gleaner::api::check_content_type(request.headers())?;
    let client = clients::Client::of(key, &request, &state.trusted);
    let _client_slot = state.clients.enter(&client)?;
    let body = gleaner::api::read_body(&state.config, request, state.config.max_body_bytes).await?;
    let reach = match route.handler {
        Handler::Processor { .. } => Reach::Local,
        _ => Reach::Network,
    };
    let _slots = state.bulkheads.enter(&route.manifest.name, reach)?;
    match &route.handler {
        Handler::Processor { fields, process } => {
            let input =
                gleaner::validate::processor_input(fields, &body).map_err(ApiError::BadRequest)?;
            gleaner::validate::field_lengths(fields, &input).map_err(ApiError::BadRequest)?;
            let input = Value::Object(input).to_string();
            // The call's session, whose cookies must not come back in the answer.
            let session = Arc::new(Session::new());
            let output = process(&input).map_err(ApiError::BadRequest)?;
            let mut value: Value = serde_json::from_str(&output)
                .map_err(|e| ApiError::PluginFailed(format!("invalid JSON: {e}")))?;
            session.scrubber().scrub_json(&mut value);
            let mut response = gleaner::api::ok(value);
            response
                .headers_mut()
                .insert("x-gleaner-engine", HeaderValue::from_static("rules"));
            Ok(response)
        }
        Handler::Trustpilot { policy } => reviews(state, route, policy, &body).await,
    }
}

/// One page of Trustpilot reviews, as the driver answers a fetch that stops within it.
async fn reviews(
    state: &Native,
    route: &Route,
    policy: &Policy,
    body: &[u8],
) -> Result<Response, ApiError> {
    let started = Instant::now();
    let manifest = &route.manifest;
    let options = manifest
        .source
        .as_ref()
        .ok_or_else(|| ApiError::PluginFailed("no [source] options".into()))?;
    let request = gleaner::validate::source_request(&state.tokens, &manifest.route, options, body)
        .map_err(ApiError::BadRequest)?;
    let label = manifest.route.trim_start_matches('/');
    let label = label.split('/').next().unwrap_or_default();
    let (session, opened) = state.services.sessions.open(None);
    let target =
        plugin_customer_feedback_hub::parse_query(&request.query).map_err(ApiError::BadRequest)?;
    let sort = request.sort.clone().unwrap_or_else(|| "recency".into());
    let stars = request.filter.as_ref().map(|f| match f {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    });
    let url = plugin_customer_feedback_hub::page_url(&target, &sort, stars.as_deref(), 1);
    let deadline = started + state.config.fetch_budget();
    let answer = state
        .services
        .http
        .send(
            policy,
            &session,
            OutboundRequest {
                method: "GET".into(),
                url: url.clone(),
                headers: Vec::new(),
                body: None,
                profile: Some(Kind::Document),
            },
            deadline,
        )
        .await
        .map_err(|e| ApiError::Upstream(e.to_string()))?;
    let response = gleaner_sdk::http::Response {
        status: answer.status,
        headers: answer.headers,
        body: answer.body,
        final_url: answer.final_url,
        wall: answer.wall,
    };
    let page = plugin_customer_feedback_hub::page_from_response(&url, response, &target, 1, &sort)
        .map_err(|e| ApiError::from_fetch(label, host_error(e)))?;
    let limit = request.reviews_to_fetch.map(|n| n as usize);
    let mut reviews = Vec::new();
    for item in &page.reviews {
        if limit.is_some_and(|l| reviews.len() >= l) {
            break;
        }
        let (record, lapses) =
            Review::from_wit(&host_review(item), label, request.is_text_formatted, None)
                .map_err(|e| ApiError::PluginFailed(e.to_string()))?;
        gleaner::record::repair::Policy::Repair
            .judge(label, &record.review_id, &lapses)
            .map_err(|e| ApiError::PluginFailed(e.to_string()))?;
        reviews.push(record);
    }
    let taken = reviews.len();
    let rest_of_page = taken < page.reviews.len();
    let resume = Resume {
        cursor: if rest_of_page {
            None
        } else {
            page.next_cursor.clone()
        },
        skip: if rest_of_page { taken as u32 } else { 0 },
        last: reviews
            .last()
            .filter(|_| rest_of_page)
            .map(|r: &Review| gleaner::token::review_digest(&r.review_id)),
        sort: request.sort.clone(),
        filter: request.filter.clone(),
        sync_date: None,
        session: Some(session.id.clone()),
    };
    let continues = rest_of_page || page.next_cursor.is_some();
    let token = continues
        .then(|| gleaner::token::encode(&state.tokens, &manifest.route, &request.query, &resume));
    let meta = &page.meta;
    let mut body = json!({
        "all_reviews": reviews,
        "extra_information": {
            "resolved_url": meta.resolved_url,
            "name": meta.name,
            "average_rating": meta.average_rating,
            "total_reviews": meta.total_reviews,
            "pages_fetched": 1,
            "pages_unused": 0,
            "complete": !continues,
            "stop_reason": if continues { "limit_reached" } else { "exhausted" },
            "elapsed_ms": started.elapsed().as_millis() as u64,
            "plugin": manifest.name,
            "plugin_version": manifest.version,
            "dates_are": "utc",
            "session": opened.code(),
            "source": gleaner::record::extra_object(&meta.extra_json),
            "record_version": gleaner::record::RECORD_VERSION,
        },
        "message": format!("Fetched {taken} reviews from 1 page."),
        "next_page": token,
    });
    session.scrubber().scrub_json(&mut body);
    Ok((axum::http::StatusCode::OK, axum::Json(body)).into_response())
}

/// The SDK's fetch error as the host's.
fn host_error(e: gleaner_sdk::FetchError) -> wit::FetchError {
    use gleaner_sdk::FetchError as F;
    match e {
        F::BadQuery(m) => wit::FetchError::BadQuery(m),
        F::NotFound(m) => wit::FetchError::NotFound(m),
        F::Blocked(m) => wit::FetchError::Blocked(m),
        F::Upstream(m) => wit::FetchError::Upstream(m),
        F::Timeout(m) => wit::FetchError::Timeout(m),
        F::BadCursor(m) => wit::FetchError::BadCursor(m),
    }
}

fn host_text(t: &gleaner_sdk::Text) -> wit::Text {
    match t {
        gleaner_sdk::Text::Plain(s) => wit::Text::Plain(s.clone()),
        gleaner_sdk::Text::Html(s) => wit::Text::Html(s.clone()),
    }
}

/// The plugin's review as the host's type: the step the component model's
/// lifting does for the plugin route.
fn host_review(r: &gleaner_sdk::types::Review) -> wit::Review {
    wit::Review {
        id: r.id.clone(),
        title: r.title.clone(),
        text: r.text.as_ref().map(host_text),
        rating: r.rating,
        rating_scale_max: r.rating_scale_max,
        date: r.date.clone(),
        author_name: r.author_name.clone(),
        author_profile_image_url: r.author_profile_image_url.clone(),
        author_url: r.author_url.clone(),
        author_title: r.author_title.clone(),
        review_url: r.review_url.clone(),
        media: r
            .media
            .iter()
            .map(|m| wit::Media {
                id: m.id.clone(),
                media_type: m.media_type.clone(),
                url: m.url.clone(),
                width: m.width,
                height: m.height,
            })
            .collect(),
        reply: r.reply.as_ref().map(|p| wit::Reply {
            text: host_text(&p.text),
            date: p.date.clone(),
            author: p.author.clone(),
        }),
        helpful_votes: r.helpful_votes,
        language: r.language.clone(),
        updated_date: r.updated_date.clone(),
        author_country: r.author_country.clone(),
        verified: r.verified,
        recommends: r.recommends,
        anonymous: r.anonymous,
        sub_ratings: r
            .sub_ratings
            .iter()
            .map(|x| wit::SubRating {
                name: x.name.clone(),
                rating: x.rating,
                scale_max: x.scale_max,
            })
            .collect(),
        translation: r.translation.as_ref().map(|t| wit::Translation {
            is_machine_translated: t.is_machine_translated,
            original_text: t.original_text.clone(),
            original_language: t.original_language.clone(),
        }),
        extra_json: r.extra_json.clone(),
    }
}
