//! Raw-pointer plumbing shared by the radix passes.
//!
//! The passes ping-pong items between the caller's slice and a scratch buffer that is never
//! initialised as a whole (zeroing it would cost a full extra pass over memory), so they address
//! both through pointers: every slot is written before it is read.

use crate::alloc::{try_vec, AllocError};

/// A pointer that may cross rayon's thread boundary. Callers hand disjoint ranges to each task.
pub(crate) struct Ptr<T>(pub *mut T);

impl<T> Clone for Ptr<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Ptr<T> {}

// SAFETY: a `Ptr` is only dereferenced on ranges that one task owns at a time (see each caller).
unsafe impl<T: Send> Send for Ptr<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Ptr<T> {}

impl<T> Ptr<T> {
    #[inline(always)]
    pub(crate) fn at(self, i: usize) -> Ptr<T> {
        // SAFETY: callers stay within the allocation they split.
        Ptr(unsafe { self.0.add(i) })
    }
}

/// Scratch buffers at least this large are kept for the next sort: a fresh one costs a page fault
/// per 4 KiB on first touch (zeroing included), a noticeable share of a 16M-pair sort.
const KEEP_MIN_BYTES: usize = 1 << 20;
/// Larger buffers are returned to the allocator after the sort.
const KEEP_MAX_BYTES: usize = 1 << 30;

/// The last large scratch buffer, in 16-byte words so it suits any item aligned to 16 or less.
/// Only ever `try_lock`ed: a sort that finds it busy allocates its own buffer rather than wait,
/// so a lock held by another thread when the process forked cannot block the child.
static KEPT: std::sync::Mutex<Vec<u128>> = std::sync::Mutex::new(Vec::new());

/// The kept buffer, unless another thread holds it at this instant.
fn kept() -> Option<std::sync::MutexGuard<'static, Vec<u128>>> {
    match KEPT.try_lock() {
        Ok(g) => Some(g),
        Err(std::sync::TryLockError::Poisoned(p)) => Some(p.into_inner()),
        Err(std::sync::TryLockError::WouldBlock) => None,
    }
}

/// Frees the scratch buffer kept from earlier sorts (up to 1 GiB; it is reused by the next large
/// sort otherwise). A sort running meanwhile may keep its buffer when it ends.
///
/// ```
/// let mut v: Vec<u32> = (0..1_000_000u32).map(|i| i.wrapping_mul(2654435761)).collect();
/// gpusort_cpu::sort_keys(&mut v, gpusort_cpu::Order::Ascending)?;
/// gpusort_cpu::release_scratch(); // a long-lived process gives the scratch back
/// # Ok::<(), gpusort_cpu::AllocError>(())
/// ```
pub fn release_scratch() {
    // The lock is held for a swap at most: a few tries find it free.
    for _ in 0..1000 {
        if let Some(mut k) = kept() {
            let old = std::mem::take(&mut *k);
            drop(k);
            drop(old);
            return;
        }
        std::thread::yield_now();
    }
}

/// Bytes of the scratch buffer kept from earlier sorts now (0 while a sort is using it).
pub fn kept_scratch_bytes() -> usize {
    kept().map_or(0, |k| k.capacity() * std::mem::size_of::<u128>())
}

/// Scratch room for `n` items; its contents start uninitialised.
pub(crate) struct Scratch<T> {
    words: Vec<u128>,
    own: Vec<T>,
}

impl<T: Copy> Scratch<T> {
    pub(crate) fn new(n: usize) -> Result<Self, AllocError> {
        let bytes = n.saturating_mul(std::mem::size_of::<T>());
        if std::mem::align_of::<T>() <= 16 && (KEEP_MIN_BYTES..=KEEP_MAX_BYTES).contains(&bytes) {
            let mut words = kept().map(|mut k| std::mem::take(&mut *k)).unwrap_or_default();
            let need = bytes.div_ceil(16);
            if words.capacity() < need {
                // Freed first: the old buffer and its replacement need not fit at once.
                drop(words);
                words = try_vec(need)?;
            }
            return Ok(Scratch { words, own: Vec::new() });
        }
        // Too large to keep: the kept buffer, if any, is worth freeing to make room.
        let own = try_vec(n).or_else(|_| {
            release_scratch();
            try_vec(n)
        })?;
        Ok(Scratch { words: Vec::new(), own })
    }

    pub(crate) fn ptr(&mut self) -> Ptr<T> {
        if self.words.capacity() > 0 {
            Ptr(self.words.as_mut_ptr() as *mut T)
        } else {
            Ptr(self.own.as_mut_ptr())
        }
    }
}

impl<T> Drop for Scratch<T> {
    fn drop(&mut self) {
        if self.words.capacity() > 0 {
            if let Some(mut kept) = kept() {
                // Two sorts at once: keep the larger buffer.
                if kept.capacity() < self.words.capacity() {
                    std::mem::swap(&mut *kept, &mut self.words);
                }
            }
        }
    }
}

/// Copies `len` items between two non-overlapping ranges.
///
/// # Safety
/// Both ranges valid for `len` items and disjoint; `src` initialised.
#[inline]
pub(crate) unsafe fn copy<T: Copy>(src: Ptr<T>, dst: Ptr<T>, len: usize) {
    std::ptr::copy_nonoverlapping(src.0 as *const T, dst.0, len);
}

thread_local! {
    /// Each thread's buffer for the LSD passes of one bucket. Reused bucket after bucket, it stays
    /// in the thread's L2, where a fresh stretch of the big scratch buffer would not be.
    static HOT: std::cell::RefCell<Vec<u128>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Whether [`with_hot`] can hold items of type `T`.
pub(crate) fn hot_fits<T>() -> bool {
    std::mem::align_of::<T>() <= 16
}

/// Runs `f` with this thread's hot buffer, grown to room for `len` items (contents undefined);
/// `None`, without running `f`, when the buffer cannot grow (the caller has a path without it).
/// `f` must not sort on this thread meanwhile (the buffer is borrowed).
pub(crate) fn with_hot<T, R>(len: usize, f: impl FnOnce(Ptr<T>) -> R) -> Option<R> {
    assert!(hot_fits::<T>());
    HOT.with(|h| {
        let mut words = h.borrow_mut();
        let need = len.saturating_mul(std::mem::size_of::<T>()).div_ceil(16);
        if words.capacity() < need {
            *words = Vec::new();
            *words = try_vec(need).ok()?;
        }
        Some(f(Ptr(words.as_mut_ptr() as *mut T)))
    })
}
