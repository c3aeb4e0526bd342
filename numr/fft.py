"""numr.fft: the standard's FFT extension, on every device.

Semantics decided here, identically for every device:

* dtypes: complex-to-complex transforms (``fft``, ``ifft``, ``fftn``, ``ifftn``) keep a
  complex dtype; real-to-complex ones (``rfft``, ``rfftn``, ``ihfft``) give the complex
  dtype of the input's precision; complex-to-real ones (``irfft``, ``irfftn``,
  ``hfft``) the real dtype of the input's precision.
* Note: like NumPy, transforms that take complex input also take real input (as
  complex with zero imaginary part), and integer/bool input is transformed in the
  device's default floating dtype. float16 and bfloat16 are computed as float32 (no half-precision
  FFTs), so its complex results are complex64. Complex input to a real-input transform
  is a TypeError (NumPy would silently drop the imaginary part).
* lengths: ``n`` and the entries of ``s`` are positive ints (``-1`` in ``s`` means the
  input's length); ``s`` needs ``axes``; axes may not repeat; a transform length of 0
  (an empty axis, or ``irfft`` of a length-1 axis without ``n``) is a ValueError.
"""

from __future__ import annotations

import numbers
from typing import Any, Literal, Sequence

from . import _dtypes as dt
from ._array import Array
from ._checks import check_dtype, resolve_device
from ._devices import Device
from ._dtypes import COMPLEX_OF, REAL_OF
from ._linalg_checks import as_int, bad_dtype, expect_array, normalize_axes, normalize_axis, wrap

__all__ = ["fft", "ifft", "fftn", "ifftn", "rfft", "irfft", "rfftn", "irfftn", "hfft",
           "ihfft", "fftfreq", "rfftfreq", "fftshift", "ifftshift"]

_Norm = Literal["backward", "ortho", "forward"]
_NORMS = ("backward", "ortho", "forward")

# The three kinds of transform: what they take and what they give.
C2C, R2C, C2R = "c2c", "r2c", "c2r"


def _check_norm(name: str, norm: Any) -> str:
    if type(norm) is not str:
        raise TypeError(f"{name}: norm must be a str, got {norm!r}")
    if norm not in _NORMS:
        raise ValueError(f"{name}: norm must be 'backward', 'ortho' or 'forward', got {norm!r}")
    return norm


def _operand(name: str, x: Any, kind: str):
    """(native input in the dtype to transform, that dtype, result dtype)."""
    expect_array(name, x)
    d = x._dtype
    dev = x._device
    if d.kind in ("bool", "int", "uint"):
        d = dev.defaults["real floating"]
    elif d is dt.float16 or d is dt.bfloat16:
        d = dt.float32  # no half-precision FFTs
    if kind == R2C:
        if d.kind == "complex":
            raise bad_dtype(name, d, "real floating-point")
        return _cast(x, d), d, COMPLEX_OF[d]
    if d.kind == "float":
        d = COMPLEX_OF[d]
    return _cast(x, d), d, (REAL_OF[d] if kind == C2R else d)


def _cast(x: Array, d: dt.DType):
    return x._data if x._dtype is d else x._device.ops.astype(x._data, d, False)


def _length(name: str, value: Any, label: str, default: int, axis: int) -> int:
    """A transform length: value (a positive int), or default where value is None/-1."""
    if value is not None:
        n = as_int(name, value, label)
        if n != -1 or label == "n":
            if n < 1:
                raise ValueError(f"{name}: {label} must be a positive int, got {n}")
            return n
    if default < 1:
        raise ValueError(f"{name}: axis {axis} gives a transform length of {default}; pass "
                         f"{label} to choose a positive length")
    return default


def _default_length(kind: str, m: int, last: bool) -> int:
    # A complex-to-real transform's output length along its last axis is 2*(m-1).
    return 2 * (m - 1) if kind == C2R and last else m


def _one(name: str, kind: str, x: Any, n: Any, axis: Any, norm: Any) -> Array:
    a, d, out = _operand(name, x, kind)
    _check_norm(name, norm)
    if a.ndim == 0:
        raise ValueError(f"{name}: x must have at least 1 dimension, got a 0-d array")
    ax = normalize_axis(name, axis, a.ndim)
    n = _length(name, n, "n", _default_length(kind, a.shape[ax], True), ax)
    r = getattr(x._device.ops, f"fft_{name}")(a, n=n, axis=ax, norm=norm)
    return wrap(r, out, x._device)


def _many(name: str, kind: str, x: Any, s: Any, axes: Any, norm: Any) -> Array:
    a, d, out = _operand(name, x, kind)
    _check_norm(name, norm)
    shape = a.shape
    if axes is None:
        if s is not None:
            raise ValueError(f"{name}: s={s!r} needs axes, the axes it applies to")
        axes = tuple(range(a.ndim))
    else:
        if not isinstance(axes, (list, tuple)):
            raise TypeError(f"{name}: axes must be a sequence of ints or None, got {axes!r}")
        axes = normalize_axes(name, axes, a.ndim)
    if not axes and kind != C2C:
        raise ValueError(f"{name}: needs at least one axis to transform")
    if s is None:
        s = (None,) * len(axes)
    elif not isinstance(s, (list, tuple)):
        raise TypeError(f"{name}: s must be a sequence of ints or None, got {s!r}")
    elif len(s) != len(axes):
        raise ValueError(f"{name}: s={tuple(s)!r} and axes={axes!r} have different lengths")
    last = len(axes) - 1
    sizes = tuple(_length(name, si, "s", _default_length(kind, shape[ax], i == last), ax)
                  for i, (si, ax) in enumerate(zip(s, axes)))
    if not axes:
        # Nothing to transform: the input itself, as a new array.
        return wrap(x._device.ops.astype(a, d, True), out, x._device)
    r = getattr(x._device.ops, f"fft_{name}")(a, s=sizes, axes=axes, norm=norm)
    return wrap(r, out, x._device)


def fft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    """One-dimensional discrete Fourier transform."""
    return _one("fft", C2C, x, n, axis, norm)


def ifft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    """One-dimensional inverse discrete Fourier transform."""
    return _one("ifft", C2C, x, n, axis, norm)


def rfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    """One-dimensional DFT of real input: the ``n//2 + 1`` non-negative frequencies."""
    return _one("rfft", R2C, x, n, axis, norm)


def irfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    """Inverse of ``rfft``: real output of length ``n`` (default ``2*(m-1)``)."""
    return _one("irfft", C2R, x, n, axis, norm)


def hfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    """DFT of a Hermitian-symmetric signal given by its first half: real output."""
    return _one("hfft", C2R, x, n, axis, norm)


def ihfft(x: Array, /, *, n: int | None = None, axis: int = -1, norm: _Norm = "backward") -> Array:
    """Inverse of ``hfft``: the ``n//2 + 1`` first terms of a Hermitian spectrum."""
    return _one("ihfft", R2C, x, n, axis, norm)


def fftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
         norm: _Norm = "backward") -> Array:
    """N-dimensional discrete Fourier transform over ``axes`` (all by default)."""
    return _many("fftn", C2C, x, s, axes, norm)


def ifftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: _Norm = "backward") -> Array:
    """N-dimensional inverse discrete Fourier transform."""
    return _many("ifftn", C2C, x, s, axes, norm)


def rfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
          norm: _Norm = "backward") -> Array:
    """N-dimensional DFT of real input (the last axis halved)."""
    return _many("rfftn", R2C, x, s, axes, norm)


def irfftn(x: Array, /, *, s: Sequence[int] | None = None, axes: Sequence[int] | None = None,
           norm: _Norm = "backward") -> Array:
    """Inverse of ``rfftn``: real output (last axis ``2*(m-1)`` unless ``s`` says)."""
    return _many("irfftn", C2R, x, s, axes, norm)


def _freq(name: str, n: Any, d: Any, dtype: Any, device: Any) -> Array:
    n = as_int(name, n, "n")
    if n < 1:
        raise ValueError(f"{name}: n must be a positive int, got {n}")
    if type(d) is bool or not isinstance(d, numbers.Real):
        raise TypeError(f"{name}: d must be a real number, got {d!r}")
    if d == 0:
        raise ValueError(f"{name}: the sample spacing d must not be 0")
    dev = resolve_device(device, name)
    if dtype is None:
        dtype = dev.defaults["real floating"]
    dtype = check_dtype(dtype, dev, name)
    if dtype.kind != "float":
        raise bad_dtype(name, dtype, "real floating-point")
    r = getattr(dev.ops, f"fft_{name}")(n, d=float(d), dtype=dtype)
    return wrap(r, dtype, dev)


def fftfreq(n: int, /, *, d: float = 1.0, dtype: dt.DType | None = None,
            device: Device | str | None = None) -> Array:
    """Sample frequencies of an ``n``-point DFT with sample spacing ``d``."""
    return _freq("fftfreq", n, d, dtype, device)


def rfftfreq(n: int, /, *, d: float = 1.0, dtype: dt.DType | None = None,
             device: Device | str | None = None) -> Array:
    """The ``n//2 + 1`` non-negative sample frequencies of ``rfft``."""
    return _freq("rfftfreq", n, d, dtype, device)


def _shift(name: str, x: Any, axes: Any) -> Array:
    # Note: the standard asks for floating-point input; like NumPy, any dtype is
    # shifted (it is a roll).
    expect_array(name, x)
    ndim = x._data.ndim
    axes = tuple(range(ndim)) if axes is None else normalize_axes(name, axes, ndim)
    if not axes:
        return wrap(x._device.ops.astype(x._data, x._dtype, True), x._dtype, x._device)
    return wrap(getattr(x._device.ops, f"fft_{name}")(x._data, axes=axes), x._dtype, x._device)


def fftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Move the zero-frequency term to the centre of ``axes`` (all by default)."""
    return _shift("fftshift", x, axes)


def ifftshift(x: Array, /, *, axes: int | Sequence[int] | None = None) -> Array:
    """Inverse of ``fftshift``."""
    return _shift("ifftshift", x, axes)
