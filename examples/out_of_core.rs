//! More data than the GPU may use: with a device memory limit, a host sort runs in pieces that
//! fit, each sorted on the GPU, and the pieces are merged stably, so the result is the one a
//! single run gives. Without a GPU the limit has no effect and the CPU sorts it all.
//!
//! Also: a sorter for a long-running service, which gives its memory back after every sort.
//!
//! `cargo run --release --example out_of_core`

use gpusort::{Kvp, SortError, Sorter};

fn main() -> Result<(), SortError> {
    let n = 4_000_000u32;
    let input: Vec<Kvp> = (0..n).map(|i| Kvp::new(i.wrapping_mul(2_654_435_761) % 50_000, i)).collect();

    // 16 MiB of device memory: a radix sort of pairs needs 17 bytes each, so about 1M pairs a run.
    let limited = Sorter::auto().with_device_memory_limit(16 << 20).with_keep_memory(false);
    println!("{limited}");
    let mut v = input.clone();
    limited.sort_kvp(&mut v)?;
    println!(
        "sorted {n} pairs on the {} backend, {} bytes kept after it",
        limited.backend_for(v.len()),
        limited.kept_host_bytes()
    );

    // The same result as one sort without a limit: both are stable.
    let mut whole = input;
    Sorter::cpu().sort_kvp(&mut whole)?;
    assert!(v == whole);

    // A limit too small for even one item is an error on the GPU, not a hang or a crash.
    let tiny = Sorter::auto().with_device_memory_limit(16).with_crossover(0);
    match tiny.sort_kvp(&mut v) {
        Ok(()) => println!("no GPU here: the CPU sorted it and the limit did not apply"),
        Err(e) => println!("16-byte limit on the GPU: {e}"),
    }
    Ok(())
}
