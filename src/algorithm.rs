//! Which sort to run.

/// The sorting algorithm. `Auto` and `Radix` are stable on every backend; the sorting networks
/// are not (equal keys may come out in any order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Algorithm {
    /// The fastest stable sort the backend has (today: radix on both backends).
    #[default]
    Auto,
    /// Stable LSD radix sort.
    Radix,
    /// Bitonic sorting network (GPU only, not stable; see [`Sorter::with_algorithm`] for what
    /// runs without a GPU).
    ///
    /// [`Sorter::with_algorithm`]: crate::Sorter::with_algorithm
    Bitonic,
    /// Batcher's odd-even merge sorting network (GPU only, not stable; as `Bitonic` without a
    /// GPU).
    OddEvenMerge,
}

impl Algorithm {
    /// True when equal keys keep their input order.
    #[must_use]
    pub fn is_stable(self) -> bool {
        matches!(self, Algorithm::Auto | Algorithm::Radix)
    }

    /// True for the algorithms only the GPU backend has.
    #[must_use]
    pub fn is_gpu_only(self) -> bool {
        matches!(self, Algorithm::Bitonic | Algorithm::OddEvenMerge)
    }
}
