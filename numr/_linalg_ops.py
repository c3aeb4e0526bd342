"""The main namespace's linear algebra: matmul, matrix_transpose, tensordot, vecdot.

Also the ``@`` operators of Array (attached with the others in ``_array.py``).

Semantics decided here, identically for every device:

* operands: two numr arrays on one device, promoted with the promotion table; bool
  is rejected (the standard's functions are for numeric dtypes; NumPy's bool matmul
  is not one numr keeps).
* shapes: checked before the backend runs, so a mismatch is a ValueError naming the
  function and both shapes, never a library error.
"""

from __future__ import annotations

from typing import Any, Sequence

from ._array import Array
from . import _ranges
from ._checks import is_ndarray as _is_ndarray
from ._dtypes import CATEGORY
from ._linalg_checks import (
    as_int, broadcast_shapes, expect_array, normalize_axes, promote_pair, vector_axis, wrap,
)

__all__ = ["matmul", "matrix_transpose", "tensordot", "vecdot"]

_new = object.__new__
_NUMERIC = CATEGORY["numeric"]
_FLOATING = CATEGORY["floating-point"]


# ---------------------------------------------------------------------------------------
# matmul
# ---------------------------------------------------------------------------------------

def _check_matmul(s1: tuple, s2: tuple) -> None:
    """Raise the ValueError for shapes that do not multiply (shapes are tuples)."""
    if not s1 or not s2:
        raise ValueError(f"matmul: both arrays need at least one dimension, got shapes "
                         f"{s1} and {s2}")
    k2 = s2[-2] if len(s2) > 1 else s2[0]
    if s1[-1] != k2:
        raise ValueError(f"matmul: shapes {s1} and {s2} are not aligned: size {s1[-1]} of "
                         f"x1's last axis != size {k2} of x2's "
                         f"{'second-to-last' if len(s2) > 1 else 'only'} axis")
    if len(s1) > 2 or len(s2) > 2:
        b1, b2 = s1[:-2], s2[:-2]
        try:
            broadcast_shapes("matmul", b1, b2)
        except ValueError:
            raise ValueError(f"matmul: the stack shapes {b1} and {b2} of x1 {s1} and x2 "
                             f"{s2} cannot be broadcast together") from None


def _simple_matmul(s1: tuple, s2: tuple) -> bool:
    """Two matrices, or two vectors, whose inner lengths agree (checked inline)."""
    n1 = len(s1)
    if n1 != len(s2) or n1 > 2 or not n1:
        return False
    return s1[-1] == s2[0]


def matmul(x1: Array, x2: Array, /) -> Array:
    """Matrix product with broadcasting over stacks (the ``@`` operator)."""
    # Fast path: one dtype, one device, two matrices that fit.
    if (type(x1) is Array and type(x2) is Array and x1._dtype is x2._dtype
            and x1._device is x2._device and x1._dtype in _NUMERIC):
        a, b = x1._data, x2._data
        s1, s2 = a.shape, b.shape
        if not _simple_matmul(s1, s2):
            _check_matmul(tuple(s1), tuple(s2))
        o = _new(Array)
        o._data = x1._device.ops.matmul(a, b)
        o._dtype = x1._dtype
        o._device = x1._device
        return o
    a, b, d, dev = promote_pair("matmul", x1, x2, _NUMERIC, "numeric")
    _check_matmul(tuple(a.shape), tuple(b.shape))
    return wrap(dev.ops.matmul(a, b), d, dev)


def _matmul_op(self: Array, other: Array, /) -> Array:
    # The fast path of matmul again, inline: ``a @ b`` is the common spelling.
    if (type(other) is Array and other._dtype is self._dtype
            and other._device is self._device and self._dtype in _NUMERIC):
        a, b = self._data, other._data
        s1, s2 = a.shape, b.shape
        if not _simple_matmul(s1, s2):
            _check_matmul(tuple(s1), tuple(s2))
        o = _new(Array)
        o._data = self._device.ops.matmul(a, b)
        o._dtype = self._dtype
        o._device = self._device
        return o
    if type(other) is not Array:
        return matmul(self, other) if _is_ndarray(other) else NotImplemented
    return matmul(self, other)


def _rmatmul_op(self: Array, other: Array, /) -> Array:
    if type(other) is not Array:
        return matmul(other, self) if _is_ndarray(other) else NotImplemented
    return matmul(other, self)


def _imatmul_op(self: Array, other: Array, /) -> Array:
    if type(other) is not Array:
        return NotImplemented
    r = matmul(self, other)
    if r._dtype is not self._dtype:
        raise TypeError(f"matmul (in place): the result dtype {r._dtype} differs from the "
                        f"array's dtype {self._dtype}")
    if tuple(r._data.shape) != tuple(self._data.shape):
        raise ValueError(f"matmul (in place): the result shape {tuple(r._data.shape)} differs "
                         f"from the array's shape {tuple(self._data.shape)}")
    if _ranges._notes:
        _ranges.wrote(self)
    self._device.ops.assign(self._data, r._data)
    return self


_matmul_op.__name__ = "__matmul__"
_rmatmul_op.__name__ = "__rmatmul__"
_imatmul_op.__name__ = "__imatmul__"
# Array's @ operators (``_array.py`` attaches them with the elementwise ones).
OPERATORS = {"__matmul__": _matmul_op, "__rmatmul__": _rmatmul_op, "__imatmul__": _imatmul_op}


# ---------------------------------------------------------------------------------------
# matrix_transpose, tensordot, vecdot
# ---------------------------------------------------------------------------------------

def matrix_transpose(x: Array, /) -> Array:
    """Swap the last two axes of a matrix or a stack of matrices."""
    expect_array("matrix_transpose", x)
    if x._data.ndim < 2:
        raise ValueError(f"matrix_transpose: x must have at least 2 dimensions, got shape "
                         f"{x.shape}")
    return wrap(x._device.ops.matrix_transpose(x._data), x._dtype, x._device)


def _tensordot_axes(axes: Any, n1: int, n2: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    name = "tensordot"
    if isinstance(axes, (list, tuple)):
        if len(axes) != 2:
            raise ValueError(f"{name}: axes must be an int or a pair of axis sequences, "
                             f"got {axes!r}")
        first, second = axes
        # Note: like NumPy, an int in place of a sequence names one axis.
        first = normalize_axes(name, first, n1, "axes[0]")
        second = normalize_axes(name, second, n2, "axes[1]")
        if len(first) != len(second):
            raise ValueError(f"{name}: axes {axes!r} give {len(first)} axes of x1 but "
                             f"{len(second)} of x2")
        return first, second
    k = as_int(name, axes, "axes")
    if k < 0:
        raise ValueError(f"{name}: axes must be a non-negative int, got {k}")
    if k > n1 or k > n2:
        raise ValueError(f"{name}: cannot contract {k} axes of arrays with {n1} and {n2} "
                         f"dimensions")
    return tuple(range(n1 - k, n1)), tuple(range(k))


def tensordot(x1: Array, x2: Array, /, *,
              axes: int | tuple[Sequence[int], Sequence[int]] = 2) -> Array:
    """Tensor contraction of x1 and x2 over the given axes."""
    a, b, d, dev = promote_pair("tensordot", x1, x2, _NUMERIC, "numeric")
    s1, s2 = tuple(a.shape), tuple(b.shape)
    first, second = _tensordot_axes(axes, len(s1), len(s2))
    for i, j in zip(first, second):
        if s1[i] != s2[j]:
            raise ValueError(f"tensordot: axis {i} of x1 {s1} has size {s1[i]} but axis "
                             f"{j} of x2 {s2} has size {s2[j]}; contracted axes do not "
                             f"broadcast")
    return wrap(dev.ops.tensordot(a, b, axes=(first, second)), d, dev)


def vecdot(x1: Array, x2: Array, /, *, axis: int = -1) -> Array:
    """Dot product of vectors along ``axis``, conjugating x1 (``sum(conj(x1) * x2)``)."""
    a, b, d, dev = promote_pair("vecdot", x1, x2, _NUMERIC, "numeric")
    s1, s2 = tuple(a.shape), tuple(b.shape)
    if not s1 or not s2:
        raise ValueError(f"vecdot: both arrays need at least one dimension, got shapes "
                         f"{s1} and {s2}")
    ax = vector_axis("vecdot", axis, len(s1), len(s2))
    if s1[ax] != s2[ax]:
        raise ValueError(f"vecdot: the vectors along axis {ax} have sizes {s1[ax]} (x1 "
                         f"{s1}) and {s2[ax]} (x2 {s2}); the contracted axis does not "
                         f"broadcast")
    shape = broadcast_shapes("vecdot", s1, s2)
    return wrap(dev.ops.vecdot(a, b, axis=len(shape) + ax), d, dev)
