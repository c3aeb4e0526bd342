"""Linear algebra ops for NumPy-like modules: matmul & co and ``linalg_*``.

numr has validated shapes and dtypes and promoted the operands before any op here runs.
The ops and what they receive (every other backend provides the same):

``matmul(a, b)``, ``matrix_transpose(a)``
``tensordot(a, b, axes)``            axes: a pair of equal-length tuples of axes >= 0
``vecdot(a, b, axis)``, ``linalg_cross(a, b, axis)``
                                     axis >= 0, counted in the broadcast shape of a, b
``linalg_<f>(a)`` for det, inv, eig, eigvals, eigh, eigvalsh, slogdet, svdvals;
``linalg_cholesky(a, upper)``, ``linalg_qr(a, mode)``, ``linalg_svd(a, full_matrices)``,
``linalg_diagonal(a, offset)``, ``linalg_matrix_power(a, n)``, ``linalg_outer(a, b)``,
``linalg_solve(a, b)``               b is (M,) or a stack (..., M, K)
``linalg_matrix_rank(a, rtol)``, ``linalg_pinv(a, rtol)``
                                     rtol: a Python float (numr computed the default) or a
                                     native real array broadcasting with a's stack shape;
                                     the rank has the device's default integer dtype
``linalg_matrix_norm(a, keepdims, ord)`` ord is never None; the minimum norms (-1, -2,
                                     -inf) never come with empty matrices
``linalg_vector_norm(a, axis, keepdims, ord)`` axis None or a tuple of axes >= 0
``linalg_trace(a, offset, dtype)``   dtype: the numr accumulation dtype, never None
Decompositions return tuples of native arrays, in the standard's order. A singular or
non-positive-definite matrix, or a factorization that does not converge, raises
:class:`numr.linalg.LinAlgError` naming the function.

What this module corrects:

* LAPACK has no half precision: float16 matrices are computed in float32 and the
  results cast back, so every op returns exactly the dtype numr decided.
* NumPy returns 0-d results as scalars, and ``eig`` real arrays when every eigenvalue
  is real: results are made native arrays of the dtype the standard gives.
* The library's ``LinAlgError`` becomes numr's :class:`numr.linalg.LinAlgError`.
* Empty reductions (a norm over zero elements, the rank of an empty matrix) have
  defined values instead of NumPy's "zero-size array" errors.

Functions whose NumPy and CuPy versions disagree on batching or keywords (solve,
pinv, matrix_power, cholesky's ``upper``) are written here once from batched
primitives, so both modules give the same results.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any, Callable

import numpy as _np  # shape arithmetic, and eig where the library has none

from types import SimpleNamespace

from ... import _dtypes as dt
from ..._errors import LinAlgError

if TYPE_CHECKING:
    from . import Context


def build(c: Context) -> dict[str, Callable[..., Any]]:
    t = _tools(c)
    ops: dict = {}
    for group in (_products, _factorizations, _inverses, _singular_values, _others):
        ops.update(group(c, t))
    return ops


def _named(scope: dict) -> dict:
    """The ops a group defined: the main namespace's four and every ``linalg_*``."""
    return {name: f for name, f in scope.items()
            if name.startswith("linalg_") or name in _MAIN}


_MAIN = ("matmul", "tensordot", "vecdot")


def _tools(c) -> SimpleNamespace:
    """What the groups share: the library's linalg, dtype lifting, numr's error for the
    library's, and the guards around LAPACK/cuSOLVER calls."""
    xp, compat, ndarray = c.xp, c.compat, c.ndarray
    asarray = xp.asarray
    la = xp.linalg

    library_error = getattr(la, "LinAlgError", _np.linalg.LinAlgError)
    halves, f32 = (xp.dtype("float16"), c.bf16), xp.dtype("float32")
    _matmul, _swapaxes = xp.matmul, xp.swapaxes

    def real_of(d):
        """The native real dtype of the same precision as native dtype d."""
        return c.native[dt.REAL_OF.get(c.numr[d], c.numr[d])]

    def complex_of(d):
        n = c.numr[d]
        return c.native[n if n.kind == "complex" else dt.COMPLEX_OF[n]]

    def lift(a):
        # LAPACK (and cuSOLVER) have no half-precision (float16, bfloat16) routines.
        return a.astype(f32) if a.dtype in halves else a

    def out(r, d):
        """r as a native array of native dtype d."""
        if type(r) is not ndarray:
            r = asarray(r)
        return r if r.dtype == d else r.astype(d)

    if xp.__name__ == "cupy":
        import cupyx

        def checking():
            # CuPy returns inf/nan for a singular matrix unless asked to check the
            # solver's status (a sync point); numr raises on every device.
            return cupyx.errstate(linalg="raise")
        def unchecked():
            return cupyx.errstate(linalg="ignore")
    else:
        checking = unchecked = _Null

    def nonfinite_passes(f):
        """LAPACK's LU does not call a NaN pivot singular (its result is NaN); cuSOLVER's
        does. Where CuPy's checked call fails on a matrix holding NaN or inf, it runs
        again unchecked, so every device returns NaNs instead of raising."""
        def op(a, *args):  # runs inside guarded's checking()
            try:
                return f(a, *args)
            except library_error:
                if xp.__name__ == "numpy" or bool(xp.isfinite(a).all()):
                    raise
                with unchecked():
                    return poison(f(a, *args), a)
        op.__name__ = f.__name__
        return op

    def poison(r, a):
        """r with NaN wherever its matrix (or vector) came from a non-finite matrix of a:
        unchecked cuSOLVER may pivot past the NaN and return finite numbers or inf."""
        bad = ~xp.isfinite(a).all(axis=(-2, -1))
        tail = 1 if r.ndim == a.ndim - 1 else 2   # solve's vector b gives vectors
        bad = bad.reshape(bad.shape + (1,) * tail)
        return xp.where(bad, xp.asarray(_np.nan, dtype=r.dtype), r)

    def guarded(name, what):
        """Run a LAPACK-backed function, turning the library's error into numr's."""
        def wrap(f):
            def op(*args, **kwargs):
                try:
                    with checking():
                        return f(*args, **kwargs)
                except library_error:
                    raise LinAlgError(f"{name}: {what}") from None  # one message everywhere
            op.__name__ = name
            return op
        return wrap

    def mT(a):
        return _swapaxes(a, -1, -2)

    def mH(a):
        return xp.conj(mT(a)) if a.dtype.kind == "c" else mT(a)

    def nan_in_nan_out(a, f):
        """f(a), with NaN for every result of a matrix holding NaN or inf (numr's rule on
        every device; LAPACK reads one triangle and may return finite numbers or fail)."""
        try:
            r = f(lift(a))
        except library_error:
            if bool(xp.isfinite(a).all()):
                raise
            with unchecked():
                r = f(lift(xp.where(xp.isfinite(a), a, xp.zeros((), a.dtype))))
        if isinstance(r, tuple):
            return tuple(poison(x, a) for x in r)
        return poison(r, a)

    is_numpy = xp.__name__ == "numpy"

    def svd(a, name, **kw):
        """The library's SVD of ``a`` (lifted). LAPACK refuses NaN or infinite input (did
        not converge), cuSOLVER returns NaNs; LAPACK scales a tiny matrix first, cuSOLVER
        loses digits once squares underflow (1e-5 relative on subnormal entries). So CuPy
        input is checked (one sync on the largest magnitude of each matrix): non-finite
        raises as on every device, and a matrix whose largest entry is below
        sqrt(realmin) is scaled by a power of two (exact) and its singular values back."""
        a = lift(a)
        if is_numpy or not a.size:
            return la.svd(a, **kw)
        m = xp.abs(a).max(axis=(-2, -1))
        top = m.get()
        if not _np.isfinite(top).all():
            raise LinAlgError(f"{name}: the singular value computation did not converge "
                              f"(the matrix holds infinities or NaNs)")
        if not (top < _np.sqrt(_np.finfo(top.dtype).tiny)).any():
            return la.svd(a, **kw)
        # the largest entry to [0.5, 1) where that factor is representable (a float32
        # subnormal needs up to 2^149: 2^126 at most, the entries are normal then)
        fi = _np.finfo(top.dtype)
        e = xp.clip(xp.frexp(m)[1], 2 - fi.maxexp, 0)
        f = xp.ldexp(xp.ones((), dtype=m.dtype), -e)
        r = la.svd(a * f[..., None, None], **kw)
        if not kw.get("compute_uv", True):
            return r / f[..., None]
        u, sv, vh = r
        return u, sv / f[..., None], vh

    def _tolerance(s, rtol):
        """rtol * largest singular value, shaped to compare with s (..., K)."""
        smax = s.max(axis=-1, keepdims=True)
        if type(rtol) is ndarray:
            rtol = rtol[..., None]
        return smax * rtol

    return SimpleNamespace(**locals())


def _products(c, t) -> dict:
    """matmul, tensordot, vecdot."""
    xp, compat, ndarray, asarray = t.xp, t.compat, t.ndarray, t.asarray
    out, _matmul = t.out, t._matmul

    def matmul(a, b):
        r = _matmul(a, b)
        return r if type(r) is ndarray else asarray(r)

    def tensordot(a, b, axes):
        return c.arr(xp.tensordot(a, b, axes=axes))

    def vecdot(a, b, axis):
        # axis counts in the broadcast shape; each operand is addressed from its end.
        neg = axis - max(a.ndim, b.ndim)
        return out(compat.vecdot(a, b, axis=neg), a.dtype)

    return _named(locals())


def _factorizations(c, t) -> dict:
    """cholesky, eigh, eigvalsh, eig, eigvals, qr, slogdet."""
    xp, la, lift, out = t.xp, t.la, t.lift, t.out
    guarded, real_of, complex_of, mH = t.guarded, t.real_of, t.complex_of, t.mH
    nan_in_nan_out = t.nan_in_nan_out

    @guarded("cholesky", "a matrix is not positive definite")
    def linalg_cholesky(a, upper=False):
        low = la.cholesky(lift(a))
        return out(mH(low) if upper else low, a.dtype)

    @guarded("eigh", "the eigenvalue computation did not converge")
    def linalg_eigh(a):
        w, v = nan_in_nan_out(a, la.eigh)
        return out(w, real_of(a.dtype)), out(v, a.dtype)

    @guarded("eigvalsh", "the eigenvalue computation did not converge")
    def linalg_eigvalsh(a):
        return out(nan_in_nan_out(a, la.eigvalsh), real_of(a.dtype))

    @guarded("eig", "the eigenvalue computation failed")
    def linalg_eig(a):
        # NumPy returns real arrays when every eigenvalue is real; the standard wants
        # complex ones always.
        w, v = general_eig(a, True)
        d = complex_of(a.dtype)
        return out(w, d), out(v, d)

    @guarded("eigvals", "the eigenvalue computation failed")
    def linalg_eigvals(a):
        return out(general_eig(a, False), complex_of(a.dtype))

    def general_eig(a, vectors):
        # LAPACK's geev refuses NaN/inf in NumPy; CuPy returns NaNs: one rule for both.
        if a.size and not bool(xp.isfinite(a).all()):
            raise LinAlgError("eig: the matrix holds infinities or NaNs")
        f = getattr(la, "eig" if vectors else "eigvals", None)
        if f is not None:
            return f(lift(a))
        # Note: a CuPy without a general eigensolver computes on the host.
        r = getattr(_np.linalg, "eig" if vectors else "eigvals")(a.get())
        return tuple(xp.asarray(t) for t in r) if vectors else xp.asarray(r)

    @guarded("qr", "the factorization did not converge")
    def linalg_qr(a, mode="reduced"):
        q, r = la.qr(lift(a), mode=mode)
        return out(q, a.dtype), out(r, a.dtype)

    @guarded("slogdet", "the factorization failed")
    def linalg_slogdet(a):
        sign, logabs = la.slogdet(lift(a))
        return out(sign, a.dtype), out(logabs, real_of(a.dtype))

    return _named(locals())


def _inverses(c, t) -> dict:
    """inv, solve."""
    xp, la, lift, out = t.xp, t.la, t.lift, t.out
    guarded, nonfinite_passes = t.guarded, t.nonfinite_passes

    @guarded("inv", "a matrix is singular")
    @nonfinite_passes
    def linalg_inv(a):
        return out(la.inv(lift(a)), a.dtype)

    @guarded("solve", "a matrix is singular")
    @nonfinite_passes
    def linalg_solve(a, b):
        # One batched call on explicitly broadcast stacks: NumPy and CuPy differ on
        # how they broadcast, and a 1-D b is one vector for every matrix.
        vector = b.ndim == 1
        if vector:
            b = b[:, None]
        batch = _np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
        a2 = xp.broadcast_to(lift(a), batch + a.shape[-2:])
        b2 = xp.broadcast_to(lift(b), batch + b.shape[-2:])
        if b2.size == 0 or a2.size == 0:
            # Nothing to solve; CuPy's solver fails on empty operands.
            r = xp.zeros(b2.shape, dtype=a2.dtype)
        else:
            r = la.solve(a2, b2)
        return out(r[..., 0] if vector else r, a.dtype)

    return _named(locals())


def _singular_values(c, t) -> dict:
    """svd, svdvals, matrix_rank, pinv, matrix_norm."""
    xp, ndarray, la, lift = t.xp, t.ndarray, t.la, t.lift
    out, guarded, real_of, mH = t.out, t.guarded, t.real_of, t.mH
    _matmul, svd, tolerance = t._matmul, t.svd, t._tolerance

    @guarded("svd", "the singular value computation did not converge")
    def linalg_svd(a, full_matrices=True):
        u, s, vh = svd(a, "svd", full_matrices=full_matrices)
        return out(u, a.dtype), out(s, real_of(a.dtype)), out(vh, a.dtype)

    @guarded("svdvals", "the singular value computation did not converge")
    def linalg_svdvals(a):
        return out(svd(a, "svdvals", compute_uv=False), real_of(a.dtype))

    @guarded("matrix_rank", "the singular value computation did not converge")
    def linalg_matrix_rank(a, rtol):
        idx = c.native[c.device.defaults["integral"]]
        batch = a.shape[:-2]
        if min(a.shape[-2:]) == 0:
            shape = batch if type(rtol) is not ndarray else _np.broadcast_shapes(batch, rtol.shape)
            return xp.zeros(shape, dtype=idx)
        s = svd(a, "matrix_rank", compute_uv=False)
        return out(xp.count_nonzero(s > tolerance(s, rtol), axis=-1), idx)

    @guarded("pinv", "the singular value computation did not converge")
    def linalg_pinv(a, rtol):
        m, n = a.shape[-2:]
        batch = a.shape[:-2]
        if type(rtol) is ndarray:
            batch = _np.broadcast_shapes(batch, rtol.shape)
        if m == 0 or n == 0:
            return xp.zeros(batch + (n, m), dtype=a.dtype)
        u, s, vh = svd(a, "pinv", full_matrices=False)
        keep = s > tolerance(s, rtol)
        s_inv = xp.where(keep, 1 / xp.where(keep, s, 1), 0)
        r = _matmul(mH(vh) * s_inv[..., None, :], mH(u))
        return out(xp.broadcast_to(r, batch + (n, m)), a.dtype)

    @guarded("matrix_norm", "the singular value computation did not converge")
    def linalg_matrix_norm(a, keepdims=False, ord="fro"):
        d = real_of(a.dtype)
        m, n = a.shape[-2:]
        if m == 0 or n == 0:
            # numr only sends the norms that are 0 for an empty matrix.
            shape = a.shape[:-2] + ((1, 1) if keepdims else ())
            return xp.zeros(shape, dtype=d)
        r = la.norm(lift(a), ord=ord, axis=(-2, -1), keepdims=keepdims)
        return out(r, d)

    return _named(locals())


def _others(c, t) -> dict:
    """cross, det, diagonal, trace, vector_norm (matrix_transpose, matrix_power and outer
    are derived: numr/backends/_derived.py)."""
    xp, compat, la, lift = t.xp, t.compat, t.la, t.lift
    out, real_of = t.out, t.real_of

    def linalg_cross(a, b, axis):
        neg = axis - max(a.ndim, b.ndim)
        return c.arr(xp.cross(a, b, axis=neg))

    def linalg_det(a):
        return out(la.det(lift(a)), a.dtype)

    def linalg_diagonal(a, offset=0):
        # A copy: NumPy's diagonal is a read-only view, CuPy's a writable one.
        return xp.diagonal(a, offset=offset, axis1=-2, axis2=-1).copy()

    def linalg_trace(a, offset=0, dtype=None):
        d = c.native[dtype]
        return out(xp.trace(a, offset=offset, axis1=-2, axis2=-1, dtype=d), d)

    def linalg_vector_norm(a, axis=None, keepdims=False, ord=2):
        d = real_of(a.dtype)
        axes = tuple(range(a.ndim)) if axis is None else axis
        if math.prod(a.shape[i] for i in axes) == 0:
            # The norm of no elements: an empty sum is 0 and an empty max is 0 (|a| >= 0);
            # negative orders take 1/|a|, so their empty norm is 1/0 = inf.
            shape = tuple(1 if i in axes else s for i, s in enumerate(a.shape) if keepdims or i not in axes)
            return xp.full(shape, math.inf if ord < 0 else 0.0, dtype=d)
        # Every axis in order as None and one axis as an int: NumPy's tuple path transposes
        # and reshapes first (8 float32 elements: 15 us against 4.3). Only a negative
        # order divides by zero (1/|0|).
        ax = None if axes == tuple(range(a.ndim)) else axes[0] if len(axes) == 1 else axes
        with _quiet(xp) if ord < 0 else _NULL:
            r = compat.linalg.vector_norm(a, axis=ax, keepdims=keepdims, ord=ord)
        return out(r, d)

    return _named(locals())


class _Null:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


_NULL = _Null()


def _quiet(xp):
    """Silence the library's divide-by-zero warnings (1/|0| is the intended inf)."""
    errstate = getattr(xp, "errstate", None)
    return errstate(divide="ignore", over="ignore") if errstate is not None else _NULL
