//! The key types gpusort sorts (the list in `key_types.rs`): `u32`, `i32`, `f32` (in
//! `f32::total_cmp` order), `u64`, `i64` and `f64` (in `f64::total_cmp` order), the small
//! integers `u16`, `i16`, `u8` and `i8`, and the half-precision floats `f16` and `bf16`.

use crate::backend::{KeySlice, KeyView};
use crate::KeyType;
use half::{bf16, f16};

mod sealed {
    pub trait Sealed {}
}

/// A key type both backends sort. Sealed: the GPU kernels exist for these types only.
///
/// Floats sort as [`f32::total_cmp`] and [`f64::total_cmp`] order them:
/// -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
///
/// The half-precision floats [`f16`](crate::f16) and [`bf16`](crate::bf16) sort in the same
/// total order, on their 16 bits.
///
/// The 8- and 16-bit keys sort as 32-bit keys do: on the GPU they travel at their own width and
/// are sorted there as their 32-bit ordered bits, and the radix sorts skip the digit passes
/// above the key's own bytes (two passes for 16-bit keys, one for 8-bit keys). The sorts spread
/// over several devices take 32- and 64-bit keys only.
///
/// ```
/// use gpusort::Sorter;
/// let mut keys = [300i16, -2, 7, i16::MIN];
/// let mut rows = [0u32, 1, 2, 3];
/// Sorter::cpu().sort_pairs(&mut keys, &mut rows)?;
/// assert_eq!((keys, rows), ([i16::MIN, -2, 7, 300], [3, 1, 2, 0]));
/// # Ok::<(), gpusort::SortError>(())
/// ```
pub trait Key: gpusort_cpu::SortKey + sealed::Sealed {
    /// The type as a run-time value.
    const TYPE: KeyType;
    /// The slice as one of the backends' typed slices.
    #[doc(hidden)]
    fn slice(v: &mut [Self]) -> KeySlice<'_>;
    /// The slice as one of the backends' typed read-only slices.
    #[doc(hidden)]
    fn view(v: &[Self]) -> KeyView<'_>;
}

macro_rules! key_impls {
    ({} $($t:ident, $v:ident, $c:literal, $np:literal, $class:ident;)*) => {$(
        impl sealed::Sealed for $t {}
        impl Key for $t {
            const TYPE: KeyType = KeyType::$v;
            fn slice(v: &mut [Self]) -> KeySlice<'_> {
                KeySlice::$v(v)
            }
            fn view(v: &[Self]) -> KeyView<'_> {
                KeyView::$v(v)
            }
        }
    )*};
}
crate::key_types!(key_impls! {});
