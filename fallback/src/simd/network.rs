//! The base case: up to `16 * LANES` keys sorted in registers by a bitonic network.
//!
//! The registers hold one sequence, register `a` lane `i` being key `a * LANES + i`. The network
//! is the bitonic sort in its "flip" form: each merge starts by comparing key `p` with key
//! `p ^ (k - 1)` (the mirror image within its block of `k`), after which every comparator puts
//! the smaller key at the lower position. So a comparator between two registers is a plain `min`
//! and `max` with no blend, and one within a register is a lane shuffle, `min`, `max` and a blend.
//! Unused lanes of the last registers hold the greatest key, which sorts to the end and is never
//! stored.

use super::vector::{Lane, Vector};

/// Compares lane i with lane `i ^ x`, the smaller going to the lane with `bit` clear.
#[inline(always)]
fn exchange_lanes<V: Vector>(v: V, x: usize, bit: usize) -> V {
    let p = v.xor_lanes(x);
    V::select_bit(v.min(p), v.max(p), bit)
}

/// Sorts the `R * LANES` keys of `r` (the order described in the module docs). The stages are
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
    let lanes = V::LANES;
    if K > R * lanes {
        return;
    }
    if K <= lanes {
        for v in r.iter_mut() {
            *v = exchange_lanes(*v, K - 1, K / 2);
        }
        return;
    }
    // Register a (bit K/2 of its first key clear) against the mirror register, lanes reversed.
    let m = K / lanes;
    for a in 0..R {
        if a & (m / 2) == 0 {
            let b = a ^ (m - 1);
            let mirrored = r[b].reverse();
            let lo = r[a].min(mirrored);
            let hi = r[a].max(mirrored);
            r[a] = lo;
            r[b] = hi.reverse();
        }
    }
}

/// A later stage of the merge of blocks of `K` keys: key p against key `p ^ J`.
#[inline(always)]
fn clean<V: Vector, const R: usize, const K: usize, const J: usize>(r: &mut [V; R]) {
    let lanes = V::LANES;
    if K > R * lanes {
        return;
    }
    if J < lanes {
        for v in r.iter_mut() {
            *v = exchange_lanes(*v, J, J);
        }
        return;
    }
    let s = J / lanes;
    for a in 0..R {
        if a & s == 0 {
            let (x, y) = (r[a], r[a | s]);
            r[a] = x.min(y);
            r[a | s] = x.max(y);
        }
    }
}

/// Sorts the `n <= R * LANES` keys at `p` in `R` registers.
///
/// # Safety
/// `p` is valid for reads and writes of `n` keys.
#[inline(always)]
unsafe fn sort_block<V: Vector, const R: usize>(p: *mut V::Elem, n: usize) {
    let lanes = V::LANES;
    let fill = V::splat(V::Elem::MAX);
    let mut r = [fill; R];
    for (a, v) in r.iter_mut().enumerate() {
        let start = a * lanes;
        if start + lanes <= n {
            *v = V::load(p.add(start));
        } else if start < n {
            *v = V::load_part(p.add(start), n - start, fill);
        }
    }
    sort_regs(&mut r);
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
/// them.
///
/// # Safety
/// `p` is valid for reads and writes of `n` keys.
#[inline(always)]
pub(crate) unsafe fn sort_small<V: Vector>(p: *mut V::Elem, n: usize) {
    match n.div_ceil(V::LANES) {
        0 => {}
        1 => sort_block::<V, 1>(p, n),
        2 => sort_block::<V, 2>(p, n),
        3..=4 => sort_block::<V, 4>(p, n),
        5..=8 => sort_block::<V, 8>(p, n),
        _ => sort_block::<V, 16>(p, n),
    }
}
