//! Records whose size is known only at run time (C structs through the C ABI, rows of a NumPy
//! structured array), sorted by a key stored at a byte offset inside each. `Sorter::sort_by_key`
//! is generic over a record type, which these callers do not have; the path is the same: large
//! inputs whose keys the GPU sorts are put in order on the device in one pipeline
//! (`cuda/records.rs`), the others are copied into huge pages (their keys read in the same pass),
//! their keys argsorted on the sorter's backend, and the records gathered back on all cores.

use std::mem::MaybeUninit;

use rayon::prelude::*;

use super::records::{host_buffer, PIECE};
use super::Sorter;
use crate::backend::RecordWord;
use crate::{ArgIndex, Key, SortError};

/// A byte of a record. Records move as `MaybeUninit` bytes: a C struct's padding may be
/// uninitialised, and copying such bytes is fine where reading them as `u8` would not be.
type Byte = MaybeUninit<u8>;

/// Positions looked up this far ahead of the record being copied, so that more of the random
/// reads' cache and TLB misses overlap.
const AHEAD: usize = 16;

impl Sorter {
    /// Sorts `records`, a table of `records.len() / record_size` rows of `record_size` bytes
    /// each, stably in the sorter's order of the `K` key that every row holds at byte
    /// `key_offset` (read unaligned, native byte order): the shape of an array of C structs or
    /// of a NumPy structured array, sorted by one field. Rows with equal keys keep their input
    /// order. The rows move as whole byte blocks.
    ///
    /// Large tables whose keys the GPU sorts are put in order on the device when the rows are
    /// whole 4-byte words at a 4-byte aligned address (as [`Sorter::sort_by_key`] does): only
    /// the keys are copied on the host. Otherwise the rows are copied to scratch (keys read in
    /// the same pass), the keys argsorted on the sorter's backend, and the rows gathered back on
    /// all cores: extra host memory of one row, one key and one 4-byte position per row (8-byte
    /// past 2^32 rows).
    ///
    /// `InvalidArgument`, with nothing written, when `record_size` is 0, the key does not fit in
    /// a row (`key_offset + size_of::<K>() > record_size`) or `records` is not a whole number of
    /// rows. On any failure `records` holds its original contents.
    ///
    /// ```
    /// // Rows of 12 bytes: a u32 id, then an f64 score at byte 4 (a packed layout).
    /// let mut table = Vec::new();
    /// for (id, score) in [(0u32, 2.5f64), (1, -1.0), (2, 2.5)] {
    ///     table.extend_from_slice(&id.to_ne_bytes());
    ///     table.extend_from_slice(&score.to_ne_bytes());
    /// }
    /// gpusort::Sorter::auto().sort_records::<f64>(&mut table, 12, 4)?;
    /// let ids: Vec<u8> = table.chunks(12).map(|row| row[0]).collect();
    /// assert_eq!(ids, [1, 0, 2]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_records<K: Key>(
        &self,
        records: &mut [u8],
        record_size: usize,
        key_offset: usize,
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_records")?;
        // SAFETY: `MaybeUninit<u8>` has the layout of `u8`; every byte written back is a copy of
        // one of the input's (initialised) bytes.
        let bytes = unsafe { &mut *(records as *mut [u8] as *mut [Byte]) };
        self.sort_records_uninit::<K>(bytes, record_size, key_offset)
    }

    /// [`Sorter::sort_records`] over bytes that may be uninitialised outside the keys (the
    /// padding of C structs): for the C ABI and the Python package.
    #[doc(hidden)]
    pub fn sort_records_uninit<K: Key>(
        &self,
        records: &mut [MaybeUninit<u8>],
        record_size: usize,
        key_offset: usize,
    ) -> Result<(), SortError> {
        self.total_floats_only(K::TYPE, "sort_records_uninit")?;
        let n = rows::<K>(records.len(), record_size, key_offset)?;
        if n < 2 {
            return self.check_config();
        }
        self.check_config()?;
        if let Some(gpu) = self.records_gpu::<K>(n, record_size) {
            if let Some(words) = as_words(records, record_size) {
                let mut keys = gpusort_cpu::HugeVec::<K>::with_capacity(n)
                    .map_err(|e| SortError::OutOfMemory { op: "record keys (host memory)", bytes: e.bytes })?;
                read_keys(words_as_bytes(words), record_size, key_offset, keys.spare_capacity_mut());
                // SAFETY: `read_keys` wrote all n keys.
                unsafe { keys.set_len(n) };
                match gpu.sort_records(K::view(&keys), words, self.order()) {
                    Ok(()) => return self.after_sort(Ok(())),
                    // Too large for the device or the pinned buffer now: the host path below.
                    Err(SortError::OutOfMemory { .. } | SortError::Unsupported { .. }) => {}
                    Err(e) => return self.after_sort(Err(e)),
                }
            }
        }
        match n <= 1 << 32 {
            true => self.sort_records_host::<K, u32>(records, record_size, key_offset),
            false => self.sort_records_host::<K, u64>(records, record_size, key_offset),
        }
    }

    /// The host path: rows copied into huge pages with their keys read in the same pass, the
    /// keys' argsort on the sorter's backend, the rows gathered back.
    fn sort_records_host<K: Key, I: ArgIndex>(
        &self,
        records: &mut [Byte],
        size: usize,
        offset: usize,
    ) -> Result<(), SortError> {
        let n = records.len() / size;
        let mut keys = host_buffer::<K>(n, "record keys (host memory)")?;
        let mut positions = host_buffer::<I>(n, "record positions (host memory)")?;
        let mut copy = gpusort_cpu::HugeVec::<Byte>::with_capacity(records.len())
            .map_err(|e| SortError::OutOfMemory { op: "records (host memory)", bytes: e.bytes })?;
        gpusort_cpu::install(|| {
            copy.spare_capacity_mut().par_chunks_mut(PIECE * size).zip(records.par_chunks(PIECE * size)).for_each(
                |(c, s)| {
                    // SAFETY: `MaybeUninit<MaybeUninit<u8>>` has the layout of a byte; the pieces
                    // have equal lengths and cannot overlap.
                    unsafe { std::ptr::copy_nonoverlapping(s.as_ptr(), c.as_mut_ptr().cast::<Byte>(), s.len()) };
                },
            );
            read_keys(records, size, offset, &mut keys.spare_capacity_mut()[..n]);
            positions.par_extend((0..n).into_par_iter().with_min_len(PIECE).map(|_| I::from_position(0)));
        });
        // SAFETY: all bytes of the copy and all n keys were written above.
        unsafe {
            copy.set_len(records.len());
            keys.set_len(n);
        }
        // On the calling thread: a GPU sort must not run on a pool worker (see `Sorter::run`).
        self.argsort_into(&keys, &mut positions)?;
        drop(keys);
        // Nothing can fail from here on: `records` ends sorted or untouched.
        gather_rows(&copy, size, &positions, records);
        Ok(())
    }
}

/// The number of rows, after checking the layout. Checked even for an empty table: a wrong size
/// or offset is a bug to report early.
fn rows<K>(bytes: usize, size: usize, offset: usize) -> Result<usize, SortError> {
    if size == 0 {
        return Err(SortError::InvalidArgument("record_size is 0".into()));
    }
    if offset.checked_add(size_of::<K>()).is_none_or(|end| end > size) {
        return Err(SortError::InvalidArgument(format!(
            "the key ({} bytes at key_offset {offset}) runs past the end of a record of record_size {size} bytes",
            size_of::<K>()
        )));
    }
    if !bytes.is_multiple_of(size) {
        return Err(SortError::InvalidArgument(format!(
            "{bytes} bytes of records are not a whole number of {size}-byte records"
        )));
    }
    Ok(bytes / size)
}

/// The rows as 4-byte words, when they are whole words at an aligned address.
fn as_words(records: &mut [Byte], size: usize) -> Option<&mut [RecordWord]> {
    let aligned = (records.as_ptr() as usize).is_multiple_of(align_of::<RecordWord>());
    (size.is_multiple_of(4) && aligned).then(|| {
        // SAFETY: a whole number of aligned words of the same bytes; a `RecordWord` holds any
        // bytes, and the device writes back whole rows or leaves the bytes as they were.
        unsafe { std::slice::from_raw_parts_mut(records.as_mut_ptr().cast::<RecordWord>(), records.len() / 4) }
    })
}

fn words_as_bytes(words: &[RecordWord]) -> &[Byte] {
    // SAFETY: a `RecordWord` is four bytes that may be uninitialised, which `MaybeUninit<u8>` allows.
    unsafe { std::slice::from_raw_parts(words.as_ptr().cast::<Byte>(), size_of_val(words)) }
}

/// `keys[i]` = the key of row i, on all cores.
fn read_keys<K: Key>(records: &[Byte], size: usize, offset: usize, keys: &mut [MaybeUninit<K>]) {
    gpusort_cpu::install(|| {
        keys.par_chunks_mut(PIECE).zip(records.par_chunks(PIECE * size)).for_each(|(k, r)| {
            k.iter_mut().zip(r.chunks_exact(size)).for_each(|(k, row)| {
                k.write(read_key(row, offset));
            })
        })
    });
}

/// The key at `offset` in `row`.
fn read_key<K: Key>(row: &[Byte], offset: usize) -> K {
    let field = &row[offset..offset + size_of::<K>()];
    // SAFETY: `field` is `size_of::<K>()` bytes of the row (the index checks it), read unaligned
    // as a packed field may be; the caller promises the key bytes are initialised, and every bit
    // pattern is a valid key (integers and floats).
    unsafe { field.as_ptr().cast::<K>().read_unaligned() }
}

/// Row i of `dst` = row `positions[i]` of `src`, for rows of `size` bytes, on the CPU pool (also
/// the file sort's gather of a sorted run).
pub(crate) fn gather_rows<I: ArgIndex>(src: &[Byte], size: usize, positions: &[I], dst: &mut [Byte]) {
    gpusort_cpu::install(|| match size {
        8 => gather::<I, 8>(src, size, positions, dst),
        12 => gather::<I, 12>(src, size, positions, dst),
        16 => gather::<I, 16>(src, size, positions, dst),
        24 => gather::<I, 24>(src, size, positions, dst),
        32 => gather::<I, 32>(src, size, positions, dst),
        _ => gather::<I, 0>(src, size, positions, dst),
    })
}

/// [`gather_rows`] for one row size. A
/// nonzero `N` is the size fixed at compile time, so each row's copy is a few moves rather than a
/// `memcpy` call (the common struct sizes); `N` = 0 takes `size` from the argument.
fn gather<I: ArgIndex, const N: usize>(src: &[Byte], size: usize, positions: &[I], dst: &mut [Byte]) {
    dst.par_chunks_mut(size * PIECE).zip(positions.par_chunks(PIECE)).for_each(|(d, p)| {
        let size = if N > 0 { N } else { size };
        for (i, (d, &at)) in d.chunks_exact_mut(size).zip(p).enumerate() {
            if let Some(&next) = p.get(i + AHEAD) {
                prefetch(src, next.position() as usize * size);
            }
            let at = at.position() as usize * size;
            d.copy_from_slice(&src[at..at + size]);
        }
    });
}

fn prefetch(src: &[Byte], at: usize) {
    #[cfg(target_arch = "x86_64")]
    if at < src.len() {
        // SAFETY: a prefetch of an address inside `src`; it reads nothing architecturally.
        unsafe { std::arch::x86_64::_mm_prefetch::<{ std::arch::x86_64::_MM_HINT_T0 }>(src.as_ptr().add(at).cast()) }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = (src, at);
}
