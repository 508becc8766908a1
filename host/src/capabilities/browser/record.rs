//! A visit in a HAR recording, so a source that uses the browser is replayed
//! with no browser running: one entry with the method `VISIT`, the page's URL,
//! the condition and kept patterns as its JSON request body, and the outcome
//! as its JSON response (status, final URL, document, kept responses), with
//! the cookies the visit left as `Set-Cookie` headers. The requests the page
//! made are recorded beside it like any others.

use base64::engine::general_purpose::STANDARD as B64;
use base64::Engine as _;
use serde_json::{json, Value};

use super::visit::{Kept, Outcome, VisitRequest, Wait};
use crate::capabilities::http::har::Exchange;

/// The HAR method of a visit.
pub const METHOD: &str = "VISIT";

/// The request body that tells visits of one page apart.
pub fn request_body(request: &VisitRequest) -> Vec<u8> {
    let wait = match &request.wait {
        Wait::Selector(s) => json!({"selector": s}),
        Wait::Response(p) => json!({"response": p}),
        Wait::Idle => json!("idle"),
    };
    json!({"wait": wait, "keep": request.keep})
        .to_string()
        .into_bytes()
}

/// The entry of a visit that left `outcome` and `cookies` (`Set-Cookie` lines).
pub fn exchange(request: &VisitRequest, outcome: &Outcome, cookies: &[String]) -> Exchange {
    let kept: Vec<Value> = outcome
        .kept
        .iter()
        .map(|k| json!({"url": k.url, "status": k.status, "body": B64.encode(&k.body)}))
        .collect();
    let body = json!({
        "final_url": outcome.final_url,
        "document": outcome.document,
        "kept": kept,
    });
    let mut headers = vec![("content-type".to_owned(), "application/json".to_owned())];
    headers.extend(cookies.iter().map(|c| ("set-cookie".to_owned(), c.clone())));
    Exchange {
        method: METHOD.into(),
        url: request.url.to_string(),
        request_headers: Vec::new(),
        request_body: Some(request_body(request)),
        status: outcome.status,
        response_headers: headers,
        response_body: body.to_string().into_bytes(),
    }
}

/// The outcome and cookies a recorded visit entry holds.
pub fn outcome(entry: &Exchange) -> Result<(Outcome, Vec<String>), String> {
    let body: Value = serde_json::from_slice(&entry.response_body)
        .map_err(|e| format!("the recorded visit of {} is not JSON: {e}", entry.url))?;
    let text = |v: &Value| v.as_str().unwrap_or_default().to_owned();
    let kept = body["kept"]
        .as_array()
        .map(Vec::as_slice)
        .unwrap_or_default()
        .iter()
        .map(|k| Kept {
            url: text(&k["url"]),
            status: k["status"]
                .as_u64()
                .and_then(|s| u16::try_from(s).ok())
                .unwrap_or(0),
            body: B64.decode(text(&k["body"])).unwrap_or_default(),
        })
        .collect();
    let cookies = entry
        .response_headers
        .iter()
        .filter(|(n, _)| n.eq_ignore_ascii_case("set-cookie"))
        .map(|(_, v)| v.clone())
        .collect();
    let outcome = Outcome {
        status: entry.status,
        final_url: text(&body["final_url"]),
        document: text(&body["document"]),
        kept,
    };
    Ok((outcome, cookies))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_visit_reads_back_as_it_was_recorded() {
        let request = VisitRequest {
            url: url::Url::parse("https://www.shop.example/p").unwrap(),
            wait: Wait::Selector(".review".into()),
            keep: vec!["/api/".into()],
        };
        let outcome = Outcome {
            status: 200,
            final_url: "https://www.shop.example/p".into(),
            document: "<html><body><p class=review>ok</p></body></html>".into(),
            kept: vec![Kept {
                url: "https://www.shop.example/api/r".into(),
                status: 200,
                body: b"{\"a\":1}".to_vec(),
            }],
        };
        let cookies = vec!["c=1; Domain=www.shop.example; Path=/".to_owned()];
        let entry = exchange(&request, &outcome, &cookies);
        assert_eq!(entry.method, METHOD);
        assert_eq!(outcome_of(&entry), (outcome, cookies));
        let other = VisitRequest {
            wait: Wait::Idle,
            ..request.clone()
        };
        assert_ne!(request_body(&request), request_body(&other));
    }

    fn outcome_of(entry: &Exchange) -> (Outcome, Vec<String>) {
        outcome(entry).unwrap()
    }
}
