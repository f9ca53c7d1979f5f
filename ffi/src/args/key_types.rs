//! The `GPUSORT_KEY_*` values: the position of each key type in the key list. Generated from the
//! key list by `ffi/tests/generate`: edit the template there, then
//! `GPUSORT_BLESS=1 cargo test -p gpusort-ffi --test header` rewrites this file.

use super::gpusort_key_type;

/// `uint32_t`.
pub const GPUSORT_KEY_U32: gpusort_key_type = 0;

/// `int32_t`.
pub const GPUSORT_KEY_I32: gpusort_key_type = 1;

/// `float`, in IEEE 754 totalOrder (as `gpusort_sort_keys_f32`) unless a `GPUSORT_FLOAT_ORDER_*`
/// value says otherwise.
pub const GPUSORT_KEY_F32: gpusort_key_type = 2;

/// `uint64_t`.
pub const GPUSORT_KEY_U64: gpusort_key_type = 3;

/// `int64_t`.
pub const GPUSORT_KEY_I64: gpusort_key_type = 4;

/// `double`, in IEEE 754 totalOrder (as `gpusort_sort_keys_f64`) unless a `GPUSORT_FLOAT_ORDER_*`
/// value says otherwise.
pub const GPUSORT_KEY_F64: gpusort_key_type = 5;

/// `uint16_t`.
pub const GPUSORT_KEY_U16: gpusort_key_type = 6;

/// `int16_t`.
pub const GPUSORT_KEY_I16: gpusort_key_type = 7;

/// `uint8_t`.
pub const GPUSORT_KEY_U8: gpusort_key_type = 8;

/// `int8_t`.
pub const GPUSORT_KEY_I8: gpusort_key_type = 9;

/// `uint16_t` holding the bits of IEEE 754 binary16 floats, in IEEE 754 totalOrder (as
/// `gpusort_sort_keys_f16`) unless a `GPUSORT_FLOAT_ORDER_*` value says otherwise.
pub const GPUSORT_KEY_F16: gpusort_key_type = 10;

/// `uint16_t` holding the bits of bfloat16 floats, in IEEE 754 totalOrder (as
/// `gpusort_sort_keys_bf16`) unless a `GPUSORT_FLOAT_ORDER_*` value says otherwise.
pub const GPUSORT_KEY_BF16: gpusort_key_type = 11;
