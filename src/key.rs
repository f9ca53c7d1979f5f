//! The key types gpusort sorts: `u32`, `i32`, `f32` (in `f32::total_cmp` order), `u64`, `i64`
//! and `f64` (in `f64::total_cmp` order).

use crate::backend::{KeySlice, KeyView};

mod sealed {
    pub trait Sealed {}
}

/// A key type both backends sort. Sealed: the GPU kernels exist for these types only.
///
/// Floats sort as [`f32::total_cmp`] and [`f64::total_cmp`] order them:
/// -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN.
pub trait Key: gpusort_cpu::SortKey + sealed::Sealed {
    /// The slice as one of the backends' typed slices.
    #[doc(hidden)]
    fn slice(v: &mut [Self]) -> KeySlice<'_>;
    /// The slice as one of the backends' typed read-only slices.
    #[doc(hidden)]
    fn view(v: &[Self]) -> KeyView<'_>;
}

macro_rules! key_type {
    ($t:ty, $variant:ident) => {
        impl sealed::Sealed for $t {}
        impl Key for $t {
            fn slice(v: &mut [Self]) -> KeySlice<'_> {
                KeySlice::$variant(v)
            }
            fn view(v: &[Self]) -> KeyView<'_> {
                KeyView::$variant(v)
            }
        }
    };
}

key_type!(u32, U32);
key_type!(i32, I32);
key_type!(f32, F32);
key_type!(u64, U64);
key_type!(i64, I64);
key_type!(f64, F64);
