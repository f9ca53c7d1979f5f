//! The oracle: properties every sort result must have, checked independently of how it was made.
//!
//! `validate` is what the test suites call on each GPU and CPU result: sorted in the requested
//! order, a permutation of the input with every value still attached to its key, and (when
//! promised) stable. Messages name the first offending index so a failure can be reproduced.

use std::collections::HashMap;
use std::hash::Hash;

use crate::{Keyed, Order, SortKey};

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

/// The unique stable sort of `input`, computed with the standard library as an independent
/// reference (not with the radix code under test).
pub fn stable_reference<T: Keyed>(input: &[T], order: Order) -> Vec<T> {
    let mut r = input.to_vec();
    r.sort_by_key(|x| order.directed(x.sort_key().to_ordered_bits()));
    r
}

/// Index of the first position where `output` differs from the stable sort of `input`.
pub fn first_stability_violation<T: Keyed + PartialEq>(input: &[T], output: &[T], order: Order) -> Option<usize> {
    let r = stable_reference(input, order);
    if r.len() != output.len() {
        return Some(r.len().min(output.len()));
    }
    r.iter().zip(output).position(|(a, b)| a != b)
}

/// Checks a pair sort's result; `Err` says what is wrong and where.
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
    if !is_permutation_of(input, output) {
        return Err("output is not a permutation of the input (a pair was lost, duplicated or split)".into());
    }
    if stable {
        if let Some(i) = first_stability_violation(input, output, order) {
            return Err(format!("not stable: first difference from the stable order at index {i}: {:?}", output[i]));
        }
    }
    Ok(())
}

/// Checks a keys-only sort's result against the input.
pub fn validate_keys<K: SortKey>(input: &[K], output: &[K], order: Order) -> Result<(), String> {
    if input.len() != output.len() {
        return Err(format!("length changed: {} in, {} out", input.len(), output.len()));
    }
    let mut expect: Vec<_> = input.iter().map(|k| order.directed(k.to_ordered_bits())).collect();
    expect.sort_unstable();
    let got: Vec<_> = output.iter().map(|k| order.directed(k.to_ordered_bits())).collect();
    match expect.iter().zip(&got).position(|(a, b)| a != b) {
        None => Ok(()),
        Some(i) => Err(format!("keys differ from the sorted input at index {i}: {:?}", output[i])),
    }
}
