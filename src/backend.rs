//! The seam between `Sorter` and the implementations: each backend sorts a `SortJob`.

use crate::tuning::JobShape;
use crate::{Algorithm, Column, Kvp, Order, SortError};
use half::{bf16, f16};

macro_rules! key_slices {
    ({} $($t:ident, $v:ident, $c:literal, $np:literal, $class:ident;)*) => {
        /// A slice of one of the supported key types. The small ones count as 32-bit keys
        /// everywhere a shape is chosen: that is how they travel to the GPU.
        #[derive(Debug)]
        pub enum KeySlice<'a> {
            $(#[allow(missing_docs)] $v(&'a mut [$t]),)*
        }

        /// A shared slice of one of the supported key types: keys a sort reads and leaves alone.
        #[derive(Debug, Clone, Copy)]
        pub enum KeyView<'a> {
            $(#[allow(missing_docs)] $v(&'a [$t]),)*
        }

        impl KeySlice<'_> {
            fn reborrow(&mut self) -> KeySlice<'_> {
                match self {
                    $(KeySlice::$v(k) => KeySlice::$v(k),)*
                }
            }
        }

        $(
            impl KeyItem for $t {
                fn of_slice(slice: KeySlice<'_>) -> Option<&mut [$t]> {
                    match slice {
                        KeySlice::$v(k) => Some(k),
                        #[allow(unreachable_patterns)]
                        _ => None,
                    }
                }
            }
        )*

        /// Runs `$body` with `$k` bound to the typed slice inside a `KeySlice` or a `KeyView`,
        /// whatever its type: a generic function called there sees the key type as a parameter.
        macro_rules! with_keys {
            ($slice:expr, $k_:ident => $body_:expr) => {
                match $slice {
                    $($crate::backend::KeySlice::$v($k_) => $body_,)*
                }
            };
        }

        macro_rules! with_view {
            ($view:expr, $k_:ident => $body_:expr) => {
                match $view {
                    $($crate::backend::KeyView::$v($k_) => $body_,)*
                }
            };
        }
        pub(crate) use with_keys;
        pub(crate) use with_view;
    };
}
crate::key_types!(key_slices! {});

/// A type of the key list, taken back out of a `KeySlice` (by the CUDA backend's top-k).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) trait KeyItem: Sized {
    /// The typed slice, if `slice` holds keys of this type.
    fn of_slice(slice: KeySlice<'_>) -> Option<&mut [Self]>;
}

/// `slice` as keys of the type of `_like`: a second slice of the same job (a top-k's output).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) fn same_type<'a, T: KeyItem>(_like: &[T], slice: KeySlice<'a>) -> Option<&'a mut [T]> {
    T::of_slice(slice)
}

/// Bytes per key of a typed slice.
fn key_bytes<T>(_: &[T]) -> usize {
    std::mem::size_of::<T>()
}

impl KeyView<'_> {
    fn is_wide(&self) -> bool {
        with_view!(self, k => key_bytes(k) > 4)
    }

    pub(crate) fn key_type(&self) -> crate::KeyType {
        with_view!(self, k => key_type_of(k))
    }
}

fn key_type_of<K: crate::Key>(_: &[K]) -> crate::KeyType {
    K::TYPE
}

impl KeySlice<'_> {
    pub(crate) fn len(&self) -> usize {
        with_keys!(self, k => k.len())
    }

    fn is_wide(&self) -> bool {
        with_keys!(self, k => key_bytes(k) > 4)
    }

    fn key_bytes(&self) -> usize {
        with_keys!(self, k => key_bytes(k))
    }
}

/// One sort request, borrowed from the caller. New element types become new variants.
#[derive(Debug)]
pub(crate) enum SortJob<'a> {
    /// Array of (u32 key, u32 value) structs.
    Kvp(&'a mut [Kvp]),
    /// Keys only.
    Keys(KeySlice<'a>),
    /// Split arrays: keys and the u32 values that move with them (same length, checked).
    Pairs(KeySlice<'a>, &'a mut [u32]),
    /// The stable permutation that sorts the keys, written to the positions (same length,
    /// checked; at most 2^32 keys); the keys are only read.
    Argsort(KeyView<'a>, Positions<'a>),
    /// The stable permutation that sorts the rows of the columns (the first the most
    /// significant), written to the positions; every column has one key per position (checked),
    /// at most 2^32 of them, and is only read.
    Lexsort(&'a [Column<'a>], Positions<'a>),
}

/// Where an argsort writes its positions: the caller's `u32` or `u64` indices, one per key. The
/// backends write either width themselves, so no pass widens the result afterwards. (`pub` in
/// this private module only so that the sealed [`ArgIndex`](crate::ArgIndex) can name it.)
#[derive(Debug)]
pub enum Positions<'a> {
    U32(&'a mut [u32]),
    U64(&'a mut [u64]),
}

impl Positions<'_> {
    pub(crate) fn len(&self) -> usize {
        match self {
            Positions::U32(p) => p.len(),
            Positions::U64(p) => p.len(),
        }
    }

    pub(crate) fn reborrow(&mut self) -> Positions<'_> {
        match self {
            Positions::U32(p) => Positions::U32(p),
            Positions::U64(p) => Positions::U64(p),
        }
    }
}

/// A position type an argsort writes (`Positions`): every position fits a `u32`, since the
/// backends argsort at most 2^32 keys.
pub(crate) trait Position: Copy + Send + Sync + Default + std::fmt::Debug + 'static {
    fn from_u32(p: u32) -> Self;
}

impl Position for u32 {
    fn from_u32(p: u32) -> u32 {
        p
    }
}

impl Position for u64 {
    fn from_u32(p: u32) -> u64 {
        p as u64
    }
}

/// `$body` with `$p` bound to the slice of either width of the `Positions` `$out`.
macro_rules! with_positions {
    ($out:expr, $p:ident => $body:expr) => {
        match $out {
            $crate::backend::Positions::U32($p) => $body,
            $crate::backend::Positions::U64($p) => $body,
        }
    };
}
pub(crate) use with_positions;

impl SortJob<'_> {
    /// The same job borrowed for a shorter time, so a failed attempt can be retried elsewhere.
    pub(crate) fn reborrow(&mut self) -> SortJob<'_> {
        match self {
            SortJob::Kvp(v) => SortJob::Kvp(v),
            SortJob::Keys(k) => SortJob::Keys(k.reborrow()),
            SortJob::Pairs(k, v) => SortJob::Pairs(k.reborrow(), v),
            SortJob::Argsort(k, out) => SortJob::Argsort(*k, out.reborrow()),
            SortJob::Lexsort(c, out) => SortJob::Lexsort(c, out.reborrow()),
        }
    }

    /// What `auto()`'s crossover table tells apart.
    pub(crate) fn shape(&self) -> JobShape {
        match self {
            SortJob::Kvp(_) => JobShape::Kvp,
            SortJob::Keys(k) if k.is_wide() => JobShape::Keys64,
            SortJob::Keys(k) if k.key_bytes() == 1 => JobShape::Keys8,
            SortJob::Keys(_) => JobShape::Keys32,
            SortJob::Pairs(k, _) if k.is_wide() => JobShape::Pairs64,
            SortJob::Pairs(..) => JobShape::Pairs32,
            SortJob::Argsort(k, _) if k.is_wide() => JobShape::Pairs64,
            SortJob::Argsort(..) => JobShape::Pairs32,
            // A lexsort is a pair sort per word; its words are mostly 64-bit.
            SortJob::Lexsort(..) => JobShape::Pairs64,
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            SortJob::Kvp(v) => v.len(),
            SortJob::Keys(k) | SortJob::Pairs(k, _) => k.len(),
            SortJob::Argsort(_, out) | SortJob::Lexsort(_, out) => out.len(),
        }
    }
}

/// Which backend ran (or would run) a sort. More may come (other GPU APIs), hence
/// `non_exhaustive`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum BackendKind {
    /// The CPU backend (`gpusort-cpu`, on rayon).
    Cpu,
    /// An NVIDIA GPU, through the CUDA driver.
    Cuda,
}

impl std::fmt::Display for BackendKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            BackendKind::Cpu => "cpu",
            BackendKind::Cuda => "cuda",
        })
    }
}

/// A sorting backend. Implementations must leave the job's data untouched when they fail.
pub(crate) trait SortBackend: Send + Sync + std::fmt::Debug {
    fn kind(&self) -> BackendKind;
    /// One line: what the backend runs on.
    fn describe(&self) -> String;
    fn sort(&self, job: SortJob<'_>, order: Order, algorithm: Algorithm) -> Result<(), SortError>;
}

/// Four bytes of a record that a backend moves without reading it (`Sorter::sort_by_key` on the
/// GPU): any bit pattern, padding included, which is why it is not a `u32`.
#[derive(Clone, Copy)]
#[repr(transparent)]
pub(crate) struct RecordWord(#[allow(dead_code)] std::mem::MaybeUninit<u32>);

/// `v` as the words of its records, when its items can move as whole 4-byte words: a size that
/// is a nonzero multiple of 4 and an alignment of at least 4.
///
/// # Safety
/// Whatever writes through the words must leave whole records of `v` (each at a record
/// boundary) or `v`'s own words: any other bytes might not be a valid `T`.
pub(crate) unsafe fn record_words<T: Copy>(v: &mut [T]) -> Option<&mut [RecordWord]> {
    let words = words_per_record::<T>()?;
    // SAFETY: the items are `words` whole words each, aligned to 4, and a `RecordWord` may hold
    // any bytes (uninitialised padding too); what is written back is the caller's contract.
    Some(unsafe { std::slice::from_raw_parts_mut(v.as_mut_ptr().cast::<RecordWord>(), v.len() * words) })
}

/// The words of one `T`, when it can move as whole 4-byte words (see `record_words`).
pub(crate) fn words_per_record<T>() -> Option<usize> {
    let (size, align) = (std::mem::size_of::<T>(), std::mem::align_of::<T>());
    (size > 0 && size.is_multiple_of(4) && align >= 4).then_some(size / 4)
}
