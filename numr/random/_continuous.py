"""The continuous distributions beyond the normal: exponential, gamma (Marsaglia and
Tsang's method, ACM TOMS 26(3), 2000) and what is built from them, the multivariate
normal through numr.linalg. Each function takes the Generator and the method's
arguments; the Generator's methods are thin wrappers that carry the docstrings."""

from __future__ import annotations

from typing import Any

import numr as xp

from .. import _dtypes as dt
from .._array import Array
from . import _params as pm
from ._rounds import rounds


def standard_gamma(gen: Any, func: str, a: Any, shape: tuple, cd: Any, dev: Any) -> Array:
    """Gamma(a, 1) of ``shape`` in ``cd``; ``a`` (>= 0, scalar or Array) broadcasts.
    a >= 1: d = a - 1/3, c = 1 / sqrt(9 d), candidate d v with v = (1 + c z)^3 accepted
    where log u < z^2 / 2 + d - d v + d log v (z normal, u uniform). a < 1: the a + 1
    variate times u^(1/a), u from one more uniform draw made before the rounds."""
    n = pm.size_of(shape)
    small = a < 1
    scalar = not isinstance(a, Array)
    if scalar:
        a1 = a + 1.0 if small else a
    else:
        a1 = xp.where(small, a + 1.0, a)
    d = a1 - 1.0 / 3.0
    c = 1.0 / (9.0 * d) ** 0.5 if scalar else 1.0 / xp.sqrt(9.0 * d)
    boost = None
    if not scalar or small:
        u = xp.reshape(gen._uniform(n, cd, dev), shape)
        inv_a = 1.0 / a if scalar else 1.0 / xp.where(a > 0, a, 1.0)
        # (1 - u)^(1/a): 1 - u is exact and in (0, 1]; one pow keeps the devices within
        # its accuracy (exp(log1p(-u) / a) multiplied log's rounding by |log(1 - u) / a|)
        boost = xp.pow(1.0 - u, inv_a)

    def propose(g):
        z = xp.reshape(g._std_normal(n, cd, dev), shape)
        u = xp.reshape(g._uniform(n, cd, dev), shape)
        t = 1.0 + c * z
        v = t * t * t
        pos = v > 0
        lv = xp.log(xp.where(pos, v, 1.0))
        ok = xp.logical_and(pos, xp.log1p(-u) < 0.5 * z * z + d - d * v + d * lv)
        return d * v, ok

    x = rounds(gen, func, n, shape, propose, cd, dev)
    if boost is not None:
        x = x * boost if scalar else xp.where(small, x * boost, x)
    if scalar:
        return x if a > 0 else xp.zeros(shape, dtype=cd, device=dev)
    return xp.where(a > 0, x, 0.0)


def beta(gen: Any, a: Any, b: Any, shape: tuple, cd: Any, dev: Any) -> Array:
    """X / (X + Y), X ~ Gamma(a), Y ~ Gamma(b)."""
    x = standard_gamma(gen, "beta", a, shape, cd, dev)
    y = standard_gamma(gen, "beta", b, shape, cd, dev)
    return x / (x + y)


def standard_t(gen: Any, df: Any, shape: tuple, cd: Any, dev: Any) -> Array:
    """z / sqrt(V / df), V ~ chi-square(df) = 2 Gamma(df / 2)."""
    z = xp.reshape(gen._std_normal(pm.size_of(shape), cd, dev), shape)
    v = 2.0 * standard_gamma(gen, "standard_t", df * 0.5, shape, cd, dev)
    return z / xp.sqrt(v / df)


def dirichlet(gen: Any, alpha: Any, size: Any, dtype: Any, device: Any) -> Array:
    """Gamma(alpha_i) draws normalised over the last axis."""
    dev = pm.device_of("dirichlet", device, alpha)
    dtype = pm.float_dtype("dirichlet", dtype, dev)
    cd = pm.compute_dtype(dtype, dev, wide=True)
    al = pm.param("dirichlet", "alpha", alpha, cd, dev)
    if not isinstance(al, Array) or al.ndim != 1 or al.shape[0] == 0:
        raise ValueError("dirichlet: alpha must be a non-empty 1-D array")
    pm.check("dirichlet", "alpha", al, ">0", "positive")
    shape = pm.as_shape("dirichlet", size) + al.shape
    g = standard_gamma(gen, "dirichlet", al, shape, cd, dev)
    x = g / xp.sum(g, axis=-1, keepdims=True)
    return x if dtype is cd else xp.astype(x, dtype)


def multivariate_normal(gen: Any, mean: Any, cov: Any, size: Any, method: str, dtype: Any,
                        device: Any) -> Array:
    """mean + z @ A.T, A A^T = cov: the Cholesky factor (``method="cholesky"``, cov
    positive definite; unique, so every device gets the same factor) or V sqrt(w) from
    numr.linalg.eigh (``"eigh"``, semi-definite allowed)."""
    func = "multivariate_normal"
    dev = pm.device_of(func, device, mean, cov)
    dtype = pm.float_dtype(func, dtype, dev)
    cd = pm.compute_dtype(dtype)
    mu = pm.param(func, "mean", mean, cd, dev)
    cv = pm.param(func, "cov", cov, cd, dev)
    if not isinstance(mu, Array) or mu.ndim != 1:
        raise ValueError(f"{func}: mean must be a 1-D array")
    k = mu.shape[0]
    if not isinstance(cv, Array) or cv.shape != (k, k):
        raise ValueError(f"{func}: cov must have shape ({k}, {k}), got "
                         f"{getattr(cv, 'shape', ())}")
    if method == "cholesky":
        try:
            a = xp.linalg.cholesky(cv)
        except xp.linalg.LinAlgError:
            raise ValueError(f"{func}: cov is not positive definite (use "
                             f"method='eigh' for a semi-definite one)") from None
    elif method == "eigh":
        w, v = xp.linalg.eigh(cv)
        if bool(xp.any(w < -1e-8 * xp.max(xp.abs(w)))):
            raise ValueError(f"{func}: cov is not positive semi-definite")
        a = v * xp.sqrt(xp.clip(w, 0.0, None))
    else:
        raise ValueError(f"{func}: method must be 'cholesky' or 'eigh', got {method!r}")
    shape = pm.as_shape(func, size) + (k,)
    z = xp.reshape(gen._std_normal(pm.size_of(shape), cd, dev), shape)
    x = mu + xp.matmul(z, xp.matrix_transpose(a))
    return x if dtype is cd else xp.astype(x, dtype)
