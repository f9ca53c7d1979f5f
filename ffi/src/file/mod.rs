//! The file sorts: `gpusort_sort_file` (and `gpusort_sort_file_with_progress`) sort a file of
//! fixed-size records by a key field into another file (or itself), through
//! `Sorter::sort_file`: runs that fit a host-memory budget, sorted on the sorter's backend and
//! merged. `gpusort_check_file` checks one is sorted and sums its records. A
//! `gpusort_file_layout` says what a record holds; this file checks it and the paths, and
//! copies the report out.

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::time::Duration;

use gpusort_core::{
    BackendKind, FileCheck, FileKey, FileProgress, FileSortReport, FloatOrder, Phase, RecordLayout, SortError, Sorter,
};

use crate::args::{
    gpusort_backend, gpusort_key_type, gpusort_order, key_type, GPUSORT_ALGORITHM_AUTO, GPUSORT_BACKEND_AUTO,
    GPUSORT_BACKEND_CPU, GPUSORT_BACKEND_CUDA,
};
use crate::failure::Failure;
use crate::sort::with_sorter;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

/// How a record's key is stored (`gpusort_file_layout.key_kind`): one of the
/// `GPUSORT_FILE_KEY_*` values.
pub type gpusort_file_key = u32;
/// A number of type `key_type`, least significant byte first (x86 and ARM memory order: what a C
/// program writes with `fwrite` of its structs). A zeroed layout's kind.
pub const GPUSORT_FILE_KEY_LE: gpusort_file_key = 0;
/// A number of type `key_type`, most significant byte first (network order, Java's
/// `DataOutputStream`).
pub const GPUSORT_FILE_KEY_BE: gpusort_file_key = 1;
/// `key_bytes` bytes compared as `memcmp` compares them (unsigned, the first byte most
/// significant): text keys, the Sort Benchmark's 10-byte keys.
pub const GPUSORT_FILE_KEY_BYTES: gpusort_file_key = 2;

/// The records of a file (`gpusort_sort_file`, `gpusort_check_file`): `record_size` bytes each,
/// one after the other with nothing between them, and the key field at byte `key_offset` of each.
/// Zero the fields you do not set: a zeroed layout's key is a little-endian number.
///
/// ```c
/// /* The Sort Benchmark's records: 100 bytes, a 10-byte key first. */
/// gpusort_file_layout gray = {.record_size = 100, .key_kind = GPUSORT_FILE_KEY_BYTES, .key_bytes = 10};
/// /* struct row { uint32_t id; double score; } written with fwrite, by score. */
/// gpusort_file_layout rows = {.record_size = sizeof(struct row), .key_offset = offsetof(struct row, score),
///                             .key_type = GPUSORT_KEY_F64};
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct gpusort_file_layout {
    /// Bytes per record, at least 1. A file that is not a whole number of records is refused.
    pub record_size: usize,
    /// Where the key starts in a record; the key must end within it.
    pub key_offset: usize,
    /// `GPUSORT_FILE_KEY_LE` (0), `_BE` or `_BYTES`.
    pub key_kind: gpusort_file_key,
    /// For `GPUSORT_FILE_KEY_LE` and `_BE`: the number's type, a `GPUSORT_KEY_*` value (floats in
    /// IEEE 754 totalOrder; the half-precision types as their 16 bits). Ignored for byte keys.
    pub key_type: gpusort_key_type,
    /// For `GPUSORT_FILE_KEY_BYTES`: the key's length in bytes, at least 1. For number keys 0
    /// (or the type's size).
    pub key_bytes: usize,
}

/// What `gpusort_sort_file` did, and the time each part took in nanoseconds. The run phase's
/// reading, sorting and writing overlap, as do the merge's reading, merging and writing: each is
/// the time its thread was busy; `run_phase_ns` and `merge_phase_ns` are wall times.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct gpusort_file_report {
    /// Records sorted.
    pub records: u64,
    /// Runs the input was cut into (1: sorted in memory and written straight to the output; 0 for
    /// an empty file).
    pub runs: u64,
    /// Merge passes over the data (0 for one run; more than 1 only when there were more runs than
    /// the budget merges at once).
    pub merge_passes: u64,
    /// The host-memory budget the sort kept to, in bytes.
    pub memory_budget: u64,
    /// Wall time of the run phase.
    pub run_phase_ns: u64,
    /// Wall time of the merge passes.
    pub merge_phase_ns: u64,
    /// Reading the input (run phase).
    pub reading_ns: u64,
    /// Sorting the runs' keys.
    pub sorting_ns: u64,
    /// Gathering and writing the runs.
    pub writing_ns: u64,
    /// Reading runs back during the merge.
    pub merge_reading_ns: u64,
    /// Merging, without waiting for reads or writes.
    pub merging_ns: u64,
    /// Writing merged data.
    pub merge_writing_ns: u64,
    /// The backend that sorted the runs: `GPUSORT_BACKEND_CPU` or `GPUSORT_BACKEND_CUDA`.
    pub backend: gpusort_backend,
}

/// What `gpusort_check_file` found.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct gpusort_file_check {
    /// Records in the file.
    pub records: u64,
    /// The first record whose key is out of order after the one before it; `records` when every
    /// key is in order.
    pub first_unsorted: u64,
    /// The sum of a 64-bit hash of each record, wrapping: the same for any order of the same
    /// records, so an input's and its sorted output's agree when the sort lost or changed none.
    pub checksum: u64,
    /// 1 when every key is in order, else 0.
    pub sorted: u32,
}

/// Where a file sort is (`gpusort_file_progress.phase`): one of the `GPUSORT_FILE_PHASE_*`
/// values.
pub type gpusort_file_phase = u32;
/// Reading, sorting and writing runs.
pub const GPUSORT_FILE_PHASE_RUNS: gpusort_file_phase = 0;
/// Merging runs (`merge_pass` says which pass).
pub const GPUSORT_FILE_PHASE_MERGE: gpusort_file_phase = 1;

/// How far a file sort has come, for a `gpusort_file_progress_fn`: `done` of `total` bytes of the
/// input through `phase`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct gpusort_file_progress {
    /// Bytes of the input through this phase (this merge pass) so far.
    pub done: u64,
    /// Bytes of the input.
    pub total: u64,
    /// Merge passes the sort will make (0 when it is one run written straight to the output).
    pub merge_passes: u64,
    /// `GPUSORT_FILE_PHASE_RUNS` or `GPUSORT_FILE_PHASE_MERGE`.
    pub phase: gpusort_file_phase,
    /// The merge pass, from 1; 0 in the run phase.
    pub merge_pass: u32,
}

/// A progress callback of `gpusort_sort_file_with_progress`: called on the calling thread as
/// each run is sorted and as the merge writes (each block, at most 64 MiB), with `user_data` as
/// given. Return 0 to go on, anything else to stop the sort (`GPUSORT_CANCELLED`). It must not
/// call back into a file sort, nor unwind (a C++ exception, `longjmp`) out of itself.
pub type gpusort_file_progress_fn =
    Option<unsafe extern "C" fn(progress: *const gpusort_file_progress, user_data: *mut c_void) -> c_int>;

/// The layout `layout` points to, checked; each message names the field.
///
/// # Safety
/// `layout` must be NULL or valid for a read of a `gpusort_file_layout`.
unsafe fn file_layout(layout: *const gpusort_file_layout) -> Result<RecordLayout, Failure> {
    if layout.is_null() {
        return Err(Failure::invalid("layout is NULL".into()));
    }
    // Unaligned: a C caller's struct is aligned, but nothing here depends on it.
    let l = layout.read_unaligned();
    let number = |kind: fn(gpusort_core::KeyType) -> FileKey| {
        let t = key_type(l.key_type).map_err(|f| Failure::invalid(format!("layout.key_type: {}", f.message)))?;
        if l.key_bytes != 0 && l.key_bytes != t.size() {
            return Err(Failure::invalid(format!(
                "layout.key_bytes is {} but a {} key has {} bytes (leave it 0 for number keys)",
                l.key_bytes,
                t.name(),
                t.size()
            )));
        }
        Ok(kind(t))
    };
    let key = match l.key_kind {
        GPUSORT_FILE_KEY_LE => number(FileKey::LittleEndian)?,
        GPUSORT_FILE_KEY_BE => number(FileKey::BigEndian)?,
        GPUSORT_FILE_KEY_BYTES if l.key_bytes == 0 => {
            return Err(Failure::invalid("layout.key_bytes is 0: a byte-string key needs at least one byte".into()))
        }
        GPUSORT_FILE_KEY_BYTES => FileKey::Bytes(l.key_bytes),
        other => {
            return Err(Failure::invalid(format!(
                "layout.key_kind {other} is not one of the GPUSORT_FILE_KEY_* values (0..=2)"
            )))
        }
    };
    if l.record_size == 0 {
        return Err(Failure::invalid("layout.record_size is 0".into()));
    }
    RecordLayout::new(l.record_size, l.key_offset, key).map_err(|e| {
        let f = Failure::from(e);
        Failure { message: format!("layout: {}", f.message), ..f }
    })
}

/// The path C passed as `what`: NUL-terminated bytes, taken as they are on Unix (any bytes but
/// NUL), UTF-8 elsewhere.
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string.
unsafe fn c_path(path: *const c_char, what: &str) -> Result<PathBuf, Failure> {
    if path.is_null() {
        return Err(Failure::invalid(format!("{what} is NULL")));
    }
    let bytes = CStr::from_ptr(path).to_bytes();
    if bytes.is_empty() {
        return Err(Failure::invalid(format!("{what} is an empty string")));
    }
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        Ok(Path::new(std::ffi::OsStr::from_bytes(bytes)).to_path_buf())
    }
    #[cfg(not(unix))]
    {
        std::str::from_utf8(bytes).map(PathBuf::from).map_err(|_| Failure::invalid(format!("{what} is not UTF-8")))
    }
}

fn nanos(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

fn report(r: &FileSortReport) -> gpusort_file_report {
    gpusort_file_report {
        records: r.records,
        runs: r.runs as u64,
        merge_passes: r.merge_passes as u64,
        memory_budget: r.memory_budget as u64,
        run_phase_ns: nanos(r.run_phase),
        merge_phase_ns: nanos(r.merge_phase),
        reading_ns: nanos(r.reading),
        sorting_ns: nanos(r.sorting),
        writing_ns: nanos(r.writing),
        merge_reading_ns: nanos(r.merge_reading),
        merging_ns: nanos(r.merging),
        merge_writing_ns: nanos(r.merge_writing),
        backend: match r.backend {
            Some(BackendKind::Cpu) => GPUSORT_BACKEND_CPU,
            Some(BackendKind::Cuda) => GPUSORT_BACKEND_CUDA,
            // No backend sorted anything; `BackendKind` may also grow.
            _ => GPUSORT_BACKEND_AUTO,
        },
    }
}

fn progress_of(p: &FileProgress) -> gpusort_file_progress {
    let (phase, merge_pass) = match p.phase {
        Phase::Runs => (GPUSORT_FILE_PHASE_RUNS, 0),
        Phase::Merge { pass } => (GPUSORT_FILE_PHASE_MERGE, u32::try_from(pass).unwrap_or(u32::MAX)),
        // `Phase` is non_exhaustive: a later phase reads as a merge until it has a value.
        _ => (GPUSORT_FILE_PHASE_MERGE, 0),
    };
    gpusort_file_progress { done: p.done, total: p.total, merge_passes: p.merge_passes as u64, phase, merge_pass }
}

/// The sort behind both entry points, after the sorter and the order are resolved.
///
/// # Safety
/// As `gpusort_sort_file_with_progress`.
#[allow(clippy::too_many_arguments)]
unsafe fn sort_file(
    s: &Sorter,
    input: *const c_char,
    output: *const c_char,
    layout: *const gpusort_file_layout,
    host_memory_limit: u64,
    temp_dir: *const c_char,
    report_out: *mut gpusort_file_report,
    progress: gpusort_file_progress_fn,
    user_data: *mut c_void,
) -> Result<(), Failure> {
    let (input, output) = (c_path(input, "input")?, c_path(output, "output")?);
    let layout = file_layout(layout)?;
    let mut sorter = s.clone();
    if host_memory_limit > 0 {
        // More than the address space holds is no limit at all.
        sorter = sorter.with_host_memory_limit(usize::try_from(host_memory_limit).unwrap_or(usize::MAX));
    }
    if !temp_dir.is_null() {
        sorter = sorter.with_temp_dir(c_path(temp_dir, "temp_dir")?);
    }
    let r = match progress {
        None => sorter.sort_file(&input, &output, &layout)?,
        Some(callback) => {
            let mut call = |p: &FileProgress| {
                let p = progress_of(p);
                // SAFETY: as the caller of `gpusort_sort_file_with_progress` promised.
                match unsafe { callback(&p, user_data) } {
                    0 => ControlFlow::Continue(()),
                    _ => ControlFlow::Break(()),
                }
            };
            sorter.sort_file_with_progress(&input, &output, &layout, &mut call)?
        }
    };
    if !report_out.is_null() {
        report_out.write_unaligned(report(&r));
    }
    Ok(())
}

/// Sorts the file `input` of fixed-size records (`layout`) by their key field into the file
/// `output`, stably, in `order`: records with equal keys keep their input order, descending too.
/// Numbers sort as their type (floats in IEEE 754 totalOrder), byte keys as `memcmp` compares
/// them. `output` may name `input` itself (an in-place sort). Paths are NUL-terminated: on Unix
/// any bytes, as `open` takes them.
///
/// The input may be far larger than memory. It is read in runs that fit `host_memory_limit`
/// bytes of host memory (0: half the memory available to the process, its cgroup's limit
/// counted), each sorted on the sorter's backend (the GPU when usable) while the next is read,
/// and written to a scratch folder made inside `temp_dir` (NULL: the output's folder; runs take
/// as much disk as the input); then the runs are merged into the output, in one pass unless
/// there are more runs than the budget merges at once. An input that fits the budget is sorted in
/// memory and written once. A limit below what a few records need (about 512 KiB, more for
/// records over 8 KiB) is `GPUSORT_INVALID_ARGUMENT`.
///
/// The input is only read. The output is written as `.NAME.gpusort-partial-PID` beside its
/// final name and renamed when complete, so a failed sort leaves no partial file under `output`
/// and an existing file there unchanged. Scratch files are removed on success and on failure;
/// those of a killed process are removed by the next sort using the same folders. `report_out`,
/// when not NULL, receives what the sort did, on success only.
///
/// `GPUSORT_INVALID_ARGUMENT`, with nothing written, for: a NULL or empty path, a NULL or bad
/// `layout` (an unknown kind or key type, a `record_size` of 0, a key that does not fit in a
/// record, `key_bytes` 0 for a byte key), an unknown order, a file that is not a whole number of
/// records, a float key on a sorter whose float order is not `GPUSORT_FLOAT_ORDER_TOTAL`.
/// `GPUSORT_IO_ERROR` when reading or writing a file fails (a missing input, a full disk, ...):
/// the message names the file and what the system said.
///
/// ```c
/// gpusort_file_layout gray = {.record_size = 100, .key_kind = GPUSORT_FILE_KEY_BYTES, .key_bytes = 10};
/// gpusort_file_report r;
/// gpusort_status st = gpusort_sort_file(NULL, "data.in", "data.out", &gray, GPUSORT_ASCENDING,
///                                       3ull << 30, NULL, &r);   /* 3 GiB of host memory */
/// ```
///
/// # Safety
/// `input`, `output` and `temp_dir` must be NULL or NUL-terminated strings; `layout` NULL or
/// valid for a read; `report_out` NULL or valid for a write.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpusort_sort_file(
    sorter: *const gpusort_sorter,
    input: *const c_char,
    output: *const c_char,
    layout: *const gpusort_file_layout,
    order: gpusort_order,
    host_memory_limit: u64,
    temp_dir: *const c_char,
    report_out: *mut gpusort_file_report,
) -> gpusort_status {
    with_sorter(sorter, order, GPUSORT_ALGORITHM_AUTO, |s| {
        sort_file(s, input, output, layout, host_memory_limit, temp_dir, report_out, None, std::ptr::null_mut())
    })
}

/// `gpusort_sort_file`, calling `progress` (NULL: never) with `user_data` as the sort goes: as
/// each run is sorted and as the merge writes. When it returns nonzero the sort stops with
/// `GPUSORT_CANCELLED`, leaving the files as any failure does (no output, an existing one
/// unchanged, no scratch files).
///
/// # Safety
/// As `gpusort_sort_file`; `progress` must be NULL or a function as `gpusort_file_progress_fn`
/// says, for which `user_data` is what it expects.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpusort_sort_file_with_progress(
    sorter: *const gpusort_sorter,
    input: *const c_char,
    output: *const c_char,
    layout: *const gpusort_file_layout,
    order: gpusort_order,
    host_memory_limit: u64,
    temp_dir: *const c_char,
    report_out: *mut gpusort_file_report,
    progress: gpusort_file_progress_fn,
    user_data: *mut c_void,
) -> gpusort_status {
    with_sorter(sorter, order, GPUSORT_ALGORITHM_AUTO, |s| {
        sort_file(s, input, output, layout, host_memory_limit, temp_dir, report_out, progress, user_data)
    })
}

/// Reads the file `path` of records (`layout`) and checks that their keys are in `order`, as
/// `gpusort_sort_file` with the same layout, order and sorter orders them, and sums a hash of
/// every record (`gpusort_file_check.checksum`: compare an input's with its output's). The
/// result goes to `*out`, on success only.
///
/// `GPUSORT_INVALID_ARGUMENT` as `gpusort_sort_file` says (a NULL `out` too);
/// `GPUSORT_IO_ERROR`, naming the file, when it cannot be read.
///
/// # Safety
/// `path` must be NULL or a NUL-terminated string; `layout` NULL or valid for a read; `out` NULL
/// or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn gpusort_check_file(
    sorter: *const gpusort_sorter,
    path: *const c_char,
    layout: *const gpusort_file_layout,
    order: gpusort_order,
    out: *mut gpusort_file_check,
) -> gpusort_status {
    with_sorter(sorter, order, GPUSORT_ALGORITHM_AUTO, |s| {
        let path = c_path(path, "path")?;
        let layout = file_layout(layout)?;
        if out.is_null() {
            return Err(Failure::invalid("out (where the result goes) is NULL".into()));
        }
        // The file sort orders floats in total order only; a check in another order is refused
        // as that sort is, rather than made in total order.
        if let FileKey::LittleEndian(t) | FileKey::BigEndian(t) = layout.key() {
            if t.is_float() && s.float_order() != FloatOrder::Total {
                return Err(SortError::InvalidArgument(format!(
                    "check_file orders floats in total order only; this sorter asks for {:?}",
                    s.float_order()
                ))
                .into());
            }
        }
        let c: FileCheck = s.check_file(&path, &layout)?;
        out.write_unaligned(gpusort_file_check {
            records: c.records,
            first_unsorted: c.first_unsorted.unwrap_or(c.records),
            checksum: c.checksum,
            sorted: u32::from(c.is_sorted()),
        });
        Ok(())
    })
}

#[cfg(all(test, unix))]
mod tests;
