//! `gleaner receipt verify`: checks review receipts offline with the
//! server's public key, printing one line per review and failing when any
//! receipt does not verify. `gleaner receipt evidence`: finds, in a HAR
//! recording made with `GLEANER_RECORD`, the exchange each receipt's
//! `response_sha256` names.

use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use super::jobs::Client;
use crate::receipts;

/// The server's receipt public key.
pub async fn public_key(client: &Client) -> anyhow::Result<String> {
    let answer = client
        .call(reqwest::Method::GET, "/receipts/public-key", None)
        .await
        .context("reading the receipt key from the server; or give it with --public-key")?;
    answer["public_key"]
        .as_str()
        .map(str::to_owned)
        .context("the server answered no public_key")
}

/// The reviews `document` holds: itself, a list, or a fetch's or job's
/// answer.
fn reviews(document: Value) -> Vec<Value> {
    match document {
        Value::Array(items) => items,
        Value::Object(mut map) => {
            for field in ["all_reviews", "reviews"] {
                if let Some(Value::Array(items)) = map.remove(field) {
                    return items;
                }
            }
            vec![Value::Object(map)]
        }
        _ => Vec::new(),
    }
}

/// The reviews of the JSON file `file` ("-": standard input).
fn read_reviews(file: &Path) -> anyhow::Result<Vec<Value>> {
    let text = match file.to_str() {
        Some("-") => std::io::read_to_string(std::io::stdin())?,
        _ => std::fs::read_to_string(file)
            .with_context(|| format!("cannot read {}", file.display()))?,
    };
    let document: Value =
        serde_json::from_str(&text).with_context(|| format!("{} is not JSON", file.display()))?;
    let reviews = reviews(document);
    anyhow::ensure!(
        !reviews.is_empty(),
        "{} holds no review: give a review, a list of them, or an answer with all_reviews",
        file.display()
    );
    Ok(reviews)
}

/// The SHA-256 of each response body a HAR file holds, with the entry's
/// number, URL and time.
fn har_bodies(har: &Path) -> anyhow::Result<Vec<(String, usize, String, String)>> {
    use base64::Engine;
    let text =
        std::fs::read_to_string(har).with_context(|| format!("cannot read {}", har.display()))?;
    let har: Value = serde_json::from_str(&text)
        .with_context(|| format!("{} is not a HAR file", har.display()))?;
    let entries = har["log"]["entries"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    Ok(entries
        .iter()
        .enumerate()
        .map(|(i, e)| {
            let content = &e["response"]["content"];
            let text = content["text"].as_str().unwrap_or_default();
            let body = match content["encoding"].as_str() {
                Some("base64") => base64::engine::general_purpose::STANDARD
                    .decode(text)
                    .unwrap_or_default(),
                _ => text.as_bytes().to_vec(),
            };
            let digest = hex::encode(<sha2::Sha256 as sha2::Digest>::digest(&body));
            let url = e["request"]["url"].as_str().unwrap_or_default().to_owned();
            let at = e["startedDateTime"].as_str().unwrap_or_default().to_owned();
            (digest, i, url, at)
        })
        .collect())
}

/// Prints, for each review in `file`, the entry of `har` its receipt's
/// `response_sha256` names; whether every receipt found one.
pub fn evidence(file: &Path, har: &Path) -> anyhow::Result<bool> {
    let bodies = har_bodies(har)?;
    let mut missing = 0;
    let reviews = read_reviews(file)?;
    for review in &reviews {
        let id = review["review_id"].as_str().unwrap_or("(no review_id)");
        let digest = review["receipt"]["response_sha256"]
            .as_str()
            .unwrap_or_default();
        match bodies
            .iter()
            .find(|(d, ..)| !digest.is_empty() && d == digest)
        {
            Some((_, i, url, at)) => println!("{id}\tentry {i}\t{at}\t{url}"),
            None => {
                missing += 1;
                println!("{id}\tnot in {}", har.display());
            }
        }
    }
    eprintln!(
        "{} of {} receipts found in the recording",
        reviews.len() - missing,
        reviews.len()
    );
    Ok(missing == 0)
}

/// Checks every review in `file` under `key`; whether all verified.
pub fn verify_file(file: &Path, key: &str) -> anyhow::Result<bool> {
    let reviews = read_reviews(file)?;
    let mut failed = 0;
    for review in &reviews {
        let id = review["review_id"].as_str().unwrap_or("(no review_id)");
        match receipts::verify(review, key) {
            Ok(()) => println!("ok      {id}"),
            Err(e) => {
                failed += 1;
                println!("FAILED  {id}: {e}");
            }
        }
    }
    eprintln!(
        "{} of {} receipts verified",
        reviews.len() - failed,
        reviews.len()
    );
    Ok(failed == 0)
}
