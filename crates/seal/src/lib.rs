//! Secrets at rest, in one place for every store that keeps them:
//!
//! - [`seal`]: values sealed under one key (webhook secrets in the jobs
//!   store, sessions and cached tokens in the cluster's buckets), and records
//!   signed with it (plugin roll-outs);
//! - [`private_files`]: the data directory and its files, readable by the
//!   server's user alone.

pub mod private_files;
pub mod seal;

pub use seal::{key_bytes, Seal};
