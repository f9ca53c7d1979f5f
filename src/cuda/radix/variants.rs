//! The radix image's kernel sets (`Variant`) and their entry points' names, derived from one
//! suffix per set (`radix_*_<suffix>` in `kernels-cuda/cuda/radix.cu`).

/// The names of one set's config and kernels.
pub(super) struct Names {
    pub(super) config: &'static str,
    pub(super) histogram: &'static str,
    pub(super) onesweep: &'static str,
    /// The one-block sort; the segmented sort has none.
    pub(super) small: Option<&'static str>,
}

/// Declares `Variant` and `Variant::names`: a `whole` set has `radix_config_<s>`,
/// `radix_histogram_<s>`, `radix_onesweep_<s>` and `radix_small_<s>`; a `segment` set has
/// `radix_config_segment_<s>`, `radix_segment_histogram_<s>` and `radix_segment_onesweep_<s>`.
macro_rules! variants {
    ($($(#[$doc:meta])* $variant:ident = $kind:ident $suffix:literal,)*) => {
        /// One set of entry points in the image.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub(crate) enum Variant {
            $($(#[$doc])* $variant,)*
        }

        impl Variant {
            /// Every set, for loading them all up front (`radix::prepare`).
            pub(super) const ALL: &[Variant] = &[$(Variant::$variant,)*];

            pub(super) fn names(self) -> Names {
                match self {
                    $(Variant::$variant => variants!(@$kind $suffix),)*
                }
            }
        }
    };
    (@whole $s:literal) => {
        Names {
            config: concat!("radix_config_", $s),
            histogram: concat!("radix_histogram_", $s),
            onesweep: concat!("radix_onesweep_", $s),
            small: Some(concat!("radix_small_", $s)),
        }
    };
    (@segment $s:literal) => {
        Names {
            config: concat!("radix_config_segment_", $s),
            histogram: concat!("radix_segment_histogram_", $s),
            onesweep: concat!("radix_segment_onesweep_", $s),
            small: None,
        }
    };
}

variants! {
    /// `Kvp` structs, 8 bytes each, moved whole.
    Kvp = whole "kvp",
    /// `Kvp` structs, fewer than `tuning::RADIX_MID_KEYS_BELOW`: tiles sized for these grids.
    KvpMid = whole "kvp_mid",
    /// `Kvp` structs, at least `tuning::RADIX_HUGE_FROM`: tiles whose digit runs of sorted keys
    /// do not start in one shared-memory bank.
    KvpHuge = whole "kvp_huge",
    /// 32-bit keys alone (`u32`, `i32`, `f32`: the kernels flip float bits at run time).
    U32 = whole "u32",
    /// `u32` or `i32` keys alone, fewer than `tuning::RADIX_MID_KEYS_BELOW`: more threads per tile.
    U32Mid = whole "u32_mid",
    /// 32-bit keys alone, at least `tuning::RADIX_HUGE_FROM`: as `KvpHuge`, for sorted keys.
    U32Huge = whole "u32_huge",
    /// `u32` (or `i32`) keys with a separate `u32` value array.
    PairsU32 = whole "pairs_u32",
    /// `u32` or `i32` keys with a separate `u32` value array, fewer than
    /// `tuning::RADIX_MID_KEYS_BELOW`: smaller tiles.
    PairsU32Mid = whole "pairs_u32_mid",
    /// `u32` or `i32` keys with a separate `u32` value array, at least `tuning::RADIX_HUGE_FROM`:
    /// as `KvpHuge`, for sorted keys.
    PairsU32Huge = whole "pairs_u32_huge",
    /// `f32` keys with a separate `u32` value array.
    PairsF32 = whole "pairs_f32",
    /// 64-bit keys alone.
    U64 = whole "u64",
    /// 64-bit keys alone, fewer than `tuning::RADIX_MID_KEYS_BELOW`: more threads per tile.
    U64Mid = whole "u64_mid",
    /// `u64` keys with a separate `u32` value array.
    PairsU64 = whole "pairs_u64",
    /// 16-bit keys alone (`u16`, `i16`, `f16`, `bf16`: floats flipped at run time), two passes.
    U16 = whole "u16",
    /// 16-bit keys with a separate `u32` value array.
    PairsU16 = whole "pairs_u16",
    /// 8-bit keys alone (`u8`, `i8`), one pass.
    U8 = whole "u8",
    /// 8-bit keys with a separate `u32` value array.
    PairsU8 = whole "pairs_u8",
    /// The segmented sort of 32-bit keys alone (every 32-bit key type).
    SegmentU32 = segment "u32",
    /// The segmented sort of 32-bit keys with a separate `u32` value array.
    SegmentPairsU32 = segment "pairs_u32",
}

impl Variant {
    /// The argsort sweep of a pairs set (`radix_onesweep_argsort_<name>`: its config, histogram and
    /// one-block sort are the set's), for the 16- and 8-bit keys.
    pub(super) fn argsort_sweep(self) -> Option<&'static str> {
        match self {
            Variant::PairsU16 => Some("radix_onesweep_argsort_u16"),
            Variant::PairsU8 => Some("radix_onesweep_argsort_u8"),
            _ => None,
        }
    }

    /// The segmented sort's kernels for the keys of this variant: one set for integer and float
    /// 32-bit keys; none for 64-bit keys.
    pub(crate) fn segmented(self) -> Option<Variant> {
        match self {
            Variant::U32 | Variant::U32Mid | Variant::U32Huge | Variant::SegmentU32 => Some(Variant::SegmentU32),
            Variant::PairsU32
            | Variant::PairsU32Mid
            | Variant::PairsU32Huge
            | Variant::PairsF32
            | Variant::SegmentPairsU32 => Some(Variant::SegmentPairsU32),
            Variant::Kvp
            | Variant::KvpMid
            | Variant::KvpHuge
            | Variant::U64
            | Variant::U64Mid
            | Variant::PairsU64
            | Variant::U16
            | Variant::PairsU16
            | Variant::U8
            | Variant::PairsU8 => None,
        }
    }
}
