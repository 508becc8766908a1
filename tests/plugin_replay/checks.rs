//! What a replay case's answer must hold: its status, reviews and fields
//! ([`check`]), the plugin cursor inside its continuation ([`check_cursor`]),
//! and the paging property over every `reviews_to_fetch` ([`check_paging`]).

use std::collections::HashSet;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;

use super::*;

/// Everything wrong with `answer` for `case`.
pub(super) fn check(
    case: &Case,
    status: u16,
    headers: &reqwest::header::HeaderMap,
    answer: &Value,
) -> Vec<String> {
    let mut problems = Vec::new();
    if status != case.status {
        problems.push(format!("status {status}, expected {}", case.status));
    }
    for (name, expected) in &case.headers {
        let got = headers.get(name.as_str()).and_then(|v| v.to_str().ok());
        if got != Some(expected.as_str()) {
            problems.push(format!("header {name} is {got:?}, expected {expected:?}"));
        }
    }
    let reviews = answer["all_reviews"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    if let Some(count) = case.count {
        if reviews.len() != count {
            problems.push(format!("{} reviews, expected {count}", reviews.len()));
        }
    }
    let ids = review_ids(answer);
    if ids.iter().collect::<HashSet<_>>().len() != ids.len() {
        problems.push("a review_id appears twice".into());
    }
    if let Some(expected) = &case.review_ids {
        if ids != *expected {
            problems.push(format!("review_ids are {ids:?}, expected {expected:?}"));
        }
    }
    // The order a source declares holds on every recorded page it reads.
    let contradicted = &answer["extra_information"]["order_contradicted"];
    if contradicted.is_string() {
        problems.push(format!(
            "the source declared {contradicted} but its review dates went against it"
        ));
    }
    let at = |pointer: &str| answer.pointer(pointer).cloned().unwrap_or(Value::Null);
    for (pointer, expected) in &case.fields {
        let expected = serde_json::to_value(expected).unwrap();
        if at(pointer) != expected {
            problems.push(format!("{pointer} is {}, expected {expected}", at(pointer)));
        }
    }
    for (pointer, part) in case
        .contains
        .iter()
        .flat_map(|(p, parts)| parts.all().iter().map(move |x| (p, x)))
    {
        if !at(pointer)
            .as_str()
            .is_some_and(|s| s.contains(part.as_str()))
        {
            problems.push(format!(
                "{pointer} is {}, expected to contain {part:?}",
                at(pointer)
            ));
        }
    }
    for (pointer, part) in case
        .excludes
        .iter()
        .flat_map(|(p, parts)| parts.all().iter().map(move |x| (p, x)))
    {
        if at(pointer)
            .as_str()
            .is_none_or(|s| s.contains(part.as_str()))
        {
            problems.push(format!(
                "{pointer} is {}, expected a string without {part:?}",
                at(pointer)
            ));
        }
    }
    for (pointer, kind) in &case.types {
        if kind_of(&at(pointer)) != kind {
            problems.push(format!("{pointer} is {}, expected a {kind}", at(pointer)));
        }
    }
    for (pointer, expected) in &case.keys {
        let mut got: Vec<String> = at(pointer)
            .as_object()
            .map(|o| o.keys().cloned().collect())
            .unwrap_or_default();
        let mut want = expected.clone();
        got.sort();
        want.sort();
        if got != want {
            problems.push(format!("{pointer} has keys {got:?}, expected {want:?}"));
        }
    }
    for (field, expected) in &case.every_review {
        let expected = serde_json::to_value(expected).unwrap();
        if let Some(r) = reviews.iter().find(|r| r[field.as_str()] != expected) {
            problems.push(format!(
                "a review has {field} = {}, expected {expected}",
                r[field.as_str()]
            ));
        }
    }
    for (field, prefix) in &case.every_review_prefix {
        let bad = reviews.iter().find(|r| {
            !r[field.as_str()]
                .as_str()
                .is_some_and(|v| v.starts_with(prefix.as_str()))
        });
        if let Some(r) = bad {
            problems.push(format!(
                "a review has {field} = {}, expected a prefix {prefix:?}",
                r[field.as_str()]
            ));
        }
    }
    if let Some(order) = &case.order {
        let (field, descending) = match order.strip_prefix('-') {
            Some(f) => (f, true),
            None => (order.as_str(), false),
        };
        let values: Vec<String> = reviews.iter().map(|r| r[field].to_string()).collect();
        let mut sorted = values.clone();
        sorted.sort();
        if descending {
            sorted.reverse();
        }
        if values != sorted {
            problems.push(format!("reviews are not sorted by {order}"));
        }
    }
    problems
}

/// Everything wrong with the plugin cursor inside the continuation of
/// `answer` (to the request for `query`) for `case`.
pub(super) fn check_cursor(
    case: &Case,
    manifest: &Manifest,
    query: &str,
    answer: &Value,
) -> Vec<String> {
    if case.cursor_excludes.is_empty() {
        return Vec::new();
    }
    let token = answer["next_page"]
        .as_str()
        .or(answer["pagination_data"]["token"].as_str());
    let Some(token) = token else {
        return vec!["no continuation token to read the cursor of".into()];
    };
    let cursor = gleaner::token::decode(&common::token_key(), &manifest.route, query, token)
        .map_err(|e| format!("the continuation token does not decode: {e}"))
        .and_then(|resume| {
            resume
                .cursor
                .ok_or("the token holds no plugin cursor".into())
        })
        .and_then(|c| URL_SAFE_NO_PAD.decode(c).map_err(|e| e.to_string()));
    let cursor = match cursor {
        Ok(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        Err(e) => return vec![e],
    };
    case.cursor_excludes
        .iter()
        .filter(|part| cursor.contains(part.as_str()))
        .map(|part| format!("the plugin cursor holds {part:?}: {cursor}"))
        .collect()
}

/// Follows the continuation for every `reviews_to_fetch` from 1 to the total.
pub(super) async fn check_paging(
    s: &common::Server,
    manifest: &Manifest,
    paging: &Paging,
) -> Result<usize, String> {
    let base: Value = serde_json::from_str(&paging.request).map_err(|e| format!("request: {e}"))?;
    let (status, full) = s.post(&manifest.route, base.clone()).await;
    if status != 200 {
        return Err(format!("the full fetch answered {status}: {full}"));
    }
    let everything = review_ids(&full);
    let total = everything.len();
    for step in 1..=total + 1 {
        let mut collected = Vec::new();
        let mut next: Option<(&str, Value)> = None;
        for round in 0..=total + 1 {
            let mut request = base.clone();
            request["reviews_to_fetch"] = json!(step);
            if let Some((field, value)) = &next {
                request[*field] = value.clone();
            }
            let (status, answer) = s.post(&manifest.route, request).await;
            if status != 200 {
                return Err(format!(
                    "step {step}, round {round}: status {status}: {answer}"
                ));
            }
            let got = review_ids(&answer);
            let expected = step.min(total - collected.len());
            if got.len() != expected {
                return Err(format!(
                    "step {step}, round {round}: {} reviews, expected {expected}",
                    got.len()
                ));
            }
            collected.extend(got);
            next = continuation(manifest, &answer);
            if next.is_none() {
                break;
            }
        }
        if collected != everything {
            return Err(format!(
                "step {step}: the sequence differs from the full fetch"
            ));
        }
    }
    Ok(total)
}
