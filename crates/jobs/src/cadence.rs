//! When a schedule runs: `every` (`"6h"`, `"30m"`, `"1d"`) or a five-field
//! `cron` expression (`"0 3 * * *"`) in an IANA time zone (`"Europe/Paris"`,
//! UTC by default), read by croner and chrono-tz, which know day-of-week
//! ranges, steps and daylight-saving changes better than a hand-written
//! reader would.

use std::str::FromStr;

use chrono::TimeZone;

use crate::model::{Cadence, Millis};

/// The shortest interval a schedule may have.
pub const MIN_EVERY_SECS: u64 = 60;

/// The longest interval a schedule may have: 366 days.
pub const MAX_EVERY_SECS: u64 = 366 * 86_400;

/// Reads `every`: a whole number and a unit (`s`, `m`, `h`, `d`, `w`).
pub fn parse_every(text: &str) -> Result<u64, String> {
    let text = text.trim();
    let unit_at = text
        .find(|c: char| !c.is_ascii_digit())
        .ok_or_else(|| every_error(text))?;
    let (number, unit) = text.split_at(unit_at);
    let n: u64 = number.parse().map_err(|_| every_error(text))?;
    let seconds = match unit.trim() {
        "s" => 1,
        "m" | "min" => 60,
        "h" => 3_600,
        "d" => 86_400,
        "w" => 604_800,
        _ => return Err(every_error(text)),
    };
    let secs = n
        .checked_mul(seconds)
        .filter(|secs| *secs <= MAX_EVERY_SECS)
        .ok_or_else(|| {
            format!("`every` is {text:?}, over the longest interval of 366 days; give at most \"366d\" (or use `cron`)")
        })?;
    if secs < MIN_EVERY_SECS {
        return Err(format!(
            "`every` is {text:?}, under the shortest interval of {MIN_EVERY_SECS} s; run at most once a minute"
        ));
    }
    Ok(secs)
}

fn every_error(text: &str) -> String {
    format!(
        "`every` is {text:?}; give a whole number and a unit: s, m, h, d or w (e.g. \"6h\", \"30m\", \"1d\")"
    )
}

/// `secs` as `every` writes it: the largest unit that divides it.
pub fn describe(secs: u64) -> String {
    for (unit, size) in [("w", 604_800), ("d", 86_400), ("h", 3_600), ("m", 60)] {
        if secs >= size && secs.is_multiple_of(size) {
            return format!("{}{unit}", secs / size);
        }
    }
    format!("{secs}s")
}

/// Checks a cron expression and time zone; the error names what is wrong.
pub fn check_cron(expression: &str, timezone: Option<&str>) -> Result<(), String> {
    croner::Cron::from_str(expression).map_err(|e| {
        format!(
            "`cron` {expression:?} is not a cron expression ({e}); give five fields: minute hour \
             day-of-month month day-of-week, e.g. \"0 3 * * *\" for 03:00 every day"
        )
    })?;
    if expression.split_whitespace().count() != 5 {
        return Err(format!(
            "`cron` {expression:?} has {} fields; give five: minute hour day-of-month month day-of-week",
            expression.split_whitespace().count()
        ));
    }
    if let Some(tz) = timezone {
        chrono_tz::Tz::from_str(tz).map_err(|_| {
            format!("`timezone` {tz:?} is not an IANA time zone; give one such as \"Europe/Paris\" or \"UTC\"")
        })?;
    }
    Ok(())
}

/// The run after `schedule`'s run due now (at `now`, ms since the epoch):
/// its cadence from the later of now and when that run was due, so a run
/// taken late does not bring on a burst of runs to catch up.
pub fn next_run(schedule: &crate::model::Schedule, now: Millis) -> Millis {
    next_after(&schedule.cadence, now.max(schedule.next_run_at))
}

/// When `cadence` runs next after `after` (ms since the epoch).
pub fn next_after(cadence: &Cadence, after: Millis) -> Millis {
    match cadence {
        Cadence::Every(secs) => after.saturating_add((*secs as Millis).saturating_mul(1_000)),
        Cadence::Cron {
            expression,
            timezone,
        } => {
            let tz = timezone
                .as_deref()
                .and_then(|t| chrono_tz::Tz::from_str(t).ok())
                .unwrap_or(chrono_tz::UTC);
            let now = tz
                .timestamp_millis_opt(after)
                .single()
                .unwrap_or_else(|| tz.timestamp_millis_opt(0).unwrap());
            croner::Cron::from_str(expression)
                .ok()
                .and_then(|cron| cron.find_next_occurrence(&now, false).ok())
                .map(|next| next.timestamp_millis())
                // An expression that matches no time again runs in a year.
                .unwrap_or(after + 365 * 86_400_000)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reads_numbers_with_units() {
        assert_eq!(parse_every("6h"), Ok(21_600));
        assert_eq!(parse_every("30m"), Ok(1_800));
        assert_eq!(parse_every(" 1d "), Ok(86_400));
        assert!(parse_every("30s").unwrap_err().contains("once a minute"));
        assert!(parse_every("6 hours")
            .unwrap_err()
            .contains("s, m, h, d or w"));
        for huge in [
            "18446744073709551615s",
            "99999999999999w",
            "9223372036854775808s",
            "367d",
        ] {
            assert!(
                parse_every(huge).unwrap_err().contains("366 days"),
                "{huge}"
            );
        }
        assert_eq!(parse_every("366d"), Ok(MAX_EVERY_SECS));
        assert_eq!(describe(21_600), "6h");
        assert_eq!(describe(90), "90s");
    }

    #[test]
    fn cron_runs_at_its_next_match_in_its_zone() {
        // 2026-01-10 12:00 UTC; 03:00 in Paris (UTC+1 in January) is 02:00 UTC.
        let noon = 1_768_046_400_000;
        let paris = Cadence::Cron {
            expression: "0 3 * * *".into(),
            timezone: Some("Europe/Paris".into()),
        };
        assert_eq!(next_after(&paris, noon), noon + 14 * 3_600_000);
        let utc = Cadence::Cron {
            expression: "0 3 * * *".into(),
            timezone: None,
        };
        assert_eq!(next_after(&utc, noon), noon + 15 * 3_600_000);
        assert!(check_cron("0 3 * *", None).is_err());
        assert!(check_cron("0 3 * * *", Some("Mars/Olympus"))
            .unwrap_err()
            .contains("IANA"));
        assert!(check_cron("61 3 * * *", None).is_err());
    }
}
