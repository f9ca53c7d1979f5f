//! The main job: sort 16M random pairs with `Sorter::auto()`, validate against the CPU oracle,
//! and report the backend, the time and the throughput beside the CPU backend's.
//!
//! `cargo run --release [-- N]` (N pairs, default 16M).

use std::time::Instant;

use gpusort::{Kvp, Order, Sorter};
use gpusort_cpu::check;

fn random_pairs(n: usize, seed: u64) -> Vec<Kvp> {
    // splitmix64: fast, seeded, and good enough to make every key bit random.
    let mut s = seed;
    (0..n as u32)
        .map(|i| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            Kvp::new((z ^ (z >> 31)) as u32, i)
        })
        .collect()
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(16 << 20);
    let input = random_pairs(n, 0x5eed);

    let t0 = Instant::now();
    let sorter = Sorter::auto();
    let setup = t0.elapsed();
    println!("gpusort demo: {n} random (u32 key, u32 value) pairs");
    println!("backend:  {}", sorter.describe());
    println!("          this length runs on: {}", sorter.backend_for(n));

    // The first call on the GPU also loads the kernel module; time it apart from the steady state.
    let mut first = input.clone();
    let t = Instant::now();
    if let Err(e) = sorter.sort_kvp(&mut first) {
        eprintln!("sort failed: {e}");
        std::process::exit(1);
    }
    let first_call = t.elapsed();

    let mut v = input.clone();
    let t = Instant::now();
    sorter.sort_kvp(&mut v).expect("second sort");
    let steady = t.elapsed();

    let mut oracle = input.clone();
    let t = Instant::now();
    Sorter::cpu().sort_kvp(&mut oracle).expect("cpu sort");
    let cpu_time = t.elapsed();

    let verdict = check::validate(&input, &v, Order::Ascending, true).and_then(|_| {
        if v == oracle && first == oracle {
            Ok(())
        } else {
            Err("differs from the CPU backend's result".into())
        }
    });
    let rate = |d: std::time::Duration| n as f64 / d.as_secs_f64() / 1e6;
    println!("setup:    {:>9.3} ms (driver probe, context)", setup.as_secs_f64() * 1e3);
    println!("first:    {:>9.3} ms (includes module load on the GPU)", first_call.as_secs_f64() * 1e3);
    println!("sort:     {:>9.3} ms  {:>8.1} M pairs/s (host to host)", steady.as_secs_f64() * 1e3, rate(steady));
    println!(
        "cpu:      {:>9.3} ms  {:>8.1} M pairs/s ({} threads)",
        cpu_time.as_secs_f64() * 1e3,
        rate(cpu_time),
        gpusort_cpu::threads()
    );
    match verdict {
        Ok(()) => println!("valid:    sorted, stable, every value with its key, same as the CPU backend"),
        Err(e) => {
            eprintln!("INVALID: {e}");
            std::process::exit(1);
        }
    }
}
