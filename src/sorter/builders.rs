//! The sorter's settings: its order and algorithm, the CPU/GPU crossover, the device memory
//! limit, and the memory kept between calls.

use std::sync::Arc;

use super::{Policy, Sorter};
use crate::{Algorithm, FloatOrder, Order};

impl Sorter {
    /// The same sorter, sorting in `order` (ascending by default). Pair sorts with `Auto` or
    /// `Radix` stay stable in both orders: equal keys keep their input order.
    ///
    /// ```
    /// use gpusort::{Kvp, Order, Sorter};
    /// let mut v = vec![Kvp::new(1, 0), Kvp::new(2, 1), Kvp::new(1, 2)];
    /// Sorter::auto().with_order(Order::Descending).sort_kvp(&mut v)?;
    /// assert_eq!(v, [Kvp::new(2, 1), Kvp::new(1, 0), Kvp::new(1, 2)]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    #[must_use = "with_order returns a new sorter; the original is unchanged"]
    pub fn with_order(mut self, order: Order) -> Sorter {
        self.order = order;
        self
    }

    /// The order this sorter sorts in.
    #[must_use]
    pub fn order(&self) -> Order {
        self.order
    }

    /// The same sorter, ordering float keys as `floats` says ([`FloatOrder::Total`] by default)
    /// in [`Sorter::sort_keys`], [`Sorter::argsort`], [`Sorter::argsort_into`], the device
    /// argsorts, [`Sorter::sort_by_key`] and, for columns that name none, [`Sorter::lexsort`]. The other sorts of float keys
    /// return `InvalidArgument` with another order than `Total`, for now.
    ///
    /// ```
    /// use gpusort::{FloatOrder, Sorter};
    /// let mut v = vec![f32::NAN, 2.0, -0.0, 0.0, -f32::NAN];
    /// Sorter::auto().with_float_order(FloatOrder::NanLast).sort_keys(&mut v)?;
    /// assert_eq!(v[..3].iter().map(|x| x.to_bits()).collect::<Vec<_>>(), [(-0.0f32).to_bits(), 0, 2.0f32.to_bits()]);
    /// assert!(v[3].is_nan() && v[4].is_nan() && v[3].is_sign_positive() && v[4].is_sign_negative());
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    #[must_use = "with_float_order returns a new sorter; the original is unchanged"]
    pub fn with_float_order(mut self, floats: FloatOrder) -> Sorter {
        self.floats = floats;
        self
    }

    /// How this sorter orders float keys.
    #[must_use]
    pub fn float_order(&self) -> FloatOrder {
        self.floats
    }

    /// The same sorter with another algorithm.
    ///
    /// The GPU-only sorting networks ([`Algorithm::Bitonic`], [`Algorithm::OddEvenMerge`]) make an
    /// `auto()` sorter use the GPU at every length. Where it cannot run them (no usable GPU,
    /// `u64` keys, not enough device memory) it sorts with the CPU's stable radix sort instead,
    /// whose result is one of the results the network may give. A [`Sorter::cpu()`] sorter, or a
    /// [`Sorter::cuda()`] one that cannot run the network, returns [`SortError::Unsupported`](crate::SortError::Unsupported).
    ///
    /// ```
    /// use gpusort::{Algorithm, Sorter};
    /// let mut v = vec![3u32, 1, 2];
    /// Sorter::auto().with_algorithm(Algorithm::Bitonic).sort_keys(&mut v)?; // GPU or CPU
    /// assert_eq!(v, [1, 2, 3]);
    /// assert!(Sorter::cpu().with_algorithm(Algorithm::Bitonic).sort_keys(&mut v).is_err());
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    #[must_use = "with_algorithm returns a new sorter; the original is unchanged"]
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Sorter {
        self.algorithm = algorithm;
        self
    }

    /// The algorithm this sorter runs.
    #[must_use]
    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The same sorter with one CPU/GPU crossover for every kind of sort instead of the measured
    /// table (only `auto()` sorters have one).
    ///
    /// ```
    /// let sorter = gpusort::Sorter::auto().with_crossover(1 << 20);
    /// assert_eq!(sorter.backend_for(1000), gpusort::BackendKind::Cpu);
    /// ```
    #[must_use = "with_crossover returns a new sorter; the original is unchanged"]
    pub fn with_crossover(mut self, items: usize) -> Sorter {
        if let Policy::Auto { crossover } = &mut self.policy {
            *crossover = Some(items);
        }
        self
    }

    /// The same sorter with at most `bytes` of device memory per host sort. A sort that needs
    /// more is cut into runs that fit, each sorted on the GPU, and the runs are merged stably
    /// (equal keys keep their input order), so the result is the same as in one run: on the GPU
    /// (blocks cut at the runs' merge positions, sorted again) when the input fits the pinned
    /// staging, which may hold up to a quarter of the host's memory, else on all CPU cores.
    ///
    /// What a run of n items needs: radix 2n items + n bytes (pairs: 17n bytes, u32 keys: 9n),
    /// odd-even merge 2n items, bitonic n items, each plus 64 KiB. A limit below what one item
    /// needs makes sorts fail with `InvalidArgument`. The limit applies to host-memory sorts,
    /// not to the `*_device` methods (their data is on the device already).
    ///
    /// Without a limit, every host sort reads the device's free memory first: one that would not
    /// fit runs out of core within 80% of it; `auto()` hands a sort to the CPU when that fails for
    /// memory too, or would take more than 128 runs (the CPU is
    /// faster then). Split pairs with `u64` keys sort their runs on the GPU and merge them on
    /// the CPU.
    /// No effect on a sorter without a GPU.
    ///
    /// ```
    /// let sorter = gpusort::Sorter::auto().with_device_memory_limit(256 << 20);
    /// let mut v: Vec<u64> = (0..100_000u64).rev().collect();
    /// sorter.sort_keys(&mut v)?;
    /// assert!(v.windows(2).all(|w| w[0] <= w[1]));
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    #[must_use = "with_device_memory_limit returns a new sorter; the original is unchanged"]
    pub fn with_device_memory_limit(mut self, bytes: usize) -> Sorter {
        if let Some(g) = &self.gpu {
            self.gpu = Some(Arc::new(g.with_device_limit(bytes)));
        }
        self
    }

    /// The device memory limit set with [`Sorter::with_device_memory_limit`] (`None` without one,
    /// or without a GPU).
    #[must_use]
    pub fn device_memory_limit(&self) -> Option<usize> {
        self.gpu.as_ref().and_then(|g| g.device_limit())
    }

    /// The same sorter, keeping the memory its sorts allocate for the next sort (`true`, the
    /// default) or giving it back after each of its sorts as [`Sorter::release_memory`] does
    /// (`false`). Turn it off in a long-running service that sorts now and then, where holding
    /// a GiB of scratch and pinned memory between sorts costs more than allocating it again.
    /// Other sorters of the process are not affected, but memory they keep is given back too
    /// (it is shared).
    ///
    /// ```
    /// let sorter = gpusort::Sorter::auto().with_keep_memory(false);
    /// let mut v: Vec<u32> = (0..1_000_000u32).rev().collect();
    /// sorter.sort_keys(&mut v)?;
    /// assert_eq!(sorter.kept_host_bytes(), 0);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    #[must_use = "with_keep_memory returns a new sorter; the original is unchanged"]
    pub fn with_keep_memory(mut self, keep: bool) -> Sorter {
        self.keep_memory = keep;
        self
    }

    /// Whether this sorter keeps memory between sorts ([`Sorter::with_keep_memory`]).
    #[must_use]
    pub fn keeps_memory(&self) -> bool {
        self.keep_memory
    }

    /// The same sorter, keeping [`Sorter::sort_file`] within `bytes` of host memory for its
    /// buffers (the run being sorted, the next being read, the merge's blocks). More memory means
    /// longer runs and fewer of them. Without a limit a file sort takes half the memory
    /// available to the process (the cgroup's limit counted). Too small a limit for a few
    /// records makes file sorts fail with `InvalidArgument`.
    ///
    /// ```
    /// let sorter = gpusort::Sorter::auto().with_host_memory_limit(3 << 30);
    /// assert_eq!(sorter.host_memory_limit(), Some(3 << 30));
    /// ```
    #[must_use = "with_host_memory_limit returns a new sorter; the original is unchanged"]
    pub fn with_host_memory_limit(mut self, bytes: usize) -> Sorter {
        self.host_memory_limit = Some(bytes);
        self
    }

    /// The limit set with [`Sorter::with_host_memory_limit`].
    #[must_use]
    pub fn host_memory_limit(&self) -> Option<usize> {
        self.host_memory_limit
    }

    /// The same sorter, writing [`Sorter::sort_file`]'s runs in a folder of its own inside `dir`
    /// (by default the output's folder). Runs take as much disk as the input.
    #[must_use = "with_temp_dir returns a new sorter; the original is unchanged"]
    pub fn with_temp_dir(mut self, dir: impl AsRef<std::path::Path>) -> Sorter {
        self.temp_dir = Some(dir.as_ref().into());
        self
    }

    /// The folder set with [`Sorter::with_temp_dir`].
    #[must_use]
    pub fn temp_dir(&self) -> Option<&std::path::Path> {
        self.temp_dir.as_deref()
    }

    /// Host memory kept now for the next sort, shared by every `Sorter` of the process: the CPU
    /// backend's scratch buffer (up to 1 GiB) and, with a GPU, the pinned staging (a copy of the
    /// largest input sorted so far, up to a quarter of the host's memory, and a 64 MiB transfer
    /// ring). [`Sorter::release_memory`] frees it; device memory kept by the GPU's memory pool is
    /// not counted.
    #[must_use]
    pub fn kept_host_bytes(&self) -> usize {
        self.gpu.as_ref().map_or(0, |g| g.kept_host_bytes()) + gpusort_cpu::kept_scratch_bytes()
    }

    /// Frees the memory kept between sorts for speed: the GPU's pinned staging buffers and the
    /// device memory its allocator holds (shared by every `Sorter` of the process), and the CPU
    /// backend's scratch buffer. The next sort allocates them again.
    ///
    /// ```
    /// let sorter = gpusort::Sorter::auto();
    /// let mut v: Vec<u32> = (0..1_000_000u32).rev().collect();
    /// sorter.sort_keys(&mut v)?;
    /// sorter.release_memory();
    /// assert_eq!(sorter.kept_host_bytes(), 0);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn release_memory(&self) {
        if let Some(g) = self.live_gpu() {
            g.release_memory();
        }
        gpusort_cpu::release_scratch();
    }
}
