//! Segmented sorts: many independent runs of one key array, each sorted on its own, as one sort.
//!
//! 32-bit keys travel as 64-bit composite keys, the segment number above the key's ordered bits
//! (inverted for a descending sort), sorted ascending in one backend job and mapped back: one
//! sort whatever the number or sizes of the segments. 64-bit keys leave no room beside them, so
//! they take two stable backend jobs: the argsort of the keys, then a sort of those positions by
//! segment number; the keys and values are then gathered in that order.

use rayon::prelude::*;

use super::records::{host_buffer, PIECE};
use super::{Policy, Sorter};
use crate::backend::{with_keys, KeySlice, Positions, SortJob};
use crate::tuning;
use crate::value::ValueSlice;
use crate::{Key, Order, SortError, SortKey, Value};

/// Checks that `offsets` cut `n` items into segments: it starts at 0, ends at `n` and never falls.
fn check_offsets(offsets: &[usize], n: usize) -> Result<(), SortError> {
    let bad = |why: String| Err(SortError::InvalidArgument(format!("segment offsets: {why}")));
    match (offsets.first(), offsets.last()) {
        (None, _) => return bad("empty; give at least [0, n]".into()),
        (Some(&first), _) if first != 0 => return bad(format!("start at {first}, not 0")),
        (_, Some(&last)) if last != n => return bad(format!("end at {last}, not at the {n} keys")),
        _ => {}
    }
    if let Some(i) = offsets.windows(2).position(|w| w[1] < w[0]) {
        return bad(format!("fall from {} to {} at {}", offsets[i], offsets[i + 1], i + 1));
    }
    if offsets.len() - 1 > 1 << 32 {
        return bad(format!("{} segments; at most 2^32", offsets.len() - 1));
    }
    Ok(())
}

/// `f(i, segment of item i)` for every item, on the CPU pool: each piece finds its first
/// segment by binary search, then walks the offsets.
fn for_each_segment_id<F: Fn(usize, u32) + Sync>(offsets: &[usize], n: usize, f: F) {
    gpusort_cpu::install(|| {
        (0..n.div_ceil(PIECE)).into_par_iter().for_each(|p| {
            let (start, end) = (p * PIECE, ((p + 1) * PIECE).min(n));
            // The last offset at or below `start` begins its segment (empty segments skipped).
            let mut seg = offsets.partition_point(|&o| o <= start) - 1;
            for i in start..end {
                while offsets[seg + 1] <= i {
                    seg += 1;
                }
                // Fewer than 2^32 segments (checked), so every number fits.
                f(i, seg as u32);
            }
        })
    });
}

/// No segment of `n` keys cut at `offsets` holds two keys. As many segments as keys is not
/// enough: with an empty one among them another holds two.
fn nothing_to_order(n: usize, offsets: &[usize]) -> bool {
    n < 2 || (offsets.len() > n && offsets.windows(2).all(|w| w[1] - w[0] < 2))
}

/// A pointer the pieces of `for_each_segment_id` write through, each at its own indices.
#[derive(Clone, Copy)]
struct Out<T>(*mut T);
// SAFETY: only used for disjoint writes from the pool's threads (each index once).
unsafe impl<T: Send> Send for Out<T> {}
// SAFETY: as above.
unsafe impl<T: Send> Sync for Out<T> {}

impl<T> Out<T> {
    /// # Safety
    /// `i` is inside the buffer and no other thread writes it.
    unsafe fn write(self, i: usize, x: T) {
        // SAFETY: the caller's contract.
        unsafe { self.0.add(i).write(x) }
    }
}

impl Sorter {
    /// Sorts each segment of split pairs on its own, in the sorter's order, stably: segment `s`
    /// is `offsets[s]..offsets[s + 1]`, and `offsets` runs from 0 to the number of keys without
    /// falling (empty segments are fine). Values move with their keys; nothing crosses a segment
    /// boundary. A batch of equal rows (`torch.sort(dim=-1)`) is the offsets `0, cols, 2 cols, ...`.
    /// `InvalidArgument` when the lengths or offsets do not fit; on failure both slices keep
    /// their contents. Values ([`Value`]) of 8 bytes (`u64`, `i64`, `f64`) take the route of
    /// 64-bit keys (two stable sorts of positions, then the gather), whatever the key type.
    ///
    /// ```
    /// let mut keys = [3u32, 1, 2, /* | */ 9, 7, /* | */ 5];
    /// let mut rows = [0u32, 1, 2, 3, 4, 5];
    /// gpusort::Sorter::auto().sort_segments(&mut keys, &mut rows, &[0, 3, 5, 6])?;
    /// assert_eq!(keys, [1, 2, 3, 7, 9, 5]);
    /// assert_eq!(rows, [1, 2, 0, 4, 3, 5]);
    ///
    /// let mut rows = [10u64 << 32, 1, 2, 3, 4, 5];
    /// let mut keys = [3u32, 1, 2, 9, 7, 5];
    /// gpusort::Sorter::auto().sort_segments(&mut keys, &mut rows, &[0, 3, 5, 6])?;
    /// assert_eq!(rows, [1, 2, 10 << 32, 4, 3, 5]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_segments<K: Key, V: Value>(
        &self,
        keys: &mut [K],
        values: &mut [V],
        offsets: &[usize],
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_segments")?;
        SortError::check_pair_lengths(keys.len(), values.len())?;
        match V::bits(values) {
            ValueSlice::U32(values) => self.segmented(keys, Some(values), offsets),
            ValueSlice::U64(values) => {
                self.check_config()?;
                check_offsets(offsets, keys.len())?;
                if nothing_to_order(keys.len(), offsets) {
                    return Ok(());
                }
                self.segmented_wide(keys, Some(values), offsets)
            }
        }
    }

    /// [`Sorter::sort_segments`] without values: each segment of `keys` sorted on its own.
    ///
    /// ```
    /// let rows = 2;
    /// let cols = 3;
    /// let mut grid = [2.0f32, -1.0, 0.5, /* | */ 7.0, 8.0, -3.0];
    /// let offsets: Vec<usize> = (0..=rows).map(|r| r * cols).collect();
    /// gpusort::Sorter::auto().with_order(gpusort::Order::Descending).sort_segments_keys(&mut grid, &offsets)?;
    /// assert_eq!(grid, [2.0, 0.5, -1.0, 8.0, 7.0, -3.0]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_segments_keys<K: Key>(&self, keys: &mut [K], offsets: &[usize]) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_segments_keys")?;
        self.segmented(keys, None, offsets)
    }

    /// On the GPU, the keys (and values) go up, are sorted there segment by segment
    /// (`cuda/segments.rs`) and come back; elsewhere, or when the device has no room for that in
    /// one piece, on the host routes below.
    fn segmented<K: Key>(
        &self,
        keys: &mut [K],
        mut values: Option<&mut [u32]>,
        offsets: &[usize],
    ) -> Result<(), SortError> {
        self.check_config()?;
        check_offsets(offsets, keys.len())?;
        if nothing_to_order(keys.len(), offsets) {
            return Ok(());
        }
        if let Some(gpu) = self.segments_gpu::<K>(keys.len()) {
            match gpu.sort_segments_host(K::slice(keys), values.as_deref_mut(), offsets, self.order()) {
                Ok(()) => return self.after_sort(Ok(())),
                Err(SortError::OutOfMemory { .. } | SortError::Unsupported { .. }) => {}
                Err(e) => return self.after_sort(Err(e)),
            }
        }
        with_keys!(K::slice(keys), k => host_route(self, k, values, offsets))
    }

    /// 32-bit and small keys (their ordered bits are 32 bits wide) on the host route: one
    /// ascending sort of `segment << 32 | ordered bits` on the sorter's backend, then the keys back.
    fn segmented_narrow<K: Key + SortKey<Bits = u32>>(
        &self,
        keys: &mut [K],
        values: Option<&mut [u32]>,
        offsets: &[usize],
    ) -> Result<(), SortError> {
        let n = keys.len();
        let flip = if self.order() == Order::Descending { u32::MAX } else { 0 };
        let mut composite = host_buffer::<u64>(n, "segmented sort keys (host memory)")?;
        let out = Out(composite.as_mut_ptr());
        let src = &*keys;
        for_each_segment_id(offsets, n, |i, seg| {
            let bits = src[i].to_ordered_bits() ^ flip;
            // SAFETY: i < n = the buffer's capacity; each i is visited once.
            unsafe { out.write(i, (seg as u64) << 32 | bits as u64) };
        });
        // SAFETY: every item was written above.
        unsafe { composite.set_len(n) };
        let ascending = self.clone().with_order(Order::Ascending);
        let job = match values {
            Some(v) => SortJob::Pairs(KeySlice::U64(&mut composite), v),
            None => SortJob::Keys(KeySlice::U64(&mut composite)),
        };
        ascending.run_stable(job)?;
        gpusort_cpu::install(|| {
            keys.par_chunks_mut(PIECE)
                .zip(composite.par_chunks(PIECE))
                .for_each(|(k, c)| k.iter_mut().zip(c).for_each(|(k, &c)| *k = K::from_ordered_bits(c as u32 ^ flip)))
        });
        Ok(())
    }

    /// The GPU that sorts `n` keys' segments in one round trip, if any: a `cuda()` sorter's, and
    /// an `auto()` sorter's from the crossover of split pairs of such keys up.
    fn segments_gpu<K: Key>(&self, n: usize) -> Option<&crate::gpu::GpuBackend> {
        let gpu = self.live_gpu()?;
        match self.policy {
            Policy::GpuOnly => Some(gpu),
            Policy::Auto { crossover } => {
                let shape = SortJob::Argsort(K::view(&[]), Positions::U32(&mut [])).shape();
                (n >= crossover.unwrap_or_else(|| tuning::gpu_from_items(shape))).then_some(gpu)
            }
            Policy::CpuOnly => None,
        }
    }

    /// 64-bit keys on the host route (and any keys with `u64` values): the stable argsort of all
    /// keys, then its positions sorted stably by segment, then keys and values gathered in that
    /// order.
    fn segmented_wide<K: Key, V: Copy + Send + Sync>(
        &self,
        keys: &mut [K],
        values: Option<&mut [V]>,
        offsets: &[usize],
    ) -> Result<(), SortError> {
        let n = keys.len();
        if n > 1 << 32 {
            return Err(SortError::InvalidArgument(format!("{n} keys: segmented 64-bit keys take up to 2^32")));
        }
        let mut positions = super::records::zeroed_positions(n, "segmented sort positions (host memory)")?;
        let mut segment_of = host_buffer::<u32>(n, "segmented sort segment numbers (host memory)")?;
        let key_copy = gpusort_cpu::HugeVec::<K>::with_capacity(n)
            .map_err(|e| SortError::OutOfMemory { op: "segmented sort key copy (host memory)", bytes: e.bytes })?;
        let value_copy = match &values {
            Some(_) => Some(gpusort_cpu::HugeVec::<V>::with_capacity(n).map_err(|e| SortError::OutOfMemory {
                op: "segmented sort value copy (host memory)",
                bytes: e.bytes,
            })?),
            None => None,
        };
        self.run_stable(SortJob::Argsort(K::view(keys), Positions::U32(&mut positions)))?;
        let out = Out(segment_of.as_mut_ptr());
        for_each_segment_id(offsets, n, |i, seg| {
            // SAFETY: i < n = the buffer's capacity; each i is visited once.
            unsafe { out.write(i, seg) };
        });
        // SAFETY: every item was written above.
        unsafe { segment_of.set_len(n) };
        // The segment of each key in sorted order, in place of the segment numbers themselves.
        let mut segments = host_buffer::<u32>(n, "segmented sort segment numbers (host memory)")?;
        gpusort_cpu::install(|| segments.par_extend(positions.par_iter().map(|&p| segment_of[p as usize])));
        drop(segment_of);
        self.clone()
            .with_order(Order::Ascending)
            .run_stable(SortJob::Pairs(KeySlice::U32(&mut segments), &mut positions))?;
        // Nothing fails from here on: the slices end sorted or, above, untouched.
        permute(keys, key_copy, &positions);
        if let (Some(v), Some(copy)) = (values, value_copy) {
            permute(v, copy, &positions);
        }
        Ok(())
    }
}

/// `v[i] = old v[positions[i]]`, through `copy` (room for `v.len()` items).
pub(super) fn permute<T: Copy + Send + Sync>(v: &mut [T], mut copy: gpusort_cpu::HugeVec<T>, positions: &[u32]) {
    gpusort_cpu::install(|| {
        copy.spare_capacity_mut().par_chunks_mut(PIECE).zip(v.par_chunks(PIECE)).for_each(|(c, s)| {
            c.iter_mut().zip(s).for_each(|(c, &s)| {
                c.write(s);
            })
        })
    });
    // SAFETY: all `v.len()` items were written above.
    unsafe { copy.set_len(v.len()) };
    gpusort_cpu::gather(&copy, positions, v);
}

/// The host route of a segmented sort, chosen by the width of the keys' ordered bits.
trait SegmentRoute: gpusort_cpu::RadixBits {
    fn run<K: Key + SortKey<Bits = Self>>(
        sorter: &Sorter,
        keys: &mut [K],
        values: Option<&mut [u32]>,
        offsets: &[usize],
    ) -> Result<(), SortError>;
}

impl SegmentRoute for u32 {
    fn run<K: Key + SortKey<Bits = u32>>(
        sorter: &Sorter,
        keys: &mut [K],
        values: Option<&mut [u32]>,
        offsets: &[usize],
    ) -> Result<(), SortError> {
        sorter.segmented_narrow(keys, values, offsets)
    }
}

impl SegmentRoute for u64 {
    fn run<K: Key + SortKey<Bits = u64>>(
        sorter: &Sorter,
        keys: &mut [K],
        values: Option<&mut [u32]>,
        offsets: &[usize],
    ) -> Result<(), SortError> {
        sorter.segmented_wide(keys, values, offsets)
    }
}

fn host_route<K: Key>(
    sorter: &Sorter,
    keys: &mut [K],
    values: Option<&mut [u32]>,
    offsets: &[usize],
) -> Result<(), SortError>
where
    K::Bits: SegmentRoute,
{
    <K::Bits as SegmentRoute>::run(sorter, keys, values, offsets)
}
