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


def cheb(name: str, coeffs: list) -> str:
    """``fn name_T(t: T) -> T``: the Chebyshev series sum c_k T_k(t) (Clenshaw)."""
    lines = [f"fn {name}(t: T) -> T {{", "  let tt = t + t;", "  var b0 = T(0.0);",
             "  var b1 = T(0.0);", "  var b2 = T(0.0);"]
    for c in reversed(coeffs[1:]):
        lines.append(f"  b0 = tt * b1 - b2 + {_f(c)}; b2 = b1; b1 = b0;")
    lines.append(f"  return t * b1 - b2 + {_f(coeffs[0])};\n}}")
    return "\n".join(lines)


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
H["spexpit_T"] = """fn spexpit_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  if (x >= T(0.0)) { return div_T(T(1.0), T(1.0) + exp_T(-x)); }
  let e = exp_T(x);
  return div_T(e, T(1.0) + e);
}"""
# logit: 2 atanh(2p - 1) around 1/2 (2p - 1 is exact there), else log(p) - log(1 - p)
# with 1 - p exact for p >= 1/2.
H["splogit_T"] = """fn splogit_T(p: T) -> T {
  if (!(p >= T(0.0) && p <= T(1.0))) { return nan_T(); }
  if (p >= T(0.25) && p <= T(0.75)) { return T(2.0) * atanh_T(T(2.0) * p - T(1.0)); }
  if (p < T(0.5)) { return log_T(p) - log1p_T(-p); }
  let q = T(1.0) - p;
  return log1p_T(-q) - log_T(q);
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
# |sin(pi x)| for finite x (exact reduction to |r| <= 1/2)
H["spsinpiabs_T"] = """fn spsinpiabs_T(x: T) -> T {
  let r = abs(x - round_T(x));  // numr's round: lavapipe's float64 round() is not exact
  return sin_T(r * PI);
}"""
H["spgammaln_T"] = f"""fn spgammaln_T(x: T) -> T {{
  if (isnan_T(x)) {{ return x; }}
  if (isinf_T(x)) {{ return x; }}
  if (x > T(0.0)) {{ return splgpos_T(x); }}
  if (x == floor(x)) {{ return bitcast<T>(EXPO); }}
  return T({math.log(math.pi)!r}) - log_T(spsinpiabs_T(x)) - splgpos_T(T(1.0) - x);
}}"""

ex.add_helpers(H)
