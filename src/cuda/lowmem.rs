//! Sorts of device buffers that nearly fill the device: when a device-resident sort's scratch
//! cannot be had from the pool, it sorts in the caller's buffer with what is free. One buffer
//! of the free memory (`cuMemAlloc`) is taken up front (so nothing is written unless the whole sort can run);
//! the data is cut into runs that each sort in place with that buffer as their scratch, then the
//! runs are merged into the sorted prefix one by one: the next run is copied into the buffer, and
//! the merge writes the prefix and that copy back into their places from the top down, one
//! window at a time. A window's outputs only overwrite prefix items that it or a window above
//! it reads, so each window's share of the prefix is copied aside first (the rest of the buffer)
//! and the window merges from the two copies. Window bounds are found on the merge path by a
//! binary search with reads of single items (the host waits for each): the sort synchronises.

use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{result, CudaSlice, CudaStream, DevicePtrMut};

use super::device::is_capturing;
use super::dispatch::{DeviceItem, DeviceSort};
use super::key_class::CudaKey;
use super::multi::merge::merge_runs;
use super::radix::Dev;
use super::scratch::{Arena, ALIGN};
use crate::{Algorithm, Order, SortError};

/// Most runs: the merges move the prefix once per run, so the cost grows with their square.
const MAX_RUNS: usize = 32;
/// Fewest items per run; fewer would take more windows than they save.
const MIN_RUN: usize = 1 << 16;
/// Memory left to the driver beside the buffer: its own allocations while the sort runs.
const MARGIN_BYTES: usize = 8 << 20;

/// How a sort in the free memory is cut: runs of `run` items, windows of `window` items, in one
/// buffer of `bytes`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Plan {
    pub(crate) run: usize,
    pub(crate) window: usize,
    pub(crate) bytes: usize,
}

impl Plan {
    /// The longest runs whose sorts (`need(run)` bytes of scratch) and merges (a run and a
    /// window of items of `size` bytes) fit `room` bytes; `None` when even `MAX_RUNS` runs do not.
    pub(crate) fn fit(
        n: usize,
        size: usize,
        room: usize,
        need: impl Fn(usize) -> Result<usize, SortError>,
    ) -> Result<Option<Plan>, SortError> {
        let plan = |run: usize| -> Result<Plan, SortError> {
            let window = (run / 4).clamp(MIN_RUN.min(run), run.max(1));
            let merge = (run * size).next_multiple_of(ALIGN) + window * size;
            Ok(Plan { run, window, bytes: need(run)?.max(merge) })
        };
        let fewest = n.div_ceil(MAX_RUNS).max(MIN_RUN).min(n);
        if n < 2 || plan(fewest)?.bytes > room {
            return Ok(None);
        }
        // The need grows with the run: the longest run that fits, by bisection.
        let (mut lo, mut hi) = (fewest, n);
        while lo < hi {
            let mid = lo + (hi - lo).div_ceil(2);
            if plan(mid)?.bytes <= room {
                lo = mid;
            } else {
                hi = mid - 1;
            }
        }
        plan(lo).map(Some)
    }
}

/// Sorts device-resident keys (`CudaKey::device`); where that sort runs on the pool
/// (`on_pool`) and the pool cannot give its scratch, in the free memory (`sort`).
pub(crate) fn sort_keys<K: CudaKey>(
    sort: &DeviceSort,
    stream: &Arc<CudaStream>,
    keys: &mut CudaSlice<K>,
    on_pool: bool,
) -> Result<(), SortError> {
    match K::device(sort, stream, keys, None) {
        Err(e @ SortError::OutOfMemory { .. }) if on_pool => {
            let need = |n| K::device_need(sort, n, false);
            self::sort(sort, stream, keys, e, need, |s, stream, run| K::device(s, stream, run, None))
        }
        r => r,
    }
}

/// Sorts `data` in place in the device's free memory, with `sort_run` sorting each run on the
/// scratch it is given (`need(len)` bytes of it). `Err(refused)` at once, the data untouched,
/// where this cannot run: a stream being captured (the sort waits for the host), an algorithm
/// other than radix, items without a merge kernel, or too little free memory
/// (`OutOfMemory`).
pub(crate) fn sort<T: DeviceItem>(
    sort: &DeviceSort,
    stream: &Arc<CudaStream>,
    data: &mut CudaSlice<T>,
    refused: SortError,
    need: impl Fn(usize) -> Result<usize, SortError>,
    sort_run: impl Fn(&DeviceSort, &Arc<CudaStream>, &mut CudaSlice<T>) -> Result<(), SortError>,
) -> Result<(), SortError> {
    if T::SPREAD.is_none() || !matches!(sort.algorithm, Algorithm::Auto | Algorithm::Radix) || is_capturing(stream)? {
        return Err(refused);
    }
    let (gpu, n, size) = (sort.gpu, data.len(), size_of::<T>());
    // What the pool keeps is free for this sort.
    stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))?;
    gpu.trim_pool();
    let (free, _) = gpu.ctx.mem_get_info().map_err(SortError::driver("cuMemGetInfo", 0))?;
    let (plan, buffer) = take_buffer(stream, n, size, free, &need)?;
    let bp = buffer.ptr;
    let (dp, _gd) = data.device_ptr_mut(stream);
    // SAFETY: `n` items of the caller's buffer and the new buffer, both live, borrowed (so used by
    // nothing else) until the work queued here has finished (the guards order later uses).
    let all = unsafe { Dev::<T>::new(dp, n) };
    for start in (0..n).step_by(plan.run) {
        let len = plan.run.min(n - start);
        // SAFETY: a stretch of the caller's buffer, as above; freed by its owner, never here.
        let mut run = unsafe { super::scratch::Borrowed::<T>::new(stream, all.range(start, len).ptr(), len) };
        let arena = Arena::new(bp, plan.bytes);
        let on_buffer = DeviceSort { scratch: super::scratch::Scratch::of(Some(&arena)), ..*sort };
        sort_run(&on_buffer, stream, &mut run)?;
    }
    let merge = Merge { gpu: sort.gpu, stream, order: sort.order, all, buffer: bp, plan };
    let mut sorted = plan.run.min(n);
    while sorted < n {
        let len = plan.run.min(n - sorted);
        merge.next_run(sorted, len)?;
        sorted += len;
    }
    Ok(())
}

/// The largest plan whose buffer the driver gives, and that buffer: from `free` bytes less a
/// margin, and less again while the allocation fails (the driver's granularity, other users of
/// the device). `OutOfMemory`, nothing allocated, where no plan's buffer can be had.
fn take_buffer<'a>(
    stream: &'a Arc<CudaStream>,
    n: usize,
    size: usize,
    free: usize,
    need: &impl Fn(usize) -> Result<usize, SortError>,
) -> Result<(Plan, Buffer<'a>), SortError> {
    let mut room = free.saturating_sub(MARGIN_BYTES + free / 128);
    let mut refused = None;
    for _ in 0..8 {
        let Some(plan) = Plan::fit(n, size, room, need)? else { break };
        match Buffer::alloc(stream, plan.bytes) {
            Ok(b) => return Ok((plan, b)),
            Err(e) => refused = Some(e),
        }
        room -= room / 8;
    }
    Err(refused.unwrap_or(SortError::OutOfMemory {
        op: "device sort in the free memory (runs of the data and their merge)",
        bytes: need(n.div_ceil(MAX_RUNS))?.saturating_add(MARGIN_BYTES),
    }))
}

/// Device memory from `cuMemAlloc`, which takes what is free to the 2 MiB page (the pool rounds
/// large requests up further); freed once `stream` has finished with it.
struct Buffer<'a> {
    ptr: CUdeviceptr,
    stream: &'a Arc<CudaStream>,
}

impl<'a> Buffer<'a> {
    fn alloc(stream: &'a Arc<CudaStream>, bytes: usize) -> Result<Buffer<'a>, SortError> {
        // SAFETY: a plain allocation in the bound context (the caller's stream's); every byte is
        // written (by the run sorts and the copies) before it is read.
        let ptr = unsafe { result::malloc_sync(bytes) }
            .map_err(SortError::driver("device sort in the free memory (its buffer)", bytes))?;
        Ok(Buffer { ptr, stream })
    }
}

impl Drop for Buffer<'_> {
    fn drop(&mut self) {
        // The work queued with the buffer ends first, on success and failure alike.
        let _ = self.stream.synchronize();
        // SAFETY: allocated by `alloc`, freed once, nothing queued uses it any more.
        let _ = unsafe { result::free_sync(self.ptr) };
    }
}

/// The merge of the sorted prefix with the next run, in the caller's buffer.
struct Merge<'a, T> {
    gpu: &'a super::device::Gpu,
    stream: &'a Arc<CudaStream>,
    order: Order,
    all: Dev<T>,
    buffer: CUdeviceptr,
    plan: Plan,
}

impl<T: DeviceItem> Merge<'_, T> {
    /// Merges `all[0..prefix]` (sorted) with the sorted run `all[prefix..prefix + len]` into
    /// `all[0..prefix + len]`, stably (the prefix's items first among equals).
    fn next_run(&self, prefix: usize, len: usize) -> Result<(), SortError> {
        let size = size_of::<T>();
        // SAFETY: the buffer's first `run` items and, past them, `window` items (`Plan::fit`).
        let (copy, aside) = unsafe {
            let aside = self.buffer + (self.plan.run * size).next_multiple_of(ALIGN) as u64;
            (Dev::<T>::new(self.buffer, len), Dev::<T>::new(aside, self.plan.window))
        };
        copy_items(self.stream, self.all.range(prefix, len), copy)?;
        let total = prefix + len;
        // `taken_from_prefix(d)`: how many of the first d outputs come from the prefix.
        let (mut top, mut from_top) = (total, prefix);
        // Once the outputs below `top` take no item of the run, they are the prefix's first
        // items, already in place.
        while top > from_top {
            let low = top.saturating_sub(self.plan.window);
            let from_low = self.taken_from_prefix(low, prefix, copy)?;
            let (na, j_low, j_top) = (from_top - from_low, low - from_low, top - from_top);
            copy_items(self.stream, self.all.range(from_low, na), aside.range(0, na))?;
            let out = self.all.range(low, top - low);
            merge_runs(self.gpu, self.stream, aside.range(0, na), copy.range(j_low, j_top - j_low), out, self.order)?;
            (top, from_top) = (low, from_low);
        }
        Ok(())
    }

    /// Where diagonal `d` of the merge of the prefix (`na` items at the start of the data) and
    /// the run's copy crosses the prefix: the merge kernel's own search (`co_rank` in
    /// multi.cu), ties to the prefix, with the items read one at a time.
    fn taken_from_prefix(&self, d: usize, na: usize, copy: Dev<T>) -> Result<usize, SortError> {
        let nb = copy.len();
        let (mut lo, mut hi) = (d.saturating_sub(nb), d.min(na));
        while lo < hi {
            let mid = lo + (hi - lo) / 2;
            let (a, b) = (self.key(self.all.range(mid, 1))?, self.key(copy.range(d - 1 - mid, 1))?);
            if a <= b {
                lo = mid + 1;
            } else {
                hi = mid;
            }
        }
        Ok(lo)
    }

    /// The ordered key of one item in this sort's order.
    fn key(&self, at: Dev<T>) -> Result<u64, SortError> {
        let mut item = [unsafe { std::mem::zeroed::<T>() }];
        // SAFETY: one item of device memory into one host item of the same type; the wait below
        // ends the copy before the item is read.
        unsafe { result::memcpy_dtoh_async(&mut item, at.ptr(), self.stream.cu_stream()) }
            .map_err(SortError::driver("copy to host", size_of::<T>()))?;
        self.stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))?;
        let k = item[0].merge_key();
        Ok(if self.order == Order::Descending { !k } else { k })
    }
}

/// `from` to `to` (as many items as `from` holds), queued on `stream`.
fn copy_items<T>(stream: &Arc<CudaStream>, from: Dev<T>, to: Dev<T>) -> Result<(), SortError> {
    let bytes = from.len() * size_of::<T>();
    if bytes == 0 {
        return Ok(());
    }
    assert!(to.len() >= from.len());
    // SAFETY: both ranges are live device memory of `bytes` (the callers' buffers), apart.
    unsafe { result::memcpy_dtod_async(to.ptr(), from.ptr(), bytes, stream.cu_stream()) }
        .map_err(SortError::driver("copy on the device", bytes))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_plan_takes_the_longest_runs_that_fit() {
        let need = |run: usize| Ok(run * 4 + 4096);
        let n = 100 << 20;
        // A quarter of the data free: runs of about n / 5 (a run and its window beside it).
        let plan = Plan::fit(n, 4, n, need).unwrap().unwrap();
        assert!(plan.bytes <= n && plan.run * 5 <= n + 5 && plan.run * 6 > n, "{plan:?}");
        assert_eq!(plan.window, plan.run / 4);
        // All of it fits: one run.
        assert_eq!(Plan::fit(n, 4, 8 * n, need).unwrap().unwrap().run, n);
        // Less than MAX_RUNS runs can use: none.
        assert_eq!(Plan::fit(n, 4, n / 40, need).unwrap(), None);
        assert_eq!(Plan::fit(1, 4, 1 << 30, need).unwrap(), None);
        // Short data: one run of all of it, its window all of it too.
        let small = Plan::fit(1000, 8, 1 << 20, need).unwrap().unwrap();
        assert_eq!((small.run, small.window), (1000, 1000));
    }
}
