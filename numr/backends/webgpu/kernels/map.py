"""The map template: ``out[i] = f(operands at i, i)`` over a C-contiguous output.

Operands are arrays (contiguous in the output's shape: ``e = offset + i``; otherwise
strided with broadcast/negative strides decoded from the output's coordinates) or
Python scalars passed as parameter bits. Adjacent dimensions that every strided operand
walks evenly are merged first, so most kernels see one or two dimensions. A packed
output (bool, 8/16-bit) is written a whole 32-bit word per invocation, so invocations
never race on a word.
"""

from __future__ import annotations

import math
import struct
from typing import Any, Sequence

import numpy as np

from ...._dtypes import DType
from ..array import GPUArray, new
from . import expressions as wops
from .types import LAYOUT, bits_expr, ctype, load_fn

WG = 256
_NAMES = "abcdefgh"


def scalar_words(v: Any, d: DType) -> list[int]:
    """The parameter words of Python scalar ``v`` as a compute value of dtype ``d``."""
    ct = ctype(d)
    if ct == "bool":
        return [1 if v else 0]
    if ct == "f32":
        if d.name == "float16":
            v = float(np.float16(v))  # rounded to the dtype first, as NumPy does
        return [struct.unpack("<I", struct.pack("<f", v))[0]]
    if ct == "f64":
        q = struct.unpack("<Q", struct.pack("<d", v))[0]
        return [q & 0xFFFFFFFF, q >> 32]
    v = int(v)
    if ct in ("i64", "u64"):
        q = v & 0xFFFFFFFFFFFFFFFF
        return [q & 0xFFFFFFFF, q >> 32]
    return [v & 0xFFFFFFFF]


def _scalar_load(ct: str, k: int) -> str:
    if ct == "bool":
        return f"p({k}u) != 0u"
    if ct == "u32":
        return f"p({k}u)"
    if ct in ("f32", "i32"):
        return f"bitcast<{ct}>(p({k}u))"
    return f"bitcast<{ct}>(u64(p({k}u)) | (u64(p({k + 1}u)) << 32u))"


def _collapse(shape: tuple, strided: list[tuple]) -> tuple[tuple, list[tuple]]:
    """Drop length-1 dimensions and merge neighbours every operand walks evenly."""
    keep = [k for k, n in enumerate(shape) if n != 1]
    shape = [shape[k] for k in keep]
    strided = [[st[k] for k in keep] for st in strided]
    k = len(shape) - 1
    while k > 0:
        if all(st[k - 1] == st[k] * shape[k] for st in strided):
            shape[k - 1] *= shape[k]
            del shape[k]
            for st in strided:
                st[k - 1] = st[k]
                del st[k]
        k -= 1
    return tuple(shape), [tuple(st) for st in strided]


def source(name: str, expr: str, specs: tuple, out: DType, ndim: int) -> str:
    """WGSL for a map kernel. ``specs``: per operand (dtype, 'c' | 's' | 'k')."""
    lines = ["@group(0) @binding(0) var<uniform> P: array<vec4<u32>, 32>;",
             "fn p(k: u32) -> u32 { return P[k >> 2u][k & 3u]; }"]
    arrays = [j for j, (_, lay) in enumerate(specs) if lay != "k"]
    for b, j in enumerate(arrays):
        d = specs[j][0]
        lines.append(f"@group(0) @binding({b + 1}) var<storage, read> x{j}: "
                     f"array<{LAYOUT[d.name][0]}>;")
        lines.append(load_fn(f"ld{j}", f"x{j}", d))
    lines.append(f"@group(0) @binding({len(arrays) + 1}) var<storage, read_write> y: "
                 f"array<{LAYOUT[out.name][0]}>;")
    cts = {ctype(d) for d, _ in specs if d.kind == "float"}
    helper_text = "\n".join(wops.helpers(expr, ct) for ct in sorted(cts | {ctype(out)}))
    lines.append(helper_text)
    body = []
    k = 1 + ndim
    if any(lay == "s" for _, lay in specs):
        body.append("var r = i;")
        for dim in range(ndim - 1, 0, -1):
            body.append(f"let c{dim} = r % p({1 + dim}u); r = r / p({1 + dim}u);")
        body.append("let c0 = r;")
    for j, (d, lay) in enumerate(specs):
        v = _NAMES[j]
        if lay == "c":
            body.append(f"let {v} = ld{j}(p({k}u) + i);")
            k += 1
        elif lay == "s":
            terms = " + ".join(f"i32(c{dim}) * bitcast<i32>(p({k + 1 + dim}u))"
                               for dim in range(ndim))
            body.append(f"let {v} = ld{j}(u32(bitcast<i32>(p({k}u)) + {terms or '0'}));")
            k += 1 + ndim
        else:
            body.append(f"let {v} = {_scalar_load(ctype(d), k)};")
            k += 2 if ctype(d) in ("f64", "i64", "u64") else 1
    oct_ = ctype(out)
    lines.append(f"fn elem(i: u32) -> {oct_} {{\n  " + "\n  ".join(body)
                 + f"\n  return {expr};\n}}")
    per_word = LAYOUT[out.name][2]
    main = ("@compute @workgroup_size(256)\nfn main(@builtin(global_invocation_id) g: "
            "vec3<u32>, @builtin(num_workgroups) nw: vec3<u32>) {\n"
            "  let t = g.x + g.y * nw.x * 256u;\n  let n = p(0u);\n")
    if per_word == 1:
        main += "  if (t >= n) { return; }\n  y[t] = elem(t);\n}"
    else:
        width = 32 // per_word
        main += (f"  let i0 = t * {per_word}u;\n  if (i0 >= n) {{ return; }}\n"
                 f"  var w = 0u;\n  for (var j = 0u; j < {per_word}u; j++) {{\n"
                 f"    let i = i0 + j;\n    if (i < n) {{ let v = elem(i); "
                 f"w = w | ({bits_expr(out, 'v')} << (j * {width}u)); }}\n  }}\n"
                 f"  y[t] = w;\n}}")
    lines.append(main)
    return "\n".join(lines)


def launch(rt: Any, name: str, expr: str, operands: Sequence[tuple[Any, DType]],
           out: DType, shape: tuple) -> GPUArray:
    """Run a map kernel: ``operands`` are (GPUArray or Python scalar, dtype) pairs, the
    arrays already broadcastable to ``shape``; ``expr`` is the WGSL of the result."""
    result = new(rt, shape, out)
    n = result.size
    if n == 0:
        return result
    nd = len(shape)
    strided_idx = []
    specs = []
    for j, (x, d) in enumerate(operands):
        if type(x) is not GPUArray:
            specs.append((d, "k"))
        elif x.shape == shape and x.contiguous:
            specs.append((d, "c"))
        else:
            specs.append((d, "s"))
            strided_idx.append(j)
    if strided_idx:
        full = []
        for j in strided_idx:
            x = operands[j][0]
            lead = nd - x.ndim
            st = [0] * lead + [s if m != 1 else 0 for m, s in zip(x.shape, x.strides)]
            full.append(st)
        cshape, cstrides = _collapse(shape, full)
    else:
        cshape, cstrides = (), []
    ndim = len(cshape)
    params = [n, *cshape]
    blocks = []
    si = 0
    for j, (x, d) in enumerate(operands):
        lay = specs[j][1]
        if lay == "k":
            params += scalar_words(x, d)
            continue
        blocks.append(x.storage.block)
        params.append(x.offset & 0xFFFFFFFF)
        if lay == "s":
            params += [s & 0xFFFFFFFF for s in cstrides[si]]
            si += 1
    blocks.append(result.storage.block)
    key = ("map", name, tuple((d.name, lay) for d, lay in specs), out.name, ndim)
    per_word = LAYOUT[out.name][2]
    threads = -(-n // per_word)
    rt.dispatch(key, lambda: source(name, expr, tuple(specs), out, ndim), blocks, params,
                -(-threads // WG))
    return result


def contiguous(rt: Any, x: GPUArray) -> GPUArray:
    """``x`` itself if C-contiguous from offset 0, else a contiguous copy."""
    if x.offset == 0 and x.contiguous:
        return x
    return launch(rt, "copy", "a", [(x, x.dtype)], x.dtype, x.shape)


def shape_size(shape: tuple) -> int:
    return math.prod(shape)
