//! Device arrays owned by other libraries (PyTorch, CuPy, the caller's own CUDA code), given by
//! address and sorted in place on a stream that library owns. The checks and the work are the
//! CUDA backend's (`cuda/foreign/`): each pointer must be device memory of this sorter's
//! device, aligned for its type, with the whole array inside one allocation, and the stream
//! must belong to this context; the memory is never freed by gpusort.

use cudarc::driver::sys::{CUdeviceptr, CUstream};

use crate::{ArgIndex, KeyType, SortError, Sorter};

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
        key_type: KeyType,
        stream: CUstream,
    ) -> Result<(), SortError> {
        self.total_floats_only(key_type, "sort_foreign_keys")?;
        // SAFETY: the caller's contract, which this function's own restates.
        unsafe { crate::cuda::foreign::sort_foreign_keys(self, keys, len, key_type, stream, None) }
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
        key_type: KeyType,
        stream: CUstream,
    ) -> Result<(), SortError> {
        self.total_floats_only(key_type, "sort_foreign_pairs")?;
        // SAFETY: the caller's contract, which this function's own restates.
        unsafe { crate::cuda::foreign::sort_foreign_pairs(self, keys, values, len, key_type, stream, None) }
    }

    /// The stable permutation that sorts the `len` keys of type `key_type` at device address
    /// `keys` in the sorter's order, written to the `len` indices of `I` (`u32` or `u64`) at
    /// device address `out`, on the caller's `stream`: [`Sorter::argsort_device`] for arrays known
    /// only by address. `keys` is only read. Uses this sorter's device whatever its policy and
    /// algorithm (an argsort is the stable radix sort). Returns once the work is queued, as
    /// [`Sorter::sort_foreign_keys`] does. `len` 0: `Ok` at once, nothing checked.
    ///
    /// `InvalidArgument`, before any work is queued, past 2^32 keys, for an array or stream
    /// [`Sorter::sort_foreign_keys`] would refuse (`out` as `len` items of `I`), and when the two
    /// arrays overlap; `Unsupported` for key types without device kernels and for a sorter
    /// without a device.
    ///
    /// # Safety
    ///
    /// As [`Sorter::sort_foreign_keys`], for both arrays, except that other work may read (not
    /// write) `keys` meanwhile.
    pub unsafe fn argsort_foreign<I: ArgIndex>(
        &self,
        keys: CUdeviceptr,
        len: usize,
        key_type: KeyType,
        out: CUdeviceptr,
        stream: CUstream,
    ) -> Result<(), SortError> {
        if crate::columns::is_float(key_type) && self.float_order() != crate::FloatOrder::Total {
            // SAFETY: the caller's contract, which this function's own restates.
            return unsafe {
                self.lexsort_foreign::<I>(&[crate::ForeignColumn::new(keys, key_type)], len, out, stream)
            };
        }
        // SAFETY: the caller's contract, which this function's own restates.
        unsafe { crate::cuda::foreign::argsort_foreign::<I>(self, keys, len, key_type, out, stream, None) }
    }

    /// The `k` first keys in the sorter's order of the `len` keys of type `key_type` at device
    /// address `keys` (the `k` smallest, or largest with [`Order::Descending`](crate::Order::Descending)) into `out_keys`
    /// (`k` keys of `key_type`), and their positions in `keys` into `out_indices` (`k` `u64`s), on
    /// the caller's `stream`: exactly the first `k` of a stable sort, ties to the earliest
    /// positions, floats in `total_cmp` order, as [`Sorter::top_k_device`] finds them. `keys` is
    /// only read. Returns once the work is queued, as [`Sorter::sort_foreign_keys`] does; the
    /// scratch memory goes back to the pool in stream order. `k == 0`: `Ok` at once, nothing
    /// checked or written.
    ///
    /// `InvalidArgument`, before any work is queued, for `k` above `len` or from 2^32 up, for an
    /// array or stream [`Sorter::sort_foreign_keys`] would refuse (each output checked for its
    /// `k` items), and when an output overlaps the keys or the other output. `Unsupported` for a
    /// sorter without a device, as there.
    ///
    /// ```no_run
    /// use gpusort::cudarc::driver::{DevicePtr, DevicePtrMut};
    /// use gpusort::{KeyType, Order, Sorter};
    /// let sorter = Sorter::cuda()?.with_order(Order::Descending);
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").new_stream().expect("stream");
    /// // Buffers another library would own, known here only by address.
    /// let scores = stream.clone_htod(&[0.5f32, 2.0, -1.0, 2.0, 7.5]).expect("upload");
    /// let mut best = stream.alloc_zeros::<f32>(3).expect("alloc");
    /// let mut at = stream.alloc_zeros::<u64>(3).expect("alloc");
    /// {
    ///     let (keys, _r) = scores.device_ptr(&stream);
    ///     let (out_keys, _w1) = best.device_ptr_mut(&stream);
    ///     let (out_indices, _w2) = at.device_ptr_mut(&stream);
    ///     // SAFETY: three separate live buffers of this device, used by nothing else meanwhile,
    ///     // and a live stream of its primary context.
    ///     unsafe { sorter.top_k_foreign(keys, 5, KeyType::F32, 3, out_keys, out_indices, stream.cu_stream())? };
    /// }
    /// assert_eq!(stream.clone_dtoh(&best).expect("download"), [7.5, 2.0, 2.0]);
    /// assert_eq!(stream.clone_dtoh(&at).expect("download"), [4, 1, 3]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    ///
    /// # Safety
    ///
    /// As [`Sorter::sort_foreign_keys`], for the three arrays, except that other work may read
    /// (not write) `keys` meanwhile.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn top_k_foreign(
        &self,
        keys: CUdeviceptr,
        len: usize,
        key_type: KeyType,
        k: usize,
        out_keys: CUdeviceptr,
        out_indices: CUdeviceptr,
        stream: CUstream,
    ) -> Result<(), SortError> {
        self.total_floats_only(key_type, "top_k_foreign")?;
        // SAFETY: the caller's contract, which this function's own restates.
        unsafe {
            crate::cuda::foreign::top_k_foreign(self, keys, len, key_type, k, out_keys, out_indices, stream, None)
        }
    }

    /// Sorts each segment of the `len` keys of type `key_type` at device address `keys` on its
    /// own, in place, in the sorter's order, stably, on the caller's `stream`, the `u32` values at
    /// `values` (when given) moving with their keys: [`Sorter::sort_segments_device`] for arrays
    /// known only by address. Segment `s` is `offsets[s]..offsets[s + 1]` of the `num_offsets`
    /// (segments + 1) `u64`s at device address `offsets`, which run from 0 to `len` without
    /// falling (empty segments are fine). Every [`KeyType`]: 64-bit keys take two stable
    /// radix sorts of positions (by key, then by segment) and about 24 bytes of device scratch per
    /// key, and at most 2^32 - 1 of them (`Unsupported` past that, data untouched). Uses this
    /// sorter's device whatever its policy and algorithm; `Unsupported` for a sorter without one
    /// (or in a forked child, `NoDevice`).
    ///
    /// `InvalidArgument`, before any work is queued, for no offsets, for an array or stream
    /// [`Sorter::sort_foreign_keys`] would refuse (the offsets as `num_offsets` items of 8 bytes),
    /// and when any two of the arrays overlap. With `len` 0 the keys and values are not looked at
    /// (their addresses may be null); the offsets always are. Their contents are then checked on
    /// the device, which waits for `stream` once: `InvalidArgument`, data untouched, when they do
    /// not cut the `len` keys. Returns once the sort is queued, as
    /// [`Sorter::sort_foreign_keys`] does.
    ///
    /// ```no_run
    /// use gpusort::cudarc::driver::{DevicePtr, DevicePtrMut};
    /// use gpusort::{KeyType, Sorter};
    /// let sorter = Sorter::cuda()?;
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").new_stream().expect("stream");
    /// // Buffers another library would own, known here only by address.
    /// let mut keys = stream.clone_htod(&[3u32, 1, 2, 9, 7, 5]).expect("upload");
    /// let mut rows = stream.clone_htod(&[0u32, 1, 2, 3, 4, 5]).expect("upload");
    /// let offsets = stream.clone_htod(&[0u64, 3, 5, 6]).expect("upload");
    /// {
    ///     let (k, _w1) = keys.device_ptr_mut(&stream);
    ///     let (v, _w2) = rows.device_ptr_mut(&stream);
    ///     let (o, _r) = offsets.device_ptr(&stream);
    ///     // SAFETY: three separate live buffers of this device, used by nothing else meanwhile,
    ///     // and a live stream of its primary context.
    ///     unsafe { sorter.sort_foreign_segments(k, Some(v), 6, KeyType::U32, o, 4, stream.cu_stream())? };
    /// }
    /// assert_eq!(stream.clone_dtoh(&keys).expect("download"), [1, 2, 3, 7, 9, 5]);
    /// assert_eq!(stream.clone_dtoh(&rows).expect("download"), [1, 2, 0, 4, 3, 5]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    ///
    /// # Safety
    ///
    /// As [`Sorter::sort_foreign_keys`], for the three arrays, except that other work may read
    /// (not write) `offsets` meanwhile.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn sort_foreign_segments(
        &self,
        keys: CUdeviceptr,
        values: Option<CUdeviceptr>,
        len: usize,
        key_type: KeyType,
        offsets: CUdeviceptr,
        num_offsets: usize,
        stream: CUstream,
    ) -> Result<(), SortError> {
        self.total_floats_only(key_type, "sort_foreign_segments")?;
        // SAFETY: the caller's contract, which this function's own restates.
        unsafe {
            crate::cuda::foreign::sort_foreign_segments(self, keys, values, len, key_type, offsets, num_offsets, stream)
        }
    }
}
