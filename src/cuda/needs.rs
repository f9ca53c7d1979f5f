//! The scratch bytes each device-resident call carves from a caller's arena: the sums of
//! `Scratch::bytes` over the buffers its steps take (`radix::need_*` for the radix sort's one
//! buffer). A call given an arena checks it against these before it queues anything.

use super::dispatch::DeviceSort;
use super::radix::{self, RadixKey};
use super::scratch::Scratch;
use crate::{Algorithm, Kvp, SortError};

/// A sort of `n` keys of `K` in place, with `u32` values when `pairs`.
pub(crate) fn sort<K: RadixKey>(sort: &DeviceSort, n: usize, pairs: bool) -> Result<usize, SortError> {
    if n < 2 {
        return Ok(0);
    }
    match (sort.algorithm, pairs) {
        (Algorithm::Auto | Algorithm::Radix, false) => radix::need_keys::<K>(sort.gpu, n),
        (Algorithm::Auto | Algorithm::Radix, true) => radix::need_pairs::<K>(sort.gpu, n),
        // A sorting network takes one copy at most (and no split pairs: refused when run).
        _ => Ok(Scratch::bytes::<K>(n)),
    }
}

/// A sort of `n` `Kvp`s in place.
pub(crate) fn kvp(sort: &DeviceSort, n: usize) -> Result<usize, SortError> {
    match sort.algorithm {
        _ if n < 2 => Ok(0),
        Algorithm::Auto | Algorithm::Radix => radix::need_kvp(sort.gpu, n),
        _ => Ok(Scratch::bytes::<Kvp>(n)),
    }
}

/// A sort of `n` 8- or 16-bit keys: at their own width by the radix kernels; by the networks as
/// their 32-bit ordered bits, sorted as `u32` keys.
pub(crate) fn small_sort<K: RadixKey>(s: &DeviceSort, n: usize, pairs: bool) -> Result<usize, SortError> {
    match s.algorithm {
        Algorithm::Auto | Algorithm::Radix => sort::<K>(s, n, pairs),
        _ if n < 2 => Ok(0),
        _ => Ok(Scratch::bytes::<u32>(n) + sort::<u32>(s, n, pairs)?),
    }
}

/// An argsort of `n` keys of `K` (only read): 8- and 16-bit keys past one tile in one sort that
/// writes the positions itself; others a copy of them sorted with the positions, which are narrow
/// until widened into `u64` indices (`wide`).
pub(crate) fn argsort<K: RadixKey>(sort: &DeviceSort, n: usize, wide: bool) -> Result<usize, SortError> {
    if n == 0 {
        return Ok(0);
    }
    if let Some(bytes) = radix::need_argsort_narrow::<K>(sort.gpu, n)? {
        return Ok(bytes);
    }
    Ok(Scratch::bytes::<K>(n) + narrow(n, wide) + radix::need_pairs::<K>(sort.gpu, n)?)
}

fn narrow(n: usize, wide: bool) -> usize {
    if wide {
        Scratch::bytes::<u32>(n)
    } else {
        0
    }
}
