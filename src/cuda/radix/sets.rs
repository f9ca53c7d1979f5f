//! Which kernel set of a layout sorts an input: by its size, and for u32 and i32 keys alone by
//! whether the image's large set for this GPU stages keys as it ranks them (`src/tuning.rs` has
//! the boundaries and the figures behind them).

use super::config::config;
use super::variants::Variant;
use crate::cuda::device::Gpu;
use crate::SortError;

/// The kernel sets of one layout by input size: `mid` below `tuning::RADIX_MID_KEYS_BELOW` items
/// (or below `staged_mid_below` where the large set stages keys as it ranks them), `huge` from
/// `tuning::RADIX_HUGE_FROM`, `large` between.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sets {
    pub(super) mid: Variant,
    pub(super) large: Variant,
    pub(super) huge: Variant,
    staged_mid_below: Option<usize>,
}

impl Sets {
    /// The set for `n` items on `gpu`. Whether the large set stages keys as it ranks them is
    /// compiled per architecture, so it is read from the loaded image (`Config::stages_in_rank`),
    /// and only for the sizes whose set it decides.
    pub(super) fn set_for(&self, n: usize, gpu: &Gpu) -> Result<Variant, SortError> {
        let large_stages = match self.staged_mid_below {
            Some(below) if (below..crate::tuning::RADIX_MID_KEYS_BELOW).contains(&n) => {
                config(gpu, self.large)?.stages_in_rank
            }
            _ => false,
        };
        Ok(self.choose(n, large_stages))
    }

    /// The set for `n` items, given whether the large set stages keys as it ranks them.
    fn choose(&self, n: usize, large_stages: bool) -> Variant {
        let mid_below = match self.staged_mid_below {
            Some(below) if large_stages => below,
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

const fn sets(mid: Variant, large: Variant, huge: Variant) -> Sets {
    Sets { mid, large, huge, staged_mid_below: None }
}

pub(super) const KVP_SETS: Sets = sets(Variant::KvpMid, Variant::Kvp, Variant::KvpHuge);
/// u32 and i32 keys alone: where their large set stages keys as ranked (the sm_90 and sm_100
/// code, `RADIX_STAGE_IN_RANK_KEYS` in kernels-cuda/cuda/tuning_tiles.cuh), from
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

    /// u32 keys change to their large set earlier only where it stages keys as it ranks them;
    /// every other layout at `RADIX_MID_KEYS_BELOW` whatever the image says.
    #[test]
    fn sets_by_size_and_staging() {
        use crate::tuning::{
            RADIX_HUGE_FROM as HUGE, RADIX_MID_KEYS_BELOW as MID, RADIX_MID_U32_KEYS_BELOW_STAGED as STAGED,
        };
        assert_eq!(U32_KEYS.choose(STAGED - 1, true), Variant::U32Mid);
        assert_eq!(U32_KEYS.choose(STAGED, true), Variant::U32);
        assert_eq!(U32_KEYS.choose(STAGED, false), Variant::U32Mid);
        assert_eq!(U32_KEYS.choose(MID - 1, false), Variant::U32Mid);
        assert_eq!(U32_KEYS.choose(MID, false), Variant::U32);
        for stages in [false, true] {
            assert_eq!(KVP_SETS.choose(STAGED, stages), Variant::KvpMid);
            assert_eq!(KVP_SETS.choose(MID, stages), Variant::Kvp);
            assert_eq!(U32_PAIRS.choose(MID - 1, stages), Variant::PairsU32Mid);
            assert_eq!(U32_KEYS.choose(HUGE, stages), Variant::U32Huge);
            assert_eq!(F32_KEYS.choose(1, stages), Variant::U32);
            assert_eq!(U64_KEYS.choose(STAGED, stages), Variant::U64Mid);
        }
    }
}
