//! The C ABI of gpusort: `libgpusort.so` / `libgpusort.a` and the header `include/gpusort.h`,
//! which `cbindgen` generates from these sources (`tests/header.rs` checks it is current).
//!
//! Every entry point returns a [`gpusort_status`], checks its pointers and lengths before it
//! touches anything, and runs inside [`guard::guard`], so no panic unwinds into C and every failure
//! leaves a message in the calling thread's last-error slot.
//!
//! Small modules, one job each, each using only the ones listed before it: `status` (the status
//! enum and its strings), `failure` (a failed call and the per-thread last error), `args` (order,
//! algorithm, backend, key type, float order and null placement constants, raw pointers to
//! slices), `text` (strings into caller buffers), `guard` (the panic boundary), `error`
//! (`gpusort_last_error_message`), `sorter` (the handle and its float order), `sort` (the sorts of
//! keys and of pairs), `argsort` (permutations), `records` (records of a run-time size sorted by a
//! key inside them), `segments` (runs of one array, each sorted on its own), `topk` (the first `k`
//! keys of an order, without sorting the rest), `device` (arrays already in GPU memory, sorted on
//! the caller's stream), `lexsort` (the permutation that sorts rows by several key columns, host
//! or device), `file` (files of records larger than memory, sorted into files, and checked).
//!
//! Each family of per-key-type functions (`gpusort_sort_keys_<t>`, `gpusort_argsort_<t>`, ...)
//! is a directory: the generic implementation in `mod.rs`, and the functions, one per entry of
//! the key list (`gpusort_core::KeyType::ALL`), in files that `tests/generate` renders and
//! `tests/header.rs` checks (cbindgen reads signatures, not macro expansions).

// C names for C types: the header is what users read.
#![allow(non_camel_case_types)]

mod args;
mod argsort;
mod device;
mod embed;
mod error;
mod failure;
mod file;
mod guard;
mod lexsort;
mod records;
mod segments;
mod sort;
mod sorter;
mod status;
mod text;
mod topk;

pub use args::key_types::*;
pub use args::{
    gpusort_algorithm, gpusort_backend, gpusort_float_order, gpusort_key_type, gpusort_null_placement, gpusort_order,
    GPUSORT_ALGORITHM_AUTO, GPUSORT_ALGORITHM_BITONIC, GPUSORT_ALGORITHM_ODD_EVEN_MERGE, GPUSORT_ALGORITHM_RADIX,
    GPUSORT_ASCENDING, GPUSORT_BACKEND_AUTO, GPUSORT_BACKEND_CPU, GPUSORT_BACKEND_CUDA, GPUSORT_DESCENDING,
    GPUSORT_FLOAT_ORDER_DEFAULT, GPUSORT_FLOAT_ORDER_NAN_FIRST, GPUSORT_FLOAT_ORDER_NAN_LARGEST,
    GPUSORT_FLOAT_ORDER_NAN_LAST, GPUSORT_FLOAT_ORDER_TOTAL, GPUSORT_NULLS_FIRST, GPUSORT_NULLS_LAST,
};
pub use argsort::*;
pub use device::*;
pub use embed::*;
pub use error::gpusort_last_error_message;
pub use file::{
    gpusort_check_file, gpusort_file_check, gpusort_file_key, gpusort_file_layout, gpusort_file_phase,
    gpusort_file_progress, gpusort_file_progress_fn, gpusort_file_report, gpusort_sort_file,
    gpusort_sort_file_with_progress, GPUSORT_FILE_KEY_BE, GPUSORT_FILE_KEY_BYTES, GPUSORT_FILE_KEY_LE,
    GPUSORT_FILE_PHASE_MERGE, GPUSORT_FILE_PHASE_RUNS,
};
pub use lexsort::{
    gpusort_column, gpusort_lexsort, gpusort_lexsort_device, gpusort_lexsort_u32, GPUSORT_KEY_BYTES,
    GPUSORT_MAX_KEY_BYTES,
};
pub use records::{gpusort_sort_records, gpusort_sort_records_by_bytes};
pub use segments::*;
pub use sort::*;
pub use sorter::{
    gpusort_describe, gpusort_release_memory, gpusort_sorter, gpusort_sorter_free, gpusort_sorter_new,
    gpusort_sorter_with_float_order,
};
pub use status::{gpusort_status, gpusort_status_str, gpusort_version};
pub use topk::*;
