"""numr.autograd.fft: the differentiable FFT extension (rules keyed "fft.<name>")."""

from __future__ import annotations

from numr import fft as _fft

from . import _wrap

__all__ = list(_fft.__all__)

for _name in _fft.__all__:
    globals()[_name] = _wrap.make_function("fft." + _name, getattr(_fft, _name))
