"""WGSL for complex64 / complex128: a number is a ``vec2<T>`` (real, imaginary), T = f32
or f64 (see types.LAYOUT).

Each complex op is one expression (:data:`EXPRESSIONS`) over operands ``X`` and ``Y``
calling helper functions written once for a generic real type: ``C`` is ``vec2<T>``,
``_C`` suffixes name complex helpers (``cexp_C`` -> ``cexp_c64``), ``_T`` suffixes real
ones. Real transcendental functions come from kernels/expressions.py through one-line
wrappers ``r_<op>_T`` built from its expression of that op, so complex accuracy follows
numr's own real helpers (and complex128 gains a function when float64 does):
:func:`real_ops` tells which real ops an expression needs, so the caller can raise the
float64 gap.

Formulas are chosen to avoid cancellation (the standard's accuracy is "as if" exact
within a few ULP): Smith's division, a scaled hypot for abs, Kahan's square root, log
of ``|z|`` near 1 through log1p, tanh from sinh/cosh/sin/cos without ``cos 2y + cosh
2x``, and Kahan's cancellation-free formulas ("Branch cuts for complex elementary
functions", 1987) for asin/acos/asinh/acosh. Infinities, NaNs and signed zeros follow
C99 Annex G, which the Array API standard's special cases restate.
"""

from __future__ import annotations

import re

from . import expressions as ex

# -- the expressions -----------------------------------------------------------------------
# X, Y: the operands (complex); a result of type T is real (abs, real, imag), bool for
# the predicates, complex otherwise.
EXPRESSIONS = {
    "add": "X + Y", "subtract": "X - Y", "multiply": "cmul_C(X, Y)", "divide": "cdiv_C(X, Y)",
    "pow": "cpow_C(X, Y)",
    "equal": "(X.x == Y.x && X.y == Y.y)", "not_equal": "!(X.x == Y.x && X.y == Y.y)",
    "abs": "khypot_T(X.x, X.y)", "real": "X.x", "imag": "X.y",
    "conj": "C(X.x, -X.y)", "negative": "-X", "positive": "X",
    "square": "cmul_C(X, X)", "reciprocal": "crecip_C(X)", "sign": "csign_C(X)",
    "isnan": "(kisnan_T(X.x) || kisnan_T(X.y))",
    "isinf": "(kisinf_T(X.x) || kisinf_T(X.y))",
    "isfinite": "!(kisinf_T(X.x) || kisinf_T(X.y) || kisnan_T(X.x) || kisnan_T(X.y))",
    "round": "C(r_round_T(X.x), r_round_T(X.y))",
    "sqrt": "csqrt_C(X)", "exp": "cexp_C(X)", "expm1": "cexpm1_C(X)",
    "log": "clog_C(X)", "log1p": "clog1p_C(X)",
    "log2": "clog_C(X) * T(1.4426950408889634074)",
    "log10": "clog_C(X) * T(0.43429448190325182765)",
    "sinh": "csinh_C(X)", "cosh": "ccosh_C(X)", "tanh": "ctanh_C(X)",
    "sin": "csin_C(X)", "cos": "ccosh_C(C(-X.y, X.x))", "tan": "ctan_C(X)",
    "asinh": "casinh_C(X)", "asin": "casin_C(X)", "acosh": "cacosh_C(X)",
    "acos": "cacos_C(X)", "atanh": "catanh_C(X)", "atan": "catan_C(X)",
}
# complex64 ops computed in complex128 where the device has f64: those whose float32
# formulas lose digits a wider type keeps (pow's exp(w log z) magnifies log's error by
# |w log z|; expm1's real part cancels near x = -y^2/2).
WIDENED = frozenset({"pow", "expm1"})
REAL_RESULT = frozenset({"abs", "real", "imag"})
BOOL_RESULT = frozenset({"equal", "not_equal", "isnan", "isinf", "isfinite"})

# Real ops of expressions.py that the helpers call as r_<op>_T (unary) or r_<op>_T(a, b).
_REAL_UNARY = ("exp", "expm1", "log", "log1p", "sin", "cos", "sinh", "cosh", "tanh", "asinh",
               "round")

# Per real type: NaN, infinity, the largest x whose exp(x) is finite (beyond it exp is
# taken in halves), the magnitude beyond which squares may overflow, the one below
# which they lose digits (with the even power of two that rescales them), and the
# count of terms of the atan series on |t| <= tan(pi/12).
_CONSTS = {
    "f32": {"K_NAN": "bitcast<f32>(0x7fc00000u)", "K_INF": "bitcast<f32>(0x7f800000u)",
            "K_EXPMAX": "f32(88.0)", "K_BIG": "f32(1e18)", "K_TINY": "f32(1e-18)",
            "K_UP": "60", "K_ATAN_N": "7u",
            "K_U": "u32", "K_ABS": "0x7fffffffu", "K_EXPO": "0x7f800000u", "K_SIGN": "0x80000000u"},
    "f64": {"K_NAN": "bitcast<f64>(0x7ff8000000000000lu)",
            "K_INF": "bitcast<f64>(0x7ff0000000000000lu)",
            "K_EXPMAX": "f64(709.0)", "K_BIG": "f64(1e150)", "K_TINY": "f64(1e-150)",
            "K_UP": "500", "K_ATAN_N": "15u",
            "K_U": "u64", "K_ABS": "0x7ffffffffffffffflu", "K_EXPO": "0x7ff0000000000000lu",
            "K_SIGN": "0x8000000000000000lu"},
}

# -- the helpers ---------------------------------------------------------------------------
_HELPERS = {
    # Bit tests of our own (expressions.py has the same for real ops), so that complex
    # ops need nothing of it but the transcendental functions.
    "kisnan_T": "fn kisnan_T(x: T) -> bool { return (bitcast<K_U>(x) & K_ABS) > K_EXPO; }",
    "kisinf_T": "fn kisinf_T(x: T) -> bool { return (bitcast<K_U>(x) & K_ABS) == K_EXPO; }",
    "ksignbit_T": "fn ksignbit_T(x: T) -> bool { return (bitcast<K_U>(x) & K_SIGN) != K_U(0); }",
    "kcopysign_T": "fn kcopysign_T(x: T, y: T) -> T { "
                   "return bitcast<T>((bitcast<K_U>(x) & K_ABS) | (bitcast<K_U>(y) & K_SIGN)); }",
    # |x + iy|: expressions.py's hypot (scaled by the larger part, so no square overflows
    # or underflows; infinite if either part is, even with a NaN, as C99's hypot;
    # float32 subnormals by bits).
    "khypot_T": "fn khypot_T(x: T, y: T) -> T { return hypot_T(x, y); }",
    "cmul_C": "fn cmul_C(a: C, b: C) -> C { "
              "return C(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }",
    # Smith's division, as NumPy computes it (so overflow and 0/0 give NumPy's values).
    "cdiv_C": """fn cdiv_C(a: C, b: C) -> C {
  let ar = abs(b.x); let ai = abs(b.y);
  if (ar >= ai) {
    if (ar == T(0.0) && ai == T(0.0)) { return C(a.x / ar, a.y / ar); }
    let rat = b.y / b.x; let scl = T(1.0) / (b.x + b.y * rat);
    return C((a.x + a.y * rat) * scl, (a.y - a.x * rat) * scl);
  }
  let rat = b.x / b.y; let scl = T(1.0) / (b.y + b.x * rat);
  return C((a.x * rat + a.y) * scl, (a.y * rat - a.x) * scl);
}""",
    # 1 / z, as NumPy: NaN + NaN j for 0.
    "crecip_C": """fn crecip_C(z: C) -> C {
  if (abs(z.y) <= abs(z.x)) {
    let r = z.y / z.x; let d = z.x + z.y * r;
    return C(T(1.0) / d, -r / d);
  }
  let r = z.x / z.y; let d = z.y + z.x * r;
  return C(r / d, T(-1.0) / d);
}""",
    # z / |z|, scaled first so that |z| neither overflows nor underflows; with an
    # infinite part, NumPy's answer (the unit along that axis, NaN if both are).
    "csign_C": """fn csign_C(z: C) -> C {
  let ix = kisinf_T(z.x); let iy = kisinf_T(z.y);
  if (ix || iy) {
    if (ix && iy) { return C(K_NAN, K_NAN); }
    if (ix) { return C(select(T(-1.0), T(1.0), z.x > T(0.0)), T(0.0)); }
    return C(T(0.0), select(T(-1.0), T(1.0), z.y > T(0.0)));
  }
  if (kisnan_T(z.x) || kisnan_T(z.y)) { return C(K_NAN, K_NAN); }
  // (the larger part and z / m by bits / div_T: float32 subnormals, see csqrt_C)
  let m = bitcast<T>(max(bitcast<K_U>(z.x) & K_ABS, bitcast<K_U>(z.y) & K_ABS));
  if (bitcast<K_U>(m) == K_U(0)) { return C(T(0.0), T(0.0)); }
  let s = C(div_T(z.x, m), div_T(z.y, m));
  return s / khypot_T(s.x, s.y);
}""",
    # atan of t in [0, 1]: by atan(t) = pi/6 + atan((t - c) / (1 + c t)), c = 1/sqrt(3),
    # above tan(pi/12), then the series t (1 - t^2/3 + t^4/5 - ...).
    "katan01_T": """fn katan01_T(t0: T) -> T {
  var t = t0; var base = T(0.0);
  if (t > T(0.2679491924311227)) {
    t = (t - T(0.57735026918962576)) / (T(1.0) + T(0.57735026918962576) * t);
    base = T(0.52359877559829887);
  }
  let z = -(t * t);
  var p = T(0.0);
  for (var k = K_ATAN_N; ; k = k - 1u) {
    p = p * z + T(1.0) / T(2u * k + 1u);
    if (k == 0u) { break; }
  }
  return base + t * p;
}""",
    # atan2 with C99's special cases (signed zeros, infinities), from atan of a ratio
    # in [0, 1].
    "katan2_T": """fn katan2_T(y: T, x: T) -> T {
  if (kisnan_T(x) || kisnan_T(y)) { return x + y; }
  // Compared and divided by bits / expressions.py's div_T: float32 subnormals must not
  // meet arithmetic (NVIDIA's driver flushes them to zero).
  let ax = absb_T(x); let ay = absb_T(y);
  let ux = bitcast<K_U>(ax); let uy = bitcast<K_U>(ay);
  var r: T;
  if (kisinf_T(ax) && kisinf_T(ay)) { r = T(0.78539816339744831); }
  else if (uy == K_U(0) && ux == K_U(0)) { r = T(0.0); }
  else if (uy <= ux) { r = katan01_T(div_T(ay, ax)); }
  else { r = T(1.5707963267948966) - katan01_T(div_T(ax, ay)); }
  if (ksignbit_T(x)) { r = T(3.1415926535897932) - r; }
  return kcopysign_T(r, y);
}""",
    # Each real function is called once (sin and cos of y shared by every case), so
    # the kernel inlines each only once.
    "cexp_C": """fn cexp_C(z: C) -> C {
  let x = z.x; let y = z.y;
  let xinf = kisinf_T(x);
  if (y == T(0.0)) { return C(r_exp_T(x), y); }
  if (kisinf_T(y) || kisnan_T(y)) {
    if (xinf) { return select(C(x, K_NAN), C(T(0.0), T(0.0)), x < T(0.0)); }
    return C(K_NAN, K_NAN);
  }
  if (kisnan_T(x)) { return C(K_NAN, K_NAN); }
  let c = r_cos_T(y); let s = r_sin_T(y);
  if (xinf) {
    if (x < T(0.0)) { return C(kcopysign_T(T(0.0), c), kcopysign_T(T(0.0), s)); }
    return C(x * c, x * s);
  }
  // exp(x) in halves where it alone would overflow but its product may not
  let half = x > K_EXPMAX;
  let h = r_exp_T(select(x, T(0.5) * x, half));
  let m = select(T(1.0), h, half);
  return C((h * c) * m, (h * s) * m);
}""",
    # expm1(x + iy) = (expm1(x) cos y - 2 sin^2(y/2)) + i exp(x) sin y.
    "cexpm1_C": """fn cexpm1_C(z: C) -> C {
  let x = z.x; let y = z.y;
  let xinf = kisinf_T(x);
  if (kisinf_T(y) || kisnan_T(y)) {
    if (xinf) { return select(C(x, K_NAN), C(T(-1.0), T(0.0)), x < T(0.0)); }
    return C(K_NAN, K_NAN);
  }
  if (kisnan_T(x) && y != T(0.0)) { return C(K_NAN, K_NAN); }
  let c = r_cos_T(y); let s = r_sin_T(y); let sh = r_sin_T(T(0.5) * y);
  let big = x > K_EXPMAX;  // exp(x) in halves (+inf included)
  let h = r_exp_T(select(x, T(0.5) * x, big));
  let em1 = r_expm1_T(select(x, T(0.0), big));
  var re = em1 * c - T(2.0) * sh * sh; var im = h * s;
  if (big) { re = (h * c) * h; im = (h * s) * h; }
  if (xinf && x < T(0.0)) { re = T(-1.0); im = kcopysign_T(T(0.0), s); }
  if (y == T(0.0)) { re = select(re, select(em1, T(0.0), x == T(0.0)), !big); im = y; }
  return C(re, im);
}""",
    # log|z| of a finite nonzero z: through log1p(|z|^2 - 1) near the unit circle, where
    # log(|z|) loses its digits; rescaled where |z| would overflow or underflow.
    # (|x|, |y|, their order and the scaling up by bits: float32 subnormals flush to zero
    # in NVIDIA's arithmetic.)
    "klogabs_T": """fn klogabs_T(x: T, y: T) -> T {
  let ax = absb_T(x); let ay = absb_T(y);
  let xbig = bitcast<K_U>(ax) >= bitcast<K_U>(ay);
  let a = select(ay, ax, xbig); let b = select(ax, ay, xbig);
  if (a >= T(0.5) && a <= T(2.0)) { return T(0.5) * r_log1p_T(ksumsq_T(T(-1.0), a, b)); }
  if (a < K_TINY) {
    let h = khypot_T(ldexpb_T(a, K_UP), ldexpb_T(b, K_UP));
    return r_log_T(h) - T(K_UP) * T(0.69314718055994530942);
  }
  var k = 0;
  if (a > K_BIG) { k = -1; }
  return r_log_T(khypot_T(ldexp(a, k), ldexp(b, k))) - T(k) * T(0.69314718055994530942);
}""",
    # c + a^2 + b^2 with the squares as exact double words (expressions.py's two_prod)
    # and the big terms' rounding errors kept (two_sum): where they cancel (|z| near 1
    # in log, 2x + x^2 + y^2 near 0 in log1p) the difference stays accurate.
    "ksumsq_T": """fn ksumsq_T(c: T, a: T, b: T) -> T {
  let pa = two_prod_T(a, a); let pb = two_prod_T(b, b);
  let s = two_sum_T(c, pa.x);
  let t = two_sum_T(s.x, pb.x);
  return t.x + (((t.y + s.y) + pa.y) + pb.y);
}""",
    "clog_C": """fn clog_C(z: C) -> C {
  let x = z.x; let y = z.y;
  let im = katan2_T(y, x);
  if (kisinf_T(x) || kisinf_T(y)) { return C(K_INF, im); }
  if (kisnan_T(x) || kisnan_T(y)) { return C(K_NAN, K_NAN); }
  if (((bitcast<K_U>(x) | bitcast<K_U>(y)) & K_ABS) == K_U(0)) { return C(-K_INF, im); }
  return C(klogabs_T(x, y), im);
}""",
    # log(1 + z): 0.5 log1p(2x + x^2 + y^2) keeps the digits of small z (the sum in
    # double words); near z = -1
    # (where that argument nears -1) and for huge or non-finite z, log(1 + z) itself.
    "clog1p_C": """fn clog1p_C(z: C) -> C {
  let x = z.x; let y = z.y;
  let m = max(abs(x), abs(y));
  if (!(m < K_BIG)) { return clog_C(C(T(1.0) + x, y)); }
  let w = ksumsq_T(T(2.0) * x, x, y);
  if (w < T(-0.5)) { return clog_C(C(T(1.0) + x, y)); }
  return C(T(0.5) * r_log1p_T(w), katan2_T(y, T(1.0) + x));
}""",
    # Kahan's square root: t = sqrt((|x| + |z|) / 2), the other part y / (2 t); scaled
    # so that |x| + |z| neither overflows nor underflows.
    "csqrt_C": """fn csqrt_C(z: C) -> C {
  let x = z.x; let y = z.y;
  if (((bitcast<K_U>(x) | bitcast<K_U>(y)) & K_ABS) == K_U(0)) { return C(T(0.0), y); }
  if (kisinf_T(y)) { return C(K_INF, y); }
  if (kisnan_T(x)) { return C(K_NAN, K_NAN); }
  if (kisinf_T(x)) {
    if (x > T(0.0)) { return C(x, select(kcopysign_T(T(0.0), y), y, kisnan_T(y))); }
    if (kisnan_T(y)) { return C(K_NAN, K_INF); }
    return C(T(0.0), kcopysign_T(K_INF, y));
  }
  if (kisnan_T(y)) { return C(K_NAN, K_NAN); }
  // |x|, |y|, their order, the scaling and the sign of x by bits (float32 subnormals
  // flush to zero in NVIDIA's arithmetic).
  var ax = absb_T(x); var ay = absb_T(y);
  var k = 0;
  let m = bitcast<T>(max(bitcast<K_U>(ax), bitcast<K_U>(ay)));
  if (m > K_BIG) { ax = ldexp(ax, -2); ay = ldexp(ay, -2); k = 1; }
  else if (m < K_TINY) { ax = ldexpb_T(ax, 2 * K_UP); ay = ldexpb_T(ay, 2 * K_UP); k = -K_UP; }
  let t = sqrt_T(T(0.5) * (ax + khypot_T(ax, ay)));
  let u = (T(0.5) * ay) / t;
  let big = scale_T(t, k); let small = scale_T(u, k);
  if (!ksignbit_T(x)) { return C(big, kcopysign_T(small, y)); }
  return C(small, kcopysign_T(big, y));
}""",
    "csinh_C": """fn csinh_C(z: C) -> C {
  let x = z.x; let y = z.y;
  if (kisinf_T(y) || kisnan_T(y)) {
    if (x == T(0.0) || kisinf_T(x)) { return C(x, K_NAN); }
    return C(K_NAN, K_NAN);
  }
  if (kisnan_T(x) && y != T(0.0)) { return C(K_NAN, K_NAN); }
  let c = r_cos_T(y); let s = r_sin_T(y);
  let big = abs(x) > K_EXPMAX;  // sinh and cosh from exp(|x|/2) twice (+-inf included)
  let xs = select(x, T(0.0), big);
  let sh = r_sinh_T(xs); let ch = r_cosh_T(xs);
  let h = r_exp_T(select(T(0.0), T(0.5) * abs(x), big));
  var re = sh * c; var im = ch * s;
  if (big) { re = (kcopysign_T(T(0.5) * h, x) * c) * h; im = ((T(0.5) * h) * s) * h; }
  if (y == T(0.0)) { im = y; }
  return C(re, im);
}""",
    "ccosh_C": """fn ccosh_C(z: C) -> C {
  let x = z.x; let y = z.y;
  if (kisinf_T(y) || kisnan_T(y)) {
    if (x == T(0.0)) { return C(K_NAN, T(0.0)); }
    if (kisinf_T(x)) { return C(K_INF, K_NAN); }
    return C(K_NAN, K_NAN);
  }
  if (kisnan_T(x) && y != T(0.0)) { return C(K_NAN, K_NAN); }
  let c = r_cos_T(y); let s = r_sin_T(y);
  let big = abs(x) > K_EXPMAX;
  let xs = select(x, T(0.0), big);
  let sh = r_sinh_T(xs); let ch = r_cosh_T(xs);
  let h = r_exp_T(select(T(0.0), T(0.5) * abs(x), big));
  var re = ch * c; var im = sh * s;
  if (big) { re = ((T(0.5) * h) * c) * h; im = (kcopysign_T(T(0.5) * h, x) * s) * h; }
  if (y == T(0.0)) { im = kcopysign_T(T(0.0), x) * y; }
  return C(re, im);
}""",
    # tanh(x + iy) = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y): the
    # denominator is cosh 2x + cos 2y without its cancellation near y = pi/2.
    "ctanh_C": """fn ctanh_C(z: C) -> C {
  let x = z.x; let y = z.y;
  if (kisinf_T(x)) { return C(kcopysign_T(T(1.0), x), kcopysign_T(T(0.0), y)); }
  if (kisinf_T(y) || kisnan_T(y)) { return select(C(K_NAN, K_NAN), C(x, K_NAN), x == T(0.0)); }
  if (kisnan_T(x) && y != T(0.0)) { return C(K_NAN, K_NAN); }
  let sy = r_sin_T(y); let cy = r_cos_T(y);
  let big = abs(x) > T(20.0);  // tanh x rounds to +-1; the imaginary part ~ 4 e^(-2|x|)
  let xs = select(x, T(0.0), big);
  let sx = r_sinh_T(xs); let cx = r_cosh_T(xs);
  let e = r_exp_T(select(T(0.0), T(-2.0) * abs(x), big));
  let d = sx * sx + cy * cy;
  var re = sx * cx / d; var im = sy * cy / d;
  if (big) { re = kcopysign_T(T(1.0), x); im = T(4.0) * sy * cy * e; }
  if (y == T(0.0)) { im = y; }
  return C(re, im);
}""",
    # sin(z) = -i sinh(iz), tan(z) = -i tanh(iz) (the standard's definitions of their
    # special cases too).
    "csin_C": "fn csin_C(z: C) -> C { let w = csinh_C(C(-z.y, z.x)); return C(w.y, -w.x); }",
    "ctan_C": "fn ctan_C(z: C) -> C { let w = ctanh_C(C(-z.y, z.x)); return C(w.y, -w.x); }",
    # Kahan: asin z = atan2(x, Re(sqrt(1-z) sqrt(1+z))) + i asinh(Im(conj(sqrt(1-z)) sqrt(1+z))),
    # for finite z; no term cancels.
    "kasin_C": """fn kasin_C(z: C) -> C {
  let s1 = csqrt_C(C(T(1.0) - z.x, -z.y));
  let s2 = csqrt_C(C(T(1.0) + z.x, z.y));
  return C(katan2_T(z.x, s1.x * s2.x - s1.y * s2.y), r_asinh_T(s1.x * s2.y - s1.y * s2.x));
}""",
    # asinh on the first quadrant, extended by oddness and conjugate symmetry.
    "casinh_C": """fn casinh_C(z: C) -> C {
  let x = abs(z.x); let y = abs(z.y);
  var r: C;
  if (kisnan_T(x)) {
    if (y == T(0.0)) { r = C(x, y); } else if (kisinf_T(y)) { r = C(K_INF, K_NAN); }
    else { r = C(K_NAN, K_NAN); }
  } else if (kisnan_T(y)) {
    r = select(C(K_NAN, K_NAN), C(K_INF, K_NAN), kisinf_T(x));
  } else if (kisinf_T(x)) {
    r = C(K_INF, select(T(0.0), T(0.78539816339744831), kisinf_T(y)));
  } else if (kisinf_T(y)) {
    r = C(K_INF, T(1.5707963267948966));
  } else {
    let w = kasin_C(C(-y, x));
    r = C(w.y, -w.x);
  }
  return C(kcopysign_T(r.x, z.x), kcopysign_T(r.y, z.y));
}""",
    "casin_C": "fn casin_C(z: C) -> C { let w = casinh_C(C(-z.y, z.x)); return C(w.y, -w.x); }",
    # acosh of x + i|y| (upper half plane), Kahan: asinh(Re(conj(sqrt(z-1)) sqrt(z+1)))
    # + 2i atan2(Im sqrt(z-1), Re sqrt(z+1)).
    "kacosh_C": """fn kacosh_C(x: T, y: T) -> C {
  if (kisnan_T(x)) { return select(C(K_NAN, K_NAN), C(K_INF, K_NAN), kisinf_T(y)); }
  if (kisnan_T(y)) {
    if (kisinf_T(x)) { return C(K_INF, K_NAN); }
    return select(C(K_NAN, K_NAN), C(K_NAN, T(1.5707963267948966)), x == T(0.0));
  }
  if (kisinf_T(x)) {
    if (kisinf_T(y)) {
      return C(K_INF, select(T(2.3561944901923449), T(0.78539816339744831), x > T(0.0)));
    }
    return C(K_INF, select(T(3.1415926535897932), T(0.0), x > T(0.0)));
  }
  if (kisinf_T(y)) { return C(K_INF, T(1.5707963267948966)); }
  let s1 = csqrt_C(C(x - T(1.0), y));
  let s2 = csqrt_C(C(x + T(1.0), y));
  return C(r_asinh_T(s1.x * s2.x + s1.y * s2.y), T(2.0) * katan2_T(s1.y, s2.x));
}""",
    "cacosh_C": """fn cacosh_C(z: C) -> C {
  let w = kacosh_C(z.x, abs(z.y));
  return C(w.x, kcopysign_T(w.y, z.y));
}""",
    # acos z = -i acosh z on the upper half plane, conjugated below it.
    "cacos_C": """fn cacos_C(z: C) -> C {
  let w = kacosh_C(z.x, abs(z.y));
  return C(w.y, -kcopysign_T(w.x, z.y));
}""",
    # atanh on the first quadrant: 1/4 log1p(4x / ((1-x)^2 + y^2))
    # + i/2 atan2(2y, (1-x)(1+x) - y^2); 1/z + i pi/2 where squares would overflow.
    "catanh_C": """fn catanh_C(z: C) -> C {
  let x = abs(z.x); let y = abs(z.y);
  var r: C;
  if (kisinf_T(x) || kisinf_T(y)) {
    r = C(T(0.0), select(T(1.5707963267948966), K_NAN, kisnan_T(y)));
  } else if (kisnan_T(x) || kisnan_T(y)) {
    r = select(C(K_NAN, K_NAN), C(T(0.0), K_NAN), x == T(0.0));
  } else if (max(x, y) > K_BIG) {
    let h = khypot_T(x, y);
    r = C((x / h) / h, T(1.5707963267948966));
  } else {
    let omx = T(1.0) - x;
    r = C(T(0.25) * r_log1p_T(T(4.0) * x / (omx * omx + y * y)),
          T(0.5) * katan2_T(T(2.0) * y, omx * (T(1.0) + x) - y * y));
  }
  return C(kcopysign_T(r.x, z.x), kcopysign_T(r.y, z.y));
}""",
    "catan_C": "fn catan_C(z: C) -> C { let w = catanh_C(C(-z.y, z.x)); return C(w.y, -w.x); }",
    # NumPy's power: 1 for a zero exponent, 0 ** w = 0 for Re w > 0 (else NaN), small integer
    # exponents by repeated squaring, else exp(w log z).
    "cpow_C": """fn cpow_C(a: C, b: C) -> C {
  if (b.x == T(0.0) && b.y == T(0.0)) { return C(T(1.0), T(0.0)); }
  if (a.x == T(0.0) && a.y == T(0.0)) {
    if (b.x > T(0.0)) { return C(T(0.0), T(0.0)); }
    return C(K_NAN, K_NAN);
  }
  if (b.y == T(0.0) && abs(b.x) < T(100.0) && floor(b.x) == b.x) {
    var n = i32(abs(b.x));
    var r = C(T(1.0), T(0.0)); var p = a;
    loop {
      if ((n & 1) != 0) { r = cmul_C(r, p); }
      n = n >> 1u;
      if (n == 0) { break; }
      p = cmul_C(p, p);
    }
    if (b.x < T(0.0)) { r = cdiv_C(C(T(1.0), T(0.0)), r); }
    return r;
  }
  return cexp_C(cmul_C(b, clog_C(a)));
}""",
}

_C_NAME = re.compile(r"\b([A-Za-z_][A-Za-z0-9]*)_C\b")
_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")
assert not set(_HELPERS) & set(ex._FLOAT_HELPERS), "helper names must not collide"


def _suffix(rt: str) -> str:
    return {"f32": "c64", "f64": "c128"}[rt]


def _specialise(text: str, rt: str) -> str:
    """Generic text -> WGSL for real type ``rt``: C, _C, T, _T and the K_ constants."""
    text = _C_NAME.sub(lambda m: f"{m.group(1)}_{_suffix(rt)}", text)
    text = re.sub(r"\bC\b", f"vec2<{rt}>", text)
    for k, v in _CONSTS[rt].items():
        text = re.sub(rf"\b{k}\b", v, text)
    return ex._specialise(text, rt)


def expression(op: str, rt: str, operands: tuple[str, ...] = ("a", "b"),
               wide: bool = False) -> str | None:
    """The WGSL of complex ``op`` with real part type ``rt``; ``operands`` are the WGSL
    of X and Y (``vec2<T>(a, b)`` where a scalar came as two real parameters).
    ``wide``: the device computes in f64 too, and the complex64 ops of :data:`WIDENED`
    compute in complex128, rounding once."""
    e = EXPRESSIONS.get(op)
    if e is None:
        return None
    if wide and rt == "f32" and op in WIDENED:
        operands = tuple(f"vec2<f64>({x})" for x in operands)
        return f"vec2<f32>({expression(op, 'f64', operands)})"
    e = re.sub(r"\bX\b", operands[0], e)
    if len(operands) > 1:
        e = re.sub(r"\bY\b", operands[1], e)
    return _specialise(e, rt)


def _real_wrapper(op: str, rt: str) -> str:
    body = ex.expression(op, "f", rt)
    return f"fn r_{op}_{rt}(a: {rt}) -> {rt} {{ return {body}; }}"


def _closure(code: str) -> tuple[dict[tuple[str, str], str], set[tuple[str, str]]]:
    """The complex/own helpers ``code`` needs ((name, real type) -> WGSL) and the real
    ops it calls ((op, real type)), of either real type."""
    done: dict[tuple[str, str], str] = {}
    real: set[tuple[str, str]] = set()

    def visit(text: str) -> None:
        for w in set(_WORD.findall(text)):
            for rt in ("f32", "f64"):
                base = None
                if w.endswith("_" + _suffix(rt)):
                    base = w[: -len(_suffix(rt))] + "C"
                elif w.endswith("_" + rt):
                    if w.startswith("r_"):
                        real.add((w[2: -len(rt) - 1], rt))
                        continue
                    base = w[: -len(rt)] + "T"
                if base in _HELPERS and (base, rt) not in done:
                    done[base, rt] = _specialise(_HELPERS[base], rt)
                    visit(done[base, rt])

    visit(code)
    return done, real


def real_ops(expr: str, rt: str) -> set[str]:
    """The real ops of expressions.py of real type ``rt`` that ``expr`` calls."""
    return {op for op, t in _closure(expr)[1] if t == rt}


def helpers(expr: str, rt: str) -> str:
    """Every WGSL function ``expr`` calls: complex helpers, real wrappers, and the
    helpers of expressions.py those use (its double-word pieces too)."""
    done, real = _closure(expr)
    text = "\n".join(list(done.values()) + [_real_wrapper(op, t) for op, t in sorted(real)])
    types = {t for _, t in done} | {t for _, t in real} | {rt}
    own = [ex.helpers(text + "\n" + expr, t) for t in sorted(types)]
    return "\n".join(t for t in [text] + own if t)


def prod_source(reduce_source: str, rt: str) -> str:
    """The complex product reduction, from reduce.py's complex sum kernel: its combine
    (``x + y``) becomes a complex multiplication and its identity 0 becomes 1."""
    ct = f"vec2<{rt}>"
    parts = [("return x + y;", f"return cmul_{_suffix(rt)}(x, y);"),
             (f"var acc = {ct}(0);", f"var acc = {ct}(1.0, 0.0);")]
    src = reduce_source
    for old, new in parts:
        if old not in src:
            raise RuntimeError(f"complex prod: reduce.py's kernel has no {old!r}")
        src = src.replace(old, new)
    return src + "\n" + helpers(f"cmul_{_suffix(rt)}(x, y)", rt)
