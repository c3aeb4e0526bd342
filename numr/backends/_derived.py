"""Ops composed from the primitives, once for every backend.

Many ops of the contract are compositions every backend would write the same way
(``fftshift`` is a roll, ``unique_values`` a part of ``unique``, ``zeros_like`` a
``zeros`` of the input's shape). They are written here, over the ops of one device, and
``complete(ops)`` adds each one the backend did not define itself. A backend still
defines a derived op where its own is faster or more exact; the backend says so where it
does (``numr/backends/ndarray/`` keeps ``mean`` and ``zeros``).

Each derived op looks its primitives up on the ops namespace at call time, so wrappers
put around the ops later (the CUDA backend's "make GPU i current", a test's recorder)
see every primitive call. Native arrays' ``.dtype`` is a numr dtype or a NumPy dtype of
one (``dtype_of``).
"""

from __future__ import annotations

import math
from types import SimpleNamespace
from typing import Any, Callable

from .. import _dtypes as dt
from .._errors import LinAlgError


def dtype_of(x: Any) -> dt.DType:
    """The numr dtype of native array ``x`` (GPUArray's is one; NumPy's and CuPy's are
    ``numpy.dtype``s)."""
    d = x.dtype
    return d if type(d) is dt.DType else dt.from_numpy(d)


# --- creation ---------------------------------------------------------------------------

def _empty_like(ops):
    return lambda x, dtype: ops.empty(tuple(x.shape), dtype)


def _zeros_like(ops):
    return lambda x, dtype: ops.zeros(tuple(x.shape), dtype)


def _ones_like(ops):
    return lambda x, dtype: ops.ones(tuple(x.shape), dtype)


def _full_like(ops):
    return lambda x, fill_value, dtype: ops.full(tuple(x.shape), fill_value, dtype)


def _zeros(ops):
    return lambda shape, dtype: ops.full(shape, 0, dtype)


def _ones(ops):
    return lambda shape, dtype: ops.full(shape, 1, dtype)


# --- manipulation -----------------------------------------------------------------------

def _matrix_transpose(ops):
    def matrix_transpose(x):
        n = x.ndim
        return ops.permute_dims(x, tuple(range(n - 2)) + (n - 1, n - 2))
    return matrix_transpose


def _moveaxis(ops):
    def moveaxis(x, source, destination):
        # source and destination: tuples of distinct non-negative axes, of one length
        order = [a for a in range(x.ndim) if a not in source]
        for dst, src in sorted(zip(destination, source)):
            order.insert(dst, src)
        return ops.permute_dims(x, tuple(order))
    return moveaxis


def _unstack(ops):
    def unstack(x, *, axis):
        head = (slice(None),) * axis
        return tuple(ops.getitem(x, head + (i,)) for i in range(x.shape[axis]))
    return unstack


# --- statistics and sets ------------------------------------------------------------------

def _mean(ops):
    def mean(x, axis, keepdims):
        # The sum in x's dtype over the count of its elements: NaN for none (0 / 0).
        n = math.prod(x.shape[a] for a in axis)
        s = ops.sum(x, axis=axis, dtype=dtype_of(x), keepdims=keepdims)
        return ops.divide(s, float(n))
    return mean


def _unique_all(ops):
    return lambda x: ops.unique(x, first=True, inverse=True, counts=True)


def _unique_counts(ops):
    return lambda x: ops.unique(x, counts=True)


def _unique_inverse(ops):
    return lambda x: ops.unique(x, inverse=True)


def _unique_values(ops):
    return lambda x: ops.unique(x)[0]


# --- linalg and fft -----------------------------------------------------------------------

def _matrix_power(ops):
    def linalg_matrix_power(x, n):
        if n == 0:
            d, k = dtype_of(x), x.shape[-1]
            return ops.astype(ops.broadcast_to(ops.eye(k, k, 0, d), tuple(x.shape)), d, True)
        base = x
        if n < 0:
            try:
                base = ops.linalg_inv(x)
            except LinAlgError:  # numr names the function the user called
                raise LinAlgError("matrix_power: a matrix is singular") from None
            n = -n
        # Square and multiply, with batched matmul over stacks.
        result = None
        while True:
            if n & 1:
                result = base if result is None else ops.matmul(result, base)
            n >>= 1
            if not n:
                break
            base = ops.matmul(base, base)
        return ops.astype(result, dtype_of(x), True) if result is x else result
    return linalg_matrix_power


def _outer(ops):
    return lambda x1, x2: ops.multiply(ops.reshape(x1, (x1.shape[0], 1), copy=None), x2)


def _shift(sign: int) -> Callable:
    def make(ops):
        def shift(x, axes):
            return ops.roll(x, tuple(sign * (x.shape[a] // 2) for a in axes), axis=tuple(axes))
        return shift
    return make


# op name -> factory(ops) -> op. The primitives each one uses are the contract's.
DERIVED: dict[str, Callable[[Any], Callable]] = {
    "empty_like": _empty_like, "zeros_like": _zeros_like, "ones_like": _ones_like,
    "full_like": _full_like, "zeros": _zeros, "ones": _ones,
    "matrix_transpose": _matrix_transpose, "moveaxis": _moveaxis, "unstack": _unstack,
    "mean": _mean,
    "unique_all": _unique_all, "unique_counts": _unique_counts,
    "unique_inverse": _unique_inverse, "unique_values": _unique_values,
    "linalg_matrix_power": _matrix_power, "linalg_outer": _outer,
    "fft_fftshift": _shift(1), "fft_ifftshift": _shift(-1),
}


def complete(ops: SimpleNamespace) -> SimpleNamespace:
    """``ops`` with every derived op it lacks (the backend's own ops stay)."""
    for name, make in DERIVED.items():
        if not hasattr(ops, name):
            setattr(ops, name, make(ops))
    return ops
