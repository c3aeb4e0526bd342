"""The WGSL expression of every elementwise op of numr._elementwise's tables, per kind.

An expression reads operands ``a`` and ``b`` (compute type ``T``) and gives the result
in the result's compute type. Float expressions call helpers (``isnan_T``, ``expm1_T``)
written once for ``T`` = f32 / f64; :func:`helpers` pulls in the ones a kernel uses.

Accuracy: WGSL's built-in transcendentals have loose guarantees (lavapipe's f32
asin/acos are thousands of ULP off) and SPIR-V has none at all for f64, so numr computes
exp, log, the trigonometric functions and their inverses, pow (and in f64 everything)
with its own formulas: range reduction, then polynomials. Where a result needs more than the type's
precision on the way (pow's log, log2/log10, log1p, trig argument reduction) numr
carries unevaluated sums hi + lo (double-word arithmetic, with ``fence_T`` keeping
drivers from simplifying the rounding errors away: every operand and intermediate of
two_sum / fast_two_sum / two_prod, and every sum whose order matters, passes through
one, since SPIR-V without NoContraction lets a driver reassociate, and NVIDIA's does).
float32 subnormals never meet arithmetic (NVIDIA flushes them; see "subnormals" below)
and float32 divide, reciprocal and sqrt are correctly rounded by numr's own correction,
so the same WGSL gives the same bits on lavapipe and on NVIDIA. The max ULP error of
each function against NumPy is asserted by tests/backends/webgpu/test_wgsl_accuracy.py.

Helpers other kernels may call (complex arithmetic, ...): WGSL functions named
``<name>_f32`` / ``<name>_f64`` that :func:`helpers` pulls in by name from any code
calling them: exp, expm1, log, log1p, log2, log10, sin, cos, tan, asin, acos, atan,
atan2, sinh, cosh, tanh, asinh, acosh, atanh, hypot, pow, logaddexp, copysign, isnan,
isinf, div and sqrt (correctly rounded), divr (a / b within a hair of 0.5 ULP, for
normal operands), absb / negb (by bits), tiny (|x| so small that f(x) = x (1 + O(x))
rounds to x), scale / scaledd (v 2^k, subnormal results rounded by bits), ldexpb,
frexp1; and the double-word pieces two_sum, fast_two_sum, two_prod (vec2: hi, lo),
logdd (log x as hi + lo, within 2^-45 / 2^-73), logw (the
cheaper pair log_T and log1p_T round, within 2^-34 / 2^-63), expdd (exp of hi + lo), sinr/cosr (sin/cos of r + e for
|r| <= pi/4) and rempio2 (x = k pi/2 + r: vec3 r hi, r lo, k). Kernels of other
modules can add helpers of their own with :func:`add_helpers`.
"""

from __future__ import annotations

import math
import re
from decimal import Decimal, localcontext

from .template import FENCE_WORD

# Float64 ops that still lack a WGSL implementation (a documented gap): none since numr
# has its own f64 formulas for what SPIR-V (GLSL.std.450) has only for 16/32-bit floats.
F64_GAPS: frozenset[str] = frozenset()

# Float expressions (T: f32 or f64). ``_T`` suffixes are replaced with the type.
FLOAT_UNARY = {
    "abs": "absb_T(a)", "acos": "acos_T(a)", "asin": "asin_T(a)", "atan": "atan_T(a)",
    "acosh": "acosh_T(a)", "asinh": "asinh_T(a)", "atanh": "atanh_T(a)",
    # copysign: lavapipe's float64 trunc/ceil of (-1, 0] lose the zero's sign, and its
    # float64 round does not round halves to even, so numr rounds by floor.
    "ceil": "copysign_T(ceil(a), a)", "floor": "copysign_T(floor(a), a)",
    "trunc": "copysign_T(trunc(a), a)", "round": "round_T(a)",
    "conj": "a", "positive": "a", "real": "a", "imag": "T(0.0)",
    "cos": "cos_T(a)", "sin": "sin_T(a)", "tan": "tan_T(a)",
    "cosh": "cosh_T(a)", "sinh": "sinh_T(a)", "tanh": "tanh_T(a)",
    "exp": "exp_T(a)", "expm1": "expm1_T(a)", "log": "log_T(a)", "log1p": "log1p_T(a)",
    "log2": "log2_T(a)", "log10": "log10_T(a)",
    "isfinite": "!isinf_T(a) && !isnan_T(a)", "isinf": "isinf_T(a)", "isnan": "isnan_T(a)",
    "negative": "negb_T(a)", "reciprocal": "div_T(T(1.0), a)",
    # NumPy: sign(-0.0) is +0.0, sign(nan) nan.
    "sign": "sign_T(a)",
    "signbit": "signbit_T(a)", "square": "a * a", "sqrt": "sqrt_T(a)",
}
# Note: float != is written !(a == b): naga emits an ordered not-equal, false for NaN.
FLOAT_BINARY = {
    "add": "a + b", "subtract": "a - b", "multiply": "a * b", "divide": "div_T(a, b)",
    "atan2": "atan2_T(a, b)", "copysign": "copysign_T(a, b)",
    "equal": "a == b", "not_equal": "!(a == b)", "less": "a < b", "less_equal": "a <= b",
    "greater": "a > b", "greater_equal": "a >= b",
    "floor_divide": "floor_divide_T(a, b)", "remainder": "remainder_T(a, b)",
    "hypot": "hypot_T(a, b)", "logaddexp": "logaddexp_T(a, b)",
    # equal operands (+0 and -0) give b, as NumPy does
    "maximum": "select(select(b, a, a > b), a + b, isnan_T(a) || isnan_T(b))",
    "minimum": "select(select(b, a, a < b), a + b, isnan_T(a) || isnan_T(b))",
    "nextafter": "nextafter_T(a, b)", "pow": "pow_T(a, b)",
}
INT_UNARY = {
    "abs": "abs(a)", "bitwise_invert": "~a", "ceil": "a", "floor": "a", "trunc": "a",
    "round": "a", "conj": "a", "positive": "a", "real": "a", "imag": "T(0)",
    "isfinite": "true", "isinf": "false", "isnan": "false", "negative": "T(0) - a",
    "sign": "select(select(T(0), T(1), a > T(0)), T(0) - T(1), a < T(0))",
    "square": "a * a",
}
INT_BINARY = {
    "add": "a + b", "subtract": "a - b", "multiply": "a * b",
    "bitwise_and": "a & b", "bitwise_or": "a | b", "bitwise_xor": "a ^ b",
    # Shifts by the width or more give 0 (or -1 for a negative value shifted right), as
    # NumPy; WGSL would take the count modulo the width.
    "bitwise_left_shift": "select(T(0), a << u32(b), u32(b) < BITS)",
    "bitwise_right_shift": "a >> min(u32(b), BITS - 1u)",
    "equal": "a == b", "not_equal": "a != b", "less": "a < b", "less_equal": "a <= b",
    "greater": "a > b", "greater_equal": "a >= b",
    "maximum": "max(a, b)", "minimum": "min(a, b)",
    "floor_divide": "floor_divide_T(a, b)", "remainder": "remainder_T(a, b)",
    "pow": "ipow_T(a, b)",
}
UINT_OVERRIDES = {
    "abs": "a", "sign": "select(T(0), T(1), a > T(0))",
    "bitwise_right_shift": "select(T(0), a >> u32(b), u32(b) < BITS)",
}
BOOL_UNARY = {"logical_not": "!a", "bitwise_invert": "!a", "positive": "a"}
BOOL_BINARY = {
    "logical_and": "a && b", "logical_or": "a || b", "logical_xor": "a != b",
    "bitwise_and": "a & b", "bitwise_or": "a | b", "bitwise_xor": "a != b",
    "equal": "a == b", "not_equal": "a != b",
}

# Helpers: name -> WGSL text, with T (float type), U (same-size unsigned) and the
# per-type constants of _consts() (bit patterns, thresholds, constants split hi + lo).
_FLOAT_HELPERS = {
    "isnan_T": "fn isnan_T(x: T) -> bool { return (bitcast<U>(x) & ABS) > EXPO; }",
    "isinf_T": "fn isinf_T(x: T) -> bool { return (bitcast<U>(x) & ABS) == EXPO; }",
    "signbit_T": "fn signbit_T(x: T) -> bool { return (bitcast<U>(x) & SIGN) != U(0); }",
    "copysign_T": "fn copysign_T(x: T, y: T) -> T { "
                  "return bitcast<T>((bitcast<U>(x) & ABS) | (bitcast<U>(y) & SIGN)); }",
    "nan_T": "fn nan_T() -> T { return bitcast<T>(EXPO | U(1)); }",

    # -- double-word arithmetic ----------------------------------------------------------
    # The identity, in a form no compiler sees through: drivers that simplify
    # (a + b) - a to b (lavapipe's NIR does, fma is split into * and + there too) or
    # reassociate sums (NVIDIA's: float64 pow lost 900 ULP, tan 6) would otherwise fold
    # away the rounding errors the compensated sums below compute. Float32's bits are
    # or-ed with the parameter slot's last word, which the runtime never writes (0, but
    # unknown to a compiler: template.FENCE_WORD): one integer operation, where a compare
    # with a reserved NaN and an xor of the result took three, and the fences were half
    # of float32 log's operations (float64's: _TYPED_HELPERS).
    "fence_T": """fn fence_T(v: T) -> T {
  return bitcast<T>(bitcast<U>(v) | U(FENCE_WORD));
}""",
    # a + b = s + e exactly (Knuth's TwoSum); vec2(s, e).
    "two_sum_T": """fn two_sum_T(a0: T, b0: T) -> vec2<T> {
  let a = fence_T(a0);
  let b = fence_T(b0);
  let s = fence_T(a + b);
  let v = fence_T(s - a);
  let w = fence_T(s - v);
  return vec2<T>(s, fence_T(a - w) + fence_T(b - v));
}""",
    # a + b = s + e exactly where |a| >= |b| (Dekker's Fast2Sum).
    "fast_two_sum_T": """fn fast_two_sum_T(a0: T, b0: T) -> vec2<T> {
  let a = fence_T(a0);
  let b = fence_T(b0);
  let s = fence_T(a + b);
  return vec2<T>(s, b - fence_T(s - a));
}""",
    # a * b = p + e (Dekker's product, without fma: NVIDIA fuses fma, lavapipe splits it
    # into * and +, and the same bits are wanted on both). The halves
    # are cut by masking mantissa bits, which no compiler folds; every partial product
    # but the last is exact, so e is exact up to far below its last bit.
    "two_prod_T": """fn two_prod_T(a0: T, b0: T) -> vec2<T> {
  let a = fence_T(a0);
  let b = fence_T(b0);
  let p = fence_T(a * b);
  let ah = bitcast<T>(bitcast<U>(a) & SPLIT);
  let bh = bitcast<T>(bitcast<U>(b) & SPLIT);
  let al = fence_T(a - ah);
  let bl = fence_T(b - bh);
  let t = fence_T(fence_T(ah * bh - p) + ah * bl);
  return vec2<T>(p, fence_T(t + al * bh) + al * bl);
}""",
    # v * 2^k where 2^k alone would overflow or underflow (one ldexp may compute it);
    # the result rounds once.
    "scale_T": """fn scale_T(v: T, k: i32) -> T {
  if (k > EMAX) { return ldexp(ldexp(v, EMAX), k - EMAX); }
  if (k < EMIN) { return ldexp(ldexp(v, k + 64), -64); }
  return ldexp(v, k);
}""",

    # -- exp -------------------------------------------------------------------------------
    # (exp(r) - 1 - r) / r^2 by its Taylor series (to r^12: |r| <= ln2/2 leaves < 2^-55).
    "expq_T": "fn expq_T(r: T) -> T { return EXPQ; }",
    # (exp(r) - 1 - r - r^2/2) / r^3, |r| < 1/2.
    "expq1_T": "fn expq1_T(r: T) -> T { return EXPQ1; }",
    # exp(a + b), b tiny against a: a + b = k ln2 + r (Cody-Waite: ln2 in two parts, the
    # first short enough that k * LN2_C1 is exact), exp(r) = 1 + r + r^2 expq(r), with
    # r and the sums carried as hi + lo, so the result rounds about once.
    # expk_T: the steps before the scaling, e^(a + b) = 2^k (hi + lo) as vec3(hi, lo, k)
    # (numr.special's spexpw_T keeps the pair).
    "expk_T": """fn expk_T(a: T, b: T) -> vec3<T> {
  let k = round(a * INV_LN2);
  let r = two_sum_T(a - k * LN2_C1, b - k * LN2_C2);
  let p = fast_two_sum_T(r.x, r.y + r.x * r.x * expq_T(r.x));
  let s = fast_two_sum_T(T(1.0), p.x);
  let v = fast_two_sum_T(s.x, fence_T(s.y + p.y));
  return vec3<T>(v.x, v.y, k);
}""",
    "expdd_T": """fn expdd_T(a: T, b: T) -> T {
  if (a > EXP_HI) { return bitcast<T>(EXPO); }
  if (a < EXP_LO) { return T(0.0); }
  let e = expk_T(a, b);
  return scaledd_T(e.x, e.y, i32(e.z));
}""",
    "exp_T": "fn exp_T(x: T) -> T { if (isnan_T(x)) { return x; } return expdd_T(x, T(0.0)); }",
    "xexp_T": "fn xexp_T(x: T) -> T { return exp_T(x); }",  # an earlier name
    # exp(x) - 1 without cancellation: the series near 0; further out
    # 2^k (1 + p) - 1 = (2^k - 1) + 2^k p, p = exp(r) - 1 as hi + lo.
    # |x| < 1/2: x + x^2/2 (x^2 exact, as hi + lo) + x^3 expq1(x): above ln2/2, 1 + 2p
    # cancels (1.03 ULP at x = 0.3486 in float32, 1.02 in float64), and x + x^2 expq(x)
    # in one word lost up to 0.4 ULP to x^2 expq's roundings (1.02 at 0.498 in float64).
    # Beyond 2^SIG, 2^k - 1 is inexact, so -1 joins the low part (1.06 ULP at x = 17.09
    # in float32, 1.18 at 37.1 in float64).
    "expm1_T": """fn expm1_T(x: T) -> T {
  if (isnan_T(x) || tiny_T(x)) { return x; }
  if (x > EXPM1_BIG) { return exp_T(x); }
  if (x < -EXPM1_BIG) { return T(-1.0); }
  if (abs(x) < T(0.5)) {
    let h = two_prod_T(x, x);
    let a = two_sum_T(x, T(0.5) * h.x);
    return a.x + fence_T(a.y + fence_T(T(0.5) * h.y + fence_T(h.x * fence_T(x * expq1_T(x)))));
  }
  let k = round(x * INV_LN2);
  let r = two_sum_T(x - k * LN2_C1, -(k * LN2_C2));
  let p = fast_two_sum_T(r.x, r.y + r.x * r.x * expq_T(r.x));
  let ki = i32(k);
  if (ki >= SIG_BITS) {
    let s = two_sum_T(ldexp(T(1.0), ki), ldexp(p.x, ki));
    return s.x + fence_T(fence_T(s.y - T(1.0)) + ldexp(p.y, ki));
  }
  let s = two_sum_T(ldexp(T(1.0), ki) - T(1.0), ldexp(p.x, ki));
  return s.x + fence_T(s.y + ldexp(p.y, ki));
}""",

    # -- log -------------------------------------------------------------------------------
    # log(x) as hi + lo, relative error about 2^-73 (f64), 2^-45 (f32), finite x > 0:
    # x = 2^e m, m in [0.707, 1.414] (e ln2 in three parts, the first two exact times e);
    # c = j / 8 nearest m, log c as hi + lo; log(m / c) = 2 atanh(s), s = (m - c) / (m + c),
    # |s| <= 0.045, s as hi + lo and 2 atanh(s) = 2s + 2s z P(z), z = s^2, in double-word
    # arithmetic (P's tail in one word). No table: a dynamically indexed const array is
    # copied per invocation by some drivers (lavapipe: 4x slower).
    # logdd_T's and logw_T's reduction: x = 2^e m, m in [0.707, 1.414], as (m, e). frexp
    # by bits: NVIDIA's compiler (NVVM) fails on a float64 frexp, as lavapipe's LLVM did
    # elsewhere; and float32 subnormals must not meet arithmetic (frexp1_T).
    "logm_T": """fn logm_T(x: T) -> vec2<T> {
  let fr = frexp1_T(x);
  if (fr.x > T(1.4142135623730951)) { return vec2<T>(fr.x * T(0.5), fr.y + T(1.0)); }
  return fr;
}""",
    # c = j / 8 nearest m: log c as hi + lo; s = (m - c) / (m + c) as hi + lo (m - c exact).
    "logc_T": """fn logc_T(m: T) -> vec2<T> {
  let j = i32(round(m * T(8.0)));
  LOGC_SELECT
  return lc;
}""",
    "logs_T": """fn logs_T(m: T) -> vec2<T> {
  let c = round(m * T(8.0)) * T(0.125);
  let num = m - c;
  let den = two_sum_T(m, c);
  let sh = num / den.x;
  let q = two_prod_T(sh, den.x);
  return vec2<T>(sh, fence_T(fence_T(fence_T(num - q.x) - q.y) - sh * den.y) / den.x);
}""",
    "logdd_T": """fn logdd_T(x: T) -> vec2<T> {
  let me = logm_T(x);
  let s = logs_T(me.x);
  let lc = logc_T(me.x);
  let sh = s.x;
  let sl = s.y;
  let ef = me.y;
  let zz = two_prod_T(sh, sh);
  let z = fast_two_sum_T(zz.x, zz.y + T(2.0) * sh * sl);
  let p = fast_two_sum_T(THIRD, THIRD_LO + z.x * (ATANHQ));
  let t = ddmul_T(vec2<T>(sh, sl), ddmul_T(z, p));
  let lm = ddadd_T(vec2<T>(sh, sl), t);
  let a = two_sum_T(ef * LN2_C1, lc.x);
  let b = two_sum_T(a.x, T(2.0) * lm.x);
  let d = two_sum_T(b.x, ef * LOG_C2);
  return fast_two_sum_T(d.x, fence_T(a.y + b.y + d.y) + fence_T(fence_T(T(2.0) * lm.y + lc.y) + ef * LOG_C3));
}""",
    # The result of log-like functions off the regular domain (0 < x < inf): NaN below 0
    # and for NaN, -inf at 0, +inf at +inf; ``regular`` says whether x is regular.
    "logedge_T": """fn logedge_T(x: T) -> T {
  let u = bitcast<U>(x);
  if ((u & ABS) == U(0)) { return -bitcast<T>(EXPO); }
  if (u == EXPO) { return x; }
  return nan_T();
}""",
    # 0 < x < inf, by bits (float32 subnormals included).
    "logregular_T": "fn logregular_T(x: T) -> bool { return bitcast<U>(x) - U(1) < EXPO - U(1); }",
    # log(x) as hi + lo for finite x > 0, the pair within 2^-34 (f32) / 2^-63 (f64) of
    # the result: logdd_T's reduction with only the leading terms in double words.
    # 2 atanh(s) = 2s + 2t, t = s z P(z): |t| < 0.0007 |s| (|s| <= 0.045), so t in one
    # word (P short) and the low parts summed in one word add < 2^-34 of the result, at
    # about half logdd_T's arithmetic (which pow and log2 keep: they need its 2^-45).
    "logw_T": """fn logw_T(x: T) -> vec2<T> {
  let me = logm_T(x);
  let s = logs_T(me.x);
  let lc = logc_T(me.x);
  let sh = s.x;
  let sl = s.y;
  let ef = me.y;
  let z = fence_T(sh * sh);
  let t = fence_T(sh * fence_T(z * (LOGR_P)));
  let a = two_sum_T(ef * LN2_C1, lc.x);
  let b = two_sum_T(a.x, T(2.0) * sh);
  let d = two_sum_T(b.x, ef * LOG_C2);
  return vec2<T>(d.x, fence_T(fence_T(a.y + b.y + d.y) + fence_T(fence_T(T(2.0) * fence_T(sl + t) + lc.y) + ef * LOG_C3)));
}""",
    # log(x) rounded once: within 0.5017 ULP (f32, every mantissa checked).
    "log_T": """fn log_T(x: T) -> T {
  if (!logregular_T(x)) { return logedge_T(x); }
  let l = logw_T(x);
  return l.x + l.y;
}""",
    # log(1 + xh + xl) for xh + xl > -1 finite, |xl| tiny against |xh| (a sum as hi + lo).
    "log1pw_T": """fn log1pw_T(xh: T, xl: T) -> T {
  let u = two_sum_T(T(1.0), xh);
  let l = logw_T(u.x);
  return l.x + fence_T(l.y + divr_T(fence_T(u.y + xl), u.x));
}""",
    # log(1 + x): 1 + x = u + d exactly, log(u + d) = log u + d / u.
    "log1p_T": """fn log1p_T(x: T) -> T {
  if (x == T(-1.0)) { return -bitcast<T>(EXPO); }
  if (!(x >= T(-1.0))) { return nan_T(); }
  if (isinf_T(x) || tiny_T(x)) { return x; }
  let u = two_sum_T(T(1.0), x);
  let l = logw_T(u.x);
  return l.x + fence_T(l.y + divr_T(u.y, u.x));
}""",
    # log(1 + f), f in [-0.29, 0.41], in one word (kept for callers of the earlier name).
    "log1pcore_T": """fn log1pcore_T(f: T) -> T {
  let s = f / (T(2.0) + f);
  let z = s * s;
  let R = z * (T(0.6666666666666666) + z * (T(0.4) + z * (T(0.2857142857142857) + z * (T(0.2222222222222222) + z * T(0.18181818181818182)))));
  let hf = T(0.5) * f * f;
  return f - hf + s * (hf + R);
}""",

    # -- hyperbolic ------------------------------------------------------------------------
    "sinh_T": """fn sinh_T(x: T) -> T {
  let y = abs(x);
  var r: T;
  if (tiny_T(x)) { return x; }
  // y + y^3 S(y^2) below 1: (e + e / (e + 1)) / 2 from expm1 was 2.17 ULP off at 0.0613
  if (y < T(1.0)) { let z = y * y; r = y + fence_T(y * fence_T(z * (SINHQ))); }
  else if (y < EXP_HI) { let h = exp_T(y); r = T(0.5) * h - divr_T(T(0.5), h); }
  else { let t = two_sum_T(y, -LN2); r = expdd_T(t.x, t.y - LN2_LO); }
  return copysign_T(r, x);
}""",
    # (e^y + e^-y) / 2; past exp's overflow, e^(y - ln2) (y - ln2 as hi + lo): the
    # square of e^(y/2), rounded twice, was 2.02 ULP off at 89.39 (f32).
    "cosh_T": """fn cosh_T(x: T) -> T {
  let y = abs(x);
  if (y < EXP_HI) { let h = exp_T(y); return T(0.5) * h + divr_T(T(0.5), h); }
  if (isnan_T(y)) { return y; }
  let t = two_sum_T(y, -LN2);
  return expdd_T(t.x, t.y - LN2_LO);
}""",
    "tanh_T": """fn tanh_T(x: T) -> T {
  let y = abs(x);
  var r: T;
  if (y > T(22.0)) { r = T(1.0); }
  // y + y^3 T(y^2) below 1/4: e / (e + 2) from expm1 was 2.42 ULP off at 0.0620
  else if (y < T(0.25)) { let z = y * y; r = y + fence_T(y * fence_T(z * (TANHQ))); }
  else { let e = expm1_T(T(2.0) * y); r = divr_T(e, e + T(2.0)); }
  return select(copysign_T(r, x), x, isnan_T(x) || tiny_T(x));
}""",
    "asinh_T": """fn asinh_T(x: T) -> T {
  let y = abs(x);
  var r: T;
  if (y > T(1e18)) { r = log_T(y) + T(0.69314718055994530942); }
  else {
    // log1p of y + w as hi + lo: the rounded sum cost asinh 1.54 ULP at 0.5177 (f32)
    let y2 = y * y;
    let v = two_sum_T(y, divr_T(y2, T(1.0) + sqrt(T(1.0) + y2)));
    r = log1pw_T(v.x, v.y);
  }
  return select(copysign_T(r, x), x, isnan_T(x) || isinf_T(x) || tiny_T(x));
}""",
    "acosh_T": """fn acosh_T(x: T) -> T {
  if (!(x >= T(1.0))) { return nan_T(); }
  if (x > T(1e18)) { return select(log_T(x) + T(0.69314718055994530942), x, isinf_T(x)); }
  // log1p(t + s), s = sqrt(t (x + 1)) from the exact product, corrected once, and the
  // sum as hi + lo: t + sqrt_T of the rounded product cost 2.41 ULP at 1.0077 (f32)
  let t = x - T(1.0);
  if (t == T(0.0)) { return T(0.0); }
  let p = two_prod_T(t, x + T(1.0));
  let s = sqrt_T(p.x);
  let q = two_prod_T(s, s);
  let ds = fence_T(fence_T(fence_T(p.x - q.x) - q.y) + p.y) / (T(2.0) * s);
  let v = two_sum_T(t, s);
  return log1pw_T(v.x, fence_T(v.y + ds));
}""",
    "atanh_T": """fn atanh_T(x: T) -> T {
  if (tiny_T(x)) { return x; }
  let y = abs(x);
  // y + y^3 A(y^2) below 1/4: log1p of the rounded quotient cost 1.88 ULP at 0.0039
  if (y < T(0.25)) { let z = y * y; return copysign_T(y + fence_T(y * fence_T(z * (ATANHS))), x); }
  return copysign_T(T(0.5) * log1p_T(div_T(T(2.0) * y, T(1.0) - y)), x);
}""",

    # -- trigonometric -------------------------------------------------------------------
    # x = k pi/2 + r, |r| <= pi/4 about, as vec3(r hi, r lo, k): Cody-Waite with pi/2 in
    # four parts, the first three short (f64: 33 bits, f32: 12), so that k * part is
    # exact for |x| < RED_BIG; the differences are carried exactly (two_sum), so even an
    # r that cancels to 2^-60 keeps full precision. Beyond, rempio2big_T.
    "rempio2_T": """fn rempio2_T(x: T) -> vec3<T> {
  if (abs(x) >= RED_BIG) { return rempio2big_T(x); }
  let k = round(x * TWO_OVER_PI);
  let t = two_sum_T(x - k * PIO2_1, -(k * PIO2_2));
  let u = two_sum_T(t.x, -(k * PIO2_3));
  let r = fast_two_sum_T(u.x, (t.y + u.y) - k * PIO2_4);
  return vec3<T>(r.x, r.y, k);
}""",
    # sin(r + e) for |r| <= pi/4, e tiny: Taylor to r^19 (the error term is < 2^-60 r).
    "sinr_T": "fn sinr_T(r: T, e: T) -> T { return r + sinrt_T(r, e); }",
    # sin(r + e) - r, the tail sinr_T adds to r (tan_T keeps the two apart).
    "sinrt_T": """fn sinrt_T(r: T, e: T) -> T {
  let z = r * r;
  return fence_T(e * (T(1.0) - T(0.5) * z) + r * z * (SINQ));
}""",
    # cos(r + e): 1 - z/2 rounded, plus its rounding error (exact), plus the rest.
    "cosr_T": "fn cosr_T(r: T, e: T) -> T { let p = cosrp_T(r, e); return p.x + p.y; }",
    # cos(r + e) as 1 - z/2 rounded and the rest, unsummed (tan_T keeps the two apart).
    "cosrp_T": """fn cosrp_T(r: T, e: T) -> vec2<T> {
  let z = r * r;
  let hz = T(0.5) * z;
  let w = fence_T(T(1.0) - hz);
  return vec2<T>(w, fence_T(fence_T(fence_T(T(1.0) - w) - hz) + (z * z * (COSQ) - r * e)));
}""",
    "sin_T": """fn sin_T(x: T) -> T {
  if (tiny_T(x) || isnan_T(x)) { return x; }
  if (isinf_T(x)) { return nan_T(); }
  let q = rempio2_T(x);
  let n = i32(q.z) & 3;
  let v = select(sinr_T(q.x, q.y), cosr_T(q.x, q.y), (n & 1) == 1);
  return select(v, -v, n >= 2);
}""",
    "cos_T": """fn cos_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  if (isinf_T(x)) { return nan_T(); }
  let q = rempio2_T(x);
  let n = i32(q.z) & 3;
  let v = select(cosr_T(q.x, q.y), sinr_T(q.x, q.y), (n & 1) == 1);
  return select(v, -v, n == 1 || n == 2);
}""",
    # tan = sin / cos (-cos / sin for odd k), each as hi + lo (sinr's and cosr's sums
    # left unrounded) and the quotient corrected once from its exact residual: the
    # rounded sin and cos (0.8 ULP each) divided made 2.37 ULP at x = 2.362091 (f32).
    "tan_T": """fn tan_T(x: T) -> T {
  if (tiny_T(x) || isnan_T(x)) { return x; }
  if (isinf_T(x)) { return nan_T(); }
  let q = rempio2_T(x);
  let s = fast_two_sum_T(q.x, sinrt_T(q.x, q.y));
  let cp = cosrp_T(q.x, q.y);
  let c = fast_two_sum_T(cp.x, cp.y);
  let odd = (i32(q.z) & 1) == 1;
  let a = select(s, -c, odd);
  let b = select(c, s, odd);
  let t = fence_T(a.x / b.x);
  let p = two_prod_T(t, b.x);
  let d = fence_T(fence_T(fence_T(a.x - p.x) - p.y) + fence_T(a.y - fence_T(t * b.y)));
  return t + d / b.x;
}""",

    # -- inverse trigonometric -------------------------------------------------------
    # (asin(x) - x) / x^3 as a polynomial in z = x^2, z <= 1/4 (least-squares fit at
    # Chebyshev nodes, relative error 2^-57).
    "asinq_T": "fn asinq_T(z: T) -> T { return ASINQ; }",
    # asin(x) = x + x z q(z) for |x| < 1/2; else pi/2 - 2 asin(s), s = sqrt((1 - |x|)/2),
    # with s = sh + sc, sh of half the bits, so that pi/2 - 2 sh is exact.
    "asin_T": """fn asin_T(x: T) -> T {
  if (tiny_T(x)) { return x; }
  let a = abs(x);
  if (!(a <= T(1.0))) { return select(nan_T(), x, isnan_T(x)); }
  if (a < T(0.5)) { let z = x * x; return x + fence_T(x * z * asinq_T(z)); }
  let w = (T(1.0) - a) * T(0.5);
  let s = sqrt(w);
  let sh = bitcast<T>(bitcast<U>(s) & SPLIT);
  let sc = select(fence_T(w - sh * sh) / (s + sh), T(0.0), s == T(0.0));
  let r = fence_T(PIO2 - T(2.0) * sh) + fence_T(PIO2_LO - T(2.0) * fence_T(sc + s * w * asinq_T(w)));
  return copysign_T(r, x);
}""",
    # acos(x) = pi/2 - asin(x) for |x| < 1/2; pi - 2 asin(s) below, 2 asin(s) above,
    # s = sqrt((1 -+ x)/2).
    "acos_T": """fn acos_T(x: T) -> T {
  let a = abs(x);
  if (!(a <= T(1.0))) { return select(nan_T(), x, isnan_T(x)); }
  if (a < T(0.5)) { let z = x * x; return PIO2 - fence_T(x - fence_T(PIO2_LO - x * z * asinq_T(z))); }
  let w = (T(1.0) - a) * T(0.5);
  let s = sqrt_T(w);
  if (x < T(0.0)) { return PI - T(2.0) * fence_T(s + fence_T(s * w * asinq_T(w) - PIO2_LO)); }
  let sh = bitcast<T>(bitcast<U>(s) & SPLIT);
  let sc = select(fence_T(w - sh * sh) / (s + sh), T(0.0), s == T(0.0));
  return T(2.0) * (sh + fence_T(sc + s * w * asinq_T(w)));
}""",
    # (atan(u) - u) / u^3 as a polynomial in z = u^2, |u| <= 7/16 (fit as asinq, 2^-56).
    "atanq_T": "fn atanq_T(z: T) -> T { return ATANQ; }",
    # atan(|x|) = atan(c) + atan(u), u = (|x| - c) / (1 + c |x|) for c = 0, 1/2, 1, 3/2,
    # inf by the size of |x|, so that |u| <= 7/16; atan(c) as hi + lo.
    "atan_T": """fn atan_T(x: T) -> T {
  if (isnan_T(x) || tiny_T(x)) { return x; }
  let a = abs(x);
  var u: T; var bh = T(0.0); var bl = T(0.0);
  if (a < T(0.4375)) { u = a; }
  else if (a < T(0.6875)) { u = divr_T(T(2.0) * a - T(1.0), T(2.0) + a); bh = ATAN_HALF; bl = ATAN_HALF_LO; }
  else if (a < T(1.1875)) { u = divr_T(a - T(1.0), a + T(1.0)); bh = PIO4; bl = PIO4_LO; }
  else if (a < T(2.4375)) { u = divr_T(a - T(1.5), T(1.0) + T(1.5) * a); bh = ATAN_1_5; bl = ATAN_1_5_LO; }
  else { u = T(-1.0) / a; bh = PIO2; bl = PIO2_LO; }
  let z = u * u;
  return copysign_T(bh + fence_T(u + fence_T(bl + u * z * atanq_T(z))), x);
}""",
    # atan2 with C99's (and the Array API's) special cases; atan(|y / x|) otherwise,
    # folded into the quadrant with pi as hi + lo.
    "atan2_T": """fn atan2_T(y: T, x: T) -> T {
  if (isnan_T(x) || isnan_T(y)) { return nan_T(); }
  let ay = absb_T(y); let ax = absb_T(x);
  let xneg = signbit_T(x);
  var r: T;
  if (bitcast<U>(ay) == U(0)) { r = select(T(0.0), PI, xneg); }
  else if (bitcast<U>(ax) == U(0)) { r = PIO2; }
  else if (isinf_T(ay)) {
    r = select(PIO2, select(PIO4, T(2.356194490192345), xneg), isinf_T(ax));
  }
  else if (isinf_T(ax)) { r = select(T(0.0), PI, xneg); }
  else {
    let t = atan_T(div_T(ay, ax));
    r = select(t, PI - fence_T(t - PI_LO), xneg);
  }
  return copysign_T(r, y);
}""",

    # -- binary ----------------------------------------------------------------------------
    # Scaled so that neither square overflows nor underflows.
    # (float32: tiny operands scaled up by 2^64 by bits, the result down by scale_T.)
    "hypot_T": """fn hypot_T(x: T, y: T) -> T {
  let a = absb_T(x); let b = absb_T(y);
  if (isinf_T(a) || isinf_T(b)) { return bitcast<T>(EXPO); }
  if (isnan_T(a) || isnan_T(b)) { return nan_T(); }
  let ua = bitcast<U>(a); let ub = bitcast<U>(b);
  let m = select(b, a, ua >= ub); let n = select(a, b, ua >= ub);
  let um = max(ua, ub);
  if (um == U(0)) { return m; }
  if (um < HYP_TINY) { return scale_T(hypotcore_T(ldexpb_T(m, 64), ldexpb_T(n, 64)), -64); }
  return hypotcore_T(m, n);
}""",
    "hypotcore_T": """fn hypotcore_T(m: T, n: T) -> T {
  let r = div_T(n, m);
  return m * sqrt_T(T(1.0) + r * r);
}""",
    # Double-word products and sums: (a.x + a.y) op (b.x + b.y) as hi + lo.
    "ddmul_T": """fn ddmul_T(a: vec2<T>, b: vec2<T>) -> vec2<T> {
  let p = two_prod_T(a.x, b.x);
  return fast_two_sum_T(p.x, p.y + (a.x * b.y + a.y * b.x));
}""",
    "ddadd_T": """fn ddadd_T(a: vec2<T>, b: vec2<T>) -> vec2<T> {
  let s = two_sum_T(a.x, b.x);
  return fast_two_sum_T(s.x, s.y + (a.y + b.y));
}""",
    # exp(a) as hi + lo (about twice the type's precision): a = k ln2 + r with ln 2 in
    # three parts, r as hi + lo, e^r by its Taylor series (1/n! as hi + lo) evaluated
    # in double-word arithmetic.
    "expdw_T": """fn expdw_T(a: T) -> vec2<T> {
  let k = round(a * INV_LN2);
  let c = two_prod_T(k, LN2_C2);
  let r0 = two_sum_T(a - k * LN2_C1, -c.x);
  let r = two_sum_T(r0.x, r0.y - (c.y + k * LN2_C3));
  EXPDW_HORNER
  let ki = i32(k);
  return vec2<T>(scale_T(e.x, ki), scale_T(e.y, ki));
}""",
    # max + log1p(exp(-|x - y|)) (NumPy's formula, with |x - y| as hi + lo); where the
    # sum cancels (the result far smaller than max, e.g. near 0) the log1p(exp) term
    # again as hi + lo, so that the result keeps its relative precision.
    # An unsigned integer whose order is the float order of x (-0 just below +0): the
    # sign-magnitude bits flipped for negatives, the sign set for positives.
    "order_key_T": """fn order_key_T(x: T) -> U {
  let u = bitcast<U>(x);
  return select(u | SIGN, ~u, (u & SIGN) != U(0));
}""",
    "logaddexp_T": """fn logaddexp_T(x: T, y: T) -> T {
  if (x == y) { return x + T(0.69314718055994530942); }
  let d = x - y;
  if (isnan_T(d)) { return d; }
  // max and the zero test by bits: a float32 subnormal beside -inf must come back itself.
  // NVIDIA's max and comparisons flush it to zero, and its compiler turns a float
  // compare-and-select into a flushing max: the order comes from integer keys instead.
  let m = select(y, x, order_key_T(x) > order_key_T(y));
  if (isinf_T(d)) { return select(m, T(0.0), (bitcast<U>(m) & ABS) == U(0)); }   // NumPy: -0 + log1p(0) = +0
  let dd = two_sum_T(-m, min(x, y));   // -|x - y| = dd.x + dd.y exactly
  let e = exp_T(dd.x);
  let lt = log1p_T(e + e * dd.y);
  // m + 0 would flush a float32 subnormal m; -0 + 0 is +0 as in NumPy
  if (lt == T(0.0)) { return select(m, T(0.0), (bitcast<U>(m) & ABS) == U(0)); }
  let r = m + lt;
  if (!(abs(r) < lt)) { return r; }
  let t = expdw_T(dd.x);
  let u = two_sum_T(T(1.0), t.x);
  let l = logdd_T(u.x);
  let lg = two_sum_T(l.x, fence_T(l.y + fence_T(u.y + fence_T(t.y + t.x * dd.y)) / u.x));
  let s = two_sum_T(m, lg.x);
  return s.x + fence_T(s.y + lg.y);
}""",
    # C's fmod, exact (WGSL's x % y is x - y * trunc(x / y), which loses digits once
    # x / y is large): the integer mantissas' remainder, mx 2^(ex - ey) mod my, by
    # long division a few bits at a time. Finite x, finite y != 0.
    "fmod_T": """fn fmod_T(x: T, y: T) -> T {
  let ax = abs(x);
  let ay = abs(y);
  if (ax < ay) { return x; }
  let bx = bitcast<U>(ax);
  let by = bitcast<U>(ay);
  let ex = i32(bx >> MANT_BITS);
  let ey = i32(by >> MANT_BITS);
  let mx = select(bx & MANT, (bx & MANT) | IMPLICIT, ex > 0);
  let my = select(by & MANT, (by & MANT) | IMPLICIT, ey > 0);
  var n = max(ex, 1) - max(ey, 1);
  var r = mx % my;
  loop {
    if (n <= 0) { break; }
    let k = min(n, CHUNK);
    r = (r << u32(k)) % my;
    n = n - k;
  }
  return copysign_T(scale_T(T(r), max(ey, 1) - BIAS - i32(MANT_BITS)), x);
}""",
    # NumPy's float remainder/floor_divide (npy_divmod) over the exact fmod.
    "remainder_T": """fn remainder_T(x: T, y: T) -> T {
  if (isnan_T(x) || isnan_T(y) || isinf_T(x) || y == T(0.0)) { return nan_T(); }
  var m = x;
  if (!isinf_T(y)) { m = fmod_T(x, y); }
  if (!(m == T(0.0))) { if ((y < T(0.0)) != (m < T(0.0))) { m = m + y; } }
  else { m = copysign_T(T(0.0), y); }
  return m;
}""",
    "floor_divide_T": """fn floor_divide_T(x: T, y: T) -> T {
  if (y == T(0.0) || isinf_T(x) || isinf_T(y) || isnan_T(x) || isnan_T(y)) {
    return select(floor(x / y), x / y, isinf_T(x) != isinf_T(y));
  }
  let m = fmod_T(x, y);
  var d = (x - m) / y;
  if (!(m == T(0.0)) && ((y < T(0.0)) != (m < T(0.0)))) { d = d - T(1.0); }
  if (d == T(0.0)) { return copysign_T(T(0.0), x / y); }
  var f = floor(d);
  if (d - f > T(0.5)) { f = f + T(1.0); }
  return f;
}""",
    "nextafter_T": """fn nextafter_T(x: T, y: T) -> T {
  if (isnan_T(x) || isnan_T(y)) { return x + y; }
  if (x == y) { return y; }
  if (x == T(0.0)) { return copysign_T(bitcast<T>(U(1)), y); }
  let u = bitcast<U>(x);
  let up = (y > x) == (x > T(0.0));
  return bitcast<T>(select(u - U(1), u + U(1), up));
}""",
    # |x|^y for finite x > 0 and finite y != 0: exp(y log x), y log x as hi + lo (so the
    # result keeps its precision up to the overflow threshold).
    "powcore_T": """fn powcore_T(ax: T, y: T) -> T {
  let l = powlog_T(ax);
  let p = two_prod_T(y, l.x);
  if (abs(p.x) > POW_SAT) { return select(T(0.0), bitcast<T>(EXPO), p.x > T(0.0)); }
  let z = fast_two_sum_T(p.x, p.y + y * l.y);
  return expdd_T(z.x, z.y);
}""",
    # pow's log x as hi + lo: |y log x| reaches 745 in float64, so its 2^-73 are needed
    # there; in float32 (|y log x| < 104 where the result is finite and nonzero) log_T's
    # pair, within 2^-34, adds at most 2^-27.3 to the result's relative error.
    "powlog_T": "fn powlog_T(x: T) -> vec2<T> { return logdd_T(x); }",
    # pow with the C99 / Array API special cases.
    "pow_T": """fn pow_T(x: T, y: T) -> T {
  let ux = bitcast<U>(x) & ABS;
  let uy = bitcast<U>(y) & ABS;
  if (uy == U(0) || x == T(1.0)) { return T(1.0); }
  if (isnan_T(x) || isnan_T(y)) { return nan_T(); }
  // By bits where float32 subnormals would flush: a subnormal y is no integer.
  let yint = (uy & EXPO) != U(0) && floor(y) == y && !isinf_T(y);
  let yodd = yint && abs(y) < T(9007199254740992.0) && (y * T(0.5)) != floor(y * T(0.5));
  let ax = bitcast<T>(ux);
  let xneg = signbit_T(x);
  let yneg = signbit_T(y);
  if (isinf_T(y)) {
    if (ax == T(1.0)) { return T(1.0); }
    return select(T(0.0), bitcast<T>(EXPO), (ax > T(1.0)) != yneg);
  }
  if (ux == U(0)) {
    let r = select(T(0.0), bitcast<T>(EXPO), yneg);
    return select(r, copysign_T(r, x), yodd);
  }
  if (isinf_T(ax)) {
    let r = select(T(0.0), bitcast<T>(EXPO), !yneg);
    return select(r, copysign_T(r, x), yodd);
  }
  if (xneg && !yint) { return nan_T(); }
  let r = powcore_T(ax, y);
  return select(r, negb_T(r), xneg && yodd);
}""",
}

# Per-type replacements of the helpers above.
# Per-type replacements of the helpers above (filled below).
# log2 / log10: the double-word log times 1 / ln(base) as hi + lo, so that powers of the
# base come out exact.
_LOG_BASE = """fn logB_T(x: T) -> T {
  if (!logregular_T(x)) { return logedge_T(x); }
  let l = logdd_T(x);
  let p = two_prod_T(l.x, INV_LNB);
  return p.x + fence_T(p.y + fence_T(l.x * INV_LNB_LO + l.y * INV_LNB));
}"""
_FLOAT_HELPERS.update({f"log{b}_T": _LOG_BASE.replace("B", b) for b in ("2", "10")})

_TYPED_HELPERS: dict = {"f32": {}, "f64": {}}

# -- subnormals and correctly rounded division / square root ------------------------------
# NVIDIA's Vulkan driver flushes float32 subnormals to zero in every arithmetic operation
# and comparison (-x and abs(x) included; only loads, stores, select and bitcasts keep
# them), and its float32 division and sqrt are within 2.5 / 1 ULP (both allowed by
# WebGPU). float64 keeps subnormals there and divides and takes square roots correctly
# rounded. So numr classifies float32 values by their bits, never lets arithmetic touch a
# subnormal (it rescales by exponent arithmetic on the bits, or returns x where f(x)
# rounds to x), builds subnormal results by integer rounding, and corrects the quotient
# and the root from exact residuals: the same WGSL gives the same bits on lavapipe
# (which keeps subnormals) and on NVIDIA.
_FLOAT_HELPERS.update({
    "absb_T": "fn absb_T(x: T) -> T { return bitcast<T>(bitcast<U>(x) & ABS); }",
    "negb_T": "fn negb_T(x: T) -> T { return bitcast<T>(bitcast<U>(x) ^ SIGN); }",
    # NumPy: sign(+-0) = +0, sign(nan) = nan; a subnormal counts as nonzero.
    "sign_T": """fn sign_T(x: T) -> T {
  let u = bitcast<U>(x) & ABS;
  if (u > EXPO) { return x; }
  return select(copysign_T(T(1.0), x), T(0.0), u == U(0));
}""",
    # |x| < 2^-26 (f32) / 2^-55 (f64) by bits, subnormals included: there every f with
    # f(x) = x (1 + O(x)) rounds to x (asin, atan, sinh, tanh, asinh, atanh, expm1,
    # log1p), so those return x itself.
    "tiny_T": "fn tiny_T(x: T) -> bool { return (bitcast<U>(x) & ABS) < TINY_X; }",
    # Halves to even: a - floor(a) is exact; the sign of a zero result is a's.
    "round_T": "fn round_T(a: T) -> T { let t = floor(a); let d = a - t; "
               "let odd = t - T(2.0) * floor(T(0.5) * t) != T(0.0); "
               "let r = select(t, t + T(1.0), d > T(0.5) || (d == T(0.5) && odd)); "
               "return copysign_T(select(r, a, isinf_T(a) || isnan_T(a)), a); }",
    # v * 2^k for v >= 0 finite (subnormal included), the result normal: exact, by bits.
    "ldexpb_T": "fn ldexpb_T(v: T, k: i32) -> T { return ldexp(v, k); }",
    # v * 2^k rounded once, v normal (or 0, inf, nan); lo: the rest of v (v + lo, |lo| <
    # ulp(v)), deciding the rounding of a subnormal result where v falls on a tie.
    "scaledd_T": "fn scaledd_T(v: T, lo: T, k: i32) -> T { return scale_T(v, k); }",
    # Division and square root, correctly rounded (float64's built-ins are).
    "div_T": "fn div_T(a: T, b: T) -> T { return a / b; }",
    "sqrt_T": "fn sqrt_T(x: T) -> T { return sqrt(x); }",
    # a / b for normal a, b with a normal quotient, |b| < 2^126 (f32): within 0.5 ULP
    # and a hair (one correction from the exact residual).
    "divr_T": "fn divr_T(a: T, b: T) -> T { return a / b; }",
})

_TYPED_HELPERS["f32"].update({
    "ldexpb_T": """fn ldexpb_T(v: T, k: i32) -> T {
  if ((bitcast<u32>(v) & 0x7fffffffu) == 0u) { return v; }
  let fr = frexp1_T(v);
  return bitcast<f32>(bitcast<u32>(fr.x) + bitcast<u32>((i32(fr.y) + k) << 23u));
}""",
    # m 2^-sh (m < 2^24) rounded to nearest even, dir the sign of what lies below m's
    # last bit (0: nothing).
    "rshift_round_T": """fn rshift_round_T(m: u32, sh0: u32, dir: i32) -> u32 {
  let sh = min(sh0, 25u);
  let q = m >> sh;
  let rem = m & ((1u << sh) - 1u);
  let half = 1u << (sh - 1u);
  let up = rem > half || (rem == half && (dir > 0 || (dir == 0 && (q & 1u) == 1u)));
  return q + select(0u, 1u, up);
}""",
    "scale_T": "fn scale_T(v: T, k: i32) -> T { return scaledd_T(v, T(0.0), k); }",
    "scaledd_T": """fn scaledd_T(v: T, lo: T, k: i32) -> T {
  let u = bitcast<u32>(v);
  let ev = i32((u >> 23u) & 0xffu);
  if (ev == 0 || ev == 255) { return v; }
  let ne = ev + k;
  let sg = u & 0x80000000u;
  if (ne >= 255) { return bitcast<f32>(sg | 0x7f800000u); }
  if (ne >= 1) { return bitcast<f32>(u + bitcast<u32>(k << 23u)); }
  let lb = bitcast<u32>(lo);
  var dir = 0;
  if ((lb & 0x7fffffffu) != 0u) { dir = select(-1, 1, (lb & 0x80000000u) == sg); }
  let r = rshift_round_T((u & 0x7fffffu) | 0x800000u, u32(1 - ne), dir);
  return bitcast<f32>(sg | r);
}""",
    # a / b for finite nonzero a, b: the mantissas' quotient q in [1/2, 2) from the
    # driver's division, one Newton correction (faithful then), then the exact residual
    # r = fa - q fb (representable for a faithful q: Boldo & Daumas) against the half
    # gaps to the neighbours decides the rounding; the exponent is put back by bits, a
    # subnormal quotient rounded by integers (the residual's sign breaks its ties).
    "divcore_T": """fn divcore_T(xa: u32, xb: u32, sg: u32) -> f32 {
  let na = frexp1_T(bitcast<f32>(xa));
  let nb = frexp1_T(bitcast<f32>(xb));
  let fa = na.x;
  let fb = nb.x;
  let q0 = fence_T(fa / fb);
  let p0 = two_prod_T(q0, fb);
  let q1 = fence_T(q0 + fence_T(fence_T(fa - p0.x) - p0.y) / fb);
  let p1 = two_prod_T(q1, fb);
  let r1 = fence_T(fence_T(fa - p1.x) - p1.y);
  let u1 = bitcast<u32>(q1);
  let up = bitcast<f32>(u1 + 1u);
  let dn = bitcast<f32>(u1 - 1u);
  var q = q1;
  var dir = select(select(0, -1, r1 < 0.0), 1, r1 > 0.0);
  if (2.0 * r1 > fence_T(up - q1) * fb) { q = up; dir = -1; }
  else if (-2.0 * r1 > fence_T(q1 - dn) * fb) { q = dn; dir = 1; }
  let uq = bitcast<u32>(q);
  let e = i32(na.y) - i32(nb.y) + i32((uq >> 23u) & 0xffu);
  if (e >= 255) { return bitcast<f32>(sg | 0x7f800000u); }
  if (e >= 1) { return bitcast<f32>(sg | ((uq & 0x7fffffu) | (u32(e) << 23u))); }
  let r = rshift_round_T((uq & 0x7fffffu) | 0x800000u, u32(1 - e), dir);
  return bitcast<f32>(sg | r);
}""",
    "div_T": """fn div_T(a: T, b: T) -> T {
  let ua = bitcast<u32>(a);
  let ub = bitcast<u32>(b);
  let sg = (ua ^ ub) & 0x80000000u;
  let xa = ua & 0x7fffffffu;
  let xb = ub & 0x7fffffffu;
  if (xa - 1u < 0x7f7fffffu && xb - 1u < 0x7f7fffffu) { return divcore_T(xa, xb, sg); }
  if (xa > 0x7f800000u || xb > 0x7f800000u || xa == xb) { return nan_T(); }
  if (xa == 0x7f800000u || xb == 0u) { return bitcast<f32>(sg | 0x7f800000u); }
  return bitcast<f32>(sg);
}""",
    # F = f 2^48 against M^2 (M odd, 25 bits; f = fm 2^-23, or fm 2^-22 where odd): 1
    # if F > M^2, else -1 (never equal), in 32-bit integer limbs (f32 kernels must not
    # need shader-int64).
    "sqcmp_T": """fn sqcmp_T(fm: u32, odd: bool, m: u32) -> i32 {
  let mh = m >> 13u;
  let ml = m & 0x1fffu;
  let c = 2u * mh * ml;
  let l0 = ml * ml + ((c & 0x1fffu) << 13u);
  let h = mh * mh + (c >> 13u) + (l0 >> 26u);
  let l = l0 & 0x3ffffffu;
  let hf = select(fm >> 1u, fm, odd);
  let lf = select((fm & 1u) << 25u, 0u, odd);
  if (hf != h) { return select(-1, 1, hf > h); }
  return select(-1, 1, lf > l);
}""",
    # sqrt(x) = sqrt(f) 2^(e/2), f in [1, 4) built from the bits (subnormals too): the
    # driver's root, one Newton correction, then the root S (24-bit integer) moves to a
    # neighbour where f lies beyond the midpoint (2S +- 1)^2, compared exactly in integers.
    "sqrt_T": """fn sqrt_T(x: T) -> T {
  let u = bitcast<u32>(x);
  if (u >= 0x7f800000u || u == 0u) {
    if (u <= 0x7f800000u || u == 0x80000000u) { return x; }
    return nan_T();
  }
  let fr = frexp1_T(x);
  let e = i32(fr.y);
  let odd = (e & 1) == 1;
  let f = select(fr.x, fr.x * 2.0, odd);
  let s0 = fence_T(sqrt(f));
  let p0 = two_prod_T(s0, s0);
  let s1 = fence_T(s0 + fence_T(fence_T(f - p0.x) - p0.y) / (2.0 * s0));
  let sc = clamp(s1, 1.0, 1.99999988079071044921875);
  let S = (bitcast<u32>(sc) & 0x7fffffu) | 0x800000u;
  let fm = (bitcast<u32>(fr.x) & 0x7fffffu) | 0x800000u;
  var r = S;
  if (sqcmp_T(fm, odd, 2u * S + 1u) > 0) { r = S + 1u; }
  else if (S > 0x800000u && sqcmp_T(fm, odd, 2u * S - 1u) < 0) { r = S - 1u; }
  return bitcast<f32>((0x3f800000u | (r & 0x7fffffu)) + bitcast<u32>((e >> 1u) << 23u));
}""",
    "divr_T": """fn divr_T(a: T, b: T) -> T {
  let q = fence_T(a / b);
  let p = two_prod_T(q, b);
  return q + fence_T(fence_T(a - p.x) - p.y) / b;
}""",
})

# float64 keeps a fence of 64-bit operations on the value alone (a compare with a
# reserved NaN, whose one payload changes, and an xor): a float64 fence that reads the
# parameter word in any form (or-ed or xor-ed in as u64, added as a float, a select on
# it) broke fused float64 kernels on lavapipe (asin(sqrt(x)) gave 1e-308: a high word
# lost), and naga has no f64 <-> vec2<u32> bitcast to keep it to 32 bits.
_TYPED_HELPERS["f64"]["fence_T"] = """fn fence_T(v: T) -> T {
  let u = bitcast<U>(v);
  return bitcast<T>(u ^ U(u == FENCE));
}"""

# |v| = m * 2^e with m in [1, 2), as vec2(m, e), for finite v != 0 (by bits; see logdd_T;
# float32 subnormals normalised by their leading zeros, float64 ones scaled by 2^54).
_TYPED_HELPERS["f32"]["powlog_T"] = "fn powlog_T(x: T) -> vec2<T> { return logw_T(x); }"
_TYPED_HELPERS["f32"]["frexp1_T"] = """fn frexp1_T(v: T) -> vec2<T> {
  let u = bitcast<u32>(v) & 0x7fffffffu;
  if (u < 0x800000u) {
    let s = countLeadingZeros(u) - 8u;
    return vec2<f32>(bitcast<f32>(((u << s) & 0x7fffffu) | 0x3f800000u), f32(-126 - i32(s)));
  }
  let m = bitcast<f32>((u & 0x7fffffu) | 0x3f800000u);
  return vec2<f32>(m, f32(i32(u >> 23u) - 127));
}"""
_TYPED_HELPERS["f64"]["frexp1_T"] = """fn frexp1_T(v0: T) -> vec2<T> {
  var v = abs(v0);
  var e0 = f64(0.0);
  if (v < TINY) { v = v * SCALE_UP; e0 = -f64(SCALE_EXP); }
  let u = bitcast<u64>(v);
  let m = bitcast<f64>((u & 0xffffffffffffflu) | 0x3ff0000000000000lu);
  return vec2<f64>(m, f64(i32((u >> 52u) & 0x7fflu) - 1023) + e0);
}"""

_INT_HELPERS = {
    # Python's floor division and modulo; division by zero gives 0, as NumPy.
    "floor_divide_T": """fn floor_divide_T(x: T, y: T) -> T {
  if (y == T(0)) { return T(0); }
  var q = x / y;
  // (x ^ y) < 0: the signs of x and y differ
  if (SIGNED && (x - q * y) != T(0) && ((x ^ y) < T(0))) { q = q - T(1); }
  return q;
}""",
    "remainder_T": """fn remainder_T(x: T, y: T) -> T {
  if (y == T(0)) { return T(0); }
  // Note: x - (x / y) * y, not x % y: NVIDIA's Vulkan driver computed signed % wrongly
  // for negative x (-128 % 3 gave -1), while / is right.
  var r = x - (x / y) * y;
  if (SIGNED && r != T(0) && ((r ^ y) < T(0))) { r = r + y; }
  return r;
}""",
    # Exponentiation by squaring; a negative exponent gives 0 (numr refuses it first
    # where it can see it).
    "ipow_T": """fn ipow_T(x: T, y: T) -> T {
  var r = T(1); var base = x; var e = y;
  if (e < T(0)) { return select(T(0), T(1), x == T(1)); }
  loop { if (e == T(0)) { break; } if ((e & T(1)) != T(0)) { r = r * base; }
         base = base * base; e = e >> 1u; }
  return r;
}""",
}

# Reduction of huge f64 trig arguments (Payne-Hanek): x = M 2^e with M a 53-bit integer
# times the 256 bits of 2/pi that matter for that e (the bits of higher weight give
# multiples of 4, the ones below stay under 2^-170 of the result); the product's bits
# around its binary point give the quadrant and the reduced argument (128 bits).
_TYPED_HELPERS["f64"]["rempio2big_T"] = """const TWO_OVER_PI_TAB = array<u32, 38>(TWO_OVER_PI_WORDS);
fn rempio2big_T(x: T) -> vec3<T> {
  let bits = bitcast<U>(x);
  let ex = i32((bits >> 52u) & U(0x7ff)) - 1075;
  let m = (bits & U(0xfffffffffffff)) | U(0x10000000000000);
  let ml = m & U(0xffffffff);
  let mh = m >> 32u;
  let i0 = max(0, (ex - 2) / 32);
  var p: array<u32, 11>;
  var carry = U(0);
  for (var k = 0; k < 8; k++) {
    let t = ml * U(TWO_OVER_PI_TAB[i0 + 7 - k]) + carry;
    p[k] = u32(t & U(0xffffffff));
    carry = t >> 32u;
  }
  p[8] = u32(carry);
  carry = U(0);
  for (var k = 0; k < 8; k++) {
    let t = mh * U(TWO_OVER_PI_TAB[i0 + 7 - k]) + U(p[k + 1]) + carry;
    p[k + 1] = u32(t & U(0xffffffff));
    carry = t >> 32u;
  }
  p[9] = u32(carry);
  p[10] = 0u;
  let s = 32 * (i0 + 8) - ex;
  var w: array<u32, 5>;
  for (var k = 0; k < 5; k++) {
    let b = s - 128 + 32 * k;
    let lw = b >> 5u;
    w[k] = u32(((U(p[lw]) | (U(p[lw + 1]) << 32u)) >> u32(b & 31)) & U(0xffffffff));
  }
  var q = i32(w[4] & 3u);
  var lo = (U(w[1]) << 32u) | U(w[0]);
  var hi = (U(w[3]) << 32u) | U(w[2]);
  var neg = false;
  if (w[3] >= 0x80000000u) {
    q = q + 1; neg = true;
    hi = ~hi + select(U(0), U(1), lo == U(0));
    lo = ~lo + U(1);
  }
  let f = two_sum_T(T(u32(hi >> 32u)) * T(2.3283064365386963e-10),
                    T(u32(hi & U(0xffffffff))) * T(5.421010862427522e-20));
  let fl = f.y + (T(u32(lo >> 32u)) * T(1.2621774483536189e-29)
                  + T(u32(lo & U(0xffffffff))) * T(2.938735877055719e-39));
  let g = two_sum_T(f.x, fl);
  let pr = two_prod_T(g.x, PIO2);
  var r = two_sum_T(pr.x, pr.y + (g.x * PIO2_LO + g.y * PIO2));
  if (neg != (x < T(0.0))) { r = -r; }
  if (x < T(0.0)) { q = -q; }
  return vec3<T>(r.x, r.y, T(q));
}"""


# The same for f32 with 32-bit integers only (f32 kernels must not need shader-int64):
# x = M 2^e, M of 24 bits, times 128 bits of 2/pi, in base-2^16 digits so that every
# partial product fits 32 bits; 64 bits of the product's fraction.
_TYPED_HELPERS["f32"]["rempio2big_T"] = """const TWO_OVER_PI_TAB = array<u32, 8>(TWO_OVER_PI_WORDS);
fn rempio2big_T(x: T) -> vec3<T> {
  let bits = bitcast<u32>(x);
  let ex = i32((bits >> 23u) & 0xffu) - 150;
  let m = (bits & 0x7fffffu) | 0x800000u;
  let m0 = m & 0xffffu;
  let m1 = m >> 16u;
  let i0 = max(0, (ex - 2) / 32);
  var w: array<u32, 10>;
  for (var k = 0; k < 4; k++) {
    let word = TWO_OVER_PI_TAB[i0 + 3 - k];
    w[2 * k] = word & 0xffffu;
    w[2 * k + 1] = word >> 16u;
  }
  w[8] = 0u; w[9] = 0u;
  var p: array<u32, 12>;
  var carry = 0u;
  for (var j = 0; j < 11; j++) {
    var acc = carry;
    if (j < 8) { acc += (m0 * w[j]) & 0xffffu; }
    if (j >= 1 && j <= 8) { acc += ((m0 * w[j - 1]) >> 16u) + ((m1 * w[j - 1]) & 0xffffu); }
    if (j >= 2 && j <= 9) { acc += (m1 * w[j - 2]) >> 16u; }
    p[j] = acc & 0xffffu;
    carry = acc >> 16u;
  }
  p[11] = 0u;
  let s = 32 * (i0 + 4) - ex;
  var f: array<u32, 5>;
  for (var k = 0; k < 5; k++) {
    let b = s - 64 + 16 * k;
    let lw = b >> 4u;
    f[k] = ((p[lw] | (p[lw + 1] << 16u)) >> u32(b & 15)) & 0xffffu;
  }
  var q = i32(f[4] & 3u);
  var neg = false;
  if (f[3] >= 0x8000u) {
    q = q + 1; neg = true;
    var c = 1u;
    for (var k = 0; k < 4; k++) { let v = (~f[k] & 0xffffu) + c; f[k] = v & 0xffffu; c = v >> 16u; }
  }
  let g = two_sum_T(T(f[3]) * T(1.52587890625e-05), T(f[2]) * T(2.3283064365386963e-10));
  let gl = g.y + (T(f[1]) * T(3.552713678800501e-15) + T(f[0]) * T(5.421010862427522e-20));
  let h = two_sum_T(g.x, gl);
  let pr = two_prod_T(h.x, PIO2);
  var r = two_sum_T(pr.x, pr.y + (h.x * PIO2_LO + h.y * PIO2));
  if (neg != (x < T(0.0))) { r = -r; }
  if (x < T(0.0)) { q = -q; }
  return vec3<T>(r.x, r.y, T(q));
}"""


# High-precision values the per-type constants are rounded from.
_VALUES = {
    "PI": "3.14159265358979323846264338327950288419717",
    "PIO2": "1.57079632679489661923132169163975144209858",
    "PIO4": "0.785398163397448309615660845819875721049292",
    "TWO_OVER_PI": "0.636619772367581343075535053490057448137839",
    "LN2": "0.693147180559945309417232121458176568075500",
    "INV_LN2": "1.44269504088896340735992468100189213742665",
    "INV_LN10": "0.434294481903251827651128918916605082294397",
    "ATAN_HALF": "0.463647609000806116214256231461214402028537",
    "ATAN_1_5": "0.982793723247329067985710611014666014496877",
    "THIRD": "0.333333333333333333333333333333333333333333",
}
# Polynomial coefficients (see the helpers using them).
_ASINQ = [0.16666666666666666591, 0.075000000000001180369, 0.044642857142551232713,
          0.030381944475591982023, 0.022372157440717466903, 0.017352816617756083928,
          0.013963778636220891005, 0.011566475960553162193, 0.0096217102840624399182,
          0.0093202988175378080913, 0.0030421128033673169629, 0.019561197368064193012,
          -0.019251063609761476243, 0.029617843602788491937]
_ATANQ = [-0.33333333333333332936, 0.19999999999999403623, -0.1428571428556556215,
          0.11111111096544376077, -0.090909083514211111708, 0.076922854534793101686,
          -0.066662403891804048848, 0.058769315438208607326, -0.052165865805463731885,
          0.044918978131924465243, -0.033120205412416843754, 0.014765672579295771931]
_SIG = {"f32": 24, "f64": 53}


def _chop(v: Decimal, bits: int) -> float:
    """``v`` rounded to ``bits`` significant bits."""
    m, e = math.frexp(float(v))
    return math.ldexp(round(m * 2 ** bits), e - bits)


def _lit(v: float, ct: str) -> str:
    return f"{ct}({float(v)!r})"


# tanh's Taylor coefficients of y^3, y^5, ..., y^21: 2^2n (2^2n - 1) B_2n / (2n)!
_TANH = [-1 / 3, 2 / 15, -17 / 315, 62 / 2835, -1382 / 155925, 21844 / 6081075,
         -929569 / 638512875, 6404582 / 10854718875, -443861162 / 1856156927625,
         18888466084 / 194896477400625]


def _horner(coeffs: list, var: str, ct: str) -> str:
    text = _lit(coeffs[-1], ct)
    for c in reversed(coeffs[:-1]):
        text = f"{_lit(c, ct)} + {var} * ({text})"
    return text


def _two_over_pi_words(n: int) -> str:
    """The first ``n`` 32-bit words of the binary fraction of 2/pi (exact integers)."""
    bits = 32 * n + 64

    def arctan_inv(k: int) -> int:   # atan(1/k) * 2^bits, by its Taylor series
        total, term, j, sign = 0, (1 << bits) // k, 1, 1
        while term:
            total += sign * (term // j)
            term //= k * k
            j += 2
            sign = -sign
        return total
    pi = 16 * arctan_inv(5) - 4 * arctan_inv(239)         # Machin's formula
    frac = ((2 << (2 * bits)) // pi) >> 64                 # 2/pi * 2^(bits - 64)
    return ", ".join(f"{(frac >> (32 * (n - 1 - i))) & 0xFFFFFFFF:#x}u" for i in range(n))


def _consts(ct: str) -> dict:
    """The constants of the float helpers for compute type ``ct``."""
    sig = _SIG[ct]
    f64 = ct == "f64"
    c = {"U": "u64", "ABS": "0x7fffffffffffffffu", "EXPO": "0x7ff0000000000000u",
         "SIGN": "0x8000000000000000u", "FENCE": "0x7ff4000000000001u",
         "SPLIT": "0xfffffffff8000000u", "MANT": "0xfffffffffffffu",
         "IMPLICIT": "0x10000000000000u", "MANT_BITS": "52u", "BIAS": "1023",
         "CHUNK": "11"} if f64 else \
        {"U": "u32", "ABS": "0x7fffffffu", "EXPO": "0x7f800000u", "SIGN": "0x80000000u",
         "SPLIT": "0xfffff000u", "MANT": "0x7fffffu",
         "IMPLICIT": "0x800000u", "MANT_BITS": "23u", "BIAS": "127", "CHUNK": "8"}
    if f64:  # naga spells 64-bit literals with an 'lu' suffix
        c = {k: v[:-1] + "lu" if v.startswith("0x") else v for k, v in c.items()}
    with localcontext() as ctx:
        ctx.prec = 60
        for name, text in _VALUES.items():   # NAME = v rounded, NAME_LO = the rest
            v = Decimal(text)
            hi = _chop(v, sig)
            c[name] = _lit(hi, ct)
            c[name + "_LO"] = _lit(_chop(v - Decimal(hi), sig), ct)
        ln2 = Decimal(_VALUES["LN2"])        # Cody-Waite: k * LN2_C1 exact for |k| < 2^11
        c1 = _chop(ln2, sig - 11)
        c["LN2_C1"] = _lit(c1, ct)
        c2 = _chop(ln2 - Decimal(c1), sig)
        c["LN2_C2"] = _lit(c2, ct)
        c["LN2_C3"] = _lit(_chop(ln2 - Decimal(c1) - Decimal(c2), sig), ct)
        c2 = _chop(ln2 - Decimal(c1), sig - 11)   # the log's: e * LOG_C2 exact too
        c["LOG_C2"] = _lit(c2, ct)
        c["LOG_C3"] = _lit(_chop(ln2 - Decimal(c1) - Decimal(c2), sig), ct)
        horner = []                          # e^r = sum r^n / n!, 1/n! as hi + lo
        for n in range(14, -1, -1):
            v = 1 / Decimal(math.factorial(n))
            hi = _chop(v, sig)
            term = f"vec2<{ct}>({_lit(hi, ct)}, {_lit(_chop(v - Decimal(hi), sig), ct)})"
            horner.append(f"var e = {term};" if n == 14 else
                          f"e = ddadd_{ct}(ddmul_{ct}(e, r), {term});")
        c["EXPDW_HORNER"] = "\n  ".join(horner)
        rest = Decimal(_VALUES["PIO2"])      # pi/2 in 3 short parts + 1 (rempio2_T)
        for k in range(1, 5):
            part = _chop(rest, (33 if f64 else 12) if k < 4 else sig)
            c[f"PIO2_{k}"] = _lit(part, ct)
            rest -= Decimal(part)
        pick = [f"var lc = vec2<{ct}>({ct}(0.0), {ct}(0.0));"]
        for j in (6, 7, 9, 10, 11):         # log(j / 8) as hi + lo (logdd_T)
            v = (Decimal(j) / 8).ln()
            hi = _chop(v, sig)
            pick.append(f"if (j == {j}) {{ lc = vec2<{ct}>({_lit(hi, ct)}, "
                        f"{_lit(_chop(v - Decimal(hi), sig), ct)}); }}")
        c["LOGC_SELECT"] = "\n  ".join(pick)
    # (e^r - 1 - r) / r^2 to r^12 (f64) / r^8 (f32): |r| <= ln2/2 leaves < 2^-55 / 2^-33
    fact = [1 / math.factorial(n) for n in range(2, 15 if f64 else 11)]
    c["FENCE_WORD"] = FENCE_WORD
    c["EXPQ"] = _horner(fact, "r", ct)
    # expm1's series to |r| = 1/2: terms to r^15 / 18! (f64), r^8 / 11! (f32)
    c["EXPQ1"] = _horner([1 / math.factorial(n) for n in range(3, 19 if f64 else 12)], "r", ct)
    # sin r = r + r z SINQ(z), cos r = 1 - z/2 + z^2 COSQ(z), z = r^2 <= (pi/4)^2: the
    # first term dropped is below 2^-72 (f64: 9 terms) / 2^-36 (f32: 5) of the result
    c["SINQ"] = _horner([(-1) ** (n + 1) / math.factorial(2 * n + 3)
                         for n in range(9 if f64 else 5)], "z", ct)
    c["COSQ"] = _horner([(-1) ** n / math.factorial(2 * n + 4)
                         for n in range(9 if f64 else 5)], "z", ct)
    c["ASINQ"] = _horner(_ASINQ, "z", ct)
    c["ATANQ"] = _horner(_ATANQ, "z", ct)
    # sinh(y) = y + y^3 S(y^2), S = sum z^k / (2k + 3)!, |y| < 1 (next term < 2^-56 / 2^-32)
    c["SINHQ"] = _horner([1 / math.factorial(2 * k + 3) for k in range(9 if f64 else 6)],
                         "z", ct)
    # atanh(y) = y + y^3 A(y^2), A = sum z^k / (2k + 3), |y| < 1/4
    c["ATANHS"] = _horner([1 / (2 * k + 3) for k in range(14 if f64 else 7)], "z", ct)
    # tanh(y) = y + y^3 T(y^2), |y| < 1/4: Taylor coefficients (Bernoulli numbers; next
    # term < 2^-58 / 2^-32 of y)
    c["TANHQ"] = _horner(_TANH[:10 if f64 else 5], "z", ct)
    c["ATANHQ"] = _horner([1 / (2 * k + 5) for k in range(8)], "z.x", ct)  # (P - 1/3) / z
    # log_T's P(z) = (atanh(s) - s) / s^3, z = s^2 <= 0.002: 3 terms leave < 2^-29 of P
    # (f32), 9 < 2^-80 (f64)
    c["LOGR_P"] = _horner([1 / (2 * k + 3) for k in range(3 if ct == "f32" else 9)], "z", ct)
    if f64:
        c.update(EXP_HI=_lit(709.782712893384, ct), EXP_LO=_lit(-745.1332191019412, ct),
                 EXPM1_BIG=_lit(40.0, ct), SIG_BITS="53", EMAX="1023", EMIN="-1022",
                 TINY_X="0x3c80000000000000lu", HYP_TINY="0lu",
                 TINY=_lit(2.0 ** -1022, ct), SCALE_UP=_lit(2.0 ** 54, ct),
                 SCALE_EXP="54", POW_SAT=_lit(1500.0, ct), RED_BIG=_lit(1647099.0, ct),
                 TWO_OVER_PI_WORDS=_two_over_pi_words(38))
    else:
        c.update(EXP_HI=_lit(88.72283935546875, ct), EXP_LO=_lit(-103.97208404541016, ct),
                 EXPM1_BIG=_lit(18.0, ct), SIG_BITS="24", EMAX="127", EMIN="-126",
                 TINY_X="0x32800000u", HYP_TINY="0x21800000u",
                 TINY=_lit(2.0 ** -126, ct), SCALE_UP=_lit(2.0 ** 24, ct),
                 SCALE_EXP="24", POW_SAT=_lit(200.0, ct), RED_BIG=_lit(6400.0, ct),
                 TWO_OVER_PI_WORDS=_two_over_pi_words(8))
    return c


_CONSTS = {ct: _consts(ct) for ct in ("f32", "f64")}

_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


# nextafter of the 16-bit floats, computed in f32 registers: one step of the 16-bit
# pattern (a float32 step would round back to the same value). bfloat16's pattern is
# the top half of the float32's, so its step is 0x10000 there; float16's goes through
# pack2x16float. Only for T = f32 (the compute type of both).
_FLOAT_HELPERS.update({
    "nextbf16_T": """fn nextbf16_T(x: T, y: T) -> T {
  if (isnan_T(x) || isnan_T(y)) { return x + y; }
  if (x == y) { return y; }
  if (x == T(0.0)) { return copysign_T(bitcast<T>(0x10000u), y); }
  let up = (y > x) == (x > T(0.0));
  let u = bitcast<u32>(x);
  return bitcast<T>(select(u - 0x10000u, u + 0x10000u, up));
}""",
    "nexthalf_T": """fn nexthalf_T(x: T, y: T) -> T {
  if (isnan_T(x) || isnan_T(y)) { return x + y; }
  if (x == y) { return y; }
  let s = select(0u, 0x8000u, (bitcast<u32>(y) & 0x80000000u) != 0u);
  if (x == T(0.0)) { return unpack2x16float(s | 1u).x; }
  let up = (y > x) == (x > T(0.0));
  let u = pack2x16float(vec2<f32>(x, 0.0)) & 0xffffu;
  return unpack2x16float(select(u - 1u, u + 1u, up)).x;
}""",
})
NEXTAFTER16 = {"bfloat16": "nextbf16_f32(a, b)", "float16": "nexthalf_f32(a, b)"}


def expression(op: str, kind: str, ct: str) -> str | None:
    """The WGSL expression of ``op`` for operands of kind ``kind`` ('b', 'i', 'u', 'f')
    and compute type ``ct``; None where numr has no such op for the kind."""
    if kind == "f":
        e = FLOAT_UNARY.get(op) or FLOAT_BINARY.get(op)
    elif kind == "b":
        e = BOOL_UNARY.get(op) or BOOL_BINARY.get(op)
    else:
        e = (UINT_OVERRIDES.get(op) if kind == "u" else None) or INT_UNARY.get(op) \
            or INT_BINARY.get(op)
    if e is None:
        return None
    return _specialise(e, ct)


def _specialise(text: str, ct: str) -> str:
    bits = {"i32": 32, "u32": 32, "i64": 64, "u64": 64}.get(ct, 32)
    text = re.sub(r"\bBITS\b", f"{bits}u", re.sub(r"_T\b", f"_{ct}", text))
    text = text.replace("SIGNED", "true" if ct[0] == "i" else "false")
    return re.sub(r"\bT\b", ct, text)


def helpers(code: str, ct: str) -> str:
    """The helper functions that ``code`` calls (recursively), specialised to ``ct``."""
    table = _FLOAT_HELPERS if ct[0] == "f" else _INT_HELPERS
    consts = _CONSTS.get(ct, {})
    typed = _TYPED_HELPERS.get(ct, {})
    done: dict[str, str] = {}

    def visit(text: str) -> None:
        for w in set(_WORD.findall(text)):
            if w.endswith("_" + ct):
                base = w[: -len(ct)] + "T"
                src = typed.get(base) or table.get(base)
                if src is not None and base not in done:
                    body = _specialise(src, ct)
                    for k, v in consts.items():
                        body = re.sub(rf"\b{k}\b", v, body)
                    done[base] = body
                    visit(body)

    visit(code)
    return "\n".join(done.values())


def add_helpers(texts: dict[str, str], ct: str | None = None) -> None:
    """Add float helpers (``name_T`` -> WGSL text written for T = f32 / f64, using the
    constants of ``_consts``) that :func:`helpers` then finds by name like its own;
    for kernels of other modules (complex functions over these real ones). With ``ct``
    ("f32" / "f64") they serve that compute type only, in place of the generic text."""
    for name, text in texts.items():
        if not name.endswith("_T"):
            raise ValueError(f"helper names end in _T: {name!r}")
        if ct is None:
            _FLOAT_HELPERS[name] = text
        else:
            _TYPED_HELPERS[ct][name] = text
