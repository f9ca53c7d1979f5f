//! Lexsort, and the float orders of argsort and keys-only sorts, on every backend, against an oracle
//! written apart from the library's packing: std's stable sort of row numbers with a comparator
//! that compares each column's decoded value (NaN, -0.0, nulls and each order as named), first
//! column first. Columns come in every key type, with nulls at both ends, NaNs of both signs and
//! several payloads, -0.0 beside +0.0, and ties in every column.

mod common;

use std::cmp::Ordering;

use common::*;
use gpusort::{bf16, f16, Column, FloatOrder, KeyType, NullPlacement, Order, Sorter};

/// A column under test: raw bits of `ty` (zero-extended), its order, float order and nulls.
#[derive(Clone, Debug)]
struct TestColumn {
    ty: KeyType,
    raw: Vec<u64>,
    order: Order,
    floats: FloatOrder,
    nulls: Option<(Vec<bool>, NullPlacement)>,
}

/// The typed keys of a column, kept alive while `Column`s borrow them.
enum Keys {
    U8(Vec<u8>),
    I8(Vec<i8>),
    U16(Vec<u16>),
    I16(Vec<i16>),
    U32(Vec<u32>),
    I32(Vec<i32>),
    F32(Vec<f32>),
    U64(Vec<u64>),
    I64(Vec<i64>),
    F64(Vec<f64>),
    F16(Vec<f16>),
    BF16(Vec<bf16>),
}

impl Keys {
    fn of(ty: KeyType, raw: &[u64]) -> Keys {
        match ty {
            KeyType::U8 => Keys::U8(raw.iter().map(|&b| b as u8).collect()),
            KeyType::I8 => Keys::I8(raw.iter().map(|&b| b as u8 as i8).collect()),
            KeyType::U16 => Keys::U16(raw.iter().map(|&b| b as u16).collect()),
            KeyType::I16 => Keys::I16(raw.iter().map(|&b| b as u16 as i16).collect()),
            KeyType::U32 => Keys::U32(raw.iter().map(|&b| b as u32).collect()),
            KeyType::I32 => Keys::I32(raw.iter().map(|&b| b as u32 as i32).collect()),
            KeyType::F32 => Keys::F32(raw.iter().map(|&b| f32::from_bits(b as u32)).collect()),
            KeyType::U64 => Keys::U64(raw.to_vec()),
            KeyType::I64 => Keys::I64(raw.iter().map(|&b| b as i64).collect()),
            KeyType::F64 => Keys::F64(raw.iter().map(|&b| f64::from_bits(b)).collect()),
            KeyType::F16 => Keys::F16(raw.iter().map(|&b| f16::from_bits(b as u16)).collect()),
            KeyType::BF16 => Keys::BF16(raw.iter().map(|&b| bf16::from_bits(b as u16)).collect()),
            other => panic!("no test keys for {other:?}"),
        }
    }

    fn column(&self) -> Column<'_> {
        match self {
            Keys::U8(k) => Column::new(k),
            Keys::I8(k) => Column::new(k),
            Keys::U16(k) => Column::new(k),
            Keys::I16(k) => Column::new(k),
            Keys::U32(k) => Column::new(k),
            Keys::I32(k) => Column::new(k),
            Keys::F32(k) => Column::new(k),
            Keys::U64(k) => Column::new(k),
            Keys::I64(k) => Column::new(k),
            Keys::F64(k) => Column::new(k),
            Keys::F16(k) => Column::new(k),
            Keys::BF16(k) => Column::new(k),
        }
    }
}

fn width(ty: KeyType) -> u32 {
    8 * ty.size() as u32
}

fn is_float(ty: KeyType) -> bool {
    matches!(ty, KeyType::F32 | KeyType::F64 | KeyType::F16 | KeyType::BF16)
}

/// A half-precision key's exact value as `f32` (the oracle compares those).
fn half(ty: KeyType, raw: u64) -> f32 {
    match ty {
        KeyType::F16 => f16::from_bits(raw as u16).to_f32(),
        _ => bf16::from_bits(raw as u16).to_f32(),
    }
}

fn is_nan(ty: KeyType, raw: u64) -> bool {
    match ty {
        KeyType::F32 => f32::from_bits(raw as u32).is_nan(),
        KeyType::F64 => f64::from_bits(raw).is_nan(),
        KeyType::F16 | KeyType::BF16 => half(ty, raw).is_nan(),
        _ => false,
    }
}

/// IEEE total order of 16-bit float bits, written apart from the library: by sign, then by
/// magnitude bits (reversed for negatives).
fn half_total(a: u64, b: u64) -> Ordering {
    let key = |x: u64| if x & 0x8000 != 0 { -((x & 0x7fff) as i64) - 1 } else { x as i64 };
    key(a).cmp(&key(b))
}

/// `a` against `b` as `ty` keys in `floats` order, ascending, NaNs aside (the caller places them).
fn compare_values(ty: KeyType, floats: FloatOrder, a: u64, b: u64) -> Ordering {
    let signed = |x: u64| ((x << (64 - width(ty))) as i64) >> (64 - width(ty));
    match ty {
        KeyType::F32 if floats == FloatOrder::Total => f32::from_bits(a as u32).total_cmp(&f32::from_bits(b as u32)),
        KeyType::F64 if floats == FloatOrder::Total => f64::from_bits(a).total_cmp(&f64::from_bits(b)),
        KeyType::F16 | KeyType::BF16 if floats == FloatOrder::Total => half_total(a, b),
        KeyType::F16 | KeyType::BF16 => half(ty, a).partial_cmp(&half(ty, b)).expect("no NaN"),
        // partial_cmp says -0.0 == +0.0; NaNs never come here.
        KeyType::F32 => f32::from_bits(a as u32).partial_cmp(&f32::from_bits(b as u32)).expect("no NaN"),
        KeyType::F64 => f64::from_bits(a).partial_cmp(&f64::from_bits(b)).expect("no NaN"),
        KeyType::I8 | KeyType::I16 | KeyType::I32 | KeyType::I64 => signed(a).cmp(&signed(b)),
        _ => a.cmp(&b),
    }
}

impl TestColumn {
    fn compare(&self, i: usize, j: usize) -> Ordering {
        if let Some((nulls, at)) = &self.nulls {
            let last = if *at == NullPlacement::Last { Ordering::Greater } else { Ordering::Less };
            match (nulls[i], nulls[j]) {
                (true, true) => return Ordering::Equal,
                (true, false) => return last,
                (false, true) => return last.reverse(),
                _ => {}
            }
        }
        let (a, b) = (self.raw[i], self.raw[j]);
        if is_float(self.ty) && self.floats != FloatOrder::Total {
            let nan_last = match self.floats {
                FloatOrder::NanLast => true,
                FloatOrder::NanFirst => false,
                _ => self.order == Order::Ascending,
            };
            let last = if nan_last { Ordering::Greater } else { Ordering::Less };
            match (is_nan(self.ty, a), is_nan(self.ty, b)) {
                (true, true) => return Ordering::Equal,
                (true, false) => return last,
                (false, true) => return last.reverse(),
                _ => {}
            }
        }
        let c = compare_values(self.ty, self.floats, a, b);
        if self.order == Order::Descending {
            c.reverse()
        } else {
            c
        }
    }
}

/// The oracle: row numbers stably sorted by the columns, first column first.
fn oracle(columns: &[TestColumn], n: usize) -> Vec<u32> {
    let mut rows: Vec<u32> = (0..n as u32).collect();
    rows.sort_by(|&i, &j| {
        columns.iter().map(|c| c.compare(i as usize, j as usize)).find(|o| o.is_ne()).unwrap_or(Ordering::Equal)
    });
    rows
}

/// Float bits a sort must tell apart or tie: NaNs of both signs and several payloads, zeros of
/// both signs, infinities, and a few ordinary values (repeated, so ties are common).
fn float_special(ty: KeyType, pick: u64) -> u64 {
    match ty {
        KeyType::F16 | KeyType::BF16 => {
            let f16s = [0x7e00, 0x7c01, 0xfe00, 0x7e01, 0x8000, 0, 0x7c00, 0xfc00, 0x0001, 0x8001, 0x3e00, 0xbe00];
            let bf16s = [0x7fc0, 0x7f81, 0xffc0, 0x7fc1, 0x8000, 0, 0x7f80, 0xff80, 0x0001, 0x8001, 0x3fc0, 0xbfc0];
            let v = if ty == KeyType::F16 { f16s } else { bf16s };
            v[(pick % 12) as usize]
        }
        KeyType::F32 => {
            let v = [
                f32::NAN.to_bits(),
                0x7fc0_0001,
                0xffc0_0000,
                0x7f80_0001,
                (-0.0f32).to_bits(),
                0,
                0x7f80_0000,
                0xff80_0000,
            ];
            let normal = [1.5f32, -1.5, 3.0, -7.25];
            match pick % 12 {
                p @ 0..8 => v[p as usize] as u64,
                p => normal[(p - 8) as usize].to_bits() as u64,
            }
        }
        _ => {
            let v = [
                f64::NAN.to_bits(),
                0x7ff8_0000_0000_0001,
                0xfff8_0000_0000_0000,
                0x7ff0_0000_0000_0001,
                (-0.0f64).to_bits(),
                0,
                0x7ff0_0000_0000_0000,
                0xfff0_0000_0000_0000,
            ];
            let normal = [1.5f64, -1.5, 3.0, -7.25];
            match pick % 12 {
                p @ 0..8 => v[p as usize],
                p => normal[(p - 8) as usize].to_bits(),
            }
        }
    }
}

/// A column of `ty` in `pattern`; floats get specials in about a quarter of the rows, and with
/// `nulls` about a fifth of the rows are null.
fn column(
    ty: KeyType,
    n: usize,
    pattern: Pattern,
    seed: u64,
    how: (Order, FloatOrder, Option<NullPlacement>),
) -> TestColumn {
    let mask = if width(ty) == 64 { u64::MAX } else { (1u64 << width(ty)) - 1 };
    let mut r = Rng(seed);
    // The pattern's top bits, so Sorted stays sorted (as raw bits) and Extremes hits 0 and MAX.
    let mut raw: Vec<u64> = bits(n, pattern, seed).into_iter().map(|b| (b >> (64 - width(ty))) & mask).collect();
    if is_float(ty) && pattern != Pattern::AllEqual {
        for x in raw.iter_mut() {
            let roll = r.next();
            if roll.is_multiple_of(4) {
                *x = float_special(ty, roll >> 8);
            }
        }
    }
    let nulls = how.2.map(|at| ((0..n).map(|_| r.next().is_multiple_of(5)).collect(), at));
    TestColumn { ty, raw, order: how.0, floats: how.1, nulls }
}

fn lexsort_with(s: &Sorter, columns: &[TestColumn]) -> Vec<u32> {
    let keys: Vec<Keys> = columns.iter().map(|c| Keys::of(c.ty, &c.raw)).collect();
    let built: Vec<Column<'_>> = columns
        .iter()
        .zip(&keys)
        .map(|(c, k)| {
            let col = k.column().with_order(c.order).with_float_order(c.floats);
            match &c.nulls {
                Some((m, at)) => col.with_nulls(m, *at),
                None => col,
            }
        })
        .collect();
    let got = s.lexsort(&built).unwrap_or_else(|e| panic!("lexsort: {e}"));
    let mut wide = vec![u64::MAX; got.len()];
    s.lexsort_into(&built, &mut wide).unwrap_or_else(|e| panic!("lexsort_into u64: {e}"));
    assert!(wide.iter().zip(&got).all(|(&w, &g)| w == g as u64), "u64 indices differ from u32 ones");
    got
}

type Shape = &'static [(KeyType, Order, FloatOrder, Option<NullPlacement>)];

const ASC: Order = Order::Ascending;
const DESC: Order = Order::Descending;
const TOTAL: FloatOrder = FloatOrder::Total;

/// Column sets that take each path of the plan: one packed word, a 32-bit word, several words,
/// words of more than two fields, nulls' flag bits, every float order.
const SHAPES: &[Shape] = &[
    &[(KeyType::U32, ASC, TOTAL, None), (KeyType::U32, ASC, TOTAL, None)],
    &[(KeyType::F32, ASC, FloatOrder::NanLast, None), (KeyType::I64, DESC, TOTAL, None)],
    &[
        (KeyType::U8, ASC, TOTAL, None),
        (KeyType::I16, DESC, TOTAL, None),
        (KeyType::F64, ASC, FloatOrder::NanLargest, Some(NullPlacement::First)),
    ],
    &[(KeyType::F64, DESC, TOTAL, None), (KeyType::U16, ASC, TOTAL, Some(NullPlacement::Last))],
    &[(KeyType::F32, DESC, FloatOrder::NanFirst, None)],
    &[(KeyType::F32, DESC, FloatOrder::NanLargest, Some(NullPlacement::Last))],
    &[
        (KeyType::I8, ASC, TOTAL, None),
        (KeyType::U8, DESC, TOTAL, None),
        (KeyType::U16, ASC, TOTAL, None),
        (KeyType::I32, ASC, TOTAL, Some(NullPlacement::First)),
        (KeyType::F32, DESC, FloatOrder::NanLast, None),
    ],
    &[
        (KeyType::U64, ASC, TOTAL, None),
        (KeyType::I64, DESC, TOTAL, Some(NullPlacement::Last)),
        (KeyType::U64, ASC, TOTAL, None),
    ],
    &[
        (KeyType::F16, ASC, FloatOrder::NanLast, None),
        (KeyType::BF16, DESC, FloatOrder::NanLargest, Some(NullPlacement::First)),
        (KeyType::F16, DESC, TOTAL, None),
    ],
    &[(KeyType::BF16, ASC, TOTAL, None), (KeyType::F16, DESC, FloatOrder::NanFirst, Some(NullPlacement::Last))],
];

fn lexsort_cases(s: &Sorter, lengths: &[usize], patterns: &[Pattern]) {
    for (si, shape) in SHAPES.iter().enumerate() {
        for &n in lengths {
            for &p in patterns {
                let columns: Vec<TestColumn> = shape
                    .iter()
                    .enumerate()
                    .map(|(ci, &(ty, o, f, nulls))| column(ty, n, p, 100 * si as u64 + ci as u64, (o, f, nulls)))
                    .collect();
                let want = oracle(&columns, n);
                assert!(lexsort_with(s, &columns) == want, "shape {si} n={n} {p:?}: not the oracle's permutation");
                // A descending sorter reverses every column.
                let flipped: Vec<TestColumn> = columns
                    .iter()
                    .map(|c| TestColumn { order: if c.order == ASC { DESC } else { ASC }, ..c.clone() })
                    .collect();
                let want = oracle(&flipped, n);
                let got = lexsort_with(&s.clone().with_order(DESC), &columns);
                assert!(got == want, "shape {si} n={n} {p:?} descending sorter: not the oracle's permutation");
            }
        }
    }
}

/// The float-order cases' lengths on every backend; the GPU's add one past its crossover.
const FLOAT_LENGTHS: &[usize] = &[0, 1, 2, 31, 256, 4097, 65537];

fn lexsort_matches_the_oracle(s: Sorter, large: &[usize]) {
    let small: Vec<usize> = SMALL_LENGTHS.iter().copied().filter(|&n| n <= 4097).collect();
    lexsort_cases(&s, &small, PATTERNS);
    lexsort_cases(&s, large, &[Pattern::Random, Pattern::FewDistinct]);
}

/// Argsort and keys-only sorts of floats in each float order: the oracle's permutation, and keys
/// equal under the order (-0.0 / +0.0, NaNs) kept in input order, bit for bit, at the lengths
/// `FLOAT_LENGTHS` and `large`.
fn float_orders_of_argsort_and_sort(s: Sorter, large: &[usize]) {
    for floats in [FloatOrder::NanLast, FloatOrder::NanFirst, FloatOrder::NanLargest, FloatOrder::Total] {
        for order in [ASC, DESC] {
            for &n in FLOAT_LENGTHS.iter().chain(large) {
                for p in [Pattern::Random, Pattern::FewDistinct, Pattern::Sorted] {
                    let c = column(KeyType::F32, n, p, 7 + n as u64, (order, floats, None));
                    let want = oracle(std::slice::from_ref(&c), n);
                    let keys: Vec<f32> = c.raw.iter().map(|&b| f32::from_bits(b as u32)).collect();
                    let sorter = s.clone().with_order(order).with_float_order(floats);
                    let what = format!("f32 {floats:?} {order:?} n={n} {p:?}");
                    assert_eq!(sorter.argsort(&keys).expect("argsort"), want, "{what}: argsort");
                    let mut sorted = keys.clone();
                    sorter.sort_keys(&mut sorted).expect("sort_keys");
                    let want_bits: Vec<u32> = want.iter().map(|&i| keys[i as usize].to_bits()).collect();
                    if floats == FloatOrder::Total {
                        // Total order ties only equal bits: any stable or unstable sort agrees.
                        assert!(sorted.iter().map(|x| x.to_bits()).eq(want_bits), "{what}: sort_keys");
                    } else {
                        assert!(sorted.iter().map(|x| x.to_bits()).eq(want_bits), "{what}: sort_keys, bit for bit");
                    }
                    let c = column(KeyType::F16, n, p, 5 + n as u64, (order, floats, None));
                    half_case(&sorter, &c, f16::from_bits, f16::to_bits, &format!("f16 {what}"));
                    let c = column(KeyType::BF16, n, p, 6 + n as u64, (order, floats, None));
                    half_case(&sorter, &c, bf16::from_bits, bf16::to_bits, &format!("bf16 {what}"));
                    let c = column(KeyType::F64, n, p, 9 + n as u64, (order, floats, None));
                    let want = oracle(std::slice::from_ref(&c), n);
                    let keys: Vec<f64> = c.raw.iter().map(|&b| f64::from_bits(b)).collect();
                    let mut wide = vec![0u64; n];
                    sorter.argsort_into(&keys, &mut wide).expect("argsort_into");
                    assert!(wide.iter().map(|&w| w as u32).eq(want.iter().copied()), "f64 {what}: argsort_into");
                    let mut sorted = keys.clone();
                    sorter.sort_keys(&mut sorted).expect("sort_keys");
                    assert!(
                        sorted.iter().map(|x| x.to_bits()).eq(want.iter().map(|&i| keys[i as usize].to_bits())),
                        "f64 {what}: sort_keys, bit for bit"
                    );
                }
            }
        }
    }
}

/// A half-precision column's argsort and keys-only sort against the oracle, bit for bit.
fn half_case<H: gpusort::Key>(sorter: &Sorter, c: &TestColumn, from: fn(u16) -> H, bits: fn(H) -> u16, what: &str) {
    let want = oracle(std::slice::from_ref(c), c.raw.len());
    let keys: Vec<H> = c.raw.iter().map(|&b| from(b as u16)).collect();
    assert_eq!(sorter.argsort(&keys).expect("argsort"), want, "{what}: argsort");
    let mut sorted = keys.clone();
    sorter.sort_keys(&mut sorted).expect("sort_keys");
    assert!(
        sorted.iter().map(|&x| bits(x)).eq(want.iter().map(|&i| bits(keys[i as usize]))),
        "{what}: sort_keys, bit for bit"
    );
}

fn bad_arguments_are_refused() {
    let s = Sorter::cpu();
    let a = [1u32, 2, 3];
    let b = [1.0f32, 2.0];
    let mask = [false, true];
    let none: [Column<'_>; 0] = [];
    assert!(matches!(s.lexsort(&none), Err(gpusort::SortError::InvalidArgument(_))));
    assert!(matches!(s.lexsort(&[Column::new(&a), Column::new(&b)]), Err(gpusort::SortError::InvalidArgument(_))));
    let masked = Column::new(&a).with_nulls(&mask, NullPlacement::Last);
    assert!(matches!(s.lexsort(&[masked]), Err(gpusort::SortError::InvalidArgument(_))));
    let mut out = [7u32; 2];
    assert!(matches!(s.lexsort_into(&[Column::new(&a)], &mut out), Err(gpusort::SortError::InvalidArgument(_))));
    assert_eq!(out, [7, 7], "a refused lexsort wrote its output");
    // Sorts that keep total order refuse another float order rather than ignore it.
    let (mut k, mut v) = (vec![1.0f32, f32::NAN], vec![0u32, 1]);
    let nan_last = Sorter::cpu().with_float_order(FloatOrder::NanLast);
    assert!(matches!(nan_last.sort_pairs(&mut k, &mut v), Err(gpusort::SortError::InvalidArgument(_))));
    assert!(nan_last.sort_pairs(&mut [2u32, 1], &mut [0u32, 1]).is_ok(), "integer keys have no float order");
}

fn main() -> std::process::ExitCode {
    harness::run(vec![
        harness::cpu("cpu_lexsort_matches_the_oracle", || lexsort_matches_the_oracle(Sorter::cpu(), &[65537])),
        // Past the GPU crossover where there is a GPU; without one `auto()` is the CPU backend,
        // which the case above tests.
        harness::cpu("auto_lexsort_matches_the_oracle", || {
            let auto = Sorter::auto();
            if auto.cuda_context().is_some() {
                lexsort_matches_the_oracle(auto, &[300_007]);
            }
        }),
        harness::cpu("cpu_float_orders", || float_orders_of_argsort_and_sort(Sorter::cpu(), &[])),
        harness::cpu("bad_arguments_are_refused", bad_arguments_are_refused),
        harness::gpu("cuda_lexsort_matches_the_oracle", || {
            lexsort_matches_the_oracle(Sorter::cuda().expect("a GPU"), &[65537, 300_007, (1 << 20) + 3])
        }),
        harness::gpu("cuda_float_orders", || {
            float_orders_of_argsort_and_sort(Sorter::cuda().expect("a GPU"), &[300_007])
        }),
    ])
}
