//! The one error type of gpusort.

use cudarc::driver::DriverError;

/// Why a sort or a backend could not be had. A sort that returns an error leaves the caller's
/// data as it was.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SortError {
    /// libcuda could not be loaded: no NVIDIA driver on this machine.
    #[error("no CUDA driver found (libcuda could not be loaded)")]
    NoDriver,
    /// The driver loaded but offers no usable device.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// A driver call failed.
    #[error("CUDA driver error in {op}: {source}")]
    Driver {
        op: &'static str,
        #[source]
        source: DriverError,
    },
    /// The device, or the host for a CPU sort, could not hold the data and the scratch space
    /// the sort needs; `op` says which allocation failed.
    #[error("out of memory ({op}, {bytes} bytes requested)")]
    OutOfMemory { op: &'static str, bytes: usize },
    /// The backend cannot do what was asked (an algorithm, a type, an old GPU).
    #[error("unsupported on the {backend} backend: {what}")]
    Unsupported { backend: &'static str, what: String },
    /// The arguments make no sense (slices of different lengths, say).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The committed kernel image could not be loaded on this device.
    #[error("kernel image `{image}` could not be loaded: {source}")]
    KernelImage {
        image: &'static str,
        #[source]
        source: DriverError,
    },
}

impl SortError {
    /// Wraps a driver error from the call named `op`, telling memory exhaustion apart.
    pub(crate) fn driver(op: &'static str, bytes: usize) -> impl FnOnce(DriverError) -> SortError {
        move |e| {
            if e.0 == cudarc::driver::sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY {
                SortError::OutOfMemory { op, bytes }
            } else {
                SortError::Driver { op, source: e }
            }
        }
    }
}
