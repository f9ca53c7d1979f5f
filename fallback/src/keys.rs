//! Keys-only sorts. Equal keys are indistinguishable, so an unstable sort serves; for u64 keys
//! at sizes where voracious' in-place multithreaded MSD sort (no scratch buffer, so no page
//! faults on a fresh allocation) beats our radix, it is used.

use std::any::TypeId;

use voracious_radix_sort::{RadixKey, RadixSort, Radixable};

use crate::alloc::{try_vec, AllocError};
use crate::key::{RadixBits, SortKey};
use crate::order::Order;
use crate::pool::{install, threads};
use crate::simd::{self, Isa};
use crate::{presorted, stable};

/// From here u64 keys go to voracious_mt_sort (below it, it falls back to rayon's comparison
/// sort for u64). Random keys on the 2-core dev machine, ours against voracious, kept scratch:
/// 4M 43 against 32 ms, 16M 191 against 171, 64M 1.0 s against 0.83. For u32 keys ours was the
/// faster (4M 18 against 29 ms, 16M 95 against 121, 64M 0.47 s against 0.66), and i32 keys sort
/// as u32 bits, so 32-bit keys stay with our radix.
const VORACIOUS_MIN: usize = 1 << 22;

/// Runs on the pool where that pays (see `stable::on_pool`, `simd::tune::PAR_MIN`).
pub(crate) fn sort<K: SortKey>(v: &mut [K], order: Order) -> Result<(), AllocError> {
    let isa = Isa::detected();
    if simd::tune::vector_wins::<K>(isa, v.len(), crate::pool::threads()) && sort_vector(v, order, isa) {
        return Ok(());
    }
    stable::on_pool(v.len(), || sort_portable(v, order))
}

/// Keys-only sort on a chosen instruction set, whatever the size: `Portable` is the radix sort
/// (with voracious for large u64 keys). For tests and benchmarks.
pub(crate) fn sort_on<K: SortKey>(v: &mut [K], order: Order, isa: Isa) -> Result<(), AllocError> {
    if isa != Isa::Portable && sort_vector(v, order, isa) {
        return Ok(());
    }
    stable::on_pool(v.len(), || sort_portable(v, order))
}

/// The vector sort, split over the pool above `PAR_MIN` keys when the pool has several threads,
/// else on the calling thread; false when it has no kernel for `K` on `isa`. Input already in order, or in reverse
/// order, is finished in a pass or two as on the radix path (a check that stops within a few keys
/// on other input).
fn sort_vector<K: SortKey>(v: &mut [K], order: Order, isa: Isa) -> bool {
    if !simd::has_kernel::<K>(isa) {
        return false;
    }
    let go = |v: &mut [K], piece: usize| {
        let settled = match order {
            Order::Ascending => presorted::settle(v, |k: &K| k.to_ordered_bits()),
            Order::Descending => presorted::settle(v, |k: &K| k.to_ordered_bits().invert()),
        };
        settled || simd::sort(v, order, isa, piece)
    };
    if v.len() > simd::tune::PAR_MIN && threads() > 1 {
        install(|| go(v, simd::tune::PAR_PIECE))
    } else {
        // One thread: the calling thread sorts, without waking the pool's only worker for it.
        go(v, usize::MAX)
    }
}

fn sort_portable<K: SortKey>(v: &mut [K], order: Order) -> Result<(), AllocError> {
    if K::KEY_BYTES == 1 {
        crate::counting::sort(v, order);
        return Ok(());
    }
    if v.len() >= VORACIOUS_MIN && try_voracious::<K, u64, u64>(v, order)? {
        return Ok(());
    }
    stable::sort(v, order)
}

/// Sorts with voracious when `K` is `P`, whose natural order is the order of its ordered bits.
fn try_voracious<K: SortKey, P: Radixable<PK> + Send + 'static, PK: RadixKey>(
    v: &mut [K],
    order: Order,
) -> Result<bool, AllocError> {
    if TypeId::of::<K>() != TypeId::of::<P>() {
        return Ok(false);
    }
    make_room_for_voracious::<K>(v.len())?;
    // SAFETY: K and P are the same type (checked just above).
    let p = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut P, v.len()) };
    p.voracious_mt_sort(rayon::current_num_threads());
    if order == Order::Descending {
        presorted::reverse(p);
    }
    Ok(true)
}

/// voracious allocates without a way to fail: a merge buffer of half the input when it finds
/// presorted runs, and a thread pool of its own (stacks). Asking for that much first, and handing
/// it straight back, turns a memory limit that would abort the process inside voracious into an
/// error here, before anything is written. It costs a map and an unmap of untouched pages.
fn make_room_for_voracious<K>(n: usize) -> Result<(), AllocError> {
    const STACK_BYTES: usize = 8 << 20;
    let bytes = (n / 2 + 2).saturating_mul(std::mem::size_of::<K>());
    let room = try_vec::<u8>(bytes.saturating_add(rayon::current_num_threads().saturating_mul(STACK_BYTES)))?;
    drop(room);
    Ok(())
}
