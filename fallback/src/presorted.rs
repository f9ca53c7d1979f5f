//! Inputs that are already in order, or in exactly the opposite order, are finished in one or
//! two passes instead of a full radix sort. On random data both checks stop within a few items.

use rayon::prelude::*;

use crate::key::RadixBits;
use crate::keyfn::KeyFn;
use crate::raw::Ptr;

/// Items per parallel task: big enough that task overhead vanishes, small enough that two
/// threads share the work evenly.
const CHUNK: usize = 1 << 16;

/// Whether a pass over `len` items is split into tasks: for long inputs, on a pool only. The
/// vector sort on one thread runs on the calling thread (`keys::sort_vector`), where a parallel
/// iterator would go to rayon's global pool and wait for it: a sort must not (tests/pool.rs),
/// and the wake-up cost one thread's sorts of 192K-512K u32 keys 15-30% (Intel dev machine:
/// 192K keys 0.86 ms against np.sort's 0.60).
fn split_in_tasks(len: usize) -> bool {
    len > 2 * CHUNK && rayon::current_thread_index().is_some()
}

/// True when `ok(v[i], v[i + 1])` holds for every neighbouring pair; stops early on a failure.
fn all_neighbours<T: Sync>(v: &[T], ok: impl Fn(&T, &T) -> bool + Sync) -> bool {
    if !split_in_tasks(v.len()) {
        return v.windows(2).all(|w| ok(&w[0], &w[1]));
    }
    let chunks = v.len().div_ceil(CHUNK);
    // Each chunk also looks at the first item of the next one, so the seams are checked too.
    (0..chunks).into_par_iter().all(|c| {
        let end = ((c + 1) * CHUNK + 1).min(v.len());
        v[c * CHUNK..end].windows(2).all(|w| ok(&w[0], &w[1]))
    })
}

/// Leaves `v` stably sorted and returns true when it was already ordered or reverse ordered by
/// `key`; otherwise returns false without touching `v`.
pub(crate) fn settle<T: Copy + Send + Sync, B: RadixBits, F: KeyFn<T, B>>(v: &mut [T], key: F) -> bool {
    if v.len() < 2 || all_neighbours(v, |a, b| key(a) <= key(b)) {
        return true;
    }
    if all_neighbours(v, |a, b| key(a) > key(b)) {
        reverse(v);
        return true;
    }
    if all_neighbours(v, |a, b| key(a) >= key(b)) {
        // Reversing puts each run of equal keys backwards; turning the runs round again restores
        // their input order, which keeps the sort stable.
        reverse(v);
        reverse_equal_runs(v, key);
        return true;
    }
    false
}

pub(crate) fn reverse<T: Send>(v: &mut [T]) {
    let n = v.len();
    if !split_in_tasks(n) {
        v.reverse();
        return;
    }
    let (front, rest) = v.split_at_mut(n / 2);
    let back = &mut rest[n % 2..];
    // Chunk i from the front mirrors chunk i from the back, remainder chunks included.
    front.par_chunks_mut(CHUNK).zip(back.par_rchunks_mut(CHUNK)).for_each(|(x, y)| {
        let m = y.len();
        for (j, a) in x.iter_mut().enumerate() {
            std::mem::swap(a, &mut y[m - 1 - j]);
        }
    });
}

fn reverse_runs_in<T, B: RadixBits, F: KeyFn<T, B>>(v: &mut [T], key: F) {
    let mut start = 0;
    while start < v.len() {
        let k = key(&v[start]);
        let mut end = start + 1;
        while end < v.len() && key(&v[end]) == k {
            end += 1;
        }
        v[start..end].reverse();
        start = end;
    }
}

fn reverse_equal_runs<T: Copy + Send + Sync, B: RadixBits, F: KeyFn<T, B>>(v: &mut [T], key: F) {
    let n = v.len();
    if !split_in_tasks(n) {
        reverse_runs_in(v, key);
        return;
    }
    // Tasks own whole runs: each starts at the first run that begins in its chunk. The starts are
    // found before anything moves, so no task reads what another one writes.
    let chunks = n.div_ceil(CHUNK);
    // `v` is already reversed: without room for the table, one thread finishes the job.
    let mut starts: Vec<usize> = Vec::new();
    if starts.try_reserve_exact(chunks + 1).is_err() {
        reverse_runs_in(v, key);
        return;
    }
    (0..chunks)
        .into_par_iter()
        .map(|c| {
            let mut i = c * CHUNK;
            while i > 0 && i < n && key(&v[i - 1]) == key(&v[i]) {
                i += 1;
            }
            i
        })
        .collect_into_vec(&mut starts);
    starts.push(n);
    let base = Ptr(v.as_mut_ptr());
    (0..chunks).into_par_iter().for_each(|c| {
        let (s, e) = (starts[c], starts[c + 1].max(starts[c]));
        // SAFETY: the ranges [starts[c], starts[c+1]) are disjoint and inside `v`.
        let part = unsafe { std::slice::from_raw_parts_mut(base.at(s).0, e - s) };
        reverse_runs_in(part, key);
    });
}
