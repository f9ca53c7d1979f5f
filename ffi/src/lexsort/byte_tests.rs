//! Tests of byte-string columns (`GPUSORT_KEY_BYTES`) in `gpusort_lexsort*`: tables of byte
//! columns beside number columns against std's stable `sort_by` over `memcmp`-ordered slices, at
//! edge sizes and widths, in both orders, with nulls, from unaligned addresses.

use std::cmp::Ordering;
use std::ptr::null;

use super::tests::{handle, zeroed, Handle, SIZES};
use super::*;
use crate::args::key_types::*;
use crate::args::*;
use crate::failure::last_error;
use gpusort_status::*;

/// One byte column: `n` rows of `width` bytes stored from byte 1 of `store` (an odd address).
struct ByteColumn {
    store: Vec<u8>,
    width: usize,
    nulls: Option<Vec<u8>>,
    order: gpusort_order,
    placement: gpusort_null_placement,
}

fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

const PATTERNS: &[&str] = &["random", "equal", "0x00 and 0xFF", "shared prefix, last byte differs", "few distinct"];

impl ByteColumn {
    fn new(width: usize, pattern: usize, n: usize, order: gpusort_order, nulls: bool, rng: &mut u64) -> ByteColumn {
        let mut store = vec![0xA5u8; n * width + 1];
        for (i, row) in store[1..].chunks_mut(width).enumerate() {
            let r = splitmix(rng);
            for (j, b) in row.iter_mut().enumerate() {
                *b = match pattern {
                    0 => (splitmix(rng) >> 13) as u8,
                    1 => b'k',
                    2 => [0, 0xFF][(r.rotate_right(j as u32) & 1) as usize],
                    3 if j + 1 < width => b'p',
                    3 => (r % 7) as u8,
                    _ => [b'a', b'b', 0xFE][(r.rotate_right(2 * j as u32) % 3) as usize],
                };
            }
            if pattern == 4 && i % 3 == 0 {
                row.fill(0);
            }
        }
        let nulls = nulls.then(|| (0..n).map(|i| u8::from(i % 4 == 1)).collect());
        let placement = if order == GPUSORT_DESCENDING { GPUSORT_NULLS_FIRST } else { GPUSORT_NULLS_LAST };
        ByteColumn { store, width, nulls, order, placement }
    }

    fn row(&self, i: usize) -> &[u8] {
        &self.store[1 + i * self.width..][..self.width]
    }

    fn descriptor(&self) -> gpusort_column {
        gpusort_column {
            keys: self.store.as_ptr().wrapping_add(1).cast(),
            nulls: self.nulls.as_ref().map_or(null(), |m| m.as_ptr()),
            key_type: GPUSORT_KEY_BYTES,
            order: self.order,
            null_placement: self.placement,
            key_bytes: self.width,
            ..zeroed()
        }
    }

    fn cmp(&self, a: usize, b: usize) -> Ordering {
        if let Some(m) = &self.nulls {
            let last = self.placement == GPUSORT_NULLS_LAST;
            match (m[a] != 0, m[b] != 0) {
                (true, true) => return Ordering::Equal,
                (true, false) => return if last { Ordering::Greater } else { Ordering::Less },
                (false, true) => return if last { Ordering::Less } else { Ordering::Greater },
                _ => {}
            }
        }
        let o = self.row(a).cmp(self.row(b));
        if self.order == GPUSORT_DESCENDING {
            o.reverse()
        } else {
            o
        }
    }
}

/// A table of a byte column, a `uint8_t` column of three values, then a second byte column:
/// sorted by `sorter` into both index widths and compared with the stable reference.
fn check(sorter: &Handle, name: &str, widths: (usize, usize), pattern: usize, n: usize, rng: &mut u64) {
    let first = ByteColumn::new(widths.0, pattern, n, GPUSORT_ASCENDING, pattern % 2 == 1, rng);
    let middle: Vec<u8> = (0..n).map(|_| (splitmix(rng) % 3) as u8).collect();
    let last = ByteColumn::new(widths.1, (pattern + 2) % PATTERNS.len(), n, GPUSORT_DESCENDING, pattern == 0, rng);
    let by = [
        first.descriptor(),
        gpusort_column { keys: middle.as_ptr().cast(), key_type: GPUSORT_KEY_U8, key_bytes: 1, ..zeroed() },
        last.descriptor(),
    ];
    let mut want: Vec<usize> = (0..n).collect();
    want.sort_by(|&a, &b| first.cmp(a, b).then(middle[a].cmp(&middle[b])).then_with(|| last.cmp(a, b)));
    let what = format!("{name} sorter, widths {widths:?}, {}, n = {n}", PATTERNS[pattern]);
    let mut out = vec![u64::MAX; n];
    let st = unsafe { gpusort_lexsort(sorter.0, by.as_ptr(), 3, n, out.as_mut_ptr()) };
    assert_eq!(st, GPUSORT_OK, "{what}: {}", last_error());
    assert!(out.iter().zip(&want).all(|(&a, &b)| a == b as u64), "{what}");
    let mut out32 = vec![u32::MAX; n];
    let st = unsafe { gpusort_lexsort_u32(sorter.0, by.as_ptr(), 3, n, out32.as_mut_ptr()) };
    assert_eq!(st, GPUSORT_OK, "{what}: {}", last_error());
    assert!(out32.iter().zip(&want).all(|(&a, &b)| a as usize == b), "{what}, uint32_t indices");
}

#[test]
fn byte_columns_sort_as_memcmp_beside_numbers() {
    let mut sorters = vec![(Handle(std::ptr::null_mut()), "default"), (handle(GPUSORT_BACKEND_CPU).unwrap(), "cpu")];
    sorters.extend(handle(GPUSORT_BACKEND_CUDA).map(|g| (g, "cuda")));
    let mut rng = 76;
    for (sorter, name) in &sorters {
        let largest = if *name == "cuda" { 100_003 } else { 4097 };
        for widths in [(1, 3), (8, 16), (13, 2), (33, 8)] {
            for pattern in 0..PATTERNS.len() {
                for &n in SIZES.iter().chain(&[100_003]).filter(|&&n| n <= largest) {
                    check(sorter, name, widths, pattern, n, &mut rng);
                }
            }
        }
    }
}

/// The header's example, and the widest key the library takes.
#[test]
fn names_sort_after_the_number_columns() {
    let year = [2024u16, 2023, 2024, 2023];
    let names: [[u8; 4]; 4] = [*b"pear", *b"plum", *b"fig ", *b"fig "];
    let by = [
        gpusort_column { keys: year.as_ptr().cast(), key_type: GPUSORT_KEY_U16, ..zeroed() },
        gpusort_column { keys: names.as_ptr().cast(), key_type: GPUSORT_KEY_BYTES, key_bytes: 4, ..zeroed() },
    ];
    let mut idx = [9u64; 4];
    assert_eq!(unsafe { gpusort_lexsort(null(), by.as_ptr(), 2, 4, idx.as_mut_ptr()) }, GPUSORT_OK);
    assert_eq!(idx, [3, 1, 2, 0]);

    let wide: Vec<u8> = (0..3 * GPUSORT_MAX_KEY_BYTES)
        .map(|i| if i % GPUSORT_MAX_KEY_BYTES == 4095 { (7 - i / 4096) as u8 } else { 1 })
        .collect();
    let by = gpusort_column { keys: wide.as_ptr().cast(), key_type: GPUSORT_KEY_BYTES, key_bytes: 4096, ..zeroed() };
    let mut idx = [9u32; 3];
    assert_eq!(unsafe { gpusort_lexsort_u32(null(), &by, 1, 3, idx.as_mut_ptr()) }, GPUSORT_OK);
    assert_eq!(idx, [2, 1, 0], "only the last of 4096 bytes differs");
}
