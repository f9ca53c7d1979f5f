//! Host-to-host copies on all cores, for the GPU's host path and the CPU merge of runs.

use rayon::prelude::*;

/// Copies of at least this many bytes write with non-temporal stores (see `par_copy`).
pub(crate) const STREAM_MIN: usize = 16 << 20;

/// `dst.copy_from_slice(src)` on all cores: one thread copies far below the memory bandwidth
/// (8.9 GB/s against 53 GB/s for 16 threads, 512 MiB into pinned memory on the H200 machine,
/// `ci/probe/host_bw.cu`). Copies up to 1 MiB stay on the calling thread: waking the pool cost
/// more than it saved (H200 machine, host to host, 64K pairs: 0.285 ms with two 256 KiB pieces
/// per copy, against 0.134 ms for 32K copied on one thread). Pieces are at most 4 MiB. Copies of
/// 16 MiB and more store with non-temporal writes (`gpusort_cpu::copy_streaming`), which skip
/// reading each destination line first: 64M pairs host to host 30.4 ms against 41.4 before;
/// smaller copies, whose destination may still be in cache, keep ordinary stores (1M pairs took
/// 1.51 ms streamed, against 1.25 ms).
pub(crate) fn par_copy<T: Copy + Send + Sync>(dst: &mut [T], src: &[T]) {
    copy_pieces(dst, src, std::mem::size_of_val(src) >= STREAM_MIN);
}

fn copy_pieces<T: Copy + Send + Sync>(dst: &mut [T], src: &[T], streaming: bool) {
    const SEQ_MAX: usize = 1 << 20;
    const MAX_PIECE: usize = 4 << 20;
    assert_eq!(dst.len(), src.len(), "par_copy lengths");
    let size = std::mem::size_of::<T>().max(1);
    let bytes = std::mem::size_of_val(src);
    if bytes <= SEQ_MAX {
        dst.copy_from_slice(src);
        return;
    }
    let piece = (bytes / rayon::current_num_threads().max(1)).clamp(SEQ_MAX / 4, MAX_PIECE);
    let chunk = (piece / size).max(1);
    let pieces = dst.par_chunks_mut(chunk).zip(src.par_chunks(chunk));
    if streaming {
        pieces.for_each(|(d, s)| gpusort_cpu::copy_streaming(d, s));
    } else {
        pieces.for_each(|(d, s)| d.copy_from_slice(s));
    }
}
