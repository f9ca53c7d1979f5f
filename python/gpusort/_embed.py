"""Device sorts that fit inside other GPU programs: :meth:`Sorter.prepare` loads the kernels up
front, :meth:`Sorter.scratch_bytes` says how much scratch a call needs, and
:meth:`Sorter.sort_with_scratch`, :meth:`Sorter.argsort_with_scratch` and
:meth:`Sorter.top_k_with_scratch` take that scratch from an array the caller allocated (with torch's or CuPy's own allocator, on the current stream): they
allocate nothing and never wait for the stream, so ``torch.cuda.graph`` and CuPy's stream
capture record them and replay them."""

from __future__ import annotations

import operator
import sys
from typing import Any, Optional, Tuple

import numpy as np

from . import _device, _lexsort
from . import _native
from ._key_types import FLOAT_KEY_NAMES

_CALLS = ("sort", "sort_pairs", "argsort", "top_k")


class EmbeddedCalls:
    """The methods of :class:`gpusort.Sorter` for device programs (see the module)."""

    __slots__ = ()
    _native: Any

    def prepare(self) -> None:
        """Loads this sorter's kernels on its device, once per process. Every device call does
        it on first use; call this (or sort once) before capturing a CUDA graph: a call inside a
        capture on a device not yet prepared raises ``InvalidArgumentError``."""
        _native.prepare(self._native)

    def scratch_bytes(self, a: Any, call: str = "sort", descending: bool = False, *, k: Optional[int] = None) -> int:
        """The bytes of scratch :meth:`sort_with_scratch` (``call="sort"``),
        :meth:`argsort_with_scratch` (``call="argsort"``) or :meth:`top_k_with_scratch`
        (``call="top_k"`` with ``k=``) needs for the device array ``a`` (its dtype and length).
        Allocate at least this many bytes on ``a``'s device, e.g.
        ``torch.empty(n, dtype=torch.uint8, device=a.device)``.

        >>> import torch, gpusort  # doctest: +SKIP
        >>> t = torch.randint(0, 100, (1000,), device="cuda", dtype=torch.int32)  # doctest: +SKIP
        >>> gpusort.scratch_bytes(t) > 0  # doctest: +SKIP
        True
        """
        if call not in _CALLS:
            raise ValueError(f"call: {call!r} is not one of {', '.join(map(repr, _CALLS))}")
        if (call == "top_k") != (k is not None):
            raise ValueError("k: give it for call='top_k' (and only then)")
        count = 0 if k is None else _count(k)
        dev = _device_keys(a, "a")
        key = _device.key_name(dev, "a")
        return _native.scratch_bytes(self._native, call, key, dev.n, bool(descending), count)

    def sort_with_scratch(
        self, a: Any, scratch: Any, descending: bool = False, *, float_order: str = "total", stream: Any = None
    ) -> None:
        """:meth:`sort` of the device array ``a`` in place, its scratch taken from the device
        array ``scratch`` (any dtype, at least :meth:`scratch_bytes` bytes, not overlapping ``a``):
        nothing is allocated and nothing waits, so the call can be captured into a CUDA graph.
        ``scratch`` may be reused by work queued after the call on the same stream. Float keys
        sort in IEEE total order only (``float_order="total"``): the array libraries' own orders
        need a check of the data first. Too small a ``scratch`` raises
        ``InvalidArgumentError`` with ``a`` untouched."""
        dev = _device_keys(a, "a")
        key = _device.key_name(dev, "a")
        _total_only(key, float_order)
        at, size = _scratch_of(scratch, dev)
        handle = _device.stream_handle(dev, stream)
        _native.sort_device_scratch(self._native, dev.ptr, dev.n, key, handle, bool(descending), at, size)

    def argsort_with_scratch(
        self, keys: Any, scratch: Any, descending: bool = False, *, float_order: str = "total", stream: Any = None
    ) -> Any:
        """:meth:`argsort` of the torch or CuPy array ``keys`` (left as it is) into a new int64
        array of its library, the sort's scratch taken from ``scratch`` as in
        :meth:`sort_with_scratch` (size from ``scratch_bytes(keys, "argsort")``). The result is
        allocated by the keys' library on the call's stream, which graph capture records too."""
        dev = _device_keys(keys, "keys")
        key = _device.key_name(dev, "keys")
        _total_only(key, float_order)
        at, size = _scratch_of(scratch, dev)
        native, desc = self._native, bool(descending)

        def argsort(k: Any, out: int, handle: int) -> None:
            _native.argsort_device_scratch(native, k.ptr, k.n, key, out, handle, desc, at, size)

        out = _device.argsort_device(keys, stream, argsort)
        if out is None:
            raise TypeError("keys: argsort_with_scratch needs a torch.Tensor or a cupy.ndarray (to allocate)")
        return out

    def top_k_with_scratch(
        self, a: Any, k: int, scratch: Any, descending: bool = False, *, float_order: str = "total", stream: Any = None
    ) -> Tuple[Any, Any]:
        """:meth:`top_k` of the torch or CuPy array ``a`` (left as it is), its scratch taken from
        ``scratch`` as in :meth:`sort_with_scratch` (size from ``scratch_bytes(a, "top_k",
        k=k)``): ``(values, indices)``, new arrays of ``a``'s library allocated on the call's
        stream, which graph capture records too."""
        count = _count(k)
        dev = _device_keys(a, "a")
        key = _device.key_name(dev, "a")
        _total_only(key, float_order)
        at, size = _scratch_of(scratch, dev)
        native, desc = self._native, bool(descending)

        def select(keys: Any, out_keys: int, out_indices: int, handle: int) -> None:
            out = (out_keys, out_indices)
            _native.top_k_device_scratch(native, keys.ptr, keys.n, key, count, out, handle, desc, at, size)

        out = _device.top_k_device(a, count, stream, select)
        if out is None:
            raise TypeError("a: top_k_with_scratch needs a torch.Tensor or a cupy.ndarray (to allocate)")
        return out


def _count(k: Any) -> int:
    try:
        return operator.index(k)
    except TypeError:
        raise TypeError(f"k: an integer is required, not {type(k).__name__}") from None


def _device_keys(a: Any, what: str) -> _device.DeviceArray:
    dev = _device.view(a, what)
    if dev is None:
        raise TypeError(f"{what}: {type(a).__name__} is not a CUDA array; host arrays need no scratch")
    return dev


def _total_only(key: str, float_order: str) -> None:
    if key in FLOAT_KEY_NAMES and _lexsort.float_order_of(float_order, "") != "total":
        raise ValueError(
            f"float_order={float_order!r}: calls on caller scratch sort float keys in total order only "
            "(float_order='total'); the other orders check the data on the host first"
        )


def _scratch_of(scratch: Any, keys: _device.DeviceArray) -> Tuple[int, int]:
    """(address, bytes) of the caller's scratch array, on the device of ``keys``."""
    s = _device.view(scratch, "scratch")
    if s is None:
        raise TypeError(f"scratch: {type(scratch).__name__} is not a CUDA array")
    torch = sys.modules.get("torch")
    if torch is not None and isinstance(scratch, torch.Tensor) and isinstance(keys.obj, torch.Tensor):
        if scratch.device != keys.obj.device:
            raise ValueError(f"scratch: on {scratch.device}, the keys on {keys.obj.device}")
    return s.ptr, s.n * np.dtype(s.typestr).itemsize
