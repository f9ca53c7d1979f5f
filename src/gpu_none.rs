//! Without the `cuda` feature: a GPU backend that never opens (`NoDriver`), with the methods
//! `Sorter` calls on the real one (`gpu.rs`). None is ever reached, as no value is ever made, but
//! each still answers as a GPU that cannot sort would.

use crate::backend::{BackendKind, KeySlice, KeyView, RecordWord, SortBackend, SortJob};
use crate::{Algorithm, Order, SortError};

#[derive(Clone, Debug)]
pub(crate) struct GpuBackend {
    _never_made: (),
}

impl GpuBackend {
    pub(crate) fn open(_ordinal: usize) -> Result<GpuBackend, SortError> {
        Err(SortError::NoDriver)
    }

    pub(crate) fn open_devices(_ordinals: &[usize]) -> Result<GpuBackend, SortError> {
        Err(SortError::NoDriver)
    }

    pub(crate) fn device_count() -> usize {
        0
    }

    pub(crate) fn with_max_runs(self, _runs: usize) -> GpuBackend {
        self
    }

    pub(crate) fn with_spread_from(&self, _items: usize) -> GpuBackend {
        self.clone()
    }

    pub(crate) fn spread_from(&self) -> Option<usize> {
        None
    }

    pub(crate) fn with_device_limit(&self, _bytes: usize) -> GpuBackend {
        self.clone()
    }

    pub(crate) fn device_limit(&self) -> Option<usize> {
        None
    }

    pub(crate) fn check_process(&self) -> Result<(), SortError> {
        Err(SortError::NoDriver)
    }

    pub(crate) fn kept_host_bytes(&self) -> usize {
        0
    }

    pub(crate) fn release_memory(&self) {}

    pub(crate) fn sort_segments_host(
        &self,
        _keys: KeySlice<'_>,
        _values: Option<&mut [u32]>,
        _offsets: &[usize],
        _order: Order,
    ) -> Result<(), SortError> {
        Err(SortError::NoDriver)
    }

    pub(crate) fn top_k_host(
        &self,
        _keys: KeyView<'_>,
        _k: usize,
        _order: Order,
        _out_keys: KeySlice<'_>,
        _out_positions: &mut [u64],
    ) -> Result<(), SortError> {
        Err(SortError::NoDriver)
    }

    pub(crate) fn records_on_device(&self, _bytes: usize) -> bool {
        false
    }

    pub(crate) fn sort_pairs_by_records(
        &self,
        _keys: KeySlice<'_>,
        _values: &mut [RecordWord],
        _order: Order,
    ) -> Result<(), SortError> {
        Err(SortError::NoDriver)
    }

    pub(crate) fn sort_records(
        &self,
        _keys: KeyView<'_>,
        _records: &mut [RecordWord],
        _order: Order,
    ) -> Result<(), SortError> {
        Err(SortError::NoDriver)
    }
}

impl SortBackend for GpuBackend {
    fn kind(&self) -> BackendKind {
        BackendKind::Cuda
    }

    fn describe(&self) -> String {
        SortError::NoDriver.to_string()
    }

    fn sort(&self, _job: SortJob<'_>, _order: Order, _algorithm: Algorithm) -> Result<(), SortError> {
        Err(SortError::NoDriver)
    }
}
