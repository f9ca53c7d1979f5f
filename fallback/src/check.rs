//! The oracle: properties every sort result must have, checked independently of how it was made.
//!
//! `validate` is what the test suites call on each GPU and CPU result: sorted in the requested
//! order, a permutation of the input with every value still attached to its key, and (when
//! promised) stable. Messages name the first offending index so a failure can be reproduced.

use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{mpsc, Arc, Barrier};
use std::time::Duration;

use rayon::slice::ParallelSliceMut;

use crate::key::{Keyed, SortKey};
use crate::order::Order;
use crate::pool::install;

/// Index of the first item that is out of order with its predecessor, if any.
pub fn first_unsorted<T: Keyed>(v: &[T], order: Order) -> Option<usize> {
    (1..v.len()).find(|&i| {
        let a = order.directed(v[i - 1].sort_key().to_ordered_bits());
        let b = order.directed(v[i].sort_key().to_ordered_bits());
        a > b
    })
}

/// True when `v` is sorted by key in `order`.
pub fn is_sorted<T: Keyed>(v: &[T], order: Order) -> bool {
    first_unsorted(v, order).is_none()
}

/// True when `output` holds exactly the items of `input` (as a multiset).
pub fn is_permutation_of<T: Eq + Hash>(input: &[T], output: &[T]) -> bool {
    if input.len() != output.len() {
        return false;
    }
    let mut counts: HashMap<&T, isize> = HashMap::with_capacity(input.len());
    for x in input {
        *counts.entry(x).or_insert(0) += 1;
    }
    for x in output {
        match counts.get_mut(x) {
            Some(c) if *c > 0 => *c -= 1,
            _ => return false,
        }
    }
    true
}

/// The positions of `keys` in their stable ascending order: `keys[p[0]] <= keys[p[1]] <= ...`, equal
/// keys by increasing position. Keys come as directed bits (`order.directed(key.to_ordered_bits())`
/// widened to `u64`), so one function serves every key type and both orders; not being generic, it
/// runs with this crate's optimisation even when a test binary built without any calls it (the
/// oracle took most of the time of the CPU cases of gpusort's suites when it was generic).
///
/// ```
/// assert_eq!(gpusort_cpu::check::stable_order(&[7, 3, 7, 1]), [3, 1, 0, 2]);
/// ```
pub fn stable_order(keys: &[u64]) -> Vec<usize> {
    // Positions are unique, so the unstable sort of (key, position) is the stable order. A
    // comparison sort, independent of the radix code under test; on the backend's pool, so the
    // oracle works in a forked child too.
    let mut tagged: Vec<(u64, usize)> = keys.iter().copied().zip(0..).collect();
    install(|| tagged.par_sort_unstable());
    tagged.into_iter().map(|(_, at)| at).collect()
}

/// The directed bits of each item's key, the input of `stable_order`.
fn directed_keys<T: Keyed>(items: &[T], order: Order) -> Vec<u64> {
    items.iter().map(|x| order.directed(x.sort_key().to_ordered_bits()).into()).collect()
}

/// The positions of `items` in their stable order by key in `order`: the permutation an argsort
/// must return.
///
/// ```
/// use gpusort_cpu::{check::stable_positions, Order};
/// assert_eq!(stable_positions(&[2.5f32, -1.0, 2.5], Order::Descending), [0, 2, 1]);
/// ```
pub fn stable_positions<T: Keyed>(items: &[T], order: Order) -> Vec<usize> {
    stable_order(&directed_keys(items, order))
}

/// The unique stable sort of `input` (an independent reference: `stable_order`, not the radix code
/// under test).
pub fn stable_reference<T: Keyed>(input: &[T], order: Order) -> Vec<T> {
    stable_positions(input, order).into_iter().map(|at| input[at]).collect()
}

/// Index of the first position where `output` differs from the stable sort of `input`.
pub fn first_stability_violation<T: Keyed + PartialEq>(input: &[T], output: &[T], order: Order) -> Option<usize> {
    first_difference(&stable_reference(input, order), output)
}

fn first_difference<T: PartialEq>(a: &[T], b: &[T]) -> Option<usize> {
    if a.len() != b.len() {
        return Some(a.len().min(b.len()));
    }
    a.iter().zip(b).position(|(x, y)| x != y)
}

/// Whether the key-sorted `output` holds the items of `reference`, the stable sort of the input:
/// a sorted permutation has every run of equal keys where the reference has it, so each run is
/// compared on its own, and a run of one item by equality (no hash map over the whole input).
fn same_items_per_run<T: Keyed + Eq + Hash>(reference: &[T], output: &[T]) -> bool {
    let key = |x: &T| x.sort_key().to_ordered_bits();
    let mut i = 0;
    while i < reference.len() {
        let k = key(&reference[i]);
        let j = i + 1 + reference[i + 1..].iter().take_while(|x| key(x) == k).count();
        let same =
            if j - i == 1 { reference[i] == output[i] } else { is_permutation_of(&reference[i..j], &output[i..j]) };
        if !same {
            return false;
        }
        i = j;
    }
    true
}

/// Checks a pair sort's result; `Err` says what is wrong and where.
///
/// ```
/// use gpusort_cpu::{check, Keyed, Order};
/// #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
/// struct Pair { key: u32, value: u32 }
/// impl Keyed for Pair {
///     type Key = u32;
///     fn sort_key(&self) -> u32 { self.key }
/// }
/// let input = [(3, 0), (1, 1), (3, 2)].map(|(key, value)| Pair { key, value });
/// let mut output = input;
/// gpusort_cpu::sort_stable(&mut output, Order::Ascending)?;
/// assert_eq!(check::validate(&input, &output, Order::Ascending, true), Ok(()));
/// // Sorted, but the two pairs with key 3 swapped: not stable.
/// let swapped = [output[0], output[2], output[1]];
/// assert!(check::validate(&input, &swapped, Order::Ascending, true).is_err());
/// # Ok::<(), gpusort_cpu::AllocError>(())
/// ```
pub fn validate<T: Keyed + Eq + Hash + std::fmt::Debug>(
    input: &[T],
    output: &[T],
    order: Order,
    stable: bool,
) -> Result<(), String> {
    if input.len() != output.len() {
        return Err(format!("length changed: {} in, {} out", input.len(), output.len()));
    }
    if let Some(i) = first_unsorted(output, order) {
        return Err(format!(
            "not sorted {:?} at index {i} of {}: {:?} then {:?}",
            order,
            output.len(),
            output[i - 1],
            output[i]
        ));
    }
    let reference = stable_reference(input, order);
    // The stable order is a sorted permutation of the input: an output equal to it is both, and
    // only one that differs needs the per-run comparison that tells a lost pair from instability.
    let Some(i) = first_difference(&reference, output) else { return Ok(()) };
    if !same_items_per_run(&reference, output) {
        return Err("output is not a permutation of the input (a pair was lost, duplicated or split)".into());
    }
    if stable {
        return Err(format!("not stable: first difference from the stable order at index {i}: {:?}", output[i]));
    }
    Ok(())
}

/// Checks a keys-only sort's result against the input.
///
/// ```
/// use gpusort_cpu::{check::validate_keys, Order};
/// assert_eq!(validate_keys(&[2.5f32, -1.0], &[-1.0, 2.5], Order::Ascending), Ok(()));
/// assert!(validate_keys(&[2i32, -1], &[2, -1], Order::Ascending).is_err());
/// ```
pub fn validate_keys<K: SortKey>(input: &[K], output: &[K], order: Order) -> Result<(), String> {
    if input.len() != output.len() {
        return Err(format!("length changed: {} in, {} out", input.len(), output.len()));
    }
    let input = directed_keys(input, order);
    let got = directed_keys(output, order);
    match stable_order(&input).into_iter().zip(&got).position(|(at, &b)| input[at] != b) {
        None => Ok(()),
        Some(i) => Err(format!("keys differ from the sorted input at index {i}: {:?}", output[i])),
    }
}

/// Runs `f` on a thread of its own while every thread of rayon's global pool is held, and gives
/// its result, or `None` when it has not finished within `limit`. Sorts run on the backend's own
/// pool, never on the global one (whose threads may be busy, or absent in a forked child): one
/// that needed it would never finish here, so a test of that rule fails instead of hanging.
///
/// ```
/// use rayon::prelude::*;
/// use std::time::Duration;
/// // On the backend's pool: it finishes although the global pool is held.
/// let sum = gpusort_cpu::check::with_global_pool_held(Duration::from_secs(60), || {
///     gpusort_cpu::install(|| (0..1000u64).into_par_iter().sum::<u64>())
/// });
/// assert_eq!(sum, Some(499_500));
/// ```
pub fn with_global_pool_held<R: Send + 'static>(limit: Duration, f: impl FnOnce() -> R + Send + 'static) -> Option<R> {
    let global = rayon::current_num_threads();
    let (entered, release) = (Arc::new(Barrier::new(global + 1)), Arc::new(Barrier::new(global + 1)));
    for _ in 0..global {
        let (entered, release) = (entered.clone(), release.clone());
        rayon::spawn(move || {
            entered.wait();
            release.wait();
        });
    }
    entered.wait();
    let (done, finished) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = done.send(f());
    });
    let outcome = finished.recv_timeout(limit).ok();
    release.wait();
    outcome
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
    struct Item {
        key: u32,
        value: u32,
    }

    impl Keyed for Item {
        type Key = u32;
        fn sort_key(&self) -> u32 {
            self.key
        }
    }

    fn items(keys: &[u32]) -> Vec<Item> {
        keys.iter().enumerate().map(|(i, &key)| Item { key, value: i as u32 }).collect()
    }

    #[test]
    fn validate_tells_each_fault_apart() {
        let input = items(&[5, 1, 5, 3, 1, 5]);
        let stable = stable_reference(&input, Order::Ascending);
        assert_eq!(validate(&input, &stable, Order::Ascending, true), Ok(()));
        // Equal keys swapped: a permutation, sorted, not stable.
        let mut swapped = stable.clone();
        swapped.swap(0, 1);
        assert_eq!(validate(&input, &swapped, Order::Ascending, false), Ok(()));
        assert!(validate(&input, &swapped, Order::Ascending, true).unwrap_err().contains("not stable"));
        // A value moved to another item of the same key, one duplicated, one with another key.
        let mut split = stable.clone();
        split[3].value = split[4].value;
        let mut duplicated = stable.clone();
        duplicated[5] = duplicated[4];
        let mut rekeyed = stable.clone();
        rekeyed[2].key = 4;
        for bad in [split, duplicated, rekeyed] {
            let e = validate(&input, &bad, Order::Ascending, false).unwrap_err();
            assert!(e.contains("not a permutation"), "{e}: {bad:?}");
        }
        let mut unsorted = stable.clone();
        unsorted.swap(1, 2);
        assert!(validate(&input, &unsorted, Order::Ascending, false).unwrap_err().contains("not sorted"));
        assert!(validate(&input, &stable[1..], Order::Ascending, false).unwrap_err().contains("length"));
        let descending = stable_reference(&input, Order::Descending);
        assert_eq!(validate(&input, &descending, Order::Descending, true), Ok(()));
    }
}
