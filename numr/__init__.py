"""numr: one Python Array API namespace (2025.12) for the CPU, NVIDIA GPUs and WebGPU.

Static type checkers read ``__init__.pyi`` beside this file (the 65 elementwise functions
are made from a table at import time); ``tools/make_stubs.py`` writes it from this
module, and tests/typing/test_stubs.py keeps the two equal.
"""

__array_api_version__ = "2025.12"
__version__ = "0.1.0"

from . import _creation, _data_type, _elementwise, _indexing, _linalg_ops  # noqa: E402
from . import _manipulation, _searching, _set, _sorting, _statistical, _utility  # noqa: E402
from . import _nan  # noqa: E402
from ._dtypes import (  # noqa: F401
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float32, float64, complex64, complex128, float16, bfloat16,
)
from ._array import Array  # noqa: F401
from ._devices import (  # noqa: F401
    Device, default_device, empty_cache, memory_info, set_default_device, synchronize,
)
from ._errors import AxisError  # noqa: F401
from ._io import load, save  # noqa: F401
from ._constants import e, inf, nan, newaxis, pi  # noqa: F401
from ._creation import *  # noqa: F401,F403
from ._data_type import *  # noqa: F401,F403
from ._elementwise import *  # noqa: F401,F403
from ._indexing import *  # noqa: F401,F403
from ._linalg_ops import *  # noqa: F401,F403
from ._manipulation import *  # noqa: F401,F403
from ._searching import *  # noqa: F401,F403
from ._set import *  # noqa: F401,F403
from ._sorting import *  # noqa: F401,F403
from ._statistical import *  # noqa: F401,F403
from ._utility import *  # noqa: F401,F403
from ._nan import *  # noqa: F401,F403  (extensions: nansum, nanmin, ... as in NumPy)
from ._info import __array_namespace_info__  # noqa: F401
from . import linalg, fft  # noqa: F401
from . import special  # noqa: F401

# The public names: the standard's, then numr's extensions (documented in docs/).
__all__ = [
    "__array_api_version__", "__array_namespace_info__",
    "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
    "float32", "float64", "complex64", "complex128", "float16", "bfloat16",
    "e", "inf", "nan", "newaxis", "pi", "Array", "linalg", "fft", "special",
    # extensions: devices, errors, I/O
    "Device", "set_default_device", "default_device", "synchronize", "memory_info",
    "empty_cache", "AxisError", "save", "load",
]
for _m in (_creation, _data_type, _elementwise, _indexing, _linalg_ops, _manipulation,
           _searching, _set, _sorting, _statistical, _utility, _nan):
    __all__ += _m.__all__
del _m
from . import random  # noqa: F401  (numr.random: counter-based generators on every device)
