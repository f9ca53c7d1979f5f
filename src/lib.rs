//! gpusort sorts key/value pairs and keys on NVIDIA GPUs, and on the CPU where no GPU is usable.
//!
//! ```
//! use gpusort::{Kvp, Order, Sorter};
//!
//! // Pairs: a u32 key and a u32 value, sorted by key; stable (equal keys keep their order).
//! let mut pairs: Vec<Kvp> = (0..100_000u32).map(|i| Kvp::new(i.wrapping_mul(2654435761), i)).collect();
//! Sorter::auto().sort_kvp(&mut pairs)?;
//! assert!(pairs.windows(2).all(|w| w[0].key <= w[1].key));
//!
//! // Keys alone: u32, i32, f32 (in `f32::total_cmp` order) or u64, in either order.
//! let mut keys = vec![2.5f32, -1.0, f32::INFINITY, 0.0];
//! Sorter::auto().with_order(Order::Descending).sort_keys(&mut keys)?;
//! assert_eq!(keys, [f32::INFINITY, 2.5, 0.0, -1.0]);
//!
//! // Split arrays: the values move with their keys.
//! let (mut ids, mut rows) = (vec![30u64, 10, 20], vec![0u32, 1, 2]);
//! Sorter::auto().sort_pairs(&mut ids, &mut rows)?;
//! assert_eq!((ids, rows), (vec![10, 20, 30], vec![1, 2, 0]));
//! # Ok::<(), gpusort::SortError>(())
//! ```
//!
//! [`Sorter::auto()`] sorts on the GPU when one is usable and on the CPU otherwise (no driver, no
//! device, a GPU older than compute capability 7.5, a build without the `cuda` feature), and
//! [`Sorter::describe`] says which and why. Pair sorts with [`Algorithm::Auto`] or
//! [`Algorithm::Radix`] are stable on every backend; the sorting networks are not.
//!
//! # Cargo features
//!
//! - `cuda` (default): the GPU backend, through `cudarc` with the driver loaded at run time (a
//!   binary built with it runs on machines without one). The device-resident methods
//!   (`Sorter::sort_kvp_device` and the others) and the `cudarc` re-export exist only with it.
//!   Without it the crate is CPU-only, with the same [`Sorter`] API: [`Sorter::cuda`] returns
//!   [`SortError::NoDriver`].
//! - `demo` (default): the `gpusort-demo` program and its command-line parser (clap); leave it
//!   out with `default-features = false, features = ["cuda"]`.
//! - `testing` (off): test and fault-injection helpers for gpusort's own tests.
//!
//! # Memory kept between calls
//!
//! For speed, sorts keep their scratch memory for the next call (see [`Sorter::release_memory`]
//! for what and how much); [`Sorter::with_keep_memory`]`(false)` gives it back after every sort.
//!
//! # Environment
//!
//! Read once per process; a value that is not understood is reported on stderr once, with the
//! accepted values.
//!
//! - `GPUSORT_BACKEND=auto|cpu|cuda`: the backend of [`Sorter::auto`] (`cuda` falls back to the
//!   CPU, saying why, when no GPU is usable). Any other value makes `auto()` sorters fail with
//!   [`SortError::Config`], since sorting elsewhere than asked would go unnoticed.
//! - `GPUSORT_POOL_KEEP_BYTES=<bytes>`: how much device memory the GPU's memory pool keeps
//!   between sorts (default: half the device).
//! - `GPUSORT_OVERLAP_LAUNCHES=0|1`: `0` turns off overlapped kernel launches (for measuring).
//! - `GPUSORT_KERNELS_DIR=<dir>`: load kernel images from `dir` (kernel development); honoured
//!   only in debug builds or with the `testing` feature.
#![warn(missing_docs)]

mod algorithm;
mod backend;
mod columns;
mod config;
mod cpu;
#[cfg(feature = "cuda")]
mod crew;
#[cfg(feature = "cuda")]
mod cuda;
mod error;
mod file;
#[cfg_attr(not(feature = "cuda"), path = "gpu_none.rs")]
mod gpu;
#[cfg(all(feature = "cuda", feature = "testing"))]
pub mod hooks;
#[cfg(all(feature = "cuda", not(feature = "testing")))]
mod hooks;
#[cfg(feature = "cuda")]
mod hostcopy;
mod key;
mod key_types;
mod kvp;
#[cfg(feature = "cuda")]
mod merge;
mod sorter;
/// The radix sweep's variants one by one, for tests/gpu_radix_steps.rs.
#[cfg(all(feature = "cuda", feature = "testing"))]
#[doc(hidden)]
pub use cuda::radix::steps as radix_steps;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod tuning;
#[cfg(not(feature = "testing"))]
mod tuning;
mod value;

pub use algorithm::Algorithm;
pub use backend::BackendKind;
pub use columns::{Column, FloatOrder, NullPlacement, MAX_BYTE_WIDTH};
#[cfg(feature = "cuda")]
pub use columns::{DeviceColumn, ForeignColumn};
pub use error::SortError;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub use file::faults as file_faults;
pub use file::{FileCheck, FileKey, FileProgress, FileSortReport, Phase, RecordLayout};
pub use gpusort_cpu::{release_scratch, Keyed, Order, SortKey};
/// The half-precision key types (`f16` and `bf16` from the `half` crate).
pub use half::{bf16, f16};
pub use key::Key;
#[doc(hidden)]
pub use key_types::types as __key_types;
pub use key_types::KeyType;
pub use kvp::Kvp;
#[doc(hidden)]
pub use sorter::ColumnKey;
pub use sorter::{ArgIndex, RecordKey, Sorter, TopK};
#[cfg(feature = "cuda")]
pub use sorter::{DeviceCall, DeviceShare, DeviceTopK};
pub use tuning::JobShape;
pub use value::Value;

/// The result oracle of gpusort's tests (sorted, a permutation, stable): `gpusort-cpu`'s `check`.
#[cfg(feature = "testing")]
pub use gpusort_cpu::check;

/// The CUDA driver bindings gpusort uses, for callers of the device-resident methods: name
/// `gpusort::cudarc` so your buffers and streams come from the same cudarc version as gpusort's.
#[cfg(feature = "cuda")]
pub use cudarc;

/// The README's Rust snippet, compiled and run as a doc test so that it keeps working.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
