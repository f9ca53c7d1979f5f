//! Byte-string keys (`Column::bytes`, `sort_by_key` by `[u8; N]`, `sort_records_by_bytes`) on every
//! backend, against std's stable sort of row numbers by `memcmp` order of the keys (`<[u8]>::cmp`),
//! each order and null placement applied by the oracle apart from the library's packing. Widths
//! around the 4- and 8-byte word edges; random, equal, shared-prefix and few-distinct keys.

mod common;

use std::cmp::Ordering;

use common::*;
use gpusort::{Column, FloatOrder, NullPlacement, Order, SortError, Sorter, MAX_BYTE_WIDTH};

const WIDTHS: &[usize] = &[1, 3, 4, 5, 8, 9, 16, 17, 32];
const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Keys {
    Random,
    AllEqual,
    /// Every byte but the last shared: the words above the last are constant.
    SharedPrefix,
    /// Bytes from 0x00, 0x01, 0x7f, 0x80, 0xff: many ties, and the sign-bit edges of a byte.
    FewDistinct,
    Sorted,
    Reverse,
}

const KEYS: [Keys; 6] =
    [Keys::Random, Keys::AllEqual, Keys::SharedPrefix, Keys::FewDistinct, Keys::Sorted, Keys::Reverse];

/// `n` keys of `width` bytes laid end to end.
fn byte_rows(n: usize, width: usize, keys: Keys, seed: u64) -> Vec<u8> {
    let mut r = Rng(seed ^ (n as u64) << 20 ^ width as u64);
    let mut rows: Vec<u8> = (0..n * width).map(|_| r.next() as u8).collect();
    match keys {
        Keys::Random => {}
        Keys::AllEqual => rows.iter_mut().enumerate().for_each(|(i, b)| *b = (i % width) as u8 ^ 0xa5),
        Keys::SharedPrefix => rows.chunks_mut(width).for_each(|row| {
            let last = row[width - 1] % 5;
            row.iter_mut().enumerate().for_each(|(j, b)| *b = 0x42 ^ j as u8);
            row[width - 1] = last;
        }),
        Keys::FewDistinct => rows.iter_mut().for_each(|b| *b = [0u8, 1, 0x7f, 0x80, 0xff][*b as usize % 5]),
        Keys::Sorted | Keys::Reverse => {
            let mut v: Vec<&[u8]> = rows.chunks(width).collect();
            v.sort();
            if keys == Keys::Reverse {
                v.reverse();
            }
            rows = v.concat();
        }
    }
    rows
}

/// The oracle: the stable order of the rows under `cmp`.
fn stable_order(n: usize, cmp: impl Fn(usize, usize) -> Ordering) -> Vec<u32> {
    let mut p: Vec<u32> = (0..n as u32).collect();
    p.sort_by(|&a, &b| cmp(a as usize, b as usize));
    p
}

/// How a byte column orders rows `a` and `b`: nulls at `placement` in both orders, keys by
/// `memcmp`, reversed when descending.
fn compare_bytes<'a>(
    rows: &'a [u8],
    width: usize,
    order: Order,
    nulls: Option<(&'a [bool], NullPlacement)>,
) -> impl Fn(usize, usize) -> Ordering + 'a {
    move |a, b| {
        if let Some((m, at)) = nulls {
            match (m[a], m[b]) {
                (true, true) => return Ordering::Equal,
                (true, false) => return if at == NullPlacement::First { Ordering::Less } else { Ordering::Greater },
                (false, true) => return if at == NullPlacement::First { Ordering::Greater } else { Ordering::Less },
                _ => {}
            }
        }
        let o = rows[a * width..(a + 1) * width].cmp(&rows[b * width..(b + 1) * width]);
        if order == Order::Descending {
            o.reverse()
        } else {
            o
        }
    }
}

fn byte_lexsort_matches_std(sorter: Sorter, sizes: &[usize]) {
    for &n in sizes {
        for &width in WIDTHS {
            for keys in KEYS {
                let rows = byte_rows(n, width, keys, 7);
                let nulls: Vec<bool> = bits(n, Pattern::Random, 9).iter().map(|b| b % 7 == 3).collect();
                for order in ORDERS {
                    for placement in [None, Some(NullPlacement::First), Some(NullPlacement::Last)] {
                        let mut column = Column::byte_rows(&rows, width).with_order(order);
                        if let Some(at) = placement {
                            column = column.with_nulls(&nulls, at);
                        }
                        let got: Vec<u32> = sorter.lexsort(&[column]).expect("lexsort");
                        let m = placement.map(|at| (&nulls[..], at));
                        let want = stable_order(n, compare_bytes(&rows, width, order, m));
                        assert_eq!(got, want, "{n} keys of {width} bytes, {keys:?}, {order:?}, nulls {placement:?}");
                    }
                }
            }
        }
    }
}

/// Byte columns between number columns: (u16 descending, 9 bytes with nulls first, f32 NaN last,
/// 3 bytes descending), with ties in every column.
fn mixed_columns_match_std(sorter: Sorter, sizes: &[usize]) {
    for &n in sizes {
        let a: Vec<u16> = bits(n, Pattern::FewDistinct, 1).iter().map(|&b| b as u16).collect();
        let wide = byte_rows(n, 9, Keys::FewDistinct, 2);
        let nulls: Vec<bool> = bits(n, Pattern::Random, 3).iter().map(|b| b % 5 == 0).collect();
        let f: Vec<f32> =
            bits(n, Pattern::FewDistinct, 4).iter().map(|&b| [0.5, f32::NAN, -1.0][b as usize % 3]).collect();
        let narrow = byte_rows(n, 3, Keys::FewDistinct, 5);
        for sorter_order in ORDERS {
            let s = sorter.clone().with_order(sorter_order);
            let columns = [
                Column::new(&a).with_order(Order::Descending),
                Column::byte_rows(&wide, 9).with_nulls(&nulls, NullPlacement::First),
                Column::new(&f).with_float_order(FloatOrder::NanLast),
                Column::byte_rows(&narrow, 3).with_order(Order::Descending),
            ];
            let got: Vec<u32> = s.lexsort(&columns).expect("lexsort");
            // A descending sorter reverses each column's order (not the null or NaN placement).
            let flip = |o: Order| match (o, sorter_order) {
                (o, Order::Ascending) => o,
                (Order::Ascending, _) => Order::Descending,
                (Order::Descending, _) => Order::Ascending,
            };
            let by_wide = compare_bytes(&wide, 9, flip(Order::Ascending), Some((&nulls, NullPlacement::First)));
            let by_narrow = compare_bytes(&narrow, 3, flip(Order::Descending), None);
            let want = stable_order(n, |x, y| {
                let by_a = a[x].cmp(&a[y]);
                let by_a = if flip(Order::Descending) == Order::Descending { by_a.reverse() } else { by_a };
                let by_f = match (f[x].is_nan(), f[y].is_nan()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    _ if flip(Order::Ascending) == Order::Descending => f[y].total_cmp(&f[x]),
                    _ => f[x].total_cmp(&f[y]),
                };
                by_a.then(by_wide(x, y)).then(by_f).then(by_narrow(x, y))
            });
            assert_eq!(got, want, "{n} rows, sorter {sorter_order:?}");
        }
    }
}

/// A record with a 12-byte name; `id` witnesses that each record moved whole.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Named {
    name: [u8; 12],
    rank: u32,
    id: u64,
}

fn sort_by_byte_key_matches_std(sorter: Sorter, sizes: &[usize]) {
    for &n in sizes {
        for keys in [Keys::Random, Keys::SharedPrefix, Keys::FewDistinct, Keys::AllEqual] {
            let names = byte_rows(n, 12, keys, 11);
            let ranks = bits(n, Pattern::FewDistinct, 12);
            let records: Vec<Named> = (0..n)
                .map(|i| Named {
                    name: names[12 * i..12 * i + 12].try_into().unwrap(),
                    rank: ranks[i] as u32,
                    id: i as u64,
                })
                .collect();
            for order in ORDERS {
                let s = sorter.clone().with_order(order);
                let flip = |o: Ordering| if order == Order::Descending { o.reverse() } else { o };
                let mut got = records.clone();
                s.sort_by_key(&mut got, |r| r.name).expect("sort_by_key");
                let mut want = records.clone();
                want.sort_by(|x, y| flip(x.name.cmp(&y.name)));
                assert_eq!(got, want, "{n} records by [u8; 12], {keys:?}, {order:?}");
                let mut got = records.clone();
                s.sort_by_key(&mut got, |r| (r.rank, r.name)).expect("sort_by_key");
                let mut want = records.clone();
                want.sort_by(|x, y| flip(x.rank.cmp(&y.rank).then(x.name.cmp(&y.name))));
                assert_eq!(got, want, "{n} records by (u32, [u8; 12]), {keys:?}, {order:?}");
            }
        }
    }
}

fn sort_records_by_bytes_matches_std(sorter: Sorter, sizes: &[usize]) {
    // Rows of 23 bytes with a 10-byte key at byte 5; and bare 16-byte keys sorted in place.
    for &n in sizes {
        for (size, offset, width) in [(23usize, 5usize, 10usize), (16, 0, 16), (7, 6, 1)] {
            for keys in [Keys::Random, Keys::SharedPrefix, Keys::Sorted, Keys::Reverse] {
                let table = byte_rows(n, size, keys, 21);
                for order in ORDERS {
                    let mut got = table.clone();
                    sorter
                        .clone()
                        .with_order(order)
                        .sort_records_by_bytes(&mut got, size, offset, width)
                        .expect("sort");
                    let key = |r: &[u8]| r[offset..offset + width].to_vec();
                    let mut want: Vec<&[u8]> = table.chunks(size).collect();
                    want.sort_by(|x, y| {
                        let o = key(x).cmp(&key(y));
                        if order == Order::Descending {
                            o.reverse()
                        } else {
                            o
                        }
                    });
                    assert!(
                        got == want.concat(),
                        "{n} rows of {size} bytes, key {width} at {offset}, {keys:?}, {order:?}"
                    );
                }
            }
        }
    }
}

fn bad_arguments_are_refused() {
    let s = Sorter::cpu();
    let invalid = |r: Result<Vec<u32>, SortError>, what: &str| {
        assert!(matches!(r, Err(SortError::InvalidArgument(_))), "{what}: {r:?}");
    };
    let rows = [1u8, 2, 3, 4, 5, 6, 7];
    invalid(s.lexsort(&[Column::byte_rows(&rows, 0)]), "width 0");
    invalid(s.lexsort(&[Column::byte_rows(&rows, 2)]), "7 bytes are not rows of 2");
    let wide = vec![0u8; 2 * (MAX_BYTE_WIDTH + 1)];
    invalid(s.lexsort(&[Column::byte_rows(&wide, MAX_BYTE_WIDTH + 1)]), "past the widest key");
    let widest = vec![7u8; 3 * MAX_BYTE_WIDTH];
    assert_eq!(s.lexsort(&[Column::byte_rows(&widest, MAX_BYTE_WIDTH)]).expect("widest key"), [0, 1, 2]);
    invalid(s.lexsort(&[Column::byte_rows(&rows[..6], 2), Column::new(&[1u8, 2])]), "columns of different lengths");
    let mut table = rows.to_vec();
    for (size, offset, width) in [(7, 0, 0), (7, 5, 3), (0, 0, 1), (2, 0, 2), (7, 0, MAX_BYTE_WIDTH + 1)] {
        let r = s.sort_records_by_bytes(&mut table, size, offset, width);
        assert!(matches!(r, Err(SortError::InvalidArgument(_))), "records {size}/{offset}/{width}: {r:?}");
        assert_eq!(table, rows, "a refused sort writes nothing");
    }
}

const CPU_SIZES: &[usize] = &[0, 1, 2, 3, 31, 127, 128, 129, 1009, 65537];
const GPU_SIZES: &[usize] = &[0, 1, 2, 129, 65537, 300_007, (1 << 20) + 3];

fn main() -> std::process::ExitCode {
    let gpu = || Sorter::cuda().expect("a GPU");
    harness::run(vec![
        harness::cpu("cpu_byte_lexsort", || byte_lexsort_matches_std(Sorter::cpu(), CPU_SIZES)),
        harness::cpu("cpu_mixed_columns", || mixed_columns_match_std(Sorter::cpu(), CPU_SIZES)),
        harness::cpu("cpu_sort_by_byte_key", || sort_by_byte_key_matches_std(Sorter::cpu(), CPU_SIZES)),
        harness::cpu("cpu_sort_records_by_bytes", || sort_records_by_bytes_matches_std(Sorter::cpu(), CPU_SIZES)),
        harness::cpu("bad_arguments_are_refused", bad_arguments_are_refused),
        harness::gpu("cuda_byte_lexsort", move || byte_lexsort_matches_std(gpu(), GPU_SIZES)),
        harness::gpu("cuda_mixed_columns", move || mixed_columns_match_std(gpu(), GPU_SIZES)),
        harness::gpu("cuda_sort_by_byte_key", move || sort_by_byte_key_matches_std(gpu(), GPU_SIZES)),
        harness::gpu("cuda_sort_records_by_bytes", move || sort_records_by_bytes_matches_std(gpu(), GPU_SIZES)),
    ])
}
