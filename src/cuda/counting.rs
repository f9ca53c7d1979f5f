//! Host sorts of 8-bit keys alone as a counting sort: the keys go up, the device counts how many
//! take each place in the order (the radix histogram of their one digit pass), and the host
//! writes each key's run into the caller's buffer from the 256 counts. Only the counts come
//! back: writing the runs costs the host no more than copying a download out of the staging ring.
//!
//! The caller's keys are written only after the counts have arrived, and that writing cannot
//! fail: on error they are as they were.

use super::dispatch::DeviceSort;
use super::hostdata::ReadOnly;
use super::radix::{self, RadixKey};
use super::staging::Plain;
use super::transfer::{begin, chunks, device_buffer, driver, finish, lease, upload};
use super::{outofcore, CudaBackend};
use crate::hooks::{self, Step};
use crate::hostcopy::par_pieces;
use crate::{Order, SortError, SortKey};

/// The values an 8-bit key takes.
const VALUES: usize = 256;

impl CudaBackend {
    /// Whether `n` 8-bit keys fit the device budget for `count_sort` (the keys and the counts).
    pub(crate) fn counts_fit(&self, n: usize) -> Result<bool, SortError> {
        let need = n.saturating_add(outofcore::FIXED_BYTES);
        Ok(self.budget(need)?.is_none_or(|limit| need <= limit))
    }

    /// Sorts 8-bit host keys in `sort`'s order (see the module docs).
    pub(crate) fn count_sort<K: SortKey<Bits = u32> + RadixKey + Plain>(
        &self,
        keys: &mut [K],
        sort: DeviceSort,
    ) -> Result<(), SortError> {
        assert_eq!(size_of::<K>(), 1, "a counting sort of 8-bit keys");
        let n = keys.len();
        let c = chunks::<K>(n);
        let mut counts = [0u64; VALUES];
        {
            let stream = begin(&self.gpu)?;
            let (mut lease, held_len) = lease::<K>(&self.gpu, n, c)?;
            let (held, ring) = lease.held_and_ring::<K>(held_len, c.ring);
            let result = (|| {
                let mut dev = device_buffer::<K>(&stream, n)?;
                let room = if held_len == n { held } else { ring };
                upload(&stream, &ReadOnly(&*keys), 0, room, &mut dev, c.chunk)?;
                hooks::hit(Step::Sort)?;
                let mut hist = stream.alloc_zeros::<u64>(VALUES).map_err(driver("key counts", VALUES * 8))?;
                radix::count_bytes(&self.gpu, &stream, &dev, sort.order, &mut hist)?;
                hooks::hit(Step::Download)?;
                stream.memcpy_dtoh(&hist, &mut counts).map_err(driver("copy of the key counts", VALUES * 8))
            })();
            finish(&stream, result)?;
        }
        if counts.iter().sum::<u64>() != n as u64 {
            return Err(SortError::Unsupported {
                backend: "cuda",
                what: format!("the device counted {} of {n} keys", counts.iter().sum::<u64>()),
            });
        }
        write_runs(keys, &counts, sort.order);
        Ok(())
    }
}

/// Fills `keys` with the run of each place in the order, `counts[d]` keys of place `d`, on all
/// cores.
fn write_runs<K: SortKey<Bits = u32>>(keys: &mut [K], counts: &[u64; VALUES], order: Order) {
    // The device counts places in the order; a descending place is the inverted ordered bits.
    let flip = if order == Order::Descending { 0xFF } else { 0 };
    let mut ends = [0usize; VALUES];
    let mut end = 0;
    for (e, &c) in ends.iter_mut().zip(counts) {
        end += c as usize;
        *e = end;
    }
    par_pieces(keys, |piece, range| {
        let mut at = range.start;
        // The first place whose run ends past `at`.
        let mut d = ends.partition_point(|&e| e <= at);
        while at < range.end {
            let to = ends[d].min(range.end);
            piece[at - range.start..to - range.start].fill(K::from_ordered_bits(d as u32 ^ flip));
            at = to;
            d += 1;
        }
    });
}
