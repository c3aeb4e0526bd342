"""Arrays larger than one storage binding: storage in pieces, kernels that cross them.

An adapter binds at most ``maxStorageBufferBindingSize`` bytes of a buffer to one
binding (lavapipe: 128 MiB; the H200 through wgpu: 2 GiB) and creates buffers of at
most ``maxBufferSize``. A storage larger than :func:`piece_bytes` is therefore a
:class:`Pieces` block: a row of separate buffers of ``piece_bytes`` each (the last one
shorter), one binding each.

Kernels need not know: every kernel indexes its arrays by one global element index, and
when a dispatch binds a Pieces block the runtime compiles a variant of the kernel's WGSL
(:func:`rewrite`) in which that binding is declared once per piece and every access
``name[i]`` picks the piece from the high bits of ``i``: reads through a generated load
function, writes (and atomics, which take a pointer) by a ``switch`` over the pieces
around the statement. One mechanism for every kernel (elementwise, reductions, scans,
gathers, sorts, matmul, numr.nn), strided views and broadcasts included, with no extra
dispatch, copy or split of the work; arrays of ordinary size never see it.

Limits that remain: an element index is a u32 in every kernel, so an array holds fewer
than 2**32 elements; and a dispatch binds at most the adapter's
``maxStorageBuffersPerShaderStage`` pieces in all (lavapipe: 32, so three operands of
1.25 GiB each).
"""

from __future__ import annotations

import re
from typing import Any

# An element index of every kernel is a u32.
MAX_ELEMENTS = 2**32 - 1


def piece_bytes(limits: dict) -> int:
    """The size of one piece: the largest power of two that one buffer and one binding
    both allow (a multiple of every element's size and of the offset alignments)."""
    top = min(limits["max-buffer-size"], limits["max-storage-buffer-binding-size"])
    return 1 << (top.bit_length() - 1)


class Pieces:
    """One pooled storage made of several buffers (see the module's note). Stands where a
    Block does (in pools, bind group keys, ``Storage.block``); ``nbytes`` is the whole."""

    __slots__ = ("parts", "nbytes", "serial")

    def __copy__(self):  # one per set of buffers, ever (see runtime.Block)
        return self

    def __deepcopy__(self, memo):
        return self

    def __init__(self, parts: list, nbytes: int, serial: int):
        self.parts = parts      # runtime.Block per piece, in order
        self.nbytes = nbytes
        self.serial = serial

    @property
    def buffer(self):
        raise BufferError(f"an array of {self.nbytes} bytes spans {len(self.parts)} WebGPU "
                          f"buffers (larger than the adapter's largest binding); it has "
                          f"no single buffer to export")


def ranges(nbytes: int, piece: int, offset: int, size: int) -> list[tuple[int, int, int]]:
    """(piece index, offset in the piece, bytes) covering ``size`` bytes from byte
    ``offset`` of a Pieces storage of ``piece``-byte pieces."""
    out = []
    end = offset + size
    while offset < end:
        k, at = divmod(offset, piece)
        n = min(piece - at, end - offset)
        out.append((k, at, n))
        offset += n
    return out


# -- the WGSL rewrite --------------------------------------------------------------------

_DECL = re.compile(r"@group\(0\)\s*@binding\((\d+)\)\s*var<storage,\s*(read|read_write)>"
                   r"\s*(\w+)\s*:\s*array<(.+?)>\s*;")
_SCALAR = {"u32": 4, "i32": 4, "f32": 4, "f16": 2, "f64": 8, "i64": 8, "u64": 8}


def _elem_bytes(t: str) -> int:
    t = t.replace(" ", "")
    m = re.fullmatch(r"atomic<(\w+)>", t)
    if m:
        return _SCALAR[m.group(1)]
    if t in _SCALAR:
        return _SCALAR[t]
    m = re.fullmatch(r"vec([234])<(\w+)>", t)
    if m:
        n = int(m.group(1))
        return (4 if n == 3 else n) * _SCALAR[m.group(2)]
    raise NotImplementedError(f"webgpu: no piecewise binding for array<{t}>")


def _close(src: str, i: int) -> int:
    """The index of the bracket closing the one opened at ``src[i]``."""
    depth = 0
    for j in range(i, len(src)):
        c = src[j]
        if c in "[(":
            depth += 1
        elif c in "])":
            depth -= 1
            if depth == 0:
                return j
    raise ValueError("webgpu: unbalanced brackets in a kernel")


def _statement_start(src: str, i: int) -> int:
    j = i - 1
    while j >= 0 and src[j] not in ";{}":
        j -= 1
    return j + 1


def _statement_end(src: str, i: int) -> int:
    depth = 0
    for j in range(i, len(src)):
        c = src[j]
        if c in "([":
            depth += 1
        elif c in ")]":
            depth -= 1
        elif c == ";" and depth <= 0:  # the call taking &name[i] closes first
            return j + 1
    raise ValueError("webgpu: a statement without its ';' in a kernel")


class _Binding:
    def __init__(self, name: str, access: str, elem: str, count: int, piece: int):
        self.name, self.access, self.elem, self.count = name, access, elem, count
        per = piece // _elem_bytes(elem)
        self.shift = per.bit_length() - 1
        self.mask = per - 1

    def load_fn(self) -> str:
        if self.elem.replace(" ", "").startswith("atomic"):
            return ""
        n = self.name
        body = "".join(f"  if (c == {k}u) {{ return {n}_k{k}[l]; }}\n"
                       for k in range(self.count - 1))
        return (f"fn {n}_ld(e: u32) -> {self.elem} {{\n  let c = e >> {self.shift}u;\n"
                f"  let l = e & {self.mask}u;\n{body}"
                f"  return {n}_k{self.count - 1}[l];\n}}")


def rewrite(src: str, counts: tuple, piece: int) -> str:
    """``src`` with binding ``b`` (1-based, in declaration number) split into
    ``counts[b - 1]`` pieces of ``piece`` bytes each; bindings renumbered in order."""
    decls = list(_DECL.finditer(src))
    aliases = dict(re.findall(r"\balias\s+(\w+)\s*=\s*([^;]+);", src))
    split: dict[str, _Binding] = {}
    out, last, number = [], 0, 1
    by_number = {int(m.group(1)): m for m in decls}
    renumber = {}
    for b in sorted(by_number):
        k = counts[b - 1]
        renumber[b] = (number, k)
        number += k
    for m in decls:
        b = int(m.group(1))
        first, k = renumber[b]
        name, access, elem = m.group(3), m.group(2), m.group(4)
        out.append(src[last:m.start()])
        if k == 1:
            out.append(f"@group(0) @binding({first}) var<storage, {access}> {name}: "
                       f"array<{elem}>;")
        else:
            size_of = elem
            for _ in range(4):  # type aliases (alias T = f32; alias S = vec2<T>;)
                size_of = re.sub(r"\w+", lambda w: aliases.get(w.group(0), w.group(0)), size_of)
            bd = split[name] = _Binding(name, access, size_of, k, piece)
            out.append("\n".join(f"@group(0) @binding({first + j}) var<storage, {access}> "
                                 f"{name}_k{j}: array<{elem}>;" for j in range(k)))
            out.append("\n" + bd.load_fn())
        last = m.end()
    out.append(src[last:])
    text = "".join(out)
    if not split:
        return text
    return _accesses(text, split)


def _accesses(src: str, split: dict, top: bool = True) -> str:
    """Every ``name[i]`` of a split binding rewritten: reads by its load function, writes
    and pointers (``&name[i]``) by a switch over the pieces around the statement."""
    pat = re.compile(r"(?<![\w.])(" + "|".join(map(re.escape, split)) + r")\s*\[")
    res, pos = [], 0
    for m in pat.finditer(src):
        if m.start() < pos:
            continue
        if top and _writes(src, m.start()):
            continue  # its index and value are rewritten as the scan goes on
        open_ = m.end() - 1
        close = _close(src, open_)
        inner = _accesses(src[open_ + 1:close], split, False)
        res.append(src[pos:m.start()])
        res.append(f"{m.group(1)}_ld(u32({inner}))")
        pos = close + 1
    res.append(src[pos:])
    src = "".join(res)
    if not top:
        return src
    # Writes, one statement at a time, the last first so earlier positions stay valid.
    while True:
        target = None
        for m in pat.finditer(src):
            if _writes(src, m.start()):
                target = m
        if target is None:
            return src
        src = _switch(src, target, split[target.group(1)])


def _writes(src: str, i: int) -> bool:
    """Whether the access at ``i`` is written: it starts its statement (an assignment)
    or its address is taken (an atomic)."""
    before = src[:i].rstrip()
    if not before:
        return True
    return before[-1] in ";{}" or (before[-1] == "&" and not before.endswith("&&"))


def _switch(src: str, m: Any, bd: _Binding) -> str:
    open_ = m.end() - 1
    close = _close(src, open_)
    inner = src[open_ + 1:close]
    s0 = _statement_start(src, m.start())
    s1 = _statement_end(src, close + 1)
    head = src[s0:m.start()]
    if re.match(r"\s*(let|var|const)\b", head):
        raise NotImplementedError("webgpu: a pointer into a piecewise binding inside a "
                                  "declaration")
    tail = src[close + 1:s1]
    cases = []
    for k in range(bd.count):
        cases.append(f"case {k}u: {{ {head.strip()}{bd.name}_k{k}[pc_e & {bd.mask}u]"
                     f"{tail.strip()} }}")
    cases.append("default: {}")  # past the last piece: dropped, as WebGPU drops it
    block = (f"{{ let pc_e = u32({inner}); switch (pc_e >> {bd.shift}u) {{ "
             + " ".join(cases) + " } }")
    lead = src[s0:m.start()][:len(head) - len(head.lstrip())]
    return src[:s0] + lead + block + src[s1:]
