//! The base case: up to `SMALL_REGS * LANES` keys sorted in registers by a bitonic network.
//!
//! The registers hold one sequence in column order: register `r` lane `i` is key `i * R + r`
//! (R registers). Keys that differ only in their low log2(R) index bits then sit in the same lane
//! of different registers, so most comparators (every one between keys less than R apart) are a
//! plain `min` and `max` of two registers, with no shuffle; in row order most would need a lane
//! shuffle and a blend as well. The network is the bitonic sort in its "flip" form: each merge
//! starts by comparing key `p` with key `p ^ (k - 1)` (its mirror image in the block of `k`),
//! after which every comparator puts the smaller key at the lower position. Zipping the registers
//! log2(R) times turns column order into memory order for the store.
//!
//! Unused lanes of the last registers hold the greatest key, which sorts to the end and is never
//! stored. The load needs no reordering: the keys are not sorted yet.

use super::map::KeyMap;
use super::vector::{Lane, Vector};

/// Compares lane i with lane `i ^ x`, the smaller going to the lane with `bit` clear. Of two
/// equal float keys, `a.min(b)` is `b` and `a.max(b)` is `a` (`float.rs`): the max taken as
/// `p.max(v)` leaves each lane of a tied pair the other's key, so both keys stay.
#[inline(always)]
fn exchange_lanes<V: Vector>(v: V, x: usize, bit: usize) -> V {
    let p = v.xor_lanes(x);
    V::select_bit(v.min(p), p.max(v), bit)
}

/// Sorts the `R * LANES` keys of `r` (in the column order of the module docs). The stages are
/// spelled out with constant parameters so that every loop below unrolls and the registers stay
/// in registers; stages for blocks larger than `R * LANES` compile to nothing.
#[inline(always)]
pub(crate) fn sort_regs<V: Vector, const R: usize>(r: &mut [V; R]) {
    macro_rules! merge {
        ($k:literal; $($j:literal),*) => {
            flip::<V, R, $k>(r);
            $(clean::<V, R, $k, $j>(r);)*
        };
    }
    merge!(2;);
    merge!(4; 1);
    merge!(8; 2, 1);
    merge!(16; 4, 2, 1);
    merge!(32; 8, 4, 2, 1);
    merge!(64; 16, 8, 4, 2, 1);
    merge!(128; 32, 16, 8, 4, 2, 1);
    merge!(256; 64, 32, 16, 8, 4, 2, 1);
}

/// The first stage of the merge of blocks of `K` keys: key p against key `p ^ (K - 1)`.
#[inline(always)]
fn flip<V: Vector, const R: usize, const K: usize>(r: &mut [V; R]) {
    if K > R * V::LANES {
        return;
    }
    if K <= R {
        // Only register bits differ: register a against a ^ (K - 1), same lanes; the lower key is
        // in the register with bit K/2 clear.
        for a in 0..R {
            if a & (K / 2) == 0 {
                let b = a ^ (K - 1);
                let (x, y) = (r[a], r[b]);
                r[a] = x.min(y);
                r[b] = x.max(y);
            }
        }
        return;
    }
    // Register a against register R-1-a, lane i against lane i ^ (m - 1); the lower key of each
    // pair is the one whose lane has bit m/2 clear.
    let m = K / R;
    if R == 1 {
        r[0] = exchange_lanes(r[0], m - 1, m / 2);
        return;
    }
    for a in 0..R / 2 {
        let b = R - 1 - a;
        let mirrored = r[b].xor_lanes(m - 1);
        let lo = r[a].min(mirrored);
        let hi = r[a].max(mirrored);
        r[a] = V::select_bit(lo, hi, m / 2);
        r[b] = V::select_bit(hi, lo, m / 2).xor_lanes(m - 1);
    }
}

/// A later stage of the merge of blocks of `K` keys: key p against key `p ^ J`.
#[inline(always)]
fn clean<V: Vector, const R: usize, const K: usize, const J: usize>(r: &mut [V; R]) {
    if K > R * V::LANES {
        return;
    }
    if J >= R {
        let x = J / R;
        for v in r.iter_mut() {
            *v = exchange_lanes(*v, x, x);
        }
        return;
    }
    for a in 0..R {
        if a & J == 0 {
            let (x, y) = (r[a], r[a | J]);
            r[a] = x.min(y);
            r[a | J] = x.max(y);
        }
    }
}

/// Column order to memory order: register q then holds keys `q * LANES ..`.
#[inline(always)]
fn transpose<V: Vector, const R: usize>(r: &mut [V; R]) {
    let mut rounds = R.trailing_zeros();
    while rounds > 0 {
        let mut next = *r;
        for j in 0..R / 2 {
            next[2 * j] = r[j].zip_low(r[j + R / 2]);
            next[2 * j + 1] = r[j].zip_high(r[j + R / 2]);
        }
        *r = next;
        rounds -= 1;
    }
}

/// Sorts the `n <= R * LANES` keys at `p` in `R` registers. `map_in` says they are raw key bits
/// still, which `map` takes to the sorted words as they are loaded; `map_out`, that they are
/// stored mapped back to raw key bits (else as sorted words).
///
/// # Safety
/// `p` is valid for reads and writes of `n` keys.
#[inline(always)]
unsafe fn sort_block<V: Vector, const R: usize>(p: *mut V::Elem, n: usize, map: KeyMap, map_in: bool, map_out: bool) {
    let lanes = V::LANES;
    let fill = V::splat(V::Elem::MAX);
    // Raw bits that map to the greatest ordered bits, for the lanes past `n`.
    let raw_fill = if map_in { V::splat(map.back_word(V::Elem::MAX)) } else { fill };
    let mut r = [fill; R];
    for (a, v) in r.iter_mut().enumerate() {
        let start = a * lanes;
        if start + lanes <= n {
            *v = V::load(p.add(start));
        } else if start < n {
            *v = V::load_part(p.add(start), n - start, raw_fill);
        } else {
            continue;
        }
        if map_in {
            *v = map.fwd(*v);
        }
    }
    sort_regs(&mut r);
    transpose(&mut r);
    if map_out && map.changes::<V::Elem>() {
        for v in r.iter_mut() {
            *v = map.back(*v);
        }
    }
    for (a, v) in r.iter().enumerate() {
        let start = a * lanes;
        if start + lanes <= n {
            v.store(p.add(start));
        } else if start < n {
            v.store_part(p.add(start), n - start);
        }
    }
}

/// The most keys [`sort_small`] takes.
pub(crate) const fn max_small(lanes: usize) -> usize {
    crate::simd::tune::SMALL_REGS * lanes
}

/// Sorts the `n <= max_small(LANES)` keys at `p`, in as few registers (a power of two) as hold
/// them; `map`, `map_in` and `map_out` as for [`sort_block`].
///
/// # Safety
/// `p` is valid for reads and writes of `n` keys.
#[inline(always)]
pub(crate) unsafe fn sort_small<V: Vector>(p: *mut V::Elem, n: usize, map: KeyMap, map_in: bool, map_out: bool) {
    match n.div_ceil(V::LANES) {
        0 => {}
        1 => sort_block::<V, 1>(p, n, map, map_in, map_out),
        2 => sort_block::<V, 2>(p, n, map, map_in, map_out),
        3..=4 => sort_block::<V, 4>(p, n, map, map_in, map_out),
        5..=8 => sort_block::<V, 8>(p, n, map, map_in, map_out),
        _ => sort_block::<V, 16>(p, n, map, map_in, map_out),
    }
}
