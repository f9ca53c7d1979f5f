//! File sorts: `Sorter.sort_file` and `Sorter.check_file` (`gpusort/_files.py` works out the
//! record layout from the caller's key, dtype and sizes, and passes it here as numbers and a key
//! name), through `Sorter::sort_file_with_progress` and `Sorter::check_file` with the GIL
//! released. While a sort runs, each of its progress reports takes the GIL back for a moment: to
//! run Python's signal handlers (Ctrl-C stops the sort, which cleans up after itself, and raises
//! `KeyboardInterrupt`) and the caller's progress callback, whose exception stops the sort too
//! and is raised as it is.

use std::ops::ControlFlow;
use std::path::PathBuf;
use std::time::Duration;

use gpusort::{FileKey, FileProgress, FileSortReport, Order, Phase, RecordLayout, SortError, Sorter};
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::errors::sort_error;
use crate::key_types;

/// The layout `_files.py` resolved: `key` is "bytes" (a byte string of `key_size` bytes) or a key
/// type's NumPy dtype name, stored big-endian when `big_endian`. A key that does not fit a
/// record is `InvalidArgumentError` (a `ValueError`), an unknown key name `TypeError`.
pub fn layout(
    py: Python<'_>,
    record_size: usize,
    key_offset: usize,
    key: &str,
    key_size: usize,
    big_endian: bool,
) -> PyResult<RecordLayout> {
    let file_key = match key {
        "bytes" => FileKey::Bytes(key_size),
        name => {
            let t = key_types::of_numpy_name(name)?;
            if big_endian {
                FileKey::BigEndian(t)
            } else {
                FileKey::LittleEndian(t)
            }
        }
    };
    RecordLayout::new(record_size, key_offset, file_key).map_err(|e| sort_error(py, e))
}

fn order(descending: bool) -> Order {
    if descending {
        Order::Descending
    } else {
        Order::Ascending
    }
}

/// What a progress report says, as `_files.FileProgress` takes it: `(phase, merge_pass, done,
/// total, merge_passes)`, `phase` "runs" or "merge" and `merge_pass` 0 in the run phase.
fn progress_args(p: &FileProgress) -> (&'static str, usize, u64, u64, usize) {
    let (phase, pass) = match p.phase {
        Phase::Runs => ("runs", 0),
        Phase::Merge { pass } => ("merge", pass),
        // `Phase` is non_exhaustive: a later phase reads as a merge until it has a name.
        _ => ("merge", 0),
    };
    (phase, pass, p.done, p.total, p.merge_passes)
}

/// The report as the dict `_files.FileSortReport` is made from: times in seconds.
fn report_dict<'py>(py: Python<'py>, r: &FileSortReport) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new(py);
    d.set_item("records", r.records)?;
    d.set_item("runs", r.runs)?;
    d.set_item("merge_passes", r.merge_passes)?;
    d.set_item("backend", r.backend.map(|b| b.to_string()))?;
    d.set_item("memory_budget", r.memory_budget)?;
    let times: [(&str, Duration); 8] = [
        ("run_phase", r.run_phase),
        ("merge_phase", r.merge_phase),
        ("reading", r.reading),
        ("sorting", r.sorting),
        ("writing", r.writing),
        ("merge_reading", r.merge_reading),
        ("merging", r.merging),
        ("merge_writing", r.merge_writing),
    ];
    for (name, t) in times {
        d.set_item(name, t.as_secs_f64())?;
    }
    Ok(d)
}

/// `Sorter.sort_file`: `input` into `output` by `layout`, within `memory_limit` bytes of host
/// memory (None: the library's default), runs in a folder inside `temp_dir` (None: the output's
/// folder), calling `progress(phase, merge_pass, done, total, merge_passes)` as it goes (None:
/// nothing but the signal check). The report's fields as a dict.
#[allow(clippy::too_many_arguments)]
pub fn sort_file<'py>(
    py: Python<'py>,
    sorter: &Sorter,
    input: PathBuf,
    output: PathBuf,
    layout: RecordLayout,
    descending: bool,
    memory_limit: Option<usize>,
    temp_dir: Option<PathBuf>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let s = configured(sorter, descending, memory_limit, temp_dir);
    let result = with_progress(py, progress, |report| s.sort_file_with_progress(&input, &output, &layout, report))?;
    report_dict(py, &result)
}

/// `Sorter.sort_mapped`: the records of a writable, contiguous NumPy array (a `numpy.memmap` of a
/// file larger than memory) sorted in place through `Sorter::sort_mapped_with_progress`.
#[allow(clippy::too_many_arguments)]
pub fn sort_mapped<'py>(
    py: Python<'py>,
    sorter: &Sorter,
    rows: &Bound<'py, PyAny>,
    layout: RecordLayout,
    descending: bool,
    memory_limit: Option<usize>,
    temp_dir: Option<PathBuf>,
    progress: Option<Py<PyAny>>,
) -> PyResult<Bound<'py, PyDict>> {
    let s = configured(sorter, descending, memory_limit, temp_dir);
    let result = crate::host::with_bytes(rows, "a", |bytes| {
        with_progress(py, progress, |report| s.sort_mapped_with_progress(bytes, &layout, report))
    })?;
    report_dict(py, &result)
}

/// The sorter in the order, with the limit and the scratch folder the call asks for.
fn configured(sorter: &Sorter, descending: bool, memory_limit: Option<usize>, temp_dir: Option<PathBuf>) -> Sorter {
    let mut s = sorter.clone().with_order(order(descending));
    if let Some(bytes) = memory_limit {
        s = s.with_host_memory_limit(bytes);
    }
    if let Some(dir) = temp_dir {
        s = s.with_temp_dir(dir);
    }
    s
}

/// Runs `sort` with the GIL released and a progress callback that takes it back for a moment at
/// each report: Python's signal handlers and the caller's `progress` run there, and the
/// exception either raises stops the sort and is raised as it is (not as `Cancelled`).
fn with_progress<T: Send>(
    py: Python<'_>,
    progress: Option<Py<PyAny>>,
    sort: impl FnOnce(&mut dyn FnMut(&FileProgress) -> ControlFlow<()>) -> Result<T, SortError> + Send,
) -> PyResult<T> {
    let mut raised: Option<PyErr> = None;
    let result = py.detach(|| {
        let mut report = |p: &FileProgress| {
            Python::attach(|py| {
                let outcome = py.check_signals().and_then(|()| match &progress {
                    Some(callback) => callback.call1(py, progress_args(p)).map(drop),
                    None => Ok(()),
                });
                match outcome {
                    Ok(()) => ControlFlow::Continue(()),
                    Err(e) => {
                        raised = Some(e);
                        ControlFlow::Break(())
                    }
                }
            })
        };
        sort(&mut report)
    });
    match (result, raised) {
        (Ok(r), _) => Ok(r),
        (Err(SortError::Cancelled), Some(e)) => Err(e),
        (Err(e), _) => Err(sort_error(py, e)),
    }
}

/// `Sorter.check_file`: `(records, first_unsorted or None, checksum)` of the file at `path`.
pub fn check_file(
    py: Python<'_>,
    sorter: &Sorter,
    path: PathBuf,
    layout: RecordLayout,
    descending: bool,
) -> PyResult<(u64, Option<u64>, u64)> {
    let s = sorter.clone().with_order(order(descending));
    let c = py.detach(|| s.check_file(&path, &layout)).map_err(|e| sort_error(py, e))?;
    Ok((c.records, c.first_unsorted, c.checksum))
}
