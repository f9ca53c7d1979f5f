//! The C ABI of gpusort: `libgpusort.so` / `libgpusort.a` and the header `include/gpusort.h`,
//! which `cbindgen` generates from these sources (`tests/header.rs` checks it is current).
//!
//! Every entry point returns a [`gpusort_status`], checks its pointers and lengths before it
//! touches anything, and runs inside [`guard::guard`], so no panic unwinds into C and every failure
//! leaves a message in the calling thread's last-error slot.
//!
//! Small modules, one job each, each using only the ones listed before it: `status` (the status
//! enum and its strings), `failure` (a failed call and the per-thread last error), `args` (order,
//! algorithm, backend and key type constants, raw pointers to slices), `text` (strings into caller
//! buffers), `guard` (the panic boundary), `error` (`gpusort_last_error_message`), `sorter` (the
//! handle), `sort` (the sort entry points), `argsort` (permutations), `records` (records of a
//! run-time size sorted by a key inside them), `segments` (runs of one array, each sorted on its
//! own), `topk` (the first `k` keys of an order, without sorting the rest), `small_keys` (every
//! family's entry points for `uint16_t`, `int16_t`, `uint8_t` and `int8_t` keys), `device`
//! (arrays already in GPU memory, sorted on the caller's stream).

// C names for C types: the header is what users read.
#![allow(non_camel_case_types)]

mod args;
mod argsort;
mod device;
mod error;
mod failure;
mod guard;
mod pairs64;
mod records;
mod segments;
mod small_keys;
mod sort;
mod sorter;
mod status;
mod text;
mod topk;

pub use args::{
    gpusort_algorithm, gpusort_backend, gpusort_key_type, gpusort_order, GPUSORT_ALGORITHM_AUTO,
    GPUSORT_ALGORITHM_BITONIC, GPUSORT_ALGORITHM_ODD_EVEN_MERGE, GPUSORT_ALGORITHM_RADIX, GPUSORT_ASCENDING,
    GPUSORT_BACKEND_AUTO, GPUSORT_BACKEND_CPU, GPUSORT_BACKEND_CUDA, GPUSORT_DESCENDING, GPUSORT_KEY_F32,
    GPUSORT_KEY_F64, GPUSORT_KEY_I16, GPUSORT_KEY_I32, GPUSORT_KEY_I64, GPUSORT_KEY_I8, GPUSORT_KEY_U16,
    GPUSORT_KEY_U32, GPUSORT_KEY_U64, GPUSORT_KEY_U8,
};
pub use argsort::*;
pub use device::*;
pub use error::gpusort_last_error_message;
pub use pairs64::*;
pub use records::gpusort_sort_records;
pub use segments::*;
pub use small_keys::*;
pub use sort::*;
pub use sorter::{gpusort_describe, gpusort_release_memory, gpusort_sorter, gpusort_sorter_free, gpusort_sorter_new};
pub use status::{gpusort_status, gpusort_status_str, gpusort_version};
pub use topk::*;
