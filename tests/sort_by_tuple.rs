//! `sort_by_key` with tuple keys: records come back in the order of the standard library's stable
//! sort under the lexicographic comparator of the elements (`total_cmp` for floats, or the
//! sorter's float order), in both orders, on the CPU and `auto()` sorters, with every field intact.

use std::cmp::Ordering;

use gpusort::{FloatOrder, Order, SortError, Sorter};

const SIZES: &[usize] = &[0, 1, 2, 127, 128, 129, 1009, 70001];
const ORDERS: [Order; 2] = [Order::Ascending, Order::Descending];

/// A record whose key fields come from the pattern; `id` and `payload` witness that it moved whole.
#[derive(Clone, Copy, Debug)]
struct Rec {
    a: u32,
    b: f32,
    c: i64,
    d: f64,
    e: u8,
    f: i16,
    g: u64,
    id: u64,
    payload: [u32; 3],
}

impl Rec {
    fn bits(&self) -> [u64; 10] {
        let p = self.payload;
        let (a, b, c, d) = (self.a as u64, self.b.to_bits() as u64, self.c as u64, self.d.to_bits());
        [a, b, c, d, self.e as u64, self.f as u64, self.g, self.id, p[0] as u64 | (p[1] as u64) << 32, p[2] as u64]
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Pattern {
    Random,
    FewDistinct,
    AllEqual,
    /// Floats from NaNs of both signs, both zeros, the infinities and a few values.
    SpecialFloats,
    Sorted,
    Reverse,
}

const PATTERNS: [Pattern; 6] = [
    Pattern::Random,
    Pattern::FewDistinct,
    Pattern::AllEqual,
    Pattern::SpecialFloats,
    Pattern::Sorted,
    Pattern::Reverse,
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

const SPECIAL_F64: [f64; 8] = [f64::NAN, -f64::NAN, -0.0, 0.0, f64::INFINITY, f64::NEG_INFINITY, 1.5, -2.0];

fn records(n: usize, p: Pattern, seed: u64) -> Vec<Rec> {
    let mut rng = Rng(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut v: Vec<Rec> = (0..n)
        .map(|i| {
            let r = match p {
                Pattern::AllEqual => 0x4000_1234_8000_0001,
                Pattern::FewDistinct | Pattern::SpecialFloats => rng.next() & 0x0303_0303_0303_0303,
                _ => rng.next(),
            };
            let special = |shift: u32| SPECIAL_F64[(rng.0 >> shift) as usize & 7];
            let (b, d) = match p {
                Pattern::SpecialFloats => (special(3) as f32, special(11)),
                Pattern::FewDistinct => ((r & 3) as f32 - 1.5, ((r >> 8) & 3) as f64 * -0.5),
                _ => (f32::from_bits((r >> 7) as u32), f64::from_bits(r.rotate_left(23))),
            };
            Rec {
                a: r as u32,
                b,
                c: r.rotate_left(40) as i64,
                d,
                e: (r >> 24) as u8,
                f: (r >> 16) as i16,
                g: r.rotate_left(5),
                id: i as u64,
                payload: [i as u32 ^ 0xdead_beef, (r >> 32) as u32, (i as u32).wrapping_mul(0x9e37_79b9)],
            }
        })
        .collect();
    match p {
        Pattern::Sorted => v.sort_by(|x, y| lex(&(x.a, x.b), &(y.a, y.b), Order::Ascending, false)),
        Pattern::Reverse => v.sort_by(|x, y| lex(&(y.a, y.b), &(x.a, x.b), Order::Ascending, false)),
        _ => {}
    }
    v
}

/// An element's order in the reference comparator: integers as `Ord`, floats as `total_cmp` or,
/// with `nan_last`, as NumPy orders them (one NaN, last in both orders; `-0.0 == 0.0`).
trait Elem: Copy {
    fn order(self, o: Self, order: Order, nan_last: bool) -> Ordering;
}

fn directed(c: Ordering, order: Order) -> Ordering {
    match order {
        Order::Ascending => c,
        Order::Descending => c.reverse(),
    }
}

macro_rules! int_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn order(self, o: Self, order: Order, _: bool) -> Ordering {
                directed(self.cmp(&o), order)
            }
        }
    )*};
}
int_elem!(u8, i16, u32, i64, u64);

macro_rules! float_elem {
    ($($t:ty),*) => {$(
        impl Elem for $t {
            fn order(self, o: Self, order: Order, nan_last: bool) -> Ordering {
                if !nan_last {
                    return directed(self.total_cmp(&o), order);
                }
                match (self.is_nan(), o.is_nan()) {
                    (true, true) => Ordering::Equal,
                    (true, false) => Ordering::Greater,
                    (false, true) => Ordering::Less,
                    (false, false) => directed(self.partial_cmp(&o).unwrap(), order),
                }
            }
        }
    )*};
}
float_elem!(f32, f64);

/// The reference comparator of a key tuple: its elements lexicographically.
trait Lex {
    fn lex(&self, o: &Self, order: Order, nan_last: bool) -> Ordering;
}

macro_rules! lex_tuple {
    ($($K:ident $i:tt),+) => {
        impl<$($K: Elem),+> Lex for ($($K,)+) {
            fn lex(&self, o: &Self, order: Order, nan_last: bool) -> Ordering {
                Ordering::Equal $(.then_with(|| self.$i.order(o.$i, order, nan_last)))+
            }
        }
    };
}
lex_tuple!(A 0);
lex_tuple!(A 0, B 1);
lex_tuple!(A 0, B 1, C 2);
lex_tuple!(A 0, B 1, C 2, D 3);

fn lex<K: Lex>(x: &K, y: &K, order: Order, nan_last: bool) -> Ordering {
    x.lex(y, order, nan_last)
}

/// Sorts `input` by `key` with `sorter` and checks the result against `sort_by`.
fn check<K, F>(sorter: &Sorter, input: &[Rec], key: F, what: &str)
where
    K: gpusort::RecordKey + Lex,
    F: Fn(&Rec) -> K + Sync,
{
    let nan_last = sorter.float_order() == FloatOrder::NanLast;
    let mut want = input.to_vec();
    want.sort_by(|x, y| key(x).lex(&key(y), sorter.order(), nan_last));
    let mut got = input.to_vec();
    sorter.sort_by_key(&mut got, &key).unwrap_or_else(|e| panic!("{what}: {e}"));
    if let Some(i) = (0..got.len()).find(|&i| got[i].bits() != want[i].bits()) {
        panic!("{what}: record {i} is {:?}, the reference has {:?}", got[i], want[i]);
    }
}

fn every_shape(sorter: &Sorter, input: &[Rec], what: &str) {
    check(sorter, input, |r| (r.a, r.b), &format!("{what} (u32, f32)"));
    check(sorter, input, |r| (r.b, r.c), &format!("{what} (f32, i64)"));
    check(sorter, input, |r| (r.e, r.f), &format!("{what} (u8, i16)"));
    check(sorter, input, |r| (r.c, r.e as u32, r.d), &format!("{what} (i64, u32, f64)"));
    check(sorter, input, |r| (r.e, r.d, r.b, r.g), &format!("{what} (u8, f64, f32, u64)"));
    check(sorter, input, |r| (r.d,), &format!("{what} (f64,)"));
}

fn matches_sort_by(sorter: Sorter, name: &str) {
    for order in ORDERS {
        let s = sorter.clone().with_order(order);
        for &n in SIZES {
            for p in PATTERNS {
                let input = records(n, p, n as u64 + 7);
                every_shape(&s, &input, &format!("{name} n={n} {p:?} {order:?}"));
            }
        }
    }
}

#[test]
fn cpu_matches_sort_by() {
    matches_sort_by(Sorter::cpu(), "cpu");
}

#[test]
fn auto_matches_sort_by() {
    matches_sort_by(Sorter::auto(), "auto");
}

/// With NumPy's float order the zeros are one key and NaNs one value, last in both orders; a
/// single float key takes it too.
#[test]
fn float_order_of_the_sorter() {
    for order in ORDERS {
        let s = Sorter::cpu().with_order(order).with_float_order(FloatOrder::NanLast);
        for &n in &[2, 129, 1009] {
            for p in [Pattern::SpecialFloats, Pattern::FewDistinct, Pattern::Random] {
                let input = records(n, p, 99);
                let what = format!("NaN last n={n} {p:?} {order:?}");
                every_shape(&s, &input, &what);
                check(&s, &input, |r| (r.b, r.a), &format!("{what} (f32, u32)"));
                let mut want = input.clone();
                want.sort_by(|x, y| x.d.order(y.d, order, true));
                let mut got = input.clone();
                s.sort_by_key(&mut got, |r| r.d).unwrap_or_else(|e| panic!("{what} f64: {e}"));
                assert!(got.iter().zip(&want).all(|(g, w)| g.bits() == w.bits()), "{what}: a single f64 key");
            }
        }
    }
}

#[test]
fn too_many_records_are_refused() {
    // Zero-sized records cost no memory, so 2^32 + 1 of them reach the length check.
    let mut v = vec![(); (1 << 32) + 1];
    for s in [Sorter::cpu(), Sorter::auto()] {
        let e = s.sort_by_key(&mut v, |_| (1u32, 2.0f64)).expect_err("2^32 + 1 records");
        assert!(matches!(e, SortError::InvalidArgument(_)), "{e}");
        let e = s.sort_by_key(&mut v, |_| 1u32).expect_err("2^32 + 1 records, one key");
        assert!(matches!(e, SortError::InvalidArgument(_)), "{e}");
    }
    assert!(Sorter::cpu().sort_by_key(&mut v[..1 << 20], |_| (1u8, 2i64)).is_ok(), "2^20 zero-sized records");
}
