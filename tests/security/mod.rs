//! The attack suite: what an outside attacker tried against the server, kept as
//! tests so it runs on every change. Each module is one class of attack.

use crate::common;

mod admin_paths;
mod at_rest;
mod auth_matrix;
mod browser_devtools;
mod bulkheads;
mod client_limits;
mod cluster_queue;
mod cluster_trust;
mod connection_caps;
mod fault_injection;
mod fuzz;
mod http_layer;
mod input_limits;
mod job_inputs;
pub(crate) mod job_queue;
mod memory;
mod network_share;
pub(crate) mod process;
mod rebinding;
mod rogue_plugin;
mod secrets;
mod shutdown;
mod slow_clients;
mod ssrf_matrix;
mod tokens;
mod webhook_fairness;
mod webhook_replay;
