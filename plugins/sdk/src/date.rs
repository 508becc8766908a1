//! Dates as ISO 8601 strings, from the forms review sites use: epoch seconds and
//! milliseconds, ISO dates, `MM/DD/YYYY`, `YYYY/MM/DD`, `MM-DD-YYYY`, "October 8,
//! 2018", "8 Oct 2018", and relative dates ("3 days ago") against a reference
//! date; month-precision dates ("April 2026"); and HTTP `Date` headers, the
//! reference a page's relative dates are resolved against.

/// A day as (year, month, day).
pub type Day = (i64, u32, u32);

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

/// (year, month, day) → days since 1970-01-01.
pub fn days_from_civil(year: i64, month: u32, day: u32) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let m = i64::from(month);
    let doy = (153 * (if m > 2 { m - 3 } else { m + 9 }) + 2) / 5 + i64::from(day) - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        _ if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        _ => 28,
    }
}

fn ymd(year: i64, month: u32, day: u32) -> Option<String> {
    ((1..=12).contains(&month)
        && (1..=days_in_month(year, month)).contains(&day)
        && (1000..=9999).contains(&year))
    .then(|| format!("{year:04}-{month:02}-{day:02}"))
}

const MONTHS: [&str; 12] = [
    "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
];

fn month_number(word: &str) -> Option<u32> {
    let w = word.trim_end_matches('.').to_ascii_lowercase();
    if w.len() < 3 {
        return None;
    }
    let position = MONTHS.iter().position(|m| w.starts_with(m))?;
    let full = [
        "january",
        "february",
        "march",
        "april",
        "may",
        "june",
        "july",
        "august",
        "september",
        "october",
        "november",
        "december",
    ];
    (w.len() == 3 || full[position].starts_with(&w) || w == "sept").then_some(position as u32 + 1)
}

/// Parses a date in any of the supported forms to ISO 8601: a date-time for epoch
/// and ISO date-time input, else `YYYY-MM-DD`. `served` (when the page was
/// served) is the reference of relative forms; without it they give none.
pub fn parse(text: &str, served: Option<Served>) -> Option<String> {
    let t = text.trim();
    if t.is_empty() {
        return None;
    }
    if t.chars().all(|c| c.is_ascii_digit()) && t.len() >= 9 {
        let n: i64 = t.parse().ok()?;
        return if t.len() >= 12 {
            iso_from_epoch_millis(n)
        } else {
            iso_from_epoch_secs(n as f64)
        };
    }
    if looks_iso(t) {
        let date = ymd(
            t[..4].parse().ok()?,
            t[5..7].parse().ok()?,
            t[8..10].parse().ok()?,
        )?;
        return Some(if t.len() > 10 {
            date_time(t, date)
        } else {
            date
        });
    }
    if let Some(relative) = served.and_then(|served| parse_relative(t, served)) {
        return Some(relative);
    }
    let cleaned = t.replace(',', " ");
    let words: Vec<&str> = cleaned.split_whitespace().collect();
    if let [single] = words.as_slice() {
        return numeric(single);
    }
    let number = |w: &str| {
        w.trim_end_matches(|c: char| c.is_ascii_alphabetic())
            .parse::<u32>()
            .ok()
    };
    match words.as_slice() {
        [m, d, y] if month_number(m).is_some() => {
            ymd(y.parse().ok()?, month_number(m)?, number(d)?)
        }
        [d, m, y] if month_number(m).is_some() => {
            ymd(y.parse().ok()?, month_number(m)?, number(d)?)
        }
        _ => None,
    }
}

/// An ISO date-time as the record takes it: a space before the time made a
/// `T` (`2017-11-03 03:01:00`), and fractional seconds the record does not
/// read (`.000000` with no offset) dropped; the day alone (`day`) when it
/// still does not read.
fn date_time(text: &str, day: String) -> String {
    let reads = |t: &str| gleaner_contract::date::normalize(t).is_ok();
    let mut t = text.to_owned();
    if t.as_bytes().get(10) == Some(&b' ') {
        t.replace_range(10..11, "T");
    }
    if reads(&t) {
        return t;
    }
    if t.get(19..).is_some_and(|rest| rest.starts_with('.')) {
        let digits = t[20..].chars().take_while(char::is_ascii_digit).count();
        t.replace_range(19..20 + digits, "");
    }
    match reads(&t) {
        true => t,
        false => day,
    }
}

/// `MM/DD/YYYY`, `YYYY/MM/DD` or `MM-DD-YYYY` (a four-digit first part is the year).
fn numeric(word: &str) -> Option<String> {
    let separator = if word.contains('/') { '/' } else { '-' };
    let parts: Vec<&str> = word.split(separator).collect();
    let [a, b, c] = parts.as_slice() else {
        return None;
    };
    if a.len() == 4 {
        ymd(a.parse().ok()?, b.parse().ok()?, c.parse().ok()?)
    } else if c.len() == 4 {
        ymd(c.parse().ok()?, a.parse().ok()?, b.parse().ok()?)
    } else {
        None
    }
}

/// Whether `s` is exactly a month-precision date, `YYYY-MM`.
pub fn looks_iso_month(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 7
        && b[..4].iter().all(u8::is_ascii_digit)
        && b[4] == b'-'
        && (1..=12).contains(&s[5..].parse::<u32>().unwrap_or(0))
}

/// A month-precision date, `YYYY-MM`, from "April 2026", "Apr. 2026" or
/// "04/2026"; the day stays unknown.
pub fn month(text: &str) -> Option<String> {
    let text = text.trim();
    let (m, y) = match text.split_once('/') {
        Some((m, y)) => (m.trim().parse::<u32>().ok()?, y.trim()),
        None => {
            let (name, y) = text.split_once(char::is_whitespace)?;
            (month_number(name)?, y.trim())
        }
    };
    let year: i64 = y.parse().ok().filter(|_| y.len() == 4)?;
    (1..=12).contains(&m).then(|| format!("{year:04}-{m:02}"))
}

const HTTP_MONTHS: [&str; 12] = [
    "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
];

/// Unix milliseconds of an HTTP date (IMF-fixdate, `Mon, 14 Sep 2026 12:21:35
/// GMT`; the weekday may be missing).
pub fn http_epoch_millis(value: &str) -> Option<u64> {
    let value = value.trim();
    let rest = value.split_once(", ").map_or(value, |(_, r)| r);
    let parts: Vec<&str> = rest.split_whitespace().collect();
    let [day, month, year, time, "GMT"] = parts.as_slice() else {
        return None;
    };
    let month = HTTP_MONTHS
        .iter()
        .position(|m| m.eq_ignore_ascii_case(month))? as u32
        + 1;
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

/// When a page was served (its `Date` header), to the second: the reference
/// of relative dates, where "5 hours ago" served at 02:30 UTC is the day
/// before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Served {
    millis: u64,
}

impl Served {
    /// Reads an HTTP date (`Wed, 01 Jan 2026 02:30:00 GMT`).
    pub fn from_http(value: &str) -> Option<Served> {
        http_epoch_millis(value).map(|millis| Served { millis })
    }

    /// The (UTC) day it was served on.
    pub fn day(self) -> Day {
        civil_from_days((self.millis / 86_400_000) as i64)
    }
}

/// A relative date ("3 days ago", "about 5 hours ago" without its
/// qualifier, "yesterday") as the day it names: hours, minutes and seconds
/// count back from the moment served, longer units from the served day.
fn parse_relative(text: &str, served: Served) -> Option<String> {
    let lower = text.to_ascii_lowercase();
    let today = served.day();
    let base = days_from_civil(today.0, today.1, today.2);
    let iso = |(y, m, d): Day| format!("{y:04}-{m:02}-{d:02}");
    let shift = |days: i64| iso(civil_from_days(base - days));
    match lower.as_str() {
        "today" | "just now" => return Some(shift(0)),
        "yesterday" => return Some(shift(1)),
        _ => {}
    }
    let rest = lower.strip_suffix(" ago")?;
    let (count, unit) = rest.split_once(' ')?;
    let n: i64 = match count {
        "a" | "an" | "one" => 1,
        c => c.parse().ok()?,
    };
    let unit = unit.trim_end_matches('s');
    let (y, m, d) = today;
    let back = |unit_ms: u64| {
        let millis = served
            .millis
            .checked_sub(u64::try_from(n).ok()?.checked_mul(unit_ms)?)?;
        Some(iso(Served { millis }.day()))
    };
    match unit {
        "second" => back(1_000),
        "minute" => back(60_000),
        "hour" => back(3_600_000),
        "day" => Some(shift(n)),
        "week" => Some(shift(7 * n)),
        "month" | "year" => {
            let months = if unit == "year" { 12 * n } else { n };
            let total = y * 12 + i64::from(m) - 1 - months;
            let (year, month) = (total.div_euclid(12), (total.rem_euclid(12) + 1) as u32);
            ymd(year, month, d.min(days_in_month(year, month)))
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numeric_forms_put_the_four_digit_year_first_or_last() {
        assert_eq!(parse("2025/10/03", None).unwrap(), "2025-10-03");
        assert_eq!(parse("10-03-2025", None).unwrap(), "2025-10-03");
        assert_eq!(parse("10/03/2025", None).unwrap(), "2025-10-03");
        assert_eq!(parse("10/03/25", None), None);
        assert_eq!(parse("2025/13/03", None), None);
    }

    #[test]
    fn iso_date_times_are_made_what_the_record_takes() {
        assert_eq!(
            parse("2017-11-03 03:01:00.000000", None).unwrap(),
            "2017-11-03T03:01:00.000000"
        );
        assert_eq!(
            parse("2020-06-08 00:00:00", None).unwrap(),
            "2020-06-08T00:00:00"
        );
        assert_eq!(
            parse("2024-02-24T18:05:00.123+01:00", None).unwrap(),
            "2024-02-24T18:05:00.123+01:00"
        );
        assert_eq!(
            parse("2024-02-24T18:05:00Z", None).unwrap(),
            "2024-02-24T18:05:00Z"
        );
        assert_eq!(parse("2024-02-24 at noon", None).unwrap(), "2024-02-24");
    }

    #[test]
    fn months_keep_month_precision() {
        assert_eq!(month("April 2026").unwrap(), "2026-04");
        assert_eq!(month("Sept. 2021").unwrap(), "2021-09");
        assert_eq!(month("04/2026").unwrap(), "2026-04");
        for bad in ["13/2026", "April", "April 26", "Aprilis 2026", ""] {
            assert_eq!(month(bad), None, "{bad}");
        }
        assert!(looks_iso_month("2026-04"));
        assert!(!looks_iso_month("2026-13"));
        assert!(!looks_iso_month("2026-04-01"));
    }

    #[test]
    fn hours_ago_count_back_from_the_moment_served() {
        let served = Served::from_http("Thu, 01 Jan 2026 02:30:00 GMT");
        assert_eq!(served.unwrap().day(), (2026, 1, 1));
        let day = |text: &str| parse(text, served);
        assert_eq!(day("5 hours ago").as_deref(), Some("2025-12-31"));
        assert_eq!(day("an hour ago").as_deref(), Some("2026-01-01"));
        assert_eq!(day("151 minutes ago").as_deref(), Some("2025-12-31"));
        assert_eq!(day("31 minutes ago").as_deref(), Some("2026-01-01"));
        assert_eq!(day("1 day ago").as_deref(), Some("2025-12-31"));
        assert_eq!(day("yesterday").as_deref(), Some("2025-12-31"));
    }

    #[test]
    fn http_dates() {
        assert_eq!(
            http_epoch_millis("Mon, 14 Sep 2026 12:21:35 GMT"),
            Some(1_789_388_495_000)
        );
        assert_eq!(http_epoch_millis("Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            http_epoch_millis("14 Sep 2026 12:21:35 GMT"),
            Some(1_789_388_495_000)
        );
        assert_eq!(
            Served::from_http("Tue, 02 Apr 2024 23:59:59 GMT").map(Served::day),
            Some((2024, 4, 2))
        );
        for bad in [
            "",
            "yesterday",
            "Mon, 14 Sep 2026 12:21:35 CEST",
            "Mon, 32 Sep 2026 12:21:35 GMT",
            "Mon, 14 Sept 2026 12:21:35 GMT",
            "Mon, 14 Sep 2026 24:00:00 GMT",
        ] {
            assert_eq!(http_epoch_millis(bad), None, "{bad}");
        }
    }

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

    #[test]
    fn parses_every_supported_form() {
        let today = Served::from_http("Sun, 31 Mar 2024 12:00:00 GMT");
        for (input, want) in [
            ("1701948220", "2023-12-07T11:23:40Z"),
            ("1701948220000", "2023-12-07T11:23:40Z"),
            ("2023-12-07", "2023-12-07"),
            ("2023-12-07T11:23:40.000Z", "2023-12-07T11:23:40.000Z"),
            ("10/08/2018", "2018-10-08"),
            ("October 8, 2018", "2018-10-08"),
            ("Oct 8, 2018", "2018-10-08"),
            ("8 October 2018", "2018-10-08"),
            ("Sept. 3, 2021", "2021-09-03"),
            ("3 days ago", "2024-03-28"),
            ("a day ago", "2024-03-30"),
            ("yesterday", "2024-03-30"),
            ("2 weeks ago", "2024-03-17"),
            ("1 month ago", "2024-02-29"),
            ("2 years ago", "2022-03-31"),
            ("5 hours ago", "2024-03-31"),
        ] {
            assert_eq!(parse(input, today).as_deref(), Some(want), "{input}");
        }
        for bad in [
            "",
            "02/30/2020",
            "13/01/2020",
            "Smarch 3, 2020",
            "soon",
            "2023-13-01",
        ] {
            assert_eq!(parse(bad, today), None, "{bad}");
        }
        assert_eq!(parse("3 days ago", None), None);
        assert_eq!(
            parse("October 8, 2018", None).as_deref(),
            Some("2018-10-08")
        );
        assert_eq!(parse("10/08/2018", None).as_deref(), Some("2018-10-08"));
        assert_eq!(days_from_civil(1970, 1, 1), 0);
        assert_eq!(days_from_civil(2000, 3, 1), 11_017);
    }
}
