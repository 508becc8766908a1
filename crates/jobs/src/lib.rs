//! Crawl jobs, schedules that deliver only new reviews, and signed webhooks.
//! A job pages a source as far as its total within its own budget, with the
//! server's driver; each page is committed with the position after it before
//! the next is used, so a restart resumes every unfinished job where it
//! stopped.
//!
//! - [`model`] and [`status`]: what is stored and answered, defined once for
//!   the wire, the OpenAPI document and the CLI; [`stop`]: why a fetch or a
//!   job stopped;
//! - [`store`]: the one storage trait, and [`sqlite`] its embedded
//!   implementation (the cluster's is in the server, on JetStream);
//! - [`engine`]: the loops and the rules of a job's life, with what the
//!   server plugs in ([`Worker`], [`Sender`]);
//! - [`webhooks`]: what a delivery carries, and its retries;
//! - [`changes`]: a tracked schedule's change records;
//! - [`cadence`]: when a schedule runs; [`turns`]: which queued job runs
//!   next, owners taking turns; [`clock`]: time as stores keep it.
//!
//! The engine knows nothing of plugins or HTTP: the server's worker and
//! sender do that, so this crate builds and tests on its own.

pub mod cadence;
pub mod changes;
pub mod clock;
pub mod engine;
pub mod model;
pub mod sqlite;
pub mod status;
pub mod stop;
pub mod store;
pub mod turns;
pub mod webhooks;

pub use engine::{End, Exporter, Jobs, Sender, Settings, Worker};
pub use stop::StopReason;
