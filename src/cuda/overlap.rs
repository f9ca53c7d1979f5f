//! Programmatic dependent launch: a kernel launched this way may start while the stream's previous
//! kernel drains, so a chain of short, one-wave kernels (the sorting networks at 1M, a radix sort
//! of 16K to a few million keys) stops paying a launch latency and a ramp-up per kernel. The kernels
//! keep the order themselves: they wait for the previous grid (`griddepcontrol.wait`) before
//! touching memory, and let the next one launch as their blocks exit (`overlap.cuh`
//! `wait_for_previous_grid`, shared by both sorts).
//!
//! Needs compute capability 9.0 and a 12.0 driver (`cuLaunchKernelEx`); elsewhere
//! `launch_following` launches the ordinary way. `GPUSORT_OVERLAP_LAUNCHES=0` turns it off, for
//! measuring.

use std::ffi::c_void;
use std::marker::PhantomData;
use std::sync::OnceLock;

use cudarc::driver::{result, sys};
use cudarc::driver::{CudaFunction, CudaStream, DeviceRepr, DriverError, LaunchConfig};

use super::Gpu;

/// Whether kernels on a GPU of compute capability `cc` may start while the previous kernel drains.
fn available(cc: (i32, i32)) -> bool {
    static DRIVER: OnceLock<bool> = OnceLock::new();
    cc.0 >= 9
        && *DRIVER.get_or_init(|| {
            if !crate::config::get().overlap_launches {
                return false;
            }
            let mut version = 0;
            // SAFETY: only called once a device is open, so the driver library is loaded; the call
            // writes one int.
            let r = unsafe { sys::cuDriverGetVersion(&mut version) };
            r == sys::CUresult::CUDA_SUCCESS && version >= 12000
        })
}

/// A kernel's parameters as the driver takes them: one pointer per parameter, in the kernel's
/// order, each to a value that outlives the launch.
pub(crate) struct Args<'a> {
    ptrs: Vec<*mut c_void>,
    _values: PhantomData<&'a ()>,
}

impl<'a> Args<'a> {
    pub(crate) fn new() -> Self {
        Args { ptrs: Vec::with_capacity(16), _values: PhantomData }
    }

    /// Appends the next parameter.
    pub(crate) fn arg<T: DeviceRepr>(&mut self, value: &'a T) -> &mut Self {
        self.ptrs.push((value as *const T).cast_mut().cast());
        self
    }
}

/// Launches `f` on `stream`; where `available`, it may start while the stream's previous kernel
/// drains.
///
/// # Safety
/// As `cudarc`'s `LaunchArgs::launch`: `args` holds one value per kernel parameter, of its type, and
/// every buffer they name stays alive until the kernel is done. The kernel waits for the previous
/// grid before its first memory access.
pub(crate) unsafe fn launch_following(
    gpu: &Gpu,
    stream: &CudaStream,
    f: &CudaFunction,
    cfg: LaunchConfig,
    args: &mut Args<'_>,
) -> Result<(), DriverError> {
    stream.context().bind_to_thread()?;
    let params = &mut args.ptrs;
    if !available(gpu.compute_capability) {
        // SAFETY: the caller's contract above.
        return unsafe {
            result::launch_kernel(
                f.cu_function(),
                cfg.grid_dim,
                cfg.block_dim,
                cfg.shared_mem_bytes,
                stream.cu_stream(),
                params,
            )
        };
    }
    // SAFETY: a plain C struct and union for which all-zero bytes are valid.
    let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
    attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
    attr.value.programmaticStreamSerializationAllowed = 1;
    let config = sys::CUlaunchConfig {
        gridDimX: cfg.grid_dim.0,
        gridDimY: cfg.grid_dim.1,
        gridDimZ: cfg.grid_dim.2,
        blockDimX: cfg.block_dim.0,
        blockDimY: cfg.block_dim.1,
        blockDimZ: cfg.block_dim.2,
        sharedMemBytes: cfg.shared_mem_bytes,
        hStream: stream.cu_stream(),
        attrs: &mut attr,
        numAttrs: 1,
    };
    // SAFETY: the caller's contract above; config and attr outlive the call.
    unsafe { sys::cuLaunchKernelEx(&config, f.cu_function(), params.as_mut_ptr(), std::ptr::null_mut()) }.result()
}
