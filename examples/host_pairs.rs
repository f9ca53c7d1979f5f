//! Sorting (key, value) pairs in host memory: `Kvp` is a `u32` key with a `u32` value, 8 bytes,
//! the layout the GPU kernels read. The sort is stable, ascending or descending, on whichever
//! backend `Sorter::auto()` picks.
//!
//! `cargo run --release --example host_pairs`

use gpusort::{Kvp, Order, SortError, Sorter};

fn main() -> Result<(), SortError> {
    // Scores of 10M players (the value is the player id), ranked best first.
    let n = 10_000_000u32;
    let mut ranking: Vec<Kvp> = (0..n).map(|id| Kvp::new(id.wrapping_mul(2_654_435_761) % 1_000_000, id)).collect();
    let sorter = Sorter::auto().with_order(Order::Descending);
    println!("sorting {n} pairs on: {sorter}");
    let t = std::time::Instant::now();
    sorter.sort_kvp(&mut ranking)?;
    println!("took {:.1} ms", t.elapsed().as_secs_f64() * 1e3);

    assert!(ranking.windows(2).all(|w| w[0].key >= w[1].key));
    // Stable: players with the same score keep their id order, in either direction.
    assert!(ranking.windows(2).all(|w| w[0].key != w[1].key || w[0].value < w[1].value));
    println!("best three: {:?}", &ranking[..3]);
    Ok(())
}
