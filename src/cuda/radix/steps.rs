//! The sweep's variants one by one, for tests/gpu_radix_steps.rs: the radix_steps image
//! (`kernels-cuda/cuda/radix_steps.cu`) builds the sweep agent with each ranking and look-back
//! variant the sort descriptions choose, on `Kvp` items in small tiles; `sort_kvp` runs a whole
//! sort through one of them (the histogram, plan and copy back of the Kvp set, the steps image's
//! sweep). Public with the `testing` feature only.

use super::config::Config;
use crate::cuda::modules::ImageConfig;
use crate::cuda::Gpu;
use crate::SortError;

/// Declares `STEPS`, the variants by the suffix of their kernel `radix_onesweep_steps_<name>`, and
/// `kernel`, a variant's kernel name.
macro_rules! steps {
    ($($name:literal),* $(,)?) => {
        /// Leader add or not, grouped match ranking (max distinct digits) or not, look-back batch,
        /// early or late look-back, staged in rank or not (radix_steps.cu says which is which).
        #[cfg(feature = "testing")]
        pub const STEPS: &[&str] = &[$($name),*];

        #[cfg(feature = "testing")]
        fn kernel(step: &str) -> Option<&'static str> {
            match step {
                $($name => Some(concat!("radix_onesweep_steps_", $name)),)*
                _ => None,
            }
        }
    };
}

steps!(
    "or_b4",
    "or_leader_b8_late",
    "grouped_leader_b8_late",
    "grouped_b4",
    "staged_grouped_b4",
    "staged_leader_b8_late"
);

/// The steps image's tile shape (`radix_steps_shape`: threads, items per thread).
#[derive(Clone, Copy, Debug)]
struct Shape {
    threads: u32,
    items: usize,
}

impl ImageConfig for Shape {
    const IMAGE: &'static gpusort_kernels::Image = &gpusort_kernels::RADIX_STEPS;
    const WORDS: usize = 2;
    type Key = ();

    fn global(_: ()) -> &'static str {
        "radix_steps_shape"
    }

    fn parse(_: (), words: &[u32]) -> Result<Self, SortError> {
        Ok(Shape { threads: words[0], items: words[1] as usize })
    }
}

/// `cfg` with the steps image's sweep shape, static shared memory and no one-block sort.
pub(super) fn with_steps_shape(gpu: &Gpu, cfg: Config) -> Result<Config, SortError> {
    let s = gpu.config::<Shape>(())?;
    Ok(Config {
        sweep_threads: s.threads,
        tile: s.threads as usize * s.items,
        sweep_shared_bytes: 0,
        small_tile: 0,
        ..cfg
    })
}

/// The steps image's tile: items per sweep block, for choosing edge sizes.
#[cfg(feature = "testing")]
pub fn tile() -> Result<usize, SortError> {
    let gpu = crate::cuda::gpu(0)?;
    let s = gpu.config::<Shape>(())?;
    Ok(s.threads as usize * s.items)
}

/// Sorts a copy of `input` on device 0 through sweep variant `step` (one of `STEPS`).
#[cfg(feature = "testing")]
pub fn sort_kvp(step: &str, input: &[crate::Kvp], order: crate::Order) -> Result<Vec<crate::Kvp>, SortError> {
    use super::{sort, Run, Variant};
    use crate::cuda::scratch::Scratch;
    let kernel = kernel(step).ok_or_else(|| SortError::InvalidArgument(format!("no sweep variant {step}")))?;
    let gpu = crate::cuda::gpu(0)?;
    gpu.ctx.bind_to_thread().map_err(SortError::driver("cuCtxSetCurrent", 0))?;
    let stream = gpu.ctx.new_stream().map_err(SortError::driver("cuStreamCreate", 0))?;
    let bytes = std::mem::size_of_val(input);
    let mut data = stream.clone_htod(input).map_err(SortError::driver("upload", bytes))?;
    let run = Run { steps: Some(kernel), ..Run::FULL };
    let flags = super::order_flags(0, order);
    sort::<crate::Kvp, u32>(&gpu, &stream, Variant::Kvp, &mut data, None, flags, run, Scratch::POOL)?;
    let out = stream.clone_dtoh(&data).map_err(SortError::driver("download", bytes))?;
    stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))?;
    Ok(out)
}
