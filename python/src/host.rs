//! NumPy arrays on the host: checked, borrowed through the numpy crate (which also refuses two
//! borrows of overlapping memory, so `sort_pairs(a, a)` cannot alias), then sorted with the GIL
//! released. Every check runs before anything is written: a refused array is left as it was.

use gpusort::{Algorithm, Order, Sorter};
use numpy::{
    BorrowError, Element, PyArray1, PyArrayDescrMethods, PyArrayMethods, PyUntypedArray, PyUntypedArrayMethods,
};
use pyo3::prelude::*;
use rayon::prelude::*;

use crate::errors::{sort_error, type_error, value_error};

/// The key dtypes: those `Sorter::sort_keys` takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyDtype {
    U32,
    I32,
    F32,
    U64,
    I64,
    F64,
}

const KEY_DTYPES: &str = "uint32, int32, float32, uint64, int64 or float64";
/// Values are 32-bit payloads moved bit for bit: indices (int32, uint32) or float32 data.
const VALUE_DTYPES: &str = "uint32, int32 or float32";

/// Runs `$body` with `$k` the Rust type of a `KeyDtype`.
macro_rules! with_key_type {
    ($dtype:expr, $k:ident => $body:expr) => {
        match $dtype {
            KeyDtype::U32 => {
                type $k = u32;
                $body
            }
            KeyDtype::I32 => {
                type $k = i32;
                $body
            }
            KeyDtype::F32 => {
                type $k = f32;
                $body
            }
            KeyDtype::U64 => {
                type $k = u64;
                $body
            }
            KeyDtype::I64 => {
                type $k = i64;
                $body
            }
            KeyDtype::F64 => {
                type $k = f64;
                $body
            }
        }
    };
}

fn is<T: Element>(arr: &Bound<'_, PyUntypedArray>) -> bool {
    arr.dtype().is_equiv_to(&numpy::dtype::<T>(arr.py()))
}

/// `obj` as a 1-D NumPy array, else `TypeError` (not an array) or `ValueError` (shape).
fn array<'a, 'py>(obj: &'a Bound<'py, PyAny>, what: &str) -> PyResult<&'a Bound<'py, PyUntypedArray>> {
    let arr = obj.cast::<PyUntypedArray>().map_err(|_| {
        let name = obj.get_type().name().map(|n| n.to_string()).unwrap_or_else(|_| "?".into());
        type_error(what, format!("expected a numpy.ndarray or a CUDA array, got {name}"))
    })?;
    if arr.ndim() != 1 {
        return Err(value_error(what, format!("gpusort sorts 1-D arrays; this one has shape {:?}", arr.shape())));
    }
    Ok(arr)
}

fn key_dtype(arr: &Bound<'_, PyUntypedArray>, what: &str) -> PyResult<KeyDtype> {
    if is::<u32>(arr) {
        Ok(KeyDtype::U32)
    } else if is::<i32>(arr) {
        Ok(KeyDtype::I32)
    } else if is::<f32>(arr) {
        Ok(KeyDtype::F32)
    } else if is::<u64>(arr) {
        Ok(KeyDtype::U64)
    } else if is::<i64>(arr) {
        Ok(KeyDtype::I64)
    } else if is::<f64>(arr) {
        Ok(KeyDtype::F64)
    } else {
        Err(type_error(what, format!("dtype {} is not a key type ({KEY_DTYPES} in native byte order)", arr.dtype())))
    }
}

/// Sorting in place needs memory in one piece (whether it is writable, the borrow tells).
fn check_contiguous(arr: &Bound<'_, PyUntypedArray>, what: &str) -> PyResult<()> {
    if !arr.is_c_contiguous() {
        return Err(value_error(what, "not contiguous; sort a contiguous copy (numpy.ascontiguousarray)"));
    }
    Ok(())
}

/// A mutable borrow of `arr` as `[T]` for the length of `f`, after the checks above.
fn with_slice<T: Element, R>(
    arr: &Bound<'_, PyUntypedArray>,
    what: &str,
    f: impl FnOnce(&mut [T]) -> PyResult<R>,
) -> PyResult<R> {
    let typed = arr.cast::<PyArray1<T>>().map_err(|e| type_error(what, e))?;
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

/// `gpusort.sort` of a NumPy array.
pub fn sort(py: Python<'_>, sorter: &Sorter, a: &Bound<'_, PyAny>, descending: bool) -> PyResult<()> {
    let arr = array(a, "a")?;
    let dtype = key_dtype(arr, "a")?;
    check_contiguous(arr, "a")?;
    with_key_type!(dtype, K => with_slice::<K, _>(arr, "a", |keys| {
        py.detach(|| sorter.clone().with_order(order(descending)).sort_keys(keys)).map_err(|e| sort_error(py, e))
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
    let dtype = key_dtype(k, "keys")?;
    if !(is::<u32>(v) || is::<i32>(v) || is::<f32>(v)) {
        return Err(type_error("values", format!("dtype {} is not a value type ({VALUE_DTYPES})", v.dtype())));
    }
    check_contiguous(k, "keys")?;
    check_contiguous(v, "values")?;
    if k.len() != v.len() {
        return Err(value_error("values", format!("{} values for {} keys; one value per key", v.len(), k.len())));
    }
    with_key_type!(dtype, K => with_slice::<K, _>(k, "keys", |keys| {
        with_value_slice(v, |values| {
            py.detach(|| sorter.clone().with_order(order(descending)).sort_pairs(keys, values)).map_err(|e| sort_error(py, e))
        })
    }))
}

/// The values as `[u32]` whatever their 32-bit dtype: they are moved, never compared.
fn with_value_slice<R>(v: &Bound<'_, PyUntypedArray>, f: impl FnOnce(&mut [u32]) -> PyResult<R>) -> PyResult<R> {
    fn bits<T>(s: &mut [T]) -> &mut [u32] {
        const { assert!(size_of::<T>() == 4 && align_of::<T>() == 4) };
        // SAFETY: same size and alignment as u32 (checked above), every bit pattern a valid u32,
        // and the borrow of `s` carries over.
        unsafe { std::slice::from_raw_parts_mut(s.as_mut_ptr().cast(), s.len()) }
    }
    if is::<u32>(v) {
        with_slice::<u32, _>(v, "values", f)
    } else if is::<i32>(v) {
        with_slice::<i32, _>(v, "values", |s| f(bits(s)))
    } else {
        with_slice::<f32, _>(v, "values", |s| f(bits(s)))
    }
}

/// `gpusort.argsort` of a NumPy array: a stable pair sort of a copy of the keys with the indices
/// 0..n as values, returned as int64 as `numpy.argsort` does; `descending` sorts from the largest
/// key, still stably (equal keys keep their input order). The keys are only read, so read-only
/// and strided arrays are fine.
pub fn argsort<'py>(
    py: Python<'py>,
    sorter: &Sorter,
    keys: &Bound<'py, PyAny>,
    stable: bool,
    descending: bool,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let arr = array(keys, "keys")?;
    let dtype = key_dtype(arr, "keys")?;
    let n = arr.len();
    if u32::try_from(n).is_err() {
        return Err(value_error("keys", format!("{n} keys; argsort carries u32 indices, so fewer than 2^32")));
    }
    // Unstable algorithms are allowed only when asked for; `stable=True` falls back to the
    // default (stable) choice.
    let sorter = if stable && !sorter.algorithm().is_stable() {
        sorter.clone().with_algorithm(Algorithm::Auto)
    } else {
        sorter.clone()
    };
    with_key_type!(dtype, K => {
        let typed = arr.cast::<PyArray1<K>>().map_err(|e| type_error("keys", e))?;
        let ro = typed.try_readonly().map_err(|e| value_error("keys", e))?;
        // numpy.empty raises MemoryError when it cannot; the buffers below report it as well,
        // rather than aborting the process as a failed Rust allocation would.
        let out = py.import("numpy")?.call_method1("empty", (n, "int64"))?.cast_into::<PyArray1<i64>>()?;
        let mut out_rw = out.try_readwrite().map_err(|e| value_error("argsort", e))?;
        let out_slice = out_rw.as_slice_mut().map_err(|e| value_error("argsort", e))?;
        let strided: Option<Vec<K>> = match ro.as_slice() {
            Ok(_) => None,
            Err(_) => {
                let mut v = buffer::<K>(n).map_err(|e| sort_error(py, e))?;
                v.extend(ro.as_array().iter().copied());
                Some(v)
            }
        };
        let src: &[K] = match &strided {
            Some(v) => v,
            None => ro.as_slice().map_err(|e| value_error("keys", e))?,
        };
        py.detach(|| argsort_into(&sorter, src, order(descending), out_slice)).map_err(|e| sort_error(py, e))?;
        drop(out_rw);
        Ok(out)
    })
}

/// An empty vector with room for `n` items, or `OutOfMemory`.
fn buffer<T>(n: usize) -> Result<Vec<T>, gpusort::SortError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| gpusort::SortError::OutOfMemory {
        op: "argsort buffers (host memory)",
        bytes: n * size_of::<T>(),
    })?;
    Ok(v)
}

/// The permutation that sorts `src` in `order`, written to `out`. The copies run on gpusort's CPU
/// pool, which survives fork (rayon's global pool does not).
fn argsort_into<K: gpusort::Key>(
    sorter: &Sorter,
    src: &[K],
    order: Order,
    out: &mut [i64],
) -> Result<(), gpusort::SortError> {
    let n = src.len();
    let (mut keys, mut idx) = (buffer::<K>(n)?, buffer::<u32>(n)?);
    gpusort_cpu::install(|| {
        src.par_iter().copied().collect_into_vec(&mut keys);
        (0..n as u32).into_par_iter().collect_into_vec(&mut idx);
    });
    sorter.clone().with_order(order).sort_pairs(&mut keys, &mut idx)?;
    gpusort_cpu::install(|| out.par_iter_mut().zip(&idx).for_each(|(o, &i)| *o = i64::from(i)));
    Ok(())
}
