//! The seam between `Sorter` and the implementations: each backend sorts a `SortJob`.

use crate::tuning::JobShape;
use crate::{Algorithm, Kvp, Order, SortError};

/// A slice of one of the supported key types. The small ones (`U16` to `I8`) count as 32-bit
/// keys everywhere a shape is chosen: that is how they travel to the GPU.
#[derive(Debug)]
pub enum KeySlice<'a> {
    U32(&'a mut [u32]),
    I32(&'a mut [i32]),
    F32(&'a mut [f32]),
    U64(&'a mut [u64]),
    I64(&'a mut [i64]),
    F64(&'a mut [f64]),
    U16(&'a mut [u16]),
    I16(&'a mut [i16]),
    U8(&'a mut [u8]),
    I8(&'a mut [i8]),
}

/// A shared slice of one of the supported key types: keys a sort reads and leaves alone.
#[derive(Debug, Clone, Copy)]
pub enum KeyView<'a> {
    U32(&'a [u32]),
    I32(&'a [i32]),
    F32(&'a [f32]),
    U64(&'a [u64]),
    I64(&'a [i64]),
    F64(&'a [f64]),
    U16(&'a [u16]),
    I16(&'a [i16]),
    U8(&'a [u8]),
    I8(&'a [i8]),
}

/// Runs `$body` with `$k` bound to the typed slice inside a `KeyView`, whatever its type.
macro_rules! with_view {
    ($view:expr, $k:ident => $body:expr) => {
        match $view {
            $crate::backend::KeyView::U32($k) => $body,
            $crate::backend::KeyView::I32($k) => $body,
            $crate::backend::KeyView::F32($k) => $body,
            $crate::backend::KeyView::U64($k) => $body,
            $crate::backend::KeyView::I64($k) => $body,
            $crate::backend::KeyView::F64($k) => $body,
            $crate::backend::KeyView::U16($k) => $body,
            $crate::backend::KeyView::I16($k) => $body,
            $crate::backend::KeyView::U8($k) => $body,
            $crate::backend::KeyView::I8($k) => $body,
        }
    };
}
pub(crate) use with_view;

impl KeyView<'_> {
    fn is_wide(&self) -> bool {
        matches!(self, KeyView::U64(_) | KeyView::I64(_) | KeyView::F64(_))
    }
}

/// Runs `$body` with `$k` bound to the typed slice inside a `KeySlice`, whatever its type.
macro_rules! with_keys {
    ($slice:expr, $k:ident => $body:expr) => {
        match $slice {
            $crate::backend::KeySlice::U32($k) => $body,
            $crate::backend::KeySlice::I32($k) => $body,
            $crate::backend::KeySlice::F32($k) => $body,
            $crate::backend::KeySlice::U64($k) => $body,
            $crate::backend::KeySlice::I64($k) => $body,
            $crate::backend::KeySlice::F64($k) => $body,
            $crate::backend::KeySlice::U16($k) => $body,
            $crate::backend::KeySlice::I16($k) => $body,
            $crate::backend::KeySlice::U8($k) => $body,
            $crate::backend::KeySlice::I8($k) => $body,
        }
    };
}
pub(crate) use with_keys;

impl KeySlice<'_> {
    pub(crate) fn len(&self) -> usize {
        with_keys!(self, k => k.len())
    }

    fn reborrow(&mut self) -> KeySlice<'_> {
        match self {
            KeySlice::U32(k) => KeySlice::U32(k),
            KeySlice::I32(k) => KeySlice::I32(k),
            KeySlice::F32(k) => KeySlice::F32(k),
            KeySlice::U64(k) => KeySlice::U64(k),
            KeySlice::I64(k) => KeySlice::I64(k),
            KeySlice::F64(k) => KeySlice::F64(k),
            KeySlice::U16(k) => KeySlice::U16(k),
            KeySlice::I16(k) => KeySlice::I16(k),
            KeySlice::U8(k) => KeySlice::U8(k),
            KeySlice::I8(k) => KeySlice::I8(k),
        }
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
    /// The stable permutation that sorts the keys, written to the `u32` slice (same length,
    /// checked; at most 2^32 keys); the keys are only read.
    Argsort(KeyView<'a>, &'a mut [u32]),
}

impl SortJob<'_> {
    /// The same job borrowed for a shorter time, so a failed attempt can be retried elsewhere.
    pub(crate) fn reborrow(&mut self) -> SortJob<'_> {
        match self {
            SortJob::Kvp(v) => SortJob::Kvp(v),
            SortJob::Keys(k) => SortJob::Keys(k.reborrow()),
            SortJob::Pairs(k, v) => SortJob::Pairs(k.reborrow(), v),
            SortJob::Argsort(k, out) => SortJob::Argsort(*k, out),
        }
    }

    /// What `auto()`'s crossover table tells apart.
    pub(crate) fn shape(&self) -> JobShape {
        match self {
            SortJob::Kvp(_) => JobShape::Kvp,
            SortJob::Keys(KeySlice::U64(_) | KeySlice::I64(_) | KeySlice::F64(_)) => JobShape::Keys64,
            SortJob::Keys(_) => JobShape::Keys32,
            SortJob::Pairs(KeySlice::U64(_) | KeySlice::I64(_) | KeySlice::F64(_), _) => JobShape::Pairs64,
            SortJob::Pairs(..) => JobShape::Pairs32,
            SortJob::Argsort(k, _) if k.is_wide() => JobShape::Pairs64,
            SortJob::Argsort(..) => JobShape::Pairs32,
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            SortJob::Kvp(v) => v.len(),
            SortJob::Keys(k) | SortJob::Pairs(k, _) => k.len(),
            SortJob::Argsort(_, out) => out.len(),
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
