//! Review dates: what a plugin may send (ISO 8601, exactly as precise as the
//! site is) and what the record holds (an RFC 3339 UTC date-time in whole
//! seconds, with the precision beside it).

use time::macros::format_description;
use time::{Date, OffsetDateTime, PrimitiveDateTime, Time, UtcOffset};

/// How precise a date is: what the site really told.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Precision {
    /// `YYYY`.
    Year,
    /// `YYYY-MM`.
    Month,
    /// `YYYY-MM-DD`.
    Day,
    /// `YYYY-MM-DDTHH:MM`.
    Minute,
    /// A date-time with seconds.
    Second,
}

impl Precision {
    /// The record's name of it.
    pub fn as_str(self) -> &'static str {
        match self {
            Precision::Year => "year",
            Precision::Month => "month",
            Precision::Day => "day",
            Precision::Minute => "minute",
            Precision::Second => "second",
        }
    }
}

/// A date as the record gives it: RFC 3339 in UTC, whole seconds
/// (`2023-12-06T23:21:52Z`; a day is its midnight, a month its first day, a
/// year its first of January), and its precision.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RecordDate {
    /// The RFC 3339 UTC text.
    pub utc: String,
    /// What the site told.
    pub precision: Precision,
}

/// Reads `text` as ISO 8601: `YYYY`, `YYYY-MM`, `YYYY-MM-DD`, or that date,
/// `T`, and `HH:MM` or `HH:MM:SS` (with a fraction or not), then `Z`, an
/// offset (`+02:00`, `+0200`) or nothing (UTC).
pub fn normalize(text: &str) -> Result<RecordDate, String> {
    let t = text.trim();
    let refused = || {
        format!(
            "date {text:?} is not ISO 8601 (YYYY, YYYY-MM, YYYY-MM-DD, YYYY-MM-DDTHH:MM or an \
             RFC 3339 date-time)"
        )
    };
    let (day, precision, time, offset) = match t.split_once('T') {
        None => {
            let (day, precision) = match t.len() {
                4 => (format!("{t}-01-01"), Precision::Year),
                7 => (format!("{t}-01"), Precision::Month),
                _ => (t.to_owned(), Precision::Day),
            };
            (day, precision, Time::MIDNIGHT, UtcOffset::UTC)
        }
        Some((day, rest)) => {
            let (clock, offset) = split_offset(rest).ok_or_else(refused)?;
            let (time, precision) = clock_time(clock).ok_or_else(refused)?;
            (day.to_owned(), precision, time, offset)
        }
    };
    let date =
        Date::parse(&day, format_description!("[year]-[month]-[day]")).map_err(|_| refused())?;
    let utc = PrimitiveDateTime::new(date, time)
        .assume_offset(offset)
        .to_offset(UtcOffset::UTC);
    Ok(RecordDate {
        utc: rfc3339(utc),
        precision,
    })
}

fn rfc3339(t: OffsetDateTime) -> String {
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second()
    )
}

/// Splits `HH:MM[:SS[.fff]]` from its zone: `Z`, `±HH:MM`, `±HHMM` or none.
fn split_offset(rest: &str) -> Option<(&str, UtcOffset)> {
    if let Some(clock) = rest.strip_suffix('Z').or_else(|| rest.strip_suffix('z')) {
        return Some((clock, UtcOffset::UTC));
    }
    let Some(at) = rest.rfind(['+', '-']) else {
        return Some((rest, UtcOffset::UTC));
    };
    let (clock, zone) = rest.split_at(at);
    let sign: i8 = if zone.starts_with('-') { -1 } else { 1 };
    let digits: String = zone[1..].chars().filter(|c| *c != ':').collect();
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i8 = digits[..2].parse().ok()?;
    let minutes: i8 = digits[2..].parse().ok()?;
    let offset = UtcOffset::from_hms(sign * hours, sign * minutes, 0).ok()?;
    Some((clock, offset))
}

/// `HH:MM` (minutes) or `HH:MM:SS` with an optional fraction (seconds).
fn clock_time(clock: &str) -> Option<(Time, Precision)> {
    let two = |s: &str| -> Option<u8> {
        (s.len() == 2 && s.bytes().all(|b| b.is_ascii_digit()))
            .then(|| s.parse().ok())
            .flatten()
    };
    let mut parts = clock.splitn(3, ':');
    let hour = two(parts.next()?)?;
    let minute = two(parts.next()?)?;
    match parts.next() {
        None => Some((Time::from_hms(hour, minute, 0).ok()?, Precision::Minute)),
        Some(seconds) => {
            let (whole, fraction) = match seconds.split_once(['.', ',']) {
                Some((whole, fraction)) => (whole, Some(fraction)),
                None => (seconds, None),
            };
            if fraction.is_some_and(|f| f.is_empty() || !f.bytes().all(|b| b.is_ascii_digit())) {
                return None;
            }
            let second = two(whole)?;
            // A leap second is read as the second before it.
            let second = second.min(59);
            Some((
                Time::from_hms(hour, minute, second).ok()?,
                Precision::Second,
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn utc(text: &str) -> (String, &'static str) {
        let d = normalize(text).unwrap();
        (d.utc, d.precision.as_str())
    }

    #[test]
    fn every_shape_becomes_rfc3339_utc_with_its_precision() {
        let cases = [
            ("2023-12-07T11:23:40.000Z", "2023-12-07T11:23:40Z", "second"),
            ("2023-12-07T09:14:00Z", "2023-12-07T09:14:00Z", "second"),
            ("2023-12-07T09:14", "2023-12-07T09:14:00Z", "minute"),
            ("2023-12-06", "2023-12-06T00:00:00Z", "day"),
            ("2023-12", "2023-12-01T00:00:00Z", "month"),
            ("2023", "2023-01-01T00:00:00Z", "year"),
            (
                "2024-05-01T10:00:00+02:00",
                "2024-05-01T08:00:00Z",
                "second",
            ),
            ("2024-05-01T01:30:00-0330", "2024-05-01T05:00:00Z", "second"),
            ("2024-05-01T10:00:00", "2024-05-01T10:00:00Z", "second"),
            ("2024-12-31T23:30+01:00", "2024-12-31T22:30:00Z", "minute"),
            ("2016-12-31T23:59:60Z", "2016-12-31T23:59:59Z", "second"),
        ];
        for (given, want, precision) in cases {
            assert_eq!(utc(given), (want.to_owned(), precision), "{given}");
        }
    }

    #[test]
    fn what_is_not_iso_is_refused() {
        for text in [
            "yesterday",
            "2024-02-30",
            "2024-13",
            "24-05-01",
            "2024-05-01T25:00",
            "2024-05-01T10",
            "2024-05-01T10:00:00+2",
            "2024-05-01T10:00:00.Z",
            "2024-05-01 10:00",
            "",
        ] {
            assert!(normalize(text).is_err(), "{text:?} was accepted");
        }
    }
}
