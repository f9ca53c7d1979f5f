//! Split pairs with 8-byte values (`Sorter::sort_pairs` with `u64`, `i64` or `f64` values).
//!
//! On the CPU the split pair sort of `gpusort-cpu` is generic over the value type; on the GPU the
//! values travel as records of two words: the keys are sorted there with their positions and the
//! values gathered by them, as `sort_by_key` puts large records in order (`cuda/records.rs`).
//! Where that round trip does not fit, the keys' stable argsort runs on the backend `run` picks
//! (only `u32` positions coming back), then keys and values are permuted on all host cores. All
//! routes are stable, so they agree bit for bit.

use super::records::zeroed_positions;
use super::segments::permute;
use super::Sorter;
use crate::backend::{record_words, BackendKind, Positions, SortJob};
use crate::{Key, SortError};

impl Sorter {
    /// [`Sorter::sort_pairs`] with 8-byte values (their bits as `u64`; lengths already checked).
    pub(super) fn sort_pairs_wide<K: Key>(&self, keys: &mut [K], values: &mut [u64]) -> Result<(), SortError> {
        self.check_config()?;
        let n = keys.len();
        if n < 2 {
            return Ok(());
        }
        // The argsort job's shape (32- or 64-bit keys with u32 positions) picks the backend, so
        // the choice here is the one the argsort below makes.
        let shape = SortJob::Argsort(K::view(keys), Positions::U32(&mut [])).shape();
        // Positions are u32: past 2^32 pairs only the CPU's pair sort can go, as for argsort.
        if self.pick(shape, n).kind() == BackendKind::Cpu || n > 1 << 32 {
            let r = self.pairs_wide_on_cpu(keys, values);
            return self.after_sort(r);
        }
        self.pairs_wide_by_argsort(keys, values)
    }

    /// The GPU route: keys and values in one round trip (`GpuBackend::sort_pairs_by_records`: the
    /// keys sorted there with their positions, the values gathered by them); where that does not
    /// fit the device or the pinned buffer, the keys' stable argsort on the backend `run` picks,
    /// then the permute on the host. At most 2^32 pairs (u32 positions).
    fn pairs_wide_by_argsort<K: Key>(&self, keys: &mut [K], values: &mut [u64]) -> Result<(), SortError> {
        if let Some(gpu) = self.live_gpu() {
            // SAFETY: a u64 is two whole words; the device writes back whole values or none.
            let words = unsafe { record_words(values) }.expect("u64 values are whole words");
            match gpu.sort_pairs_by_records(K::slice(keys), words, self.order()) {
                Ok(()) => return self.after_sort(Ok(())),
                Err(SortError::OutOfMemory { .. } | SortError::Unsupported { .. }) => {}
                Err(e) => return self.after_sort(Err(e)),
            }
        }
        let n = keys.len();
        // All scratch first: once the argsort has succeeded nothing can fail, so the slices end
        // sorted or untouched.
        let mut positions = zeroed_positions(n, "sort_pairs positions (host memory)")?;
        let key_copy = gpusort_cpu::HugeVec::<K>::with_capacity(n)
            .map_err(|e| SortError::OutOfMemory { op: "sort_pairs key copy (host memory)", bytes: e.bytes })?;
        let value_copy = gpusort_cpu::HugeVec::<u64>::with_capacity(n)
            .map_err(|e| SortError::OutOfMemory { op: "sort_pairs value copy (host memory)", bytes: e.bytes })?;
        // On the calling thread (a GPU sort must not run on a pool worker, see `Sorter::run`);
        // in auto mode a GPU short of memory hands the argsort to the CPU there.
        self.run_stable(SortJob::Argsort(K::view(keys), Positions::U32(&mut positions)))?;
        permute(keys, key_copy, &positions);
        permute(values, value_copy, &positions);
        Ok(())
    }

    /// The CPU backend's stable split pair sort, on its own pool; it allocates before it writes.
    fn pairs_wide_on_cpu<K: Key>(&self, keys: &mut [K], values: &mut [u64]) -> Result<(), SortError> {
        let algorithm = self.cpu_algorithm();
        if algorithm.is_gpu_only() {
            // As the CPU backend answers for 4-byte values.
            return Err(SortError::Unsupported {
                backend: "cpu",
                what: format!("{algorithm:?} is a GPU sorting network; use Algorithm::Auto or Radix on the CPU"),
            });
        }
        gpusort_cpu::sort_pairs(keys, values, self.order())
            .map_err(|e| SortError::OutOfMemory { op: "host memory for the CPU sort", bytes: e.bytes })
    }
}

#[cfg(test)]
mod tests {
    use crate::{Order, Sorter};

    /// The GPU route with the argsort on the CPU (no GPU needed): the permute must give the CPU
    /// pair sort's result exactly, in both orders, ties and all.
    #[test]
    fn the_argsort_route_equals_the_pair_sort() {
        for n in [2usize, 3, 257, 65_537, 300_007] {
            let keys: Vec<f64> = (0..n as u64).map(|i| ((i * 0x9E37_79B9) % 97) as f64 - 48.0).collect();
            let values: Vec<u64> = (0..n as u64).map(|i| (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
            for order in [Order::Ascending, Order::Descending] {
                let s = Sorter::cpu().with_order(order);
                let (mut ka, mut va) = (keys.clone(), values.clone());
                s.pairs_wide_by_argsort(&mut ka, &mut va).unwrap();
                let (mut kc, mut vc) = (keys.clone(), values.clone());
                s.pairs_wide_on_cpu(&mut kc, &mut vc).unwrap();
                assert!(ka.iter().zip(&kc).all(|(a, c)| a.to_bits() == c.to_bits()), "keys n={n} {order:?}");
                assert_eq!(va, vc, "values n={n} {order:?}");
            }
        }
    }
}
