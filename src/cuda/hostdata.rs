//! The caller's host data as the host pipeline moves it: ranges of staged items gathered into
//! pinned memory and scattered back, on all cores. Most sorts stage their items as they are; split
//! pairs of 32-bit keys are staged as `Kvp`s (the key's ordered bits beside its value), interleaved
//! while they are copied anyway, so they take the `Kvp` kernels and the whole host path of one
//! array, out of core included.

use std::ops::Range;

use cudarc::driver::DeviceRepr;

use super::host_keys::Bits32;
use super::staging::Plain;
use crate::backend::Position;
use crate::hostcopy::{par_copy, par_pieces, par_pieces2, par_stage, Staging};
use crate::{Kvp, SortError};

/// The caller's data, seen as `len()` staged items.
pub(crate) trait HostData: Send {
    /// What goes up: the sorts' items (`DeviceItem`), or the words of records that are only
    /// moved (`records.rs`).
    type Item: Plain + DeviceRepr;
    /// The same kind of data over a range of it: what one device of a sort spread over several
    /// devices reads and writes (`multi`).
    type Part<'b>: HostData<Item = Self::Item>
    where
        Self: 'b;
    fn len(&self) -> usize;
    /// Staged items `start..start + dst.len()` into `dst`, which is pinned memory of the kind `to`.
    fn gather(&self, start: usize, dst: &mut [Self::Item], to: Staging);
    /// Staged items `src` back to positions `start..start + src.len()`.
    fn scatter(&mut self, start: usize, src: &[Self::Item]);
    /// The data cut at the ascending positions `cuts` into `cuts.len() + 1` parts, in order.
    fn parts(&mut self, cuts: &[usize]) -> Vec<Self::Part<'_>>;
    /// The caller's memory itself, where it holds the staged items as they are (so the copy
    /// engine may read and write it in place when it is page-locked).
    fn as_items(&mut self) -> Option<&mut [Self::Item]> {
        None
    }
}

/// `s` cut at the ascending positions `cuts` (each at most `s.len()`).
fn cut<'b, T>(mut s: &'b mut [T], cuts: &[usize]) -> Vec<&'b mut [T]> {
    let mut out = Vec::with_capacity(cuts.len() + 1);
    let mut at = 0;
    for &c in cuts {
        let (head, tail) = std::mem::take(&mut s).split_at_mut(c - at);
        out.push(head);
        (s, at) = (tail, c);
    }
    out.push(s);
    out
}

/// The positions where the parts of `cut(.., cuts)` start.
fn starts(cuts: &[usize]) -> impl Iterator<Item = usize> + '_ {
    std::iter::once(0).chain(cuts.iter().copied())
}

/// Items the host pipeline only reads: what an upload needs. Every `HostData` is one.
pub(crate) trait HostSource {
    type Item: Plain + DeviceRepr;
    fn len(&self) -> usize;
    /// Staged items `start..start + dst.len()` into `dst`, which is pinned memory of the kind `to`.
    fn gather(&self, start: usize, dst: &mut [Self::Item], to: Staging);
    /// The caller's memory itself, where it holds the staged items as they are (so the copy
    /// engine may read it in place when it is page-locked).
    fn items(&self) -> Option<&[Self::Item]> {
        None
    }
}

impl<H: HostData> HostSource for H {
    type Item = H::Item;
    fn len(&self) -> usize {
        HostData::len(self)
    }
    fn gather(&self, start: usize, dst: &mut [Self::Item], to: Staging) {
        HostData::gather(self, start, dst, to)
    }
}

/// Keys that are read and never written (a top-k's input), staged as they are.
pub(crate) struct ReadOnly<'a, T>(pub(crate) &'a [T]);

impl<T: Plain + DeviceRepr> HostSource for ReadOnly<'_, T> {
    type Item = T;
    fn len(&self) -> usize {
        self.0.len()
    }
    fn gather(&self, start: usize, dst: &mut [T], to: Staging) {
        par_stage(dst, &self.0[start..start + dst.len()], to);
    }
    fn items(&self) -> Option<&[T]> {
        Some(self.0)
    }
}

/// A slice whose items are staged as they are.
pub(crate) struct Direct<'a, T>(pub(crate) &'a mut [T]);

impl<T: Plain + DeviceRepr> HostData for Direct<'_, T> {
    type Item = T;
    type Part<'b>
        = Direct<'b, T>
    where
        Self: 'b;
    fn len(&self) -> usize {
        self.0.len()
    }
    fn gather(&self, start: usize, dst: &mut [T], to: Staging) {
        par_stage(dst, &self.0[start..start + dst.len()], to);
    }
    fn scatter(&mut self, start: usize, src: &[T]) {
        par_copy(&mut self.0[start..start + src.len()], src);
    }
    fn parts(&mut self, cuts: &[usize]) -> Vec<Direct<'_, T>> {
        cut(self.0, cuts).into_iter().map(Direct).collect()
    }
    fn as_items(&mut self) -> Option<&mut [T]> {
        Some(self.0)
    }
}

/// Split arrays of 32-bit keys and their values, staged as `Kvp { key: ordered bits, value }`.
pub(crate) struct SplitAsKvp<'a, K> {
    pub(crate) keys: &'a mut [K],
    pub(crate) values: &'a mut [u32],
}

impl<K: Bits32 + Plain> HostData for SplitAsKvp<'_, K> {
    type Item = Kvp;
    type Part<'b>
        = SplitAsKvp<'b, K>
    where
        Self: 'b;
    fn parts(&mut self, cuts: &[usize]) -> Vec<SplitAsKvp<'_, K>> {
        let values = cut(self.values, cuts);
        cut(self.keys, cuts).into_iter().zip(values).map(|(keys, values)| SplitAsKvp { keys, values }).collect()
    }
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn gather(&self, start: usize, dst: &mut [Kvp], to: Staging) {
        let (keys, values) = (&self.keys[start..start + dst.len()], &self.values[start..start + dst.len()]);
        stage(dst, to, |d, r| {
            for ((d, k), &v) in d.iter_mut().zip(&keys[r.clone()]).zip(&values[r]) {
                *d = Kvp::new(k.to_ordered_bits(), v);
            }
        });
    }
    fn scatter(&mut self, start: usize, src: &[Kvp]) {
        let end = start + src.len();
        let streaming = streams(src);
        par_pieces2(&mut self.keys[start..end], &mut self.values[start..end], |k, v, r| {
            let s = &src[r];
            if !streaming {
                return unzip_into(k, v, s);
            }
            let (mut bk, mut bv) = ([K::from_ordered_bits(0); BLOCK], [0u32; BLOCK]);
            for ((k, v), s) in k.chunks_mut(BLOCK).zip(v.chunks_mut(BLOCK)).zip(s.chunks(BLOCK)) {
                let (bk, bv) = (&mut bk[..s.len()], &mut bv[..s.len()]);
                unzip_into(bk, bv, s);
                gpusort_cpu::copy_streaming(k, bk);
                gpusort_cpu::copy_streaming(v, bv);
            }
        });
    }
}

/// Items per block of a streaming (un)zip: interleaved (or split) first in a block that stays in
/// L1, then written out with non-temporal stores, as `par_copy` writes large copies.
const BLOCK: usize = 1024;

/// Fills pinned staging memory on all cores, storing as `hostcopy::par_stage` does for `to`:
/// `fill(out, range)` writes the items `range` of `dst` into `out`. A ring slot is filled in
/// place; the held buffer through a block of at most `BLOCK` items in L1, which goes out with
/// non-temporal stores.
fn stage<T: Plain>(dst: &mut [T], to: Staging, fill: impl Fn(&mut [T], Range<usize>) + Sync) {
    if to == Staging::Ring {
        return par_pieces(dst, fill);
    }
    par_pieces(dst, |d, r| {
        // SAFETY: zeroed memory is a valid `Plain` item.
        let mut block: [T; BLOCK] = unsafe { std::mem::zeroed() };
        for (j, d) in d.chunks_mut(BLOCK).enumerate() {
            let at = r.start + j * BLOCK;
            let b = &mut block[..d.len()];
            fill(b, at..at + d.len());
            gpusort_cpu::copy_streaming(d, b);
        }
    });
}

/// Whether (un)zipping `items` writes with non-temporal stores: the size from which `par_copy`
/// does.
fn streams(items: &[Kvp]) -> bool {
    std::mem::size_of_val(items) >= crate::hostcopy::STREAM_MIN
}

fn unzip_into<K: Bits32>(k: &mut [K], v: &mut [u32], s: &[Kvp]) {
    for ((k, v), s) in k.iter_mut().zip(v.iter_mut()).zip(s) {
        *k = K::from_ordered_bits(s.key);
        *v = s.value;
    }
}

/// An argsort of 32-bit keys, staged as `Kvp { key: ordered bits, value: position }`: the
/// positions are made while the keys are copied, and only they come back, written at the
/// caller's width. The keys are never written. (The out-of-core and multi-device path: in core,
/// `argsort::round_trip` moves half the bytes.)
pub(crate) struct ArgsortAsKvp<'a, K, P> {
    pub(crate) keys: &'a [K],
    pub(crate) out: &'a mut [P],
    /// The position of `keys[0]` in the whole argsort (a part of one starts past 0).
    pub(crate) first: usize,
}

impl<K: Bits32 + Plain, P: Position + Plain> HostData for ArgsortAsKvp<'_, K, P> {
    type Item = Kvp;
    type Part<'b>
        = ArgsortAsKvp<'b, K, P>
    where
        Self: 'b;
    fn parts(&mut self, cuts: &[usize]) -> Vec<ArgsortAsKvp<'_, K, P>> {
        let keys = self.keys;
        cut(self.out, cuts)
            .into_iter()
            .zip(starts(cuts))
            .map(|(out, at)| ArgsortAsKvp { keys: &keys[at..at + out.len()], out, first: self.first + at })
            .collect()
    }
    fn len(&self) -> usize {
        self.keys.len()
    }
    fn gather(&self, start: usize, dst: &mut [Kvp], to: Staging) {
        let keys = &self.keys[start..start + dst.len()];
        let base = self.first + start;
        // Positions fit u32: argsort takes at most 2^32 keys (`Sorter::argsort_into`).
        stage(dst, to, |d, r| {
            let first = base + r.start;
            for (i, (d, k)) in d.iter_mut().zip(&keys[r]).enumerate() {
                *d = Kvp::new(k.to_ordered_bits(), (first + i) as u32);
            }
        });
    }
    fn scatter(&mut self, start: usize, src: &[Kvp]) {
        let streaming = streams(src);
        par_pieces(&mut self.out[start..start + src.len()], |o, r| {
            let s = &src[r];
            if !streaming {
                o.iter_mut().zip(s).for_each(|(o, s)| *o = P::from_u32(s.value));
                return;
            }
            let mut block = [P::default(); BLOCK];
            for (o, s) in o.chunks_mut(BLOCK).zip(s.chunks(BLOCK)) {
                let b = &mut block[..s.len()];
                b.iter_mut().zip(s).for_each(|(b, s)| *b = P::from_u32(s.value));
                gpusort_cpu::copy_streaming(o, b);
            }
        });
    }
}

/// 32-bit keys the sorting networks take as their ordered bits (`u32`), converted while copied.
pub(crate) struct KeysAsBits<'a, K>(pub(crate) &'a mut [K]);

impl<K: Bits32 + Plain> HostData for KeysAsBits<'_, K> {
    type Item = u32;
    type Part<'b>
        = KeysAsBits<'b, K>
    where
        Self: 'b;
    fn parts(&mut self, cuts: &[usize]) -> Vec<KeysAsBits<'_, K>> {
        cut(self.0, cuts).into_iter().map(KeysAsBits).collect()
    }
    fn len(&self) -> usize {
        self.0.len()
    }
    fn gather(&self, start: usize, dst: &mut [u32], to: Staging) {
        let keys = &self.0[start..start + dst.len()];
        stage(dst, to, |d, r| {
            for (d, k) in d.iter_mut().zip(&keys[r]) {
                *d = k.to_ordered_bits();
            }
        });
    }
    fn scatter(&mut self, start: usize, src: &[u32]) {
        par_pieces(&mut self.0[start..start + src.len()], |k, r| {
            for (k, &s) in k.iter_mut().zip(&src[r]) {
                *k = K::from_ordered_bits(s);
            }
        });
    }
}

/// Small keys' 32-bit ordered bits in a new host buffer, for the device steps that have no kernels
/// of the small types and take no staged conversion (host top-k, segmented pairs); `narrow` writes
/// them back once the step has succeeded.
pub(crate) fn widen<K: Bits32>(keys: &[K]) -> Result<ZeroedBuf<u32>, SortError> {
    let mut bits = ZeroedBuf::<u32>::new(keys.len())?;
    par_pieces(bits.as_mut_slice(), |b, r| b.iter_mut().zip(&keys[r]).for_each(|(b, k)| *b = k.to_ordered_bits()));
    Ok(bits)
}

/// `keys` from their ordered bits (see `widen`).
pub(crate) fn narrow<K: Bits32>(keys: &mut [K], bits: &[u32]) {
    par_pieces(keys, |k, r| k.iter_mut().zip(&bits[r]).for_each(|(k, &b)| *k = K::from_ordered_bits(b)));
}

/// A zero-filled host buffer of `Plain` items from the allocator's zeroed pages: no pass over
/// memory to initialise it, and the pages fault in on first write, in parallel, where the data
/// lands. Allocation failure is `OutOfMemory`, never an abort.
pub(crate) struct ZeroedBuf<T: Plain> {
    ptr: std::ptr::NonNull<T>,
    len: usize,
}

// SAFETY: owns its memory like a Vec<T>.
unsafe impl<T: Plain> Send for ZeroedBuf<T> {}
// SAFETY: as above; shared access is read-only.
unsafe impl<T: Plain> Sync for ZeroedBuf<T> {}

impl<T: Plain> ZeroedBuf<T> {
    pub(crate) fn new(len: usize) -> Result<Self, SortError> {
        let layout = std::alloc::Layout::array::<T>(len.max(1))
            .map_err(|_| SortError::InvalidArgument(format!("{len} items do not fit in memory")))?;
        // SAFETY: the layout has a non-zero size.
        let ptr = unsafe { std::alloc::alloc_zeroed(layout) } as *mut T;
        // Reported as memory exhaustion, so that `auto()` may still try the CPU.
        let ptr = std::ptr::NonNull::new(ptr).ok_or(SortError::OutOfMemory {
            op: "host scratch buffer (host memory, not device)",
            bytes: layout.size(),
        })?;
        Ok(ZeroedBuf { ptr, len })
    }

    pub(crate) fn as_mut_slice(&mut self) -> &mut [T] {
        // SAFETY: `len` zero-initialised items (zero bits are valid for Plain types), owned.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }

    pub(crate) fn as_slice(&self) -> &[T] {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Plain> Drop for ZeroedBuf<T> {
    fn drop(&mut self) {
        let layout = std::alloc::Layout::array::<T>(self.len.max(1)).expect("checked in new");
        // SAFETY: allocated in `new` with this layout.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr() as *mut u8, layout) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use gpusort_cpu::SortKey;

    #[test]
    fn split_pairs_stage_as_ordered_kvp_and_come_back() {
        // Below and above the size from which the unzip streams through L1 blocks.
        for n in [(1 << 18) * 3 + 7, crate::hostcopy::STREAM_MIN / 8 + BLOCK * 3 + 5] {
            split_pairs_round_trip(n);
        }
    }

    #[test]
    fn small_keys_widen_to_ordered_bits_and_narrow_back() {
        // More than one parallel piece, so every piece's offset is exercised.
        let keys: Vec<i8> = (0..(1 << 19) + 5).map(|i| (i as u32).wrapping_mul(2654435761) as i8).collect();
        let bits = widen(&keys).unwrap();
        assert!(keys.iter().zip(bits.as_slice()).all(|(&k, &b)| b == (k as u8 ^ 0x80) as u32));
        let mut back = vec![0i8; keys.len()];
        narrow(&mut back, bits.as_slice());
        assert_eq!(back, keys);
        let mut wide = [u16::MAX, 0, 7, 1];
        for to in [Staging::Held, Staging::Ring] {
            let mut staged = vec![0u32; 3];
            HostData::gather(&KeysAsBits(&mut wide), 1, &mut staged, to);
            assert_eq!(staged, [0, 7, 1]);
        }
        KeysAsBits(&mut wide).scatter(0, &[1, 65535]);
        assert_eq!(wide, [1, u16::MAX, 7, 1]);
    }

    fn split_pairs_round_trip(n: usize) {
        let mut keys: Vec<f32> = (0..n).map(|i| (i as f32 - 1e5) * 0.37).collect();
        keys[5] = f32::NAN;
        keys[6] = -0.0;
        let mut values: Vec<u32> = (0..keys.len() as u32).map(|i| i.wrapping_mul(2654435761)).collect();
        let (k0, v0) = (keys.clone(), values.clone());
        let mut data = SplitAsKvp { keys: &mut keys, values: &mut values };
        let mut staged = vec![Kvp::new(0, 0); HostData::len(&data) - 3];
        for to in [Staging::Ring, Staging::Held] {
            staged.fill(Kvp::new(0, 0));
            HostData::gather(&data, 3, &mut staged, to);
            let ok =
                staged.iter().enumerate().all(|(i, p)| p.key == k0[i + 3].to_ordered_bits() && p.value == v0[i + 3]);
            assert!(ok, "{to:?}");
        }
        // Scattered back one place later: every key and value moves together, bits intact.
        data.scatter(2, &staged);
        assert!((2..k0.len() - 1).all(|i| keys[i].to_bits() == k0[i + 1].to_bits() && values[i] == v0[i + 1]));
    }
}
