use super::*;

fn shape(ty: KeyType, nullable: bool) -> (Kind, bool, ColumnOrder) {
    (Kind::Number(ty), nullable, ColumnOrder::default())
}

/// Each word's width flag and its fields as (column, lo, len, shift).
type Layout = Vec<(bool, Vec<(usize, u32, u32, u32)>)>;

fn layout(words: &[Word]) -> Layout {
    words.iter().map(|w| (w.wide, w.fields.iter().map(|f| (f.column, f.lo, f.len, f.shift)).collect())).collect()
}

#[test]
fn whole_columns_pack_into_as_few_64_bit_words_as_their_widths_allow() {
    let widths = |words: &[Word]| -> Vec<(bool, Vec<u32>)> {
        words.iter().map(|w| (w.wide, w.fields.iter().map(|f| f.shift).collect())).collect()
    };
    let plan = |c: &[(Kind, bool, ColumnOrder)]| plan(c, Packing::Whole64);
    // Two u32s: one 64-bit key, the first column on top.
    assert_eq!(widths(&plan(&[shape(KeyType::U32, false), shape(KeyType::U32, false)])), [(true, vec![32, 0])]);
    // 8 + 16 bits: a 32-bit key.
    assert_eq!(widths(&plan(&[shape(KeyType::U8, false), shape(KeyType::I16, false)])), [(false, vec![16, 0])]);
    // 32 + 64 bits: two words; a null flag takes a bit of its own.
    assert_eq!(
        widths(&plan(&[shape(KeyType::F32, false), shape(KeyType::I64, false)])),
        [(false, vec![0]), (true, vec![0])]
    );
    assert_eq!(
        widths(&plan(&[shape(KeyType::U32, true), shape(KeyType::U32, false)])),
        [(true, vec![0]), (false, vec![0])]
    );
    assert_eq!(widths(&plan(&[shape(KeyType::U32, true), shape(KeyType::U16, true)])), [(true, vec![17, 0])]);
    // A 64-bit column with nulls: its flag packs with the column before, its value has a word.
    assert_eq!(
        layout(&plan(&[shape(KeyType::U32, false), shape(KeyType::F64, true)])),
        [(true, vec![(0, 0, 32, 1), (1, 64, 1, 0)]), (true, vec![(1, 0, 64, 0)])]
    );
}

#[test]
fn dense_words_are_32_bit_cuts_of_the_columns_bits_end_to_end() {
    let plan = |c: &[(Kind, bool, ColumnOrder)]| plan(c, Packing::Dense32);
    // Two u32s: two words, the first column alone in the top one.
    assert_eq!(
        layout(&plan(&[shape(KeyType::U32, false), shape(KeyType::U32, false)])),
        [(false, vec![(0, 0, 32, 0)]), (false, vec![(1, 0, 32, 0)])]
    );
    // f32 then i64: the i64's high half, then its low half.
    assert_eq!(
        layout(&plan(&[shape(KeyType::F32, false), shape(KeyType::I64, false)])),
        [(false, vec![(0, 0, 32, 0)]), (false, vec![(1, 32, 32, 0)]), (false, vec![(1, 0, 32, 0)])]
    );
    // 33 bits then 16: the u32's flag and top 31 value bits, then its lowest bit and the u16.
    assert_eq!(
        layout(&plan(&[shape(KeyType::U32, true), shape(KeyType::U16, false)])),
        [(false, vec![(0, 1, 32, 0)]), (false, vec![(0, 0, 1, 16), (1, 0, 16, 0)])]
    );
    // A 64-bit column with nulls after a u8: 8 + 65 bits in three words.
    assert_eq!(
        layout(&plan(&[shape(KeyType::U8, false), shape(KeyType::F64, true)])),
        [(false, vec![(0, 0, 8, 24), (1, 41, 24, 0)]), (false, vec![(1, 9, 32, 0)]), (false, vec![(1, 0, 9, 0)])]
    );
}

#[test]
fn split_fields_hold_the_whole_fields_bits() {
    // A field cut at any bit, its pieces shifted back and ORed, equals the whole field.
    for (key_type, nullable) in
        [(KeyType::F64, true), (KeyType::I64, false), (KeyType::U32, true), (KeyType::F16, true)]
    {
        let how =
            ColumnOrder { order: Order::Descending, floats: Some(FloatOrder::NanLast), nulls: NullPlacement::First };
        let full = 8 * key_type.size() as u32 + nullable as u32;
        let field = |lo, len| Field { column: 0, kind: Kind::Number(key_type), shift: 0, nullable, lo, len, how };
        let raws = [0u64, 1, 0x8000_0000_0000_0000, 0x7ff8_0000_0000_0001, 0x1234_5678_9abc_def0, u64::MAX];
        for cut in 1..full {
            let (top, low) = (field(cut, full - cut), field(0, cut));
            for (raw, null) in
                raws.iter().flat_map(|&r| [(r & (u64::MAX >> (64 - 8 * key_type.size())), false), (r, true)])
            {
                let whole = if full <= 64 { Some(field(0, full).bits(raw, null)) } else { None };
                let (t, l) = (top.bits(raw, null), low.bits(raw, null));
                if let Some(w) = whole {
                    assert_eq!(t << cut | l, w, "{key_type:?} cut {cut} raw {raw:#x} null {null}");
                }
                if full == 65 && cut == 64 {
                    assert_eq!(t, u64::from(!null), "the flag: nulls first");
                    assert_eq!(l, if null { 0 } else { field(0, 64).bits(raw, false) });
                }
            }
        }
    }
}

#[test]
fn field_bits_order_floats_as_asked() {
    let field = |floats, order, nulls: Option<NullPlacement>| Field {
        column: 0,
        kind: Kind::Number(KeyType::F32),
        shift: 0,
        nullable: nulls.is_some(),
        lo: 0,
        len: 32 + nulls.is_some() as u32,
        how: ColumnOrder { order, floats: Some(floats), nulls: nulls.unwrap_or_default() },
    };
    let b = |f: &Field, x: f32| f.bits(x.to_bits() as u64, false);
    let nan_last = field(FloatOrder::NanLast, Order::Ascending, None);
    assert_eq!(b(&nan_last, -0.0), b(&nan_last, 0.0));
    assert_eq!(b(&nan_last, f32::NAN), b(&nan_last, -f32::NAN));
    assert!(b(&nan_last, f32::INFINITY) < b(&nan_last, -f32::NAN));
    let desc = field(FloatOrder::NanLast, Order::Descending, None);
    assert!(b(&desc, f32::NEG_INFINITY) < b(&desc, f32::NAN), "NaN last when descending too");
    assert!(b(&desc, 2.0) < b(&desc, 1.0));
    let torch = field(FloatOrder::NanLargest, Order::Descending, None);
    assert!(b(&torch, f32::NAN) < b(&torch, f32::INFINITY), "NaN first when descending");
    let total = field(FloatOrder::Total, Order::Ascending, None);
    assert!(b(&total, -0.0) < b(&total, 0.0) && b(&total, -f32::NAN) < b(&total, f32::NEG_INFINITY));
    let nulls_first = field(FloatOrder::NanLast, Order::Ascending, Some(NullPlacement::First));
    assert!(nulls_first.bits(0, true) < b(&nulls_first, f32::NEG_INFINITY));
    assert!(nulls_first.bits(5, true) == nulls_first.bits(0, true), "nulls tie whatever their keys");
}

#[test]
fn half_fields_order_as_the_keys_ordered_bits() {
    use gpusort_cpu::SortKey;
    for key_type in [KeyType::F16, KeyType::BF16] {
        let field = |floats| Field {
            column: 0,
            kind: Kind::Number(key_type),
            shift: 0,
            nullable: false,
            lo: 0,
            len: 16,
            how: ColumnOrder { order: Order::Ascending, floats: Some(floats), nulls: NullPlacement::default() },
        };
        let (total, nan_last) = (field(FloatOrder::Total), field(FloatOrder::NanLast));
        let ordered = |raw: u16| match key_type {
            KeyType::F16 => half::f16::from_bits(raw).to_ordered_bits(),
            _ => half::bf16::from_bits(raw).to_ordered_bits(),
        };
        for raw in (0..=u16::MAX).step_by(7).chain([0x8000, 0x7c00, 0x7f80, 0xfe00, 0x7fc0]) {
            assert_eq!(total.bits(raw as u64, false), ordered(raw) as u64, "{key_type:?} {raw:#06x}");
        }
        let nan = if key_type == KeyType::F16 { 0x7e00 } else { 0x7fc0 };
        assert_eq!(nan_last.bits(0x8000, false), nan_last.bits(0, false), "-0.0 ties +0.0");
        assert_eq!(nan_last.bits(nan | 0x8000, false), nan_last.bits(nan, false), "every NaN is one value");
        assert!(nan_last.bits(nan, false) > nan_last.bits(0x7bff, false));
    }
}

#[test]
fn byte_columns_are_cut_into_words_like_numbers_of_their_width() {
    let bytes = |width, nullable| (Kind::Bytes(width), nullable, ColumnOrder::default());
    // 10 bytes with nulls, 81 bits: the CPU's 64-bit pieces from the lowest bit up.
    assert_eq!(
        layout(&plan(&[bytes(10, true)], Packing::Whole64)),
        [(false, vec![(0, 64, 17, 0)]), (true, vec![(0, 0, 64, 0)])]
    );
    // 3 bytes and a u8 share a 32-bit word; the device cuts 16 bytes into four words.
    assert_eq!(
        layout(&plan(&[bytes(3, false), shape(KeyType::U8, false)], Packing::Whole64)),
        [(false, vec![(0, 0, 24, 8), (1, 0, 8, 0)])]
    );
    let dense = plan(&[bytes(16, false)], Packing::Dense32);
    assert_eq!(layout(&dense), (0..4).rev().map(|i| (false, vec![(0, 32 * i, 32, 0)])).collect::<Layout>());
}

/// Each word of a byte column's plan for `row`, most significant first: compared as a list, the
/// order the LSD passes give.
fn rebuilt(words: &[Word], row: &[u8], null: bool) -> Vec<u64> {
    words.iter().map(|w| w.fields.iter().map(|f| f.byte_bits(row, null)).fold(0, |a, b| a | b)).collect()
}

#[test]
fn byte_fields_order_as_memcmp_in_both_orders_with_nulls_placed() {
    let mut rng = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    for width in [1usize, 3, 4, 5, 8, 9, 16, 17, 33] {
        for packing in [Packing::Whole64, Packing::Dense32] {
            for (order, nulls) in [
                (Order::Ascending, None),
                (Order::Descending, None),
                (Order::Ascending, Some(NullPlacement::First)),
                (Order::Descending, Some(NullPlacement::Last)),
            ] {
                let how = ColumnOrder { order, floats: None, nulls: nulls.unwrap_or_default() };
                let words = plan(&[(Kind::Bytes(width), nulls.is_some(), how)], packing);
                // Few distinct bytes, so that long shared prefixes and ties occur.
                let rows: Vec<Vec<u8>> = (0..200)
                    .map(|_| (0..width).map(|_| [0u8, 1, 0x7f, 0x80, 0xff][next() as usize % 5]).collect())
                    .collect();
                let null = |i: usize| nulls.is_some() && i % 7 == 3;
                for i in 0..rows.len() {
                    for j in 0..rows.len() {
                        let expected = match (null(i), null(j)) {
                            (true, true) => std::cmp::Ordering::Equal,
                            (true, false) if nulls == Some(NullPlacement::First) => std::cmp::Ordering::Less,
                            (true, false) => std::cmp::Ordering::Greater,
                            (false, true) => match nulls {
                                Some(NullPlacement::First) => std::cmp::Ordering::Greater,
                                _ => std::cmp::Ordering::Less,
                            },
                            (false, false) if order == Order::Descending => rows[j].cmp(&rows[i]),
                            (false, false) => rows[i].cmp(&rows[j]),
                        };
                        let got = rebuilt(&words, &rows[i], null(i)).cmp(&rebuilt(&words, &rows[j], null(j)));
                        assert_eq!(
                            got, expected,
                            "{width} bytes {packing:?} {order:?} {nulls:?}: {:?} vs {:?}",
                            rows[i], rows[j]
                        );
                    }
                }
            }
        }
    }
}
