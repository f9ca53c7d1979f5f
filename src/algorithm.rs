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
    /// Bitonic sorting network (GPU only, not stable).
    Bitonic,
    /// Batcher's odd-even merge sorting network (GPU only, not stable).
    OddEvenMerge,
}

impl Algorithm {
    /// True when equal keys keep their input order.
    pub fn is_stable(self) -> bool {
        matches!(self, Algorithm::Auto | Algorithm::Radix)
    }

    /// True for the algorithms only the GPU backend has.
    pub fn is_gpu_only(self) -> bool {
        matches!(self, Algorithm::Bitonic | Algorithm::OddEvenMerge)
    }
}
