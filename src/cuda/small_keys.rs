//! Device-resident 8- and 16-bit keys (the key list's `Small` class) for the kernels that take
//! 32-bit keys only (the sorting networks, top-k, the segmented sorts): their 32-bit ordered bits
//! made in a scratch buffer (`small_keys.cu` `small_widen_*`), the 32-bit kernels run on them, and
//! the result mapped back into the caller's keys (`small_narrow_*`). The radix sort takes these
//! keys at their own width (`radix::RadixKey`).

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr};

use super::dispatch::DeviceSort;
use super::overlap::{self, Args, Launch};
use super::positions::config;
use super::radix::{self, RadixKey};
use super::scratch::{Buf, Scratch};
use super::Gpu;
use crate::{Algorithm, Key, KeyType, SortError};

/// A small key type as the kernels map it: `map` as `small_keys.cu` numbers it.
pub(crate) trait SmallKey: Key + DeviceRepr {
    const MAP: i32 = map_of(Self::TYPE);
}

impl<K: Key + DeviceRepr> SmallKey for K {}

const fn map_of(t: KeyType) -> i32 {
    match t {
        KeyType::I8 | KeyType::I16 => 1,
        KeyType::F16 | KeyType::BF16 => 2,
        _ => 0,
    }
}

fn kernel<K: SmallKey>(widen: bool) -> &'static str {
    match (size_of::<K>(), widen) {
        (2, true) => "small_widen_16",
        (2, false) => "small_narrow_16",
        (1, true) => "small_widen_8",
        (1, false) => "small_narrow_8",
        _ => unreachable!("small keys are 8 or 16 bits"),
    }
}

/// The ordered bits of `keys` in a scratch buffer, queued on `stream`.
pub(crate) fn widen<K: SmallKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &CudaSlice<K>,
    scratch: Scratch,
) -> Result<Buf<u32>, SortError> {
    let n = keys.len();
    let mut bits = scratch.buffer::<u32>(stream, n)?;
    let name = kernel::<K>(true);
    let f = gpu.function(&gpusort_kernels::SMALL_KEYS, name)?;
    {
        let (kp, _gk) = keys.device_ptr(stream);
        let (bp, _gb) = bits.device_ptr_mut(stream);
        let mut a = Args::new();
        a.arg(kp).arg(bp).arg(n as u64).arg(K::MAP);
        // SAFETY: matches small_widen_<w>(const T* keys, unsigned* bits, u64 n, int map): `keys`
        // holds n keys of the kernel's width, `bits` at least n words; both stay borrowed until
        // the launch is queued on `stream`.
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config(gpu, n), &mut a) }
            .map_err(SortError::driver(name, 0))?;
    }
    Ok(bits)
}

/// `keys[i]` from the ordered bits `bits[i]`, queued on `stream`.
pub(crate) fn narrow<K: SmallKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    bits: &CudaSlice<u32>,
    keys: &mut CudaSlice<K>,
) -> Result<(), SortError> {
    let n = keys.len();
    let name = kernel::<K>(false);
    let f = gpu.function(&gpusort_kernels::SMALL_KEYS, name)?;
    let (bp, _gb) = bits.device_ptr(stream);
    let (kp, _gk) = keys.device_ptr_mut(stream);
    let mut a = Args::new();
    a.arg(bp).arg(kp).arg(n as u64).arg(K::MAP);
    // SAFETY: matches small_narrow_<w>(const unsigned* bits, T* keys, u64 n, int map), as `widen`.
    unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config(gpu, n), &mut a) }
        .map_err(SortError::driver(name, 0))
}

/// Sorts device-resident small keys, with their `u32` values when given, on `stream`: at their
/// own width by the radix kernels; as ordered bits by a sorting network, the keys written only by
/// the last kernel, after the sort succeeded.
pub(crate) fn sort<K: SmallKey + RadixKey>(
    sort: &DeviceSort,
    stream: &Arc<CudaStream>,
    keys: &mut CudaSlice<K>,
    values: Option<&mut CudaSlice<u32>>,
) -> Result<(), SortError> {
    if keys.len() < 2 {
        return Ok(());
    }
    if matches!(sort.algorithm, Algorithm::Auto | Algorithm::Radix) {
        return match values {
            Some(values) => sort.run_pairs(stream, keys, values),
            None => radix::sort_keys(sort.gpu, stream, keys, sort.order, sort.scratch),
        };
    }
    let mut bits = widen(sort.gpu, stream, keys, sort.scratch)?;
    match values {
        Some(values) => sort.run_pairs(stream, &mut bits, values)?,
        None => sort.run(stream, &mut bits)?,
    }
    narrow(sort.gpu, stream, &bits, keys)
}
