//! Columns already on the device: [`DeviceColumn`] (a cudarc buffer) and [`ForeignColumn`] (another
//! library's array, by address), for `Sorter::lexsort_device` and `Sorter::lexsort_foreign`.

use cudarc::driver::sys::CUdeviceptr;
use cudarc::driver::{CudaSlice, CudaStream, DevicePtr, DeviceRepr, SyncOnDrop};

use super::{check_byte_rows, ColumnOrder, Kind, NullPlacement};
use crate::{FloatOrder, Key, KeyType, Order, SortError};

/// One sort key of [`Sorter::lexsort_device`](crate::Sorter::lexsort_device): a device buffer of
/// keys (numbers, or fixed-width byte strings; only read), its order, its float order and,
/// optionally, a device buffer of null flags (one byte per row, nonzero where the row is null).
#[derive(Clone, Copy, Debug)]
pub struct DeviceColumn<'a> {
    keys: &'a dyn DeviceKeys,
    /// Some(width): `keys` holds byte strings of `width` bytes, one after another.
    byte_width: Option<usize>,
    nulls: Option<&'a CudaSlice<u8>>,
    pub(crate) how: ColumnOrder,
}

/// A device buffer of keys of one type, type-erased.
trait DeviceKeys: std::fmt::Debug + Sync {
    fn key_type(&self) -> KeyType;
    fn len(&self) -> usize;
    fn ptr<'s>(&'s self, stream: &'s CudaStream) -> (CUdeviceptr, SyncOnDrop<'s>);
}

impl<K: Key + DeviceRepr> DeviceKeys for CudaSlice<K> {
    fn key_type(&self) -> KeyType {
        K::TYPE
    }
    fn len(&self) -> usize {
        CudaSlice::len(self)
    }
    fn ptr<'s>(&'s self, stream: &'s CudaStream) -> (CUdeviceptr, SyncOnDrop<'s>) {
        self.device_ptr(stream)
    }
}

impl<'a> DeviceColumn<'a> {
    /// A column of `keys`, ascending, floats as the sorter orders them, no nulls.
    pub fn new<K: Key + DeviceRepr>(keys: &'a CudaSlice<K>) -> DeviceColumn<'a> {
        DeviceColumn { keys, byte_width: None, nulls: None, how: ColumnOrder::default() }
    }

    /// A column of byte strings of `width` bytes each, laid out one after another in `rows`,
    /// ordered as `memcmp` orders them (as [`Column::bytes`](crate::Column::bytes)).
    pub fn bytes(rows: &'a CudaSlice<u8>, width: usize) -> DeviceColumn<'a> {
        DeviceColumn { keys: rows, byte_width: Some(width), nulls: None, how: ColumnOrder::default() }
    }

    /// This column's order (ascending by default).
    pub fn with_order(mut self, order: Order) -> DeviceColumn<'a> {
        self.how.order = order;
        self
    }

    /// How this column orders floats (by default as the sorter does).
    pub fn with_float_order(mut self, floats: FloatOrder) -> DeviceColumn<'a> {
        self.how.floats = Some(floats);
        self
    }

    /// Rows whose byte in `nulls` is nonzero are null: they sort together, in input order, at
    /// `placement`.
    pub fn with_nulls(mut self, nulls: &'a CudaSlice<u8>, placement: NullPlacement) -> DeviceColumn<'a> {
        self.nulls = Some(nulls);
        self.how.nulls = placement;
        self
    }

    /// How many keys the column holds.
    pub fn len(&self) -> usize {
        match self.byte_width {
            Some(width) => self.keys.len().checked_div(width).unwrap_or(0),
            None => self.keys.len(),
        }
    }

    /// Whether the column holds no keys.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The key type of a column of numbers; `None` for byte strings.
    pub fn key_type(&self) -> Option<KeyType> {
        self.byte_width.is_none().then(|| self.keys.key_type())
    }

    pub(crate) fn kind(&self) -> Kind {
        self.byte_width.map_or(Kind::Number(self.keys.key_type()), Kind::Bytes)
    }

    /// `InvalidArgument` for a byte column whose buffer is not whole keys of a width it takes.
    pub(crate) fn check_rows(&self) -> Result<(), SortError> {
        self.byte_width.map_or(Ok(()), |width| check_byte_rows(self.keys.len(), width))
    }

    pub(crate) fn null_len(&self) -> Option<usize> {
        self.nulls.map(CudaSlice::len)
    }

    /// The column's device addresses, read on `stream` while the guards live.
    pub(crate) fn addresses<'s>(
        &'s self,
        stream: &'s CudaStream,
        guards: &mut Vec<SyncOnDrop<'s>>,
    ) -> (CUdeviceptr, CUdeviceptr) {
        let (k, g) = self.keys.ptr(stream);
        guards.push(g);
        let nulls = self.nulls.map_or(0, |m| {
            let (p, g) = m.device_ptr(stream);
            guards.push(g);
            p
        });
        (k, nulls)
    }
}

/// One sort key of [`Sorter::lexsort_foreign`](crate::Sorter::lexsort_foreign): another library's
/// device array of keys, by address, and optionally its null flags (one byte per row, nonzero
/// where null).
#[derive(Clone, Copy, Debug)]
pub struct ForeignColumn {
    pub(crate) keys: CUdeviceptr,
    pub(crate) kind: Kind,
    pub(crate) nulls: Option<CUdeviceptr>,
    pub(crate) how: ColumnOrder,
}

impl ForeignColumn {
    /// Keys of `key_type` at device address `keys`, ascending, floats as the sorter orders them.
    pub fn new(keys: CUdeviceptr, key_type: KeyType) -> ForeignColumn {
        ForeignColumn { keys, kind: Kind::Number(key_type), nulls: None, how: ColumnOrder::default() }
    }

    /// Byte strings of `width` bytes each at device address `rows`, one after another, ordered as
    /// `memcmp` orders them.
    pub fn bytes(rows: CUdeviceptr, width: usize) -> ForeignColumn {
        ForeignColumn { keys: rows, kind: Kind::Bytes(width), nulls: None, how: ColumnOrder::default() }
    }

    /// This column's order (ascending by default).
    pub fn with_order(mut self, order: Order) -> ForeignColumn {
        self.how.order = order;
        self
    }

    /// How this column orders floats (by default as the sorter does).
    pub fn with_float_order(mut self, floats: FloatOrder) -> ForeignColumn {
        self.how.floats = Some(floats);
        self
    }

    /// Null flags at device address `nulls`, one byte per row.
    pub fn with_nulls(mut self, nulls: CUdeviceptr, placement: NullPlacement) -> ForeignColumn {
        self.nulls = Some(nulls);
        self.how.nulls = placement;
        self
    }
}
