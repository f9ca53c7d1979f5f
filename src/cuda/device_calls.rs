//! The device-resident calls of one device: the caller's buffers and stream, scratch from the
//! pool or lent by the caller (`scratch.rs`), and the device prepared first, so that a call on a
//! stream being captured into a graph makes no blocking driver call.

use std::any::Any;
use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtrMut, SyncOnDrop};

use super::argsort::DevicePosition;
use super::device::is_capturing;
use super::dispatch::DeviceSort;
use super::key_class::CudaKey;
use super::lowmem;
use super::needs;
use super::scratch::{Arena, Borrowed, Scratch};
use super::CudaBackend;
use crate::{Algorithm, DeviceCall, Key, KeyType, Kvp, Order, SortError};

/// A caller's scratch buffer for one call (device address, bytes), or `None` for the pool.
pub(crate) type Lent = Option<(CUdeviceptr, usize)>;

/// How a call sees the caller's cudarc buffers. cudarc makes a stream wait for each buffer's last
/// recorded use before it touches the buffer; while `stream` captures a graph, a wait on work
/// recorded before the capture would end the capture. So then each buffer is seen anew for the
/// call, its address read on a side stream (where that wait is harmless): the graph, and the
/// caller's stream order, order the call.
pub(crate) struct Rewrap {
    side: Option<Arc<CudaStream>>,
}

impl Rewrap {
    /// The buffer anew while capturing (`None` otherwise: use it as it is).
    pub(crate) fn buffer<T>(&self, buf: &CudaSlice<T>, stream: &Arc<CudaStream>) -> Option<Borrowed<T>> {
        let side = self.side.as_ref()?;
        let (at, _read) = cudarc::driver::DevicePtr::device_ptr(buf, side.as_ref());
        // SAFETY: the caller's buffer, live and borrowed for the whole call.
        Some(unsafe { Borrowed::new(stream, at, buf.len()) })
    }

    /// The address of a buffer the call writes, with the guard that records the write (on the
    /// side stream while capturing).
    pub(crate) fn address_mut<'a, T>(
        &'a self,
        buf: &'a mut CudaSlice<T>,
        stream: &'a CudaStream,
    ) -> (CUdeviceptr, SyncOnDrop<'a>) {
        buf.device_ptr_mut(self.side.as_deref().unwrap_or(stream))
    }
}

impl CudaBackend {
    /// How a call on `stream` sees the caller's buffers (see `Rewrap`).
    pub(crate) fn rewrap(&self, stream: &CudaStream) -> Result<Rewrap, SortError> {
        self.bind()?;
        let side = match is_capturing(stream)? {
            true => Some(self.gpu.streams.get(&self.gpu.ctx)?),
            false => None,
        };
        Ok(Rewrap { side })
    }

    /// The sort of one device-resident call on `stream`: the context bound, the device prepared,
    /// scratch from `scratch`.
    fn device_call<'a>(
        &'a self,
        stream: &CudaStream,
        order: Order,
        algorithm: Algorithm,
        scratch: Scratch<'a>,
    ) -> Result<DeviceSort<'a>, SortError> {
        self.bind()?;
        self.gpu.ready_for(stream)?;
        Ok(DeviceSort { scratch, ..DeviceSort::new(&self.gpu, order, algorithm) })
    }

    pub(crate) fn sort_kvp_device(
        &self,
        stream: &Arc<CudaStream>,
        data: &mut CudaSlice<Kvp>,
        order: Order,
        algorithm: Algorithm,
        lent: Lent,
    ) -> Result<(), SortError> {
        let arena = lent.map(|(at, bytes)| Arena::new(at, bytes));
        let sort = self.device_call(stream, order, algorithm, Scratch::of(arena.as_ref()))?;
        holds(arena.as_ref(), || needs::kvp(&sort, data.len()))?;
        let mut anew = self.rewrap(stream)?.buffer(data, stream);
        let data = anew.as_deref_mut().unwrap_or(data);
        match sort.run(stream, data) {
            Err(e @ SortError::OutOfMemory { .. }) if lent.is_none() => {
                let need = |n| needs::kvp(&sort, n);
                lowmem::sort(&sort, stream, data, e, need, |s, stream, run| s.run(stream, run))
            }
            r => r,
        }
    }

    /// Keys alone (`values` `None`) or split pairs with `u32` values (radix only), keys of any
    /// class that sorts on the device (`KeyType::sorts_on_device`); the networks take `u32` keys
    /// alone here (signed and float keys reach them from the host as ordered bits).
    #[allow(clippy::too_many_arguments)] // the public call's, plus the backend's choices
    pub(crate) fn sort_keys_device<K: Key>(
        &self,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<K>,
        values: Option<&mut CudaSlice<u32>>,
        order: Order,
        algorithm: Algorithm,
        lent: Lent,
    ) -> Result<(), SortError> {
        let arena = lent.map(|(at, bytes)| Arena::new(at, bytes));
        let sort = self.device_call(stream, order, algorithm, Scratch::of(arena.as_ref()))?;
        let (n, pairs) = (keys.len(), values.is_some());
        let rewrap = self.rewrap(stream)?;
        let mut values_anew = values.as_deref().and_then(|v| rewrap.buffer(v, stream));
        let values = match values_anew.as_deref_mut() {
            Some(v) => Some(v),
            None => values,
        };
        let any = keys as &mut dyn Any;
        crate::with_key_type!(K::TYPE, T => match any.downcast_mut::<CudaSlice<T>>() {
            Some(keys) => {
                holds(arena.as_ref(), || T::device_need(&sort, n, pairs))?;
                let mut anew = rewrap.buffer(keys, stream);
                let keys = anew.as_deref_mut().unwrap_or(keys);
                match values {
                    Some(values) => T::device(&sort, stream, keys, Some(values)),
                    None => lowmem::sort_keys(&sort, stream, keys, lent.is_none()),
                }
            }
            None => Err(SortError::Unsupported { backend: "cuda", what: format!("{} keys", std::any::type_name::<K>()) }),
        })
    }

    /// The stable permutation of device-resident `keys` (only read) into `out`, on `stream`.
    pub(crate) fn argsort_device<K: Key, P: DevicePosition>(
        &self,
        stream: &Arc<CudaStream>,
        keys: &CudaSlice<K>,
        out: &mut CudaSlice<P>,
        order: Order,
        lent: Lent,
    ) -> Result<(), SortError> {
        let arena = lent.map(|(at, bytes)| Arena::new(at, bytes));
        let sort = self.device_call(stream, order, Algorithm::Radix, Scratch::of(arena.as_ref()))?;
        let wide = size_of::<P>() > 4;
        let rewrap = self.rewrap(stream)?;
        let mut out_anew = rewrap.buffer(out, stream);
        let out = out_anew.as_deref_mut().unwrap_or(out);
        let any = keys as &dyn Any;
        crate::with_key_type!(K::TYPE, T => match any.downcast_ref::<CudaSlice<T>>() {
            Some(keys) => {
                holds(arena.as_ref(), || T::argsort_need(&sort, keys.len(), wide))?;
                let anew = rewrap.buffer(keys, stream);
                T::device_argsort(&sort, stream, anew.as_deref().unwrap_or(keys), out)
            }
            None => Err(SortError::Unsupported { backend: "cuda", what: format!("{} keys", std::any::type_name::<K>()) }),
        })
    }

    /// The scratch bytes `call` of `n` items carves from a caller's buffer (preparing the device,
    /// whose configs size it).
    pub(crate) fn device_need(
        &self,
        call: DeviceCall,
        n: usize,
        order: Order,
        algorithm: Algorithm,
    ) -> Result<usize, SortError> {
        self.bind()?;
        self.gpu.prepare()?;
        let sort = DeviceSort::new(&self.gpu, order, algorithm);
        match call {
            DeviceCall::Kvp => needs::kvp(&sort, n),
            DeviceCall::Keys(t) => crate::with_key_type!(t, T => T::device_need(&sort, n, false)),
            DeviceCall::Pairs(t) => crate::with_key_type!(t, T => T::device_need(&sort, n, true)),
            DeviceCall::Argsort { keys, indices } => {
                let wide = match indices {
                    KeyType::U32 => false,
                    KeyType::U64 => true,
                    other => {
                        return Err(SortError::InvalidArgument(format!(
                            "argsort indices are u32 or u64, not {}",
                            other.name()
                        )))
                    }
                };
                let sort = DeviceSort { algorithm: Algorithm::Radix, ..sort };
                crate::with_key_type!(keys, T => T::argsort_need(&sort, n, wide))
            }
            DeviceCall::TopK { keys, k } => self.top_k_need(keys, n, k),
        }
    }
}

/// `InvalidArgument`, before any work is queued, when a caller's buffer holds less than `need`.
pub(crate) fn holds(arena: Option<&Arena>, need: impl FnOnce() -> Result<usize, SortError>) -> Result<(), SortError> {
    let Some(arena) = arena else { return Ok(()) };
    let need = need()?;
    if arena.len() < need {
        return Err(SortError::InvalidArgument(format!(
            "the scratch buffer holds {} usable bytes; this call needs {need} (Sorter::device_scratch_bytes)",
            arena.len()
        )));
    }
    Ok(())
}
