//! Split key and value slices sorted as one array of pairs.
//!
//! Interleaving costs one parallel pass in and one out, but lets every radix pass move a key
//! and its value with one load and one store, instead of two scattered streams.

use rayon::prelude::*;

use crate::alloc::{try_vec, AllocError};
use crate::key::{Keyed, SortKey};
use crate::order::Order;
use crate::stable;

/// Items per parallel packing task. Sorts up to this long pack on the calling thread, which must
/// cover every sort that `on_pool` keeps off the pool.
const CHUNK: usize = 1 << 16;
const _: () = assert!(CHUNK >= crate::radix::SEQ_MAX);

#[derive(Clone, Copy)]
struct Pair<K, V> {
    key: K,
    value: V,
}

impl<K: SortKey, V: Copy + Send + Sync + 'static> Keyed for Pair<K, V> {
    type Key = K;
    #[inline(always)]
    fn sort_key(&self) -> K {
        self.key
    }
}

/// On `Err` (no room for the packed pairs or the sort's scratch) the slices are untouched: they
/// are only read until the sort of the packed copy has succeeded.
pub(crate) fn sort<K: SortKey, V: Copy + Send + Sync + 'static>(
    keys: &mut [K],
    values: &mut [V],
    order: Order,
) -> Result<(), AllocError> {
    assert_eq!(keys.len(), values.len(), "keys and values differ in length");
    let n = keys.len();
    let mut pairs: Vec<Pair<K, V>> = try_vec(n)?;
    if n <= CHUNK {
        // One task's worth: no parallel iterator, so a small sort never wakes a pool.
        pairs.extend(keys.iter().zip(values.iter()).map(|(&key, &value)| Pair { key, value }));
    } else {
        keys.par_iter()
            .zip(values.par_iter())
            .with_min_len(CHUNK)
            .map(|(&key, &value)| Pair { key, value })
            .collect_into_vec(&mut pairs);
    }
    stable::sort(&mut pairs, order)?;
    let unpack = |((k, v), p): ((&mut K, &mut V), &Pair<K, V>)| {
        *k = p.key;
        *v = p.value;
    };
    if n <= CHUNK {
        keys.iter_mut().zip(values.iter_mut()).zip(pairs.iter()).for_each(unpack);
    } else {
        keys.par_iter_mut().zip(values.par_iter_mut()).zip(pairs.par_iter()).with_min_len(CHUNK).for_each(unpack);
    }
    Ok(())
}
