//! Host-to-host copies on all cores (the copy crew, `crew.rs`), for the GPU's host path and the
//! CPU merge of runs: plain copies, copies into pinned staging memory, and per-piece loops for
//! the copies that convert items as they go (`cuda/hostdata.rs`).

use std::ops::Range;

use crate::crew;

/// Copies of at least this many bytes write with non-temporal stores (see `par_copy`).
pub(crate) const STREAM_MIN: usize = 16 << 20;

/// `dst.copy_from_slice(src)` on all cores: one thread copies far below the memory bandwidth
/// (8.9 GB/s against 53 GB/s for 16 threads, 512 MiB into pinned memory on the H200 machine,
/// `benches/probe/host_bw.cu`). Copies of 16 MiB and more store with non-temporal writes
/// (`gpusort_cpu::copy_streaming`), which skip reading each destination line first: 64M pairs
/// host to host 30.4 ms against 41.4 before; smaller copies, whose destination may still be in
/// cache, keep ordinary stores (1M pairs took 1.51 ms streamed, against 1.25 ms).
pub(crate) fn par_copy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    copy(dst, src, std::mem::size_of_val(src) >= STREAM_MIN);
}

/// Where a gather into pinned memory writes, which decides how it stores.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Staging {
    /// The held buffer: every chunk has its own place, kept until the sort ends. Non-temporal
    /// stores at every size: lines left dirty in the cores' caches made the copy engine's reads
    /// slower than reading memory (H200 machine, 1M pairs host to host in two 4 MiB chunks each
    /// way: from the sort's launch to the first chunk back 168 us streamed against 249 us; the
    /// whole sort 0.737 against 0.870 ms).
    Held,
    /// A ring slot that the copy engine reads next and the next chunk overwrites: ordinary
    /// stores, and the slots stay in the last-level cache. H200 machine, 512M pairs out of core
    /// with a 2 GiB budget, the runs going up through a 4 x 16 MiB ring: the run phase took
    /// 128-139 ms with ordinary stores, 156-171 streamed, and 171-180 through the held buffer.
    Ring,
}

/// `par_copy` into pinned staging memory that the copy engine reads next, storing as `to` says.
pub(crate) fn par_stage<T: Copy + Send + Sync>(dst: &mut [T], src: &[T], to: Staging) {
    copy(dst, src, to == Staging::Held);
}

fn copy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T], streaming: bool) {
    assert_eq!(dst.len(), src.len(), "par_copy lengths");
    par_pieces(dst, |d, r| {
        if streaming {
            gpusort_cpu::copy_streaming(d, &src[r]);
        } else {
            d.copy_from_slice(&src[r]);
        }
    });
}

/// Copies up to this many bytes stay on the calling thread.
const SEQ_MAX: usize = 256 << 10;
/// Pieces of a parallel copy: about one per thread, at least `MIN_PIECE` and at most
/// `MAX_PIECE` bytes.
const MIN_PIECE: usize = 64 << 10;
const MAX_PIECE: usize = 4 << 20;

/// Items of type `T` per piece of a parallel loop over `n` of them (`n` when one thread takes all).
fn piece_items<T>(n: usize) -> usize {
    let size = std::mem::size_of::<T>().max(1);
    let bytes = n.saturating_mul(size);
    if bytes <= SEQ_MAX {
        return n.max(1);
    }
    (bytes / crew::threads()).clamp(MIN_PIECE, MAX_PIECE) / size
}

/// Runs `run(range)` for consecutive ranges covering `0..n` (sized for items of type `A`) on all
/// cores.
fn for_pieces<A>(n: usize, run: impl Fn(Range<usize>) + Sync) {
    let per = piece_items::<A>(n).max(1);
    crew::for_each_piece(n.div_ceil(per), &|i| run(i * per..((i + 1) * per).min(n)));
}

/// Runs `f(piece, range)` for consecutive pieces of `dst` (`piece` is `dst[range]`) on all cores.
pub(crate) fn par_pieces<A: Send>(dst: &mut [A], f: impl Fn(&mut [A], Range<usize>) + Sync) {
    let base = Shared(dst.as_mut_ptr());
    // SAFETY: the ranges are disjoint and within `dst`, which stays borrowed until all have run.
    for_pieces::<A>(dst.len(), |r| f(unsafe { base.slice(r.clone()) }, r));
}

/// `par_pieces` over two arrays of one length, cut at the same places (sized by the first).
pub(crate) fn par_pieces2<A: Send, B: Send>(
    a: &mut [A],
    b: &mut [B],
    f: impl Fn(&mut [A], &mut [B], Range<usize>) + Sync,
) {
    assert_eq!(a.len(), b.len(), "par_pieces2 lengths");
    let (pa, pb) = (Shared(a.as_mut_ptr()), Shared(b.as_mut_ptr()));
    // SAFETY: as in `par_pieces`, for both arrays.
    for_pieces::<A>(a.len(), |r| f(unsafe { pa.slice(r.clone()) }, unsafe { pb.slice(r.clone()) }, r));
}

/// A base pointer that the pieces of one loop share, each writing its own range.
struct Shared<T>(*mut T);

impl<T> Shared<T> {
    /// # Safety
    /// `r` is within the array the pointer came from, and no other slice of it is alive.
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice(&self, r: Range<usize>) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.0.add(r.start), r.len())
    }
}

// SAFETY: the pointer is only turned into slices of disjoint ranges, one per piece, while the
// array it came from is mutably borrowed by the loop; items are `Send`.
unsafe impl<T: Send> Sync for Shared<T> {}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(n: usize) -> Vec<u64> {
        (0..n as u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0x5555).collect()
    }

    #[test]
    fn copies_match_the_source_at_every_size_class() {
        let unit = std::mem::size_of::<u64>();
        for n in [0, 1, 7, SEQ_MAX / unit, SEQ_MAX / unit + 1, MIN_PIECE * 5 / unit + 3, (MAX_PIECE * 3 + 8) / unit + 1]
        {
            let src = pattern(n);
            let (mut a, mut b, mut c) = (vec![0u64; n], vec![0u64; n], vec![0u64; n]);
            par_copy(&mut a, &src);
            par_stage(&mut b, &src, Staging::Held);
            par_stage(&mut c, &src, Staging::Ring);
            assert!(a == src && b == src && c == src, "n {n}");
        }
        // An unaligned start of the destination: the streamed copy writes its first partial line
        // with ordinary stores.
        let src: Vec<u8> = (0..(3 << 20) + 5).map(|i| (i % 251) as u8).collect();
        let mut dst = vec![0u8; src.len() + 3];
        par_stage(&mut dst[3..], &src, Staging::Held);
        assert!(dst[3..] == src[..] && dst[..3] == [0, 0, 0]);
    }

    #[test]
    fn pieces_cover_each_item_once_with_their_own_range() {
        for n in [0usize, 1, 1000, (1 << 20) + 13] {
            let mut a = vec![u32::MAX; n];
            let mut b = vec![0u16; n];
            par_pieces(&mut a, |piece, r| {
                assert_eq!(piece.len(), r.len());
                for (x, i) in piece.iter_mut().zip(r) {
                    assert_eq!(*x, u32::MAX, "written twice");
                    *x = i as u32;
                }
            });
            assert!(a.iter().enumerate().all(|(i, &x)| x == i as u32));
            par_pieces2(&mut a, &mut b, |x, y, r| {
                for ((x, y), i) in x.iter_mut().zip(y.iter_mut()).zip(r) {
                    *x = !*x;
                    *y = i as u16;
                }
            });
            assert!(a.iter().zip(&b).enumerate().all(|(i, (&x, &y))| x == !(i as u32) && y == i as u16));
        }
    }
}
