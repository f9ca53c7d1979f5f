//! The tuning each radix kernel set was built with (`radix_config_<name>`, 12 words), read from
//! the loaded image once per device, and the shared memory its kernels are granted with it.

use cudarc::driver::sys::{CUdevice_attribute, CUfunction_attribute};

use super::launch::MAX_PASSES;
use super::variants::Variant;
use crate::cuda::modules::ImageConfig;
use crate::cuda::Gpu;
use crate::SortError;

/// The tuning the image was built with for this device's architecture (`radix_config_<name>`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Config {
    pub(crate) sweep_threads: u32,
    pub(crate) tile: usize,
    pub(crate) small_threads: u32,
    /// 0 when the one-block path cannot get its shared memory on this device.
    pub(crate) small_tile: usize,
    pub(crate) small_shared_bytes: u32,
    pub(crate) hist_threads: u32,
    pub(crate) hist_blocks_per_sm: u32,
    pub(crate) passes: usize,
    /// Dynamic shared memory of each sweep block; 0 where the sweep's fits in static memory.
    pub(crate) sweep_shared_bytes: u32,
    /// The scratch buffer holds split pairs as 8-byte (key, value) items (`B_INTERLEAVED` in
    /// radix_keys.cuh): the passes that read the caller's arrays write items, the others split
    /// them back, and `copy_back_split` ends a sort whose result is in the scratch buffer.
    pub(crate) b_interleaved: bool,
    /// With `b_interleaved`: the sweep takes a second item buffer where one is given
    /// (`ScratchValues::Items`), so that only the first pass reads the caller's arrays and only
    /// the last one writes them (`B_INTERLEAVED` 2).
    pub(crate) second_items: bool,
    /// Dynamic shared memory of each histogram block; 0 where its counts are static.
    pub(crate) hist_shared_bytes: u32,
    /// The sweep stages each key as it ranks it (`S::STAGE_IN_RANK`, the large u32 keys sets of
    /// the sm_90 and sm_100 code); the tests check it against the image's set boundaries.
    #[cfg_attr(not(test), allow(dead_code))]
    pub(crate) stages_in_rank: bool,
}

impl ImageConfig for Config {
    const IMAGE: &'static gpusort_kernels::Image = &gpusort_kernels::RADIX;
    const WORDS: usize = 12;
    type Key = Variant;

    fn global(variant: Variant) -> &'static str {
        variant.names().config
    }

    fn parse(_: Variant, w: &[u32]) -> Result<Config, SortError> {
        let c = Config {
            sweep_threads: w[0],
            tile: (w[0] * w[1]) as usize,
            small_threads: w[2],
            small_tile: (w[2] * w[3]) as usize,
            small_shared_bytes: w[4],
            hist_threads: w[5],
            hist_blocks_per_sm: w[6],
            passes: w[7] as usize,
            sweep_shared_bytes: w[8],
            b_interleaved: w[9] != 0,
            second_items: w[9] == 2,
            hist_shared_bytes: w[10],
            stages_in_rank: w[11] != 0,
        };
        if c.tile == 0 || c.passes == 0 || c.passes > MAX_PASSES {
            return Err(SortError::Unsupported {
                backend: "cuda",
                what: format!("radix image has a bad config {w:?}"),
            });
        }
        Ok(c)
    }

    fn on_device(mut self, gpu: &Gpu, variant: Variant) -> Result<Config, SortError> {
        let names = variant.names();
        // More than 48 KB of dynamic shared memory must be asked for per kernel; where the device
        // cannot give it, inputs of one tile take the multi-block path instead.
        let optin = gpu
            .ctx
            .attribute(CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)
            .map_err(SortError::driver("cuDeviceGetAttribute", 0))?;
        let fits = match names.small {
            Some(name) => opt_in_shared(gpu, name, self.small_shared_bytes, optin)?,
            None => false,
        };
        if !fits {
            self.small_tile = 0;
        }
        // Sweep tiles over 48 KB (policy_radix.cuh) need the same request, and so do the histogram's
        // copies of its counts; without them no input above one tile could sort, so a device that
        // refuses is told plainly.
        require_shared(gpu, names.onesweep, self.sweep_shared_bytes, optin)?;
        require_shared(gpu, names.histogram, self.hist_shared_bytes, optin)?;
        Ok(self)
    }
}

/// The tuning of `variant`'s kernels on `gpu`, read from the image the first time only.
pub(crate) fn config(gpu: &Gpu, variant: Variant) -> Result<Config, SortError> {
    gpu.config::<Config>(variant)
}

/// Lets kernel `name` launch with `bytes` of dynamic shared memory (past 48 KB a kernel must ask);
/// false where the device's per-block limit (`optin`) or the driver refuses it.
fn opt_in_shared(gpu: &Gpu, name: &'static str, bytes: u32, optin: i32) -> Result<bool, SortError> {
    let f = gpu.function(&gpusort_kernels::RADIX, name)?;
    Ok(i64::from(bytes) <= i64::from(optin)
        && f.set_attribute(CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, bytes as i32).is_ok())
}

/// `opt_in_shared` for a kernel every sort above one tile launches: a refusal is an error.
fn require_shared(gpu: &Gpu, name: &'static str, bytes: u32, optin: i32) -> Result<(), SortError> {
    if bytes == 0 || opt_in_shared(gpu, name, bytes, optin)? {
        return Ok(());
    }
    Err(SortError::Unsupported {
        backend: "cuda",
        what: format!("{name} needs {bytes} bytes of shared memory per block; this device gives {optin}"),
    })
}
