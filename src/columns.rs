//! Sort keys of several columns (`Sorter::lexsort`): each column's keys (numbers of a key type, or
//! fixed-width byte strings ordered as `memcmp`), order, float order and nulls, and the plan that
//! packs the columns' ordered bits into radix words (as few as their widths allow, of the width
//! each backend sorts best). Both backends sort the words least
//! significant first, stably, keeping the permutation between passes; the CPU packs a word with
//! `Field::bits`, the GPU with the `columns_pack` kernels, which compute the same bits.

use crate::backend::KeyView;
use crate::{Key, KeyType, Order};

pub(crate) mod cpu;
#[cfg(feature = "cuda")]
mod device;
mod kind;
#[cfg(feature = "cuda")]
pub use device::{DeviceColumn, ForeignColumn};
pub use kind::MAX_BYTE_WIDTH;
pub(crate) use kind::{check_byte_rows, Kind};

/// Where NaN keys of a float column go, and whether `-0.0` and `+0.0` are one key.
///
/// `Total` is IEEE total order (`f32::total_cmp`), gpusort's default:
/// `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`. The others order floats as the array
/// libraries do: `-0.0` and `+0.0` are equal (a stable sort keeps their input order) and every NaN
/// is one value (NaNs keep their input order too), placed as named. NumPy, CuPy and pandas put NaN
/// last in both orders (`NanLast`); PyTorch treats it as the largest value (`NanLargest`: last
/// ascending, first descending).
///
/// ```
/// use gpusort::{Column, FloatOrder, Order, Sorter};
/// let x = [1.0f32, f32::NAN, -0.0, 0.0, -1.0];
/// let p: Vec<u32> = Sorter::cpu().lexsort(&[Column::new(&x).with_float_order(FloatOrder::NanLast)])?;
/// assert_eq!(p, [4, 2, 3, 0, 1]);
/// let d = Column::new(&x).with_order(Order::Descending).with_float_order(FloatOrder::NanLast);
/// assert_eq!(Sorter::cpu().lexsort(&[d])?, [0, 2, 3, 4, 1]);
/// # Ok::<(), gpusort::SortError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FloatOrder {
    /// IEEE total order, as `total_cmp`.
    #[default]
    Total,
    /// NaN after every other value in both orders (NumPy, CuPy, pandas).
    NanLast,
    /// NaN before every other value in both orders.
    NanFirst,
    /// NaN as the largest value: last ascending, first descending (PyTorch).
    NanLargest,
}

/// Where a column's null rows go: before or after every other row, in both orders.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum NullPlacement {
    /// After every value (pandas' `na_position="last"`, Arrow's `at_end`).
    #[default]
    Last,
    /// Before every value.
    First,
}

/// One sort key of [`Sorter::lexsort`](crate::Sorter::lexsort): a column of keys (only read),
/// its order, its float order and, optionally, which rows are null.
///
/// ```
/// use gpusort::{Column, NullPlacement, Order, Sorter};
/// let city = [2u8, 1, 2, 1];
/// let score = [0.5f64, 0.5, 0.9, 0.1];
/// let missing = [false, false, false, true];
/// let p: Vec<u32> = Sorter::cpu().lexsort(&[
///     Column::new(&city),
///     Column::new(&score).with_order(Order::Descending).with_nulls(&missing, NullPlacement::First),
/// ])?;
/// assert_eq!(p, [3, 1, 2, 0]);
/// # Ok::<(), gpusort::SortError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Column<'a> {
    pub(crate) keys: Keys<'a>,
    pub(crate) nulls: Option<&'a [u8]>,
    pub(crate) how: ColumnOrder,
}

/// The keys of a host column.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Keys<'a> {
    Numbers(KeyView<'a>),
    /// Rows of `width` bytes, one after another.
    Bytes {
        rows: &'a [u8],
        width: usize,
    },
}

/// How a column's keys map to its field bits, whatever holds the keys (host or device).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ColumnOrder {
    pub(crate) order: Order,
    /// None: the sorter's (`Sorter::with_float_order`).
    pub(crate) floats: Option<FloatOrder>,
    pub(crate) nulls: NullPlacement,
}

impl<'a> Column<'a> {
    /// A column of `keys`, ascending, floats in total order, no nulls.
    pub fn new<K: Key>(keys: &'a [K]) -> Column<'a> {
        Column { keys: Keys::Numbers(K::view(keys)), nulls: None, how: ColumnOrder::default() }
    }

    /// A column of fixed-width byte strings, ordered as `memcmp` orders them (unsigned bytes,
    /// the first the most significant), ascending, no nulls. Keys of 1 to [`MAX_BYTE_WIDTH`]
    /// bytes (checked by the sort).
    ///
    /// ```
    /// use gpusort::{Column, Order, Sorter};
    /// let names = [*b"pear", *b"fig\0", *b"plum", *b"fig\0"];
    /// let p: Vec<u32> = Sorter::cpu().lexsort(&[Column::bytes(&names)])?;
    /// assert_eq!(p, [1, 3, 0, 2]);
    /// let p: Vec<u32> = Sorter::cpu().lexsort(&[Column::bytes(&names).with_order(Order::Descending)])?;
    /// assert_eq!(p, [2, 0, 1, 3]);
    /// # Ok::<(), gpusort::SortError>(())
    /// ```
    pub fn bytes<const N: usize>(keys: &'a [[u8; N]]) -> Column<'a> {
        Column::byte_rows(keys.as_flattened(), N)
    }

    /// [`Column::bytes`] of keys laid out one after another in `rows`, `width` bytes each
    /// (`rows.len()` a multiple of `width`, checked by the sort): NumPy `S<n>` arrays, C buffers.
    pub fn byte_rows(rows: &'a [u8], width: usize) -> Column<'a> {
        Column { keys: Keys::Bytes { rows, width }, nulls: None, how: ColumnOrder::default() }
    }

    /// This column's order (ascending by default).
    pub fn with_order(mut self, order: Order) -> Column<'a> {
        self.how.order = order;
        self
    }

    /// How this column orders floats (by default as the sorter does, [`Sorter::with_float_order`](crate::Sorter::with_float_order);
    /// other key types ignore it).
    pub fn with_float_order(mut self, floats: FloatOrder) -> Column<'a> {
        self.how.floats = Some(floats);
        self
    }

    /// Marks the rows where `nulls` is true as null: they sort together (in input order) at
    /// `placement`, whatever their keys hold. `nulls` has one flag per key (checked by the sort).
    pub fn with_nulls(self, nulls: &'a [bool], placement: NullPlacement) -> Column<'a> {
        // SAFETY: a bool is one byte holding 0 or 1, so every bool slice is a valid u8 slice.
        let bytes = unsafe { std::slice::from_raw_parts(nulls.as_ptr().cast::<u8>(), nulls.len()) };
        self.with_null_bytes(bytes, placement)
    }

    /// [`Column::with_nulls`] with one byte per row, nonzero where the row is null (NumPy's and
    /// the C ABI's masks).
    #[doc(hidden)]
    pub fn with_null_bytes(mut self, nulls: &'a [u8], placement: NullPlacement) -> Column<'a> {
        self.nulls = Some(nulls);
        self.how.nulls = placement;
        self
    }

    /// The column with `floats` as its float order where it names none (the sorter's).
    pub(crate) fn floats_or(mut self, floats: FloatOrder) -> Column<'a> {
        self.how.floats = Some(self.how.floats.unwrap_or(floats));
        self
    }

    /// How many keys the column holds.
    pub fn len(&self) -> usize {
        match self.keys {
            Keys::Numbers(v) => crate::backend::with_view!(v, k => k.len()),
            Keys::Bytes { rows, width } => rows.len().checked_div(width).unwrap_or(0),
        }
    }

    /// Whether the column holds no keys.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key type of a column of numbers; `None` for byte strings.
    pub fn key_type(&self) -> Option<KeyType> {
        match self.keys {
            Keys::Numbers(v) => Some(v.key_type()),
            Keys::Bytes { .. } => None,
        }
    }

    /// The width of a column of byte strings; `None` for numbers.
    pub fn byte_width(&self) -> Option<usize> {
        match self.keys {
            Keys::Numbers(_) => None,
            Keys::Bytes { width, .. } => Some(width),
        }
    }
}

/// Where NaN goes once a column's order is applied.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum NanAt {
    /// Total order: NaNs are ordered by their bits, like any key.
    Bits,
    Last,
    First,
}

impl ColumnOrder {
    /// This column's order under a sorter whose order is `sorter` (a descending sorter reverses
    /// every column); `Sorter` has given each column its float order already (`Column::floats_or`).
    pub(crate) fn under(self, sorter: Order) -> ColumnOrder {
        let flip = |o: Order| match o {
            Order::Ascending => Order::Descending,
            Order::Descending => Order::Ascending,
        };
        ColumnOrder { order: if sorter == Order::Descending { flip(self.order) } else { self.order }, ..self }
    }

    pub(crate) fn descending(&self) -> bool {
        self.order == Order::Descending
    }

    pub(crate) fn nan_at(&self) -> NanAt {
        match (self.floats.unwrap_or_default(), self.descending()) {
            (FloatOrder::Total, _) => NanAt::Bits,
            (FloatOrder::NanLast, _) | (FloatOrder::NanLargest, false) => NanAt::Last,
            (FloatOrder::NanFirst, _) | (FloatOrder::NanLargest, true) => NanAt::First,
        }
    }
}

/// What `plan` needs of each column: its kind, whether it has nulls, and its order under the
/// sorter's `order`.
pub(crate) fn shapes(columns: &[Column<'_>], order: Order) -> Vec<(Kind, bool, ColumnOrder)> {
    columns.iter().map(|c| (c.kind(), c.nulls.is_some(), c.how.under(order))).collect()
}

/// A column's place in a packed word: bits `lo..lo + len` of the column's field bits (the key's
/// ordered bits, with the null flag above them when the column has nulls), shifted up by `shift`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Field {
    /// Index of the column in the caller's list.
    pub(crate) column: usize,
    pub(crate) kind: Kind,
    pub(crate) shift: u32,
    pub(crate) nullable: bool,
    pub(crate) lo: u32,
    pub(crate) len: u32,
    pub(crate) how: ColumnOrder,
}

/// Columns packed into one radix key of 32 or 64 bits, the first field the most significant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Word {
    pub(crate) wide: bool,
    pub(crate) fields: Vec<Field>,
}

impl Word {
    /// The bits the word's fields take (its low bits; the others are zero).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))] // the GPU lexsort's word width
    pub(crate) fn bits(&self) -> u32 {
        self.fields.iter().map(|f| f.len).sum()
    }
}

/// How `plan` cuts the columns' bits into radix words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Packing {
    /// Words of up to 64 bits, each column whole in one word (a column wider than 64 bits, such
    /// as a 64-bit one with nulls, in 64-bit pieces cut from its lowest bit up): the CPU backend sorts 64-bit items as fast as 32-bit ones
    /// per pass, so fewer words win.
    Whole64,
    /// 32-bit words cut from the columns' bits laid end to end, a column split where a word ends:
    /// on the GPU a pass over 32-bit keys with their positions moves 8 bytes an item against 12
    /// for 64-bit keys, and the digits a word leaves empty are skipped.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))] // the GPU lexsort's packing
    Dense32,
}

/// Packs the columns, most significant first, into radix words as `packing` says (a word whose
/// fields take 32 bits or fewer is a 32-bit key). `columns` gives each column's kind, whether it
/// has nulls, and its order.
pub(crate) fn plan(columns: &[(Kind, bool, ColumnOrder)], packing: Packing) -> Vec<Word> {
    let (max, dense) = match packing {
        Packing::Whole64 => (64, false),
        Packing::Dense32 => (32, true),
    };
    // (column, lo, len) pieces of the columns' field bits, most significant first.
    let mut pieces = Vec::new();
    for (column, &(kind, nullable, _)) in columns.iter().enumerate() {
        let full = kind.bits() + nullable as u32;
        match !dense && full > max {
            true => {
                let cuts: Vec<u32> = (0..full).step_by(max as usize).collect();
                pieces.extend(cuts.into_iter().rev().map(|lo| (column, lo, (full - lo).min(max))));
            }
            false => pieces.push((column, 0, full)),
        }
    }
    let mut words: Vec<Vec<Field>> = Vec::new();
    let mut used = max;
    for (column, lo, mut len) in pieces {
        let (kind, nullable, how) = columns[column];
        while len > 0 {
            if used == max || (!dense && used + len > max) {
                words.push(Vec::new());
                used = 0;
            }
            // The piece's top bits go into what the word has left.
            let take = if dense { len.min(max - used) } else { len };
            let field = Field { column, kind, shift: 0, nullable, lo: lo + len - take, len: take, how };
            words.last_mut().expect("pushed above").push(field);
            used += take;
            len -= take;
        }
    }
    words
        .into_iter()
        .map(|mut fields| {
            let total: u32 = fields.iter().map(|f| f.len).sum();
            let mut below = total;
            for f in fields.iter_mut() {
                below -= f.len;
                f.shift = below;
            }
            Word { wide: total > 32, fields }
        })
        .collect()
}

impl Field {
    /// The number key type of the field's column.
    #[inline]
    fn key_type(&self) -> KeyType {
        match self.kind {
            Kind::Number(t) => t,
            Kind::Bytes(_) => unreachable!("a byte column's bits come from `byte_bits`"),
        }
    }

    /// The field's bits for one row of a number column (`raw`: the key's bits, zero-extended;
    /// `null`: the row's flag), already shifted into place.
    #[inline]
    pub(crate) fn bits(&self, raw: u64, null: bool) -> u64 {
        let width = self.kind.bits();
        let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
        // Nulls carry no value bits: all of them tie, and keep their input order.
        let null = self.nullable && null;
        let value = if null { 0 } else { self.value(raw, width, mask) };
        let len_mask = if self.len == 64 { u64::MAX } else { (1u64 << self.len) - 1 };
        if !self.nullable {
            // The slice lies inside the value's bits (lo < width): no flag above them.
            return ((value >> self.lo) & len_mask) << self.shift;
        }
        let last = u128::from(self.how.nulls == NullPlacement::Last);
        let all = (if null { last } else { last ^ 1 }) << width | u128::from(value);
        ((all >> self.lo) as u64 & len_mask) << self.shift
    }

    /// The field's bits for one row of a byte column (`row`: its key, `null`: its flag), shifted
    /// into place: bits `lo..lo + len` of the key read as a big-endian integer, inverted when
    /// descending, with the null flag above the key's bits.
    #[inline]
    pub(crate) fn byte_bits(&self, row: &[u8], null: bool) -> u64 {
        let width = 8 * row.len() as u32;
        let null = self.nullable && null;
        let mut bits = 0;
        if self.lo < width && !null {
            let top = (self.lo + self.len).min(width);
            // The bytes holding bits lo..top: byte 0 holds the top 8 bits of the key.
            let (first, last) = (row.len() - 1 - ((top - 1) / 8) as usize, row.len() - 1 - (self.lo / 8) as usize);
            let gathered = row[first..=last].iter().fold(0u128, |a, &b| a << 8 | u128::from(b));
            let mask = u64::MAX >> (64 - (top - self.lo));
            let v = (gathered >> (self.lo % 8)) as u64 & mask;
            bits = if self.how.descending() { !v & mask } else { v };
        }
        if self.nullable && self.lo + self.len > width {
            let last = u64::from(self.how.nulls == NullPlacement::Last);
            bits |= (if null { last } else { last ^ 1 }) << (width - self.lo);
        }
        bits << self.shift
    }

    /// The key's ordered bits, reversed when descending, NaN placed.
    #[inline]
    fn value(&self, raw: u64, width: u32, mask: u64) -> u64 {
        let mut v = ordered(self.key_type(), raw);
        let nan_at = self.how.nan_at();
        let nan = nan_at != NanAt::Bits && is_nan(self.key_type(), raw);
        if nan_at != NanAt::Bits && is_float(self.key_type()) && v == neg_zero(width) {
            v = neg_zero(width) + 1;
        }
        if self.how.descending() {
            v = !v & mask;
        }
        if nan {
            v = if nan_at == NanAt::Last { mask } else { 0 };
        }
        v
    }
}

pub(crate) fn is_float(t: KeyType) -> bool {
    t.is_float()
}

/// The ordered bits of `-0.0` at `width` bits; `+0.0`'s are the next value.
fn neg_zero(width: u32) -> u64 {
    (1u64 << (width - 1)) - 1
}

/// The key's ordered bits (as `gpusort_cpu::SortKey::to_ordered_bits`) from its raw bits.
#[inline]
fn ordered(t: KeyType, raw: u64) -> u64 {
    let width = 8 * t.size() as u32;
    let sign = 1u64 << (width - 1);
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    match t {
        KeyType::I8 | KeyType::I16 | KeyType::I32 | KeyType::I64 => raw ^ sign,
        _ if is_float(t) && raw & sign != 0 => !raw & mask,
        _ if is_float(t) => raw | sign,
        _ => raw,
    }
}

#[inline]
fn is_nan(t: KeyType, raw: u64) -> bool {
    match t {
        _ if is_float(t) => {
            let sign = 1u64 << (8 * t.size() - 1);
            raw & (sign - 1) > infinity(t)
        }
        _ => false,
    }
}

/// The raw bits of `+inf` of the float key type `t`.
pub(crate) fn infinity(t: KeyType) -> u64 {
    match t {
        KeyType::F16 => 0x7c00,
        KeyType::BF16 => 0x7f80,
        KeyType::F32 => 0x7f80_0000,
        _ => 0x7ff0_0000_0000_0000,
    }
}

/// A key's bits, zero-extended, as `Field::bits` takes them.
pub(crate) trait RawBits: Copy {
    fn raw(self) -> u64;
}

macro_rules! raw_bits {
    ($($t:ty => $u:ty),*) => {$(
        impl RawBits for $t {
            #[inline]
            fn raw(self) -> u64 {
                self as $u as u64
            }
        }
    )*};
}
raw_bits!(u8 => u8, i8 => u8, u16 => u16, i16 => u16, u32 => u32, i32 => u32, u64 => u64, i64 => u64);

impl RawBits for f32 {
    #[inline]
    fn raw(self) -> u64 {
        self.to_bits() as u64
    }
}

impl RawBits for half::f16 {
    #[inline]
    fn raw(self) -> u64 {
        self.to_bits() as u64
    }
}

impl RawBits for half::bf16 {
    #[inline]
    fn raw(self) -> u64 {
        self.to_bits() as u64
    }
}

impl RawBits for f64 {
    #[inline]
    fn raw(self) -> u64 {
        self.to_bits()
    }
}

#[cfg(test)]
mod tests;
