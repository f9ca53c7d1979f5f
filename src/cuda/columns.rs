//! The kernels of `columns.cu`: a lexsort's radix words packed on the device from its columns,
//! read through the permutation so far (`pack`), and the probe that tells whether a lexsort's top
//! two words left rows tied (`ties`).

use std::sync::Arc;

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DevicePtrMut, DeviceRepr, LaunchConfig};

use super::overlap::{self, Args, Launch};
use super::Gpu;
use crate::columns::{ColumnOrder, Field, Kind, NanAt, NullPlacement, Word};
use crate::{KeyType, SortError};

const THREADS: u32 = 256;

/// A column on the device, by address: `keys` holds one key of `kind` per row, `nulls` (0: none)
/// one byte per row.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Source {
    pub(crate) keys: CUdeviceptr,
    pub(crate) kind: Kind,
    pub(crate) nulls: CUdeviceptr,
    pub(crate) how: ColumnOrder,
}

/// A word the kernels pack: the plan's 32-bit words (`Packing::Dense32`) in the fewest bytes that
/// hold their fields (8, 16 or 32 bits: fewer bytes a radix pass), and the 64-bit key of a probe's
/// top two words.
pub(crate) trait PackWord: DeviceRepr {
    /// The kernels for words of this type: numbers only, and numbers and byte strings.
    const KERNELS: [&'static str; 2];
}

impl PackWord for u8 {
    const KERNELS: [&'static str; 2] = ["columns_pack_u8", "columns_pack_bytes_u8"];
}

impl PackWord for u16 {
    const KERNELS: [&'static str; 2] = ["columns_pack_u16", "columns_pack_bytes_u16"];
}

impl PackWord for u32 {
    const KERNELS: [&'static str; 2] = ["columns_pack_u32", "columns_pack_bytes_u32"];
}

impl PackWord for u64 {
    const KERNELS: [&'static str; 2] = ["columns_pack_u64", "columns_pack_bytes_u64"];
}

/// `columns.cu`'s kind number of byte-string columns (after the key types').
const BYTES: u64 = KeyType::ALL.len() as u64;

/// A field's spec as `columns.cu` reads it.
fn spec(field: &Field) -> u64 {
    let (kind, width) = match field.kind {
        Kind::Number(t) => (KeyType::ALL.iter().position(|&k| k == t).expect("a listed key type") as u64, 0),
        Kind::Bytes(width) => (BYTES, width as u64),
    };
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
        | (field.len as u64) << 37
        | width << 44
}

/// Writes `word`'s bits of rows `perm[i]` (or `i`) of `sources` into `out[i]`, queued on `stream`;
/// zeros instead where `gate` is given and holds 0 (read on the device). Every source holds at
/// least `out.len()` rows, and `perm` (when given) as many positions below that.
pub(crate) fn pack<W: PackWord>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    sources: &[Source],
    word: &Word,
    perm: Option<&CudaSlice<u32>>,
    gate: Option<&CudaSlice<u32>>,
    out: &mut CudaSlice<W>,
) -> Result<(), SortError> {
    assert_eq!(word.wide, size_of::<W>() == 8, "a word packs into keys of its width");
    let n = out.len();
    if n == 0 {
        return Ok(());
    }
    let bytes = word.fields.iter().any(|f| matches!(f.kind, Kind::Bytes(_)));
    let kernel = W::KERNELS[bytes as usize];
    let f = gpu.function(&gpusort_kernels::COLUMNS, kernel)?;
    let blocks = n.div_ceil(THREADS as usize).clamp(1, gpu.multiprocessors as usize * 16) as u32;
    let config = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
    let (pp, _gp) = match perm {
        Some(p) => {
            let (ptr, g) = p.device_ptr(stream);
            (ptr, Some(g))
        }
        None => (0, None),
    };
    let (gp, _gg) = match gate {
        Some(g) => {
            let (ptr, guard) = g.device_ptr(stream);
            (ptr, Some(guard))
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
        args.arg((i > 0) as u32).arg(gp);
        // SAFETY: matches columns_pack_*(W* word, const unsigned* perm, u64 n, const void* a,
        // const u8* a_nulls, u64 a_spec, const void* b, const u8* b_nulls, u64 b_spec, unsigned
        // accumulate, const unsigned* gate): `out` holds n words and is borrowed until the launch
        // is queued; the sources hold n rows each of their kind (the caller's contract), `perm` n
        // positions below n, `gate` one word.
        unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config, &mut args) }
            .map_err(SortError::driver(kernel, 0))?;
    }
    Ok(())
}

/// Sets `ties[0]` to 1 (it holds 0 before) when two neighbours of `top`, the rows' top two words
/// as one key in sorted order, are equal. Queued on `stream`.
pub(crate) fn ties(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    top: &CudaSlice<u64>,
    ties: &mut CudaSlice<u32>,
) -> Result<(), SortError> {
    let n = top.len();
    assert_eq!(ties.len(), 1, "one flag");
    let f = gpu.function(&gpusort_kernels::COLUMNS, "columns_ties")?;
    let blocks = n.div_ceil(THREADS as usize).clamp(1, gpu.multiprocessors as usize * 16) as u32;
    let config = LaunchConfig { grid_dim: (blocks, 1, 1), block_dim: (THREADS, 1, 1), shared_mem_bytes: 0 };
    let ((tp, _gt), (fp, _gf)) = (top.device_ptr(stream), ties.device_ptr_mut(stream));
    let mut args = Args::new();
    args.arg(tp).arg(n as u64).arg(fp);
    // SAFETY: matches columns_ties(const u64* top, u64 n, unsigned* ties): `top` holds n keys,
    // `ties` one word, both borrowed until the launch is queued.
    unsafe { overlap::launch(gpu, stream, &f, Launch::Plain, config, &mut args) }
        .map_err(SortError::driver("columns_ties", 0))
}
