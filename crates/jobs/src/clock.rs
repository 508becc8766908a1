//! Wall-clock time as the server stores and shares it: milliseconds since
//! the Unix epoch (jobs, schedules, cool-downs, turns shared by replicas),
//! and its RFC 3339 form for answers.

use std::time::{SystemTime, UNIX_EPOCH};

/// Milliseconds since the Unix epoch.
pub type Millis = i64;

/// `at`, in milliseconds since the Unix epoch (0 before it).
pub fn millis(at: SystemTime) -> Millis {
    at.duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as Millis)
        .unwrap_or(0)
}

/// Now, in milliseconds since the Unix epoch.
pub fn now_ms() -> Millis {
    millis(SystemTime::now())
}

/// An RFC 3339 UTC timestamp of `ms`.
pub fn rfc3339(ms: Millis) -> String {
    let at = time::OffsetDateTime::from_unix_timestamp_nanos(ms as i128 * 1_000_000)
        .unwrap_or(time::OffsetDateTime::UNIX_EPOCH);
    at.format(&time::format_description::well_known::Rfc3339)
        .unwrap_or_default()
}

/// An RFC 3339 timestamp read back, in milliseconds since the epoch.
pub fn parse_rfc3339(text: &str) -> Option<Millis> {
    let at =
        time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()?;
    Some((at.unix_timestamp_nanos() / 1_000_000) as Millis)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rfc3339_reads_back_what_it_writes() {
        let at = 1_767_225_600_123;
        assert_eq!(parse_rfc3339(&rfc3339(at)), Some(at));
        assert_eq!(
            parse_rfc3339("2026-03-01T00:00:00+01:00"),
            Some(1_772_319_600_000)
        );
        assert_eq!(parse_rfc3339("yesterday"), None);
    }
}
