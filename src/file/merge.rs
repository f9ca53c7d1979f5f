//! The merge phase: sorted runs merged into the output by several threads at once, each over its
//! own range of keys. Splitter keys are picked from samples of the runs; each run's records below
//! each splitter are found by binary search in the run file, so every thread knows which bytes of
//! every run it merges and where in the output they go. A thread reads its pieces of the runs in
//! large blocks, merges them over a tree of the runs' current records and writes its part of the
//! output at its own offset. Equal keys fall in one range (a range starts at the first record of
//! its splitter key) and come out in run order, which is input order: the merge is stable. The
//! runs' disk space is freed as they are read, so the sort needs about the input's size of free
//! disk beside the output, not twice that.

use std::fs::File;
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use super::io::{free_read, read_exact_at};
use super::layout::KeyWords;
use super::streams::PositionalOutput;
use super::{Phase, Progress};
use crate::SortError;

/// The largest block read from a run or written to the output at once.
const MAX_BLOCK: usize = 64 << 20;
/// The smallest block worth a read: fewer runs are merged at once rather than blocks shrink
/// below it.
pub(crate) const MIN_BLOCK: usize = 64 << 10;
/// Output bytes per merging thread at least: below, fewer threads.
const BYTES_PER_THREAD: u64 = 32 << 20;
/// Samples per run and thread from which the splitters are chosen.
const SAMPLES: usize = 32;

/// How many runs one merge takes with `budget` bytes: half of it for buffers, a block per run
/// and one for the output, each at least `MIN_BLOCK` (and one record), for one thread at least.
pub(crate) fn fan_in(budget: usize, record: usize) -> usize {
    (budget / (2 * MIN_BLOCK.max(record))).saturating_sub(1).max(2)
}

/// Thread-seconds the merge's threads spent, summed over them, and the bytes they wrote.
#[derive(Default)]
pub(crate) struct MergeTimes {
    pub(crate) reading: Duration,
    pub(crate) merging: Duration,
    pub(crate) writing: Duration,
    pub(crate) bytes: u64,
}

impl std::ops::AddAssign for MergeTimes {
    fn add_assign(&mut self, o: MergeTimes) {
        self.reading += o.reading;
        self.merging += o.merging;
        self.writing += o.writing;
        self.bytes += o.bytes;
    }
}

/// One run file: its records and its path.
struct Run {
    file: File,
    path: PathBuf,
    records: u64,
}

impl Run {
    /// Reads record `i` into `buf`.
    fn record(&self, i: u64, buf: &mut [u8]) -> Result<(), SortError> {
        read_exact_at(&self.file, buf, i * buf.len() as u64)
            .map_err(SortError::io(format!("reading the run {}", self.path.display())))
    }
}

/// What the threads share: the runs, the layout, and the stop flag and progress counter.
struct Shared<'a, O> {
    runs: &'a [Run],
    out: &'a O,
    record: usize,
    keys: &'a KeyWords,
    block: usize,
    stop: AtomicBool,
    written: AtomicU64,
}

/// Merges `runs` (files of sorted records) into `out` from its start.
#[allow(clippy::too_many_arguments)]
pub(crate) fn merge<O: PositionalOutput>(
    runs: &[PathBuf],
    out: &O,
    record: usize,
    keys: &KeyWords,
    budget: usize,
    pass: usize,
    progress: &mut Progress<'_>,
    total: u64,
) -> Result<MergeTimes, SortError> {
    let mut files = Vec::with_capacity(runs.len());
    for path in runs {
        // Writable, so that the bytes read can be punched out of it (`free_read`).
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)
            .map_err(SortError::io(format!("opening the run {}", path.display())))?;
        let len = file.metadata().map_err(SortError::io(format!("reading the size of {}", path.display())))?.len();
        files.push(Run { file, path: path.clone(), records: len / record as u64 });
    }
    let bytes: u64 = files.iter().map(|r| r.records * record as u64).sum();
    // A thread per core, at least four: one waiting for its read or write leaves its core to
    // another, and more threads would only cut the disk's streams into more pieces.
    let threads = gpusort_cpu::threads()
        .max(4)
        .min(bytes.div_ceil(BYTES_PER_THREAD) as usize)
        .min(budget / (2 * (runs.len() + 1) * MIN_BLOCK.max(record)))
        .max(1);
    // Half the budget for blocks: the other half is room for the page cache's share of the
    // reads and writes in flight, which a memory cgroup counts too.
    let block = ((budget / (2 * threads * (runs.len() + 1))).min(MAX_BLOCK) / record).max(1) * record;
    let bounds = partition(&files, record, keys, threads)?;
    let shared =
        Shared { runs: &files, out, record, keys, block, stop: AtomicBool::new(false), written: AtomicU64::new(0) };
    std::thread::scope(|s| {
        let mut at = 0u64;
        let mut workers = Vec::with_capacity(threads);
        for t in 0..threads {
            let pieces: Vec<(u64, u64)> = bounds.iter().map(|b| (b[t], b[t + 1])).collect();
            let len: u64 = pieces.iter().map(|&(a, b)| (b - a) * record as u64).sum();
            let shared = &shared;
            let start = at;
            workers.push(s.spawn(move || merge_range(shared, &pieces, start)));
            at += len;
        }
        // The calling thread reports progress (the callback is not `Send`) until the workers end.
        let mut cancelled = false;
        while !workers.iter().all(|w| w.is_finished()) {
            std::thread::sleep(Duration::from_millis(20));
            if !cancelled
                && progress.report(Phase::Merge { pass }, shared.written.load(Ordering::Relaxed), total).is_err()
            {
                cancelled = true;
                shared.stop.store(true, Ordering::Relaxed);
            }
        }
        let mut times = MergeTimes::default();
        let mut first_error = None;
        for w in workers {
            match w.join().expect("a merge thread does not panic") {
                Ok(t) => times += t,
                Err(e) => {
                    shared.stop.store(true, Ordering::Relaxed);
                    first_error.get_or_insert(e);
                }
            }
        }
        match (cancelled, first_error) {
            (true, _) => Err(SortError::Cancelled),
            (false, Some(e)) => Err(e),
            (false, None) => Ok(MergeTimes { bytes: shared.written.load(Ordering::Relaxed), ..times }),
        }
    })
}

/// For each run, the record indices where each thread's range of keys starts (`threads + 1`
/// of them, from 0 to the run's length): below the same `threads - 1` splitter keys in every run.
fn partition(runs: &[Run], record: usize, keys: &KeyWords, threads: usize) -> Result<Vec<Vec<u64>>, SortError> {
    let words = keys.words();
    let mut buf = vec![0u8; record];
    let mut word = |run: &Run, i: u64, out: &mut Vec<u64>| -> Result<(), SortError> {
        run.record(i, &mut buf)?;
        out.resize(words, 0);
        keys.all_words(&buf, out);
        Ok(())
    };
    let mut splitters: Vec<Vec<u64>> = Vec::new();
    if threads > 1 {
        let mut samples = Vec::new();
        let per_run = SAMPLES * threads;
        for run in runs.iter().filter(|r| r.records > 0) {
            for j in 0..per_run as u64 {
                let mut w = Vec::new();
                word(run, j * run.records / per_run as u64, &mut w)?;
                samples.push(w);
            }
        }
        samples.sort_unstable();
        if samples.is_empty() {
            // No records at all: every thread's range is empty.
            return Ok(runs.iter().map(|r| vec![r.records; threads + 1]).collect());
        }
        splitters = (1..threads).map(|t| samples[t * samples.len() / threads].clone()).collect();
    }
    let mut probe = Vec::with_capacity(words);
    let mut bounds = Vec::with_capacity(runs.len());
    for run in runs {
        let mut b = vec![0u64; threads + 1];
        b[threads] = run.records;
        for (t, s) in splitters.iter().enumerate() {
            // The first record not below the splitter, searched from the previous bound.
            let (mut lo, mut hi) = (b[t], run.records);
            while lo < hi {
                let mid = lo + (hi - lo) / 2;
                word(run, mid, &mut probe)?;
                if probe < *s {
                    lo = mid + 1;
                } else {
                    hi = mid;
                }
            }
            b[t + 1] = lo;
        }
        bounds.push(b);
    }
    Ok(bounds)
}

/// One run's piece in a thread's merge: its current block and where the piece goes on.
struct Cursor {
    block: Vec<u8>,
    at: usize,
    /// The next record of the piece to read, and its end.
    next: u64,
    end: u64,
}

/// One thread: merges records `pieces[r].0..pieces[r].1` of each run `r` into the output from
/// byte `start`.
fn merge_range<O: PositionalOutput>(
    shared: &Shared<'_, O>,
    pieces: &[(u64, u64)],
    start: u64,
) -> Result<MergeTimes, SortError> {
    let (record, words) = (shared.record, shared.keys.words());
    let mut times = MergeTimes::default();
    let began = Instant::now();
    let mut cursors = Vec::with_capacity(pieces.len());
    for (r, &(from, end)) in pieces.iter().enumerate() {
        let mut c = Cursor { block: Vec::new(), at: 0, next: from, end };
        refill(shared, r, &mut c, &mut times)?;
        cursors.push(c);
    }
    let runs = cursors.len();
    let mut heads = vec![0u64; runs * words];
    let leaves = runs.next_power_of_two();
    let mut tree = vec![usize::MAX; 2 * leaves];
    for (r, c) in cursors.iter().enumerate() {
        if c.at < c.block.len() {
            shared.keys.all_words(&c.block[..record], &mut heads[r * words..(r + 1) * words]);
            tree[leaves + r] = r;
        }
    }
    let better = |a: usize, b: usize, heads: &[u64]| -> usize {
        match (a, b) {
            (usize::MAX, _) => b,
            (_, usize::MAX) => a,
            _ => match heads[a * words..(a + 1) * words].cmp(&heads[b * words..(b + 1) * words]) {
                std::cmp::Ordering::Greater => b,
                std::cmp::Ordering::Less => a,
                std::cmp::Ordering::Equal => a.min(b),
            },
        }
    };
    for node in (1..leaves).rev() {
        tree[node] = better(tree[2 * node], tree[2 * node + 1], &heads);
    }
    let mut output = Vec::with_capacity(shared.block);
    let mut at = start;
    while tree[1] != usize::MAX {
        let run = tree[1];
        let c = &mut cursors[run];
        output.extend_from_slice(&c.block[c.at..c.at + record]);
        c.at += record;
        if c.at == c.block.len() {
            refill(shared, run, c, &mut times)?;
        }
        let leaf = match c.at < c.block.len() {
            true => {
                shared.keys.all_words(&c.block[c.at..c.at + record], &mut heads[run * words..(run + 1) * words]);
                run
            }
            false => usize::MAX,
        };
        let mut node = leaves + run;
        tree[node] = leaf;
        while node > 1 {
            node /= 2;
            tree[node] = better(tree[2 * node], tree[2 * node + 1], &heads);
        }
        if output.len() + record > shared.block {
            at = flush(shared, &mut output, at, &mut times)?;
        }
    }
    flush(shared, &mut output, at, &mut times)?;
    times.merging = began.elapsed().saturating_sub(times.reading + times.writing);
    Ok(times)
}

/// The next block of a run's piece (empty when the piece is done).
fn refill<O>(shared: &Shared<'_, O>, run: usize, c: &mut Cursor, times: &mut MergeTimes) -> Result<(), SortError> {
    if shared.stop.load(Ordering::Relaxed) {
        return Err(SortError::Cancelled);
    }
    let started = Instant::now();
    let record = shared.record as u64;
    let n = (c.end - c.next).min((shared.block as u64 / record).max(1));
    c.block.resize((n * record) as usize, 0);
    let r = &shared.runs[run];
    read_exact_at(&r.file, &mut c.block, c.next * record)
        .map_err(SortError::io(format!("reading the run {}", r.path.display())))?;
    // These bytes of the run are in memory now: their disk space can go.
    free_read(&r.file, c.next * record, n * record);
    c.next += n;
    c.at = 0;
    times.reading += started.elapsed();
    Ok(())
}

/// Writes the merged block at `at`; returns where the next one goes.
fn flush<O: PositionalOutput>(
    shared: &Shared<'_, O>,
    output: &mut Vec<u8>,
    at: u64,
    times: &mut MergeTimes,
) -> Result<u64, SortError> {
    if output.is_empty() {
        return Ok(at);
    }
    let started = Instant::now();
    shared.out.write_at(at, output)?;
    shared.written.fetch_add(output.len() as u64, Ordering::Relaxed);
    let next = at + output.len() as u64;
    output.clear();
    times.writing += started.elapsed();
    Ok(next)
}
