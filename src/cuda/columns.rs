//! The kernels of `columns.cu`: a lexsort's radix words packed on the device from its columns,
//! read through the permutation so far (`pack`).

use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, LaunchConfig};

use super::overlap::{self, Args, Launch};
use super::Gpu;
use crate::columns::{ColumnOrder, Field, NanAt, NullPlacement, Word};
use crate::{KeyType, SortError};

const THREADS: u32 = 256;

/// A column on the device, by address: `keys` holds one key of `key_type` per row, `nulls` (0:
/// none) one byte per row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source {
    pub(crate) keys: CUdeviceptr,
    pub(crate) key_type: KeyType,
    pub(crate) nulls: CUdeviceptr,
    pub(crate) how: ColumnOrder,
}

/// The kernel that packs a word: the device plan's words are 32-bit keys (`Packing::Dense32`).
const KERNEL: &str = "columns_pack_u32";

/// A field's spec as `columns.cu` reads it.
fn spec(field: &Field) -> u64 {
    let kind = KeyType::ALL.iter().position(|&t| t == field.key_type).expect("a listed key type") as u64;
    let nan = match field.how.nan_at() {
        NanAt::Bits => 0,
        NanAt::Last => 1,
        NanAt::First => 2,
    };
    kind | (field.shift as u64) << 8
        | (field.how.descending() as u64) << 16
        | (field.nullable as u64) << 17
        | ((field.how.nulls == NullPlacement::Last) as u64) << 18
        | nan << 19
        | (field.lo as u64) << 21
        | (field.len as u64) << 28
}

/// Writes `word`'s bits of rows `perm[i]` (or `i`) of `sources` into `out[i]`, queued on `stream`.
/// Every source holds at least `out.len()` rows, and `perm` (when given) as many positions below
/// that.
pub(crate) fn pack(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    sources: &[Source],
    word: &Word,
    perm: Option<&CudaSlice<u32>>,
    out: &mut CudaSlice<u32>,
) -> Result<(), SortError> {
    assert!(!word.wide, "the device plan packs 32-bit words");
    let n = out.len();
    if n == 0 {
        return Ok(());
    }
    let f = gpu.function(&gpusort_kernels::COLUMNS, KERNEL)?;
    let blocks = n.div_ceil(THREADS as usize).clamp(1, gpu.multiprocessors as usize * 16) as u32;
    let config = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
    let (pp, _gp) = match perm {
        Some(p) => {
            let (ptr, g) = p.device_ptr(stream);
            (ptr, Some(g))
        }
        None => (0, None),
    };
    let (op, _go) = out.device_ptr_mut(stream);
    for (i, pair) in word.fields.chunks(2).enumerate() {
        let a = (&sources[pair[0].column], spec(&pair[0]));
        let b = pair.get(1).map_or((0, 0, 0), |f| (sources[f.column].keys, sources[f.column].nulls, spec(f)));
        let mut args = Args::new();
        args.arg(op).arg(pp).arg(n as u64);
        args.arg(a.0.keys).arg(a.0.nulls).arg(a.1);
        args.arg(b.0).arg(b.1).arg(b.2);
        args.arg((i > 0) as u32);
        // SAFETY: matches columns_pack_u32(unsigned* word, const unsigned* perm, u64 n, const void* a,
        // const u8* a_nulls, u64 a_spec, const void* b, const u8* b_nulls, u64 b_spec, unsigned
        // accumulate): `out` holds n words and is borrowed until the launch is queued; the sources
        // hold n rows each of their key type (the caller's contract), `perm` n positions below n.
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config, &mut args) }
            .map_err(SortError::driver(KERNEL, 0))?;
    }
    Ok(())
}
