//! Arrays owned by other libraries: device memory that PyTorch, CuPy or the caller's own CUDA code
//! allocated, sorted in place on a stream that library owns, both given as raw driver handles.
//!
//! gpusort works in the device's primary context, the one the CUDA runtime (and so PyTorch and
//! CuPy) uses, so their pointers and streams are valid here as they are. Nothing is trusted that
//! the driver can check: each pointer must be device memory of this sorter's device, aligned for
//! its type, with the whole array inside one allocation, and the stream must belong to this
//! context. The memory is wrapped for the length of one call and never freed by gpusort. The
//! public calls are in `sorter/foreign.rs`; each function here does the work of one of them.

mod argsort;
mod lexsort;
mod segments;

pub(crate) use argsort::argsort_foreign;
pub(crate) use lexsort::lexsort_foreign;
pub(crate) use segments::sort_foreign_segments;

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemorytype, CUpointer_attribute, CUstream};
use cudarc::driver::{CudaStream, DeviceRepr};

use super::device::KeepCurrent;
use super::device_calls::{holds, Lent};
use super::dispatch::DeviceSort;
use super::key_class::CudaKey;
use super::scratch::{Arena, Borrowed, Scratch};
use super::{gpu, CudaBackend, Gpu};
use crate::{Key, KeyType, Order, SortError, Sorter};

/// [`Sorter::sort_foreign_keys`]'s work, once its arguments are here.
///
/// # Safety
/// As [`Sorter::sort_foreign_keys`].
pub(crate) unsafe fn sort_foreign_keys(
    sorter: &Sorter,
    keys: CUdeviceptr,
    len: usize,
    key_type: KeyType,
    stream: CUstream,
    lent: Lent,
) -> Result<(), SortError> {
    let order = sorter.order();
    if len < 2 {
        return Ok(());
    }
    let mut target = Target::open(sorter, stream)?;
    target.check_array(keys, len, key_type.size(), "keys")?;
    target.lend(lent, &[(keys, len * key_type.size(), "keys")])?;
    crate::with_key_type!(key_type, K => target.keys::<K>(keys, len, order))
}

/// [`Sorter::sort_foreign_pairs`]'s work, once its arguments are here.
///
/// # Safety
/// As [`Sorter::sort_foreign_pairs`].
pub(crate) unsafe fn sort_foreign_pairs(
    sorter: &Sorter,
    keys: CUdeviceptr,
    values: CUdeviceptr,
    len: usize,
    key_type: KeyType,
    stream: CUstream,
    lent: Lent,
) -> Result<(), SortError> {
    let order = sorter.order();
    if len < 2 {
        return Ok(());
    }
    let mut target = Target::open(sorter, stream)?;
    target.check_array(keys, len, key_type.size(), "keys")?;
    target.check_array(values, len, 4, "values")?;
    // The byte lengths cannot overflow: `check_array` accepted them.
    let arrays = [(keys, len * key_type.size(), "key"), (values, len * 4, "value")];
    disjoint(&arrays)?;
    target.lend(lent, &arrays)?;
    crate::with_key_type!(key_type, K => target.pairs::<K>(keys, values, len, order))
}

/// [`Sorter::top_k_foreign`]'s work, once its arguments are here.
///
/// # Safety
/// As [`Sorter::top_k_foreign`].
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn top_k_foreign(
    sorter: &Sorter,
    keys: CUdeviceptr,
    len: usize,
    key_type: KeyType,
    k: usize,
    out_keys: CUdeviceptr,
    out_indices: CUdeviceptr,
    stream: CUstream,
    lent: Lent,
) -> Result<(), SortError> {
    if k > len || k > u32::MAX as usize {
        return Err(SortError::InvalidArgument(format!(
            "top {k} of {len} keys: k runs from 0 to the number of keys, below 2^32"
        )));
    }
    if k == 0 {
        return Ok(());
    }
    let size = key_type.size();
    let mut target = Target::open(sorter, stream)?;
    target.check_array(keys, len, size, "keys")?;
    target.check_array(out_keys, k, size, "out_keys")?;
    target.check_array(out_indices, k, 8, "out_indices")?;
    // The byte lengths cannot overflow: `check_array` accepted them.
    let arrays = [(keys, len * size, "keys"), (out_keys, k * size, "out_keys"), (out_indices, k * 8, "out_indices")];
    disjoint(&arrays)?;
    target.lend(lent, &arrays)?;
    let out = (out_keys, out_indices);
    let order = sorter.order();
    crate::with_key_type!(key_type, K => target.top_k::<K>(keys, len, k, out, order))
}

/// `InvalidArgument` naming the first two of `arrays` (address, bytes, name) that share a byte;
/// an empty array shares none.
fn disjoint(arrays: &[(CUdeviceptr, usize, &str)]) -> Result<(), SortError> {
    for (i, &(a, a_bytes, a_name)) in arrays.iter().enumerate() {
        for &(b, b_bytes, b_name) in &arrays[i + 1..] {
            if a_bytes > 0 && b_bytes > 0 && a < b + b_bytes as u64 && b < a + a_bytes as u64 {
                return Err(SortError::InvalidArgument(format!("the {a_name} and {b_name} arrays overlap")));
            }
        }
    }
    Ok(())
}

/// The device, its context bound to this thread, and the caller's stream, checked.
struct Target {
    gpu: Arc<Gpu>,
    stream: Arc<CudaStream>,
    algorithm: crate::Algorithm,
    /// The caller's scratch buffer, where the call was given one.
    arena: Option<Arena>,
    /// The same buffer as the caller gave it (address, bytes).
    lent: Lent,
    /// Dropped last (fields drop in order): the caller's context comes back after the work.
    _restore: KeepCurrent,
}

impl Target {
    /// # Safety
    /// `stream` as in [`Sorter::sort_foreign_keys`].
    unsafe fn open(sorter: &Sorter, stream: CUstream) -> Result<Target, SortError> {
        let Some(ctx) = sorter.cuda_context() else {
            return Err(SortError::Unsupported {
                backend: "cpu",
                what: format!("device arrays need a CUDA device; this sorter is {}", sorter.describe()),
            });
        };
        // The process-wide device of this ordinal, the one the sorter holds; `NoDevice` in a
        // forked child before any driver call.
        let gpu = gpu(ctx.ordinal())?;
        let restore = KeepCurrent::save(Some(gpu.ctx.cu_ctx()))?;
        gpu.ctx.bind_to_thread().map_err(SortError::driver("cuCtxSetCurrent", 0))?;
        let mut owner: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: writes one handle; special stream handles resolve to the current context.
        unsafe { sys::cuStreamGetCtx(stream, &mut owner) }.result().map_err(|e| {
            SortError::InvalidArgument(format!("the stream handle {stream:p} is not a usable CUDA stream: {e}"))
        })?;
        if owner != gpu.ctx.cu_ctx() {
            return Err(SortError::InvalidArgument(format!(
                "the stream {stream:p} belongs to another CUDA context than device {}'s primary context",
                gpu.ordinal
            )));
        }
        // SAFETY: the stream is live in this context (the caller's contract, checked above as far
        // as the driver can); the wrapper never destroys it.
        let wrapped = unsafe { gpu.ctx.wrap_borrowed_stream(stream) };
        gpu.ready_for(&wrapped)?;
        Ok(Target { gpu, stream: wrapped, algorithm: sorter.algorithm(), arena: None, lent: None, _restore: restore })
    }

    /// Takes the call's scratch from the caller's buffer `lent`, checked as an array of bytes
    /// and against the call's other `arrays` (address, bytes, name), none of which it may touch.
    fn lend(&mut self, lent: Lent, arrays: &[(CUdeviceptr, usize, &str)]) -> Result<(), SortError> {
        let Some((at, bytes)) = lent else { return Ok(()) };
        if bytes > 0 {
            self.check_array(at, bytes, 1, "scratch")?;
            let mut all = arrays.to_vec();
            all.push((at, bytes, "scratch"));
            disjoint(&all)?;
        }
        self.arena = Some(Arena::new(at, bytes));
        self.lent = lent;
        Ok(())
    }

    fn sort(&self, order: Order) -> DeviceSort<'_> {
        DeviceSort { scratch: Scratch::of(self.arena.as_ref()), ..DeviceSort::new(&self.gpu, order, self.algorithm) }
    }

    /// Asks the driver what `ptr` is; refuses anything but `len` aligned items of device memory of
    /// this device inside one allocation.
    fn check_array(&self, ptr: CUdeviceptr, len: usize, size: usize, what: &str) -> Result<(), SortError> {
        let bad = |why: String| Err(SortError::InvalidArgument(format!("{what} at {ptr:#x}: {why}")));
        let Some(bytes) = len.checked_mul(size).filter(|b| ptr.checked_add(*b as u64).is_some()) else {
            return bad(format!("{len} items of {size} bytes do not fit the address space"));
        };
        if ptr == 0 || !ptr.is_multiple_of(size as u64) {
            return bad(format!("not a device address aligned to {size} bytes"));
        }
        let (mut mem_type, mut ordinal, mut start, mut range) = (0u32, -1i32, 0u64, 0usize);
        let mut attributes = [
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_START_ADDR,
            CUpointer_attribute::CU_POINTER_ATTRIBUTE_RANGE_SIZE,
        ];
        let mut data: [*mut c_void; 4] = [
            (&mut mem_type as *mut u32).cast(),
            (&mut ordinal as *mut i32).cast(),
            (&mut start as *mut u64).cast(),
            (&mut range as *mut usize).cast(),
        ];
        // SAFETY: each slot points at a local of the type the driver writes for its attribute
        // (unsigned int, int, CUdeviceptr, size_t). An address the driver does not know is no
        // error: the attributes stay zero.
        unsafe { sys::cuPointerGetAttributes(4, attributes.as_mut_ptr(), data.as_mut_ptr(), ptr) }
            .result()
            .map_err(SortError::driver("cuPointerGetAttributes", 0))?;
        let device = CUmemorytype::CU_MEMORYTYPE_DEVICE as u32;
        let unified = CUmemorytype::CU_MEMORYTYPE_UNIFIED as u32;
        if mem_type == CUmemorytype::CU_MEMORYTYPE_HOST as u32 {
            return bad("pinned host memory; pass host arrays to the host sorts".into());
        }
        if mem_type != device && mem_type != unified {
            return bad("not CUDA device memory".into());
        }
        if ordinal != self.gpu.ordinal as i32 {
            return bad(format!("memory of device {ordinal}, but this sorter uses device {}", self.gpu.ordinal));
        }
        // A driver that reports no range (size 0) leaves the bound unchecked.
        if range > 0 && (ptr < start || ptr - start + bytes as u64 > range as u64) {
            return bad(format!("{len} items run past the end of the allocation ({range} bytes from {start:#x})"));
        }
        Ok(())
    }

    fn keys<K: CudaKey>(&self, ptr: CUdeviceptr, len: usize, order: Order) -> Result<(), SortError> {
        // SAFETY: checked by `check_array`; live and unshared until the sort ends (caller's contract).
        let mut keys = unsafe { Borrowed::<K>::new(&self.stream, ptr, len) };
        let sort = self.sort(order);
        holds(self.arena.as_ref(), || K::device_need(&sort, len, false))?;
        super::lowmem::sort_keys(&sort, &self.stream, &mut keys, self.arena.is_none())
    }

    fn pairs<K: CudaKey>(&self, kp: CUdeviceptr, vp: CUdeviceptr, len: usize, order: Order) -> Result<(), SortError> {
        // SAFETY: as in `keys`, for both arrays, which do not overlap (checked by the caller).
        let (mut keys, mut values) =
            unsafe { (Borrowed::<K>::new(&self.stream, kp, len), Borrowed::<u32>::new(&self.stream, vp, len)) };
        let sort = self.sort(order);
        holds(self.arena.as_ref(), || K::device_need(&sort, len, true))?;
        K::device(&sort, &self.stream, &mut keys, Some(&mut values))
    }

    /// The selection straight into the caller's outputs, on the caller's scratch where given.
    fn top_k<K: Key + DeviceRepr>(
        &self,
        ptr: CUdeviceptr,
        len: usize,
        k: usize,
        (out_keys, out_indices): (CUdeviceptr, CUdeviceptr),
        order: Order,
    ) -> Result<(), SortError> {
        // SAFETY: checked by `check_array`; the keys only read, and all three live and unshared
        // (but for reads of the keys) until the work ends (caller's contract); none overlaps
        // another (checked by the caller).
        let (keys, mut dst_keys, mut dst_indices) = unsafe {
            (
                Borrowed::<K>::new(&self.stream, ptr, len),
                Borrowed::<K>::new(&self.stream, out_keys, k),
                Borrowed::<u64>::new(&self.stream, out_indices, k),
            )
        };
        // The limits of a backend bound host sorts only; a device top-k reads none of them.
        let backend = CudaBackend::on(self.gpu.clone());
        backend.top_k_device_into(&self.stream, &keys, order, (&mut dst_keys, &mut dst_indices), self.lent)
    }
}

#[cfg(test)]
mod tests {
    //! The checks that need no GPU run everywhere; the rest skip without a device (the Python
    //! package's device tests cover PyTorch and CuPy arrays on the GPU machine).
    use super::*;
    use cudarc::driver::{DevicePtr, DevicePtrMut, ValidAsZeroBits};
    use gpusort_cpu::check;

    /// A `cuda()` sorter, or `None` (the test skips) without a GPU unless `GPUSORT_REQUIRE_GPU=1`.
    pub(super) fn cuda() -> Option<Sorter> {
        match Sorter::cuda() {
            Ok(s) => Some(s),
            Err(e) if std::env::var("GPUSORT_REQUIRE_GPU").as_deref() != Ok("1") => {
                use std::io::Write;
                let _ = writeln!(std::io::stderr(), "skipped: no CUDA device ({e})");
                None
            }
            Err(e) => panic!("GPUSORT_REQUIRE_GPU=1 but no CUDA device: {e}"),
        }
    }

    #[test]
    fn a_cpu_sorter_refuses_device_arrays_and_short_arrays_need_nothing() {
        let cpu = Sorter::cpu();
        let r = unsafe { cpu.sort_foreign_keys(0x1000, 10, KeyType::U32, std::ptr::null_mut()) };
        assert!(matches!(r, Err(SortError::Unsupported { .. })), "{r:?}");
        for len in [0, 1] {
            let r = unsafe { cpu.sort_foreign_pairs(0, 0, len, KeyType::U64, std::ptr::null_mut()) };
            assert!(r.is_ok());
        }
    }

    /// A caller-owned stream and caller-owned buffers, as PyTorch would have them.
    #[test]
    fn foreign_buffers_sort_on_the_callers_stream() {
        let Some(sorter) = cuda() else { return };
        let ctx = sorter.cuda_context().unwrap();
        let stream = ctx.new_stream().unwrap();
        let n = 100_003usize;
        let keys: Vec<f32> = (0..n).map(|i| ((i * 7919) % 1000) as f32 - 500.0).collect();
        let values: Vec<u32> = (0..n as u32).collect();
        let dk = stream.clone_htod(&keys).unwrap();
        let dv = stream.clone_htod(&values).unwrap();
        let (kp, _g1) = dk.device_ptr(&stream);
        let (vp, _g2) = dv.device_ptr(&stream);
        for order in [Order::Ascending, Order::Descending] {
            unsafe { sorter.clone().with_order(order).sort_foreign_pairs(kp, vp, n, KeyType::F32, stream.cu_stream()) }
                .unwrap();
            let (k, v) = (stream.clone_dtoh(&dk).unwrap(), stream.clone_dtoh(&dv).unwrap());
            stream.synchronize().unwrap();
            check::validate_keys(&keys, &k, order).unwrap_or_else(|e| panic!("{order:?}: {e}"));
            assert!(k.iter().zip(&v).all(|(&k, &v)| k == keys[v as usize]), "values left their keys");
        }
        let mut u: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
        let du = stream.clone_htod(&u).unwrap();
        let (up, _g3) = du.device_ptr(&stream);
        unsafe { sorter.sort_foreign_keys(up, n, KeyType::U32, stream.cu_stream()) }.unwrap();
        let got = stream.clone_dtoh(&du).unwrap();
        stream.synchronize().unwrap();
        u.sort_unstable();
        assert_eq!(got, u);
    }

    #[test]
    fn bad_pointers_and_streams_are_refused_before_any_work() {
        let Some(sorter) = cuda() else { return };
        let ctx = sorter.cuda_context().unwrap();
        let stream = ctx.new_stream().unwrap();
        let d = stream.clone_htod(&[3u32, 2, 1, 0]).unwrap();
        let (p, _g) = d.device_ptr(&stream);
        let s = stream.cu_stream();
        let host = [0u32; 16];
        let bad = [
            (host.as_ptr() as u64, 4, "host memory"),
            (p + 2, 2, "misaligned"),
            (p, 1 << 30, "past the end"),
            (p + 4, 4, "past the end by one"),
        ];
        for (ptr, len, why) in bad {
            let r = unsafe { sorter.sort_foreign_keys(ptr, len, KeyType::U32, s) };
            assert!(matches!(r, Err(SortError::InvalidArgument(_))), "{why}: {r:?}");
        }
        let r = unsafe { sorter.sort_foreign_pairs(p, p, 4, KeyType::U32, s) };
        assert!(matches!(r, Err(SortError::InvalidArgument(_))), "overlap: {r:?}");
        assert_eq!(stream.clone_dtoh(&d).unwrap(), [3, 2, 1, 0], "untouched");
    }

    #[test]
    fn top_k_refuses_k_past_the_keys_before_looking_at_anything() {
        let cpu = Sorter::cpu();
        let null = std::ptr::null_mut();
        for (len, k) in [(10, 11), (0, 1), (1 << 33, 1 << 32)] {
            let r = unsafe { cpu.top_k_foreign(0x1000, len, KeyType::F64, k, 0, 0, null) };
            assert!(matches!(r, Err(SortError::InvalidArgument(_))), "top {k} of {len}: {r:?}");
        }
        assert!(unsafe { cpu.top_k_foreign(0, 0, KeyType::U32, 0, 0, 0, null) }.is_ok(), "k = 0");
        let r = unsafe { cpu.top_k_foreign(0x1000, 10, KeyType::U32, 1, 0x2000, 0x3000, null) };
        assert!(matches!(r, Err(SortError::Unsupported { .. })), "{r:?}");
    }

    /// Keys as their bytes: NaNs compare by sign and payload, -0.0 differs from 0.0.
    fn bits<K: Key>(v: &[K]) -> Vec<u8> {
        // SAFETY: the key types are plain numbers, without padding.
        unsafe { std::slice::from_raw_parts(v.as_ptr().cast::<u8>(), std::mem::size_of_val(v)) }.to_vec()
    }

    /// The first `k` of each length and order, against the host top-k, bit for bit.
    fn top_k_matches_the_host<K: Key + DeviceRepr + ValidAsZeroBits>(sorter: &Sorter, key_type: KeyType, pool: &[K]) {
        let stream = sorter.cuda_context().unwrap().new_stream().unwrap();
        for n in [1usize, 2, 1000, 70_001] {
            let keys: Vec<K> = (0..n).map(|i| pool[(i * 7919 + i / 3) % pool.len()]).collect();
            let dk = stream.clone_htod(&keys).unwrap();
            for k in [1, 2, n / 2, n - 1, n].into_iter().filter(|k| (1..=n).contains(k)) {
                for order in [Order::Ascending, Order::Descending] {
                    let s = sorter.clone().with_order(order);
                    let (mut ok, mut oi) = (stream.alloc_zeros::<K>(k).unwrap(), stream.alloc_zeros::<u64>(k).unwrap());
                    {
                        let (kp, _g) = dk.device_ptr(&stream);
                        let (okp, _g1) = ok.device_ptr_mut(&stream);
                        let (oip, _g2) = oi.device_ptr_mut(&stream);
                        unsafe { s.top_k_foreign(kp, n, key_type, k, okp, oip, stream.cu_stream()) }.unwrap();
                    }
                    let want = Sorter::cpu().with_order(order).top_k(&keys, k).unwrap();
                    let what = format!("{key_type:?} top {k} of {n}, {order:?}");
                    assert_eq!(stream.clone_dtoh(&oi).unwrap(), want.indices, "{what}");
                    assert_eq!(bits(&stream.clone_dtoh(&ok).unwrap()), bits(&want.keys), "{what}");
                }
            }
            assert_eq!(bits(&stream.clone_dtoh(&dk).unwrap()), bits(&keys), "the keys changed");
        }
    }

    #[test]
    fn top_k_into_foreign_buffers_matches_the_host_top_k() {
        let Some(sorter) = cuda() else { return };
        top_k_matches_the_host(&sorter, KeyType::U32, &[5u32, 0, u32::MAX, 5, 17, 3]);
        top_k_matches_the_host(&sorter, KeyType::I64, &[i64::MIN, -1, 0, 7, i64::MAX, 7]);
        let f = [f32::NAN, -f32::NAN, -0.0, 0.0, 1.5, f32::NEG_INFINITY, 1.5, f32::INFINITY];
        top_k_matches_the_host(&sorter, KeyType::F32, &f);
        let d = [f64::NAN, -0.0, 0.0, -f64::NAN, 2.5, -1e300, 2.5, f64::MIN_POSITIVE];
        top_k_matches_the_host(&sorter, KeyType::F64, &d);
    }

    #[test]
    fn top_k_refuses_bad_outputs_untouched() {
        let Some(sorter) = cuda() else { return };
        let stream = sorter.cuda_context().unwrap().new_stream().unwrap();
        let keys = stream.clone_htod(&[3u32, 2, 1, 0, 9, 8, 7, 6]).unwrap();
        let out = stream.clone_htod(&[u64::MAX; 8]).unwrap();
        let (p, _g) = keys.device_ptr(&stream);
        let (o, _g1) = out.device_ptr(&stream);
        let host = [0u64; 8];
        let h = host.as_ptr() as u64;
        // (out_keys, out_indices, k) against the 8 keys at p.
        let bad = [
            (h, o, 2, "out_keys in host memory"),
            (o, h, 2, "out_indices in host memory"),
            (o + 2, o + 32, 2, "out_keys misaligned"),
            (o, o + 36, 2, "out_indices misaligned"),
            (o + 60, o, 2, "out_keys past the end"),
            (o, o + 40, 4, "out_indices past the end"),
            (p + 8, o, 2, "out_keys over the keys"),
            (o, p + 16, 2, "out_indices over the keys"),
            (o, o + 8, 3, "out_keys over out_indices"),
            (o + 16, o, 4, "out_indices over out_keys"),
        ];
        for (ok, oi, k, why) in bad {
            let r = unsafe { sorter.top_k_foreign(p, 8, KeyType::U32, k, ok, oi, stream.cu_stream()) };
            assert!(matches!(r, Err(SortError::InvalidArgument(_))), "{why}: {r:?}");
        }
        let r = unsafe { sorter.top_k_foreign(p + 4, 8, KeyType::U32, 1, o, o + 8, stream.cu_stream()) };
        assert!(matches!(r, Err(SortError::InvalidArgument(_))), "keys past the end: {r:?}");
        let r = unsafe { sorter.top_k_foreign(p, 8, KeyType::U32, 0, h, 0, stream.cu_stream()) };
        assert!(r.is_ok(), "k = 0 looks at nothing: {r:?}");
        assert_eq!(stream.clone_dtoh(&keys).unwrap(), [3, 2, 1, 0, 9, 8, 7, 6], "keys untouched");
        assert_eq!(stream.clone_dtoh(&out).unwrap(), [u64::MAX; 8], "outputs untouched");
    }
}
