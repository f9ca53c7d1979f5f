//! Kernel modules, loaded once per device from the committed images and cached with their
//! functions.
//!
//! `GPUSORT_KERNELS_DIR=<dir>` loads `<dir>/<image>.fatbin` (or `.cubin`, `.ptx`) instead of the
//! embedded image: kernel developers iterate on the GPU machine with its nvcc, no Rust rebuild.
//! Honoured in debug builds and with the `testing` feature only (`config.rs`): a release build runs
//! the images it was built with.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use gpusort_kernels::Image;

use crate::SortError;

#[derive(Default)]
pub(crate) struct ModuleCache {
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    functions: Mutex<HashMap<(&'static str, &'static str), CudaFunction>>,
}

impl ModuleCache {
    pub(crate) fn module(&self, ctx: &Arc<CudaContext>, image: &'static Image) -> Result<Arc<CudaModule>, SortError> {
        let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(m) = modules.get(image.name) {
            return Ok(m.clone());
        }
        let bytes = override_image(image.name).unwrap_or_else(|| image.bytes.to_vec());
        let ptx = if bytes.starts_with(b"//") || bytes.starts_with(b".version") {
            Ptx::from_src(String::from_utf8_lossy(&bytes).into_owned())
        } else {
            Ptx::from_binary(bytes)
        };
        let m = ctx.load_module(ptx).map_err(|source| SortError::KernelImage { image: image.name, source })?;
        modules.insert(image.name, m.clone());
        Ok(m)
    }

    pub(crate) fn function(
        &self,
        ctx: &Arc<CudaContext>,
        image: &'static Image,
        kernel: &'static str,
    ) -> Result<CudaFunction, SortError> {
        if let Some(f) = self.functions.lock().unwrap_or_else(|p| p.into_inner()).get(&(image.name, kernel)) {
            return Ok(f.clone());
        }
        let f = self
            .module(ctx, image)?
            .load_function(kernel)
            .map_err(|source| SortError::KernelImage { image: image.name, source })?;
        self.functions.lock().unwrap_or_else(|p| p.into_inner()).insert((image.name, kernel), f.clone());
        Ok(f)
    }
}

fn override_image(name: &str) -> Option<Vec<u8>> {
    let dir = crate::config::get().kernels_dir.as_ref()?;
    ["fatbin", "cubin", "ptx"].iter().find_map(|ext| std::fs::read(dir.join(format!("{name}.{ext}"))).ok())
}
