//! The CPU backend: a thin adapter over the `gpusort-cpu` crate.

use crate::backend::{with_keys, BackendKind, SortBackend, SortJob};
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
        };
        // gpusort-cpu allocates before it writes: the job's data is untouched on failure.
        sorted.map_err(|e| SortError::OutOfMemory { op: "host memory for the CPU sort", bytes: e.bytes })
    }
}
