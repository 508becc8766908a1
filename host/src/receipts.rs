//! Receipts: proof that a review is verbatim from a public page. With
//! `receipts: true`, each review carries `receipt`: when and where its page
//! was read (`fetched_at`, `source_url`, `response_sha256` of the upstream
//! body), the plugin that read it (name, version, component digest), the
//! server's version, a digest of each field, and an Ed25519 signature over
//! the review and the receipt under the server's key.
//!
//! The key is `GLEANER_RECEIPT_KEY` (64 hex digits, the seed), else one made
//! once and kept in `<data_dir>/receipt-key` (readable by its owner only).
//! `GET /receipts/public-key` gives its public half, and `gleaner receipt
//! verify` checks receipts offline with it. A receipt names no secret: the
//! URL is the one the plugin asked for, with credentials taken out.

use std::collections::BTreeMap;
use std::path::Path;

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine;
use ed25519_dalek::{Signature, Signer, SigningKey, Verifier, VerifyingKey};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

/// The file the generated key is kept in, under the data directory.
const KEY_FILE: &str = "receipt-key";

/// What goes wrong with the receipt key.
#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    /// `GLEANER_RECEIPT_KEY` is not 64 hex digits.
    #[error("GLEANER_RECEIPT_KEY must be 64 hex digits (a 32-byte Ed25519 seed), e.g. from `openssl rand -hex 32`")]
    Malformed,
    /// The kept key cannot be read or written.
    #[error("cannot keep the receipt key in {path}: {error}; check the data directory (GLEANER_DATA_DIR), or set GLEANER_RECEIPT_KEY")]
    File {
        /// The key file.
        path: String,
        /// Why.
        error: String,
    },
}

/// The server's receipt key.
pub struct ReceiptKey {
    signing: SigningKey,
}

impl std::fmt::Debug for ReceiptKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("ReceiptKey(..)")
    }
}

impl ReceiptKey {
    /// The key `configured` names (64 hex digits), else the one kept in
    /// `data_dir`, made there on first use.
    pub fn load(configured: Option<&str>, data_dir: &Path) -> Result<ReceiptKey, KeyError> {
        if let Some(hex) = configured.filter(|k| !k.trim().is_empty()) {
            return seed(hex.trim())
                .map(ReceiptKey::from_seed)
                .ok_or(KeyError::Malformed);
        }
        let path = data_dir.join(KEY_FILE);
        let failed = |error: String| KeyError::File {
            path: path.display().to_string(),
            error,
        };
        match std::fs::read_to_string(&path) {
            Ok(text) => seed(text.trim())
                .map(ReceiptKey::from_seed)
                .ok_or_else(|| failed("it does not hold 64 hex digits".into())),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                let mut bytes = [0u8; 32];
                getrandom::getrandom(&mut bytes).map_err(|e| failed(e.to_string()))?;
                gleaner_seal::private_files::create(data_dir).map_err(|e| failed(e.to_string()))?;
                std::fs::write(&path, hex::encode(bytes)).map_err(|e| failed(e.to_string()))?;
                gleaner_seal::private_files::private_file(&path)
                    .map_err(|e| failed(e.to_string()))?;
                Ok(ReceiptKey::from_seed(bytes))
            }
            Err(e) => Err(failed(e.to_string())),
        }
    }

    fn from_seed(seed: [u8; 32]) -> ReceiptKey {
        ReceiptKey {
            signing: SigningKey::from_bytes(&seed),
        }
    }

    /// Registers the key's seed with `secrets`, so no log, answer or
    /// recording ever carries it, whether configured or made here.
    pub fn keep_secret(&self, secrets: &crate::secrets::Secrets) {
        let seed = hex::encode(self.signing.to_bytes());
        secrets.register(crate::secrets::Kind::ReceiptKey, [seed.as_str()]);
    }

    /// The public key, base64url.
    pub fn public_key(&self) -> String {
        URL_SAFE_NO_PAD.encode(self.signing.verifying_key().as_bytes())
    }

    /// The public key's id: 16 hex digits of its SHA-256.
    pub fn key_id(&self) -> String {
        key_id(&self.signing.verifying_key())
    }

    /// `review` with its `receipt`, made of `evidence` and signed.
    pub fn sign(&self, review: &mut Value, evidence: Evidence) {
        let Some(object) = review.as_object_mut() else {
            return;
        };
        object.remove("receipt");
        let mut receipt = json!({
            "fetched_at": evidence.fetched_at,
            "source_url": evidence.source_url,
            "response_sha256": evidence.response_sha256,
            "plugin": {
                "name": evidence.plugin,
                "version": evidence.plugin_version,
                "component_sha256": evidence.component_sha256,
            },
            "host_version": env!("CARGO_PKG_VERSION"),
            "key_id": self.key_id(),
        });
        let read = as_read(object);
        receipt["field_digests"] = json!(field_digests(&read, &receipt));
        let signature = self.signing.sign(&signed_bytes(&read, &receipt));
        receipt["signature"] = json!(URL_SAFE_NO_PAD.encode(signature.to_bytes()));
        object.insert("receipt".into(), receipt);
    }
}

/// What a receipt says of where a review was read.
#[derive(Debug, Clone, Default)]
pub struct Evidence {
    /// When its upstream answer arrived (RFC 3339).
    pub fetched_at: String,
    /// The URL that answered, credentials taken out.
    pub source_url: String,
    /// SHA-256 of the answer's body, hex.
    pub response_sha256: String,
    /// The plugin's name.
    pub plugin: String,
    /// Its version.
    pub plugin_version: String,
    /// SHA-256 of its component, hex.
    pub component_sha256: String,
}

fn seed(hex_text: &str) -> Option<[u8; 32]> {
    hex::decode(hex_text).ok()?.try_into().ok()
}

fn key_id(key: &VerifyingKey) -> String {
    hex::encode(&Sha256::digest(key.as_bytes())[..8])
}

/// JSON with every object's keys sorted and no spaces: the bytes signed.
pub fn canonical(value: &Value) -> String {
    match value {
        Value::Object(map) => {
            let sorted: BTreeMap<&String, &Value> = map.iter().collect();
            let parts: Vec<String> = sorted
                .into_iter()
                .map(|(k, v)| format!("{}:{}", Value::String(k.clone()), canonical(v)))
                .collect();
            format!("{{{}}}", parts.join(","))
        }
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(canonical).collect();
            format!("[{}]", parts.join(","))
        }
        other => other.to_string(),
    }
}

fn short_digest(value: &Value) -> String {
    hex::encode(&Sha256::digest(canonical(value).as_bytes())[..6])
}

/// The fields a receipt covers: what was read, without what Gleaner derives
/// from it afterwards (a request's `insights`).
pub const DERIVED_FIELDS: [&str; 4] = ["sentiment", "rating_mismatch", "keywords", "duplicate_of"];

/// `review` without its [`DERIVED_FIELDS`].
fn as_read(review: &Map<String, Value>) -> Map<String, Value> {
    let mut read = review.clone();
    for field in DERIVED_FIELDS {
        read.remove(field);
    }
    read
}

/// A short digest of each of the review's fields (`review.<field>`) and the
/// receipt's (`receipt.<field>`): what names a field that was changed.
fn field_digests(review: &Map<String, Value>, receipt: &Value) -> BTreeMap<String, String> {
    let mut digests = BTreeMap::new();
    for (field, value) in review {
        digests.insert(format!("review.{field}"), short_digest(value));
    }
    if let Some(receipt) = receipt.as_object() {
        for (field, value) in receipt {
            if !matches!(field.as_str(), "field_digests" | "signature") {
                digests.insert(format!("receipt.{field}"), short_digest(value));
            }
        }
    }
    digests
}

/// The bytes a receipt's signature covers: the review without its receipt,
/// and the receipt without its signature.
fn signed_bytes(review: &Map<String, Value>, receipt: &Value) -> Vec<u8> {
    let mut receipt = receipt.clone();
    if let Some(r) = receipt.as_object_mut() {
        r.remove("signature");
    }
    canonical(&json!({"review": review, "receipt": receipt})).into_bytes()
}

/// Checks the receipt of `review` under `public_key` (base64url): `Ok` when
/// it verifies, else what does not hold, naming the field changed where the
/// signed digests tell it.
pub fn verify(review: &Value, public_key: &str) -> Result<(), String> {
    let key_bytes: [u8; 32] = URL_SAFE_NO_PAD
        .decode(public_key.trim())
        .ok()
        .and_then(|b| b.try_into().ok())
        .ok_or(
            "the public key is not 32 bytes of base64url; take it from GET /receipts/public-key",
        )?;
    let key =
        VerifyingKey::from_bytes(&key_bytes).map_err(|_| "the public key is not an Ed25519 key")?;
    let mut object = review
        .as_object()
        .cloned()
        .ok_or("a review is a JSON object")?;
    let receipt = object
        .remove("receipt")
        .filter(Value::is_object)
        .ok_or("the review has no receipt; fetch it with \"receipts\": true")?;
    let object = as_read(&object);
    if receipt["key_id"].as_str() != Some(key_id(&key).as_str()) {
        return Err(format!(
            "the receipt was signed under key {}, not this one ({}); use that server's public key",
            receipt["key_id"],
            key_id(&key)
        ));
    }
    let signature = receipt["signature"]
        .as_str()
        .and_then(|s| URL_SAFE_NO_PAD.decode(s).ok())
        .and_then(|b| Signature::from_slice(&b).ok())
        .ok_or("receipt.signature is not an Ed25519 signature")?;
    if key
        .verify(&signed_bytes(&object, &receipt), &signature)
        .is_ok()
    {
        return Ok(());
    }
    // What changed, by the digests the signature covered.
    let signed = receipt["field_digests"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    let now = field_digests(&object, &receipt);
    let mut changed: Vec<String> = now
        .iter()
        .filter(|(field, digest)| signed.get(*field).and_then(Value::as_str) != Some(digest))
        .map(|(field, _)| field.clone())
        .collect();
    changed.extend(signed.keys().filter(|f| !now.contains_key(*f)).cloned());
    changed.sort();
    changed.dedup();
    Err(match changed.is_empty() {
        true => "the receipt's signature does not match: receipt.field_digests or \
                 receipt.signature was changed"
            .into(),
        false => format!("changed since it was signed: {}", changed.join(", ")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key() -> ReceiptKey {
        ReceiptKey::from_seed([3u8; 32])
    }

    fn signed() -> Value {
        let mut review = json!({
            "review_id": "r1",
            "review_text": "Fast delivery.",
            "review_rating": 5.0,
            "review_reply": null,
        });
        key().sign(
            &mut review,
            Evidence {
                fetched_at: "2026-11-29T02:00:00Z".into(),
                source_url: "https://site.example/reviews?page=1".into(),
                response_sha256: "ab".repeat(32),
                plugin: "customer-feedback-hub".into(),
                plugin_version: "0.1.0".into(),
                component_sha256: "cd".repeat(32),
            },
        );
        review
    }

    #[test]
    fn a_receipt_verifies_and_any_change_fails_naming_the_field() {
        let review = signed();
        let public = key().public_key();
        assert_eq!(verify(&review, &public), Ok(()));
        let mut edited = review.clone();
        edited["review_text"] = json!("Fast delivery!");
        let e = verify(&edited, &public).unwrap_err();
        assert!(e.contains("review.review_text"), "{e}");
        let mut moved = review.clone();
        moved["receipt"]["fetched_at"] = json!("2026-11-29T03:00:00Z");
        let e = verify(&moved, &public).unwrap_err();
        assert!(e.contains("receipt.fetched_at"), "{e}");
        let mut added = review.clone();
        added["verified"] = json!(true);
        assert!(verify(&added, &public)
            .unwrap_err()
            .contains("review.verified"));
        let mut forged = review.clone();
        forged["receipt"]["field_digests"]["review.review_text"] = json!("000000000000");
        assert!(verify(&forged, &public).is_err());
        let other = ReceiptKey::from_seed([4u8; 32]).public_key();
        assert!(verify(&review, &other)
            .unwrap_err()
            .contains("signed under key"));
        // Whatever the key order of the object it is read back into.
        let text = review.to_string();
        let reread: Value = serde_json::from_str(&text).unwrap();
        assert_eq!(verify(&reread, &public), Ok(()));
    }

    #[test]
    fn the_key_is_configured_or_kept_in_the_data_directory() {
        let dir = tempfile::tempdir().unwrap();
        let made = ReceiptKey::load(None, dir.path()).unwrap();
        let again = ReceiptKey::load(None, dir.path()).unwrap();
        assert_eq!(
            made.public_key(),
            again.public_key(),
            "kept, not made twice"
        );
        let hex = "07".repeat(32);
        let given = ReceiptKey::load(Some(&hex), dir.path()).unwrap();
        assert_eq!(
            given.public_key(),
            ReceiptKey::from_seed([7u8; 32]).public_key()
        );
        assert!(matches!(
            ReceiptKey::load(Some("short"), dir.path()),
            Err(KeyError::Malformed)
        ));
    }
}
