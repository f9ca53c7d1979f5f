//! The k best of many scores without sorting them all: `Sorter::top_k` returns the k first keys in
//! the sorter's order with their input positions (ties to the earliest), `top_k_pairs` the values
//! beside them. Prints the time of each beside a full sort of the same keys.
//!
//! `cargo run --release --example top_k [n]`

use std::time::Instant;

use gpusort::{Order, SortError, Sorter};

fn main() -> Result<(), SortError> {
    let n: usize = std::env::args().nth(1).map_or(1 << 22, |s| s.parse().expect("n: a number of keys"));
    let sorter = Sorter::auto().with_order(Order::Descending);
    println!("{sorter}");
    let scores: Vec<f32> = (0..n as u64).map(|i| (i.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 40) as f32 / 7.0).collect();
    let ids: Vec<u32> = (0..n as u32).collect();

    for k in [10, 1000] {
        let t = Instant::now();
        let best = sorter.top_k(&scores, k)?;
        let took = t.elapsed();
        assert!(best.keys.windows(2).all(|w| w[0] >= w[1]));
        assert!(best.indices.iter().zip(&best.keys).all(|(&i, &s)| scores[i as usize] == s));
        println!("top {k} of {n}: best {} at {}, {took:.2?}", best.keys[0], best.indices[0]);
    }
    let (keys, values) = sorter.top_k_pairs(&scores, &ids, 3)?;
    println!("top 3 with their ids: {:?}", keys.iter().zip(&values).collect::<Vec<_>>());

    let mut all = scores.clone();
    let t = Instant::now();
    sorter.sort_keys(&mut all)?;
    println!("full sort of {n} for comparison: {:.2?}", t.elapsed());
    assert_eq!(all[0], keys[0]);
    Ok(())
}
