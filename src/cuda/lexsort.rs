//! Lexsort on the device, one pipeline for host and device callers: the columns lie on the device
//! (uploaded at their own widths for host callers), each 32-bit radix word of the plan
//! (`columns.rs`, `Packing::Dense32`) is packed there through the permutation so far
//! (`columns::pack`; a word of 16 or 8 bits at that width) and sorted with it as split pairs,
//! least significant word first; the permutation is widened for 64-bit indices, and a host
//! caller gets only it back, downloaded straight into its output.
//!
//! On failure a host output holds its earlier contents or the complete result, as an argsort's
//! (`argsort::download_positions`): a download that fails after writing part of it is completed by
//! the CPU backend from the columns, which are never written.

use std::any::Any;
use std::mem::size_of;
use std::sync::Arc;

use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr};

use super::argsort::{download_positions, DevicePosition};
use super::columns::{self, PackWord, Source};
use super::device::Gpu;
use super::dispatch::DeviceSort;
use super::hostdata::ReadOnly;
use super::pinned::{page_locked, Pinned};
use super::positions;
use super::radix::{self, RadixKey};
use super::staging::Plain;
use super::transfer::{begin, chunks, device_buffer, driver, finish, lease_bytes, upload};
use super::{inplace, split_need, CudaBackend};
use crate::backend::with_view;
use crate::columns::{plan, Field, Keys, Kind, Packing, Word};
use crate::hooks::{self, Step};
use crate::{Algorithm, Column, Order, SortError};

/// Device bytes a lexsort of `n` rows needs beside its columns: the permutation, a word's
/// split-pairs sort (of 64-bit keys when the plan `probes`), and the widened positions.
pub(crate) fn need_bytes<P>(n: usize, probing: bool) -> usize {
    let wide = if size_of::<P>() > 4 { size_of::<P>() } else { 0 };
    let sort = if probing { split_need::<u64>(n).1 } else { split_need::<u32>(n).1 };
    sort.saturating_add(n.saturating_mul(4 + wide))
}

/// The permutation that sorts the rows of `sources` (the first the most significant; `n` rows
/// each) into `out`, queued on `stream`. `order` is the sorter's (a descending sorter reverses
/// every column).
pub(crate) fn device<P: DevicePosition>(
    gpu: &Gpu,
    stream: &Arc<CudaStream>,
    sources: &[Source],
    order: Order,
    out: &mut CudaSlice<P>,
) -> Result<(), SortError> {
    let n = out.len();
    if n == 0 {
        return Ok(());
    }
    let shapes: Vec<_> = sources.iter().map(|s| (s.kind, s.nulls != 0, s.how.under(order))).collect();
    let words = plan(&shapes, Packing::Dense32);
    let sort = DeviceSort::new(gpu, Order::Ascending, Algorithm::Radix);
    // One word of 16 bits or fewer (a small column, a float in a library's order): packed, then
    // one sort that makes the positions and writes them in `out`'s width.
    if let [word] = &words[..] {
        let done = match word.bits() {
            ..=8 => one_narrow_word::<u8, P>(&sort, stream, sources, word, out)?,
            9..=16 => one_narrow_word::<u16, P>(&sort, stream, sources, word, out)?,
            _ => false,
        };
        if done {
            return Ok(());
        }
    }
    // 32-bit indices are the permutation itself; 64-bit ones are widened from it.
    match (out as &mut dyn Any).downcast_mut::<CudaSlice<u32>>() {
        Some(perm) => sort_words(&sort, stream, sources, &words, perm),
        None => {
            let mut perm = device_buffer::<u32>(stream, n)?;
            sort_words(&sort, stream, sources, &words, &mut perm)?;
            P::widen_from(gpu, stream, &perm, out)
        }
    }
}

/// The permutation by one word of `W`'s width into `out` (`radix::argsort_narrow`); false, nothing
/// queued, where that sort does not apply (inputs of one tile).
fn one_narrow_word<W: PackWord + RadixKey, P: DevicePosition>(
    sort: &DeviceSort,
    stream: &Arc<CudaStream>,
    sources: &[Source],
    word: &Word,
    out: &mut CudaSlice<P>,
) -> Result<bool, SortError> {
    if radix::need_argsort_narrow::<W>(sort.gpu, out.len())?.is_none() {
        return Ok(false);
    }
    let mut keys = device_buffer::<W>(stream, out.len())?;
    columns::pack(sort.gpu, stream, sources, word, None, None, &mut keys)?;
    hooks::hit(Step::Sort)?;
    radix::argsort_narrow(sort.gpu, stream, &keys, out, Order::Ascending, sort.scratch)
}

/// Plans of this many words or more whose top two words are byte-string bits start with a probe:
/// rows sorted by their top two words, and the lower words sorted only where that left ties
/// (below, a probe that finds ties costs more than it can save). Byte keys only: their first 8
/// bytes tend to tell keys apart (hashes, identifiers), where a number column's top bits often
/// repeat (categories, prices).
const PROBE_WORDS: usize = 4;

/// Whether a plan of `words` over columns of `kinds` starts with a probe (`PROBE_WORDS`).
pub(crate) fn probes(kinds: &[Kind], words: &[Word]) -> bool {
    let bytes = |w: &Word| w.fields.iter().all(|f| matches!(kinds[f.column], Kind::Bytes(_)));
    words.len() >= PROBE_WORDS && words[..2].iter().all(bytes)
}

/// The top two 32-bit words of a plan as one 64-bit word, the first on top.
fn top_two(words: &[Word]) -> Word {
    let high = words[0].fields.iter().map(|f| Field { shift: f.shift + 32, ..*f });
    Word { wide: true, fields: high.chain(words[1].fields.iter().copied()).collect() }
}

/// The LSD passes: one stable split-pairs sort of (word, position) per word, the last word first.
/// A plan that `probes` first sorts by its top two words as one 64-bit key and looks for
/// neighbours tied in it (keys whose first 8 bytes differ, as random byte strings' do, are then
/// in order); the passes that follow, starting from that order (the lower words, then the top two
/// again), run on zeros (passes the radix sort skips) unless ties were found. Everything stays on
/// the device: no host read-back.
fn sort_words(
    sort: &DeviceSort,
    stream: &Arc<CudaStream>,
    sources: &[Source],
    words: &[Word],
    perm: &mut CudaSlice<u32>,
) -> Result<(), SortError> {
    let kinds: Vec<Kind> = sources.iter().map(|s| s.kind).collect();
    if !probes(&kinds, words) {
        for (i, word) in words.iter().rev().enumerate() {
            // A word of few bits (the last, or a lexsort of small columns) sorts at that width.
            let (first, gate) = (i == 0, None);
            match word.bits() {
                ..=8 => drop(sort_word::<u8>(sort, stream, sources, word, first, gate, perm)?),
                9..=16 => drop(sort_word::<u16>(sort, stream, sources, word, first, gate, perm)?),
                _ => drop(sort_word::<u32>(sort, stream, sources, word, first, gate, perm)?),
            }
        }
        return Ok(());
    }
    let top = top_two(words);
    let keys = sort_word::<u64>(sort, stream, sources, &top, true, None, perm)?;
    let mut ties = stream.alloc_zeros::<u32>(1).map_err(driver("probe flag", 4))?;
    columns::ties(sort.gpu, stream, &keys, &mut ties)?;
    drop(keys);
    for word in words[2..].iter().rev() {
        sort_word::<u32>(sort, stream, sources, word, false, Some(&ties), perm)?;
    }
    sort_word::<u64>(sort, stream, sources, &top, false, Some(&ties), perm)?;
    Ok(())
}

/// One LSD pass: `word` packed through `perm` (or in row order when `first`, which then starts
/// `perm`; as zeros where `gate` holds 0), sorted with it; returns the word's sorted keys.
fn sort_word<W: PackWord + RadixKey>(
    sort: &DeviceSort,
    stream: &Arc<CudaStream>,
    sources: &[Source],
    word: &Word,
    first: bool,
    gate: Option<&CudaSlice<u32>>,
    perm: &mut CudaSlice<u32>,
) -> Result<CudaSlice<W>, SortError> {
    let mut keys = device_buffer::<W>(stream, perm.len())?;
    columns::pack(sort.gpu, stream, sources, word, (!first).then_some(&*perm), gate, &mut keys)?;
    if first {
        positions::iota(sort.gpu, stream, perm)?;
    }
    hooks::hit(Step::Sort)?;
    sort.run_pairs(stream, &mut keys, perm)?;
    Ok(keys)
}

/// A column (or null mask) uploaded for the sort: the buffer, kept until the sort is queued, and
/// its address.
type Uploaded = (Box<dyn Any>, cudarc::driver::sys::CUdeviceptr);

/// `items` on the device: read in place by the copy engine when page-locked, else staged through
/// `ring`.
fn up<T: Plain + DeviceRepr>(stream: &Arc<CudaStream>, items: &[T], ring: &mut Pinned) -> Result<Uploaded, SortError> {
    let n = items.len();
    let c = chunks::<T>(n);
    let mut dev = device_buffer::<T>(stream, n)?;
    let bytes = size_of_val(items);
    if inplace::pays(bytes) && page_locked(items) {
        hooks::in_place();
        for (a, b) in inplace::spans(n, c.chunk) {
            hooks::hit(Step::Upload)?;
            stream
                .memcpy_htod(&items[a..b], &mut dev.slice_mut(a..b))
                .map_err(driver("copy to device", (b - a) * size_of::<T>()))?;
        }
    } else {
        upload(stream, &ReadOnly(items), 0, ring.view::<T>(0, c.ring), &mut dev, c.chunk)?;
        // The next column is staged in the same ring: its last copies must have read it first.
        stream.synchronize().map_err(driver("copy to device", bytes))?;
    }
    // Everything that reads the buffer is queued on `stream`: the guard's event adds nothing.
    let ptr = dev.device_ptr(stream).0;
    Ok((Box::new(dev), ptr))
}

/// Ring bytes the uploads of `columns` and the download of `n` positions of `P` take.
fn ring_bytes<P>(columns: &[Column<'_>], n: usize) -> usize {
    let of = |size: usize| chunks::<u8>(n.saturating_mul(size)).ring;
    let keys = columns.iter().map(|c| of(c.kind().size())).max().unwrap_or(0);
    keys.max(of(size_of::<P>())).max(chunks::<u8>(n).ring)
}

impl CudaBackend {
    /// Lexsort of host columns: one round trip where the columns and the sort fit the device
    /// budget, else on the CPU backend (whose scratch is host memory).
    pub(crate) fn lexsort_host<P: DevicePosition>(
        &self,
        columns: &[Column<'_>],
        out: &mut [P],
        order: Order,
    ) -> Result<(), SortError> {
        let n = out.len();
        let column_bytes: usize =
            columns.iter().map(|c| n.saturating_mul(c.kind().size() + c.nulls.map_or(0, |_| 1))).sum();
        let kinds: Vec<Kind> = columns.iter().map(Column::kind).collect();
        let probing = probes(&kinds, &plan(&crate::columns::shapes(columns, order), Packing::Dense32));
        let need = need_bytes::<P>(n, probing).saturating_add(column_bytes);
        let cpu = |out: &mut [P]| {
            crate::columns::cpu::lexsort(columns, out, order)
                .map_err(|e| SortError::OutOfMemory { op: "host memory for the CPU lexsort", bytes: e.bytes })
        };
        if self.budget(need)?.is_some_and(|limit| need > limit) {
            return cpu(out);
        }
        let stream = begin(&self.gpu)?;
        let (mut lease, _) = lease_bytes(&self.gpu, 0, ring_bytes::<P>(columns, n))?;
        let (_, ring) = lease.held_and_pinned_ring::<u8>(0);
        let mut written = 0;
        let result = (|| {
            let mut kept = Vec::with_capacity(2 * columns.len());
            let mut sources = Vec::with_capacity(columns.len());
            for c in columns {
                let (keys, kp) = match c.keys {
                    Keys::Numbers(v) => with_view!(v, k => up(&stream, k, ring))?,
                    Keys::Bytes { rows, .. } => up(&stream, rows, ring)?,
                };
                kept.push(keys);
                let nulls = match c.nulls {
                    Some(m) => {
                        let (m, mp) = up(&stream, m, ring)?;
                        kept.push(m);
                        mp
                    }
                    None => 0,
                };
                sources.push(Source { keys: kp, kind: c.kind(), nulls, how: c.how });
            }
            let mut dout = device_buffer::<P>(&stream, n)?;
            device(&self.gpu, &stream, &sources, order, &mut dout)?;
            drop(kept);
            download_positions(&stream, &dout, out, ring, &mut written)
        })();
        let result = finish(&stream, result);
        if result.is_err() && written > 0 {
            let _ = cpu(out);
        }
        result
    }
}
