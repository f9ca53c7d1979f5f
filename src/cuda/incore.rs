//! The in-core sort of host data: one round trip (upload, sort, download) of the whole input,
//! built from the steps in `transfer`.
//!
//! The caller's data ends up either untouched or completely sorted:
//! - nothing is written to it before the first downloaded chunk has arrived, which implies that
//!   the upload and the sort finished without error;
//! - when the input fits in the held buffer (`staging::held_cap`), that buffer still holds the
//!   staged input during the download, so if a chunk fails after others were written, they are
//!   put back from it (an infallible host copy) before the error is returned;
//! - larger inputs pass through the ring both ways and no copy of the input survives, so their
//!   download lands in a host scratch buffer first and reaches the caller only once every chunk
//!   has arrived;
//! - data that already lies in page-locked memory is copied by the copy engine straight from and
//!   back into it (`inplace`), and the held buffer receives its backup from the device.

use std::mem::size_of;

use super::device::Gpu;
use super::dispatch::{DeviceItem, DeviceStep};
use super::hostdata::{Direct, HostData, ZeroedBuf};
use super::inplace;
use super::pinned::page_locked;
use super::radix::RadixKey;
use super::staging::Plain;
use super::transfer::{begin, chunks, device_buffer, download, finish, held_fits, lease, upload};
use crate::hooks::{self, Step};
use crate::hostcopy::par_copy;
use crate::SortError;

/// Sorts `data` in place on the device: upload, sort, download (see the module docs for what the
/// caller's data holds after a failure).
pub(crate) fn round_trip<H: HostData, S: DeviceStep>(gpu: &Gpu, data: &mut H, sort: &S) -> Result<(), SortError>
where
    H::Item: DeviceItem,
{
    let n = data.len();
    let c = chunks::<H::Item>(n);
    let stream = begin(gpu)?;
    let (mut lease, held_len) = lease::<H::Item>(gpu, n, c)?;
    let (held_items, ring) = lease.held_and_ring::<H::Item>(held_len, c.ring);
    if held_len == n && inplace::pays(n * size_of::<H::Item>()) {
        if let Some(items) = data.as_items().filter(|items| page_locked(items)) {
            let result = inplace::sort(gpu, &stream, items, held_items, sort, c.chunk);
            return finish(&stream, result);
        }
    }
    let result = (|| {
        let held = held_len == n;
        // Past the held cap the download lands in host scratch first: had before any GPU work.
        let mut aux = if held { None } else { Some(ZeroedBuf::<H::Item>::new(n)?) };
        let mut dev = device_buffer(&stream, n)?;
        upload(&stream, &*data, 0, if held { &mut *held_items } else { &mut *ring }, &mut dev, c.chunk)?;
        hooks::hit(Step::Sort)?;
        sort.run(&stream, &mut dev)?;
        match aux.as_mut() {
            None => download(&stream, &dev.as_view(), data, 0, ring, c.chunk).map_err(|(e, written)| {
                // The held buffer still holds the input: put back what was overwritten.
                data.scatter(0, &held_items[..written]);
                e
            }),
            Some(aux) => {
                download(&stream, &dev.as_view(), &mut Direct(aux.as_mut_slice()), 0, ring, c.chunk)
                    .map_err(|(e, _)| e)?;
                data.scatter(0, aux.as_slice());
                Ok(())
            }
        }
    })();
    finish(&stream, result)
}

/// Split pairs sorted in place on the device as two arrays (32-bit keys from
/// `tuning::SPLIT_ROUND_TRIP_FROM` pairs, 64-bit keys, which the `Kvp` layout cannot carry, and
/// segmented sorts), the way `round_trip` sorts one array: both arrays go up through the held
/// buffer (keys, then values) and come back through the ring, keys first; page-locked arrays go
/// in place (`inplace::sort_pairs`). The held buffer keeps both inputs until the end, so a
/// failed download puts back whatever it overwrote. `OutOfMemory` when the two arrays do not fit
/// the held buffer together.
pub(crate) fn round_trip_pairs<K: DeviceItem + RadixKey + Plain, S: DeviceStep>(
    gpu: &Gpu,
    keys: &mut [K],
    values: &mut [u32],
    sort: &S,
) -> Result<(), SortError> {
    let n = keys.len();
    debug_assert_eq!(n, values.len());
    let (ck, cv) = (chunks::<K>(n), chunks::<u32>(n));
    let held_bytes = super::staging::split_offset::<K>(n) + std::mem::size_of_val(values);
    if !held_fits(held_bytes) {
        return Err(SortError::OutOfMemory { op: "split pairs past the pinned staging cap", bytes: held_bytes });
    }
    let ring_bytes = (ck.ring * std::mem::size_of::<K>()).max(cv.ring * 4);
    let stream = begin(gpu)?;
    let mut lease = gpu.staging.lease(&gpu.ctx, held_bytes, ring_bytes, true)?;
    let (key_up, value_up, ring) = lease.split_held::<K, u32>(n, n);
    if inplace::pays(n * (size_of::<K>() + 4)) && page_locked(keys) && page_locked(values) {
        let result = inplace::sort_pairs(gpu, &stream, keys, values, key_up, value_up, sort, (ck.chunk, cv.chunk));
        return finish(&stream, result);
    }
    let result =
        (|| {
            let mut dk = device_buffer::<K>(&stream, n)?;
            let mut dv = device_buffer::<u32>(&stream, n)?;
            upload(&stream, &Direct(&mut *keys), 0, key_up, &mut dk, ck.chunk)?;
            upload(&stream, &Direct(&mut *values), 0, value_up, &mut dv, cv.chunk)?;
            hooks::hit(Step::Sort)?;
            sort.run_pairs(&stream, &mut dk, &mut dv)?;
            download(&stream, &dk.as_view(), &mut Direct(&mut *keys), 0, ring.view::<K>(0, ck.ring), ck.chunk)
                .map_err(|(e, written)| {
                    par_copy(&mut keys[..written], &key_up[..written]);
                    e
                })?;
            download(&stream, &dv.as_view(), &mut Direct(&mut *values), 0, ring.view::<u32>(0, cv.ring), cv.chunk)
                .map_err(|(e, written)| {
                    // Every key was written already: put all of them back.
                    par_copy(keys, key_up);
                    par_copy(&mut values[..written], &value_up[..written]);
                    e
                })
        })();
    finish(&stream, result)
}
