//! Dates as ISO 8601 strings.

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian.
pub fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let month = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

/// Epoch seconds (fractions dropped) → `YYYY-MM-DDTHH:MM:SSZ`.
pub fn iso_from_epoch_secs(secs: f64) -> Option<String> {
    if !secs.is_finite() {
        return None;
    }
    let secs = secs.floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let (y, m, d) = civil_from_days(days);
    Some(format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    ))
}

/// Epoch milliseconds → ISO 8601 UTC.
pub fn iso_from_epoch_millis(millis: i64) -> Option<String> {
    iso_from_epoch_secs(millis as f64 / 1000.0)
}

/// Whether `s` starts with a plausible `YYYY-MM-DD` date.
pub fn looks_iso(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 10
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && b[5..7].iter().all(u8::is_ascii_digit)
        && b[7] == b'-'
        && b[8..10].iter().all(u8::is_ascii_digit)
        && (1..=12).contains(&s[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&s[8..10].parse::<u32>().unwrap_or(0))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn epoch_conversions() {
        assert_eq!(iso_from_epoch_secs(0.0).unwrap(), "1970-01-01T00:00:00Z");
        assert_eq!(
            iso_from_epoch_secs(951_782_400.5).unwrap(),
            "2000-02-29T00:00:00Z"
        );
        assert_eq!(iso_from_epoch_secs(-1.0).unwrap(), "1969-12-31T23:59:59Z");
        assert_eq!(
            iso_from_epoch_millis(1_701_948_220_000).unwrap(),
            "2023-12-07T11:23:40Z"
        );
        assert!(looks_iso("2023-12-07T11:23:40.000Z"));
        assert!(!looks_iso("07/12/2023"));
    }
}
