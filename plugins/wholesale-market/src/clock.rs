//! The site's clock. A signed mtop request carries a timestamp `t` (Unix
//! milliseconds) that the gateway checks against its own time; the plugin
//! takes it from the `Date` header of the site's latest answer, so a request
//! is never skewed by the host's clock, and signs again with the fresh time
//! when the gateway still finds it stale. Only before any answer is the
//! host's clock used.

use gleaner_sdk::date::days_from_civil;
use gleaner_sdk::http::Response;

const MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Unix milliseconds of an IMF-fixdate (`Mon, 14 Sep 2026 12:21:35 GMT`).
pub fn http_date_ms(value: &str) -> Option<u64> {
    let rest = value
        .trim()
        .split_once(", ")
        .map_or(value.trim(), |(_, r)| r);
    let parts: Vec<&str> = rest.split_whitespace().collect();
    let [day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let month = MONTHS.iter().position(|m| m.eq_ignore_ascii_case(month))? as u32 + 1;
    let day: u32 = day.parse().ok().filter(|d| (1..=31).contains(d))?;
    let year: i64 = year.parse().ok().filter(|y| *y >= 1970)?;
    let hms: Vec<u64> = time
        .split(':')
        .map(|n| n.parse().ok())
        .collect::<Option<_>>()?;
    let [h, m, s] = hms.as_slice() else {
        return None;
    };
    if *h > 23 || *m > 59 || *s > 60 {
        return None;
    }
    let days = u64::try_from(days_from_civil(year, month, day)).ok()?;
    Some(((days * 24 + h) * 60 + m) * 60 * 1000 + s * 1000)
}

/// The time a response was sent, by its `Date` header.
pub fn of(response: &Response) -> Option<u64> {
    response.header("date").and_then(http_date_ms)
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
    fn reads_http_dates() {
        assert_eq!(
            http_date_ms("Mon, 14 Sep 2026 12:21:35 GMT"),
            Some(1_789_388_495_000)
        );
        assert_eq!(http_date_ms("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            http_date_ms("14 Sep 2026 12:21:35 GMT"),
            Some(1_789_388_495_000)
        );
        for bad in [
            "",
            "yesterday",
            "Mon, 14 Sep 2026 12:21:35 CEST",
            "Mon, 32 Sep 2026 12:21:35 GMT",
            "Mon, 14 Sept 2026 12:21:35 GMT",
            "Mon, 14 Sep 2026 24:00:00 GMT",
        ] {
            assert_eq!(http_date_ms(bad), None, "{bad}");
        }
        assert!(now_ms() > 1_700_000_000_000);
    }
}
