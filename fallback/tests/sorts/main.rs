//! The CPU backend's sorts against the oracle, in one test binary: every file here was a binary of
//! its own, and each compiled (at this crate's optimisation) the same sorts for the same key types
//! again, most of the time a cold `cargo test` spent on this crate. `one_thread.rs` and `pool.rs`
//! stay their own processes: one sets the pool's size before it exists, the other holds every
//! thread of rayon's global pool while it runs.

#[path = "../common/mod.rs"]
mod common;

mod cold_paths;
mod gather;
mod keys;
mod simd;
mod small_keys;
mod split_pairs;
mod stable_pairs;
