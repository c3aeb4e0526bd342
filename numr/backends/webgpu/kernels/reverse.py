"""Test only: every kernel's invocations of a workgroup in reverse order.

Lavapipe (CI's adapter) runs a workgroup's invocations in order, a SIMD chunk at a time,
each chunk up to the next barrier before the following chunk starts. A kernel that
reads workgroup memory another invocation writes without a ``workgroupBarrier()``
between then still gives the right answer whenever the writer has the lower index. With
``NUMR_TEST_REVERSE_INVOCATIONS=1`` every entry point is rewritten so that the invocation
lavapipe runs first does the work of the last one: invocation ``i`` of a workgroup of
``S`` takes the local index ``S - 1 - i`` (and the local and global ids that follow from
it), so the same missing barrier now reads before the write and the tests see it.

A kernel that uses subgroups keeps each subgroup whole (a shuffle, broadcast or scan
works on the lanes in their hardware order): the subgroups are reversed instead, lane
``j`` of subgroup ``k`` taking the place of lane ``j`` of subgroup ``nsg - 1 - k``. The
lanes of one subgroup run in lock step on lavapipe, so nothing is hidden there that a
reversal inside a subgroup would expose.

:func:`hook` is the one call in ``Runtime._compile``; with the switch off it returns the
kernel's source function unchanged (no cost, no difference in what is compiled).
"""

from __future__ import annotations

import re
from typing import Callable

from .... import _config

_MAIN = re.compile(r"@workgroup_size\(([^)]*)\)\s*fn\s+main\s*\(")
_PARAM = re.compile(r"@builtin\((\w+)\)\s*(\w+)\s*:\s*([\w<>]+)")
# The builtins this rewrite changes, and those it reads to do it.
_MOVED = ("local_invocation_index", "local_invocation_id", "global_invocation_id",
          "subgroup_id")
_TYPES = {"local_invocation_index": "u32", "workgroup_id": "vec3<u32>",
          "subgroup_id": "u32", "num_subgroups": "u32", "subgroup_size": "u32"}


def hook(source: Callable[[], str]) -> Callable[[], str]:
    """``source`` itself, or (with NUMR_TEST_REVERSE_INVOCATIONS=1) a function giving its
    code with the invocations reversed."""
    if not _config.settings().test_reverse_invocations:
        return source
    return lambda: reverse(source())


def _size(text: str) -> tuple[int, int, int]:
    dims = [int(re.fullmatch(r"\s*(\d+)[ui]?\s*", d).group(1)) for d in text.split(",")
            if d.strip()]
    return tuple(dims + [1] * (3 - len(dims)))  # type: ignore[return-value]


def reverse(code: str) -> str:
    """``code`` with its ``main`` entry point's invocations reversed (see the module).
    Code already reversed (a test that reverses a kernel itself, run with the switch on)
    is returned as it is: twice would declare the renamed builtins twice."""
    m = _MAIN.search(code)
    if m is None or "numr_rv_" in code:
        return code
    X, Y, Z = _size(m.group(1))
    close = code.index(")", m.end())
    while code.count("(", m.end(), close) > code.count(")", m.end(), close):
        close = code.index(")", close + 1)
    params = {b: (name, typ) for b, name, typ in _PARAM.findall(code[m.end():close])}
    sub = "subgroup" in code
    name = {b: p[0] for b, p in params.items()}
    decl = []
    for b in ("local_invocation_index", "workgroup_id") + (
            ("subgroup_id", "num_subgroups", "subgroup_size") if sub else ()):
        if b in _MOVED or b not in name:  # read under a private name
            decl.append(f"@builtin({b}) numr_rv_{b}: {_TYPES[b]}")
    keep = [f"@builtin({b}) {n}: {t}" for b, (n, t) in params.items()
            if b not in _MOVED and not any(d.startswith(f"@builtin({b})") for d in decl)]

    def raw(b):
        return f"numr_rv_{b}" if b in _MOVED or b not in name else name[b]

    li = raw("local_invocation_index")
    if sub:  # whole subgroups, in reverse order
        sid, nsg, sgs = raw("subgroup_id"), raw("num_subgroups"), raw("subgroup_size")
        lines = [f"let numr_rv_l = {li} + ({nsg} - 1u - 2u * {sid}) * {sgs};"]
        if "subgroup_id" in name:
            lines.append(f"let {name['subgroup_id']} = {nsg} - 1u - {sid};")
    else:
        lines = [f"let numr_rv_l = {X * Y * Z - 1}u - {li};"]
    lid = f"vec3<u32>(numr_rv_l % {X}u, (numr_rv_l / {X}u) % {Y}u, numr_rv_l / {X * Y}u)"
    if "local_invocation_index" in name:
        lines.append(f"let {name['local_invocation_index']} = numr_rv_l;")
    if "local_invocation_id" in name:
        lines.append(f"let {name['local_invocation_id']} = {lid};")
    if "global_invocation_id" in name:
        lines.append(f"let {name['global_invocation_id']} = {raw('workgroup_id')} * "
                     f"vec3<u32>({X}u, {Y}u, {Z}u) + {lid};")
    body = code.index("{", close) + 1
    return (code[:m.end()] + ", ".join(keep + decl) + code[close:body] + "\n  "
            + "\n  ".join(lines) + code[body:])
