//! `Sorter`: picks a backend for each call and forwards the sort to it.

use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream};

use crate::backend::{BackendKind, SortBackend, SortJob};
use crate::cpu::CpuBackend;
use crate::cuda::CudaBackend;
use crate::tuning::{self, JobShape};
use crate::{Algorithm, Key, Kvp, Order, SortError};

/// How a `Sorter` chooses between its backends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Policy {
    /// GPU from `crossover` items up (and for GPU-only algorithms), CPU below; without an
    /// override, the measured table `tuning::gpu_from_items`.
    Auto {
        crossover: Option<usize>,
    },
    CpuOnly,
    GpuOnly,
}

/// Sorts key/value pairs and keys on the GPU when one is usable, else on the CPU.
///
/// Cheap to clone and safe to share between threads: the CUDA context and kernels are created
/// once per process and shared by every `Sorter`.
///
/// Pair sorts with [`Algorithm::Auto`] or [`Algorithm::Radix`] are stable on every backend (equal
/// keys keep their input order, in both orders), so the result does not depend on which backend
/// ran.
///
/// # Fork
///
/// A process forked from one that sorted can sort host data at every size: the CPU work runs on
/// a thread pool of gpusort's own, made anew in the child. A CUDA context does not survive
/// `fork()`, so once the parent has opened the GPU, the child cannot use it: there `auto()`
/// sorters (made before or after the fork) sort on the CPU and [`Sorter::describe`] says why,
/// while [`Sorter::cuda`] and the sorters it made return [`SortError::NoDevice`] naming the
/// fork. A child forked before the parent touched CUDA may open the GPU itself.
///
/// ```
/// # use gpusort::Sorter;
/// let sorter = Sorter::auto();
/// let mut keys: Vec<u32> = (0..1_000_000u32).rev().collect();
/// sorter.sort_keys(&mut keys)?;
/// // In a child of this process (libc::fork(), Python's multiprocessing with "fork"), the same
/// // `sorter` still sorts, on the CPU if the GPU was in use here.
/// # Ok::<(), gpusort::SortError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Sorter {
    cpu: Arc<CpuBackend>,
    gpu: Option<Arc<CudaBackend>>,
    policy: Policy,
    algorithm: Algorithm,
    /// Why the GPU is not used, when it is not.
    note: Option<String>,
}

impl Sorter {
    /// The GPU when one is usable, else the CPU; never fails. Below the measured crossover of
    /// each kind of sort ([`tuning::gpu_from_items`]) the CPU sorts even when a GPU is present.
    /// `GPUSORT_BACKEND=cpu|cuda|auto` overrides the choice.
    pub fn auto() -> Sorter {
        let forced = std::env::var("GPUSORT_BACKEND").ok().map(|s| s.trim().to_ascii_lowercase());
        match forced.as_deref() {
            Some("cpu") => Sorter { note: Some("GPUSORT_BACKEND=cpu".into()), ..Sorter::cpu() },
            Some("cuda") | Some("gpu") => Sorter::cuda()
                .unwrap_or_else(|e| Sorter { note: Some(format!("GPUSORT_BACKEND=cuda, but {e}")), ..Sorter::cpu() }),
            Some(other) if !other.is_empty() && other != "auto" => Sorter {
                note: Some(format!("GPUSORT_BACKEND={other} is not cpu, cuda or auto")),
                ..Sorter::auto_detect()
            },
            _ => Sorter::auto_detect(),
        }
    }

    fn auto_detect() -> Sorter {
        match CudaBackend::open(0) {
            Ok(gpu) => {
                // Out of core in many small runs, the CPU is faster (`tuning::AUTO_OUT_OF_CORE_MAX_RUNS`).
                let gpu = CudaBackend { max_runs: Some(tuning::AUTO_OUT_OF_CORE_MAX_RUNS), ..gpu };
                Sorter { gpu: Some(Arc::new(gpu)), policy: Policy::Auto { crossover: None }, ..Sorter::cpu() }
            }
            Err(e) => Sorter { note: Some(e.to_string()), ..Sorter::cpu() },
        }
    }

    /// The CPU backend alone.
    pub fn cpu() -> Sorter {
        Sorter { cpu: Arc::new(CpuBackend), gpu: None, policy: Policy::CpuOnly, algorithm: Algorithm::Auto, note: None }
    }

    /// The first CUDA device, for every length; `Err` (`NoDriver`, `NoDevice`, `Unsupported` for a
    /// GPU older than compute capability 7.5, ...) when there is none usable.
    pub fn cuda() -> Result<Sorter, SortError> {
        Sorter::cuda_device(0)
    }

    /// The CUDA device `ordinal`, for every length.
    pub fn cuda_device(ordinal: usize) -> Result<Sorter, SortError> {
        let gpu = CudaBackend::open(ordinal)?;
        Ok(Sorter { gpu: Some(Arc::new(gpu)), policy: Policy::GpuOnly, ..Sorter::cpu() })
    }

    /// The same sorter with another algorithm. GPU-only algorithms make `auto()` use the GPU at
    /// every length; without a GPU they fail with `Unsupported`.
    pub fn with_algorithm(mut self, algorithm: Algorithm) -> Sorter {
        self.algorithm = algorithm;
        self
    }

    /// The same sorter with one CPU/GPU crossover for every kind of sort instead of the measured
    /// table (only `auto()` sorters have one).
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
    /// memory too, or would take more than [`tuning::AUTO_OUT_OF_CORE_MAX_RUNS`] runs (the CPU is
    /// faster then). Split pairs with `u64` keys sort their runs on the GPU and merge them on
    /// the CPU.
    /// No effect on a sorter without a GPU.
    pub fn with_device_memory_limit(mut self, bytes: usize) -> Sorter {
        if let Some(g) = &self.gpu {
            self.gpu = Some(Arc::new(CudaBackend { device_limit: Some(bytes), ..CudaBackend::clone(g) }));
        }
        self
    }

    /// The device memory limit set with [`Sorter::with_device_memory_limit`].
    pub fn device_memory_limit(&self) -> Option<usize> {
        self.gpu.as_ref().and_then(|g| g.device_limit)
    }

    /// Pinned host memory the GPU path keeps now for the next host sort: a copy of the largest
    /// input sorted so far (up to a quarter of the host's memory) and a 64 MiB transfer ring,
    /// shared by every `Sorter` of the process. [`Sorter::release_memory`] frees it. 0 without a GPU.
    pub fn kept_host_bytes(&self) -> usize {
        self.gpu.as_ref().map_or(0, |g| g.kept_host_bytes())
    }

    /// Frees the memory kept between sorts for speed: the GPU's pinned staging buffers and the
    /// device memory its allocator holds (shared by every `Sorter` of the process), and the CPU
    /// backend's scratch buffer. The next sort allocates them again.
    pub fn release_memory(&self) {
        if let Some(g) = self.live_gpu() {
            g.release_memory();
        }
        gpusort_cpu::release_scratch();
    }

    pub fn algorithm(&self) -> Algorithm {
        self.algorithm
    }

    /// The backend a sort of `len` `Kvp` items would run on.
    pub fn backend_for(&self, len: usize) -> BackendKind {
        self.backend_for_shape(JobShape::Kvp, len)
    }

    /// The backend a sort of `len` items of the given shape would run on.
    pub fn backend_for_shape(&self, shape: JobShape, len: usize) -> BackendKind {
        self.pick(shape, len).kind()
    }

    /// One line: the backend, the GPU, and why the CPU is used where it is.
    pub fn describe(&self) -> String {
        let cpu = self.cpu.describe();
        if let Some(Err(e)) = self.gpu.as_ref().map(|g| g.gpu.check_process()) {
            return match self.policy {
                Policy::Auto { .. } => format!("{cpu}: {e}; sorting on the CPU"),
                _ => format!("cuda (unusable here: {e})"),
            };
        }
        match (&self.gpu, self.policy) {
            (Some(g), Policy::Auto { crossover }) => {
                let from = crossover.unwrap_or_else(|| tuning::gpu_from_items(JobShape::Kvp));
                format!("{}; {cpu} below {from} items", g.describe())
            }
            (Some(g), _) => g.describe(),
            (None, _) => match &self.note {
                Some(why) => format!("{cpu}: {why}"),
                None => cpu,
            },
        }
    }

    /// Sorts pairs by key, ascending, stably (with `Auto`/`Radix`).
    pub fn sort_kvp(&self, v: &mut [Kvp]) -> Result<(), SortError> {
        self.sort_kvp_by(v, Order::Ascending)
    }

    /// Sorts pairs by key in `order`, stably (with `Auto`/`Radix`).
    pub fn sort_kvp_by(&self, v: &mut [Kvp], order: Order) -> Result<(), SortError> {
        self.run(SortJob::Kvp(v), order)
    }

    /// Sorts keys (`u32`, `i32`, `f32` in `total_cmp` order, `u64`) ascending.
    pub fn sort_keys<K: Key>(&self, v: &mut [K]) -> Result<(), SortError> {
        self.sort_keys_by(v, Order::Ascending)
    }

    /// Sorts keys in `order`.
    pub fn sort_keys_by<K: Key>(&self, v: &mut [K], order: Order) -> Result<(), SortError> {
        self.run(SortJob::Keys(K::slice(v)), order)
    }

    /// Sorts split arrays by key, ascending, values moving with their keys; stable with
    /// `Auto`/`Radix`. `InvalidArgument` when the lengths differ.
    pub fn sort_pairs<K: Key>(&self, keys: &mut [K], values: &mut [u32]) -> Result<(), SortError> {
        self.sort_pairs_by(keys, values, Order::Ascending)
    }

    /// Sorts split arrays by key in `order`.
    pub fn sort_pairs_by<K: Key>(&self, keys: &mut [K], values: &mut [u32], order: Order) -> Result<(), SortError> {
        if keys.len() != values.len() {
            return Err(SortError::InvalidArgument(format!(
                "{} keys but {} values: split pairs need one value per key",
                keys.len(),
                values.len()
            )));
        }
        self.run(SortJob::Pairs(K::slice(keys), values), order)
    }

    /// Sorts pairs already on the device, in place, on the caller's stream (no host round trip).
    /// Returns once the work is queued; synchronize `stream` before reading `data`.
    pub fn sort_kvp_device(
        &self,
        data: &mut CudaSlice<Kvp>,
        stream: &Arc<CudaStream>,
        order: Order,
    ) -> Result<(), SortError> {
        self.device_backend()?.sort_kvp_device(stream, data, order, self.algorithm)
    }

    /// Sorts `u32` keys already on the device, in place, on the caller's stream.
    pub fn sort_keys_device(
        &self,
        data: &mut CudaSlice<u32>,
        stream: &Arc<CudaStream>,
        order: Order,
    ) -> Result<(), SortError> {
        self.device_backend()?.sort_keys_u32_device(stream, data, order, self.algorithm)
    }

    /// Sorts split u32 key and value arrays already on the device, in place, on the caller's
    /// stream; stable (radix only).
    pub fn sort_pairs_device(
        &self,
        keys: &mut CudaSlice<u32>,
        values: &mut CudaSlice<u32>,
        stream: &Arc<CudaStream>,
        order: Order,
    ) -> Result<(), SortError> {
        self.device_backend()?.sort_pairs_u32_device(stream, keys, values, order, self.algorithm)
    }

    /// The CUDA context this sorter's GPU work runs in, for callers that allocate device buffers
    /// for the `*_device` methods.
    pub fn cuda_context(&self) -> Option<Arc<cudarc::driver::CudaContext>> {
        self.gpu.as_ref().map(|g| g.gpu.ctx.clone())
    }

    fn device_backend(&self) -> Result<&CudaBackend, SortError> {
        self.gpu.as_deref().ok_or_else(|| SortError::Unsupported {
            backend: "cpu",
            what: "device-resident sorts need a CUDA device".into(),
        })
    }

    /// The GPU, unless there is none or it belongs to the process this one was forked from.
    fn live_gpu(&self) -> Option<&CudaBackend> {
        self.gpu.as_deref().filter(|g| g.gpu.check_process().is_ok())
    }

    fn pick(&self, shape: JobShape, len: usize) -> &dyn SortBackend {
        match (&self.gpu, self.policy) {
            (Some(g), Policy::GpuOnly) => g.as_ref(),
            // A GPU opened by the parent of a forked child is of no use to it: the CPU sorts.
            (Some(_), Policy::Auto { .. }) if self.live_gpu().is_none() => self.cpu.as_ref(),
            (Some(g), Policy::Auto { crossover }) => {
                let from = crossover.unwrap_or_else(|| tuning::gpu_from_items(shape));
                if len >= from || self.algorithm.is_gpu_only() {
                    g.as_ref()
                } else {
                    self.cpu.as_ref()
                }
            }
            _ => self.cpu.as_ref(),
        }
    }

    /// Sorts on the backend `pick` chose. CPU sorts go to gpusort-cpu's own thread pool, which
    /// survives fork (small ones stay on the calling thread, as waking the pool would cost more).
    fn run(&self, job: SortJob<'_>, order: Order) -> Result<(), SortError> {
        if job.len() < 2 {
            // Nothing to order: every sorter succeeds, whatever its backend, algorithm or process.
            return Ok(());
        }
        let backend = self.pick(job.shape(), job.len());
        if backend.kind() == BackendKind::Cpu {
            return backend.sort(job, order, self.algorithm);
        }
        if let Some(g) = &self.gpu {
            // A `cuda()` sorter in a forked child: a clear error, before any driver call.
            g.gpu.check_process()?;
        }
        // The GPU path runs on the calling thread (its host copies on rayon's pool): the CUDA
        // backend is never usable in a forked child (checked above), and a pool worker that held
        // the pinned staging while it waited for its copies could pick up another sort.
        self.run_gpu(backend, job, order)
    }

    fn run_gpu(&self, gpu: &dyn SortBackend, mut job: SortJob<'_>, order: Order) -> Result<(), SortError> {
        if matches!(self.policy, Policy::Auto { .. }) && !self.algorithm.is_gpu_only() {
            // The GPU leaves the data untouched when it fails; in auto mode a GPU that runs out of
            // memory, or lacks a kernel for this type, hands the job to the CPU instead.
            return match gpu.sort(job.reborrow(), order, self.algorithm) {
                Err(SortError::OutOfMemory { .. } | SortError::Unsupported { .. }) => {
                    self.cpu.sort(job, order, self.algorithm)
                }
                r => r,
            };
        }
        gpu.sort(job, order, self.algorithm)
    }
}
