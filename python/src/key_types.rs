//! The key types, all from the library's one list (`gpusort::key_types!`, `gpusort::KeyType`):
//! the key type of a NumPy array or
//! of a NumPy dtype name, the key names the device sorts take, and `_native.KEY_TYPES`, the table
//! `gpusort/_key_types.py` builds the Python side's dtype tables and messages from.

use gpusort::KeyType;
use numpy::{Element, PyArrayDescrMethods, PyUntypedArray, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::errors::{type_error, value_error};

/// `_native.KEY_TYPES`: `(NumPy dtype name, Rust name, itemsize, sorts_on_device, is_float)` of
/// every key type, in the order of `KeyType::ALL`.
pub fn table(py: Python<'_>) -> PyResult<Bound<'_, PyTuple>> {
    PyTuple::new(
        py,
        KeyType::ALL.iter().map(|k| (k.numpy_dtype(), k.name(), k.size(), k.sorts_on_device(), k.is_float())),
    )
}

/// `names` as an English list: "a, b or c".
pub fn one_of<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<_> = names.into_iter().collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => (*last).to_string(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The NumPy dtypes of every key type, for messages.
fn numpy_dtypes() -> String {
    one_of(KeyType::ALL.iter().map(|k| k.numpy_dtype()))
}

/// Whether `arr`'s dtype is `T`'s (in native byte order).
pub fn is<T: Element>(arr: &Bound<'_, PyUntypedArray>) -> bool {
    arr.dtype().is_equiv_to(&numpy::dtype::<T>(arr.py()))
}

/// The key type of `arr`'s dtype, else `TypeError`. Found by the dtype's name first, then
/// checked with `is`: the numpy crate's `bfloat16` dtype panics where no package (ml_dtypes)
/// registered one, so it is consulted only for a dtype NumPy itself calls "bfloat16".
pub fn of_array(arr: &Bound<'_, PyUntypedArray>, what: &str) -> PyResult<KeyType> {
    let dtype = arr.dtype();
    let name: Option<String> = dtype.getattr("name").and_then(|n| n.extract()).ok();
    KeyType::ALL
        .iter()
        .copied()
        .find(|&key| {
            name.as_deref() == Some(key.numpy_dtype())
                && (key != KeyType::BF16 || numpy::PyArrayDescr::new(arr.py(), "bfloat16").is_ok())
                && gpusort::with_key_type!(key, K => is::<K>(arr))
        })
        .ok_or_else(|| {
            type_error(what, format!("dtype {dtype} is not a key type ({} in native byte order)", numpy_dtypes()))
        })
}

/// The key type that NumPy calls `name` (a field's dtype name), else `TypeError`.
pub fn of_numpy_name(name: &str) -> PyResult<KeyType> {
    KeyType::ALL
        .iter()
        .copied()
        .find(|k| k.numpy_dtype() == name)
        .ok_or_else(|| type_error("key", format!("field dtype {name} is not a key type ({})", numpy_dtypes())))
}

/// The key type of a device sort named `name` (`KeyType::name`, "u32"): one that sorts on the
/// device, else `ValueError` (`gpusort/_device.py` has refused other dtypes with a `TypeError`).
pub fn of_device_name(name: &str) -> PyResult<KeyType> {
    KeyType::from_name(name).filter(|k| k.sorts_on_device()).ok_or_else(|| {
        let device = KeyType::ALL.iter().filter(|k| k.sorts_on_device()).map(|k| k.name());
        value_error("key", format!("{name:?} is not {}", one_of(device)))
    })
}
