"""The discrete distributions: Poisson and binomial (inversion for small means, the exact
transformed-rejection methods of Hoermann for large ones: PTRS, "The transformed
rejection method for generating Poisson random variables", Insurance: Mathematics and
Economics 12, 1993; BTRS, "The generation of binomial random variates", J. Statist.
Comput. Simul. 46, 1993), the multinomial by conditional binomials, permutations and
choices by sorting random 64-bit keys."""

from __future__ import annotations

import math
from typing import Any

import numpy as np

import numr as xp

from .. import _dtypes as dt, _ranges
from .._array import Array
from . import _params as pm
from ._integers import _int_dtype
from ._rounds import lgamma, rounds

_INVERSION_BELOW = 10.0   # means below this are drawn by inversion
_TERMS = 48               # inversion's terms: P(X >= 48) < 1e-17 for a mean below 10


def _fdtype(dev: Any) -> Any:
    return dt.float64 if dt.float64 in dev.dtypes else dt.float32


def _select(big: Any, small_fn, big_fn) -> Any:
    """small_fn() where ``big`` is False, big_fn() where True (scalars pick one)."""
    if not isinstance(big, Array):
        return big_fn() if big else small_fn()
    s, b = small_fn(), big_fn()
    return xp.where(big, b, s)


def _uniform2(g: Any, shape: tuple, cd: Any, dev: Any) -> tuple:
    n = pm.size_of(shape)
    u = g._uniform(2 * n, cd, dev)
    return xp.reshape(u[:n], shape), xp.reshape(u[n:], shape)


def poisson(gen: Any, lam: Any, shape: tuple, cd: Any, dev: Any) -> Array:
    n = pm.size_of(shape)
    big = lam >= _INVERSION_BELOW

    def small():
        # X = #{k : F(k) < u}, F the CDF, summed over the first _TERMS terms
        u = xp.reshape(gen._uniform(n, cd, dev), shape)
        lm = xp.where(big, 1.0, lam) if isinstance(big, Array) else lam
        p = xp.exp(-lm) if isinstance(lm, Array) else math.exp(-lm)
        f = p
        x = xp.zeros(shape, dtype=cd, device=dev)
        for k in range(1, _TERMS):
            x = x + xp.astype(u > f, cd)
            p = p * lm / k
            f = f + p
        return x

    def large():
        lm = xp.where(big, lam, 10.0) if isinstance(big, Array) else lam
        sl = xp.sqrt(lm) if isinstance(lm, Array) else math.sqrt(lm)
        loglam = xp.log(lm) if isinstance(lm, Array) else math.log(lm)
        b = 0.931 + 2.53 * sl
        a = -0.059 + 0.02483 * b
        inv_alpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        log_ia = xp.log(inv_alpha) if isinstance(inv_alpha, Array) else math.log(inv_alpha)

        def propose(g):
            u, v = _uniform2(g, shape, cd, dev)
            u = u - 0.5
            us = 0.5 - xp.abs(u)
            ok_us = us > 0
            us = xp.where(ok_us, us, 0.5)
            k = xp.floor((2.0 * a / us + b) * u + lm + 0.43)
            fast = xp.logical_and(us >= 0.07, v <= vr)
            bad = xp.logical_or(k < 0, xp.logical_and(us < 0.013, v > us))
            kk = xp.where(k < 0, 0.0, k)
            lhs = xp.log(xp.where(v > 0, v, 1e-300)) + log_ia - xp.log(a / (us * us) + b)
            slow = lhs <= -lm + kk * loglam - lgamma(kk + 1.0)
            ok = xp.logical_or(fast, xp.logical_and(xp.logical_not(bad), slow))
            return kk, xp.logical_and(ok_us, ok)

        return rounds(gen, "poisson", n, shape, propose, cd, dev)

    x = _select(big, small, large)
    if isinstance(lam, Array):
        return xp.where(lam > 0, x, 0.0)
    return x if lam > 0 else xp.zeros(shape, dtype=cd, device=dev)


def binomial(gen: Any, nt: Any, p: Any, shape: tuple, cd: Any, dev: Any) -> Array:
    """``nt`` trials (float, integral values), probability ``p``; draws with
    min(p, 1 - p) and reflects."""
    n = pm.size_of(shape)
    arr = isinstance(nt, Array) or isinstance(p, Array)
    if isinstance(p, Array):
        flip = p > 0.5
        pp = xp.where(flip, 1.0 - p, p)
    else:
        flip = p > 0.5
        pp = 1.0 - p if flip else p
    q = 1.0 - pp
    mean = nt * pp
    big = mean >= _INVERSION_BELOW

    def small():
        u = xp.reshape(gen._uniform(n, cd, dev), shape)
        sp = xp.where(big, 0.0, pp) if isinstance(big, Array) else pp
        sq = 1.0 - sp
        f = xp.exp(nt * xp.log1p(-xp.asarray(sp, dtype=cd, device=dev)))  # q^n
        px = f
        x = xp.zeros(shape, dtype=cd, device=dev)
        ratio = sp / sq
        for k in range(_TERMS):
            x = x + xp.astype(u > f, cd)
            left = xp.clip(nt - k, 0.0, None) if isinstance(nt, Array) else max(nt - k, 0.0)
            px = px * left / (k + 1) * ratio
            f = f + px
        return xp.minimum(x, nt)

    def large():
        lp = xp.where(big, pp, 0.5) if isinstance(big, Array) else pp
        ln = xp.where(big, nt, 100.0) if isinstance(big, Array) else nt
        lq = 1.0 - lp
        f = xp.sqrt if arr else math.sqrt
        lg = xp.log if arr else math.log
        spq = f(ln * lp * lq)
        b = 1.15 + 2.53 * spq
        a = -0.0873 + 0.0248 * b + 0.01 * lp
        c = ln * lp + 0.5
        vr = 0.92 - 4.2 / b
        alpha = (2.83 + 5.1 / b) * spq
        lpq = lg(lp / lq)
        m = xp.floor((ln + 1) * lp) if arr else math.floor((ln + 1) * lp)
        if arr:
            h = lgamma(m + 1.0) + lgamma(ln - m + 1.0)
        else:
            h = math.lgamma(m + 1.0) + math.lgamma(ln - m + 1.0)

        def propose(g):
            u, v = _uniform2(g, shape, cd, dev)
            u = u - 0.5
            us = 0.5 - xp.abs(u)
            ok_us = us > 0
            us = xp.where(ok_us, us, 0.5)
            k = xp.floor((2.0 * a / us + b) * u + c)
            valid = xp.logical_and(k >= 0, k <= ln)
            kk = xp.clip(k, 0.0, ln) if arr else xp.clip(k, 0.0, float(ln))
            fast = xp.logical_and(us >= 0.07, v <= vr)
            lhs = xp.log(xp.where(v > 0, v, 1e-300) * alpha / (a / (us * us) + b))
            slow = lhs <= h - lgamma(kk + 1.0) - lgamma(ln - kk + 1.0) + (kk - m) * lpq
            ok = xp.logical_and(valid, xp.logical_or(fast, slow))
            return kk, xp.logical_and(ok_us, ok)

        return rounds(gen, "binomial", n, shape, propose, cd, dev)

    x = _select(big, small, large)
    if isinstance(flip, Array):
        return xp.where(flip, nt - x, x)
    return nt - x if flip else x


def multinomial(gen: Any, nt: Any, pvals: Any, size: Any, dtype: Any, device: Any) -> Array:
    """Counts of ``nt`` trials over the k outcomes of ``pvals`` (shape (..., k): a batch
    of probability vectors, broadcast against ``nt`` as NumPy does): outcome i is
    binomial in the trials left with probability p_i / (p_i + ... + p_last) (on the
    host, in float64)."""
    func = "multinomial"
    dev = pm.device_of(func, device, nt, pvals)
    dtype = _int_dtype(dtype, dev, func)
    p = _host_probs(func, "pvals", pvals, None, batch=True)
    cd = _fdtype(dev)
    ntr = _trials(func, nt, cd, dev)
    shapes = [p.shape[:-1]] + ([ntr.shape] if isinstance(ntr, Array) else [])
    try:
        bshape = np.broadcast_shapes(*shapes)
    except ValueError:
        raise ValueError(f"{func}: n of shape {shapes[-1]} and pvals of shape {p.shape} "
                         f"cannot be broadcast together") from None
    if size is None:
        shape = tuple(bshape)
    else:
        shape = pm.as_shape(func, size)
        try:
            if np.broadcast_shapes(shape, bshape) != shape:
                raise ValueError
        except ValueError:
            raise ValueError(f"{func}: n and pvals of batch shape {tuple(bshape)} do not "
                             f"broadcast to size {shape}") from None
    left = ntr
    rest = np.ones(p.shape[:-1])
    outs = []
    for i in range(p.shape[-1] - 1):
        with np.errstate(divide="ignore", invalid="ignore"):
            pi = np.where(rest <= 0, 0.0, np.clip(p[..., i] / rest, 0.0, 1.0))
        # a batch of one vector keeps scalar probabilities (the draws of 1-D pvals)
        pi = float(pi) if pi.ndim == 0 else pm.param(func, "pvals", pi, cd, dev)
        x = binomial(gen, left, pi, shape, cd, dev)
        outs.append(x)
        left = left - x
        rest = rest - p[..., i]
    outs.append(left * xp.ones(shape, dtype=cd, device=dev) if not isinstance(left, Array)
                else xp.broadcast_to(left, shape))
    return xp.astype(xp.stack(outs, axis=-1), dtype)


def _trials(func: str, nt: Any, cd: Any, dev: Any) -> Any:
    """A trial count: a Python float of an int >= 0, or an Array of them in ``cd``."""
    nt = pm._unwrap(nt)
    if isinstance(nt, (int, np.integer)) and not isinstance(nt, bool):
        if nt < 0:
            raise ValueError(f"{func}: n must be >= 0, got {nt}")
        return float(nt)
    if isinstance(nt, (float, np.floating, bool)):
        raise TypeError(f"{func}: n must be an int or an integer array, got "
                        f"{type(nt).__name__}")
    if not isinstance(nt, Array):
        nt = xp.asarray(np.asarray(nt), device=dev)
    if nt.dtype.kind not in ("int", "uint"):
        raise TypeError(f"{func}: n must be an int or an integer array, got dtype "
                        f"{nt.dtype}")
    if bool(xp.any(nt < 0)):
        raise ValueError(f"{func}: n must be >= 0")
    return xp.astype(nt, cd)


def _host_probs(func: str, name: str, p: Any, length: Any, batch: bool = False) -> np.ndarray:
    """Probabilities as float64 on the host: 1-D (``batch``: a batch of vectors along
    the last axis), non-negative, each vector summing to 1 (within sqrt of float64's
    epsilon, as NumPy checks)."""
    p = pm._unwrap(p)
    h = np.asarray(p.to_device("cpu") if isinstance(p, Array) else p, dtype=np.float64)
    if batch:
        if h.ndim == 0 or h.shape[-1] == 0:
            raise ValueError(f"{func}: {name} must have at least 1 dimension and a "
                             f"non-empty last axis, got shape {h.shape}")
    elif h.ndim != 1 or h.size == 0 or (length is not None and h.size != length):
        want = "non-empty" if length is None else f"of length {length}"
        raise ValueError(f"{func}: {name} must be a 1-D array {want}, got shape {h.shape}")
    if not np.all(h >= 0) or not np.all(np.isfinite(h)):
        raise ValueError(f"{func}: {name} must be finite and non-negative")
    sums = h.sum(axis=-1)
    bad = np.abs(sums - 1.0) > 1.5e-8
    if np.any(bad):
        raise ValueError(f"{func}: {name} must sum to 1, got a sum of "
                         f"{float(sums[bad].flat[0])!r}" + (" (along the last axis)" if h.ndim > 1 else ""))
    return h


# --- permutations and choices ------------------------------------------------------------

def _perm_index(gen: Any, n: int, dev: Any) -> Array:
    """A random permutation of range(n) (int64): the stable argsort of n 64-bit keys
    (two words each), so every device sorts the same keys into the same order."""
    w = xp.reshape(xp.astype(gen._bg._draw(2 * n, "u32", dev), dt.uint64), (n, 2))
    keys = xp.bitwise_left_shift(w[:, 0], 32) + w[:, 1]
    return _ranges.note(xp.astype(xp.argsort(keys, stable=True), dt.int64), 0, n - 1)


def permutation(gen: Any, x: Any, axis: int, device: Any) -> Array:
    func = "permutation"
    if isinstance(x, (int, np.integer)) and not isinstance(x, bool):
        if x < 0:
            raise ValueError(f"{func}: x must be >= 0, got {x}")
        dev = pm.device_of(func, device)
        return _perm_index(gen, int(x), dev)
    x = pm._unwrap(x)
    if not isinstance(x, Array):
        x = xp.asarray(x, device=device)
    if x.ndim == 0:
        raise ValueError(f"{func}: x must be an int or an array of at least one dimension")
    dev = pm.device_of(func, device, x)
    axis = _axis(func, axis, x.ndim)
    return xp.take(x, _perm_index(gen, x.shape[axis], dev), axis=axis)


def shuffle(gen: Any, x: Any, axis: int) -> None:
    func = "shuffle"
    if not isinstance(x, Array) or x.ndim == 0:
        raise TypeError(f"{func}: x must be a numr Array of at least one dimension")
    axis = _axis(func, axis, x.ndim)
    x[...] = xp.take(x, _perm_index(gen, x.shape[axis], x.device), axis=axis)


def _axis(func: str, axis: Any, ndim: int) -> int:
    a = pm.index(func, "axis", axis)
    if not -ndim <= a < ndim:
        raise ValueError(f"{func}: axis {a} is out of bounds for {ndim} dimensions")
    return a % ndim


def choice(gen: Any, a: Any, size: Any, replace: bool, p: Any, axis: int, shuffle: bool,
           device: Any) -> Array:
    func = "choice"
    if isinstance(a, (int, np.integer)) and not isinstance(a, bool):
        if a <= 0 and not (a == 0 and size is not None and
                           pm.size_of(pm.as_shape(func, size)) == 0):
            raise ValueError(f"{func}: a must be a positive int or a non-empty array, "
                             f"got {a}")
        pop, n = None, int(a)
        dev = pm.device_of(func, device)
    else:
        pop = pm._unwrap(a)
        if not isinstance(pop, Array):
            pop = xp.asarray(pop, device=device)
        if pop.ndim == 0:
            raise ValueError(f"{func}: a must be an int or an array of at least one "
                             f"dimension")
        dev = pm.device_of(func, device, pop)
        axis = _axis(func, axis, pop.ndim)
        n = pop.shape[axis]
        if n == 0:
            raise ValueError(f"{func}: a must not be empty")
    shape = pm.as_shape(func, size)
    m = pm.size_of(shape)
    probs = None if p is None else _host_probs(func, "p", p, n)
    if replace:
        if probs is None:
            idx = gen.integers(0, n, size=m, device=dev)
        else:
            cdf = np.cumsum(probs)               # on the host: the same cdf for every device
            cd = _fdtype(dev)
            u = gen._uniform(m, cd, dev) * float(cdf[-1])
            c = xp.asarray(cdf, dtype=cd, device=dev)
            idx = xp.minimum(xp.astype(xp.searchsorted(c, u, side="right"), dt.int64),
                             n - 1)
    else:
        if m > n:
            raise ValueError(f"{func}: cannot take {m} samples from {n} without "
                             f"replacement")
        if probs is None:
            idx = _perm_index(gen, n, dev)[:m]
        else:
            if np.count_nonzero(probs) < m:
                raise ValueError(f"{func}: fewer than {m} entries of p are non-zero")
            # Efraimidis and Spirakis: the m smallest of E_i / p_i, E_i exponential
            cd = _fdtype(dev)
            e = gen._std_exponential(n, cd, dev)
            pk = xp.asarray(probs, dtype=cd, device=dev)
            keys = xp.where(pk > 0, e / xp.where(pk > 0, pk, 1.0), xp.inf)
            idx = xp.astype(xp.argsort(keys, stable=True), dt.int64)[:m]
        if not shuffle:
            idx = xp.sort(idx)
    idx = _ranges.note(xp.reshape(idx, shape), 0, n - 1)
    if pop is None:
        return idx
    taken = xp.take(pop, _ranges.note(xp.reshape(idx, (m,)), 0, n - 1), axis=axis)
    return xp.reshape(taken, pop.shape[:axis] + shape + pop.shape[axis + 1:])
