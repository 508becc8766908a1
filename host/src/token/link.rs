//! Signed links to a job's reviews as CSV, for tools that can send no
//! header (a spreadsheet's `IMPORTDATA`): the link names the job and when it
//! expires, signed with the token key, so until then it is its own
//! authorisation. Changing any byte of the job, the expiry or the signature
//! makes it fail.

use super::TokenKey;

/// The longest a link lasts, in days.
pub const MAX_DAYS: u64 = 30;

/// Why a link was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LinkError {
    /// It was valid, and has expired.
    #[error("the link expired at {0}; ask for a new one with POST /jobs/{{id}}/links")]
    Expired(String),
    /// Its signature does not match its job and expiry.
    #[error("the link's signature does not match its job and expiry (the link was changed, or signed with another token secret); ask for a new one with POST /jobs/{{id}}/links")]
    Tampered,
}

fn message(job_id: &str, expires: u64) -> String {
    format!("gleaner-csv-link\n{job_id}\n{expires}")
}

/// The signature of a link to `job_id` expiring at `expires` (Unix seconds).
pub fn sign(key: &TokenKey, job_id: &str, expires: u64) -> String {
    hex::encode(key.sign(message(job_id, expires).as_bytes()))
}

/// Whether a link to `job_id` expiring at `expires` with `signature` is good
/// at `now` (Unix seconds). The signature is checked first, so an expiry
/// changed by hand reads as tampered, not as expired.
pub fn check(
    key: &TokenKey,
    job_id: &str,
    expires: u64,
    signature: &str,
    now: u64,
) -> Result<(), LinkError> {
    let signature = hex::decode(signature).map_err(|_| LinkError::Tampered)?;
    if !key.verify(message(job_id, expires).as_bytes(), &signature) {
        return Err(LinkError::Tampered);
    }
    if expires <= now {
        let at = time::OffsetDateTime::from_unix_timestamp(expires as i64)
            .ok()
            .and_then(|t| {
                t.format(&time::format_description::well_known::Rfc3339)
                    .ok()
            })
            .unwrap_or_else(|| expires.to_string());
        return Err(LinkError::Expired(at));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_link_holds_until_it_expires_and_no_byte_of_it_changes() {
        let key = TokenKey::from_secret(&[7; 32]).unwrap();
        let sig = sign(&key, "job-1", 1_000);
        assert_eq!(check(&key, "job-1", 1_000, &sig, 999), Ok(()));
        assert!(matches!(
            check(&key, "job-1", 1_000, &sig, 1_000),
            Err(LinkError::Expired(_))
        ));
        assert_eq!(
            check(&key, "job-2", 1_000, &sig, 999),
            Err(LinkError::Tampered)
        );
        assert_eq!(
            check(&key, "job-1", 9_000, &sig, 999),
            Err(LinkError::Tampered)
        );
        let mut changed = sig.clone().into_bytes();
        changed[0] = if changed[0] == b'0' { b'1' } else { b'0' };
        let changed = String::from_utf8(changed).unwrap();
        assert_eq!(
            check(&key, "job-1", 1_000, &changed, 999),
            Err(LinkError::Tampered)
        );
        assert_eq!(
            check(&key, "job-1", 1_000, "not hex", 999),
            Err(LinkError::Tampered)
        );
        let other = TokenKey::from_secret(&[8; 32]).unwrap();
        assert_eq!(
            check(&other, "job-1", 1_000, &sig, 999),
            Err(LinkError::Tampered)
        );
    }
}
