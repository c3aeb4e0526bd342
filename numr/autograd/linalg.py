"""numr.autograd.linalg: the differentiable linalg extension (rules keyed "linalg.<name>")."""

from __future__ import annotations

import inspect as _inspect

from numr import linalg as _linalg
from numr.linalg import (  # noqa: F401
    LinAlgError, EighResult, EigResult, QRResult, SlogdetResult, SVDResult,
)

from . import _wrap

__all__ = list(_linalg.__all__)

for _name in _linalg.__all__:
    _obj = getattr(_linalg, _name)
    if _inspect.isfunction(_obj):
        globals()[_name] = _wrap.make_function("linalg." + _name, _obj)
