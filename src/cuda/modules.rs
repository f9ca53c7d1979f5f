//! Kernel modules, loaded once per device from the committed images and cached with their
//! functions and the config globals the images export (`ImageConfig`).
//!
//! `GPUSORT_KERNELS_DIR=<dir>` loads `<dir>/<image>.fatbin` (or `.cubin`, `.ptx`) instead of the
//! embedded image: kernel developers iterate on the GPU machine with its nvcc, no Rust rebuild.
//! Honoured in debug builds and with the `testing` feature only (`config.rs`): a release build runs
//! the images it was built with.

use std::any::{Any, TypeId};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use cudarc::driver::{CudaContext, CudaFunction, CudaModule};
use cudarc::nvrtc::Ptx;
use gpusort_kernels::Image;

use super::Gpu;
use crate::SortError;

/// A config global of an image (`__device__ unsigned <name>[WORDS]`) that the host sizes its
/// launches by. It is compiled per architecture, so it is read from the loaded module, once per
/// device (`Gpu::config`).
pub(crate) trait ImageConfig: Clone + Send + Sync + 'static {
    /// The image that exports it.
    const IMAGE: &'static Image;
    /// Its length in 4-byte words: a global of another length (an image built for another layout,
    /// through `GPUSORT_KERNELS_DIR`) is refused, not misread.
    const WORDS: usize;
    /// Which of the image's configs: `()` where it has one.
    type Key: Copy;

    /// The global's name for `key`.
    fn global(key: Self::Key) -> &'static str;

    /// The config the words describe; `SortError::Unsupported` for numbers the host cannot use.
    fn parse(key: Self::Key, words: &[u32]) -> Result<Self, SortError>;

    /// What the device must grant before the first launch this config sizes (shared memory past
    /// 48 KB), asked once with the read; what it returns is cached.
    fn on_device(self, _gpu: &Gpu, _key: Self::Key) -> Result<Self, SortError> {
        Ok(self)
    }
}

#[derive(Default)]
pub(crate) struct ModuleCache {
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    functions: Mutex<HashMap<(&'static str, &'static str), CudaFunction>>,
    configs: Mutex<Configs>,
}

/// Parsed `ImageConfig`s by type and global.
type Configs = HashMap<(TypeId, &'static str), Box<dyn Any + Send + Sync>>;

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

    /// The config `key` of `C`, where one was cached.
    pub(crate) fn cached_config<C: ImageConfig>(&self, key: C::Key) -> Option<C> {
        let configs = self.configs.lock().unwrap_or_else(|p| p.into_inner());
        configs.get(&(TypeId::of::<C>(), C::global(key)))?.downcast_ref::<C>().cloned()
    }

    pub(crate) fn cache_config<C: ImageConfig>(&self, key: C::Key, config: C) {
        let mut configs = self.configs.lock().unwrap_or_else(|p| p.into_inner());
        configs.insert((TypeId::of::<C>(), C::global(key)), Box::new(config));
    }

    /// The words of `C`'s global `key`, checked for its length: one blocking copy on a private
    /// stream, so no caller's queued work is waited for.
    pub(crate) fn config_words<C: ImageConfig>(
        &self,
        ctx: &Arc<CudaContext>,
        key: C::Key,
    ) -> Result<Vec<u32>, SortError> {
        let (image, name, bytes) = (C::IMAGE, C::global(key), C::WORDS * 4);
        let module = self.module(ctx, image)?;
        let stream = ctx.new_stream().map_err(SortError::driver("cuStreamCreate", 0))?;
        let global = module.get_global(name, &stream).map_err(SortError::driver("cuModuleGetGlobal", 0))?;
        if global.len() != bytes {
            let what = format!("{} image's {name} holds {} bytes, not {bytes}", image.name, global.len());
            return Err(SortError::Unsupported { backend: "cuda", what });
        }
        let mut raw = vec![0u8; bytes];
        stream.memcpy_dtoh(&global, &mut raw[..]).map_err(SortError::driver("read kernel image config", bytes))?;
        stream.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0))?;
        Ok(raw.chunks_exact(4).map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]])).collect())
    }
}

fn override_image(name: &str) -> Option<Vec<u8>> {
    let dir = crate::config::get().kernels_dir.as_ref()?;
    ["fatbin", "cubin", "ptx"].iter().find_map(|ext| std::fs::read(dir.join(format!("{name}.{ext}"))).ok())
}
