//! Several key columns at once (`Sorter::lexsort`, `Sorter::lexsort_foreign`) and the float order
//! names the package passes: `gpusort/_lexsort.py` turns NumPy's convention (last key primary,
//! dtypes without a key type) into column specs, most significant first, which are borrowed here
//! and sorted with the GIL released.

use gpusort::cudarc::driver::sys::CUstream;
use gpusort::{Column, FloatOrder, ForeignColumn, Key, KeyType, NullPlacement, Order, Sorter};
use numpy::{
    Element, PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArray,
    PyUntypedArrayMethods,
};
use pyo3::prelude::*;

use crate::errors::{sort_error, type_error, value_error};
use crate::key_types::{self, is};

/// The float order a Python name stands for (`gpusort/_lexsort.py` resolves the defaults).
pub fn float_order(name: &str) -> PyResult<FloatOrder> {
    Ok(match name {
        "total" => FloatOrder::Total,
        "nan_last" => FloatOrder::NanLast,
        "nan_first" => FloatOrder::NanFirst,
        "nan_largest" => FloatOrder::NanLargest,
        _ => {
            return Err(value_error(
                "float_order",
                format!("{name:?} is not one of 'total', 'nan_last', 'nan_first', 'nan_largest'"),
            ))
        }
    })
}

fn order(descending: bool) -> Order {
    if descending {
        Order::Descending
    } else {
        Order::Ascending
    }
}

fn placement(nulls_first: bool) -> NullPlacement {
    if nulls_first {
        NullPlacement::First
    } else {
        NullPlacement::Last
    }
}

/// A host column from Python: `(keys, descending, float order, null mask or None, nulls_first)`.
pub type HostSpec<'py> = (Bound<'py, PyAny>, bool, String, Option<Bound<'py, PyAny>>, bool);

/// A device column from Python: `(keys address, key name, descending, float order, null mask
/// address or 0, nulls_first)`.
pub type DeviceSpec = (u64, String, bool, String, u64, bool);

/// A read borrow of a 1-D contiguous key array, whatever its type: the borrow lives while the
/// sort reads the slice it lends.
trait Keys<'py> {
    fn column(&self) -> PyResult<Column<'_>>;
}

impl<'py, K: Key + Element> Keys<'py> for PyReadonlyArray1<'py, K> {
    fn column(&self) -> PyResult<Column<'_>> {
        Ok(Column::new(self.as_slice().map_err(|e| value_error("keys", e))?))
    }
}

/// A read borrow of a null mask: NumPy bool or uint8, nonzero where the row is null.
enum Nulls<'py> {
    Bool(PyReadonlyArray1<'py, bool>),
    Bytes(PyReadonlyArray1<'py, u8>),
}

impl Nulls<'_> {
    fn apply<'a>(&'a self, c: Column<'a>, at: NullPlacement) -> PyResult<Column<'a>> {
        let err = |e| value_error("nulls", e);
        Ok(match self {
            Nulls::Bool(m) => c.with_nulls(m.as_slice().map_err(err)?, at),
            Nulls::Bytes(m) => c.with_null_bytes(m.as_slice().map_err(err)?, at),
        })
    }
}

/// A 1-D contiguous NumPy array (the caller made strided ones contiguous), else an error.
fn contiguous<'a, 'py>(obj: &'a Bound<'py, PyAny>, what: &str) -> PyResult<&'a Bound<'py, PyUntypedArray>> {
    let arr = obj.cast::<PyUntypedArray>().map_err(|_| type_error(what, "expected a numpy.ndarray"))?;
    if arr.ndim() != 1 {
        return Err(value_error(what, format!("a 1-D array is required; this one has shape {:?}", arr.shape())));
    }
    if !arr.is_c_contiguous() {
        return Err(value_error(what, "not contiguous"));
    }
    Ok(arr)
}

/// A column of byte strings: a C-contiguous 2-D uint8 array, one key per row (NumPy `S<n>`
/// keys as `gpusort/_lexsort.py` views them).
struct ByteKeys<'py>(PyReadonlyArray2<'py, u8>);

impl<'py> Keys<'py> for ByteKeys<'py> {
    fn column(&self) -> PyResult<Column<'_>> {
        let width = self.0.shape()[1];
        Ok(Column::byte_rows(self.0.as_slice().map_err(|e| value_error("keys", e))?, width))
    }
}

fn borrow_keys<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Box<dyn Keys<'py> + 'py>> {
    if let Ok(rows) = obj.cast::<PyArray2<u8>>() {
        if !rows.is_c_contiguous() {
            return Err(value_error("keys", "byte-string rows not contiguous"));
        }
        return Ok(Box::new(ByteKeys(rows.try_readonly().map_err(|e| value_error("keys", e))?)));
    }
    let arr = contiguous(obj, "keys")?;
    let key_type = key_types::of_array(arr, "keys")?;
    gpusort::with_key_type!(key_type, K => {
        let typed = arr.cast::<PyArray1<K>>().map_err(|e| type_error("keys", e))?;
        Ok(Box::new(typed.try_readonly().map_err(|e| value_error("keys", e))?))
    })
}

fn borrow_nulls<'py>(obj: &Bound<'py, PyAny>) -> PyResult<Nulls<'py>> {
    let arr = contiguous(obj, "nulls")?;
    let err = |e| value_error("nulls", e);
    if is::<bool>(arr) {
        Ok(Nulls::Bool(arr.cast::<PyArray1<bool>>().map_err(|e| type_error("nulls", e))?.try_readonly().map_err(err)?))
    } else if is::<u8>(arr) {
        Ok(Nulls::Bytes(arr.cast::<PyArray1<u8>>().map_err(|e| type_error("nulls", e))?.try_readonly().map_err(err)?))
    } else {
        Err(type_error("nulls", format!("dtype {} is not bool or uint8", arr.dtype())))
    }
}

/// `Sorter::lexsort_into` of NumPy columns (the first the most significant) into a new int64
/// array: the stable permutation, each column in its own order, float order and null placement.
/// The columns are only read (several may be one array); a failed sort drops the result.
pub fn lexsort<'py>(py: Python<'py>, sorter: &Sorter, specs: &[HostSpec<'py>]) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let mut keys = Vec::with_capacity(specs.len());
    let mut nulls = Vec::with_capacity(specs.len());
    for (k, _, _, m, _) in specs {
        keys.push(borrow_keys(k)?);
        nulls.push(m.as_ref().map(borrow_nulls).transpose()?);
    }
    let mut columns = Vec::with_capacity(specs.len());
    for ((spec, k), m) in specs.iter().zip(&keys).zip(&nulls) {
        let (_, descending, floats, _, nulls_first) = spec;
        let c = k.column()?.with_order(order(*descending)).with_float_order(float_order(floats)?);
        columns.push(match m {
            Some(m) => m.apply(c, placement(*nulls_first))?,
            None => c,
        });
    }
    let n = columns.first().map_or(0, Column::len);
    // numpy.empty raises MemoryError when it cannot, as in `host::argsort`.
    let out = py.import("numpy")?.call_method1("empty", (n, "int64"))?.cast_into::<PyArray1<i64>>()?;
    {
        let mut rw = out.try_readwrite().map_err(|e| value_error("lexsort", e))?;
        let slice = rw.as_slice_mut().map_err(|e| value_error("lexsort", e))?;
        let positions = crate::host::positions(slice);
        py.detach(|| sorter.lexsort_into(&columns, positions)).map_err(|e| sort_error(py, e))?;
    }
    Ok(out)
}

/// `Sorter::lexsort_foreign` of device columns of `n` rows into the `n` int64s at `out`, queued on
/// `stream`; the addresses are checked with the driver there. Key names are those of
/// `KeyType::name`, every key type (the column kernels pack each).
pub fn lexsort_device(
    py: Python<'_>,
    sorter: &Sorter,
    specs: &[DeviceSpec],
    n: usize,
    out: u64,
    stream: usize,
) -> PyResult<()> {
    let mut columns = Vec::with_capacity(specs.len());
    for (ptr, key, descending, floats, nulls, nulls_first) in specs {
        let key_type =
            KeyType::from_name(key).ok_or_else(|| value_error("key", format!("{key:?} is not a key type")))?;
        let c =
            ForeignColumn::new(*ptr, key_type).with_order(order(*descending)).with_float_order(float_order(floats)?);
        columns.push(if *nulls != 0 { c.with_nulls(*nulls, placement(*nulls_first)) } else { c });
    }
    // SAFETY: `gpusort/_device.py` keeps every array alive for the call and allocated `out` apart
    // from them; the stream is the caller's, as in `PySorter::sort_device`. Positions below 2^63
    // read the same as int64.
    py.detach(|| unsafe { sorter.lexsort_foreign::<u64>(&columns, n, out, stream as CUstream) })
        .map_err(|e| sort_error(py, e))
}
