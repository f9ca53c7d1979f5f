//! Which kernel set of a layout sorts an input: by its size, and for u32 and i32 keys alone by
//! whether the GPU's code stages keys as it ranks them (`src/tuning.rs` has the boundaries and
//! the figures behind them).

use super::Variant;

/// The kernel sets of one layout by input size: `mid` below `tuning::RADIX_MID_KEYS_BELOW` items
/// (or below `staged_mid_below` where the GPU's code stages keys as it ranks them), `huge` from
/// `tuning::RADIX_HUGE_FROM`, `large` between.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sets {
    pub(super) mid: Variant,
    pub(super) large: Variant,
    pub(super) huge: Variant,
    staged_mid_below: Option<usize>,
}

impl Sets {
    /// The set for `n` items on a GPU of compute capability `cc`.
    pub(super) fn set_for(&self, n: usize, cc: (i32, i32)) -> Variant {
        let mid_below = match self.staged_mid_below {
            Some(below) if stages_keys_as_ranked(cc) => below,
            _ => crate::tuning::RADIX_MID_KEYS_BELOW,
        };
        if n < mid_below {
            self.mid
        } else if n < crate::tuning::RADIX_HUGE_FROM {
            self.large
        } else {
            self.huge
        }
    }
}

/// Whether the images' code for compute capability `cc` stages 32-bit keys alone as it ranks them:
/// the sm_90 and sm_100 code (`RADIX_STAGE_IN_RANK_KEYS`, kernels-cuda/cuda/tuning_tiles.cuh).
fn stages_keys_as_ranked(cc: (i32, i32)) -> bool {
    matches!(cc.0, 9 | 10)
}

const fn sets(mid: Variant, large: Variant, huge: Variant) -> Sets {
    Sets { mid, large, huge, staged_mid_below: None }
}

pub(super) const KVP_SETS: Sets = sets(Variant::KvpMid, Variant::Kvp, Variant::KvpHuge);
/// u32 and i32 keys alone: where their large set stages keys as ranked, from
/// `tuning::RADIX_MID_U32_KEYS_BELOW_STAGED`.
pub(super) const U32_KEYS: Sets = Sets {
    staged_mid_below: Some(crate::tuning::RADIX_MID_U32_KEYS_BELOW_STAGED),
    ..sets(Variant::U32Mid, Variant::U32, Variant::U32Huge)
};
/// f32 keys take the large set below 8M too (their integer-only mid set would not flip them).
pub(super) const F32_KEYS: Sets = sets(Variant::U32, Variant::U32, Variant::U32Huge);
pub(super) const U32_PAIRS: Sets = sets(Variant::PairsU32Mid, Variant::PairsU32, Variant::PairsU32Huge);
pub(super) const F32_PAIRS: Sets = sets(Variant::PairsF32, Variant::PairsF32, Variant::PairsF32);
pub(super) const U64_KEYS: Sets = sets(Variant::U64Mid, Variant::U64, Variant::U64);
pub(super) const U64_PAIRS: Sets = sets(Variant::PairsU64, Variant::PairsU64, Variant::PairsU64);

#[cfg(test)]
mod tests {
    use super::*;

    /// u32 keys change to their large set earlier only where the code stages keys as it ranks
    /// them; every other layout, and u32 keys elsewhere, at `RADIX_MID_KEYS_BELOW`.
    #[test]
    fn sets_by_size_and_compute_capability() {
        use crate::tuning::{
            RADIX_HUGE_FROM as HUGE, RADIX_MID_KEYS_BELOW as MID, RADIX_MID_U32_KEYS_BELOW_STAGED as STAGED,
        };
        for cc in [(9, 0), (10, 0), (10, 3)] {
            assert_eq!(U32_KEYS.set_for(STAGED - 1, cc), Variant::U32Mid);
            assert_eq!(U32_KEYS.set_for(STAGED, cc), Variant::U32);
            assert_eq!(KVP_SETS.set_for(STAGED, cc), Variant::KvpMid);
            assert_eq!(U32_PAIRS.set_for(MID - 1, cc), Variant::PairsU32Mid);
        }
        for cc in [(7, 5), (8, 0), (8, 9), (12, 0)] {
            assert_eq!(U32_KEYS.set_for(MID - 1, cc), Variant::U32Mid);
            assert_eq!(U32_KEYS.set_for(MID, cc), Variant::U32);
        }
        for cc in [(8, 0), (9, 0)] {
            assert_eq!(U32_KEYS.set_for(HUGE, cc), Variant::U32Huge);
            assert_eq!(KVP_SETS.set_for(MID, cc), Variant::Kvp);
            assert_eq!(F32_KEYS.set_for(1, cc), Variant::U32);
            assert_eq!(U64_KEYS.set_for(STAGED, cc), Variant::U64Mid);
        }
    }
}
