"""WGSL for the matrix decompositions and solvers: one workgroup per matrix of a batch.

Every kernel binds its input matrices read-only and one output buffer ``y`` that holds
the results and the kernel's working storage (the layouts are decided by the caller in
decompositions.py and passed as parameters). Matrices stay in that storage buffer rather
than workgroup memory, so any size works; the 256 invocations of a workgroup split each
step's rows or columns, with ``storageBarrier()`` between steps.

Note: llvmpipe (lavapipe) stops an invocation silently after 65535 loop iterations in
one dispatch, so every kernel comes in stages (init, a range of steps, final) whose
state lives in the output buffer, and the caller splits the steps over dispatches by
their cost in loop iterations (decompositions.py). Loops whose trip count
depends on data (Jacobi sweeps, QR iterations) read their decision through
``workgroupUniformLoad``, so every barrier stays in uniform control flow.

Element types: ``T`` is the real type (f32 or f64), ``S`` the matrix element (``T`` or
``vec2<T>`` for complex); buffers are declared ``array<T>`` and complex elements are
(re, im) pairs, so one output buffer holds real and complex results side by side. The
few helpers ``mul``, ``cj`` (conjugate), ``aq`` (|a|^2), ``ab`` (|a|), ``dv`` (divide),
``mk`` (real to S) make one kernel text serve both.

Algorithms (textbook, see Golub & Van Loan, "Matrix Computations"): LU with partial
pivoting (solve, inv, det, slogdet), Cholesky-Crout, Householder QR (LAPACK's geqrf
reflector convention), cyclic Jacobi for Hermitian eigenproblems and one-sided
(Hestenes) Jacobi for the SVD (its tolerance, scaled Gram entries and convergence count
as LAPACK's gesvj, Drmač & Veselić 2008), both in round-robin (tournament) order so the n/2
rotations of a step run in parallel; Hessenberg reduction and shifted complex QR
iteration with back substitution for general eigenproblems.
"""

from __future__ import annotations

from ...._dtypes import DType
from .reduce import _LIMITS
from .template import HEADER, WG


_EPS = {"f32": "1.1920929e-07", "f64": "2.220446049250313e-16"}
_BITS = {"f32": ("u32", "0x7fffffffu", "0x7f800000u"),
         "f64": ("u64", "0x7ffffffffffffffflu", "0x7ff0000000000000lu")}
_MAX = {"f32": "3.4028234e+38", "f64": "1.7976931348623157e+308"}
_SAFE = {"f32": "8.27181e-25", "f64": "4.51298594e-277"}


def real_ctype(d: DType) -> str:
    return "f64" if d.name in ("float64", "complex128") else "f32"


def _scalar_helpers(cplx: bool) -> str:
    if cplx:
        return """fn mk(r: T) -> S { return S(r, T(0.0)); }
fn re(a: S) -> T { return a.x; }
fn cj(a: S) -> S { return S(a.x, -a.y); }
fn mul(a: S, b: S) -> S { return S(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x); }
fn aq(a: S) -> T { return a.x * a.x + a.y * a.y; }
fn ab1(a: S) -> T { return abs(a.x) + abs(a.y); }
fn am(a: S) -> T { return max(abs(a.x), abs(a.y)); }
fn im(a: S) -> T { return a.y; }
fn ab(a: S) -> T {
  let u = abs(a.x); let v = abs(a.y); let m = max(u, v);
  if (m == T(0.0)) { return m; }
  let w = min(u, v) / m;
  return m * sqrt(T(1.0) + w * w);
}
fn dv(a: S, b: S) -> S {
  let m = max(abs(b.x), abs(b.y));
  let c = b / m;
  return mul(a, cj(c)) / ((c.x * c.x + c.y * c.y) * m);
}
fn unit(a: S, m: T) -> S { return a / m; }"""
    return """fn mk(r: T) -> S { return r; }
fn re(a: S) -> T { return a; }
fn cj(a: S) -> S { return a; }
fn mul(a: S, b: S) -> S { return a * b; }
fn aq(a: S) -> T { return a * a; }
fn ab1(a: S) -> T { return abs(a); }
fn am(a: S) -> T { return abs(a); }
fn im(a: S) -> T { return T(0.0); }
fn ab(a: S) -> T { return abs(a); }
fn dv(a: S, b: S) -> S { return a / b; }
fn unit(a: S, m: T) -> S { return select(T(-1.0), T(1.0), a > T(0.0)); }"""


def _log(t: str) -> str:
    """log(x) for finite x > 0 to full precision in f32 and f64: x = m 2^e with m in
    [sqrt(1/2), sqrt(2)), log(m) = 2 atanh(s), s = (m - 1) / (m + 1), |s| < 0.172, by
    its series (11 terms reach f64 precision), and e ln 2 in two parts."""
    terms = " + z * (".join(f"T({1.0 / (2 * k + 1)!r})" for k in range(12))
    # x = fract * 2^ex with fract in [0.5, 1), by bits: NVIDIA's compiler (NVVM) fails on
    # a float64 frexp. x is normal where this is used (a scaled norm).
    if t == "f64":
        parts = ("let u = bitcast<u64>(x);\n"
                 "  let fract = bitcast<f64>((u & 0xffffffffffffflu) | 0x3fe0000000000000lu);\n"
                 "  let ex = f64(i32((u >> 52u) & 0x7fflu) - 1022);")
    else:
        parts = ("let u = bitcast<u32>(x);\n"
                 "  let fract = bitcast<f32>((u & 0x7fffffu) | 0x3f000000u);\n"
                 "  let ex = f32(i32((u >> 23u) & 0xffu) - 126);")
    return f"""fn lg(x: T) -> T {{
  {parts}
  // selects, not a branch: lavapipe's LLVM fails on the branchy form in f64
  let lo = fract < T(0.70710678118654752);
  let m = select(fract, fract * T(2.0), lo);
  let ef = ex - select(T(0.0), T(1.0), lo);
  let f = m - T(1.0);
  let s = f / (T(2.0) + f);
  let z = s * s;
  let poly = {terms}{")" * 11};
  return ef * T(0.693145751953125) + (T(2.0) * s * poly + ef * T(1.4286068203094172e-06));
}}"""


def prelude(d: DType, inputs: int, out: str = "T", extra: str = "") -> str:
    """Bindings (params, ``inputs`` read-only arrays x0.., the output y), types, helpers."""
    t = real_ctype(d)
    cplx = d.kind == "complex"
    lines = [HEADER,
             f"alias T = {t};",
             f"alias S = {'vec2<T>' if cplx else 'T'};",
             f"const C: u32 = {2 if cplx else 1}u;",
             f"const EPS: T = {_EPS[t]};",
             f"const TMAX: T = {_MAX[t]};",
             # squares summing to less lose relative accuracy to underflow: realmin / eps^2
             f"const SAFE: T = {_SAFE[t]};",
             f"const WG: u32 = {WG}u;"]
    for k in range(inputs):
        lines.append(f"@group(0) @binding({k + 1}) var<storage, read> x{k}: array<T>;")
        if cplx:
            lines.append(f"fn lx{k}(e: u32) -> S {{ return S(x{k}[2u * e], x{k}[2u * e + 1u]); }}")
        else:
            lines.append(f"fn lx{k}(e: u32) -> S {{ return x{k}[e]; }}")
    lines.append(f"@group(0) @binding({inputs + 1}) var<storage, read_write> y: array<{out}>;")
    if out == "T":
        if cplx:
            lines.append("fn ly(e: u32) -> S { return S(y[2u * e], y[2u * e + 1u]); }")
            lines.append("fn sy(e: u32, v: S) { y[2u * e] = v.x; y[2u * e + 1u] = v.y; }")
        else:
            lines.append("fn ly(e: u32) -> S { return y[e]; }")
            lines.append("fn sy(e: u32, v: S) { y[e] = v; }")
    lines.append(_scalar_helpers(cplx))
    u, absm, expo = _BITS[t]
    lines.append(f"fn isnan_T(x: T) -> bool {{ return (bitcast<{u}>(x) & {absm}) > {expo}; }}")
    lines.append(f"fn isinf_T(x: T) -> bool {{ return (bitcast<{u}>(x) & {absm}) == {expo}; }}")
    # Note: naga's != is an ordered comparison (false for NaN): nz() is "not zero" with
    # NaN counted as not zero, and bigger() orders NaN above every number (LAPACK's
    # pivot search keeps a NaN it meets first; here a NaN pivot is taken too).
    lines.append("fn nz(x: T) -> bool { return isnan_T(x) || x < T(0.0) || x > T(0.0); }")
    lines.append("""fn bigger(v: T, i: u32, w: T, j: u32) -> bool {
  let a = isnan_T(v); let b = isnan_T(w);
  if (a || b) { return a && (!b || i < j); }
  return v > w || (v == w && i < j);
}""")
    # a divisor that keeps squares in range: the largest component ``big``, 1 where
    # that is zero or not finite (inf and NaN then propagate as without scaling)
    lines.append("fn scale_of(big: T) -> T "
                 "{ return select(T(1.0), big, big > T(0.0) && big <= TMAX); }")
    lines.append(_log(t))
    lines.append(f"fn neg_inf() -> T {{ return {_LIMITS[t][0]}; }}")
    lines.append(f"var<workgroup> wv: array<T, {WG}>;\nvar<workgroup> wi: array<u32, {WG}>;")
    lines.append(extra)
    return "\n".join(lines)


_MAIN = """@compute @workgroup_size(WGSIZE)
fn main(@builtin(workgroup_id) wg: vec3<u32>, @builtin(local_invocation_index) l: u32,
        @builtin(num_workgroups) nw: vec3<u32>) {
  let b = wg.x + wg.y * nw.x;
  if (b >= p(0u)) { return; }
""".replace("WGSIZE", str(WG))

# A tree over the workgroup: wv/wi hold each invocation's (value, index); afterwards
# wv[0] / wi[0] hold the sum, or the largest value with the smallest index.
_TREE_SUM = """  wv[l] = acc;
  workgroupBarrier();
  for (var h = WG / 2u; h > 0u; h = h >> 1u) {
    if (l < h) { wv[l] = wv[l] + wv[l + h]; }
    workgroupBarrier();
  }
"""
_TREE_ARGMAX = """  wv[l] = best; wi[l] = bi;
  workgroupBarrier();
  for (var h = WG / 2u; h > 0u; h = h >> 1u) {
    if (l < h) {
      if (bigger(wv[l + h], wi[l + h], wv[l], wi[l])) { wv[l] = wv[l + h]; wi[l] = wi[l + h]; }
    }
    workgroupBarrier();
  }
"""


# -- LU with partial pivoting -------------------------------------------------------------

def lu_source(d: DType, mode: str, stage: str) -> str:
    """mode: 'solve' (x0 = A, x1 = B: X = A^-1 B), 'inv', 'det', 'slogdet'; stage:
    'init', 'fwd' (elimination steps p(20)..p(21)), 'back' (back substitution steps
    p(20)..p(21), solve and inv), 'final'.

    params: nb, n, K (right-hand sides), A offset, B offset, LU base (S), status/logabs
    base (real), state base (real: row flips, singular; 2 per matrix). X (solve, inv)
    starts at 0, K columns; det and sign at 0, one per matrix.
    """
    rhs = mode in ("solve", "inv")
    body = [_MAIN, """  let n = p(1u); let K = p(2u);
  let A0 = p(3u) + b * n * n;
  let L = p(5u) + b * n * n;
  let X = b * n * K;
  let ST = p(7u) + 2u * b;
"""]
    if stage == "init":
        body.append("  for (var e = l; e < n * n; e += WG) { sy(L + e, lx0(A0 + e)); }\n"
                    "  if (l == 0u) { y[ST] = T(0.0); y[ST + 1u] = T(0.0); }\n")
        if mode == "solve":
            body.append("  let B0 = p(4u) + b * n * K;\n"
                        "  for (var e = l; e < n * K; e += WG) { sy(X + e, lx1(B0 + e)); }\n")
        elif mode == "inv":
            body.append("  for (var e = l; e < n * K; e += WG) "
                        "{ sy(X + e, mk(select(T(0.0), T(1.0), e / K == e % K))); }\n")
    elif stage == "fwd":
        body.append("""  for (var c = p(20u); c < p(21u); c++) {
    var best = T(-1.0); var bi = n;
    for (var r = c + l; r < n; r += WG) {
      let v = ab1(ly(L + r * n + c));
      if (bigger(v, r, best, bi)) { best = v; bi = r; }
    }
""" + _TREE_ARGMAX + """    let pr = wi[0];
    if (pr != c) {
      for (var j = l; j < n; j += WG) {
        let t = ly(L + c * n + j); sy(L + c * n + j, ly(L + pr * n + j)); sy(L + pr * n + j, t);
      }
""" + ("""      for (var j = l; j < K; j += WG) {
        let t = ly(X + c * K + j); sy(X + c * K + j, ly(X + pr * K + j)); sy(X + pr * K + j, t);
      }
""" if rhs else "") + """      if (l == 0u) { y[ST] = T(1.0) - y[ST]; }
    }
    storageBarrier();
    let u = ly(L + c * n + c);
    let ok = nz(ab1(u));
    if (!ok && l == 0u) { y[ST + 1u] = T(1.0); }
    if (ok) {
      for (var r = c + 1u + l; r < n; r += WG) { sy(L + r * n + c, dv(ly(L + r * n + c), u)); }
    }
    storageBarrier();
    if (ok) {
      let m = n - c - 1u;
      for (var e = l; e < m * m; e += WG) {
        let r = c + 1u + e / m; let j = c + 1u + e % m;
        sy(L + r * n + j, ly(L + r * n + j) - mul(ly(L + r * n + c), ly(L + c * n + j)));
      }
""" + ("""      for (var e = l; e < m * K; e += WG) {
        let r = c + 1u + e / K; let j = e % K;
        sy(X + r * K + j, ly(X + r * K + j) - mul(ly(L + r * n + c), ly(X + c * K + j)));
      }
""" if rhs else "") + """    }
    storageBarrier();
  }
""")
    elif stage == "back":
        body.append("""  for (var cc = p(20u); cc < p(21u); cc++) {
    let c = n - 1u - cc;
    let u = ly(L + c * n + c);
    for (var j = l; j < K; j += WG) { sy(X + c * K + j, dv(ly(X + c * K + j), u)); }
    storageBarrier();
    for (var e = l; e < c * K; e += WG) {
      let r = e / K; let j = e % K;
      sy(X + r * K + j, ly(X + r * K + j) - mul(ly(L + r * n + c), ly(X + c * K + j)));
    }
    storageBarrier();
  }
""")
    elif rhs:
        body.append("  if (l == 0u) { y[p(6u) + b] = y[ST + 1u]; }\n")
    elif mode == "det":
        body.append("""  if (l == 0u) {
    var r = mk(select(T(1.0), T(-1.0), y[ST] != T(0.0)));
    for (var c = 0u; c < n; c++) { r = mul(r, ly(L + c * n + c)); }
    sy(b, r);
  }
""")
    else:
        body.append("""  if (l == 0u) {
    var sg = mk(select(T(1.0), T(-1.0), y[ST] != T(0.0)));
    var la = T(0.0);
    for (var c = 0u; c < n; c++) {
      let u = ly(L + c * n + c);
      let a = ab(u);
      if (a == T(0.0)) { sg = mk(T(0.0)); la = neg_inf(); break; }
      sg = mul(sg, unit(u, a));
      if (a <= TMAX) { la = la + lg(a); } else { la = la + a; }
    }
    sy(b, sg);
    y[p(6u) + b] = la;
  }
""")
    body.append("}\n")
    return prelude(d, 2 if mode == "solve" else 1) + "\n" + "".join(body)


# -- Cholesky -----------------------------------------------------------------------------

def cholesky_source(d: DType, stage: str) -> str:
    """params: nb, n, A offset, status base (real), upper. L at 0 (the result).
    stage: 'init', 'step' (columns p(20)..p(21)), 'final'."""
    head = prelude(d, 1) + "\n" + _MAIN + """  let n = p(1u);
  let A0 = p(2u) + b * n * n;
  let L = b * n * n;
"""
    if stage == "init":
        return head + """  for (var e = l; e < n * n; e += WG) {
    sy(L + e, select(mk(T(0.0)), lx0(A0 + e), e % n <= e / n));
  }
  if (l == 0u) { y[p(3u) + b] = T(0.0); }
}
"""
    if stage == "step":
        return head + """  for (var c = p(20u); c < p(21u); c++) {
    if (l == 0u) {
      var s = re(ly(L + c * n + c));
      for (var k = 0u; k < c; k++) { s = s - aq(ly(L + c * n + k)); }
      if (s <= T(0.0)) { y[p(3u) + b] = T(1.0); }
      sy(L + c * n + c, mk(sqrt(s)));
    }
    storageBarrier();
    let dc = re(ly(L + c * n + c));
    for (var r = c + 1u + l; r < n; r += WG) {
      var s = ly(L + r * n + c);
      for (var k = 0u; k < c; k++) { s = s - mul(ly(L + r * n + k), cj(ly(L + c * n + k))); }
      sy(L + r * n + c, s / dc);
    }
    storageBarrier();
  }
}
"""
    return head + """  if (p(4u) == 1u) {
    for (var e = l; e < n * n; e += WG) {
      let r = e / n; let j = e % n;
      if (j < r) { let v = ly(L + e); sy(L + j * n + r, cj(v)); sy(L + e, mk(T(0.0))); }
    }
  }
}
"""


# -- Householder QR -----------------------------------------------------------------------

_TREE_MAX = """  wv[l] = big;
  workgroupBarrier();
  for (var h = WG / 2u; h > 0u; h = h >> 1u) {
    if (l < h) { wv[l] = max(wv[l], wv[l + h]); }
    workgroupBarrier();
  }
"""

# Overflow-safe norms for the Householder vectors (LAPACK's nrm2 and lapy3 scale the same
# way): squares are taken of values divided by the largest component (scale_of).
_QR_EXTRA = """var<workgroup> wsc: S;
fn hypot3(a: S, xn: T) -> T {
  let f = scale_of(max(am(a), xn));
  let u = a / f; let v = xn / f;
  return f * sqrt(aq(u) + v * v);
}
"""


def qr_source(d: DType, stage: str) -> str:
    """params: nb, m, n, A offset, qc (Q columns), rr (R rows), Q base, R base, W base
    (m x n working copy), tau base (S units). stage: 'init', 'house' (reflectors
    p(20)..p(21)), 'r', 'q' (Q from the reflectors, in reverse, steps p(20)..p(21))."""
    extra = _QR_EXTRA
    head = prelude(d, 1, extra=extra) + "\n" + _MAIN + """  let m = p(1u); let n = p(2u);
  let qc = p(4u); let rr = p(5u);
  let k = min(m, n);
  let A0 = p(3u) + b * m * n;
  let Q = p(6u) + b * m * qc;
  let R = p(7u) + b * rr * n;
  let W = p(8u) + b * m * n;
  let TAU = p(9u) + b * k;
"""
    parts = {"init": """  for (var e = l; e < m * n; e += WG) { sy(W + e, lx0(A0 + e)); }
  for (var e = l; e < m * qc; e += WG) { sy(Q + e, mk(select(T(0.0), T(1.0), e / qc == e % qc))); }
""", "house": """  for (var j = p(20u); j < p(21u); j++) {
    // xnorm = ||W[j+1.., j]||, scaled by its largest component as LAPACK's nrm2 does:
    // squares of float32 values beyond 1.8e19 overflow and those below 1e-19 underflow
    var big = T(0.0);
    for (var r = j + 1u + l; r < m; r += WG) { big = max(big, am(ly(W + r * n + j))); }
""" + _TREE_MAX + """    let f = scale_of(wv[0]);
    workgroupBarrier();
    var acc = T(0.0);
    for (var r = j + 1u + l; r < m; r += WG) { acc = acc + aq(ly(W + r * n + j) / f); }
""" + _TREE_SUM + """    let xnorm = f * sqrt(wv[0]);
    if (l == 0u) {
      let alpha = ly(W + j * n + j);
      var tau = mk(T(0.0));
      var den = mk(T(1.0));
      // LAPACK's larfg: H = I (tau = 0) when x is zero and alpha is real
      if (nz(xnorm) || nz(im(alpha))) {
        let an = hypot3(alpha, xnorm);
        let beta = select(an, -an, re(alpha) >= T(0.0));
        tau = (mk(beta) - alpha) / beta;
        den = alpha - mk(beta);
        sy(W + j * n + j, mk(beta));
      }
      sy(TAU + j, tau);
      wsc = den;
    }
    workgroupBarrier();
    storageBarrier();
    // v = x / (alpha - beta), a division rather than a product with the reciprocal,
    // which overflows when alpha - beta is subnormal (LAPACK rescales there instead)
    // (den is 1 where tau = 0: x is zero then)
    let den = wsc;
    for (var r = j + 1u + l; r < m; r += WG) { sy(W + r * n + j, dv(ly(W + r * n + j), den)); }
    storageBarrier();
    let ct = cj(ly(TAU + j));
    for (var c = j + 1u + l; c < n; c += WG) {
      var w = ly(W + j * n + c);
      for (var r = j + 1u; r < m; r++) { w = w + mul(cj(ly(W + r * n + j)), ly(W + r * n + c)); }
      let f = mul(ct, w);
      sy(W + j * n + c, ly(W + j * n + c) - f);
      for (var r = j + 1u; r < m; r++) { sy(W + r * n + c, ly(W + r * n + c) - mul(ly(W + r * n + j), f)); }
    }
    storageBarrier();
  }
""", "r": """  for (var e = l; e < rr * n; e += WG) {
    let r = e / n; let c = e % n;
    sy(R + e, select(mk(T(0.0)), ly(W + r * n + c), c >= r && r < k));
  }
""", "q": """  for (var jj = p(20u); jj < p(21u); jj++) {
    let j = k - 1u - jj;
    let t = ly(TAU + j);
    for (var c = l; c < qc; c += WG) {
      var w = ly(Q + j * qc + c);
      for (var r = j + 1u; r < m; r++) { w = w + mul(cj(ly(W + r * n + j)), ly(Q + r * qc + c)); }
      let f = mul(t, w);
      sy(Q + j * qc + c, ly(Q + j * qc + c) - f);
      for (var r = j + 1u; r < m; r++) { sy(Q + r * qc + c, ly(Q + r * qc + c) - mul(ly(W + r * n + j), f)); }
    }
    storageBarrier();
  }
"""}
    return head + parts[stage] + "}\n"


# -- Jacobi rotations (shared by eigh and svd) ---------------------------------------------

_JACOBI = """fn pair(q: u32, r: u32, N2: u32) -> vec2<u32> {
  // the circle method: position 0 stays, the others turn one place per round
  let M = N2 - 1u;
  var i = 0u;
  if (q != 0u) { i = (r + q - 1u) % M + 1u; }
  let j = (r + N2 - 2u - q) % M + 1u;
  return vec2<u32>(min(i, j), max(i, j));
}
// The rotation zeroing the off-diagonal of the Hermitian [[a, apq], [conj(apq), d]]:
// with g = apq / |apq|, J = [[c, s], [-s conj(g), c conj(g)]] (J^H B J diagonal), its
// parameters stored at y[o..o+10): flag, c, s, t, |apq|, a, d, g.
// ``tol``: the relative size below which apq counts as zero: above the rounding noise
// of apq (for the SVD a dot product of m terms: sqrt(m) eps, as LAPACK's gesvj).
fn rotation(o: u32, a: T, d: T, apq: S, tol: T) -> bool {
  let bb = ab(apq);
  if (!(bb > tol * sqrt(abs(a)) * sqrt(abs(d))) || bb == T(0.0)) { y[o] = T(0.0); return false; }
  let g = apq / bb;
  let th = (d - a) / (T(2.0) * bb);
  var t = T(1.0) / (abs(th) + sqrt(th * th + T(1.0)));
  if (isinf_T(th * th)) { t = T(0.5) / abs(th); }
  if (th < T(0.0)) { t = -t; }
  // apq tiny beside a huge |d - a| (a column whose squares underflow): the rotation is
  // the identity in this precision, so nothing is left to do (counting it as a rotation
  // would keep the sweeps from ever converging).
  if (t == T(0.0)) { y[o] = T(0.0); return false; }
  let c = T(1.0) / sqrt(t * t + T(1.0));
  y[o] = T(1.0); y[o + 1u] = c; y[o + 2u] = t * c; y[o + 3u] = t; y[o + 4u] = bb;
  y[o + 5u] = a; y[o + 6u] = d;
  sgset(o + 7u, g);
  return true;
}
// Columns i, j of a matrix times J (element k of each column at ei, ej).
fn rotate_cols(o: u32, ei: u32, ej: u32) {
  let c = y[o + 1u]; let s = y[o + 2u]; let cg = cj(sgget(o + 7u));
  let xi = ly(ei); let xj = ly(ej);
  let gx = mul(cg, xj);
  sy(ei, xi * c - gx * s);
  sy(ej, xi * s + gx * c);
}
var<workgroup> wflag: u32;
"""


def _jacobi_extra(cplx: bool) -> str:
    if cplx:
        acc = ("fn sgset(o: u32, g: S) { y[o] = g.x; y[o + 1u] = g.y; }\n"
               "fn sgget(o: u32) -> S { return S(y[o], y[o + 1u]); }\n")
    else:
        acc = ("fn sgset(o: u32, g: S) { y[o] = g; }\n"
               "fn sgget(o: u32) -> S { return y[o]; }\n")
    return acc + _JACOBI.replace("isinf_T", "isinf_T")


# One dispatch runs rounds p(20)..p(21) of a sweep (llvmpipe stops an invocation after
# 65535 loop iterations, so long work is split over dispatches); the state after the
# rotation parameters: [done, rotated this sweep]. A converged matrix returns at once.
_SWEEP_HEAD = """  //@@SWEEP
  let ST = RP + NP * 10u;
  if (l == 0u) { wflag = select(0u, 1u, y[ST] != T(0.0)); }
  let done = workgroupUniformLoad(&wflag);
  if (done == 1u) { return; }
  if (p(20u) == 0u && l == 0u) { y[ST + 1u] = T(0.0); }
  storageBarrier();
  {
    for (var r = p(20u); r < p(21u); r++) {
"""
_SWEEP_TAIL = """    }
    if (p(21u) == NR && l == 0u) {
      if (y[ST + 1u] == T(0.0)) { y[ST] = T(1.0); }
    }
  }
  //@@FINAL
  let unconverged = select(1u, 0u, y[RP + NP * 10u] != T(0.0));
"""


def _stage(src: str, stage: str) -> str:
    """The part of a staged kernel text (markers //@@NAME) for ``stage``, after the
    declarations that precede //@@INIT."""
    head, rest = src.split("  //@@INIT\n", 1)
    pieces = rest.split("  //@@")
    parts = {"INIT": pieces[0]}
    for piece in pieces[1:]:
        name, body = piece.split("\n", 1)
        parts[name] = body
    body = parts[stage.upper()]
    if body.endswith("\n}\n"):
        body = body[:-2]
    return head + body + "}\n"


# NaN sorts last, ties keep their order: the rank of element k among n keys.
_BEFORE = """fn before(a: T, i: u32, b: T, k: u32) -> bool {
  let na = isnan_T(a); let nb = isnan_T(b);
  if (na || nb) { return (!na) || (na && nb && i < k); }
  return a < b || (a == b && i < k);
}
"""


def eigh_source(d: DType, vectors: bool, stage: str) -> str:
    """params: nb, n, A offset, A work base (S), V work base (S), rotation base (real),
    w base (real), V out base (S)."""
    cplx = d.kind == "complex"
    src = prelude(d, 1, extra=_jacobi_extra(cplx) + _BEFORE) + "\n"
    src += _MAIN + """  let n = p(1u);
  let N2 = n + (n & 1u); let NP = N2 / 2u; let NR = N2 - 1u;
  let A0 = p(2u) + b * n * n;
  let A = p(3u) + b * n * n;
  let V = p(4u) + b * n * n;
  let RP = p(5u) + b * (NP * 10u + 2u);
  //@@INIT
  if (l == 0u) { y[RP + NP * 10u] = T(0.0); y[RP + NP * 10u + 1u] = T(0.0); }
  for (var e = l; e < n * n; e += WG) {
    let r = e / n; let j = e % n;
    var v = lx0(A0 + e);
    if (j > r) { v = cj(lx0(A0 + j * n + r)); }
    if (j == r) { v = mk(re(v)); }
    sy(A + e, v);
""" + ("    sy(V + e, mk(select(T(0.0), T(1.0), r == j)));\n" if vectors else "") + """  }
  storageBarrier();
""" + _SWEEP_HEAD + """      for (var q = l; q < NP; q += WG) {
        let ij = pair(q, r, N2); let i = ij.x; let j = ij.y;
        let o = RP + q * 10u;
        y[o] = T(0.0);
        if (j < n) {
          if (rotation(o, re(ly(A + i * n + i)), re(ly(A + j * n + j)), ly(A + i * n + j), EPS)) {
            y[ST + 1u] = T(1.0);
          }
        }
      }
      storageBarrier();
      for (var e = l; e < NP * n; e += WG) {
        let q = e / n; let k = e % n; let o = RP + q * 10u;
        if (y[o] != T(0.0)) {
          let ij = pair(q, r, N2);
          rotate_cols(o, A + k * n + ij.x, A + k * n + ij.y);
""" + ("          rotate_cols(o, V + k * n + ij.x, V + k * n + ij.y);\n" if vectors else "") + """        }
      }
      storageBarrier();
      for (var e = l; e < NP * n; e += WG) {
        let q = e / n; let k = e % n; let o = RP + q * 10u;
        if (y[o] != T(0.0)) {
          let ij = pair(q, r, N2); let i = ij.x; let j = ij.y;
          let c = y[o + 1u]; let s = y[o + 2u]; let g = sgget(o + 7u);
          if (k == i) {
            sy(A + i * n + i, mk(y[o + 5u] - y[o + 3u] * y[o + 4u]));
            sy(A + j * n + i, mk(T(0.0)));
          } else if (k == j) {
            sy(A + j * n + j, mk(y[o + 6u] + y[o + 3u] * y[o + 4u]));
            sy(A + i * n + j, mk(T(0.0)));
          } else {
            let xi = ly(A + i * n + k); let xj = mul(g, ly(A + j * n + k));
            sy(A + i * n + k, xi * c - xj * s);
            sy(A + j * n + k, xi * s + xj * c);
          }
        }
      }
      storageBarrier();
""" + _SWEEP_TAIL + """  for (var k = l; k < n; k += WG) {
    let wk = re(ly(A + k * n + k));
    var rank = 0u;
    for (var i = 0u; i < n; i++) { if (before(re(ly(A + i * n + i)), i, wk, k)) { rank++; } }
    y[p(6u) + b * n + rank] = wk;
""" + ("""    for (var i = 0u; i < n; i++) { sy(p(7u) + b * n * n + i * n + rank, ly(V + i * n + k)); }
""" if vectors else "") + """  }
}
"""
    return _stage(src, stage)


# a sweep round's rotations: each pair (i, j) of columns of W, its Gram entries and
# the rotation that orthogonalises them (or, in late sweeps, a negligible column zeroed)
_SVD_ROTATIONS = """      for (var q = l; q < NP; q += WG) {
        let ij = pair(q, r, N2); let i = ij.x; let j = ij.y;
        let o = RP + q * 10u;
        y[o] = T(0.0);
        if (j < np) {
          var al = T(0.0); var be = T(0.0); var ga = mk(T(0.0));
          for (var k = 0u; k < mp; k++) {
            let u = ly(W + i * mp + k); let v = ly(W + j * mp + k);
            al = al + aq(u); be = be + aq(v); ga = ga + mul(cj(u), v);
          }
          // A column this small may have lost squares and products to underflow (the
          // matrix is scaled to max|a| in [1, 2)): its Gram entries again, each column
          // divided by its largest component (LAPACK's gesvj scales the same way)
          var fi = T(1.0); var fj = T(1.0);
          if (min(al, be) < SAFE) {
            var mi = T(0.0); var mj = T(0.0);
            for (var k = 0u; k < mp; k++) {
              mi = max(mi, am(ly(W + i * mp + k))); mj = max(mj, am(ly(W + j * mp + k)));
            }
            fi = scale_of(mi); fj = scale_of(mj);
            al = T(0.0); be = T(0.0); ga = mk(T(0.0));
            for (var k = 0u; k < mp; k++) {
              let u = ly(W + i * mp + k) / fi; let v = ly(W + j * mp + k) / fj;
              al = al + aq(u); be = be + aq(v); ga = ga + mul(cj(u), v);
            }
          }
          // the rotation of [[al fi^2, ga fi fj], [.., be fj^2]]: it depends on the ratio
          // of the diagonal to |ga| only, so the common factor fi fj is left out
          let rr = fj / fi;
          // rotate above tl (LAPACK gesvj's tol: sqrt(m) eps), but as gesvj, count as
          // unconverged only a pair above sqrt(np) tl: a dot product's rounding alone
          // can reach tl, and such rotations would go on forever
          let tl = EPS * sqrt(T(mp));
          let bb = ab(ga);
          let open = bb > sqrt(T(np)) * tl * sqrt(al) * sqrt(be) && bb > T(0.0);
          if (late && open && min(al * fi * fi, be * fj * fj) <= T(16.0) * tl * tl) {
            // Late sweeps: a column still not orthogonal whose norm is below
            // 4 sqrt(m) eps max|a| (the matrix is scaled to max|a| in [1, 2)) is the
            // rounding residue of a rank deficiency; each rotation only shrinks it by
            // some orders until it underflows (or its squares do, and it never becomes
            // orthogonal), so it is set to zero: a change within the backward error.
            y[o] = select(T(3.0), T(2.0), al * fi * fi <= be * fj * fj);
            y[ST + 1u] = T(1.0);
          } else {
            // an open pair counts even where its rotation is the identity in this
            // precision (a column below 1e-38 of its partner's norm in float32): the
            // late sweeps then set that column to zero, else it stays unorthogonal
            _ = rotation(o, al / rr, be * rr, ga, tl);
            if (open) { y[ST + 1u] = T(1.0); }
          }
        }
      }
      storageBarrier();
"""

# normalise U's columns, complete them to an orthonormal set (stage complete), write
# U and Vh in the order of the sorted singular values (stage out)
_SVD_VECTORS = """  // normalise; zero columns (and those beyond np) are completed to an orthonormal set
  for (var e = l; e < mp * MC; e += WG) {
    let k = e / mp;
    if (k < np) {
      let sk = y[RP + k];
      if (sk > T(0.0)) { sy(W + e, ly(W + e) / sk); } else { sy(W + e, mk(T(0.0))); }
    } else { sy(W + e, mk(T(0.0))); }
  }
  for (var k = l; k < MC; k += WG) { y[GOOD + k] = select(T(0.0), T(1.0), k < np && y[RP + k] > T(0.0)); }
  storageBarrier();
  //@@COMPLETE
  for (var k = p(20u); k < p(21u); k++) {
    if (l == 0u) { wneed = select(0u, 1u, y[GOOD + k] == T(0.0)); }
    let need = workgroupUniformLoad(&wneed);
    if (need == 1u) {
      // the unit vector e_i farthest from the span so far, minus its projection (twice)
      var best = T(-1.0); var bi = 0u;
      for (var i = l; i < mp; i += WG) {
        var res = T(1.0);
        for (var c = 0u; c < MC; c++) { if (y[GOOD + c] != T(0.0)) { res = res - aq(ly(W + c * mp + i)); } }
        if (res > best) { best = res; bi = i; }
      }
""" + _TREE_ARGMAX + """      let im = wi[0];
      for (var i = l; i < mp; i += WG) {
        var v = mk(select(T(0.0), T(1.0), i == im));
        for (var c = 0u; c < MC; c++) {
          if (y[GOOD + c] != T(0.0)) { v = v - mul(ly(W + c * mp + i), cj(ly(W + c * mp + im))); }
        }
        sy(W + k * mp + i, v);
      }
      storageBarrier();
      for (var c = l; c < MC; c += WG) {
        var h = mk(T(0.0));
        if (y[GOOD + c] != T(0.0)) {
          for (var i = 0u; i < mp; i++) { h = h + mul(cj(ly(W + c * mp + i)), ly(W + k * mp + i)); }
        }
        sy(TMP + c, h);
      }
      storageBarrier();
      var acc = T(0.0);
      for (var i = l; i < mp; i += WG) {
        var v = ly(W + k * mp + i);
        for (var c = 0u; c < MC; c++) {
          if (y[GOOD + c] != T(0.0)) { v = v - mul(ly(W + c * mp + i), ly(TMP + c)); }
        }
        sy(W + k * mp + i, v);
        acc = acc + aq(v);
      }
""" + _TREE_SUM + """      let nrm = sqrt(wv[0]);
      for (var i = l; i < mp; i += WG) { sy(W + k * mp + i, ly(W + k * mp + i) / nrm); }
      storageBarrier();
      if (l == 0u) { y[GOOD + k] = T(1.0); }
      storageBarrier();
    }
  }
  //@@OUT
  // the tall problem's U' (W) and V; A = U' S V'^H, or A^H = U' S V'^H when m < n
  let U = p(7u) + b * m * select(MC, np, tr);
  let VH = p(9u) + b * n * select(np, MC, tr);
  for (var e = l; e < mp * MC; e += WG) {
    let k = e / mp; let i = e % mp;
    var pos = k;
    if (k < np) { pos = u32(y[RP + np + k]); }
    if (tr) { sy(VH + pos * n + i, cj(ly(W + e))); } else { sy(U + i * MC + pos, ly(W + e)); }
  }
  for (var e = l; e < np * np; e += WG) {
    let k = e / np; let i = e % np;
    let pos = u32(y[RP + np + k]);
    if (tr) { sy(U + i * np + pos, ly(V + e)); } else { sy(VH + pos * np + i, cj(ly(V + e))); }
  }
"""


def svd_source(d: DType, vectors: bool, stage: str) -> str:
    """One-sided Jacobi on the tall one of A (m >= n) or A^H (m < n), columns stored
    contiguously. params: nb, m, n, A offset, W base (S, max(m,n)^2 per matrix), V base
    (S, min^2), rotation base (real), U out base (S), S out base (real), Vh out base
    (S), full, status base (real), temp base (S, max(m,n) per matrix), good-mask base
    (real, max(m,n) per matrix)."""
    cplx = d.kind == "complex"
    extra = _jacobi_extra(cplx) + _BEFORE + "var<workgroup> wneed: u32;\n"
    src = prelude(d, 1, extra=extra) + "\n"
    src += _MAIN + """  let m = p(1u); let n = p(2u);
  let tr = m < n;
  let mp = max(m, n); let np = min(m, n);
  let full = p(10u) == 1u;
  let MC = select(np, mp, full);
  let N2 = np + (np & 1u); let NP = N2 / 2u; let NR = N2 - 1u;
  let A0 = p(3u) + b * m * n;
  let W = p(4u) + b * mp * mp;
  let V = p(5u) + b * np * np;
  let RP = p(6u) + b * (NP * 10u + 2u);
  let TMP = p(12u) + b * mp;
  let GOOD = p(13u) + b * mp;
  let late = p(14u) == 1u;
  //@@INIT
  if (l == 0u) { y[RP + NP * 10u] = T(0.0); y[RP + NP * 10u + 1u] = T(0.0); }
  for (var e = l; e < mp * np; e += WG) {
    let col = e / mp; let i = e % mp;
    if (tr) { sy(W + e, cj(lx0(A0 + col * n + i))); } else { sy(W + e, lx0(A0 + i * n + col)); }
  }
""" + ("""  for (var e = l; e < np * np; e += WG) { sy(V + e, mk(select(T(0.0), T(1.0), e / np == e % np))); }
""" if vectors else "") + """  storageBarrier();
""" + _SWEEP_HEAD + _SVD_ROTATIONS + """      let rows = mp + """ + ("np" if vectors else "0u") + """;
      for (var e = l; e < NP * rows; e += WG) {
        let q = e / rows; let k = e % rows; let o = RP + q * 10u;
        let f = y[o];
        if (f != T(0.0)) {
          let ij = pair(q, r, N2);
          if (f == T(2.0) || f == T(3.0)) {
            // a negligible column of W set to zero (V stays as it is)
            if (k < mp) { sy(W + select(ij.y, ij.x, f == T(2.0)) * mp + k, mk(T(0.0))); }
          } else if (k < mp) { rotate_cols(o, W + ij.x * mp + k, W + ij.y * mp + k); }
          else { rotate_cols(o, V + ij.x * np + k - mp, V + ij.y * np + k - mp); }
        }
      }
      storageBarrier();
""" + _SWEEP_TAIL + """  // singular values (unsorted) at RP + k, their ranks (descending) at RP + np + k
  for (var k = l; k < np; k += WG) {
    // the norm scaled by the largest component, as LAPACK's nrm2: squares of a tiny
    // column would underflow
    var mx = T(0.0);
    for (var i = 0u; i < mp; i++) { mx = max(mx, am(ly(W + k * mp + i))); }
    let f = scale_of(mx);
    var s = T(0.0);
    for (var i = 0u; i < mp; i++) { s = s + aq(ly(W + k * mp + i) / f); }
    y[RP + k] = f * sqrt(s);
  }
  if (l == 0u) { y[p(11u) + b] = T(unconverged); }
  storageBarrier();
  for (var k = l; k < np; k += WG) {
    let sk = y[RP + k];
    var rank = 0u;
    for (var i = 0u; i < np; i++) { if (before(-y[RP + i], i, -sk, k)) { rank++; } }
    y[RP + np + k] = T(rank);
    y[p(8u) + b * np + rank] = sk;
    if (isnan_T(sk)) { y[p(11u) + b] = T(1.0); }
  }
""" + (_SVD_VECTORS if vectors else "") + "}\n"
    return _stage(src, stage)


# -- from the SVD: pinv and matrix_rank ---------------------------------------------------

def pinv_source(d: DType) -> str:
    """x0: the reduced SVD's buffer, x1: rtol (real); y: the result (n x m).
    params: nb, m, n, U base (S), S base (real), Vh base (S), rtol offset, rtol stride;
    the elements p(20)..p(21) of each result."""
    return prelude(d, 2) + "\n" + _MAIN + """  let m = p(1u); let n = p(2u); let k = min(m, n);
  let U = p(3u) + b * m * k; let SV = p(4u) + b * k; let VH = p(5u) + b * k * n;
  let tol = x1[p(6u) + b * p(7u)] * x0[SV];
  for (var e = p(20u) + l; e < p(21u); e += WG) {
    let i = e / m; let j = e % m;
    var acc = mk(T(0.0));
    for (var q = 0u; q < k; q++) {
      let s = x0[SV + q];
      if (s > tol) { acc = acc + mul(cj(lx0(VH + q * n + i)), cj(lx0(U + j * k + q))) / s; }
    }
    sy(b * n * m + e, acc);
  }
}
"""


def rank_source(d: DType, out: str) -> str:
    """x0: singular values (real, k per matrix), x1: rtol; y: counts (``out``).
    params: nb, k, S offset, rtol offset, rtol stride."""
    return prelude(d, 2, out=out) + "\n" + _MAIN + """  if (l == 0u) {
    let k = p(1u); let SV = p(2u) + b * k;
    let tol = x1[p(3u) + b * p(4u)] * x0[SV];
    var c = 0u;
    for (var q = 0u; q < k; q++) { if (x0[SV + q] > tol) { c++; } }
    y[b] = """ + out + """(c);
  }
}
"""


# -- general eigenproblems ----------------------------------------------------------------

_EIG_HELPERS = """var<workgroup> wsc: S;
var<workgroup> wtau: S;
var<workgroup> wmu: S;
var<workgroup> st: vec4<u32>;
fn csqrt(z: S) -> S {
  let r = ab(z);
  if (r == T(0.0)) { return mk(T(0.0)); }
  let t = sqrt((r + abs(z.x)) * T(0.5));
  if (z.x >= T(0.0)) { return S(t, z.y / (T(2.0) * t)); }
  return S(abs(z.y) / (T(2.0) * t), select(-t, t, z.y >= T(0.0)));
}
// the eigenvalue of [[a, b], [c, dd]] nearer to dd (Wilkinson's shift)
fn wilkinson(a: S, b: S, c: S, dd: S) -> S {
  let h = (a - dd) * T(0.5);
  let bc = mul(b, c);
  if (ab1(bc) == T(0.0)) { return dd; }
  let disc = csqrt(mul(h, h) + bc);
  var den = h + disc;
  if (ab1(h - disc) > ab1(den)) { den = h - disc; }
  if (ab1(den) == T(0.0)) { return dd; }
  return dd - dv(bc, den);
}
"""

# stages init (copy, finiteness), hess (Householder to Hessenberg form) and qr (shifted
# QR steps to the Schur form T)
_EIG_SCHUR = """  let n = p(1u);
  let A0 = p(2u) + b * n * n;
  let WB = p(3u) + b * n;
  let VB = p(4u) + b * n * n;
  let SB = p(5u) + b;
  let H = p(6u) + b * n * n;
  let Z = p(7u) + b * n * n;
  let X = p(8u) + b * n * n;
  let G = p(9u) + b * 2u * n;
  let QS = p(10u) + 4u * b;
  //@@INIT
  if (l == 0u) { y[QS] = T(n - 1u); y[QS + 1u] = T(0.0); y[QS + 2u] = T(0.0); }
  var finite = true;
  for (var e = l; e < n * n; e += WG) {
    let v = la(A0 + e);
    if (isnan_T(v.x) || isinf_T(v.x) || isnan_T(v.y) || isinf_T(v.y)) { finite = false; }
    sy(H + e, v);
    sy(Z + e, mk(select(T(0.0), T(1.0), e / n == e % n)));
  }
  if (l == 0u) { y[SB] = T(0.0); }
  storageBarrier();
  if (!finite) { y[SB] = T(2.0); }
  //@@HESS
  // Hessenberg reduction: reflector j zeroes H[j+2.., j]
  for (var j = p(20u); j < p(21u); j++) {
    var acc = T(0.0);
    for (var r = j + 2u + l; r < n; r += WG) { acc = acc + aq(ly(H + r * n + j)); }
""" + _TREE_SUM + """    let xn2 = wv[0];
    if (l == 0u) {
      let alpha = ly(H + (j + 1u) * n + j);
      var tau = mk(T(0.0));
      var scale = mk(T(0.0));
      if (nz(xn2) || nz(alpha.y)) {
        let an = sqrt(aq(alpha) + xn2);
        let beta = select(an, -an, alpha.x >= T(0.0));
        tau = (mk(beta) - alpha) / beta;
        scale = dv(mk(T(1.0)), alpha - mk(beta));
        sy(H + (j + 1u) * n + j, mk(beta));
      }
      wtau = tau; wsc = scale;
      sy(G + j + 1u, mk(T(1.0)));
    }
    workgroupBarrier();
    storageBarrier();
    let scale = wsc; let tau = wtau;
    for (var r = j + 2u + l; r < n; r += WG) {
      sy(G + r, mul(ly(H + r * n + j), scale));
      sy(H + r * n + j, mk(T(0.0)));
    }
    storageBarrier();
    let ct = cj(tau);
    for (var c = j + 1u + l; c < n; c += WG) {
      var w = mk(T(0.0));
      for (var r = j + 1u; r < n; r++) { w = w + mul(cj(ly(G + r)), ly(H + r * n + c)); }
      let f = mul(ct, w);
      for (var r = j + 1u; r < n; r++) { sy(H + r * n + c, ly(H + r * n + c) - mul(ly(G + r), f)); }
    }
    storageBarrier();
    for (var r = l; r < 2u * n; r += WG) {
      let M = select(Z, H, r < n); let rr = r % n;
      var w = mk(T(0.0));
      for (var c = j + 1u; c < n; c++) { w = w + mul(ly(M + rr * n + c), ly(G + c)); }
      let f = mul(tau, w);
      for (var c = j + 1u; c < n; c++) { sy(M + rr * n + c, ly(M + rr * n + c) - mul(f, cj(ly(G + c)))); }
    }
    storageBarrier();
  }
  //@@QR
  // shifted QR iterations on the active window [lo, hi] (thread 0's state in y[QS..])
  var hi = u32(y[QS]); var its = u32(y[QS + 1u]); var total = u32(y[QS + 2u]);
  for (var step = p(20u); step < p(21u); step++) {
    if (l == 0u) {
      var s = vec4<u32>(0u, hi, 0u, 0u);
      if (hi == 0u || n == 0u) { s.w = 1u; }
      else {
        var lo = hi;
        loop {
          if (lo == 0u) { break; }
          let sub = ab1(ly(H + lo * n + lo - 1u));
          var rf = ab1(ly(H + (lo - 1u) * n + lo - 1u)) + ab1(ly(H + lo * n + lo));
          if (rf == T(0.0)) { rf = T(1.0); }
          if (sub <= EPS * rf) { sy(H + lo * n + lo - 1u, mk(T(0.0))); break; }
          lo = lo - 1u;
        }
        if (lo == hi) { hi = hi - 1u; its = 0u; s.y = hi; if (hi == 0u) { s.w = 1u; } }
        else {
          its += 1u; total += 1u;
          if (total > 30u * n + 30u) { s.w = 1u; y[SB] = max(y[SB], T(1.0)); }
          var mu = wilkinson(ly(H + (hi - 1u) * n + hi - 1u), ly(H + (hi - 1u) * n + hi),
                             ly(H + hi * n + hi - 1u), ly(H + hi * n + hi));
          if (its % 11u == 10u) {
            mu = ly(H + hi * n + hi) + mk(T(0.75) * ab1(ly(H + hi * n + hi - 1u)));
          }
          wmu = mu;
          s.x = lo; s.z = 1u;
        }
      }
      st = s;
    }
    let s = workgroupUniformLoad(&st);
    storageBarrier();
    if (s.w == 1u) { break; }
    if (s.z == 1u) {
      let lo = s.x; let hh = s.y; let mu = wmu;
      for (var k = lo + l; k <= hh; k += WG) { sy(H + k * n + k, ly(H + k * n + k) - mu); }
      storageBarrier();
      for (var k = lo; k < hh; k++) {
        if (l == 0u) {
          let a = ly(H + k * n + k); let bb = ly(H + (k + 1u) * n + k);
          let aa = ab(a);
          var c = T(0.0); var sn = mk(T(1.0));
          if (nz(aa)) {
            let nrm = sqrt(aa * aa + aq(bb));
            c = aa / nrm;
            sn = mul(a / aa, cj(bb)) / nrm;
          }
          sy(G + 2u * k, mk(c)); sy(G + 2u * k + 1u, sn);
        }
        storageBarrier();
        let c = re(ly(G + 2u * k)); let sn = ly(G + 2u * k + 1u);
        for (var j = k + l; j < n; j += WG) {
          let u = ly(H + k * n + j); let v = ly(H + (k + 1u) * n + j);
          sy(H + k * n + j, u * c + mul(sn, v));
          sy(H + (k + 1u) * n + j, v * c - mul(cj(sn), u));
        }
        storageBarrier();
      }
      for (var k = lo; k < hh; k++) {
        let c = re(ly(G + 2u * k)); let sn = ly(G + 2u * k + 1u);
        for (var r = l; r < k + 2u + n; r += WG) {
          let M = select(Z, H, r < k + 2u); let rr = select(r - k - 2u, r, r < k + 2u);
          let u = ly(M + rr * n + k); let v = ly(M + rr * n + k + 1u);
          sy(M + rr * n + k, u * c + mul(cj(sn), v));
          sy(M + rr * n + k + 1u, v * c - mul(sn, u));
        }
        storageBarrier();
      }
      for (var k = lo + l; k <= hh; k += WG) { sy(H + k * n + k, ly(H + k * n + k) + mu); }
      storageBarrier();
    }
  }
  if (l == 0u) { y[QS] = T(hi); y[QS + 1u] = T(its); y[QS + 2u] = T(total); }
"""

# eigenvectors of T (back substitution), V = Z X, normalised
_EIG_VECTORS = """  //@@TRI
  // eigenvectors of T by back substitution, columns p(20)..p(21), one per invocation
  for (var k = p(20u) + l; k < p(21u); k += WG) {
    let lam = ly(H + k * n + k);
    let smin = max(EPS * ab1(lam), T(1e-30));
    for (var i = 0u; i < n; i++) { sy(X + i * n + k, mk(select(T(0.0), T(1.0), i == k))); }
    for (var ii = 0u; ii < k; ii++) {
      let i = k - 1u - ii;
      var s = mk(T(0.0));
      for (var j = i + 1u; j <= k; j++) { s = s + mul(ly(H + i * n + j), ly(X + j * n + k)); }
      var den = ly(H + i * n + i) - lam;
      if (ab1(den) < smin) { den = mk(smin); }
      sy(X + i * n + k, -dv(s, den));
    }
  }
  //@@ZX
  // V = Z X, columns p(20)..p(21)
  let k0 = p(20u); let nk = p(21u) - k0;
  for (var e = l; e < n * nk; e += WG) {
    let i = e / nk; let k = k0 + e % nk;
    var s = mk(T(0.0));
    for (var j = 0u; j <= k; j++) { s = s + mul(ly(Z + i * n + j), ly(X + j * n + k)); }
    sy(VB + i * n + k, s);
  }
  //@@NORM
  // unit norm, the largest component real
  for (var k = l; k < n; k += WG) {
    var nrm = T(0.0); var big = T(-1.0); var pb = 0u;
    for (var i = 0u; i < n; i++) {
      let v = ly(VB + i * n + k); let a = aq(v);
      nrm = nrm + a;
      if (a > big) { big = a; pb = i; }
    }
    let top = ly(VB + pb * n + k);
    let ph = cj(top) / (sqrt(big) * sqrt(nrm));
    for (var i = 0u; i < n; i++) {
      var v = mul(ly(VB + i * n + k), ph);
      if (i == pb) { v.y = T(0.0); }
      sy(VB + i * n + k, v);
    }
  }
"""

_EIG_FINAL = ("  //@@FINAL\n"
              "  for (var k = l; k < n; k += WG) { sy(WB + k, ly(H + k * n + k)); }\n")


def _eig_pairing(vectors: bool) -> str:
    """WGSL of the final stage's tail for real input: each eigenvalue real, or one of
    an exact conjugate pair (with conjugate vectors)."""
    return """  storageBarrier();
  // real input: each eigenvalue is real when its own conjugate is nearer than any other
  // eigenvalue's, else it pairs with the nearest conjugate (when that choice is mutual):
  // the pair becomes exact conjugates, with conjugate vectors. Partners at G's reals.
  for (var i = l; i < n; i += WG) {
    let li = ly(WB + i);
    var best = T(-1.0); var bj = i;
    for (var j = 0u; j < n; j++) {
      if (j != i) {
        let dd = ab(li - cj(ly(WB + j)));
        if (best < T(0.0) || dd < best) { best = dd; bj = j; }
      }
    }
    if (T(2.0) * abs(li.y) <= best) { bj = i; }
    y[2u * G + i] = T(bj);
  }
  storageBarrier();
  for (var i = l; i < n; i += WG) {
    let bj = u32(y[2u * G + i]);
    let li = ly(WB + i);
    if (bj == i) {
      sy(WB + i, mk(li.x));
""" + ("" if not vectors else """      var nrm = T(0.0);
      for (var r = 0u; r < n; r++) { nrm = nrm + aq(mk(ly(VB + r * n + i).x)); }
      nrm = sqrt(nrm);
      for (var r = 0u; r < n; r++) { sy(VB + r * n + i, mk(ly(VB + r * n + i).x / nrm)); }
""") + """    } else if (u32(y[2u * G + bj]) == i && i < bj) {
      var up = i; var dn = bj;
      let avg = (li + cj(ly(WB + bj))) * T(0.5);
      var pos = avg;
      if (avg.y < T(0.0)) { up = bj; dn = i; pos = cj(avg); }
      sy(WB + up, pos); sy(WB + dn, cj(pos));
""" + ("" if not vectors else """      for (var r = 0u; r < n; r++) { sy(VB + r * n + dn, cj(ly(VB + r * n + up))); }
""") + """    }
  }
"""


def eig_source(d: DType, real_input: bool, vectors: bool, stage: str) -> str:
    """Complex arithmetic throughout (``d`` is the complex result dtype): Householder
    reduction to Hessenberg form H = Z^H A Z, shifted QR steps (explicit, Givens, with
    Wilkinson shifts) to the Schur form T, eigenvectors of T by back substitution, then
    V = Z X normalised (unit norm, largest component real). For real input the
    eigenvalues are paired afterwards: each is either real (its own conjugate is
    nearer than any other's) or one of an exact conjugate pair, with conjugate vectors,
    as LAPACK's real routines give.

    params: nb, n, A offset, w base (S), V base (S), status base (real), H base, Z base,
    X base, G base (S: 2n per matrix: Givens rotations, then Householder vectors), QR
    state base (real: hi, iterations, total, 4 per matrix). stage: 'init', 'hess'
    (reflectors p(20)..p(21)), 'qr' (at most p(21) - p(20) steps), 'tri' and 'zx'
    (eigenvector columns p(20)..p(21)), 'norm', 'final'."""
    load = "S(x0[e], T(0.0))" if real_input else "S(x0[2u * e], x0[2u * e + 1u])"
    extra = f"fn la(e: u32) -> S {{ return {load}; }}\n" + _EIG_HELPERS
    src = (prelude(d, 1, extra=extra) + "\n" + _MAIN + _EIG_SCHUR
           + (_EIG_VECTORS if vectors else "") + _EIG_FINAL
           + (_eig_pairing(vectors) if real_input else "") + "}\n")
    return _stage(src, stage)
