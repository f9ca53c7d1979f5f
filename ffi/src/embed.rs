//! Device sorts inside other GPU programs: `gpusort_prepare` loads the kernels before a CUDA
//! graph capture, `gpusort_device_scratch_bytes` says how much scratch a call needs, and the
//! `*_scratch` calls take it from a buffer the caller allocated: they allocate nothing, free
//! nothing and never wait for the stream or the host, so `cudaStreamBeginCapture` records them.
//! Their arrays, stream and errors are as `gpusort_sort_device_keys` describes (`device.rs`); the
//! scratch is checked the same way (device memory of the sorter's device inside one allocation)
//! and must not overlap the other arrays. Too small a scratch is `GPUSORT_INVALID_ARGUMENT`,
//! nothing queued, the data untouched.

use std::ffi::c_void;

use crate::args::{gpusort_algorithm, gpusort_key_type, gpusort_order};
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

/// A device call whose scratch `gpusort_device_scratch_bytes` sizes: one of `GPUSORT_CALL_*`.
pub type gpusort_device_call = u32;
/// `gpusort_sort_device_keys_scratch`.
pub const GPUSORT_CALL_KEYS: gpusort_device_call = 0;
/// `gpusort_sort_device_pairs_scratch`.
pub const GPUSORT_CALL_PAIRS: gpusort_device_call = 1;
/// `gpusort_argsort_device_scratch` (uint64_t indices).
pub const GPUSORT_CALL_ARGSORT: gpusort_device_call = 2;

#[cfg(feature = "cuda")]
mod on_device {
    use gpusort_core::{DeviceCall, KeyType};

    use super::gpusort_device_call;
    use crate::failure::Failure;

    pub(super) fn call(call: gpusort_device_call, key: KeyType) -> Result<DeviceCall, Failure> {
        match call {
            super::GPUSORT_CALL_KEYS => Ok(DeviceCall::Keys(key)),
            super::GPUSORT_CALL_PAIRS => Ok(DeviceCall::Pairs(key)),
            super::GPUSORT_CALL_ARGSORT => Ok(DeviceCall::Argsort { keys: key, indices: KeyType::U64 }),
            other => Err(Failure::invalid(format!("call {other} is not one of GPUSORT_CALL_KEYS, _PAIRS, _ARGSORT"))),
        }
    }
}

/// Loads the sorter's kernels on its device and reads their configs, once per process. Every
/// device call does this on first use; call it (or make any device call) before capturing a
/// stream into a CUDA graph: a call on a capturing stream of a device not yet prepared is
/// `GPUSORT_INVALID_ARGUMENT`. `GPUSORT_OK` at once for a sorter without a GPU; `sorter` NULL is
/// the default sorter.
///
/// # Safety
/// `sorter` must be NULL or a live sorter.
#[no_mangle]
pub unsafe extern "C" fn gpusort_prepare(sorter: *const gpusort_sorter) -> gpusort_status {
    crate::sort::with_sorter(sorter, 0, 0, |s| Ok(s.prepare()?))
}

/// Writes to `*bytes` the scratch bytes `call` (`GPUSORT_CALL_*`) of `len` keys of `key_type` in
/// `order` with `algorithm` needs: the size of the buffer to pass to the `*_scratch` calls (any
/// buffer of the sorter's device holding this many bytes from its first 256-byte boundary;
/// `cudaMalloc` and `cudaMallocAsync` give aligned ones). Prepares the device (`gpusort_prepare`).
/// `GPUSORT_UNSUPPORTED` for a sorter without a GPU; `GPUSORT_INVALID_ARGUMENT` for an unknown
/// call, key type, order or algorithm, or `bytes` NULL, with `*bytes` unchanged.
///
/// ```c
/// size_t bytes;
/// void *d_scratch;
/// gpusort_device_scratch_bytes(NULL, GPUSORT_CALL_KEYS, GPUSORT_KEY_U32, n, GPUSORT_ASCENDING,
///                              GPUSORT_ALGORITHM_AUTO, &bytes);
/// cudaMalloc(&d_scratch, bytes ? bytes : 1);
/// cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal);
/// gpusort_sort_device_keys_scratch(NULL, GPUSORT_KEY_U32, d_keys, n, GPUSORT_ASCENDING,
///                                  GPUSORT_ALGORITHM_AUTO, d_scratch, bytes, stream);
/// cudaStreamEndCapture(stream, &graph);
/// ```
///
/// # Safety
/// `sorter` must be NULL or a live sorter; `bytes` NULL (an error) or valid for a write.
#[no_mangle]
pub unsafe extern "C" fn gpusort_device_scratch_bytes(
    sorter: *const gpusort_sorter,
    call: gpusort_device_call,
    key_type: gpusort_key_type,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
    bytes: *mut usize,
) -> gpusort_status {
    #[cfg(feature = "cuda")]
    return crate::sort::with_sorter(sorter, order, algorithm, |s| {
        if bytes.is_null() {
            return Err(crate::failure::Failure::invalid("bytes (where the size goes) is NULL".into()));
        }
        let need = s.device_scratch_bytes(on_device::call(call, crate::args::key_type(key_type)?)?, len)?;
        // SAFETY: non-null and valid for a write (the caller's contract).
        unsafe { bytes.write(need) };
        Ok(())
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, call, key_type, len, order, algorithm, bytes);
        crate::device::without_cuda()
    }
}

/// `gpusort_sort_device_keys` on the caller's `scratch_bytes` of device memory at `scratch` (at
/// least what `gpusort_device_scratch_bytes` gives for `GPUSORT_CALL_KEYS`). `scratch` may be
/// reused by work queued after this call on `stream`.
///
/// # Safety
/// As `gpusort_sort_device_keys`, for `keys` and `scratch`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpusort_sort_device_keys_scratch(
    sorter: *const gpusort_sorter,
    key_type: gpusort_key_type,
    keys: *mut c_void,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
    scratch: *mut c_void,
    scratch_bytes: usize,
    stream: *mut c_void,
) -> gpusort_status {
    #[cfg(feature = "cuda")]
    return crate::device::on_device::run(sorter, order, algorithm, key_type, |s, t| {
        let lent = (crate::device::address(scratch), scratch_bytes);
        s.sort_foreign_keys_with_scratch(crate::device::address(keys), len, t, lent, stream.cast())
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, key_type, keys, len, order, algorithm, scratch, scratch_bytes, stream);
        crate::device::without_cuda()
    }
}

/// `gpusort_sort_device_pairs` on the caller's scratch (size from `GPUSORT_CALL_PAIRS`), as
/// `gpusort_sort_device_keys_scratch`.
///
/// # Safety
/// As `gpusort_sort_device_pairs`, for the arrays and `scratch`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpusort_sort_device_pairs_scratch(
    sorter: *const gpusort_sorter,
    key_type: gpusort_key_type,
    keys: *mut c_void,
    values: *mut u32,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
    scratch: *mut c_void,
    scratch_bytes: usize,
    stream: *mut c_void,
) -> gpusort_status {
    #[cfg(feature = "cuda")]
    return crate::device::on_device::run(sorter, order, algorithm, key_type, |s, t| {
        let (k, v) = (crate::device::address(keys), crate::device::address(values.cast()));
        let lent = (crate::device::address(scratch), scratch_bytes);
        s.sort_foreign_pairs_with_scratch(k, v, len, t, lent, stream.cast())
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, key_type, keys, values, len, order, algorithm, scratch, scratch_bytes, stream);
        crate::device::without_cuda()
    }
}

/// `gpusort_argsort_device` on the caller's scratch (size from `GPUSORT_CALL_ARGSORT`), as
/// `gpusort_sort_device_keys_scratch`; floats in IEEE 754 totalOrder.
///
/// # Safety
/// As `gpusort_argsort_device`, for the arrays and `scratch`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpusort_argsort_device_scratch(
    sorter: *const gpusort_sorter,
    key_type: gpusort_key_type,
    keys: *const c_void,
    len: usize,
    out: *mut c_void,
    order: gpusort_order,
    scratch: *mut c_void,
    scratch_bytes: usize,
    stream: *mut c_void,
) -> gpusort_status {
    #[cfg(feature = "cuda")]
    return crate::device::on_device::run(sorter, order, crate::args::GPUSORT_ALGORITHM_AUTO, key_type, |s, t| {
        let (k, o) = (crate::device::address(keys), crate::device::address(out));
        let lent = (crate::device::address(scratch), scratch_bytes);
        s.argsort_foreign_with_scratch::<u64>(k, len, t, o, lent, stream.cast())
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, key_type, keys, len, out, order, scratch, scratch_bytes, stream);
        crate::device::without_cuda()
    }
}

/// Writes to `*bytes` the scratch bytes `gpusort_top_k_device_scratch` of the `k` first of `len`
/// keys of `key_type` in `order` needs, as `gpusort_device_scratch_bytes` does for the sorts.
/// `GPUSORT_INVALID_ARGUMENT` also for `k` above `len` or from 2^32 up.
///
/// # Safety
/// As `gpusort_device_scratch_bytes`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_scratch_bytes(
    sorter: *const gpusort_sorter,
    key_type: gpusort_key_type,
    len: usize,
    k: usize,
    order: gpusort_order,
    bytes: *mut usize,
) -> gpusort_status {
    #[cfg(feature = "cuda")]
    return crate::sort::with_sorter(sorter, order, crate::args::GPUSORT_ALGORITHM_AUTO, |s| {
        if bytes.is_null() {
            return Err(crate::failure::Failure::invalid("bytes (where the size goes) is NULL".into()));
        }
        let call = gpusort_core::DeviceCall::TopK { keys: crate::args::key_type(key_type)?, k };
        let need = s.device_scratch_bytes(call, len)?;
        // SAFETY: non-null and valid for a write (the caller's contract).
        unsafe { bytes.write(need) };
        Ok(())
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, key_type, len, k, order, bytes);
        crate::device::without_cuda()
    }
}

/// `gpusort_top_k_device` on the caller's scratch (size from `gpusort_top_k_scratch_bytes`), as
/// `gpusort_sort_device_keys_scratch`: the outputs written in place, nothing allocated; floats in
/// IEEE 754 totalOrder.
///
/// # Safety
/// As `gpusort_top_k_device`, for the arrays and `scratch`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn gpusort_top_k_device_scratch(
    sorter: *const gpusort_sorter,
    key_type: gpusort_key_type,
    keys: *const c_void,
    len: usize,
    k: usize,
    out_keys: *mut c_void,
    out_indices: *mut c_void,
    order: gpusort_order,
    scratch: *mut c_void,
    scratch_bytes: usize,
    stream: *mut c_void,
) -> gpusort_status {
    #[cfg(feature = "cuda")]
    return crate::device::on_device::run(sorter, order, crate::args::GPUSORT_ALGORITHM_AUTO, key_type, |s, t| {
        use crate::device::address;
        let out = (address(out_keys), address(out_indices));
        let lent = (address(scratch), scratch_bytes);
        s.top_k_foreign_with_scratch(address(keys), len, t, k, out, lent, stream.cast())
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, key_type, keys, len, k, out_keys, out_indices, order, scratch, scratch_bytes, stream);
        crate::device::without_cuda()
    }
}

#[cfg(all(test, feature = "cuda"))]
mod tests;
