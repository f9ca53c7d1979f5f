"""Sorts of files of fixed-size records (:meth:`gpusort.Sorter.sort_file`,
:meth:`gpusort.Sorter.check_file`): the record layout worked out from the caller's ``key``,
``dtype`` and sizes, memory limits such as ``"3GiB"``, and the results."""

from __future__ import annotations

import dataclasses
import decimal
import operator
import os
import re
import sys
from typing import Any, Callable, NamedTuple, Optional, Tuple, Union

import numpy as np

from ._key_types import HOST_DTYPE_NAMES, KEY_TYPES

# What ``os.fspath`` takes.
PathLike = Union[str, bytes, "os.PathLike[str]", "os.PathLike[bytes]"]


@dataclasses.dataclass(frozen=True)
class FileSortReport:
    """What :meth:`gpusort.Sorter.sort_file` did, times in seconds.

    The run phase reads the input in runs that fit the memory limit, sorts each on the sorter's
    backend and writes it to a scratch folder; the merge phase merges the runs into the output. An
    input that fits the limit is one run, written straight to the output (``merge_passes`` 0). In
    each phase reading, sorting (merging) and writing overlap: each is the time its thread was
    busy; ``run_phase`` and ``merge_phase`` are wall times.
    """

    records: int
    """Records sorted."""
    runs: int
    """Runs the input was cut into (1: sorted in memory; 0 for an empty file)."""
    merge_passes: int
    """Merge passes over the data (0 for one run)."""
    backend: Optional[str]
    """The backend that sorted the runs: ``"cpu"`` or ``"cuda"``."""
    memory_budget: int
    """The host-memory budget the sort kept to, in bytes."""
    run_phase: float
    merge_phase: float
    reading: float
    sorting: float
    writing: float
    merge_reading: float
    merging: float
    merge_writing: float

    @property
    def elapsed(self) -> float:
        """Seconds from the first read to the output's rename: ``run_phase + merge_phase``."""
        return self.run_phase + self.merge_phase


class FileCheck(NamedTuple):
    """What :meth:`gpusort.Sorter.check_file` found: ``records, is_sorted, first_unsorted,
    checksum = sorter.check_file(...)``."""

    records: int
    """Records in the file."""
    is_sorted: bool
    """Whether every key is in order after the one before it."""
    first_unsorted: Optional[int]
    """The first record (from 0) whose key is out of order after the one before it; None when
    sorted."""
    checksum: int
    """The sum of a 64-bit hash of every record, modulo 2**64: the same for any order of the same
    records, so a file's and its sorted copy's agree when the sort lost and changed none."""


class FileProgress(NamedTuple):
    """How far a file sort has come, for the ``progress`` callback of
    :meth:`gpusort.Sorter.sort_file`: ``done`` of ``total`` bytes of the input through ``phase``
    (``"runs"`` or ``"merge"``; merge pass ``merge_pass``, from 1, of ``merge_passes``)."""

    phase: str
    merge_pass: int
    done: int
    total: int
    merge_passes: int


# Byte-size suffixes, as Dask's parse_bytes reads them: K, M, G, T (and KB, ...) powers of 1000,
# Ki, Mi, Gi, Ti (and KiB, ...) powers of 1024.
_UNITS = {"": 1, "b": 1}
for _i, _p in enumerate("kmgtp", 1):
    _UNITS[_p] = _UNITS[_p + "b"] = 1000**_i
    _UNITS[_p + "i"] = _UNITS[_p + "ib"] = 1024**_i
_SIZE = re.compile(r"\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*")


def memory_limit(limit: Any) -> Optional[int]:
    """``limit`` in bytes: None, a non-negative integer, or a string such as ``"3G"`` (3 * 10**9),
    ``"512MiB"`` (512 * 2**20) or ``"1.5 GB"``; ``TypeError`` or ``ValueError`` otherwise."""
    if limit is None:
        return None
    if isinstance(limit, str):
        m = _SIZE.fullmatch(limit)
        unit = _UNITS.get(m.group(2).lower()) if m else None
        if m is None or unit is None:
            raise ValueError(
                f"memory_limit: {limit!r} is not a size such as '512MiB', '3G' or '1.5 GB' (K, M, G, T: powers "
                "of 1000; Ki, Mi, Gi, Ti: of 1024)"
            )
        return int(decimal.Decimal(m.group(1)) * unit)
    if isinstance(limit, bool):
        raise TypeError("memory_limit: bytes (an int) or a size string such as '3GiB', not a bool")
    try:
        n = operator.index(limit)
    except TypeError:
        raise TypeError(
            f"memory_limit: bytes (an int) or a size string such as '3GiB', not {type(limit).__name__}"
        ) from None
    if n < 0:
        raise ValueError(f"memory_limit: {n} is negative")
    return n


def fspath(path: Any, what: str) -> str:
    """``path`` (str, bytes or os.PathLike) as a str for the native module: bytes through
    ``os.fsdecode``, which gives back the same bytes on the way out."""
    try:
        p = os.fspath(path)
    except TypeError:
        raise TypeError(f"{what}: a path (str, bytes or os.PathLike) is required, not {type(path).__name__}") from None
    return os.fsdecode(p) if isinstance(p, bytes) else p


def _size(value: Any, what: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"{what}: an integer is required, not bool")
    try:
        n = operator.index(value)
    except TypeError:
        raise TypeError(f"{what}: an integer is required, not {type(value).__name__}") from None
    if n < 0:
        raise ValueError(f"{what}: {n} is negative")
    return n


_KEY_ITEMSIZE = {k.numpy_dtype: k.itemsize for k in KEY_TYPES}
_KEY_NAMES = ", ".join(k.numpy_dtype for k in KEY_TYPES)


class _Key(NamedTuple):
    """A resolved key: ``"bytes"`` or a key type's NumPy dtype name, its size, and for numbers
    whether they are stored big-endian (None: the caller's ``big_endian``, else native)."""

    name: str
    size: int
    big_endian: Optional[bool]


def _key_of_dtype(dt: np.dtype, what: str) -> _Key:
    """The key a field or key of dtype ``dt`` is: a key type in either byte order, or bytes
    (``S``, ``V`` without fields, ``u1`` / ``i1`` sub-arrays) compared as ``memcmp`` does."""
    if dt.subdtype is not None:
        base, _ = dt.subdtype
        if base.kind in "uiSV" and base.itemsize == 1 and base.fields is None:
            return _Key("bytes", dt.itemsize, None)
        raise TypeError(f"{what}: a sub-array of {base} is not a key; sub-arrays of uint8 sort as bytes")
    if dt.fields is not None:
        raise TypeError(f"{what}: dtype {dt} has fields of its own; name one field of the record as the key")
    if dt.name in HOST_DTYPE_NAMES and dt.kind != "S":
        # "<" or ">": the dtype says (NumPy writes a native order as "="); "=" and "|" leave it to
        # big_endian, else native.
        return _Key(dt.name, dt.itemsize, dt.byteorder == ">" if dt.byteorder in "<>" else None)
    if dt.kind in "SV" and dt.itemsize > 0 and not dt.hasobject:
        return _Key("bytes", dt.itemsize, None)
    raise TypeError(
        f"{what}: dtype {dt} is not a key: a number key is one of {_KEY_NAMES} (either byte order), "
        "a byte-string key 'bytes', an 'S<n>' dtype or a uint8 sub-array"
    )


def _key_of(key: Any, what: str) -> _Key:
    """``key`` (``"bytes"`` or anything ``numpy.dtype`` takes) as a key."""
    if isinstance(key, str):
        if key == "bytes":
            return _Key("bytes", 0, None)
        if key in HOST_DTYPE_NAMES:
            # By name, even where NumPy has no such dtype (bfloat16 without ml_dtypes).
            try:
                return _key_of_dtype(np.dtype(key), what)
            except TypeError:
                return _Key(key, _KEY_ITEMSIZE[key], None)
    try:
        dt = np.dtype(key)
    except TypeError:
        raise TypeError(
            f"{what}: {key!r} is not 'bytes', a field name of dtype, nor a dtype ({_KEY_NAMES}, 'S<n>')"
        ) from None
    return _key_of_dtype(dt, what)


class Layout(NamedTuple):
    """The arguments of the native ``sort_file`` / ``check_file``: record size, key offset, key
    name ("bytes" or a dtype name), key size (bytes keys), big-endian (number keys)."""

    record_size: int
    key_offset: int
    key: str
    key_size: int
    big_endian: bool


def layout(
    record_size: Optional[int],
    key_offset: int,
    key: Any,
    key_size: Optional[int],
    dtype: Any,
    big_endian: Optional[bool],
) -> Layout:
    """The layout :meth:`gpusort.Sorter.sort_file` documents, checked; whether the key fits in a
    record the library checks (``InvalidArgumentError``)."""
    offset = _size(key_offset, "key_offset")
    size = None if record_size is None else _size(record_size, "record_size")
    if dtype is not None:
        try:
            rec = np.dtype(dtype)
        except TypeError:
            raise TypeError(f"dtype: {dtype!r} is not a dtype") from None
        if rec.hasobject:
            raise TypeError(f"dtype: {rec} holds Python objects, which a file cannot")
        if size is not None and size != rec.itemsize:
            raise ValueError(f"record_size: {size}, but dtype {rec} has records of {rec.itemsize} bytes")
        size = rec.itemsize
        fields = rec.fields
        if fields is not None and isinstance(key, str) and key in fields:
            if offset:
                raise ValueError(f"key_offset: the field {key!r} says where the key is; leave key_offset out")
            field, offset = fields[key][0], fields[key][1]
            k = _key_of_dtype(field, f"key: field {key!r}")
        elif key is None and fields is not None:
            raise ValueError(f"key: name the field of dtype {rec} to sort by ({', '.join(fields)})")
        elif key is None:
            if offset:
                raise ValueError("key_offset: with a dtype of no fields, each record is one key; leave key_offset out")
            k = _key_of_dtype(rec, "dtype")
        elif fields is not None and isinstance(key, str) and key != "bytes":
            try:
                k = _key_of(key, "key")
            except TypeError:
                raise ValueError(f"key: no field {key!r} in dtype {rec}; fields: {', '.join(fields)}") from None
        else:
            k = _key_of(key, "key")
    else:
        k = _Key("bytes", 0, None) if key is None else _key_of(key, "key")
    if k.name == "bytes":
        length = k.size
        if key_size is not None:
            ks = _size(key_size, "key_size")
            if length and ks != length:
                raise ValueError(f"key_size: {ks}, but the key's dtype has {length} bytes")
            length = ks
        if size is None:
            if not length or offset:
                raise ValueError("record_size: required for byte-string keys (or give dtype)")
            size = length
        if not length:
            # The rest of the record from the key's offset (the library refuses an empty key).
            length = max(size - offset, 0)
        return Layout(size, offset, "bytes", length, False)
    if key_size is not None and _size(key_size, "key_size") != k.size:
        raise ValueError(f"key_size: {key_size}, but a {k.name} key has {k.size} bytes (leave key_size out)")
    if big_endian is not None and not isinstance(big_endian, (bool, np.bool_)):
        raise TypeError(f"big_endian: True, False or None, not {type(big_endian).__name__}")
    if k.big_endian is not None and big_endian is not None and bool(big_endian) != k.big_endian and k.size > 1:
        raise ValueError(
            f"big_endian={bool(big_endian)}, but the key's dtype is {'big' if k.big_endian else 'little'}-endian"
        )
    if size is None:
        if offset:
            raise ValueError("record_size: required when the key does not start the record")
        size = k.size
    if k.big_endian is not None:
        big = k.big_endian
    elif big_endian is not None:
        big = bool(big_endian)
    else:
        big = sys.byteorder == "big"
    return Layout(size, offset, k.name, k.size, big)


def progress_callback(progress: Optional[Callable[[FileProgress], Any]]) -> Optional[Callable[..., None]]:
    """The native module's callback for the caller's ``progress`` (called with a
    :class:`FileProgress`; whatever it returns is ignored, an exception stops the sort)."""
    if progress is None:
        return None
    if not callable(progress):
        raise TypeError(f"progress: a callable or None, not {type(progress).__name__}")

    def call(*args: Any) -> None:
        progress(FileProgress(*args))

    return call


def report(d: dict) -> FileSortReport:
    return FileSortReport(**d)


def check(result: Tuple[int, Optional[int], int]) -> FileCheck:
    records, first, checksum = result
    return FileCheck(records, first is None, first, checksum)
