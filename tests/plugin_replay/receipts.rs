//! Every review a source answers with `receipts: true` carries a receipt,
//! and the receipt names the recorded upstream body the review was read
//! from: its `response_sha256` is that of one of the source's recorded
//! response bodies, that body holds the review (its id, or a run of words
//! of its text), and the receipt verifies under the server's public key.
//! One test per review source with replay cases.

use serde_json::Value;
use sha2::{Digest, Sha256};

use super::recorded::{bodies, recordings, tokens};
use super::serve;

/// Whether `body` holds `review`: its id as a token, or three words of its
/// text in a row (or all of them, when fewer).
fn holds(body: &str, review: &Value) -> bool {
    let id = review["review_id"].as_str().unwrap_or_default();
    if id.len() >= 4 && tokens(body, id).next().is_some() {
        return true;
    }
    let text = review["review_text"].as_str().unwrap_or_default();
    let words: Vec<&str> = text.split_whitespace().collect();
    // Words a body may escape are left out.
    let plain = |w: &&str| !w.contains(['"', '&', '<', '>', '\\', '\'']);
    words
        .windows(3.min(words.len()).max(1))
        .filter(|run| run.iter().all(plain))
        .any(|run| body.contains(&run.join(" ")))
}

/// Fetches `name`'s first case that stands alone with receipts, and checks
/// each review's receipt against the recordings; how many were checked.
async fn receipts_name_their_bodies(name: &str) -> usize {
    let (cases, dir, manifest) = super::replay_of(name);
    let recorded = bodies(&recordings(&dir));
    let digest = |b: &String| hex::encode(Sha256::digest(b.as_bytes()));
    let by_digest: Vec<(String, &String)> = recorded.iter().map(|b| (digest(b), b)).collect();
    let served = serve(name, &Some(dir.clone()), &cases.settings).await;
    let key = served.server.get_json("/receipts/public-key").await;
    let key = key["public_key"].as_str().unwrap().to_owned();
    for case in &cases.case {
        if !case.answered_alone() {
            continue;
        }
        let mut request: Value = serde_json::from_str(&case.request).unwrap();
        request["receipts"] = true.into();
        let (status, answer) = served.server.post(&manifest.route, request).await;
        assert_eq!(status, 200, "{name}: {}: {answer}", case.name);
        let reviews = answer["all_reviews"]
            .as_array()
            .cloned()
            .unwrap_or_default();
        if reviews.is_empty() {
            continue;
        }
        for review in &reviews {
            let id = &review["review_id"];
            let receipt = &review["receipt"];
            assert!(receipt.is_object(), "{name}: {id} has no receipt");
            if let Err(e) = gleaner::receipts::verify(review, &key) {
                panic!("{name}: {id}'s receipt does not verify: {e}");
            }
            let sha = receipt["response_sha256"].as_str().unwrap();
            let body = by_digest
                .iter()
                .find(|(d, _)| d == sha)
                .map(|(_, b)| *b)
                .unwrap_or_else(|| panic!("{name}: {id}'s receipt names no recorded body"));
            assert!(
                holds(body, review),
                "{name}: {id}'s receipt names a body ({}) that does not hold it",
                receipt["source_url"]
            );
        }
        return reviews.len();
    }
    panic!("{name}: no replay case answers reviews");
}

macro_rules! receipts {
    ($($test:ident => $name:literal,)*) => {
        $(
            #[tokio::test]
            async fn $test() {
                let checked = receipts_name_their_bodies($name).await;
                println!("ok    {}: {checked} receipts name the body that holds their review", $name);
            }
        )*
    };
}

review_sources!(receipts);
