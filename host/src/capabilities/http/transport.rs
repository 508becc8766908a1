//! One hop of an outbound request: from a HAR recording, or over the network with
//! timeouts, a size cap and retries on 429/503.

use std::time::{Duration, Instant};

use futures_util::StreamExt;
use url::Url;

use super::har::{Exchange, HarReplay};
use super::policy::HttpLimits;
use super::profile::Profile;
use super::wire::{Answer, Failure, Wire};
use super::{HttpError, DEFAULT_USER_AGENT};

/// One request hop, before redirects are followed.
pub struct Hop<'a> {
    pub method: &'a str,
    pub url: &'a Url,
    pub headers: &'a [(String, String)],
    pub body: Option<&'a [u8]>,
    /// The session's browser, for a browser request (which then goes out
    /// with that browser's fingerprint); none for a plain API call.
    pub browser: Option<&'static Profile>,
}

/// The answer to one hop.
pub struct HopResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Answers a hop from the recording, or fails naming the request.
pub fn replay(replay: &HarReplay, hop: &Hop<'_>) -> Result<HopResponse, HttpError> {
    let found = replay.find(hop.method, hop.url.as_str(), hop.body);
    let exchange = found.ok_or_else(|| {
        HttpError::Transport(format!(
            "replay miss: no recorded response for {} {} in the HAR files given by GLEANER_REPLAY; \
             record it with GLEANER_RECORD=<file.har> or add the entry",
            hop.method, hop.url
        ))
    })?;
    Ok(HopResponse {
        status: exchange.status,
        headers: exchange.response_headers,
        body: exchange.response_body,
    })
}

/// The exchange to write into a recording.
pub fn exchange(hop: &Hop<'_>, response: &HopResponse) -> Exchange {
    Exchange {
        method: hop.method.to_owned(),
        url: hop.url.to_string(),
        request_headers: hop.headers.to_vec(),
        request_body: hop.body.map(<[u8]>::to_vec),
        status: response.status,
        response_headers: response.headers.clone(),
        response_body: response.body.clone(),
    }
}

/// Sends a hop to `target` (the URL itself, or its override), retrying 429/503 within the deadline.
/// Sends one hop over `client`, retrying 429 and 503 within the limits;
/// `proxy` names (redacted) the proxy the client goes through, if any.
pub async fn network(
    client: &Wire,
    target: &Url,
    hop: &Hop<'_>,
    limits: &HttpLimits,
    deadline: Instant,
    proxy: Option<&str>,
) -> Result<HopResponse, HttpError> {
    let request_deadline =
        deadline.min(Instant::now() + Duration::from_millis(limits.request_timeout_ms));
    let mut attempt = 0;
    loop {
        let response = send_once(client, target, hop, limits, request_deadline, proxy).await?;
        let retryable = matches!(response.status, 429 | 503);
        if !retryable || attempt >= limits.max_retries {
            return Ok(response);
        }
        let wait = retry_after(&response.headers)
            .unwrap_or_else(|| Duration::from_millis(500 * 2u64.pow(attempt)));
        if Instant::now() + wait >= request_deadline {
            return Ok(response);
        }
        tracing::debug!(status = response.status, wait_ms = wait.as_millis() as u64, url = %hop.url, "retrying");
        tokio::time::sleep(wait).await;
        attempt += 1;
    }
}

async fn send_once(
    client: &Wire,
    target: &Url,
    hop: &Hop<'_>,
    limits: &HttpLimits,
    deadline: Instant,
    proxy: Option<&str>,
) -> Result<HopResponse, HttpError> {
    let mut headers: Vec<(String, String)> = Vec::with_capacity(hop.headers.len() + 2);
    let mut has_agent = false;
    for (name, value) in hop.headers {
        has_agent |= name.eq_ignore_ascii_case("user-agent");
        if !name.eq_ignore_ascii_case("host") {
            headers.push((name.clone(), value.clone()));
        }
    }
    if !has_agent {
        headers.push(("user-agent".into(), DEFAULT_USER_AGENT.into()));
    }
    if target.host_str() != hop.url.host_str() {
        if let Some(host) = hop.url.host_str() {
            let host = match hop.url.port() {
                Some(port) => format!("{host}:{port}"),
                None => host.to_owned(),
            };
            headers.push(("host".into(), host));
        }
    }
    let first_byte =
        deadline.min(Instant::now() + Duration::from_millis(limits.first_byte_timeout_ms));
    let sent = client.send(hop.method, target, &headers, hop.body.map(<[u8]>::to_vec));
    let answer = tokio::time::timeout_at(first_byte.into(), sent)
        .await
        .map_err(|_| HttpError::Timeout(format!("no response from {} in time", hop.url)))?
        .map_err(|e| describe_send_error(hop.url, e, proxy))?;
    let status = answer.status;
    let headers = answer.headers.clone();
    let body = read_capped(answer, limits.max_response_bytes, deadline, hop.url).await?;
    Ok(HopResponse {
        status,
        headers,
        body,
    })
}

async fn read_capped(
    answer: Answer,
    cap: usize,
    deadline: Instant,
    url: &Url,
) -> Result<Vec<u8>, HttpError> {
    if answer.content_length.is_some_and(|n| n as usize > cap) {
        return Err(HttpError::TooLarge(format!(
            "{url} announces more than {cap} bytes"
        )));
    }
    let mut body = Vec::new();
    let mut stream = answer.body;
    loop {
        let chunk = tokio::time::timeout_at(deadline.into(), stream.next())
            .await
            .map_err(|_| HttpError::Timeout(format!("{url} did not finish its body in time")))?;
        let Some(chunk) = chunk else { break };
        let chunk = chunk.map_err(|e| HttpError::Transport(format!("reading {url}: {e}")))?;
        if body.len() + chunk.len() > cap {
            return Err(HttpError::TooLarge(format!(
                "{url} sent more than {cap} bytes"
            )));
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}

fn describe_send_error(url: &Url, e: Failure, proxy: Option<&str>) -> HttpError {
    let Failure {
        message,
        timeout,
        connect,
        denied,
    } = e;
    if denied {
        return HttpError::Denied(format!(
            "{url}: {message}; plugins may only reach public addresses{}",
            super::ssrf::LOCAL_SITE_HINT
        ));
    }
    if timeout {
        return HttpError::Timeout(format!("{url}: {message}"));
    }
    // Through a proxy, every connection is the proxy's: one that cannot be
    // made (the proxy down, or refusing the tunnel or the credentials) is
    // the proxy's failure.
    if let (Some(proxy), true) = (proxy, connect) {
        return HttpError::ProxyFailed(format!(
            "the proxy {proxy} did not carry the request to {url}: {message}; check its address \
             and credentials in [proxies] urls (or the plugin's proxies)"
        ));
    }
    HttpError::Transport(format!("{url}: {message}"))
}

/// Retry-After in seconds (the HTTP-date form falls back to the default backoff).
fn retry_after(headers: &[(String, String)]) -> Option<Duration> {
    let value = headers
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case("retry-after"))?;
    value.1.trim().parse::<u64>().ok().map(Duration::from_secs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_reads_seconds() {
        let h = vec![("Retry-After".to_owned(), " 3 ".to_owned())];
        assert_eq!(retry_after(&h), Some(Duration::from_secs(3)));
        assert_eq!(retry_after(&[]), None);
    }
}
