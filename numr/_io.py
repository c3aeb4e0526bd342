"""save and load: one array in NumPy's ``.npy`` format, from and to any device.

Extensions (the standard has no I/O). The format is NumPy's own, written and read by
NumPy (``allow_pickle=False``: an ``.npy`` file of Python objects is refused, never
executed), so files move between numr, NumPy, CuPy and PyTorch (``torch.from_numpy``).
"""

from __future__ import annotations

import os
from typing import IO, Any

from ._array import Array
from ._checks import what
from ._devices import Device

__all__ = ["save", "load"]


def save(file: str | os.PathLike[str] | IO[bytes], x: Array, /) -> None:
    """Write ``x`` to ``file`` in NumPy's ``.npy`` format (a GPU array is read back first).

    As with ``numpy.save``, a path without the ``.npy`` suffix gets it.
    """
    if type(x) is not Array:
        raise TypeError(f"save: expected a numr array, got {what(x)}")
    import numpy as np

    np.save(file, x._device.ops.to_host(x._data), allow_pickle=False)


def load(file: str | os.PathLike[str] | IO[bytes], /, *,
         device: Device | str | None = None) -> Array:
    """The array in an ``.npy`` file, on ``device`` (the default device if None).

    ValueError for a file that is no ``.npy`` array (an ``.npz`` archive, a pickle);
    TypeError for a dtype the device does not hold (float64 on a WebGPU adapter without
    shader-f64), as ``numr.asarray`` gives.
    """
    import numpy as np

    from ._creation import asarray

    try:
        host = np.load(file, allow_pickle=False)
    except ValueError as e:  # NumPy's words for a pickle or an object array
        raise ValueError(f"load: {file!r} is not an .npy array file ({e})") from None
    if not isinstance(host, np.ndarray):
        host.close()
        raise ValueError(f"load: {file!r} is an .npz archive of several arrays; numr.load "
                         f"reads one array from an .npy file (use numpy.load, then "
                         f"numr.asarray)")
    if not host.dtype.isnative:
        host = host.astype(host.dtype.newbyteorder("="))
    return asarray(host, device=device)
