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
        SortError::Io { .. } => "FileSortError",
        SortError::Cancelled => "SortCancelledError",
        _ => "GpusortError",
    };
    let message = err.to_string();
    match py.import("gpusort._errors").and_then(|m| m.getattr(class)) {
        Ok(class) => {
            let class = class.cast_into().expect("gpusort._errors holds classes");
            match os_error_args(&err) {
                // An `OSError` of (errno, strerror): `e.errno` is set, `str(e)` reads
                // "[Errno 2] opening the input /data/in: No such file or directory".
                Some(args) => PyErr::from_type(class, args),
                None => PyErr::from_type(class, message),
            }
        }
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

/// `(errno, "what failed: what the system said")` for an I/O error the system gave a number to.
fn os_error_args(err: &SortError) -> Option<(i32, String)> {
    let SortError::Io { op, source } = err else { return None };
    let errno = source.raw_os_error()?;
    // The system's words without the " (os error N)" that `io::Error`'s Display adds: the errno
    // is `OSError`'s own first part.
    let text = source.to_string();
    let text = text.strip_suffix(&format!(" (os error {errno})")).unwrap_or(&text);
    Some((errno, format!("{op}: {text}")))
}
