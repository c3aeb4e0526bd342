"""Offline generator of numr/special/_tables.py (run by hand: ``python -m
numr.special._fit``; needs mpmath and NumPy). Not imported by numr.

Every table is computed here from mpmath at 40 digits: Taylor coefficients from their
closed forms, and Chebyshev interpolants of smooth functions on intervals (the WGSL
evaluates them with Clenshaw's recurrence in t in [-1, 1]). The degree of each fit is
the smallest whose interpolant is within ``TOL`` (relative) of mpmath at 400 points of
the interval.
"""

from __future__ import annotations

import math
import pprint

import mpmath as mp
import numpy as np

mp.mp.dps = 40
TOL = 3e-17


def cheb_fit(f, lo: float, hi: float, n: int = 48, absolute: bool = False,
             tol: float = TOL) -> list[float]:
    """Chebyshev coefficients (float64) of f on [lo, hi], in t = (2v - lo - hi)/(hi - lo),
    truncated where the rest is below ``tol`` of the function's smallest value
    (``absolute``: of its largest, for functions with zeros inside, whose error is
    absolute there)."""
    nodes = [mp.cos(mp.pi * (k + mp.mpf(0.5)) / n) for k in range(n)]
    vals = [f((mp.mpf(hi) - lo) / 2 * t + (mp.mpf(hi) + lo) / 2) for t in nodes]
    coeffs = []
    for j in range(n):
        s = mp.fsum(vals[k] * mp.cos(j * mp.pi * (k + mp.mpf(0.5)) / n) for k in range(n))
        coeffs.append(s * (1 if j else mp.mpf(1) / 2) * 2 / n)
    floor = tol * (max if absolute else min)(abs(v) for v in vals)
    if abs(coeffs[-1]) + abs(coeffs[-2]) > floor / 100:
        raise RuntimeError(f"no fit of degree < {n} on [{lo}, {hi}]")
    m = n
    while m > 2 and mp.fsum(abs(c) for c in coeffs[m - 1:]) < floor:
        m -= 1
    return [float(c) for c in coeffs[:m]]


def tables() -> dict:
    t: dict = {}
    # lgamma(2 + z) = (1 - euler) z + sum_{k>=2} (-1)^k (zeta(k) - 1) / k z^k
    t["LGAMMA2"] = [float(1 - mp.euler)] + [
        float((-1) ** k * (mp.zeta(k) - 1) / k) for k in range(2, 30)]
    # psi(2 + z) = 1 - euler + sum_{k>=2} (-1)^k (zeta(k) - 1) z^(k-1)
    t["PSI2"] = [float(1 - mp.euler)] + [
        float((-1) ** k * (mp.zeta(k) - 1)) for k in range(2, 30)]
    # erfcx on [0.5, 8] piecewise in x; beyond, sqrt(pi) x erfcx(x) in v = 1 / x^2
    t["ERFCX"] = [(lo, hi, cheb_fit(lambda x: mp.exp(x * x) * mp.erfc(x), lo, hi))
                  for lo, hi in ((0.5, 1.0), (1.0, 2.0), (2.0, 4.0), (4.0, 8.0))]
    t["ERFCX_ASYM"] = cheb_fit(
        lambda v: mp.sqrt(mp.pi) / mp.sqrt(v) * mp.exp(1 / v) * mp.erfc(1 / mp.sqrt(v)),
        0.0, 1.0 / 64)
    # psi near its positive root x0: x0 in three parts (two of 24 bits: exact in float32
    # too) and the Taylor coefficients psi^(k)(x0) / k!
    x0 = mp.findroot(mp.digamma, 1.46)
    c1 = _chop(x0, 24)
    c2 = _chop(x0 - c1, 24)
    t["PSI_ROOT"] = [c1, c2, float(x0 - c1 - c2)]
    t["PSI_TAYLOR"] = [float(mp.polygamma(k, x0) / mp.factorial(k)) for k in range(1, 26)]
    # sqrt(x) i0e(x), sqrt(x) i1e(x) for x >= 8, in v = 8 / x
    t["I0E_BIG"] = cheb_fit(lambda v: mp.sqrt(8 / v) * mp.exp(-8 / v) * mp.besseli(0, 8 / v), 0.0, 1.0)
    t["I1E_BIG"] = cheb_fit(lambda v: mp.sqrt(8 / v) * mp.exp(-8 / v) * mp.besseli(1, 8 / v), 0.0, 1.0)
    _bessel(t)
    # Student's t for large df (numr/special/_wgsl.py, spstdtrtail_T): the coefficients
    # c_k of (sinh(s/2) / (s/2))^(-1/2) = sum c_k s^2k, times (1/2)_(2k)
    ser = mp.taylor(lambda s: (mp.sinh(s / 2) / (s / 2)) ** mp.mpf(-0.5) if s else mp.mpf(1),
                    0, 40)
    t["STDTR_SERIES"] = [float(ser[2 * k] * mp.rf(mp.mpf(0.5), 2 * k)) for k in range(20)]
    # Riemann's zeta on [-1, 2] as (x - 1) zeta(x), entire and without zeros there, in
    # pieces of 1/2 (one fit over [-1, 2] loses a factor 9 to cancellation at x = -1)
    t["ZETA_MID"] = [(lo, lo + 0.5, cheb_fit(lambda x: (x - 1) * mp.zeta(x) if x != 1
                                             else mp.mpf(1), lo, lo + 0.5))
                     for lo in (-1.0, -0.5, 0.0, 0.5, 1.0, 1.5)]
    _ndtri(t)
    # Gamma on [1, 2], to 1e-12: float32 gamma computed in float64 (spgammawide_T)
    t["GAMMA12"] = cheb_fit(mp.gamma, 1.0, 2.0, 40, tol=1e-12)
    # e^-x I0(x) and e^-x I1(x) / x on [0, 8] in three pieces (positive, smooth): i0e and
    # i1e there without the power series' 25 roundings and a separate exp
    mp.mp.dps = 50
    t["I0E_MID"] = [(lo, hi, cheb_fit(lambda x: mp.exp(-x) * mp.besseli(0, x), lo, hi, 60))
                    for lo, hi in ((0.0, 2.0), (2.0, 4.0), (4.0, 8.0))]
    t["I1E_MID"] = [(lo, hi, cheb_fit(lambda x: mp.exp(-x) * mp.besseli(1, x) / x if x
                                      else mp.mpf(0.5), lo, hi, 60))
                    for lo, hi in ((0.0, 2.0), (2.0, 4.0), (4.0, 8.0))]
    mp.mp.dps = 40
    return t


def _ndtri(t: dict) -> None:
    """ndtri for float32 results computed in float64 (numr/special/_wgsl.py, spndtriw_T),
    to 1e-12 relative (float32's eps is 6e-8): x = q g(q^2) for |q| = |p - 1/2| <= 0.425,
    g(s) = ndtri(1/2 + sqrt s) / sqrt s; beyond, -ndtri(p) for p = exp(-r^2) <= 0.075 as a
    function of r in pieces up to r = 10.25 (p = 2^-151, below float32's least) and 27.5
    (below float64's least): float32's values, and float64's first guesses."""
    mp.mp.dps = 50

    def g(s):
        q = mp.sqrt(s)
        return mp.sqrt(2) * mp.erfinv(2 * q) / q if s else mp.sqrt(2 * mp.pi)

    def tail(r):
        r = mp.mpf(r)
        return mp.findroot(lambda x: mp.log(mp.erfc(x / mp.sqrt(2)) / 2) + r * r,
                           r * mp.sqrt(2) * mp.mpf(0.9))

    t["NDTRI_MID"] = cheb_fit(g, 0.0, 0.425 ** 2, 40, tol=1e-12)
    r0 = float(mp.sqrt(-mp.log(mp.mpf(0.075))))
    t["NDTRI_TAIL"] = [(lo, hi, cheb_fit(tail, lo, hi, 40, tol=1e-12))
                       for lo, hi in ((r0, 4.0), (4.0, 10.25), (10.25, 27.5))]
    mp.mp.dps = 40


def _bessel(t: dict) -> None:
    """J0 J1 Y0 Y1 on [2, 4] and [4, 8] (absolute fits: they cross zero there); for
    x >= 8 Hankel's P and x Q (J0 = (P (cos x + sin x) - Q (sin x - cos x)) / sqrt(pi x),
    Y0 likewise) in 8 / x; e^x K0, e^x K1 on [1, 2], [2, 4], [4, 8] and sqrt(x) e^x K
    in 8 / x beyond."""
    mp.mp.dps = 50
    for nu in (0, 1):
        for name, f in (("J", mp.besselj), ("Y", mp.bessely)):
            t[f"{name}{nu}_MID"] = [(lo, hi, cheb_fit(lambda x: f(nu, x), lo, hi, 60, True))
                                    for lo, hi in ((2.0, 4.0), (4.0, 8.0))]

        def pq(v, nu=nu):
            x = 8 / v
            chi = x - (2 * nu + 1) * mp.pi / 4
            j, y = mp.besselj(nu, x), mp.bessely(nu, x)
            s = mp.sqrt(mp.pi * x / 2)
            return s * (j * mp.cos(chi) + y * mp.sin(chi)), x * s * (y * mp.cos(chi) - j * mp.sin(chi))
        t[f"P{nu}_BIG"] = cheb_fit(lambda v: pq(v)[0], 0.0, 1.0, 60)
        t[f"Q{nu}_BIG"] = cheb_fit(lambda v: pq(v)[1], 0.0, 1.0, 60)
        t[f"K{nu}E_MID"] = [(lo, hi, cheb_fit(lambda x: mp.exp(x) * mp.besselk(nu, x), lo, hi, 60))
                            for lo, hi in ((1.0, 2.0), (2.0, 4.0), (4.0, 8.0))]
        t[f"K{nu}E_BIG"] = cheb_fit(
            lambda v: mp.sqrt(8 / v) * mp.exp(8 / v) * mp.besselk(nu, 8 / v), 0.0, 1.0, 60)
    mp.mp.dps = 40


def _chop(v, bits: int) -> float:
    """v rounded to ``bits`` significant bits (exact in float32 for bits <= 24)."""
    m, e = mp.frexp(v)
    return float(mp.ldexp(mp.nint(m * 2 ** bits), e - bits))


def main() -> None:
    t = tables()
    with open(__file__.replace("_fit.py", "_tables.py"), "w") as f:
        f.write('"""Coefficient tables of numr.special\'s WGSL, generated by _fit.py '
                '(do not edit)."""\n\n')
        for k, v in t.items():
            f.write(f"{k} = {pprint.pformat(v, width=96)}\n\n")


if __name__ == "__main__":
    main()
