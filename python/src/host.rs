//! NumPy arrays on the host: checked, borrowed through the numpy crate (which also refuses two
//! borrows of overlapping memory, so `sort_pairs(a, a)` cannot alias), then sorted with the GIL
//! released. Every check runs before anything is written: a refused array is left as it was.
//! Segmented sorts (`sort_segments`, and `sort` of N-D arrays row by row) go through
//! `Sorter::sort_segments` / `sort_segments_keys`; rows of structured arrays through
//! `Sorter::sort_records`; `argsort` and `top_k` only read their keys.

use std::borrow::Cow;

use gpusort::{Algorithm, FloatOrder, Order, SortError, Sorter};
use numpy::{BorrowError, Element, PyArray1, PyArrayDyn, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;

use crate::errors::{sort_error, type_error, value_error};
use crate::key_types::{self, is};
use gpusort::with_key_type;

/// Values are payloads moved bit for bit: indices (int32, uint32, and past 2^32 uint64, int64)
/// or data (float32, float64); `gpusort::Value` takes each as it is.
const VALUE_DTYPES: &str = "uint32, int32, float32, uint64, int64 or float64";

/// Runs `$body` with `$values` the values borrowed as a slice of their own type (a
/// `gpusort::Value`: the library moves each width as one unsigned type, never compares them);
/// `check_values` has checked the dtype.
macro_rules! with_value_slice {
    ($arr:expr, $values:ident => $body:expr) => {{
        let v = $arr;
        if is::<u32>(v) {
            with_slice::<u32, _>(v, "values", |$values| $body)
        } else if is::<i32>(v) {
            with_slice::<i32, _>(v, "values", |$values| $body)
        } else if is::<f32>(v) {
            with_slice::<f32, _>(v, "values", |$values| $body)
        } else if is::<u64>(v) {
            with_slice::<u64, _>(v, "values", |$values| $body)
        } else if is::<i64>(v) {
            with_slice::<i64, _>(v, "values", |$values| $body)
        } else {
            with_slice::<f64, _>(v, "values", |$values| $body)
        }
    }};
}

/// `obj` as a NumPy array of any shape, else `TypeError`.
fn ndarray<'a, 'py>(obj: &'a Bound<'py, PyAny>, what: &str) -> PyResult<&'a Bound<'py, PyUntypedArray>> {
    obj.cast::<PyUntypedArray>().map_err(|_| {
        let name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        type_error(what, format!("expected a numpy.ndarray or a CUDA array, got {name}"))
    })
}

/// `obj` as a 1-D NumPy array, else `TypeError` (not an array) or `ValueError` (shape).
fn array<'a, 'py>(obj: &'a Bound<'py, PyAny>, what: &str) -> PyResult<&'a Bound<'py, PyUntypedArray>> {
    let arr = ndarray(obj, what)?;
    if arr.ndim() != 1 {
        return Err(value_error(what, format!("gpusort sorts 1-D arrays; this one has shape {:?}", arr.shape())));
    }
    Ok(arr)
}

/// Sorting in place needs memory in one piece (whether it is writable, the borrow tells).
fn check_contiguous(arr: &Bound<'_, PyUntypedArray>, what: &str) -> PyResult<()> {
    if !arr.is_c_contiguous() {
        return Err(value_error(what, "not contiguous; sort a contiguous copy (numpy.ascontiguousarray)"));
    }
    Ok(())
}

/// A mutable borrow of `arr` (of any shape, C-contiguous) as `[T]` for the length of `f`, after
/// the checks above.
fn with_slice<T: Element, R>(
    arr: &Bound<'_, PyUntypedArray>,
    what: &str,
    f: impl FnOnce(&mut [T]) -> PyResult<R>,
) -> PyResult<R> {
    let typed = arr.cast::<PyArrayDyn<T>>().map_err(|e| type_error(what, e))?;
    let mut rw = typed.try_readwrite().map_err(|e| match e {
        BorrowError::NotWriteable => value_error(what, "read-only array"),
        _ => value_error(what, "shares memory with the other array, or is being sorted by another thread"),
    })?;
    let slice = rw.as_slice_mut().map_err(|e| value_error(what, e))?;
    f(slice)
}

fn order(descending: bool) -> Order {
    if descending {
        Order::Descending
    } else {
        Order::Ascending
    }
}

/// The sorter with a stable algorithm: itself, or, set to a sorting network, with the default
/// one. Argsorts are stable by definition, and a segmented sort of 64-bit keys (an argsort, then
/// the positions sorted by segment) is right only with a stable sort.
fn stable(sorter: &Sorter) -> Sorter {
    if sorter.algorithm().is_stable() {
        sorter.clone()
    } else {
        sorter.clone().with_algorithm(Algorithm::Auto)
    }
}

/// `gpusort.sort` of a NumPy array, floats in `floats` order: a 1-D one as one array, an N-D one
/// (C-contiguous) row by row along its last axis, as `numpy.sort(a, axis=-1)`, through
/// `Sorter::sort_segments_keys` with the offsets `0, cols, 2 cols, ...` (stably, with the default
/// algorithm where the sorter's is a sorting network: see `stable`).
pub fn sort(
    py: Python<'_>,
    sorter: &Sorter,
    a: &Bound<'_, PyAny>,
    descending: bool,
    floats: FloatOrder,
) -> PyResult<()> {
    let arr = ndarray(a, "a")?;
    if arr.ndim() == 0 {
        return Err(value_error(
            "a",
            "gpusort sorts 1-D arrays, and the rows (last axis) of N-D ones; this one has shape ()",
        ));
    }
    let key_type = key_types::of_array(arr, "a")?;
    check_contiguous(arr, "a")?;
    let shape = arr.shape();
    let cols = shape[shape.len() - 1];
    let rows = arr.len().checked_div(cols).unwrap_or(0);
    // Rows of floats in another order than total order come here as "total" only where that gives
    // the same result (`gpusort/_sorter.py` checks); the library refuses them otherwise.
    let sorter = if shape.len() == 1 { sorter.clone() } else { stable(sorter) }
        .with_order(order(descending))
        .with_float_order(floats);
    with_key_type!(key_type, K => with_slice::<K, _>(arr, "a", |keys| {
        if shape.len() == 1 {
            return py.detach(|| sorter.sort_keys(keys)).map_err(|e| sort_error(py, e));
        }
        if cols < 2 {
            // Rows of one key or none: nothing to order (the borrow above still refused a
            // read-only array).
            return Ok(());
        }
        let mut offsets = buffer::<usize>(rows + 1, "rows of an N-D array: the row offsets (host memory)")
            .map_err(|e| sort_error(py, e))?;
        offsets.extend((0..=rows).map(|r| r * cols));
        py.detach(|| sorter.sort_segments_keys(keys, &offsets)).map_err(|e| sort_error(py, e))
    }))
}

/// `gpusort.sort_pairs` of NumPy arrays.
pub fn sort_pairs(
    py: Python<'_>,
    sorter: &Sorter,
    keys: &Bound<'_, PyAny>,
    values: &Bound<'_, PyAny>,
    descending: bool,
) -> PyResult<()> {
    let (k, v) = (array(keys, "keys")?, array(values, "values")?);
    let key_type = key_types::of_array(k, "keys")?;
    check_contiguous(k, "keys")?;
    check_values(v, k.len())?;
    with_key_type!(key_type, K => with_slice::<K, _>(k, "keys", |keys| {
        with_value_slice!(v, values => {
            py.detach(|| sorter.clone().with_order(order(descending)).sort_pairs(keys, values)).map_err(|e| sort_error(py, e))
        })
    }))
}

/// Values for `n` keys: a value dtype, contiguous, `n` of them.
fn check_values(v: &Bound<'_, PyUntypedArray>, n: usize) -> PyResult<()> {
    if !(is::<u32>(v) || is::<i32>(v) || is::<f32>(v) || is::<u64>(v) || is::<i64>(v) || is::<f64>(v)) {
        return Err(type_error("values", format!("dtype {} is not a value type ({VALUE_DTYPES})", v.dtype())));
    }
    check_contiguous(v, "values")?;
    if v.len() != n {
        return Err(value_error("values", format!("{} values for {n} keys; one value per key", v.len())));
    }
    Ok(())
}

/// `gpusort.sort_segments` of NumPy arrays: `offsets` is the 1-D uint64 array
/// `gpusort/_sorter.py` made of the caller's offsets; the library checks that they cut the keys
/// into segments before it writes anything. Stable (see `stable`).
pub fn sort_segments(
    py: Python<'_>,
    sorter: &Sorter,
    keys: &Bound<'_, PyAny>,
    offsets: &Bound<'_, PyAny>,
    values: Option<&Bound<'_, PyAny>>,
    descending: bool,
) -> PyResult<()> {
    let k = array(keys, "keys")?;
    let key_type = key_types::of_array(k, "keys")?;
    check_contiguous(k, "keys")?;
    let v = values.map(|v| array(v, "values")).transpose()?;
    if let Some(v) = v {
        check_values(v, k.len())?;
    }
    let o = array(offsets, "offsets")?;
    let o = o.cast::<PyArray1<u64>>().map_err(|e| type_error("offsets", e))?;
    // Borrowed first: keys or values sharing its memory are then refused by their own borrow.
    let ro = o.try_readonly().map_err(|e| value_error("offsets", e))?;
    let offsets = as_usize(ro.as_slice().map_err(|e| value_error("offsets", e))?)?;
    let sorter = stable(sorter).with_order(order(descending));
    with_key_type!(key_type, K => with_slice::<K, _>(k, "keys", |keys| match v {
        None => py.detach(|| sorter.sort_segments_keys(keys, &offsets)).map_err(|e| sort_error(py, e)),
        Some(v) => with_value_slice!(v, values => {
            py.detach(|| sorter.sort_segments(keys, values, &offsets)).map_err(|e| sort_error(py, e))
        }),
    }))
}

/// The offsets as `usize`: the same memory where `usize` is 64 bits, else a checked copy.
fn as_usize(o: &[u64]) -> PyResult<Cow<'_, [usize]>> {
    if size_of::<usize>() == size_of::<u64>() && align_of::<usize>() == align_of::<u64>() {
        // SAFETY: same size and alignment (checked above), every bit pattern valid for both; the
        // borrow of `o` carries over.
        return Ok(Cow::Borrowed(unsafe { std::slice::from_raw_parts(o.as_ptr().cast(), o.len()) }));
    }
    o.iter()
        .map(|&x| usize::try_from(x).map_err(|_| value_error("offsets", format!("{x} is past this platform's size_t"))))
        .collect::<PyResult<Vec<_>>>()
        .map(Cow::Owned)
}

/// The bytes of a writable, contiguous 1-D uint8 array (a view of records), for `f`.
pub fn with_bytes<R>(rows: &Bound<'_, PyAny>, what: &str, f: impl FnOnce(&mut [u8]) -> PyResult<R>) -> PyResult<R> {
    let arr = array(rows, what)?;
    check_contiguous(arr, what)?;
    with_slice::<u8, _>(arr, what, f)
}

/// `gpusort.sort_records`: the rows of a structured array as their bytes (`gpusort/_sorter.py`
/// checked the layout and passes a uint8 view, `size` bytes a row), sorted stably by the key of
/// dtype `key` (a NumPy dtype name) at byte `offset` of each row, through `Sorter::sort_records`.
pub fn sort_records(
    py: Python<'_>,
    sorter: &Sorter,
    rows: &Bound<'_, PyAny>,
    size: usize,
    offset: usize,
    key: &str,
    descending: bool,
) -> PyResult<()> {
    let key_type = key_types::of_numpy_name(key)?;
    let sorter = sorter.clone().with_order(order(descending));
    with_key_type!(key_type, K => with_bytes(rows, "a", |bytes| {
        py.detach(|| sorter.sort_records::<K>(bytes, size, offset)).map_err(|e| sort_error(py, e))
    }))
}

/// `gpusort.sort_records` by a byte-string field (and `gpusort.sort` of `S<n>` keys, rows that
/// are all key): the rows' bytes sorted stably by the `width` bytes at `offset` of each row, in
/// `memcmp` order, through `Sorter::sort_records_by_bytes`.
pub fn sort_records_by_bytes(
    py: Python<'_>,
    sorter: &Sorter,
    rows: &Bound<'_, PyAny>,
    size: usize,
    offset: usize,
    width: usize,
    descending: bool,
) -> PyResult<()> {
    let sorter = sorter.clone().with_order(order(descending));
    with_bytes(rows, "a", |bytes| {
        py.detach(|| sorter.sort_records_by_bytes(bytes, size, offset, width)).map_err(|e| sort_error(py, e))
    })
}

/// `gpusort.argsort` of a NumPy array: `Sorter::argsort_into` writes its `u64` positions straight
/// into the int64 result (what `numpy.argsort` returns), with no copy of the keys and no limit
/// below the array's length. Always stable, in either order (equal keys keep their input order):
/// the library's argsort is the stable radix sort, so `stable` changes nothing for host arrays,
/// and a sorter set to a sorting network argsorts with the default algorithm. The keys are only
/// read, so read-only and strided arrays are fine (strided ones are read from a contiguous copy).
/// Floats in `floats` order. On failure the result is dropped and the keys are as they were.
pub fn argsort<'py>(
    py: Python<'py>,
    sorter: &Sorter,
    keys: &Bound<'py, PyAny>,
    _stable: bool,
    descending: bool,
    floats: FloatOrder,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let arr = array(keys, "keys")?;
    let key_type = key_types::of_array(arr, "keys")?;
    let n = arr.len();
    let sorter = stable(sorter).with_order(order(descending)).with_float_order(floats);
    with_key_type!(key_type, K => {
        let typed = arr.cast::<PyArray1<K>>().map_err(|e| type_error("keys", e))?;
        let ro = typed.try_readonly().map_err(|e| value_error("keys", e))?;
        // numpy.empty raises MemoryError when it cannot; the copy below reports it as well,
        // rather than aborting the process as a failed Rust allocation would.
        let out = py.import("numpy")?.call_method1("empty", (n, "int64"))?.cast_into::<PyArray1<i64>>()?;
        let mut out_rw = out.try_readwrite().map_err(|e| value_error("argsort", e))?;
        let out_slice = out_rw.as_slice_mut().map_err(|e| value_error("argsort", e))?;
        let strided: Option<Vec<K>> = match ro.as_slice() {
            Ok(_) => None,
            Err(_) => {
                let mut v = buffer::<K>(n, "argsort of strided keys: a contiguous copy (host memory)")
                    .map_err(|e| sort_error(py, e))?;
                v.extend(ro.as_array().iter().copied());
                Some(v)
            }
        };
        let src: &[K] = match &strided {
            Some(v) => v,
            None => ro.as_slice().map_err(|e| value_error("keys", e))?,
        };
        py.detach(|| sorter.argsort_into(src, positions(out_slice))).map_err(|e| sort_error(py, e))?;
        drop(out_rw);
        Ok(out)
    })
}

/// `gpusort.top_k` of a NumPy array: `Sorter::top_k`, exactly the first `k` of the stable sort in
/// either order (ties at the `k`-th key to the earliest positions, whatever the sorter's
/// algorithm), as `(values, int64 indices)`. The vectors it returns become the NumPy arrays
/// without a copy. The keys are only read, so read-only and strided arrays are fine (strided ones
/// are read from a contiguous copy, as in `argsort`). `k` is a Python int (`gpusort/_sorter.py`
/// made it one); from 0 to `len(a)`, else `InvalidArgumentError`.
pub fn top_k<'py>(
    py: Python<'py>,
    sorter: &Sorter,
    a: &Bound<'py, PyAny>,
    k: &Bound<'py, PyAny>,
    descending: bool,
) -> PyResult<(Bound<'py, PyAny>, Bound<'py, PyArray1<i64>>)> {
    let arr = array(a, "a")?;
    let key_type = key_types::of_array(arr, "a")?;
    let n = arr.len();
    // Negative, or past any usize: out of range as much as a k above n, which the library refuses.
    let k = k.extract::<usize>().map_err(|_| {
        sort_error(py, SortError::InvalidArgument(format!("top {k} of {n} keys: k runs from 0 to the number of keys")))
    })?;
    let sorter = sorter.clone().with_order(order(descending));
    with_key_type!(key_type, K => {
        let typed = arr.cast::<PyArray1<K>>().map_err(|e| type_error("a", e))?;
        let ro = typed.try_readonly().map_err(|e| value_error("a", e))?;
        let strided: Option<Vec<K>> = match ro.as_slice() {
            Ok(_) => None,
            Err(_) => {
                let mut v = buffer::<K>(n, "top_k of strided keys: a contiguous copy (host memory)")
                    .map_err(|e| sort_error(py, e))?;
                v.extend(ro.as_array().iter().copied());
                Some(v)
            }
        };
        let src: &[K] = match &strided {
            Some(v) => v,
            None => ro.as_slice().map_err(|e| value_error("a", e))?,
        };
        let top = py.detach(|| sorter.top_k(src, k)).map_err(|e| sort_error(py, e))?;
        let indices = PyArray1::from_vec(py, int64(top.indices));
        Ok((PyArray1::from_vec(py, top.keys).into_any(), indices))
    })
}

/// The `u64` positions of `Sorter::top_k` as the int64 NumPy indexes with, in place.
fn int64(positions: Vec<u64>) -> Vec<i64> {
    let mut v = std::mem::ManuallyDrop::new(positions);
    // SAFETY: i64 and u64 have the same size and alignment, so the allocation is the same one
    // a Vec<i64> of that capacity would own; every position is below the array's length, so
    // below 2^63, and reads as the same number.
    unsafe { Vec::from_raw_parts(v.as_mut_ptr().cast::<i64>(), v.len(), v.capacity()) }
}

/// The int64 result as the `u64` positions `argsort_into` writes.
pub(crate) fn positions(out: &mut [i64]) -> &mut [u64] {
    // SAFETY: i64 and u64 have the same size and alignment and every bit pattern is valid for
    // both; the borrow of `out` carries over. Every position is below the array's length, so
    // below 2^63: the int64 reads it as the same number.
    unsafe { std::slice::from_raw_parts_mut(out.as_mut_ptr().cast(), out.len()) }
}

/// An empty vector with room for `n` items, or `OutOfMemory` for `op`.
fn buffer<T>(n: usize, op: &'static str) -> Result<Vec<T>, gpusort::SortError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| gpusort::SortError::OutOfMemory { op, bytes: n.saturating_mul(size_of::<T>()) })?;
    Ok(v)
}
