//! Every refusal of `gpusort_lexsort` and `gpusort_lexsort_u32` (bad descriptors, lengths,
//! addresses, alignment, overlaps), each leaving `out` untouched at both index widths, and the
//! edge cases that must not be refused (no rows, one row, columns sharing an array).

use std::ffi::c_void;
use std::ptr::{null, null_mut};

use super::tests::zeroed;
use super::*;
use crate::args::key_types::*;
use crate::args::*;
use crate::failure::last_error;
use gpusort_status::*;

/// A pointer to the last page of the address space.
const TOP: usize = usize::MAX & !0xFFF;

/// Every refusal, with `out` (both widths) untouched.
#[test]
fn bad_arguments_are_refused_with_out_untouched() {
    let keys = [3u32, 1, 2, 0];
    let small = [1u8, 0, 1, 0];
    let good = gpusort_column { keys: keys.as_ptr().cast(), ..zeroed() };
    let mut out = [7u64; 4];
    let mut out32 = [7u32; 4];
    let o = out.as_mut_ptr();
    let cases: Vec<(Vec<gpusort_column>, usize, &str)> = vec![
        (vec![], 4, "num_columns is 0"),
        (vec![gpusort_column { keys: null(), ..good }], 4, "columns[0].keys is NULL but the length is 4"),
        (vec![good, gpusort_column { key_type: 12, ..good }], 4, "columns[1]: key type 12"),
        (vec![gpusort_column { key_bytes: 3, ..good }], 4, "columns[0]: key_bytes 3 for keys of 4 bytes"),
        (vec![good, gpusort_column { key_type: GPUSORT_KEY_BYTES, ..good }], 4, "columns[1]: key_bytes 0"),
        (
            vec![gpusort_column { key_type: GPUSORT_KEY_BYTES, key_bytes: 4097, ..good }],
            4,
            "key_bytes 4097 of a GPUSORT_KEY_BYTES column",
        ),
        (
            vec![gpusort_column { key_type: GPUSORT_KEY_BYTES, key_bytes: 4096, ..good }],
            usize::MAX / 1000,
            "more than the address space holds",
        ),
        (
            vec![gpusort_column { keys: TOP as *const c_void, key_type: GPUSORT_KEY_BYTES, key_bytes: 3, ..good }],
            0x1000 / 3 + 1,
            "columns[0].keys at 0x",
        ),
        (
            vec![gpusort_column { keys: o.cast_const().cast(), key_type: GPUSORT_KEY_BYTES, key_bytes: 5, ..good }],
            4,
            "columns[0].keys and out overlap",
        ),
        (vec![good, gpusort_column { order: 2, ..good }], 4, "columns[1]: order 2"),
        (vec![gpusort_column { float_order: 5, ..good }], 4, "columns[0]: float order 5"),
        (vec![gpusort_column { null_placement: 2, ..good }], 4, "columns[0]: null placement 2"),
        (vec![gpusort_column { null_placement: u32::MAX, ..good }], 0, "null placement 4294967295"),
        (vec![gpusort_column { keys: TOP as *const c_void, ..good }], 0x1000 / 4, "columns[0].keys at 0x"),
        (
            vec![gpusort_column { keys: TOP as *const c_void, key_type: GPUSORT_KEY_U8, ..good }],
            1 << 40,
            "address space",
        ),
        (vec![good, gpusort_column { nulls: (TOP + 0xFFF) as *const u8, ..good }], 4, "columns[1].nulls at 0x"),
        (
            vec![gpusort_column { keys: small.as_ptr().wrapping_add(1).cast(), ..good }],
            2,
            "columns[0].keys is not aligned",
        ),
        (
            vec![gpusort_column { keys: o.cast_const().cast(), key_type: GPUSORT_KEY_U64, ..good }],
            4,
            "columns[0].keys and out overlap",
        ),
        (vec![good, gpusort_column { nulls: o.cast_const().cast(), ..good }], 4, "columns[1].nulls and out overlap"),
    ];
    for (columns, len, words) in cases.iter() {
        let st = unsafe { gpusort_lexsort(null(), columns.as_ptr(), columns.len(), *len, o) };
        assert_eq!(st, GPUSORT_INVALID_ARGUMENT, "{words}");
        assert!(last_error().contains(words), "{words}: {}", last_error());
        assert_eq!(out, [7; 4], "{words}");
        if *len <= 4 && !columns.is_empty() && !words.contains("and out") {
            let st = unsafe { gpusort_lexsort_u32(null(), columns.as_ptr(), columns.len(), *len, out32.as_mut_ptr()) };
            assert_eq!((st, out32), (GPUSORT_INVALID_ARGUMENT, [7; 4]), "{words}, uint32_t indices");
        }
    }
    // The descriptors' bytes under `out` (never read: the overlap is found first).
    assert_eq!(unsafe { gpusort_lexsort(null(), o.cast(), 1, 1, o) }, GPUSORT_INVALID_ARGUMENT);
    assert!(last_error().contains("the column descriptors and out overlap"));
    assert_eq!(unsafe { gpusort_lexsort(null(), null(), 2, 4, o) }, GPUSORT_INVALID_ARGUMENT);
    assert!(last_error().contains("columns is NULL"));
    assert_eq!(unsafe { gpusort_lexsort(null(), &good, 1, 4, null_mut()) }, GPUSORT_INVALID_ARGUMENT);
    assert!(last_error().contains("out is NULL"));
    let st = unsafe { gpusort_lexsort(null(), &good, 1, 2, o.cast::<u8>().add(4).cast()) };
    assert!(st == GPUSORT_INVALID_ARGUMENT && last_error().contains("out is not aligned"));
    assert_eq!(out, [7; 4]);
    // No rows: NULL arrays are fine; one row: index 0, nothing past it.
    let empty = gpusort_column { keys: null(), key_type: GPUSORT_KEY_F64, ..zeroed() };
    assert_eq!(unsafe { gpusort_lexsort(null(), &empty, 1, 0, null_mut()) }, GPUSORT_OK);
    assert_eq!(unsafe { gpusort_lexsort_u32(null(), &good, 1, 1, out32.as_mut_ptr()) }, GPUSORT_OK);
    assert_eq!(out32, [0, 7, 7, 7]);
    // Columns may share an array; both orders of one column leave the input order.
    let twice = [good, gpusort_column { order: GPUSORT_DESCENDING, ..good }];
    assert_eq!(unsafe { gpusort_lexsort(null(), twice.as_ptr(), 2, 4, o) }, GPUSORT_OK);
    assert_eq!(out, [3, 1, 2, 0]);
}
