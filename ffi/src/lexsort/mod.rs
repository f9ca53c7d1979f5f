//! The multi-key sorts: `gpusort_lexsort` and `gpusort_lexsort_u32` (host arrays) here,
//! `gpusort_lexsort_device` (device arrays on the caller's stream) in `device.rs`. A table's key
//! columns come as an array of `gpusort_column` descriptors, one struct for both: C callers
//! describe a table once, and a zeroed descriptor is the common case (ascending, the sorter's
//! float order, no nulls).
//!
//! Why one function per index width rather than per key type: the columns carry their own key
//! types, so the name only has the index width left to say. `uint64_t` indices (`gpusort_lexsort`)
//! fill NumPy-style `int64` buffers directly, as `gpusort_argsort_*` do; `uint32_t` ones
//! (`gpusort_lexsort_u32`) halve the bytes written and reach every row a lexsort takes (2^32).

use std::ffi::c_void;

use gpusort_core::{ArgIndex, Column, FloatOrder, KeyType, NullPlacement, Order, MAX_BYTE_WIDTH};

use crate::args::{
    disjoint, float_order, gpusort_float_order, gpusort_key_type, gpusort_null_placement, gpusort_order, key_type,
    null_placement, order, RawArray, GPUSORT_ALGORITHM_AUTO, GPUSORT_ASCENDING,
};
use crate::failure::Failure;
use crate::sort::with_sorter;
use crate::sorter::gpusort_sorter;
use crate::status::gpusort_status;

mod device;

pub use device::gpusort_lexsort_device;

/// `gpusort_column.key_type` of a column of byte strings, `key_bytes` bytes a row, compared as
/// `memcmp` compares them (unsigned bytes, the first the most significant): fixed-width text,
/// UUIDs, hashes, NumPy `S<n>` arrays. Outside the `GPUSORT_KEY_*` numbers of the key list, which
/// it never collides with; columns take it, the other key-typed calls do not.
pub const GPUSORT_KEY_BYTES: gpusort_key_type = 0x100;

/// The widest byte-string key a column takes (`gpusort_column.key_bytes`).
pub const GPUSORT_MAX_KEY_BYTES: usize = 4096;
const _: () = assert!(GPUSORT_MAX_KEY_BYTES == MAX_BYTE_WIDTH);

/// One key column of a multi-key sort (`gpusort_lexsort`, `gpusort_lexsort_device`): `len` keys
/// of `key_type` at `keys`, only read, and how they order. Zero every field you do not set
/// (`gpusort_column c = {0};` or a designated initializer): a zeroed column is ascending,
/// orders floats as its sorter does and has no nulls.
///
/// ```c
/// gpusort_column by[3] = {
///     {.keys = year, .key_type = GPUSORT_KEY_U16},
///     {.keys = price, .key_type = GPUSORT_KEY_F32, .order = GPUSORT_DESCENDING,
///      .float_order = GPUSORT_FLOAT_ORDER_NAN_LAST, .nulls = price_missing,
///      .null_placement = GPUSORT_NULLS_FIRST},
///     {.keys = names, .key_type = GPUSORT_KEY_BYTES, .key_bytes = 16},  /* char names[][16] */
/// };
/// ```
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct gpusort_column {
    /// The keys: host memory for `gpusort_lexsort*`, device memory for `gpusort_lexsort_device`,
    /// aligned to the key size (byte strings: any address, `key_bytes` a row with nothing
    /// between rows). May be NULL only when there are no rows.
    pub keys: *const c_void,
    /// NULL, or one byte per row, nonzero where the row is null (NumPy's and Arrow-unpacked
    /// masks), in the same memory as `keys`. Null rows sort together, in input order, at
    /// `null_placement`, whatever their keys hold.
    pub nulls: *const u8,
    /// The keys' type, a `GPUSORT_KEY_*` value, or `GPUSORT_KEY_BYTES` with `key_bytes`.
    pub key_type: gpusort_key_type,
    /// `GPUSORT_ASCENDING` (0) or `GPUSORT_DESCENDING`: this column's own order.
    pub order: gpusort_order,
    /// A `GPUSORT_FLOAT_ORDER_*` value for float keys; `GPUSORT_FLOAT_ORDER_DEFAULT` (0) takes the
    /// sorter's (`gpusort_sorter_with_float_order`). Other key types ignore it.
    pub float_order: gpusort_float_order,
    /// `GPUSORT_NULLS_LAST` (0) or `GPUSORT_NULLS_FIRST`, in both orders; checked even without
    /// `nulls`.
    pub null_placement: gpusort_null_placement,
    /// For `GPUSORT_KEY_BYTES`: the width of each row's string, 1 to `GPUSORT_MAX_KEY_BYTES`.
    /// For number keys 0 (or the type's size).
    pub key_bytes: usize,
}

/// What a column's rows hold, checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum KeyKind {
    Number(KeyType),
    Bytes(usize),
}

impl KeyKind {
    fn of(c: &gpusort_column) -> Result<KeyKind, Failure> {
        let width = c.key_bytes;
        if c.key_type == GPUSORT_KEY_BYTES {
            if width == 0 || width > GPUSORT_MAX_KEY_BYTES {
                return Err(Failure::invalid(format!(
                    "key_bytes {width} of a GPUSORT_KEY_BYTES column is not 1 to GPUSORT_MAX_KEY_BYTES ({GPUSORT_MAX_KEY_BYTES})"
                )));
            }
            return Ok(KeyKind::Bytes(width));
        }
        let ty = key_type(c.key_type)
            .map_err(|f| Failure::invalid(format!("{} or GPUSORT_KEY_BYTES ({GPUSORT_KEY_BYTES})", f.message)))?;
        if width != 0 && width != ty.size() {
            return Err(Failure::invalid(format!(
                "key_bytes {width} for keys of {} bytes: only GPUSORT_KEY_BYTES columns set it",
                ty.size()
            )));
        }
        Ok(KeyKind::Number(ty))
    }
}

/// A column's options, checked: what the host and device columns are built from.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    pub kind: KeyKind,
    pub order: Order,
    pub floats: Option<FloatOrder>,
    pub nulls: NullPlacement,
}

impl Options {
    /// Checks the enum fields of column `i`, naming it in the error.
    pub(crate) fn of(c: &gpusort_column, i: usize) -> Result<Options, Failure> {
        let named = |f: Failure| Failure::invalid(format!("columns[{i}]: {}", f.message));
        Ok(Options {
            kind: KeyKind::of(c).map_err(named)?,
            order: order(c.order).map_err(named)?,
            floats: float_order(c.float_order).map_err(named)?,
            nulls: null_placement(c.null_placement).map_err(named)?,
        })
    }
}

/// The `num_columns` descriptors at `columns`, checked (at least one), not yet read.
pub(crate) fn descriptors(
    columns: *const gpusort_column,
    num_columns: usize,
) -> Result<RawArray<gpusort_column>, Failure> {
    let columns = RawArray::new(columns.cast_mut(), num_columns, "columns")?;
    if num_columns == 0 {
        return Err(Failure::invalid("num_columns is 0: a lexsort needs at least one column".into()));
    }
    Ok(columns)
}

/// Column `i` of `len` host rows as the library takes it, after its keys and null mask are
/// checked and found apart from `out`.
///
/// # Safety
/// As `gpusort_lexsort` requires of the column's arrays.
unsafe fn host_column<'a, I>(
    c: &gpusort_column,
    i: usize,
    len: usize,
    out: &RawArray<I>,
) -> Result<Column<'a>, Failure> {
    let how = Options::of(c, i)?;
    let what = format!("columns[{i}].keys");
    let keys = match how.kind {
        KeyKind::Number(ty) => gpusort_core::with_key_type!(ty, K => {
            let keys = RawArray::new(c.keys.cast::<K>().cast_mut(), len, &what)?;
            disjoint(&keys, out, &format!("{what} and out"))?;
            Column::new(keys.into_ref())
        }),
        KeyKind::Bytes(width) => {
            let bytes = len.checked_mul(width).ok_or_else(|| {
                Failure::invalid(format!("{what}: {len} rows of {width} bytes are more than the address space holds"))
            })?;
            let rows = RawArray::new(c.keys.cast::<u8>().cast_mut(), bytes, &what)?;
            disjoint(&rows, out, &format!("{what} and out"))?;
            Column::byte_rows(rows.into_ref(), width)
        }
    };
    let mut column = keys.with_order(how.order);
    if let Some(floats) = how.floats {
        column = column.with_float_order(floats);
    }
    if !c.nulls.is_null() {
        let nulls = RawArray::new(c.nulls.cast_mut(), len, &format!("columns[{i}].nulls"))?;
        disjoint(&nulls, out, &format!("columns[{i}].nulls and out"))?;
        column = column.with_null_bytes(nulls.into_ref(), how.nulls);
    }
    Ok(column)
}

/// The generic host lexsort, into `uint64_t` or `uint32_t` indices.
unsafe fn lexsort<I: ArgIndex>(
    sorter: *const gpusort_sorter,
    columns: *const gpusort_column,
    num_columns: usize,
    len: usize,
    out: *mut I,
) -> gpusort_status {
    // Each column has its own order; the sorter's stays ascending so that none is reversed.
    with_sorter(sorter, GPUSORT_ASCENDING, GPUSORT_ALGORITHM_AUTO, |s| {
        let out = RawArray::new(out, len, "out")?;
        let descriptors = descriptors(columns, num_columns)?;
        disjoint(&descriptors, &out, "the column descriptors and out")?;
        let columns = descriptors
            .into_ref()
            .iter()
            .enumerate()
            .map(|(i, c)| host_column(c, i, len, &out))
            .collect::<Result<Vec<_>, _>>()?;
        // Every input was checked apart from `out`: only now does it become a `&mut` slice. On
        // failure `lexsort_into` leaves it as it was or holding the complete result.
        Ok(s.lexsort_into(&columns, out.into_slice())?)
    })
}

/// Writes to `out` the stable permutation that orders `len` rows by several key columns: by
/// `columns[0]`, rows equal there by `columns[1]`, and so on; rows equal in every column keep
/// their input order. `rows[out[0]]`, `rows[out[1]]`, ... are in order. Each column has its own
/// key type, order, float order and null mask (`gpusort_column`); the keys are only read. Like
/// pandas' `sort_values(by=[...], ascending=[...], kind="stable")`, and `np.lexsort` with the
/// columns in reverse (NumPy's primary key is its last). Always stable, on the sorter's backend
/// (the GPU when the sorter picks it). Columns whose keys fit 64 bits together (two `uint32_t`,
/// a `uint8_t` and a `double`, ...) are sorted as one key.
///
/// `sorter` may be NULL (the default sorter). `columns` holds `num_columns` descriptors, at
/// least one. Every column's `keys` (and `nulls`, unless NULL) hold `len` entries and may be
/// NULL only when `len` is 0; `out` holds `len` indices. `GPUSORT_INVALID_ARGUMENT`, with `out`
/// untouched, for: `num_columns` 0, a NULL array with `len` > 0, an unknown key type, order, float
/// order or null placement in any column (named as `columns[i]` in the message), a `key_bytes`
/// outside 1 to `GPUSORT_MAX_KEY_BYTES` for byte strings or set for numbers, an array that is
/// misaligned or runs past the end of the address space, `out` overlapping a column's arrays or
/// the descriptors, and more than 2^32 rows. Columns may share arrays. On any failure `out` holds
/// its original contents or the complete result, never part of one (except after `GPUSORT_PANIC`,
/// a bug).
///
/// ```c
/// uint16_t year[] = {2024, 2023, 2024, 2023};
/// float price[] = {9.5f, 3.0f, 12.0f, 3.0f};
/// gpusort_column by[2] = {{.keys = year, .key_type = GPUSORT_KEY_U16},
///                         {.keys = price, .key_type = GPUSORT_KEY_F32, .order = GPUSORT_DESCENDING}};
/// uint64_t idx[4];
/// gpusort_lexsort(NULL, by, 2, 4, idx);    /* idx: 1 3 2 0 */
/// ```
///
/// # Safety
/// `columns` must point to `num_columns` descriptors, and each column's `keys` and `nulls`
/// (unless NULL) to `len` entries, that nothing writes during the call; `out` to `len` writable
/// `uint64_t` that nothing else touches during the call.
#[no_mangle]
pub unsafe extern "C" fn gpusort_lexsort(
    sorter: *const gpusort_sorter,
    columns: *const gpusort_column,
    num_columns: usize,
    len: usize,
    out: *mut u64,
) -> gpusort_status {
    lexsort(sorter, columns, num_columns, len, out)
}

/// `gpusort_lexsort` into `uint32_t` indices: half the bytes written, and every length a
/// lexsort takes (up to 2^32 rows, whose last index is `UINT32_MAX`).
///
/// # Safety
/// As `gpusort_lexsort`, with `out` pointing to `len` writable `uint32_t`.
#[no_mangle]
pub unsafe extern "C" fn gpusort_lexsort_u32(
    sorter: *const gpusort_sorter,
    columns: *const gpusort_column,
    num_columns: usize,
    len: usize,
    out: *mut u32,
) -> gpusort_status {
    lexsort(sorter, columns, num_columns, len, out)
}

#[cfg(test)]
mod byte_tests;
#[cfg(test)]
mod refusal_tests;
#[cfg(test)]
mod tests;
