//! One host sort spread over several devices, or over several partitions of one device (each
//! with its own stream, staging and buffers: how the tests run it on one GPU).
//!
//! The input is cut into equal consecutive shares, one per device, and the steps run in lockstep
//! from one thread, each device's copies overlapping the others':
//! 1. every share goes up through its device's pinned staging (`transfer::Upload`, one chunk per
//!    device in turn, so every PCIe link is busy at once) and is sorted there (stable radix);
//! 2. `ranks::cuts` finds where the global rank boundaries fall in every sorted share;
//! 3. each device gathers the pieces of its rank range from every share, peer to peer (NVLink
//!    where present; the driver stages through the host where peers cannot reach each other),
//!    in share order, and merges them back into its share buffer (`merge`), stably: equal keys
//!    stay in share order, which is input order;
//! 4. every device's range comes back into the caller's data at its own place, in turn.
//!
//! Data already on the devices (`sort_device`) takes steps 2 and 3 alone, after each share is
//! sorted where it is.
//!
//! Device `d`'s range covers the same positions as its share, so the caller's data is left as
//! `incore::round_trip` leaves it: nothing is written before the first downloaded chunk arrives;
//! shares whose input the held buffer keeps are put back from it when any download fails, and
//! the others land in host scratch first and reach the caller only when every download is over.

mod across;
pub(crate) mod merge;
mod ranks;

use std::sync::Arc;

use cudarc::driver::{sys, CudaSlice, CudaStream, CudaView};

use super::device::{Gpu, KeepCurrent};
use super::dispatch::{DeviceItem, DeviceSort};
use super::hostdata::{Direct, HostData, ZeroedBuf};
use super::staging::Lease;
use super::transfer::{begin, chunks, device_buffer, lease, Chunks, Download, Upload};
use crate::hooks::{self, Step};
use crate::{Algorithm, Order, SortError};

/// Where share `i` of `n` items cut into `shares` starts.
pub(crate) fn share_start(n: usize, shares: usize, i: usize) -> usize {
    (n / shares) * i + i.min(n % shares)
}

/// Sorts `data` in place over `gpus` (one share each; see the module docs for what the caller's
/// data holds after a failure). Every share must hold at least one item.
pub(crate) fn sort<H: HostData>(gpus: &[Arc<Gpu>], data: &mut H, order: Order) -> Result<(), SortError>
where
    H::Item: DeviceItem,
{
    let n = data.len();
    let devices = gpus.len();
    assert!(devices >= 2 && n >= devices, "{n} items over {devices} devices");
    let bounds: Vec<usize> = (0..=devices).map(|i| share_start(n, devices, i)).collect();
    let mut parts = data.parts(&bounds[1..devices]);
    // Each device's work binds its context; the caller's (the first device's, bound by the
    // backend) is current again after.
    let _keep = KeepCurrent::save(None)?;

    let begun = gpus.iter().map(|g| begin(g)).collect::<Result<Vec<_>, _>>()?;
    let streams: Vec<Arc<CudaStream>> = begun.iter().map(|b| Arc::clone(b)).collect();
    let sizes: Vec<Chunks> = parts.iter().map(|p| chunks::<H::Item>(p.len())).collect();
    // Outside the steps: the pinned buffers must outlive every copy, also after a failure.
    let mut leases: Vec<(Lease<'_>, usize)> = Vec::with_capacity(devices);
    let result = (|| {
        for ((gpu, part), c) in gpus.iter().zip(&parts).zip(&sizes) {
            leases.push(lease::<H::Item>(gpu, part.len(), *c)?);
        }
        let (mut helds, mut rings): (Vec<_>, Vec<_>) = leases
            .iter_mut()
            .zip(&sizes)
            .map(|((lease, held), c)| lease.held_and_ring::<H::Item>(*held, c.ring))
            .unzip();
        // Shares whose input the held buffer cannot keep come back through host scratch, had
        // before any GPU work.
        let mut scratch = parts
            .iter()
            .zip(&helds)
            .map(|(p, h)| if h.is_empty() { ZeroedBuf::<H::Item>::new(p.len()).map(Some) } else { Ok(None) })
            .collect::<Result<Vec<_>, _>>()?;

        let mut shares = Vec::with_capacity(devices);
        for (stream, part) in streams.iter().zip(&parts) {
            shares.push(device_buffer::<H::Item>(stream, part.len())?);
        }
        upload_all(&streams, &parts, &mut helds, &mut rings, &mut shares, &sizes)?;
        for (gpu, (stream, share)) in gpus.iter().zip(streams.iter().zip(&mut shares)) {
            hooks::hit(Step::Sort)?;
            radix_sort(gpu, order).run(stream, share)?;
        }
        let mut refs: Vec<&mut CudaSlice<H::Item>> = shares.iter_mut().collect();
        redistribute(gpus, &streams, &mut refs, order)?;

        let views: Vec<CudaView<'_, H::Item>> = shares.iter().map(CudaSlice::as_view).collect();
        download_all(&streams, &views, &mut parts, &helds, &mut rings, &mut scratch, &sizes)?;
        for (part, buf) in parts.iter_mut().zip(&scratch) {
            if let Some(buf) = buf {
                part.scatter(0, buf.as_slice());
            }
        }
        Ok(())
    })();
    // Every copy that reads or writes pinned memory must be over before the leases end.
    result.and(sync_all(&streams))
}

fn radix_sort(gpu: &Gpu, order: Order) -> DeviceSort<'_> {
    DeviceSort::new(gpu, order, Algorithm::Radix)
}

fn sync_all(streams: &[Arc<CudaStream>]) -> Result<(), SortError> {
    let mut first = Ok(());
    for s in streams {
        let r = s.synchronize().map_err(SortError::driver("cuStreamSynchronize", 0));
        first = first.and(r);
    }
    first
}

/// Steps 2 and 3 on shares sorted (or being sorted) on `streams`: once queued, share `d` holds the
/// items of global ranks `bounds[d]..bounds[d + 1]` of the shares' concatenation, sorted, where
/// `bounds` are the shares' own places in it.
fn redistribute<T: DeviceItem>(
    gpus: &[Arc<Gpu>],
    streams: &[Arc<CudaStream>],
    shares: &mut [&mut CudaSlice<T>],
    order: Order,
) -> Result<(), SortError> {
    sync_all(streams)?;
    let mut bounds = vec![0];
    for s in shares.iter() {
        bounds.push(bounds[bounds.len() - 1] + s.len());
    }
    let cuts = ranks::cuts(gpus, streams, shares, &bounds, order)?;
    let mut ranges = exchange(streams, shares, &cuts, &bounds)?;
    for (d, (range, share)) in ranges.iter_mut().zip(shares.iter_mut()).enumerate() {
        hooks::hit(Step::Exchange)?;
        merge::merge_pieces(&gpus[d], &streams[d], range, &piece_starts(&cuts, d), share, order)?;
    }
    Ok(())
}

/// Where each share's piece starts in device `d`'s range: the pieces lie in share order.
fn piece_starts(cuts: &[Vec<usize>], d: usize) -> Vec<usize> {
    let mut at = 0;
    cuts.iter()
        .map(|cut| {
            let start = at;
            at += cut[d + 1] - cut[d];
            start
        })
        .collect()
}

/// Sorts the concatenation of device buffers, each on its own device (`streams[i]` is on
/// `gpus[i]`): each is sorted where it is, then steps 2 and 3 leave the items of its own places
/// in the concatenation in it. Queued on the streams; returns after the exchange.
pub(crate) fn sort_device<T: DeviceItem>(
    gpus: &[Arc<Gpu>],
    streams: &[Arc<CudaStream>],
    shares: &mut [&mut CudaSlice<T>],
    order: Order,
) -> Result<(), SortError> {
    let _keep = KeepCurrent::save(None)?;
    connect(gpus);
    for (gpu, (stream, share)) in gpus.iter().zip(streams.iter().zip(shares.iter_mut())) {
        if share.len() > 1 {
            radix_sort(gpu, order).run(stream, share)?;
        }
    }
    redistribute(gpus, streams, shares, order)
}

/// Step 1's copies: one chunk per device in turn (each `Upload::step` gathers on all cores, while
/// the other devices' copy engines move what was gathered before).
fn upload_all<P: HostData>(
    streams: &[Arc<CudaStream>],
    parts: &[P],
    helds: &mut [&mut [P::Item]],
    rings: &mut [&mut [P::Item]],
    shares: &mut [CudaSlice<P::Item>],
    sizes: &[Chunks],
) -> Result<(), SortError> {
    let mut ups = Vec::with_capacity(streams.len());
    for ((((stream, part), held), ring), (share, c)) in
        streams.iter().zip(parts).zip(helds.iter_mut()).zip(rings.iter_mut()).zip(shares.iter_mut().zip(sizes))
    {
        let room: &mut [P::Item] = if held.is_empty() { ring } else { held };
        ups.push(Upload::new(stream, part, 0, room, share, c.chunk));
    }
    let mut busy = true;
    while busy {
        busy = false;
        for up in &mut ups {
            busy |= up.step()?;
        }
    }
    Ok(())
}

/// Step 3: device `d` gathers `cuts[g][d]..cuts[g][d + 1]` of every sorted share `g`, in share
/// order, on its own stream; returns once every copy is over.
fn exchange<T: DeviceItem>(
    streams: &[Arc<CudaStream>],
    shares: &[&mut CudaSlice<T>],
    cuts: &[Vec<usize>],
    bounds: &[usize],
) -> Result<Vec<CudaSlice<T>>, SortError> {
    let mut ranges = Vec::with_capacity(streams.len());
    for (d, stream) in streams.iter().enumerate() {
        let mut range = device_buffer::<T>(stream, bounds[d + 1] - bounds[d])?;
        // Share g's piece goes to `at[g]`, in share order. Pieces from other devices are queued
        // first, so that every link starts at once; a device's own piece, a copy within its
        // memory, goes last.
        let at = piece_starts(cuts, d);
        let own = |g: usize| shares[g].stream().context().cu_ctx() == stream.context().cu_ctx();
        let mut order: Vec<usize> = (0..shares.len()).collect();
        order.sort_by_key(|&g| own(g));
        for g in order {
            let (a, b) = (cuts[g][d], cuts[g][d + 1]);
            if a == b {
                continue;
            }
            hooks::hit(Step::Exchange)?;
            let bytes = (b - a) * std::mem::size_of::<T>();
            stream
                .memcpy_dtod(&shares[g].slice(a..b), &mut range.slice_mut(at[g]..at[g] + (b - a)))
                .map_err(SortError::driver("copy between devices", bytes))?;
        }
        ranges.push(range);
    }
    // The shares are overwritten next, on their own streams, which did not order these reads.
    sync_all(streams)?;
    Ok(ranges)
}

/// Step 4: every device's range back into its part (or its host scratch), one chunk per device
/// in turn. When one fails, the parts already written are put back from their held buffers.
fn download_all<P: HostData>(
    streams: &[Arc<CudaStream>],
    views: &[CudaView<'_, P::Item>],
    parts: &mut [P],
    helds: &[&mut [P::Item]],
    rings: &mut [&mut [P::Item]],
    scratch: &mut [Option<ZeroedBuf<P::Item>>],
    sizes: &[Chunks],
) -> Result<(), SortError> {
    let mut downs = Vec::with_capacity(streams.len());
    let mut failed = None;
    for ((stream, view), (ring, c)) in streams.iter().zip(views).zip(rings.iter_mut().zip(sizes)) {
        match Download::new(stream, view, 0, ring, c.chunk) {
            Ok(d) => downs.push(d),
            Err((e, _)) => {
                failed = Some(e);
                break;
            }
        }
    }
    let mut busy = failed.is_none();
    while busy {
        busy = false;
        for ((down, part), buf) in downs.iter_mut().zip(parts.iter_mut()).zip(scratch.iter_mut()) {
            let step = match buf {
                Some(buf) => down.step(&mut Direct(buf.as_mut_slice())),
                None => down.step(part),
            };
            match step {
                Ok(more) => busy |= more,
                Err((e, _)) => {
                    failed = Some(e);
                    busy = false;
                    break;
                }
            }
        }
    }
    let Some(e) = failed else { return Ok(()) };
    // Each download's written count covers what reached its part, also for the one that failed
    // (a step writes whole chunks or nothing).
    for ((down, part), held) in downs.iter().zip(parts.iter_mut()).zip(helds) {
        if !held.is_empty() {
            let written = down.written();
            part.scatter(0, &held[..written]);
        }
    }
    Err(e)
}

/// Lets every device of `gpus` read the others' memory directly: peer access between their
/// contexts, and access to each other's stream-ordered pools (which peer access alone does not
/// open). Pairs the topology does not connect are left to the driver, which stages their copies
/// through the host; a failure here only costs speed.
pub(crate) fn connect(gpus: &[Arc<Gpu>]) {
    let _keep = KeepCurrent::save(None);
    for a in gpus {
        for b in gpus {
            if a.ordinal == b.ordinal {
                continue;
            }
            let (da, db) = (a.ctx.cu_device(), b.ctx.cu_device());
            let mut can = 0;
            // SAFETY: both devices come from live contexts; the out-pointer is a local.
            let ok = unsafe { sys::cuDeviceCanAccessPeer(&mut can, da, db) } == sys::CUresult::CUDA_SUCCESS;
            if !ok || can == 0 || a.ctx.bind_to_thread().is_err() {
                continue;
            }
            // SAFETY: a's context is current; b's context is live. Enabling twice returns
            // CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED, which changes nothing.
            let _ = unsafe { sys::cuCtxEnablePeerAccess(b.ctx.cu_ctx(), 0) };
            let desc = sys::CUmemAccessDesc {
                location: sys::CUmemLocation { type_: sys::CUmemLocationType::CU_MEM_LOCATION_TYPE_DEVICE, id: da },
                flags: sys::CUmemAccess_flags::CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
            };
            // SAFETY: b's default pool, made readable and writable by device a; `desc` outlives the call.
            let _ = unsafe {
                cudarc::driver::result::device::get_default_mem_pool(db)
                    .map(|pool| sys::cuMemPoolSetAccess(pool, &desc, 1))
            };
        }
    }
}
