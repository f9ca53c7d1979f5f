//! The entry points for arrays already in GPU memory: keys, split pairs, segments, argsort and top-k of
//! buffers the caller allocated (`cudaMalloc`, `cuMemAlloc`, a framework's tensor), sorted on the
//! caller's CUDA stream without a trip through host memory.
//!
//! Device arrays are `void *` (what `cudaMalloc` gives; a driver-API `CUdeviceptr` is cast to it)
//! and never dereferenced here: the library asks the driver what each address is
//! (`Sorter::sort_foreign_keys` and its siblings), so host memory, another device's memory, a
//! misaligned address or an array running past its allocation is `GPUSORT_INVALID_ARGUMENT`
//! before any work is queued. The stream is `void *` too: a `cudaStream_t` or `CUstream` of the
//! device's primary context (the one the CUDA runtime uses), or NULL for the legacy default
//! stream. One function per family takes the key type as a `gpusort_key_type` value, as
//! `gpusort_sort_records` does, rather than one function per type: the arrays are untyped
//! addresses anyway.
//!
//! The multi-key sort of device columns, `gpusort_lexsort_device`, is in `lexsort/device.rs`.
//!
//! Built without the `cuda` feature, every one of them is `GPUSORT_UNSUPPORTED`.

use std::ffi::c_void;

use crate::args::{gpusort_algorithm, gpusort_key_type, gpusort_order};
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

#[cfg(feature = "cuda")]
pub(crate) mod on_device {
    //! The calls into the library, which exist only with the `cuda` feature.
    use std::ffi::c_void;

    use gpusort_core::cudarc::driver::sys::CUstream;
    use gpusort_core::{KeyType, SortError, Sorter};

    use crate::args::{gpusort_algorithm, gpusort_key_type, gpusort_order, key_type};
    use crate::sort::with_sorter;
    use crate::sorter::gpusort_sorter;
    use crate::status::gpusort_status;

    /// Runs `call` with the resolved sorter, the checked key type and the stream, after the
    /// order, algorithm and key type are checked.
    pub(crate) unsafe fn run(
        sorter: *const gpusort_sorter,
        ord: gpusort_order,
        alg: gpusort_algorithm,
        key: gpusort_key_type,
        call: impl FnOnce(&Sorter, KeyType) -> Result<(), SortError>,
    ) -> gpusort_status {
        with_sorter(sorter, ord, alg, |s| {
            let key = key_type(key)?;
            Ok(call(s, key)?)
        })
    }

    /// The stream handle as the driver takes it: both `cudaStream_t` and `CUstream` are pointers
    /// to the same opaque struct.
    pub(crate) fn stream(stream: *mut c_void) -> CUstream {
        stream.cast()
    }
}

#[cfg(not(feature = "cuda"))]
pub(crate) fn without_cuda() -> gpusort_status {
    crate::guard::guard(|| {
        Err(crate::failure::Failure {
            status: gpusort_status::GPUSORT_UNSUPPORTED,
            message: "device arrays: this libgpusort was built without the cuda feature".into(),
        })
    })
}

/// The address C passed, as the driver numbers device memory.
#[cfg(feature = "cuda")]
pub(crate) fn address(ptr: *const c_void) -> u64 {
    ptr as usize as u64
}

/// Sorts `len` keys of type `key_type` (`GPUSORT_KEY_U32`, `_I32`, `_F32`, `_U64`, `_I64` or
/// `_F64`; floats in IEEE 754 totalOrder) in GPU memory at `keys`, in place, in `order`, with
/// `algorithm`, on `stream`. Returns once the sort is queued: work the caller queues later on
/// `stream` sees the sorted keys, and the host must synchronize the stream before it reads them.
///
/// `sorter` may be NULL (the default sorter); it must have a GPU (`GPUSORT_UNSUPPORTED` for a CPU
/// sorter, or an auto sorter on a machine without one; `GPUSORT_NO_DEVICE` in a forked child).
/// The sorter's device is used whatever its backend says, as the data is there already. `keys`
/// must be memory of that device, aligned to the key size, with all `len` keys inside one
/// allocation, and `stream` a stream of that device's primary context (the CUDA runtime's) or
/// NULL: otherwise `GPUSORT_INVALID_ARGUMENT`, before any work is queued. Fewer than two keys:
/// `GPUSORT_OK` at once, nothing checked. 16- and 8-bit keys are `GPUSORT_UNSUPPORTED` here.
///
/// ```c
/// float *d_keys;                       /* n floats on the device, filled by the caller */
/// cudaMalloc((void **)&d_keys, n * sizeof(float));
/// gpusort_sort_device_keys(NULL, GPUSORT_KEY_F32, d_keys, n, GPUSORT_ASCENDING,
///                          GPUSORT_ALGORITHM_AUTO, stream);
/// cudaStreamSynchronize(stream);
/// ```
///
/// # Safety
/// `keys` must stay allocated, and be read or written by nothing else, until the sort queued on
/// `stream` has finished. `stream` must be a live stream (the driver cannot tell a destroyed
/// handle from a live one).
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_device_keys(
    sorter: *const gpusort_sorter,
    key_type: gpusort_key_type,
    keys: *mut c_void,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
    stream: *mut c_void,
) -> gpusort_status {
    #[cfg(feature = "cuda")]
    return on_device::run(sorter, order, algorithm, key_type, |s, t| {
        s.sort_foreign_keys(address(keys), len, t, on_device::stream(stream))
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, key_type, keys, len, order, algorithm, stream);
        without_cuda()
    }
}

/// Sorts `len` keys of type `key_type` at `keys` and the `uint32_t` values at `values`, both in
/// GPU memory, by key, in place, values moving with their keys, stably, in `order`, on
/// `stream`. `algorithm` must be `GPUSORT_ALGORITHM_AUTO` or `_RADIX` (the networks sort one
/// array of `gpusort_kvp`: `GPUSORT_UNSUPPORTED` here). Everything else as
/// `gpusort_sort_device_keys`; also `GPUSORT_INVALID_ARGUMENT` when the two arrays overlap.
///
/// # Safety
/// As `gpusort_sort_device_keys`, for both arrays.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_device_pairs(
    sorter: *const gpusort_sorter,
    key_type: gpusort_key_type,
    keys: *mut c_void,
    values: *mut c_void,
    len: usize,
    order: gpusort_order,
    algorithm: gpusort_algorithm,
    stream: *mut c_void,
) -> gpusort_status {
    #[cfg(feature = "cuda")]
    return on_device::run(sorter, order, algorithm, key_type, |s, t| {
        s.sort_foreign_pairs(address(keys), address(values), len, t, on_device::stream(stream))
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, key_type, keys, values, len, order, algorithm, stream);
        without_cuda()
    }
}

/// Sorts each segment of the `len` keys of type `key_type` at `keys` on its own, in place, in
/// `order`, stably, the `uint32_t` values at `values` (unless NULL) moving with their keys, all in
/// GPU memory, on `stream`. Segment `s` runs from `offsets[s]` up to `offsets[s + 1]`: the
/// `num_offsets` (segments + 1) `uint64_t` at `offsets`, also in GPU memory, start at 0, end at
/// `len` and never fall (empty segments are fine). The offsets are checked on the device first,
/// which waits for `stream` once: offsets that do not cut `len` keys are
/// `GPUSORT_INVALID_ARGUMENT`, the data untouched. 64-bit keys take up to 2^32 - 1 of them
/// (`GPUSORT_UNSUPPORTED` beyond).
///
/// `num_offsets` 0, arrays that overlap, and the arrays and streams `gpusort_sort_device_keys`
/// refuses are `GPUSORT_INVALID_ARGUMENT`. With `len` 0 the keys and values are not looked at
/// (they may be NULL); the offsets always are. Otherwise as `gpusort_sort_device_keys`.
///
/// # Safety
/// As `gpusort_sort_device_keys`, for the three arrays, except that other work may read (not
/// write) `offsets` meanwhile.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_device_segments(
    sorter: *const gpusort_sorter,
    key_type: gpusort_key_type,
    keys: *mut c_void,
    values: *mut c_void,
    len: usize,
    offsets: *const c_void,
    num_offsets: usize,
    order: gpusort_order,
    stream: *mut c_void,
) -> gpusort_status {
    // Stable by definition, as the host entry points: AUTO is the radix sort.
    #[cfg(feature = "cuda")]
    return on_device::run(sorter, order, crate::args::GPUSORT_ALGORITHM_AUTO, key_type, |s, t| {
        let values = (!values.is_null()).then(|| address(values));
        s.sort_foreign_segments(address(keys), values, len, t, address(offsets), num_offsets, on_device::stream(stream))
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, key_type, keys, values, len, offsets, num_offsets, order, stream);
        without_cuda()
    }
}

/// Writes the `k` first of the `len` keys of type `key_type` at `keys` in `order` (the `k`
/// smallest, or largest with `GPUSORT_DESCENDING`) to `out_keys` (`k` keys of that type) and
/// where each stood in `keys` to `out_indices` (`k` `uint64_t`), all in GPU memory, on `stream`:
/// exactly the first `k` of a stable sort, ties at the `k`-th key to the earliest positions, as
/// `gpusort_top_k_u32` picks them on the host. `keys` is only read. `k` runs from 0 to `len`
/// and below 2^32 (`GPUSORT_INVALID_ARGUMENT` otherwise); `k` 0 is `GPUSORT_OK` at once, nothing
/// checked or written. The outputs must not overlap the keys or each other. Otherwise as
/// `gpusort_sort_device_keys`.
///
/// # Safety
/// As `gpusort_sort_device_keys`, for the three arrays, except that other work may read (not
/// write) `keys` meanwhile.
#[no_mangle]
pub unsafe extern "C" fn gpusort_top_k_device(
    sorter: *const gpusort_sorter,
    key_type: gpusort_key_type,
    keys: *const c_void,
    len: usize,
    k: usize,
    out_keys: *mut c_void,
    out_indices: *mut c_void,
    order: gpusort_order,
    stream: *mut c_void,
) -> gpusort_status {
    #[cfg(feature = "cuda")]
    return on_device::run(sorter, order, crate::args::GPUSORT_ALGORITHM_AUTO, key_type, |s, t| {
        let stream = on_device::stream(stream);
        s.top_k_foreign(address(keys), len, t, k, address(out_keys), address(out_indices), stream)
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, key_type, keys, len, k, out_keys, out_indices, order, stream);
        without_cuda()
    }
}

/// Writes the stable permutation that sorts the `len` keys of type `key_type` at `keys` in
/// `order` to the `len` `uint64_t` indices at `out`, both in GPU memory, on `stream`: the device
/// form of `gpusort_argsort_u32` and its siblings. `keys` is only read. The positions are made on
/// the device and sorted with a scratch copy of the keys. `len` 0 is `GPUSORT_OK` at once, nothing
/// checked; past 2^32 keys, and when `out` overlaps the keys, `GPUSORT_INVALID_ARGUMENT`.
/// Otherwise as `gpusort_sort_device_keys`.
///
/// ```c
/// uint64_t *d_order;                   /* where keys[d_order[0]], keys[d_order[1]], ... are in order */
/// cudaMalloc((void **)&d_order, n * sizeof(uint64_t));
/// gpusort_argsort_device(NULL, GPUSORT_KEY_F32, d_keys, n, d_order, GPUSORT_ASCENDING, stream);
/// ```
///
/// # Safety
/// As `gpusort_sort_device_keys`, for both arrays, except that other work may read (not write)
/// `keys` meanwhile.
#[no_mangle]
pub unsafe extern "C" fn gpusort_argsort_device(
    sorter: *const gpusort_sorter,
    key_type: gpusort_key_type,
    keys: *const c_void,
    len: usize,
    out: *mut c_void,
    order: gpusort_order,
    stream: *mut c_void,
) -> gpusort_status {
    // Stable by definition, as the host entry points: AUTO is the radix sort.
    #[cfg(feature = "cuda")]
    return on_device::run(sorter, order, crate::args::GPUSORT_ALGORITHM_AUTO, key_type, |s, t| {
        s.argsort_foreign::<u64>(address(keys), len, t, address(out), on_device::stream(stream))
    });
    #[cfg(not(feature = "cuda"))]
    {
        let _ = (sorter, key_type, keys, len, out, order, stream);
        without_cuda()
    }
}

#[cfg(all(test, feature = "cuda"))]
mod tests {
    //! The checks that need no GPU run everywhere; the sorts skip without one unless
    //! `GPUSORT_REQUIRE_GPU=1` (the GPU script sets it).
    use super::*;
    use crate::args::key_types::*;
    use crate::args::*;
    use crate::sorter::{gpusort_sorter_free, gpusort_sorter_new};
    use gpusort_core::cudarc::driver::{CudaStream, DevicePtr, DeviceRepr, ValidAsZeroBits};
    use gpusort_core::{Key, Order, Sorter};
    use gpusort_status::*;
    use std::ptr::{null, null_mut};
    use std::sync::Arc;

    /// A sorter handle of the given backend (freed on drop).
    struct Handle(*mut gpusort_sorter);

    impl Handle {
        fn new(backend: gpusort_backend) -> Option<Handle> {
            let mut h = null_mut();
            (unsafe { gpusort_sorter_new(backend, &mut h) } == GPUSORT_OK).then_some(Handle(h))
        }
    }

    impl Drop for Handle {
        fn drop(&mut self) {
            unsafe { gpusort_sorter_free(self.0) }
        }
    }

    /// A CUDA sorter handle and a stream of its context, or `None` (the test skips) without a GPU
    /// unless `GPUSORT_REQUIRE_GPU=1`.
    fn gpu() -> Option<(Handle, Arc<CudaStream>)> {
        let Some(handle) = Handle::new(GPUSORT_BACKEND_CUDA) else {
            assert_ne!(std::env::var("GPUSORT_REQUIRE_GPU").as_deref(), Ok("1"), "no CUDA device");
            return None;
        };
        let stream = Sorter::cuda().ok()?.cuda_context()?.new_stream().ok()?;
        Some((handle, stream))
    }

    fn addr<T>(buf: &gpusort_core::cudarc::driver::CudaSlice<T>, s: &Arc<CudaStream>) -> *mut c_void {
        let (p, _sync) = buf.device_ptr(s);
        p as usize as *mut c_void
    }

    /// Keys as their bytes: NaNs compare by sign and payload, -0.0 differs from 0.0.
    fn bits<K: Key>(v: &[K]) -> Vec<u8> {
        // SAFETY: the key types are plain numbers, without padding.
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }.to_vec()
    }

    #[test]
    fn without_a_gpu_or_with_a_bad_option_nothing_is_looked_at() {
        let cpu = Handle::new(GPUSORT_BACKEND_CPU).unwrap();
        let (junk, s) = (0x1000 as *mut c_void, null_mut());
        let st = unsafe { gpusort_sort_device_keys(cpu.0, GPUSORT_KEY_U32, junk, 10, 0, 0, s) };
        assert_eq!(st, GPUSORT_UNSUPPORTED);
        let st = unsafe { gpusort_sort_device_pairs(cpu.0, GPUSORT_KEY_F64, junk, junk, 10, 0, 0, s) };
        assert_eq!(st, GPUSORT_UNSUPPORTED);
        let st = unsafe { gpusort_sort_device_segments(cpu.0, GPUSORT_KEY_I32, junk, null_mut(), 10, junk, 3, 0, s) };
        assert_eq!(st, GPUSORT_UNSUPPORTED);
        let st = unsafe { gpusort_top_k_device(cpu.0, GPUSORT_KEY_U64, junk, 10, 2, junk, junk, 0, s) };
        assert_eq!(st, GPUSORT_UNSUPPORTED);
        let st = unsafe { gpusort_argsort_device(cpu.0, GPUSORT_KEY_F32, junk, 10, junk, 0, s) };
        assert_eq!(st, GPUSORT_UNSUPPORTED);
        // Before any backend is asked: unknown options, k past len.
        let st = unsafe { gpusort_sort_device_keys(null(), 12, junk, 10, 0, 0, s) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
        let st = unsafe { gpusort_sort_device_keys(null(), GPUSORT_KEY_U32, junk, 10, 2, 0, s) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
        let st = unsafe { gpusort_sort_device_keys(null(), GPUSORT_KEY_U32, junk, 10, 0, 4, s) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
        let st = unsafe { gpusort_top_k_device(null(), GPUSORT_KEY_U32, junk, 10, 11, junk, junk, 0, s) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
        // Nothing to sort: no device needed.
        for len in [0, 1] {
            let st = unsafe { gpusort_sort_device_pairs(cpu.0, GPUSORT_KEY_U32, null_mut(), null_mut(), len, 0, 0, s) };
            assert_eq!(st, GPUSORT_OK);
        }
        assert_eq!(
            unsafe { gpusort_top_k_device(cpu.0, GPUSORT_KEY_U32, null(), 0, 0, null_mut(), null_mut(), 0, s) },
            GPUSORT_OK
        );
    }

    /// Keys from `make` over a pool with repeats, sorted as keys and as pairs on the device in
    /// both orders, against the CPU backend's stable sort, bit for bit.
    fn sorts_like_the_cpu<K: Key + DeviceRepr + ValidAsZeroBits>(key_type: gpusort_key_type, make: fn(u64) -> K) {
        let Some((h, s)) = gpu() else { return };
        for n in [2usize, 1000, 4099, 100_003] {
            let mut x = n as u64;
            let keys: Vec<K> = (0..n)
                .map(|_| {
                    x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                    make(x >> 20 & 0xFFF | x & 0xFFFF_0000_0000_0000)
                })
                .collect();
            let values: Vec<u32> = (0..n as u32).collect();
            for (order, ord) in [(Order::Ascending, GPUSORT_ASCENDING), (Order::Descending, GPUSORT_DESCENDING)] {
                let (mut want_k, mut want_v) = (keys.clone(), values.clone());
                Sorter::cpu().with_order(order).sort_pairs(&mut want_k, &mut want_v).unwrap();
                let (dk, dv) = (s.clone_htod(&keys).unwrap(), s.clone_htod(&values).unwrap());
                let (kp, vp) = (addr(&dk, &s), addr(&dv, &s));
                let st = unsafe { gpusort_sort_device_pairs(h.0, key_type, kp, vp, n, ord, 0, s.cu_stream().cast()) };
                assert_eq!(st, GPUSORT_OK, "{key_type} n={n} {order:?}");
                assert_eq!(bits(&s.clone_dtoh(&dk).unwrap()), bits(&want_k), "pairs {key_type} n={n} {order:?}");
                assert_eq!(s.clone_dtoh(&dv).unwrap(), want_v, "values {key_type} n={n} {order:?}");
                let dk = s.clone_htod(&keys).unwrap();
                let st =
                    unsafe { gpusort_sort_device_keys(h.0, key_type, addr(&dk, &s), n, ord, 0, s.cu_stream().cast()) };
                assert_eq!(st, GPUSORT_OK);
                assert_eq!(bits(&s.clone_dtoh(&dk).unwrap()), bits(&want_k), "keys {key_type} n={n} {order:?}");
                // The values were positions: the pairs' order is the argsort.
                let (dk, out) = (s.clone_htod(&keys).unwrap(), s.alloc_zeros::<u64>(n).unwrap());
                let st = unsafe {
                    gpusort_argsort_device(h.0, key_type, addr(&dk, &s), n, addr(&out, &s), ord, s.cu_stream().cast())
                };
                assert_eq!(st, GPUSORT_OK);
                let want: Vec<u64> = want_v.iter().map(|&v| v as u64).collect();
                assert_eq!(s.clone_dtoh(&out).unwrap(), want, "argsort {key_type} n={n} {order:?}");
                assert_eq!(bits(&s.clone_dtoh(&dk).unwrap()), bits(&keys), "argsort keys {key_type} n={n}");
            }
        }
    }

    #[test]
    fn every_device_key_type_sorts_like_the_cpu() {
        sorts_like_the_cpu(GPUSORT_KEY_U32, |x| x as u32);
        sorts_like_the_cpu(GPUSORT_KEY_I32, |x| (x as i32).wrapping_sub(2048));
        sorts_like_the_cpu(GPUSORT_KEY_F32, |x| match x % 7 {
            0 => f32::NAN,
            1 => -0.0,
            _ => f32::from_bits(x as u32 ^ (x >> 63 << 31) as u32),
        });
        sorts_like_the_cpu(GPUSORT_KEY_U64, |x| x);
        sorts_like_the_cpu(GPUSORT_KEY_I64, |x| x as i64);
        sorts_like_the_cpu(GPUSORT_KEY_F64, |x| if x % 5 == 0 { -f64::NAN } else { f64::from_bits(x) });
        sorts_like_the_cpu(GPUSORT_KEY_U16, |x| x as u16);
        sorts_like_the_cpu(GPUSORT_KEY_I16, |x| x as i16);
        sorts_like_the_cpu(GPUSORT_KEY_U8, |x| x as u8);
        sorts_like_the_cpu(GPUSORT_KEY_I8, |x| x as i8);
        sorts_like_the_cpu(GPUSORT_KEY_F16, |x| gpusort_core::f16::from_bits(x as u16));
        sorts_like_the_cpu(GPUSORT_KEY_BF16, |x| gpusort_core::bf16::from_bits(x as u16));
    }

    #[test]
    fn segments_and_top_k_of_device_arrays() {
        let Some((h, s)) = gpu() else { return };
        let stream = s.cu_stream().cast();
        let keys = [3u32, 1, 2, 9, 7, 5, 8, 8, 0];
        let (dk, dv) = (s.clone_htod(&keys).unwrap(), s.clone_htod(&[0u32, 1, 2, 3, 4, 5, 6, 7, 8]).unwrap());
        let offsets = s.clone_htod(&[0u64, 3, 5, 5, 6, 9]).unwrap();
        let (kp, vp, op) = (addr(&dk, &s), addr(&dv, &s), addr(&offsets, &s));
        let st = unsafe { gpusort_sort_device_segments(h.0, GPUSORT_KEY_U32, kp, vp, 9, op, 6, 1, stream) };
        assert_eq!(st, GPUSORT_OK);
        assert_eq!(s.clone_dtoh(&dk).unwrap(), [3, 2, 1, 9, 7, 5, 8, 8, 0]);
        assert_eq!(s.clone_dtoh(&dv).unwrap(), [0, 2, 1, 3, 4, 5, 6, 7, 8]);
        // Offsets that do not end at len: refused, data untouched.
        let st = unsafe { gpusort_sort_device_segments(h.0, GPUSORT_KEY_U32, kp, null_mut(), 8, op, 6, 0, stream) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
        assert_eq!(s.clone_dtoh(&dk).unwrap(), [3, 2, 1, 9, 7, 5, 8, 8, 0]);

        let scores = s.clone_htod(&[0.5f64, 2.0, -1.0, 2.0, 7.5]).unwrap();
        let (best, at) = (s.alloc_zeros::<f64>(3).unwrap(), s.alloc_zeros::<u64>(3).unwrap());
        let (bp, ap) = (addr(&best, &s), addr(&at, &s));
        let st = unsafe { gpusort_top_k_device(h.0, GPUSORT_KEY_F64, addr(&scores, &s), 5, 3, bp, ap, 1, stream) };
        assert_eq!(st, GPUSORT_OK);
        assert_eq!(s.clone_dtoh(&best).unwrap(), [7.5, 2.0, 2.0]);
        assert_eq!(s.clone_dtoh(&at).unwrap(), [4, 1, 3]);
    }

    #[test]
    fn host_memory_and_bad_ranges_are_refused_untouched() {
        let Some((h, s)) = gpu() else { return };
        let stream = s.cu_stream().cast();
        let d = s.clone_htod(&[3u64, 2, 1, 0]).unwrap();
        let p = addr(&d, &s);
        let mut host = [4u64, 3, 2, 1];
        let bad = [
            (host.as_mut_ptr().cast::<c_void>(), 4, "host memory"),
            (p.wrapping_byte_add(4), 2, "misaligned"),
            (p.wrapping_byte_add(8), 4, "past the end"),
        ];
        for (ptr, len, why) in bad {
            let st = unsafe { gpusort_sort_device_keys(h.0, GPUSORT_KEY_U64, ptr, len, 0, 0, stream) };
            assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "{why}");
        }
        let st = unsafe { gpusort_sort_device_pairs(h.0, GPUSORT_KEY_U32, p, p.wrapping_byte_add(8), 4, 0, 0, stream) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "overlapping keys and values");
        let st = unsafe { gpusort_argsort_device(h.0, GPUSORT_KEY_U32, p, 4, p.wrapping_byte_add(8), 0, stream) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "an output over the keys");
        let (one, at) = (s.clone_htod(&[9u64]).unwrap(), s.clone_htod(&[7u64]).unwrap());
        let st = unsafe { gpusort_argsort_device(h.0, GPUSORT_KEY_U64, addr(&one, &s), 1, addr(&at, &s), 0, stream) };
        assert_eq!((st, s.clone_dtoh(&at).unwrap()), (GPUSORT_OK, vec![0]), "one key: position 0");
        assert_eq!(s.clone_dtoh(&d).unwrap(), [3, 2, 1, 0]);
        assert_eq!(host, [4, 3, 2, 1]);
    }
}
