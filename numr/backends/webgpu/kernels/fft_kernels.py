"""WGSL for numr's FFTs: Stockham autosort passes (radix 4, 2, 3, 5, 7) and Bluestein's
chirp-z for lengths with larger prime factors.

A complex value is a ``vec2<T>`` (T = f32 / f64, kernels/types.py LAYOUT). Every kernel
binds the parameter arena, its source buffer, one constant table and its result buffer.
The table holds host-computed float64 values cast to T (WGSL has no f64 sin/cos, and
f32 sin/cos are not accurate enough on every adapter): the forward twiddles
``exp(-2 pi i k / L)`` of the length L that is transformed, then, for Bluestein, the chirp
``exp(-pi i j^2 / N)`` (N values) and ``B = FFT_L(conj(chirp))`` (L values), then, for
the packed real transforms below, ``exp(-2 pi i k / n)`` for k <= n/2 (at parameter word
4). The inverse direction uses their conjugates (B is even, so conj(B) is the
inverse-direction B).

The Stockham pass of radix R over L points, with Ns = product of the radices before it
(Govindaraju et al., "High performance discrete Fourier transforms on graphics
processors", 2008): butterfly j reads ``a[j + r L/R]`` (r < R), multiplies element r by
``W_L^(r (j mod Ns) L/(Ns R))``, takes an R-point DFT and writes
``b[(j / Ns) Ns R + j mod Ns + r Ns]``; after all passes b is the transform in natural
order, with no bit reversal.

Two ways to run one 1-D transform over many rows:

* :func:`shared_source`: each row in workgroup memory (loaded, transformed by every
  pass, ping-ponging between two halves, stored, in one dispatch); short rows share a
  workgroup. Bluestein's two inner transforms and the product with B happen in the same
  dispatch.
* rows too long for workgroup memory: :func:`gather_source` (the padded/converted rows,
  contiguous), one :func:`pass_source` dispatch per pass (ping-pong buffers),
  :func:`product_source` (Bluestein's product with B), :func:`scatter_source`.

Rows are read and written through strides: the row index is decoded over the (collapsed)
batch dimensions, so no transpose is materialised. Parameter words of the row kernels:

  0 rows, 1 m (input length along the axis), 2 input offset, 3 input stride along the
  axis, 4 table offset of the packed real transforms' twiddles, 5 output stride along
  the axis, 6 nout (outputs per row), 7-8 scale (T), 9 N (complex transform length),
  10 L (padded length), 11.. batch shape (nb), input batch strides (nb), output batch
  strides (nb).

Input kinds: "c" complex, "r" real (imaginary part 0), "h" complex first half of a
Hermitian sequence of length N (element j > N/2 is conj(x[N - j])), "hr" the same from
a real array. Output kinds: "c" complex, "r" the real part.

Real transforms of even length n = 2N run as complex transforms of length N (the
classic packing): "rp" reads real x as z[j] = x[2j] + i x[2j+1]; output kind "cp" turns
Z = FFT_N(z) into X[k] = E[k] + W_n^k O[k] with E[k] = (Z[k] + conj(Z[N-k])) / 2 and
O[k] = (Z[k] - conj(Z[N-k])) / 2i (k <= N; "cpc": conjugated, for the inverse
direction). "hp" reads a Hermitian half X (imaginary parts of X[0], X[N] ignored, as
NumPy does; "hpc": X conjugated, for the forward direction) as
Z[j] = (X[j] + conj(X[N-j])) + i W_n^-j (X[j] - conj(X[N-j])), whose inverse transform
z gives the real output x[2j] = Re z[j], x[2j+1] = Im z[j] (output kind "rp").
"""

from __future__ import annotations

from .template import HEADER as _PARAMS, WG  # WG: the element-wise kernels' size
_IO = 11  # first batch-shape word of the row kernels


def _complex_helpers(T: str) -> str:
    C = f"vec2<{T}>"
    return (f"fn cmul(a: {C}, b: {C}) -> {C} {{\n"
            f"  return {C}(a.x * b.x - a.y * b.y, a.x * b.y + a.y * b.x);\n}}\n"
            f"fn cj(a: {C}) -> {C} {{ return {C}(a.x, -a.y); }}\n"
            f"fn twf(i: u32) -> {C} {{ return tab[i]; }}\n"
            f"fn twi(i: u32) -> {C} {{ return cj(tab[i]); }}")


def _scale(T: str) -> str:
    if T == "f32":
        return "bitcast<f32>(p(7u))"
    return "bitcast<f64>(u64(p(7u)) | (u64(p(8u)) << 32u))"


def _bases(nb: int) -> str:
    """``bases(row)``: the element offsets (input, output) where row ``row`` starts
    (outputs are fresh arrays: offset 0)."""
    lines = ["fn bases(row: u32) -> vec2<i32> {", "  var r = row;",
             "  var bi = bitcast<i32>(p(2u));", "  var bo = 0;"]
    for k in range(nb - 1, -1, -1):
        n, si, so = _IO + k, _IO + nb + k, _IO + 2 * nb + k
        lines.append(f"  {{ let c = i32(r % p({n}u)); r = r / p({n}u);"
                     f" bi = bi + c * bitcast<i32>(p({si}u));"
                     f" bo = bo + c * bitcast<i32>(p({so}u)); }}")
    lines += ["  return vec2<i32>(bi, bo);", "}"]
    return "\n".join(lines)


def real_source(kind: str) -> bool:
    """Whether input kind ``kind`` reads a real buffer."""
    return kind in ("r", "hr", "rp")


def real_result(kind: str) -> bool:
    """Whether output kind ``kind`` writes a real buffer."""
    return kind in ("r", "rp")


def _loader(T: str, kind: str) -> str:
    """``sample(bi, j)``: element j (< N) of the length-N sequence a row stands for, from
    input buffer ``x`` (zero beyond the input's length m)."""
    C = f"vec2<{T}>"
    raw = f"{C}(x[e], {T}(0))" if real_source(kind) else "x[e]"
    text = (f"fn xin(bi: i32, j: u32) -> {C} {{\n"
            f"  if (j >= p(1u)) {{ return {C}(); }}\n"
            f"  let e = u32(bi + i32(j) * bitcast<i32>(p(3u)));\n"
            f"  return {raw};\n}}\n")
    if kind in ("h", "hr"):
        # Hermitian extension; the imaginary parts of x[0] (and x[N/2]) drop out of the
        # real part that is kept, as in NumPy's c2r transforms.
        text += (f"fn sample(bi: i32, j: u32) -> {C} {{\n  let n = p(9u);\n"
                 f"  if (2u * j <= n) {{ return xin(bi, j); }}\n"
                 f"  return cj(xin(bi, n - j));\n}}")
    elif kind == "rp":
        text += (f"fn sample(bi: i32, j: u32) -> {C} {{\n"
                 f"  return {C}(xin(bi, 2u * j).x, xin(bi, 2u * j + 1u).x);\n}}")
    elif kind in ("hp", "hpc"):
        half = "v" if kind == "hp" else "cj(v)"
        text += (f"fn hx(bi: i32, k: u32) -> {C} {{\n  var v = xin(bi, k);\n"
                 f"  if (k == 0u || k == p(9u)) {{ v.y = {T}(0); }}\n  return {half};\n}}\n"
                 f"fn sample(bi: i32, j: u32) -> {C} {{\n"
                 f"  let a = hx(bi, j);\n  let b = cj(hx(bi, p(9u) - j));\n"
                 f"  let e = cmul(a - b, twi(p(4u) + j));\n"
                 f"  return a + b + {C}(-e.y, e.x);\n}}")
    else:
        text += f"fn sample(bi: i32, j: u32) -> {C} {{ return xin(bi, j); }}"
    return text


def _outputs(T: str, kind: str, read: str, chirp: str | None) -> str:
    """``outv(at, k)``: output k of the row whose transform starts at ``at`` in
    ``read`` (``s`` or ``x``), before scaling; ``put(bo, k, v)`` stores it scaled (its
    real part for a real result). ``chirp``: Bluestein's final chirp ("twf"/"twi")."""
    C = f"vec2<{T}>"
    z = f"cmul({read}[at + i], {chirp}(p(10u) + i))" if chirp else f"{read}[at + i]"
    text = f"fn zv(at: u32, i: u32) -> {C} {{ return {z}; }}\n"
    if kind in ("cp", "cpc"):
        out = "r" if kind == "cp" else "cj(r)"
        text += (f"fn outv(at: u32, k: u32) -> {C} {{\n  let h = p(9u);\n"
                 f"  let a = zv(at, k % h);\n  let b = cj(zv(at, (h - k) % h));\n"
                 f"  let d = (a - b) * {T}(0.5);\n"
                 f"  let r = (a + b) * {T}(0.5) + cmul(twf(p(4u) + k), {C}(d.y, -d.x));\n"
                 f"  return {out};\n}}\n")
    elif kind == "rp":
        text += (f"fn outv(at: u32, k: u32) -> {C} {{\n  let z = zv(at, k / 2u);\n"
                 f"  return {C}(select(z.y, z.x, (k & 1u) == 0u), {T}(0));\n}}\n")
    else:
        text += f"fn outv(at: u32, k: u32) -> {C} {{ return zv(at, k); }}\n"
    val = "v.x * sc" if real_result(kind) else "v * sc"
    return text + (f"fn put(bo: i32, k: u32, v: {C}) {{\n  let sc = {_scale(T)};\n"
                   f"  y[u32(bo + i32(k) * bitcast<i32>(p(5u)))] = {val};\n}}")


def _head(T: str, src: str, out: str) -> str:
    C = f"vec2<{T}>"
    return "\n".join([
        _PARAMS,
        f"@group(0) @binding(1) var<storage, read> x: array<{src}>;",
        f"@group(0) @binding(2) var<storage, read> tab: array<{C}>;",
        f"@group(0) @binding(3) var<storage, read_write> y: array<{out}>;",
        _complex_helpers(T)])


# -- butterflies -------------------------------------------------------------------------

def _butterfly(R: int, a: list[str], o: list[str], inv: bool, LR: str) -> list[str]:
    """WGSL lines: ``o[k] = sum_r a[r] W_R^(r k)`` (W = exp(-+2 pi i / R)); ``LR`` is the
    WGSL of L/R, so that W_R^q is table entry q L/R."""
    tw = "twi" if inv else "twf"
    if R == 2:
        return [f"let {o[0]} = {a[0]} + {a[1]};", f"let {o[1]} = {a[0]} - {a[1]};"]
    if R == 4:
        # times -i (forward) or +i (inverse) of (a1 - a3)
        p = o[0] + "_"
        d = p + "d13"
        rot = f"vec2({d}.y, -{d}.x)" if not inv else f"vec2(-{d}.y, {d}.x)"
        return [f"let {p}s02 = {a[0]} + {a[2]};", f"let {p}d02 = {a[0]} - {a[2]};",
                f"let {p}s13 = {a[1]} + {a[3]};", f"let {d} = {a[1]} - {a[3]};",
                f"let {p}r13 = {rot};",
                f"let {o[0]} = {p}s02 + {p}s13;", f"let {o[2]} = {p}s02 - {p}s13;",
                f"let {o[1]} = {p}d02 + {p}r13;", f"let {o[3]} = {p}d02 - {p}r13;"]
    lines = []
    for k in range(R):
        terms = [a[0]]
        for r in range(1, R):
            q = (r * k) % R
            terms.append(a[r] if q == 0 else f"cmul({a[r]}, {tw}({q}u * {LR}))")
        lines.append(f"let {o[k]} = " + " + ".join(terms) + ";")
    return lines


def radices(n: int) -> list[int] | None:
    """The Stockham radices of n (4s first), or None when n has a prime factor > 7."""
    out = []
    while n % 4 == 0:
        out.append(4)
        n //= 4
    for p in (2, 3, 5, 7):
        while n % p == 0:
            out.append(p)
            n //= p
    return out if n == 1 else None


# -- rows in workgroup memory ------------------------------------------------------------

RADICES = (4, 2, 3, 5, 7)


def bucket(L: int, cap: int) -> tuple[int, int, int]:
    """(threads per row, longest row, rows per workgroup) of the row kernel serving
    length L, where rows of up to ``cap`` points fit in workgroup memory. Short rows
    share a workgroup, so that few threads idle and a CPU adapter's cost per workgroup
    is spread over many rows."""
    for per_row, most, rows in ((4, 16, 16), (16, 64, 4), (64, 256, 1), (128, 512, 1)):
        if L <= most <= cap:
            return per_row, most, rows
    return 256, cap, 1


def row_capacity(room: int, itemsize: int) -> int:
    """The longest row the row kernel holds in ``room`` bytes of workgroup memory (each
    pass reads one half of the row's space and writes the other)."""
    return room // itemsize // 2


def radix_words(L: int) -> list[int]:
    """The parameter words that give the row kernel its passes: how many of each radix
    of RADICES (the order :func:`radices` gives them in)."""
    rads = radices(L)
    return [rads.count(R) for R in RADICES]


def _passes_fn(name: str, inv: bool, TR: int, most: int, rad: int) -> str:
    """``fn name(t, L, o, at) -> u32``: thread t (< TR) of a row's share of the Stockham
    passes over ``s[at..at + L)``, inside the row's space ``s[o..o + 2 most)``; each pass
    writes into the other half and the function returns where the result is. Parameter
    words ``rad ..`` count the passes of each radix: one loop per radix, so the radix
    is a constant of its loop's body (a CPU adapter would run every case of a switch
    on the radix under a mask)."""
    tw = "twi" if inv else "twf"
    loops = []
    for k, R in enumerate(RADICES):
        a = [f"a{r}" for r in range(R)]
        body = [f"let LR = L / {R}u;", f"let stride = L / (Ns * {R}u);",
                f"let dst = 2u * o + {most}u - src;",
                f"for (var j = t; j < LR; j = j + {TR}u) {{",
                "  let w = (j % Ns) * stride;", "  let i = src + j;",
                f"  let d = dst + (j / Ns) * Ns * {R}u + j % Ns;", "  let a0 = s[i];"]
        body += [f"  let a{r} = cmul(s[i + {r}u * LR], {tw}({r}u * w));" for r in range(1, R)]
        body += ["  " + x for x in _butterfly(R, a, [f"o{r}" for r in range(R)], inv, "LR")]
        body += ["  s[d] = o0;"] + [f"  s[d + {r}u * Ns] = o{r};" for r in range(1, R)]
        body += ["}", "workgroupBarrier();", "src = dst;", f"Ns = Ns * {R}u;"]
        loops.append(f"  for (var c = 0u; c < p({rad + k}u); c = c + 1u) {{\n    "
                     + "\n    ".join(body) + "\n  }")
    return (f"fn {name}(t: u32, L: u32, o: u32, at: u32) -> u32 {{\n  var src = at;\n"
            "  var Ns = 1u;\n" + "\n".join(loops) + "\n  return src;\n}")


def shared_source(T: str, in_kind: str, out_kind: str, nb: int, TR: int, most: int,
                  G: int, inv: bool, bluestein: bool) -> str:
    """G rows of up to ``most`` points per workgroup, TR threads each (N, L and the
    passes are parameters; words 11 + 3 nb on count the radices, see
    :func:`radix_words`): load, transform (Bluestein: chirp, forward L-point FFT,
    product with B, inverse L-point FFT, chirp), store. Dispatched as ceil(rows / G)
    workgroups; threads of rows past the end take part in the barriers only."""
    C = f"vec2<{T}>"
    src = T if real_source(in_kind) else C
    out = T if real_result(out_kind) else C
    rad = _IO + 3 * nb
    chirp = "twi" if inv else "twf"
    parts = [_head(T, src, out), f"alias C = {C};",
             f"var<workgroup> s: array<C, {2 * G * most}>;",
             _bases(nb), _loader(T, in_kind),
             _outputs(T, out_kind, "s", chirp if bluestein else None)]
    body = [f"let t = l % {TR}u;",
            f"let row = (wg.x + wg.y * nw.x) * {G}u + l / {TR}u;",
            "let ok = row < p(0u);", "let b = bases(select(0u, row, ok));",
            "let N = p(9u);", "let L = p(10u);", f"let o = (l / {TR}u) * {2 * most}u;"]
    if bluestein:
        parts += [_passes_fn("fwd", False, TR, most, rad), _passes_fn("bwd", True, TR, most, rad)]
        body += [f"for (var j = t; j < L; j = j + {TR}u) {{",
                 f"  if (ok && j < N) {{ s[o + j] = cmul(sample(b.x, j), {chirp}(L + j)); }}"
                 " else { s[o + j] = C(); }", "}", "workgroupBarrier();",
                 "let f = fwd(t, L, o, o);",
                 f"for (var j = t; j < L; j = j + {TR}u) {{",
                 f"  s[f + j] = cmul(s[f + j], {chirp}(L + N + j));", "}",
                 "workgroupBarrier();", "let at = bwd(t, L, o, f);",
                 f"for (var k = t; ok && k < p(6u); k = k + {TR}u) {{ put(b.y, k, outv(at, k)); }}"]
    else:
        parts.append(_passes_fn("run", inv, TR, most, rad))
        body += [f"for (var j = t; j < L; j = j + {TR}u) {{",
                 "  if (ok) { s[o + j] = sample(b.x, j); } else { s[o + j] = C(); }", "}",
                 "workgroupBarrier();", "let at = run(t, L, o, o);",
                 f"for (var k = t; ok && k < p(6u); k = k + {TR}u) {{ put(b.y, k, outv(at, k)); }}"]
    main = (f"@compute @workgroup_size({TR * G})\n"
            "fn main(@builtin(workgroup_id) wg: vec3<u32>,\n"
            "        @builtin(local_invocation_index) l: u32,\n"
            "        @builtin(num_workgroups) nw: vec3<u32>) {\n  "
            + "\n  ".join(body) + "\n}")
    return "\n".join(parts + [main])


# -- rows in global memory ---------------------------------------------------------------

_MAIN = (f"@compute @workgroup_size({WG})\n"
         "fn main(@builtin(global_invocation_id) gid: vec3<u32>,\n"
         "        @builtin(num_workgroups) nw: vec3<u32>) {\n"
         f"  let g = gid.x + gid.y * nw.x * {WG}u;\n")


def gather_source(T: str, in_kind: str, nb: int, inv: bool, bluestein: bool) -> str:
    """``y[row L + j]``: the row's sample j (times the chirp for Bluestein), 0 for j >= N."""
    C = f"vec2<{T}>"
    src = T if real_source(in_kind) else C
    chirp = "twi" if inv else "twf"
    v = f"cmul(sample(b.x, j), {chirp}(L + j))" if bluestein else "sample(b.x, j)"
    return "\n".join([
        _head(T, src, C), _bases(nb), _loader(T, in_kind),
        _MAIN + "  let L = p(10u);\n  if (g >= p(0u) * L) { return; }\n"
        "  let row = g / L;\n  let j = g % L;\n  let b = bases(row);\n"
        f"  if (j < p(9u)) {{ y[g] = {v}; }} else {{ y[g] = {C}(); }}\n}}"])


def scatter_source(T: str, out_kind: str, nb: int, inv: bool, bluestein: bool) -> str:
    """Output k of each row from the transformed row ``x[row L ..]`` (times the chirp
    for Bluestein)."""
    C = f"vec2<{T}>"
    out = T if real_result(out_kind) else C
    chirp = "twi" if inv else "twf"
    return "\n".join([
        _head(T, C, out), _bases(nb), _outputs(T, out_kind, "x", chirp if bluestein else None),
        _MAIN + "  let L = p(10u);\n  let nout = p(6u);\n"
        "  if (g >= p(0u) * nout) { return; }\n"
        "  let row = g / nout;\n  let k = g % nout;\n"
        "  put(bases(row).y, k, outv(row * L, k));\n}"])


def pass_source(T: str, R: int, inv: bool) -> str:
    """One Stockham pass of radix R over contiguous rows of L points.
    Parameters: 0 butterflies in all (rows L / R), 1 L, 2 Ns."""
    C = f"vec2<{T}>"
    tw = "twi" if inv else "twf"
    lines = ["  if (g >= p(0u)) { return; }", "  let L = p(1u);", "  let Ns = p(2u);",
             f"  let LR = L / {R}u;", "  let row = g / LR;", "  let j = g % LR;",
             "  let base = row * L;", f"  let step = (j % Ns) * (L / (Ns * {R}u));"]
    a = []
    for r in range(R):
        src = f"x[base + j + {r}u * LR]"
        lines.append(f"  let a{r} = {src};" if r == 0 else
                     f"  let a{r} = cmul({src}, {tw}({r}u * step));")
        a.append(f"a{r}")
    lines += ["  " + t for t in _butterfly(R, a, [f"o{r}" for r in range(R)], inv, "LR")]
    lines.append(f"  let d = base + (j / Ns) * Ns * {R}u + j % Ns;")
    lines += [f"  y[d + {r}u * Ns] = o{r};" for r in range(R)]
    return "\n".join([_head(T, C, C), _MAIN + "\n".join(lines) + "\n}"])


def product_source(T: str, inv: bool) -> str:
    """Bluestein's pointwise product with B: ``y[g] = x[g] B[g mod L]``.
    Parameters: 0 elements, 1 L, 2 offset of B in the table."""
    tw = "twi" if inv else "twf"
    C = f"vec2<{T}>"
    return "\n".join([_head(T, C, C), _MAIN
                      + "  if (g >= p(0u)) { return; }\n"
                      f"  y[g] = cmul(x[g], {tw}(p(2u) + g % p(1u)));\n}}"])
