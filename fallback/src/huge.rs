//! Large host buffers in transparent huge pages, where the kernel gives them.
//!
//! A buffer of gigabytes read in random order (a gather of records) costs a TLB miss and a page
//! walk per read with 4 KiB pages; with 2 MiB pages the whole buffer's translations fit the TLB.
//! First touch is cheaper too: one fault per 2 MiB instead of 512. Where huge pages are refused
//! or the OS has none, the buffer is ordinary memory and only speed differs.

use std::mem::{size_of, MaybeUninit};
use std::ptr::NonNull;

use crate::alloc::AllocError;

/// Anonymous memory mapped for huge pages: zero until written, never initialised as a whole.
///
/// ```
/// let mut m = gpusort_cpu::HugePages::new(3 << 20)?;
/// m.fault_in();
/// assert!(m.bytes() >= 3 << 20);
/// # Ok::<(), gpusort_cpu::AllocError>(())
/// ```
pub struct HugePages {
    ptr: NonNull<u8>,
    bytes: usize,
}

// SAFETY: plain memory owned by this value; access goes through `&mut self` or raw pointers the
// owner hands out.
unsafe impl Send for HugePages {}
// SAFETY: as above; `&self` gives no access to the memory.
unsafe impl Sync for HugePages {}

/// Bytes faulted in per parallel task: one huge page.
const FAULT_STEP: usize = 2 << 20;

impl HugePages {
    /// At least `bytes` (rounded up to a page, at least one) of zeroed memory, advised to huge
    /// pages; `AllocError` when the OS refuses the mapping.
    pub fn new(bytes: usize) -> Result<HugePages, AllocError> {
        let bytes = bytes.max(1).checked_next_multiple_of(4096).ok_or(AllocError { bytes })?;
        let ptr = map(bytes).ok_or(AllocError { bytes })?;
        Ok(HugePages { ptr, bytes })
    }

    /// The mapping's size in bytes.
    pub fn bytes(&self) -> usize {
        self.bytes
    }

    /// The first byte; the mapping is page aligned.
    pub fn as_ptr(&self) -> *mut u8 {
        self.ptr.as_ptr()
    }

    /// Touches every page on the CPU pool's threads, so that whoever uses the memory next (a
    /// driver registering it, one thread writing it) finds it present. All cores fault memory in
    /// several times faster than one.
    pub fn fault_in(&mut self) {
        use rayon::prelude::*;
        let (base, bytes) = (self.ptr.as_ptr() as usize, self.bytes);
        crate::install(|| {
            (0..bytes.div_ceil(FAULT_STEP)).into_par_iter().for_each(|i| {
                let start = i * FAULT_STEP;
                for page in (start..(start + FAULT_STEP).min(bytes)).step_by(4096) {
                    // SAFETY: inside the mapping, which `&mut self` holds; a volatile write of
                    // zero over zero changes nothing but faults the page in.
                    unsafe { std::ptr::write_volatile((base + page) as *mut u8, 0) };
                }
            })
        });
    }
}

impl Drop for HugePages {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, with its size; nothing borrows it past `self`.
        unsafe { unmap(self.ptr, self.bytes) }
    }
}

#[cfg(unix)]
fn map(bytes: usize) -> Option<NonNull<u8>> {
    // SAFETY: a fresh private anonymous mapping; nothing else refers to it.
    let ptr = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            bytes,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
            -1,
            0,
        )
    };
    if ptr == libc::MAP_FAILED {
        return None;
    }
    #[cfg(target_os = "linux")]
    // SAFETY: advice on our own mapping; refusal only costs speed.
    unsafe {
        libc::madvise(ptr, bytes, libc::MADV_HUGEPAGE)
    };
    NonNull::new(ptr as *mut u8)
}

/// # Safety
/// `ptr..ptr + bytes` is a mapping made by `map` and no longer used.
#[cfg(unix)]
unsafe fn unmap(ptr: NonNull<u8>, bytes: usize) {
    // SAFETY: the caller's contract.
    unsafe { libc::munmap(ptr.as_ptr() as _, bytes) };
}

#[cfg(not(unix))]
fn map(bytes: usize) -> Option<NonNull<u8>> {
    let layout = std::alloc::Layout::from_size_align(bytes, 4096).ok()?;
    // SAFETY: the layout has a non-zero size.
    NonNull::new(unsafe { std::alloc::alloc_zeroed(layout) })
}

/// # Safety
/// `ptr` came from `map(bytes)` and is no longer used.
#[cfg(not(unix))]
unsafe fn unmap(ptr: NonNull<u8>, bytes: usize) {
    // SAFETY: allocated in `map` with this layout, which was valid there.
    unsafe { std::alloc::dealloc(ptr.as_ptr(), std::alloc::Layout::from_size_align_unchecked(bytes, 4096)) }
}

/// Room for `capacity` items of `T` in huge pages, the first `len` of them initialised: a `Vec`
/// that cannot grow, for scratch copies of large inputs.
///
/// ```
/// let mut v = gpusort_cpu::HugeVec::<u64>::with_capacity(4)?;
/// for (slot, x) in v.spare_capacity_mut().iter_mut().zip([4, 3, 2, 1]) {
///     slot.write(x);
/// }
/// // SAFETY: all four items were written above.
/// unsafe { v.set_len(4) };
/// assert_eq!(&v[..], [4, 3, 2, 1]);
/// # Ok::<(), gpusort_cpu::AllocError>(())
/// ```
pub struct HugeVec<T> {
    pages: HugePages,
    capacity: usize,
    len: usize,
    _items: std::marker::PhantomData<T>,
}

impl<T: Copy> HugeVec<T> {
    /// An empty buffer with room for `capacity` items; `AllocError` when the memory cannot be had
    /// or `T` needs more than page alignment.
    pub fn with_capacity(capacity: usize) -> Result<HugeVec<T>, AllocError> {
        let bytes = capacity.checked_mul(size_of::<T>()).ok_or(AllocError { bytes: usize::MAX })?;
        if std::mem::align_of::<T>() > 4096 {
            return Err(AllocError { bytes });
        }
        Ok(HugeVec { pages: HugePages::new(bytes)?, capacity, len: 0, _items: std::marker::PhantomData })
    }

    /// The room past the initialised items.
    pub fn spare_capacity_mut(&mut self) -> &mut [MaybeUninit<T>] {
        // SAFETY: the mapping holds `capacity` items, aligned (page aligned, align checked);
        // `MaybeUninit` needs no initialisation; borrowed through `&mut self`.
        unsafe {
            let first = (self.pages.as_ptr() as *mut MaybeUninit<T>).add(self.len);
            std::slice::from_raw_parts_mut(first, self.capacity - self.len)
        }
    }

    /// Declares the first `len` items initialised.
    ///
    /// # Safety
    /// `len <= capacity`, and items `0..len` have been written.
    pub unsafe fn set_len(&mut self, len: usize) {
        assert!(len <= self.capacity);
        self.len = len;
    }
}

impl<T> std::ops::Deref for HugeVec<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` items are initialised (`set_len`'s contract), aligned and inside
        // the mapping.
        unsafe { std::slice::from_raw_parts(self.pages.as_ptr() as *const T, self.len) }
    }
}

impl<T> std::ops::DerefMut for HugeVec<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as in `deref`; `&mut self` makes the borrow unique.
        unsafe { std::slice::from_raw_parts_mut(self.pages.as_ptr() as *mut T, self.len) }
    }
}
