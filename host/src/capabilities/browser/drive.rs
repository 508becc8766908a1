//! Carrying a visit out: a page opened in the session's browser context,
//! every request it makes paused over DevTools and sent (or refused) by the
//! host's egress under the plugin's policy, until the plugin's condition
//! holds; then the document, the kept responses and the cookies.

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use gleaner_browser::cdp::{Cdp, Event};
use serde_json::{json, Value};
use url::Url;

use super::visit::{Egress, Kept, Outcome, VisitRequest, Wait, CHALLENGE_ORIGINS};
use super::BrowserError;
use crate::capabilities::http::policy::Policy;
use crate::capabilities::http::profile::{Kind, Profile};
use crate::capabilities::http::{credentials, HttpError, OutboundRequest};

/// How long the network must be quiet for [`Wait::Idle`].
const QUIET: Duration = Duration::from_millis(500);
/// How often the condition is checked.
const TICK: Duration = Duration::from_millis(50);

/// What the page's requests have shown so far.
#[derive(Default)]
struct Seen {
    in_flight: usize,
    last_activity: Option<Instant>,
    loaded: bool,
    document_status: Option<u16>,
    kept: Vec<Kept>,
    matched: bool,
}

type Shared = Arc<Mutex<Seen>>;

fn lock(seen: &Shared) -> std::sync::MutexGuard<'_, Seen> {
    seen.lock().unwrap_or_else(PoisonError::into_inner)
}

/// Opens `request.url` in browser context `context` and waits, until
/// `deadline`, for its condition.
pub async fn run(
    cdp: &Arc<Cdp>,
    context: &str,
    request: &VisitRequest,
    egress: &Egress,
    deadline: Instant,
) -> Result<Outcome, BrowserError> {
    let failed = |e: String| BrowserError::Failed(e);
    let target = cdp
        .call(
            None,
            "Target.createTarget",
            json!({"url": "about:blank", "browserContextId": context}),
        )
        .await
        .map_err(failed)?["targetId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let page = Page {
        cdp: cdp.clone(),
        target,
    };
    let attached = cdp
        .call(
            None,
            "Target.attachToTarget",
            json!({"targetId": page.target, "flatten": true}),
        )
        .await
        .map_err(failed)?;
    let session = attached["sessionId"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let policy = egress
        .grant
        .policy
        .widened(CHALLENGE_ORIGINS)
        .map_err(BrowserError::Failed)?;
    let events = cdp.events(&session);
    let seen: Shared = Arc::default();
    let pump = tokio::spawn(pump(
        events,
        Pump {
            cdp: cdp.clone(),
            policy,
            session: session.clone(),
            main_frame: page.target.clone(),
            egress: egress.clone(),
            request: request.clone(),
            deadline,
            seen: seen.clone(),
        },
    ));
    let result = async {
        let s = Some(session.as_str());
        cdp.call(
            s,
            "Fetch.enable",
            json!({"patterns": [{"urlPattern": "*"}]}),
        )
        .await?;
        cdp.call(s, "Page.enable", json!({})).await?;
        cdp.call(s, "Log.enable", json!({})).await?;
        cdp.call(
            s,
            "Emulation.setUserAgentOverride",
            presented_as(egress.session.profile),
        )
        .await?;
        lock(&seen).last_activity = Some(Instant::now());
        let navigated = cdp
            .call(s, "Page.navigate", json!({"url": request.url.as_str()}))
            .await?;
        Ok::<Value, String>(navigated)
    }
    .await;
    let outcome = match result {
        Err(e) => Err(failed(e)),
        Ok(navigated) => match navigated["errorText"].as_str() {
            Some(error) if !error.is_empty() && lock(&seen).document_status.is_none() => {
                Err(BrowserError::Failed(format!(
                    "the browser could not open {}: {error} (the host's log names the refused request)",
                    credentials::redact_url(request.url.as_str())
                )))
            }
            _ => finish(cdp, &session, request, &seen, deadline).await,
        },
    };
    pump.abort();
    let _ = pump.await;
    cdp.forget(&session);
    drop(page);
    outcome
}

/// The browser the page presents itself as: the session's profile, so a
/// clearance a wall binds to the user agent holds for the plain requests
/// after the visit. Its client hints (`sec-ch-ua*` and
/// `navigator.userAgentData`) name the profile's browser too; a profile
/// without them (Firefox) sends none, as Firefox does.
fn presented_as(profile: &Profile) -> Value {
    let windows = profile.user_agent.contains("Windows");
    let mut params = json!({
        "userAgent": profile.user_agent,
        "acceptLanguage": "en-US,en;q=0.9",
        "platform": if windows { "Win32" } else { "Linux x86_64" },
    });
    if let Some([brands, mobile, platform]) = profile.client_hints {
        let brands: Vec<Value> = brands
            .split(", ")
            .filter_map(|b| {
                let (name, version) = b.split_once(";v=")?;
                Some(json!({"brand": name.trim_matches('"'), "version": version.trim_matches('"')}))
            })
            .collect();
        params["userAgentMetadata"] = json!({
            "brands": brands,
            "platform": platform.trim_matches('"'),
            "platformVersion": if windows { "10.0.0" } else { "" },
            "architecture": "x86",
            "model": "",
            "mobile": mobile == "?1",
        });
    }
    params
}

/// A page target, closed when dropped.
struct Page {
    cdp: Arc<Cdp>,
    target: String,
}

impl Drop for Page {
    fn drop(&mut self) {
        let (cdp, target) = (self.cdp.clone(), self.target.clone());
        tokio::spawn(async move {
            let _ = cdp
                .call(None, "Target.closeTarget", json!({"targetId": target}))
                .await;
        });
    }
}

/// Waits for the condition, then reads the document.
async fn finish(
    cdp: &Cdp,
    session: &str,
    request: &VisitRequest,
    seen: &Shared,
    deadline: Instant,
) -> Result<Outcome, BrowserError> {
    let s = Some(session);
    // An evaluation can fail while a reload replaces the page; the last
    // failure is reported only if the condition never holds.
    let mut last_error = None;
    loop {
        let done = match &request.wait {
            Wait::Response(_) => lock(seen).matched,
            Wait::Idle => {
                let seen = lock(seen);
                seen.loaded
                    && seen.in_flight == 0
                    && seen.last_activity.is_some_and(|t| t.elapsed() >= QUIET)
            }
            Wait::Selector(selector) => {
                let expression = format!("!!document.querySelector({})", json!(selector));
                match evaluate(cdp, s, &expression).await {
                    Ok(value) => value.as_bool() == Some(true),
                    Err(e) => {
                        last_error = Some(e.to_string());
                        false
                    }
                }
            }
        };
        if done {
            break;
        }
        if Instant::now() + TICK >= deadline {
            let what = match &request.wait {
                Wait::Selector(selector) => format!("no element matched {selector:?}"),
                Wait::Response(pattern) => format!("no response URL contained {pattern:?}"),
                Wait::Idle => "the page's network never went quiet".to_owned(),
            };
            let last = last_error
                .map(|e| format!(" (last check: {e})"))
                .unwrap_or_default();
            return Err(BrowserError::Timeout(format!(
                "{}: {what} before the page's deadline ([browser] page_timeout_ms, within the call's budget){last}",
                credentials::redact_url(request.url.as_str())
            )));
        }
        tokio::time::sleep(TICK).await;
    }
    let document = evaluate(
        cdp,
        s,
        "document.documentElement ? document.documentElement.outerHTML : ''",
    )
    .await?;
    let final_url = evaluate(cdp, s, "location.href").await?;
    let seen = lock(seen);
    Ok(Outcome {
        status: seen.document_status.unwrap_or(200),
        final_url: final_url.as_str().unwrap_or_default().to_owned(),
        document: document.as_str().unwrap_or_default().to_owned(),
        kept: seen.kept.clone(),
    })
}

/// Evaluates `expression` in the page and returns its value.
async fn evaluate(
    cdp: &Cdp,
    session: Option<&str>,
    expression: &str,
) -> Result<Value, BrowserError> {
    let answer = cdp
        .call(
            session,
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true}),
        )
        .await
        .map_err(BrowserError::Failed)?;
    if let Some(exception) = answer.get("exceptionDetails") {
        let text = exception["exception"]["description"]
            .as_str()
            .or(exception["text"].as_str())
            .unwrap_or("an exception");
        return Err(BrowserError::Failed(format!(
            "evaluating {expression:?} in the page threw: {text}"
        )));
    }
    Ok(answer["result"]["value"].clone())
}

/// What the event pump needs.
struct Pump {
    cdp: Arc<Cdp>,
    /// The plugin's policy with [`CHALLENGE_ORIGINS`] allowed.
    policy: Policy,
    session: String,
    main_frame: String,
    egress: Egress,
    request: VisitRequest,
    deadline: Instant,
    seen: Shared,
}

/// Serves the page's events: each paused request in its own task.
async fn pump(mut events: tokio::sync::mpsc::UnboundedReceiver<Event>, pump: Pump) {
    let pump = Arc::new(pump);
    while let Some(event) = events.recv().await {
        match event.method.as_str() {
            "Fetch.requestPaused" => {
                lock(&pump.seen).in_flight += 1;
                tokio::spawn(serve(pump.clone(), event.params));
            }
            "Page.frameStartedLoading" if event.params["frameId"] == *pump.main_frame => {
                lock(&pump.seen).loaded = false;
            }
            "Page.loadEventFired" => {
                let mut seen = lock(&pump.seen);
                seen.loaded = true;
                seen.last_activity = Some(Instant::now());
            }
            "Log.entryAdded" => {
                let entry = &event.params["entry"];
                if entry["level"] == "error" {
                    tracing::info!(
                        plugin = %pump.egress.grant.name,
                        request_id = %pump.egress.request_id,
                        source = entry["source"].as_str().unwrap_or_default(),
                        message = %credentials::redact_urls_in(entry["text"].as_str().unwrap_or_default()),
                        "the browser reported an error"
                    );
                }
            }
            _ => {}
        }
    }
}

/// Sends one paused request through the host's egress and answers the
/// browser with the response, or refuses it.
async fn serve(pump: Arc<Pump>, params: Value) {
    let id = params["requestId"].as_str().unwrap_or_default().to_owned();
    let answer = forward(&pump, &params).await;
    let s = Some(pump.session.as_str());
    let _ = match answer {
        Ok(command) => {
            pump.cdp
                .call(s, "Fetch.fulfillRequest", with_id(command, &id))
                .await
        }
        Err(reason) => {
            let command = json!({"errorReason": reason});
            pump.cdp
                .call(s, "Fetch.failRequest", with_id(command, &id))
                .await
        }
    };
    let mut seen = lock(&pump.seen);
    seen.in_flight = seen.in_flight.saturating_sub(1);
    seen.last_activity = Some(Instant::now());
}

fn with_id(mut command: Value, id: &str) -> Value {
    command["requestId"] = json!(id);
    command
}

/// The `Fetch.fulfillRequest` parameters for a paused request, or the
/// `errorReason` it is refused with.
async fn forward(pump: &Pump, params: &Value) -> Result<Value, &'static str> {
    let request = &params["request"];
    let raw_url = request["url"].as_str().unwrap_or_default();
    let shown = credentials::redact_url(raw_url);
    let egress = &pump.egress;
    let refused = |error: &str| {
        tracing::info!(
            plugin = %egress.grant.name,
            request_id = %egress.request_id,
            url = %shown,
            %error,
            "browser request refused"
        );
    };
    let url = match Url::parse(raw_url) {
        Ok(url) if matches!(url.scheme(), "http" | "https") => url,
        Ok(url) => {
            refused(&format!(
                "scheme {:?} is not allowed; pages may load only http(s)",
                url.scheme()
            ));
            return Err("AccessDenied");
        }
        Err(e) => {
            refused(&format!("not a URL: {e}"));
            return Err("AccessDenied");
        }
    };
    // Cookies the page's scripts set live in the browser; the session's jar
    // gives every request its cookies, so it learns them first.
    let s = Some(pump.session.as_str());
    if let Ok(cookies) = pump
        .cdp
        .call(s, "Network.getCookies", json!({"urls": [url.as_str()]}))
        .await
    {
        super::cookies::store(&egress.session, &cookies["cookies"]);
    }
    let headers: Vec<(String, String)> = request["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .filter(|(name, _)| !name.eq_ignore_ascii_case("cookie"))
                .map(|(name, value)| (name.clone(), value.as_str().unwrap_or_default().to_owned()))
                .collect()
        })
        .unwrap_or_default();
    let document = params["resourceType"] == "Document";
    let outbound = OutboundRequest {
        method: request["method"].as_str().unwrap_or("GET").to_owned(),
        url: url.to_string(),
        headers,
        body: post_data(request),
        profile: Some(if document { Kind::Document } else { Kind::Xhr }),
    };
    let started = Instant::now();
    let sent = egress
        .http
        .send_unfollowed(&pump.policy, &egress.session, outbound, pump.deadline)
        .await;
    crate::capabilities::http::guest::count(&shown, &sent, started.elapsed());
    let response = match sent {
        Ok(response) => response,
        Err(e) => {
            refused(&credentials::redact_urls_in(&e.to_string()));
            return Err(match e {
                HttpError::Denied(_) => "AccessDenied",
                HttpError::Timeout(_) => "TimedOut",
                _ => "Failed",
            });
        }
    };
    tracing::debug!(plugin = %egress.grant.name, request_id = %egress.request_id, url = %shown, status = response.status, "browser request");
    {
        let mut seen = lock(&pump.seen);
        if document && params["frameId"] == *pump.main_frame {
            seen.document_status = Some(response.status);
        }
        if pump
            .request
            .keep
            .iter()
            .any(|k| raw_url.contains(k.as_str()))
        {
            seen.kept.push(Kept {
                url: raw_url.to_owned(),
                status: response.status,
                body: response.body.clone(),
            });
        }
        if matches!(&pump.request.wait, Wait::Response(p) if raw_url.contains(p.as_str())) {
            seen.matched = true;
        }
    }
    // The body arrives decoded, so its encoding and length headers go.
    let headers: Vec<Value> = response
        .headers
        .iter()
        .filter(|(name, _)| {
            !["content-encoding", "content-length", "transfer-encoding"]
                .iter()
                .any(|h| name.eq_ignore_ascii_case(h))
        })
        .map(|(name, value)| json!({"name": name, "value": value}))
        .collect();
    Ok(json!({
        "responseCode": response.status,
        "responseHeaders": headers,
        "body": B64.encode(&response.body),
    }))
}

/// The paused request's body: its entries' bytes, or its text.
fn post_data(request: &Value) -> Option<Vec<u8>> {
    if let Some(entries) = request["postDataEntries"].as_array() {
        let mut body = Vec::new();
        for entry in entries {
            if let Some(bytes) = entry["bytes"].as_str() {
                body.extend(B64.decode(bytes).unwrap_or_default());
            }
        }
        return Some(body);
    }
    request["postData"].as_str().map(|s| s.as_bytes().to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::capabilities::http::profile::PROFILES;

    #[test]
    fn the_page_presents_the_session_s_browser_with_matching_client_hints() {
        for profile in &PROFILES {
            let params = presented_as(profile);
            assert_eq!(params["userAgent"], profile.user_agent);
            match profile.client_hints {
                Some([brands, _, platform]) => {
                    let metadata = &params["userAgentMetadata"];
                    let shown: Vec<String> = metadata["brands"]
                        .as_array()
                        .unwrap()
                        .iter()
                        .map(|b| {
                            format!(
                                "\"{}\";v=\"{}\"",
                                b["brand"].as_str().unwrap(),
                                b["version"].as_str().unwrap()
                            )
                        })
                        .collect();
                    assert_eq!(shown.join(", "), brands, "{}", profile.name);
                    assert_eq!(
                        format!("\"{}\"", metadata["platform"].as_str().unwrap()),
                        platform
                    );
                    assert_eq!(metadata["mobile"], false);
                }
                None => assert!(
                    params.get("userAgentMetadata").is_none(),
                    "{}",
                    profile.name
                ),
            }
        }
    }
}
