//! Keys-only sorts. Equal keys are indistinguishable, so an unstable sort serves; for plain
//! integers at sizes where voracious' in-place multithreaded MSD sort (no scratch buffer, so no
//! page faults on a fresh allocation) is at least as fast as our radix, it is used.

use std::any::TypeId;

use voracious_radix_sort::{RadixKey, RadixSort, Radixable};

use crate::{presorted, sort_stable, Order, SortKey};

/// Below this voracious_mt_sort falls back to rayon's comparison sort for u32 (2.5M) and our
/// radix is faster; above it the two were within noise of each other at 16M (see benches/cpu.rs).
const VORACIOUS_MIN: usize = 1 << 22;

pub(crate) fn sort<K: SortKey>(v: &mut [K], order: Order) {
    if v.len() >= VORACIOUS_MIN
        && (try_voracious::<K, u32, u32>(v, order)
            || try_voracious::<K, u64, u64>(v, order)
            || try_voracious::<K, i32, i32>(v, order))
    {
        return;
    }
    sort_stable(v, order);
}

/// Sorts with voracious when `K` is `P`, whose natural order is the order of its ordered bits.
fn try_voracious<K: SortKey, P: Radixable<PK> + Send + 'static, PK: RadixKey>(v: &mut [K], order: Order) -> bool {
    if TypeId::of::<K>() != TypeId::of::<P>() {
        return false;
    }
    // SAFETY: K and P are the same type (checked just above).
    let p = unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut P, v.len()) };
    p.voracious_mt_sort(rayon::current_num_threads());
    if order == Order::Descending {
        presorted::reverse(p);
    }
    true
}
