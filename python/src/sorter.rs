//! `gpusort._native.Sorter`: a `gpusort::Sorter` made from Python arguments, with the host sorts
//! (NumPy: sort, sort_pairs, sort_segments, argsort, lexsort, top_k) and the raw device sorts,
//! argsorts, lexsorts, segmented sorts and top-k that `gpusort/_device.py` (`_lexsort.py`) calls
//! once it has read a CUDA array's pointer, length, dtype and stream.
//! The public class is `gpusort.Sorter` (`gpusort/_sorter.py`), which holds one of these.

use gpusort::cudarc::driver::sys::CUstream;
use gpusort::{Algorithm, Order, Sorter};
use numpy::PyArray1;
use pyo3::prelude::*;

use std::path::PathBuf;

use crate::errors::{sort_error, value_error};
use crate::{columns, files, host, key_types};

#[pyclass(name = "Sorter", module = "gpusort._native", frozen)]
pub struct PySorter {
    inner: Sorter,
    backend: &'static str,
}

impl PySorter {
    pub(crate) fn inner(&self) -> &Sorter {
        &self.inner
    }
}

fn algorithm(name: &str) -> PyResult<Algorithm> {
    Ok(match name {
        "auto" => Algorithm::Auto,
        "radix" => Algorithm::Radix,
        "bitonic" => Algorithm::Bitonic,
        "odd_even_merge" => Algorithm::OddEvenMerge,
        _ => {
            return Err(value_error(
                "algorithm",
                format!("{name:?} is not one of 'auto', 'radix', 'bitonic', 'odd_even_merge'"),
            ))
        }
    })
}

fn algorithm_name(a: Algorithm) -> &'static str {
    match a {
        Algorithm::Radix => "radix",
        Algorithm::Bitonic => "bitonic",
        Algorithm::OddEvenMerge => "odd_even_merge",
        _ => "auto",
    }
}

pub(crate) fn order(descending: bool) -> Order {
    if descending {
        Order::Descending
    } else {
        Order::Ascending
    }
}

#[pymethods]
impl PySorter {
    #[new]
    #[pyo3(signature = (backend, algorithm_name, crossover, device_memory_limit, device, devices=None, multi_gpu_from=None))]
    #[allow(clippy::too_many_arguments)]
    fn new(
        py: Python<'_>,
        backend: &str,
        algorithm_name: &str,
        crossover: Option<usize>,
        device_memory_limit: Option<usize>,
        device: Option<usize>,
        devices: Option<Vec<usize>>,
        multi_gpu_from: Option<usize>,
    ) -> PyResult<Self> {
        let algo = algorithm(algorithm_name)?;
        if (devices.is_some() || multi_gpu_from.is_some()) && backend != "cuda" {
            return Err(value_error("devices", "only a 'cuda' sorter takes a list of devices"));
        }
        if device.is_some() && devices.is_some() {
            return Err(value_error("devices", "give device or devices, not both"));
        }
        if devices.as_ref().is_some_and(Vec::is_empty) {
            return Err(value_error("devices", "the list of devices is empty"));
        }
        let (sorter, backend) = match backend {
            // Opening the GPU may take a while (driver initialisation): without the GIL.
            "auto" => (py.detach(Sorter::auto), "auto"),
            "cpu" => (Sorter::cpu(), "cpu"),
            "cuda" => {
                let s = py.detach(|| match &devices {
                    Some(list) => Sorter::cuda_devices(list),
                    None => Sorter::cuda_device(device.unwrap_or(0)),
                });
                (s.map_err(|e| sort_error(py, e))?, "cuda")
            }
            other => return Err(value_error("backend", format!("{other:?} is not 'auto', 'cpu' or 'cuda'"))),
        };
        if device.is_some() && backend != "cuda" {
            return Err(value_error("device", "only a 'cuda' sorter takes a device ordinal"));
        }
        let sorter = match multi_gpu_from {
            Some(items) => sorter.with_multi_gpu_from(items),
            None => sorter,
        };
        if crossover.is_some() && backend != "auto" {
            return Err(value_error("crossover", "only an 'auto' sorter has a CPU/GPU crossover"));
        }
        let mut sorter = sorter.with_algorithm(algo);
        if let Some(items) = crossover {
            sorter = sorter.with_crossover(items);
        }
        if let Some(bytes) = device_memory_limit {
            sorter = sorter.with_device_memory_limit(bytes);
        }
        Ok(PySorter { inner: sorter, backend })
    }

    #[getter]
    fn backend(&self) -> &'static str {
        self.backend
    }

    #[getter]
    fn algorithm(&self) -> &'static str {
        algorithm_name(self.inner.algorithm())
    }

    #[getter]
    fn device_memory_limit(&self) -> Option<usize> {
        self.inner.device_memory_limit()
    }

    /// The CUDA device ordinal this sorter's GPU work runs on, or None.
    #[getter]
    fn device(&self) -> Option<usize> {
        self.inner.cuda_context().map(|c| c.ordinal())
    }

    #[getter]
    fn multi_gpu_from(&self) -> Option<usize> {
        self.inner.multi_gpu_from()
    }

    fn describe(&self) -> String {
        self.inner.describe()
    }

    fn release_memory(&self, py: Python<'_>) {
        py.detach(|| self.inner.release_memory())
    }

    /// `float_order`: "total", "nan_last", "nan_first" or "nan_largest" (`columns::float_order`).
    fn sort(&self, py: Python<'_>, a: &Bound<'_, PyAny>, descending: bool, float_order: &str) -> PyResult<()> {
        host::sort(py, &self.inner, a, descending, columns::float_order(float_order)?)
    }

    fn sort_pairs(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        values: &Bound<'_, PyAny>,
        descending: bool,
    ) -> PyResult<()> {
        host::sort_pairs(py, &self.inner, keys, values, descending)
    }

    #[pyo3(signature = (keys, offsets, values, descending))]
    fn sort_segments(
        &self,
        py: Python<'_>,
        keys: &Bound<'_, PyAny>,
        offsets: &Bound<'_, PyAny>,
        values: Option<&Bound<'_, PyAny>>,
        descending: bool,
    ) -> PyResult<()> {
        host::sort_segments(py, &self.inner, keys, offsets, values, descending)
    }

    fn sort_records(
        &self,
        py: Python<'_>,
        rows: &Bound<'_, PyAny>,
        size: usize,
        offset: usize,
        key: &str,
        descending: bool,
    ) -> PyResult<()> {
        host::sort_records(py, &self.inner, rows, size, offset, key, descending)
    }

    fn sort_records_by_bytes(
        &self,
        py: Python<'_>,
        rows: &Bound<'_, PyAny>,
        size: usize,
        offset: usize,
        width: usize,
        descending: bool,
    ) -> PyResult<()> {
        host::sort_records_by_bytes(py, &self.inner, rows, size, offset, width, descending)
    }

    /// Sorts the file `input` into `output` (see `files::sort_file`); the layout as
    /// `files::layout` takes it. The report as a dict.
    #[pyo3(signature = (input, output, record_size, key_offset, key, key_size, big_endian, descending, memory_limit, temp_dir, progress))]
    #[allow(clippy::too_many_arguments)]
    fn sort_file<'py>(
        &self,
        py: Python<'py>,
        input: PathBuf,
        output: PathBuf,
        record_size: usize,
        key_offset: usize,
        key: &str,
        key_size: usize,
        big_endian: bool,
        descending: bool,
        memory_limit: Option<usize>,
        temp_dir: Option<PathBuf>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let layout = files::layout(py, record_size, key_offset, key, key_size, big_endian)?;
        files::sort_file(py, &self.inner, input, output, layout, descending, memory_limit, temp_dir, progress)
    }

    /// Sorts the records of the uint8 view `rows` in place (see `files::sort_mapped`).
    #[pyo3(signature = (rows, record_size, key_offset, key, key_size, big_endian, descending, memory_limit, temp_dir, progress))]
    #[allow(clippy::too_many_arguments)]
    fn sort_mapped<'py>(
        &self,
        py: Python<'py>,
        rows: &Bound<'py, PyAny>,
        record_size: usize,
        key_offset: usize,
        key: &str,
        key_size: usize,
        big_endian: bool,
        descending: bool,
        memory_limit: Option<usize>,
        temp_dir: Option<PathBuf>,
        progress: Option<Py<PyAny>>,
    ) -> PyResult<Bound<'py, pyo3::types::PyDict>> {
        let layout = files::layout(py, record_size, key_offset, key, key_size, big_endian)?;
        files::sort_mapped(py, &self.inner, rows, layout, descending, memory_limit, temp_dir, progress)
    }

    /// `(records, first_unsorted or None, checksum)` of the file at `path`, its keys checked
    /// in the order `descending` says.
    #[allow(clippy::too_many_arguments)]
    fn check_file(
        &self,
        py: Python<'_>,
        path: PathBuf,
        record_size: usize,
        key_offset: usize,
        key: &str,
        key_size: usize,
        big_endian: bool,
        descending: bool,
    ) -> PyResult<(u64, Option<u64>, u64)> {
        let layout = files::layout(py, record_size, key_offset, key, key_size, big_endian)?;
        files::check_file(py, &self.inner, path, layout, descending)
    }

    fn argsort<'py>(
        &self,
        py: Python<'py>,
        keys: &Bound<'py, PyAny>,
        stable: bool,
        descending: bool,
        float_order: &str,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        host::argsort(py, &self.inner, keys, stable, descending, columns::float_order(float_order)?)
    }

    /// The stable permutation of the rows of NumPy columns, the first the most significant (see
    /// `columns::HostSpec`), as a new int64 array.
    fn lexsort<'py>(
        &self,
        py: Python<'py>,
        columns: Vec<columns::HostSpec<'py>>,
    ) -> PyResult<Bound<'py, PyArray1<i64>>> {
        columns::lexsort(py, &self.inner, &columns)
    }

    /// Queues the stable permutation of the `n` rows of device columns (`columns::DeviceSpec`,
    /// the first the most significant) into the `n` int64s at `out` on `stream`. Every address is
    /// checked as in `sort_device`; `out` must not overlap a column or mask.
    fn lexsort_device(
        &self,
        py: Python<'_>,
        columns: Vec<columns::DeviceSpec>,
        n: usize,
        out: u64,
        stream: usize,
    ) -> PyResult<()> {
        columns::lexsort_device(py, &self.inner, &columns, n, out, stream)
    }

    fn top_k<'py>(
        &self,
        py: Python<'py>,
        a: &Bound<'py, PyAny>,
        k: &Bound<'py, PyAny>,
        descending: bool,
    ) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyArray1<i64>>)> {
        host::top_k(py, &self.inner, a, k, descending)
    }

    /// Queues a sort of `n` keys at device address `ptr` on the CUDA stream `stream`. The pointer
    /// is checked with the driver (device, alignment, allocation bounds); the caller
    /// (`gpusort/_device.py`) keeps the array alive for the call and, as any CUDA library does,
    /// relies on the stream order after it.
    fn sort_device(
        &self,
        py: Python<'_>,
        ptr: u64,
        n: usize,
        key: &str,
        stream: usize,
        descending: bool,
    ) -> PyResult<()> {
        let key = key_types::of_device_name(key)?;
        // SAFETY: see above; a stream handle that is not live is the caller's error, as in CUDA.
        py.detach(|| unsafe {
            self.inner.clone().with_order(order(descending)).sort_foreign_keys(ptr, n, key, stream as CUstream)
        })
        .map_err(|e| sort_error(py, e))
    }

    /// As `sort_device`, for keys at `keys` and u32 values at `values`.
    #[allow(clippy::too_many_arguments)]
    fn sort_pairs_device(
        &self,
        py: Python<'_>,
        keys: u64,
        values: u64,
        n: usize,
        key: &str,
        stream: usize,
        descending: bool,
    ) -> PyResult<()> {
        let key = key_types::of_device_name(key)?;
        // SAFETY: as in `sort_device`.
        py.detach(|| unsafe {
            self.inner.clone().with_order(order(descending)).sort_foreign_pairs(
                keys,
                values,
                n,
                key,
                stream as CUstream,
            )
        })
        .map_err(|e| sort_error(py, e))
    }

    /// Queues the stable permutation of the `n` keys at `keys` (floats in `float_order`) into the
    /// `n` int64s at `out` on `stream`. Both pointers are checked as in `sort_device`, and must not overlap;
    /// `_device.py` allocates `out` with the keys' library.
    #[allow(clippy::too_many_arguments)]
    fn argsort_device(
        &self,
        py: Python<'_>,
        keys: u64,
        n: usize,
        key: &str,
        out: u64,
        stream: usize,
        descending: bool,
        float_order: &str,
    ) -> PyResult<()> {
        let key = key_types::of_device_name(key)?;
        let sorter =
            self.inner.clone().with_order(order(descending)).with_float_order(columns::float_order(float_order)?);
        // SAFETY: as in `sort_device`; positions below 2^63 read the same as int64.
        py.detach(|| unsafe { sorter.argsort_foreign::<u64>(keys, n, key, out, stream as CUstream) })
            .map_err(|e| sort_error(py, e))
    }

    /// Queues a sort of each segment of the `n` keys at `keys` (with the u32 values at `values`
    /// moving with them; `values` 0: keys alone) on `stream`, segment `s` running from
    /// `offsets[s]` to `offsets[s + 1]` of the `num_offsets` u64 (or non-negative int64) offsets at
    /// device address `offsets`. Every pointer is checked as in `sort_device`, and the arrays
    /// must not overlap; the offsets' contents are checked on the device (one wait for the
    /// stream), and bad ones leave the arrays untouched. `_device.py` uploads host offsets with
    /// the keys' library on this stream and keeps them alive for the call.
    #[allow(clippy::too_many_arguments)]
    fn sort_segments_device(
        &self,
        py: Python<'_>,
        keys: u64,
        values: u64,
        n: usize,
        key: &str,
        offsets: u64,
        num_offsets: usize,
        stream: usize,
        descending: bool,
    ) -> PyResult<()> {
        let key = key_types::of_device_name(key)?;
        let values = (values != 0).then_some(values);
        // SAFETY: as in `sort_device`, for the three arrays.
        py.detach(|| unsafe {
            self.inner.clone().with_order(order(descending)).sort_foreign_segments(
                keys,
                values,
                n,
                key,
                offsets,
                num_offsets,
                stream as CUstream,
            )
        })
        .map_err(|e| sort_error(py, e))
    }

    /// Queues the top `k` of `n` keys at `ptr` into `out_keys` (`k` keys) and `out_indices` (`k`
    /// int64s, the positions) on `stream`. Every pointer is checked as in `sort_device`, and the
    /// three arrays must not overlap; `_device.py` allocates the outputs with the keys' library.
    #[allow(clippy::too_many_arguments)]
    fn top_k_device(
        &self,
        py: Python<'_>,
        ptr: u64,
        n: usize,
        key: &str,
        k: usize,
        out_keys: u64,
        out_indices: u64,
        stream: usize,
        descending: bool,
    ) -> PyResult<()> {
        let key = key_types::of_device_name(key)?;
        // SAFETY: as in `sort_device`; positions below 2^63 read the same as int64.
        py.detach(|| unsafe {
            self.inner.clone().with_order(order(descending)).top_k_foreign(
                ptr,
                n,
                key,
                k,
                out_keys,
                out_indices,
                stream as CUstream,
            )
        })
        .map_err(|e| sort_error(py, e))
    }
}
