//! Which kernel launches a sorting network of n elements takes: a pure function of n and the tile,
//! so the pass counts can be checked and reported without a GPU.
//!
//! The numbers mirror the sorting-networks section of `kernels-cuda/cuda/tuning.cuh`.

/// Bytes of one shared-memory tile (`NET_TILE_BYTES`).
pub(crate) const TILE_BYTES: usize = 32768;
/// Threads per block of every network kernel (`NET_THREADS`).
pub(crate) const THREADS: u32 = 256;
/// Odd-even windows are 2^OE_COL_BITS columns wide (`NET_OE_COL_BITS`).
const OE_COL_BITS: u32 = 4;
/// Bitonic global passes keep at least 256 bytes of adjacent columns per row (128 where a flip
/// mirrors half of them). H200, pairs, ms: 128-byte rows (one pass fewer at 1M and 64M) gave
/// 1M 0.151, 16M 3.20, 64M 14.5; 256-byte rows 0.156, 3.08, 13.9.
const BITONIC_MIN_ROW_BYTES: usize = 256;
/// Odd-even tile merges run strides below 2^(tile bits - 3): halos of 1/8 tile each side, so
/// 3/4 of every window is output (4096-pair windows own 3072).
const OE_MERGE_BELOW_TILE: u32 = 3;
/// The odd-even kernels check positions in 32-bit signed arithmetic, windows hanging up to one
/// tile past either end: 2^30 elements (8 GiB of pairs) keeps them exact.
pub(crate) const MAX_LEN: usize = 1 << 30;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Network {
    Bitonic,
    OddEven,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kernel {
    BitonicTileSort,
    BitonicTileMerge,
    BitonicGlobal,
    OddEvenTileSort,
    OddEvenTileMerge,
    OddEvenGlobal,
}

/// One launch: `blocks` blocks of `THREADS`, arguments (a, b, c); `swap` when it reads one buffer
/// and writes the other (odd-even windows overlap, so they cannot work in place).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Pass {
    pub(crate) kernel: Kernel,
    pub(crate) blocks: u32,
    pub(crate) args: [u32; 3],
    pub(crate) swap: bool,
}

fn ceil_log2(n: usize) -> u32 {
    usize::BITS - (n - 1).leading_zeros()
}

fn blocks(n: usize, per_block: usize) -> u32 {
    n.div_ceil(per_block) as u32
}

/// Splits `count` consecutive strides into chunks of at most `max`, as even as possible, largest
/// first; returns (lowest stride bit, number of strides) from the top down.
fn chunks(top: u32, bottom: u32, max: u32) -> Vec<(u32, u32)> {
    let count = top - bottom;
    let parts = count.div_ceil(max);
    let mut out = Vec::with_capacity(parts as usize);
    let mut hi = top;
    for i in 0..parts {
        let k = count / parts + u32::from(i < count % parts);
        out.push((hi - k, k));
        hi -= k;
    }
    out
}

/// The launches that sort `n` elements (n >= 2) of `elem_bytes` each.
pub(crate) fn plan(network: Network, n: usize, elem_bytes: usize) -> Vec<Pass> {
    debug_assert!((2..=MAX_LEN).contains(&n));
    let w = TILE_BYTES / elem_bytes;
    let t = w.trailing_zeros();
    let l = ceil_log2(n);
    let mut out = Vec::new();
    match network {
        Network::Bitonic => {
            out.push(Pass { kernel: Kernel::BitonicTileSort, blocks: blocks(n, w), args: [0; 3], swap: false });
            let max_rows = t - (BITONIC_MIN_ROW_BYTES / elem_bytes).trailing_zeros();
            for s in t + 1..=l {
                for (b, k) in chunks(s, t, max_rows) {
                    let cb = t - k;
                    let groups = blocks(n, 1 << (b + k)) << (b - cb);
                    let flip = u32::from(b + k == s);
                    out.push(Pass { kernel: Kernel::BitonicGlobal, blocks: groups, args: [b, k, flip], swap: false });
                }
                out.push(Pass { kernel: Kernel::BitonicTileMerge, blocks: blocks(n, w), args: [0; 3], swap: false });
            }
        }
        Network::OddEven => {
            out.push(Pass { kernel: Kernel::OddEvenTileSort, blocks: blocks(n, w), args: [0; 3], swap: false });
            let rows_log = t - OE_COL_BITS;
            // k strides need 2^k halo rows each side; k <= rows_log - 2 keeps half the window as output.
            let max_rows = rows_log - 2;
            let h = t - OE_MERGE_BELOW_TILE;
            for s in t + 1..=l {
                for (b, k) in chunks(s, h, max_rows) {
                    let own = (1usize << rows_log) - (2usize << k);
                    let tiles = blocks(n.div_ceil(1 << b), own);
                    out.push(Pass {
                        kernel: Kernel::OddEvenGlobal,
                        blocks: tiles << (b - OE_COL_BITS),
                        args: [s, b, k],
                        swap: true,
                    });
                }
                let own = w - (2usize << h);
                out.push(Pass {
                    kernel: Kernel::OddEvenTileMerge,
                    blocks: blocks(n, own),
                    args: [s, h, 0],
                    swap: true,
                });
            }
            // The tile sort changes buffers too when that leaves the last pass writing the caller's.
            let swaps = out.iter().filter(|p| p.swap).count();
            out[0].swap = swaps % 2 == 1;
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn count(network: Network, n: usize, bytes: usize) -> usize {
        plan(network, n, bytes).len()
    }

    #[test]
    fn chunks_cover_every_stride_once() {
        for top in 1..40 {
            for bottom in 0..top {
                for max in 1..9 {
                    let c = chunks(top, bottom, max);
                    assert_eq!(c.first().map(|&(b, k)| b + k), Some(top));
                    assert_eq!(c.last().map(|&(b, _)| b), Some(bottom));
                    assert!(c.windows(2).all(|p| p[1].0 + p[1].1 == p[0].0));
                    assert!(c.iter().all(|&(_, k)| (1..=max).contains(&k)));
                }
            }
        }
    }

    #[test]
    fn odd_even_ends_in_the_callers_buffer() {
        for n in [2, 4096, 4097, 1 << 20, 1_000_000, 10_000_001, 1 << 26] {
            for bytes in [4, 8] {
                let swaps = plan(Network::OddEven, n, bytes).iter().filter(|p| p.swap).count();
                assert_eq!(swaps % 2, 0, "n = {n}");
            }
        }
    }

    /// Passes over memory at the sizes the issue asks about (printed for the report).
    #[test]
    fn pass_counts() {
        for n in [1usize << 20, 1 << 24, 1 << 26] {
            let (bk, bu) = (count(Network::Bitonic, n, 8), count(Network::Bitonic, n, 4));
            let (ok, ou) = (count(Network::OddEven, n, 8), count(Network::OddEven, n, 4));
            println!(
                "n = 2^{}: bitonic {bk} (pairs) {bu} (keys), odd-even {ok} (pairs) {ou} (keys)",
                n.trailing_zeros()
            );
        }
        // Stage s of a one-stride-per-pass bitonic sort above 1024 elements costs s - 10 passes.
        let naive: usize = (11..=26).map(|s| s - 10 + 1).sum::<usize>() + 1;
        assert!(count(Network::Bitonic, 1 << 26, 8) * 3 < naive);
    }
}
