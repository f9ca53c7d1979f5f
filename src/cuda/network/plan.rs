//! Which kernel launches a sorting network of n elements takes: a pure function of n and the
//! image's tuning, so the pass counts can be checked and reported without a GPU.
//!
//! The tuning comes from the loaded image itself (`net_tuning` in `kernels-cuda/cuda/network.cu`),
//! so a candidate image built with other policy_network.cuh numbers plans right without a Rust rebuild.

/// The odd-even kernels check positions in 32-bit signed arithmetic, windows hanging up to one
/// tile past either end: 2^30 elements (8 GiB of pairs) keeps them exact.
pub(crate) const MAX_LEN: usize = 1 << 30;

/// Words of `net_tuning`: a magic word that names the layout, then the numbers below.
pub(crate) const TUNING_WORDS: usize = 10;
/// "NET3": the layout below, and kernels that wait for the previous pass before touching memory,
/// so launches may overlap (`overlap.rs`); an older image is refused rather than raced.
const TUNING_MAGIC: u32 = 0x4e45_5433;

/// The sorting-networks numbers of policy_network.cuh an image was built with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Tuning {
    /// Bytes of one shared-memory tile (`NET_TILE_BYTES`).
    tile_bytes: usize,
    /// Threads per block of every network kernel (`NET_THREADS`).
    pub(crate) threads: u32,
    /// Odd-even windows are 2^oe_col_bits columns wide (`NET_OE_COL_BITS`).
    oe_col_bits: u32,
    /// Most strides of an odd-even global pass with halos (`NET_OE_HALO_STRIDES`).
    oe_halo_strides: u32,
    /// Odd-even tile merges run strides below 2^(tile bits - this) (`NET_OE_MERGE_HALO_BITS`).
    oe_merge_halo_bits: u32,
    /// Bitonic global passes keep at least this many bytes per row (`NET_BITONIC_MIN_ROW_BYTES`).
    bitonic_min_row_bytes: usize,
    /// Dynamic shared memory of a pairs tile and of a keys tile, padding included.
    smem: [u32; 2],
}

impl Tuning {
    /// policy_network.cuh as committed, for the unit tests.
    #[cfg(test)]
    pub(crate) const COMMITTED: Tuning = Tuning {
        tile_bytes: 32768,
        threads: 256,
        oe_col_bits: 3,
        oe_halo_strides: 6,
        oe_merge_halo_bits: 4,
        bitonic_min_row_bytes: 128,
        smem: [34816, 34816],
    };

    /// Reads `net_tuning`; `None` for another layout or numbers the planner cannot use.
    pub(crate) fn from_words(w: &[u32]) -> Option<Tuning> {
        if w.len() != TUNING_WORDS || w[0] != TUNING_MAGIC {
            return None;
        }
        let t = Tuning {
            tile_bytes: w[1] as usize,
            threads: w[2],
            oe_col_bits: w[3],
            oe_halo_strides: w[4],
            oe_merge_halo_bits: w[5],
            bitonic_min_row_bytes: w[6] as usize,
            smem: [w[8], w[9]],
        };
        let fits = |bytes: usize| {
            let tile = t.tile_bytes / bytes;
            let tb = tile.trailing_zeros();
            let row = t.bitonic_min_row_bytes / bytes;
            tile.is_power_of_two()
                && (11..=14).contains(&tb)
                && t.oe_col_bits + t.oe_halo_strides + 2 <= tb
                && (2..tb).contains(&t.oe_merge_halo_bits)
                && tb - t.oe_merge_halo_bits >= t.oe_col_bits
                && row.is_power_of_two()
                && (2..tile).contains(&row)
                && t.shared_bytes(bytes) as usize >= t.tile_bytes
        };
        let ok = t.threads.is_power_of_two()
            && (32..=1024).contains(&t.threads)
            && t.oe_halo_strides >= 1
            && fits(8)
            && fits(4);
        ok.then_some(t)
    }

    /// Dynamic shared memory of one tile of `elem_bytes` elements.
    pub(crate) fn shared_bytes(&self, elem_bytes: usize) -> u32 {
        self.smem[usize::from(elem_bytes == 4)]
    }
}

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

/// One launch: `blocks` blocks of `Tuning::threads`, arguments (a, b, c); `swap` when it reads one buffer
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
pub(crate) fn plan(network: Network, n: usize, elem_bytes: usize, tuning: &Tuning) -> Vec<Pass> {
    debug_assert!((2..=MAX_LEN).contains(&n));
    let w = tuning.tile_bytes / elem_bytes;
    let t = w.trailing_zeros();
    let l = ceil_log2(n);
    let mut out = Vec::new();
    match network {
        Network::Bitonic => {
            out.push(Pass { kernel: Kernel::BitonicTileSort, blocks: blocks(n, w), args: [0; 3], swap: false });
            let max_rows = t - (tuning.bitonic_min_row_bytes / elem_bytes).trailing_zeros();
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
            let cb = tuning.oe_col_bits;
            let rows_log = t - cb;
            let global_passes = |s: u32, h: u32| 1 + s.saturating_sub(h + rows_log).div_ceil(tuning.oe_halo_strides);
            let global = |out: &mut Vec<Pass>, s: u32, b: u32, k: u32, own: usize| {
                let tiles = blocks(n.div_ceil(1 << b), own);
                let blocks = tiles << (b - cb);
                out.push(Pass { kernel: Kernel::OddEvenGlobal, blocks, args: [s, b, k], swap: true });
            };
            for s in t + 1..=l {
                // The tile merge runs the strides below 2^h; one stride more (twice the halo)
                // only where that saves the stage a global pass. H200, pairs, odd-even ms, 1M /
                // 2M / 16M / 64M (2026-11-23): 0.255 / 0.483 / 4.560 / 21.07 against 0.262 /
                // 0.494 / 4.608 / 21.22 with h fixed, and 0.251 / 0.505 / 4.733 / 22.21 with one
                // stride more in every stage (NET_OE_MERGE_HALO_BITS 3).
                let mut h = t - tuning.oe_merge_halo_bits;
                if tuning.oe_merge_halo_bits > 2 && global_passes(s, h + 1) < global_passes(s, h) {
                    h += 1;
                }
                // The stage's top strides: windows of whole runs (2^k rows) need no halo; the
                // kernel tells this pass by b + k == s.
                let k = (s - h).min(rows_log);
                global(&mut out, s, s - k, k, 1 << rows_log);
                // k strides below those need 2^k halo rows each side.
                if s - k > h {
                    for (b, k) in chunks(s - k, h, tuning.oe_halo_strides) {
                        global(&mut out, s, b, k, (1usize << rows_log) - (2usize << k));
                    }
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

    const T: Tuning = Tuning::COMMITTED;
    const BIG: Tuning = Tuning { tile_bytes: 65536, threads: 512, smem: [69632, 69632], ..T };

    fn count(network: Network, n: usize, bytes: usize) -> usize {
        plan(network, n, bytes, &T).len()
    }

    fn words(t: &Tuning) -> Vec<u32> {
        let [a, b] = t.smem;
        let (tile, row) = (t.tile_bytes as u32, t.bitonic_min_row_bytes as u32);
        vec![TUNING_MAGIC, tile, t.threads, t.oe_col_bits, t.oe_halo_strides, t.oe_merge_halo_bits, row, 4, a, b]
    }

    #[test]
    fn tuning_words_round_trip_and_reject_nonsense() {
        assert_eq!(Tuning::from_words(&words(&T)), Some(T));
        assert_eq!(Tuning::from_words(&words(&BIG)), Some(BIG));
        let mut w = words(&T);
        w[0] = 0x4e45_5432; // "NET2": an older image, whose kernels do not wait for the previous pass
        assert_eq!(Tuning::from_words(&w), None, "magic");
        assert_eq!(Tuning::from_words(&words(&T)[..9]), None, "length");
        for bad in [
            Tuning { tile_bytes: 3 << 13, ..T },
            Tuning { tile_bytes: 1 << 17, ..T },
            Tuning { threads: 0, ..T },
            Tuning { threads: 96, ..T },
            Tuning { oe_halo_strides: 0, ..T },
            Tuning { oe_halo_strides: 8, ..T },
            Tuning { oe_merge_halo_bits: 1, ..T },
            Tuning { bitonic_min_row_bytes: 4, ..T },
            Tuning { smem: [100, 34816], ..T },
        ] {
            assert_eq!(Tuning::from_words(&words(&bad)), None, "{bad:?}");
        }
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

    /// Every stage above the tile runs each of its strides once, top down: a closed pass first
    /// (b + k == s, its runs fit a window), halo passes that keep rows to own, the tile merge last.
    #[test]
    fn odd_even_runs_every_stride_once() {
        for tuning in [T, BIG] {
            for bytes in [4usize, 8] {
                let t = (tuning.tile_bytes / bytes).trailing_zeros();
                let rows_log = t - tuning.oe_col_bits;
                for n in [(1usize << t) + 1, 1 << 20, 10_000_001, 1 << 26] {
                    let passes = plan(Network::OddEven, n, bytes, &tuning);
                    // Per stage, the lowest stride bit run so far (the stage bit before any).
                    let mut next: Vec<u32> = (0..40).collect();
                    for p in &passes {
                        match p.kernel {
                            Kernel::OddEvenGlobal => {
                                let [s, b, k] = p.args;
                                assert_eq!(b + k, next[s as usize], "n = {n} stage {s}");
                                if b + k == s {
                                    assert!(k <= rows_log);
                                } else {
                                    assert!(k <= tuning.oe_halo_strides && (2 << k) < (1 << rows_log));
                                }
                                assert!(b >= tuning.oe_col_bits && p.swap);
                                next[s as usize] = b;
                            }
                            Kernel::OddEvenTileMerge => {
                                let [s, h, _] = p.args;
                                assert!(s > t && h < s);
                                assert_eq!(next[s as usize], h, "n = {n} stage {s}");
                                next[s as usize] = 0;
                            }
                            _ => {}
                        }
                    }
                    let merges = passes.iter().filter(|p| p.kernel == Kernel::OddEvenTileMerge).count();
                    assert_eq!(merges as u32, ceil_log2(n) - t);
                }
            }
        }
    }

    /// The merge halo doubles only in stages where that saves a global pass (stage 18 of 1M
    /// pairs: 10 strides above 2^8 need two passes, 9 above 2^9 one).
    #[test]
    fn odd_even_widens_the_merge_halo_only_to_save_a_pass() {
        let passes = plan(Network::OddEven, 1 << 20, 8, &T);
        let halos: Vec<u32> =
            passes.iter().filter(|p| p.kernel == Kernel::OddEvenTileMerge).map(|p| p.args[1]).collect();
        assert_eq!(halos, [8, 8, 8, 8, 8, 9, 8, 8]);
        assert_eq!(passes.len(), 1 + 8 + 10);
        let fixed = Tuning { oe_merge_halo_bits: 2, ..T };
        assert!(plan(Network::OddEven, 1 << 20, 8, &fixed)
            .iter()
            .all(|p| p.kernel != Kernel::OddEvenTileMerge || p.args[1] == 10));
    }

    #[test]
    fn odd_even_ends_in_the_callers_buffer() {
        for tuning in [T, BIG] {
            for n in [2, 4096, 4097, 1 << 20, 1_000_000, 10_000_001, 1 << 26] {
                for bytes in [4, 8] {
                    let swaps = plan(Network::OddEven, n, bytes, &tuning).iter().filter(|p| p.swap).count();
                    assert_eq!(swaps % 2, 0, "n = {n}");
                }
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
