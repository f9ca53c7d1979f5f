//! Top-k: the `k` first keys in the sorter's order, with their input positions, without sorting
//! the rest.
//!
//! Two ways to find the `k` keys, picked per call (`Sorter::top_k_gpu`):
//! - on the GPU (`cuda/select.rs`, radix select): the keys go up as a sort's input does, the `k`
//!   are found and sorted there, and only they come back. A `cuda()` sorter always takes it;
//!   `auto()` from [`tuning::TOPK_GPU_FROM_K`] up.
//! - on the host, on all cores (`gpusort_cpu::select_first`: one reading pass for small `k`, two
//!   or three above, nothing copied); only those `k` are then sorted, as an argsort on the
//!   sorter's backend. For small `k` this runs at host memory speed, faster than the upload alone
//!   (H100 machine, 64M u32 keys: 4.1 ms for k = 16 against 7.4 through the GPU; at 1M, 51 ms
//!   against 10.7; `docs/BENCHMARKS-topk.md`).
//!
//! Keys already on the device take [`Sorter::top_k_device`] (`sorter/device.rs`).

use rayon::prelude::*;

use super::records::host_buffer;
use super::{Policy, Sorter};
use crate::tuning::{self, JobShape};
use crate::{Key, SortError, Value};

/// The `k` first keys of an input in a sorter's order, and where each stood in the input: what
/// [`Sorter::top_k`] returns (like `torch.topk`'s values and indices).
///
/// ```
/// let top = gpusort::Sorter::auto().top_k(&[4u32, 8, 1, 8], 2)?;
/// assert_eq!((top.keys, top.indices), (vec![1, 4], vec![2, 0]));
/// # Ok::<(), gpusort::SortError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct TopK<K> {
    /// The keys, in the sorter's order.
    pub keys: Vec<K>,
    /// `indices[i]` is the input position of `keys[i]`; equal keys in increasing position.
    pub indices: Vec<u64>,
}

impl Sorter {
    /// The `k` smallest keys (the `k` largest with [`Order::Descending`](crate::Order)), sorted,
    /// with their input positions: exactly the first `k` entries of a stable sort of `keys`, so
    /// ties at the `k`-th key go to the earliest positions, and both backends agree bit for bit.
    /// Floats in `total_cmp` order. `keys` is only read. `k` may be 0 to `keys.len()`
    /// (`InvalidArgument` above it).
    ///
    /// ```
    /// use gpusort::{Order, Sorter};
    /// let scores = [0.5f32, 2.0, -1.0, 2.0, 7.5];
    /// let best = Sorter::auto().with_order(Order::Descending).top_k(&scores, 3)?;
    /// assert_eq!(best.keys, [7.5, 2.0, 2.0]);
    /// assert_eq!(best.indices, [4, 1, 3]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn top_k<K: Key>(&self, keys: &[K], k: usize) -> Result<TopK<K>, SortError> {
        self.total_floats_only(K::TYPE, "top_k")?;
        self.check_config()?;
        let n = keys.len();
        if k > n {
            return Err(SortError::InvalidArgument(format!(
                "top {k} of {n} keys: k runs from 0 to the number of keys"
            )));
        }
        if let Some(gpu) = self.top_k_gpu(n, k) {
            let mut top = TopK {
                keys: host_buffer(k, "top-k keys (host memory)")?,
                indices: host_buffer(k, "top-k indices (host memory)")?,
            };
            // k >= 1 here, so keys[0] exists; every entry is overwritten.
            top.keys.resize(k, keys[0]);
            top.indices.resize(k, 0);
            match gpu.top_k_host(K::view(keys), k, self.order(), K::slice(&mut top.keys), &mut top.indices) {
                Ok(()) => return self.after_sort(Ok(())).map(|()| top),
                // As for sorts: in auto mode a GPU short of memory hands the job to the CPU.
                Err(SortError::OutOfMemory { .. } | SortError::Unsupported { .. })
                    if matches!(self.policy, Policy::Auto { .. }) => {}
                Err(e) => return self.after_sort(Err(e)).map(|()| top),
            }
        }
        let chosen = gpusort_cpu::select_first(keys, k, self.order())
            .map_err(|e| SortError::OutOfMemory { op: "top-k selection (host memory)", bytes: e.bytes })?;
        let mut picked = host_buffer::<K>(k, "top-k keys (host memory)")?;
        let mut order = host_buffer::<u64>(k, "top-k order (host memory)")?;
        order.resize(k, 0);
        gpusort_cpu::install(|| picked.par_extend(chosen.par_iter().map(|&i| keys[i as usize])));
        // Chosen in increasing position, so the stable argsort (whatever the sorter's algorithm)
        // leaves ties in input order.
        self.argsort_into(&picked, &mut order)?;
        let mut top = TopK {
            keys: host_buffer(k, "top-k keys (host memory)")?,
            indices: host_buffer(k, "top-k indices (host memory)")?,
        };
        gpusort_cpu::install(|| {
            top.keys.par_extend(order.par_iter().map(|&o| picked[o as usize]));
            top.indices.par_extend(order.par_iter().map(|&o| chosen[o as usize]));
        });
        Ok(top)
    }

    /// The GPU that selects a top-k of `k` of `n` host keys, if any: a `cuda()` sorter's always;
    /// an `auto()` sorter's for `k` past what the host selects in one pass at memory speed
    /// (`tuning::TOPK_GPU_FROM_K`) and inputs from the GPU
    /// crossover up.
    fn top_k_gpu(&self, n: usize, k: usize) -> Option<&crate::gpu::GpuBackend> {
        if k == 0 || k > u32::MAX as usize {
            return None;
        }
        let gpu = self.live_gpu()?;
        match self.policy {
            Policy::GpuOnly => Some(gpu),
            Policy::Auto { crossover } => {
                let from = crossover.unwrap_or_else(|| tuning::gpu_from_items(JobShape::Keys32));
                (k >= tuning::TOPK_GPU_FROM_K && n >= from).then_some(gpu)
            }
            Policy::CpuOnly => None,
        }
    }

    /// [`Sorter::top_k`] of split pairs: the `k` first keys in the sorter's order with the values
    /// beside them (`InvalidArgument` when the slices differ in length or `k` passes them). The
    /// values ([`Value`]: 4 or 8 bytes) are only read, and picked by the chosen positions.
    ///
    /// ```
    /// let (keys, ids) = ([30u64, 10, 20, 10], [0u32, 1, 2, 3]);
    /// let (k, v) = gpusort::Sorter::auto().top_k_pairs(&keys, &ids, 3)?;
    /// assert_eq!((k, v), (vec![10, 10, 20], vec![1, 3, 2]));
    ///
    /// let rows = [1u64 << 40, 5, 6, 7];
    /// let (_, v) = gpusort::Sorter::auto().top_k_pairs(&keys, &rows, 2)?;
    /// assert_eq!(v, [5, 7]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn top_k_pairs<K: Key, V: Value>(
        &self,
        keys: &[K],
        values: &[V],
        k: usize,
    ) -> Result<(Vec<K>, Vec<V>), SortError> {
        self.total_floats_only(K::TYPE, "top_k_pairs")?;
        SortError::check_pair_lengths(keys.len(), values.len())?;
        let top = self.top_k(keys, k)?;
        let mut picked = host_buffer::<V>(k, "top-k values (host memory)")?;
        gpusort_cpu::install(|| picked.par_extend(top.indices.par_iter().map(|&i| values[i as usize])));
        Ok((top.keys, picked))
    }
}
