//! Keys-only sorts of 8-bit keys (`KEY_BYTES` 1) as a counting sort: one read counts the keys of
//! each value, one write lays out their runs. No scratch; a radix pass reads the keys twice and
//! writes them twice through a buffer.

use rayon::prelude::*;

use crate::key::{RadixBits, SortKey};
use crate::order::Order;

/// The values an 8-bit key takes.
const VALUES: usize = 256;
/// Keys a task counts or writes: enough that its 256 counts cost nothing beside them.
const PIECE: usize = 1 << 18;

/// Sorts `v` (keys of one significant byte) in `order`, on the current rayon pool.
pub(crate) fn sort<K: SortKey>(v: &mut [K], order: Order) {
    debug_assert_eq!(K::KEY_BYTES, 1, "a counting sort of 8-bit keys");
    // Places in the order: a descending place is the inverted byte.
    let flip = if order == Order::Descending { 0xFF } else { 0 };
    let place = |k: &K| k.to_ordered_bits().byte(0) ^ flip;
    let counts = v
        .par_chunks(PIECE)
        .map(|piece| {
            let mut c = [0usize; VALUES];
            piece.iter().for_each(|k| c[place(k)] += 1);
            c
        })
        .reduce(
            || [0; VALUES],
            |mut a, b| {
                a.iter_mut().zip(b).for_each(|(a, b)| *a += b);
                a
            },
        );
    // The key of each place: the first of that place in the input (8-bit keys of one place are
    // the same key).
    let mut key_of = [None; VALUES];
    let (distinct, mut found) = (counts.iter().filter(|&&c| c > 0).count(), 0);
    for k in v.iter() {
        if found == distinct {
            break;
        }
        let slot = &mut key_of[place(k)];
        if slot.is_none() {
            *slot = Some(*k);
            found += 1;
        }
    }
    let mut ends = [0usize; VALUES];
    let mut end = 0;
    for (e, c) in ends.iter_mut().zip(counts) {
        end += c;
        *e = end;
    }
    v.par_chunks_mut(PIECE).enumerate().for_each(|(i, piece)| {
        let start = i * PIECE;
        let (mut at, stop) = (start, start + piece.len());
        // The first place whose run ends past `at`; places without keys end where they start.
        let mut d = ends.partition_point(|&e| e <= at);
        while at < stop {
            let to = ends[d].min(stop);
            if to > at {
                piece[at - start..to - start].fill(key_of[d].expect("a place with keys has a key"));
            }
            at = to;
            d += 1;
        }
    });
}
