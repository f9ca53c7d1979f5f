//! gpusort sorts key/value pairs and keys on NVIDIA GPUs, and on the CPU where no GPU is usable.
//!
//! ```
//! use gpusort::{Kvp, Order, Sorter};
//! let mut v: Vec<Kvp> = (0..100_000u32).map(|i| Kvp::new(i.wrapping_mul(2654435761), i)).collect();
//! Sorter::auto().sort_kvp(&mut v)?;
//! assert!(v.windows(2).all(|w| w[0].key <= w[1].key));
//! Sorter::cpu().sort_kvp_by(&mut v, Order::Descending)?;
//! # Ok::<(), gpusort::SortError>(())
//! ```
//!
//! `Sorter::auto()` never fails: with no driver, no device or a GPU older than compute capability
//! 7.5 it sorts on the CPU and [`Sorter::describe`] says why. Pair sorts with [`Algorithm::Auto`]
//! or [`Algorithm::Radix`] are stable on every backend; the sorting networks are not.

mod algorithm;
mod backend;
mod cpu;
mod cuda;
mod error;
#[doc(hidden)]
pub mod hooks;
mod hostcopy;
mod key;
mod kvp;
mod merge;
mod sorter;
pub mod tuning;

pub use algorithm::Algorithm;
pub use backend::BackendKind;
pub use cuda::foreign::DeviceKeyType;
pub use error::SortError;
pub use gpusort_cpu::check;
pub use gpusort_cpu::{release_scratch, Keyed, Order, SortKey};
pub use key::Key;
pub use kvp::Kvp;
pub use sorter::Sorter;

/// The CUDA driver bindings gpusort uses, for callers of the device-resident methods.
pub use cudarc;
