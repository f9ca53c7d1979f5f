//! Sorting split arrays: keys in one slice, `u32` (or `u64`) values in another, the values moving
//! with their keys. With the row numbers as values this is an argsort: the order in which to read
//! the rows of a table by one column.
//!
//! `cargo run --release --example split_pairs`

use gpusort::{SortError, Sorter};

fn main() -> Result<(), SortError> {
    let prices = [19.99f32, 5.25, 105.0, 5.25, -1.0];
    let names = ["lamp", "mug", "chair", "pen", "refund"];

    let mut keys = prices.to_vec();
    let mut rows: Vec<u32> = (0..prices.len() as u32).collect();
    Sorter::auto().sort_pairs(&mut keys, &mut rows)?;

    for &r in &rows {
        println!("{:>8.2}  {}", prices[r as usize], names[r as usize]);
    }
    // Stable: "mug" (row 1) stays before "pen" (row 3) at the same price.
    assert_eq!(rows, [4, 1, 3, 0, 2]);

    // Values may be 8 bytes too (u64, i64, f64): row ids of a table past 2^32 rows.
    let mut ids = vec![30u64, 10, 20];
    let mut rows: Vec<u64> = vec![5_000_000_000, 1 << 40, 7];
    Sorter::auto().sort_pairs(&mut ids, &mut rows)?;
    assert_eq!(rows, [1 << 40, 7, 5_000_000_000]);

    // Slices of different lengths are an error, and both are left as they were.
    let (mut k, mut v) = (vec![3u64, 1, 2], vec![0u32, 1]);
    let e = Sorter::auto().sort_pairs(&mut k, &mut v).unwrap_err();
    println!("mismatched lengths: {e}");
    assert_eq!((k, v), (vec![3, 1, 2], vec![0, 1]));
    Ok(())
}
