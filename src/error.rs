//! The one error type of gpusort.

#[cfg(feature = "cuda")]
use cudarc::driver::DriverError;

/// Why a sort or a backend could not be had. A sort that returns an error leaves the caller's
/// data as it was.
#[derive(Debug, Clone, thiserror::Error)]
#[non_exhaustive]
pub enum SortError {
    /// libcuda could not be loaded: no NVIDIA driver on this machine, or gpusort was built
    /// without its `cuda` feature.
    #[cfg_attr(feature = "cuda", error("no CUDA driver found (libcuda could not be loaded)"))]
    #[cfg_attr(not(feature = "cuda"), error("no CUDA driver: gpusort was built without its `cuda` feature"))]
    NoDriver,
    /// The driver loaded but offers no usable device.
    #[error("no CUDA device: {0}")]
    NoDevice(String),
    /// A driver call failed.
    #[cfg(feature = "cuda")]
    #[error("CUDA driver error in {op}: {source}")]
    Driver {
        /// The driver call.
        op: &'static str,
        /// What the driver said.
        #[source]
        source: DriverError,
    },
    /// The device, or the host for a CPU sort, could not hold the data and the scratch space
    /// the sort needs; `op` says which allocation failed.
    #[error("out of memory ({op}, {bytes} bytes requested)")]
    OutOfMemory {
        /// The allocation that failed.
        op: &'static str,
        /// Its size.
        bytes: usize,
    },
    /// The backend cannot do what was asked (an algorithm, a type, an old GPU).
    #[error("unsupported on the {backend} backend: {what}")]
    Unsupported {
        /// `"cpu"` or `"cuda"`.
        backend: &'static str,
        /// What it cannot do, and what to use instead where there is something.
        what: String,
    },
    /// The arguments make no sense (slices of different lengths, say).
    #[error("invalid argument: {0}")]
    InvalidArgument(String),
    /// The committed kernel image could not be loaded on this device.
    #[cfg(feature = "cuda")]
    #[error("kernel image `{image}` could not be loaded: {source}")]
    KernelImage {
        /// The image's name.
        image: &'static str,
        /// What the driver said.
        #[source]
        source: DriverError,
    },
    /// The environment asks for something gpusort does not know (`GPUSORT_BACKEND=gpuu`): the
    /// message names the variable, its value and the accepted values. Sorters whose behaviour it
    /// would have decided refuse to sort rather than sort elsewhere than asked.
    #[error("configuration: {0}")]
    Config(String),
    /// Reading or writing a file failed (a file sort): `op` says what was being done and to which
    /// file, `source` what the system said (a full disk is `StorageFull`).
    #[error("{op}: {source}")]
    Io {
        /// What failed, naming the file.
        op: String,
        /// The system's error.
        #[source]
        source: std::sync::Arc<std::io::Error>,
    },
    /// The caller stopped the sort (a progress callback asked to); nothing was written under the
    /// output's name and the sort's scratch files are gone.
    #[error("cancelled by the caller")]
    Cancelled,
}

impl SortError {
    /// Wraps an I/O error from `op` (which names the file).
    pub(crate) fn io(op: impl Into<String>) -> impl FnOnce(std::io::Error) -> SortError {
        move |e| SortError::Io { op: op.into(), source: std::sync::Arc::new(e) }
    }

    /// `InvalidArgument` unless split pairs have one value per key.
    pub(crate) fn check_pair_lengths(keys: usize, values: usize) -> Result<(), SortError> {
        match keys == values {
            true => Ok(()),
            false => Err(SortError::InvalidArgument(format!(
                "{keys} keys but {values} values: split pairs need one value per key"
            ))),
        }
    }
}

#[cfg(feature = "cuda")]
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
