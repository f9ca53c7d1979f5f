//! Every kernel launch goes through `launch`: a kernel's parameters in `Args`, and whether it may
//! overlap the stream's previous kernel (`Launch`).
//!
//! Programmatic dependent launch (`Launch::Follows`): a kernel launched this way may start while
//! the stream's previous kernel drains, so a chain of short, one-wave kernels (the sorting
//! networks at 1M, a radix sort of 16K to a few million keys) stops paying a launch latency and a
//! ramp-up per kernel. The kernels keep the order themselves: they wait for the previous grid
//! (`griddepcontrol.wait`) before touching memory, and let the next one launch as their blocks
//! exit (`overlap.cuh` `wait_for_previous_grid`, shared by both sorts).
//!
//! Needs compute capability 9.0 and a 12.0 driver (`cuLaunchKernelEx`); elsewhere `Follows`
//! launches the ordinary way. `GPUSORT_OVERLAP_LAUNCHES=0` turns it off, for measuring.

use std::ffi::c_void;
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

/// Most parameters of any kernel (the segmented sweep takes 16).
const MAX_ARGS: usize = 20;

/// A kernel's parameters in the kernel's order, each held by value in an 8-byte slot until the
/// launch, which hands the driver one pointer per slot.
pub(crate) struct Args {
    slots: [u64; MAX_ARGS],
    len: usize,
}

impl Args {
    pub(crate) fn new() -> Self {
        Args { slots: [0; MAX_ARGS], len: 0 }
    }

    /// Appends the next parameter: a scalar or a device address, of at most 8 bytes.
    pub(crate) fn arg<T: DeviceRepr + Copy>(&mut self, value: T) -> &mut Self {
        const { assert!(size_of::<T>() <= 8 && align_of::<T>() <= 8) };
        assert!(self.len < MAX_ARGS, "a kernel takes at most {MAX_ARGS} parameters");
        // SAFETY: the slot is 8 bytes, 8-aligned, and T is no larger nor more aligned (above).
        unsafe { self.slots.as_mut_ptr().add(self.len).cast::<T>().write(value) };
        self.len += 1;
        self
    }

    /// One pointer per parameter, into `self`, which must not move until the launch is queued.
    fn pointers(&mut self) -> [*mut c_void; MAX_ARGS] {
        let mut ptrs = [std::ptr::null_mut(); MAX_ARGS];
        for (p, slot) in ptrs.iter_mut().zip(&mut self.slots[..self.len]) {
            *p = (slot as *mut u64).cast();
        }
        ptrs
    }
}

/// How a kernel launches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Launch {
    /// May start while the stream's previous kernel drains, where `available`: only for a kernel
    /// that waits for the previous grid before its first memory access (`wait_for_previous_grid`:
    /// every radix and network kernel).
    Follows,
    /// After the stream's previous kernel has finished: every other kernel.
    Plain,
}

/// Launches `f` on `stream` with `args`, as `how` says.
///
/// # Safety
/// As `cudarc`'s `LaunchArgs::launch`: `args` holds one value per kernel parameter, of its type, and
/// every buffer they name stays alive, and is used by nothing that races the kernel, until the
/// kernel is done. With `Launch::Follows`, the kernel
/// waits for the previous grid before its first memory access.
pub(crate) unsafe fn launch(
    gpu: &Gpu,
    stream: &CudaStream,
    f: &CudaFunction,
    how: Launch,
    cfg: LaunchConfig,
    args: &mut Args,
) -> Result<(), DriverError> {
    stream.context().bind_to_thread()?;
    let mut ptrs = args.pointers();
    let params = &mut ptrs[..args.len];
    if how == Launch::Plain || !available(gpu.compute_capability) {
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
