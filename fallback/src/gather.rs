//! Items in the order a permutation gives, on all cores: the second half of sorting records by
//! a key (the first is the key's argsort).

use std::mem::{size_of, MaybeUninit};

use rayon::prelude::*;

/// Positions per parallel task: large enough that rayon's overhead vanishes, small enough that
/// 16 cores share a 1M-item input.
const PIECE: usize = 1 << 16;

/// Bytes of items gathered into a block that stays in L1 before the block is written out with
/// non-temporal stores.
const BLOCK_BYTES: usize = 8 << 10;

/// Reads asked for this many positions ahead of the one being copied, so that more of the random
/// reads' cache and TLB misses overlap.
const AHEAD: usize = 16;

/// `dst[i] = src[positions[i]]` for every i, on the CPU pool. The reads are random; the writes
/// run sequentially and, for a `dst` of 16 MiB and more, through non-temporal stores (the
/// destination is not in cache, so reading its lines first would only add traffic). Reading from
/// a [`HugeVec`](crate::HugeVec) spares the random reads most of their TLB misses.
///
/// # Panics
/// When `dst` and `positions` differ in length or a position is not below `src.len()`.
///
/// ```
/// let src = ["a", "b", "c"];
/// let mut dst = [""; 3];
/// gpusort_cpu::gather(&src, &[2, 0, 1], &mut dst);
/// assert_eq!(dst, ["c", "a", "b"]);
/// ```
pub fn gather<T: Copy + Send + Sync>(src: &[T], positions: &[u32], dst: &mut [T]) {
    assert_eq!(dst.len(), positions.len(), "gather: one position per destination item");
    let streaming =
        std::mem::size_of_val(dst) >= 16 << 20 && size_of::<T>() <= BLOCK_BYTES && std::mem::align_of::<T>() <= 16;
    crate::install(|| {
        dst.par_chunks_mut(PIECE).zip(positions.par_chunks(PIECE)).for_each(|(d, p)| {
            if streaming {
                gather_blocks(src, p, d);
            } else {
                gather_direct(src, p, d);
            }
        })
    });
}

fn gather_direct<T: Copy>(src: &[T], p: &[u32], d: &mut [T]) {
    for (i, (d, &at)) in d.iter_mut().zip(p).enumerate() {
        if let Some(&next) = p.get(i + AHEAD) {
            prefetch(src.get(next as usize));
        }
        *d = src[at as usize];
    }
}

/// `gather_direct` through a block in L1, written out with non-temporal stores; `T` is aligned
/// to 16 or less and no larger than the block.
fn gather_blocks<T: Copy>(src: &[T], p: &[u32], d: &mut [T]) {
    let per = (BLOCK_BYTES / size_of::<T>().max(1)).max(1);
    let mut block = [MaybeUninit::<u128>::uninit(); BLOCK_BYTES / 16];
    let base = block.as_mut_ptr() as *mut T;
    let mut start = 0;
    for d in d.chunks_mut(per) {
        for (j, &at) in p[start..start + d.len()].iter().enumerate() {
            if let Some(&next) = p.get(start + j + AHEAD) {
                prefetch(src.get(next as usize));
            }
            // SAFETY: j < per, and `per` items of T fit the block's bytes, aligned.
            unsafe { base.add(j).write(src[at as usize]) };
        }
        // SAFETY: the loop above wrote the block's first `d.len()` items, aligned (the block is
        // aligned to 16, the caller's T to 16 or less).
        let items = unsafe { std::slice::from_raw_parts(base as *const T, d.len()) };
        crate::copy_streaming(d, items);
        start += d.len();
    }
}

#[cfg(target_arch = "x86_64")]
fn prefetch<T>(x: Option<&T>) {
    use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
    if let Some(x) = x {
        // SAFETY: a prefetch reads nothing and never faults; `x` is a valid reference anyway.
        #[allow(unused_unsafe)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>((x as *const T).cast())
        }
    }
}

#[cfg(not(target_arch = "x86_64"))]
fn prefetch<T>(_: Option<&T>) {}
