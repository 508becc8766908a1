//! Nothing but a dependency list: see this crate's `Cargo.toml`. The host
//! depends on it so that every build of the host asks for the same features
//! of its shared dependencies, and compiles each of them once.
