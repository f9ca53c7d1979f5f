//! The vectorized quicksort: a pivot from a sorted sample, an in-place partition that packs each
//! register's keys to both ends with `compress`, and the sorting network for short ranges.
//!
//! The partition keeps the first and the last register of the range in registers, which leaves
//! two registers' worth of room to write into; each step reads the next register from the side
//! with less room left, so a full-width store never reaches keys that are not yet read. Keys not
//! above the pivot go left. The range's least and greatest keys come out of the same pass: a side
//! whose bounds meet holds one value and is done, which makes runs of equal keys cost one pass.

use super::map::KeyMap;
use super::network::{max_small, sort_small};
use super::vector::{Lane, Vector};

/// How a range was split: `[0, mid)` holds keys not above those of `[mid, len)`; a side marked
/// done holds one repeated value (or nothing) and needs no more sorting.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Split {
    pub mid: usize,
    pub left_done: bool,
    pub right_done: bool,
}

/// Sorts `v` on the calling thread: `map` takes its keys to ordered bits and back, `mapped` says
/// whether they are ordered bits already (else the first pass maps them as it reads them). The
/// keys come back as raw key bits either way.
///
/// # Safety
/// The instruction set behind `V` is present.
#[inline(always)]
pub(crate) unsafe fn sort<V: Vector>(v: &mut [V::Elem], map: KeyMap, mapped: bool) {
    let n = v.len();
    let p = v.as_mut_ptr();
    let small = max_small(V::LANES);
    // The smaller side is always sorted first, so the pending ranges at most halve in size from
    // one to the next: 64 entries hold any range that fits in memory.
    let mut stack = [(0usize, 0usize, 0u32, None); 64];
    let mut top = 1;
    // Past this many splits of one range, the pivots were bad; the standard library's sort (also
    // O(n log n)) takes the rest, so no input makes the sort quadratic.
    stack[0] = (0, n, 2 * (usize::BITS - n.leading_zeros()), None);
    // Only the first range (the whole of `v`) can hold raw keys.
    let mut map_in = !mapped;
    while top > 0 {
        top -= 1;
        let (s, len, budget, pivot_of) = stack[top];
        let first = std::mem::replace(&mut map_in, false);
        if len <= small {
            sort_small::<V>(p.add(s), len, map, first, true);
            continue;
        }
        let range = std::slice::from_raw_parts_mut(p.add(s), len);
        if budget == 0 || top + 2 > stack.len() {
            if first {
                map.fwd_slice(range);
            }
            range.sort_unstable();
            map.back_slice(range);
            continue;
        }
        let pivot_of = match pivot_of {
            Some(pv) => pv,
            None => pivot::<V>(range, map, first),
        };
        let sp = split_at::<V>(range, map, first, pivot_of);
        let left = (s, sp.mid, budget - 1, sp.left_done);
        let right = (s + sp.mid, len - sp.mid, budget - 1, sp.right_done);
        let (first, second) = if left.1 <= right.1 { (left, right) } else { (right, left) };
        for (s, len, budget, done) in [second, first] {
            if !done && len > 1 {
                // Both sides' pivots are drawn here, while neither is sorted: the two samples'
                // networks (chains of dependent stages) then run side by side, where the first
                // side's partition would otherwise wait for its pivot alone.
                let range = std::slice::from_raw_parts(p.add(s), len);
                let pivot_of = (len > small).then(|| pivot::<V>(range, map, false));
                stack[top] = (s, len, budget, pivot_of);
                top += 1;
            } else {
                // Finished here (one value, or one key): back to raw key bits.
                map.back_slice(std::slice::from_raw_parts_mut(p.add(s), len));
            }
        }
    }
}

/// Partitions `v` (longer than `max_small`) around a pivot drawn from it. The keys come out as
/// ordered bits; `map_in` says they go in as raw key bits, which `map` takes to ordered bits.
///
/// # Safety
/// The instruction set behind `V` is present.
#[inline(always)]
pub(crate) unsafe fn split<V: Vector>(v: &mut [V::Elem], map: KeyMap, map_in: bool) -> Split {
    let pivot_of = pivot::<V>(v, map, map_in);
    split_at::<V>(v, map, map_in, pivot_of)
}

/// [`split`] around a pivot drawn already, with whether its sample repeats a key.
///
/// # Safety
/// As for [`split`].
#[inline(always)]
unsafe fn split_at<V: Vector>(
    v: &mut [V::Elem],
    map: KeyMap,
    map_in: bool,
    (pivot, repeats): (V::Elem, bool),
) -> Split {
    let n = v.len();
    assert!(n > max_small(V::LANES));
    let p = v.as_mut_ptr();
    // The bounds cost a min and a max per register, and only a side of one value needs them; such
    // a side shows as equal keys in the sorted sample (all samples on its side of the pivot), so
    // they are tracked only where the sample repeats a key. Untracked bounds are the widest.
    let (mid, lo, hi) = match (map_in, repeats) {
        (true, true) => partition_any::<V, true, true>(p, n, pivot, map),
        (true, false) => partition_any::<V, true, false>(p, n, pivot, map),
        (false, true) => partition_any::<V, false, true>(p, n, pivot, map),
        (false, false) => partition_any::<V, false, false>(p, n, pivot, map),
    };
    if mid < n {
        // Left keys lie in [lo, pivot], right ones in (pivot, hi].
        return Split { mid, left_done: lo == pivot, right_done: hi == pivot.succ() };
    }
    // Nothing above the pivot: it is the greatest key.
    if lo == pivot {
        return Split { mid: n, left_done: true, right_done: true };
    }
    // Split off the keys equal to the greatest instead: lo < pivot (untracked, the sample held
    // no key twice, so the range is not one value), so pivot - 1 is a word.
    let below = pivot.pred();
    let (mid, _, _) = partition_any::<V, false, false>(p, n, below, map);
    Split { mid, left_done: lo == below, right_done: true }
}

/// The median of an evenly spread sample of one register (exact on sorted and reversed input; a
/// lower quantile for short ranges, [`split_rank`]), and whether the sorted sample holds a key twice.
#[inline(always)]
unsafe fn pivot<V: Vector>(v: &[V::Elem], map: KeyMap, map_in: bool) -> (V::Elem, bool) {
    let n = v.len();
    let k = V::LANES;
    let mut sample = V::load_spread(v.as_ptr(), n);
    if map_in {
        sample = map.fwd(sample);
    }
    let mut sorted = [V::Elem::MIN; SAMPLE];
    sample.sorted().store(sorted.as_mut_ptr());
    (sorted[split_rank(n, k, max_small(V::LANES))], sorted[..k].windows(2).any(|w| w[0] == w[1]))
}

/// Which of `k` sorted samples of a range of `n` keys to split at: the median, but for short
/// ranges (`tune::LEAF_SPLIT_HALVES`). Split at the median, a range of 1 to 1.5 networks (`small`
/// keys each) leaves two sides of more than half a network, which both take the whole network;
/// the network of half the size costs less than half as much (8 registers: 28 stages against
/// 36, at half the width). So the left side is aimed a little past `n - small` keys: the right
/// then fits the network, and the left mostly the smaller ones. The j-th least of k samples has
/// about (j + 1) / (k + 1) of the range at or below it.
#[inline(always)]
fn split_rank(n: usize, k: usize, small: usize) -> usize {
    if 2 * n > LEAF_SPLIT_HALVES * small || k < 16 {
        return k / 2 - 1;
    }
    let aim = n - small + small / LEAF_AIM_SLACK;
    ((aim * (k + 1) + n / 2) / n).clamp(1, k / 2) - 1
}

// The partition reads BATCH registers from each end first: ranges it gets are longer. A sample
// is one register.
const _: () =
    assert!(SAMPLE >= 16 && 2 * BATCH_WIDE <= super::tune::SMALL_REGS && 2 * BATCH_NARROW <= super::tune::SMALL_REGS);
use super::tune::{BATCH_NARROW, BATCH_WIDE, LEAF_AIM_SLACK, LEAF_SPLIT_HALVES, SAMPLE};

/// [`partition`] with the batch of the register width: 32 AVX-512 registers hold twice the
/// batch that 16 AVX2 registers do.
#[inline(always)]
unsafe fn partition_any<V: Vector, const MAP_IN: bool, const TRACK: bool>(
    p: *mut V::Elem,
    n: usize,
    pivot: V::Elem,
    map: KeyMap,
) -> (usize, V::Elem, V::Elem) {
    if std::mem::size_of::<V>() >= 64 {
        partition::<V, BATCH_WIDE, MAP_IN, TRACK>(p, n, pivot, map)
    } else {
        partition::<V, BATCH_NARROW, MAP_IN, TRACK>(p, n, pivot, map)
    }
}

/// Moves the keys not above `pivot` to the front of the `n >= 2 * BATCH * LANES` keys at `p`, the
/// others to the back; returns where the back begins, and the least and greatest key (with
/// `TRACK`; else the least and greatest word).
#[inline(always)]
unsafe fn partition<V: Vector, const BATCH: usize, const MAP_IN: bool, const TRACK: bool>(
    p: *mut V::Elem,
    n: usize,
    pivot: V::Elem,
    map: KeyMap,
) -> (usize, V::Elem, V::Elem) {
    // MAP_IN: the keys are raw bits, taken to ordered bits as they are read (the sort's first pass).
    let load = |at: *const V::Elem| if MAP_IN { map.fwd(V::load(at)) } else { V::load(at) };
    let lanes = V::LANES;
    let step = BATCH * lanes;
    assert!(n >= 2 * step);
    let pv = V::splat(pivot);
    let mut first = [pv; BATCH];
    let mut last = [pv; BATCH];
    for i in 0..BATCH {
        first[i] = load(p.add(i * lanes));
        last[i] = load(p.add(n - step + i * lanes));
    }
    // Unread keys are [l, r); the front is written from ls up, the back from rs down. The room
    // at the front (l - ls) and at the back (rs - r) add up to 2 * step at the top of each loop.
    let (mut l, mut r) = (step, n - step);
    let mut out = Packer::<V, TRACK> { p, pivot: pv, ls: 0, rs: n, min: pv, max: pv };
    let full = u32::MAX >> (32 - lanes);
    // Reading from the side with less room gives it `step` more, so each side has at least
    // `step` while the batch is written.
    while r - l >= step {
        let from_front = l - out.ls <= out.rs - r;
        let at = if from_front { l } else { r - step };
        let mut batch = [pv; BATCH];
        for (i, v) in batch.iter_mut().enumerate() {
            *v = load(p.add(at + i * lanes));
        }
        // Later batches come from either end, which only the counts of the batches before them
        // decide: the lines of the batch after the next one are fetched at both ends now, so its
        // loads do not wait on memory once the end is picked.
        let (next_l, next_r) = if from_front { (l + step, r) } else { (l, r - step) };
        if next_r >= next_l + 3 * step {
            for i in 0..BATCH {
                prefetch(p.add(next_l + step + i * lanes));
                prefetch(p.add(next_r - 2 * step + i * lanes));
            }
        }
        if from_front {
            l += step;
        } else {
            r -= step;
        }
        for v in batch {
            out.pack_roomy(v);
        }
    }
    while r - l >= lanes {
        let from_front = l - out.ls <= out.rs - r;
        let at = if from_front { l } else { r - lanes };
        let v = load(p.add(at));
        if from_front {
            l += lanes;
        } else {
            r -= lanes;
        }
        out.pack_roomy(v);
    }
    // Fewer than a register's keys remain unread; once they are in a register, everything
    // between ls and rs is free. Pivot copies fill the lanes past them, leaving min and max as
    // they are (the pivot is one of the keys).
    let rest = r - l;
    let tail = if MAP_IN {
        // Raw bits that map to the pivot fill the lanes past the keys.
        map.fwd(V::load_part(p.add(l), rest, V::splat(map.back_word(pivot))))
    } else {
        V::load_part(p.add(l), rest, pv)
    };
    out.pack(tail, full >> (lanes - rest));
    for v in first {
        out.pack(v, full);
    }
    for v in last {
        out.pack(v, full);
    }
    assert_eq!(out.ls, out.rs);
    if TRACK {
        (out.ls, out.min.reduce_min(), out.max.reduce_max())
    } else {
        (out.ls, V::Elem::MIN, V::Elem::MAX)
    }
}

/// Asks for the cache line at `p` (x86-64; nothing elsewhere).
#[inline(always)]
fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch never faults; SSE is part of x86-64.
    unsafe {
        std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(p as *const i8)
    };
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Where the partition writes: keys not above the pivot from `ls` up, the others from `rs` down;
/// and, with `TRACK`, the least and greatest key seen (lane by lane).
struct Packer<V: Vector, const TRACK: bool> {
    p: *mut V::Elem,
    pivot: V,
    ls: usize,
    rs: usize,
    min: V,
    max: V,
}

impl<V: Vector, const TRACK: bool> Packer<V, TRACK> {
    /// As [`Packer::pack`] with every lane valid, when both ends have a register's room: then
    /// where one shuffle puts both sides' keys in place, both ends take full stores.
    #[inline(always)]
    unsafe fn pack_roomy(&mut self, v: V) {
        if !V::SPLIT_IS_CHEAP {
            return self.pack(v, u32::MAX >> (32 - V::LANES));
        }
        let gt = v.gt_mask(self.pivot);
        let cg = gt.count_ones() as usize;
        let both = v.split(gt);
        // The keys not above the pivot are the low lanes, the others the high ones; each store's
        // other lanes land in room that later stores overwrite.
        both.store(self.p.add(self.ls));
        self.ls += V::LANES - cg;
        both.store(self.p.add(self.rs - V::LANES));
        self.rs -= cg;
        if TRACK {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
    }

    /// Writes the lanes of `v` set in `valid`. The front must have a register's room (a full
    /// store is safe there and cheaper than a masked one); the back takes exactly its keys.
    #[inline(always)]
    unsafe fn pack(&mut self, v: V, valid: u32) {
        let gt = v.gt_mask(self.pivot) & valid;
        // The keys not above the pivot: valid and not in `gt`.
        v.compress_not(gt | !valid).store(self.p.add(self.ls));
        let cg = gt.count_ones() as usize;
        self.ls += valid.count_ones() as usize - cg;
        self.rs -= cg;
        v.compress(gt).store_part(self.p.add(self.rs), cg);
        if TRACK {
            self.min = self.min.min(v);
            self.max = self.max.max(v);
        }
    }
}

/// The entry points of one kernel (`mod.rs` `Kernel`) on one instruction set (`$feature`, for
/// `target_feature`): keys given as raw words `$bits`, sorted as words `$word` in registers
/// `$reg` (signed words for signed registers: `map::Bits::FLIPPED`). `$sort` takes raw key bits
/// or, when `mapped`, the words as `$split` leaves them; `$back` maps a range that `$split`
/// finished back to raw key bits.
macro_rules! kernel_entries {
    ($feature:literal, $sort:ident, $split:ident, $back:ident, $bits:ty, $word:ty, $reg:ty) => {
        /// Sorts `v` on this thread (see `quick::kernel_entries!`).
        ///
        /// # Safety
        /// The instruction set is present.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $sort(v: &mut [$bits], map: KeyMap, mapped: bool) {
            super::quick::sort::<$reg>(super::map::retype(v), map, mapped)
        }

        /// One partition step of a parallel sort (see `quick::split`).
        ///
        /// # Safety
        /// The instruction set is present.
        #[target_feature(enable = $feature)]
        pub(crate) unsafe fn $split(v: &mut [$bits], map: KeyMap, map_in: bool) -> super::quick::Split {
            super::quick::split::<$reg>(super::map::retype(v), map, map_in)
        }

        /// Maps a range that the split finished back to raw key bits.
        pub(crate) fn $back(map: KeyMap, v: &mut [$bits]) {
            map.back_slice::<$word>(super::map::retype(v))
        }
    };
}
pub(crate) use kernel_entries;

#[cfg(test)]
mod tests {
    use super::split_rank;

    /// Short ranges are aimed so that, at the sample's expected ranks, the right side fits the
    /// network and the left side half of it where it can; longer ones split at the median.
    #[test]
    fn split_rank_aims_at_the_networks() {
        let (k, small) = (16, 256);
        for n in small + 1..=4 * small {
            let j = split_rank(n, k, small);
            assert!(j < k / 2, "n {n}: rank {j}");
            let left = (j + 1) * n / (k + 1);
            if 2 * n > 3 * small {
                assert_eq!(j, k / 2 - 1, "n {n}");
            } else {
                assert!(n - left <= small + small / 8, "n {n}: right side {} expected", n - left);
                assert!(left <= small / 2 + small / 8, "n {n}: left side {left} expected");
            }
        }
        // 8 samples (64-bit keys with AVX-512) keep the median.
        assert_eq!(split_rank(300, 8, 128), 3);
    }
}
