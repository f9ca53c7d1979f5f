//! Sorts of data already on the device (`cuda` feature): the caller's buffers and stream, no host
//! round trip.

use std::any::Any;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, DeviceRepr};

use super::{ArgIndex, Sorter};
use crate::gpu::GpuBackend;
use crate::{Key, Kvp, SortError};

/// What [`Sorter::top_k_device`] returns: the `k` first keys in the sorter's order and their
/// input positions, in device buffers of the sorter's context.
#[derive(Debug)]
#[non_exhaustive]
pub struct DeviceTopK<K> {
    /// The keys, in the sorter's order.
    pub keys: CudaSlice<K>,
    /// `indices[i]` is the input position of `keys[i]`; equal keys in increasing position.
    pub indices: CudaSlice<u64>,
}

/// One device's buffer in a device-resident sort spread over several devices
/// ([`Sorter::sort_kvp_across`], [`Sorter::sort_keys_across`]): the data and the stream its work is
/// queued on, both of that device's primary context (the one [`Sorter::cuda_context`], PyTorch
/// and CuPy use).
///
/// ```no_run
/// use gpusort::{DeviceShare, Kvp};
/// let ctx = gpusort::cudarc::driver::CudaContext::new(0).expect("a GPU");
/// let stream = ctx.default_stream();
/// let mut data = stream.clone_htod(&[Kvp::new(2, 0), Kvp::new(1, 1)]).expect("upload");
/// let share = DeviceShare::new(&mut data, &stream);
/// # drop(share);
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub struct DeviceShare<'a, T> {
    /// This device's part of the input, and of the result.
    pub data: &'a mut CudaSlice<T>,
    /// Where the work on `data` is queued.
    pub stream: &'a Arc<CudaStream>,
}

impl<'a, T> DeviceShare<'a, T> {
    /// A share of `data`, its work queued on `stream`.
    #[must_use]
    pub fn new(data: &'a mut CudaSlice<T>, stream: &'a Arc<CudaStream>) -> Self {
        DeviceShare { data, stream }
    }
}

impl Sorter {
    /// Sorts pairs spread over several devices as one sequence, the concatenation of `shares`
    /// in order, stably by key in the sorter's order (radix; the networks are `Unsupported`).
    /// Each share keeps its length and ends with the pairs of its own places in the sorted
    /// sequence: share 0 the first ones. Each device sorts its share, the devices find the rank
    /// boundaries and swap the pieces peer to peer (NVLink where present), and each merges what
    /// it received. Returns once the last step is queued on the shares' streams: synchronize
    /// them before reading. Shares may repeat a device; any sorter with a GPU runs it, whatever
    /// devices it was made for.
    ///
    /// `InvalidArgument` (data untouched) for no shares, or a share whose stream or buffer is
    /// not in its device's primary context. A failure once the work has started (a device out
    /// of memory for the exchange, say) mostly leaves each share sorted on its own; one in the
    /// last step, after some devices have merged their ranges, can leave items of one share in
    /// two places and some in none, as a failed sort leaves its device buffer. Keep a copy where
    /// the input must survive a failure.
    ///
    /// ```no_run
    /// use gpusort::{DeviceShare, Kvp, Sorter};
    /// let sorter = Sorter::cuda_all()?;
    /// let ctx = |o| gpusort::cudarc::driver::CudaContext::new(o).expect("a GPU");
    /// let (s0, s1) = (ctx(0).default_stream(), ctx(1).default_stream());
    /// let mut a = s0.clone_htod(&[Kvp::new(9, 0), Kvp::new(1, 1)]).expect("upload");
    /// let mut b = s1.clone_htod(&[Kvp::new(5, 2), Kvp::new(0, 3)]).expect("upload");
    /// sorter.sort_kvp_across(&mut [DeviceShare::new(&mut a, &s0), DeviceShare::new(&mut b, &s1)])?;
    /// assert_eq!(s0.clone_dtoh(&a).expect("download"), [Kvp::new(0, 3), Kvp::new(1, 1)]);
    /// assert_eq!(s1.clone_dtoh(&b).expect("download"), [Kvp::new(5, 2), Kvp::new(9, 0)]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_kvp_across(&self, shares: &mut [DeviceShare<'_, Kvp>]) -> Result<(), SortError> {
        let r = self.device_backend()?.sort_across(shares, self.order, self.algorithm);
        self.after_sort(r)
    }

    /// [`Sorter::sort_kvp_across`] for keys of any [`Key`](crate::Key) type (floats in
    /// `total_cmp` order).
    pub fn sort_keys_across<K: Key + DeviceRepr>(&self, shares: &mut [DeviceShare<'_, K>]) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_keys_across")?;
        let r = self.device_backend()?.sort_across(shares, self.order, self.algorithm);
        self.after_sort(r)
    }

    /// Sorts pairs already on the device by key, in place, in the sorter's order, on the caller's
    /// stream; stable with [`Algorithm::Auto`](crate::Algorithm::Auto) and `Radix`. Returns once
    /// the work is queued: synchronize `stream` before reading `data`. Allocate `data` in
    /// [`Sorter::cuda_context`]'s context.
    ///
    /// `Unsupported` on a sorter without a GPU (the CPU cannot read device memory).
    ///
    /// ```no_run
    /// use gpusort::{Kvp, Sorter};
    /// let sorter = Sorter::cuda()?;
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").default_stream();
    /// let mut data = stream.clone_htod(&[Kvp::new(2, 0), Kvp::new(1, 1)]).expect("upload");
    /// sorter.sort_kvp_device(&mut data, &stream)?;
    /// let sorted = stream.clone_dtoh(&data).expect("download");
    /// assert_eq!(sorted, [Kvp::new(1, 1), Kvp::new(2, 0)]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_kvp_device(&self, data: &mut CudaSlice<Kvp>, stream: &Arc<CudaStream>) -> Result<(), SortError> {
        let r = self.device_backend()?.sort_kvp_device(stream, data, self.order, self.algorithm, None);
        self.after_sort(r)
    }

    /// Sorts keys already on the device, in place, in the sorter's order, on the caller's stream
    /// (see [`Sorter::sort_kvp_device`]): keys of any [`Key`] type, floats in `total_cmp` order.
    /// The radix sort takes 8- and 16-bit keys at their own width (a digit pass per byte); the
    /// sorting networks take them as their 32-bit ordered bits, made in device scratch of four
    /// bytes a key beside the sort's own. The networks take `u32` and the small keys here (other
    /// types are `Unsupported` with them).
    ///
    /// ```no_run
    /// use gpusort::{Order, Sorter};
    /// let sorter = Sorter::cuda()?.with_order(Order::Descending);
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").default_stream();
    /// let mut data = stream.clone_htod(&[2.5f64, -1.0, 7.0]).expect("upload");
    /// sorter.sort_keys_device(&mut data, &stream)?;
    /// assert_eq!(stream.clone_dtoh(&data).expect("download"), [7.0, 2.5, -1.0]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_keys_device<K: Key + DeviceRepr>(
        &self,
        data: &mut CudaSlice<K>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_keys_device")?;
        let r = self.device_backend()?.sort_keys_device(stream, data, None, self.order, self.algorithm, None);
        self.after_sort(r)
    }

    /// Sorts split key and `u32` value arrays already on the device, in place, in the sorter's
    /// order, on the caller's stream; stable (radix only). Keys as [`Sorter::sort_keys_device`]
    /// takes them. `InvalidArgument` when the lengths differ. The radix sort's scratch: a copy
    /// of both arrays; with 32-bit keys on sm_90 and sm_100 a second one where it can be
    /// allocated, which makes the sort faster (without room for it, the sort runs without it).
    ///
    /// ```no_run
    /// use gpusort::Sorter;
    /// let sorter = Sorter::cuda()?;
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").default_stream();
    /// let mut keys = stream.clone_htod(&[30u64 << 40, 7, 30u64 << 40]).expect("upload");
    /// let mut rows = stream.clone_htod(&[0u32, 1, 2]).expect("upload");
    /// sorter.sort_pairs_device(&mut keys, &mut rows, &stream)?;
    /// assert_eq!(stream.clone_dtoh(&rows).expect("download"), [1, 0, 2]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_pairs_device<K: Key + DeviceRepr>(
        &self,
        keys: &mut CudaSlice<K>,
        values: &mut CudaSlice<u32>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_pairs_device")?;
        let r = self.device_backend()?.sort_keys_device(stream, keys, Some(values), self.order, self.algorithm, None);
        self.after_sort(r)
    }

    /// The stable permutation that sorts keys already on the device in the sorter's order,
    /// written to `out` (`u32` or `u64` indices, one per key) on the caller's stream, as
    /// [`Sorter::argsort_into`] writes it on the host: `keys[out[0]]`, `keys[out[1]]`, ... are in
    /// order, equal keys in input order. `keys` is only read; keys as
    /// [`Sorter::sort_keys_device`] takes them, whatever the sorter's algorithm (an argsort is the
    /// stable radix sort). The positions are made on the device and sorted with a scratch copy of
    /// the keys as split pairs, then widened there for `u64` indices: device scratch of about
    /// three copies of the keys and two of `u32` positions. `InvalidArgument` when the lengths
    /// differ or past 2^32 keys.
    ///
    /// ```no_run
    /// use gpusort::Sorter;
    /// let sorter = Sorter::cuda()?;
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").default_stream();
    /// let keys = stream.clone_htod(&[2.5f32, -1.0, 2.5, 0.0]).expect("upload");
    /// let mut order = stream.alloc_zeros::<u64>(4).expect("alloc");
    /// sorter.argsort_device(&keys, &mut order, &stream)?;
    /// assert_eq!(stream.clone_dtoh(&order).expect("download"), [1, 3, 0, 2]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn argsort_device<K: Key + DeviceRepr, I: ArgIndex + DeviceRepr>(
        &self,
        keys: &CudaSlice<K>,
        out: &mut CudaSlice<I>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        self.argsort_device_in(keys, out, stream, None)
    }

    /// `argsort_device` with scratch from the pool or the caller's buffer (`lent`).
    pub(super) fn argsort_device_in<K: Key + DeviceRepr, I: ArgIndex + DeviceRepr>(
        &self,
        keys: &CudaSlice<K>,
        out: &mut CudaSlice<I>,
        stream: &Arc<CudaStream>,
        lent: crate::cuda::Lent,
    ) -> Result<(), SortError> {
        let n = keys.len();
        if out.len() != n {
            return Err(SortError::InvalidArgument(format!("{n} keys but room for {} indices", out.len())));
        }
        if n as u64 > 1 << 32 {
            return Err(SortError::InvalidArgument(format!("{n} keys: a device argsort takes at most 2^32")));
        }
        if self.reorders_floats::<K>() {
            return self.lexsort_device(&[crate::DeviceColumn::new(keys)], out, stream);
        }
        let backend = self.device_backend()?;
        let out = out as &mut dyn Any;
        let r = if let Some(out) = out.downcast_mut::<CudaSlice<u32>>() {
            backend.argsort_device(stream, keys, out, self.order, lent)
        } else if let Some(out) = out.downcast_mut::<CudaSlice<u64>>() {
            backend.argsort_device(stream, keys, out, self.order, lent)
        } else {
            unreachable!("ArgIndex is sealed: u32 and u64")
        };
        // A call on caller scratch allocated nothing, and gives nothing back (which may block).
        match lent {
            Some(_) => r,
            None => self.after_sort(r),
        }
    }

    /// Sorts each segment of split pairs already on the device on its own, in place, in the
    /// sorter's order, stably, on the caller's stream (see [`Sorter::sort_segments`] for the
    /// host form): segment `s` is `offsets[s]..offsets[s + 1]`, with `offsets` (on the device)
    /// running from 0 to `keys.len()` without falling. Values move with their keys. Keys of any
    /// [`Key`] type, floats in `total_cmp` order; those of 8 and 16 bits sort as their 32-bit
    /// ordered bits (four bytes of device scratch a key). 64-bit keys take two stable radix sorts of positions
    /// (by key, then by segment) and about 24 bytes of device scratch per key, whatever the
    /// segments; at most 2^32 - 1 of them. The offsets are checked first, which waits for
    /// `stream` once: `InvalidArgument`, data untouched, when they do not fit (or the lengths
    /// differ).
    ///
    /// ```no_run
    /// use gpusort::Sorter;
    /// let sorter = Sorter::cuda()?;
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").default_stream();
    /// let mut keys = stream.clone_htod(&[3u32, 1, 2, 9, 7, 5]).expect("upload");
    /// let mut rows = stream.clone_htod(&[0u32, 1, 2, 3, 4, 5]).expect("upload");
    /// let offsets = stream.clone_htod(&[0u64, 3, 5, 6]).expect("upload");
    /// sorter.sort_segments_device(&mut keys, &mut rows, &offsets, &stream)?;
    /// assert_eq!(stream.clone_dtoh(&keys).expect("download"), [1, 2, 3, 7, 9, 5]);
    /// assert_eq!(stream.clone_dtoh(&rows).expect("download"), [1, 2, 0, 4, 3, 5]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_segments_device<K: Key + DeviceRepr>(
        &self,
        keys: &mut CudaSlice<K>,
        values: &mut CudaSlice<u32>,
        offsets: &CudaSlice<u64>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_segments_device")?;
        let r = self.device_backend()?.sort_segments_device(stream, keys, Some(values), offsets, self.order);
        self.after_sort(r)
    }

    /// [`Sorter::sort_segments_device`] without values: each segment of `keys` sorted on its own.
    pub fn sort_segments_keys_device<K: Key + DeviceRepr>(
        &self,
        keys: &mut CudaSlice<K>,
        offsets: &CudaSlice<u64>,
        stream: &Arc<CudaStream>,
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_segments_keys_device")?;
        let r = self.device_backend()?.sort_segments_device(stream, keys, None, offsets, self.order);
        self.after_sort(r)
    }

    /// The `k` first keys of a device buffer in the sorter's order (the `k` smallest, or largest
    /// with [`Order::Descending`](crate::Order)) and their positions, like `torch.topk`: exactly
    /// the first `k` of a stable sort, so ties at the `k`-th key go to the earliest positions.
    /// Found on the device without sorting the buffer (radix select), and returned in new device
    /// buffers of this sorter's context, queued on `stream`: synchronize it before reading them.
    /// `keys` is only read. Any [`Key`](crate::Key) type; floats in `total_cmp` order.
    ///
    /// `InvalidArgument` for `k` above `keys.len()` or from 2^32 up; `Unsupported` on a sorter
    /// without a GPU.
    ///
    /// ```no_run
    /// use gpusort::{Order, Sorter};
    /// let sorter = Sorter::cuda()?.with_order(Order::Descending);
    /// let stream = sorter.cuda_context().expect("a cuda() sorter has a context").default_stream();
    /// let scores = stream.clone_htod(&[0.5f32, 2.0, -1.0, 2.0, 7.5]).expect("upload");
    /// let top = sorter.top_k_device(&scores, 3, &stream)?;
    /// assert_eq!(stream.clone_dtoh(&top.keys).expect("download"), [7.5, 2.0, 2.0]);
    /// assert_eq!(stream.clone_dtoh(&top.indices).expect("download"), [4, 1, 3]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn top_k_device<K: Key + DeviceRepr>(
        &self,
        keys: &CudaSlice<K>,
        k: usize,
        stream: &Arc<CudaStream>,
    ) -> Result<DeviceTopK<K>, SortError> {
        self.total_floats_only(K::TYPE, "top_k_device")?;
        let n = keys.len();
        if k > n || k > u32::MAX as usize {
            return Err(SortError::InvalidArgument(format!(
                "top {k} of {n} keys: k runs from 0 to the number of keys, below 2^32"
            )));
        }
        let r = self.device_backend()?.top_k_device(stream, keys, k, self.order);
        // Gives kept memory back where this sorter keeps none, whatever the result.
        self.after_sort(Ok(()))?;
        r.map(|(keys, indices)| DeviceTopK { keys, indices })
    }

    /// The CUDA context this sorter's GPU work runs in, for callers that allocate device buffers
    /// for the `*_device` methods; `None` without a GPU.
    #[must_use]
    pub fn cuda_context(&self) -> Option<Arc<CudaContext>> {
        self.gpu.as_ref().map(|g| g.gpu.ctx.clone())
    }

    pub(super) fn device_backend(&self) -> Result<&GpuBackend, SortError> {
        self.check_config()?;
        self.gpu.as_deref().ok_or_else(|| SortError::Unsupported {
            backend: "cpu",
            what: "device-resident sorts need a CUDA device".into(),
        })
    }
}
