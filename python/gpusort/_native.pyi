# Stubs of the extension module; the documented API is gpusort.Sorter (_sorter.py).
from typing import Any, Callable, Dict, Optional, Sequence, Tuple

import numpy as np
import numpy.typing as npt

__version__: str
# The key types, in the library's order: (NumPy dtype name, key name of the *_device methods,
# itemsize, whether CUDA arrays of it sort on the device, whether it is a float type).
# gpusort/_key_types.py reads it.
KEY_TYPES: Tuple[Tuple[str, str, int, bool, bool], ...]

class Sorter:
    def __init__(
        self,
        backend: str,
        algorithm_name: str,
        crossover: Optional[int],
        device_memory_limit: Optional[int],
        device: Optional[int],
        devices: Optional[Sequence[int]] = None,
        multi_gpu_from: Optional[int] = None,
    ) -> None: ...
    @property
    def backend(self) -> str: ...
    @property
    def algorithm(self) -> str: ...
    @property
    def device_memory_limit(self) -> Optional[int]: ...
    @property
    def device(self) -> Optional[int]: ...
    @property
    def multi_gpu_from(self) -> Optional[int]: ...
    def describe(self) -> str: ...
    def release_memory(self) -> None: ...
    # Host (NumPy) key dtypes: those of KEY_TYPES; the *_device methods take the key names of
    # those that sort on the device.
    # float_order: "total", "nan_last", "nan_first" or "nan_largest" (gpusort/_lexsort.py).
    def sort(self, a: Any, descending: bool, float_order: str) -> None: ...
    # values: NumPy uint32, int32, float32, uint64, int64 or float64 (host arrays; the device
    # path, sort_pairs_device, takes 32-bit values only).
    def sort_pairs(self, keys: Any, values: Any, descending: bool) -> None: ...
    def sort_segments(
        self, keys: Any, offsets: npt.NDArray[np.uint64], values: Optional[Any], descending: bool
    ) -> None: ...
    # rows: the uint8 view of a 1-D structured array; key: the key field's NumPy dtype name.
    def sort_records(self, rows: npt.NDArray[np.uint8], size: int, offset: int, key: str, descending: bool) -> None: ...
    def sort_records_by_bytes(
        self, rows: npt.NDArray[np.uint8], size: int, offset: int, width: int, descending: bool
    ) -> None: ...
    # Files of records (gpusort/_files.py resolves the layout): key "bytes" (key_size bytes) or a
    # key type's NumPy dtype name (big_endian: its byte order). progress(phase, merge_pass, done,
    # total, merge_passes) or None; the report's fields as a dict, times in seconds.
    def sort_file(
        self,
        input: str,
        output: str,
        record_size: int,
        key_offset: int,
        key: str,
        key_size: int,
        big_endian: bool,
        descending: bool,
        memory_limit: Optional[int],
        temp_dir: Optional[str],
        progress: Optional[Callable[[str, int, int, int, int], None]],
    ) -> Dict[str, Any]: ...
    # rows: the uint8 view of a writable 1-D array of records, sorted in place.
    def sort_mapped(
        self,
        rows: npt.NDArray[np.uint8],
        record_size: int,
        key_offset: int,
        key: str,
        key_size: int,
        big_endian: bool,
        descending: bool,
        memory_limit: Optional[int],
        temp_dir: Optional[str],
        progress: Optional[Callable[[str, int, int, int, int], None]],
    ) -> Dict[str, Any]: ...
    # (records, first_unsorted or None, checksum)
    def check_file(
        self,
        path: str,
        record_size: int,
        key_offset: int,
        key: str,
        key_size: int,
        big_endian: bool,
        descending: bool,
    ) -> Tuple[int, Optional[int], int]: ...
    def argsort(self, keys: Any, stable: bool, descending: bool, float_order: str) -> npt.NDArray[np.int64]: ...
    # Columns, the most significant first: (keys, descending, float order, null mask (bool or
    # uint8) or None, nulls_first); keys 1-D contiguous arrays of a key dtype.
    def lexsort(
        self, columns: Sequence[Tuple[Any, bool, str, Optional[Any], bool]]
    ) -> npt.NDArray[np.int64]: ...
    def top_k(self, a: Any, k: int, descending: bool) -> Tuple[npt.NDArray[Any], npt.NDArray[np.int64]]: ...
    def sort_device(self, ptr: int, n: int, key: str, stream: int, descending: bool) -> None: ...
    def sort_pairs_device(
        self, keys: int, values: int, n: int, key: str, stream: int, descending: bool
    ) -> None: ...
    # out: the device address of n int64 indices.
    def argsort_device(
        self, keys: int, n: int, key: str, out: int, stream: int, descending: bool, float_order: str
    ) -> None: ...
    # Columns, the most significant first: (keys address, key name (every key type), descending,
    # float order, null mask address or 0, nulls_first); out: the address of n int64 indices.
    def lexsort_device(
        self, columns: Sequence[Tuple[int, str, bool, str, int, bool]], n: int, out: int, stream: int
    ) -> None: ...
    # values 0: keys alone; offsets: the device address of num_offsets uint64 (or int64) offsets.
    def sort_segments_device(
        self,
        keys: int,
        values: int,
        n: int,
        key: str,
        offsets: int,
        num_offsets: int,
        stream: int,
        descending: bool,
    ) -> None: ...
    def top_k_device(
        self,
        ptr: int,
        n: int,
        key: str,
        k: int,
        out_keys: int,
        out_indices: int,
        stream: int,
        descending: bool,
    ) -> None: ...

# The calls for device programs (src/embed.rs): scratch is the caller's (address, bytes).
def prepare(sorter: Sorter) -> None: ...
def scratch_bytes(sorter: Sorter, call: str, key: str, n: int, descending: bool, k: int) -> int: ...
def sort_device_scratch(
    sorter: Sorter, ptr: int, n: int, key: str, stream: int, descending: bool, scratch: int, scratch_bytes: int
) -> None: ...
def argsort_device_scratch(
    sorter: Sorter,
    keys: int,
    n: int,
    key: str,
    out: int,
    stream: int,
    descending: bool,
    scratch: int,
    scratch_bytes: int,
) -> None: ...
def top_k_device_scratch(
    sorter: Sorter,
    keys: int,
    n: int,
    key: str,
    k: int,
    out: Tuple[int, int],
    stream: int,
    descending: bool,
    scratch: int,
    scratch_bytes: int,
) -> None: ...
