//! Argsort on the device, one pipeline for host and device callers: the keys are read where they
//! lie (or go up at their own width, small keys as their 32-bit ordered bits), the positions are
//! made on the device (`positions::iota`) and sorted with the keys as split pairs, then widened
//! there when the caller takes 64-bit indices. A host caller gets only the positions back,
//! downloaded straight into its output.
//!
//! On failure the output holds its earlier contents or the complete result: nothing is written to
//! it before the first downloaded chunk has arrived (the upload and the sort have succeeded), and
//! a download that fails after some chunks were written is completed on the CPU from the keys,
//! which are never written.
//!
//! Out of core (keys past the device budget) and spread over several devices, 32-bit keys take
//! the `Kvp` host path instead (`hostdata::ArgsortAsKvp`: 8 bytes a key each way), 64-bit keys
//! runs of split pairs merged on the host (`CudaBackend::argsort_wide`).

use std::mem::size_of;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DeviceRepr, ValidAsZeroBits};

use super::device::Gpu;
use super::dispatch::DeviceSort;
use super::host_keys::Bits32;
use super::hostdata::{ArgsortAsKvp, Direct, HostSource};
use super::pinned::{page_locked, Pinned};
use super::positions;
use super::radix::{self, RadixKey};
use super::staging::Plain;
use super::transfer::{begin, chunks, device_buffer, download, driver, finish, lease_bytes, upload};
use super::{inplace, split_need, CudaBackend};
use crate::backend::Position;
use crate::hooks::{self, Step};
use crate::hostcopy::par_pieces;
use crate::{Kvp, SortError, SortKey};

/// A position width the device writes: `u32` as the sort leaves it, `u64` widened on the device.
pub(crate) trait DevicePosition: Position + Plain + DeviceRepr + ValidAsZeroBits {
    /// Sorts `keys` (scratch, overwritten) with their positions, which land in `out`.
    fn sort_into<K: RadixKey>(
        sort: &DeviceSort,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<K>,
        out: &mut CudaSlice<Self>,
    ) -> Result<(), SortError>;

    /// `out[i] = narrow[i]` at this width, queued on `stream`.
    fn widen_from(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        narrow: &CudaSlice<u32>,
        out: &mut CudaSlice<Self>,
    ) -> Result<(), SortError>;
}

impl DevicePosition for u32 {
    fn sort_into<K: RadixKey>(
        sort: &DeviceSort,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<K>,
        out: &mut CudaSlice<u32>,
    ) -> Result<(), SortError> {
        positions::iota(sort.gpu, stream, out)?;
        hooks::hit(Step::Sort)?;
        sort.run_pairs(stream, keys, out)
    }

    fn widen_from(
        _gpu: &Gpu,
        stream: &Arc<CudaStream>,
        narrow: &CudaSlice<u32>,
        out: &mut CudaSlice<u32>,
    ) -> Result<(), SortError> {
        stream.memcpy_dtod(narrow, out).map_err(driver("copy of the positions (device)", narrow.len() * 4))
    }
}

impl DevicePosition for u64 {
    fn sort_into<K: RadixKey>(
        sort: &DeviceSort,
        stream: &Arc<CudaStream>,
        keys: &mut CudaSlice<K>,
        out: &mut CudaSlice<u64>,
    ) -> Result<(), SortError> {
        let mut narrow = sort.scratch.buffer::<u32>(stream, keys.len())?;
        u32::sort_into(sort, stream, keys, &mut narrow)?;
        positions::widen(sort.gpu, stream, &*narrow, out)
    }

    fn widen_from(
        gpu: &Gpu,
        stream: &Arc<CudaStream>,
        narrow: &CudaSlice<u32>,
        out: &mut CudaSlice<u64>,
    ) -> Result<(), SortError> {
        positions::widen(gpu, stream, narrow, out)
    }
}

/// Device bytes an argsort of `n` keys of `K` into positions of `P` needs: the keys' split-pairs
/// sort, and the widened positions beside the sorted ones.
pub(crate) fn need_bytes<K, P>(n: usize) -> usize {
    let wide = if size_of::<P>() > 4 { size_of::<P>() } else { 0 };
    split_need::<K>(n).1.saturating_add(n.saturating_mul(wide))
}

/// The permutation of device-resident `keys` into `out`, on `stream`: the keys are only read (8-
/// and 16-bit keys in place by `radix::argsort_narrow`, others through a scratch copy sorted as
/// pairs).
pub(crate) fn device<K: RadixKey + DeviceRepr + ValidAsZeroBits, P: DevicePosition>(
    sort: &DeviceSort,
    stream: &Arc<CudaStream>,
    keys: &CudaSlice<K>,
    out: &mut CudaSlice<P>,
) -> Result<(), SortError> {
    SortError::check_pair_lengths(keys.len(), out.len())?;
    if keys.is_empty() {
        return Ok(());
    }
    // 8- and 16-bit keys past one tile: one sort that reads them in place and writes `out` itself.
    hooks::hit(Step::Sort)?;
    if radix::argsort_narrow(sort.gpu, stream, keys, out, sort.order, sort.scratch)? {
        return Ok(());
    }
    let mut copy = sort.scratch.buffer::<K>(stream, keys.len())?;
    let bytes = keys.len() * size_of::<K>();
    stream.memcpy_dtod(keys, &mut *copy).map_err(driver("copy of the keys (device)", bytes))?;
    P::sort_into(sort, stream, &mut copy, out)
}

/// The permutation of host `keys` into `out`: the keys up, the positions down (see the module
/// docs for what `out` holds after a failure; `complete` writes the whole result on the CPU).
pub(crate) fn round_trip<S, P>(
    gpu: &Gpu,
    keys: &S,
    out: &mut [P],
    sort: &DeviceSort,
    complete: impl FnOnce(&mut [P]),
) -> Result<(), SortError>
where
    S: HostSource,
    S::Item: RadixKey,
    P: DevicePosition,
{
    let n = keys.len();
    debug_assert_eq!(n, out.len());
    let (ck, cp) = (chunks::<S::Item>(n), chunks::<P>(n));
    let stream = begin(gpu)?;
    let key_bytes = n * size_of::<S::Item>();
    let (mut lease, held) =
        lease_bytes(gpu, key_bytes, (ck.ring * size_of::<S::Item>()).max(cp.ring * size_of::<P>()))?;
    let (held_keys, ring) = lease.held_and_pinned_ring::<S::Item>(if held { n } else { 0 });
    // Leading items of `out` a download may have written.
    let mut written = 0;
    let result = (|| {
        let mut dk = device_buffer::<S::Item>(&stream, n)?;
        let mut dout = device_buffer::<P>(&stream, n)?;
        match keys.items().filter(|k| inplace::pays(key_bytes) && page_locked(k)) {
            Some(items) => {
                hooks::in_place();
                for (a, b) in inplace::spans(n, ck.chunk) {
                    hooks::hit(Step::Upload)?;
                    let bytes = (b - a) * size_of::<S::Item>();
                    stream
                        .memcpy_htod(&items[a..b], &mut dk.slice_mut(a..b))
                        .map_err(driver("copy to device", bytes))?;
                }
            }
            None => {
                let room = if held { held_keys } else { ring.view::<S::Item>(0, ck.ring) };
                upload(&stream, keys, 0, room, &mut dk, ck.chunk)?;
            }
        }
        P::sort_into(sort, &stream, &mut dk, &mut dout)?;
        drop(dk);
        download_positions(&stream, &dout, out, ring, &mut written)
    })();
    let result = finish(&stream, result);
    if result.is_err() && written > 0 {
        complete(out);
    }
    result
}

/// Queues the download of the sorted positions `dout` into `out`: by the copy engine in place when
/// `out` is page-locked, else through `ring` once `out`'s pages are mapped (while the device still
/// sorts). `written` is how many leading items of `out` may have been written, on error too.
pub(crate) fn download_positions<P: DevicePosition>(
    stream: &Arc<CudaStream>,
    dout: &CudaSlice<P>,
    out: &mut [P],
    ring: &mut Pinned,
    written: &mut usize,
) -> Result<(), SortError> {
    let cp = chunks::<P>(out.len());
    if inplace::pays(size_of_val(out)) && page_locked(out) {
        return inplace::download_direct(stream, dout, out, cp.chunk, written);
    }
    map_pages(out);
    let ring = ring.view::<P>(0, cp.ring);
    download(stream, &dout.as_view(), &mut Direct(&mut *out), 0, ring, cp.chunk).map_err(|(e, w)| {
        *written = w;
        e
    })
}

/// Maps the pages of `out` that are not mapped yet, on all cores, while the device sorts, and
/// leaves what it holds as it was: a fresh output (NumPy's `empty`, a zeroed `Vec`) would
/// otherwise fault its pages in one by one as the positions come down.
fn map_pages<P: Plain>(out: &mut [P]) {
    let per_page = (4096 / size_of::<P>()).max(1);
    par_pieces(out, |o, _| {
        for i in (0..o.len()).step_by(per_page) {
            // SAFETY: `i` is inside `o`, which this piece borrows alone; the value written back is
            // the one read, so the contents stay as they were.
            unsafe {
                let p = o.as_mut_ptr().add(i);
                p.write_volatile(p.read_volatile());
            }
        }
    });
}

impl CudaBackend {
    /// Argsort of host `keys`, staged as `source` (as they are, or as their 32-bit ordered bits):
    /// one round trip where it fits the device budget on one device, else `beyond` (out of core,
    /// or spread over the sorter's devices).
    pub(crate) fn argsort_host<K, S, P>(
        &self,
        keys: &[K],
        source: &S,
        out: &mut [P],
        sort: DeviceSort,
        beyond: impl FnOnce(&mut [P]) -> Result<(), SortError>,
    ) -> Result<(), SortError>
    where
        K: SortKey,
        S: HostSource,
        S::Item: RadixKey,
        P: DevicePosition,
    {
        let n = out.len();
        let need = need_bytes::<S::Item, P>(n);
        let spreads = size_of::<S::Item>() == 4 && self.spreads::<Kvp>(n, sort.algorithm)?;
        if spreads || self.budget(need)?.is_some_and(|limit| need > limit) {
            return beyond(out);
        }
        // The CPU's argsort writes `out` only once it has succeeded.
        let complete = |out: &mut [P]| {
            let _ = crate::cpu::argsort(keys, out, sort.order);
        };
        round_trip(&self.gpu, source, out, &sort, complete)
    }

    /// Argsort of 32-bit (and smaller) keys past the device budget or over several devices: staged
    /// as `Kvp`s with their positions (`hostdata::ArgsortAsKvp`), the positions coming back.
    pub(crate) fn argsort_kvp<K: Bits32 + Plain, P: DevicePosition>(
        &self,
        keys: &[K],
        out: &mut [P],
        sort: DeviceSort,
    ) -> Result<(), SortError> {
        self.host_sort(&mut ArgsortAsKvp { keys, out, first: 0 }, sort)
    }
}
