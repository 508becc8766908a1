//! The site's clock. A signed mtop request carries a timestamp `t` (Unix
//! milliseconds) that the gateway checks against its own time; the plugin
//! takes it from the `Date` header of the site's latest answer, so a request
//! is never skewed by the host's clock, and signs again with the fresh time
//! when the gateway still finds it stale. Only before any answer is the
//! host's clock used.

use gleaner_sdk::date;
use gleaner_sdk::http::Response;

/// The time a response was sent, by its `Date` header.
pub fn of(response: &Response) -> Option<u64> {
    response.header("date").and_then(date::http_epoch_millis)
}

/// The host's clock, in Unix milliseconds (only before the site answered).
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_clock_is_unix_milliseconds() {
        assert!(now_ms() > 1_700_000_000_000);
    }
}
