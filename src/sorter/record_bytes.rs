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
use crate::{ArgIndex, Column, Key, SortError};

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
        let n = rows(records.len(), record_size, key_offset, size_of::<K>())?;
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
        let read = |rows: &[Byte], keys: &mut [MaybeUninit<K>]| read_keys(rows, size, offset, keys);
        self.gather_sorted::<K, I>(records, size, 1, read, |keys, positions| self.argsort_into(keys, positions))
    }

    /// Sorts `records` (rows of `record_size` bytes) stably by the byte string of `key_width`
    /// bytes at `key_offset` in each row, compared as `memcmp` compares (unsigned bytes, the first
    /// the most significant), in the sorter's order: the byte-key form of
    /// [`Sorter::sort_records`]. The keys are copied out beside the rows and sorted as one byte
    /// [`Column`] by [`Sorter::lexsort`] on the sorter's backend (on the GPU only the keys go up
    /// and the positions come down); the rows are gathered back on all cores. Extra host memory:
    /// a row, its key and a 4-byte position per row (8-byte past 2^32 rows).
    ///
    /// `InvalidArgument`, with nothing written, as `sort_records` for the layout, and for a key
    /// width outside 1 to [`MAX_BYTE_WIDTH`](crate::MAX_BYTE_WIDTH). On any failure `records`
    /// holds its original contents.
    ///
    /// ```
    /// // Rows of 6 bytes: a 4-byte name, then a 2-byte id.
    /// let mut table = b"pear\x00\x00fig \x01\x00plum\x02\x00fig \x03\x00".to_vec();
    /// gpusort::Sorter::auto().sort_records_by_bytes(&mut table, 6, 0, 4)?;
    /// assert_eq!(table, b"fig \x01\x00fig \x03\x00pear\x00\x00plum\x02\x00");
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn sort_records_by_bytes(
        &self,
        records: &mut [u8],
        record_size: usize,
        key_offset: usize,
        key_width: usize,
    ) -> Result<(), SortError> {
        // SAFETY: as `sort_records`: every byte written back is a copy of one of the input's.
        let bytes = unsafe { &mut *(records as *mut [u8] as *mut [Byte]) };
        self.sort_records_by_bytes_uninit(bytes, record_size, key_offset, key_width)
    }

    /// [`Sorter::sort_records_by_bytes`] over bytes that may be uninitialised outside the keys:
    /// for the C ABI and the Python package.
    #[doc(hidden)]
    pub fn sort_records_by_bytes_uninit(
        &self,
        records: &mut [MaybeUninit<u8>],
        record_size: usize,
        key_offset: usize,
        key_width: usize,
    ) -> Result<(), SortError> {
        crate::columns::check_byte_rows(key_width, key_width)?;
        let n = rows(records.len(), record_size, key_offset, key_width)?;
        if n < 2 {
            return self.check_config();
        }
        let read = |rows: &[Byte], keys: &mut [MaybeUninit<u8>]| {
            read_byte_keys(rows, record_size, key_offset, key_width, keys)
        };
        let sort = |keys: &[u8], positions: &mut [_]| -> Result<(), SortError> {
            self.lexsort_into(&[Column::byte_rows(keys, key_width)], positions)
        };
        match n <= 1 << 32 {
            true => self.gather_sorted::<u8, u32>(records, record_size, key_width, read, sort),
            false => Err(SortError::InvalidArgument(format!("{n} records: a byte-key sort takes at most 2^32"))),
        }
    }

    /// Copies the rows (`size` bytes each) into huge pages while `read` takes `per_row` keys of
    /// `T` from each, has `sort` put the keys' stable order into positions, and gathers the rows
    /// back in that order. `records` is written only after the sort succeeded.
    fn gather_sorted<T: Copy + Send + Sync, I: ArgIndex>(
        &self,
        records: &mut [Byte],
        size: usize,
        per_row: usize,
        read: impl Fn(&[Byte], &mut [MaybeUninit<T>]) + Sync,
        sort: impl FnOnce(&[T], &mut [I]) -> Result<(), SortError>,
    ) -> Result<(), SortError> {
        let n = records.len() / size;
        let mut keys = host_buffer::<T>(n * per_row, "record keys (host memory)")?;
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
            read(records, &mut keys.spare_capacity_mut()[..n * per_row]);
            positions.par_extend((0..n).into_par_iter().with_min_len(PIECE).map(|_| I::from_position(0)));
        });
        // SAFETY: all bytes of the copy and all keys were written above.
        unsafe {
            copy.set_len(records.len());
            keys.set_len(n * per_row);
        }
        // On the calling thread: a GPU sort must not run on a pool worker (see `Sorter::run`).
        sort(&keys, &mut positions)?;
        drop(keys);
        // Nothing can fail from here on: `records` ends sorted or untouched.
        gather_rows(&copy, size, &positions, records);
        Ok(())
    }
}

/// The number of rows, after checking the layout (keys of `key` bytes). Checked even for an empty
/// table: a wrong size or offset is a bug to report early.
fn rows(bytes: usize, size: usize, offset: usize, key: usize) -> Result<usize, SortError> {
    if size == 0 {
        return Err(SortError::InvalidArgument("record_size is 0".into()));
    }
    if offset.checked_add(key).is_none_or(|end| end > size) {
        return Err(SortError::InvalidArgument(format!(
            "the key ({key} bytes at key_offset {offset}) runs past the end of a record of record_size {size} bytes"
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

/// `keys[width * i..width * (i + 1)]` = the key bytes of row i, on all cores.
fn read_byte_keys(records: &[Byte], size: usize, offset: usize, width: usize, keys: &mut [MaybeUninit<u8>]) {
    gpusort_cpu::install(|| {
        keys.par_chunks_mut(PIECE * width).zip(records.par_chunks(PIECE * size)).for_each(|(k, r)| {
            k.chunks_exact_mut(width).zip(r.chunks_exact(size)).for_each(|(k, row)| {
                // The caller promises the key bytes are initialised; they stay `MaybeUninit` here.
                k.copy_from_slice(&row[offset..offset + width]);
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
