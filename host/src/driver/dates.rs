//! Review dates as the driver compares them: against a `sync_date` day, and
//! against the oldest review a `sync_cursor` names.

use chrono::{DateTime, FixedOffset, NaiveDate};

/// Where a review's date stands against the `sync_date` day.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum DayMatch {
    /// The same day.
    Same,
    /// Wholly before that day.
    Before,
    /// Wholly after that day.
    After,
    /// Unknown, or only a month that contains it (never matches a day).
    Other,
}

/// Compares a review date (`YYYY-MM-DD…` or month-precision `YYYY-MM`) with a
/// day: an instant (a date-time with its offset) by its UTC day, a date as
/// the site wrote it.
pub(super) fn compare_day(date: Option<&str>, day: &str) -> DayMatch {
    let Some(date) = date else {
        return DayMatch::Other;
    };
    let utc_day = when(date).map(|w| w.day().to_string());
    match utc_day.as_deref().or(date.get(..10)) {
        Some(d) if d == day => DayMatch::Same,
        Some(d) if d < day => DayMatch::Before,
        Some(_) => DayMatch::After,
        None if date.len() == 7 && date < &day[..7] => DayMatch::Before,
        None if date.len() == 7 && date > &day[..7] => DayMatch::After,
        None => DayMatch::Other,
    }
}

/// A review date read as precisely as it was written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum When {
    /// An RFC 3339 date-time: an instant.
    Instant(DateTime<FixedOffset>),
    /// A calendar day.
    Day(NaiveDate),
}

fn when(date: &str) -> Option<When> {
    let date = date.trim();
    if let Ok(at) = DateTime::parse_from_rfc3339(date) {
        return Some(When::Instant(at));
    }
    let day = NaiveDate::parse_from_str(date.get(..10)?, "%Y-%m-%d").ok()?;
    Some(When::Day(day))
}

impl When {
    fn day(self) -> NaiveDate {
        match self {
            When::Instant(at) => at.naive_utc().date(),
            When::Day(day) => day,
        }
    }

    /// Whether `self` is wholly before `other`: by the instant when both
    /// have one, else by the day.
    fn before(self, other: When) -> bool {
        match (self, other) {
            (When::Instant(a), When::Instant(b)) => a < b,
            _ => self.day() < other.day(),
        }
    }
}

/// The calendar day of a review date with at least a day's precision (UTC
/// for a date-time).
pub(super) fn day(date: &str) -> Option<NaiveDate> {
    when(date).map(When::day)
}

/// The oldest of `dates`, as written, when every one is readable; what a
/// `sync_cursor` keeps as its floor.
pub(super) fn oldest(dates: &[Option<String>]) -> Option<String> {
    let mut oldest: Option<(When, &str)> = None;
    for date in dates {
        let text = date.as_deref()?;
        let at = when(text)?;
        if oldest.is_none_or(|(o, _)| at.before(o)) {
            oldest = Some((at, text.trim()));
        }
    }
    oldest.map(|(_, text)| text.to_owned())
}

/// Whether a review dated `date` is wholly older than `floor`; an unreadable
/// date is not.
pub(super) fn older_than(date: Option<&str>, floor: &str) -> bool {
    match (date.and_then(when), when(floor)) {
        (Some(date), Some(floor)) => date.before(floor),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_instant_compares_by_its_utc_day() {
        let day = "2024-05-01";
        assert_eq!(
            compare_day(Some("2024-04-30T21:15:00-07:00"), day),
            DayMatch::Same
        );
        assert_eq!(
            compare_day(Some("2024-05-01T01:00:00+02:00"), day),
            DayMatch::Before
        );
        assert_eq!(
            compare_day(Some("2024-05-01T23:59:59Z"), day),
            DayMatch::Same
        );
    }

    #[test]
    fn days_and_months_compare_with_the_sync_day() {
        let day = "2024-05-12";
        assert_eq!(
            compare_day(Some("2024-05-12T23:00:00Z"), day),
            DayMatch::Same
        );
        assert_eq!(compare_day(Some("2024-05-11"), day), DayMatch::Before);
        assert_eq!(compare_day(Some("2024-05-13"), day), DayMatch::After);
        assert_eq!(compare_day(Some("2024-06"), day), DayMatch::After);
        assert_eq!(
            compare_day(Some("2024-05"), day),
            DayMatch::Other,
            "month holding the day"
        );
        assert_eq!(compare_day(Some("2024-04"), day), DayMatch::Before);
        assert_eq!(compare_day(None, day), DayMatch::Other);
    }

    #[test]
    fn the_floor_is_the_oldest_date_at_its_precision() {
        let dates = [
            Some("2024-05-12T10:00:00Z".to_owned()),
            Some("2024-05-12T08:00:00+02:00".to_owned()),
            Some("2024-05-13".to_owned()),
        ];
        assert_eq!(oldest(&dates).as_deref(), Some("2024-05-12T08:00:00+02:00"));
        assert_eq!(oldest(&[Some("2024-05-12".into()), None]), None);
        assert_eq!(oldest(&[Some("soon".into())]), None);
        let floor = "2024-05-12T06:00:00Z";
        assert!(older_than(Some("2024-05-12T05:59:59Z"), floor));
        assert!(!older_than(Some("2024-05-12T06:00:00Z"), floor));
        assert!(
            !older_than(Some("2024-05-12"), floor),
            "the same day is not older"
        );
        assert!(older_than(Some("2024-05-11"), floor));
        assert!(!older_than(Some("yesterday"), floor));
        assert!(!older_than(None, floor));
    }
}
