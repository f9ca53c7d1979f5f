//! The device calls that embed in other GPU programs (`gpusort/_device.py`): preparing the
//! device, the scratch a call needs, and the sorts and argsorts on scratch the caller lent (a
//! torch or CuPy array of its own allocator), which allocate nothing and never wait for the
//! stream, so they can be captured into CUDA graphs.

use gpusort::cudarc::driver::sys::CUstream;
use gpusort::{DeviceCall, KeyType};
use pyo3::prelude::*;

use crate::errors::{sort_error, value_error};
use crate::key_types;
use crate::sorter::{order, PySorter};

/// Loads the sorter's kernels on its device (`Sorter::prepare`).
#[pyfunction]
pub fn prepare(py: Python<'_>, sorter: &PySorter) -> PyResult<()> {
    py.detach(|| sorter.inner().prepare()).map_err(|e| sort_error(py, e))
}

/// The scratch bytes of `call` ("sort", "sort_pairs", "argsort" into int64 indices, or
/// "top_k" of `k` keys) of `n` keys of device type `key` in the given order.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn scratch_bytes(
    py: Python<'_>,
    sorter: &PySorter,
    call: &str,
    key: &str,
    n: usize,
    descending: bool,
    k: usize,
) -> PyResult<usize> {
    let key = key_types::of_device_name(key)?;
    let call = match call {
        "sort" => DeviceCall::Keys(key),
        "sort_pairs" => DeviceCall::Pairs(key),
        "argsort" => DeviceCall::Argsort { keys: key, indices: KeyType::U64 },
        "top_k" => DeviceCall::TopK { keys: key, k },
        other => {
            let known = "\"sort\", \"sort_pairs\", \"argsort\" or \"top_k\"";
            return Err(value_error("call", format!("{other:?} is not {known}")));
        }
    };
    let s = sorter.inner().clone().with_order(order(descending));
    py.detach(|| s.device_scratch_bytes(call, n)).map_err(|e| sort_error(py, e))
}

/// `sort_device` on the caller's `scratch_bytes` at `scratch`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn sort_device_scratch(
    py: Python<'_>,
    sorter: &PySorter,
    ptr: u64,
    n: usize,
    key: &str,
    stream: usize,
    descending: bool,
    scratch: u64,
    scratch_bytes: usize,
) -> PyResult<()> {
    let key = key_types::of_device_name(key)?;
    let s = sorter.inner().clone().with_order(order(descending));
    // SAFETY: as `Sorter.sort_device`; `_device.py` keeps the scratch alive for the call too.
    py.detach(|| unsafe { s.sort_foreign_keys_with_scratch(ptr, n, key, (scratch, scratch_bytes), stream as CUstream) })
        .map_err(|e| sort_error(py, e))
}

/// `argsort_device` (total float order) on the caller's `scratch_bytes` at `scratch`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn argsort_device_scratch(
    py: Python<'_>,
    sorter: &PySorter,
    keys: u64,
    n: usize,
    key: &str,
    out: u64,
    stream: usize,
    descending: bool,
    scratch: u64,
    scratch_bytes: usize,
) -> PyResult<()> {
    let key = key_types::of_device_name(key)?;
    let s = sorter.inner().clone().with_order(order(descending));
    // SAFETY: as `Sorter.argsort_device`, and the scratch as in `sort_device_scratch`.
    py.detach(|| unsafe {
        s.argsort_foreign_with_scratch::<u64>(keys, n, key, out, (scratch, scratch_bytes), stream as CUstream)
    })
    .map_err(|e| sort_error(py, e))
}

/// `top_k_device` on the caller's `scratch_bytes` at `scratch`.
#[pyfunction]
#[allow(clippy::too_many_arguments)]
pub fn top_k_device_scratch(
    py: Python<'_>,
    sorter: &PySorter,
    keys: u64,
    n: usize,
    key: &str,
    k: usize,
    out: (u64, u64),
    stream: usize,
    descending: bool,
    scratch: u64,
    scratch_bytes: usize,
) -> PyResult<()> {
    let key = key_types::of_device_name(key)?;
    let s = sorter.inner().clone().with_order(order(descending));
    // SAFETY: as `Sorter.top_k_device`, and the scratch as in `sort_device_scratch`.
    py.detach(|| unsafe {
        s.top_k_foreign_with_scratch(keys, n, key, k, out, (scratch, scratch_bytes), stream as CUstream)
    })
    .map_err(|e| sort_error(py, e))
}
