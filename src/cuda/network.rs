//! Sorting networks on the GPU (bitonic, odd-even merge): not implemented yet, see issue 3.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::Gpu;
use crate::{Kvp, Order, SortError};

fn not_yet(what: &str) -> SortError {
    SortError::Unsupported { backend: "cuda", what: format!("{what} is not implemented on the GPU yet") }
}

pub(crate) fn bitonic_kvp(_: &Gpu, _: &Arc<CudaStream>, _: &mut CudaSlice<Kvp>, _: Order) -> Result<(), SortError> {
    Err(not_yet("bitonic sort"))
}
pub(crate) fn bitonic_keys_u32(
    _: &Gpu,
    _: &Arc<CudaStream>,
    _: &mut CudaSlice<u32>,
    _: Order,
) -> Result<(), SortError> {
    Err(not_yet("bitonic sort"))
}
pub(crate) fn odd_even_kvp(_: &Gpu, _: &Arc<CudaStream>, _: &mut CudaSlice<Kvp>, _: Order) -> Result<(), SortError> {
    Err(not_yet("odd-even merge sort"))
}
pub(crate) fn odd_even_keys_u32(
    _: &Gpu,
    _: &Arc<CudaStream>,
    _: &mut CudaSlice<u32>,
    _: Order,
) -> Result<(), SortError> {
    Err(not_yet("odd-even merge sort"))
}
