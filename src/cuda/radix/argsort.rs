//! The argsort of 8- and 16-bit device keys in one radix sort (`radix_onesweep_argsort_*`): the
//! first pass makes the positions, the last writes them in the caller's width.

use super::*;

/// The stable permutation of device-resident 8- or 16-bit `keys` (only read) into `out`, `u32` or
/// `u64` positions, in one radix sort whose first pass makes the positions and whose last writes
/// them in `out`'s width (`radix_onesweep_argsort_*`). False, nothing queued, where that sort does
/// not apply: other keys, or inputs of one tile (the caller sorts a copy as pairs).
pub(crate) fn argsort_narrow<K: RadixKey, P: DeviceRepr>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &CudaSlice<K>,
    out: &mut CudaSlice<P>,
    order: Order,
    scratch: Scratch,
) -> Result<bool, SortError> {
    argsort_narrow_in(gpu, stream, keys, out, order, scratch, Run::FULL)
}

pub(super) fn argsort_narrow_in<K: RadixKey, P: DeviceRepr>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &CudaSlice<K>,
    out: &mut CudaSlice<P>,
    order: Order,
    scratch: Scratch,
    run: Run,
) -> Result<bool, SortError> {
    let n = keys.len();
    SortError::check_pair_lengths(n, out.len())?;
    assert!(matches!(size_of::<P>(), 4 | 8), "u32 or u64 positions");
    let variant = K::PAIRS.set_for(n, gpu)?;
    if variant.argsort_sweep().is_none() || n < 2 {
        return Ok(false);
    }
    let cfg = config::config(gpu, variant)?;
    if n <= cfg.small_tile {
        return Ok(false);
    }
    let (kp, _keys_guard) = keys.device_ptr(stream);
    let (op, _out_guard) = out.device_ptr_mut(stream);
    // SAFETY: both buffers stay borrowed until this function returns, after every launch is
    // queued on `stream`; the sweeps only read `keys` (radix_onesweep.cuh S::ARGSORT). The
    // positions go to `out`: as u32 through values_a, or as u64 through `wide` (values_a is then
    // the first n words of `out`, which no kernel touches).
    let (keys_a, values_a) = unsafe { (Dev::<K>::new(kp, n), Dev::<u32>::new(op, n)) };
    let wide = if size_of::<P>() == 8 { op } else { 0 };
    let flags = order_flags(K::ORDER_FLAGS, order);
    passes(gpu, stream, variant, &cfg, keys_a, Some(values_a), flags, run, scratch, Tail::Argsort { wide })?;
    Ok(true)
}

/// The scratch bytes `argsort_narrow` of `n` keys of `K` carves, or `None` where it does not apply.
pub(crate) fn need_argsort_narrow<K: RadixKey>(gpu: &Gpu, n: usize) -> Result<Option<usize>, SortError> {
    let variant = K::PAIRS.set_for(n, gpu)?;
    let cfg = config::config(gpu, variant)?;
    if variant.argsort_sweep().is_none() || n < 2 || n <= cfg.small_tile {
        return Ok(None);
    }
    Ok(Some(need::<K>(gpu, variant, n, size_of::<u32>())?))
}
