"""The exceptions gpusort raises for a sort that could not be done (``gpusort::SortError``).

Bad arguments raise the built-in ``TypeError`` (wrong type or dtype) and ``ValueError`` (shape,
layout, read-only, lengths). A failed sort leaves the caller's arrays (and files) as they were.
"""


class GpusortError(Exception):
    """Base class of the errors of a sort or of a sorter that could not be made."""


class NoDeviceError(GpusortError):
    """No usable CUDA device: no driver, no device, or a process forked after CUDA was in use."""


class UnsupportedError(GpusortError):
    """The backend cannot do what was asked (an algorithm, a type, device arrays on the CPU)."""


class InvalidArgumentError(GpusortError, ValueError):
    """Arguments the library refused (a device pointer the driver does not know, say)."""


class OutOfMemoryError(GpusortError, MemoryError):
    """The host or the device could not hold the data and the scratch space of the sort."""


class CudaError(GpusortError):
    """A CUDA driver call failed."""


class KernelImageError(CudaError):
    """gpusort's compiled kernels could not be loaded on this device."""


class FileSortError(GpusortError, OSError):
    """Reading or writing a file of a file sort failed (a missing input, a folder that cannot be
    written, a full disk). An ``OSError``: ``errno`` is the system's error number where it gave
    one (``errno.ENOENT``, ``errno.ENOSPC``), and the message names the file."""


class SortCancelledError(GpusortError):
    """The sort was stopped before it finished; it left the files as any failure does."""
