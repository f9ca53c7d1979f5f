"""The file sorts of :class:`gpusort.Sorter` (``sort_file``, ``sort_mapped``, ``check_file``):
files of fixed-size records larger than memory, and memory-mapped arrays sorted in place."""

from __future__ import annotations

import os
from typing import Any, Callable, Optional

import numpy as np

from . import _device, _files
from ._files import FileCheck, FileProgress, FileSortReport, PathLike
from ._native import Sorter as _NativeSorter


class FileSorts:
    """The file-sort methods :class:`gpusort.Sorter` inherits; they sort with its ``_native``."""

    __slots__ = ()
    _native: _NativeSorter

    def sort_file(
        self,
        input: PathLike,
        output: PathLike,
        *,
        record_size: Optional[int] = None,
        key_offset: int = 0,
        key: Any = None,
        key_size: Optional[int] = None,
        dtype: Any = None,
        big_endian: Optional[bool] = None,
        descending: bool = False,
        memory_limit: Any = None,
        temp_dir: Optional[PathLike] = None,
        progress: Optional[Callable[[FileProgress], Any]] = None,
    ) -> FileSortReport:
        """Sorts the file ``input`` of fixed-size records by their key into the file ``output``
        (which may be ``input`` itself), stably: records with equal keys keep their input order,
        ``descending`` too. Returns a :class:`gpusort.FileSortReport` (records, runs, merge
        passes, the backend, the times of each part in seconds).

        The records are ``record_size`` bytes each, one after the other (a file of a NumPy
        structured array written with ``ndarray.tofile``, C structs written with ``fwrite``, the
        Sort Benchmark's 100-byte records), and the key is:

        - ``key=None`` or ``"bytes"``: ``key_size`` bytes at ``key_offset`` (by default the rest
          of the record), compared as ``memcmp`` and NumPy's ``S`` dtypes compare them;
        - a number dtype (``"uint32"``, ``np.int64``, ``np.dtype(">f8")``, ``"float16"``,
          ``"bfloat16"``; every key dtype) at ``key_offset``, stored little-endian (as x86 and
          ARM hold it) unless ``big_endian`` or the dtype's byte order (``">u8"``) says
          big-endian; floats in IEEE total order (-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf <
          +NaN); ``record_size`` defaults to the key's size (a raw file of keys);
        - an ``"S<n>"`` dtype or a uint8 sub-array: an ``n``-byte string;
        - with ``dtype=`` a structured dtype, the name of one of its fields: ``record_size`` is
          ``dtype.itemsize`` and ``key_offset`` the field's (its dtype is the key's, byte order
          included). ``dtype`` without fields makes each record one key of that dtype.

        The input may be far larger than memory. It is read in runs that fit ``memory_limit``
        (bytes, or a size such as ``"3G"``, ``"512MiB"``; by default half the memory available to
        the process), each sorted on this sorter's backend (the GPU when one is usable) while the
        next is read, and written to a scratch folder made inside ``temp_dir`` (by default the
        output's folder; the runs take as much disk as the input), then merged into the output.
        An input that fits the limit is sorted in memory and written once. The GIL is released
        throughout; ``progress``, when given, is called with a :class:`gpusort.FileProgress` as
        each run is sorted and as the merge writes, and an exception it raises stops the sort
        and is raised here. So does Ctrl-C (``KeyboardInterrupt``).

        The input is only read. The output is written under a temporary name beside ``output``
        and renamed when complete: a failed or interrupted sort leaves no partial file and an
        existing ``output`` unchanged, and removes its scratch files.

        A file that is not a whole number of records, or a key that does not fit in a record,
        raises :class:`gpusort.InvalidArgumentError` (a ``ValueError``), as does a memory limit
        below what a few records need (about 512 KiB); a file that cannot be read or written
        :class:`gpusort.FileSortError` (an ``OSError``, with ``errno``, naming the file). Keys
        that are not key dtypes raise ``TypeError``, other bad arguments ``ValueError``.

        >>> import numpy as np, gpusort, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "keys")
        >>> np.array([3, 1, 2], dtype=">u4").tofile(path)
        >>> r = gpusort.Sorter("cpu").sort_file(path, path, key=">u4")
        >>> r.records, r.runs
        (3, 1)
        >>> np.fromfile(path, dtype=">u4")
        array([1, 2, 3], dtype='>u4')
        """
        lay = _files.layout(record_size, key_offset, key, key_size, dtype, big_endian)
        d = self._native.sort_file(
            _files.fspath(input, "input"),
            _files.fspath(output, "output"),
            *lay,
            bool(descending),
            _files.memory_limit(memory_limit),
            None if temp_dir is None else _files.fspath(temp_dir, "temp_dir"),
            _files.progress_callback(progress),
        )
        return _files.report(d)

    def sort_mapped(
        self,
        a: Any,
        key: Any = None,
        *,
        big_endian: Optional[bool] = None,
        descending: bool = False,
        memory_limit: Any = None,
        temp_dir: Optional[PathLike] = None,
        progress: Optional[Callable[[FileProgress], Any]] = None,
    ) -> FileSortReport:
        """Sorts the 1-D NumPy array ``a`` in place, through the same runs and merge as
        :meth:`sort_file`: for a ``numpy.memmap`` of a file larger than memory, which an
        in-memory sort would page in and out at random. ``a`` is a structured array sorted by its
        field ``key``, or an array of keys (``key`` left out; number dtypes in either byte order,
        ``S<n>`` byte strings). Stable, ``descending`` too.

        The runs are copied out of ``a``, sorted on this sorter's backend and written to a scratch
        folder inside ``temp_dir`` (by default the memmap's folder, else the system's temporary
        folder); the last merge writes the sorted records back into ``a`` from the start. ``a``
        is not written until every run is on disk: a failure or an interruption before then
        leaves it untouched; once the last merge has begun it finishes (``progress`` and Ctrl-C
        wait for it). ``memory_limit`` and ``progress`` as :meth:`sort_file` takes them.

        >>> import numpy as np, gpusort, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "rows")
        >>> rows = np.memmap(path, dtype=[("id", "<u4"), ("w", "<f4")], mode="w+", shape=3)
        >>> rows["id"] = [3, 1, 2]
        >>> gpusort.Sorter("cpu").sort_mapped(rows, "id").records
        3
        >>> rows["id"]
        memmap([1, 2, 3], dtype=uint32)
        """
        if _device.is_device(a) or not isinstance(a, np.ndarray):
            raise TypeError(f"a: sort_mapped takes a NumPy array (numpy.memmap included), not {type(a).__name__}")
        if a.ndim != 1:
            raise ValueError(f"a: a 1-D array is required; this one has shape {a.shape}")
        if not a.flags.c_contiguous:
            raise ValueError("a: not contiguous; sort_mapped sorts the array's own memory")
        if not a.flags.writeable:
            raise ValueError("a: read-only (a memmap opened with mode='r'); open it with mode='r+'")
        if key is not None and a.dtype.fields is None:
            raise TypeError(f"key: dtype {a.dtype} has no fields; leave key out to sort the array's values")
        lay = _files.layout(None, 0, key, None, a.dtype, big_endian)
        if temp_dir is None and isinstance(a, np.memmap) and getattr(a, "filename", None):
            temp_dir = os.path.dirname(a.filename)
        rows = a.view(np.uint8).reshape(-1) if a.size else np.zeros(0, dtype=np.uint8)
        d = self._native.sort_mapped(
            rows,
            *lay,
            bool(descending),
            _files.memory_limit(memory_limit),
            None if temp_dir is None else _files.fspath(temp_dir, "temp_dir"),
            _files.progress_callback(progress),
        )
        return _files.report(d)

    def check_file(
        self,
        path: PathLike,
        *,
        record_size: Optional[int] = None,
        key_offset: int = 0,
        key: Any = None,
        key_size: Optional[int] = None,
        dtype: Any = None,
        big_endian: Optional[bool] = None,
        descending: bool = False,
    ) -> FileCheck:
        """Reads the file ``path`` of records (the layout as :meth:`sort_file` takes it) and
        returns a :class:`gpusort.FileCheck`: ``(records, is_sorted, first_unsorted, checksum)``,
        whether every key is in order (``descending`` or not) after the one before it, the
        first record that is not (None when sorted), and the sum of a hash of every record, the
        same for the same records in any order: a file's and its sorted copy's are equal.

        >>> import numpy as np, gpusort, os, tempfile
        >>> path = os.path.join(tempfile.mkdtemp(), "keys")
        >>> np.array([1, 5, 2], dtype=np.int16).tofile(path)
        >>> gpusort.Sorter("cpu").check_file(path, key="int16")[:3]
        (3, False, 2)
        """
        lay = _files.layout(record_size, key_offset, key, key_size, dtype, big_endian)
        result = self._native.check_file(_files.fspath(path, "path"), *lay, bool(descending))
        return _files.check(result)
