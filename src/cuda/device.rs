//! Finding a usable GPU: the driver check, one shared context per device, created lazily, which
//! holds the device's kernel modules and the configs read from them (`modules.rs`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys::{self, CUdevice_attribute};
use cudarc::driver::{result, CudaContext, CudaFunction, CudaStream};

use super::modules::{ImageConfig, ModuleCache};
use super::staging::Staging;
use super::streams::Streams;
use crate::SortError;

/// The oldest GPUs we build for: CUDA 13 itself starts at compute capability 7.5 (Turing).
pub(crate) const MIN_COMPUTE_CAPABILITY: (i32, i32) = (7, 5);

/// A device with its context and loaded kernels, shared by every `Sorter` in the process.
pub(crate) struct Gpu {
    pub(crate) ctx: Arc<CudaContext>,
    pub(crate) ordinal: usize,
    pub(crate) name: String,
    pub(crate) compute_capability: (i32, i32),
    pub(crate) multiprocessors: u32,
    pub(crate) total_memory: usize,
    modules: ModuleCache,
    pub(crate) staging: Staging,
    /// Streams for host sorts, made once.
    pub(crate) streams: Streams,
    /// The process that opened the context: a CUDA context does not survive `fork()`.
    pid: u32,
    /// Set once every image was loaded and every config read (`Gpu::prepare`).
    prepared: OnceLock<()>,
}

/// Why a forked child gets no GPU.
const FORKED: &str = "CUDA was initialised in the parent process before fork(); a forked child cannot use it";

impl std::fmt::Debug for Gpu {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Gpu({}: {})", self.ordinal, self.describe())
    }
}

impl Gpu {
    /// `NoDevice` in a process forked after this context was opened: any driver call there would
    /// fail, or worse, so none is made.
    pub(crate) fn check_process(&self) -> Result<(), SortError> {
        if self.pid == std::process::id() {
            Ok(())
        } else {
            Err(SortError::NoDevice(FORKED.into()))
        }
    }

    pub(crate) fn describe(&self) -> String {
        let (major, minor) = self.compute_capability;
        format!("{} (sm_{major}{minor}, {} SMs, {} MiB)", self.name, self.multiprocessors, self.total_memory >> 20)
    }

    /// Returns the device memory the pool keeps and unpins the staging buffers.
    pub(crate) fn release_memory(&self) {
        self.staging.release();
        self.trim_pool();
    }

    /// Returns the device memory the default pool keeps but does not use to the driver, so that
    /// the free memory the driver reports counts it.
    pub(crate) fn trim_pool(&self) {
        if self.ctx.bind_to_thread().is_ok() {
            // Memory still in use (a sort on another thread) stays; the pool frees it when done.
            // SAFETY: the device comes from its live context.
            let _ = unsafe {
                result::device::get_default_mem_pool(self.ctx.cu_device())
                    .and_then(|pool| result::mem_pool::trim_to(pool, 0))
            };
        }
    }

    /// Loads every image and reads every config the launches are sized by, once per device: the
    /// calls after it make no blocking driver call of their own (none is allowed while a stream
    /// is captured into a graph). What fails to load here is left to the call that needs it, to
    /// report as it would have without this step.
    pub(crate) fn prepare(&self) -> Result<(), SortError> {
        if self.prepared.get().is_some() {
            return Ok(());
        }
        self.ctx.bind_to_thread().map_err(SortError::driver("cuCtxSetCurrent", 0))?;
        for image in gpusort_kernels::ALL {
            let _ = self.modules.module(&self.ctx, image);
        }
        super::radix::prepare(self);
        super::network::prepare(self);
        super::select::prepare(self);
        // One kept stream: a call on a capturing stream takes the caller's buffers on a side
        // stream (`device_calls::Rewrap`), and creating one would end the capture.
        let _ = self.streams.get(&self.ctx);
        let _ = self.prepared.set(());
        Ok(())
    }

    /// Prepares the device for a call on `stream` (see `prepare`); `InvalidArgument` instead
    /// when `stream` is capturing a graph and the device is not prepared yet, since loading
    /// would end the capture.
    pub(crate) fn ready_for(&self, stream: &CudaStream) -> Result<(), SortError> {
        if self.prepared.get().is_none() && is_capturing(stream)? {
            return Err(SortError::InvalidArgument(
                "the stream is capturing a CUDA graph and gpusort's kernels are not loaded yet on this device: \
                 call Sorter::prepare (or sort once) before the capture"
                    .into(),
            ));
        }
        self.prepare()
    }

    /// A kernel from one of the committed images; modules load once per device.
    pub(crate) fn function(
        &self,
        image: &'static gpusort_kernels::Image,
        kernel: &'static str,
    ) -> Result<CudaFunction, SortError> {
        self.modules.function(&self.ctx, image, kernel)
    }

    /// The module of an image, loaded on first use.
    #[cfg(test)]
    pub(crate) fn module(
        &self,
        image: &'static gpusort_kernels::Image,
    ) -> Result<Arc<cudarc::driver::CudaModule>, SortError> {
        self.modules.module(&self.ctx, image)
    }

    /// The config `key` of an image (`ImageConfig`): read, checked and granted on first use, then
    /// cached for this device. Two threads asking at once may both read it; they get the same.
    pub(crate) fn config<C: ImageConfig>(&self, key: C::Key) -> Result<C, SortError> {
        if let Some(c) = self.modules.cached_config::<C>(key) {
            return Ok(c);
        }
        let words = self.modules.config_words::<C>(&self.ctx, key)?;
        let c = C::parse(key, &words)?.on_device(self, key)?;
        self.modules.cache_config(key, c.clone());
        Ok(c)
    }
}

/// Whether `stream` is capturing work into a graph.
pub(crate) fn is_capturing(stream: &CudaStream) -> Result<bool, SortError> {
    let mut status = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: a live stream of this context; writes one status.
    unsafe { sys::cuStreamIsCapturing(stream.cu_stream(), &mut status) }
        .result()
        .map_err(SortError::driver("cuStreamIsCapturing", 0))?;
    Ok(status != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE)
}

/// The thread's current context at `save` (null for none), put back on drop: the CUDA runtime
/// derives the caller's current device from it, so opening device 1, or a sort that runs on
/// several devices, must not move a PyTorch or CuPy thread working on device 0.
pub(crate) struct KeepCurrent(Option<sys::CUcontext>);

impl KeepCurrent {
    /// Saves the current context, unless it is `ours`, which the caller leaves current anyway.
    pub(crate) fn save(ours: Option<sys::CUcontext>) -> Result<KeepCurrent, SortError> {
        let current = result::ctx::get_current().map_err(SortError::driver("cuCtxGetCurrent", 0))?;
        Ok(KeepCurrent(match current {
            Some(c) if Some(c) == ours => None,
            other => Some(other.unwrap_or(std::ptr::null_mut())),
        }))
    }
}

impl Drop for KeepCurrent {
    fn drop(&mut self) {
        if let Some(ctx) = self.0 {
            // SAFETY: a context that was current on this thread at `save` (or null: none).
            let _ = unsafe { result::ctx::set_current(ctx) };
        }
    }
}

type Slot = Arc<OnceLock<Result<Arc<Gpu>, SortError>>>;

/// The device `ordinal`, opened on first use; every later call gets the same context (or the same
/// error: a machine without a driver is probed once). In a child forked after the context was
/// opened, `NoDevice` (see `Gpu::check_process`).
pub(crate) fn gpu(ordinal: usize) -> Result<Arc<Gpu>, SortError> {
    static DEVICES: OnceLock<Mutex<HashMap<usize, Slot>>> = OnceLock::new();
    let slot = {
        let mut map = DEVICES.get_or_init(Default::default).lock().unwrap_or_else(|p| p.into_inner());
        map.entry(ordinal).or_default().clone()
    };
    let gpu = slot.get_or_init(|| open_guarded(ordinal)).clone()?;
    gpu.check_process()?;
    Ok(gpu)
}

/// CUDA devices present; 0 without a usable driver (never panics, as `open_guarded`).
pub(crate) fn device_count() -> usize {
    // SAFETY: only tries to dlopen libcuda.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return 0;
    }
    std::panic::catch_unwind(|| CudaContext::device_count().unwrap_or(0)).unwrap_or(0).max(0) as usize
}

/// cudarc panics when a symbol is missing from an old libcuda; no panic may escape to the caller.
fn open_guarded(ordinal: usize) -> Result<Arc<Gpu>, SortError> {
    match std::panic::catch_unwind(|| open(ordinal)) {
        Ok(r) => r,
        Err(p) => {
            let msg = p
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            Err(SortError::NoDevice(format!("the CUDA driver could not be used: {msg}")))
        }
    }
}

fn open(ordinal: usize) -> Result<Arc<Gpu>, SortError> {
    // SAFETY: only tries to dlopen libcuda; must come before any other driver call.
    if !unsafe { cudarc::driver::sys::is_culib_present() } {
        return Err(SortError::NoDriver);
    }
    let count = CudaContext::device_count().map_err(|e| SortError::NoDevice(format!("cuInit failed: {e}")))?;
    if count <= 0 {
        return Err(SortError::NoDevice("the driver reports no devices".into()));
    }
    if ordinal >= count as usize {
        return Err(SortError::NoDevice(format!("device {ordinal} asked for, {count} present")));
    }
    // Retaining the context makes it current; the caller's stays.
    let _keep = KeepCurrent::save(None)?;
    let ctx = CudaContext::new(ordinal).map_err(SortError::driver("cuDevicePrimaryCtxRetain", 0))?;
    let name = ctx.name().map_err(SortError::driver("cuDeviceGetName", 0))?;
    let cc = ctx.compute_capability().map_err(SortError::driver("cuDeviceGetAttribute", 0))?;
    if cc < MIN_COMPUTE_CAPABILITY {
        return Err(SortError::Unsupported {
            backend: "cuda",
            what: format!(
                "{name} has compute capability {}.{}; gpusort needs {}.{} or newer",
                cc.0, cc.1, MIN_COMPUTE_CAPABILITY.0, MIN_COMPUTE_CAPABILITY.1
            ),
        });
    }
    let sms = ctx
        .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)
        .map_err(SortError::driver("cuDeviceGetAttribute", 0))?;
    let (_, total) = ctx.mem_get_info().map_err(SortError::driver("cuMemGetInfo", 0))?;
    keep_device_memory(&ctx, total);
    Ok(Arc::new(Gpu {
        ctx,
        ordinal,
        name,
        compute_capability: cc,
        multiprocessors: sms.max(1) as u32,
        total_memory: total,
        modules: ModuleCache::default(),
        staging: Staging::default(),
        streams: Streams::default(),
        pid: std::process::id(),
        prepared: OnceLock::new(),
    }))
}

/// The default stream-ordered pool may keep up to 1/POOL_KEEP_SHARE of the device after a sort
/// instead of returning it to the driver at the next synchronisation (its default threshold is
/// 0), so the buffers and the radix scratch of the next call, host or device-resident, are reused
/// rather than mapped again. The threshold counts everything the pool holds, the caller's own
/// pool buffers too: at 4 GiB, 256M split pairs (4 GiB of the benchmark's buffers, 2 GiB of
/// scratch) lost their scratch at every synchronisation, 9.67 ms timed against 8.80 ms of kernels
/// (H200, 2026-11-23). `GPUSORT_POOL_KEEP_BYTES` overrides it (0 restores the driver's
/// behaviour), for measuring; `Sorter::release_memory` trims the pool to zero, and a host sort
/// that needs more than half the device trims it before it reads the free memory.
pub(crate) const POOL_KEEP_SHARE: usize = 2;

/// Raises the release threshold of the device's default memory pool (see `POOL_KEEP_SHARE`); a
/// failure only costs speed.
fn keep_device_memory(ctx: &CudaContext, total_memory: usize) {
    let keep = crate::config::get().pool_keep_bytes;
    let mut keep = keep.unwrap_or((total_memory / POOL_KEEP_SHARE) as u64).min(total_memory as u64);
    // SAFETY: the device comes from its live context; the attribute takes a u64 (cuuint64_t).
    let _ = unsafe {
        result::device::get_default_mem_pool(ctx.cu_device()).and_then(|pool| {
            result::mem_pool::set_attribute(
                pool,
                sys::CUmemPool_attribute::CU_MEMPOOL_ATTR_RELEASE_THRESHOLD,
                &mut keep as *mut u64 as *mut std::ffi::c_void,
            )
        })
    };
}
