//! Keys to their directed ordered bits and back: in registers (`KeyMap`, as the vector sort
//! loads and stores keys) or in place over a slice. The vector sort compares unsigned
//! words; these maps are `SortKey::to_ordered_bits` (then inverted for a descending sort) and
//! their inverses, on the raw bits, so a key comes back bit for bit (NaN payloads included).

use std::any::TypeId;

use rayon::prelude::*;

use super::vector::{Lane, Vector};
use crate::key::SortKey;

/// Keys per parallel task of a map; shorter inputs are mapped on the calling thread.
const CHUNK: usize = 1 << 16;

/// How a key type's bits become ordered bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Map {
    /// Unsigned integers: the bits are the ordered bits.
    Plain,
    /// Two's complement: the sign bit flipped.
    Signed,
    /// IEEE floats: negatives all bits flipped, positives the sign bit (`total_cmp` order).
    Float,
}

impl Map {
    /// The map of a key type gpusort defines; `None` for other `SortKey` implementations, whose
    /// `to_ordered_bits` has no known inverse.
    pub(crate) fn of<K: 'static>() -> Option<Map> {
        let t = TypeId::of::<K>();
        if t == TypeId::of::<u32>() || t == TypeId::of::<u64>() {
            Some(Map::Plain)
        } else if t == TypeId::of::<i32>() || t == TypeId::of::<i64>() {
            Some(Map::Signed)
        } else if t == TypeId::of::<f32>() || t == TypeId::of::<f64>() {
            Some(Map::Float)
        } else {
            None
        }
    }
}

/// A key type's map and the sort's direction, as the vector sort applies them: to registers as
/// its first pass loads the keys and as its base case stores them, so the keys need no passes
/// of their own; to single words (pivot samples, fill lanes); and, by [`back`], to ranges that
/// are finished without reaching the base case (runs of one value).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct KeyMap {
    pub map: Map,
    pub descending: bool,
}

impl KeyMap {
    /// Ascending unsigned keys: their bits are already the ordered bits.
    pub(crate) const IDENTITY: KeyMap = KeyMap { map: Map::Plain, descending: false };

    pub(crate) fn is_identity(self) -> bool {
        self == Self::IDENTITY
    }

    /// Raw key bits to directed ordered bits, lane by lane ([`forward`]'s map).
    #[inline(always)]
    pub(crate) fn fwd<V: Vector>(self, v: V) -> V {
        let sign = V::splat(V::Elem::SIGN);
        let v = match self.map {
            Map::Plain => v,
            Map::Signed => v.xor(sign),
            // Negative floats: every bit flipped; others: the sign bit.
            Map::Float => v.xor(v.sign_fill().or(sign)),
        };
        if self.descending {
            v.xor(V::splat(V::Elem::MAX))
        } else {
            v
        }
    }

    /// The inverse of [`KeyMap::fwd`].
    #[inline(always)]
    pub(crate) fn back<V: Vector>(self, v: V) -> V {
        let all = V::splat(V::Elem::MAX);
        let sign = V::splat(V::Elem::SIGN);
        let v = if self.descending { v.xor(all) } else { v };
        match self.map {
            Map::Plain => v,
            Map::Signed => v.xor(sign),
            // A clear top bit marks a key that was negative.
            Map::Float => v.xor(v.sign_fill().xor(all).or(sign)),
        }
    }

    /// [`KeyMap::fwd`] on one word.
    #[inline(always)]
    pub(crate) fn fwd_word<B: Bits>(self, b: B) -> B {
        let b = to_ordered(b, self.map);
        if self.descending {
            b.not()
        } else {
            b
        }
    }

    /// [`KeyMap::back`] on one word.
    #[inline(always)]
    pub(crate) fn back_word<B: Bits>(self, b: B) -> B {
        from_ordered(if self.descending { b.not() } else { b }, self.map)
    }

    /// [`KeyMap::fwd`] on every word of `v`.
    pub(crate) fn fwd_slice<B: Bits>(self, v: &mut [B]) {
        forward(v, self.map, self.descending)
    }

    /// [`KeyMap::back`] on every word of `v`.
    pub(crate) fn back_slice<B: Bits>(self, v: &mut [B]) {
        back(v, self.map, self.descending)
    }
}

/// `v` seen as its raw bits, when its keys are words of type `B` (same size and alignment, and
/// `B` is the key's ordered-bits type).
pub(crate) fn as_bits<K: SortKey, B: 'static>(v: &mut [K]) -> Option<&mut [B]> {
    let same = TypeId::of::<K::Bits>() == TypeId::of::<B>()
        && std::mem::size_of::<K>() == std::mem::size_of::<B>()
        && std::mem::align_of::<K>() == std::mem::align_of::<B>();
    // SAFETY: K (one of the primitive keys `Map::of` knows, checked by the caller) and B have the
    // same size and alignment, and every bit pattern is a valid B; the borrow moves into the result.
    same.then(|| unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut B, v.len()) })
}

/// The bit operations the maps need, on u32 and u64.
pub(crate) trait Bits: Copy + Send + Sync + 'static {
    fn sign_set(self) -> bool;
    fn flip_sign(self) -> Self;
    fn not(self) -> Self;
}

macro_rules! bits {
    ($t:ty) => {
        impl Bits for $t {
            #[inline(always)]
            fn sign_set(self) -> bool {
                self >> (<$t>::BITS - 1) != 0
            }
            #[inline(always)]
            fn flip_sign(self) -> Self {
                self ^ (1 << (<$t>::BITS - 1))
            }
            #[inline(always)]
            fn not(self) -> Self {
                !self
            }
        }
    };
}
bits!(u32);
bits!(u64);

#[inline(always)]
fn to_ordered<B: Bits>(b: B, map: Map) -> B {
    match map {
        Map::Plain => b,
        Map::Signed => b.flip_sign(),
        Map::Float if b.sign_set() => b.not(),
        Map::Float => b.flip_sign(),
    }
}

#[inline(always)]
fn from_ordered<B: Bits>(b: B, map: Map) -> B {
    match map {
        Map::Plain => b,
        Map::Signed => b.flip_sign(),
        // A set top bit marks a key that was not negative.
        Map::Float if b.sign_set() => b.flip_sign(),
        Map::Float => b.not(),
    }
}

/// Applies `f` to every word, in parallel when there are many and the caller runs on a pool
/// (a one-thread sort runs on the calling thread: `keys::sort_vector`).
fn each<B: Bits>(v: &mut [B], f: impl Fn(B) -> B + Sync) {
    if v.len() <= 2 * CHUNK || rayon::current_thread_index().is_none() {
        v.iter_mut().for_each(|x| *x = f(*x));
    } else {
        v.par_chunks_mut(CHUNK).for_each(|c| c.iter_mut().for_each(|x| *x = f(*x)));
    }
}

/// Raw key bits to directed ordered bits (an ascending sort on them gives the wanted order).
pub(crate) fn forward<B: Bits>(v: &mut [B], map: Map, descending: bool) {
    // One closure per case keeps the loops free of branches on `map`.
    match (map, descending) {
        (Map::Plain, false) => {}
        (Map::Plain, true) => each(v, |b| b.not()),
        (Map::Signed, false) => each(v, |b| to_ordered(b, Map::Signed)),
        (Map::Signed, true) => each(v, |b| to_ordered(b, Map::Signed).not()),
        (Map::Float, false) => each(v, |b| to_ordered(b, Map::Float)),
        (Map::Float, true) => each(v, |b| to_ordered(b, Map::Float).not()),
    }
}

/// The inverse of [`forward`].
pub(crate) fn back<B: Bits>(v: &mut [B], map: Map, descending: bool) {
    match (map, descending) {
        (Map::Plain, false) => {}
        (Map::Plain, true) => each(v, |b| b.not()),
        (Map::Signed, false) => each(v, |b| from_ordered(b, Map::Signed)),
        (Map::Signed, true) => each(v, |b| from_ordered(b.not(), Map::Signed)),
        (Map::Float, false) => each(v, |b| from_ordered(b, Map::Float)),
        (Map::Float, true) => each(v, |b| from_ordered(b.not(), Map::Float)),
    }
}
