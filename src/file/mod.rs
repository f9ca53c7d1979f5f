//! Sorts of files larger than memory: runs that fit a host-memory budget are read, sorted on the
//! sorter's backend and written to a scratch folder, then merged in one pass (more only when
//! there are more runs than the budget merges at once) into the output, which gets its name when
//! complete.

mod budget;
mod check;
#[cfg(feature = "testing")]
#[doc(hidden)]
pub mod faults;
mod io;
mod layout;
mod merge;
mod runs;
mod streams;

use std::ops::ControlFlow;
use std::path::Path;
use std::time::{Duration, Instant};

pub use check::FileCheck;
pub use layout::{FileKey, RecordLayout};

use crate::{BackendKind, JobShape, SortError, Sorter};
use io::{PartialOutput, Scratch};
use layout::KeyWords;
use runs::{Direct, RunFiles};
use streams::{FileSource, Output, PositionalOutput, Sink, Source};

/// Where a file sort is, for [`Sorter::sort_file_with_progress`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Phase {
    /// Reading, sorting and writing runs.
    Runs,
    /// Merging runs: pass 1 is the last unless there were more runs than one merge takes.
    Merge {
        /// Which merge pass, from 1.
        pass: usize,
    },
}

/// How far a file sort has come: `done` of `total` bytes in `phase`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct FileProgress {
    /// The phase.
    pub phase: Phase,
    /// Bytes of the input through this phase so far.
    pub done: u64,
    /// Bytes of the input.
    pub total: u64,
    /// Merge passes the sort will make (0 when it is one run written straight to the output).
    pub merge_passes: usize,
}

/// What a file sort did, with the time each part took. The run phase's reading, sorting and
/// writing overlap, as do the merge's reading, merging and writing: each is the time its thread
/// was busy, the phases' wall times are `run_phase` and `merge_phase`.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct FileSortReport {
    /// Records sorted.
    pub records: u64,
    /// Runs the input was cut into (1: sorted in memory, written straight to the output).
    pub runs: usize,
    /// Merge passes over the data (0 for one run).
    pub merge_passes: usize,
    /// The backend that sorted the runs.
    pub backend: Option<BackendKind>,
    /// The host-memory budget the sort kept to.
    pub memory_budget: usize,
    /// Wall time of the run phase.
    pub run_phase: Duration,
    /// Wall time of the merge passes.
    pub merge_phase: Duration,
    /// Reading the input (run phase).
    pub reading: Duration,
    /// Sorting the runs' keys.
    pub sorting: Duration,
    /// Gathering and writing the runs.
    pub writing: Duration,
    /// Reading runs back during the merge, summed over the merge's threads.
    pub merge_reading: Duration,
    /// Merging, without the reads and writes, summed over the merge's threads.
    pub merging: Duration,
    /// Writing merged data, summed over the merge's threads.
    pub merge_writing: Duration,
}

/// What a file sort calls with its progress; `Break` stops it.
type ProgressFn<'a> = &'a mut dyn FnMut(&FileProgress) -> ControlFlow<()>;

/// The progress callback, turned into `Cancelled` when it says stop.
pub(crate) struct Progress<'a> {
    callback: Option<ProgressFn<'a>>,
    passes: usize,
    /// Whether a `Break` stops the sort (not while records are rewritten in place).
    can_stop: bool,
}

impl<'a> Progress<'a> {
    fn new(callback: Option<ProgressFn<'a>>) -> Progress<'a> {
        Progress { callback, passes: 0, can_stop: true }
    }

    fn report(&mut self, phase: Phase, done: u64, total: u64) -> Result<(), SortError> {
        let Some(callback) = self.callback.as_mut() else { return Ok(()) };
        match callback(&FileProgress { phase, done, total, merge_passes: self.passes }) {
            ControlFlow::Break(()) if self.can_stop => Err(SortError::Cancelled),
            _ => Ok(()),
        }
    }
}

impl Sorter {
    /// Sorts the file `input` of fixed-size records by their key field into the file `output`
    /// (which may be `input` itself), stably: records with equal keys keep their input order, in
    /// both orders. Numbers sort in the sorter's order (floats in `total_cmp` order), byte
    /// strings as `memcmp` compares them.
    ///
    /// The input may be far larger than memory. It is read in runs that fit the host-memory
    /// budget ([`Sorter::with_host_memory_limit`]; by default half the memory available to the
    /// process), each sorted on the sorter's backend (the GPU when usable) while the next is
    /// read and the last written, to a scratch folder ([`Sorter::with_temp_dir`]; by default the
    /// output's folder); then the runs are merged into the output in one pass, by several
    /// threads over ranges of keys, or in more passes when there are more runs than the budget
    /// merges at once. An input that fits the budget is
    /// sorted in memory and written once.
    ///
    /// The input is only read. The output is written as `.NAME.gpusort-partial-PID` beside its
    /// final name and renamed when complete, so a failed or interrupted sort leaves no partial
    /// file under `output` (nor replaces a file there). Scratch files are removed on success and
    /// on failure; those of a killed sort are removed by the next sort using the same folders.
    /// `InvalidArgument` for a file that is not a whole number of records and a sorter float
    /// order other than `Total`; `Io` for a file that cannot be read or written (a full disk
    /// included), naming it.
    ///
    /// ```
    /// use gpusort::{FileKey, RecordLayout, Sorter};
    /// let dir = std::env::temp_dir().join(format!("gpusort-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
    /// // 4-byte records: a big-endian u16 key, then two payload bytes.
    /// let records: Vec<u8> = [[0u8, 9, b'a', b'b'], [0, 3, b'c', b'd'], [1, 0, b'e', b'f']].concat();
    /// std::fs::write(dir.join("in"), &records)?;
    /// let layout = RecordLayout::new(4, 0, FileKey::BigEndian(gpusort::KeyType::U16))?;
    /// let report = Sorter::auto().sort_file(dir.join("in"), dir.join("out"), &layout)?;
    /// assert_eq!(report.records, 3);
    /// assert_eq!(std::fs::read(dir.join("out"))?, [[0u8, 3, b'c', b'd'], [0, 9, b'a', b'b'], [1, 0, b'e', b'f']].concat());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn sort_file(
        &self,
        input: impl AsRef<Path>,
        output: impl AsRef<Path>,
        layout: &RecordLayout,
    ) -> Result<FileSortReport, SortError> {
        self.file_sort(input.as_ref(), output.as_ref(), layout, Progress::new(None))
    }

    /// [`Sorter::sort_file`], calling `progress` as runs are sorted and as the merge writes
    /// (each block, at most 64 MiB); returning `ControlFlow::Break(())` stops the sort with
    /// [`SortError::Cancelled`], leaving things as any failure does.
    pub fn sort_file_with_progress(
        &self,
        input: impl AsRef<Path>,
        output: impl AsRef<Path>,
        layout: &RecordLayout,
        progress: &mut dyn FnMut(&FileProgress) -> ControlFlow<()>,
    ) -> Result<FileSortReport, SortError> {
        self.file_sort(input.as_ref(), output.as_ref(), layout, Progress::new(Some(progress)))
    }

    /// Sorts records that lie in memory, in place, through the same runs and merge as
    /// [`Sorter::sort_file`]: for a memory-mapped file larger than RAM (a `memmap2::MmapMut`, a
    /// NumPy `memmap`), where an in-memory sort would page the file in and out at random. The
    /// runs are copied out of `records`, sorted and written to the scratch folder
    /// ([`Sorter::with_temp_dir`]; by default the system's temporary folder); the last merge
    /// writes the sorted records back into `records` from the start, so the mapped file receives
    /// them in one sequential pass.
    ///
    /// `records` is not written until the runs are all on disk; a failure before then (a full
    /// disk, a cancel, a bad layout) leaves it untouched. Once the last merge has begun it
    /// finishes (a progress callback's `Break` is ignored from there on); only an error reading
    /// the runs back from the scratch disk could then stop it, and its `Io` error says so.
    ///
    /// ```
    /// use gpusort::{FileKey, KeyType, RecordLayout, Sorter};
    /// let mut keys: Vec<u8> = [30u32, 10, 20].iter().flat_map(|k| k.to_be_bytes()).collect();
    /// let layout = RecordLayout::new(4, 0, FileKey::BigEndian(KeyType::U32))?;
    /// Sorter::auto().sort_mapped(&mut keys, &layout)?;
    /// assert_eq!(keys, [10u32, 20, 30].iter().flat_map(|k| k.to_be_bytes()).collect::<Vec<u8>>());
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_mapped(&self, records: &mut [u8], layout: &RecordLayout) -> Result<FileSortReport, SortError> {
        self.mapped_sort(records, layout, Progress::new(None))
    }

    /// [`Sorter::sort_mapped`] with a progress callback, as [`Sorter::sort_file_with_progress`].
    pub fn sort_mapped_with_progress(
        &self,
        records: &mut [u8],
        layout: &RecordLayout,
        progress: &mut dyn FnMut(&FileProgress) -> ControlFlow<()>,
    ) -> Result<FileSortReport, SortError> {
        self.mapped_sort(records, layout, Progress::new(Some(progress)))
    }

    fn mapped_sort(
        &self,
        records: &mut [u8],
        layout: &RecordLayout,
        mut progress: Progress<'_>,
    ) -> Result<FileSortReport, SortError> {
        self.file_checks(layout)?;
        let len = records.len() as u64;
        whole_records(len, layout, &"the mapped records")?;
        let mapped = streams::Mapped::new(records);
        let default_scratch = std::env::temp_dir();
        let scratch = self.temp_dir().unwrap_or(&default_scratch);
        let mut source = streams::SliceSource { mapped, at: 0 };
        let out = streams::SliceOutput { mapped, at: 0 };
        let (report, _) = self.external(&mut source, len, layout, out, scratch, &mut progress)?;
        Ok(report)
    }

    fn file_sort(
        &self,
        input: &Path,
        output: &Path,
        layout: &RecordLayout,
        mut progress: Progress<'_>,
    ) -> Result<FileSortReport, SortError> {
        self.file_checks(layout)?;
        let (mut file, len) = io::open_input(input)?;
        whole_records(len, layout, &input.display())?;
        io::read_sequentially(&file);
        let (partial, out_file) = PartialOutput::create(output)?;
        let mut source = FileSource { file: &mut file, path: input, offset: 0 };
        let scratch = self.temp_dir().unwrap_or_else(|| io::parent_of(output));
        let (report, sink) =
            self.external(&mut source, len, layout, Sink::new(out_file, output), scratch, &mut progress)?;
        drop(file);
        partial.commit(sink.into_file())?;
        Ok(report)
    }

    /// The refusals common to every file sort.
    pub(crate) fn file_checks(&self, layout: &RecordLayout) -> Result<(), SortError> {
        self.check_config()?;
        match layout.key() {
            FileKey::LittleEndian(t) | FileKey::BigEndian(t) => self.total_floats_only(t, "sort_file"),
            _ => Ok(()),
        }
    }

    /// The sort itself: runs from `source`, merged into `out`.
    fn external<O: Output + PositionalOutput>(
        &self,
        source: &mut dyn Source,
        len: u64,
        layout: &RecordLayout,
        out: O,
        scratch: &Path,
        progress: &mut Progress<'_>,
    ) -> Result<(FileSortReport, O), SortError> {
        let record = layout.record_size();
        let keys = KeyWords::new(layout, self.order());
        let budget = budget::resolve(self.host_memory_limit(), record)?;
        let per_record = record + runs::run_overhead(&keys);
        let records = len / record as u64;
        let mut report = FileSortReport { records, memory_budget: budget, ..FileSortReport::default() };
        let started = Instant::now();

        // One run: sorted in memory and written straight to the output.
        if records <= (budget / per_record) as u64 {
            report.backend = Some(self.backend_for_shape(run_shape(&keys), records as usize));
            let mut target = Direct(out);
            let times =
                runs::make_runs(self, source, len, record, &keys, records.max(1) as usize, &mut target, progress)?;
            report.runs = usize::from(records > 0);
            (report.reading, report.sorting, report.writing) = (times.reading, times.sorting, times.writing);
            report.run_phase = started.elapsed();
            return Ok((report, target.0));
        }

        // Two buffers of runs in memory at once, each record with its sort's overhead.
        let run_records = (budget / (record + per_record)).max(1);
        let fan_in = merge::fan_in(budget, record);
        progress.passes = merge_passes(records.div_ceil(run_records as u64) as usize, fan_in);
        report.backend = Some(self.backend_for_shape(run_shape(&keys), run_records));
        let mut scratch = Scratch::create(scratch)?;
        let mut target = RunFiles { scratch: &mut scratch, paths: Vec::new(), current: None };
        let times = runs::make_runs(self, source, len, record, &keys, run_records, &mut target, progress)?;
        let mut runs = target.paths;
        (report.reading, report.sorting, report.writing) = (times.reading, times.sorting, times.writing);
        report.runs = runs.len();
        report.run_phase = started.elapsed();

        let merge_started = Instant::now();
        let mut pass = 1;
        while runs.len() > fan_in {
            let mut next = Vec::new();
            for group in runs.chunks(fan_in) {
                let (path, file) = scratch.new_run()?;
                let times = merge::merge(group, &Sink::new(file, &path), record, &keys, budget, pass, progress, len)?;
                add_merge_times(&mut report, times);
                group.iter().for_each(|p| drop(std::fs::remove_file(p)));
                next.push(path);
            }
            runs = next;
            pass += 1;
        }
        // Memory is written in place: once the last merge starts, it finishes.
        progress.can_stop = !out.in_place();
        let times = merge::merge(&runs, &out, record, &keys, budget, pass, progress, len)?;
        let written = times.bytes;
        add_merge_times(&mut report, times);
        report.merge_passes = pass;
        if written != len {
            return Err(SortError::io("merging the runs")(std::io::Error::other(format!(
                "the merge wrote {written} bytes of {len}"
            ))));
        }
        report.merge_phase = merge_started.elapsed();
        Ok((report, out))
    }
}

/// `InvalidArgument` unless `len` bytes are whole records.
fn whole_records(len: u64, layout: &RecordLayout, what: &dyn std::fmt::Display) -> Result<(), SortError> {
    let record = layout.record_size();
    match len.is_multiple_of(record as u64) {
        true => Ok(()),
        false => Err(SortError::InvalidArgument(format!(
            "{what} holds {len} bytes, not a whole number of {record}-byte records"
        ))),
    }
}

fn add_merge_times(report: &mut FileSortReport, t: merge::MergeTimes) {
    report.merge_reading += t.reading;
    report.merging += t.merging;
    report.merge_writing += t.writing;
}

/// The shape of a run's sort, for the backend it goes to: keys with their positions.
fn run_shape(keys: &KeyWords) -> JobShape {
    match keys.run_key() {
        layout::RunKey::U32 => JobShape::Pairs32,
        _ => JobShape::Pairs64,
    }
}

/// Passes needed to merge `runs` runs `fan_in` at a time.
fn merge_passes(mut runs: usize, fan_in: usize) -> usize {
    let mut passes = 1;
    while runs > fan_in {
        runs = runs.div_ceil(fan_in);
        passes += 1;
    }
    passes
}

#[cfg(test)]
mod tests {
    #[test]
    fn merge_passes_count_the_rounds_of_fan_in() {
        assert_eq!(super::merge_passes(1, 2), 1);
        assert_eq!(super::merge_passes(8, 8), 1);
        assert_eq!(super::merge_passes(9, 8), 2);
        assert_eq!(super::merge_passes(65, 8), 3);
    }
}
