//! Float keys in another order than IEEE total order (`Sorter::with_float_order`): argsorts go
//! through the lexsort machinery, which folds the order into the keys' bits; keys-only sorts are
//! sorted as they are where that gives the same result, else put in the order of their stable
//! permutation (so that `-0.0` / `+0.0` and NaNs of different bits keep their input order).

use rayon::prelude::*;

use super::Sorter;
use crate::backend::{with_view, SortJob};
use crate::columns::{infinity, is_float, RawBits};
use crate::{Column, FloatOrder, Key, KeyType, Order, SortError};

impl Sorter {
    /// Whether keys of `K` sort in another order than total order on this sorter.
    pub(crate) fn reorders_floats<K: Key>(&self) -> bool {
        is_float(K::TYPE) && self.floats != FloatOrder::Total
    }

    /// `InvalidArgument` for sorts that keep total order when this sorter asks for another one
    /// for floats of `key_type`.
    pub(crate) fn total_floats_only(&self, key_type: KeyType, what: &str) -> Result<(), SortError> {
        match is_float(key_type) && self.floats != FloatOrder::Total {
            true => Err(SortError::InvalidArgument(format!(
                "{what} orders floats in total order only; this sorter asks for {:?}",
                self.floats
            ))),
            false => Ok(()),
        }
    }

    /// `sort_keys` of float keys in this sorter's float order.
    pub(crate) fn sort_floats<K: Key>(&self, v: &mut [K]) -> Result<(), SortError> {
        if !needs_permutation(v, self.floats, self.order) {
            return self.run(SortJob::Keys(K::slice(v)));
        }
        let mut copy = Vec::new();
        copy.try_reserve_exact(v.len())
            .map_err(|_| SortError::OutOfMemory { op: "float sort scratch (host memory)", bytes: size_of_val(v) })?;
        copy.extend_from_slice(v);
        // (`lexsort` refuses more than 2^32 keys.)
        let perm: Vec<u32> = self.lexsort(&[Column::new(&copy)])?;
        gpusort_cpu::install(|| v.par_iter_mut().zip(&perm).for_each(|(o, &p)| *o = copy[p as usize]));
        Ok(())
    }
}

/// Whether sorting `keys` in total order could give another result than `floats` asks for: they
/// hold a `-0.0`, or NaNs that total order puts elsewhere or orders by their bits.
fn needs_permutation<K: Key>(keys: &[K], floats: FloatOrder, order: Order) -> bool {
    let nan_last = matches!((floats, order), (FloatOrder::NanLast, _) | (FloatOrder::NanLargest, Order::Ascending));
    let seen = with_view!(K::view(keys), k => scan(k));
    // Total order puts positive NaNs last ascending, ordered by their bits: one bit pattern of
    // them sorts as NumPy's one NaN value.
    seen.neg_zero || seen.neg_nan || (seen.nans() && !(nan_last && order == Order::Ascending && seen.one_nan()))
}

/// What `needs_permutation` looks for in float keys.
#[derive(Clone, Copy, Default)]
struct Seen {
    neg_zero: bool,
    neg_nan: bool,
    /// The least and greatest bits of the NaNs seen, if any.
    nan_bits: Option<(u64, u64)>,
}

impl Seen {
    fn nans(&self) -> bool {
        self.nan_bits.is_some()
    }

    fn one_nan(&self) -> bool {
        self.nan_bits.is_some_and(|(lo, hi)| lo == hi)
    }

    fn merge(self, o: Seen) -> Seen {
        let nan_bits = match (self.nan_bits, o.nan_bits) {
            (Some((a, b)), Some((c, d))) => Some((a.min(c), b.max(d))),
            (a, b) => a.or(b),
        };
        Seen { neg_zero: self.neg_zero || o.neg_zero, neg_nan: self.neg_nan || o.neg_nan, nan_bits }
    }
}

fn scan<K: Key + RawBits>(keys: &[K]) -> Seen {
    let width = 8 * K::TYPE.size() as u32;
    let sign = 1u64 << (width - 1);
    let exponent_and_sign_clear = |raw: u64| raw & (sign - 1);
    let inf = infinity(K::TYPE);
    gpusort_cpu::install(|| {
        keys.par_chunks(1 << 16)
            .map(|piece| {
                let mut seen = Seen::default();
                for k in piece {
                    let raw = k.raw();
                    let magnitude = exponent_and_sign_clear(raw);
                    if raw == sign {
                        seen.neg_zero = true;
                    } else if magnitude > inf {
                        seen.neg_nan |= raw & sign != 0;
                        seen = seen.merge(Seen { nan_bits: Some((raw, raw)), ..Seen::default() });
                    }
                }
                seen
            })
            .reduce(Seen::default, Seen::merge)
    })
}
