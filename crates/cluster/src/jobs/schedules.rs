//! Schedules in the cluster: a key each in the schedules bucket, sealed
//! whole; a run is taken by compare-and-set on its next run time, so each
//! period runs once across the cluster. The review ids a schedule's runs
//! delivered are messages on the schedule's own subject of the delivered
//! stream.

use std::collections::HashSet;
use std::sync::Arc;

use super::JetStreamStore;
use crate::index::{DueIndex, Index, Place, Span};
use crate::{records, Link};
use gleaner_jobs::model::{now_ms, Millis, NewSchedule, Schedule};
use gleaner_jobs::store::StoreError;

/// Where a schedule stands among its owner's.
fn owner_place(schedule: &Schedule) -> Place<(String, Millis), ()> {
    Some(((schedule.owner.clone(), schedule.created_at), ()))
}

/// The schedules of `cluster` by owner and creation time, for the lists.
pub(super) fn by_owner(cluster: &Link) -> Arc<Index<(String, Millis), ()>> {
    Index::follow(
        cluster.resources.schedules.clone(),
        cluster.seal.clone(),
        owner_place,
    )
}

/// Due schedules read at most per call.
const MAX_DUE: usize = 1_024;

/// The schedules of `cluster` by their next run.
pub(super) fn index(cluster: &Link) -> Arc<DueIndex> {
    DueIndex::follow(
        cluster.resources.schedules.clone(),
        cluster.seal.clone(),
        |schedule: &Schedule| Some((schedule.next_run_at, ())),
    )
}

/// Creates the schedule `new`; the schedule as stored.
pub(super) async fn create(
    store: &JetStreamStore,
    new: NewSchedule,
) -> Result<Schedule, StoreError> {
    let schedule = Schedule {
        schedule_id: uuid::Uuid::new_v4().simple().to_string(),
        owner: new.owner,
        endpoint: new.endpoint,
        request: new.request,
        cadence: new.cadence,
        webhook: new.webhook,
        next_run_at: new.next_run_at,
        last_job_id: None,
        runs: 0,
        skipped_runs: 0,
        reviews_delivered: 0,
        caught_up: false,
        created_at: now_ms(),
        tracking: new.tracking,
        export: new.export,
    };
    store
        .schedules()
        .create(&schedule.schedule_id, &schedule)
        .await?;
    let id = &schedule.schedule_id;
    store
        .due_schedules
        .note(id, Some((schedule.next_run_at, ())));
    store.schedules_by_owner.note(id, owner_place(&schedule));
    Ok(schedule)
}

/// The schedule `id`, if it exists and (with `owner`) belongs to `owner`.
pub(super) async fn one(
    store: &JetStreamStore,
    owner: Option<&str>,
    id: &str,
) -> Result<Option<Schedule>, StoreError> {
    let schedule = store.schedules().get::<Schedule>(id).await?;
    Ok(schedule
        .map(|(s, _)| s)
        .filter(|s| owner.is_none_or(|o| s.owner == o)))
}

/// `owner`'s schedules, oldest first.
pub(super) async fn of_owner(
    store: &JetStreamStore,
    owner: &str,
    after: Option<&str>,
    limit: usize,
) -> Result<Vec<Schedule>, StoreError> {
    let index = &store.schedules_by_owner;
    // The page after `after` (an unknown anchor: from the oldest).
    let anchor = index.anchor(after).await?;
    let span = Span::of_owner(owner, anchor, None, false);
    let mut page = Vec::new();
    for id in index.page(span, limit, |_, _| true).await? {
        // One the index has and the bucket no longer: deleted meanwhile.
        page.extend(one(store, Some(owner), &id).await?);
    }
    Ok(page)
}

/// Deletes `owner`'s schedule `id` and the review ids its runs delivered;
/// whether there was one.
pub(super) async fn delete(
    store: &JetStreamStore,
    owner: &str,
    id: &str,
) -> Result<bool, StoreError> {
    if one(store, Some(owner), id).await?.is_none() {
        return Ok(false);
    }
    let r = &store.cluster.resources;
    records::delete(&r.schedules, id).await?;
    store.due_schedules.note(id, None);
    store.schedules_by_owner.note(id, None);
    r.delivered
        .purge()
        .filter(JetStreamStore::delivered_subject(id))
        .await
        .map_err(records::fail)?;
    super::changes::delete(store, id).await?;
    Ok(true)
}

/// Records that a run of schedule `id` walked the whole source at `at`.
pub(super) async fn walked_all(
    store: &JetStreamStore,
    id: &str,
    at: Millis,
) -> Result<(), StoreError> {
    store
        .schedules()
        .modify::<Schedule>(id, |s| match &mut s.tracking {
            Some(tracking) => {
                tracking.last_full_walk_at = Some(at);
                true
            }
            None => false,
        })
        .await?;
    Ok(())
}

/// Takes the runs due at `now`: each due schedule's next run moved on by
/// compare-and-set, so of the replicas that look at once, one takes it.
pub(super) async fn take_due(
    store: &JetStreamStore,
    now: Millis,
) -> Result<Vec<Schedule>, StoreError> {
    let mut taken = Vec::new();
    for id in store
        .due_schedules
        .page(Span::due_at(now), MAX_DUE, |_, _| true)
        .await?
    {
        match store.schedules().get::<Schedule>(&id).await? {
            Some((mut schedule, revision)) if schedule.next_run_at <= now => {
                let next = gleaner_jobs::cadence::next_run(&schedule, now);
                schedule.next_run_at = next;
                if store.schedules().swap(&id, &schedule, revision).await? {
                    store.due_schedules.note(&id, Some((next, ())));
                    taken.push(schedule);
                }
            }
            // The index lagged the bucket: put it right.
            Some((schedule, _)) => store
                .due_schedules
                .note(&id, Some((schedule.next_run_at, ()))),
            None => store.due_schedules.note(&id, None),
        }
    }
    Ok(taken)
}

/// Records a run of schedule `id`: the job it started (none when skipped)
/// and its next run.
pub(super) async fn ran(
    store: &JetStreamStore,
    id: &str,
    job_id: Option<&str>,
    next_run_at: Millis,
) -> Result<(), StoreError> {
    store
        .schedules()
        .modify::<Schedule>(id, |s| {
            s.next_run_at = next_run_at;
            match job_id {
                Some(job) => {
                    s.last_job_id = Some(job.to_owned());
                    s.runs += 1;
                }
                None => s.skipped_runs += 1,
            }
            true
        })
        .await?;
    store.due_schedules.note(id, Some((next_run_at, ())));
    Ok(())
}

/// Records the end of a run of schedule `id` (with its job's end): the
/// reviews it delivered, and whether it reached the end of what was new.
pub(super) async fn run_ended(
    store: &JetStreamStore,
    id: &str,
    delivered: u64,
    caught_up: bool,
) -> Result<(), StoreError> {
    store
        .schedules()
        .modify::<Schedule>(id, |s| {
            s.reviews_delivered += delivered;
            s.caught_up = caught_up;
            true
        })
        .await?;
    Ok(())
}

/// The ids of the reviews schedule `id`'s runs delivered, read from its
/// subject of the delivered stream.
pub(super) async fn delivered_ids(
    store: &JetStreamStore,
    id: &str,
) -> Result<HashSet<String>, StoreError> {
    let subject = JetStreamStore::delivered_subject(id);
    let mut ids = HashSet::new();
    let mut after = 0;
    loop {
        let (messages, more) =
            records::read_subject(&store.cluster.resources.delivered, &subject, after, 10_000)
                .await?;
        after = messages.last().map(|(seq, _)| *seq).unwrap_or(after);
        ids.extend(
            messages
                .into_iter()
                .map(|(_, id)| String::from_utf8_lossy(&id).into_owned()),
        );
        if !more {
            return Ok(ids);
        }
    }
}
