//! gpusort's CUDA kernels, compiled ahead of time by the pinned nvcc into fatbins that are
//! committed with the sources (`build-images.sh` rebuilds them). Each fatbin carries PTX for
//! compute capability 7.5, which newer GPUs JIT-compile, and SASS for the common newer GPUs
//! (`nvcc.flags`). This crate has no dependencies and needs no CUDA install to build.

/// One compiled kernel image: a fatbin the driver loads as a module.
#[derive(Clone, Copy, Debug)]
pub struct Image {
    /// The source's stem: `cuda/<name>.cu`.
    pub name: &'static str,
    pub bytes: &'static [u8],
}

include!("images.rs");
