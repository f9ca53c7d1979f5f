//! Tests of `gpusort_lexsort`, `gpusort_lexsort_u32` and the sorter's float order: results against
//! std's stable `sort_by` with a comparator chained over the columns (written here from the
//! definitions, not from the library's bits), at edge sizes and patterns (the refusals are in
//! `refusal_tests.rs`). `TestColumn` and `reference` serve the device tests too.

use std::cmp::Ordering;
use std::ptr::{null, null_mut};

use gpusort_core::{FloatOrder, KeyType};

use super::*;
use crate::args::key_types::*;
use crate::args::*;
use crate::failure::last_error;
use crate::sort::{gpusort_sort_keys_f32, gpusort_sort_pairs_f32, gpusort_sort_pairs_u32};
use crate::sorter::{gpusort_sorter_free, gpusort_sorter_new, gpusort_sorter_with_float_order};
use gpusort_status::*;

/// A key column as the tests make it: each row's bits, the same packed at the key size (8-byte
/// aligned storage), an optional null mask and the descriptor's options.
#[derive(Clone, Debug)]
pub(crate) struct TestColumn {
    pub ty: KeyType,
    pub raw: Vec<u64>,
    pub packed: Vec<u64>,
    pub nulls: Option<Vec<u8>>,
    pub order: gpusort_order,
    pub floats: gpusort_float_order,
    pub placement: gpusort_null_placement,
}

/// One column's shape in a test table.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape(pub KeyType, pub gpusort_order, pub gpusort_float_order, pub Option<gpusort_null_placement>);

pub(crate) const PATTERNS: &[&str] = &[
    "random",
    "equal",
    "min and max",
    "sorted",
    "reverse",
    "few distinct",
    "floats: NaN, -0.0, inf",
    "nulls first rows",
];

/// 0, 1, 2, 2^k - 1, 2^k, 2^k + 1, primes.
pub(crate) const SIZES: &[usize] = &[0, 1, 2, 3, 5, 7, 8, 9, 31, 32, 33, 127, 128, 129, 257, 1009, 4095, 4096, 4097];

fn splitmix(s: &mut u64) -> u64 {
    *s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
    let mut z = *s;
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

fn bits_of(ty: KeyType, x: f64) -> u64 {
    if ty == KeyType::F32 {
        (x as f32).to_bits() as u64
    } else {
        x.to_bits()
    }
}

impl TestColumn {
    /// `n` rows of `shape` in `pattern` (an index into `PATTERNS`).
    pub(crate) fn new(shape: Shape, pattern: usize, n: usize, rng: &mut u64) -> TestColumn {
        let Shape(ty, order, floats, placement) = shape;
        let width = 8 * ty.size() as u32;
        let mask = if width == 64 { u64::MAX } else { (1 << width) - 1 };
        let float = matches!(ty, KeyType::F32 | KeyType::F64);
        let signed = matches!(ty, KeyType::I8 | KeyType::I16 | KeyType::I32 | KeyType::I64);
        let (min, max) = match (float, signed) {
            (true, _) => (bits_of(ty, f64::MIN), bits_of(ty, f64::MAX)),
            (false, true) => (1 << (width - 1), mask >> 1),
            (false, false) => (0, mask),
        };
        let specials = [f64::NAN, -f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, 1.5, -1.5, 5e-324];
        let raw: Vec<u64> = (0..n)
            .map(|i| {
                let r = splitmix(rng);
                match pattern {
                    0 | 7 => r & mask,
                    1 => 7,
                    2 => [min, max][(r & 1) as usize],
                    3 => i as u64 & mask,
                    4 => (n - i) as u64 & mask,
                    5 => [min, max, 0, 1, 2][(r % 5) as usize],
                    // A NaN payload beside the plain NaNs: equal to them outside total order.
                    _ if float && r.is_multiple_of(11) => bits_of(ty, f64::NAN) | 1,
                    _ if float => bits_of(ty, specials[(r % specials.len() as u64) as usize]),
                    _ => [min, max, 0][(r % 3) as usize],
                }
            })
            .collect();
        let mut packed = vec![0u64; (n * ty.size()).div_ceil(8)];
        let bytes = unsafe { std::slice::from_raw_parts_mut(packed.as_mut_ptr().cast::<u8>(), packed.len() * 8) };
        for (i, &r) in raw.iter().enumerate() {
            bytes[i * ty.size()..(i + 1) * ty.size()].copy_from_slice(&r.to_le_bytes()[..ty.size()]);
        }
        // Nulls at the first rows (pattern 7), else at the last ones and one row in five.
        let nulls = placement.map(|_| {
            (0..n).map(|i| u8::from(if pattern == 7 { i < n / 3 } else { i >= n - n / 4 || i % 5 == 2 })).collect()
        });
        TestColumn { ty, raw, packed, nulls, order, floats, placement: placement.unwrap_or(GPUSORT_NULLS_LAST) }
    }

    /// The descriptor, pointing at this column's host arrays.
    pub(crate) fn descriptor(&self) -> gpusort_column {
        gpusort_column {
            keys: self.packed.as_ptr().cast(),
            nulls: self.nulls.as_ref().map_or(null(), |m| m.as_ptr()),
            key_type: self.ty as gpusort_key_type,
            order: self.order,
            float_order: self.floats,
            null_placement: self.placement,
            key_bytes: 0,
        }
    }

    /// Rows `a` and `b` compared by the definitions: nulls at their place in both orders, then
    /// NaN at its place (outside total order) in both orders, then the values in the column's
    /// order. `sorter_floats` is the sorter's float order, for columns that name none.
    fn cmp(&self, a: usize, b: usize, sorter_floats: FloatOrder) -> Ordering {
        let after = |x_after: bool| if x_after { Ordering::Greater } else { Ordering::Less };
        if let Some(m) = &self.nulls {
            match (m[a] != 0, m[b] != 0) {
                (true, true) => return Ordering::Equal,
                (true, false) => return after(self.placement == GPUSORT_NULLS_LAST),
                (false, true) => return after(self.placement != GPUSORT_NULLS_LAST),
                _ => {}
            }
        }
        let desc = self.order == GPUSORT_DESCENDING;
        let floats = float_order(self.floats).unwrap().unwrap_or(sorter_floats);
        let (x, y) = (self.raw[a], self.raw[b]);
        let (value, nans) = match self.ty {
            KeyType::F32 => {
                let (x, y) = (f32::from_bits(x as u32), f32::from_bits(y as u32));
                (
                    if floats == FloatOrder::Total {
                        x.total_cmp(&y)
                    } else {
                        x.partial_cmp(&y).unwrap_or(Ordering::Equal)
                    },
                    (x.is_nan(), y.is_nan()),
                )
            }
            KeyType::F64 => {
                let (x, y) = (f64::from_bits(x), f64::from_bits(y));
                (
                    if floats == FloatOrder::Total {
                        x.total_cmp(&y)
                    } else {
                        x.partial_cmp(&y).unwrap_or(Ordering::Equal)
                    },
                    (x.is_nan(), y.is_nan()),
                )
            }
            KeyType::I8 => ((x as i8).cmp(&(y as i8)), (false, false)),
            KeyType::I16 => ((x as i16).cmp(&(y as i16)), (false, false)),
            KeyType::I32 => ((x as i32).cmp(&(y as i32)), (false, false)),
            KeyType::I64 => ((x as i64).cmp(&(y as i64)), (false, false)),
            _ => (x.cmp(&y), (false, false)),
        };
        let nan_after = match floats {
            FloatOrder::NanFirst => false,
            FloatOrder::NanLargest => !desc,
            _ => true,
        };
        match nans {
            _ if floats == FloatOrder::Total => {}
            (true, true) => return Ordering::Equal,
            (true, false) => return after(nan_after),
            (false, true) => return after(!nan_after),
            _ => {}
        }
        if desc {
            value.reverse()
        } else {
            value
        }
    }
}

/// The stable permutation of the rows by std's `sort_by`, the columns compared in turn.
pub(crate) fn reference(columns: &[TestColumn], n: usize, sorter_floats: FloatOrder) -> Vec<u64> {
    let mut rows: Vec<usize> = (0..n).collect();
    rows.sort_by(|&a, &b| columns.iter().fold(Ordering::Equal, |o, c| o.then_with(|| c.cmp(a, b, sorter_floats))));
    rows.into_iter().map(|r| r as u64).collect()
}

use KeyType::*;
use GPUSORT_ASCENDING as ASC;
use GPUSORT_DESCENDING as DESC;
use GPUSORT_FLOAT_ORDER_DEFAULT as FDEF;

/// The tables of the sweeps: one column of each type, two packed into one word, mixed widths
/// across several words, every float order and null placement.
pub(crate) const TABLES: &[&[Shape]] = &[
    &[Shape(U32, ASC, FDEF, None), Shape(U32, DESC, FDEF, None)],
    &[Shape(F32, ASC, GPUSORT_FLOAT_ORDER_NAN_LAST, None), Shape(I64, DESC, FDEF, None)],
    &[
        Shape(U8, DESC, FDEF, Some(GPUSORT_NULLS_FIRST)),
        Shape(F64, ASC, GPUSORT_FLOAT_ORDER_NAN_LARGEST, None),
        Shape(I16, ASC, FDEF, None),
    ],
    &[Shape(U64, ASC, FDEF, None), Shape(U64, DESC, FDEF, None)],
    &[
        Shape(I8, ASC, FDEF, None),
        Shape(U16, DESC, FDEF, None),
        Shape(F32, DESC, GPUSORT_FLOAT_ORDER_NAN_FIRST, Some(GPUSORT_NULLS_FIRST)),
    ],
    &[Shape(F64, DESC, GPUSORT_FLOAT_ORDER_TOTAL, None), Shape(I32, ASC, FDEF, Some(GPUSORT_NULLS_LAST))],
    &[
        Shape(F32, DESC, GPUSORT_FLOAT_ORDER_NAN_LARGEST, Some(GPUSORT_NULLS_FIRST)),
        Shape(F64, DESC, GPUSORT_FLOAT_ORDER_NAN_LAST, None),
    ],
];

/// Column `j` of a table takes pattern `pattern + j`, so that the columns of one table differ.
pub(crate) fn table(shapes: &[Shape], pattern: usize, n: usize, rng: &mut u64) -> Vec<TestColumn> {
    shapes.iter().enumerate().map(|(j, &s)| TestColumn::new(s, (pattern + j) % PATTERNS.len(), n, rng)).collect()
}

/// A sorter handle (freed on drop).
pub(crate) struct Handle(pub *mut gpusort_sorter);

impl Drop for Handle {
    fn drop(&mut self) {
        unsafe { gpusort_sorter_free(self.0) }
    }
}

pub(crate) fn handle(backend: gpusort_backend) -> Option<Handle> {
    let mut h = null_mut();
    (unsafe { gpusort_sorter_new(backend, &mut h) } == GPUSORT_OK).then_some(Handle(h))
}

pub(crate) fn with_floats(base: *const gpusort_sorter, floats: gpusort_float_order) -> Handle {
    let mut h = null_mut();
    assert_eq!(unsafe { gpusort_sorter_with_float_order(base, floats, &mut h) }, GPUSORT_OK);
    Handle(h)
}

/// Both index widths of one table on `sorter`, against the reference; a description of the
/// first difference, or `None`.
fn sorts_like_reference(
    sorter: *const gpusort_sorter,
    columns: &[TestColumn],
    n: usize,
    floats: FloatOrder,
) -> Option<String> {
    let descriptors: Vec<gpusort_column> = columns.iter().map(TestColumn::descriptor).collect();
    let want = reference(columns, n, floats);
    let mut out = vec![u64::MAX; n + 1];
    let st = unsafe { gpusort_lexsort(sorter, descriptors.as_ptr(), descriptors.len(), n, out.as_mut_ptr()) };
    if st != GPUSORT_OK {
        return Some(format!("status {st:?}: {}", last_error()));
    }
    if out[..n] != want[..] || out[n] != u64::MAX {
        let at = (0..=n).find(|&i| out.get(i) != want.get(i).or(Some(&u64::MAX))).unwrap();
        return Some(format!("out[{at}] = {}, the reference has {:?}", out[at], want.get(at)));
    }
    let mut out32 = vec![u32::MAX; n];
    let st = unsafe { gpusort_lexsort_u32(sorter, descriptors.as_ptr(), descriptors.len(), n, out32.as_mut_ptr()) };
    let ok = st == GPUSORT_OK && out32.iter().zip(&want).all(|(&a, &b)| a as u64 == b);
    (!ok).then(|| format!("uint32_t indices differ (status {st:?})"))
}

/// The sorters of the sweeps: the default, a CPU one and, where there is a GPU, a CUDA one.
fn sorters() -> Vec<(Handle, &'static str)> {
    let mut sorters = vec![(Handle(null_mut()), "default"), (handle(GPUSORT_BACKEND_CPU).unwrap(), "cpu")];
    sorters.extend(handle(GPUSORT_BACKEND_CUDA).map(|g| (g, "cuda")));
    sorters
}

/// Every pattern and size of each table on `sorter`, panicking at the first difference.
fn sweep(sorter: &Handle, name: &str, tables: &[&[Shape]], rng: &mut u64) {
    // A GPU takes the larger sizes: its paths start past a few thousand rows.
    let largest = if name == "cuda" { 300_007 } else { 4097 };
    for shapes in tables {
        for (pattern, pattern_name) in PATTERNS.iter().enumerate() {
            for &n in SIZES.iter().chain(&[65_537, 300_007]).filter(|&&n| n <= largest) {
                let columns = table(shapes, pattern, n, rng);
                if let Some(bad) = sorts_like_reference(sorter.0, &columns, n, FloatOrder::Total) {
                    panic!("{name} sorter, {shapes:?}, {pattern_name}, n = {n}: {bad}");
                }
            }
        }
    }
}

/// Every table, pattern and size on every sorter, and on sorters with each float order.
#[test]
fn every_table_sorts_like_the_reference() {
    let mut rng = 75;
    for (sorter, name) in sorters() {
        sweep(&sorter, name, TABLES, &mut rng);
        // The sorter's float order reaches the columns that name none, and only those.
        for floats in [GPUSORT_FLOAT_ORDER_NAN_LAST, GPUSORT_FLOAT_ORDER_NAN_FIRST, GPUSORT_FLOAT_ORDER_NAN_LARGEST] {
            let s = with_floats(sorter.0, floats);
            let want = float_order(floats).unwrap().unwrap();
            let shapes = [
                Shape(F32, DESC, FDEF, Some(GPUSORT_NULLS_FIRST)),
                Shape(F64, ASC, FDEF, None),
                Shape(F32, ASC, GPUSORT_FLOAT_ORDER_TOTAL, None),
            ];
            for &n in &[0, 1, 2, 7, 257, 4097] {
                let columns = table(&shapes, 6, n, &mut rng);
                if let Some(bad) = sorts_like_reference(s.0, &columns, n, want) {
                    panic!("{name} sorter with float order {floats}, n = {n}: {bad}");
                }
            }
        }
    }
}

/// Columns of 64-bit keys with nulls: the key's 64 bits and the null flag take 65.
#[test]
fn nullable_64_bit_columns_sort_like_the_reference() {
    let tables: &[&[Shape]] = &[
        &[Shape(U64, DESC, FDEF, Some(GPUSORT_NULLS_LAST))],
        &[Shape(F64, ASC, FDEF, Some(GPUSORT_NULLS_FIRST)), Shape(U8, ASC, FDEF, None)],
        &[
            Shape(I64, ASC, FDEF, Some(GPUSORT_NULLS_FIRST)),
            Shape(F64, DESC, GPUSORT_FLOAT_ORDER_NAN_LAST, Some(GPUSORT_NULLS_LAST)),
        ],
    ];
    let mut rng = 76;
    for (sorter, name) in sorters() {
        sweep(&sorter, name, tables, &mut rng);
    }
}

/// The examples of the header, and a tuple comparator written out by hand.
#[test]
fn the_documented_examples_hold() {
    let year = [2024u16, 2023, 2024, 2023];
    let price = [9.5f32, 3.0, 12.0, 3.0];
    let by = [
        gpusort_column { keys: year.as_ptr().cast(), key_type: GPUSORT_KEY_U16, ..zeroed() },
        gpusort_column { keys: price.as_ptr().cast(), key_type: GPUSORT_KEY_F32, order: DESC, ..zeroed() },
    ];
    let mut idx = [9u64; 4];
    assert_eq!(unsafe { gpusort_lexsort(null(), by.as_ptr(), 2, 4, idx.as_mut_ptr()) }, GPUSORT_OK);
    let mut want = [0usize, 1, 2, 3];
    want.sort_by(|&a, &b| (year[a], -price[a]).partial_cmp(&(year[b], -price[b])).unwrap());
    assert_eq!(idx, [1, 3, 2, 0]);
    assert_eq!(idx.map(|i| i as usize), want);

    let np = with_floats(null(), GPUSORT_FLOAT_ORDER_NAN_LAST);
    let x = [f64::NAN, 1.0, -0.0, 0.0];
    let st = unsafe { crate::argsort::gpusort_argsort_f64(np.0, x.as_ptr(), 4, idx.as_mut_ptr(), DESC) };
    assert_eq!((st, idx), (GPUSORT_OK, [1, 2, 3, 0]));
}

pub(crate) fn zeroed() -> gpusort_column {
    gpusort_column {
        keys: null(),
        nulls: null(),
        key_type: 0,
        order: 0,
        float_order: 0,
        null_placement: 0,
        key_bytes: 0,
    }
}

/// Keys-only sorts keep -0.0 / +0.0 and NaNs of other bits in input order under a float order;
/// the sorts that keep total order refuse float keys on such a sorter, and other keys sort.
#[test]
fn the_sorter_float_order_reaches_keys_and_argsort_and_refuses_the_rest() {
    let cpu = handle(GPUSORT_BACKEND_CPU).unwrap();
    for base in [null(), cpu.0 as *const gpusort_sorter] {
        let np = with_floats(base, GPUSORT_FLOAT_ORDER_NAN_LAST);
        let nan_payload = f32::from_bits(f32::NAN.to_bits() | 1);
        let mut keys = [0.0f32, f32::NAN, -0.0, -1.0, -f32::NAN, 0.0, nan_payload, -0.0];
        let st = unsafe { gpusort_sort_keys_f32(np.0, keys.as_mut_ptr(), 8, ASC, GPUSORT_ALGORITHM_AUTO) };
        let bits: Vec<u32> = keys.iter().map(|k| k.to_bits()).collect();
        let want = [-1.0f32, 0.0, -0.0, 0.0, -0.0, f32::NAN, -f32::NAN, nan_payload].map(f32::to_bits);
        assert_eq!((st, bits), (GPUSORT_OK, want.to_vec()));

        let torch = with_floats(base, GPUSORT_FLOAT_ORDER_NAN_LARGEST);
        let x = [1.0f32, f32::NAN, 3.0, -f32::NAN];
        let mut idx = [7u64; 4];
        let st = unsafe { crate::argsort::gpusort_argsort_f32(torch.0, x.as_ptr(), 4, idx.as_mut_ptr(), DESC) };
        assert_eq!((st, idx), (GPUSORT_OK, [1, 3, 2, 0]), "NaN largest: first descending, in input order");

        let (mut k, mut v) = ([2.0f32, 1.0], [0u32, 1]);
        let st = unsafe { gpusort_sort_pairs_f32(np.0, k.as_mut_ptr(), v.as_mut_ptr(), 2, ASC, 0) };
        assert_eq!((st, k, v), (GPUSORT_INVALID_ARGUMENT, [2.0, 1.0], [0, 1]));
        assert!(last_error().contains("total order"), "{}", last_error());
        let (mut k, mut v) = ([2u32, 1], [0u32, 1]);
        let st = unsafe { gpusort_sort_pairs_u32(np.0, k.as_mut_ptr(), v.as_mut_ptr(), 2, ASC, 0) };
        assert_eq!((st, k, v), (GPUSORT_OK, [1, 2], [1, 0]));
        let total = with_floats(np.0, GPUSORT_FLOAT_ORDER_DEFAULT);
        let (mut k, mut v) = ([2.0f32, 1.0], [0u32, 1]);
        let st = unsafe { gpusort_sort_pairs_f32(total.0, k.as_mut_ptr(), v.as_mut_ptr(), 2, ASC, 0) };
        assert_eq!((st, k), (GPUSORT_OK, [1.0, 2.0]), "DEFAULT on a sorter is total order again");
    }
    let mut out = null_mut();
    for bad in [5, u32::MAX] {
        let st = unsafe { gpusort_sorter_with_float_order(null(), bad, &mut out) };
        assert_eq!((st, out), (GPUSORT_INVALID_ARGUMENT, null_mut()));
        assert!(last_error().contains(&format!("float order {bad}")), "{}", last_error());
    }
    let st = unsafe { gpusort_sorter_with_float_order(null(), GPUSORT_FLOAT_ORDER_NAN_LAST, null_mut()) };
    assert_eq!(st, GPUSORT_INVALID_ARGUMENT);
}
