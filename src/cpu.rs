//! The CPU backend: a thin adapter over the `gpusort-cpu` crate.

use crate::backend::{with_keys, with_positions, with_view, BackendKind, Position, SortBackend, SortJob};
use crate::{Algorithm, Order, SortError};

#[derive(Debug, Default)]
pub(crate) struct CpuBackend;

impl SortBackend for CpuBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cpu
    }

    fn describe(&self) -> String {
        format!("cpu (rayon, {} threads)", gpusort_cpu::threads())
    }

    fn sort(&self, job: SortJob<'_>, order: Order, algorithm: Algorithm) -> Result<(), SortError> {
        // Nothing to order: every algorithm succeeds on every backend, as on the GPU.
        if job.len() < 2 {
            return Ok(());
        }
        if algorithm.is_gpu_only() {
            return Err(SortError::Unsupported {
                backend: "cpu",
                what: format!("{algorithm:?} is a GPU sorting network; use Algorithm::Auto or Radix on the CPU"),
            });
        }
        let sorted = match job {
            SortJob::Kvp(v) => gpusort_cpu::sort_stable(v, order),
            SortJob::Keys(keys) => with_keys!(keys, k => gpusort_cpu::sort_keys(k, order)),
            SortJob::Pairs(keys, values) => with_keys!(keys, k => gpusort_cpu::sort_pairs(k, values, order)),
            SortJob::Argsort(keys, out) => with_view!(keys, k => with_positions!(out, o => argsort(k, o, order))),
            SortJob::Lexsort(columns, out) => {
                with_positions!(out, o => crate::columns::cpu::lexsort(columns, o, order))
            }
        };
        // gpusort-cpu allocates before it writes: the job's data is untouched on failure.
        sorted.map_err(|e| SortError::OutOfMemory { op: "host memory for the CPU sort", bytes: e.bytes })
    }
}

/// A key beside its input position: what the CPU argsort sorts (stably, by the key), and how the
/// radix unit tests check split pairs whose values are positions.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) struct Positioned<K> {
    pub(crate) key: K,
    pub(crate) at: u32,
}

impl<K: gpusort_cpu::SortKey> gpusort_cpu::Keyed for Positioned<K> {
    type Key = K;
    fn sort_key(&self) -> K {
        self.key
    }
}

/// Keys with their positions sorted as one array of items, the positions then read out: one
/// allocation, and the radix passes move each key and position together. On the backend's own
/// pool, as every CPU sort (it survives fork).
/// `out` is written only once the sort has succeeded: on failure it holds what it held.
pub(crate) fn argsort<K: gpusort_cpu::SortKey, P: Position>(
    keys: &[K],
    out: &mut [P],
    order: Order,
) -> Result<(), gpusort_cpu::AllocError> {
    gpusort_cpu::install(|| argsort_on_pool(keys, out, order))
}

fn argsort_on_pool<K: gpusort_cpu::SortKey, P: Position>(
    keys: &[K],
    out: &mut [P],
    order: Order,
) -> Result<(), gpusort_cpu::AllocError> {
    use rayon::prelude::*;
    let mut items = Vec::new();
    items
        .try_reserve_exact(keys.len())
        .map_err(|_| gpusort_cpu::AllocError { bytes: keys.len().saturating_mul(size_of::<Positioned<K>>()) })?;
    // At most 2^32 keys come here (`Sorter::argsort_into` checks): every position fits.
    items.par_extend(keys.par_iter().enumerate().map(|(i, &key)| Positioned { key, at: i as u32 }));
    gpusort_cpu::sort_stable(&mut items, order)?;
    out.par_iter_mut().zip(&items).for_each(|(o, s)| *o = P::from_u32(s.at));
    Ok(())
}
