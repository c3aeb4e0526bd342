"""The backend contract and the registry of backends (device kind -> backend module).

A backend serves one kind of device. Adding one (Metal, ROCm) means writing one module
that defines ``BACKEND``, an object with the attributes below, and naming it in
``REGISTRY`` (below: the only place numr lists device kinds); no namespace function
changes.

The backend object
------------------
``kind``                       the device kind, e.g. ``"cpu"``.
``device_indices()``           the indices of the devices present (``[0]`` for the CPU).
``dtypes(index)``              the numr dtypes the device holds, exactly (a WebGPU adapter
                               without shader-f64 holds no float64). Includes the
                               extension float16 where held.
``default_dtypes(index)``      ``{"real floating", "complex floating", "integral",
                               "indexing"}`` -> numr dtype.
``make_ops(device)``           the operations bound to one device, stored as
                               ``device.ops``; numr calls them, nothing else does.
                               It returns ``_derived.complete(ops)``: the backend's
                               primitives plus the derived ops it did not define.
``device_name(index)``         the adapter's or processor's name, a str.
``memory_info(index)``         ``{"in_use", "pooled", "total"}``: bytes of the arrays
                               alive, bytes the backend's pool holds for reuse, the
                               device's memory; None where the backend cannot know.
``empty_cache(index)``         give the pooled memory back to the driver.

The operations (``device.ops``)
-------------------------------
numr owns the semantics: it validates arguments, decides result dtypes and shapes, and
raises the user-visible errors *before* calling an op. Ops receive the backend's native
arrays and compute. Native arrays must expose ``.shape`` (tuple of ints), ``.ndim`` and
``.size``. Every op returns native arrays of exactly the dtype numr asked for.

Each function ``f`` of the namespace has an op ``ops.f``, each ``linalg.f`` an op
``ops.linalg_f`` and each ``fft.f`` an op ``ops.fft_f``, taking the same arguments as
the standard function, except that:

* arrays are native arrays, already promoted to the operand dtype numr chose
  (binary elementwise ops may receive a Python scalar on either side, already checked to
  fit that dtype);
* ``dtype`` arguments are numr dtypes and never ``None`` where the standard would pick
  a default: numr picks it;
* ``axis`` arguments are normalised to non-negative ints or a tuple of them;
* ``device`` arguments are absent: the op runs on the device it is bound to.

Conventions every op follows:

* arguments that are keyword-only in the standard are passed by keyword (``axis=``,
  ``keepdims=``, ``side=``, ``sorter=``, ``descending=``, ``stable=``, ``copy=``);
* ops returning several arrays return a list or tuple of native arrays
  (``broadcast_arrays`` a list; ``unique_*`` a tuple whose index arrays have the
  device's default index dtype);
* ``reshape(a, shape, copy=False)`` returns ``None`` when no view is possible, and numr
  raises the ValueError;
* ``isin`` and ``diff`` (``prepend``/``append``) may receive a Python scalar already
  checked to fit the other operand's dtype;
* native arrays' ``.dtype`` is a numr dtype or the ``numpy.dtype`` of one.

Primitives and derived ops
--------------------------
A backend writes the primitives: every op named above except the derived ones of this
table, plus ``unique`` (below). The derived ops, which every backend would compose the
same way, are written once in ``numr/backends/_derived.py`` and added by ``complete``
(a backend may still define one itself where its own is faster; it says so where it
does: the NumPy-like adapter's ``zeros`` and ``mean``, WebGPU's ``mean``):

=========================================  =============================================
derived op                                 composed from
=========================================  =============================================
``empty_like zeros_like ones_like          ``empty zeros ones full`` of ``x.shape``
full_like``
``zeros ones``                             ``full``
``matrix_transpose moveaxis``              ``permute_dims``
``unstack``                                ``getitem``
``mean``                                   ``sum``, ``divide``
``unique_all unique_counts                 ``unique(x, first=, inverse=, counts=)``
unique_inverse unique_values``
``linalg_matrix_power``                    ``matmul``, ``linalg_inv``, ``eye``,
                                           ``broadcast_to``, ``astype``
``linalg_outer``                           ``reshape``, ``multiply``
``fft_fftshift fft_ifftshift``             ``roll``
=========================================  =============================================

``unique(x, first=False, inverse=False, counts=False)`` is the one primitive of the set
functions' family: the sorted distinct values (NaNs distinct), then, each where asked and
in this order, the index of each value's first occurrence, the inverse indices (x's
shape) and the counts, the index arrays of the device's default index dtype.

Besides those, every backend provides these ops:

``from_host(ndarray)``         the NumPy array's contents on the device (Python data
                               reaches a device as a NumPy array numr built); the CPU
                               backend returns the array itself, so copies are numr's call.
``to_host(native)``            a NumPy array with the same contents.
``astype(x, dtype, copy)``     convert.
``getitem(x, key)``            basic/advanced indexing with a key numr has validated
                               (ints, slices, None, Ellipsis, native integer/bool arrays).
``getslice(x, key)``           ``x[key]`` for one slice on the first axis (a hot path).
``setitem(x, key, value)``     in-place, value a native array or Python scalar of x's dtype.
``assign(dst, src)``           copy ``src`` (broadcastable) into ``dst`` in place.
``buffer(x)``                  the object owning x's memory and shared by all its views,
                               where numr alone writes that memory (a WebGPU Storage, a
                               CuPy Memory); None for host memory, which other code may
                               share (numr/_ranges.py watches these buffers).
``writable(x)``                whether x may be written (False for broadcast_to's and
                               broadcast_arrays' views and the views of them, where the
                               library marks them; numr raises the ValueError).
``dlpack(x, stream, max_version, dl_device, copy)`` and ``dlpack_device(x)``.
``from_dlpack(obj, copy)``     native array from a DLPack producer on this device.
``scalar(x)``                  the Python scalar of a size-1 array (a sync point).
``scalars(*xs)``               a list of the Python scalars of 0-d arrays of one dtype,
                               read back together (one sync point for all).
``sync()``                     wait until the device has done all the work given to it.
``finfo(dtype)``/``iinfo(dtype)`` machine limits as plain Python numbers.
"""

from __future__ import annotations

import importlib
from typing import Any, NamedTuple

class Kind(NamedTuple):
    """What numr knows of a device kind before (and without) loading its backend."""
    module: str                 # the backend module, which defines BACKEND
    package: str | None         # the package it needs (for the error when it is absent)
    needs: str                  # how to get it, for that error
    indexed: bool               # devices named "kind:N" (False: one device, "cpu")
    dlpack_types: tuple[int, ...] = ()  # DLPack device types numr imports onto this kind


# The registry: every device kind numr knows, in the order all_devices() lists them.
# The rest of numr asks here (device names, errors, DLPack imports, the tests' devices).
REGISTRY = {
    "cpu": Kind("numr.backends.numpy", None, "NumPy", False,
                (1, 3)),                     # kDLCPU, kDLCUDAHost
    "cuda": Kind("numr.backends.cupy", "cupy",
                 "CuPy and an NVIDIA GPU: pip install '.[cuda12]' or '.[cuda13]' from "
                 "a checkout of numr", True,
                 (2, 13)),                   # kDLCUDA, kDLCUDAManaged
    "webgpu": Kind("numr.backends.webgpu", "wgpu",
                   "wgpu and a WebGPU adapter: pip install '.[webgpu]' from a checkout "
                   "of numr", True),
}

KINDS = tuple(REGISTRY)

# DLPack device type -> the numr device kind that imports it.
DLPACK_KINDS: dict[int, str] = {t: kind for kind, k in REGISTRY.items() for t in k.dlpack_types}


def device_name(kind: str, index: int) -> str:
    """How a device prints: ``cpu``, ``cuda:0``, ``webgpu:1``."""
    return f"{kind}:{index}" if REGISTRY[kind].indexed else kind

_loaded: dict[str, Any] = {}


def load_backend(kind: str) -> Any:
    """The backend object for ``kind``, or None where it cannot run on this machine
    (its package is missing, or no device is present)."""
    if kind in _loaded:
        return _loaded[kind]
    backend = None
    try:
        module = importlib.import_module(REGISTRY[kind].module)
    except (ImportError, OSError):  # the package, or a shared library it needs, is absent
        module = None
    if module is not None:
        backend = getattr(module, "BACKEND", None)
        if backend is not None and not backend.device_indices():
            backend = None
    _loaded[kind] = backend
    return backend
