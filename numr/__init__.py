"""numr: one Python Array API namespace (2025.12) for the CPU, NVIDIA GPUs and WebGPU."""

__array_api_version__ = "2025.12"
__version__ = "0.1.0"

from ._dtypes import (  # noqa: F401
    bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64,
    float32, float64, complex64, complex128, float16,
)
from ._array import Array  # noqa: F401
from ._devices import Device, set_default_device  # noqa: F401
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
from ._info import __array_namespace_info__  # noqa: F401
from . import linalg, fft  # noqa: F401
