//! `SortError` to Python exceptions. The exception classes live in `gpusort/_errors.py`: some
//! derive from two bases (`OutOfMemoryError` is a `GpusortError` and a `MemoryError`), which
//! Python classes do simply.

use gpusort::SortError;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;

/// The `gpusort._errors` class for `err`, raised with its message.
pub fn sort_error(py: Python<'_>, err: SortError) -> PyErr {
    let class = match &err {
        SortError::NoDriver | SortError::NoDevice(_) => "NoDeviceError",
        SortError::OutOfMemory { .. } => "OutOfMemoryError",
        SortError::Unsupported { .. } => "UnsupportedError",
        SortError::InvalidArgument(_) => "InvalidArgumentError",
        SortError::Driver { .. } => "CudaError",
        SortError::KernelImage { .. } => "KernelImageError",
        _ => "GpusortError",
    };
    let message = err.to_string();
    match py.import("gpusort._errors").and_then(|m| m.getattr(class)) {
        Ok(class) => PyErr::from_type(class.cast_into().expect("gpusort._errors holds classes"), message),
        // Only when the package is broken: the message still reaches the caller.
        Err(_) => pyo3::exceptions::PyRuntimeError::new_err(message),
    }
}

/// The `TypeError` for an argument of the wrong type or dtype.
pub fn type_error(what: &str, why: impl std::fmt::Display) -> PyErr {
    PyTypeError::new_err(format!("{what}: {why}"))
}

/// The `ValueError` for an argument of the right type that cannot be sorted as it is.
pub fn value_error(what: &str, why: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(format!("{what}: {why}"))
}
