"""numr.random.Generator: distributions made from Philox words by numr's own operations.

Only the words (and the uniform floats they convert to exactly) come from a per-device
kernel; every transform (Box-Muller's log, cos and sin, the rejection rounds of gamma,
...) is a numr namespace operation on the draw's device, so every device computes the
same math: integers and uniform floats are bit-identical across devices, transformed
variates agree to the accuracy of numr's elementwise functions there.

Uniform floats: float64 from 53 bits of two words, ``((w0 >> 5) * 2^26 + (w1 >> 6)) *
2^-53``; float32 from 24 bits, ``(w >> 8) * 2^-24``; float16 from 11 bits and bfloat16
from 8; all in [0, 1), never 1.0.
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

import numr as xp

from .. import _dtypes as dt
from .._array import Array
from .._devices import Device
from . import _params as pm
from ._philox import Philox, _Size, _kernels

__all__ = ["Generator", "default_rng"]


def default_rng(seed: Any = None) -> "Generator":
    """A Generator over ``Philox(seed)`` (``seed``: None, an int, a sequence of ints, a
    ``numpy.random.SeedSequence``, a Philox or a Generator, which is returned as is)."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, Philox):
        return Generator(seed)
    return Generator(Philox(seed))


class Generator:
    """Random variates drawn on any numr device, shaped like numpy.random.Generator.

    Every method takes ``size`` (None: the broadcast shape of the array parameters, a 0-d
    array where they are scalars), ``dtype=`` and ``device=`` (default: the device of an
    array parameter, else the default device), and returns a numr Array. Array
    parameters (``loc``, ``scale``, ``p``, ...) may be numr arrays on that device, or
    NumPy arrays and lists, and broadcast against each other and ``size``.
    """

    def __init__(self, bit_generator: Philox):
        if not isinstance(bit_generator, Philox):
            raise TypeError(f"Generator: bit_generator must be a numr.random.Philox, got "
                            f"{type(bit_generator).__name__}")
        self._bg = bit_generator

    @property
    def bit_generator(self) -> Philox:
        return self._bg

    def spawn(self, n_children: int) -> list[Generator]:
        """``n_children`` independent Generators (see Philox.spawn)."""
        return [Generator(b) for b in self._bg.spawn(n_children)]

    def __repr__(self) -> str:
        return f"Generator({self._bg!r})"

    # --- building blocks -----------------------------------------------------------------

    def _uniform(self, n: int, dtype: Any, device: Any) -> Array:
        """1-D, ``n`` uniforms in [0, 1) of ``dtype`` (exact, so the same on every
        device): float32/float64 straight from the kernel, narrower floats from the top
        bits of a word."""
        if dtype is dt.float64:
            return self._bg._draw(n, "f64", device)
        if dtype is dt.float32:
            return self._bg._draw(n, "f32", device)
        bits = 11 if dtype is dt.float16 else 8
        w = self._bg._draw(n, "u32", device)
        u = xp.astype(xp.bitwise_right_shift(w, 32 - bits), dt.float32) * 2.0 ** -bits
        return xp.astype(u, dtype)

    def _std_normal(self, n: int, cdtype: Any, device: Any) -> Array:
        """1-D, ``n`` standard normals of ``cdtype`` (float32/float64) by Box-Muller:
        pair k takes uniforms 2k and 2k + 1 (u, v) of 2 ceil(n / 2); elements 2k and
        2k + 1 are ``r cos(t)`` and ``r sin(t)``, ``r = sqrt(-2 log1p(-u))``, ``t =
        fl(2 pi) v``, each step rounded as one numr operation. A kernel module with
        ``NORMALS`` (CUDA) computes the same steps in one kernel."""
        m = -(-n // 2)
        if getattr(_kernels(device), "NORMALS", False):
            z = self._bg._draw(2 * m, "n64" if cdtype is dt.float64 else "n32", device)
            return z if 2 * m == n else z[:n]
        u = self._uniform(2 * m, cdtype, device)
        r = xp.sqrt(-2.0 * xp.log1p(-u[0::2]))      # 1 - u is in (0, 1]: r is finite
        t = (2.0 * np.pi) * u[1::2]
        z = xp.reshape(xp.stack((r * xp.cos(t), r * xp.sin(t)), axis=-1), (2 * m,))
        return z if 2 * m == n else z[:n]

    def _std_exponential(self, n: int, cdtype: Any, device: Any) -> Array:
        return -xp.log1p(-self._uniform(n, cdtype, device))

    @staticmethod
    def _finish(x: Array, shape: tuple, dtype: Any) -> Array:
        if x.shape != shape:
            x = xp.reshape(x, shape) if x.ndim == 1 and x.shape[0] == pm.size_of(shape) \
                else xp.broadcast_to(x, shape)
        return x if x.dtype is dtype else xp.astype(x, dtype)

    def _float_setup(self, func: str, dtype: Any, device: Any, size: Any, wide: bool = False,
                     **params: Any):
        """(device, dtype, compute dtype, shape, params as scalars/Arrays) of a float
        draw."""
        dev = pm.device_of(func, device, *params.values())
        dtype = pm.float_dtype(func, dtype, dev)
        cd = pm.compute_dtype(dtype, dev, wide)
        ps = {k: pm.param(func, k, v, cd, dev) for k, v in params.items()}
        return dev, dtype, cd, pm.out_shape(func, size, *ps.values()), ps

    # --- uniform -----------------------------------------------------------------------

    def random(self, size: _Size = None, dtype: dt.DType | None = None, *,
               device: Device | str | None = None) -> Array:
        """Uniform floats in [0, 1) (see the module docstring for the bits used)."""
        dev, dtype, _, shape, _ = self._float_setup("random", dtype, device, size)
        return xp.reshape(self._uniform(pm.size_of(shape), dtype, dev), shape)

    def uniform(self, low: Any = 0.0, high: Any = 1.0, size: _Size = None,
                dtype: dt.DType | None = None, *, device: Device | str | None = None) -> Array:
        """``low + (high - low) * u`` for u uniform in [0, 1), computed in float32 for
        the narrower floats (the rounding may give ``high`` itself, as in NumPy)."""
        dev, dtype, cd, shape, p = self._float_setup("uniform", dtype, device, size,
                                                     low=low, high=high)
        for k in ("low", "high"):
            pm.check("uniform", k, p[k], "finite", "finite")
        u = xp.reshape(self._uniform(pm.size_of(shape), cd, dev), shape)
        return self._finish(p["low"] + (p["high"] - p["low"]) * u, shape, dtype)

    # --- normal family -----------------------------------------------------------------

    def standard_normal(self, size: _Size = None, dtype: dt.DType | None = None, *,
                        device: Device | str | None = None) -> Array:
        """Standard normal variates (Box-Muller on numr's sqrt, log1p, cos and sin)."""
        dev, dtype, cd, shape, _ = self._float_setup("standard_normal", dtype, device, size)
        return self._finish(self._std_normal(pm.size_of(shape), cd, dev), shape, dtype)

    def normal(self, loc: Any = 0.0, scale: Any = 1.0, size: _Size = None,
               dtype: dt.DType | None = None, *, device: Device | str | None = None) -> Array:
        """``loc + scale * z``, z standard normal; ``scale`` must be >= 0."""
        dev, dtype, cd, shape, p = self._float_setup("normal", dtype, device, size,
                                                     loc=loc, scale=scale)
        pm.check("normal", "scale", p["scale"], ">=0", "non-negative")
        z = xp.reshape(self._std_normal(pm.size_of(shape), cd, dev), shape)
        return self._finish(p["loc"] + p["scale"] * z, shape, dtype)

    # --- integers ----------------------------------------------------------------------

    def integers(self, low: Any, high: Any = None, size: _Size = None,
                 dtype: dt.DType | None = None, endpoint: bool = False, *,
                 device: Device | str | None = None) -> Array:
        """Integers in [low, high) (``endpoint=True``: [low, high]); ``high=None`` draws
        from [0, low). ``dtype`` (default the device's default integer) must hold the
        whole range. Bit-identical on every device: value ``j`` is
        ``floor(X * r / 2^(32 k))`` for the range size ``r`` and X the k words
        ``j k .. j k + k - 1`` (most significant first), k = 2 where r <= 2^32 and 3
        beyond: a bias below r / 2^(32 k) <= 2^-32, with no rejection."""
        from ._integers import integers

        return integers(self, low, high, size, dtype, endpoint, device)

    def lognormal(self, mean: Any = 0.0, sigma: Any = 1.0, size: _Size = None,
                  dtype: dt.DType | None = None, *, device: Device | str | None = None) -> Array:
        """``exp(mean + sigma * z)``, z standard normal; ``sigma`` must be >= 0."""
        dev, dtype, cd, shape, p = self._float_setup("lognormal", dtype, device, size,
                                                     mean=mean, sigma=sigma)
        pm.check("lognormal", "sigma", p["sigma"], ">=0", "non-negative")
        z = xp.reshape(self._std_normal(pm.size_of(shape), cd, dev), shape)
        return self._finish(xp.exp(p["mean"] + p["sigma"] * z), shape, dtype)

    def multivariate_normal(self, mean: Any, cov: Any, size: _Size = None,
                            method: str = "cholesky", dtype: dt.DType | None = None, *,
                            device: Device | str | None = None) -> Array:
        """Rows ``mean + A z`` of shape ``size + (k,)``, A A^T = cov: A from
        numr.linalg.cholesky (``method="cholesky"``, the default: cov positive definite,
        the factor unique, so every device draws the same) or numr.linalg.eigh
        (``"eigh"``: semi-definite cov)."""
        from ._continuous import multivariate_normal

        return multivariate_normal(self, mean, cov, size, method, dtype, device)

    # --- exponential and gamma family ----------------------------------------------------

    def standard_exponential(self, size: _Size = None, dtype: dt.DType | None = None, *,
                             device: Device | str | None = None) -> Array:
        """``-log1p(-u)``, u uniform in [0, 1) (so finite)."""
        dev, dtype, cd, shape, _ = self._float_setup("standard_exponential", dtype,
                                                     device, size)
        return self._finish(self._std_exponential(pm.size_of(shape), cd, dev), shape,
                            dtype)

    def exponential(self, scale: Any = 1.0, size: _Size = None, dtype: dt.DType | None = None, *,
                    device: Device | str | None = None) -> Array:
        """``scale * standard_exponential``; ``scale`` must be >= 0."""
        dev, dtype, cd, shape, p = self._float_setup("exponential", dtype, device, size,
                                                     scale=scale)
        pm.check("exponential", "scale", p["scale"], ">=0", "non-negative")
        e = xp.reshape(self._std_exponential(pm.size_of(shape), cd, dev), shape)
        return self._finish(p["scale"] * e, shape, dtype)

    def standard_gamma(self, shape: Any, size: _Size = None, dtype: dt.DType | None = None, *,
                       device: Device | str | None = None) -> Array:
        """Gamma(shape, 1) by Marsaglia and Tsang's method, its rejection loop run as
        vectorised rounds (numr.random._rounds); ``shape`` must be >= 0."""
        return self.gamma(shape, 1.0, size, dtype, device=device, _func="standard_gamma")

    def gamma(self, shape: Any, scale: Any = 1.0, size: _Size = None,
              dtype: dt.DType | None = None, *, device: Device | str | None = None,
              _func: str = "gamma") -> Array:
        """``scale * standard_gamma(shape)``; ``shape`` and ``scale`` must be >= 0."""
        from ._continuous import standard_gamma

        dev, dtype, cd, out, p = self._float_setup(_func, dtype, device, size, wide=True,
                                                   shape=shape, scale=scale)
        pm.check(_func, "shape", p["shape"], ">=0", "non-negative")
        pm.check(_func, "scale", p["scale"], ">=0", "non-negative")
        g = standard_gamma(self, _func, p["shape"], out, cd, dev)
        return self._finish(g if p["scale"] == 1.0 else p["scale"] * g, out, dtype)

    def beta(self, a: Any, b: Any, size: _Size = None, dtype: dt.DType | None = None, *,
             device: Device | str | None = None) -> Array:
        """``X / (X + Y)``, X ~ Gamma(a), Y ~ Gamma(b); ``a`` and ``b`` must be > 0."""
        from ._continuous import beta

        dev, dtype, cd, shape, p = self._float_setup("beta", dtype, device, size, wide=True, a=a, b=b)
        pm.check("beta", "a", p["a"], ">0", "positive")
        pm.check("beta", "b", p["b"], ">0", "positive")
        return self._finish(beta(self, p["a"], p["b"], shape, cd, dev), shape, dtype)

    def chisquare(self, df: Any, size: _Size = None, dtype: dt.DType | None = None, *,
                  device: Device | str | None = None) -> Array:
        """``2 * standard_gamma(df / 2)``; ``df`` must be > 0."""
        from ._continuous import standard_gamma

        dev, dtype, cd, shape, p = self._float_setup("chisquare", dtype, device, size, wide=True,
                                                     df=df)
        pm.check("chisquare", "df", p["df"], ">0", "positive")
        g = standard_gamma(self, "chisquare", p["df"] * 0.5, shape, cd, dev)
        return self._finish(2.0 * g, shape, dtype)

    def standard_t(self, df: Any, size: _Size = None, dtype: dt.DType | None = None, *,
                   device: Device | str | None = None) -> Array:
        """Student's t: ``z / sqrt(chisquare(df) / df)``; ``df`` must be > 0."""
        from ._continuous import standard_t

        dev, dtype, cd, shape, p = self._float_setup("standard_t", dtype, device, size, wide=True,
                                                     df=df)
        pm.check("standard_t", "df", p["df"], ">0", "positive")
        return self._finish(standard_t(self, p["df"], shape, cd, dev), shape, dtype)

    def dirichlet(self, alpha: Any, size: _Size = None, dtype: dt.DType | None = None, *,
                  device: Device | str | None = None) -> Array:
        """Gamma(alpha_i) draws normalised over the last axis, shape ``size +
        (len(alpha),)``; every alpha_i must be > 0."""
        from ._continuous import dirichlet

        return dirichlet(self, alpha, size, dtype, device)

    # --- discrete ------------------------------------------------------------------------

    def poisson(self, lam: Any = 1.0, size: _Size = None, dtype: dt.DType | None = None, *,
                device: Device | str | None = None) -> Array:
        """Poisson counts (``dtype``: an integer dtype, default the device's): inversion
        for means below 10, Hoermann's exact PTRS above; ``lam`` must be >= 0."""
        from ._discrete import _fdtype, poisson
        from ._integers import _int_dtype

        dev = pm.device_of("poisson", device, lam)
        dtype = _int_dtype(dtype, dev, "poisson")
        cd = _fdtype(dev)
        lam = pm.param("poisson", "lam", lam, cd, dev)
        pm.check("poisson", "lam", lam, ">=0", "non-negative")
        shape = pm.out_shape("poisson", size, lam)
        return xp.astype(self._finish(poisson(self, lam, shape, cd, dev), shape, cd), dtype)

    def binomial(self, n: Any, p: Any, size: _Size = None, dtype: dt.DType | None = None, *,
                 device: Device | str | None = None) -> Array:
        """Binomial counts of ``n`` trials (ints >= 0) with probability ``p`` (in [0, 1]):
        inversion where ``n min(p, 1 - p)`` is below 10, Hoermann's exact BTRS above."""
        from ._discrete import _fdtype, _trials, binomial
        from ._integers import _int_dtype

        dev = pm.device_of("binomial", device, n, p)
        dtype = _int_dtype(dtype, dev, "binomial")
        cd = _fdtype(dev)
        nt = _trials("binomial", n, cd, dev)
        pp = pm.param("binomial", "p", p, cd, dev)
        pm.check("binomial", "p", pp, "[0,1]", "in [0, 1]")
        shape = pm.out_shape("binomial", size, nt, pp)
        return xp.astype(self._finish(binomial(self, nt, pp, shape, cd, dev), shape, cd),
                         dtype)

    def multinomial(self, n: Any, pvals: Any, size: _Size = None, dtype: dt.DType | None = None, *,
                    device: Device | str | None = None) -> Array:
        """Counts of ``n`` trials over the k outcomes of ``pvals``, as NumPy's: ``pvals``
        of shape (..., k) is a batch of probability vectors (each non-negative and
        summing to 1), ``n`` (an int or an integer array) broadcasts against its batch
        shape ``pvals.shape[:-1]``; the result has shape ``size + (k,)``, or (``size``
        None) the broadcast batch shape + (k,)."""
        from ._discrete import multinomial

        return multinomial(self, n, pvals, size, dtype, device)

    def permutation(self, x: Any, axis: int = 0, *, device: Device | str | None = None) -> Array:
        """A permuted ``arange(x)`` (x an int) or a permuted copy of array ``x`` along
        ``axis``: the stable order of random 64-bit keys, the same on every device."""
        from ._discrete import permutation

        return permutation(self, x, axis, device)

    def shuffle(self, x: Array, axis: int = 0) -> None:
        """Permute numr Array ``x`` in place along ``axis`` (as ``permutation``)."""
        from ._discrete import shuffle

        shuffle(self, x, axis)

    def choice(self, a: Any, size: _Size = None, replace: bool = True, p: Any = None,
               axis: int = 0, shuffle: bool = True, *, device: Device | str | None = None) -> Array:
        """Samples of ``arange(a)`` (a an int) or of array ``a`` along ``axis``. With
        replacement: uniform indices as ``integers``, or with ``p`` (non-negative,
        summing to 1) by searching its cumulative sum (summed on the host, so every
        device searches the same one). Without: the first ``size`` of a permutation, or
        with ``p`` the ``size`` smallest keys E_i / p_i (E_i exponential: Efraimidis and
        Spirakis); ``shuffle=False`` returns those indices sorted."""
        from ._discrete import choice

        return choice(self, a, size, replace, p, axis, shuffle, device)
