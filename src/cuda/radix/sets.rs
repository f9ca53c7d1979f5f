//! Which kernel set of a layout sorts an input, by its size: the boundaries are the image's
//! (`radix_sets_<layout>`, from kernels-cuda/cuda/policy_radix.cuh), compiled per architecture.

use super::variants::Variant;
use crate::cuda::device::Gpu;
use crate::cuda::modules::ImageConfig;
use crate::SortError;

/// The kernel sets of one layout by input size: `mid` below the image's mid boundary, `huge` from
/// its huge boundary, `large` between.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sets {
    pub(super) mid: Variant,
    pub(super) large: Variant,
    pub(super) huge: Variant,
    /// The image's global that holds this layout's boundaries; none for a layout of one set.
    bounds: Option<&'static str>,
}

/// Where a layout changes sets on this device's architecture (`radix_sets_<layout>`: the mid set
/// below word 0 items, the huge set from word 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Bounds {
    pub(crate) mid_below: usize,
    pub(crate) huge_from: usize,
}

impl ImageConfig for Bounds {
    const IMAGE: &'static gpusort_kernels::Image = &gpusort_kernels::RADIX;
    const WORDS: usize = 2;
    type Key = &'static str;

    fn global(name: &'static str) -> &'static str {
        name
    }

    fn parse(name: &'static str, w: &[u32]) -> Result<Bounds, SortError> {
        let b = Bounds { mid_below: w[0] as usize, huge_from: w[1] as usize };
        if b.mid_below > b.huge_from {
            return Err(SortError::Unsupported {
                backend: "cuda",
                what: format!("radix image's {name} has bad set boundaries {w:?}"),
            });
        }
        Ok(b)
    }
}

impl Sets {
    /// The set for `n` items on `gpu`, by the boundaries of the image loaded there.
    pub(super) fn set_for(&self, n: usize, gpu: &Gpu) -> Result<Variant, SortError> {
        match self.bounds {
            Some(bounds) => Ok(self.choose(n, gpu.config::<Bounds>(bounds)?)),
            None => Ok(self.large),
        }
    }

    /// The set for `n` items, given the layout's boundaries.
    fn choose(&self, n: usize, b: Bounds) -> Variant {
        if n < b.mid_below {
            self.mid
        } else if n < b.huge_from {
            self.large
        } else {
            self.huge
        }
    }
}

const fn sets(mid: Variant, large: Variant, huge: Variant, bounds: &'static str) -> Sets {
    Sets { mid, large, huge, bounds: Some(bounds) }
}

/// A layout whose one set sorts every size.
const fn one(set: Variant) -> Sets {
    Sets { mid: set, large: set, huge: set, bounds: None }
}

pub(super) const KVP_SETS: Sets = sets(Variant::KvpMid, Variant::Kvp, Variant::KvpHuge, "radix_sets_kvp");
/// u32 and i32 keys alone: their mid boundary is lower where the large set stages keys as it
/// ranks them (the sm_90 and sm_100 code).
pub(super) const U32_KEYS: Sets = sets(Variant::U32Mid, Variant::U32, Variant::U32Huge, "radix_sets_u32");
/// f32 keys take the large set below the mid boundary too (the integer-only mid set would not flip them).
pub(super) const F32_KEYS: Sets = sets(Variant::U32, Variant::U32, Variant::U32Huge, "radix_sets_f32");
pub(super) const U32_PAIRS: Sets =
    sets(Variant::PairsU32Mid, Variant::PairsU32, Variant::PairsU32Huge, "radix_sets_pairs_u32");
pub(super) const F32_PAIRS: Sets =
    sets(Variant::PairsF32, Variant::PairsF32, Variant::PairsF32, "radix_sets_pairs_f32");
pub(super) const U64_KEYS: Sets = sets(Variant::U64Mid, Variant::U64, Variant::U64, "radix_sets_u64");
pub(super) const U64_PAIRS: Sets =
    sets(Variant::PairsU64, Variant::PairsU64, Variant::PairsU64, "radix_sets_pairs_u64");
pub(super) const U16_KEYS: Sets = one(Variant::U16);
pub(super) const U16_PAIRS: Sets = one(Variant::PairsU16);
pub(super) const U8_KEYS: Sets = one(Variant::U8);
pub(super) const U8_PAIRS: Sets = one(Variant::PairsU8);

#[cfg(test)]
mod tests {
    use super::*;

    /// Each layout's sets by size, at the boundaries of the sm_90 code and of the others.
    #[test]
    fn sets_by_size() {
        use crate::tuning::{
            RADIX_HUGE_FROM as HUGE, RADIX_MID_KEYS_BELOW as MID, RADIX_MID_U32_KEYS_BELOW_STAGED as STAGED,
        };
        let staged = Bounds { mid_below: STAGED, huge_from: HUGE };
        let plain = Bounds { mid_below: MID, huge_from: HUGE };
        assert_eq!(U32_KEYS.choose(STAGED - 1, staged), Variant::U32Mid);
        assert_eq!(U32_KEYS.choose(STAGED, staged), Variant::U32);
        assert_eq!(U32_KEYS.choose(STAGED, plain), Variant::U32Mid);
        assert_eq!(U32_KEYS.choose(MID - 1, plain), Variant::U32Mid);
        assert_eq!(U32_KEYS.choose(MID, plain), Variant::U32);
        assert_eq!(KVP_SETS.choose(STAGED, plain), Variant::KvpMid);
        assert_eq!(KVP_SETS.choose(MID, plain), Variant::Kvp);
        assert_eq!(U32_PAIRS.choose(MID - 1, plain), Variant::PairsU32Mid);
        assert_eq!(U32_KEYS.choose(HUGE, staged), Variant::U32Huge);
        assert_eq!(F32_KEYS.choose(1, plain), Variant::U32);
        assert_eq!(U64_KEYS.choose(STAGED, plain), Variant::U64Mid);
        assert_eq!(U64_KEYS.choose(HUGE, plain), Variant::U64);
    }

    /// A global whose mid boundary lies past its huge one is refused, not misread.
    #[test]
    fn bounds_parse() {
        assert_eq!(
            Bounds::parse("radix_sets_kvp", &[8 << 20, 128 << 20]).unwrap(),
            Bounds { mid_below: 8 << 20, huge_from: 128 << 20 }
        );
        assert!(Bounds::parse("radix_sets_kvp", &[2, 1]).is_err());
    }
}
