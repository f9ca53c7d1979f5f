//! `Sorter`: picks a backend for each call and forwards the sort to it.

mod builders;
mod by_key;
#[cfg(feature = "cuda")]
mod device;
#[cfg(feature = "cuda")]
mod embed;
mod floats;
#[cfg(feature = "cuda")]
mod foreign;
mod lexsort;
#[cfg(feature = "cuda")]
mod lexsort_device;
mod multi;
mod record_bytes;
mod records;
mod segments;
mod sorts;
#[cfg(test)]
mod tests;
mod topk;
mod values;

pub use by_key::{ColumnKey, RecordKey};
#[cfg(feature = "cuda")]
pub use device::{DeviceShare, DeviceTopK};
#[cfg(feature = "cuda")]
pub use embed::DeviceCall;
pub(crate) use record_bytes::gather_rows;
pub use records::ArgIndex;
pub use topk::TopK;

use std::sync::Arc;

use crate::backend::{BackendKind, SortBackend, SortJob};
use crate::config::{self, ForcedBackend};
use crate::cpu::CpuBackend;
use crate::gpu::GpuBackend;
use crate::tuning::{self, JobShape};
use crate::{Algorithm, FloatOrder, Order, SortError};

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
/// A sorter is configured with builders ([`Sorter::with_order`], [`Sorter::with_algorithm`],
/// [`Sorter::with_keep_memory`], ...) and then sorts any number of slices; `Sorter::default()` is
/// [`Sorter::auto()`], and `Display` prints [`Sorter::describe`].
///
/// ```
/// use gpusort::{Order, Sorter};
/// let sorter = Sorter::auto().with_order(Order::Descending);
/// let mut scores = vec![0.5f32, 2.0, -1.0];
/// sorter.sort_keys(&mut scores)?;
/// assert_eq!(scores, [2.0, 0.5, -1.0]);
/// println!("sorted on {sorter}");
/// # Ok::<(), gpusort::SortError>(())
/// ```
///
/// # Memory kept between calls
///
/// For speed, a sort keeps what it allocated for the next one: the CPU backend's scratch buffer
/// (up to 1 GiB), and with a GPU a pinned copy of the largest input sorted so far (up to a quarter
/// of the host's memory, [`Sorter::kept_host_bytes`]), a 64 MiB pinned transfer ring and up to
/// half the device's memory in its memory pool. All of it is shared by every `Sorter` of the
/// process. [`Sorter::release_memory`] gives it back at any time; a sorter made with
/// [`Sorter::with_keep_memory`]`(false)` gives it back after each of its sorts (long-running
/// services that sort rarely).
///
/// # Page-locked host data
///
/// A host slice of 64 MiB or more that lies in page-locked memory (from `cudaHostAlloc`,
/// `cudaHostRegister`, torch's `pin_memory()`, cudarc's `alloc_pinned_with_flags`) needs no host
/// copy: the GPU's copy engine reads and writes it in place (`Kvp` pairs, keys that the radix
/// sort takes, and split pairs whose keys and values are both page-locked). Nothing changes in
/// the call.
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
    gpu: Option<Arc<GpuBackend>>,
    policy: Policy,
    algorithm: Algorithm,
    order: Order,
    floats: FloatOrder,
    keep_memory: bool,
    /// File sorts' host-memory budget and scratch folder (`with_host_memory_limit`, `with_temp_dir`).
    host_memory_limit: Option<usize>,
    temp_dir: Option<Arc<std::path::Path>>,
    /// Why the GPU is not used, when it is not.
    note: Option<Arc<str>>,
    /// Why this sorter refuses to sort (a configuration it cannot honour), when it does.
    refused: Option<Arc<str>>,
}

impl Default for Sorter {
    /// [`Sorter::auto()`].
    fn default() -> Sorter {
        Sorter::auto()
    }
}

impl std::fmt::Display for Sorter {
    /// What [`Sorter::describe`] says.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.describe())
    }
}

impl Sorter {
    /// The GPU when one is usable, else the CPU; never fails. Below the measured crossover of
    /// each kind of sort (per [`JobShape`]; [`Sorter::describe`] names it) the CPU sorts even when a
    /// GPU is present.
    ///
    /// `GPUSORT_BACKEND=cpu|cuda|auto` overrides the choice (`cuda` without a usable GPU sorts on
    /// the CPU and says why). Any other value is refused: such a sorter's [`Sorter::describe`]
    /// names it and its sorts return [`SortError::Config`].
    ///
    /// ```
    /// let sorter = gpusort::Sorter::auto();
    /// let mut v = vec![3u32, 1, 2];
    /// sorter.sort_keys(&mut v)?;
    /// assert_eq!(v, [1, 2, 3]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    #[must_use]
    pub fn auto() -> Sorter {
        Sorter::auto_from(&config::get().backend)
    }

    fn auto_from(forced: &Result<ForcedBackend, String>) -> Sorter {
        match forced {
            Ok(ForcedBackend::Auto) => Sorter::auto_detect(),
            Ok(ForcedBackend::Cpu) => Sorter {
                policy: Policy::Auto { crossover: None },
                note: Some("GPUSORT_BACKEND=cpu".into()),
                ..Sorter::cpu()
            },
            Ok(ForcedBackend::Cuda) => Sorter::cuda().unwrap_or_else(|e| Sorter {
                note: Some(format!("GPUSORT_BACKEND=cuda, but {e}").into()),
                ..Sorter::cpu()
            }),
            Err(why) => Sorter { refused: Some(why.as_str().into()), ..Sorter::cpu() },
        }
    }

    fn auto_detect() -> Sorter {
        // The first device alone: host sorts spread over several devices did not pay enough to be
        // the default (`tuning::MULTI_GPU_FROM_ITEMS`); `Sorter::cuda_all()` asks for them.
        match GpuBackend::open(0) {
            Ok(gpu) => {
                // Out of core in many small runs, the CPU is faster (`tuning::AUTO_OUT_OF_CORE_MAX_RUNS`).
                let gpu = gpu.with_max_runs(tuning::AUTO_OUT_OF_CORE_MAX_RUNS);
                Sorter { gpu: Some(Arc::new(gpu)), policy: Policy::Auto { crossover: None }, ..Sorter::cpu() }
            }
            Err(e) => {
                Sorter { policy: Policy::Auto { crossover: None }, note: Some(e.to_string().into()), ..Sorter::cpu() }
            }
        }
    }

    /// The CPU backend alone: a stable parallel radix sort on gpusort's own thread pool.
    ///
    /// ```
    /// let mut v = vec![3i32, -1, 2];
    /// gpusort::Sorter::cpu().sort_keys(&mut v)?;
    /// assert_eq!(v, [-1, 2, 3]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    #[must_use]
    pub fn cpu() -> Sorter {
        // Reports what the environment says that gpusort does not understand, whatever the sorter.
        config::get();
        Sorter {
            cpu: Arc::new(CpuBackend),
            gpu: None,
            policy: Policy::CpuOnly,
            algorithm: Algorithm::Auto,
            order: Order::Ascending,
            floats: FloatOrder::Total,
            keep_memory: true,
            host_memory_limit: None,
            temp_dir: None,
            note: None,
            refused: None,
        }
    }

    /// The first CUDA device, for every length; `Err` ([`SortError::NoDriver`],
    /// [`SortError::NoDevice`], [`SortError::Unsupported`] for a GPU older than compute
    /// capability 7.5, ...) when there is none usable. Always `NoDriver` in a build without the
    /// `cuda` feature.
    ///
    /// ```
    /// match gpusort::Sorter::cuda() {
    ///     Ok(gpu) => println!("{gpu}"),
    ///     Err(e) => println!("no GPU here: {e}"),
    /// }
    /// ```
    pub fn cuda() -> Result<Sorter, SortError> {
        Sorter::cuda_device(0)
    }

    /// The CUDA device `ordinal`, for every length (see [`Sorter::cuda`]).
    pub fn cuda_device(ordinal: usize) -> Result<Sorter, SortError> {
        let gpu = GpuBackend::open(ordinal)?;
        Ok(Sorter { gpu: Some(Arc::new(gpu)), policy: Policy::GpuOnly, ..Sorter::cpu() })
    }

    /// The backend a sort of `len` `Kvp` items would run on.
    #[must_use]
    pub fn backend_for(&self, len: usize) -> BackendKind {
        self.backend_for_shape(JobShape::Kvp, len)
    }

    /// The backend a sort of `len` items of the given shape would run on.
    ///
    /// ```
    /// use gpusort::{BackendKind, JobShape, Sorter};
    /// assert_eq!(Sorter::cpu().backend_for_shape(JobShape::Keys64, 1 << 30), BackendKind::Cpu);
    /// ```
    #[must_use]
    pub fn backend_for_shape(&self, shape: JobShape, len: usize) -> BackendKind {
        self.pick(shape, len).kind()
    }

    /// One line: the backend, the GPU, and why the CPU is used where it is (also what `Display`
    /// prints).
    ///
    /// ```
    /// let d = gpusort::Sorter::cpu().describe();
    /// assert!(d.starts_with("cpu (rayon, "), "{d}");
    /// ```
    #[must_use]
    pub fn describe(&self) -> String {
        if let Some(why) = &self.refused {
            return format!("refuses to sort: {why}");
        }
        let cpu = self.cpu.describe();
        if let Some(Err(e)) = self.gpu.as_ref().map(|g| g.check_process()) {
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

    pub(crate) fn check_config(&self) -> Result<(), SortError> {
        match &self.refused {
            Some(why) => Err(SortError::Config(why.to_string())),
            None => Ok(()),
        }
    }

    /// Passes a sort's result on, giving the kept memory back first where this sorter keeps none.
    fn after_sort(&self, r: Result<(), SortError>) -> Result<(), SortError> {
        if !self.keep_memory {
            self.release_memory();
        }
        r
    }

    /// The GPU, unless there is none or it belongs to the process this one was forked from.
    fn live_gpu(&self) -> Option<&GpuBackend> {
        self.gpu.as_deref().filter(|g| g.check_process().is_ok())
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

    /// The algorithm the CPU runs for this sorter: `auto()` sorters replace a GPU sorting network
    /// by the stable sort (see `with_algorithm`).
    fn cpu_algorithm(&self) -> Algorithm {
        match self.policy {
            Policy::Auto { .. } if self.algorithm.is_gpu_only() => Algorithm::Auto,
            _ => self.algorithm,
        }
    }

    /// Sorts on the backend `pick` chose. CPU sorts go to gpusort-cpu's own thread pool, which
    /// survives fork (small ones stay on the calling thread, as waking the pool would cost more).
    /// [`Sorter::run`] with a stable algorithm: the sorter's own when it is stable, else
    /// `Algorithm::Auto` (the radix sort). For the jobs whose results promise stability whatever
    /// the sorter was made with: argsort, records, segments, top-k.
    pub(crate) fn run_stable(&self, job: SortJob<'_>) -> Result<(), SortError> {
        match self.algorithm.is_stable() {
            true => self.run(job),
            false => self.clone().with_algorithm(Algorithm::Auto).run(job),
        }
    }

    fn run(&self, job: SortJob<'_>) -> Result<(), SortError> {
        self.check_config()?;
        if job.len() < 2 {
            // Nothing to order: every sorter succeeds, whatever its backend, algorithm or process.
            return Ok(());
        }
        let backend = self.pick(job.shape(), job.len());
        let r = if backend.kind() == BackendKind::Cpu {
            backend.sort(job, self.order, self.cpu_algorithm())
        } else {
            // The GPU path runs on the calling thread (its host copies on rayon's pool): the CUDA
            // backend is never usable in a forked child (checked first), and a pool worker that
            // held the pinned staging while it waited for its copies could pick up another sort.
            self.gpu.as_ref().map_or(Ok(()), |g| g.check_process()).and_then(|()| self.run_gpu(backend, job))
        };
        self.after_sort(r)
    }

    fn run_gpu(&self, gpu: &dyn SortBackend, mut job: SortJob<'_>) -> Result<(), SortError> {
        if matches!(self.policy, Policy::Auto { .. }) {
            // The GPU leaves the data untouched when it fails; in auto mode a GPU that runs out of
            // memory, or lacks a kernel for this type or algorithm, hands the job to the CPU.
            return match gpu.sort(job.reborrow(), self.order, self.algorithm) {
                Err(SortError::OutOfMemory { .. } | SortError::Unsupported { .. }) => {
                    self.cpu.sort(job, self.order, self.cpu_algorithm())
                }
                r => r,
            };
        }
        gpu.sort(job, self.order, self.algorithm)
    }
}
