use super::*;

fn shape(ty: KeyType, nullable: bool) -> (KeyType, bool, ColumnOrder) {
    (ty, nullable, ColumnOrder::default())
}

#[test]
fn columns_pack_into_as_few_words_as_their_widths_allow() {
    let widths = |words: &[Word]| -> Vec<(bool, Vec<u32>)> {
        words.iter().map(|w| (w.wide, w.fields.iter().map(|f| f.shift).collect())).collect()
    };
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
        widths(&plan(&[shape(KeyType::U32, false), shape(KeyType::F64, true)])),
        [(true, vec![1, 0]), (true, vec![0])]
    );
}

#[test]
fn field_bits_order_floats_as_asked() {
    let field = |floats, order, nulls: Option<NullPlacement>| Field {
        column: 0,
        key_type: KeyType::F32,
        shift: 0,
        nullable: nulls.is_some(),
        part: Part::Whole,
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
            key_type,
            shift: 0,
            nullable: false,
            part: Part::Whole,
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
