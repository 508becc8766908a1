//! A job's reviews in the SQLite store: each page committed in one
//! transaction with the job's new position (and, for a schedule's run, the
//! ids it delivered), and read back a page at a time.

use rusqlite::{params, Connection};
use serde_json::Value;

use crate::store::{PageWrite, ReviewPage};

/// Stores `page` of job `id` and its new position; how many reviews were
/// new to the job.
pub(super) fn commit(c: &mut Connection, id: &str, page: &PageWrite) -> rusqlite::Result<u64> {
    let tx = c.transaction()?;
    let (next, schedule): (i64, Option<String>) = tx.query_row(
        "SELECT COALESCE((SELECT MAX(seq) FROM job_reviews WHERE job_id = ?1), 0), \
         (SELECT schedule_id FROM jobs WHERE job_id = ?1)",
        params![id],
        |r| Ok((r.get(0)?, r.get(1)?)),
    )?;
    let mut seq = next;
    let mut added = 0u64;
    {
        let mut insert = tx.prepare_cached(
            "INSERT OR IGNORE INTO job_reviews (job_id, seq, review_id, review) VALUES (?1, ?2, ?3, ?4)",
        )?;
        let mut delivered = tx.prepare_cached(
            "INSERT OR IGNORE INTO schedule_delivered (schedule_id, review_id) VALUES (?1, ?2)",
        )?;
        for (review_id, review) in &page.reviews {
            if insert.execute(params![id, seq + 1, review_id, review])? == 1 {
                seq += 1;
                added += 1;
                if let Some(schedule) = &schedule {
                    delivered.execute(params![schedule, review_id])?;
                }
            }
        }
    }
    if let Some(schedule) = schedule.as_deref().filter(|_| !page.changes.is_empty()) {
        super::changes::write(&tx, schedule, &page.changes)?;
    }
    tx.execute(
        "UPDATE jobs SET position = ?2, reviews_collected = reviews_collected + ?3, \
         pages_fetched = pages_fetched + ?4 WHERE job_id = ?1",
        params![id, page.position, added as i64, page.pages as i64],
    )?;
    tx.commit()?;
    Ok(added)
}

/// Job `id`'s reviews after number `after`, at most `limit`, with the
/// cursor of the next page.
pub(super) fn page(
    c: &Connection,
    id: &str,
    after: u64,
    limit: usize,
) -> rusqlite::Result<ReviewPage> {
    let mut statement = c.prepare_cached(
        "SELECT seq, review FROM job_reviews WHERE job_id = ?1 AND seq > ?2 ORDER BY seq LIMIT ?3",
    )?;
    let rows: Vec<(i64, String)> = statement
        .query_map(params![id, after as i64, limit as i64 + 1], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })?
        .collect::<rusqlite::Result<_>>()?;
    let more = rows.len() > limit;
    let page: Vec<(i64, String)> = rows.into_iter().take(limit).collect();
    let next = page.last().map(|(seq, _)| *seq as u64).filter(|_| more);
    let reviews = page
        .into_iter()
        .map(|(_, text)| serde_json::from_str(&text).unwrap_or(Value::Null))
        .collect();
    Ok((reviews, next))
}
