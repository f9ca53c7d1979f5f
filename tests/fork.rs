//! A process forked from one that sorted still sorts: the CPU backend's thread pool
//! is made anew in the child, and a GPU opened by the parent is refused with a clear error, or
//! replaced by the CPU in `auto()` sorters. Every child runs under a deadline, so a regression
//! (a sort waiting on the parent's vanished threads) fails instead of hanging.

mod child;
mod common;

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use child::{run_in_child, say, Outcome};
use common::{bits, kvp_input, Pair, Pattern};
use gpusort::{check, BackendKind, Order, SortError, Sorter};
use rayon::prelude::*;

const N: usize = 2_000_000;
const DEADLINE: Duration = Duration::from_secs(240);

/// Sorts N pairs, N keys and N split pairs with `s` and checks each result; what went wrong.
fn sort_and_check(name: &str, s: &Sorter, seed: u64) -> Vec<String> {
    let mut failures = Vec::new();
    let mut note = |what: &str, r: Result<(), String>| {
        if let Err(e) = r {
            failures.push(format!("{name}, {what}: {e}"));
        }
    };
    let input = kvp_input(N, Pattern::Random, seed);
    let mut v = input.clone();
    let r = s.sort_kvp(&mut v).map_err(|e| e.to_string());
    note("2M Kvp", r.and_then(|()| check::validate(&input, &v, Order::Ascending, true)));

    let keys: Vec<u32> = bits(N, Pattern::Random, seed + 1).into_iter().map(|b| b as u32).collect();
    let mut k = keys.clone();
    let r = s.clone().with_order(Order::Descending).sort_keys(&mut k).map_err(|e| e.to_string());
    note("2M u32 keys", r.and_then(|()| check::validate_keys(&keys, &k, Order::Descending)));

    let pair_keys: Vec<i32> = bits(N, Pattern::FewDistinct, seed + 2).into_iter().map(|b| (b >> 32) as i32).collect();
    let (mut pk, mut pv) = (pair_keys.clone(), (0..N as u32).collect::<Vec<_>>());
    let r = s.sort_pairs(&mut pk, &mut pv).map_err(|e| e.to_string());
    let before: Vec<Pair<i32>> = pair_keys.iter().zip(0..).map(|(&key, value)| Pair { key, value }).collect();
    let after: Vec<Pair<i32>> = pk.iter().zip(&pv).map(|(&key, &value)| Pair { key, value }).collect();
    note("2M split i32 pairs", r.and_then(|()| check::validate(&before, &after, Order::Ascending, true)));
    failures
}

/// The child's verdict: 0 when nothing failed, else 1 after saying what.
fn verdict(failures: &[String]) -> i32 {
    for f in failures {
        say(f);
    }
    i32::from(!failures.is_empty())
}

fn is_fork_error(e: &SortError) -> bool {
    #[cfg(feature = "cuda")]
    let driver = matches!(e, SortError::Driver { .. } if e.to_string().contains("fork"));
    #[cfg(not(feature = "cuda"))]
    let driver = false;
    matches!(e, SortError::NoDevice(m) if m.contains("fork")) || driver
}

#[test]
fn a_child_sorts_after_its_parent_did() {
    // The parent sorts at sizes that use the backend's pool (and the GPU, if there is one), and
    // uses rayon's global pool too, as an application around gpusort would.
    let auto = Sorter::auto();
    let gpu = Sorter::cuda().ok();
    assert!(sort_and_check("parent, auto()", &auto, 1).is_empty());
    if let Some(g) = &gpu {
        assert!(sort_and_check("parent, cuda()", g, 2).is_empty());
    }
    let sum: u64 = (0..N as u64).into_par_iter().sum();
    assert_eq!(sum, (N as u64) * (N as u64 - 1) / 2);

    let outcome = run_in_child("sorts in a forked child", DEADLINE, || {
        let mut failures = sort_and_check("child, the parent's auto()", &auto, 3);
        failures.extend(sort_and_check("child, cpu()", &Sorter::cpu(), 4));
        let on = gpusort_cpu::install(|| std::thread::current().name().unwrap_or("").to_string());
        if !on.starts_with("gpusort-cpu-") {
            failures.push(format!("the child's pool runs work on thread {on:?}"));
        }
        let fresh = Sorter::auto();
        let (mut keys, want) = ((0..N as u32).rev().collect::<Vec<_>>(), (0..N as u32).collect::<Vec<_>>());
        match fresh.sort_keys(&mut keys) {
            Ok(()) if keys == want => {}
            r => failures.push(format!("child, auto() made in the child: {r:?}")),
        }
        if let Some(g) = &gpu {
            // The parent's CUDA context is unusable here: the CPU, or a clear error.
            for (name, s) in [("the parent's auto()", &auto), ("auto() made in the child", &fresh)] {
                let d = s.describe();
                if !d.contains("fork") || s.backend_for(1 << 30) != BackendKind::Cpu {
                    failures.push(format!("{name} in the child: {d}, backend {:?}", s.backend_for(1 << 30)));
                }
            }
            match Sorter::cuda() {
                Err(e) if is_fork_error(&e) => {}
                r => failures.push(format!("Sorter::cuda() in the child: {:?}", r.map(|s| s.describe()))),
            }
            let mut keys: Vec<u32> = (0..N as u32).rev().collect();
            let before = keys.clone();
            match g.sort_keys(&mut keys) {
                Err(e) if is_fork_error(&e) && keys == before => {}
                r => failures.push(format!("the parent's cuda() in the child: {r:?}, data kept: {}", keys == before)),
            }
        }
        verdict(&failures)
    });
    assert_eq!(outcome, Outcome::Exited(0), "the child failed (its stderr says why)");
}

#[test]
fn children_forked_while_other_threads_sort_still_sort() {
    // Forks land at random points of the parent's sorts: its pool busy, its scratch buffer
    // possibly locked. Each child must sort all the same.
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for t in 0..2u64 {
            let stop = &stop;
            scope.spawn(move || {
                let s = Sorter::cpu();
                let mut round = 0;
                while !stop.load(Ordering::Relaxed) {
                    let mut v = kvp_input(1 << 20, Pattern::Random, 100 + t * 1000 + round);
                    s.sort_kvp(&mut v).unwrap();
                    assert!(check::is_sorted(&v, Order::Ascending));
                    round += 1;
                }
            });
        }
        let result = std::panic::catch_unwind(|| {
            for i in 0..3 {
                std::thread::sleep(Duration::from_millis(37 * (i + 1)));
                let outcome = run_in_child("a fork amid other sorts", DEADLINE, || {
                    let input = kvp_input(N, Pattern::Random, 200 + i);
                    let mut v = input.clone();
                    let r = Sorter::cpu().sort_kvp(&mut v).map_err(|e| e.to_string());
                    let r = r.and_then(|()| check::validate(&input, &v, Order::Ascending, true));
                    verdict(&r.err().into_iter().collect::<Vec<_>>())
                });
                assert_eq!(outcome, Outcome::Exited(0), "child {i} failed (its stderr says why)");
            }
        });
        stop.store(true, Ordering::Relaxed);
        if let Err(p) = result {
            std::panic::resume_unwind(p);
        }
    });
}
