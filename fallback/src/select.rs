//! Selection: the positions of the `k` first keys in an order, found without sorting them all.
//!
//! Keys compare by their directed ordered bits, ties by position, so the answer is exactly the
//! first `k` of a stable sort. Three ways, by size:
//! - up to 16K keys: a sort of (bits, position) pairs on the calling thread;
//! - `k` up to 4096: one filtering pass, each piece keeping its best `2k` pairs (`select_few`);
//! - larger `k`: a band of bits that holds the `k`-th key and few others, from a sample of 64K
//!   keys checked by a counting pass, or else from 16-bit radix histograms; one more pass writes
//!   the positions below the band and gathers the band's keys, whose best complete the `k`. Only
//!   inputs crowded onto few values narrow the histograms further, down to the `k`-th key.
//!
//! The keys are read where they are, never copied; the extra memory is the `k` positions, the
//! band's pairs (at most a sixteenth of the keys) and the histograms (256 KiB a piece).

use rayon::prelude::*;

use crate::alloc::{try_vec, try_zeroed, AllocError};
use crate::key::SortKey;
use crate::order::Order;
use crate::pool::{install, threads};

/// Digit width of one histogram pass: 2 passes find a 32-bit threshold, 4 a 64-bit one.
const DIGIT_BITS: u32 = 16;
const BINS: usize = 1 << DIGIT_BITS;
/// Up to this many keys the selection runs on the calling thread as a sort of (bits, position).
const SMALL: usize = 1 << 14;
/// Up to this `k` the selection is one filtering pass (`select_few`); above, the radix select.
const FEW: usize = 1 << 12;

/// The key's directed ordered bits, widened: the first keys in `order` have the smallest. Only
/// the key's own bytes (`SortKey::KEY_BYTES`) are kept: descending inverts the high bytes of a
/// small key's bits too, and the radix select starts at its highest own digit.
#[inline(always)]
fn directed<K: SortKey>(key: K, order: Order) -> u64 {
    let bits: u64 = order.directed(key.to_ordered_bits()).into();
    if K::KEY_BYTES < 8 {
        bits & ((1u64 << (8 * K::KEY_BYTES)) - 1)
    } else {
        bits
    }
}

/// The positions of the `k` first keys of `keys` in `order` (the `k` smallest ascending, the `k`
/// largest descending, by the keys' total order), in increasing position. Where the `k`-th key
/// has ties, the earliest of them are taken, so the result is the first `k` entries of a stable
/// argsort, as a set. `k` above the number of keys takes them all.
///
/// `Err` when the positions or the histograms cannot be allocated.
///
/// ```
/// use gpusort_cpu::{select_first, Order};
/// let keys = [5u32, 1, 9, 1, 7];
/// assert_eq!(select_first(&keys, 2, Order::Ascending)?, [1, 3]);
/// assert_eq!(select_first(&keys, 2, Order::Descending)?, [2, 4]);
/// assert_eq!(select_first(&[2.0f32, -0.0, 0.0, -1.0], 2, Order::Ascending)?, [1, 3]);
/// # Ok::<(), gpusort_cpu::AllocError>(())
/// ```
pub fn select_first<K: SortKey>(keys: &[K], k: usize, order: Order) -> Result<Vec<u64>, AllocError> {
    let n = keys.len();
    let k = k.min(n);
    let mut out = match k < n && k > FEW && n > SMALL {
        // The radix select writes its `k` positions from all cores.
        true => try_zeroed::<u64>(k)?,
        false => try_vec::<u64>(k)?,
    };
    if k == n {
        out.extend(0..n as u64);
    } else if k > 0 && n <= SMALL {
        select_small(keys, k, order, &mut out)?;
    } else if k > 0 && k <= FEW {
        install(|| select_few(keys, k, order, &mut out))?;
    } else if k > 0 {
        install(|| select_large(keys, k, order, true, &mut out))?;
    }
    Ok(out)
}

/// Small `k`: one pass. Each piece keeps its best (bits, position) pairs in a buffer of `2k`; a
/// key enters only below the piece's current `k`-th best (an equal key comes later, so it is
/// worse), and a full buffer is cut back to its best `k`. On most inputs few keys ever enter;
/// a sorted run against the order fills the buffer every `k` keys, a linear cost still.
fn select_few<K: SortKey>(keys: &[K], k: usize, order: Order, out: &mut Vec<u64>) -> Result<(), AllocError> {
    let piece = keys.len().div_ceil(threads() * 4);
    let pieces = keys.len().div_ceil(piece);
    let mut best = try_vec::<(u64, u64)>(pieces * 2 * k)?;
    best.resize(pieces * 2 * k, (0, 0));
    let kept: Vec<usize> = keys
        .par_chunks(piece)
        .zip(best.par_chunks_mut(2 * k))
        .enumerate()
        .map(|(p, (c, buf))| {
            let (mut len, mut bound) = (0, u64::MAX);
            let mut full = false;
            for (j, block) in c.chunks(64).enumerate() {
                // Most blocks hold no key below the bound: one vectorized test skips them.
                if full && !block.iter().fold(false, |hit, &key| hit | (directed(key, order) < bound)) {
                    continue;
                }
                for (i, &key) in block.iter().enumerate() {
                    let b = directed(key, order);
                    if !full || b < bound {
                        buf[len] = (b, (p * piece + j * 64 + i) as u64);
                        len += 1;
                        if len == 2 * k {
                            buf.select_nth_unstable(k - 1);
                            (len, bound, full) = (k, buf[k - 1].0, true);
                        }
                    }
                }
            }
            if len > k {
                buf[..len].select_nth_unstable(k - 1);
                len = k;
            }
            len
        })
        .collect();
    // Every piece's survivors side by side, then the best k of them.
    let mut w = 0;
    for (p, &len) in kept.iter().enumerate() {
        best.copy_within(p * 2 * k..p * 2 * k + len, w);
        w += len;
    }
    let all = &mut best[..w];
    all.select_nth_unstable(k - 1);
    out.extend(all[..k].iter().map(|&(_, i)| i));
    out.sort_unstable();
    Ok(())
}

/// Few keys: sort (bits, position) and keep the first `k` positions, in position order.
fn select_small<K: SortKey>(keys: &[K], k: usize, order: Order, out: &mut Vec<u64>) -> Result<(), AllocError> {
    let mut tagged = try_vec::<(u64, u64)>(keys.len())?;
    tagged.extend(keys.iter().enumerate().map(|(i, &key)| (directed(key, order), i as u64)));
    tagged.select_nth_unstable(k - 1);
    out.extend(tagged[..k].iter().map(|&(_, i)| i));
    out.sort_unstable();
    Ok(())
}

/// Large `k`: the radix select. Most inputs finish in two passes: the first histogram places the
/// `k`-th key in one 16-bit bucket of the top digit, and when that bucket is small, one pass
/// writes the positions of every key below it and gathers the bucket's (bits, position) pairs,
/// whose best fill the rest. A crowded bucket (few distinct keys) is narrowed by more histogram
/// passes instead, down to the `k`-th key itself, and one pass takes the keys up to it.
fn select_large<K: SortKey>(
    keys: &[K],
    k: usize,
    order: Order,
    sample: bool,
    out: &mut [u64],
) -> Result<(), AllocError> {
    let piece = piece_len(keys.len());
    if let Some(band) = sample.then(|| sampled_band(keys, k, order, piece)).flatten() {
        return select_band(keys, k, order, piece, band, out);
    }
    let mut h = Histograms::new(keys.len())?;
    // One digit covers a whole 16-bit key; 8-bit keys use the low 256 bins of it.
    let shift = (8 * K::KEY_BYTES as u32).max(DIGIT_BITS) - DIGIT_BITS;
    let totals = h.count(keys, order, shift, 0);
    let (digit, below, rank) = locate(&totals, k - 1);
    if totals[digit] <= keys.len() / 16 {
        let shares = (0..h.pieces).map(|p| h.split(p, digit)).collect();
        let lowest = (digit as u64) << shift;
        let band = Band { lowest, highest: lowest | ((1 << shift) - 1), below, shares };
        return select_band(keys, k, order, h.piece, band, out);
    }
    let (mut prefix, mut below, mut rank, mut shift) = ((digit as u64) << shift, below, rank, shift);
    while shift > 0 {
        shift -= DIGIT_BITS;
        let (digit, before, within) = locate(&h.count(keys, order, shift, prefix), rank);
        (prefix, below, rank) = (prefix | (digit as u64) << shift, below + before, within);
    }
    take_up_to(keys, k, order, h.piece, (prefix, below), out);
    Ok(())
}

/// The digit whose keys hold rank `rank` (0-based), the keys in the digits before it, and the
/// rank within it.
fn locate(totals: &[usize], mut rank: usize) -> (usize, usize, usize) {
    let mut below = 0;
    let mut digit = 0;
    while rank >= totals[digit] {
        rank -= totals[digit];
        below += totals[digit];
        digit += 1;
    }
    (digit, below, rank)
}

/// The keys per piece of the passes: a few pieces per thread for balance, each short enough for
/// u32 counts.
fn piece_len(n: usize) -> usize {
    n.div_ceil((threads() * 4).max(n.div_ceil(u32::MAX as usize)))
}

/// One histogram of a 16-bit digit per piece of the input.
struct Histograms {
    piece: usize,
    pieces: usize,
    counts: Vec<u32>,
}

impl Histograms {
    fn new(n: usize) -> Result<Histograms, AllocError> {
        let piece = piece_len(n);
        let pieces = n.div_ceil(piece);
        // Zeroed pages, not a fill: each count pass clears its piece's histogram on its thread.
        Ok(Histograms { piece, pieces, counts: try_zeroed::<u32>(pieces * BINS)? })
    }

    /// Counts the digit at `shift` of the keys whose bits above it equal `prefix`'s; returns the
    /// totals over all pieces.
    fn count<K: SortKey>(&mut self, keys: &[K], order: Order, shift: u32, prefix: u64) -> Vec<usize> {
        let high = shift + DIGIT_BITS;
        let matches = move |b: u64| high >= 64 || (b >> high) == (prefix >> high);
        keys.par_chunks(self.piece).zip(self.counts.par_chunks_mut(BINS)).for_each(|(c, h)| {
            h.fill(0);
            for &key in c {
                let b = directed(key, order);
                if matches(b) {
                    h[((b >> shift) as usize) & (BINS - 1)] += 1;
                }
            }
        });
        let (counts, pieces) = (&self.counts, self.pieces);
        (0..BINS).into_par_iter().map(|d| (0..pieces).map(|p| counts[p * BINS + d] as usize).sum()).collect()
    }

    /// Piece `p`'s keys below `digit` and at it, in the last count.
    fn split(&self, p: usize, digit: usize) -> (usize, usize) {
        let h = &self.counts[p * BINS..(p + 1) * BINS];
        (h[..digit].iter().map(|&c| c as usize).sum(), h[digit] as usize)
    }
}

/// `rest` cut into consecutive slices of the given lengths.
fn cut<T>(mut rest: &mut [T], lens: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    let mut slots = Vec::new();
    for len in lens {
        let (mine, later) = std::mem::take(&mut rest).split_at_mut(len);
        slots.push(mine);
        rest = later;
    }
    slots
}

/// A range of directed bits that holds the `k`-th key and few others: `below` keys lie under
/// `lowest`, and piece `p` has `shares[p]` = (its keys under the range, its keys in it).
struct Band {
    lowest: u64,
    highest: u64,
    below: usize,
    shares: Vec<(usize, usize)>,
}

/// Keys sampled to bracket the `k`-th key; the band spans 4 standard deviations of the sample's
/// rank on either side (at most 512 samples), so it misses about once in 15000 inputs.
const SAMPLE: usize = 1 << 16;
const MARGIN: usize = 512;

/// A band around the `k`-th key from a sorted sample of evenly spaced keys, checked by one
/// counting pass: `None` when the `k`-th key fell outside it or it holds too many keys (then the
/// histograms take over).
fn sampled_band<K: SortKey>(keys: &[K], k: usize, order: Order, piece: usize) -> Option<Band> {
    let n = keys.len();
    if n < 4 * SAMPLE {
        return None;
    }
    let stride = n / SAMPLE;
    let mut sample: Vec<u64> = (0..SAMPLE).into_par_iter().map(|j| directed(keys[j * stride], order)).collect();
    sample.par_sort_unstable();
    let at = (k as u128 * SAMPLE as u128 / n as u128) as usize;
    let lowest = if at >= MARGIN { sample[at - MARGIN] } else { 0 };
    let highest = if at + MARGIN < SAMPLE { sample[at + MARGIN] } else { u64::MAX };
    let shares = count_around(keys, order, piece, lowest, highest);
    let below: usize = shares.iter().map(|s| s.0).sum();
    let inside: usize = shares.iter().map(|s| s.1).sum();
    (below < k && k <= below + inside && inside <= n / 16).then_some(Band { lowest, highest, below, shares })
}

/// Per piece: its keys below `lowest`, and its keys from `lowest` to `highest`. Counted a block
/// at a time, one simple sum per count, which the compiler vectorizes (a fold of both at once
/// it did not: 5x slower).
fn count_around<K: SortKey>(keys: &[K], order: Order, piece: usize, lowest: u64, highest: u64) -> Vec<(usize, usize)> {
    keys.par_chunks(piece)
        .map(|c| {
            c.chunks(4096).fold((0, 0), |(lt, mid), block| {
                let below = block.iter().map(|&key| (directed(key, order) < lowest) as usize).sum::<usize>();
                let upto = block.iter().map(|&key| (directed(key, order) <= highest) as usize).sum::<usize>();
                (lt + below, mid + upto - below)
            })
        })
        .collect()
}

/// The `k`-th key lies in `band`: one pass writes the positions of the keys under the band and
/// gathers the band's keys, the best of which complete the `k`; the two increasing lists of
/// positions are then merged in place.
fn select_band<K: SortKey>(
    keys: &[K],
    k: usize,
    order: Order,
    piece: usize,
    band: Band,
    out: &mut [u64],
) -> Result<(), AllocError> {
    let Band { lowest, highest, below, shares } = band;
    let inside: usize = shares.iter().map(|s| s.1).sum();
    let mut tied = try_zeroed::<(u64, u64)>(inside)?;
    let sure = cut(&mut out[..below], shares.iter().map(|s| s.0));
    let maybe = cut(&mut tied, shares.iter().map(|s| s.1));
    keys.par_chunks(piece).zip(sure).zip(maybe).enumerate().for_each(|(p, ((c, sure), maybe))| {
        let (mut a, mut b) = (0, 0);
        for (i, &key) in c.iter().enumerate() {
            let bits = directed(key, order);
            let at = (p * piece + i) as u64;
            if bits < lowest {
                sure[a] = at;
                a += 1;
            } else if bits <= highest {
                maybe[b] = (bits, at);
                b += 1;
            }
        }
    });
    // The band's pairs are in increasing position: find the `need`-th best bits among them,
    // then keep, in one scan, those below it and the earliest ties, still in position order.
    let need = k - below;
    let mut bits = try_vec::<u64>(inside)?;
    bits.extend(tied.iter().map(|&(b, _)| b));
    let (under, &mut cut_bits, _) = bits.select_nth_unstable(need - 1);
    let mut ties = need - under.iter().filter(|&&b| b < cut_bits).count();
    drop(bits);
    let mut kept = 0;
    for i in 0..inside {
        let (b, at) = tied[i];
        let tie = b == cut_bits && ties > 0;
        if b < cut_bits || tie {
            ties -= tie as usize;
            tied[kept] = (b, at);
            kept += 1;
        }
    }
    let extra = &tied[..need];
    // Merge from the back: the larger position of the two lists' tails goes last.
    let (mut i, mut j) = (below, need);
    while j > 0 {
        if i > 0 && out[i - 1] > extra[j - 1].1 {
            out[i + j - 1] = out[i - 1];
            i -= 1;
        } else {
            out[i + j - 1] = extra[j - 1].1;
            j -= 1;
        }
    }
    Ok(())
}

/// Writes the positions of the keys below `threshold` and of the earliest keys equal to it, `k`
/// in all, in increasing position; `below` keys lie under the threshold.
fn take_up_to<K: SortKey>(
    keys: &[K],
    k: usize,
    order: Order,
    piece: usize,
    (threshold, below): (u64, usize),
    out: &mut [u64],
) {
    // Per piece: keys below the threshold, keys equal to it.
    let counts = count_around(keys, order, piece, threshold, threshold);
    // The ties to take, earliest first.
    let mut ties_left = k - below;
    let shares: Vec<(usize, usize)> = counts
        .iter()
        .map(|&(lt, eq)| {
            let take = eq.min(ties_left);
            ties_left -= take;
            (lt, take)
        })
        .collect();
    let slots = cut(out, shares.iter().map(|&(lt, take)| lt + take));
    keys.par_chunks(piece).zip(slots).zip(shares).enumerate().for_each(|(p, ((c, slot), (_, mut take)))| {
        let mut w = 0;
        for (i, &key) in c.iter().enumerate() {
            let b = directed(key, order);
            let tie = b == threshold && take > 0;
            if b < threshold || tie {
                take -= tie as usize;
                slot[w] = (p * piece + i) as u64;
                w += 1;
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Every large-input path (the sampled band, the histogram's small bucket, the narrowing down
    /// to the threshold) against the sort of (bits, position), on inputs that steer to each.
    #[test]
    fn every_path_takes_the_first_k_of_a_stable_sort() {
        let n = 300_007;
        let mut r = SplitMix64(7);
        let random: Vec<u64> = (0..n).map(|_| r.next()).collect();
        let inputs: [(&str, Vec<u64>); 4] = [
            ("random", random.clone()),
            ("few distinct", random.iter().map(|x| x % 5 * 0x1111_0000_0000).collect()),
            ("one top digit", random.iter().map(|x| x & 0xffff_ffff).collect()),
            ("descending", (0..n as u64).rev().collect()),
        ];
        for (what, keys) in &inputs {
            for order in [Order::Ascending, Order::Descending] {
                let mut want: Vec<(u64, u64)> =
                    keys.iter().enumerate().map(|(i, &x)| (directed(x, order), i as u64)).collect();
                want.sort_unstable();
                for k in [1, 2, 4095, 4096, 4097, 100_000, n - 1] {
                    let mut expect: Vec<u64> = want[..k].iter().map(|&(_, i)| i).collect();
                    expect.sort_unstable();
                    for sample in [true, false] {
                        let mut out = vec![0; k];
                        install(|| select_large(keys, k, order, sample, &mut out)).unwrap();
                        assert_eq!(out, expect, "{what} {order:?} k={k} sample={sample}");
                    }
                    assert_eq!(select_first(keys, k, order).unwrap(), expect, "{what} {order:?} k={k}");
                    let narrow: Vec<u32> = keys.iter().map(|&x| (x >> 32) as u32).collect();
                    let mut want32: Vec<(u32, u64)> =
                        narrow.iter().enumerate().map(|(i, &x)| (order.directed(x), i as u64)).collect();
                    want32.sort_unstable();
                    let mut expect32: Vec<u64> = want32[..k].iter().map(|&(_, i)| i).collect();
                    expect32.sort_unstable();
                    assert_eq!(select_first(&narrow, k, order).unwrap(), expect32, "u32 {what} {order:?} k={k}");
                }
            }
        }
    }
}
