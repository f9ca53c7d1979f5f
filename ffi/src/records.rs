//! `gpusort_sort_records`: an array of fixed-size records (C structs, rows of a table) sorted
//! stably by a key stored inside each record.
//!
//! The record size is known only at run time, so `Sorter::sort_by_key` (generic over a `Copy`
//! record type) cannot take them. The records are opaque bytes here instead: their keys are read
//! out (unaligned) into a vector, `Sorter::argsort_into` gives the stable permutation, and the
//! records are gathered in that order into scratch, on all cores, then copied back. Everything is
//! allocated before the first byte of the records is written, so on failure they hold their
//! original contents, and the copy back, once it starts, cannot fail.

use std::ffi::c_void;
use std::mem::{size_of, MaybeUninit};

use gpusort_core::{ArgIndex, Key, SortError, Sorter};
use rayon::prelude::*;

use crate::args::{byte_range, gpusort_key_type, gpusort_order, key_type, KeyType, GPUSORT_ALGORITHM_AUTO};
use crate::failure::Failure;
use crate::sort::with_sorter;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

/// A byte of a record. Records are moved as `MaybeUninit` bytes: a C struct's padding bytes may be
/// uninitialized, and copying them is fine where reading them as `u8` would not be.
type Byte = MaybeUninit<u8>;

/// Records per parallel task of the key and gather passes: enough that rayon's overhead vanishes,
/// few enough that 16 cores share a million records.
const PIECE: usize = 1 << 14;
/// Bytes per parallel task of the copy back.
const COPY_PIECE: usize = 1 << 20;

/// The checked arguments of one call: `len` records of `size` bytes at `ptr`, the key at
/// `offset` in each. Not yet a slice (see `RawArray`).
struct RawRecords {
    ptr: *mut Byte,
    len: usize,
    size: usize,
    offset: usize,
    key: KeyType,
}

impl RawRecords {
    /// Checks what `slice::from_raw_parts_mut` needs and the key's place in a record. The shape of
    /// a record is checked even when `len` is 0: a wrong size or offset is a bug to report early.
    fn new(ptr: *mut c_void, len: usize, size: usize, offset: usize, key: KeyType) -> Result<Self, Failure> {
        if size == 0 {
            return Err(Failure::invalid("record_size is 0".into()));
        }
        if offset.checked_add(key.size()).is_none_or(|end| end > size) {
            return Err(Failure::invalid(format!(
                "the key ({} bytes at key_offset {offset}) runs past the end of a record of record_size {size} bytes",
                key.size()
            )));
        }
        let records = RawRecords { ptr: ptr.cast(), len, size, offset, key };
        if len == 0 {
            return Ok(records);
        }
        if ptr.is_null() {
            return Err(Failure::invalid(format!("records is NULL but the length is {len}")));
        }
        if len.checked_mul(size).is_none_or(|bytes| bytes > isize::MAX as usize) {
            return Err(Failure::invalid(format!(
                "{len} records of {size} bytes: len * record_size is more than the address space holds"
            )));
        }
        if byte_range(ptr as usize, len, size).is_none() {
            return Err(Failure::invalid(format!(
                "records at {ptr:p} with {len} records of {size} bytes runs past the end of the address space"
            )));
        }
        Ok(records)
    }

    /// The records' bytes.
    ///
    /// # Safety
    /// The pointer given to `new` must point to `len * size` bytes valid for reads and writes,
    /// with each record's key initialized, and not accessed by anything else while the slice lives.
    unsafe fn into_slice<'a>(self) -> &'a mut [Byte] {
        if self.len == 0 {
            return &mut [];
        }
        std::slice::from_raw_parts_mut(self.ptr, self.len * self.size)
    }
}

/// A permutation index type: `u32` up to 2^32 records (half the memory), `u64` past that.
trait Position: ArgIndex + Default {
    fn index(self) -> usize;
}

impl Position for u32 {
    fn index(self) -> usize {
        self as usize
    }
}

impl Position for u64 {
    fn index(self) -> usize {
        // Every index is below the record count, a `usize`.
        self as usize
    }
}

/// An empty vector with room for `n` items, or `OutOfMemory` naming `op`.
fn buffer<T>(n: usize, op: &'static str) -> Result<Vec<T>, SortError> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| SortError::OutOfMemory { op, bytes: n.saturating_mul(size_of::<T>()) })?;
    Ok(v)
}

/// The key at `offset` in `record`.
fn read_key<K: Key>(record: &[Byte], offset: usize) -> K {
    let field = &record[offset..offset + size_of::<K>()];
    // SAFETY: `field` is `size_of::<K>()` bytes of the record (the slice index checks it), read
    // unaligned as a C struct's field may be; the caller promises the key bytes are initialized,
    // and every bit pattern is a valid key (integers and floats).
    unsafe { field.as_ptr().cast::<K>().read_unaligned() }
}

/// `dst` record i = `src` record `perm[i]`, for records of `size` bytes. `N` > 0 is a record size
/// fixed at compile time, so that the copy of each record becomes a few moves, not a `memcpy`
/// call (the common C struct sizes); `N` = 0 takes `size` from the argument.
fn gather<I: Position, const N: usize>(src: &[Byte], size: usize, perm: &[I], dst: &mut [Byte]) {
    dst.par_chunks_mut(size * PIECE).zip(perm.par_chunks(PIECE)).for_each(|(d, p)| {
        let size = if N > 0 { N } else { size };
        for (d, &at) in d.chunks_exact_mut(size).zip(p) {
            let at = at.index() * size;
            d.copy_from_slice(&src[at..at + size]);
        }
    });
}

/// Sorts `records` (a whole number of `size`-byte records) by their `K` keys at `offset`.
fn sort_by<K: Key, I: Position>(s: &Sorter, records: &mut [Byte], size: usize, offset: usize) -> Result<(), SortError> {
    let n = records.len() / size;
    let mut keys = buffer::<K>(n, "record keys (host memory)")?;
    let mut perm = buffer::<I>(n, "record permutation (host memory)")?;
    let mut sorted = buffer::<Byte>(records.len(), "sorted records (host memory)")?;
    // SAFETY: the capacity is there, and `MaybeUninit` bytes need no initialization.
    unsafe { sorted.set_len(records.len()) };
    gpusort_cpu::install(|| {
        keys.par_extend(records.par_chunks_exact(size).with_min_len(PIECE).map(|r| read_key::<K>(r, offset)));
        perm.par_extend((0..n).into_par_iter().with_min_len(PIECE).map(|_| I::default()));
    });
    // On the calling thread, as the library's own record sort does: a GPU sort must not run on
    // a worker of the CPU pool.
    s.argsort_into(&keys, &mut perm)?;
    drop(keys);
    gpusort_cpu::install(|| {
        let src = &*records;
        match size {
            8 => gather::<I, 8>(src, size, &perm, &mut sorted),
            12 => gather::<I, 12>(src, size, &perm, &mut sorted),
            16 => gather::<I, 16>(src, size, &perm, &mut sorted),
            24 => gather::<I, 24>(src, size, &perm, &mut sorted),
            32 => gather::<I, 32>(src, size, &perm, &mut sorted),
            _ => gather::<I, 0>(src, size, &perm, &mut sorted),
        }
        records
            .par_chunks_mut(COPY_PIECE)
            .zip(sorted.par_chunks(COPY_PIECE))
            .for_each(|(d, s)| gpusort_cpu::copy_streaming(d, s));
    });
    Ok(())
}

fn sort_records(s: &Sorter, r: RawRecords) -> Result<(), SortError> {
    let (size, offset, key, many) = (r.size, r.offset, r.key, r.len as u64 > 1 << 32);
    // SAFETY: as `gpusort_sort_records` requires of its caller.
    let records = unsafe { r.into_slice() };
    macro_rules! by {
        ($k:ty) => {
            if many {
                sort_by::<$k, u64>(s, records, size, offset)
            } else {
                sort_by::<$k, u32>(s, records, size, offset)
            }
        };
    }
    match key {
        KeyType::U32 => by!(u32),
        KeyType::I32 => by!(i32),
        KeyType::F32 => by!(f32),
        KeyType::U64 => by!(u64),
        KeyType::I64 => by!(i64),
        KeyType::F64 => by!(f64),
        KeyType::U16 => by!(u16),
        KeyType::I16 => by!(i16),
        KeyType::U8 => by!(u8),
        KeyType::I8 => by!(i8),
    }
}

/// Sorts `len` records of `record_size` bytes at `records`, stably, in `order` of the key of
/// type `key_type` (a `GPUSORT_KEY_*` value) that each record holds at byte `key_offset`: an
/// array of C structs sorted by one field (`sizeof(struct row)`, `offsetof(struct row, field)`).
/// Records with equal keys keep their input order. The key may be unaligned (a packed struct);
/// the records are moved as whole byte blocks, padding included, so only the key bytes need be
/// initialized.
///
/// The keys are sorted with their positions on the sorter's backend (the GPU when the sorter
/// picks it), then the records are permuted on all cores of the host. Extra host memory: a copy
/// of the records, plus a key and a 4-byte index per record (8-byte past 2^32 records).
///
/// `GPUSORT_INVALID_ARGUMENT`, with nothing written, for: an unknown order or key type, a
/// `record_size` of 0, a key that does not fit in a record (`key_offset` + key size >
/// `record_size`), `records` NULL with `len` > 0, `len * record_size` past what the address
/// space holds or an array that runs past its end. The record shape is checked even when `len`
/// is 0. On any failure the records hold their original contents (except after
/// `GPUSORT_PANIC`, a bug); out of memory is `GPUSORT_OUT_OF_MEMORY`.
///
/// ```c
/// struct row { uint32_t id; double score; char name[4]; };
/// struct row rows[3] = {{0, 2.5, "ann"}, {1, -1.0, "bob"}, {2, 2.5, "cat"}};
/// gpusort_sort_records(NULL, rows, 3, sizeof rows[0], offsetof(struct row, score), GPUSORT_KEY_F64,
///                      GPUSORT_ASCENDING);                    /* ids: 1 0 2 */
/// ```
///
/// # Safety
/// `records` must point to `len * record_size` bytes, readable and writable, whose key bytes are
/// initialized, and that no other thread touches during the call.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_records(
    sorter: *const gpusort_sorter,
    records: *mut c_void,
    len: usize,
    record_size: usize,
    key_offset: usize,
    key_type: gpusort_key_type,
    order: gpusort_order,
) -> gpusort_status {
    with_sorter(sorter, order, GPUSORT_ALGORITHM_AUTO, |s| {
        let key = self::key_type(key_type)?;
        let records = RawRecords::new(records, len, record_size, key_offset, key)?;
        Ok(sort_records(s, records)?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::{GPUSORT_ASCENDING, GPUSORT_DESCENDING, GPUSORT_KEY_F32, GPUSORT_KEY_I64, GPUSORT_KEY_U32};
    use crate::error::gpusort_last_error_message;
    use gpusort_status::{GPUSORT_INVALID_ARGUMENT, GPUSORT_OK};
    use std::ptr::{null, null_mut};

    fn last_error() -> String {
        let mut buf = [0 as std::ffi::c_char; 256];
        unsafe { gpusort_last_error_message(buf.as_mut_ptr(), buf.len(), null_mut()) };
        unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }.to_str().unwrap().to_owned()
    }

    /// Records of 11 bytes: a tag byte, an unaligned i64 key at offset 1, two bytes of payload.
    fn packed(keys: &[i64]) -> Vec<u8> {
        keys.iter()
            .enumerate()
            .flat_map(|(i, k)| [&[i as u8][..], &k.to_ne_bytes(), &[i as u8 ^ 0x5A, 0xEE]].concat())
            .collect()
    }

    fn sort(bytes: &mut [u8], n: usize, size: usize, offset: usize, key: u32, order: u32) -> gpusort_status {
        unsafe { gpusort_sort_records(null(), bytes.as_mut_ptr().cast(), n, size, offset, key, order) }
    }

    #[test]
    fn unaligned_keys_sort_whole_records_stably() {
        let keys = [5i64, -3, 5, i64::MIN, 0, -3, i64::MAX];
        let mut bytes = packed(&keys);
        assert_eq!(sort(&mut bytes, 7, 11, 1, GPUSORT_KEY_I64, GPUSORT_ASCENDING), GPUSORT_OK);
        let order: Vec<u8> = bytes.chunks(11).map(|r| r[0]).collect();
        assert_eq!(order, [3, 1, 5, 4, 0, 2, 6]);
        let want: Vec<u8> = order.iter().flat_map(|&i| packed(&keys)[i as usize * 11..][..11].to_vec()).collect();
        assert_eq!(bytes, want, "every record moved whole");
        let mut bytes = packed(&keys);
        assert_eq!(sort(&mut bytes, 7, 11, 1, GPUSORT_KEY_I64, GPUSORT_DESCENDING), GPUSORT_OK);
        assert_eq!(bytes.chunks(11).map(|r| r[0]).collect::<Vec<_>>(), [6, 0, 2, 4, 1, 5, 3]);
    }

    #[test]
    fn every_fixed_size_gather_matches_the_generic_one() {
        for size in [4, 8, 12, 16, 24, 32, 40] {
            let n = 3 * PIECE + 5;
            let mut bytes: Vec<u8> = (0..n * size).map(|i| (i * 7 % 251) as u8).collect();
            for (i, r) in bytes.chunks_mut(size).enumerate() {
                r[..4].copy_from_slice(&((i as u32).wrapping_mul(2_654_435_761) % 1000).to_ne_bytes());
            }
            let before = bytes.clone();
            assert_eq!(sort(&mut bytes, n, size, 0, GPUSORT_KEY_U32, GPUSORT_ASCENDING), GPUSORT_OK);
            let mut want: Vec<&[u8]> = before.chunks(size).collect();
            want.sort_by_key(|r| u32::from_ne_bytes(r[..4].try_into().unwrap()));
            assert_eq!(bytes, want.concat(), "record size {size}");
        }
    }

    #[test]
    fn bad_shapes_are_refused_before_anything_is_read() {
        let mut bytes = packed(&[2, 1]);
        let before = bytes.clone();
        let cases: [(usize, usize, usize, u32, u32, &str); 7] = [
            (2, 0, 0, GPUSORT_KEY_U32, 0, "record_size is 0"),
            (2, 11, 8, GPUSORT_KEY_U32, 0, "runs past the end of a record"),
            (0, 11, usize::MAX, GPUSORT_KEY_U32, 0, "key_offset 18446744073709551615"),
            (2, 11, 1, 10, 0, "key type 10"),
            (2, 11, 1, GPUSORT_KEY_F32, 2, "order 2"),
            (usize::MAX / 4, 5, 0, 0, 0, "len * record_size"),
            (isize::MAX as usize / 4 + 1, 4, 0, 0, 0, "len * record_size"),
        ];
        for (n, size, offset, key, order, words) in cases {
            assert_eq!(sort(&mut bytes, n, size, offset, key, order), GPUSORT_INVALID_ARGUMENT, "{words}");
            assert!(last_error().contains(words), "{words}: {}", last_error());
        }
        let st = unsafe { gpusort_sort_records(null(), null_mut(), 3, 8, 0, 0, 0) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
        assert!(last_error().contains("records is NULL"));
        let top = (usize::MAX & !0xFFF) as *mut c_void;
        let st = unsafe { gpusort_sort_records(null(), top, 0x1000 / 8, 8, 0, 0, 0) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
        assert!(last_error().contains("records at 0x") && last_error().contains("address space"), "{}", last_error());
        assert_eq!(bytes, before);
        assert_eq!(unsafe { gpusort_sort_records(null(), null_mut(), 0, 8, 4, GPUSORT_KEY_F32, 1) }, GPUSORT_OK);
        assert_eq!(sort(&mut bytes, 1, 11, 1, GPUSORT_KEY_I64, 1), GPUSORT_OK);
        assert_eq!(bytes, before);
    }
}
