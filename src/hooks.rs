//! Test hooks for the host path: failure injection and knobs that make small inputs take the
//! paths large ones take (many chunks, a pinned ring smaller than the data). Public only with the
//! `testing` feature, for gpusort's own tests; without it every check is a constant.
//!
//! Everything is per thread (the thread that calls the sort), so tests running side by side do
//! not see each other's settings. Unarmed, each check is one relaxed load of a static flag.

#[cfg(feature = "testing")]
pub(crate) use armed::{
    chunk_bytes, hit, in_place, in_place_from, pinned_cap, records_on_device_from, split_pairs_from,
};
#[cfg(feature = "testing")]
pub use armed::{
    clear, in_place_sorts, inject, set_chunk_bytes, set_in_place_from, set_pinned_cap, set_records_on_device_from,
    set_split_pairs_from, STEPS,
};
#[cfg(not(feature = "testing"))]
pub(crate) use unarmed::{
    chunk_bytes, hit, in_place, in_place_from, pinned_cap, records_on_device_from, split_pairs_from,
};

/// A step of a host-to-host GPU sort that can be made to fail.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Step {
    /// Taking the pinned staging buffers for a sort (pinning them when they must grow).
    PinnedAlloc,
    /// A device buffer for the data of a run or block.
    DeviceAlloc,
    /// Before a chunk is copied into pinned memory (as if the staging could not be had).
    PinnedCopy,
    /// The host-to-device copy of a chunk.
    Upload,
    /// The sort launch.
    Sort,
    /// The device-to-host copy of a chunk, or the wait for it.
    Download,
    /// The CPU merge of an out-of-core sort past the held cap, before it writes anything.
    Merge,
    /// A sort spread over several devices: each launch of the search for the rank boundaries
    /// and each copy of a piece between devices.
    Exchange,
}

#[cfg(not(feature = "testing"))]
mod unarmed {
    use super::Step;
    use crate::SortError;

    #[inline(always)]
    pub(crate) fn hit(_: Step) -> Result<(), SortError> {
        Ok(())
    }

    #[inline(always)]
    pub(crate) fn chunk_bytes() -> Option<usize> {
        None
    }

    #[inline(always)]
    pub(crate) fn pinned_cap() -> Option<usize> {
        None
    }

    #[inline(always)]
    pub(crate) fn split_pairs_from() -> Option<usize> {
        None
    }

    #[inline(always)]
    pub(crate) fn records_on_device_from() -> Option<usize> {
        None
    }

    #[inline(always)]
    pub(crate) fn in_place() {}

    #[inline(always)]
    pub(crate) fn in_place_from() -> Option<usize> {
        None
    }
}

#[cfg(feature = "testing")]
mod armed {
    use std::cell::Cell;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::Step;

    /// Every step, in the order a sort meets them.
    pub const STEPS: [Step; 8] = [
        Step::PinnedAlloc,
        Step::DeviceAlloc,
        Step::PinnedCopy,
        Step::Upload,
        Step::Sort,
        Step::Exchange,
        Step::Download,
        Step::Merge,
    ];

    static ARMED: AtomicBool = AtomicBool::new(false);

    thread_local! {
        static PLAN: Cell<Option<(Step, usize)>> = const { Cell::new(None) };
        static FIRED: Cell<bool> = const { Cell::new(false) };
        static CHUNK_BYTES: Cell<usize> = const { Cell::new(0) };
        static PINNED_CAP: Cell<usize> = const { Cell::new(0) };
        static SPLIT_PAIRS_FROM: Cell<usize> = const { Cell::new(0) };
        static RECORDS_ON_DEVICE_FROM: Cell<usize> = const { Cell::new(0) };
        static IN_PLACE: Cell<usize> = const { Cell::new(0) };
        static IN_PLACE_FROM: Cell<usize> = const { Cell::new(0) };
    }

    /// Copies page-locked data of at least `bytes` in place in this thread (0: the tuned
    /// `tuning::IN_PLACE_FROM_BYTES`), so that small inputs take that path.
    pub fn set_in_place_from(bytes: usize) {
        ARMED.store(true, Ordering::Relaxed);
        IN_PLACE_FROM.set(bytes);
    }

    pub(crate) fn in_place_from() -> Option<usize> {
        if !armed() {
            return None;
        }
        Some(IN_PLACE_FROM.get()).filter(|&b| b > 0)
    }

    /// How many host sorts of this thread have copied page-locked data in place (no host copy),
    /// so that a test can tell which path its sort took.
    pub fn in_place_sorts() -> usize {
        IN_PLACE.get()
    }

    pub(crate) fn in_place() {
        IN_PLACE.set(IN_PLACE.get() + 1);
    }

    /// Makes the `nth` (from 0) occurrence of `step` in this thread's next sorts fail once.
    pub fn inject(step: Step, nth: usize) {
        ARMED.store(true, Ordering::Relaxed);
        PLAN.set(Some((step, nth)));
        FIRED.set(false);
    }

    /// Disarms the injection; true when it fired.
    pub fn clear() -> bool {
        PLAN.set(None);
        FIRED.replace(false)
    }

    /// Transfers in chunks of `bytes` in this thread (0: the tuned size).
    pub fn set_chunk_bytes(bytes: usize) {
        ARMED.store(true, Ordering::Relaxed);
        CHUNK_BYTES.set(bytes);
    }

    /// Caps the held pinned buffer at `bytes` in this thread (0: the tuned cap), so that small inputs
    /// take the path of inputs too large to keep a copy of (the ring both ways, host scratch).
    pub fn set_pinned_cap(bytes: usize) {
        ARMED.store(true, Ordering::Relaxed);
        PINNED_CAP.set(bytes);
    }

    /// Sends split 32-bit pairs of at least `n` items (and in the held buffer) as two arrays in
    /// this thread (0: the tuned `tuning::SPLIT_ROUND_TRIP_FROM`), so that small inputs take that path.
    pub fn set_split_pairs_from(n: usize) {
        ARMED.store(true, Ordering::Relaxed);
        SPLIT_PAIRS_FROM.set(n);
    }

    /// Puts records of at least `bytes` in order on the GPU in this thread's `sort_by_key` (0:
    /// the tuned `tuning::RECORDS_ON_DEVICE_FROM_BYTES`), so that small inputs take that path.
    pub fn set_records_on_device_from(bytes: usize) {
        ARMED.store(true, Ordering::Relaxed);
        RECORDS_ON_DEVICE_FROM.set(bytes);
    }

    #[inline(always)]
    fn armed() -> bool {
        ARMED.load(Ordering::Relaxed)
    }

    /// `Err` when an injected failure is due at this step.
    #[inline(always)]
    pub(crate) fn hit(step: Step) -> Result<(), crate::SortError> {
        if armed() {
            return hit_slow(step);
        }
        Ok(())
    }

    #[cold]
    fn hit_slow(step: Step) -> Result<(), crate::SortError> {
        match PLAN.get() {
            Some((s, 0)) if s == step => {
                PLAN.set(None);
                FIRED.set(true);
                Err(crate::SortError::Driver {
                    op: "injected fault",
                    source: cudarc::driver::DriverError(cudarc::driver::sys::CUresult::CUDA_ERROR_UNKNOWN),
                })
            }
            Some((s, k)) if s == step => {
                PLAN.set(Some((s, k - 1)));
                Ok(())
            }
            _ => Ok(()),
        }
    }

    pub(crate) fn chunk_bytes() -> Option<usize> {
        if !armed() {
            return None;
        }
        Some(CHUNK_BYTES.get()).filter(|&b| b > 0)
    }

    pub(crate) fn pinned_cap() -> Option<usize> {
        if !armed() {
            return None;
        }
        Some(PINNED_CAP.get()).filter(|&b| b > 0)
    }

    pub(crate) fn split_pairs_from() -> Option<usize> {
        if !armed() {
            return None;
        }
        Some(SPLIT_PAIRS_FROM.get()).filter(|&n| n > 0)
    }

    pub(crate) fn records_on_device_from() -> Option<usize> {
        if !armed() {
            return None;
        }
        Some(RECORDS_ON_DEVICE_FROM.get()).filter(|&n| n > 0)
    }
}
