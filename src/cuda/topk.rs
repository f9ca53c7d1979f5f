//! Top-k on the GPU backend: of keys already on the device (`select::top_k` on the caller's
//! stream), and of host keys, which go up through the pinned staging as a sort's input does;
//! only the `k` chosen keys and their positions come back.

use std::any::Any;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

use super::device::Gpu;
use super::device_calls::{holds, Lent};
use super::dispatch::DeviceItem;
use super::host_keys::Bits32;
use super::hostdata::{self, ReadOnly};
use super::key_class::CudaKey;
use super::radix::RadixKey;
use super::scratch::{Arena, Scratch};
use super::select;
use super::small_keys::{self, SmallKey};
use super::transfer::{begin, chunks, device_buffer, finish, lease, upload};
use super::CudaBackend;
use crate::backend::{same_type, with_view, KeySlice, KeyView};
use crate::hooks::{self, Step};
use crate::{Key, KeyType, Order, SortError};

/// Device bytes a top-k of `n` keys of `size` bytes needs besides the keys themselves: the tile
/// counts and bases (24 bytes per tile of at least 2048 keys), the chosen keys with their slots
/// and positions, and the radix sort of the chosen (a second copy of keys and slots, and status).
fn select_bytes(n: usize, k: usize, size: usize) -> usize {
    let tiles = n.div_ceil(2048);
    (tiles * 24).saturating_add(k.saturating_mul(2 * (size + 4) + 16 + 1)).saturating_add(1 << 20)
}

impl CudaBackend {
    /// The `k` first keys in `order` of keys on the device, with their positions, queued on
    /// `stream`: `(keys, positions)`, in new buffers from the pool. `k` from 0 to `keys.len()`,
    /// below 2^32 (checked by the caller).
    pub(crate) fn top_k_device<K: Key + DeviceRepr>(
        &self,
        stream: &Arc<CudaStream>,
        keys: &CudaSlice<K>,
        k: usize,
        order: Order,
    ) -> Result<(CudaSlice<K>, CudaSlice<u64>), SortError> {
        self.bind()?;
        if k == 0 {
            return Ok((empty(stream)?, empty(stream)?));
        }
        let mut out = (device_buffer::<K>(stream, k)?, device_buffer::<u64>(stream, k)?);
        self.top_k_device_into(stream, keys, order, (&mut out.0, &mut out.1), None)?;
        Ok(out)
    }

    /// The `out.0.len()` first keys in `order` of keys on the device into `out` (keys,
    /// positions), queued on `stream`, the scratch from the pool or the caller's buffer `lent`
    /// (checked to hold what the call carves before anything is queued). `k` from 0 to
    /// `keys.len()`, below 2^32, and both outputs `k` long (checked by the caller).
    pub(crate) fn top_k_device_into<K: Key + DeviceRepr>(
        &self,
        stream: &Arc<CudaStream>,
        keys: &CudaSlice<K>,
        order: Order,
        (out_keys, out_positions): (&mut CudaSlice<K>, &mut CudaSlice<u64>),
        lent: Lent,
    ) -> Result<(), SortError> {
        self.bind()?;
        self.gpu.ready_for(stream)?;
        let (n, k) = (keys.len(), out_keys.len());
        if k == 0 {
            return Ok(());
        }
        let arena = lent.map(|(at, bytes)| Arena::new(at, bytes));
        let scratch = Scratch::of(arena.as_ref());
        let (keys, out_keys) = (keys as &dyn Any, out_keys as &mut dyn Any);
        crate::with_key_type!(K::TYPE, T => match (keys.downcast_ref::<CudaSlice<T>>(), out_keys.downcast_mut::<CudaSlice<T>>()) {
            (Some(keys), Some(out_keys)) => {
                holds(arena.as_ref(), || T::top_k_need(&self.gpu, n, k))?;
                T::device_top_k(&self.gpu, stream, keys, order, (out_keys, out_positions), scratch)
            }
            _ => Err(SortError::Unsupported { backend: "cuda", what: format!("top-k of {} keys", std::any::type_name::<K>()) }),
        })
    }

    /// The scratch bytes `top_k_device_into` of `k` of `n` keys of `key_type` carves.
    pub(crate) fn top_k_need(&self, key_type: KeyType, n: usize, k: usize) -> Result<usize, SortError> {
        self.bind()?;
        self.gpu.prepare()?;
        if k > n || k > u32::MAX as usize {
            return Err(SortError::InvalidArgument(format!(
                "top {k} of {n} keys: k runs from 0 to the number of keys, below 2^32"
            )));
        }
        if k == 0 {
            return Ok(0);
        }
        crate::with_key_type!(key_type, T => T::top_k_need(&self.gpu, n, k))
    }

    /// The `k` first keys of host `keys` in `order` into `out_keys`, their positions into
    /// `out_positions` (both `k` long, `k` from 1 to the number of keys, below 2^32). The outputs
    /// are written last, from the device; on failure they hold anything. `OutOfMemory` when the keys and
    /// the selection do not fit the device budget (`auto()` then selects on the CPU).
    pub(crate) fn top_k_host(
        &self,
        keys: KeyView<'_>,
        k: usize,
        order: Order,
        out_keys: KeySlice<'_>,
        out_positions: &mut [u64],
    ) -> Result<(), SortError> {
        self.bind()?;
        with_view!(keys, keys => match same_type(keys, out_keys) {
            Some(out) => CudaKey::top_k(self, keys, k, order, out, out_positions),
            None => Err(SortError::InvalidArgument("top-k: the output's key type differs from the input's".into())),
        })
    }

    /// Small keys (no select kernels of their own): their 32-bit ordered bits, widened into host
    /// scratch, take the `u32` select, whose order and ties are the keys' own; the `k` chosen
    /// come back narrowed.
    pub(super) fn top_k_small<K: Bits32>(
        &self,
        keys: &[K],
        k: usize,
        order: Order,
        out_keys: &mut [K],
        out_positions: &mut [u64],
    ) -> Result<(), SortError> {
        let bits = hostdata::widen(keys)?;
        let mut chosen = vec![0u32; k];
        self.top_k_typed(bits.as_slice(), k, order, &mut chosen, out_positions)?;
        hostdata::narrow(out_keys, &chosen);
        Ok(())
    }

    pub(super) fn top_k_typed<K: RadixKey + DeviceItem>(
        &self,
        keys: &[K],
        k: usize,
        order: Order,
        out_keys: &mut [K],
        out_positions: &mut [u64],
    ) -> Result<(), SortError> {
        let n = keys.len();
        assert!(k >= 1 && k <= n && out_keys.len() == k && out_positions.len() == k);
        let need = std::mem::size_of_val(keys).saturating_add(select_bytes(n, k, size_of::<K>()));
        if let Some(limit) = self.budget(need)? {
            if need > limit {
                return Err(SortError::OutOfMemory { op: "top-k on the device (device memory)", bytes: need });
            }
        }
        let c = chunks::<K>(n);
        let stream = begin(&self.gpu)?;
        let (mut lease, held_len) = lease::<K>(&self.gpu, n, c)?;
        let (held, ring) = lease.held_and_ring::<K>(held_len, c.ring);
        let result = (|| {
            let mut dev = device_buffer::<K>(&stream, n)?;
            upload(&stream, &ReadOnly(keys), 0, if held_len == n { held } else { ring }, &mut dev, c.chunk)?;
            hooks::hit(Step::Sort)?;
            let mut chosen = (device_buffer::<K>(&stream, k)?, device_buffer::<u64>(&stream, k)?);
            select::top_k(&self.gpu, &stream, &dev, order, (&mut chosen.0, &mut chosen.1), Scratch::POOL)?;
            // Small next to the upload (k keys); the outputs are the caller's fresh buffers.
            hooks::hit(Step::Download)?;
            stream
                .memcpy_dtoh(&chosen.0, &mut *out_keys)
                .map_err(SortError::driver("copy to host", k * size_of::<K>()))?;
            stream.memcpy_dtoh(&chosen.1, &mut *out_positions).map_err(SortError::driver("copy to host", k * 8))?;
            stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))
        })();
        finish(&stream, result)
    }
}

/// Top-k of small device keys (no select kernels of their own): their 32-bit ordered bits
/// take the `u32` select, whose order and ties are the keys' own; the chosen bits are narrowed
/// into `out`.
pub(super) fn small_device<K: SmallKey>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    keys: &CudaSlice<K>,
    order: Order,
    (out_keys, out_positions): (&mut CudaSlice<K>, &mut CudaSlice<u64>),
    scratch: Scratch,
) -> Result<(), SortError> {
    let bits = small_keys::widen(gpu, stream, keys, scratch)?;
    let mut chosen = scratch.take::<u32>(stream, out_keys.len(), "top-k chosen bits")?;
    select::top_k(gpu, stream, &bits, order, (&mut *chosen, out_positions), scratch)?;
    small_keys::narrow(gpu, stream, &chosen, out_keys)
}

/// The scratch bytes `small_device` carves: the bits, the chosen bits and the `u32` select.
pub(super) fn small_need(gpu: &Gpu, n: usize, k: usize) -> Result<usize, SortError> {
    Ok(Scratch::bytes::<u32>(n) + Scratch::bytes::<u32>(k) + select::need::<u32>(gpu, n, k)?)
}

/// A device slice of no elements (the driver allocates no zero-byte buffers): one element's
/// allocation, owned and freed by a slice of length 0.
fn empty<T: DeviceRepr>(stream: &Arc<CudaStream>) -> Result<CudaSlice<T>, SortError> {
    // SAFETY: nothing is ever read from it.
    let one = unsafe { stream.alloc::<T>(1) }.map_err(SortError::driver("device buffer", size_of::<T>()))?;
    // SAFETY: the pointer is a live allocation of this stream's context, taken over (and freed on
    // drop) by the new slice; 0 elements of it are used.
    Ok(unsafe { stream.upgrade_device_ptr(one.leak(), 0) })
}
