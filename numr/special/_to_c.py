"""Offline generator of numr/special/_cuda_src.py (run by hand: ``python -m
numr.special._to_c``; needs the WebGPU backend's expression library, so wgpu). Not
imported by numr.

numr's own CUDA kernels of numr.special run the algorithm verified on WebGPU: the WGSL
of the functions in :data:`FUNCTIONS` (``_exprs.EXPR`` over the helpers of ``_wgsl.py``
and the expression library, specialised to f64) translated to C++ for NVRTC. WGSL as numr
writes it is nearly C++ already; the translation is textual:

* ``fn f(a: T, b: bool) -> vec2<T> {`` -> ``NR_FN nrvec2<f64> f(f64 a, bool b) {``;
  ``let x =`` -> ``const auto x =``, ``var x =`` -> ``auto x =``;
* ``vec2<T>(..)``, ``vec3<T>(..)`` and ``bitcast<U>(..)`` -> the templates of
  :data:`PRELUDE` (``nrvec2``, ``nrvec3``, ``nrbitcast``); ``select`` ``abs`` ``min``
  ``max`` -> ``nrsel`` ``fabs`` ``nrmin`` ``nrmax`` (fmin/fmax for floats, integer
  comparisons for integers); ``round`` -> ``rint`` (WGSL rounds halves to even, as rint);
* arrays: a module-scope ``const NAME = array<U, N>(..);`` -> ``NR_CONST U NAME[N] =
  {..};`` (``__constant__`` on CUDA), ``let v = array<T, N>(..);`` -> ``const T v[N] =
  {..};`` and ``var v: array<T, N>;`` -> ``T v[N] = {};`` (WGSL zero-initialises);
* anything else the translation does not know (vec4, loop, switch, other built-ins)
  raises.

The kernels are compiled without contraction (``--fmad=false``): numr's double-word
arithmetic (two_sum, two_prod) needs every product and sum rounded as written, as on
WebGPU. C++ without fast-math neither contracts (with that flag) nor reassociates, so
the building blocks that exist on WebGPU only to stop a driver from doing so take their
C forms (:data:`NATIVE`): ``fence`` is the value itself, two_sum and fast_two_sum lose
their fences, and two_prod's error is ``fma(a, b, -p)`` (exact; Dekker's split product,
written for lavapipe, which splits fma, costs 6 fences and 7 operations more); exp, expm1,
log, log1p and pow, rounded once at the end of a special function's double-word steps,
are CUDA's libm. ``tests/special/test_cuda_source.py`` checks
that the committed file is this generator's output and runs it, compiled for the host
by the system's C++ compiler, against SciPy and mpmath.
"""

from __future__ import annotations

import pprint
import re

from ._exprs import F64_FOR_F32

# name -> number of arguments, for the functions CUDA takes from numr's own source
FUNCTIONS = {"gammainc": 2, "gammaincc": 2, "chdtr": 2, "chdtrc": 2, "betainc": 3,
             "betaincc": 3, "stdtr": 2, "ellipe": 1,
             "j0": 1, "j1": 1, "y0": 1, "y1": 1, "zeta": 2, "rzeta": 1, "beta": 2}

# Functions whose float32 calls CUDA computes in float32, with the float32 specialisation
# of the same WGSL (WebGPU's float32 algorithm): those of FUNCTIONS within 4 ULP in float32
# arithmetic (not in _exprs.F64_FOR_F32, the rule WebGPU follows too); the rest compute
# float32 in float64 and round once. float64 arithmetic had cost the Bessel functions
# 4.3-5.1x cupyx's float32 time on the H100, zeta 5.5x.
FUNCTIONS_F32 = tuple(n for n in FUNCTIONS if n not in F64_FOR_F32)


def _native(ct: str) -> dict[str, str]:
    """The C bodies of helpers (of compute type ``ct``) whose WGSL guards against a
    driver's reassociation or lacks a correctly fused multiply-add (see the module's
    docstring); their results are the exact sum and product errors, as the WGSL's."""
    bodies = {
        "fence": "return v;",
        "two_sum": f"""
  const {ct} s = a0 + b0;
  const {ct} v = s - a0;
  return nrvec2<{ct}>(s, (a0 - (s - v)) + (b0 - v));""",
        "fast_two_sum": f"""
  const {ct} s = a0 + b0;
  return nrvec2<{ct}>(s, b0 - (s - a0));""",
        "two_prod": f"""
  const {ct} p = a0 * b0;
  return nrvec2<{ct}>(p, fma(a0, b0, -p));""",
        # The library's own functions where a result is rounded once at the end: CUDA's
        # (within 1 ulp; pow 2) cost a fraction of numr's double-word ones, which exist
        # for WGSL, whose float64 has no exp or log at all; the special functions' own
        # double-word steps (logdd, expdd, ...) stay numr's. (C++ picks the float
        # overloads for f32.)
        "exp": "return exp(x);",
        "expm1": "return expm1(x);",
        "log": "return log(x);",
        "log1p": "return log1p(x);",
        "pow": "return pow(x, y);",
    }
    if ct == "f32":
        # IEEE square root, correctly rounded as numr's float32 WGSL one (CUDA's sqrt
        # without -prec-sqrt=false)
        bodies["sqrt"] = "return sqrt(x);"
    return {f"{k}_{ct}": v for k, v in bodies.items()}


NATIVE = {**_native("f64"), **_native("f32")}

# Types, vec2 and the WGSL built-ins the helpers use, for NVRTC and a host compiler alike
# (NR_FN: __device__ there, inline here).
PRELUDE = r"""
typedef double f64;
typedef float f32;
typedef unsigned long long u64;
typedef unsigned int u32;
typedef int i32;
template <class X> struct nrvec2 {
  X x, y;
  NR_FN nrvec2() : x(0), y(0) {}
  NR_FN nrvec2(X a, X b) : x(a), y(b) {}
};
template <class X> struct nrvec3 {
  X x, y, z;
  NR_FN nrvec3() : x(0), y(0), z(0) {}
  NR_FN nrvec3(X a, X b, X c) : x(a), y(b), z(c) {}
};
template <class X> NR_FN nrvec2<X> operator-(nrvec2<X> v) { return nrvec2<X>(-v.x, -v.y); }
template <class X> NR_FN nrvec2<X> operator*(nrvec2<X> v, X s) { return nrvec2<X>(v.x * s, v.y * s); }
template <class X> NR_FN nrvec2<X> operator*(X s, nrvec2<X> v) { return nrvec2<X>(s * v.x, s * v.y); }
template <class X> NR_FN nrvec2<X> operator+(nrvec2<X> a, nrvec2<X> b) { return nrvec2<X>(a.x + b.x, a.y + b.y); }
template <class X> NR_FN nrvec2<X> operator-(nrvec2<X> a, nrvec2<X> b) { return nrvec2<X>(a.x - b.x, a.y - b.y); }
template <class To, class From> NR_FN To nrbitcast(From v) {
  static_assert(sizeof(To) == sizeof(From), "bitcast sizes");
  union { From f; To t; } u;
  u.f = v;
  return u.t;
}
template <class X> NR_FN X nrsel(X f, X t, bool c) { return c ? t : f; }
NR_FN f64 nrmin(f64 a, f64 b) { return fmin(a, b); }
NR_FN f64 nrmax(f64 a, f64 b) { return fmax(a, b); }
NR_FN f32 nrmin(f32 a, f32 b) { return fmin(a, b); }
NR_FN f32 nrmax(f32 a, f32 b) { return fmax(a, b); }
template <class X> NR_FN X nrclamp(X v, X lo, X hi) { return nrmin(nrmax(v, lo), hi); }
NR_FN u32 nrclz(u32 v) {
#ifdef __CUDACC__
  return (u32)__clz((int)v);
#else
  return v ? (u32)__builtin_clz(v) : 32u;
#endif
}
NR_FN i32 nrmin(i32 a, i32 b) { return a < b ? a : b; }
NR_FN i32 nrmax(i32 a, i32 b) { return a > b ? a : b; }
NR_FN u32 nrmin(u32 a, u32 b) { return a < b ? a : b; }
NR_FN u32 nrmax(u32 a, u32 b) { return a > b ? a : b; }
"""

_BUILTINS = {"select": "nrsel", "abs": "fabs", "min": "nrmin", "max": "nrmax",
             "round": "rint", "clamp": "nrclamp", "countLeadingZeros": "nrclz"}
_KNOWN = {"fma", "exp", "expm1", "log", "log1p", "pow", "sqrt", "floor", "ceil", "trunc", "ldexp",
          "fabs", "nrmin", "nrmax", "rint", "nrclamp", "nrclz",
          "nrsel", "nrvec2", "nrvec3", "nrbitcast", "if", "for", "while", "return", "f64", "f32",
          "u64", "u32", "i32", "bool", "break", "continue", "else"}


def _type(t: str) -> str:
    t = t.strip()
    m = re.fullmatch(r"vec([23])<(\w+)>", t)
    if m:
        return f"nrvec{m.group(1)}<{m.group(2)}>"
    if t in ("f64", "f32", "u64", "u32", "i32", "bool"):
        return t
    raise ValueError(f"_to_c: no C type for WGSL type {t!r}")


def _closing(text: str, j: int) -> int:
    """The index just past the parenthesis that closes the one before ``text[j]``."""
    depth = 1
    while depth:
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        j += 1
    return j


def _constants(text: str) -> str:
    """Module-scope ``const NAME = array<U, N>(..);`` as C arrays (the only module-scope
    declarations the helpers have besides functions)."""
    out = []
    for decl in filter(None, (d.strip() for d in text.split(";"))):
        m = re.fullmatch(r"const\s+(\w+)\s*=\s*array\s*<\s*(\w+)\s*,\s*(\d+)\s*>\s*\((.*)\)",
                         decl, re.S)
        if m is None:
            raise ValueError(f"_to_c: cannot translate {decl[:80]!r}")
        out.append(f"NR_CONST {_type(m.group(2))} {m.group(1)}[{m.group(3)}] = {{{m.group(4)}}};")
    return "\n".join(out)


def _functions(wgsl: str) -> tuple[list[tuple[str, str, str, str]], list[str]]:
    """(name, params, return type, body) of each top-level ``fn`` of ``wgsl``, and its
    module-scope constants in C."""
    out, consts, i = [], [], 0
    head = re.compile(r"fn\s+(\w+)\s*\(([^)]*)\)\s*(?:->\s*([\w<>]+))?\s*\{")
    while True:
        m = head.search(wgsl, i)
        if m is None:
            if wgsl[i:].strip():
                consts.append(_constants(wgsl[i:]))
            return out, consts
        if wgsl[i:m.start()].strip():
            consts.append(_constants(wgsl[i:m.start()]))
        depth, j = 1, m.end()
        while depth:
            depth += {"{": 1, "}": -1}.get(wgsl[j], 0)
            j += 1
        out.append((m.group(1), m.group(2), m.group(3) or "void", wgsl[m.end():j - 1]))
        i = j


def _params(p: str) -> str:
    parts = [q.strip() for q in p.split(",") if q.strip()]
    return ", ".join(f"{_type(q.split(':', 1)[1])} {q.split(':', 1)[0].strip()}" for q in parts)


def _arrays(b: str) -> str:
    """Local arrays: ``let v = array<T, N>(..);`` -> ``const T v[N] = {..};``, ``var v:
    array<T, N>;`` -> ``T v[N] = {};``."""
    b = re.sub(r"\bvar\s+(\w+)\s*:\s*array\s*<\s*(\w+)\s*,\s*(\d+)\s*>\s*;",
               lambda m: f"{_type(m.group(2))} {m.group(1)}[{m.group(3)}] = {{}};", b)
    head = re.compile(r"\blet\s+(\w+)\s*=\s*array\s*<\s*(\w+)\s*,\s*(\d+)\s*>\s*\(")
    while (m := head.search(b)) is not None:
        j = _closing(b, m.end())
        b = (b[:m.start()] + f"const {_type(m.group(2))} {m.group(1)}[{m.group(3)}] = "
             f"{{{b[m.end():j - 1]}}}" + b[j:])
    return b


# A float literal that is not already the argument of a conversion (f32(..), f64(..))
_FLOAT = re.compile(r"(?<![\w.])(?<!f32\()(?<!f64\()(?<!f32\(-)(?<!f64\(-)"
                    r"((?:\d+\.\d*|\.\d+)(?:[eE][-+]?\d+)?|\d+[eE][-+]?\d+)(?![\w.])")


def _body(b: str, ct: str = "f64") -> str:
    b = _arrays(b)
    if ct == "f32":
        # WGSL's abstract float literals take the other operand's type, f32 (rounded from
        # their float64 value), where C++'s double literal would widen the arithmetic
        b = _FLOAT.sub(r"f32(\1)", b)
    if re.search(r"\barray\s*<|\bvec4\b|\bconst\s+(?!f64|f32|u64|u32|i32)|\bloop\b|\bswitch\b",
                 re.sub(r"//[^\n]*", "", b)):
        raise ValueError(f"_to_c: unsupported WGSL in {b[:120]!r}")
    b = re.sub(r"\bvec([23])<", r"nrvec\1<", b)
    b = re.sub(r"\bbitcast<", "nrbitcast<", b)
    b = re.sub(r"\blet\s+(\w+)\s*=", r"const auto \1 =", b)
    b = re.sub(r"\bvar\s+(\w+)\s*:\s*([\w<>]+)\s*=", lambda m: f"{_type(m.group(2))} {m.group(1)} =", b)
    b = re.sub(r"\bvar\s+(\w+)\s*=", r"auto \1 =", b)
    for w, c in _BUILTINS.items():
        b = re.sub(rf"\b{w}\s*\(", f"{c}(", b)
    return b


def translate(wgsl: str, ct: str = "f64") -> str:
    """C++ for NVRTC (and a host compiler) of the WGSL functions in ``wgsl`` of compute
    type ``ct``: a prototype of each, then the definitions."""
    fns, consts = _functions(wgsl)
    fns.sort()  # helpers() visits in set order: sorted, reproducible
    names = {f[0] for f in fns}
    protos, defs = [], []
    for name, params, ret, body in fns:
        sig = f"NR_FN {_type(ret) if ret != 'void' else 'void'} {name}({_params(params)})"
        protos.append(sig + ";")
        cb = NATIVE[name] + "\n" if name in NATIVE else _body(body, ct)
        code = re.sub(r"//[^\n]*", "", cb)
        for call in set(re.findall(r"\b([A-Za-z_]\w*)\s*\(", code)):
            if call not in names and call not in _KNOWN:
                raise ValueError(f"_to_c: {name} calls {call}, which has no C translation")
        defs.append(sig + " {" + cb + "}")
    return ("".join(c + "\n" for c in sorted(consts)) + "\n".join(protos) + "\n\n"
            + "\n\n".join(defs) + "\n")


def source(ct: str = "f64") -> tuple[str, dict]:
    """The helpers' C++ and, per function, its entry ``nrsp_<name>(a, b, c)`` (float64:
    :data:`FUNCTIONS`) or ``nrsp_<name>_f32`` (float32: :data:`FUNCTIONS_F32`)."""
    from ..backends.webgpu.kernels import expressions as ex
    from . import _wgsl  # noqa: F401  (registers the helpers)
    from ._exprs import EXPR, specialise

    names = FUNCTIONS if ct == "f64" else FUNCTIONS_F32
    exprs = {n: specialise(EXPR[n], ct) for n in names}
    helpers = translate(ex.helpers(" ".join(exprs.values()), ct), ct)
    suffix = "" if ct == "f64" else "_" + ct
    entries = {}
    for n, e in exprs.items():
        e = _body(e, ct)
        entries[n] = f"NR_FN {ct} nrsp_{n}{suffix}({ct} a, {ct} b, {ct} c) {{ return {e}; }}"
    return helpers, entries


def main() -> None:
    helpers, entries = source()
    helpers32, entries32 = source("f32")
    with open(__file__.replace("_to_c.py", "_cuda_src.py"), "w") as f:
        f.write('"""C++ of numr.special\'s own CUDA kernels, generated from the WGSL by '
                '_to_c.py (do not edit)."""\n\n')
        for k, v in (("PRELUDE", PRELUDE), ("HELPERS", helpers), ("HELPERS_F32", helpers32)):
            assert '"""' not in v and "\\" not in v
            f.write(f'{k} = r"""{v}"""\n\n')
        f.write(f"ENTRIES = {pprint.pformat(entries, width=96)}\n\n")
        f.write(f"ENTRIES_F32 = {pprint.pformat(entries32, width=96)}\n")


if __name__ == "__main__":
    main()
