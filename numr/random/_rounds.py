"""Rejection sampling as vectorised rounds, and the log-gamma the exact discrete methods
need, from numr operations (so every device runs the same steps).

Round j of a draw of n variates takes its words from its own stretch of the counter,
``base + j * B`` (B blocks, more than a round uses), and proposes a candidate for every
element; an element keeps the first candidate it accepts. So element i's value depends
only on (key, base, i): where rounding makes one device accept a candidate another
rejects, only that element differs. The generator's counter moves past MAX_ROUNDS
rounds whatever the number run, so later draws do not depend on it either.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

import numr as xp

from .._array import Array

MAX_ROUNDS = 64       # every method here accepts at least ~3/4 of its candidates a round


def rounds(gen: Any, func: str, n: int, shape: tuple, propose: Callable, dtype: Any,
           device: Any) -> Array:
    """The accepted candidates, of ``shape`` (n elements) and ``dtype``. ``propose(g)``
    returns (candidate, accepted) of ``shape`` from Generator ``g`` (a round's stretch of
    the counter)."""
    from ._generator import Generator
    from ._philox import Philox

    bg = gen.bit_generator
    per = 4 * n + 64           # blocks a round may use: propose draws at most ~6 words each
    base = bg._counter
    bg.advance(MAX_ROUNDS * per)
    out = pending = None
    for j in range(MAX_ROUNDS):
        c = base + j * per
        g = Generator(Philox(key=bg.key, counter=c & ((1 << 128) - 1)))
        cand, ok = propose(g)
        if out is None:
            out, pending = xp.astype(cand, dtype), xp.logical_not(ok)
        else:
            take = xp.logical_and(pending, ok)
            out = xp.where(take, xp.astype(cand, dtype), out)
            pending = xp.logical_and(pending, xp.logical_not(ok))
        if n == 0 or not bool(xp.any(pending)):
            return out
    raise RuntimeError(f"{func}: {MAX_ROUNDS} rejection rounds left some elements "
                       f"unaccepted (parameters far outside the method's range?)")


_STIRLING = (1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156)
_HALF_LOG_2PI = 0.5 * float(np.log(2 * np.pi))


def lgamma(x: Array) -> Array:
    """log Gamma(x) for x >= 1 (float64 or float32 Array): Stirling's series at x + 6
    (seven terms: error below 1e-16 there), shifted down by log(x (x+1) ... (x+5))
    where x < 7."""
    y = xp.where(x < 7, x + 6, x)
    inv = 1.0 / y
    inv2 = inv * inv
    s = _STIRLING[-1]
    for c in _STIRLING[-2::-1]:
        s = s * inv2 + c
    lg = (y - 0.5) * xp.log(y) - y + _HALF_LOG_2PI + s * inv
    prod = x * (x + 1) * (x + 2) * (x + 3) * (x + 4) * (x + 5)
    return xp.where(x < 7, lg - xp.log(xp.where(x < 7, prod, 1.0)), lg)
