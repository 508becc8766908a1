//! The integration tests, one binary (compiled and linked once), one module per
//! area. Each starts the real server on a random loopback port, or runs the
//! built binary.

mod common;

mod api;
mod attraction_booking_session;
mod browser;
mod browser_visits;
mod changes;
mod cli;
mod client_example;
mod cluster;
mod conformance;
mod containment;
mod demo;
mod deploy;
mod docs;
mod driver;
mod error_shapes;
mod exports;
mod fingerprint;
mod fresh;
mod guest_imports;
mod guest_stack;
mod hotswap;
mod image;
mod insights;
mod jobs;
mod layers;
mod manifests;
mod mcp;
mod metrics;
mod object_storage;
mod openapi;
mod pacing;
mod plugin_replay;
mod prepared;
mod proxies;
mod receipts;
mod sandbox;
mod security;
mod sessions;
mod site_processors;
mod startup;
mod text_processors;
