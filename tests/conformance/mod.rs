//! One conformance suite for the jobs stores: the same cases run on every
//! store behind `gleaner::jobs::store::Store` — SQLite ([`sqlite`], in
//! `make test`) and JetStream on a real `nats-server` ([`jetstream`], in
//! `make test-cluster`). A case opens the store as many times as it needs
//! replicas (or a restarted server) through its [`Backend`].

mod cases;
mod jetstream;
mod sqlite;

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use gleaner::jobs::store::Store;

/// One kind of store under test.
#[async_trait]
pub(crate) trait Backend: Send + Sync {
    /// A new handle on the backend's state, as another replica, or the
    /// server after a restart, holds it.
    async fn replica(&self) -> Arc<dyn Store>;
    /// How long a job's claim, or a webhook delivery taken, outlives a
    /// worker that went away.
    fn lease(&self) -> Duration;
}

/// Runs `$each!(case)` for every case of the suite: each backend's module
/// turns the list into its tests.
macro_rules! for_each_case {
    ($each:ident) => {
        $each!(a_job_is_claimed_by_one_worker_owners_taking_turns);
        $each!(a_claim_let_go_is_claimed_again_where_it_stopped);
        $each!(a_job_that_ended_is_not_claimed);
        $each!(cancel_in_every_state_and_the_first_end_kept);
        $each!(pages_are_stored_once_and_read_back_in_order);
        $each!(jobs_list_newest_first_by_owner_and_state);
        $each!(a_failed_attempt_and_its_retry_time_outlive_a_restart);
        $each!(a_delivery_is_taken_once_until_its_lease_lapses);
        $each!(a_schedules_secret_reaches_its_runs_deliveries);
        $each!(a_schedule_run_fires_once_across_replicas);
        $each!(a_schedules_runs_remember_what_they_delivered);
        $each!(retention_deletes_ended_jobs_with_what_they_hold);
        $each!(a_tracked_schedule_keeps_fingerprints_and_each_change_once);
        $each!(an_export_and_how_it_went_outlive_a_restart);
    };
}
pub(crate) use for_each_case;
