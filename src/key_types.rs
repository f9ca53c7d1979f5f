//! The one list of key types. Everything that dispatches on a key type is generated from it: the
//! backends' typed slices (`backend.rs`), [`Key`](crate::Key) and [`KeyType`], the CUDA backend's
//! choice of kernels (`cuda/key_class.rs`), the C ABI's per-type functions and the Python
//! package's dtype tables. A new key type is one line here, its `gpusort_cpu::SortKey` impl (its
//! ordered bits) and, for a new class, the kernels that class needs.

/// Calls `$callback! { { $args } $(type, Variant, "C type", "NumPy dtype", Class;)* }` with every
/// key type gpusort sorts, in the order of [`KeyType::ALL`](crate::KeyType::ALL) (which is also the
/// order of the C ABI's `GPUSORT_KEY_*` values, so new types go at the end).
///
/// The class names how the CUDA backend carries the type (`cuda/key_class.rs`):
/// - `Word`: 32-bit unsigned keys, which every kernel takes as they are;
/// - `Mapped`: 32-bit keys the radix kernels take as they are (their order flags flip the sign
///   or float bits) and the sorting networks as their ordered bits;
/// - `Small`: 8- and 16-bit keys (integers and half-precision floats), which the radix kernels
///   sort at their own width (a digit pass per byte) and the other kernels as 32-bit ordered bits;
/// - `Wide`: 64-bit keys, for the radix kernels only.
#[doc(hidden)]
#[macro_export]
macro_rules! key_types {
    ($($callback:tt)::+ ! { $($args:tt)* }) => {
        $($callback)::+ ! {
            { $($args)* }
            u32, U32, "uint32_t", "uint32", Word;
            i32, I32, "int32_t", "int32", Mapped;
            f32, F32, "float", "float32", Mapped;
            u64, U64, "uint64_t", "uint64", Wide;
            i64, I64, "int64_t", "int64", Wide;
            f64, F64, "double", "float64", Wide;
            u16, U16, "uint16_t", "uint16", Small;
            i16, I16, "int16_t", "int16", Small;
            u8, U8, "uint8_t", "uint8", Small;
            i8, I8, "int8_t", "int8", Small;
            f16, F16, "uint16_t", "float16", Small;
            bf16, BF16, "uint16_t", "bfloat16", Small;
        }
    };
}

use half::{bf16, f16};

macro_rules! key_type_enum {
    ({} $($t:ident, $v:ident, $c:literal, $np:literal, $class:ident;)*) => {
        /// A key type gpusort sorts, known at run time: the keys of an array given by address
        /// ([`Sorter::sort_foreign_keys`](crate::Sorter) and the other `_foreign` calls), or the
        /// key field of records whose layout is known only at run time.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum KeyType {
            $(
                #[doc = concat!("`", stringify!($t), "` keys (C `", $c, "`, NumPy `", $np, "`).")]
                $v,
            )*
        }

        impl KeyType {
            /// Every key type, in the order of the C ABI's `GPUSORT_KEY_*` values.
            pub const ALL: &'static [KeyType] = &[$(KeyType::$v),*];

            /// Bytes per key.
            pub const fn size(self) -> usize {
                match self {
                    $(KeyType::$v => std::mem::size_of::<$t>(),)*
                }
            }

            /// The Rust name of the type (`"u32"`), which the C ABI's function names end with.
            pub const fn name(self) -> &'static str {
                match self {
                    $(KeyType::$v => stringify!($t),)*
                }
            }

            /// The C type of the keys (`"uint32_t"`).
            pub const fn c_type(self) -> &'static str {
                match self {
                    $(KeyType::$v => $c,)*
                }
            }

            /// The NumPy dtype of the keys (`"uint32"`).
            pub const fn numpy_dtype(self) -> &'static str {
                match self {
                    $(KeyType::$v => $np,)*
                }
            }

            /// Whether device-resident arrays of this type sort on the GPU: every type of the
            /// list does (small keys as their 32-bit ordered bits, made on the device).
            pub const fn sorts_on_device(self) -> bool {
                match self {
                    $(KeyType::$v => $crate::key_types::device_class(stringify!($class)),)*
                }
            }

            /// The key type named `name` ([`KeyType::name`]), if gpusort sorts it.
            pub fn from_name(name: &str) -> Option<KeyType> {
                KeyType::ALL.iter().copied().find(|k| k.name() == name)
            }
        }

        impl std::fmt::Display for KeyType {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.name())
            }
        }
    };
}
key_types!(key_type_enum! {});

impl KeyType {
    /// Whether the keys are floating-point numbers (`f32`, `f64`, `f16`, `bf16`), which
    /// [`FloatOrder`](crate::FloatOrder) applies to.
    pub const fn is_float(self) -> bool {
        matches!(self, KeyType::F32 | KeyType::F64 | KeyType::F16 | KeyType::BF16)
    }
}

/// The key list's types by the names it gives them, for macros that expand it elsewhere.
#[doc(hidden)]
pub mod types {
    pub use core::primitive::{f32, f64, i16, i32, i64, i8, u16, u32, u64, u8};
    pub use half::{bf16, f16};
}

/// Whether a class of the list sorts device-resident data (see `key_types!`).
#[doc(hidden)]
pub const fn device_class(class: &str) -> bool {
    matches!(class.as_bytes(), b"Word" | b"Mapped" | b"Wide" | b"Small")
}

/// Evaluates `$body` with the type alias `$K` naming the Rust type of the [`KeyType`] `$key_type`:
/// the one place a run-time key type becomes a type parameter.
#[doc(hidden)]
#[macro_export]
macro_rules! with_key_type {
    ($key_type:expr, $K:ident => $body:expr) => {
        $crate::key_types!($crate::__with_key_type_arms! { $key_type, $K, $body })
    };
}

#[doc(hidden)]
#[macro_export]
macro_rules! __with_key_type_arms {
    ({ $key_type:expr, $K:ident, $body:expr } $($t:ident, $v:ident, $c:literal, $np:literal, $class:ident;)*) => {
        match $key_type {
            $(
                $crate::KeyType::$v => {
                    type $K = $crate::__key_types::$t;
                    $body
                }
            )*
            // `KeyType` is `non_exhaustive`: other crates must name a catch-all, and every
            // variant is one of the arms above, made from the same list.
            #[allow(unreachable_patterns)]
            _ => unreachable!("a KeyType outside the key list"),
        }
    };
}

#[cfg(test)]
mod tests {
    use crate::KeyType;

    #[test]
    fn the_list_names_each_type_once_with_its_size() {
        for (i, a) in KeyType::ALL.iter().enumerate() {
            assert_eq!(KeyType::from_name(a.name()), Some(*a));
            assert!(KeyType::ALL[..i].iter().all(|b| b.name() != a.name() && b.numpy_dtype() != a.numpy_dtype()));
            let size = crate::with_key_type!(*a, K => std::mem::size_of::<K>());
            assert_eq!(a.size(), size, "{a}");
        }
        assert_eq!(KeyType::from_name("u128"), None);
    }

    #[test]
    fn every_key_type_sorts_on_the_device() {
        assert!(KeyType::ALL.iter().all(|k| k.sorts_on_device()));
        let floats: Vec<_> = KeyType::ALL.iter().filter(|k| k.is_float()).map(|k| k.name()).collect();
        assert_eq!(floats, ["f32", "f64", "f16", "bf16"]);
    }
}
