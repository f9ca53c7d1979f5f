//! Top-k on the GPU backend: of keys already on the device (`select::top_k` on the caller's
//! stream), and of host keys, which go up through the pinned staging as a sort's input does;
//! only the `k` chosen keys and their positions come back.

use super::scratch::Scratch;
use std::any::Any;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

use super::dispatch::DeviceItem;
use super::host_keys::Bits32;
use super::hostdata::{self, ReadOnly};
use super::key_class::CudaKey;
use super::radix::RadixKey;
use super::select::{self, Chosen};
use super::small_keys;
use super::transfer::{begin, chunks, device_buffer, finish, lease, upload};
use super::CudaBackend;
use crate::backend::{same_type, with_view, KeySlice, KeyView};
use crate::hooks::{self, Step};
use crate::{Key, Order, SortError};

/// Device bytes a top-k of `n` keys of `size` bytes needs besides the keys themselves: the tile
/// counts and bases (24 bytes per tile of at least 2048 keys), the chosen keys with their slots
/// and positions, and the radix sort of the chosen (a second copy of keys and slots, and status).
fn select_bytes(n: usize, k: usize, size: usize) -> usize {
    let tiles = n.div_ceil(2048);
    (tiles * 24).saturating_add(k.saturating_mul(2 * (size + 4) + 16 + 1)).saturating_add(1 << 20)
}

impl CudaBackend {
    /// The `k` first keys in `order` of keys on the device, with their positions, queued on
    /// `stream`: `(keys, positions)`. `k` from 0 to `keys.len()`, below 2^32 (checked by the
    /// caller). `K` is one of the `Key` types, each of which the kernels take.
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
        if size_of::<K>() < 4 {
            // Small keys select as their 32-bit ordered bits (`small_keys.rs`).
            let bits = small_keys::widen(&self.gpu, stream, keys, Scratch::POOL)?;
            let Chosen { keys: chosen, positions } = select::top_k(&self.gpu, stream, &bits, k, order)?;
            let mut out = device_buffer::<K>(stream, k)?;
            small_keys::narrow(&self.gpu, stream, &chosen, &mut out)?;
            return Ok((out, positions));
        }
        // `Key` is sealed: the downcasts find the concrete type among the six the select kernels
        // take, and the result goes back as the caller's type the same way.
        let keys = keys as &dyn Any;
        macro_rules! as_type {
            ($($t:ty),*) => {$(
                if let Some(keys) = keys.downcast_ref::<CudaSlice<$t>>() {
                    let Chosen { keys, positions } = select::top_k(&self.gpu, stream, keys, k, order)?;
                    let keys: Box<dyn Any> = Box::new(keys);
                    if let Ok(keys) = keys.downcast::<CudaSlice<K>>() {
                        return Ok((*keys, positions));
                    }
                }
            )*};
        }
        as_type!(u32, i32, f32, u64, i64, f64);
        Err(SortError::Unsupported { backend: "cuda", what: format!("top-k of {} keys", std::any::type_name::<K>()) })
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
            let chosen = select::top_k(&self.gpu, &stream, &dev, k, order)?;
            // Small next to the upload (k keys); the outputs are the caller's fresh buffers.
            hooks::hit(Step::Download)?;
            stream
                .memcpy_dtoh(&chosen.keys, &mut *out_keys)
                .map_err(SortError::driver("copy to host", k * size_of::<K>()))?;
            stream
                .memcpy_dtoh(&chosen.positions, &mut *out_positions)
                .map_err(SortError::driver("copy to host", k * 8))?;
            stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))
        })();
        finish(&stream, result)
    }
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
