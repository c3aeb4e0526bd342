"""numr.linalg: the standard's linear algebra extension, on every device.

Semantics decided here, identically for every device:

* dtypes: the decompositions, solvers, inverses and norms need floating-point input
  and raise TypeError for integer or bool arrays (like array-api-strict); ``cross``,
  ``outer``, ``trace`` and the matmul family take any numeric dtype; ``diagonal`` and
  ``matrix_transpose`` any dtype. float32 in gives float32 out; ``eig``/``eigvals``
  always give complex results.
* errors: shapes that do not fit (a non-square matrix, mismatched sizes) are a
  ValueError naming the function. A matrix that is singular (``inv``, ``solve``,
  negative ``matrix_power``), not positive definite (``cholesky``), or on which a
  factorization does not converge raises :class:`LinAlgError`, a ValueError subclass
  (NumPy's ``LinAlgError`` is not shown to the user).
"""

from __future__ import annotations

import math
import numbers
from typing import Any, Literal, NamedTuple

from . import _dtypes as dt
from ._array import Array
from ._dtypes import CATEGORY, COMPLEX_OF, REAL_OF
from ._checks import accumulation_dtype
from ._errors import LinAlgError
from ._linalg_checks import (
    bad_dtype, broadcast_shapes, as_int, expect_array, mixed_devices, normalize_axes,
    promote_pair, vector_axis, wrap,
)
from ._linalg_ops import matmul, matrix_transpose, tensordot, vecdot

__all__ = [
    "LinAlgError", "EighResult", "EigResult", "QRResult", "SlogdetResult", "SVDResult",
    "cholesky", "cross", "det", "diagonal", "eig", "eigh", "eigvals", "eigvalsh", "inv",
    "matmul", "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer",
    "pinv", "qr", "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot",
    "vector_norm",
]

_NUMERIC = CATEGORY["numeric"]
_FLOATING = CATEGORY["floating-point"]
_INF = math.inf




class EighResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class EigResult(NamedTuple):
    eigenvalues: Array
    eigenvectors: Array


class QRResult(NamedTuple):
    Q: Array
    R: Array


class SlogdetResult(NamedTuple):
    sign: Array
    logabsdet: Array


class SVDResult(NamedTuple):
    U: Array
    S: Array
    Vh: Array


# ---------------------------------------------------------------------------------------
# Argument checks
# ---------------------------------------------------------------------------------------

def _floating(name: str, x: Any, *, square: bool = False) -> Array:
    """x, checked to be a floating-point (stack of) matrices."""
    expect_array(name, x)
    if x._dtype not in _FLOATING:
        raise bad_dtype(name, x._dtype, "floating-point")
    shape = x.shape
    if len(shape) < 2:
        raise ValueError(f"{name}: x must have at least 2 dimensions (a matrix or a stack "
                         f"of matrices), got shape {shape}")
    if square and shape[-1] != shape[-2]:
        raise ValueError(f"{name}: x must be a square matrix (or a stack of them), got "
                         f"shape {shape}")
    return x


def _matrices(name: str, x: Any) -> Array:
    expect_array(name, x)
    if x._data.ndim < 2:
        raise ValueError(f"{name}: x must have at least 2 dimensions (a matrix or a stack "
                         f"of matrices), got shape {x.shape}")
    return x


def _real(d: dt.DType) -> dt.DType:
    return REAL_OF.get(d, d)


def _real_number(value: Any) -> bool:
    """A Python or NumPy real scalar, not a bool."""
    return type(value) is not bool and isinstance(value, numbers.Real)


def _flag(name: str, value: Any, label: str) -> bool:
    if type(value) is not bool:
        raise TypeError(f"{name}: {label} must be a bool, got {value!r}")
    return value


# ---------------------------------------------------------------------------------------
# Decompositions and eigenvalues
# ---------------------------------------------------------------------------------------

def cholesky(x: Array, /, *, upper: bool = False) -> Array:
    """Cholesky factor of Hermitian positive-definite matrices (lower unless ``upper``)."""
    _floating("cholesky", x, square=True)
    _flag("cholesky", upper, "upper")
    return wrap(x._device.ops.linalg_cholesky(x._data, upper=upper), x._dtype, x._device)


def eigh(x: Array, /) -> EighResult:
    """Eigenvalues (real) and eigenvectors of Hermitian/symmetric matrices."""
    _floating("eigh", x, square=True)
    w, v = x._device.ops.linalg_eigh(x._data)
    return EighResult(wrap(w, _real(x._dtype), x._device), wrap(v, x._dtype, x._device))


def eigvalsh(x: Array, /) -> Array:
    """Eigenvalues (real) of Hermitian/symmetric matrices."""
    _floating("eigvalsh", x, square=True)
    return wrap(x._device.ops.linalg_eigvalsh(x._data), _real(x._dtype), x._device)


def _complex(d: dt.DType) -> dt.DType:
    return d if d.kind == "complex" else COMPLEX_OF[d]


def eig(x: Array, /) -> EigResult:
    """Eigenvalues and eigenvectors of general square matrices, always complex."""
    _floating("eig", x, square=True)
    w, v = x._device.ops.linalg_eig(x._data)
    d = _complex(x._dtype)
    return EigResult(wrap(w, d, x._device), wrap(v, d, x._device))


def eigvals(x: Array, /) -> Array:
    """Eigenvalues of general square matrices, always complex."""
    _floating("eigvals", x, square=True)
    return wrap(x._device.ops.linalg_eigvals(x._data), _complex(x._dtype), x._device)


def qr(x: Array, /, *, mode: Literal["reduced", "complete"] = "reduced") -> QRResult:
    """QR decomposition; ``mode`` is "reduced" or "complete"."""
    _floating("qr", x)
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr: mode must be 'reduced' or 'complete', got {mode!r}")
    q, r = x._device.ops.linalg_qr(x._data, mode=mode)
    return QRResult(wrap(q, x._dtype, x._device), wrap(r, x._dtype, x._device))


def svd(x: Array, /, *, full_matrices: bool = True) -> SVDResult:
    """Singular value decomposition ``x = U @ diag(S) @ Vh``, S descending."""
    _floating("svd", x)
    _flag("svd", full_matrices, "full_matrices")
    u, s, vh = x._device.ops.linalg_svd(x._data, full_matrices=full_matrices)
    dev = x._device
    return SVDResult(wrap(u, x._dtype, dev), wrap(s, _real(x._dtype), dev),
                     wrap(vh, x._dtype, dev))


def svdvals(x: Array, /) -> Array:
    """Singular values, in descending order."""
    _floating("svdvals", x)
    return wrap(x._device.ops.linalg_svdvals(x._data), _real(x._dtype), x._device)


# ---------------------------------------------------------------------------------------
# Determinants, inverses, solvers
# ---------------------------------------------------------------------------------------

def det(x: Array, /) -> Array:
    """Determinant of square matrices."""
    _floating("det", x, square=True)
    return wrap(x._device.ops.linalg_det(x._data), x._dtype, x._device)


def slogdet(x: Array, /) -> SlogdetResult:
    """Sign and natural log of the absolute determinant of square matrices."""
    _floating("slogdet", x, square=True)
    sign, logabs = x._device.ops.linalg_slogdet(x._data)
    return SlogdetResult(wrap(sign, x._dtype, x._device),
                         wrap(logabs, _real(x._dtype), x._device))


def inv(x: Array, /) -> Array:
    """Inverse of square matrices; :class:`LinAlgError` if one is singular."""
    _floating("inv", x, square=True)
    return wrap(x._device.ops.linalg_inv(x._data), x._dtype, x._device)


def solve(x1: Array, x2: Array, /) -> Array:
    """Solve ``x1 @ X = x2``; x2 is one vector ``(M,)`` or a stack ``(..., M, K)``."""
    name = "solve"
    a, b, d, dev = promote_pair(name, x1, x2, _FLOATING, "floating-point")
    s1, s2 = tuple(a.shape), tuple(b.shape)
    if len(s1) < 2 or s1[-1] != s1[-2]:
        raise ValueError(f"{name}: x1 must be a square matrix (or a stack of them), got "
                         f"shape {s1}")
    m = s1[-1]
    if not s2:
        raise ValueError(f"{name}: x2 must have at least 1 dimension, got shape {s2}")
    rows = s2[0] if len(s2) == 1 else s2[-2]
    if rows != m:
        raise ValueError(f"{name}: x1 {s1} is {m}x{m} but x2 {s2} has {rows} rows")
    if len(s2) > 1:
        broadcast_shapes(name, s1[:-2], s2[:-2])
    return wrap(dev.ops.linalg_solve(a, b), d, dev)


def matrix_power(x: Array, n: int, /) -> Array:
    """x raised to the integer power n (n < 0 inverts first; n == 0 gives identities)."""
    _floating("matrix_power", x, square=True)
    n = as_int("matrix_power", n, "n")
    return wrap(x._device.ops.linalg_matrix_power(x._data, n), x._dtype, x._device)


def _rtol(name: str, x: Array, rtol: Any):
    """rtol as the backend takes it: a Python float or a native real array."""
    dev = x._device
    if rtol is None:
        # max(M, N) * eps of x's real dtype, as the standard says.
        eps = dev.ops.finfo(_real(x._dtype))["eps"]
        return max(x.shape[-2:]) * eps
    if type(rtol) is Array:
        if rtol._device is not dev:
            raise mixed_devices(name, dev, rtol._device)
        if rtol._dtype.kind != "float":
            raise TypeError(f"{name}: rtol has dtype {rtol._dtype}; expected a real "
                            f"floating-point dtype")
        broadcast_shapes(name, x.shape[:-2], rtol.shape)
        return rtol._data
    if _real_number(rtol):
        return float(rtol)
    raise TypeError(f"{name}: rtol must be a float, a real floating-point array or None, "
                    f"got {rtol!r}")


def matrix_rank(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Number of singular values above ``rtol * largest singular value``."""
    _floating("matrix_rank", x)
    tol = _rtol("matrix_rank", x, rtol)
    dev = x._device
    return wrap(dev.ops.linalg_matrix_rank(x._data, tol), dev.defaults["integral"], dev)


def pinv(x: Array, /, *, rtol: float | Array | None = None) -> Array:
    """Moore-Penrose pseudo-inverse, shape ``(..., N, M)``."""
    _floating("pinv", x)
    tol = _rtol("pinv", x, rtol)
    return wrap(x._device.ops.linalg_pinv(x._data, tol), x._dtype, x._device)


# ---------------------------------------------------------------------------------------
# Norms
# ---------------------------------------------------------------------------------------

_MATRIX_ORDS = (1, -1, 2, -2, _INF, -_INF, "fro", "nuc")
# The norms that are a minimum over rows, columns or singular values: undefined for a
# matrix with no elements (the others are 0 there).
_MIN_ORDS = (-1, -2, -_INF)


def matrix_norm(x: Array, /, *, keepdims: bool = False,
                ord: int | float | Literal["fro", "nuc"] | None = "fro") -> Array:
    """Matrix norm of the last two axes: 'fro', 'nuc', 1, -1, 2, -2, inf or -inf."""
    name = "matrix_norm"
    _floating(name, x)
    _flag(name, keepdims, "keepdims")
    if ord is None:
        ord = "fro"  # Note: like NumPy's norm, None means the Frobenius norm.
    if isinstance(ord, str):
        valid = ord in ("fro", "nuc")
    elif _real_number(ord):
        valid = ord in _MATRIX_ORDS
    else:
        raise TypeError(f"{name}: ord must be 'fro', 'nuc', an int or a float, got {ord!r}")
    if not valid:
        raise ValueError(f"{name}: ord must be one of 'fro', 'nuc', 1, -1, 2, -2, inf, -inf; "
                         f"got {ord!r}")
    if ord in _MIN_ORDS and min(x.shape[-2:]) == 0:
        raise ValueError(f"{name}: ord={ord} is undefined for empty matrices (shape "
                         f"{x.shape})")
    if not isinstance(ord, str) and ord not in (_INF, -_INF):
        ord = int(ord)
    r = x._device.ops.linalg_matrix_norm(x._data, keepdims=keepdims, ord=ord)
    return wrap(r, _real(x._dtype), x._device)


def vector_norm(x: Array, /, *, axis: int | tuple[int, ...] | None = None,
                keepdims: bool = False, ord: int | float = 2) -> Array:
    """Vector p-norm over ``axis`` (all axes by default); any real ``ord``, with 0
    counting non-zeros and ±inf the max/min of ``|x|``."""
    name = "vector_norm"
    expect_array(name, x)
    if x._dtype not in _FLOATING:
        raise bad_dtype(name, x._dtype, "floating-point")
    _flag(name, keepdims, "keepdims")
    if not _real_number(ord):
        raise TypeError(f"{name}: ord must be an int or a float, got {ord!r}")
    if ord != ord:
        raise ValueError(f"{name}: ord must not be NaN")
    axes = None if axis is None else normalize_axes(name, axis, x._data.ndim, "axis")
    r = x._device.ops.linalg_vector_norm(x._data, axis=axes, keepdims=keepdims, ord=ord)
    return wrap(r, _real(x._dtype), x._device)


# ---------------------------------------------------------------------------------------
# Products, diagonals, traces
# ---------------------------------------------------------------------------------------

def cross(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Cross product of 3-element vectors along ``axis`` (other axes broadcast)."""
    name = "cross"
    a, b, d, dev = promote_pair(name, x1, x2, _NUMERIC, "numeric")
    s1, s2 = tuple(a.shape), tuple(b.shape)
    if not s1 or not s2:
        raise ValueError(f"{name}: both arrays need at least one dimension, got shapes "
                         f"{s1} and {s2}")
    ax = vector_axis(name, axis, len(s1), len(s2))
    if s1[ax] != 3 or s2[ax] != 3:
        raise ValueError(f"{name}: the vectors along axis {ax} must have 3 elements, got "
                         f"shapes {s1} and {s2}")
    shape = broadcast_shapes(name, s1, s2)
    return wrap(dev.ops.linalg_cross(a, b, axis=len(shape) + ax), d, dev)


def outer(x1: Array, x2: Array, /) -> Array:
    """Outer product of two 1-D arrays, shape ``(N, M)``."""
    a, b, d, dev = promote_pair("outer", x1, x2, _NUMERIC, "numeric")
    if a.ndim != 1 or b.ndim != 1:
        raise ValueError(f"outer: x1 and x2 must be 1-D, got shapes {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    return wrap(dev.ops.linalg_outer(a, b), d, dev)


def diagonal(x: Array, /, *, offset: int = 0) -> Array:
    """The diagonal (``offset`` above, below if negative) of each matrix, a copy."""
    _matrices("diagonal", x)
    offset = _diagonal_offset("diagonal", x, offset)
    return wrap(x._device.ops.linalg_diagonal(x._data, offset=offset), x._dtype, x._device)


def trace(x: Array, /, *, offset: int = 0, dtype: dt.DType | None = None) -> Array:
    """Sum of the diagonal (``offset``) of each matrix, accumulated like ``sum``."""
    name = "trace"
    _matrices(name, x)
    if x._dtype not in _NUMERIC:
        raise bad_dtype(name, x._dtype, "numeric")
    offset = _diagonal_offset(name, x, offset)
    d = accumulation_dtype(name, x, dtype)  # the rule of sum
    return wrap(x._device.ops.linalg_trace(x._data, offset=offset, dtype=d), d, x._device)


def _diagonal_offset(name: str, x: Array, offset: Any) -> int:
    """``offset`` as an int; one outside the matrix (an empty diagonal, of any size, even
    beyond a C long) is clamped to just outside it, so that every device sees a small
    int."""
    offset = as_int(name, offset, "offset")
    rows, cols = x.shape[-2:]
    return max(-rows, min(offset, cols))
