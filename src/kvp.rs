//! The key/value pair gpusort is built around.

use gpusort_cpu::Keyed;

/// A 32-bit key with a 32-bit value, laid out as two consecutive `u32`s (8 bytes, align 4), the
/// same in Rust, C and on the device.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Kvp {
    /// The sort key.
    pub key: u32,
    /// The payload that moves with the key.
    pub value: u32,
}

impl Kvp {
    /// A pair of `key` and `value`.
    #[inline]
    pub const fn new(key: u32, value: u32) -> Self {
        Kvp { key, value }
    }
}

impl Keyed for Kvp {
    type Key = u32;
    #[inline(always)]
    fn sort_key(&self) -> u32 {
        self.key
    }
}

#[cfg(feature = "cuda")]
mod device {
    // SAFETY: `Kvp` is `repr(C)`, made of two `u32`s with no padding, so every bit pattern is
    // valid and it can be copied to and from the device byte for byte.
    unsafe impl cudarc::driver::DeviceRepr for super::Kvp {}
    // SAFETY: all-zero bits are a valid `Kvp` (key 0, value 0).
    unsafe impl cudarc::driver::ValidAsZeroBits for super::Kvp {}
}

const _: () = assert!(std::mem::size_of::<Kvp>() == 8 && std::mem::align_of::<Kvp>() == 4);
