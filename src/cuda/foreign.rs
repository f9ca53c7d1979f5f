//! Arrays owned by other libraries: device memory that PyTorch, CuPy or the caller's own CUDA code
//! allocated, sorted in place on a stream that library owns, both given as raw driver handles.
//!
//! gpusort works in the device's primary context, the one the CUDA runtime (and so PyTorch and
//! CuPy) uses, so their pointers and streams are valid here as they are. Nothing is trusted that
//! the driver can check: each pointer must be device memory of this sorter's device, aligned for
//! its type, with the whole array inside one allocation, and the stream must belong to this
//! context. The memory is wrapped for the length of one call and never freed by gpusort.

use std::ffi::c_void;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::sync::Arc;

use cudarc::driver::sys::{self, CUdeviceptr, CUmemorytype, CUpointer_attribute, CUstream};
use cudarc::driver::{CudaSlice, CudaStream};

use super::dispatch::{DeviceItem, DeviceSort};
use super::radix::RadixKey;
use super::{gpu, Gpu};
use crate::{Order, SortError, Sorter};

/// The key type of a device array given by address to [`Sorter::sort_foreign_keys`] and
/// [`Sorter::sort_foreign_pairs`]: the types [`Sorter::sort_keys`] takes on the host.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceKeyType {
    /// `u32` keys.
    U32,
    /// `i32` keys.
    I32,
    /// `f32` keys, ordered as [`f32::total_cmp`] orders them, as on the host.
    F32,
    /// `u64` keys.
    U64,
    /// `i64` keys.
    I64,
    /// `f64` keys, ordered as [`f64::total_cmp`] orders them, as on the host.
    F64,
}

impl DeviceKeyType {
    /// Bytes per key.
    pub fn size(self) -> usize {
        match self {
            DeviceKeyType::U64 | DeviceKeyType::I64 | DeviceKeyType::F64 => 8,
            DeviceKeyType::U32 | DeviceKeyType::I32 | DeviceKeyType::F32 => 4,
        }
    }
}

impl Sorter {
    /// Sorts `len` keys of type `key_type` at device address `keys`, in place, in the sorter's order
    /// ([`Sorter::with_order`]), on the caller's `stream`. Returns once the work is queued, as the `*_device` methods do: work the
    /// caller queues later on `stream` sees the sorted keys. Uses this sorter's device whatever
    /// its policy (the data is there already); `Unsupported` for a sorter without one (or in a
    /// forked child, `NoDevice`). Fewer than two keys: `Ok` at once, nothing checked.
    ///
    /// `InvalidArgument`, before any work is queued, when the driver says `keys` is not device
    /// memory of this sorter's device, is not aligned to the key size, or `len` keys run past the
    /// end of its allocation, or when `stream` belongs to another context.
    ///
    /// # Safety
    ///
    /// - `keys` must stay allocated, and be read or written by nothing else, until the sort queued
    ///   on `stream` has finished (the caller orders its other streams after `stream`).
    /// - `stream` must be a live stream of this device's primary context, or one of the special
    ///   handles null (legacy default stream), `CU_STREAM_LEGACY` (1) or `CU_STREAM_PER_THREAD`
    ///   (2): the driver cannot tell a destroyed or made-up stream handle from a live one.
    pub unsafe fn sort_foreign_keys(
        &self,
        keys: CUdeviceptr,
        len: usize,
        key_type: DeviceKeyType,
        stream: CUstream,
    ) -> Result<(), SortError> {
        let order = self.order();
        if len < 2 {
            return Ok(());
        }
        let target = Target::open(self, stream)?;
        target.check_array(keys, len, key_type.size(), "keys")?;
        match key_type {
            DeviceKeyType::U32 => target.keys::<u32>(keys, len, order),
            DeviceKeyType::I32 => target.keys::<i32>(keys, len, order),
            DeviceKeyType::F32 => target.keys::<f32>(keys, len, order),
            DeviceKeyType::U64 => target.keys::<u64>(keys, len, order),
            DeviceKeyType::I64 => target.keys::<i64>(keys, len, order),
            DeviceKeyType::F64 => target.keys::<f64>(keys, len, order),
        }
    }

    /// Sorts `len` keys at `keys` and the `u32` values at `values` by key, in place, values moving
    /// with their keys, stably (radix; other algorithms are `Unsupported` for split arrays), on
    /// the caller's `stream`. Checks, errors and return as [`Sorter::sort_foreign_keys`]; also
    /// `InvalidArgument` when the two arrays overlap.
    ///
    /// # Safety
    ///
    /// As [`Sorter::sort_foreign_keys`], for both arrays.
    pub unsafe fn sort_foreign_pairs(
        &self,
        keys: CUdeviceptr,
        values: CUdeviceptr,
        len: usize,
        key_type: DeviceKeyType,
        stream: CUstream,
    ) -> Result<(), SortError> {
        let order = self.order();
        if len < 2 {
            return Ok(());
        }
        let target = Target::open(self, stream)?;
        target.check_array(keys, len, key_type.size(), "keys")?;
        target.check_array(values, len, 4, "values")?;
        let (kb, vb) = (len as u64 * key_type.size() as u64, len as u64 * 4);
        if keys < values + vb && values < keys + kb {
            return Err(SortError::InvalidArgument("the key and value arrays overlap".into()));
        }
        match key_type {
            DeviceKeyType::U32 => target.pairs::<u32>(keys, values, len, order),
            DeviceKeyType::I32 => target.pairs::<i32>(keys, values, len, order),
            DeviceKeyType::F32 => target.pairs::<f32>(keys, values, len, order),
            DeviceKeyType::U64 => target.pairs::<u64>(keys, values, len, order),
            DeviceKeyType::I64 => target.pairs::<i64>(keys, values, len, order),
            DeviceKeyType::F64 => target.pairs::<f64>(keys, values, len, order),
        }
    }
}

/// The device, its context bound to this thread, and the caller's stream, checked.
struct Target {
    gpu: Arc<Gpu>,
    stream: Arc<CudaStream>,
    algorithm: crate::Algorithm,
    /// Dropped last (fields drop in order): the caller's context comes back after the work.
    _restore: Restore,
}

/// The thread's current context before the call (null for none) when it was not ours, put back
/// on drop: the CUDA runtime derives the caller's current device from it, and a sort on device 1
/// must not move a PyTorch thread working on device 0.
struct Restore(Option<sys::CUcontext>);

impl Drop for Restore {
    fn drop(&mut self) {
        if let Some(ctx) = self.0 {
            // SAFETY: a context that was current on this thread at the start of the call (or null).
            let _ = unsafe { cudarc::driver::result::ctx::set_current(ctx) };
        }
    }
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
        let current = cudarc::driver::result::ctx::get_current().map_err(SortError::driver("cuCtxGetCurrent", 0))?;
        let restore = Restore(match current {
            Some(c) if c == gpu.ctx.cu_ctx() => None,
            other => Some(other.unwrap_or(std::ptr::null_mut())),
        });
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
        Ok(Target { gpu, stream: wrapped, algorithm: sorter.algorithm(), _restore: restore })
    }

    fn sort(&self, order: Order) -> DeviceSort<'_> {
        DeviceSort { gpu: &self.gpu, order, algorithm: self.algorithm }
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

    fn keys<K: DeviceItem>(&self, ptr: CUdeviceptr, len: usize, order: Order) -> Result<(), SortError> {
        // SAFETY: checked by `check_array`; live and unshared until the sort ends (caller's contract).
        let mut keys = unsafe { Borrowed::<K>::new(&self.stream, ptr, len) };
        self.sort(order).run(&self.stream, &mut keys)
    }

    fn pairs<K: RadixKey>(&self, kp: CUdeviceptr, vp: CUdeviceptr, len: usize, order: Order) -> Result<(), SortError> {
        // SAFETY: as in `keys`, for both arrays, which do not overlap (checked by the caller).
        let (mut keys, mut values) =
            unsafe { (Borrowed::<K>::new(&self.stream, kp, len), Borrowed::<u32>::new(&self.stream, vp, len)) };
        self.sort(order).run_pairs(&self.stream, &mut keys, &mut values)
    }
}

/// Another library's allocation seen as a `CudaSlice` for one call: leaked on drop (even when
/// unwinding), never freed, as its owner frees it.
struct Borrowed<T>(ManuallyDrop<CudaSlice<T>>);

impl<T> Borrowed<T> {
    /// # Safety
    /// `len` items of `T` at `ptr` in `stream`'s context, live and unshared while this exists.
    unsafe fn new(stream: &Arc<CudaStream>, ptr: CUdeviceptr, len: usize) -> Borrowed<T> {
        Borrowed(ManuallyDrop::new(unsafe { stream.upgrade_device_ptr(ptr, len) }))
    }
}

impl<T> Drop for Borrowed<T> {
    fn drop(&mut self) {
        // SAFETY: taken once, here; `leak` drops the wrapper's events and stream handle only.
        let _ = unsafe { ManuallyDrop::take(&mut self.0) }.leak();
    }
}

impl<T> Deref for Borrowed<T> {
    type Target = CudaSlice<T>;
    fn deref(&self) -> &CudaSlice<T> {
        &self.0
    }
}

impl<T> DerefMut for Borrowed<T> {
    fn deref_mut(&mut self) -> &mut CudaSlice<T> {
        &mut self.0
    }
}

#[cfg(test)]
mod tests {
    //! The checks that need no GPU run everywhere; the rest skip without a device (the Python
    //! package's device tests cover PyTorch and CuPy arrays on the GPU machine).
    use super::*;
    use cudarc::driver::DevicePtr;
    use gpusort_cpu::check;

    fn cuda() -> Option<Sorter> {
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
        let r = unsafe { cpu.sort_foreign_keys(0x1000, 10, DeviceKeyType::U32, std::ptr::null_mut()) };
        assert!(matches!(r, Err(SortError::Unsupported { .. })), "{r:?}");
        for len in [0, 1] {
            let r = unsafe { cpu.sort_foreign_pairs(0, 0, len, DeviceKeyType::U64, std::ptr::null_mut()) };
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
            unsafe {
                sorter.clone().with_order(order).sort_foreign_pairs(kp, vp, n, DeviceKeyType::F32, stream.cu_stream())
            }
            .unwrap();
            let (k, v) = (stream.clone_dtoh(&dk).unwrap(), stream.clone_dtoh(&dv).unwrap());
            stream.synchronize().unwrap();
            check::validate_keys(&keys, &k, order).unwrap_or_else(|e| panic!("{order:?}: {e}"));
            assert!(k.iter().zip(&v).all(|(&k, &v)| k == keys[v as usize]), "values left their keys");
        }
        let mut u: Vec<u32> = (0..n as u32).map(|i| i.wrapping_mul(2654435761)).collect();
        let du = stream.clone_htod(&u).unwrap();
        let (up, _g3) = du.device_ptr(&stream);
        unsafe { sorter.sort_foreign_keys(up, n, DeviceKeyType::U32, stream.cu_stream()) }.unwrap();
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
            let r = unsafe { sorter.sort_foreign_keys(ptr, len, DeviceKeyType::U32, s) };
            assert!(matches!(r, Err(SortError::InvalidArgument(_))), "{why}: {r:?}");
        }
        let r = unsafe { sorter.sort_foreign_pairs(p, p, 4, DeviceKeyType::U32, s) };
        assert!(matches!(r, Err(SortError::InvalidArgument(_))), "overlap: {r:?}");
        assert_eq!(stream.clone_dtoh(&d).unwrap(), [3, 2, 1, 0], "untouched");
    }
}
