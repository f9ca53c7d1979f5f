//! The seam between `Sorter` and the implementations: each backend sorts a `SortJob`.

use crate::{Algorithm, Kvp, Order, SortError};

/// One sort request, borrowed from the caller. New key types become new variants.
#[derive(Debug)]
pub(crate) enum SortJob<'a> {
    Kvp(&'a mut [Kvp]),
    KeysU32(&'a mut [u32]),
}

impl SortJob<'_> {
    /// The same job borrowed for a shorter time, so a failed attempt can be retried elsewhere.
    pub(crate) fn reborrow(&mut self) -> SortJob<'_> {
        match self {
            SortJob::Kvp(v) => SortJob::Kvp(v),
            SortJob::KeysU32(v) => SortJob::KeysU32(v),
        }
    }

    pub(crate) fn len(&self) -> usize {
        match self {
            SortJob::Kvp(v) => v.len(),
            SortJob::KeysU32(v) => v.len(),
        }
    }
}

/// Which backend ran (or would run) a sort.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BackendKind {
    Cpu,
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
