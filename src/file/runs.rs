//! The run phase: the input read in runs that fit the memory budget, each run's keys sorted on
//! the sorter's backend (an ordered word as one unsigned key, or a long byte key as a byte
//! column of a lexsort), the
//! records written out in that order. Three threads overlap the work: one reads run i+1 while
//! the calling thread sorts run i (a GPU sort must run there) and another gathers and writes
//! run i-1.

use std::path::PathBuf;
use std::sync::mpsc::{sync_channel, Receiver, SyncSender};
use std::time::{Duration, Instant};

use rayon::prelude::*;

use super::layout::{KeyWords, RunKey};
use super::streams::{Output, Sink, Source};
use super::Progress;
use crate::{Column, Order, SortError, Sorter};

/// Records per parallel task of the key extraction.
const PIECE: usize = 1 << 14;
/// Bytes of records gathered before each write.
const GATHER_BYTES: usize = 8 << 20;

/// Host memory a run of n records needs beyond its records: its keys, the sort's copy of them
/// (or of a lexsort word) with positions, and the positions it returns.
pub(crate) fn run_overhead(keys: &KeyWords) -> usize {
    let key = match keys.run_key() {
        RunKey::U32 => 4,
        RunKey::U64 => 8,
        // The key bytes, and a CPU lexsort pass: (word, position) items twice, a word and a
        // permutation.
        RunKey::Words => return keys.field_len() + 2 * 16 + 8 + 4 + 12,
    };
    3 * key + 12
}

/// Where the sorted runs go: each its own file, or (a single run) the output.
pub(crate) trait RunTarget: Send {
    /// Where the next run is written.
    fn next(&mut self) -> Result<&mut dyn Output, SortError>;
    /// The run written since `next` is complete.
    fn done(&mut self) -> Result<(), SortError>;
}

/// Time each thread of the run phase was busy.
#[derive(Default)]
pub(crate) struct RunTimes {
    pub(crate) reading: Duration,
    pub(crate) sorting: Duration,
    pub(crate) writing: Duration,
}

/// A run read from the input, and (once sorted) the order of its records.
struct Run {
    records: Vec<u8>,
    order: Vec<u32>,
}

/// Reads `input` in runs of `run_records` records, sorts each and hands it to `target`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn make_runs(
    sorter: &Sorter,
    input: &mut dyn Source,
    input_len: u64,
    record: usize,
    keys: &KeyWords,
    run_records: usize,
    target: &mut dyn RunTarget,
    progress: &mut Progress<'_>,
) -> Result<RunTimes, SortError> {
    let run_bytes = run_records * record;
    let buffers = if input_len > run_bytes as u64 { 2 } else { 1 };
    let (free_tx, free_rx) = sync_channel::<Run>(buffers);
    let (read_tx, read_rx) = sync_channel::<Result<Run, SortError>>(1);
    let (sorted_tx, sorted_rx) = sync_channel::<Run>(1);
    let mut times = RunTimes::default();
    for _ in 0..buffers {
        let bytes = run_bytes.min(input_len as usize);
        let mut records = Vec::new();
        records.try_reserve_exact(bytes).map_err(|_| SortError::OutOfMemory { op: "file sort run buffer", bytes })?;
        free_tx.send(Run { records, order: Vec::new() }).expect("the channel holds every buffer");
    }
    std::thread::scope(|s| {
        let reader = s.spawn(move || read_runs(input, run_bytes, free_rx, read_tx));
        let writer = s.spawn(move || write_runs(sorted_rx, free_tx, record, target));
        let sorted = sort_runs(sorter, read_rx, sorted_tx, record, keys, progress, input_len);
        let reading = reader.join().expect("the reader thread does not panic");
        let writing = writer.join().expect("the writer thread does not panic");
        // The first failure is the one to report: the others are the threads seeing it.
        times.sorting = sorted?;
        times.writing = writing?;
        times.reading = reading;
        Ok(times)
    })
}

/// The reader thread: fills free buffers with whole runs until the input ends.
fn read_runs(
    input: &mut dyn Source,
    run_bytes: usize,
    free: Receiver<Run>,
    out: SyncSender<Result<Run, SortError>>,
) -> Duration {
    let mut busy = Duration::ZERO;
    while let Ok(mut run) = free.recv() {
        let started = Instant::now();
        run.records.clear();
        run.records.resize(run.records.capacity().min(run_bytes), 0);
        let read = input.read(&mut run.records);
        busy += started.elapsed();
        match read {
            Ok(0) => break,
            Ok(n) => {
                run.records.truncate(n);
                if out.send(Ok(run)).is_err() {
                    break;
                }
            }
            Err(e) => {
                let _ = out.send(Err(e));
                break;
            }
        }
    }
    busy
}

/// The calling thread: each run's keys extracted and sorted.
fn sort_runs(
    sorter: &Sorter,
    runs: Receiver<Result<Run, SortError>>,
    sorted: SyncSender<Run>,
    record: usize,
    keys: &KeyWords,
    progress: &mut Progress<'_>,
    total: u64,
) -> Result<Duration, SortError> {
    // The words already hold the order: the runs sort them ascending.
    let sorter = sorter.clone().with_order(Order::Ascending).with_float_order(crate::FloatOrder::Total);
    let mut busy = Duration::ZERO;
    let mut done = 0u64;
    for run in runs {
        let mut run = run?;
        let started = Instant::now();
        let n = run.records.len() / record;
        run.order.clear();
        run.order.try_reserve_exact(n).map_err(|_| SortError::OutOfMemory { op: "run order", bytes: 4 * n })?;
        run.order.resize(n, 0);
        sort_run(&sorter, &run.records, record, keys, &mut run.order)?;
        busy += started.elapsed();
        done += run.records.len() as u64;
        progress.report(super::Phase::Runs, done, total)?;
        if sorted.send(run).is_err() {
            break;
        }
    }
    Ok(busy)
}

/// `order` = the stable order of the records by their keys: one word argsorted on the sorter's
/// backend, or a byte key longer than a word lexsorted there as a byte column.
fn sort_run(
    sorter: &Sorter,
    records: &[u8],
    record: usize,
    keys: &KeyWords,
    order: &mut [u32],
) -> Result<(), SortError> {
    match keys.run_key() {
        RunKey::U32 => sorter.argsort_into(&words::<u32>(records, record, keys, 0)?, order),
        RunKey::U64 => sorter.argsort_into(&words::<u64>(records, record, keys, 0)?, order),
        RunKey::Words => {
            let width = keys.field_len();
            let bytes = key_bytes(records, record, keys)?;
            sorter.lexsort_into(&[Column::byte_rows(&bytes, width).with_order(keys.order())], order)
        }
    }
}

/// Every record's key field, laid end to end.
fn key_bytes(records: &[u8], record: usize, keys: &KeyWords) -> Result<Vec<u8>, SortError> {
    let (n, width) = (records.len() / record, keys.field_len());
    let mut out: Vec<u8> = Vec::new();
    out.try_reserve_exact(n * width).map_err(|_| SortError::OutOfMemory { op: "run keys", bytes: n * width })?;
    out.resize(n * width, 0);
    gpusort_cpu::install(|| {
        out.par_chunks_mut(PIECE * width).zip(records.par_chunks(PIECE * record)).for_each(|(o, r)| {
            o.chunks_exact_mut(width)
                .zip(r.chunks_exact(record))
                .for_each(|(o, rec)| o.copy_from_slice(keys.field(rec)))
        })
    });
    Ok(out)
}

/// Word `i` of every record's key, narrowed to `W` (which holds it: see `KeyWords::run_key`).
fn words<W: TryFrom<u64> + Copy + Default + Send>(
    records: &[u8],
    record: usize,
    keys: &KeyWords,
    i: usize,
) -> Result<Vec<W>, SortError> {
    let n = records.len() / record;
    let mut out: Vec<W> = Vec::new();
    out.try_reserve_exact(n).map_err(|_| SortError::OutOfMemory { op: "run keys", bytes: n * size_of::<W>() })?;
    out.resize(n, W::default());
    gpusort_cpu::install(|| {
        out.par_chunks_mut(PIECE).zip(records.par_chunks(PIECE * record)).for_each(|(o, r)| {
            for (o, rec) in o.iter_mut().zip(r.chunks_exact(record)) {
                *o = W::try_from(keys.word(rec, i)).unwrap_or_default();
            }
        })
    });
    Ok(out)
}

/// The writer thread: each sorted run's records gathered in order and written to its target;
/// the buffer then goes back to the reader.
fn write_runs(
    sorted: Receiver<Run>,
    free: SyncSender<Run>,
    record: usize,
    target: &mut dyn RunTarget,
) -> Result<Duration, SortError> {
    let mut busy = Duration::ZERO;
    let mut staging = Vec::new();
    for run in sorted {
        let started = Instant::now();
        let sink = target.next()?;
        for chunk in run.order.chunks((GATHER_BYTES / record).max(1)) {
            staging.resize(chunk.len() * record, 0);
            gather(&run.records, record, chunk, &mut staging);
            sink.write(&staging)?;
        }
        target.done()?;
        busy += started.elapsed();
        if free.send(run).is_err() {
            break;
        }
    }
    Ok(busy)
}

/// `out` = the records `order` names, in that order, on the CPU pool.
fn gather(records: &[u8], record: usize, order: &[u32], out: &mut [u8]) {
    use std::mem::MaybeUninit;
    // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; the gather writes into `out` only copies
    // of `records`' bytes, which are initialised.
    let (src, dst) = unsafe {
        (&*(records as *const [u8] as *const [MaybeUninit<u8>]), &mut *(out as *mut [u8] as *mut [MaybeUninit<u8>]))
    };
    crate::sorter::gather_rows(src, record, order, dst);
}

/// Runs written to files in the scratch folder.
pub(crate) struct RunFiles<'a> {
    pub(crate) scratch: &'a mut super::io::Scratch,
    pub(crate) paths: Vec<PathBuf>,
    pub(crate) current: Option<Sink>,
}

impl RunTarget for RunFiles<'_> {
    fn next(&mut self) -> Result<&mut dyn Output, SortError> {
        let (path, file) = self.scratch.new_run()?;
        let sink = self.current.insert(Sink::new(file, &path));
        self.paths.push(path);
        Ok(sink)
    }

    fn done(&mut self) -> Result<(), SortError> {
        let (Some(sink), Some(path)) = (self.current.take(), self.paths.last()) else { return Ok(()) };
        // A write error the file system reports only at write-back (a full disk) shows here.
        sink.into_file().sync_data().map_err(SortError::io(format!("writing {}", path.display())))
    }
}

/// The single run's target: the output itself.
pub(crate) struct Direct<O: Output>(pub(crate) O);

impl<O: Output> RunTarget for Direct<O> {
    fn next(&mut self) -> Result<&mut dyn Output, SortError> {
        Ok(&mut self.0)
    }

    fn done(&mut self) -> Result<(), SortError> {
        Ok(())
    }
}
