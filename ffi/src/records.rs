//! `gpusort_sort_records` and `gpusort_sort_records_by_bytes`: an array of fixed-size records (C
//! structs, rows of a table) sorted stably by a key stored inside each record, a number or a
//! byte string.
//!
//! The record size is known only at run time, so `Sorter::sort_by_key` (generic over a `Copy`
//! record type) cannot take them; `Sorter::sort_records_uninit` takes them as opaque bytes (their
//! padding may be uninitialised). This file checks the pointer and the layout, and picks the key
//! type (`with_key_type!`).

use std::ffi::c_void;
use std::mem::MaybeUninit;

use gpusort_core::{KeyType, SortError, Sorter, MAX_BYTE_WIDTH};

use crate::args::{byte_range, gpusort_key_type, gpusort_order, key_type, GPUSORT_ALGORITHM_AUTO};
use crate::failure::Failure;
use crate::sort::with_sorter;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

/// A byte of a record. Records are moved as `MaybeUninit` bytes: a C struct's padding bytes may be
/// uninitialized, and copying them is fine where reading them as `u8` would not be.
type Byte = MaybeUninit<u8>;

/// The checked arguments of one call: `len` records of `size` bytes at `ptr`, a key of
/// `key_size` bytes at `offset` in each. Not yet a slice (see `RawArray`).
struct RawRecords {
    ptr: *mut Byte,
    len: usize,
    size: usize,
    offset: usize,
}

impl RawRecords {
    /// Checks what `slice::from_raw_parts_mut` needs and the key's place in a record. The shape of
    /// a record is checked even when `len` is 0: a wrong size or offset is a bug to report early.
    fn new(ptr: *mut c_void, len: usize, size: usize, offset: usize, key_size: usize) -> Result<Self, Failure> {
        if size == 0 {
            return Err(Failure::invalid("record_size is 0".into()));
        }
        if offset.checked_add(key_size).is_none_or(|end| end > size) {
            return Err(Failure::invalid(format!(
                "the key ({key_size} bytes at key_offset {offset}) runs past the end of a record of record_size {size} bytes"
            )));
        }
        let records = RawRecords { ptr: ptr.cast(), len, size, offset };
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

fn sort_records(s: &Sorter, r: RawRecords, key: KeyType) -> Result<(), SortError> {
    let (size, offset) = (r.size, r.offset);
    // SAFETY: as `gpusort_sort_records` requires of its caller.
    let records = unsafe { r.into_slice() };
    gpusort_core::with_key_type!(key, K => s.sort_records_uninit::<K>(records, size, offset))
}

/// Sorts `len` records of `record_size` bytes at `records`, stably, in `order` of the key of
/// type `key_type` (a `GPUSORT_KEY_*` value) that each record holds at byte `key_offset`: an
/// array of C structs sorted by one field (`sizeof(struct row)`, `offsetof(struct row, field)`).
/// Records with equal keys keep their input order. The key may be unaligned (a packed struct);
/// the records are moved as whole byte blocks, padding included, so only the key bytes need be
/// initialized.
///
/// Large arrays whose keys the GPU sorts, of records whose size is a multiple of 4 at a 4-byte
/// aligned address, are put in order on the device: extra host memory of one key per record.
/// Otherwise the keys are sorted with their positions on the sorter's backend (the GPU when the
/// sorter picks it) and the records permuted on all cores of the host: extra host memory of a
/// copy of the records, a key and a 4-byte index per record (8-byte past 2^32 records).
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
        let records = RawRecords::new(records, len, record_size, key_offset, key.size())?;
        Ok(sort_records(s, records, key)?)
    })
}

/// Sorts `len` records of `record_size` bytes at `records`, stably, in `order` of the byte
/// string of `key_bytes` bytes that each record holds at byte `key_offset`, compared as `memcmp`
/// compares them (unsigned bytes, the first the most significant): the byte-key form of
/// `gpusort_sort_records`, for names, codes and fixed-width text fields (`char name[16]`). The
/// keys are copied out and sorted with their positions on the sorter's backend (on the GPU only
/// the keys go up and the positions come down); the records are permuted on all cores of the
/// host. Extra host memory: a copy of the records, a key and a 4-byte index per record (8-byte
/// past 2^32 records).
///
/// `GPUSORT_INVALID_ARGUMENT`, with nothing written, as `gpusort_sort_records` for the order and
/// the record shape, and for `key_bytes` outside 1 to `GPUSORT_MAX_KEY_BYTES`. On any failure the
/// records hold their original contents (except after `GPUSORT_PANIC`, a bug); out of memory is
/// `GPUSORT_OUT_OF_MEMORY`.
///
/// ```c
/// struct row { uint32_t id; char name[4]; };
/// struct row rows[3] = {{0, "pea"}, {1, "fig"}, {2, "ask"}};
/// gpusort_sort_records_by_bytes(NULL, rows, 3, sizeof rows[0], offsetof(struct row, name), 4,
///                               GPUSORT_ASCENDING);           /* ids: 2 1 0 */
/// ```
///
/// # Safety
/// As `gpusort_sort_records`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_sort_records_by_bytes(
    sorter: *const gpusort_sorter,
    records: *mut c_void,
    len: usize,
    record_size: usize,
    key_offset: usize,
    key_bytes: usize,
    order: gpusort_order,
) -> gpusort_status {
    with_sorter(sorter, order, GPUSORT_ALGORITHM_AUTO, |s| {
        if key_bytes == 0 || key_bytes > MAX_BYTE_WIDTH {
            return Err(Failure::invalid(format!(
                "key_bytes {key_bytes} is not 1 to GPUSORT_MAX_KEY_BYTES ({MAX_BYTE_WIDTH})"
            )));
        }
        let r = RawRecords::new(records, len, record_size, key_offset, key_bytes)?;
        let (size, offset) = (r.size, r.offset);
        // SAFETY: as this function requires of its caller.
        let records = unsafe { r.into_slice() };
        Ok(s.sort_records_by_bytes_uninit(records, size, offset, key_bytes)?)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::args::key_types::{GPUSORT_KEY_F32, GPUSORT_KEY_I64, GPUSORT_KEY_U32};
    use crate::args::{GPUSORT_ASCENDING, GPUSORT_DESCENDING};
    // This thread's last error, read directly (gpusort_last_error_message has its own tests).
    use crate::failure::last_error;
    use gpusort_status::{GPUSORT_INVALID_ARGUMENT, GPUSORT_OK};
    use std::ptr::{null, null_mut};

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
    fn every_record_size_sorts_whole_records() {
        // Sizes with a fixed-size gather in the library and others, over several parallel pieces.
        for size in [4, 8, 12, 16, 24, 32, 40] {
            let n = 3 * (1 << 16) + 5;
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
            (2, 11, 1, 12, 0, "key type 12"),
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

    fn sort_bytes(bytes: &mut [u8], n: usize, size: usize, offset: usize, width: usize, order: u32) -> gpusort_status {
        unsafe { gpusort_sort_records_by_bytes(null(), bytes.as_mut_ptr().cast(), n, size, offset, width, order) }
    }

    #[test]
    fn byte_keys_sort_whole_records_as_memcmp() {
        // Records of 23 bytes: a 3-byte tag, a key of `width` bytes at offset 3, payload after.
        for (n, width) in [(0, 5), (1, 5), (2, 1), (129, 5), (4097, 13), (3 * (1 << 16) + 5, 20)] {
            let size = 23;
            let mut bytes: Vec<u8> = (0..n * size).map(|i| (i * 31 % 253) as u8).collect();
            for (i, r) in bytes.chunks_mut(size).enumerate() {
                r[..3].copy_from_slice(&(i as u32).to_le_bytes()[..3]);
                // Few distinct keys with shared prefixes: ties keep the tags in order.
                r[3..3 + width].fill(b'k');
                r[2 + width] = [0u8, 0xFF, 7][(i as u32).wrapping_mul(2_654_435_761) as usize % 3];
            }
            for order in [GPUSORT_ASCENDING, GPUSORT_DESCENDING] {
                let mut sorted = bytes.clone();
                assert_eq!(sort_bytes(&mut sorted, n, size, 3, width, order), GPUSORT_OK, "{}", last_error());
                let mut want: Vec<&[u8]> = bytes.chunks(size).collect();
                want.sort_by(|a, b| {
                    let o = a[3..3 + width].cmp(&b[3..3 + width]);
                    if order == GPUSORT_DESCENDING {
                        o.reverse()
                    } else {
                        o
                    }
                });
                assert_eq!(sorted, want.concat(), "n {n}, width {width}, order {order}");
            }
        }
    }

    #[test]
    fn bad_byte_keys_are_refused_untouched() {
        let mut bytes = packed(&[2, 1]);
        let before = bytes.clone();
        let cases: [(usize, usize, usize, u32, &str); 5] = [
            (11, 0, 0, 0, "key_bytes 0"),
            (11, 0, 4097, 0, "key_bytes 4097 is not 1 to GPUSORT_MAX_KEY_BYTES"),
            (11, 4, 8, 0, "runs past the end of a record"),
            (0, 0, 1, 0, "record_size is 0"),
            (11, 0, 4, 3, "order 3"),
        ];
        for (size, offset, width, order, words) in cases {
            assert_eq!(sort_bytes(&mut bytes, 2, size, offset, width, order), GPUSORT_INVALID_ARGUMENT, "{words}");
            assert!(last_error().contains(words), "{words}: {}", last_error());
        }
        let st = unsafe { gpusort_sort_records_by_bytes(null(), null_mut(), 3, 8, 0, 4, 0) };
        assert!(st == GPUSORT_INVALID_ARGUMENT && last_error().contains("records is NULL"));
        assert_eq!(bytes, before);
    }
}
