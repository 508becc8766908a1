//! Cluster mode's store: replicas that share jobs and state through NATS
//! JetStream. Nothing here is a queue, lock or consensus of its own:
//! work-queue streams, key-value buckets (compare-and-set on revisions) and
//! their watches do it.
//!
//! - [`settings`]: what turns it on, and how the state is kept (always
//!   built, so a configuration reads the same in every build);
//!
//! With the `nats` feature:
//! - [`Link`]: one replica's connection, with its streams and buckets;
//! - [`resources`]: the streams and buckets, created at start when missing;
//! - [`queue`]: the jobs waiting for a worker, a lane per owner, taken in turns;
//! - [`sends`]: the webhook deliveries waiting to be sent, retried by
//!   `Nak(delay)`;
//! - [`jobs`]: the jobs store on them, behind `gleaner_jobs::store::Store`;
//! - [`index`]: bucket keys in order (due times, owners' lists), kept by watches;
//! - [`records`]: sealed records in buckets and streams, read and written by
//!   compare-and-set.
//!
//! The server hooks its shared caches, sessions, pacing and plugin
//! roll-outs onto a [`Link`]; those live beside what they share.

pub mod settings;

#[cfg(feature = "nats")]
pub mod index;
#[cfg(feature = "nats")]
pub mod jobs;
#[cfg(feature = "nats")]
mod link;
#[cfg(feature = "nats")]
pub mod queue;
#[cfg(feature = "nats")]
pub mod records;
#[cfg(feature = "nats")]
pub mod resources;
#[cfg(feature = "nats")]
pub mod sends;

#[cfg(feature = "nats")]
pub use link::{is_connected, Link};
