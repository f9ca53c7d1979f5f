//! The inputs of the host tables, each with its sorts and checks: `Kvp` pairs, split `u32` pairs
//! or keys, and `u32` keys with `u64` values.

use gpusort::{Kvp, SortError, Sorter};

use super::*;
use crate::inputs::{check_keys, check_pairs, Pattern};

/// Random `Kvp`s, values 0..n: the pairs of the device and CPU groups.
pub struct KvpCase {
    input: Vec<Kvp>,
    work: Work<Kvp>,
    sig: Signature,
}

impl KvpCase {
    /// The caller's buffer page-locked in `locked`'s context when that is given.
    pub fn new(n: usize, locked: Option<&Sorter>) -> Result<KvpCase, String> {
        let input = Pattern::Random.kvps(n, 0);
        let sig = kvp_signature(&input);
        Ok(KvpCase { work: Work::of(&input, locked)?, input, sig })
    }
}

impl Case for KvpCase {
    fn len(&self) -> usize {
        self.input.len()
    }
    fn bytes(&self) -> usize {
        std::mem::size_of_val(&self.input[..])
    }
    fn restore(&mut self) {
        par_copy(self.work.get_mut(), &self.input);
    }
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError> {
        s.sort_kvp(self.work.get_mut())
    }
    fn check(&self) -> Result<(), String> {
        let (input, out) = (&self.input[..], self.work.get());
        if input.len() <= EXACT_CHECK_MAX {
            return check_pairs(input, out, true);
        }
        check_large(out, |p| p.key, kvp_signature(out), self.sig)
    }
}

fn kvp_signature(v: &[Kvp]) -> Signature {
    Signature::of(v.par_iter().map(|p| (p.key, p.value)))
}

/// The same pairs as split arrays (`sort_pairs`), or their keys alone (`sort_keys`) when
/// `values` is empty.
pub struct SplitCase {
    keys_in: Vec<u32>,
    values_in: Vec<u32>,
    keys: Work<u32>,
    values: Work<u32>,
    sig: Signature,
}

impl SplitCase {
    /// The caller's buffers page-locked in `locked`'s context when that is given.
    pub fn new(n: usize, with_values: bool, locked: Option<&Sorter>) -> Result<SplitCase, String> {
        let keys_in = Pattern::Random.keys(n, 0);
        let values_in: Vec<u32> = if with_values { (0..n as u32).into_par_iter().collect() } else { Vec::new() };
        let mut c = SplitCase {
            keys: Work::of(&keys_in, locked)?,
            values: Work::of(&values_in, locked)?,
            keys_in,
            values_in,
            sig: Signature::default(),
        };
        c.sig = c.signature_of(&c.keys_in, &c.values_in);
        Ok(c)
    }

    fn signature_of(&self, keys: &[u32], values: &[u32]) -> Signature {
        if self.values_in.is_empty() {
            Signature::of(keys.par_iter().map(|&k| (k, 0)))
        } else {
            Signature::of(keys.par_iter().zip(values).map(|(&k, &v)| (k, v)))
        }
    }

    fn kvps(keys: &[u32], values: &[u32]) -> Vec<Kvp> {
        keys.par_iter().zip(values).map(|(&k, &v)| Kvp::new(k, v)).collect()
    }
}

impl Case for SplitCase {
    fn len(&self) -> usize {
        self.keys_in.len()
    }
    fn bytes(&self) -> usize {
        std::mem::size_of_val(&self.keys_in[..]) + std::mem::size_of_val(&self.values_in[..])
    }
    fn restore(&mut self) {
        par_copy(self.keys.get_mut(), &self.keys_in);
        par_copy(self.values.get_mut(), &self.values_in);
    }
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError> {
        if self.values_in.is_empty() {
            s.sort_keys(self.keys.get_mut())
        } else {
            s.sort_pairs(self.keys.get_mut(), self.values.get_mut())
        }
    }
    fn check(&self) -> Result<(), String> {
        let (keys, values) = (self.keys.get(), self.values.get());
        match (self.len() <= EXACT_CHECK_MAX, self.values_in.is_empty()) {
            (true, true) => check_keys(&self.keys_in, keys),
            (true, false) => check_pairs(&Self::kvps(&self.keys_in, &self.values_in), &Self::kvps(keys, values), true),
            (false, _) => check_large(keys, |&k| k, self.signature_of(keys, values), self.sig),
        }
    }
}

/// Split pairs with `u64` values (row ids past 2^32): the same random keys as `SplitCase`, each
/// with an 8-byte value, for the `pairs-u64-values` row beside `pairs` (on the GPU keys and values
/// in one round trip, the keys sorted with their positions and the values gathered by them; on
/// the CPU the split pair sort).
pub struct Split64Case {
    keys_in: Vec<u32>,
    values_in: Vec<u64>,
    keys: Vec<u32>,
    values: Vec<u64>,
    sig: Signature,
}

impl Split64Case {
    pub fn new(n: usize) -> Split64Case {
        let keys_in = Pattern::Random.keys(n, 0);
        // Increasing, with both halves set: the stability check reads the order, a lost half shows.
        let values_in: Vec<u64> = (0..n as u64).into_par_iter().map(|i| i << 32 | i).collect();
        let sig = Self::signature_of(&keys_in, &values_in);
        Split64Case {
            keys: keys_in.par_iter().copied().collect(),
            values: values_in.par_iter().copied().collect(),
            keys_in,
            values_in,
            sig,
        }
    }

    fn signature_of(keys: &[u32], values: &[u64]) -> Signature {
        Signature::of(keys.par_iter().zip(values).map(|(&k, &v)| (k, (v ^ v >> 29) as u32)))
    }
}

impl Case for Split64Case {
    fn len(&self) -> usize {
        self.keys_in.len()
    }
    fn bytes(&self) -> usize {
        std::mem::size_of_val(&self.keys_in[..]) + std::mem::size_of_val(&self.values_in[..])
    }
    fn restore(&mut self) {
        par_copy(&mut self.keys, &self.keys_in);
        par_copy(&mut self.values, &self.values_in);
    }
    fn sort(&mut self, s: &Sorter) -> Result<(), SortError> {
        s.sort_pairs(&mut self.keys, &mut self.values)
    }
    fn check(&self) -> Result<(), String> {
        check_large(&self.keys, |&k| k, Self::signature_of(&self.keys, &self.values), self.sig)?;
        let (k, v) = (&self.keys, &self.values);
        match (1..k.len()).into_par_iter().find_any(|&i| k[i - 1] == k[i] && v[i - 1] > v[i]) {
            Some(i) => Err(format!("unstable at {i}: equal keys with values {} then {}", v[i - 1], v[i])),
            None => Ok(()),
        }
    }
}
