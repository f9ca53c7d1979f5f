//! Keys to their directed ordered bits and back: in registers (`KeyMap`, as the vector sort
//! loads and stores keys) or in place over a slice. The vector sort compares the ordered bits as
//! unsigned words; these maps are `SortKey::to_ordered_bits` (then inverted for a descending
//! sort) and their inverses, on the raw bits, so a key comes back bit for bit (NaN payloads
//! included).
//!
//! A register type that compares its lanes as signed words (AVX2's, which has no unsigned
//! compare, and AVX-512's for signed keys) sorts words of a signed type (`Bits::FLIPPED`): the
//! ordered bits with the top bit flipped, which order as signed words as the ordered bits do as
//! unsigned ones. The maps fold that flip in, so it costs nothing beyond them; for ascending
//! signed keys the two flips cancel and the map is none (`KeyMap::changes`).

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
    /// Whether the map changes words of type `B` (all but ascending unsigned keys sorted as
    /// unsigned words and ascending signed keys sorted as signed words do).
    pub(crate) fn changes<B: Bits>(self) -> bool {
        let identity = !self.descending
            && match self.map {
                Map::Plain => !B::FLIPPED,
                Map::Signed => B::FLIPPED,
                Map::Float => false,
            };
        !identity
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
        let v = if self.descending { v.xor(V::splat(V::Elem::ALL)) } else { v };
        if V::Elem::FLIPPED {
            v.xor(sign)
        } else {
            v
        }
    }

    /// The inverse of [`KeyMap::fwd`].
    #[inline(always)]
    pub(crate) fn back<V: Vector>(self, v: V) -> V {
        let all = V::splat(V::Elem::ALL);
        let sign = V::splat(V::Elem::SIGN);
        let v = if V::Elem::FLIPPED { v.xor(sign) } else { v };
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
        let b = if self.descending { b.not() } else { b };
        if B::FLIPPED {
            b.flip_sign()
        } else {
            b
        }
    }

    /// [`KeyMap::back`] on one word.
    #[inline(always)]
    pub(crate) fn back_word<B: Bits>(self, b: B) -> B {
        let b = if B::FLIPPED { b.flip_sign() } else { b };
        from_ordered(if self.descending { b.not() } else { b }, self.map)
    }

    /// [`KeyMap::fwd`] on every word of `v`.
    pub(crate) fn fwd_slice<B: Bits>(self, v: &mut [B]) {
        if self.changes::<B>() {
            each_case(v, self, KeyMap::fwd_word)
        }
    }

    /// [`KeyMap::back`] on every word of `v`.
    pub(crate) fn back_slice<B: Bits>(self, v: &mut [B]) {
        if self.changes::<B>() {
            each_case(v, self, KeyMap::back_word)
        }
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

/// `v`'s words as words of another type of the same size: the raw bits a kernel gets (u32, u64)
/// as the words it sorts (signed words, `float::Double`).
pub(crate) fn retype<A: Bits, B: Bits>(v: &mut [A]) -> &mut [B] {
    const {
        assert!(
            std::mem::size_of::<A>() == std::mem::size_of::<B>()
                && std::mem::align_of::<A>() == std::mem::align_of::<B>()
        )
    };
    // SAFETY: every `Bits` type is a plain integer word (or a transparent one) in which every bit
    // pattern is valid; same size and alignment (checked above); the borrow moves into the result.
    unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr() as *mut B, v.len()) }
}

/// The bit operations the maps need, on the words the vector sort sorts.
pub(crate) trait Bits: Copy + Send + Sync + 'static {
    /// The words are the ordered bits with the top bit flipped (signed types: see the module docs).
    const FLIPPED: bool;
    fn sign_set(self) -> bool;
    fn flip_sign(self) -> Self;
    fn not(self) -> Self;
}

macro_rules! bits {
    ($t:ty, $flipped:literal) => {
        impl Bits for $t {
            const FLIPPED: bool = $flipped;
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
bits!(u32, false);
bits!(u64, false);
bits!(i32, true);
bits!(i64, true);

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

/// Applies `f` with the map `m` to every word, `m` a constant in each loop: one loop per case
/// keeps the loops free of branches on the map.
fn each_case<B: Bits>(v: &mut [B], m: KeyMap, f: impl Fn(KeyMap, B) -> B + Sync) {
    const fn k(map: Map, descending: bool) -> KeyMap {
        KeyMap { map, descending }
    }
    match (m.map, m.descending) {
        (Map::Plain, false) => each(v, |b| f(k(Map::Plain, false), b)),
        (Map::Plain, true) => each(v, |b| f(k(Map::Plain, true), b)),
        (Map::Signed, false) => each(v, |b| f(k(Map::Signed, false), b)),
        (Map::Signed, true) => each(v, |b| f(k(Map::Signed, true), b)),
        (Map::Float, false) => each(v, |b| f(k(Map::Float, false), b)),
        (Map::Float, true) => each(v, |b| f(k(Map::Float, true), b)),
    }
}
