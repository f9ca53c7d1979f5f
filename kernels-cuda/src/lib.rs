//! gpusort's CUDA kernels, compiled ahead of time by the pinned nvcc into fatbins that are
//! committed with the sources (`build-images.sh` rebuilds them). Each fatbin carries PTX for
//! compute capability 7.5, which newer GPUs JIT-compile, and SASS for the common newer GPUs
//! (`nvcc.flags`). This crate has no dependencies and needs no CUDA install to build.
//!
//! A host program hands an image's bytes to the driver (`cuModuleLoadData`); the `gpusort` crate
//! does that once per device.
//!
//! ```
//! for image in gpusort_kernels::ALL {
//!     // Every fatbin starts with its magic number 0xBA55ED50 (little endian).
//!     assert_eq!(image.bytes[..4], [0x50, 0xed, 0x55, 0xba], "{}", image.name);
//! }
//! assert_eq!(gpusort_kernels::RADIX.name, "radix");
//! ```

#![warn(missing_docs)]

/// One compiled kernel image: a fatbin the driver loads as a module.
///
/// ```
/// let net = gpusort_kernels::ALL.iter().find(|i| i.name == "network").expect("built");
/// assert!(net.bytes.len() > 1000);
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Image {
    /// The source's stem: `cuda/<name>.cu`.
    pub name: &'static str,
    /// The fatbin, embedded at compile time from `images/<name>.fatbin`.
    pub bytes: &'static [u8],
}

include!("images.rs");
