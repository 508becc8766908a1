//! Text analysis for Gleaner's text processors, kept out of the plugin SDK:
//! sentence segmentation ([`segment`]) for the review processors, the
//! language of a text ([`language`]) for the record and the insights
//! processor, near-duplicate texts among a job's reviews
//! ([`near_duplicate`]), and the reading of a video transcript ([`transcript`]: who
//! speaks, their role and organisation, the product) for the video
//! processors. Plain Rust, so it builds for the plugins' target and natively
//! alike.

pub mod language;
pub mod near_duplicate;
pub mod segment;
pub mod transcript;
