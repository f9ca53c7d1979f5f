//! Sorting keys alone, of each type gpusort has kernels for: `u32`, `i32`, `f32` (in
//! `f32::total_cmp` order: -NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN) and `u64`.
//!
//! `cargo run --release --example keys`

use gpusort::{Order, SortError, Sorter};

fn main() -> Result<(), SortError> {
    let sorter = Sorter::auto();
    println!("{sorter}");

    let mut ids: Vec<u32> = (0..1_000_000u32).map(|i| i.wrapping_mul(2_654_435_761)).collect();
    sorter.sort_keys(&mut ids)?;
    assert!(ids.windows(2).all(|w| w[0] <= w[1]));

    let mut offsets: Vec<i32> = vec![5, -3, i32::MIN, 0, i32::MAX, -3];
    sorter.sort_keys(&mut offsets)?;
    assert_eq!(offsets, [i32::MIN, -3, -3, 0, 5, i32::MAX]);

    let mut readings = vec![2.5f32, f32::NAN, -0.0, 0.0, f32::NEG_INFINITY, -1.0];
    sorter.sort_keys(&mut readings)?;
    println!("f32 ascending: {readings:?}");
    assert!(readings[0] == f32::NEG_INFINITY && readings[5].is_nan());
    assert!(readings[2].is_sign_negative() && readings[3].is_sign_positive()); // -0.0 before +0.0

    let mut timestamps: Vec<u64> = (0..1_000_000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    sorter.clone().with_order(Order::Descending).sort_keys(&mut timestamps)?;
    assert!(timestamps.windows(2).all(|w| w[0] >= w[1]));
    println!("newest u64 timestamp: {:#x}", timestamps[0]);
    Ok(())
}
