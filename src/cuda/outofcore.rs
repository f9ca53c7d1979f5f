//! Out-of-core hybrid sort: an input whose sort does not fit in the device memory budget is cut
//! into runs that do; each run is uploaded, sorted on the GPU and downloaded, then the runs are
//! combined into the caller's slice:
//! - up to the pinned staging cap, the runs live in the pinned upload buffer and pipeline on one
//!   stream, and the GPU combines them too: the output is cut into blocks at the runs' merge
//!   positions, and each block's pieces are sorted again on the device (see `staged`);
//! - beyond it, each run makes a host round trip of its own into a host scratch buffer, and a
//!   parallel k-way merge on all cores (`crate::merge`) combines them.
//!
//! Runs are as equal as the length allows (they differ by at most one item) and need not be
//! powers of two. A failure before the caller's slice is first written leaves it untouched; after
//! that (the GPU blocks), the CPU merge finishes the job, so the slice ends completely sorted.

use std::sync::Arc;

use cudarc::driver::{CudaEvent, CudaSlice, CudaStream, DeviceRepr};

use super::pipeline;
use super::staging::{MergeKey, ZeroedBuf};
use super::Gpu;
use crate::hooks::{self, Step};
use crate::{merge, Algorithm, Order, SortError};

/// Device bytes not proportional to the length that a sort may need (counters, plan, alignment).
pub(crate) const FIXED_BYTES: usize = 64 << 10;

/// Device bytes per item a sort of `T` with `algorithm` needs: the data, plus for radix the
/// ping-pong copy and about half a byte per item of look-back status (rounded up to one), for
/// odd-even merge its second buffer; bitonic sorts in place.
pub(crate) fn bytes_per_item<T>(algorithm: Algorithm) -> usize {
    let size = std::mem::size_of::<T>();
    match algorithm {
        Algorithm::Bitonic => size,
        Algorithm::OddEvenMerge => 2 * size,
        _ => 2 * size + 1,
    }
}

/// Device bytes a one-run sort of `n` items needs.
pub(crate) fn need_bytes<T>(n: usize, algorithm: Algorithm) -> usize {
    n.saturating_mul(bytes_per_item::<T>(algorithm)).saturating_add(FIXED_BYTES)
}

/// The longest run whose sort fits in `limit` bytes; `InvalidArgument` when not even one item does.
pub(crate) fn run_len<T>(limit: usize, algorithm: Algorithm) -> Result<usize, SortError> {
    let run = limit.saturating_sub(FIXED_BYTES) / bytes_per_item::<T>(algorithm);
    if run == 0 {
        return Err(SortError::InvalidArgument(format!(
            "a device memory limit of {limit} bytes is too small: one item sorted with {algorithm:?} needs {}",
            need_bytes::<T>(1, algorithm)
        )));
    }
    Ok(run)
}

/// Sorts `host` in runs of at most `run` items, then merges them in `order`.
pub(crate) fn sort<T, S>(gpu: &Gpu, host: &mut [T], run: usize, order: Order, sort: S) -> Result<(), SortError>
where
    T: DeviceRepr + MergeKey,
    S: Fn(&Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
{
    let n = host.len();
    let runs = n.div_ceil(run.max(1));
    let bounds: Vec<usize> = (0..=runs).map(|r| (n as u128 * r as u128 / runs as u128) as usize).collect();
    if let Some(r) = staged(gpu, host, &bounds, order, &sort) {
        return r;
    }
    // Too large for the pinned buffer (or it is busy): each run makes its own round trip into a
    // host scratch buffer.
    let mut aux = ZeroedBuf::<T>::new(n)?;
    let scratch = aux.as_mut_slice();
    for w in bounds.windows(2) {
        pipeline::sort_into(gpu, &host[w[0]..w[1]], &mut scratch[w[0]..w[1]], &sort)?;
    }
    merge_into(aux.as_slice(), &bounds, host, order)
}

/// The whole input in the pinned upload buffer, in two phases:
/// 1. each run goes up from there, is sorted, and its result comes back to the same place;
/// 2. the output is cut into blocks no longer than a run; block j holds, from every run, the items
///    between the cuts j and j + 1 (`merge::select`). Those pieces, sent up in run order and sorted
///    stably, are exactly the merge's block j; it comes back through the download ring straight
///    into the caller's slice. This replaced a k-way merge on the CPU: H200 machine, 64M pairs in
///    4 runs, 88.8 ms against 30.4 ms for one run, most of it the merge; 51.4 ms with the GPU
///    blocks on one stream.
///
/// Uploads run on a stream of their own, one run (or block) ahead: the next one goes up while the
/// current one is sorted and comes back, the two copy directions overlapping on the bus. The
/// device then holds two data buffers at once, which is what a radix sort of one run needs anyway
/// (data and scratch): the next buffer is allocated after the current sort has freed its scratch,
/// and the current one is freed in stream order before the next sort allocates, so the sort stays
/// within the budget.
///
/// If a step of phase 2 fails, the CPU merges the runs (still in the pinned buffer) into the
/// caller's slice instead, which leaves it completely sorted. `None` when the input is larger than
/// the pinned cap or the staging is in use.
fn staged<T, S>(gpu: &Gpu, host: &mut [T], bounds: &[usize], order: Order, sort: &S) -> Option<Result<(), SortError>>
where
    T: DeviceRepr + MergeKey,
    S: Fn(&Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
{
    let n = host.len();
    let longest = bounds.windows(2).map(|w| w[1] - w[0]).max().unwrap_or(0);
    let (chunk, _, down_len) = pipeline::layout::<T>(longest);
    let (_, up_len, _) = pipeline::layout::<T>(n);
    if up_len < n {
        return None;
    }
    let size = std::mem::size_of::<T>();
    let streams = pipeline::begin(gpu).and_then(|main| {
        let uploads = gpu.ctx.new_stream().map_err(SortError::driver("cuStreamCreate", 0))?;
        Ok((main, uploads))
    });
    let (stream, uploads) = match streams {
        Ok(s) => s,
        Err(e) => return Some(Err(e)),
    };
    let mut lease = match gpu.staging.lease(&gpu.ctx, std::mem::size_of_val(host), down_len * size) {
        Ok(Some(l)) => l,
        Ok(None) => return None,
        Err(e) => return Some(Err(e)),
    };
    let (up, down) = lease.regions::<T>(n, down_len);
    let ahead = Ahead { main: &stream, uploads: &uploads };
    let result = (|| {
        let runs: Vec<(usize, usize)> = bounds.windows(2).map(|w| (w[0], w[1])).collect();
        let (a, b) = runs[0];
        let mut next =
            Some(ahead.upload(b - a, |dev| pipeline::upload(&uploads, &host[a..b], &mut up[a..b], dev, chunk))?);
        for (r, &(a, b)) in runs.iter().enumerate() {
            let (mut dev, ready) = next.take().expect("queued one ahead");
            stream.wait(&ready).map_err(SortError::driver("cuStreamWaitEvent", 0))?;
            hooks::hit(Step::Sort)?;
            sort(&stream, &mut dev)?;
            if let Some(&(c, d)) = runs.get(r + 1) {
                let (src, dst) = (&host[c..d], &mut up[c..d]);
                next = Some(ahead.upload(d - c, |dev| pipeline::upload(&uploads, src, dst, dev, chunk))?);
            }
            for start in (a..b).step_by(chunk) {
                let end = (start + chunk).min(b);
                hooks::hit(Step::Download)?;
                // The same pinned range the run went up from: its upload is done (the sort waited).
                stream
                    .memcpy_dtoh(&dev.slice(start - a..end - a), &mut up[start..end])
                    .map_err(SortError::driver("copy to host", (end - start) * size))?;
            }
        }
        Ok(())
    })();
    // Every run is back (or failed) before anything reads the pinned buffer.
    let uploaded = pipeline::finish(&uploads, Ok(()));
    if let Err(e) = pipeline::finish(&stream, result).and(uploaded) {
        return Some(Err(e));
    }
    let up: &[T] = up;
    let runs: Vec<&[T]> = bounds.windows(2).map(|w| &up[w[0]..w[1]]).collect();
    let blocks = n.div_ceil(longest.max(1));
    let cut = |rank: usize| match order {
        Order::Ascending => merge::select(&runs, rank, &|x: &T| x.merge_key()),
        Order::Descending => merge::select(&runs, rank, &|x: &T| !x.merge_key()),
    };
    let cuts: Vec<Vec<usize>> = (0..=blocks).map(|j| cut(n * j / blocks)).collect();
    let span = |j: usize| (n * j / blocks, n * (j + 1) / blocks);
    // Block j's pieces, one per run, into `dev` in run order.
    let send = |j: usize, dev: &mut CudaSlice<T>| -> Result<(), SortError> {
        let mut at = 0;
        for (r, run) in runs.iter().enumerate() {
            let piece = &run[cuts[j][r]..cuts[j + 1][r]];
            if !piece.is_empty() {
                hooks::hit(Step::Upload)?;
                uploads
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
            let (a, b) = span(j);
            let (mut dev, ready) = next.take().expect("queued one ahead");
            stream.wait(&ready).map_err(SortError::driver("cuStreamWaitEvent", 0))?;
            hooks::hit(Step::Sort)?;
            sort(&stream, &mut dev)?;
            if j + 1 < blocks {
                let (c, d) = span(j + 1);
                next = Some(ahead.upload(d - c, |dev| send(j + 1, dev))?);
            }
            pipeline::download(&stream, &dev, &mut host[a..b], down, chunk).map_err(|(e, _)| e)?;
        }
        Ok(())
    })();
    let uploaded = pipeline::finish(&uploads, Ok(()));
    Some(match pipeline::finish(&stream, merged).and(uploaded) {
        Ok(()) => Ok(()),
        // The runs are intact in the pinned buffer: merging them on the CPU rewrites all of
        // `host`, whatever the failed phase left in it.
        Err(_) => {
            merge_runs_into(up, bounds, host, order);
            Ok(())
        }
    })
}

/// Queues uploads one run or block ahead of the sorts (see `staged`).
struct Ahead<'a> {
    main: &'a Arc<CudaStream>,
    uploads: &'a Arc<CudaStream>,
}

impl Ahead<'_> {
    /// A device buffer of `len` items filled by `fill` on the upload stream, and the event that
    /// says it is full. The buffer is allocated on the main stream, at its current point (after the
    /// sort just queued, whose scratch is then free again), and freed there when dropped, in order
    /// after the main stream's last use of it.
    fn upload<T: DeviceRepr>(
        &self,
        len: usize,
        fill: impl FnOnce(&mut CudaSlice<T>) -> Result<(), SortError>,
    ) -> Result<(CudaSlice<T>, CudaEvent), SortError> {
        let mut dev = pipeline::device_buffer::<T>(self.main, len)?;
        let allocated = self.main.record_event(None).map_err(SortError::driver("cuEventRecord", 0))?;
        self.uploads.wait(&allocated).map_err(SortError::driver("cuStreamWaitEvent", 0))?;
        fill(&mut dev)?;
        let ready = self.uploads.record_event(None).map_err(SortError::driver("cuEventRecord", 0))?;
        Ok((dev, ready))
    }
}

/// Merges the sorted runs `sorted[bounds[r]..bounds[r + 1]]` into `host`: the only write to it.
fn merge_into<T: MergeKey>(sorted: &[T], bounds: &[usize], host: &mut [T], order: Order) -> Result<(), SortError> {
    hooks::hit(Step::Merge)?;
    merge_runs_into(sorted, bounds, host, order);
    Ok(())
}

/// The merge itself: infallible.
fn merge_runs_into<T: MergeKey>(sorted: &[T], bounds: &[usize], host: &mut [T], order: Order) {
    let parts: Vec<&[T]> = bounds.windows(2).map(|w| &sorted[w[0]..w[1]]).collect();
    match order {
        Order::Ascending => merge::merge_runs(&parts, host, |x| x.merge_key()),
        Order::Descending => merge::merge_runs(&parts, host, |x| !x.merge_key()),
    }
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
