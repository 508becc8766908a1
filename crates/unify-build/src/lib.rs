//! Nothing but a dependency list: see this crate's `Cargo.toml`. The host
//! takes it as a build dependency so that the proc macros and build scripts
//! of every host build ask for the same features of the crates they share.
