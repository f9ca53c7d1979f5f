//! The checks that need no GPU run everywhere; the sorts skip without one unless
//! `GPUSORT_REQUIRE_GPU=1` (the GPU script sets it).
use super::*;
use crate::args::key_types::*;
use crate::args::*;
use crate::sorter::{gpusort_sorter_free, gpusort_sorter_new};
use gpusort_core::cudarc::driver::{CudaSlice, CudaStream, DevicePtr};
use gpusort_core::{Order, Sorter};
use gpusort_status::*;
use std::ptr::null_mut;
use std::sync::Arc;

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

fn addr<T>(buf: &CudaSlice<T>, s: &Arc<CudaStream>) -> *mut c_void {
    let (p, _sync) = buf.device_ptr(s);
    p as usize as *mut c_void
}

#[test]
fn without_a_gpu_or_with_a_bad_option_nothing_is_looked_at() {
    let cpu = Handle::new(GPUSORT_BACKEND_CPU).unwrap();
    let (junk, s) = (0x1000 as *mut c_void, null_mut());
    assert_eq!(unsafe { gpusort_prepare(cpu.0) }, GPUSORT_OK, "nothing to load without a GPU");
    let mut bytes = 7usize;
    let st = unsafe { gpusort_device_scratch_bytes(cpu.0, GPUSORT_CALL_KEYS, GPUSORT_KEY_U32, 10, 0, 0, &mut bytes) };
    assert_eq!(st, GPUSORT_UNSUPPORTED);
    let st = unsafe { gpusort_device_scratch_bytes(cpu.0, 9, GPUSORT_KEY_U32, 10, 0, 0, &mut bytes) };
    assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "unknown call");
    let st = unsafe { gpusort_device_scratch_bytes(cpu.0, GPUSORT_CALL_KEYS, 999, 10, 0, 0, &mut bytes) };
    assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "unknown key type");
    let st = unsafe { gpusort_device_scratch_bytes(cpu.0, GPUSORT_CALL_KEYS, GPUSORT_KEY_U32, 10, 0, 0, null_mut()) };
    assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "NULL bytes");
    assert_eq!(bytes, 7, "a failed call wrote its output");
    let st = unsafe { gpusort_sort_device_keys_scratch(cpu.0, GPUSORT_KEY_U32, junk, 10, 0, 0, junk, 64, s) };
    assert_eq!(st, GPUSORT_UNSUPPORTED);
    let st =
        unsafe { gpusort_sort_device_pairs_scratch(cpu.0, GPUSORT_KEY_U32, junk, junk.cast(), 10, 0, 0, junk, 64, s) };
    assert_eq!(st, GPUSORT_UNSUPPORTED);
    let st = unsafe { gpusort_argsort_device_scratch(cpu.0, GPUSORT_KEY_F32, junk, 10, junk, 0, junk, 64, s) };
    assert_eq!(st, GPUSORT_UNSUPPORTED);
    let st = unsafe { gpusort_top_k_scratch_bytes(cpu.0, GPUSORT_KEY_U32, 10, 3, 0, &mut bytes) };
    assert_eq!(st, GPUSORT_UNSUPPORTED);
    let st = unsafe { gpusort_top_k_scratch_bytes(cpu.0, GPUSORT_KEY_U32, 10, 3, 0, null_mut()) };
    assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "NULL bytes");
    assert_eq!(bytes, 7, "a failed call wrote its output");
    let st = unsafe { gpusort_top_k_device_scratch(cpu.0, GPUSORT_KEY_U32, junk, 10, 3, junk, junk, 0, junk, 64, s) };
    assert_eq!(st, GPUSORT_UNSUPPORTED);
}

#[test]
fn top_k_on_scratch_matches_the_cpu() {
    let Some(h) = Handle::new(GPUSORT_BACKEND_CUDA) else {
        assert_ne!(std::env::var("GPUSORT_REQUIRE_GPU").as_deref(), Ok("1"), "no CUDA device");
        return;
    };
    let s = Sorter::cuda().unwrap().cuda_context().unwrap().new_stream().unwrap();
    let stream = s.cu_stream().cast();
    let n = 200_003usize;
    // Few distinct keys: the ties at the k-th key go to the earliest positions.
    let keys: Vec<i32> =
        (0..n as u64).map(|i| ((i.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 40) % 5000) as i32 - 2500).collect();
    let dk = s.clone_htod(&keys).unwrap();
    for (order, ord) in [(Order::Ascending, GPUSORT_ASCENDING), (Order::Descending, GPUSORT_DESCENDING)] {
        for k in [1usize, 100, 4099, n] {
            let want = Sorter::cpu().with_order(order).argsort(&keys).unwrap();
            let mut bytes = 0;
            let st = unsafe { gpusort_top_k_scratch_bytes(h.0, GPUSORT_KEY_I32, n, k, ord, &mut bytes) };
            assert_eq!(st, GPUSORT_OK);
            let (ok, oi) = (s.alloc_zeros::<i32>(k).unwrap(), s.alloc_zeros::<u64>(k).unwrap());
            let scratch = s.alloc_zeros::<u8>(bytes.max(1)).unwrap();
            let (kp, okp, oip, sp) = (addr(&dk, &s), addr(&ok, &s), addr(&oi, &s), addr(&scratch, &s));
            let call = |bytes| unsafe {
                gpusort_top_k_device_scratch(h.0, GPUSORT_KEY_I32, kp, n, k, okp, oip, ord, sp, bytes, stream)
            };
            assert_eq!(call(bytes - 1), GPUSORT_INVALID_ARGUMENT, "one byte short");
            assert!(s.clone_dtoh(&oi).unwrap().iter().all(|&i| i == 0), "a refused top-k wrote");
            assert_eq!(call(bytes), GPUSORT_OK, "top {k} {order:?}");
            let at: Vec<u64> = want[..k].iter().map(|&i| i as u64).collect();
            let top: Vec<i32> = want[..k].iter().map(|&i| keys[i as usize]).collect();
            assert_eq!(s.clone_dtoh(&oi).unwrap(), at, "top {k} {order:?}: positions");
            assert_eq!(s.clone_dtoh(&ok).unwrap(), top, "top {k} {order:?}: keys");
        }
    }
    let mut bytes = 0;
    let st = unsafe { gpusort_top_k_scratch_bytes(h.0, GPUSORT_KEY_I32, 10, 11, 0, &mut bytes) };
    assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "k past the keys");
}

#[test]
fn calls_on_scratch_sort_like_the_cpu() {
    let Some(h) = Handle::new(GPUSORT_BACKEND_CUDA) else {
        assert_ne!(std::env::var("GPUSORT_REQUIRE_GPU").as_deref(), Ok("1"), "no CUDA device");
        return;
    };
    let s = Sorter::cuda().unwrap().cuda_context().unwrap().new_stream().unwrap();
    let stream = s.cu_stream().cast();
    assert_eq!(unsafe { gpusort_prepare(h.0) }, GPUSORT_OK);
    for n in [2usize, 1000, 300_007] {
        let mut x = n as u64;
        let keys: Vec<u64> = (0..n)
            .map(|_| {
                x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                x >> 24
            })
            .collect();
        let values: Vec<u32> = (0..n as u32).collect();
        for (order, ord) in [(Order::Ascending, GPUSORT_ASCENDING), (Order::Descending, GPUSORT_DESCENDING)] {
            let want = Sorter::cpu().with_order(order).argsort(&keys).unwrap();
            let need = |call| {
                let mut bytes = 0;
                let st = unsafe { gpusort_device_scratch_bytes(h.0, call, GPUSORT_KEY_U64, n, ord, 0, &mut bytes) };
                assert_eq!(st, GPUSORT_OK);
                bytes
            };
            // Pairs: the values are positions, so they come out as the argsort.
            let bytes = need(GPUSORT_CALL_PAIRS);
            let (dk, dv, scratch) = (
                s.clone_htod(&keys).unwrap(),
                s.clone_htod(&values).unwrap(),
                s.alloc_zeros::<u8>(bytes.max(1)).unwrap(),
            );
            let (kp, vp, sp) = (addr(&dk, &s), addr(&dv, &s).cast(), addr(&scratch, &s));
            if bytes > 0 {
                let st = unsafe {
                    gpusort_sort_device_pairs_scratch(h.0, GPUSORT_KEY_U64, kp, vp, n, ord, 0, sp, bytes - 1, stream)
                };
                assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "one byte short");
                assert_eq!(s.clone_dtoh(&dk).unwrap(), keys, "a refused sort wrote");
            }
            let st = unsafe {
                gpusort_sort_device_pairs_scratch(h.0, GPUSORT_KEY_U64, kp, vp, n, ord, 0, sp, bytes, stream)
            };
            assert_eq!(st, GPUSORT_OK, "pairs n={n} {order:?}");
            assert_eq!(s.clone_dtoh(&dv).unwrap(), want, "pairs n={n} {order:?}");
            let st =
                unsafe { gpusort_sort_device_keys_scratch(h.0, GPUSORT_KEY_U64, kp, n, ord, 0, kp, bytes, stream) };
            assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "scratch over the keys");
            // Keys.
            let bytes = need(GPUSORT_CALL_KEYS);
            let (dk, scratch) = (s.clone_htod(&keys).unwrap(), s.alloc_zeros::<u8>(bytes.max(1)).unwrap());
            let st = unsafe {
                gpusort_sort_device_keys_scratch(
                    h.0,
                    GPUSORT_KEY_U64,
                    addr(&dk, &s),
                    n,
                    ord,
                    0,
                    addr(&scratch, &s),
                    bytes,
                    stream,
                )
            };
            assert_eq!(st, GPUSORT_OK);
            let sorted: Vec<u64> = want.iter().map(|&i| keys[i as usize]).collect();
            assert_eq!(s.clone_dtoh(&dk).unwrap(), sorted, "keys n={n} {order:?}");
            // Argsort into u64 indices.
            let bytes = need(GPUSORT_CALL_ARGSORT);
            let (dk, out, scratch) = (
                s.clone_htod(&keys).unwrap(),
                s.alloc_zeros::<u64>(n).unwrap(),
                s.alloc_zeros::<u8>(bytes.max(1)).unwrap(),
            );
            let st = unsafe {
                gpusort_argsort_device_scratch(
                    h.0,
                    GPUSORT_KEY_U64,
                    addr(&dk, &s),
                    n,
                    addr(&out, &s),
                    ord,
                    addr(&scratch, &s),
                    bytes,
                    stream,
                )
            };
            assert_eq!(st, GPUSORT_OK);
            let want64: Vec<u64> = want.iter().map(|&i| i as u64).collect();
            assert_eq!(s.clone_dtoh(&out).unwrap(), want64, "argsort n={n} {order:?}");
        }
    }
}
