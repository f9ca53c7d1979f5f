//! What a file of records holds: the record size and the key field, and the key's ordered
//! words. Every key becomes unsigned words that compare as the key does in the sorter's order
//! (a number's ordered bits, a byte string's big-endian 8-byte pieces, inverted when
//! descending), so runs sort as plain unsigned keys and the merge compares words.

use crate::{with_key_type, Key, KeyType, Order, SortError};

/// The key field of a record: a number of one of the key types, little- or big-endian, or a
/// byte string compared as `memcmp` does (unsigned bytes, first byte most significant).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum FileKey {
    /// A number of this type stored least significant byte first (x86 and ARM memory order).
    LittleEndian(KeyType),
    /// A number of this type stored most significant byte first (network order).
    BigEndian(KeyType),
    /// This many bytes, compared byte by byte as unsigned numbers.
    Bytes(usize),
}

impl FileKey {
    /// Bytes of the field.
    #[must_use]
    pub fn len(self) -> usize {
        match self {
            FileKey::LittleEndian(t) | FileKey::BigEndian(t) => t.size(),
            FileKey::Bytes(n) => n,
        }
    }

    /// Whether the field has no bytes (a zero-length byte string, which [`RecordLayout::new`]
    /// refuses).
    #[must_use]
    pub fn is_empty(self) -> bool {
        self.len() == 0
    }
}

/// Fixed-size records with a key field at a fixed offset: the layout [`Sorter::sort_file`]
/// sorts.
///
/// ```
/// use gpusort::{FileKey, KeyType, RecordLayout};
/// // The Sort Benchmark's records: 100 bytes, a 10-byte key first.
/// let gray = RecordLayout::new(100, 0, FileKey::Bytes(10))?;
/// assert_eq!(gray.record_size(), 100);
/// // A raw file of little-endian u64 keys.
/// assert_eq!(RecordLayout::keys(KeyType::U64).record_size(), 8);
/// # Ok::<(), gpusort::SortError>(())
/// ```
///
/// [`Sorter::sort_file`]: crate::Sorter::sort_file
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct RecordLayout {
    record_size: usize,
    key_offset: usize,
    key: FileKey,
}

impl RecordLayout {
    /// Records of `record_size` bytes whose key is `key` at byte `key_offset`. `InvalidArgument`
    /// when the key is empty or runs past the end of a record.
    pub fn new(record_size: usize, key_offset: usize, key: FileKey) -> Result<RecordLayout, SortError> {
        if key.is_empty() {
            return Err(SortError::InvalidArgument("a byte-string key needs at least one byte".into()));
        }
        if key_offset.checked_add(key.len()).is_none_or(|end| end > record_size) {
            return Err(SortError::InvalidArgument(format!(
                "the key ({} bytes at offset {key_offset}) runs past the end of a {record_size}-byte record",
                key.len()
            )));
        }
        Ok(RecordLayout { record_size, key_offset, key })
    }

    /// A raw file of little-endian keys of type `key_type`, nothing else.
    #[must_use]
    pub fn keys(key_type: KeyType) -> RecordLayout {
        RecordLayout { record_size: key_type.size(), key_offset: 0, key: FileKey::LittleEndian(key_type) }
    }

    /// A raw file of [`Kvp`](crate::Kvp)s: 8-byte records, a little-endian `u32` key first.
    #[must_use]
    pub fn kvp() -> RecordLayout {
        RecordLayout { record_size: 8, key_offset: 0, key: FileKey::LittleEndian(KeyType::U32) }
    }

    /// Bytes per record.
    #[must_use]
    pub fn record_size(&self) -> usize {
        self.record_size
    }

    /// Where the key starts in a record.
    #[must_use]
    pub fn key_offset(&self) -> usize {
        self.key_offset
    }

    /// The key field.
    #[must_use]
    pub fn key(&self) -> FileKey {
        self.key
    }
}

/// A layout's key as ordered words in one order: `words()` u64 words per record, which the merge
/// compares; the run sort sorts the first as a u32 or u64 key, or a byte key longer than 8 bytes
/// as a byte column.
#[derive(Clone, Copy)]
pub(crate) struct KeyWords {
    offset: usize,
    key: FileKey,
    flip: bool,
    /// The number keys' field to ordered bits (the key list made generic).
    number: fn(&[u8]) -> u64,
}

/// The width of the key the run sort sorts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RunKey {
    /// One word of at most 32 significant bits.
    U32,
    /// One word.
    U64,
    /// A byte string of more than 8 bytes: sorted as one byte column of a lexsort.
    Words,
}

impl KeyWords {
    pub(crate) fn new(layout: &RecordLayout, order: Order) -> KeyWords {
        let number = match layout.key {
            FileKey::LittleEndian(t) => with_key_type!(t, K => number_bits::<K, false> as fn(&[u8]) -> u64),
            FileKey::BigEndian(t) => with_key_type!(t, K => number_bits::<K, true> as fn(&[u8]) -> u64),
            FileKey::Bytes(_) => (|_: &[u8]| 0) as fn(&[u8]) -> u64,
        };
        KeyWords { offset: layout.key_offset, key: layout.key, flip: order == Order::Descending, number }
    }

    /// u64 words per key.
    pub(crate) fn words(&self) -> usize {
        match self.key {
            FileKey::Bytes(n) => n.div_ceil(8),
            _ => 1,
        }
    }

    pub(crate) fn run_key(&self) -> RunKey {
        match self.key {
            FileKey::LittleEndian(t) | FileKey::BigEndian(t) if t.size() <= 4 => RunKey::U32,
            FileKey::LittleEndian(_) | FileKey::BigEndian(_) => RunKey::U64,
            FileKey::Bytes(n) if n <= 4 => RunKey::U32,
            FileKey::Bytes(n) if n <= 8 => RunKey::U64,
            FileKey::Bytes(_) => RunKey::Words,
        }
    }

    /// The key field of `record`, as the file holds it.
    #[inline]
    pub(crate) fn field<'r>(&self, record: &'r [u8]) -> &'r [u8] {
        &record[self.offset..self.offset + self.key.len()]
    }

    /// Bytes of the key field.
    pub(crate) fn field_len(&self) -> usize {
        self.key.len()
    }

    /// The order the words hold.
    pub(crate) fn order(&self) -> Order {
        if self.flip {
            Order::Descending
        } else {
            Order::Ascending
        }
    }

    /// Word `i` of `record`'s key: the ordered bits of a number, or bytes `8i..8i+8` of a byte
    /// string as a big-endian integer (the last piece holds only the bytes left, so that it is
    /// as narrow as they are). Inverted within its width when descending.
    #[inline]
    pub(crate) fn word(&self, record: &[u8], i: usize) -> u64 {
        let field = self.field(record);
        let (bits, width) = match self.key {
            FileKey::Bytes(n) => match field.get(8 * i..8 * i + 8) {
                Some(piece) => (u64::from_be_bytes(piece.try_into().expect("8 bytes")), 8),
                None => {
                    let piece = &field[8 * i..n];
                    (piece.iter().fold(0u64, |w, &b| (w << 8) | u64::from(b)), piece.len())
                }
            },
            FileKey::LittleEndian(t) | FileKey::BigEndian(t) => ((self.number)(field), t.size().max(4)),
        };
        match self.flip {
            true => !bits & (u64::MAX >> (64 - 8 * width)),
            false => bits,
        }
    }

    /// Every word of `record`'s key into `out` (`words()` of them).
    #[inline]
    pub(crate) fn all_words(&self, record: &[u8], out: &mut [u64]) {
        out.iter_mut().enumerate().for_each(|(i, w)| *w = self.word(record, i));
    }
}

/// A number key's field as its ordered bits: read in the file's byte order, then the key's
/// order-preserving map (floats in `total_cmp` order).
fn number_bits<K: Key, const BIG_ENDIAN: bool>(field: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    bytes[..size_of::<K>()].copy_from_slice(&field[..size_of::<K>()]);
    if BIG_ENDIAN {
        bytes[..size_of::<K>()].reverse();
    }
    // SAFETY: `bytes` holds at least `size_of::<K>()` bytes, and every bit pattern is a key
    // (integers and IEEE floats).
    let key: K = unsafe { bytes.as_ptr().cast::<K>().read_unaligned() };
    gpusort_cpu::SortKey::to_ordered_bits(key).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(layout: &RecordLayout, order: Order, record: &[u8]) -> Vec<u64> {
        let k = KeyWords::new(layout, order);
        let mut out = vec![0; k.words()];
        k.all_words(record, &mut out);
        out
    }

    #[test]
    fn layouts_whose_key_does_not_fit_are_refused() {
        assert!(RecordLayout::new(10, 0, FileKey::Bytes(0)).is_err());
        assert!(RecordLayout::new(10, 1, FileKey::Bytes(10)).is_err());
        assert!(RecordLayout::new(10, usize::MAX, FileKey::Bytes(1)).is_err());
        assert!(RecordLayout::new(7, 0, FileKey::LittleEndian(KeyType::U64)).is_err());
        assert!(RecordLayout::new(8, 0, FileKey::BigEndian(KeyType::U64)).is_ok());
    }

    #[test]
    fn words_order_as_the_keys_do() {
        let be = RecordLayout::new(4, 0, FileKey::BigEndian(KeyType::I32)).unwrap();
        let le = RecordLayout::new(4, 0, FileKey::LittleEndian(KeyType::I32)).unwrap();
        let xs = [i32::MIN, -7, -1, 0, 1, 9, i32::MAX];
        for order in [Order::Ascending, Order::Descending] {
            let b: Vec<_> = xs.iter().map(|x| words(&be, order, &x.to_be_bytes())).collect();
            let l: Vec<_> = xs.iter().map(|x| words(&le, order, &x.to_le_bytes())).collect();
            assert_eq!(b, l);
            let sorted = b.windows(2).all(|w| w[0] < w[1]);
            assert_eq!(sorted, order == Order::Ascending, "{order:?}");
            assert!(order == Order::Ascending || b.windows(2).all(|w| w[0] > w[1]));
        }
        let f = RecordLayout::keys(KeyType::F64);
        let fs = [f64::NEG_INFINITY, -0.0, 0.0, 1.5, f64::NAN];
        let w: Vec<_> = fs.iter().map(|x| words(&f, Order::Ascending, &x.to_le_bytes())).collect();
        assert!(w.windows(2).all(|p| p[0] < p[1]));
    }

    #[test]
    fn byte_strings_compare_as_memcmp_in_both_orders() {
        let layout = RecordLayout::new(12, 1, FileKey::Bytes(10)).unwrap();
        let keys: [&[u8; 10]; 4] = [
            b"\0\0\0\0\0\0\0\0\0\0",
            b"abcdefgh\0\x01",
            b"abcdefgh\xff\0",
            b"\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff",
        ];
        let rec = |k: &[u8; 10]| [&[7u8][..], &k[..], &[9u8]].concat();
        for order in [Order::Ascending, Order::Descending] {
            let w: Vec<_> = keys.iter().map(|k| words(&layout, order, &rec(k))).collect();
            assert!(w.iter().all(|w| w.len() == 2 && w[1] <= 0xffff));
            match order {
                Order::Ascending => assert!(w.windows(2).all(|p| p[0] < p[1])),
                Order::Descending => assert!(w.windows(2).all(|p| p[0] > p[1])),
            }
        }
        assert_eq!(KeyWords::new(&layout, Order::Ascending).run_key(), RunKey::Words);
    }
}
