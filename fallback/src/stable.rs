//! The stable sort of items by key, on the backend's pool: what `sort_stable` runs, and what the
//! keys-only and split-pair sorts end in.

use crate::alloc::AllocError;
use crate::key::{Keyed, RadixBits, SortKey};
use crate::order::Order;
use crate::pool::install;
use crate::radix;

/// Runs a sort of `len` items on the pool, or on the calling thread when it is small enough
/// that the sort takes no parallel path (waking the pool would cost more than such a sort).
pub(crate) fn on_pool<R: Send>(len: usize, f: impl FnOnce() -> R + Send) -> R {
    if len <= radix::SEQ_MAX {
        f()
    } else {
        install(f)
    }
}

/// Stable sort of `v` by key in `order`; on `Err`, `v` holds its original contents.
pub(crate) fn sort<T: Keyed>(v: &mut [T], order: Order) -> Result<(), AllocError> {
    // One monomorphised sort per direction keeps the key function free of a branch.
    on_pool(v.len(), || match order {
        Order::Ascending => radix::sort(v, T::Key::KEY_BYTES, |x: &T| x.sort_key().to_ordered_bits()),
        Order::Descending => radix::sort(v, T::Key::KEY_BYTES, |x: &T| x.sort_key().to_ordered_bits().invert()),
    })
}
