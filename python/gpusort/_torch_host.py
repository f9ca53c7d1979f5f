"""CPU torch tensors, sorted on the host: the native sorts take each as the NumPy array that shares
its memory, and what they return comes back as tensors.

bfloat16 has no NumPy dtype: a tensor of it is viewed as ml_dtypes' bfloat16 where that package
is installed, else as float32 holding its bits shifted up 16 (an exact widening that orders as
the bfloat16 does, NaNs' signs and payloads kept), whose sorted bits are shifted back into the
tensor. The other unsigned types go through their signed twins (``Tensor.numpy`` takes those on
every PyTorch version).
"""

from __future__ import annotations

import sys
from typing import Any, NamedTuple, Optional

import numpy as np

# ml_dtypes, once looked for: the module, or False where it is not installed.
_ml_dtypes: Any = None


def is_cpu_tensor(obj: Any) -> bool:
    """Whether ``obj`` is a ``torch.Tensor`` in host memory."""
    torch = sys.modules.get("torch")
    return torch is not None and isinstance(obj, torch.Tensor) and obj.device.type == "cpu"


class HostView(NamedTuple):
    """A CPU tensor as the native sorts take it."""

    array: np.ndarray  # the tensor's memory, or its widened copy
    bits: Optional[np.ndarray]  # of a widened bfloat16 tensor: its own memory as uint16, to write back


def _bfloat16() -> Any:
    global _ml_dtypes
    if _ml_dtypes is None:
        try:
            import ml_dtypes
        except ImportError:
            _ml_dtypes = False
        else:
            _ml_dtypes = ml_dtypes
    return _ml_dtypes.bfloat16 if _ml_dtypes else None


def view(t: Any, what: str, write: bool) -> HostView:
    """The CPU tensor ``t`` as a NumPy array; ``write``: for an in-place sort, which a tensor that
    requires grad or is not contiguous refuses (``ValueError``), as on the device."""
    torch = sys.modules["torch"]
    if write and t.requires_grad:
        raise ValueError(f"{what}: requires grad; an in-place sort would corrupt autograd, sort t.detach()")
    if write and not t.is_contiguous():
        # As NumPy arrays are (a widened copy would hide the strides).
        raise ValueError(f"{what}: not contiguous; sort t.contiguous() instead")
    t = t.detach()
    if t.dtype == torch.bfloat16:
        bits = t.view(torch.int16).numpy().view(np.uint16)
        dtype = _bfloat16()
        if dtype is not None:
            return HostView(bits.view(dtype), None)
        return HostView((bits.astype(np.uint32) << np.uint32(16)).view(np.float32), bits)
    for signed, unsigned in (("int16", "uint16"), ("int32", "uint32"), ("int64", "uint64")):
        if t.dtype == getattr(torch, unsigned, None):
            return HostView(t.view(getattr(torch, signed)).numpy().view(unsigned), None)
    try:
        return HostView(t.numpy(), None)
    except (TypeError, RuntimeError) as e:
        raise TypeError(f"{what}: a CPU torch.Tensor of dtype {t.dtype}, which gpusort does not sort ({e})") from None


def write_back(v: Optional[HostView]) -> None:
    """After an in-place sort of ``v.array``: a widened bfloat16 tensor takes its bits back."""
    if v is not None and v.bits is not None:
        v.bits[...] = (v.array.view(np.uint32) >> np.uint32(16)).astype(np.uint16)


def tensor(a: np.ndarray, like: Any) -> Any:
    """The NumPy result ``a`` (int64 indices, or keys from the tensor ``like``'s view) as a tensor
    of ``like``'s dtype for keys, int64 for indices."""
    torch = sys.modules["torch"]
    if a.dtype == np.int64:
        return torch.from_numpy(a)
    if like.dtype == torch.bfloat16:
        bits = a.view(np.uint32) >> np.uint32(16) if a.dtype == np.float32 else a.view(np.uint16)
        return torch.from_numpy(bits.astype(np.uint16).view(np.int16)).view(torch.bfloat16)
    if a.dtype.kind == "u" and a.dtype.itemsize > 1:
        return torch.from_numpy(a.view(f"i{a.dtype.itemsize}")).view(like.dtype)
    return torch.from_numpy(a)
