//! Out-of-core hybrid sort: an input whose sort does not fit in the device memory budget is cut
//! into runs that do; each run is uploaded, sorted on the GPU and downloaded, then the runs are
//! combined into the caller's data:
//! - when the input fits the held buffer (`staging::held_cap`), the runs wait there and the GPU
//!   combines them too: the output is cut into blocks at the runs' merge positions, and each
//!   block's pieces are sorted again on the device (see `held`);
//! - beyond it, each run makes a round trip of its own into a host scratch buffer, and a parallel
//!   k-way merge on all cores (`crate::merge`) combines them.
//!
//! Runs are as equal as the length allows (they differ by at most one item) and need not be
//! powers of two. A failure before the caller's data is first written leaves it untouched; after
//! that (the GPU blocks), the CPU merge finishes the job, so the data ends completely sorted.

use std::sync::Arc;

use cudarc::driver::{CudaEvent, CudaSlice, CudaStream};

use super::device::Gpu;
use super::dispatch::{bytes_per_item, DeviceItem, DeviceSort, WideKey};
use super::hostdata::{Direct, HostData, ZeroedBuf};
use super::incore;
use super::staging::{MergeKey, Plain};
use super::transfer::{self, Chunks};
use crate::hooks::{self, Step};
use crate::hostcopy::{par_copy, par_pieces, par_pieces2};
use crate::{merge, Algorithm, Order, SortError};

/// Device bytes not proportional to the length that a sort may need (counters, plan, alignment).
pub(crate) const FIXED_BYTES: usize = 64 << 10;

/// Device bytes a one-run sort of `n` items needs.
pub(crate) fn need_bytes<T>(n: usize, algorithm: Algorithm) -> usize {
    n.saturating_mul(bytes_per_item::<T>(algorithm)).saturating_add(FIXED_BYTES)
}

/// The longest run whose sort fits in `limit` bytes; `InvalidArgument` when not even one item does.
pub(crate) fn run_len<T>(limit: usize, algorithm: Algorithm) -> Result<usize, SortError> {
    run_items(limit, bytes_per_item::<T>(algorithm))
}

/// The longest run of items taking `per_item` device bytes each that fits in `limit` bytes.
pub(crate) fn run_items(limit: usize, per_item: usize) -> Result<usize, SortError> {
    let run = limit.saturating_sub(FIXED_BYTES) / per_item.max(1);
    if run == 0 {
        return Err(SortError::InvalidArgument(format!(
            "a device memory limit of {limit} bytes is too small: one item needs {}",
            per_item + FIXED_BYTES
        )));
    }
    Ok(run)
}

/// Run boundaries: `runs + 1` positions cutting `n` items into runs of at most `run` items, as
/// equal as the length allows.
fn run_bounds(n: usize, run: usize) -> Vec<usize> {
    let runs = n.div_ceil(run.max(1));
    (0..=runs).map(|r| (n as u128 * r as u128 / runs as u128) as usize).collect()
}

/// Sorts `data` in runs of at most `run` items, then merges them.
pub(crate) fn sort<H: HostData>(gpu: &Gpu, data: &mut H, run: usize, sort: &DeviceSort) -> Result<(), SortError>
where
    H::Item: DeviceItem,
{
    let n = data.len();
    let bounds = run_bounds(n, run);
    let longest = bounds.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    let c = transfer::chunks::<H::Item>(longest);
    let streams = transfer::begin(gpu).and_then(|main| {
        let uploads = gpu.streams.get(&gpu.ctx)?;
        Ok(Ahead { main, uploads })
    })?;
    let (mut lease, held_len) = transfer::lease::<H::Item>(gpu, n, c)?;
    let (held, ring) = lease.held_and_ring::<H::Item>(held_len, c.ring);
    if held_len == n {
        return held_runs(&streams, data, &bounds, held, ring, c, sort);
    }
    // Past the held cap: each run makes its own round trip into host scratch.
    let mut aux = ZeroedBuf::<H::Item>::new(n)?;
    let scratch = aux.as_mut_slice();
    for w in bounds.windows(2) {
        let result = (|| {
            let mut dev = transfer::device_buffer(&streams.main, w[1] - w[0])?;
            transfer::upload(&streams.main, &*data, w[0], ring, &mut dev, c.chunk)?;
            hooks::hit(Step::Sort)?;
            sort.run(&streams.main, &mut dev)?;
            let mut sink = Direct(&mut scratch[w[0]..w[1]]);
            transfer::download(&streams.main, &dev.as_view(), &mut sink, 0, ring, c.chunk).map_err(|(e, _)| e)
        })();
        transfer::finish(&streams.main, result)?;
    }
    hooks::hit(Step::Merge)?;
    merge_into(aux.as_slice(), &bounds, sort.order, |at, out| data.scatter(at, out))
}

/// The whole input in the held buffer, in two phases:
/// 1. each run goes up from there, is sorted, and its result comes back to the same place;
/// 2. the output is cut into blocks no longer than a run; block j holds, from every run, the items
///    between the cuts j and j + 1 (`merge::select`). Those pieces, sent up in run order and sorted
///    stably, are exactly the merge's block j; it comes back through the ring straight into the
///    caller's data. This replaced a k-way merge on the CPU: H200 machine, 64M pairs in 4 runs,
///    88.8 ms against 30.4 ms for one run, most of it the merge; 51.4 ms with the GPU blocks on
///    one stream.
///
/// Uploads run on a stream of their own, one run (or block) ahead: the next one goes up while the
/// current one is sorted and comes back, the two copy directions overlapping on the bus. The
/// device then holds two data buffers at once, which is what a radix sort of one run needs anyway
/// (data and scratch): the next buffer is allocated after the current sort has freed its scratch,
/// and the current one is freed in stream order before the next sort allocates, so the sort stays
/// within the budget.
///
/// If a step of phase 2 fails, the CPU merges the runs (still in the held buffer) into the
/// caller's data instead, which leaves it completely sorted.
fn held_runs<H: HostData>(
    ahead: &Ahead,
    data: &mut H,
    bounds: &[usize],
    held: &mut [H::Item],
    ring: &mut [H::Item],
    c: Chunks,
    sort: &DeviceSort,
) -> Result<(), SortError>
where
    H::Item: DeviceItem,
{
    let n = data.len();
    let size = std::mem::size_of::<H::Item>();
    let stream = &ahead.main;
    let runs: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
    let sorted = (|| {
        let (a, b) = runs[0];
        let mut next = Some(
            ahead.upload(b - a, |dev| transfer::upload(&ahead.uploads, &*data, a, &mut held[a..b], dev, c.chunk))?,
        );
        for (r, &(a, b)) in runs.iter().enumerate() {
            let (mut dev, ready) = next.take().expect("queued one ahead");
            stream.wait(&ready).map_err(SortError::driver("cuStreamWaitEvent", 0))?;
            hooks::hit(Step::Sort)?;
            sort.run(stream, &mut dev)?;
            if let Some(&(c0, d0)) = runs.get(r + 1) {
                let room = &mut held[c0..d0];
                next = Some(
                    ahead.upload(d0 - c0, |dev| transfer::upload(&ahead.uploads, &*data, c0, room, dev, c.chunk))?,
                );
            }
            for start in (a..b).step_by(c.chunk) {
                let end = (start + c.chunk).min(b);
                hooks::hit(Step::Download)?;
                // The same pinned range the run went up from: its upload is done (the sort waited).
                stream
                    .memcpy_dtoh(&dev.slice(start - a..end - a), &mut held[start..end])
                    .map_err(SortError::driver("copy to host", (end - start) * size))?;
            }
        }
        Ok(())
    })();
    // Every run is back (or failed) before anything reads the held buffer.
    let uploaded = transfer::finish(&ahead.uploads, Ok(()));
    transfer::finish(stream, sorted).and(uploaded)?;

    let held: &[H::Item] = held;
    let parts: Vec<&[H::Item]> = runs.iter().map(|&(a, b)| &held[a..b]).collect();
    let longest = runs.iter().map(|&(a, b)| b - a).max().unwrap_or(1);
    let blocks = n.div_ceil(longest.max(1));
    let cut = |rank: usize| match sort.order {
        Order::Ascending => merge::select(&parts, rank, &|x: &H::Item| x.merge_key()),
        Order::Descending => merge::select(&parts, rank, &|x: &H::Item| !x.merge_key()),
    };
    let cuts: Vec<Vec<usize>> = (0..=blocks).map(|j| cut(n * j / blocks)).collect();
    let span = |j: usize| (n * j / blocks, n * (j + 1) / blocks);
    // Block j's pieces, one per run, into `dev` in run order.
    let send = |j: usize, dev: &mut CudaSlice<H::Item>| -> Result<(), SortError> {
        let mut at = 0;
        for (r, run) in parts.iter().enumerate() {
            let piece = &run[cuts[j][r]..cuts[j + 1][r]];
            if !piece.is_empty() {
                hooks::hit(Step::Upload)?;
                ahead
                    .uploads
                    .memcpy_htod(piece, &mut dev.slice_mut(at..at + piece.len()))
                    .map_err(SortError::driver("copy to device", std::mem::size_of_val(piece)))?;
            }
            at += piece.len();
        }
        debug_assert_eq!(at, span(j).1 - span(j).0);
        Ok(())
    };
    let merged = (|| {
        let (a, b) = span(0);
        let mut next = Some(ahead.upload(b - a, |dev| send(0, dev))?);
        for j in 0..blocks {
            let (a, _) = span(j);
            let (mut dev, ready) = next.take().expect("queued one ahead");
            stream.wait(&ready).map_err(SortError::driver("cuStreamWaitEvent", 0))?;
            hooks::hit(Step::Sort)?;
            sort.run(stream, &mut dev)?;
            if j + 1 < blocks {
                let (c0, d0) = span(j + 1);
                next = Some(ahead.upload(d0 - c0, |dev| send(j + 1, dev))?);
            }
            transfer::download(stream, &dev.as_view(), data, a, ring, c.chunk).map_err(|(e, _)| e)?;
        }
        Ok(())
    })();
    let uploaded = transfer::finish(&ahead.uploads, Ok(()));
    match transfer::finish(stream, merged).and(uploaded) {
        Ok(()) => Ok(()),
        // The runs are intact in the held buffer: merging them on the CPU rewrites all of the
        // caller's data, whatever the failed phase left in it.
        Err(_) => merge_into(held, bounds, sort.order, |at, out| data.scatter(at, out)),
    }
}

/// The two streams of an out-of-core sort: sorts and downloads on `main`, uploads one run or
/// block ahead on `uploads`.
struct Ahead {
    main: transfer::Begun,
    uploads: Arc<CudaStream>,
}

impl Ahead {
    /// A device buffer of `len` items filled by `fill` on the upload stream, and the event that
    /// says it is full. The buffer is allocated on the main stream, at its current point (after the
    /// sort just queued, whose scratch is then free again), and freed there when dropped, in order
    /// after the main stream's last use of it.
    fn upload<T: DeviceItem>(
        &self,
        len: usize,
        fill: impl FnOnce(&mut CudaSlice<T>) -> Result<(), SortError>,
    ) -> Result<(CudaSlice<T>, CudaEvent), SortError> {
        let mut dev = transfer::device_buffer::<T>(&self.main, len)?;
        let allocated = self.main.record_event(None).map_err(SortError::driver("cuEventRecord", 0))?;
        self.uploads.wait(&allocated).map_err(SortError::driver("cuStreamWaitEvent", 0))?;
        fill(&mut dev)?;
        let ready = self.uploads.record_event(None).map_err(SortError::driver("cuEventRecord", 0))?;
        Ok((dev, ready))
    }
}

/// A 64-bit key beside its `u32` value: how split pairs of 64-bit keys wait for the CPU merge (the
/// `Kvp` kernels carry 32-bit keys only).
#[derive(Clone, Copy, Debug)]
#[repr(C)]
struct WideKv<K> {
    key: K,
    value: u32,
}

// SAFETY-relevant: zeroed memory (all `ZeroedBuf` hands out) is a valid `WideKv` of a plain key,
// padding included.
impl<K: Plain> Plain for WideKv<K> {}
impl<K: MergeKey> MergeKey for WideKv<K> {
    fn merge_key(&self) -> u64 {
        self.key.merge_key()
    }
}

/// Split 64-bit-key pairs larger than the budget: each run is copied into run scratch, sorted there by
/// a round trip of its own (`incore::round_trip_pairs`), and laid down as `WideKv`s; the CPU then
/// merges the runs into the caller's arrays, the only writes to them, so a failure before the
/// merge leaves them untouched. Host memory: 16 bytes per pair plus 12 per pair of one run.
pub(crate) fn sort_split_wide<K: WideKey>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [u32],
    run: usize,
    sort: &DeviceSort,
) -> Result<(), SortError> {
    let n = keys.len();
    let bounds = run_bounds(n, run);
    let longest = bounds.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    let mut staged = ZeroedBuf::<WideKv<K>>::new(n)?;
    let (mut rk, mut rv) = (ZeroedBuf::<K>::new(longest)?, ZeroedBuf::<u32>::new(longest)?);
    for w in bounds.windows(2) {
        let (a, b) = (w[0], w[1]);
        let (k, v) = (&mut rk.as_mut_slice()[..b - a], &mut rv.as_mut_slice()[..b - a]);
        par_copy(k, &keys[a..b]);
        par_copy(v, &values[a..b]);
        incore::round_trip_pairs(gpu, k, v, sort)?;
        let (k, v) = (&*k, &*v);
        par_pieces(&mut staged.as_mut_slice()[a..b], |d, r| {
            for ((d, &key), &value) in d.iter_mut().zip(&k[r.clone()]).zip(&v[r]) {
                *d = WideKv { key, value };
            }
        });
    }
    hooks::hit(Step::Merge)?;
    merge_into(staged.as_slice(), &bounds, sort.order, |at, out| {
        par_pieces2(&mut keys[at..at + out.len()], &mut values[at..at + out.len()], |k, v, r| {
            for ((k, v), s) in k.iter_mut().zip(v.iter_mut()).zip(&out[r]) {
                *k = s.key;
                *v = s.value;
            }
        });
    })
}

/// Output items merged per block when the merge writes through `HostData::scatter`: 32 MiB of
/// pairs, on all cores, then scattered on all cores.
const MERGE_BLOCK: usize = 1 << 22;

/// Merges the sorted runs `sorted[bounds[r]..bounds[r + 1]]` into the caller's data, block by
/// block: `scatter(at, block)` writes output positions `at..at + block.len()`, and is the only
/// write to it. Needs one block of host scratch (smaller blocks if that cannot be had).
fn merge_into<T: MergeKey>(
    sorted: &[T],
    bounds: &[usize],
    order: Order,
    mut scatter: impl FnMut(usize, &[T]),
) -> Result<(), SortError> {
    let n = sorted.len();
    let runs: Vec<&[T]> = bounds.windows(2).map(|w| &sorted[w[0]..w[1]]).collect();
    let mut block = MERGE_BLOCK.min(n.max(1));
    let mut buf = loop {
        match ZeroedBuf::<T>::new(block) {
            Ok(b) => break b,
            Err(e) if block <= 1 << 12 => return Err(e),
            Err(_) => block /= 16,
        }
    };
    let key = |x: &T| match order {
        Order::Ascending => x.merge_key(),
        Order::Descending => !x.merge_key(),
    };
    let mut lo = vec![0; runs.len()];
    for start in (0..n).step_by(block) {
        let end = (start + block).min(n);
        let hi = merge::select(&runs, end, &key);
        let sub: Vec<&[T]> = runs.iter().zip(lo.iter().zip(&hi)).map(|(r, (&a, &b))| &r[a..b]).collect();
        let out = &mut buf.as_mut_slice()[..end - start];
        merge::merge_runs(&sub, out, key);
        scatter(start, out);
        lo = hi;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Kvp;

    #[test]
    fn runs_fit_the_limit() {
        for alg in [Algorithm::Auto, Algorithm::Radix, Algorithm::Bitonic, Algorithm::OddEvenMerge] {
            for limit in [FIXED_BYTES + 17, FIXED_BYTES + 1000, 1 << 20, 1 << 30] {
                let run = run_len::<Kvp>(limit, alg).unwrap();
                assert!(need_bytes::<Kvp>(run, alg) <= limit, "{alg:?} {limit}");
                assert!(need_bytes::<Kvp>(run + 1, alg) > limit, "{alg:?} {limit}: run could be longer");
            }
        }
        assert!(matches!(run_len::<u32>(FIXED_BYTES, Algorithm::Radix), Err(SortError::InvalidArgument(_))));
        assert!(matches!(run_len::<u32>(0, Algorithm::Radix), Err(SortError::InvalidArgument(_))));
    }
}
