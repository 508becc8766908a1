//! The `gleaner` server binary.

use std::process::ExitCode;

/// jemalloc, with a background thread that gives freed pages back to the system
/// within about a second: the system allocator kept what a burst of slow
/// connections had used.
#[global_allocator]
static ALLOCATOR: tikv_jemallocator::Jemalloc = tikv_jemallocator::Jemalloc;

/// jemalloc's settings: purge dirty pages after 1 s, from a background thread.
#[allow(non_upper_case_globals)]
#[export_name = "_rjem_malloc_conf"]
pub static malloc_conf: &[u8] = b"background_thread:true,dirty_decay_ms:1000,muzzy_decay_ms:0\0";

#[tokio::main]
async fn main() -> ExitCode {
    gleaner::cli::command::main().await
}
