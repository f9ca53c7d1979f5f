//! Times `sort_keys` on keys read from a raw little-endian file, for `ci/npsort_bench.py`, which
//! writes the file, times `np.sort` on the same keys and prints the comparison table
//! (`ci/npsort.sh` builds this bench target and runs the script).
//!
//! ```text
//! npsort_table <type> <file> <repeats> [<sorted-output-file>]
//! ```
//! `type` is u32, i32, f32, u64, i64 or f64. Prints one JSON line: the keys, the threads the
//! backend sorts with (`RAYON_NUM_THREADS` sets it), the instruction set, and the median and
//! least wall time of `repeats` sorts after warm-up, in milliseconds. Each sort gets a fresh copy
//! of the input (the copy is not timed). The sorted keys are checked, and written out when asked.

use std::time::Instant;

use gpusort_cpu::{simd::Isa, sort_keys, Order, SortKey};

fn parse<K, const W: usize>(bytes: &[u8], f: fn([u8; W]) -> K) -> Vec<K> {
    bytes.chunks_exact(W).map(|c| f(c.try_into().expect("chunk of W bytes"))).collect()
}

fn run<K: SortKey>(keys: Vec<K>, repeats: usize, out: Option<&str>, bytes: fn(&[K]) -> Vec<u8>) -> String {
    let n = keys.len();
    // NumPy advises huge pages for arrays of 4 MiB and more (its default allocator, on Linux):
    // the sorted copy lives in the same kind of memory as the array np.sort is timed on.
    let (mut plain, mut huge);
    let v: &mut [K] = if std::mem::size_of_val(&keys[..]) >= 4 << 20 {
        huge = gpusort_cpu::HugeVec::<K>::with_capacity(n).expect("huge pages");
        for (slot, &x) in huge.spare_capacity_mut().iter_mut().zip(&keys) {
            slot.write(x);
        }
        // SAFETY: every one of the n items was written above.
        unsafe { huge.set_len(n) };
        &mut huge
    } else {
        plain = keys.clone();
        &mut plain
    };
    // Warm-up: the pool's threads, the kept scratch buffer (radix path) and the caches.
    let warm = if n <= 1 << 16 { 20 } else { 2 };
    for _ in 0..warm {
        v.copy_from_slice(&keys);
        sort_keys(v, Order::Ascending).expect("sort");
    }
    let mut times = Vec::with_capacity(repeats);
    for _ in 0..repeats.max(1) {
        v.copy_from_slice(&keys);
        let t = Instant::now();
        sort_keys(v, Order::Ascending).expect("sort");
        times.push(t.elapsed().as_secs_f64() * 1e3);
    }
    assert!(v.windows(2).all(|w| w[0].to_ordered_bits() <= w[1].to_ordered_bits()), "result not sorted");
    if let Some(path) = out {
        std::fs::write(path, bytes(v)).expect("write the sorted keys");
    }
    times.sort_by(f64::total_cmp);
    format!(
        "{{\"n\": {n}, \"threads\": {}, \"isa\": \"{:?}\", \"median_ms\": {:.6}, \"min_ms\": {:.6}}}",
        gpusort_cpu::threads(),
        Isa::detected(),
        times[times.len() / 2],
        times[0]
    )
}

fn main() {
    // `cargo bench` runs every bench target with `--bench` alone: this one needs its input from
    // ci/npsort.sh, so there it says so and succeeds.
    let args: Vec<String> = std::env::args().filter(|a| a != "--bench").collect();
    if args.len() == 1 {
        eprintln!("npsort_table: run through ci/npsort.sh (gpusort-cpu against np.sort)");
        return;
    }
    if args.len() < 4 {
        eprintln!("usage: npsort_table <u32|i32|f32|u64|i64|f64> <keys.raw> <repeats> [<sorted.raw>]");
        std::process::exit(2);
    }
    let bytes = std::fs::read(&args[2]).expect("read the keys");
    let repeats: usize = args[3].parse().expect("repeats");
    let out = args.get(4).map(String::as_str);
    let line = match args[1].as_str() {
        "u32" => {
            run(parse(&bytes, u32::from_le_bytes), repeats, out, |v| v.iter().flat_map(|x| x.to_le_bytes()).collect())
        }
        "i32" => {
            run(parse(&bytes, i32::from_le_bytes), repeats, out, |v| v.iter().flat_map(|x| x.to_le_bytes()).collect())
        }
        "f32" => {
            run(parse(&bytes, f32::from_le_bytes), repeats, out, |v| v.iter().flat_map(|x| x.to_le_bytes()).collect())
        }
        "u64" => {
            run(parse(&bytes, u64::from_le_bytes), repeats, out, |v| v.iter().flat_map(|x| x.to_le_bytes()).collect())
        }
        "i64" => {
            run(parse(&bytes, i64::from_le_bytes), repeats, out, |v| v.iter().flat_map(|x| x.to_le_bytes()).collect())
        }
        "f64" => {
            run(parse(&bytes, f64::from_le_bytes), repeats, out, |v| v.iter().flat_map(|x| x.to_le_bytes()).collect())
        }
        t => {
            eprintln!("unknown key type {t}");
            std::process::exit(2);
        }
    };
    println!("{line}");
}
