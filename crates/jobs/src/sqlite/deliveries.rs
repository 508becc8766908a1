//! Webhook deliveries in the SQLite store: queued when a job ends, taken when
//! due (a few of every owner's at a time), and each attempt recorded.
//! Secrets arrive sealed and leave sealed; the store opens them.

use rusqlite::{params, Connection, OptionalExtension};

use crate::model::{now_ms, Delivery, Millis, PendingDelivery, Topic, Webhook};
use crate::store::Attempt;

/// Due deliveries read per owner at a time.
const DUE_PER_OWNER: i64 = 16;

/// Queues `body` for `webhook` (its secret sealed), due now, in place of any
/// delivery of `topic` queued before for `job_id`.
pub(super) fn queue(
    c: &Connection,
    job_id: &str,
    topic: Topic,
    webhook: &Webhook,
    body: &str,
) -> rusqlite::Result<()> {
    c.execute(
        "INSERT OR REPLACE INTO webhook_deliveries (job_id, topic, url, secret, body, attempts, next_attempt_at) \
         VALUES (?1, ?2, ?3, ?4, ?5, 0, ?6)",
        params![job_id, topic.code(), webhook.url, webhook.secret, body, now_ms()],
    )
    .map(drop)
}

/// The deliveries due at `now`, taken until `lease_until`; their secrets
/// still sealed.
pub(super) fn due(
    c: &mut Connection,
    now: Millis,
    lease_until: Millis,
) -> rusqlite::Result<Vec<PendingDelivery>> {
    // Read and taken in one write transaction, so another handle on
    // the file never takes the same delivery.
    let tx = c.transaction()?;
    // The first few due deliveries of every owner, so one owner's
    // backlog never hides another's.
    let mut statement = tx.prepare_cached(
        "SELECT id, job_id, url, secret, body, attempts, owner, topic FROM ( \
           SELECT d.id, d.job_id, d.url, d.secret, d.body, d.attempts, j.owner, d.topic, \
             ROW_NUMBER() OVER (PARTITION BY j.owner ORDER BY d.next_attempt_at, d.id) AS turn \
           FROM webhook_deliveries d JOIN jobs j ON j.job_id = d.job_id \
           WHERE d.delivered_at IS NULL AND d.next_attempt_at IS NOT NULL AND d.next_attempt_at <= ?1) \
         WHERE turn <= ?2 ORDER BY turn LIMIT 256",
    )?;
    let rows = statement.query_map(params![now, DUE_PER_OWNER], |r| {
        Ok(PendingDelivery {
            id: r.get(0)?,
            job_id: r.get(1)?,
            topic: Topic::parse(&r.get::<_, String>(7)?),
            owner: r.get(6)?,
            webhook: Webhook {
                url: r.get(2)?,
                secret: r.get(3)?,
            },
            body: r.get(4)?,
            attempts: r.get::<_, i64>(5)? as u32,
        })
    })?;
    let due = rows.collect::<rusqlite::Result<Vec<PendingDelivery>>>()?;
    drop(statement);
    let mut take =
        tx.prepare_cached("UPDATE webhook_deliveries SET next_attempt_at = ?2 WHERE id = ?1")?;
    for delivery in &due {
        take.execute(params![delivery.id, lease_until])?;
    }
    drop(take);
    tx.commit()?;
    Ok(due)
}

/// Records `attempt` at the delivery `id`.
pub(super) fn record_attempt(c: &Connection, id: i64, attempt: Attempt) -> rusqlite::Result<()> {
    c.execute(
        "UPDATE webhook_deliveries SET attempts = attempts + 1, last_status = ?2, last_error = ?3, \
         next_attempt_at = ?4, delivered_at = CASE WHEN ?5 THEN ?6 ELSE delivered_at END WHERE id = ?1",
        params![
            id,
            attempt.status,
            attempt.error,
            attempt.next_attempt_at,
            attempt.delivered,
            now_ms()
        ],
    )
    .map(drop)
}

/// Where the delivery of `job_id`'s webhook stands, when it has one.
pub(super) fn of_job(c: &Connection, job_id: &str) -> rusqlite::Result<Option<Delivery>> {
    c.query_row(
        "SELECT attempts, last_status, delivered_at, last_error, next_attempt_at FROM webhook_deliveries WHERE job_id = ?1 AND topic = 'end'",
        params![job_id],
        |r| {
            let delivered_at: Option<i64> = r.get(2)?;
            let next: Option<i64> = r.get(4)?;
            Ok(Delivery {
                attempts: r.get::<_, i64>(0)? as u32,
                last_status: r.get::<_, Option<i64>>(1)?.map(|s| s as u16),
                delivered_at,
                last_error: r.get(3)?,
                next_attempt_at: next,
            })
        },
    )
    .optional()
}
