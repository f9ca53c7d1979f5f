//! The sort direction, shared by every sort and by the checks.

use crate::key::RadixBits;

/// Sort direction.
///
/// ```
/// use gpusort_cpu::{Order, RadixBits};
/// assert_eq!(Order::default(), Order::Ascending);
/// // Descending sorts run as ascending sorts on the inverted bits.
/// assert_eq!(Order::Descending.directed(5u32), 5u32.invert());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Order {
    /// Smallest key first.
    #[default]
    Ascending,
    /// Largest key first.
    Descending,
}

impl Order {
    /// The ordered bits with which an ascending radix sort yields this order (stable either way).
    #[inline(always)]
    pub fn directed<B: RadixBits>(self, bits: B) -> B {
        match self {
            Order::Ascending => bits,
            Order::Descending => bits.invert(),
        }
    }
}
