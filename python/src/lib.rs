//! The `gpusort._native` extension module behind the `gpusort` Python package: the `Sorter`
//! class the package wraps, and `KEY_TYPES`, the table of the key types it sorts
//! (`key_types.rs`); lexsorts of several key columns in `columns.rs`; sorts of files of records in
//! `files.rs`. Device arrays are
//! recognised in Python (`gpusort/_device.py`), which hands their raw pointers and stream here.

mod columns;
mod embed;
mod errors;
mod files;
mod host;
mod key_types;
mod sorter;

use pyo3::prelude::*;

#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<sorter::PySorter>()?;
    m.add_function(wrap_pyfunction!(embed::prepare, m)?)?;
    m.add_function(wrap_pyfunction!(embed::scratch_bytes, m)?)?;
    m.add_function(wrap_pyfunction!(embed::sort_device_scratch, m)?)?;
    m.add_function(wrap_pyfunction!(embed::argsort_device_scratch, m)?)?;
    m.add_function(wrap_pyfunction!(embed::top_k_device_scratch, m)?)?;
    m.add("KEY_TYPES", key_types::table(m.py())?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
