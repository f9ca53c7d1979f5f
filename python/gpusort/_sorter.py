"""``gpusort.Sorter``: one backend choice, and the sorts for host and device arrays."""

from __future__ import annotations

import operator
from typing import Any, Optional, Sequence, Tuple

import numpy as np

from . import _bytes, _device, _lexsort, _torch_host
from ._embed import EmbeddedCalls
from ._file_sorts import FileSorts
from ._key_types import FLOAT_KEY_NAMES, is_float_dtype
from ._native import Sorter as _NativeSorter


class Sorter(FileSorts, EmbeddedCalls):
    """Sorts arrays on a CUDA GPU, or on the CPU where no GPU is usable.

    ``backend`` is ``"auto"`` (the GPU when one is usable and the sort is large enough to gain
    from it, else the CPU; never fails), ``"cpu"``, or ``"cuda"`` (the GPU for every size; raises
    :class:`gpusort.NoDeviceError` when there is none). ``algorithm`` is ``"auto"``, ``"radix"``
    (both stable), ``"bitonic"`` or ``"odd_even_merge"`` (GPU sorting networks, not stable).
    ``crossover`` sets the size from which an ``"auto"`` sorter uses the GPU, instead of the
    measured table. ``device_memory_limit`` caps the device bytes of a host sort (larger sorts
    run out of core). ``device`` picks the GPU of a ``"cuda"`` sorter (default 0); ``devices``
    gives it several (a list of ordinals; one listed twice takes two shares of that GPU): host
    sorts of at least ``multi_gpu_from`` items (default 64M) are then spread over all of them as
    one stable sort, each GPU sorting an equal share and swapping key ranges with the others peer
    to peer; everything else runs on the first.

    Host arrays are 1-D, contiguous, writable NumPy arrays (``sort`` also takes C-contiguous N-D
    ones and sorts each row, along the last axis) or CPU ``torch.Tensor``s (their memory as NumPy
    sees it; results as tensors); device arrays are 1-D contiguous
    CUDA ``torch.Tensor``s, ``cupy.ndarray``s or objects with ``__cuda_array_interface__``, sorted
    in place on the device of this sorter, on the caller's current stream of the array's library
    (or ``stream=``: an int ``CUstream`` handle or a torch/cupy stream), asynchronously as the
    library's own sorts are. Key dtypes: uint32, int32, float32, uint64, int64, float64, uint16,
    int16, uint8, int8, float16 and bfloat16 (torch's, and NumPy's from ml_dtypes). Values:
    uint32, int32 or float32, moved bit for bit with their keys.
    :meth:`sort`, :meth:`argsort` and :meth:`lexsort` order floats as the array's library does
    (NumPy, CuPy: every NaN last, ``-0.0 == +0.0``; torch: NaN largest) unless
    ``float_order="total"`` asks for IEEE total order (-NaN < -inf < ... < -0.0 < +0.0 < ... <
    +inf < +NaN); the other sorts (pairs, segments, records, top-k) order floats in total order.

    Refused arguments raise ``TypeError`` (type, dtype) or ``ValueError`` (shape, layout,
    read-only, lengths, shared memory) and leave the arrays untouched; so does a failed sort
    (:class:`gpusort.GpusortError`, or :class:`gpusort.OutOfMemoryError`, a ``MemoryError``).
    Host sorts release the GIL. Sorters are cheap to share between threads, and a process
    forked from one that used the GPU still sorts, on the CPU.
    """

    __slots__ = ("_native",)

    def __init__(
        self,
        backend: str = "auto",
        *,
        algorithm: str = "auto",
        crossover: Optional[int] = None,
        device_memory_limit: Optional[int] = None,
        device: Optional[int] = None,
        devices: Optional[Sequence[int]] = None,
        multi_gpu_from: Optional[int] = None,
    ) -> None:
        self._native = _NativeSorter(
            backend,
            algorithm,
            crossover,
            device_memory_limit,
            device,
            None if devices is None else [int(d) for d in devices],
            multi_gpu_from,
        )

    @property
    def backend(self) -> str:
        """The backend asked for: ``"auto"``, ``"cpu"`` or ``"cuda"``."""
        return self._native.backend

    @property
    def algorithm(self) -> str:
        """The algorithm: ``"auto"``, ``"radix"``, ``"bitonic"`` or ``"odd_even_merge"``."""
        return self._native.algorithm

    @property
    def device_memory_limit(self) -> Optional[int]:
        """The device byte limit of host sorts, or None."""
        return self._native.device_memory_limit

    @property
    def device(self) -> Optional[int]:
        """The CUDA device this sorter's GPU work runs on, or None without one."""
        return self._native.device

    @property
    def multi_gpu_from(self) -> Optional[int]:
        """From how many items host sorts are spread over the sorter's GPUs; None with fewer than
        two."""
        return self._native.multi_gpu_from

    def describe(self) -> str:
        """One line: the backend, the GPU, and why the CPU is used where it is."""
        return self._native.describe()

    def release_memory(self) -> None:
        """Frees the pinned host and device memory kept between sorts for speed (shared by every
        sorter of the process); the next sort allocates it again."""
        self._native.release_memory()

    def __repr__(self) -> str:
        return f"gpusort.Sorter({self.backend!r}, algorithm={self.algorithm!r}): {self.describe()}"

    def sort(
        self, a: Any, descending: bool = False, *, float_order: Optional[str] = None, stream: Any = None
    ) -> None:
        """Sorts ``a`` in place (ascending unless ``descending``). Returns None, as
        ``numpy.ndarray.sort`` does.

        A C-contiguous N-D NumPy array is sorted row by row along its last axis, as
        ``a.sort(axis=-1)`` / ``torch.sort(dim=-1)`` do (each row on its own; all rows in one or
        two sorts of the whole array, see :meth:`sort_segments`), stably even where this sorter's
        algorithm is a sorting network. Device arrays are 1-D only.

        Floats sort as ``a``'s library sorts them (``float_order=None``): NumPy and CuPy arrays
        with every NaN last in both orders and ``-0.0 == +0.0``, torch tensors with NaN as the
        largest value; ``float_order="total"`` for IEEE total order (see :func:`gpusort.lexsort`
        for every name). Equal keys of different bits (``-0.0`` and ``+0.0``, NaN payloads) keep
        their input order. A torch or CuPy float array holding NaN or ``-0.0`` is sorted through
        its permutation (:meth:`argsort`, then a gather by its library), which waits for the
        stream once to find out; objects with only ``__cuda_array_interface__`` sort in total
        order.

        >>> import numpy as np, gpusort
        >>> a = np.array([[3, 1, 2], [9, 7, 8]], dtype=np.int32)
        >>> gpusort.Sorter("cpu").sort(a)
        >>> a
        array([[1, 2, 3],
               [7, 8, 9]], dtype=int32)
        >>> f = np.array([np.nan, 1.0, -0.0, 0.0, -1.0])
        >>> gpusort.Sorter("cpu").sort(f, descending=True)
        >>> f
        array([ 1., -0.,  0., -1., nan])
        """
        if isinstance(a, np.ndarray) and _bytes.is_strings(a.dtype):
            _host_only(stream)
            _bytes.sort(self._native, a, bool(descending))
            return
        dev = _device.view(a, "a")
        if dev is None:
            _host_only(stream)
            floats = _lexsort.float_order_of(float_order, _lexsort.library_of(a))
            host = _host_view(a, "a", True)
            self._sort_host(host.array, bool(descending), floats)
            _torch_host.write_back(host)
            return
        key = _device.key_name(dev, "a")
        floats = _lexsort.float_order_of(float_order, dev.lib)
        if floats != "total" and key in FLOAT_KEY_NAMES:
            if dev.lib == "cai":
                raise TypeError(
                    f"a: float_order={floats!r} for an array known only by __cuda_array_interface__, which "
                    "cannot be checked for NaN or gathered; wrap it in a torch.Tensor or cupy.ndarray"
                )
            native, desc = self._native, bool(descending)

            def argsort(k: Any, out: int, handle: int) -> None:
                native.argsort_device(k.ptr, k.n, key, out, handle, desc, floats)

            if _device.sort_floats_by_permutation(dev, stream, argsort):
                return
        self._native.sort_device(dev.ptr, dev.n, key, _device.stream_handle(dev, stream), bool(descending))

    def _sort_host(self, a: Any, descending: bool, floats: str) -> None:
        """:meth:`sort` of a host array (a CPU tensor's view), floats in ``floats`` order."""
        if floats != "total" and isinstance(a, np.ndarray) and is_float_dtype(a.dtype) and a.ndim > 1:
            # Rows of floats: the segmented sort orders them in total order only, which gives
            # the same result unless a row holds NaN or -0.0.
            if _lexsort.has_float_specials(a):
                _lexsort.sort_rows_by_permutation(self._native, a, descending, floats)
                return
            floats = "total"
        self._native.sort(a, descending, floats)

    def sort_pairs(self, keys: Any, values: Any, descending: bool = False, *, stream: Any = None) -> None:
        """Sorts ``keys`` in place, stably (with ``algorithm="auto"`` or ``"radix"``), and moves
        each value of ``values`` (same length) with its key.

        Values are payloads moved bit for bit, never compared: uint32, int32, float32, and for
        host (NumPy) arrays also uint64, int64, float64 (row ids past 2^32; always sorted
        stably). CUDA arrays take 32-bit values only; other dtypes raise ``TypeError`` with both
        arrays untouched.

        >>> import numpy as np, gpusort
        >>> k = np.array([3, 1, 3], dtype=np.float32)
        >>> v = np.array([5_000_000_000, 7, 1], dtype=np.uint64)
        >>> gpusort.Sorter("cpu").sort_pairs(k, v)
        >>> v
        array([         7, 5000000000,          1], dtype=uint64)
        """
        kd, vd = _device.view(keys, "keys"), _device.view(values, "values")
        if kd is None and vd is None:
            _host_only(stream)
            k, v = _host_view(keys, "keys", True), _host_view(values, "values", True)
            self._native.sort_pairs(k.array, v.array, bool(descending))
            _torch_host.write_back(k)
            _torch_host.write_back(v)
            return
        if kd is None or vd is None:
            raise TypeError("keys and values: one is a CUDA array and the other is not")
        key = _device.key_name(kd, "keys")
        _device.check_values(vd, kd)
        handle = _device.stream_handle(kd, stream)
        self._native.sort_pairs_device(kd.ptr, vd.ptr, kd.n, key, handle, bool(descending))

    def sort_segments(
        self, keys: Any, offsets: Any, values: Any = None, descending: bool = False, *, stream: Any = None
    ) -> None:
        """Sorts each segment of ``keys`` in place on its own, stably (equal keys keep their order,
        descending too, whatever this sorter's algorithm), each value of ``values`` (same length,
        or None: keys only) moving with its key. Segment ``s`` is
        ``keys[offsets[s]:offsets[s + 1]]``: ``offsets`` (any 1-D integer array or sequence) runs
        from 0 to ``len(keys)`` without falling; empty segments are fine. Rows of ``cols`` keys are
        ``offsets=range(0, len(keys) + 1, cols)`` (or :meth:`sort` of the 2-D array). All segments
        are sorted together, in one or two sorts of the whole array, on this sorter's backend.

        Device arrays: CUDA ``keys`` (of every key dtype) are sorted on
        the device of this sorter, on the caller's stream as :meth:`sort` is, with no host copy (a
        ``"cpu"`` sorter raises :class:`gpusort.UnsupportedError`); ``values`` must then be a CUDA
        array too, of the same length on the same device (uint32, int32 or float32), and keys and
        values of which only one is a CUDA array raise ``TypeError``. ``offsets`` may be a CUDA
        array (1-D, contiguous, int64 or uint64, on the keys' device; written before the sort on
        its stream) or host offsets as above, which the keys' library uploads on the sort's stream
        (a ``torch.Tensor`` or ``cupy.ndarray``; for other CUDA arrays host offsets raise
        ``TypeError``). The offsets are checked on the device, which waits for the stream once.
        64-bit CUDA keys take two stable sorts of positions (by key, then by segment) and about
        24 bytes of device scratch per key; fewer than 2^32 of them. Host keys take host offsets
        only.

        Offsets that are not integers raise ``TypeError``; negative ones ``ValueError``; offsets
        that do not cut the keys into segments :class:`gpusort.InvalidArgumentError` (a
        ``ValueError``), with the arrays untouched.

        >>> import numpy as np, gpusort
        >>> k = np.array([3, 1, 2, 9, 7, 5], dtype=np.uint32)
        >>> v = np.arange(6, dtype=np.uint32)
        >>> gpusort.Sorter("cpu").sort_segments(k, [0, 3, 5, 6], v)
        >>> k, v
        (array([1, 2, 3, 7, 9, 5], dtype=uint32), array([1, 2, 0, 4, 3, 5], dtype=uint32))
        """
        kd = _device.view(keys, "keys")
        vd = None if values is None else _device.view(values, "values")
        if kd is None and vd is None:
            if _device.is_device(offsets):
                raise TypeError("offsets: a CUDA array, for host keys; host arrays take host offsets")
            _host_only(stream)
            k = _host_view(keys, "keys", True)
            v = None if values is None else _host_view(values, "values", True)
            values_array = None if v is None else v.array
            self._native.sort_segments(k.array, _device.host_offsets(offsets), values_array, bool(descending))
            _torch_host.write_back(k)
            _torch_host.write_back(v)
            return
        if kd is None or (vd is None and values is not None):
            raise TypeError("keys and values: one is a CUDA array and the other is not")
        key = _device.key_name(kd, "keys")
        if vd is not None:
            _device.check_values(vd, kd)
        handle = _device.stream_handle(kd, stream)
        # CUDA offsets as they are (the caller orders their writes before the sort's stream);
        # host ones checked here, then uploaded by the keys' library and kept until the sort is
        # queued.
        if _device.is_device(offsets):
            o = _device.offsets_view(offsets)
            offsets_ptr, count, uploaded = o.ptr, o.n, None
        else:
            offsets_ptr, count, uploaded = _device.upload_offsets(kd, _device.host_offsets(offsets), stream)
        self._native.sort_segments_device(
            kd.ptr, 0 if vd is None else vd.ptr, kd.n, key, offsets_ptr, count, handle, bool(descending)
        )
        del uploaded

    def sort_records(self, a: Any, key: str, descending: bool = False, *, stream: Any = None) -> None:
        """Sorts the rows of the 1-D NumPy structured array ``a`` in place by its field ``key``
        (ascending unless ``descending``), stably: rows with equal keys keep their input order in
        either order. The other fields only move with their row; they do not break ties, as they
        would in ``numpy.sort(a, order=key)``. The field is a key dtype in native byte order
        (uint32, int32, float32, uint64, int64, float64, uint16, int16, uint8, int8, float16,
        ml_dtypes' bfloat16; floats in IEEE total order as in :meth:`sort`), at any offset, packed
        or aligned. Large arrays whose keys the GPU sorts are put in order on the device; the
        others are permuted on the host's cores.

        A dtype without fields, or a field of another dtype, raises ``TypeError``; an unknown
        field, another shape, a strided or read-only array ``ValueError``; device arrays
        ``TypeError`` (host arrays only, as yet). ``a`` is untouched by a refused or failed sort.

        >>> import numpy as np, gpusort
        >>> rows = np.array([(0, 2.5), (1, -1.0), (2, 2.5)], dtype=[("id", "u4"), ("score", "f8")])
        >>> gpusort.Sorter("cpu").sort_records(rows, "score")
        >>> rows["id"]
        array([1, 0, 2], dtype=uint32)
        """
        if _device.is_device(a):
            raise TypeError("a: sort_records takes NumPy structured arrays (host memory); copy device rows to the host")
        _host_only(stream)
        if not isinstance(a, np.ndarray):
            raise TypeError(f"a: expected a numpy.ndarray with fields, got {type(a).__name__}")
        fields = a.dtype.fields
        if fields is None:
            raise TypeError(f"a: dtype {a.dtype} has no fields; sort_records sorts structured arrays (sort sorts keys)")
        if a.dtype.hasobject:
            raise TypeError(f"a: dtype {a.dtype} holds Python objects; their rows cannot move as bytes")
        if not isinstance(key, str):
            raise TypeError(f"key: a field name (str) is required, not {type(key).__name__}")
        if key not in fields:
            raise ValueError(f"key: no field {key!r} in dtype {a.dtype}; fields: {', '.join(fields)}")
        field, offset = fields[key][0], fields[key][1]
        if field.fields is not None or field.subdtype is not None or not field.isnative:
            raise TypeError(f"key: field {key!r} of dtype {field} is not a key type in native byte order")
        if a.ndim != 1:
            raise ValueError(f"a: a 1-D structured array is required; this one has shape {a.shape}")
        if not a.flags.c_contiguous:
            raise ValueError("a: not contiguous; sort a contiguous copy (numpy.ascontiguousarray)")
        # The rows as bytes: the same memory, read-only if ``a`` is; the library checks the rest.
        rows = a.view(np.uint8) if a.size else np.zeros(0, dtype=np.uint8)
        if _bytes.is_strings(field):
            _bytes.sort_records(self._native, rows, a, key, bool(descending))
            return
        self._native.sort_records(rows, a.dtype.itemsize, offset, field.name, bool(descending))

    def argsort(
        self,
        keys: Any,
        stable: bool = True,
        descending: bool = False,
        *,
        float_order: Optional[str] = None,
        stream: Any = None,
    ) -> Any:
        """The indices that sort ``keys`` (int64, in an array of the keys' library); ``keys`` is
        left as it is. Equal keys keep their input order, whatever ``stable`` and this sorter's
        algorithm say: host (NumPy) arrays at any length, device arrays (torch, CuPy; int64 indices
        on the array's device and the current or given stream) up to 2^32 keys. ``descending`` orders
        from the largest key and is stable as well: equal keys keep their input order (it is not
        the reverse of the ascending permutation). Floats in ``float_order``, by default the
        order of the keys' library, as in :meth:`sort`.

        >>> import numpy as np, gpusort
        >>> gpusort.Sorter("cpu").argsort(np.array([1, 3, 1, 2], dtype=np.int32), descending=True)
        array([1, 3, 0, 2])
        """
        native = self._native
        desc = bool(descending)
        floats = _lexsort.float_order_of(float_order, _lexsort.library_of(keys))

        def argsort(k: Any, out: int, handle: int) -> None:
            native.argsort_device(k.ptr, k.n, _device.key_name(k, "keys"), out, handle, desc, floats)

        out = _device.argsort_device(keys, stream, argsort)
        if out is not None:
            return out
        if _device.view(keys, "keys") is not None:
            raise TypeError("keys: argsort of device arrays needs a torch.Tensor or a cupy.ndarray (to allocate)")
        _host_only(stream)
        if isinstance(keys, np.ndarray) and _bytes.is_strings(keys.dtype):
            return _bytes.argsort(self, keys, desc)
        result: np.ndarray = native.argsort(_host_view(keys, "keys", False).array, bool(stable), desc, floats)
        return _torch_host.tensor(result, keys) if _torch_host.is_cpu_tensor(keys) else result

    def lexsort(
        self, keys: Any, descending: Any = False, *, float_order: Optional[str] = None, stream: Any = None
    ) -> Any:
        """The stable permutation (int64) that sorts rows by several keys, as ``numpy.lexsort``:
        ``keys`` is a sequence of 1-D arrays of one length (or a 2-D array, one key per row; a 1-D
        array is one key), the LAST key the primary one, ties broken by the one before it, and so
        on; rows equal in every key keep their input order. ``descending`` is one bool for every
        key or one per key (in ``keys``' order); each key's descending order is stable too.

        Keys: every key dtype, and bool, datetime64 and timedelta64 (NaT last in both
        orders, as NumPy puts it); the keys' bits are packed into as few radix keys as their
        widths allow (64-bit ones on the CPU, where two uint32 or an int16 and a float32 sort as
        one; 32-bit ones on the GPU, which move fewer bytes). Floats as in :meth:`sort`: by default
        the order of the keys' library (NumPy, CuPy: NaN last, ``-0.0 == +0.0``; torch: NaN
        largest), ``float_order`` one of ``"total"``, ``"nan_last"``, ``"nan_first"`` (NaN
        before every value in both orders) or ``"nan_largest"``.

        Host keys (NumPy arrays, or anything ``numpy.asarray`` takes) give a NumPy array (CPU
        torch tensors, all of them, a tensor); CUDA torch tensors or CuPy arrays (all of one
        library, on one device; any key type, and bool) are sorted on this sorter's device, on
        the current or given stream, and give an int64 array of their library there; at most
        2^32 rows. Keys of different lengths raise :class:`gpusort.InvalidArgumentError` (a
        ``ValueError``), other dtypes ``TypeError``.

        >>> import numpy as np, gpusort
        >>> surname = np.array([2, 1, 2, 1], dtype=np.uint32)
        >>> score = np.array([0.5, 0.5, 0.9, np.nan])
        >>> gpusort.Sorter("cpu").lexsort([score, surname])          # by surname, then score
        array([1, 3, 0, 2])
        >>> gpusort.Sorter("cpu").lexsort([score, surname], descending=[True, False])
        array([1, 3, 2, 0])
        """
        columns = _lexsort.key_list(keys)
        if not columns:
            raise ValueError("keys: at least one key is required")
        desc = _lexsort.descending_list(descending, len(columns))
        on_device = [_device.is_device(c) for c in columns]
        if any(on_device):
            if not all(on_device):
                raise TypeError("keys: some are CUDA arrays and some are not; a lexsort takes one or the other")
            native = self._native
            return _lexsort.lexsort_device(columns[::-1], desc[::-1], float_order, stream, native.lexsort_device)
        _host_only(stream)
        result: np.ndarray = self._native.lexsort(_lexsort.host_specs(columns, desc, float_order))
        if all(_torch_host.is_cpu_tensor(c) for c in columns):
            return _torch_host.tensor(result, columns[0])
        return result

    def _lexsort_columns(self, specs: Sequence[Any]) -> np.ndarray:
        """The native host lexsort of column specs, most significant first: ``(keys, descending,
        float order, null mask or None, nulls_first)``, keys of a key type (``_lexsort.host_keys``).
        For ``gpusort.pandas``, ``gpusort.arrow`` and ``gpusort.dask``."""
        result: np.ndarray = self._native.lexsort(list(specs))
        return result

    def top_k(self, a: Any, k: int, descending: bool = False, *, stream: Any = None) -> Tuple[Any, Any]:
        """The ``k`` smallest keys of ``a`` (the ``k`` largest when ``descending``), sorted, and
        where each stood in ``a``: ``(values, indices)``, arrays of ``a``'s library and dtype and of
        int64, with ``a[indices] == values``. Exactly the first ``k`` of the stable sort
        (:meth:`argsort`): equal keys come in increasing position, so ties at the ``k``-th key go to
        the earliest positions, descending too; floats in IEEE total order as in :meth:`sort`
        (``-0.0`` before ``0.0``, NaN largest, -NaN smallest). As ``torch.topk(a, k,
        largest=descending)`` with the ties settled.

        ``a`` is only read (read-only and strided 1-D arrays are fine) and the rest of it is not
        sorted: only the ``k`` keys picked are, on this sorter's backend, whatever its algorithm.
        A NumPy array gives NumPy arrays.

        A CUDA ``torch.Tensor`` or ``cupy.ndarray`` is selected from on the device of this sorter
        (radix select, no host copy; a ``"cpu"`` sorter raises :class:`gpusort.UnsupportedError`),
        on the caller's current stream of its library or ``stream=``, asynchronously as
        :meth:`argsort` is; the results are new arrays of its library on its device, allocated on
        that stream. It may require grad (the results do not); a strided one is read through a
        contiguous copy. Other CUDA arrays (objects with only ``__cuda_array_interface__``) raise
        ``TypeError``: nothing could allocate the results.

        ``k`` must be an integer (else ``TypeError``) from 0 to ``len(a)``; outside that,
        :class:`gpusort.InvalidArgumentError` (a ``ValueError``).

        >>> import numpy as np, gpusort
        >>> gpusort.Sorter("cpu").top_k(np.array([30, 10, 30, 20, 10], dtype=np.uint32), 3)
        (array([10, 10, 20], dtype=uint32), array([1, 4, 3]))
        """
        try:
            count = operator.index(k)
        except TypeError:
            raise TypeError(f"k: an integer is required, not {type(k).__name__}") from None
        native = self._native
        desc = bool(descending)

        def select(keys: Any, out_keys: int, out_indices: int, handle: int) -> None:
            key = _device.key_name(keys, "a")
            native.top_k_device(keys.ptr, keys.n, key, count, out_keys, out_indices, handle, desc)

        out = _device.top_k_device(a, count, stream, select)
        if out is not None:
            return out
        if _device.is_device(a):
            raise TypeError(
                "a: top_k of device arrays needs a torch.Tensor or a cupy.ndarray (to allocate the results); "
                "wrap the memory in one (torch.as_tensor, cupy.asarray) or copy it to the host"
            )
        _host_only(stream)
        values, indices = native.top_k(_host_view(a, "a", False).array, count, desc)
        if _torch_host.is_cpu_tensor(a):
            return _torch_host.tensor(values, a), _torch_host.tensor(indices, a)
        return values, indices


def _host_view(obj: Any, what: str, write: bool) -> _torch_host.HostView:
    """A host array as the native sorts take it: a CPU tensor's NumPy view, anything else as it is."""
    if _torch_host.is_cpu_tensor(obj):
        return _torch_host.view(obj, what, write)
    return _torch_host.HostView(obj, None)


def _host_only(stream: Any) -> None:
    if stream is not None:
        raise ValueError("stream: host arrays are sorted on the host; stream is for CUDA arrays")
