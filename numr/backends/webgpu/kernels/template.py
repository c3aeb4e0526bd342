"""The layer every WGSL kernel template stands on: the parameter block, the workgroup
size, storage bindings, the entry point of one invocation per item, whole-word
specialisation of a text, and the one workgroup scan.

Every kernel reads its parameters (shapes, strides, offsets, scalars as u32 words) from
one slot of the runtime's uniform arena at binding 0 (``p(k)`` is word ``k``), and binds
its buffers at 1.., the last one written (runtime.Runtime._layout). ``HEADER`` says so
once for every template.
"""

from __future__ import annotations

import re

from ..runtime import SLOT_WORDS

WG = 256   # invocations per workgroup of every template (WebGPU guarantees 256)

HEADER = (f"@group(0) @binding(0) var<uniform> P: array<vec4<u32>, {SLOT_WORDS // 4}>;\n"
          "fn p(k: u32) -> u32 { return P[k >> 2u][k & 3u]; }")
# The last word of every parameter slot, which no kernel's parameters reach
# (runtime.packer allows SLOT_WORDS - 1 words): always 0, but a compiler cannot know it,
# so expressions.fence_T or-s it into a value to hide the value's arithmetic.
FENCE_WORD = f"P[{SLOT_WORDS // 4 - 1}u].w"


def bindings(names: list[str], elem: str = "u32", atomic_last: bool = False) -> str:
    """Storage bindings 1.. for ``names``, arrays of ``elem``; the last one is written
    (of ``atomic<u32>`` with ``atomic_last``)."""
    lines = []
    for i, nm in enumerate(names):
        last = i == len(names) - 1
        access = "read_write" if last else "read"
        e = "atomic<u32>" if last and atomic_last else elem
        lines.append(f"@group(0) @binding({i + 1}) var<storage, {access}> {nm}: array<{e}>;")
    return "\n".join(lines)


def flat_main(body: str, index: str = "t", count: str = "p(0u)", wg: int = WG) -> str:
    """An entry point of one invocation per item ``index < count`` (workgroups spread
    over x and y beyond the per-dimension limit, as the runtime dispatches them)."""
    return (f"@compute @workgroup_size({wg})\n"
            "fn main(@builtin(global_invocation_id) g: vec3<u32>,\n"
            "        @builtin(num_workgroups) nw: vec3<u32>) {\n"
            f"  let {index} = g.x + g.y * nw.x * {wg}u;\n"
            f"  if ({index} >= {count}) {{ return; }}\n" + body + "\n}")


def specialise(text: str, names: dict[str, str]) -> str:
    """``text`` with each whole word ``k`` of ``names`` replaced by ``names[k]`` (type
    and constant placeholders of a template)."""
    for k, v in names.items():
        text = re.sub(rf"\b{k}\b", v, text)
    return text


def block_scan(fn: str, arr: str, ty: str, team: int, comb: str = "{a} + {b}") -> str:
    """WGSL declaring workgroup array ``arr`` (``WG`` values of ``ty``) and ``fn(l, q)``,
    which every invocation of the workgroup calls (uniformly) after storing its value in
    ``arr[l]``: afterwards ``arr[l]`` is ``comb`` of the values of lanes ``l - q .. l``
    (a team is ``team`` neighbouring lanes; ``q`` is the lane's place in its team), an
    inclusive Hillis-Steele scan. ``comb``: an expression of ``{a}`` (the earlier
    value) and ``{b}``.

    The first barrier makes every lane's store visible before any lane reads another's;
    each step reads, waits, writes and waits, so no lane reads a value of the step
    being written (tests/backends/webgpu/test_reverse_invocations.py runs it in
    reverse order, which exposes a missing one on lavapipe)."""
    step = comb.format(a=f"{arr}[l - d]", b="t")
    return f"""var<workgroup> {arr}: array<{ty}, {WG}>;
fn {fn}(l: u32, q: u32) {{
  workgroupBarrier();
  for (var d = 1u; d < {team}u; d = d << 1u) {{
    var t = {arr}[l];
    if (q >= d) {{ t = {step}; }}
    workgroupBarrier();
    {arr}[l] = t;
    workgroupBarrier();
  }}
}}"""
