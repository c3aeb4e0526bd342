"""WGSL helpers of numr.special, written once for T = f32 / f64 and registered with the
expression library (``expressions.add_helpers``), so that the map kernel pulls them into
a kernel by name like its own (exp_T, log_T, two_prod_T, ...). Names start with ``sp``.

Float64 needs its own formulas anyway (SPIR-V has no float64 transcendentals); float32
runs the same code, so its results are float64-grade algorithms rounded to float32
(more terms than float32 needs, never fewer). Polynomial and Chebyshev coefficients come
from ``_tables.py`` (generated from mpmath by ``_fit.py``) or from closed forms here.
"""

from __future__ import annotations

import math

from ..backends.webgpu.kernels import expressions as ex
from . import _tables as tb

SQRTPI = math.sqrt(math.pi)


def _f(v: float) -> str:
    return f"T({float(v)!r})"


def horner(coeffs: list, var: str) -> str:
    """c0 + var (c1 + var (c2 + ...)) as one WGSL expression."""
    text = _f(coeffs[-1])
    for c in reversed(coeffs[:-1]):
        text = f"{_f(c)} + {var} * ({text})"
    return text


# float32's shorter Chebyshev series (name -> WGSL), registered for f32 alone: the tables
# are fitted for float64 (to 3e-17 of the function's least value); where that least value
# is bounded away from 0 by the coefficients themselves (|c0| - sum |c_k|), float32 drops
# the trailing terms whose sum stays below 1e-9 of it (0.02 of float32's half ULP): erfcx's
# pieces keep 8-12 of 14-21 terms, i0e's and i1e's asymptotic fits 8 of 24. Fits with
# zeros inside (J0 on [2, 8], ...) keep every term: their error is absolute.
_F32: dict[str, str] = {}
_F32_TOL = 1e-9


def _f32_terms(coeffs: list) -> int:
    low = abs(coeffs[0]) - sum(abs(c) for c in coeffs[1:])
    n, tail = len(coeffs), 0.0
    while low > 0 and n > 2 and tail + abs(coeffs[n - 1]) <= _F32_TOL * low:
        tail += abs(coeffs[n - 1])
        n -= 1
    return n


def _clenshaw(name: str, coeffs: list) -> str:
    lines = [f"fn {name}(t: T) -> T {{", "  let tt = t + t;", "  var b0 = T(0.0);",
             "  var b1 = T(0.0);", "  var b2 = T(0.0);"]
    for c in reversed(coeffs[1:]):
        lines.append(f"  b0 = tt * b1 - b2 + {_f(c)}; b2 = b1; b1 = b0;")
    lines.append(f"  return t * b1 - b2 + {_f(coeffs[0])};\n}}")
    return "\n".join(lines)


def cheb(name: str, coeffs: list) -> str:
    """``fn name_T(t: T) -> T``: the Chebyshev series sum c_k T_k(t) (Clenshaw); its
    float32 form, where shorter, goes to _F32."""
    n = _f32_terms(coeffs)
    if n < len(coeffs):
        _F32[name] = _clenshaw(name, coeffs[:n])
    return _clenshaw(name, coeffs)


def _piecewise(name: str, pieces: list, var: str = "x") -> tuple[dict, str]:
    """Helpers for a piecewise Chebyshev fit and the WGSL if-chain choosing the piece."""
    helpers, chain = {}, []
    for k, (lo, hi, cf) in enumerate(pieces):
        h = f"{name}{k}_T"
        helpers[h] = cheb(h, cf)
        t = f"({var} * T({2.0 / (hi - lo)!r}) - T({(hi + lo) / (hi - lo)!r}))"
        chain.append(f"  if ({var} < T({hi!r})) {{ return {h}({t}); }}")
    return helpers, "\n".join(chain)


H: dict[str, str] = {}

# -- erf, erfc, erfcx ------------------------------------------------------------------
# |x| < 0.5: erf by its Taylor series (13 terms leave < 2^-56); erfcx on [0.5, 8] by
# Chebyshev fits in x; beyond, sqrt(pi) x erfcx(x) as a fit in v = 1/x^2 (the asymptotic
# series' function, smooth at v = 0). erfc(x) = exp(-x^2) erfcx(x), x^2 carried as hi + lo
# (one rounding of x^2 alone would cost 2 x^2 eps relatively: 1400 ULP at x = 26).
_ERF_SERIES = [2 / SQRTPI * (-1) ** n / (math.factorial(n) * (2 * n + 1)) for n in range(14)]
_pieces, _chain = _piecewise("sperfcxf", tb.ERFCX)
H.update(_pieces)
H["sperfcxa_T"] = cheb("sperfcxa_T", tb.ERFCX_ASYM)
H["sperfs_T"] = f"fn sperfs_T(x: T) -> T {{ let z = x * x; return x * ({horner(_ERF_SERIES, 'z')}); }}"
# erfcx(x) for x >= 0.5 (inf: 0)
H["sperfcxp_T"] = f"""fn sperfcxp_T(x: T) -> T {{
{_chain}
  let v = T(1.0) / (x * x);
  return sperfcxa_T(v * T(128.0) - T(1.0)) * (T(1.0) / x) * T({1 / SQRTPI!r});
}}"""
# erfc(h) where sq = h^2 exactly as hi + lo: the exponential sees the exact square (h
# itself may be a rounded x / sqrt 2: erfcx's relative sensitivity to h is only ~1/h)
H["sperfcq_T"] = """fn sperfcq_T(h: T, sq: vec2<T>) -> T {
  if (isnan_T(h)) { return h; }
  let ax = abs(h);
  if (ax < T(0.5)) { return T(1.0) - sperfs_T(h); }
  var r = T(0.0);
  if (ax < T(27.5)) { r = expdd_T(-sq.x, -sq.y) * sperfcxp_T(ax); }
  return select(r, T(2.0) - r, h < T(0.0));
}"""
H["spexpsq_T"] = """fn spexpsq_T(h: T) -> T {
  let p = two_prod_T(h, h);
  return expdd_T(p.x, p.y);
}"""
H["sperfc_T"] = "fn sperfc_T(x: T) -> T { return sperfcq_T(x, two_prod_T(x, x)); }"
H["sperf_T"] = """fn sperf_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  let ax = abs(x);
  if (ax < T(0.5)) { return sperfs_T(x); }
  var c = T(0.0);
  if (ax < T(6.0)) { let p = two_prod_T(ax, ax); c = expdd_T(-p.x, -p.y) * sperfcxp_T(ax); }
  return copysign_T(T(1.0) - c, x);
}"""
H["sperfcx_T"] = """fn sperfcx_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  if (x >= T(0.5)) { return sperfcxp_T(x); }
  if (x > T(-0.5)) { return spexpsq_T(x) * (T(1.0) - sperfs_T(x)); }
  if (x < T(-26.7)) { return bitcast<T>(EXPO); }
  return T(2.0) * spexpsq_T(x) - sperfcxp_T(-x);
}"""

# -- the normal distribution -------------------------------------------------------------
# ndtr(x) = erfc(-x / sqrt 2) / 2 with the exact square x^2 / 2 for the exponential.
H["sphalfsq_T"] = """fn sphalfsq_T(x: T) -> vec2<T> {
  let p = two_prod_T(x, x);
  return p * T(0.5);
}"""
H["spndtr_T"] = f"""fn spndtr_T(x: T) -> T {{
  return T(0.5) * sperfcq_T(x * T({-0.7071067811865476!r}), sphalfsq_T(x));
}}"""
# log(ndtr(x)): log1p of the small upper tail for x > 0; for x < -1,
# log(erfcx(s) / 2) - s^2 (s = -x / sqrt 2, s^2 = x^2 / 2 as hi + lo), which never
# underflows.
H["splogndtr_T"] = f"""fn splogndtr_T(x: T) -> T {{
  if (isnan_T(x)) {{ return x; }}
  let sq = sphalfsq_T(x);
  let h = x * T({0.7071067811865476!r});
  if (x > T(0.0)) {{ return log1p_T(T(-0.5) * sperfcq_T(h, sq)); }}
  if (x > T(-1.0)) {{ return log_T(T(0.5) * sperfcq_T(-h, sq)); }}
  if (isinf_T(sq.x)) {{ return -bitcast<T>(EXPO); }}
  return -sq.x + (log_T(T(0.5) * sperfcxp_T(-h)) - sq.y);
}}"""

# -- logistic, entropy and x log y -------------------------------------------------------
# e^x as hi + lo for -88 < x <= 0 (exp_T's steps, expk_T, the pair before its rounding;
# far more precise than one word, not a full double word: EXPQ is exp_T's).
H["spexpw_T"] = """fn spexpw_T(a: T) -> vec2<T> {
  let e = expk_T(a, T(0.0));
  return vec2<T>(ldexp(e.x, i32(e.z)), ldexp(e.y, i32(e.z)));
}"""
# expit: 1 / (1 + e^-x) at or above 0, e^x / (1 + e^x) below, with e = e^-|x| and 1 + e
# as pairs and the quotient corrected once from its residual, so the result is rounded
# about once (e and 1 + e rounded apart cost 2.4 ULP at -4.157 in float32). Where e <
# 2^-30 (f32) / 2^-60 (f64): 1, or e itself (exp_T's, subnormal-safe), to below the
# result's last bit.
H["spexpit_T"] = """fn spexpit_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  let tiny = abs(x) > select(T(20.8), T(41.6), MANT_BITS > 30u);
  if (tiny) { return select(exp_T(x), T(1.0), x > T(0.0)); }
  let e = spexpw_T(-abs(x));
  let s = two_sum_T(T(1.0), e.x);
  let sl = s.y + e.y;
  let num = select(e.x, T(1.0), x >= T(0.0));
  let q = divr_T(num, s.x);
  let p = two_prod_T(q, s.x);
  let rho = fence_T(fence_T(num - p.x) - p.y) + fence_T(select(e.y, T(0.0), x >= T(0.0)) - q * sl);
  return q + rho / s.x;
}"""
# log(p / (1 - p)) for 0 <= p <= 1/2: the quotient as qh + ql (1 - p = d exactly as a
# pair; qh's residual exact), log qh as a pair plus ql / qh: one logarithm, where
# log p - log1p(-p) took two (and 2 atanh(2p - 1) in the middle, 0.99 ULP). Below
# 2^-30 (f32) / 2^-60 (f64) the quotient is p to far below the result's last bit (and
# log_T takes float32 subnormals, which a division would flush on NVIDIA).
H["splogitq_T"] = """fn splogitq_T(p: T) -> T {
  if (p < select(T(9.313225746154785e-10), T(8.673617379884035e-19), MANT_BITS > 30u)) {
    return log_T(p);  // below 2^-30 (f32) / 2^-60 (f64)
  }
  let d = two_sum_T(T(1.0), -p);
  let qh = divr_T(p, d.x);
  let e = two_prod_T(qh, d.x);
  let ql = fence_T(fence_T(fence_T(p - e.x) - e.y) - qh * d.y) / d.x;
  let l = logw_T(qh);
  return l.x + fence_T(l.y + ql / qh);
}"""
H["splogit_T"] = """fn splogit_T(p: T) -> T {
  if (!(p >= T(0.0) && p <= T(1.0))) { return nan_T(); }
  if (p <= T(0.5)) { return splogitq_T(p); }
  return -splogitq_T(T(1.0) - p);  // 1 - p exact
}"""
H["spxlogy_T"] = """fn spxlogy_T(x: T, y: T) -> T {
  if (x == T(0.0) && !isnan_T(y)) { return T(0.0); }
  return x * log_T(y);
}"""
H["spxlog1py_T"] = """fn spxlog1py_T(x: T, y: T) -> T {
  if (x == T(0.0) && !isnan_T(y)) { return T(0.0); }
  return x * log1p_T(y);
}"""
H["spentr_T"] = """fn spentr_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  if (x > T(0.0)) { return -x * log_T(x); }
  if (x == T(0.0)) { return T(0.0); }
  return -bitcast<T>(EXPO);
}"""
# x log(x / y), as SciPy computes it.
H["sprelentr_T"] = """fn sprelentr_T(x: T, y: T) -> T {
  if (isnan_T(x) || isnan_T(y)) { return nan_T(); }
  if (x > T(0.0) && y > T(0.0)) {
    // log1p near x = y; log(x) - log(y) where x / y under- or overflows
    let r = div_T(x, y);
    if (r > T(0.5) && r < T(2.0)) { return x * log1p_T(div_T(x - y, y)); }
    if (r > TINY && !isinf_T(r)) { return x * log_T(r); }
    return x * (log_T(x) - log_T(y));
  }
  if (x == T(0.0) && y >= T(0.0)) { return T(0.0); }
  return bitcast<T>(EXPO);
}"""
H["spsoftplus_T"] = """fn spsoftplus_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  if (x > T(0.0)) { return x + log1p_T(exp_T(-x)); }
  return log1p_T(exp_T(x));
}"""

# -- log gamma ---------------------------------------------------------------------------
# lgamma(2 + z) for |z| <= 1/2 by its Taylor series (coefficients (-1)^k (zeta(k) - 1) / k:
# 29 terms leave < 2^-56 at |z| = 1/2); other x > 0 reach it through lgamma(x + 1) =
# lgamma(x) + log x, or Stirling's series from 8 on; x < 0 by the reflection formula.
H["splg2_T"] = f"fn splg2_T(z: T) -> T {{ return z * ({horner(tb.LGAMMA2, 'z')}); }}"
_STIRLING = [1 / 12, -1 / 360, 1 / 1260, -1 / 1680, 1 / 1188, -691 / 360360, 1 / 156,
             -3617 / 122400]
H["spstirling_T"] = f"""fn spstirling_T(x: T) -> T {{
  let r = T(1.0) / x;
  let z = r * r;
  return r * ({horner(_STIRLING, 'z')});
}}"""
# lgamma(x) for finite x > 0
H["splgpos_T"] = f"""fn splgpos_T(x: T) -> T {{
  if (x < T(0.5)) {{ return splg2_T(x) - log_T(x) - log1p_T(x); }}
  if (x < T(1.5)) {{ let z = x - T(1.0); return splg2_T(z) - log1p_T(z); }}
  if (x < T(2.5)) {{ return splg2_T(x - T(2.0)); }}
  if (x < T(8.0)) {{
    var p = T(1.0);
    var y = x;
    for (var k = 0; k < 6; k++) {{
      if (y < T(2.5)) {{ break; }}
      y = y - T(1.0);
      p = p * y;
    }}
    return splg2_T(y - T(2.0)) + log_T(p);
  }}
  return (x - T(0.5)) * (log_T(x) - T(1.0)) + T({0.5 * math.log(2 * math.pi) - 0.5!r}) + spstirling_T(x);
}}"""
# vec2(sin(pi r), cos(pi r)) for |r| <= 1/2 (an exact reduction of x): pi |r| as hi + lo
# and the Taylor polynomials of sin and cos for <= pi/4, through pi (1/2 - |r|) (exact)
# beyond; no general argument reduction (sin_T's Payne-Hanek table inlined into every
# reflection formula made lavapipe's compiles of gammaln, psi and betaln several times
# longer).
H["spsincospi_T"] = """fn spsincospi_T(r: T) -> vec2<T> {
  let ar = abs(r);
  let big = ar > T(0.25);
  let t = select(ar, T(0.5) - ar, big);
  let p = two_prod_T(t, PI);
  let e = p.y + t * PI_LO;
  let sn = sinr_T(p.x, e);
  let cs = cosr_T(p.x, e);
  return vec2<T>(copysign_T(select(sn, cs, big), r), select(cs, sn, big));
}"""
# |sin(pi x)| for finite x (exact reduction to |r| <= 1/2)
H["spsinpiabs_T"] = """fn spsinpiabs_T(x: T) -> T {
  return abs(spsincospi_T(x - round_T(x)).x);  // numr's round: lavapipe's is not exact
}"""
H["spgammaln_T"] = f"""fn spgammaln_T(x: T) -> T {{
  if (isnan_T(x)) {{ return x; }}
  if (isinf_T(x)) {{ return x; }}
  if (x <= T(0.0) && x == floor(x)) {{ return bitcast<T>(EXPO); }}
  let l = splgpos_T(select(T(1.0) - x, x, x > T(0.0)));  // one inlined copy
  if (x > T(0.0)) {{ return l; }}
  return T({math.log(math.pi)!r}) - log_T(spsinpiabs_T(x)) - l;
}}"""


# -- inverses of the normal distribution and erf -------------------------------------------
# Chebyshev fits of ndtri to 1e-12 (_fit._ndtri): ndtri(1/2 + q) = q g(q^2) for |q| <=
# 0.425 (spndtrim_T); beyond, -+x(r), r = sqrt(-log min(p, 1 - p)), x(r) in pieces
# (spndtrix_T: to r = 10.25, float32's least p; spndtrixx_T: to 27.5, float64's).
# float32 on an adapter with float64 takes them in float64 alone, rounded once
# (spndtriw_T, in a widened kernel: _exprs.WIDE): q = p - 1/2 and min(p, 1 - p) come exact
# from a float32 operand, so no Halley step (each an exp and an erfcx in double words) is
# needed; on lavapipe 1M float32 ndtri took 202 ms with them. Elsewhere they are the
# first guess of one Halley step (spqinv_T, sperfinvc_T).
H.update({f"spndtrit{k}_T": cheb(f"spndtrit{k}_T", cf)
          for k, (_lo, _hi, cf) in enumerate(tb.NDTRI_TAIL)})
H["spndtrim_T"] = cheb("spndtrim_T", tb.NDTRI_MID)
_tail = tb.NDTRI_TAIL


def _tail_piece(k: int, r: str) -> str:
    lo, hi = _tail[k][0], _tail[k][1]
    return f"spndtrit{k}_T({r} * T({2 / (hi - lo)!r}) - T({(hi + lo) / (hi - lo)!r}))"


H["spndtrimid_T"] = f"""fn spndtrimid_T(q: T) -> T {{
  return q * spndtrim_T(q * q * T({2 / 0.425 ** 2!r}) - T(1.0));
}}"""
H["spndtrix_T"] = f"""fn spndtrix_T(r: T) -> T {{
  if (r < T({_tail[0][1]!r})) {{ return {_tail_piece(0, "r")}; }}
  return {_tail_piece(1, f"min(r, T({_tail[1][1]!r}))")};
}}"""
H["spndtrixx_T"] = f"""fn spndtrixx_T(r: T) -> T {{
  if (r < T({_tail[1][1]!r})) {{ return spndtrix_T(r); }}
  return {_tail_piece(2, f"min(r, T({_tail[2][1]!r}))")};
}}"""
H["spndtriw_T"] = """fn spndtriw_T(q: T, pt: T) -> T {
  if (abs(q) <= T(0.425)) { return spndtrimid_T(q); }
  let x = spndtrix_T(sqrt_T(-log_T(pt)));
  return select(x, -x, q < T(0.0));
}"""
# x >= 0 with Q(x) = erfc(x / sqrt 2) / 2 = p, 0 < p <= 1/4: the fits' first guess
# (1e-12; float32 arithmetic about 1e-6) refined by one Halley step (cubic: far below
# either eps; from Abramowitz & Stegun 26.2.23's 4.5e-4 it took two, float64 three).
# u = (p - Q(x)) / phi(x) = sqrt(2 pi) exp(log p + x^2 / 2) - sqrt(pi / 2) erfcx(x / sqrt 2)
# never under- or overflows; the step is x - u / (1 + x u / 2).
H["spqinv_T"] = f"""fn spqinv_T(p: T) -> T {{
  let lp = log_T(p);
  var x = -spndtrimid_T(p - T(0.5));
  if (p < T(0.075)) {{ x = spndtrixx_T(sqrt_T(-lp)); }}
  let u = T({math.sqrt(2 * math.pi)!r}) * exp_T(lp + T(0.5) * x * x)
        - T({math.sqrt(math.pi / 2)!r}) * sperfcx_T(x * T({1 / math.sqrt(2)!r}));
  return x - u / (T(1.0) + T(0.5) * x * u);
}}"""
# erfinv(y) for |y| <= 1/2: ndtri's fit at q = y/2 over sqrt 2, then one Halley step on
# erf(x) - y: x - u / (1 + x u), u = (erf(x) - y) / (2 / sqrt(pi) exp(-x^2)) (from the
# Taylor series to y^9, 2e-4, float64 took two).
H["sperfinvc_T"] = f"""fn sperfinvc_T(y: T) -> T {{
  let x = spndtrimid_T(T(0.5) * y) * T({1 / math.sqrt(2)!r});
  let u = (sperf_T(x) - y) * T({SQRTPI / 2!r}) * spexpsq_T(x);
  return x - u / (T(1.0) + x * u);
}}"""
H["spndtri_T"] = f"""fn spndtri_T(p: T) -> T {{
  if (isnan_T(p)) {{ return p; }}
  if (p <= T(0.0) || p >= T(1.0)) {{
    if (p == T(0.0)) {{ return -bitcast<T>(EXPO); }}
    if (p == T(1.0)) {{ return bitcast<T>(EXPO); }}
    return nan_T();
  }}
  if (p < T(0.25)) {{ return -spqinv_T(p); }}
  if (p > T(0.75)) {{ return spqinv_T(T(1.0) - p); }}
  return T({math.sqrt(2)!r}) * sperfinvc_T(T(2.0) * p - T(1.0));
}}"""
H["sperfinv_T"] = f"""fn sperfinv_T(y: T) -> T {{
  if (isnan_T(y)) {{ return y; }}
  let ay = abs(y);
  if (ay >= T(1.0)) {{ return select(nan_T(), copysign_T(bitcast<T>(EXPO), y), ay == T(1.0)); }}
  if (ay <= T(0.5)) {{ return sperfinvc_T(y); }}
  return copysign_T(spqinv_T((T(1.0) - ay) * T(0.5)) * T({1 / math.sqrt(2)!r}), y);
}}"""
H["sperfcinv_T"] = f"""fn sperfcinv_T(z: T) -> T {{
  if (isnan_T(z)) {{ return z; }}
  if (z <= T(0.0) || z >= T(2.0)) {{
    if (z == T(0.0)) {{ return bitcast<T>(EXPO); }}
    if (z == T(2.0)) {{ return -bitcast<T>(EXPO); }}
    return nan_T();
  }}
  if (z <= T(0.5)) {{ return spqinv_T(z * T(0.5)) * T({1 / math.sqrt(2)!r}); }}
  if (z >= T(1.5)) {{ return -spqinv_T((T(2.0) - z) * T(0.5)) * T({1 / math.sqrt(2)!r}); }}
  return sperfinvc_T(T(1.0) - z);
}}"""

# Their edges as spndtri_T's, sperfinv_T's and sperfcinv_T's, written out: calling those
# for the edges inlined their Halley steps, which lavapipe ran for every element (1M
# float32 ndtri: 161 ms against 25).
H["spndtriwide_T"] = """fn spndtriwide_T(p: T) -> T {
  if (isnan_T(p)) { return p; }
  if (p <= T(0.0) || p >= T(1.0)) {
    return select(nan_T(), copysign_T(bitcast<T>(EXPO), p - T(0.5)), p == T(0.0) || p == T(1.0));
  }
  return spndtriw_T(p - T(0.5), min(p, T(1.0) - p));
}"""
H["sperfinvwide_T"] = f"""fn sperfinvwide_T(y: T) -> T {{
  if (isnan_T(y)) {{ return y; }}
  if (abs(y) >= T(1.0)) {{ return select(nan_T(), copysign_T(bitcast<T>(EXPO), y), abs(y) == T(1.0)); }}
  return spndtriw_T(T(0.5) * y, T(0.5) * (T(1.0) - abs(y))) * T({1 / math.sqrt(2)!r});
}}"""
H["sperfcinvwide_T"] = f"""fn sperfcinvwide_T(z: T) -> T {{
  if (isnan_T(z)) {{ return z; }}
  if (z <= T(0.0) || z >= T(2.0)) {{
    return select(nan_T(), copysign_T(bitcast<T>(EXPO), T(1.0) - z), z == T(0.0) || z == T(2.0));
  }}
  return spndtriw_T(T(0.5) * (z - T(1.0)), T(0.5) * min(z, T(2.0) - z)) * T({-1 / math.sqrt(2)!r});
}}"""

# -- digamma -----------------------------------------------------------------------------
# Near its root x0 = 1.4616...: the Taylor series in d = x - x0 (x0 in three parts, the
# first two exact in float32 too, so d keeps its relative accuracy in both types);
# psi(2 + z) for |z| <= 1/2 by its series in zeta(k) - 1; recurrences to reach them;
# the asymptotic series from 10; reflection below 0.
_R = tb.PSI_ROOT
H["sppsiroot_T"] = f"""fn sppsiroot_T(x: T) -> T {{
  let d = ((x - T({_R[0]!r})) - T({_R[1]!r})) - T({_R[2]!r});
  return d * ({horner(tb.PSI_TAYLOR, 'd')});
}}"""
H["sppsi2_T"] = f"fn sppsi2_T(z: T) -> T {{ return {horner(tb.PSI2, 'z')}; }}"
_PSI_ASYM = [-1 / 12, 1 / 120, -1 / 252, 1 / 240, -1 / 132, 691 / 32760, -1 / 12]
# psi(x) for finite x > 0
H["sppsipos_T"] = f"""fn sppsipos_T(x0: T) -> T {{
  var x = x0;
  var acc = T(0.0);
  if (x < T(1.0)) {{ acc = -T(1.0) / x; x = x + T(1.0); }}
  if (abs(x - T({_R[0]!r})) < T(0.25)) {{ return acc + sppsiroot_T(x); }}
  if (x < T(1.5)) {{ return acc + sppsi2_T(x - T(1.0)) - T(1.0) / x; }}
  if (x < T(2.5)) {{ return acc + sppsi2_T(x - T(2.0)); }}
  if (x < T(10.0)) {{
    var s = T(0.0);
    for (var k = 0; k < 8; k++) {{
      if (x < T(2.5)) {{ break; }}
      x = x - T(1.0);
      s = s + T(1.0) / x;
    }}
    return acc + (sppsi2_T(x - T(2.0)) + s);
  }}
  let r = T(1.0) / x;
  let z = r * r;
  return acc + (log_T(x) - T(0.5) * r + z * ({horner(_PSI_ASYM, 'z')}));
}}"""
H["sppsi_T"] = """fn sppsi_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  if (isinf_T(x)) { return select(nan_T(), x, x > T(0.0)); }
  if (x == T(0.0)) { return select(-bitcast<T>(EXPO), bitcast<T>(EXPO), signbit_T(x)); }
  if (x < T(0.0) && x == floor(x)) { return nan_T(); }
  let p = sppsipos_T(select(T(1.0) - x, x, x > T(0.0)));  // one inlined copy
  if (x > T(0.0)) { return p; }
  let sc = spsincospi_T(x - round_T(x));
  return p - PI * sc.y / sc.x;
}"""

# -- gamma -------------------------------------------------------------------------------
# x >= 10: Stirling, x^(x - 1/2) as two powers (x^(x/2 - 1/4) twice: one would overflow
# before gamma does); below, lgamma(2 + z)'s series and products of exact factors;
# reflection below 0 (sin(pi x) with its sign from the parity of round(x)).
H["spgammapos_T"] = f"""fn spgammapos_T(x: T) -> T {{
  if (x < T(0.5)) {{ return exp_T(splg2_T(x)) / (x * (T(1.0) + x)); }}
  if (x < T(1.5)) {{ let z = x - T(1.0); return exp_T(splg2_T(z)) / x; }}
  if (x < T(10.0)) {{
    var p = T(1.0);
    var y = x;
    for (var k = 0; k < 8; k++) {{
      if (y < T(2.5)) {{ break; }}
      y = y - T(1.0);
      p = p * y;
    }}
    return exp_T(splg2_T(y - T(2.0))) * p;
  }}
  if (x > T(171.7)) {{ return bitcast<T>(EXPO); }}
  let h = pow_T(x, T(0.5) * x - T(0.25));
  if (isinf_T(h)) {{ return h; }}  // then gamma overflows too (float32 from x = 35)
  // fenced: NVIDIA's driver reassociated h * (h * e^-x) into (h * h) * e^-x, which
  // overflows from x = 27.4 in float32 (143.7 in float64)
  return h * fence_T(h * exp_T(-x)) * (T({math.sqrt(2 * math.pi)!r}) * exp_T(spstirling_T(x)));
}}"""
H["spgamma_T"] = """fn spgamma_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  if (isinf_T(x)) { return select(nan_T(), x, x > T(0.0)); }
  if (x == T(0.0)) { return select(bitcast<T>(EXPO), -bitcast<T>(EXPO), signbit_T(x)); }
  if (x < T(0.0) && x == floor(x)) { return nan_T(); }
  // 1 - x = y + dy exactly: Gamma(y + dy) = Gamma(y) (1 + dy psi(y)) to first order (dy,
  // the rounding of 1 - x, times psi(y) was 22.7 eps at x = -15.501875)
  let y = two_sum_T(T(1.0), -x);
  let g = spgammapos_T(select(y.x, x, x > T(0.0)));  // one inlined copy
  if (x > T(0.0)) { return g; }
  let n = round_T(x);
  let s = spsincospi_T(x - n).x;
  let odd = T(0.5) * n - floor(T(0.5) * n) != T(0.0);
  let gc = select(g + g * (y.y * spdigammaapprox_T(y.x)), g, y.y == T(0.0) || isinf_T(g));
  let r = PI / (s * gc);
  return select(r, -r, odd);
}"""

# float32 gamma in float64 (a widened kernel: _exprs.WIDE), to float32's needs: Gamma on
# [1, 2] by a Chebyshev fit to 1e-12 (_fit, GAMMA12) times the recurrence's factors x - j
# (exact in float64 for a float32 x; at most 34 roundings: float32 overflows from 35.04),
# Gamma(x) = Gamma(1 + x) / x below 1, and pi / (sin(pi x) Gamma(1 - x)) below 0 (|Gamma|
# underflows float32 below -45: a signed zero). The float64 algorithm (Stirling's powers
# and lgamma's series in double words) took float32 14.5x cupyx's time on the H100.
H["spgamma12_T"] = cheb("spgamma12_T", tb.GAMMA12)
H["spgammaw_T"] = """fn spgammaw_T(x: T) -> T {
  var z = x;
  var p = T(1.0);
  if (z < T(1.0)) { p = T(1.0) / z; z = z + T(1.0); }
  loop {
    if (z < T(2.0)) { break; }
    z = z - T(1.0);
    p = p * z;
  }
  return p * spgamma12_T(T(2.0) * z - T(3.0));
}"""
H["spgammawide_T"] = """fn spgammawide_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  if (isinf_T(x)) { return select(nan_T(), x, x > T(0.0)); }
  if (x == T(0.0)) { return select(bitcast<T>(EXPO), -bitcast<T>(EXPO), signbit_T(x)); }
  if (x < T(0.0) && x == floor(x)) { return nan_T(); }
  if (x > T(36.0)) { return bitcast<T>(EXPO); }
  if (x > T(0.0)) { return spgammaw_T(x); }
  let n = round_T(x);
  let odd = T(0.5) * n - floor(T(0.5) * n) != T(0.0);
  let s = spsincospi_T(x - n).x;
  let r = select(s, -s, odd);  // sin(pi x)
  if (x < T(-45.0)) { return select(T(0.0), -T(0.0), r < T(0.0)); }
  return PI / (r * spgammaw_T(T(1.0) - x));
}"""

# -- incomplete gamma --------------------------------------------------------------------
# log(1 + s) - s without cancellation: w = s / (2 + s), log(1 + s) = 2 atanh(w), so the
# difference is -w s + 2 w^3 (1/3 + w^2 / 5 + ...) (|s| <= 1/2: w^2 <= 1/25).
H["splog1pmx_T"] = f"""fn splog1pmx_T(s: T) -> T {{
  if (abs(s) > T(0.5)) {{ return log1p_T(s) - s; }}
  let w = s / (T(2.0) + s);
  let z = w * w;
  return -w * s + T(2.0) * w * z * ({horner([1 / (2 * k + 3) for k in range(13)], 'z')});
}}"""
# -- double-word exponents -----------------------------------------------------------------
# The prefactors x^a e^-x / Gamma(a) and x^a y^b / B(a, b) are exp(z) with |z| up to
# hundreds: z rounded once would cost |z| eps (SciPy's gammainc(1000, 409.5) is 4900 eps
# off), so z is carried as hi + lo (logdd: log x to about 2^-73), and the large terms
# (a log x, lgamma(a), log B) cancel in double-word arithmetic.
# a * (hi + lo) as hi + lo
H["spddscale_T"] = """fn spddscale_T(a: T, v: vec2<T>) -> vec2<T> {
  let p = two_prod_T(a, v.x);
  return fast_two_sum_T(p.x, p.y + a * v.y);
}"""
# a / b as hi + lo (b != 0, quotient normal)
H["spdivdd_T"] = """fn spdivdd_T(a: T, b: T) -> vec2<T> {
  let q = a / b;
  let p = two_prod_T(q, b);
  return fast_two_sum_T(q, fence_T(fence_T(a - p.x) - p.y) / b);
}"""
# log(1 + u) as hi + lo for u = hi + lo > -1: 1 + u = w + e exactly-ish, log w + e / w
H["splog1pdd_T"] = """fn splog1pdd_T(u: vec2<T>) -> vec2<T> {
  let w = two_sum_T(T(1.0), u.x);
  let l = logdd_T(w.x);
  return fast_two_sum_T(l.x, l.y + (w.y + u.y) / w.x);
}"""
# a log x - x as hi + lo (finite a >= 0, x > 0)
H["spalogx_T"] = """fn spalogx_T(a: T, x: T) -> vec2<T> {
  return ddadd_T(spddscale_T(a, logdd_T(x)), vec2<T>(-x, T(0.0)));
}"""
# log(x^a e^-x / Gamma(a)) as hi + lo for a >= 8: Stirling's lgamma(a) =
# (a - 1/2) log a - a + log(2 pi) / 2 + stirling(a), the large terms in double words:
# a (log x - log a) + (a - x) + log(a) / 2 - log(2 pi) / 2 - stirling(a).
H["spigpredd_T"] = f"""fn spigpredd_T(a: T, x: T) -> vec2<T> {{
  let la = logdd_T(a);
  let lx = logdd_T(x);
  let d = ddadd_T(lx, -la);
  let s = ddadd_T(spddscale_T(a, d), two_sum_T(a, -x));
  return ddadd_T(s, vec2<T>(T(0.5) * la.x, T(0.5) * la.y - T({0.5 * math.log(2 * math.pi)!r}) - spstirling_T(a)));
}}"""
# exp(z) / g for z = hi + lo and g > 0 (a Gamma function value, or inf): exp(z) once in
# double words where it stays normal, else exp(z - log g) (the result is tiny there).
H["spexpdiv_T"] = """fn spexpdiv_T(z: vec2<T>, g: T) -> T {
  if (z.x > EXP_LO * T(0.8) && !isinf_T(g)) { return expdd_T(z.x, z.y) / g; }
  let e = ddadd_T(z, vec2<T>(-log_T(g), T(0.0)));
  return expdd_T(e.x, e.y);
}"""
# x^a e^-x / Gamma(a) (shift 0) or / Gamma(a + 1) (shift 1), finite a > 0, x > 0
H["spigpre_T"] = """fn spigpre_T(a: T, x: T, shift: bool) -> T {
  if (a >= T(8.0)) {
    var z = spigpredd_T(a, x);
    if (shift) { z = ddadd_T(z, -logdd_T(a)); }
    return expdd_T(z.x, z.y);
  }
  // Gamma(a + 1) = exp(lgamma(2 + a)) / (1 + a) for small a (a + 1 would round a away)
  var g = T(0.0);
  if (shift && a < T(0.5)) { g = exp_T(splg2_T(a)) / (T(1.0) + a); }
  else { g = spgammapos_T(select(a, a + T(1.0), shift)); }
  return spexpdiv_T(spalogx_T(a, x), g);
}"""
# P(a, x) by its series (x < a + 1 or x < 1): x^a e^-x / Gamma(a + 1) sum x^n / (a+1)_n;
# the sum alone (spgammainc2_T multiplies by the prefactor)
H["spigser_T"] = """fn spigser_T(a: T, x: T) -> T {
  var term = T(1.0);
  var sum = T(1.0);
  var b = a;
  for (var n = 0; n < 2000; n++) {
    b = b + T(1.0);
    term = term * (x / b);
    sum = sum + term;
    if (term < sum * T(1e-17)) { break; }
  }
  return sum;
}"""
# Q(a, x) by Legendre's continued fraction (modified Lentz), x >= a + 1 and x >= 1,
# without its prefactor x^a e^-x / Gamma(a)
H["spigcf_T"] = """fn spigcf_T(a: T, x: T) -> T {
  let tiny = T(1e-30);
  var b = x + T(1.0) - a;
  var c = T(1.0) / tiny;
  var d = T(1.0) / b;
  var h = d;
  for (var i = 1; i < 2000; i++) {
    let fi = T(i);
    let an = -fi * (fi - a);
    b = b + T(2.0);
    d = an * d + b;
    if (abs(d) < tiny) { d = tiny; }
    c = b + an / c;
    if (abs(c) < tiny) { c = tiny; }
    d = T(1.0) / d;
    let del = d * c;
    h = h * del;
    if (abs(del - T(1.0)) < T(1e-16)) { break; }
  }
  return h;
}"""
# Q(a, x) for a < 1, x <= 1: with e = log(x^a / Gamma(1 + a)),
# Q = -expm1(e) - e^e a sum_{n>=1} (-x)^n / (n! (a + n)) (P's series, term by term).
H["spigqsmall_T"] = """fn spigqsmall_T(a: T, x: T) -> T {
  var lg = T(0.0);
  if (a < T(0.5)) { lg = splg2_T(a) - log1p_T(a); } else { lg = splgpos_T(T(1.0) + a); }
  let e = a * log_T(x) - lg;
  var t = T(1.0);
  var s = T(0.0);
  for (var n = 1; n < 32; n++) {
    t = t * (-x / T(n));
    s = s + t / (a + T(n));
  }
  return -expm1_T(e) - exp_T(e) * a * s;
}"""
# upper: Q instead of P. NaN for a < 0, x < 0 and NaN; SciPy's values at the edges.
H["spgammainc2_T"] = """fn spgammainc2_T(a: T, x: T, upper: bool) -> T {
  if (isnan_T(a) || isnan_T(x) || a < T(0.0) || x < T(0.0)) { return nan_T(); }
  if (a == T(0.0)) {
    if (x > T(0.0)) { return select(T(1.0), T(0.0), upper); }
    return nan_T();
  }
  if (x == T(0.0)) { return select(T(0.0), T(1.0), upper); }
  if (isinf_T(a)) {
    if (isinf_T(x)) { return nan_T(); }
    return select(T(0.0), T(1.0), upper);
  }
  if (isinf_T(x)) { return select(T(1.0), T(0.0), upper); }
  // the continued fraction where Q <= 1/2 or so, the series for P elsewhere; Q for
  // a < 1 from its own series (1 - P would cancel: Q(1e-20, 0.1) = 1.8e-20). One
  // inlined copy of each, and of the prefactor.
  let cf = x > T(1.0) && x > a;
  if (!cf && upper && a < T(1.0)) { return spigqsmall_T(a, x); }
  var s = T(0.0);
  if (cf) { s = spigcf_T(a, x); } else { s = spigser_T(a, x); }
  let v = spigpre_T(a, x, !cf) * s;   // Q where cf, else P
  return select(v, T(1.0) - v, upper != cf);
}"""
H["spgammainc_T"] = "fn spgammainc_T(a: T, x: T) -> T { return spgammainc2_T(a, x, false); }"
H["spgammaincc_T"] = "fn spgammaincc_T(a: T, x: T) -> T { return spgammainc2_T(a, x, true); }"

# -- modified Bessel functions of order 0 and 1 ------------------------------------------
# |x| <= 8: the power series in (x/2)^2 (25 terms); beyond, sqrt(x) e^-x I(x) as a
# Chebyshev fit in 8 / x. The scaled forms multiply by exp(-|x|); the plain ones by
# exp(|x|) in two halves (I0 is finite up to 713.98, exp only to 709.78).
H["spi0s_T"] = f"fn spi0s_T(z: T) -> T {{ return {horner([1 / math.factorial(k) ** 2 for k in range(26)], 'z')}; }}"
H["spi1s_T"] = f"fn spi1s_T(z: T) -> T {{ return {horner([1 / (math.factorial(k) * math.factorial(k + 1)) for k in range(26)], 'z')}; }}"
H["spi0ebig_T"] = cheb("spi0ebig_T", tb.I0E_BIG)
H["spi1ebig_T"] = cheb("spi1ebig_T", tb.I1E_BIG)
# e^-x I0(x) and e^-x I1(x) / x on [0, 8]: Chebyshev fits in three pieces, for float32
# i0e and i1e computed in float64 (_exprs.WIDE): in float32 the power series times
# exp(-x) reached 3.39 and 3.60 eps on [4, 8) (bounds 1.5 and 1.75; the accuracy test's
# samples missed it), and these fits evaluated in float32 2.2 and 3.1 eps on [1, 2).
for _nu in (0, 1):
    _mid, _chain = _piecewise(f"spi{_nu}em", getattr(tb, f"I{_nu}E_MID"), "ax")
    H.update(_mid)
    H[f"spi{_nu}emid_T"] = f"""fn spi{_nu}emid_T(ax: T) -> T {{
{_chain}
  return spi{_nu}em2_T(T(1.0));  // ax = 8
}}"""
# sqrt(x) e^-x I(x) beyond 8, from its fit in 8 / x; odd: I1
H["spiebig_T"] = """fn spiebig_T(ax: T, odd: bool) -> T {
  let t = T(16.0) / ax - T(1.0);
  return select(spi0ebig_T(t), spi1ebig_T(t), odd) / sqrt_T(ax);
}"""
# (I0 or I1 of |x|) scaled by e^-|x| for finite x; odd: I1
H["spie_T"] = """fn spie_T(ax: T, odd: bool) -> T {
  if (ax <= T(8.0)) {
    let z = T(0.25) * ax * ax;
    let s = select(spi0s_T(z), T(0.5) * ax * spi1s_T(z), odd);
    return s * exp_T(-ax);
  }
  return spiebig_T(ax, odd);
}"""
# the same from the fits alone (no exp): float32's i0e and i1e in float64
H["spiew_T"] = """fn spiew_T(ax: T, odd: bool) -> T {
  if (ax <= T(8.0)) { return select(spi0emid_T(ax), ax * spi1emid_T(ax), odd); }
  return spiebig_T(ax, odd);
}"""
# i0e, i1e (and their float64-fit forms, _exprs.WIDE) at every x
for _name, _core in (("e", "spie_T"), ("ewide", "spiew_T")):
    H[f"spi0{_name}_T"] = f"""fn spi0{_name}_T(x: T) -> T {{
  if (isnan_T(x)) {{ return x; }}
  if (isinf_T(x)) {{ return T(0.0); }}
  return {_core}(abs(x), false);
}}"""
    H[f"spi1{_name}_T"] = f"""fn spi1{_name}_T(x: T) -> T {{
  if (isnan_T(x)) {{ return x; }}
  if (isinf_T(x)) {{ return copysign_T(T(0.0), x); }}
  return copysign_T({_core}(abs(x), true), x);
}}"""
H["spi0_T"] = """fn spi0_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  let ax = abs(x);
  if (ax <= T(8.0)) { return spi0s_T(T(0.25) * ax * ax); }
  if (ax > T(720.0)) { return bitcast<T>(EXPO); }
  let h = exp_T(T(0.5) * ax);
  return spie_T(ax, false) * h * h;
}"""
H["spi1_T"] = """fn spi1_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  let ax = abs(x);
  if (ax <= T(8.0)) { return x * T(0.5) * spi1s_T(T(0.25) * ax * ax); }
  if (ax > T(720.0)) { return copysign_T(bitcast<T>(EXPO), x); }
  let h = exp_T(T(0.5) * ax);
  return copysign_T(spie_T(ax, true) * h * h, x);
}"""

# -- the incomplete beta function ---------------------------------------------------------
# log B(a, b): lgamma's sum where an argument is small, else Stirling's form, in which
# the large terms cancel analytically:
# (a - 1/2) log(a / (a + b)) + (b - 1/2) log(b / (a + b)) - log(a + b) / 2 + log(2 pi) / 2
# + the three Stirling corrections.
H["spbetaln_T"] = """fn spbetaln_T(a0: T, b0: T) -> T {
  // SciPy's values at the edges (-inf wins over nan there)
  let inf = bitcast<T>(EXPO);
  if (a0 == -inf || b0 == -inf) { return inf; }
  // a non-positive integer n (checked before NaN, as SciPy does: betaln(-3, nan) = inf):
  // the limit log B(1 - n - c, c) where the other, c, is a positive integer with
  // 1 - n - c > 0, else the pole +inf; as SciPy, whose C ints hold n and c, only for
  // n >= -(2^31 - 2) and c < 2^31 (betaln(-2147483647, 2) is inf there)
  var a = a0;
  var b = b0;
  let an = a <= T(0.0) && spisint_T(a);
  if (an || (b <= T(0.0) && spisint_T(b))) {
    let n = select(b, a, an);
    let c = select(a, b, an);
    let m = T(1.0) - n - c;
    if (!(n > T(-2147483646.5) && c > T(0.0) && c < T(2147483648.0) && spisint_T(c)
          && m > T(0.0))) { return inf; }
    a = m;
    b = c;
  }
  if (isnan_T(a) || isnan_T(b) || (isinf_T(a) && isinf_T(b))) { return nan_T(); }
  if (isinf_T(a) || isinf_T(b)) { return -bitcast<T>(EXPO); }
  let lo = min(a, b);
  let hi = max(a, b);
  // the lgamma terms: all three below 8 or off the positive quadrant, lgamma(lo) where
  // only hi >= 8, none where both are (one inlined copy of lgamma)
  let all = !(lo > T(0.0)) || hi < T(8.0);
  let n = select(select(0, 1, lo < T(8.0)), 3, all);
  let g = splg3_T(select(lo, a, all), select(hi, b, all), n);
  if (all) { return g; }
  return g + spbetalnst_T(lo, hi);
}"""
# lgamma(a) + lgamma(b) - lgamma(a + b), its first n terms; one inlined lgamma in a loop
# whose bound the compiler cannot see (three copies made lavapipe's compile take ~1 min)
H["splg3_T"] = """fn splg3_T(a: T, b: T, n: i32) -> T {
  var s = T(0.0);
  for (var i = 0; i < n; i++) {
    let v = select(select(a, b, i == 1), a + b, i == 2);
    let l = spgammaln_T(v);
    s = s + select(l, -l, i == 2);
  }
  return s;
}"""
# log B(a, b) for finite lo <= hi, hi >= 8, less lgamma(lo) where lo < 8. Both >= 8:
# Stirling's form, in which the large terms cancel analytically. Only the larger >= 8:
# lgamma(hi) - lgamma(lo + hi) by Stirling's form too: -(hi - 1/2) log1p(lo / hi) -
# lo log(lo + hi) + lo + the corrections (lgamma(1e3) - lgamma(1e3 + 1e-10) cancelled
# 2600 eps away before).
H["spbetalnst_T"] = f"""fn spbetalnst_T(lo: T, hi: T) -> T {{
  let s = lo + hi;
  if (lo < T(8.0)) {{
    return -(hi - T(0.5)) * log1p_T(lo / hi) - lo * log_T(s) + lo
         + (spstirling_T(hi) - spstirling_T(s));
  }}
  return (lo - T(0.5)) * -log1p_T(hi / lo) + (hi - T(0.5)) * -log1p_T(lo / hi)
       - T(0.5) * log_T(s) + T({0.5 * math.log(2 * math.pi)!r})
       + spstirling_T(lo) + spstirling_T(hi) - spstirling_T(s);
}}"""
# B(a, b) = Gamma(a) Gamma(b) / Gamma(a + b) (n = 3) or Gamma(a) (n = 1); one inlined
# Gamma in a loop, as splg3_T: (Gamma(a) / Gamma(a + b)) Gamma(b), in that order, so that
# tiny a, b do not overflow
H["spg3_T"] = """fn spg3_T(a: T, b: T, n: i32) -> T {
  var p = T(1.0);
  for (var i = 0; i < n; i++) {
    let g = spgamma_T(select(select(a, a + b, i == 1), b, i == 2));
    p = select(p * g, p / g, i == 1);
  }
  return p;
}"""
# x^a y^b / B(a, b) for finite a, b > 0 from lx = log x, ly = log y as hi + lo (so that
# a log x keeps its digits where x itself was rounded: stdtr's w = df / (df + t^2)).
# Both below 8: Gamma(a + b) / (Gamma(a) Gamma(b)) as a factor. Else log B's large
# terms in double words, with lgamma(v) = (v - 1/2) log v - v + log(2 pi) / 2 +
# stirling(v), s = lo + hi: only the larger >= 8: lgamma(hi) - lgamma(s) =
# -(hi - 1/2) log1p(lo / hi) - lo log s + lo + stirling(hi) - stirling(s), and Gamma(lo)
# as a factor; both: log B = -(lo - 1/2) log1p(hi / lo) - (hi - 1/2) log1p(lo / hi)
# - log(s) / 2 + log(2 pi) / 2 + stirling(lo) + stirling(hi) - stirling(s).
H["spbetapre_T"] = f"""fn spbetapre_T(a: T, b: T, lx: vec2<T>, ly: vec2<T>) -> T {{
  let lo = min(a, b);
  let hi = max(a, b);
  let z = ddadd_T(spddscale_T(a, lx), spddscale_T(b, ly));
  // B (both < 8) or Gamma(lo) (the smaller < 8) as a divisor (one inlined Gamma)
  let g = spg3_T(lo, hi, select(1, 3, hi < T(8.0)));
  if (hi < T(8.0)) {{ return spexpdiv_T(z, g); }}
  let s = two_sum_T(lo, hi);
  let lsr = logdd_T(s.x);
  let ls = fast_two_sum_T(lsr.x, lsr.y + s.y / s.x);
  let l1 = splog1pdd_T(spdivdd_T(lo, hi));
  let za = ddadd_T(z, ddadd_T(spddscale_T(hi, l1), T(-0.5) * l1));  // + (hi - 1/2) l1
  let st = spstirling_T(s.x) - spstirling_T(hi);
  if (lo < T(8.0)) {{
    let e = ddadd_T(za, ddadd_T(spddscale_T(lo, ls), vec2<T>(-lo, st)));
    return spexpdiv_T(e, g);
  }}
  let l2 = splog1pdd_T(spdivdd_T(hi, lo));
  let w = ddadd_T(ddadd_T(spddscale_T(lo, l2), T(-0.5) * l2), T(0.5) * ls);
  let e = ddadd_T(ddadd_T(za, w), vec2<T>(T({-0.5 * math.log(2 * math.pi)!r}), st - spstirling_T(lo)));
  return expdd_T(e.x, e.y);
}}"""
# The continued fraction of I_x(a, b) (modified Lentz, at most 1000 terms) without its
# prefactor x^a y^b / (a B(a, b)).
H["spbetacf_T"] = """fn spbetacf_T(a: T, b: T, x: T, y: T) -> T {
  let tiny = T(1e-30);
  let qab = a + b;
  let qap = a + T(1.0);
  let qam = a - T(1.0);
  var c = T(1.0);
  // 1 - (a + b) x / (a + 1) = (1 - b + (a + b) y) / (a + 1): from y where x is near 1
  var d = select(T(1.0) - qab * x / qap, (T(1.0) - b + qab * y) / qap, x > T(0.5));
  if (abs(d) < tiny) { d = tiny; }
  d = T(1.0) / d;
  var h = d;
  for (var m = 1; m < 1000; m++) {
    let fm = T(m);
    let m2 = fm + fm;
    var aa = fm * (b - fm) * x / ((qam + m2) * (a + m2));
    d = T(1.0) + aa * d;
    if (abs(d) < tiny) { d = tiny; }
    c = T(1.0) + aa / c;
    if (abs(c) < tiny) { c = tiny; }
    d = T(1.0) / d;
    h = h * d * c;
    aa = -(a + fm) * (qab + fm) * x / ((a + m2) * (qap + m2));
    d = T(1.0) + aa * d;
    if (abs(d) < tiny) { d = tiny; }
    c = T(1.0) + aa / c;
    if (abs(c) < tiny) { c = tiny; }
    d = T(1.0) / d;
    let del = d * c;
    h = h * del;
    if (abs(del - T(1.0)) < T(1e-16)) { break; }
  }
  return h;
}"""
# vec2(I_x(a, b), 1 - I_x(a, b)), each computed directly (never 1 - the other where
# that would cancel), for y = 1 - x, with lx = log x, ly = log y as hi + lo; SciPy's
# values at the edges.
H["spbetainc2_T"] = """fn spbetainc2_T(a: T, b: T, x: T, y: T, lx: vec2<T>, ly: vec2<T>) -> vec2<T> {
  let nan = nan_T();
  if (isnan_T(a) || isnan_T(b) || isnan_T(x) || a < T(0.0) || b < T(0.0)
      || x < T(0.0) || x > T(1.0) || (a == T(0.0) && b == T(0.0))
      || (isinf_T(a) && isinf_T(b))) { return vec2<T>(nan, nan); }
  if (x == T(0.0)) { return vec2<T>(T(0.0), T(1.0)); }
  if (y == T(0.0)) { return vec2<T>(T(1.0), T(0.0)); }
  if (a == T(0.0) || isinf_T(b)) { return vec2<T>(T(1.0), T(0.0)); }
  if (b == T(0.0) || isinf_T(a)) { return vec2<T>(T(0.0), T(1.0)); }
  // the continued fraction on the side where it converges fast; where its value v is
  // above 3/4 (so 1 - v, the other value, cancels: 40 eps at (2.5, 0.1, 0.8)), once
  // more on the other side, where the value is small, if its x is at most 0.95 (it
  // converges there too, in more terms). One inlined copy, in a loop.
  var swap = !(x * (a + b + T(2.0)) < a + T(1.0));
  var v = T(0.0);
  for (var it = 0; it < 2; it++) {
    let p = select(a, b, swap);
    let q = select(b, a, swap);
    let h = spbetacf_T(p, q, select(x, y, swap), select(y, x, swap));
    v = spbetapre_T(p, q, select(lx, ly, swap), select(ly, lx, swap)) * h / p;
    if (v <= T(0.75) || it == 1 || select(y, x, swap) > T(0.95)) { break; }
    swap = !swap;
  }
  return select(vec2<T>(v, T(1.0) - v), vec2<T>(T(1.0) - v, v), swap);
}"""
# I_x(a, b) and its complement: log(1 - x) as log1p(-x) in double words (1 - x itself
# rounds for x < 1/2)
H["spbetaincx_T"] = """fn spbetaincx_T(a: T, b: T, x: T) -> vec2<T> {
  return spbetainc2_T(a, b, x, T(1.0) - x, logdd_T(x), splog1pdd_T(vec2<T>(-x, T(0.0))));
}"""
H["spbetainc_T"] = "fn spbetainc_T(a: T, b: T, x: T) -> T { return spbetaincx_T(a, b, x).x; }"
H["spbetaincc_T"] = "fn spbetaincc_T(a: T, b: T, x: T) -> T { return spbetaincx_T(a, b, x).y; }"
# Student's t for df >= 20 and log1p(t^2 / df) <= 2, where the continued fraction at
# w = df / (df + t^2) is ill-conditioned (near its transition, each relative eps of w
# costs thousands: 2100 eps at df = 1e4, t = -2). With X ~ Beta(a, 1/2), a = df / 2,
# t = -log X: I_w(a, 1/2) = int_u0^inf e^(-a t) (1 - e^-t)^(-1/2) dt / B(a, 1/2), u0 =
# -log w = log1p(t^2 / df). (1 - e^-t)^(-1/2) = e^(t/4) t^(-1/2) (sinh(t/2) / (t/2))^(-1/2)
# and the last factor's series sum c_k t^2k (radius 2 pi) integrated term by term gives
# I = Gamma(a + 1/2) / (Gamma(a) T^(1/2)) sum_k c_k (1/2)_(2k) T^-2k Q(1/2 + 2k, T u0),
# T = a - 1/4 (the terms beyond 2 pi weigh e^(-2 pi T) < 1e-26). Q at half-integers by
# the recurrence Q(s + 1, v) = Q(s, v) + v^s e^-v / Gamma(s + 1) from Q(1/2, v) =
# erfc(sqrt v) (all terms positive), v = T u0 in double words; 19 terms leave < 3 eps
# from df = 20 (checked against mpmath). The Gamma ratio: log of it =
# (a - 1/2) log1p(1 / (2a)) - 1/2 + log1p(3 / (4T)) / 2 + stirling(a + 1/2) - stirling(a).
# u: t^2 / df as hi + lo; the result is I_w(a, 1/2) / 2, the lower tail.
_SD = tb.STDTR_SERIES
H["spstdtrtail_T"] = f"""fn spstdtrtail_T(df: T, u: vec2<T>) -> T {{
  let a = T(0.5) * df;
  let tt = a - T(0.25);
  let v = spddscale_T(tt, splog1pdd_T(u));
  let h = sqrt_T(v.x);
  var q = sperfcq_T(h, v);
  var g = h * expdd_T(-v.x, -v.y) * T({2 / SQRTPI!r});
  var s = q;
  var tk = T(1.0);
  let r2 = T(1.0) / (tt * tt);
  q = q + g; g = g * (v.x * T(0.6666666666666666)); q = q + g; g = g * (v.x * T(0.4));\n  tk = tk * r2; s = s + T({_SD[1]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.2857142857142857)); q = q + g; g = g * (v.x * T(0.2222222222222222));\n  tk = tk * r2; s = s + T({_SD[2]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.18181818181818182)); q = q + g; g = g * (v.x * T(0.15384615384615385));\n  tk = tk * r2; s = s + T({_SD[3]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.13333333333333333)); q = q + g; g = g * (v.x * T(0.11764705882352941));\n  tk = tk * r2; s = s + T({_SD[4]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.10526315789473684)); q = q + g; g = g * (v.x * T(0.09523809523809523));\n  tk = tk * r2; s = s + T({_SD[5]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.08695652173913043)); q = q + g; g = g * (v.x * T(0.08));\n  tk = tk * r2; s = s + T({_SD[6]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.07407407407407407)); q = q + g; g = g * (v.x * T(0.06896551724137931));\n  tk = tk * r2; s = s + T({_SD[7]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.06451612903225806)); q = q + g; g = g * (v.x * T(0.06060606060606061));\n  tk = tk * r2; s = s + T({_SD[8]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.05714285714285714)); q = q + g; g = g * (v.x * T(0.05405405405405406));\n  tk = tk * r2; s = s + T({_SD[9]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.05128205128205128)); q = q + g; g = g * (v.x * T(0.04878048780487805));\n  tk = tk * r2; s = s + T({_SD[10]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.046511627906976744)); q = q + g; g = g * (v.x * T(0.044444444444444446));\n  tk = tk * r2; s = s + T({_SD[11]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.0425531914893617)); q = q + g; g = g * (v.x * T(0.04081632653061224));\n  tk = tk * r2; s = s + T({_SD[12]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.0392156862745098)); q = q + g; g = g * (v.x * T(0.03773584905660377));\n  tk = tk * r2; s = s + T({_SD[13]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.03636363636363636)); q = q + g; g = g * (v.x * T(0.03508771929824561));\n  tk = tk * r2; s = s + T({_SD[14]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.03389830508474576)); q = q + g; g = g * (v.x * T(0.03278688524590164));\n  tk = tk * r2; s = s + T({_SD[15]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.031746031746031744)); q = q + g; g = g * (v.x * T(0.03076923076923077));\n  tk = tk * r2; s = s + T({_SD[16]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.029850746268656716)); q = q + g; g = g * (v.x * T(0.028985507246376812));\n  tk = tk * r2; s = s + T({_SD[17]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.028169014084507043)); q = q + g; g = g * (v.x * T(0.0273972602739726));\n  tk = tk * r2; s = s + T({_SD[18]!r}) * tk * q;\n  q = q + g; g = g * (v.x * T(0.02666666666666667)); q = q + g; g = g * (v.x * T(0.025974025974025976));\n  tk = tk * r2; s = s + T({_SD[19]!r}) * tk * q;
  let lr = (a - T(0.5)) * log1p_T(T(0.5) / a) - T(0.5) + T(0.5) * log1p_T(T(0.75) / tt)
         + (spstirling_T(a + T(0.5)) - spstirling_T(a));
  return T(0.5) * exp_T(lr) * s;
}}"""
# Student's t: the series above where it holds, else I_w(df/2, 1/2) / 2 for the tail,
# w = df / (df + t^2), with 1 - w = 1 / (1 + df / t^2) computed directly (so small t keep
# their accuracy), and log w = -log1p(t^2 / df), log(1 - w) = -log1p(df / t^2) in double
# words from t^2 exactly (w's own rounding, times df / 2 in the prefactor's exponent,
# cost 3000 eps at df = 1e4).
H["spstdtr_T"] = """fn spstdtr_T(df: T, t: T) -> T {
  if (isnan_T(df) || isnan_T(t) || df <= T(0.0)) { return nan_T(); }
  if (isinf_T(t)) { return select(T(0.0), T(1.0), t > T(0.0)); }
  if (isinf_T(df)) { return spndtr_T(t); }
  if (t == T(0.0)) { return T(0.5); }
  let t2 = two_prod_T(t, t);
  // t^2 / df as hi + lo
  let q1 = t2.x / df;
  let p1 = two_prod_T(q1, df);
  let u1 = fast_two_sum_T(q1, fence_T(fence_T(t2.x - p1.x) - p1.y + t2.y) / df);
  var tail = T(0.0);
  if (df >= T(20.0) && q1 <= T(6.389)) {
    tail = spstdtrtail_T(df, u1);
  } else {
    let w = df / (df + t2.x);
    let z = T(1.0) / (T(1.0) + df / t2.x);
    let q2 = df / t2.x;  // df / t^2 as hi + lo
    let p2 = two_prod_T(q2, t2.x);
    let u2 = fast_two_sum_T(q2, fence_T(fence_T(df - p2.x) - p2.y - q2 * t2.y) / t2.x);
    let v = spbetainc2_T(T(0.5) * df, T(0.5), w, z, -splog1pdd_T(u1), -splog1pdd_T(u2));
    if (t > T(0.0)) { return T(0.5) * (T(1.0) + v.y); }
    tail = T(0.5) * v.x;
  }
  return select(T(1.0) - tail, tail, t < T(0.0));
}"""
# log B(lo, hi) (lo >= 8) or lgamma(hi) - lgamma(lo + hi) (lo < 8, Gamma(lo) left out),
# for finite lo <= hi with hi >= 8 and s = lo + hi >= 8 (lo may be negative), in double
# words: Stirling's forms of spbetapre_T, whose exponent is a log x + b log y minus this.
H["spbetalndd_T"] = f"""fn spbetalndd_T(lo: T, hi: T) -> vec2<T> {{
  let s = two_sum_T(lo, hi);
  let lsr = logdd_T(s.x);
  let ls = fast_two_sum_T(lsr.x, lsr.y + s.y / s.x);
  // log1p(lo / hi); below 1e-3 by its series (splog1pdd_T keeps log(1 + d) ~ d of the
  // part d below 1's last bit: the d^2 / 2 it leaves, times hi, was 5.9 eps at 2e17)
  let u = spdivdd_T(lo, hi);
  var l1 = splog1pdd_T(u);
  if (abs(u.x) < T(1e-3)) {{
    let c = u.x * u.x * ({horner([(-1) ** (k + 1) / (k + 2) for k in range(5)], 'u.x')});
    l1 = fast_two_sum_T(u.x, u.y + c);
  }}
  let st = spstirling_T(hi) - spstirling_T(s.x);
  let t1 = -ddadd_T(spddscale_T(hi, l1), T(-0.5) * l1);   // -(hi - 1/2) log1p(lo / hi)
  if (lo < T(8.0)) {{ return ddadd_T(t1, ddadd_T(-spddscale_T(lo, ls), vec2<T>(lo, st))); }}
  let l2 = splog1pdd_T(spdivdd_T(hi, lo));
  let w = ddadd_T(ddadd_T(spddscale_T(lo, l2), T(-0.5) * l2), T(0.5) * ls);
  return ddadd_T(ddadd_T(t1, -w), vec2<T>(T({0.5 * math.log(2 * math.pi)!r}), st + spstirling_T(lo)));
}}"""
# lgamma(s) for s = hi + lo >= 8 in double words: (s - 1/2) log s - s + log(2 pi) / 2
# + stirling(s)
H["splgammadd_T"] = f"""fn splgammadd_T(s: vec2<T>) -> vec2<T> {{
  let lr = logdd_T(s.x);
  let ls = fast_two_sum_T(lr.x, lr.y + s.y / s.x);
  let h = two_sum_T(s.x, T(-0.5));
  let p = ddmul_T(fast_two_sum_T(h.x, h.y + s.y), ls);
  return ddadd_T(ddadd_T(p, -s), vec2<T>(T({0.5 * math.log(2 * math.pi)!r}), spstirling_T(s.x)));
}}"""
# psi(x) for x >= 1 to about 1% (log x - 1/(2x) - 1/(12x^2)): enough for a first-order
# correction of an argument's last bit
H["spdigammaapprox_T"] = """fn spdigammaapprox_T(x: T) -> T {
  let r = T(1.0) / x;
  return log_T(x) - r * (T(0.5) + r * T(0.08333333333333333));
}"""
# f B or f / B (inv) with B = r (1 + c)
H["spbetafin_T"] = """fn spbetafin_T(f: T, r: T, c: T, inv: bool) -> T {
  let rb = select(r + r * c, r, c == T(0.0) || isinf_T(r));
  return select(f * rb, f / rb, inv);
}"""
# B(a, b), with SciPy's values at its poles and limits. A non-positive integer (a first, as
# SciPy): the limit (-1)^c B(1 - n - c, c) where the other, c, is a positive integer with
# 1 - n - c > 0, else the pole (+inf; -inf where c is a non-positive integer of odd
# parity, as SciPy). a + b a non-positive integer (a, b not): a zero with the sign of
# Gamma(a) Gamma(b). hi >= 8 and a + b >= 8: Gamma(lo) exp(E) (lo < 8) or exp(E), E
# from spbetalndd_T in double words (exp of betaln rounded once cost |betaln| eps: 121
# at (1000, 100)); else (Gamma(a) / Gamma(a + b)) Gamma(b). One inlined Gamma (spg3_T).
H["spbeta_T"] = """fn spbeta_T(a0: T, b0: T) -> T {
  if (isnan_T(a0) || isnan_T(b0)) { return nan_T(); }
  let inf = bitcast<T>(EXPO);
  if (a0 == -inf || b0 == -inf) { return nan_T(); }  // poles accumulate (SciPy: inf)
  var a = a0;
  var b = b0;
  var sg = T(1.0);
  let an = a <= T(0.0) && spisint_T(a);
  let bn = b <= T(0.0) && spisint_T(b);
  // both non-positive integers: the pole, -inf where b is odd. Decided here, as a choice
  // of constants: NVIDIA's Vulkan driver returned sg (+-1) for the sg * inf this was
  // inside the block below (H200, every such pair)
  if (an && bn) { return select(-inf, inf, spisint_T(T(0.5) * b)); }
  if (an || bn) {
    let n = select(b, a, an);
    let c = select(a, b, an);
    let m = T(1.0) - n - c;
    if (isinf_T(c) || !spisint_T(c) || !(m > T(0.0))) { return inf; }
    sg = select(T(-1.0), T(1.0), spisint_T(T(0.5) * c));
    a = m;
    b = c;
  }
  if (a == inf || b == inf) {
    let c = select(a, b, a == inf);
    if (c == inf) { return nan_T(); }
    if (c > T(0.0)) { return T(0.0); }
    // c a negative non-integer: the sign of Gamma(c), negative where floor(c) is odd
    let f = floor(c);
    return select(inf, -inf, T(0.5) * f - floor(T(0.5) * f) != T(0.0));
  }
  // a + b exactly (sd): B is ill-conditioned in a + b near its poles, and the sine below
  // takes the rounding of a + b into account
  let sd = two_sum_T(a, b);
  if (sd.x <= T(0.0) && spisint_T(sd.x) && sd.y == T(0.0)) {
    let ga = T(0.5) * floor(a) - floor(T(0.5) * floor(a)) != T(0.0) && a < T(0.0);
    let gb = T(0.5) * floor(b) - floor(T(0.5) * floor(b)) != T(0.0) && b < T(0.0);
    return select(T(0.0), -T(0.0), ga != gb);
  }
  // Negative arguments through Gamma(x) Gamma(1 - x) = pi / sin(pi x), so that no Gamma
  // of a large negative argument is needed (beta(-152.1, -145.7) is -1.2e89; Gamma(-160)
  // was 230 eps off). a + b < 0 (refl): B(a, b) = f B(a', b') or f / B(a', b') (inv):
  // both negative, pi sin(pi s) / (sin(pi a) sin(pi b) (1 - s) B(1 - a, 1 - b)); one, n,
  // sin(pi s) / sin(pi n) B(p, 1 - s). a + b >= 8 with lo < -7 (neglo): log |Gamma(lo)| =
  // log(pi / |sin(pi lo)|) - lgamma(1 - lo) joins the exponent below.
  let lo0 = min(a, b);
  let hi0 = max(a, b);
  let refl = sd.x < T(0.0);
  let inv = hi0 < T(0.0);
  let neglo = !refl && lo0 < T(-7.0) && hi0 >= T(8.0);
  var sp = vec3<T>(T(1.0), T(1.0), T(1.0));   // sin(pi v): s, lo, hi (refl) or lo (neglo)
  var cs = T(1.0);                              // cos(pi s)
  let m = select(select(0, 1, neglo), select(2, 3, inv), refl);
  for (var i = 0; i < m; i++) {                 // one inlined sine
    let v = select(select(select(sd.x, lo0, neglo), lo0, i == 1), hi0, i == 2);
    let k = round_T(v);
    let sc = spsincospi_T(v - k);
    let neg = T(0.5) * k - floor(T(0.5) * k) != T(0.0);
    let sv = select(sc.x, -sc.x, neg);
    if (i == 0) { sp.x = sv; cs = select(sc.y, -sc.y, neg); }
    else if (i == 1) { sp.y = sv; } else { sp.z = sv; }
  }
  var f = T(1.0);
  var dx = T(0.0);   // the new a + dx, b + dy are 1 - a, 1 - b, 1 - s exactly: their
  var dy = T(0.0);   // rounding, times psi(a) - psi(a + b), cost 18 eps at (-15.5, -140.25)
  if (refl) {
    let ss = sp.x + PI * cs * sd.y;   // sin(pi (s + ds))
    if (inv) {
      f = PI * ss / (sp.y * sp.z * ((T(1.0) - sd.x) - sd.y));
      let ta = two_sum_T(T(1.0), -lo0);
      let tb = two_sum_T(T(1.0), -hi0);
      a = ta.x;
      dx = ta.y;
      b = tb.x;
      dy = tb.y;
    } else {
      f = ss / sp.y;
      a = hi0;
      let t = two_sum_T(T(1.0), -sd.x);
      let u = two_sum_T(t.x, t.y - sd.y);
      b = u.x;
      dy = u.y;
    }
  }
  let lo = min(a, b);
  let hi = max(a, b);
  let s = a + b;
  let big = hi >= T(8.0) && s >= T(8.0);
  // both positive, hi < 8 <= a + b: Gamma(lo) Gamma(hi) exp(-lgamma(a + b)), lgamma by
  // Stirling in double words (Gamma(a + b) itself cost 13 eps with the two others)
  let mid = !big && lo > T(0.0) && s >= T(8.0);
  // the Gamma factors with one inlined Gamma: x0 x1 x2, x1 the divisor but in mid. Else
  // (Gamma(u) / Gamma(a + b)) Gamma(v), u the larger in magnitude (the closer to a + b:
  // beta(1e-300, -25.5) overflowed as Gamma(1e-300) / Gamma(-25.5))
  // B(a + dx, b + dy) = B(a, b) (1 + c) to first order (dx, dy > 0 only where a, b > 1)
  var c = T(0.0);
  if (refl) {
    let ps = spdigammaapprox_T(s);
    // (a may be tiny, with dx = 0: psi's approximation is -inf there)
    c = select(T(0.0), dx * (spdigammaapprox_T(a) - ps), dx != T(0.0))
      + select(T(0.0), dy * (spdigammaapprox_T(b) - ps), dy != T(0.0));
  }
  // neglo with a + b < 8: exp(lgamma(hi) + log |Gamma(lo)|) / Gamma(a + b)
  let nls = neglo && !big;
  let ua = abs(a) >= abs(b);
  let x0 = select(select(b, a, ua), lo, big || mid);
  let x1 = select(s, hi, mid);
  let x2 = select(a, b, ua);
  let n = select(select(select(3, 2, mid), 2, nls), select(1, 0, lo >= T(8.0) || neglo), big);
  var g = T(1.0);
  for (var i = select(0, 1, nls); i < n; i++) {
    let gv = spgamma_T(select(select(x0, x1, i == 1), x2, i == 2));
    g = select(g * gv, g / gv, i == 1 && !mid);
  }
  if (!big && !mid && !nls) { return sg * spbetafin_T(f, g, c, inv); }
  var e = vec2<T>(T(0.0), T(0.0));
  if (mid) { e = -splgammadd_T(two_sum_T(lo, hi)); }
  else if (nls) { e = splgammadd_T(vec2<T>(hi, T(0.0))); }
  else { e = spbetalndd_T(lo, hi); }
  if (neglo) {
    e = ddadd_T(ddadd_T(e, -splgammadd_T(two_sum_T(T(1.0), -lo))),
                vec2<T>(log_T(PI / abs(sp.x)), T(0.0)));
    g = select(g, -g, sp.x < T(0.0));
  }
  if (abs(e.x) < EXP_LO * T(-0.8) || isinf_T(g) || g == T(0.0)) {
    return sg * spbetafin_T(f, g * expdd_T(e.x, e.y), c, inv);
  }
  // exp(E) beyond the normal range: exp(E + log |g|) (beta(-140.24, 249.7) is 1e73,
  // Gamma(-140.24) 1e-240 and exp(E) would overflow)
  let z = ddadd_T(e, vec2<T>(log_T(abs(g)), T(0.0)));
  return sg * spbetafin_T(f, copysign_T(expdd_T(z.x, z.y), g), c, inv);
}"""

# -- complete elliptic integrals (parameter m, as SciPy) ------------------------------------
# The arithmetic-geometric mean of 1 and sqrt(1 - m) (at most 24 steps: quadratic once
# close, log2 log(1/b) steps before): K = pi / (2 AGM); E = K (1 - sum 2^(n-1) c_n^2),
# c_0^2 = m, c_(n+1) = (a_n - b_n) / 2.
H["spagm_T"] = """fn spagm_T(m: T) -> vec2<T> {
  var a = T(1.0);
  var b = sqrt_T(T(1.0) - m);
  var s = T(0.5) * m;
  var w = T(0.5);
  for (var n = 0; n < 24; n++) {
    let c = T(0.5) * (a - b);
    w = w + w;
    s = s + w * c * c;
    let an = T(0.5) * (a + b);
    b = sqrt_T(a * b);
    a = an;
    if (abs(c) <= a * T(1e-17)) { break; }
  }
  let k = T(0.5) * PI / a;
  return vec2<T>(k, k * (T(1.0) - s));
}"""
H["spellipk_T"] = """fn spellipk_T(m: T) -> T {
  if (isnan_T(m) || m > T(1.0)) { return nan_T(); }
  if (m == T(1.0)) { return bitcast<T>(EXPO); }
  if (isinf_T(m)) { return T(0.0); }
  return spagm_T(m).x;
}"""
# E near m = 1 (m1 = 1 - m < 1e-8), where 1 - sum cancels by a factor K: A&S 17.3.36 to
# m1^2, E = 1 + (L - 1/2) m1 / 2 + 3 (L - 13/12) m1^2 / 16, L = log(4 / sqrt(m1)) (the
# rest is below 1e-24); m < -1e8 through E(m) = sqrt(1 - m) E(m / (m - 1)), whose m1 is
# 1 / (1 - m) (the AGM on m itself was 44 eps off at -1e100).
H["spellipe1_T"] = f"""fn spellipe1_T(m1: T, l: T) -> T {{
  return T(1.0) + m1 * (T(0.5) * (l - T(0.5)) + m1 * (T(0.1875) * (l - T({13 / 12!r}))));
}}"""
H["spellipe_T"] = f"""fn spellipe_T(m: T) -> T {{
  if (isnan_T(m) || m > T(1.0)) {{ return nan_T(); }}
  if (m == T(1.0)) {{ return T(1.0); }}
  if (isinf_T(m)) {{ return bitcast<T>(EXPO); }}
  if (m > T(0.99999999)) {{
    let m1 = T(1.0) - m;
    return spellipe1_T(m1, T({math.log(4)!r}) - T(0.5) * log_T(m1));
  }}
  if (m < T(-1e8)) {{
    let r = sqrt_T(T(1.0) - m);
    return r * spellipe1_T(T(1.0) / (T(1.0) - m), T({math.log(4)!r}) + log_T(r));
  }}
  return spagm_T(m).y;
}}"""

# -- polygamma ---------------------------------------------------------------------------
# psi^(n)(x), n = 1, 2, ...: = (-1)^(n+1) [A(x + N) + n! sum_{k<N} (x + k)^-(n+1)] with
# x + N >= 16 + 2n, where A is the asymptotic series
# (n-1)!/y^n [1 + n/(2y) + sum_k B_2k / (2k)! n (n+1) ... (n+2k-1) / y^2k]
# (14 terms: below 2^-60 relative at y >= 16 + 2n). For x > 0 every term is positive.
# x < 0: n = 1 by the reflection psi1(x) = pi^2 / sin^2(pi x) - psi1(1 - x) (no
# cancellation: the first term is >= pi^2); n >= 2 by the same shifted sum, which reaches
# x >= -4000 (NaN below: documented). Poles (x = 0, -1, ...): (-1)^(n+1) inf, as SciPy.
_B2K = [1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510,
        43867 / 798, -174611 / 330, 854513 / 138, -236364091 / 2730, 8553103 / 6,
        -23749461029 / 870]
_B2KF = [b / math.factorial(2 * k + 2) for k, b in enumerate(_B2K)]
H["sppgasym_T"] = f"""fn sppgasym_T(n: T, y: T) -> T {{
  let bk = array<T, {len(_B2KF)}>({", ".join(_f(c) for c in _B2KF)});
  let r = T(1.0) / y;
  let z = r * r;
  var lead = r;  // (n - 1)! / y^n, in n roundings that never overflow (k / y < 1)
  for (var k = T(1.0); k < n; k = k + T(1.0)) {{ lead = lead * (k * r); }}
  var rk = n;          // n (n+1) ... (n+2k-1)
  var zk = z;
  var s = T(1.0) + T(0.5) * n * r;
  for (var k = 0; k < {len(_B2KF)}; k++) {{
    let m = n + T(2 * k + 1);
    if (k > 0) {{ rk = rk * (m - T(1.0)) * m; }} else {{ rk = n * (n + T(1.0)); }}
    let t = bk[k] * rk * zk;
    s = s + t;
    zk = zk * z;
    if (abs(t) < abs(s) * T(1e-18)) {{ break; }}
  }}
  return lead * s;
}}"""
# the unsigned sum A(x + N) + n! sum (x + k)^-(n+1), for finite x > -4000, not a pole
H["sppgsum_T"] = """fn sppgsum_T(n: T, x0: T) -> T {
  let lim = T(16.0) + T(2.0) * n;
  var fact = T(1.0);
  for (var k = T(2.0); k <= n; k = k + T(1.0)) { fact = fact * k; }
  var x = x0;
  var s = T(0.0);
  for (var i = 0; i < 100000; i++) {
    if (x >= lim) { break; }
    // x^-(n+1) by n + 1 products (pow_T's double-word log and exp inlined here cost
    // lavapipe minutes of compile; n / 2 eps more for small n)
    let r = T(1.0) / x;
    var t = r;
    for (var k = T(0.0); k < n; k = k + T(1.0)) { t = t * r; }
    s = s + t;
    x = x + T(1.0);
  }
  return sppgasym_T(n, x) + fact * s;
}"""
# x is an integer (finite x), by bits: the exponent against the fraction bits left
H["spisint_T"] = """fn spisint_T(x: T) -> bool {
  let u = bitcast<U>(x) & ABS;
  if (u == U(0)) { return true; }
  let e = i32(u >> MANT_BITS) - BIAS;
  if (e < 0) { return false; }
  if (e >= i32(MANT_BITS)) { return true; }
  return (u & (MANT >> u32(e))) == U(0);
}"""
H["sppolygamma_T"] = """fn sppolygamma_T(n: T, x: T) -> T {
  if (isnan_T(n) || isnan_T(x) || n < T(0.0) || n != floor(n) || isinf_T(n)) { return nan_T(); }
  if (n == T(0.0)) { return sppsi_T(x); }
  let odd = T(0.5) * n - floor(T(0.5) * n) != T(0.0);  // n odd: psi^(n) > 0 for x > 0
  let sgn = select(T(-1.0), T(1.0), odd);
  // The limits by bits, with no arithmetic on an infinity or a zero (NVIDIA's Vulkan
  // driver gave 0 at the poles for sgn * inf, lavapipe inf): (-1)^(n+1) 0 at +inf and
  // (-1)^(n+1) inf at the poles 0, -1, -2, ..., told apart from their neighbours in
  // integers (x is exactly representable there).
  let neg = select(SIGN, U(0), odd);
  if (isinf_T(x)) { return select(nan_T(), bitcast<T>(neg), x > T(0.0)); }
  if (x <= T(0.0) && spisint_T(x)) { return bitcast<T>(EXPO | neg); }
  let refl = x < T(0.0) && n == T(1.0);
  if (x < T(-4000.0) && !refl) { return nan_T(); }
  let sum = sppgsum_T(n, select(x, T(1.0) - x, refl));  // one inlined copy
  if (refl) {
    let sp = spsinpiabs_T(x);
    return PI * PI / (sp * sp) - sum;
  }
  return sgn * sum;
}"""

# -- Hurwitz zeta ------------------------------------------------------------------------
# zeta(x, q) = sum_k (q + k)^-x, x > 1, by Euler-Maclaurin summation: the terms k < N
# directly (each base q + k as an exact double word, so its rounding does not cost x eps),
# up to a = q + N >= 16 + x, then
# a^(1-x) [1/(x - 1) + 1/(2a) + sum_j B_2j / (2j)! x (x+1) ... (x+2j-2) / a^2j]
# (DLMF 25.11.5 with Euler-Maclaurin's remainder; at a >= 16 + x the terms fall by at
# least ((x + 2j) / (2 pi a))^2 < 0.16 each: 20 of them leave < 2^-60). The direct sum
# stops early where its next terms cannot matter (for x > 1 their rest is below
# t a / (x - 1)). q < 0 is SciPy's: poles at q = 0, -1, ... (inf), real terms only for
# integer x (else NaN); below q = -4000 NaN (the direct sum is not reduced there).
def _bernoulli(n: int) -> list:
    """B_0 .. B_n as fractions (the Akiyama-Tanigawa algorithm, B_1 = +1/2)."""
    from fractions import Fraction

    a, out = [], []
    for m in range(n + 1):
        a.append(Fraction(1, m + 1))
        for j in range(m, 0, -1):
            a[j - 1] = j * (a[j - 1] - a[j])
        out.append(a[0])
    return out


_ZB = [float(b / math.factorial(j)) for j, b in enumerate(_bernoulli(40)) if j % 2 == 0][1:21]
# |h + l|^y for an exact double word h + l (h != 0 finite) and finite y: exp(y log|h + l|)
# with log|h + l| = log|h| + l / h as hi + lo (numr's powcore for a double-word base)
H["spzpow_T"] = """fn spzpow_T(h: T, l: T, y: T) -> T {
  let ah = abs(h);
  let lg = logdd_T(ah);
  let p = two_prod_T(y, lg.x);
  if (abs(p.x) > POW_SAT) { return select(T(0.0), bitcast<T>(EXPO), p.x > T(0.0)); }
  let z = fast_two_sum_T(p.x, p.y + y * (lg.y + l / h));
  return expdd_T(z.x, z.y);
}"""
# 1 / d for normal d, within a hair of 0.5 ULP: one correction from the exact residual
# (WGSL lets float64 division be 2.5 ULP off, and NVIDIA's Vulkan driver's is)
H["sprecip_T"] = """fn sprecip_T(d: T) -> T {
  let q = fence_T(T(1.0) / d);
  let p = two_prod_T(q, d);
  return q + fence_T(fence_T(T(1.0) - p.x) - p.y) * q;
}"""
H["spzeta_T"] = f"""fn spzeta_T(x: T, q: T) -> T {{
  if (isnan_T(x) || isnan_T(q)) {{ return nan_T(); }}  // SciPy 1.17: inf at x = 1 or a pole
  if (x == T(1.0)) {{ return bitcast<T>(EXPO); }}
  if (x < T(1.0)) {{ return nan_T(); }}
  if (q <= T(0.0) && (isinf_T(q) || spisint_T(q))) {{ return bitcast<T>(EXPO); }}
  let xint = isinf_T(x) || spisint_T(x);
  if (q < T(0.0) && !xint) {{ return nan_T(); }}
  if (isinf_T(q)) {{ return T(0.0); }}
  // the limit at x = +inf: q^-x alone (SciPy 1.17 gives nan for q > 1)
  if (isinf_T(x)) {{ return select(select(T(0.0), T(1.0), q == T(1.0)), bitcast<T>(EXPO), q < T(1.0)); }}
  if (q < T(-4000.0)) {{ return nan_T(); }}
  let xodd = xint && !spisint_T(T(0.5) * x);
  let lim = T(16.0) + x;
  var s = T(0.0);
  var c = T(0.0);   // the sum's rounding errors (compensated: 26 terms at q = 1 cost 4 eps)
  var k = T(0.0);
  for (var i = 0; i < 100000; i++) {{
    let a = two_sum_T(q, k);
    let last = a.x >= lim;
    let t0 = spzpow_T(a.x, a.y, select(-x, T(1.0) - x, last));   // one inlined copy
    if (last) {{
      if (t0 == T(0.0)) {{ return s + c; }}
      let r = sprecip_T(a.x);
      let z = r * r;
      var u = x * z;   // x (x+1) ... (x+2j-2) / a^2j
      let bj = array<T, {len(_ZB)}>({", ".join(_f(c) for c in _ZB)});
      var e = T(0.0);
      for (var j = 0; j < {len(_ZB)}; j++) {{
        let tj = bj[j] * u;
        e = e + tj;
        if (abs(tj) < abs(e) * T(1e-18)) {{ break; }}
        let m = x + T(2 * j + 1);
        u = u * (m * r) * ((m + T(1.0)) * r);
      }}
      return s + (c + t0 * (sprecip_T(x - T(1.0)) + (T(0.5) * r + e)));
    }}
    let t = select(t0, -t0, xodd && a.x < T(0.0));
    let st = two_sum_T(s, t);
    s = st.x;
    if (isinf_T(s)) {{ return s; }}   // a term overflowed (tiny q): no rounding error to add
    c = c + st.y;
    if (a.x > T(0.0) && t * a.x <= s * (x - T(1.0)) * T(1e-17)) {{ return s + c; }}
    k = k + T(1.0);
  }}
  return nan_T();
}}"""

# -- Riemann zeta (SciPy's zeta(x), q omitted) ----------------------------------------------
# x > 2: the Hurwitz sum at q = 1. -1 <= x <= 2: (x - 1) zeta(x), entire and without zeros
# there, by Chebyshev fits in pieces of 1/2 (_tables.ZETA_MID), over x - 1 (exact). x < -1:
# the reflection zeta(x) = 2 (2 pi)^-y sin(pi x / 2) Gamma(y) zeta(y), y = 1 - x > 2 as an
# exact double word; sin(pi x / 2) by an exact reduction of x / 2, so the trivial zeros
# x = -2, -4, ... (and every x below -2^54) are exactly 0 (SciPy's +0). Gamma(y) by
# Stirling at Y = y + m >= 10 over P = y (y + 1) ... (y + m - 1): 2 (2 pi)^-y Gamma(y) =
# exp((Y - 1/2) log Y - Y - y log(2 pi) + log(2 sqrt(2 pi)) + stirling(Y) - log P), the
# exponent E in double words (rounded once it would cost |E| eps: 1000 at x = -250), its
# exp(E / 2) applied twice so that the product overflows only where zeta does (x ~ -260).
def _split(v: float, lo: float) -> tuple:
    """A constant as hi + lo with hi exact in float32 (24 bits): a double word in both
    types (lo: the rest of v, given to 2^-24 of hi beyond float64)."""
    m, e = math.frexp(v)
    hi = math.ldexp(round(m * 2 ** 24), e - 24)
    return hi, (v - hi) + lo


_LN2PI = _split(1.8378770664093456, -7.756588316134483e-17)     # log(2 pi), mpmath
_LN2SQ2PI = _split(1.612085713764618, -1.559247344220942e-17)   # log(2 sqrt(2 pi))
_pieces, _chain = _piecewise("spzetamid", tb.ZETA_MID)
H.update(_pieces)
H["spzetamid_T"] = f"""fn spzetamid_T(x: T) -> T {{
{_chain}
  return spzetamid{len(tb.ZETA_MID) - 1}_T(T(4.0) * x - T(7.0));
}}"""
H["sprzeta_T"] = f"""fn sprzeta_T(x: T) -> T {{
  if (isnan_T(x)) {{ return x; }}
  if (x > T(2.0)) {{ return spzeta_T(x, T(1.0)); }}   // +inf: 1
  if (x >= T(-1.0)) {{
    if (x == T(1.0)) {{ return bitcast<T>(EXPO); }}
    return spzetamid_T(x) * sprecip_T(x - T(1.0));
  }}
  if (isinf_T(x)) {{ return nan_T(); }}
  let h = T(0.5) * x;
  let n = round_T(h);
  if (h == n) {{ return T(0.0); }}
  let odd = T(0.5) * n - floor(T(0.5) * n) != T(0.0);
  let s0 = spsincospi_T(h - n).x;
  let sn = select(s0, -s0, odd);
  let y = two_sum_T(T(1.0), -x);
  if (y.x > T(1e4)) {{ return copysign_T(bitcast<T>(EXPO), sn); }}
  let z = spzeta_T(y.x, T(1.0));
  // Y = y + m >= 10 and P = y (y + 1) ... (y + m - 1), both double words (m <= 8)
  var yy = y;
  var pr = vec2<T>(T(1.0), T(0.0));
  for (var k = 0; k < 8; k++) {{
    if (yy.x >= T(10.0)) {{ break; }}
    pr = ddmul_T(pr, yy);
    let t = two_sum_T(yy.x, T(1.0));
    yy = fast_two_sum_T(t.x, t.y + yy.y);
  }}
  var ly = logdd_T(yy.x);
  ly.y = ly.y + yy.y / yy.x;
  var lp = logdd_T(pr.x);
  lp.y = lp.y + pr.y / pr.x;
  let ym0 = two_sum_T(yy.x, T(-0.5));
  let ym = vec2<T>(ym0.x, ym0.y + yy.y);
  // E = (Y - 1/2) log Y - Y - y log(2 pi) + log(2 sqrt(2 pi)) + stirling(Y) - log P
  var e = ddadd_T(ddmul_T(ym, ly), -yy);
  e = ddadd_T(e, -ddmul_T(y, vec2<T>(T({_LN2PI[0]!r}), T({_LN2PI[1]!r}))));
  e = ddadd_T(e, vec2<T>(T({_LN2SQ2PI[0]!r}), T({_LN2SQ2PI[1]!r}) + spstirling_T(yy.x)));
  e = ddadd_T(e, -lp);
  let w = expdd_T(T(0.5) * e.x, T(0.5) * e.y);
  return fence_T(w * (sn * z)) * w;
}}"""

# -- Bessel functions J0 J1 Y0 Y1 and K0 K1 (numr/special/_fit.py derives the fits) ----------
# |x| <= 2: the power series in z = x^2 / 4 (A&S 9.1.10-9.1.11, 9.1.88-9.1.89 for Y with
# psi(k + 1) + psi(k + 2) and the harmonic numbers as exact rationals; 9.6.10-9.6.11 for K,
# used to x <= 1). [2, 8]: Chebyshev fits of J and Y themselves (their error is absolute
# where they cross zero, as SciPy's). x >= 8: Hankel's form with P and x Q fitted in 8 / x
# and sin x, cos x of the exact x (numr's sin/cos reduce exactly), so large x keep their
# phase. K: e^x K on [1, 8] and sqrt(x) e^x K in 8 / x beyond, fitted.
_HARM = [0.0]
for _k in range(1, 22):
    _HARM.append(_HARM[-1] + 1 / _k)
# psi(k + 1) + psi(k + 2) = 2 H_k + 1 / (k + 1) - 2 euler
_EULER = 0.5772156649015329
_PSI12 = [2 * _HARM[k] + 1 / (k + 1) - 2 * _EULER for k in range(21)]
_FK2 = [1 / math.factorial(k) ** 2 for k in range(21)]
_FKK1 = [1 / (math.factorial(k) * math.factorial(k + 1)) for k in range(21)]


def _alt(c: list) -> list:
    return [v * (-1) ** k for k, v in enumerate(c)]


H["spj0s_T"] = f"fn spj0s_T(z: T) -> T {{ return {horner(_alt(_FK2), 'z')}; }}"
H["spj1s_T"] = f"fn spj1s_T(z: T) -> T {{ return {horner(_alt(_FKK1), 'z')}; }}"
# sum (-1)^(k+1) H_k z^k / k!^2 (k >= 1) and sum (-1)^k (psi(k+1) + psi(k+2)) z^k / (k! (k+1)!)
H["spy0s_T"] = f"fn spy0s_T(z: T) -> T {{ return z * ({horner([(-1) ** k * _HARM[k + 1] * _FK2[k + 1] for k in range(20)], 'z')}); }}"
H["spy1s_T"] = f"fn spy1s_T(z: T) -> T {{ return {horner(_alt([p * f for p, f in zip(_PSI12, _FKK1)]), 'z')}; }}"
# the same sums without the signs, for K (z <= 1/4: 12 terms)
H["spk0s_T"] = f"fn spk0s_T(z: T) -> T {{ return z * ({horner([_HARM[k + 1] * _FK2[k + 1] for k in range(12)], 'z')}); }}"
H["spk1s_T"] = f"fn spk1s_T(z: T) -> T {{ return {horner([p * f for p, f in zip(_PSI12[:13], _FKK1)], 'z')}; }}"
for _nu in (0, 1):
    for _nm in ("J", "Y"):
        _pieces, _chain = _piecewise(f"sp{_nm.lower()}{_nu}m", getattr(tb, f"{_nm}{_nu}_MID"))
        H.update(_pieces)
        H[f"sp{_nm.lower()}{_nu}mid_T"] = f"fn sp{_nm.lower()}{_nu}mid_T(x: T) -> T {{\n{_chain}\n  return T(0.0);\n}}"
    _pieces, _chain = _piecewise(f"spk{_nu}em", getattr(tb, f"K{_nu}E_MID"))
    H.update(_pieces)
    H[f"spk{_nu}emid_T"] = f"fn spk{_nu}emid_T(x: T) -> T {{\n{_chain}\n  return T(0.0);\n}}"
    for _nm in ("P", "Q", "K"):
        _tab = f"{_nm}{_nu}E_BIG" if _nm == "K" else f"{_nm}{_nu}_BIG"
        H[f"sp{_nm.lower()}{_nu}big_T"] = cheb(f"sp{_nm.lower()}{_nu}big_T", getattr(tb, _tab))
# vec2(J_nu(x), Y_nu(x)) for finite x >= 8: (P cos chi - Q sin chi, P sin chi + Q cos chi)
# / sqrt(pi x / 2), chi = x - pi/4 (nu = 0) or x - 3 pi/4 (nu = 1), expanded in sin x, cos x
# vec2(sin x, cos x) for finite x, from one argument reduction (sin_T and cos_T each
# inline their own)
H["spsincos_T"] = """fn spsincos_T(x: T) -> vec2<T> {
  let q = rempio2_T(x);
  let n = i32(q.z) & 3;
  let sn = sinr_T(q.x, q.y);
  let cs = cosr_T(q.x, q.y);
  let s = select(sn, cs, (n & 1) == 1);
  let c = select(cs, sn, (n & 1) == 1);
  return vec2<T>(select(s, -s, n >= 2), select(c, -c, n == 1 || n == 2));
}"""
H["spjybig_T"] = f"""fn spjybig_T(x: T, one: bool) -> vec2<T> {{
  let t = T(16.0) / x - T(1.0);
  var p = T(0.0);
  var q = T(0.0);
  if (one) {{ p = spp1big_T(t); q = spq1big_T(t) / x; }} else {{ p = spp0big_T(t); q = spq0big_T(t) / x; }}
  let sx = spsincos_T(x);
  let s = sx.x;
  let c = sx.y;
  // cos chi, sin chi times sqrt 2
  let cc = select(c + s, s - c, one);
  let sc = select(s - c, -(s + c), one);
  let r = T({1 / SQRTPI!r}) / sqrt_T(x);
  return vec2<T>((p * cc - q * sc) * r, (p * sc + q * cc) * r);
}}"""
H["spj0_T"] = """fn spj0_T(x0: T) -> T {
  if (isnan_T(x0)) { return x0; }
  let x = abs(x0);
  if (isinf_T(x)) { return T(0.0); }
  if (x <= T(2.0)) { return spj0s_T(T(0.25) * x * x); }
  if (x < T(8.0)) { return spj0mid_T(x); }
  return spjybig_T(x, false).x;
}"""
H["spj1_T"] = """fn spj1_T(x0: T) -> T {
  if (isnan_T(x0)) { return x0; }
  let x = abs(x0);
  var r = T(0.0);
  if (isinf_T(x)) { r = T(0.0); }
  else if (x <= T(2.0)) { r = T(0.5) * x * spj1s_T(T(0.25) * x * x); }
  else if (x < T(8.0)) { r = spj1mid_T(x); }
  else { r = spjybig_T(x, true).x; }
  return select(r, -r, x0 < T(0.0));
}"""
H["spy0_T"] = f"""fn spy0_T(x: T) -> T {{
  if (isnan_T(x) || x < T(0.0)) {{ return nan_T(); }}
  if (x == T(0.0)) {{ return -bitcast<T>(EXPO); }}
  if (isinf_T(x)) {{ return T(0.0); }}
  if (x <= T(2.0)) {{
    let z = T(0.25) * x * x;
    return T({2 / math.pi!r}) * ((log_T(T(0.5) * x) + T({_EULER!r})) * spj0s_T(z) + spy0s_T(z));
  }}
  if (x < T(8.0)) {{ return spy0mid_T(x); }}
  return spjybig_T(x, false).y;
}}"""
H["spy1_T"] = f"""fn spy1_T(x: T) -> T {{
  if (isnan_T(x) || x < T(0.0)) {{ return nan_T(); }}
  if (x == T(0.0)) {{ return -bitcast<T>(EXPO); }}
  if (isinf_T(x)) {{ return T(0.0); }}
  if (x <= T(2.0)) {{
    let z = T(0.25) * x * x;
    let j1 = T(0.5) * x * spj1s_T(z);
    return T({-2 / math.pi!r}) / x + T({2 / math.pi!r}) * log_T(T(0.5) * x) * j1
         - x * T({1 / (2 * math.pi)!r}) * spy1s_T(z);
  }}
  if (x < T(8.0)) {{ return spy1mid_T(x); }}
  return spjybig_T(x, true).y;
}}"""
# e^x K_nu(x) (scaled) for finite x > 0; the caller multiplies by e^-x for K itself
H["spke_T"] = f"""fn spke_T(x: T, one: bool) -> T {{
  if (x <= T(1.0)) {{
    let z = T(0.25) * x * x;
    var k = T(0.0);
    if (one) {{
      let i1 = T(0.5) * x * spi1s_T(z);
      k = T(1.0) / x + log_T(T(0.5) * x) * i1 - T(0.25) * x * spk1s_T(z);
    }} else {{
      k = -(log_T(T(0.5) * x) + T({_EULER!r})) * spi0s_T(z) + spk0s_T(z);
    }}
    return k * exp_T(x);
  }}
  if (x < T(8.0)) {{ return select(spk0emid_T(x), spk1emid_T(x), one); }}
  let t = T(16.0) / x - T(1.0);
  return select(spk0big_T(t), spk1big_T(t), one) / sqrt_T(x);
}}"""
# K itself: the small-x series unscaled (K0 = -log(x / 2) ... to the overflow of 1 / x)
H["spk_T"] = f"""fn spk_T(x: T, one: bool, scaled: bool) -> T {{
  if (isnan_T(x) || x < T(0.0)) {{ return nan_T(); }}
  if (x == T(0.0)) {{ return bitcast<T>(EXPO); }}
  if (isinf_T(x)) {{ return T(0.0); }}
  if (scaled) {{ return spke_T(x, one); }}
  if (x <= T(1.0)) {{
    let z = T(0.25) * x * x;
    if (one) {{
      return T(1.0) / x + log_T(T(0.5) * x) * (T(0.5) * x * spi1s_T(z)) - T(0.25) * x * spk1s_T(z);
    }}
    return -(log_T(T(0.5) * x) + T({_EULER!r})) * spi0s_T(z) + spk0s_T(z);
  }}
  // e^-x as a pair (spexpw_T) where it is normal: its square of halves rounded three
  // times (float32 k1 3.10 eps at 6.848, over its bound of 2)
  let ke = spke_T(x, one);
  if (x < select(T(80.0), T(700.0), MANT_BITS > 30u)) {{
    let e = spexpw_T(-x);
    return ke * e.x + ke * e.y;
  }}
  // beyond, in two halves: K is still normal where e^-x alone is subnormal
  let h = exp_T(T(-0.5) * x);
  return ke * h * h;
}}"""

ex.add_helpers(H)
ex.add_helpers(_F32, "f32")
