//! The CPU backend's lexsort: one stable radix sort of (word, position) items per packed word,
//! least significant word first, each word's fields read through the permutation so far.

use rayon::prelude::*;

use super::{plan, Column, Keys, Packing, RawBits, Word};
use crate::backend::{with_view, Position};
use crate::cpu::Positioned;
use crate::Order;

/// Items per parallel task of the packing passes.
const PIECE: usize = 1 << 16;

/// The permutation that sorts the rows of `columns` (the first the most significant; lengths
/// already checked equal to `out`'s, at most 2^32) into `out`, which is written only once the
/// sort has succeeded. `order` is the sorter's (a descending sorter reverses every column).
pub(crate) fn lexsort<P: Position>(
    columns: &[Column<'_>],
    out: &mut [P],
    order: Order,
) -> Result<(), gpusort_cpu::AllocError> {
    gpusort_cpu::install(|| {
        let words = plan(&super::shapes(columns, order), Packing::Whole64);
        let mut perm: Option<Vec<u32>> = None;
        for word in words.iter().rev() {
            perm = Some(match word.wide {
                true => pass::<u64>(columns, word, perm.as_deref(), out.len())?,
                false => pass::<u32>(columns, word, perm.as_deref(), out.len())?,
            });
        }
        let perm = perm.expect("a lexsort has at least one column");
        out.par_chunks_mut(PIECE)
            .zip(perm.par_chunks(PIECE))
            .for_each(|(o, p)| o.iter_mut().zip(p).for_each(|(o, &p)| *o = P::from_u32(p)));
        Ok(())
    })
}

/// A radix word: the fields' bits fit it.
trait WordBits: gpusort_cpu::SortKey + Default {
    fn of(bits: u64) -> Self;
}

impl WordBits for u32 {
    fn of(bits: u64) -> u32 {
        bits as u32
    }
}

impl WordBits for u64 {
    fn of(bits: u64) -> u64 {
        bits
    }
}

/// Sorts the rows, in the order `perm` holds them (or in input order), stably by `word`; returns
/// the new permutation.
fn pass<W: WordBits>(
    columns: &[Column<'_>],
    word: &Word,
    perm: Option<&[u32]>,
    n: usize,
) -> Result<Vec<u32>, gpusort_cpu::AllocError> {
    let oom = || gpusort_cpu::AllocError { bytes: n.saturating_mul(size_of::<Positioned<W>>()) };
    let mut items: Vec<Positioned<W>> = Vec::new();
    items.try_reserve_exact(n).map_err(|_| oom())?;
    // At most 2^32 rows come here: every position fits.
    items.par_extend((0..n).into_par_iter().map(|i| {
        let at = perm.map_or(i as u32, |p| p[i]);
        Positioned { key: W::default(), at }
    }));
    let mut bits = Vec::new();
    bits.try_reserve_exact(n).map_err(|_| oom())?;
    bits.resize(n, 0u64);
    for field in &word.fields {
        let column = &columns[field.column];
        match column.keys {
            Keys::Numbers(v) => {
                with_view!(v, k => add_field(&mut bits, &items, column.nulls, |r, null| field.bits(k[r].raw(), null)))
            }
            Keys::Bytes { rows, width } => add_field(&mut bits, &items, column.nulls, |r, null| {
                field.byte_bits(&rows[r * width..(r + 1) * width], null)
            }),
        }
    }
    items.par_iter_mut().zip(bits.par_iter()).for_each(|(item, &b)| item.key = W::of(b));
    drop(bits);
    gpusort_cpu::sort_stable(&mut items, Order::Ascending)?;
    let mut next = Vec::new();
    next.try_reserve_exact(n).map_err(|_| oom())?;
    next.par_extend(items.par_iter().map(|item| item.at));
    Ok(next)
}

/// ORs one field of each row (row `items[i].at`) into `bits[i]`: `field_bits(row, null)`.
fn add_field(
    bits: &mut [u64],
    items: &[Positioned<impl Sync>],
    nulls: Option<&[u8]>,
    field_bits: impl Fn(usize, bool) -> u64 + Sync,
) {
    bits.par_chunks_mut(PIECE).zip(items.par_chunks(PIECE)).for_each(|(b, it)| {
        for (b, item) in b.iter_mut().zip(it) {
            let r = item.at as usize;
            *b |= field_bits(r, nulls.is_some_and(|m| m[r] != 0));
        }
    });
}
