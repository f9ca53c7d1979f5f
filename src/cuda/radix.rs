//! Stable LSD radix sort on the GPU. Being written: see issues 2 and 4.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use super::Gpu;
use crate::{Kvp, Order, SortError};

fn not_yet() -> SortError {
    SortError::Unsupported { backend: "cuda", what: "radix sort is not implemented on the GPU yet".into() }
}

pub(crate) fn sort_kvp(_: &Gpu, _: &Arc<CudaStream>, _: &mut CudaSlice<Kvp>, _: Order) -> Result<(), SortError> {
    Err(not_yet())
}
pub(crate) fn sort_keys_u32(_: &Gpu, _: &Arc<CudaStream>, _: &mut CudaSlice<u32>, _: Order) -> Result<(), SortError> {
    Err(not_yet())
}
