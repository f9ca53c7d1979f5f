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
use rayon::prelude::*;

use super::device::Gpu;
use super::dispatch::{bytes_per_item, DeviceItem, DeviceSort, WideKey};
use super::hostdata::{Direct, HostData, ZeroedBuf};
use super::incore;
use super::staging::{MergeKey, Plain};
use super::transfer::{self, Chunks};
use crate::hooks::{self, Step};
use crate::hostcopy::{par_copy, par_pieces, par_pieces2};
use crate::{merge, tuning, Algorithm, Order, SortError};

/// Device bytes not proportional to the length that a sort may need (counters, plan, alignment).
pub(crate) const FIXED_BYTES: usize = 64 << 10;

/// Device bytes a one-run sort of `n` items needs.
pub(crate) fn need_bytes<T>(n: usize, algorithm: Algorithm) -> usize {
    n.saturating_mul(bytes_per_item::<T>(algorithm)).saturating_add(FIXED_BYTES)
}

/// The longest run whose sort fits in `limit` bytes; `InvalidArgument` when not even one item does.
/// The pipeline of `held_runs` keeps the next run's buffer beside the one being sorted, so a run
/// takes at least two buffers' worth: a radix sort's scratch is that room, an in-place network's
/// (bitonic) is not.
pub(crate) fn run_len<T>(limit: usize, algorithm: Algorithm) -> Result<usize, SortError> {
    run_items(limit, run_bytes_per_item::<T>(algorithm))
}

fn run_bytes_per_item<T>(algorithm: Algorithm) -> usize {
    bytes_per_item::<T>(algorithm).max(2 * std::mem::size_of::<T>())
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
    let runs = n.div_ceil(run.max(1)).max(1);
    (0..=runs).map(|r| (n as u128 * r as u128 / runs as u128) as usize).collect()
}

/// Bounds cutting `n` items into pieces of at most `max`: equal pieces in the middle and, at each
/// end, a ramp of pieces halving from `max / 2` (`tuning::OUT_OF_CORE_RAMP_STEPS`), so that the
/// pipelines of both phases of `held_runs` fill on a short first piece and drain on a short last
/// one, instead of waiting for a whole run to go up before anything comes back, and for a whole
/// block to come back after everything else has gone up.
fn ramped_bounds(n: usize, max: usize, chunk: usize) -> Vec<usize> {
    let max = max.max(1);
    let mut ramp = Vec::new();
    let mut left = n;
    let mut size = max / 2;
    // A step is taken only while a full piece still fits between the two ramps.
    while ramp.len() < tuning::OUT_OF_CORE_RAMP_STEPS
        && size >= chunk.saturating_mul(tuning::OUT_OF_CORE_RAMP_MIN_CHUNKS).max(1)
        && left >= 2 * size + max
    {
        ramp.push(size);
        left -= 2 * size;
        size /= 2;
    }
    let middle = run_bounds(left, max);
    let mut bounds = vec![0];
    for &s in ramp.iter().rev() {
        bounds.push(bounds[bounds.len() - 1] + s);
    }
    let at = bounds[bounds.len() - 1];
    bounds.extend(middle[1..].iter().map(|&b| at + b));
    for &s in &ramp {
        bounds.push(bounds[bounds.len() - 1] + s);
    }
    debug_assert_eq!(bounds[bounds.len() - 1], n);
    bounds
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
        return held_runs(&streams, data, &ramped_bounds(n, run, c.chunk), run, held, ring, c, sort);
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
/// 1. each run goes up from the caller's data through the ring, is sorted, and its result comes
///    back to its place in the held buffer;
/// 2. the output is cut into blocks of at most `max` items; block j holds, from every run, the
///    items between the cuts j and j + 1 (`merge::select`). Those pieces, sent up in run order and
///    sorted stably, are exactly the merge's block j; it comes back through the ring straight into
///    the caller's data. This replaced a k-way merge on the CPU: H200 machine, 64M pairs in 4
///    runs, 88.8 ms against 30.4 ms for one run, most of it the merge; 51.4 ms with the GPU blocks
///    on one stream.
///
/// Uploads run on a stream of their own, one run (or block) ahead: the next one goes up while the
/// current one is sorted and comes back, the two copy directions overlapping on the bus. The
/// device then holds two data buffers at once, which is what a radix sort of one run needs anyway
/// (data and scratch): the next buffer is allocated after the current sort has freed its scratch,
/// and the current one is freed in stream order before the next sort allocates, so the sort stays
/// within the budget.
///
/// Phase 1 leaves the caller's data untouched, so a failure there leaves it as it was. If a step
/// of phase 2 fails, the CPU merges the runs (still in the held buffer) into the caller's data
/// instead, which leaves it completely sorted.
#[allow(clippy::too_many_arguments)]
fn held_runs<H: HostData>(
    ahead: &Ahead,
    data: &mut H,
    bounds: &[usize],
    max: usize,
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
        let mut dev = ahead.reserve(b - a)?;
        transfer::upload(&ahead.uploads, &*data, a, ring, &mut dev, c.chunk)?;
        let mut next = Some((dev, ahead.queued()?));
        for (r, &(a, b)) in runs.iter().enumerate() {
            let (mut dev, ready) = next.take().expect("queued one ahead");
            stream.wait(&ready).map_err(SortError::driver("cuStreamWaitEvent", 0))?;
            hooks::hit(Step::Sort)?;
            sort.run(stream, &mut dev)?;
            // The next run's buffer is reserved before this one's downloads are queued (its
            // place in the main stream is after this sort, which frees the sort's scratch), and
            // filled after them: its upload waits on the ring, and this run's downloads must
            // already be queued to overlap it.
            let reserved = match runs.get(r + 1) {
                Some(&(c0, d0)) => Some((c0, ahead.reserve::<H::Item>(d0 - c0)?)),
                None => None,
            };
            for start in (a..b).step_by(c.chunk) {
                let end = (start + c.chunk).min(b);
                hooks::hit(Step::Download)?;
                stream
                    .memcpy_dtoh(&dev.slice(start - a..end - a), &mut held[start..end])
                    .map_err(SortError::driver("copy to host", (end - start) * size))?;
            }
            if let Some((c0, mut up)) = reserved {
                // The ring is free once this run's upload, which went through it, is over.
                ready.synchronize().map_err(SortError::driver("cuEventSynchronize", 0))?;
                transfer::upload(&ahead.uploads, &*data, c0, ring, &mut up, c.chunk)?;
                next = Some((up, ahead.queued()?));
            }
        }
        Ok(())
    })();
    // Every run is back (or failed) before anything reads the held buffer.
    let uploaded = transfer::finish(&ahead.uploads, Ok(()));
    transfer::finish(stream, sorted).and(uploaded)?;

    let held: &[H::Item] = held;
    let parts: Vec<&[H::Item]> = runs.iter().map(|&(a, b)| &held[a..b]).collect();
    let spans = ramped_bounds(n, max, c.chunk);
    let blocks = spans.len() - 1;
    let cut = |rank: usize| match sort.order {
        Order::Ascending => merge::select(&parts, rank, &|x: &H::Item| x.merge_key()),
        Order::Descending => merge::select(&parts, rank, &|x: &H::Item| !x.merge_key()),
    };
    // Each cut searches every run of the held buffer, a cache miss per step: on all cores. H200
    // machine, 512M pairs with a 256 MiB budget (35 runs): 25 ms on one thread.
    // (On the CPU backend's pool, never rayon's global one.)
    let cuts: Vec<Vec<usize>> = gpusort_cpu::install(|| spans.par_iter().map(|&rank| cut(rank)).collect());
    let span = |j: usize| (spans[j], spans[j + 1]);
    // Block j's pieces, one per run, into a new device buffer in run order, and the event that
    // says they are there.
    let send = |j: usize| -> Result<(CudaSlice<H::Item>, CudaEvent), SortError> {
        let (a, b) = span(j);
        let mut dev = ahead.reserve(b - a)?;
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
        debug_assert_eq!(at, b - a);
        Ok((dev, ahead.queued()?))
    };
    let merged = (|| {
        let mut next = Some(send(0)?);
        for j in 0..blocks {
            let (a, _) = span(j);
            let (mut dev, ready) = next.take().expect("queued one ahead");
            stream.wait(&ready).map_err(SortError::driver("cuStreamWaitEvent", 0))?;
            hooks::hit(Step::Sort)?;
            sort.run(stream, &mut dev)?;
            if j + 1 < blocks {
                next = Some(send(j + 1)?);
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
    /// A device buffer of `len` items for the next upload. It is allocated on the main stream, at
    /// its current point (after the sort just queued, whose scratch is then free again), and freed
    /// there when dropped, in order after the main stream's last use of it; the upload stream
    /// waits for the allocation.
    fn reserve<T: DeviceItem>(&self, len: usize) -> Result<CudaSlice<T>, SortError> {
        let dev = transfer::device_buffer::<T>(&self.main, len)?;
        let allocated = self.main.record_event(None).map_err(SortError::driver("cuEventRecord", 0))?;
        self.uploads.wait(&allocated).map_err(SortError::driver("cuStreamWaitEvent", 0))?;
        Ok(dev)
    }

    /// The event that says every upload queued so far is done.
    fn queued(&self) -> Result<CudaEvent, SortError> {
        self.uploads.record_event(None).map_err(SortError::driver("cuEventRecord", 0))
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
    fn ramped_bounds_cover_the_input_in_pieces_that_fit() {
        for (n, max, chunk) in
            [(0, 10, 1), (1, 10, 1), (5, 10, 1), (29, 10, 1), (30, 10, 1), (1000, 64, 2), (1000, 64, 64)]
        {
            let b = ramped_bounds(n, max, chunk);
            let sizes: Vec<usize> = b.windows(2).map(|w| w[1] - w[0]).collect();
            assert!(b[0] == 0 && b[b.len() - 1] == n, "{n} {max}: {b:?}");
            assert!(sizes.iter().all(|&s| s <= max && (s > 0 || n == 0)), "{n} {max}: {sizes:?}");
            let mirrored = sizes.iter().zip(sizes.iter().rev()).all(|(&a, &b)| a.abs_diff(b) <= 1);
            assert!(mirrored, "{n} {max}: {sizes:?} not symmetric");
        }
        // 512M pairs, runs of at most 128M, 2M-item chunks: 8M, 16M, 32M, 64M up, three of about
        // 91M, and down again.
        let m = 1 << 20;
        let sizes: Vec<usize> = ramped_bounds(512 * m, 128 * m, 2 * m).windows(2).map(|w| w[1] - w[0]).collect();
        assert_eq!(sizes[..4], [8 * m, 16 * m, 32 * m, 64 * m]);
        assert_eq!(sizes.len(), 8 + 3);
        // Too short for a ramp with a full piece between: equal pieces.
        assert_eq!(ramped_bounds(150, 100, 1), vec![0, 75, 150]);
        // No ramp piece is shorter than two chunks: 50 at each end, then nine of 100.
        let b = ramped_bounds(1000, 100, 20);
        assert!(b.len() - 1 == 2 + 9 && b[1] == 50 && b[2] == 150, "{b:?}");
    }

    #[test]
    fn runs_fit_the_limit() {
        for alg in [Algorithm::Auto, Algorithm::Radix, Algorithm::Bitonic, Algorithm::OddEvenMerge] {
            for limit in [FIXED_BYTES + 17, FIXED_BYTES + 1000, 1 << 20, 1 << 30] {
                let run = run_len::<Kvp>(limit, alg).unwrap();
                // Two run buffers at once, or one sort with its scratch, fit the limit.
                let pipeline = |n: usize| n * run_bytes_per_item::<Kvp>(alg) + FIXED_BYTES;
                assert!(need_bytes::<Kvp>(run, alg) <= limit && pipeline(run) <= limit, "{alg:?} {limit}");
                assert!(2 * run * std::mem::size_of::<Kvp>() <= limit, "{alg:?} {limit}: two buffers");
                assert!(pipeline(run + 1) > limit, "{alg:?} {limit}: run could be longer");
            }
        }
        assert!(matches!(run_len::<u32>(FIXED_BYTES, Algorithm::Radix), Err(SortError::InvalidArgument(_))));
        assert!(matches!(run_len::<u32>(0, Algorithm::Radix), Err(SortError::InvalidArgument(_))));
    }
}
