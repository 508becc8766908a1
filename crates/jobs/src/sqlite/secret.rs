//! Webhook secrets at rest: sealed with the server's key (the one the
//! cluster's buckets use) before they reach the file, opened when read.

use gleaner_seal::Seal;

/// What a sealed secret starts with in the store; one without it was stored
/// in clear by a version before schema 2 and is read as it is.
const SEALED: &str = "sealed:";

/// The label webhook secrets are sealed under.
const LABEL: &str = "jobs.webhook-secret";

/// `secret` as it is stored: sealed, or as it is when it already is.
pub(super) fn seal(seal: &Seal, secret: &str) -> Result<String, String> {
    if secret.starts_with(SEALED) {
        return Ok(secret.to_owned());
    }
    let sealed = seal.seal(LABEL, secret.as_bytes())?;
    Ok(format!("{SEALED}{}", hex::encode(sealed)))
}

/// A stored secret opened. One stored in clear is taken as it is; one that
/// does not open with this server's key is logged and read as empty (its
/// deliveries are then signed with none).
pub(super) fn open(seal: &Seal, stored: String) -> String {
    let Some(sealed) = stored.strip_prefix(SEALED) else {
        return stored;
    };
    let opened = hex::decode(sealed)
        .ok()
        .and_then(|bytes| seal.open(LABEL, &bytes));
    match opened {
        Some(bytes) => String::from_utf8_lossy(&bytes).into_owned(),
        None => {
            tracing::warn!(
                "a webhook secret in the jobs store does not open with this server's key \
                 (GLEANER_CLUSTER_KEY, else the token secret); its delivery is signed with none"
            );
            String::new()
        }
    }
}

/// Whether `stored` is sealed.
pub(super) fn is_sealed(stored: &str) -> bool {
    stored.starts_with(SEALED)
}
