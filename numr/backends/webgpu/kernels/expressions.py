"""The WGSL expression of every elementwise op of numr._elementwise's tables, per kind.

An expression reads operands ``a`` and ``b`` (compute type ``T``) and gives the result
in the result's compute type. Float expressions call helpers (``isnan_T``, ``expm1_T``)
written once for ``T`` = f32 / f64; :func:`helpers` pulls in the ones a kernel uses.

Note on accuracy: WGSL's built-in exp/log/sin/... have loose guarantees, so functions
whose textbook formulas lose digits (expm1, log1p, sinh, tanh, asinh, acosh, atanh,
hypot, logaddexp) use cancellation-free forms; the bounds measured on each adapter are
asserted by tests/test_webgpu.py and listed in the README.
"""

from __future__ import annotations

import re

# Ops that need WGSL built-ins SPIR-V has only for 16/32-bit floats (GLSL.std.450):
# in float64 they are a gap until numr has its own f64 implementations.
F64_GAPS = frozenset({
    "acos", "acosh", "asin", "asinh", "atan", "atanh", "cos", "cosh", "exp", "expm1",
    "log", "log1p", "log2", "log10", "sin", "sinh", "tan", "tanh", "atan2", "logaddexp",
    "pow"})

# Float expressions (T: f32 or f64). ``_T`` suffixes are replaced with the type.
FLOAT_UNARY = {
    "abs": "abs(a)", "acos": "acos(a)", "asin": "asin(a)", "atan": "atan(a)",
    "acosh": "acosh_T(a)", "asinh": "asinh_T(a)", "atanh": "atanh_T(a)",
    "ceil": "ceil(a)", "floor": "floor(a)", "trunc": "trunc(a)", "round": "round(a)",
    "conj": "a", "positive": "a", "real": "a", "imag": "T(0.0)",
    "cos": "cos(a)", "sin": "sin(a)", "tan": "tan(a)",
    "cosh": "cosh_T(a)", "sinh": "sinh_T(a)", "tanh": "tanh_T(a)",
    "exp": "xexp_T(a)", "expm1": "expm1_T(a)", "log": "xlog_T(a)", "log1p": "log1p_T(a)",
    "log2": "log2_T(a)", "log10": "log10_T(a)",
    "isfinite": "!isinf_T(a) && !isnan_T(a)", "isinf": "isinf_T(a)", "isnan": "isnan_T(a)",
    "negative": "-a", "reciprocal": "T(1.0) / a",
    "sign": "select(select(a, T(-1.0), a < T(0.0)), T(1.0), a > T(0.0))",
    "signbit": "signbit_T(a)", "square": "a * a", "sqrt": "sqrt(a)",
}
FLOAT_BINARY = {
    "add": "a + b", "subtract": "a - b", "multiply": "a * b", "divide": "a / b",
    "atan2": "atan2(a, b)", "copysign": "copysign_T(a, b)",
    "equal": "a == b", "not_equal": "a != b", "less": "a < b", "less_equal": "a <= b",
    "greater": "a > b", "greater_equal": "a >= b",
    "floor_divide": "floor_divide_T(a, b)", "remainder": "remainder_T(a, b)",
    "hypot": "hypot_T(a, b)", "logaddexp": "logaddexp_T(a, b)",
    "maximum": "select(select(b, a, a >= b), a + b, isnan_T(a) || isnan_T(b))",
    "minimum": "select(select(b, a, a <= b), a + b, isnan_T(a) || isnan_T(b))",
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

# Helpers: name -> WGSL text, with T (float type), U (same-size unsigned), constants.
_FLOAT_HELPERS = {
    # exp and log of numr's own (WGSL's built-ins are off by tens to thousands of ULP
    # on some drivers, lavapipe included): Cody-Waite reduction by ln 2 in two parts,
    # then Taylor polynomials on the reduced range.
    "xexp_T": """fn xexp_T(x: T) -> T {
  if (isnan_T(x)) { return x; }
  if (x > T(88.72284)) { return bitcast<T>(EXPO); }
  if (x < T(-103.98)) { return T(0.0); }
  let k = round(x * T(1.4426950408889634));
  let r = (x - k * T(0.693145751953125)) - k * T(1.4286068203094172e-06);
  let p = T(1.0) + r * (T(1.0) + r * (T(0.5) + r * (T(0.16666666666666666) + r * (T(0.041666666666666664)
          + r * (T(0.008333333333333333) + r * (T(0.001388888888888889) + r * T(0.0001984126984126984)))))));
  let ki = i32(k);
  if (ki < -125) { return ldexp(ldexp(p, ki + 64), -64); }
  if (ki > 127) { return ldexp(ldexp(p, ki - 1), 1); }
  return ldexp(p, ki);
}""",
    # log(x) = e ln 2 + log(1 + f), f in [-0.29, 0.41], log(1 + f) = f - f^2/2 + s (f^2/2 + R)
    # with s = f / (2 + f) and R the atanh series of s.
    "xlog_T": """fn xlog_T(x: T) -> T {
  if (isnan_T(x) || x < T(0.0)) { return bitcast<T>(EXPO | U(1)); }
  if (x == T(0.0)) { return -bitcast<T>(EXPO); }
  if (isinf_T(x)) { return x; }
  let fr = frexp(x);
  var m = fr.fract; var e = fr.exp;
  if (m < T(0.70710678118654752)) { m = m * T(2.0); e = e - 1; }
  let ef = T(e);
  return ef * T(0.693145751953125) + (log1pcore_T(m - T(1.0)) + ef * T(1.4286068203094172e-06));
}""",
    "log2_T": "fn log2_T(x: T) -> T { return xlog_T(x) * T(1.4426950408889634); }",
    "isnan_T": "fn isnan_T(x: T) -> bool { return (bitcast<U>(x) & ABS) > EXPO; }",
    "isinf_T": "fn isinf_T(x: T) -> bool { return (bitcast<U>(x) & ABS) == EXPO; }",
    "signbit_T": "fn signbit_T(x: T) -> bool { return (bitcast<U>(x) & SIGN) != U(0); }",
    "copysign_T": "fn copysign_T(x: T, y: T) -> T { "
                  "return bitcast<T>((bitcast<U>(x) & ABS) | (bitcast<U>(y) & SIGN)); }",
    # Kahan: exp(x) - 1 = (u - 1) * x / log(u), exact cancellation near 0.
    "expm1_T": """fn expm1_T(x: T) -> T {
  let u = xexp_T(x);
  if (u == T(1.0)) { return x; }
  let um1 = u - T(1.0);
  if (um1 == T(-1.0)) { return T(-1.0); }
  if (isinf_T(u)) { return u; }
  return um1 * x / xlog_T(u);
}""",
    # Goldberg: log(1 + x) = log(u) * x / (u - 1), u = 1 + x rounded.
    # Near 0 the series core directly (no 1 + x to round); further out 1 + x is
    # exact (x < 0) or its rounding costs under an ULP of the result.
    # Note: compensated forms (x - (u - 1)) are folded away by drivers that
    # reassociate, lavapipe included, so none are used.
    "log1p_T": """fn log1p_T(x: T) -> T {
  if (abs(x) < T(0.29)) { return log1pcore_T(x); }
  return xlog_T(T(1.0) + x);
}""",
    "log1pcore_T": """fn log1pcore_T(f: T) -> T {
  let s = f / (T(2.0) + f);
  let z = s * s;
  let R = z * (T(0.6666666666666666) + z * (T(0.4) + z * (T(0.2857142857142857) + z * (T(0.2222222222222222) + z * T(0.18181818181818182)))));
  let hf = T(0.5) * f * f;
  return f - hf + s * (hf + R);
}""",
    "log10_T": "fn log10_T(x: T) -> T { return xlog_T(x) * T(0.43429448190325182765); }",
    "sinh_T": """fn sinh_T(x: T) -> T {
  let y = abs(x);
  var r: T;
  if (y < T(1.0)) { let e = expm1_T(y); r = T(0.5) * (e + e / (e + T(1.0))); }
  else { let h = xexp_T(y * T(0.5)); r = (T(0.5) * h) * h - T(0.5) / (h * h); }
  return copysign_T(r, x);
}""",
    "cosh_T": """fn cosh_T(x: T) -> T {
  let h = xexp_T(abs(x) * T(0.5));
  return (T(0.5) * h) * h + T(0.5) / (h * h);
}""",
    "tanh_T": """fn tanh_T(x: T) -> T {
  let y = abs(x);
  var r: T;
  if (y > T(22.0)) { r = T(1.0); }
  else { let e = expm1_T(T(2.0) * y); r = e / (e + T(2.0)); }
  return select(copysign_T(r, x), x, isnan_T(x));
}""",
    "asinh_T": """fn asinh_T(x: T) -> T {
  let y = abs(x);
  var r: T;
  if (y > T(1e18)) { r = xlog_T(y) + T(0.69314718055994530942); }
  else { let y2 = y * y; r = log1p_T(y + y2 / (T(1.0) + sqrt(T(1.0) + y2))); }
  return select(copysign_T(r, x), x, isnan_T(x) || isinf_T(x));
}""",
    "acosh_T": """fn acosh_T(x: T) -> T {
  if (x > T(1e18)) { return select(xlog_T(x) + T(0.69314718055994530942), x, isinf_T(x)); }
  let t = x - T(1.0);
  return log1p_T(t + sqrt(t * (x + T(1.0))));
}""",
    "atanh_T": """fn atanh_T(x: T) -> T {
  let y = abs(x);
  return copysign_T(T(0.5) * log1p_T(T(2.0) * y / (T(1.0) - y)), x);
}""",
    # Scaled so that neither square overflows nor underflows.
    "hypot_T": """fn hypot_T(x: T, y: T) -> T {
  let a = abs(x); let b = abs(y);
  if (isinf_T(a) || isinf_T(b)) { return bitcast<T>(EXPO); }
  if (isnan_T(a) || isnan_T(b)) { return a + b; }
  let m = max(a, b); let n = min(a, b);
  if (m == T(0.0)) { return m; }
  let r = n / m;
  return m * sqrt(T(1.0) + r * r);
}""",
    "logaddexp_T": """fn logaddexp_T(x: T, y: T) -> T {
  if (x == y) { return x + T(0.69314718055994530942); }
  let d = x - y;
  if (isnan_T(d)) { return d; }
  return max(x, y) + log1p_T(xexp_T(-abs(d)));
}""",
    # NumPy's float remainder/floor_divide (npy_divmod), with WGSL's % as fmod.
    # Note: WGSL defines float % as x - y * trunc(x / y), which loses digits once
    # |x / y| exceeds 2**24 (f32); exact fmod is a later session's work.
    "remainder_T": """fn remainder_T(x: T, y: T) -> T {
  var m = x % y;
  if (isinf_T(y) && !isinf_T(x) && !isnan_T(x)) { m = x; }
  if (m != T(0.0)) { if ((y < T(0.0)) != (m < T(0.0))) { m = m + y; } }
  else { m = copysign_T(T(0.0), y); }
  return m;
}""",
    "floor_divide_T": """fn floor_divide_T(x: T, y: T) -> T {
  if (y == T(0.0) || isinf_T(x) || isinf_T(y) || isnan_T(x) || isnan_T(y)) {
    return select(floor(x / y), x / y, isinf_T(x) != isinf_T(y));
  }
  let m = x % y;
  var d = (x - m) / y;
  if (m != T(0.0) && ((y < T(0.0)) != (m < T(0.0)))) { d = d - T(1.0); }
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
    # pow with the C99/standard special cases WGSL's pow (exp2(y log2 x)) lacks.
    "pow_T": """fn pow_T(x: T, y: T) -> T {
  if (y == T(0.0) || x == T(1.0)) { return T(1.0); }
  if (isnan_T(x) || isnan_T(y)) { return x + y; }
  let yint = floor(y) == y && !isinf_T(y);
  let yodd = yint && abs(y) < T(9007199254740992.0) && (y * T(0.5)) != floor(y * T(0.5));
  let ax = abs(x);
  if (isinf_T(y)) {
    if (ax == T(1.0)) { return T(1.0); }
    return select(T(0.0), bitcast<T>(EXPO), (ax > T(1.0)) == (y > T(0.0)));
  }
  if (x < T(0.0) && !yint) { return bitcast<T>(EXPO | U(1)); }
  if (ax == T(0.0)) {
    let r = select(T(0.0), bitcast<T>(EXPO), y < T(0.0));
    return select(r, copysign_T(r, x), yodd);
  }
  if (isinf_T(ax)) {
    let r = select(T(0.0), bitcast<T>(EXPO), y > T(0.0));
    return select(r, copysign_T(r, x), yodd);
  }
  let r = pow(ax, y);
  return select(r, -r, x < T(0.0) && yodd);
}""",
}
_INT_HELPERS = {
    # Python's floor division and modulo; division by zero gives 0, as NumPy.
    "floor_divide_T": """fn floor_divide_T(x: T, y: T) -> T {
  if (y == T(0)) { return T(0); }
  var q = x / y;
  if (SIGNED && (x % y) != T(0) && ((x < T(0)) != (y < T(0)))) { q = q - T(1); }
  return q;
}""",
    "remainder_T": """fn remainder_T(x: T, y: T) -> T {
  if (y == T(0)) { return T(0); }
  var r = x % y;
  if (SIGNED && r != T(0) && ((r < T(0)) != (y < T(0)))) { r = r + y; }
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

_CONSTS = {
    "f32": {"U": "u32", "ABS": "0x7fffffffu", "EXPO": "0x7f800000u", "SIGN": "0x80000000u"},
    "f64": {"U": "u64", "ABS": "0x7fffffffffffffffu", "EXPO": "0x7ff0000000000000u",
            "SIGN": "0x8000000000000000u"},
}
_WORD = re.compile(r"\b[A-Za-z_][A-Za-z0-9_]*\b")


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
    text = text.replace("_T(", f"_{ct}(").replace("BITS", f"{bits}u")
    text = text.replace("SIGNED", "true" if ct[0] == "i" else "false")
    return re.sub(r"\bT\b", ct, text)


def helpers(code: str, ct: str) -> str:
    """The helper functions that ``code`` calls (recursively), specialised to ``ct``."""
    table = _FLOAT_HELPERS if ct[0] == "f" else _INT_HELPERS
    consts = _CONSTS.get(ct, {})
    done: dict[str, str] = {}

    def visit(text: str) -> None:
        for w in set(_WORD.findall(text)):
            if w.endswith("_" + ct):
                base = w[: -len(ct)] + "T"
                if base in table and base not in done:
                    body = _specialise(table[base], ct)
                    for k, v in consts.items():
                        body = re.sub(rf"\b{k}\b", v, body)
                    done[base] = body
                    visit(body)

    visit(code)
    return "\n".join(done.values())
