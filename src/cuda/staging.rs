//! The pinned memory a host sort stages through, kept per device between calls.
//!
//! Copies from pageable memory run at 8.7 GB/s up and 15.4 GB/s down on the H200 machine, from
//! pinned memory at 55 GB/s (shared/anchors/README.md), so host sorts go caller -> pinned (all
//! cores) -> device and back. Two buffers:
//! - the held buffer keeps the whole input (as staged items) for the length of the sort, up to
//!   `held_cap()`: it is what the download puts back into the caller's slice when a chunk fails
//!   after others were written, and where out-of-core runs wait for their merge;
//! - the ring carries the download in a few chunks, small enough to stay in the host's last-level
//!   cache while the copy engine writes them and the cores read them out (see `tuning`), and the
//!   upload too when the input is larger than the held buffer may grow.
//!
//! Both grow on demand and stay for the next call (pinning costs about 50 ms per GiB, see
//! `pinned.rs`); `Sorter::release_memory` frees them.

use std::sync::{Arc, Mutex, MutexGuard, TryLockError};

use cudarc::driver::CudaContext;

use super::pinned::{self, Pinned};
use crate::{hooks, tuning, Kvp, SortError};

/// Element types the staging buffers may be viewed as: every bit pattern is a valid value (the
/// key types' impls come from the key list, `key_class.rs`).
pub(crate) trait Plain: Copy + Send + Sync + 'static {}
impl Plain for Kvp {}

/// Items whose sort order is that of a 64-bit key: what the out-of-core merge cuts and merges by.
pub(crate) trait MergeKey: Plain {
    fn merge_key(&self) -> u64;
}
impl MergeKey for Kvp {
    fn merge_key(&self) -> u64 {
        self.key as u64
    }
}

/// The largest held buffer: a quarter of the host's memory (or of the process's memory cgroup),
/// so that a sort of a quarter of the machine's memory still keeps a copy of its input; 512 MiB
/// where the memory size cannot be read. The test hooks may lower it.
pub(crate) fn held_cap() -> usize {
    hooks::pinned_cap().unwrap_or_else(|| {
        pinned::host_memory().map_or(tuning::PINNED_HELD_FALLBACK_BYTES, |m| m / tuning::PINNED_HELD_SHARE_OF_MEMORY)
    })
}

#[derive(Default)]
pub(crate) struct Buffers {
    held: Option<Pinned>,
    ring: Option<Pinned>,
}

/// The staging buffers of one device.
#[derive(Default)]
pub(crate) struct Staging {
    slot: Mutex<Buffers>,
}

/// Exclusive use of staging buffers for one sort: the kept ones, or buffers of its own.
pub(crate) enum Lease<'a> {
    Kept(MutexGuard<'a, Buffers>),
    Own(Buffers),
}

impl Staging {
    /// Buffers of at least `held` and `ring` bytes (`held` 0: none needed): the kept ones, grown;
    /// while another sort uses those, a ring of this sort's own and no held buffer, unless
    /// `held_required`. Never waits: a sort that holds the staging may wait for its host copies
    /// on a rayon worker, which can meanwhile run another task of the program, another sort too.
    pub(crate) fn lease(
        &self,
        ctx: &Arc<CudaContext>,
        held: usize,
        ring: usize,
        held_required: bool,
    ) -> Result<Lease<'_>, SortError> {
        hooks::hit(hooks::Step::PinnedAlloc)?;
        let mut lease = match self.slot.try_lock() {
            Ok(guard) => Lease::Kept(guard),
            Err(TryLockError::Poisoned(p)) => Lease::Kept(p.into_inner()),
            Err(TryLockError::WouldBlock) => Lease::Own(Buffers::default()),
        };
        let own = matches!(lease, Lease::Own(_));
        let buffers = lease.buffers();
        if !own || held_required {
            grow(&mut buffers.held, ctx, held, held_granule(held))?;
        }
        grow(&mut buffers.ring, ctx, ring, ring.next_power_of_two())?;
        Ok(lease)
    }

    /// Unpins both buffers (waits for a sort using them to finish).
    pub(crate) fn release(&self) {
        let mut guard = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        *guard = Buffers::default();
    }

    /// Pinned bytes kept now.
    pub(crate) fn kept_bytes(&self) -> usize {
        let guard = self.slot.lock().unwrap_or_else(|p| p.into_inner());
        guard.held.as_ref().map_or(0, Pinned::bytes) + guard.ring.as_ref().map_or(0, Pinned::bytes)
    }
}

/// What a held buffer of `bytes` is rounded up to, so that sizes that vary a little between calls
/// do not pin again: powers of two up to 1 GiB, whole GiB above (a power of two would waste up to
/// half of a buffer of many GiB).
fn held_granule(bytes: usize) -> usize {
    const GIB: usize = 1 << 30;
    if bytes <= GIB {
        bytes.next_power_of_two()
    } else {
        bytes.next_multiple_of(GIB)
    }
}

/// `slot` grown to at least `need` bytes (made `size` bytes long when it must grow).
fn grow(slot: &mut Option<Pinned>, ctx: &Arc<CudaContext>, need: usize, size: usize) -> Result<(), SortError> {
    if need == 0 || slot.as_ref().is_some_and(|p| p.bytes() >= need) {
        return Ok(());
    }
    // The old buffer goes first: both at once might not fit.
    *slot = None;
    *slot = Some(Pinned::new(ctx, size.max(1 << 20))?);
    Ok(())
}

/// Where the second array starts when a buffer holds `a` items of `A` and then another array: the
/// next 64-byte boundary, which aligns every item type.
pub(crate) fn split_offset<A>(a: usize) -> usize {
    (a * std::mem::size_of::<A>()).next_multiple_of(64)
}

impl Lease<'_> {
    fn buffers(&mut self) -> &mut Buffers {
        match self {
            Lease::Kept(guard) => guard,
            Lease::Own(buffers) => buffers,
        }
    }

    /// Bytes of the held buffer (0: none).
    pub(crate) fn held_bytes(&mut self) -> usize {
        self.buffers().held.as_ref().map_or(0, Pinned::bytes)
    }

    /// `held` items of the held buffer and `ring` items of the ring.
    pub(crate) fn held_and_ring<T: Plain>(&mut self, held: usize, ring: usize) -> (&mut [T], &mut [T]) {
        let b = self.buffers();
        let h: &mut [T] = match b.held.as_mut() {
            Some(p) => p.view(0, held),
            None => {
                assert_eq!(held, 0, "no held buffer leased");
                &mut []
            }
        };
        (h, b.ring.as_mut().expect("leased").view(0, ring))
    }

    /// `held` items of the held buffer, and the ring as raw pinned memory (for staging of more
    /// than one item type).
    pub(crate) fn held_and_pinned_ring<T: Plain>(&mut self, held: usize) -> (&mut [T], &mut Pinned) {
        let b = self.buffers();
        let h: &mut [T] = match b.held.as_mut() {
            Some(p) if held > 0 => p.view(0, held),
            _ => {
                assert_eq!(held, 0, "no held buffer leased");
                &mut []
            }
        };
        (h, b.ring.as_mut().expect("leased"))
    }

    /// The held buffer as `a` items of `A` then, from `split_offset::<A>(a)`, `b` items of `B`
    /// (split pairs: keys, then values); and the ring as raw pinned memory.
    pub(crate) fn split_held<A: Plain, B: Plain>(&mut self, a: usize, b: usize) -> (&mut [A], &mut [B], &mut Pinned) {
        let buf = self.buffers();
        let (ka, vb) = buf.held.as_mut().expect("leased").two_views::<A, B>(a, split_offset::<A>(a), b);
        (ka, vb, buf.ring.as_mut().expect("leased"))
    }
}
