//! Device-resident sorts inside other GPU programs (`cuda` feature): the device prepared up
//! front, the scratch a call needs asked for, and the calls that take that scratch from the
//! caller, so that they allocate nothing, never wait for the host and can be captured into a
//! CUDA graph.

use std::sync::Arc;

use cudarc::driver::sys::{CUdeviceptr, CUstream};
use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr};

use super::{ArgIndex, Sorter};
use crate::cuda::foreign;
use crate::{Key, KeyType, Kvp, SortError};

/// The shape of a device-resident call, for [`Sorter::device_scratch_bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum DeviceCall {
    /// [`Sorter::sort_keys_device_with_scratch`] of keys of this type.
    Keys(KeyType),
    /// [`Sorter::sort_pairs_device_with_scratch`]: keys of this type and `u32` values.
    Pairs(KeyType),
    /// [`Sorter::sort_kvp_device_with_scratch`].
    Kvp,
    /// [`Sorter::argsort_device_with_scratch`] of keys of type `keys` into indices of type
    /// `indices` ([`KeyType::U32`] or [`KeyType::U64`]).
    Argsort {
        /// The key type.
        keys: KeyType,
        /// The index type: `U32` or `U64`.
        indices: KeyType,
    },
    /// [`Sorter::top_k_device_with_scratch`] of the `k` first keys of type `keys`.
    TopK {
        /// The key type.
        keys: KeyType,
        /// How many keys are chosen.
        k: usize,
    },
}

impl Sorter {
    /// Loads this sorter's kernels on its device and reads the configs its launches are sized
    /// by, once per device and process. Every device-resident call does this on first use; call
    /// it (or make any device-resident call) before capturing a stream into a CUDA graph: a
    /// call on a capturing stream of a device not yet prepared is `InvalidArgument`, since
    /// loading would end the capture. `Ok` at once without a GPU.
    pub fn prepare(&self) -> Result<(), SortError> {
        match self.live_gpu() {
            Some(g) => g.bound_gpu()?.prepare(),
            None => Ok(()),
        }
    }

    /// The bytes of device scratch `call` of `len` items needs in this sorter's order and
    /// algorithm: the size of the buffer to pass to the `*_with_scratch` calls (any buffer of
    /// this device holding at least this many bytes from its first 256-byte boundary; one from
    /// the caching allocators of cudarc, PyTorch or CuPy starts on one). Prepares the device
    /// (see [`Sorter::prepare`]). `Unsupported` without a GPU.
    ///
    /// ```no_run
    /// use gpusort::{DeviceCall, KeyType, Sorter};
    /// let sorter = Sorter::cuda()?;
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").default_stream();
    /// let mut keys = stream.clone_htod(&[3u32, 1, 2]).expect("upload");
    /// let bytes = sorter.device_scratch_bytes(DeviceCall::Keys(KeyType::U32), keys.len())?;
    /// let mut scratch = stream.alloc_zeros::<u8>(bytes.max(1)).expect("alloc");
    /// sorter.sort_keys_device_with_scratch(&mut keys, &mut scratch, &stream)?;
    /// assert_eq!(stream.clone_dtoh(&keys).expect("download"), [1, 2, 3]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn device_scratch_bytes(&self, call: DeviceCall, len: usize) -> Result<usize, SortError> {
        self.device_backend()?.device_need(call, len, self.order, self.algorithm)
    }

    /// [`Sorter::sort_keys_device`] with its scratch carved from `scratch` (at least
    /// [`Sorter::device_scratch_bytes`]`(DeviceCall::Keys(..), data.len())` bytes): the call
    /// allocates nothing, frees nothing and never waits for the stream or the host, so it can
    /// be captured into a CUDA graph and replayed. `scratch` may be reused once the work queued
    /// on `stream` has read it (any later work on the same stream). `InvalidArgument`, data
    /// untouched and nothing queued, when `scratch` is too small.
    pub fn sort_keys_device_with_scratch<K: Key + DeviceRepr>(
        &self,
        data: &mut CudaSlice<K>,
        scratch: &mut CudaSlice<u8>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_keys_device_with_scratch")?;
        let bytes = scratch.len();
        let rewrap = self.device_backend()?.rewrap(stream)?;
        let (at, _written) = rewrap.address_mut(scratch, stream);
        let lent = Some((at, bytes));
        self.device_backend()?.sort_keys_device(stream, data, None, self.order, self.algorithm, lent)
    }

    /// [`Sorter::sort_pairs_device`] with caller scratch, as
    /// [`Sorter::sort_keys_device_with_scratch`] (size from `DeviceCall::Pairs`). A buffer of
    /// the size asked for lets 32-bit keys take the faster layout where the image has one.
    pub fn sort_pairs_device_with_scratch<K: Key + DeviceRepr>(
        &self,
        keys: &mut CudaSlice<K>,
        values: &mut CudaSlice<u32>,
        scratch: &mut CudaSlice<u8>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_pairs_device_with_scratch")?;
        SortError::check_pair_lengths(keys.len(), values.len())?;
        let bytes = scratch.len();
        let rewrap = self.device_backend()?.rewrap(stream)?;
        let (at, _written) = rewrap.address_mut(scratch, stream);
        let lent = Some((at, bytes));
        self.device_backend()?.sort_keys_device(stream, keys, Some(values), self.order, self.algorithm, lent)
    }

    /// [`Sorter::sort_kvp_device`] with caller scratch, as
    /// [`Sorter::sort_keys_device_with_scratch`] (size from `DeviceCall::Kvp`).
    pub fn sort_kvp_device_with_scratch(
        &self,
        data: &mut CudaSlice<Kvp>,
        scratch: &mut CudaSlice<u8>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        let bytes = scratch.len();
        let rewrap = self.device_backend()?.rewrap(stream)?;
        let (at, _written) = rewrap.address_mut(scratch, stream);
        let lent = Some((at, bytes));
        self.device_backend()?.sort_kvp_device(stream, data, self.order, self.algorithm, lent)
    }

    /// [`Sorter::argsort_device`] with caller scratch, as
    /// [`Sorter::sort_keys_device_with_scratch`] (size from `DeviceCall::Argsort`). Floats in
    /// total order only (another float order sorts by a lexsort, which allocates).
    pub fn argsort_device_with_scratch<K: Key + DeviceRepr, I: ArgIndex + DeviceRepr>(
        &self,
        keys: &CudaSlice<K>,
        out: &mut CudaSlice<I>,
        scratch: &mut CudaSlice<u8>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "argsort_device_with_scratch")?;
        let bytes = scratch.len();
        let rewrap = self.device_backend()?.rewrap(stream)?;
        let (at, _written) = rewrap.address_mut(scratch, stream);
        self.argsort_device_in(keys, out, stream, Some((at, bytes)))
    }

    /// [`Sorter::top_k_device`] into the caller's buffers: the `out_keys.len()` first keys of
    /// `keys` in the sorter's order into `out_keys` and their positions into `out_indices` (as
    /// long), the scratch carved from `scratch` (at least [`Sorter::device_scratch_bytes`]`(`
    /// [`DeviceCall::TopK`]` { .. }, keys.len())` bytes), as
    /// [`Sorter::sort_keys_device_with_scratch`]: nothing allocated, nothing waited for, so the
    /// call can be captured into a CUDA graph. `InvalidArgument`, nothing queued, for outputs
    /// of different lengths, `k` above `keys.len()` or from 2^32 up, or too small a scratch.
    ///
    /// ```no_run
    /// use gpusort::{DeviceCall, KeyType, Order, Sorter};
    /// let sorter = Sorter::cuda()?.with_order(Order::Descending);
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").default_stream();
    /// let scores = stream.clone_htod(&[0.5f32, 2.0, -1.0, 2.0, 7.5]).expect("upload");
    /// let (mut best, mut at) = (stream.alloc_zeros::<f32>(3).expect("alloc"), stream.alloc_zeros::<u64>(3).expect("alloc"));
    /// let bytes = sorter.device_scratch_bytes(DeviceCall::TopK { keys: KeyType::F32, k: 3 }, scores.len())?;
    /// let mut scratch = stream.alloc_zeros::<u8>(bytes.max(1)).expect("alloc");
    /// sorter.top_k_device_with_scratch(&scores, &mut best, &mut at, &mut scratch, &stream)?;
    /// assert_eq!(stream.clone_dtoh(&best).expect("download"), [7.5, 2.0, 2.0]);
    /// assert_eq!(stream.clone_dtoh(&at).expect("download"), [4, 1, 3]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn top_k_device_with_scratch<K: Key + DeviceRepr>(
        &self,
        keys: &CudaSlice<K>,
        out_keys: &mut CudaSlice<K>,
        out_indices: &mut CudaSlice<u64>,
        scratch: &mut CudaSlice<u8>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "top_k_device_with_scratch")?;
        let (n, k) = (keys.len(), out_keys.len());
        if out_indices.len() != k {
            return Err(SortError::InvalidArgument(format!(
                "top-k outputs: {k} keys but {} indices; both hold the k chosen",
                out_indices.len()
            )));
        }
        if k > n || k > u32::MAX as usize {
            return Err(SortError::InvalidArgument(format!(
                "top {k} of {n} keys: k runs from 0 to the number of keys, below 2^32"
            )));
        }
        let bytes = scratch.len();
        let backend = self.device_backend()?;
        // The caller's cudarc buffers seen anew while capturing (`Rewrap`).
        let rewrap = backend.rewrap(stream)?;
        let (keys_anew, mut keys_out_anew) = (rewrap.buffer(keys, stream), rewrap.buffer(out_keys, stream));
        let mut indices_anew = rewrap.buffer(out_indices, stream);
        let keys = keys_anew.as_deref().unwrap_or(keys);
        let out_keys = keys_out_anew.as_deref_mut().unwrap_or(out_keys);
        let out_indices = indices_anew.as_deref_mut().unwrap_or(out_indices);
        let (at, _written) = rewrap.address_mut(scratch, stream);
        backend.top_k_device_into(stream, keys, self.order, (out_keys, out_indices), Some((at, bytes)))
    }
}

/// A caller's device buffer of `bytes` at `at`, for the foreign calls with scratch.
type ForeignScratch = (CUdeviceptr, usize);

impl Sorter {
    /// [`Sorter::sort_foreign_keys`] with its scratch carved from the caller's `scratch`
    /// (device address, bytes: at least [`Sorter::device_scratch_bytes`]`(DeviceCall::Keys(..))`
    /// from its first 256-byte boundary), as [`Sorter::sort_keys_device_with_scratch`]:
    /// nothing allocated, nothing waited for. The scratch is checked as the keys are (device
    /// memory of this device inside one allocation, not overlapping the keys); too small is
    /// `InvalidArgument`, nothing queued.
    ///
    /// # Safety
    ///
    /// As [`Sorter::sort_foreign_keys`], for the keys and the scratch.
    pub unsafe fn sort_foreign_keys_with_scratch(
        &self,
        keys: CUdeviceptr,
        len: usize,
        key_type: KeyType,
        scratch: ForeignScratch,
        stream: CUstream,
    ) -> Result<(), SortError> {
        self.total_floats_only(key_type, "sort_foreign_keys_with_scratch")?;
        // SAFETY: the caller's contract, which this function's own restates.
        unsafe { foreign::sort_foreign_keys(self, keys, len, key_type, stream, Some(scratch)) }
    }

    /// [`Sorter::sort_foreign_pairs`] with caller scratch, as
    /// [`Sorter::sort_foreign_keys_with_scratch`] (size from `DeviceCall::Pairs`).
    ///
    /// # Safety
    ///
    /// As [`Sorter::sort_foreign_pairs`], for the arrays and the scratch.
    pub unsafe fn sort_foreign_pairs_with_scratch(
        &self,
        keys: CUdeviceptr,
        values: CUdeviceptr,
        len: usize,
        key_type: KeyType,
        scratch: ForeignScratch,
        stream: CUstream,
    ) -> Result<(), SortError> {
        self.total_floats_only(key_type, "sort_foreign_pairs_with_scratch")?;
        // SAFETY: the caller's contract, which this function's own restates.
        unsafe { foreign::sort_foreign_pairs(self, keys, values, len, key_type, stream, Some(scratch)) }
    }

    /// [`Sorter::argsort_foreign`] with caller scratch, as
    /// [`Sorter::sort_foreign_keys_with_scratch`] (size from `DeviceCall::Argsort`); floats in
    /// total order only.
    ///
    /// # Safety
    ///
    /// As [`Sorter::argsort_foreign`], for the arrays and the scratch.
    pub unsafe fn argsort_foreign_with_scratch<I: ArgIndex>(
        &self,
        keys: CUdeviceptr,
        len: usize,
        key_type: KeyType,
        out: CUdeviceptr,
        scratch: ForeignScratch,
        stream: CUstream,
    ) -> Result<(), SortError> {
        self.total_floats_only(key_type, "argsort_foreign_with_scratch")?;
        // SAFETY: the caller's contract, which this function's own restates.
        unsafe { foreign::argsort_foreign::<I>(self, keys, len, key_type, out, stream, Some(scratch)) }
    }

    /// [`Sorter::top_k_foreign`] with caller scratch, as
    /// [`Sorter::sort_foreign_keys_with_scratch`] (size from `DeviceCall::TopK`); floats in
    /// total order.
    ///
    /// # Safety
    ///
    /// As [`Sorter::top_k_foreign`], for the arrays and the scratch.
    #[allow(clippy::too_many_arguments)]
    pub unsafe fn top_k_foreign_with_scratch(
        &self,
        keys: CUdeviceptr,
        len: usize,
        key_type: KeyType,
        k: usize,
        (out_keys, out_indices): (CUdeviceptr, CUdeviceptr),
        scratch: ForeignScratch,
        stream: CUstream,
    ) -> Result<(), SortError> {
        self.total_floats_only(key_type, "top_k_foreign_with_scratch")?;
        // SAFETY: the caller's contract, which this function's own restates.
        unsafe { foreign::top_k_foreign(self, keys, len, key_type, k, out_keys, out_indices, stream, Some(scratch)) }
    }
}
