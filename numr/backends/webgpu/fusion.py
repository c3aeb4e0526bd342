"""Fused elementwise chains (issue 20): an elementwise op is not recorded at once; it
becomes the runtime's *pending group*, which the next elementwise op joins when it
consumes the group's last result. The group is recorded as one map kernel when anything
else comes first (see ``Runtime.group`` and docs/ARCHITECTURE.md, "Fused elementwise
chains", for the rule).

The result of a pending op is a GPUArray without storage (its ``storage`` slot unset):
the first read of ``x.storage`` (any kernel binding it, a view, a read back) records the
group through the ``GPUArray.storage`` property, so no caller needs to know about
fusion (hot paths read the slot ``_storage`` and fall back to the property).

Bit-identical to the unfused ops: each op keeps its own WGSL expression (one function
per op, in the op's own compute type), each intermediate is rounded as a store and load
would round it (float16/bfloat16 to their bits, 8/16-bit integers wrapped) and passed
through ``fence_T`` (floats), so that no driver contracts a multiply and an add across
two ops into an fma or reassociates across them (lavapipe rewrites (a + b) - a to b).
Nothing is reordered: the group is recorded before any other dispatch, upload or read
back of the runtime (``Runtime.record`` and the transfers drain it first).

The structure of a group's kernel (its ops, which operands are leaves, which are earlier
results) is a node of a trie of :class:`Step` objects, one dictionary look-up an op;
the WGSL and the launch plan are made once per (step, leaf layouts, shape, written
intermediates).
"""

from __future__ import annotations

import math
import struct
import sys
from typing import Any, Sequence

from ... import _config
from ..._dtypes import DType
from .array import GPUArray, c_strides
from .kernels import expressions as wops
from .kernels import map as M
from .kernels.types import LAYOUT, bits_expr, bf16_bits, ctype
from .pieces import Pieces
from .runtime import (SLOT_BYTES, SLOT_WORDS, Storage, remember, _acquire, _gc_off, _gc_on,
                      _gc_resume, _release, _DISPATCH, _SET_BIND_GROUP, _SET_PIPELINE,
                      _handle)

# Ops of one kernel at most: the WGSL (one function an op) and its compile time stay
# small; a longer chain is several kernels of this many ops.
MAX_OPS = 32
# Trie nodes kept at most; beyond, new structures run unfused (a program that builds
# chains of ever new shapes of ops would otherwise grow it without bound).
MAX_STEPS = 50000

_new = object.__new__
_steps = 0


# Operand codes in a trie key: an index >= 0 is a leaf already in the group; new leaves
# are appended in operand order.
_TAIL, _SCALAR, _ARRAY = -1, -2, -3


class Step:
    """A fused kernel's structure after its ``count``-th op: ``op`` is (name, expr,
    operand dtype, result dtype, descs), a desc being -1 (the previous op's result) or
    a leaf index; ``nleaves`` the leaves so far."""

    __slots__ = ("parent", "op", "count", "nleaves", "children", "bad")

    def __init__(self, parent: "Step | None", name: str, expr: str, d: DType, out: DType,
                 codes: tuple):
        n = 0 if parent is None else parent.nleaves
        descs = []
        for c in codes:
            if c == _SCALAR or c == _ARRAY:
                descs.append(n)
                n += 1
            else:
                descs.append(c)
        self.parent = parent
        self.op = (name, expr, d, out, tuple(descs))
        self.count = 1 if parent is None else parent.count + 1
        self.nleaves = n
        self.children: dict = {}
        self.bad = False  # its kernel failed to compile: run unfused

    def ops(self) -> list:
        chain, s = [], self
        while s is not None:
            chain.append(s.op)
            s = s.parent
        return chain[::-1]

    def __repr__(self) -> str:
        return "fused(" + ", ".join(op[0] for op in self.ops()) + ")"


_roots: dict = {}


def _child(parent: "Step | None", key: tuple, name: str, expr: str, d: DType, out: DType,
           codes: tuple) -> "Step | None":
    global _steps
    if _steps >= MAX_STEPS:
        return None
    _steps += 1
    s = Step(parent, name, expr, d, out, codes)
    (_roots if parent is None else parent.children)[key] = s
    return s


# The rule for an earlier result of a group (docs/ARCHITECTURE.md): written where
# anything but the group holds it when the group is recorded. sys.getrefcount of an
# object that only a list holds, measured the way Group.record measures (the baseline
# differs between Python versions); without getrefcount (not CPython) every earlier
# result is written.
_refcount = getattr(sys, "getrefcount", None)
if _refcount is not None:
    _probe = [object()]
    _ALONE = _refcount(_probe[0])
    del _probe


class Group:
    """The pending group of one runtime (of two ops or more: one op alone waits as a
    tuple, see apply): its shape, leaves (GPUArrays and Python scalars with their
    dtypes), its last result ``tail`` and the earlier results ``inter``."""

    __slots__ = ("rt", "shape", "strides", "size", "step", "leaves", "inter", "tail",
                 "arrays", "words", "weight")

    # -- recording -----------------------------------------------------------------

    def record(self) -> None:
        """Record the group's dispatch (inside a runtime section; the runtime's
        ``group`` already cleared)."""
        rt = self.rt
        inter = self.inter
        if _refcount is None:
            live = list(enumerate(inter))
        else:
            live = [(k, inter[k]) for k in range(len(inter)) if _refcount(inter[k]) > _ALONE]
        outs = live + [(self.step.count - 1, self.tail)]
        if (self.step.count == 1 or self.step.bad or self.arrays + len(outs) > rt.max_bindings
                or (len(outs) > 1 and any(type(x) is GPUArray and
                                          type(x.storage.block) is Pieces
                                          for x, _ in self.leaves))):
            return self._unfused(live)
        try:
            plan = _plan(rt, self, tuple([k for k, _ in live]) if live else ())
            odd = 0  # the leaves' offsets or'ed: the vec4 kernel needs multiples of four
            for x, _ in self.leaves:
                if type(x) is GPUArray:
                    odd |= x.offset
            if plan.vpipe is not None and not odd & 3:
                pipe, groups = plan.vpipe, plan.vgroups
            else:
                if plan.pipe is None:  # compiled on first need (the vec4 kernel serves most)
                    plan.pipe = plan.make()
                pipe, groups = plan.pipe, plan.groups
        except RuntimeError:  # the fused WGSL did not compile: a bug, but stay correct
            self.step.bad = True
            return self._unfused(live)
        params = plan.head.copy()
        blocks = []
        for (x, d), part in zip(self.leaves, plan.parts):
            if type(part) is tuple:
                blocks.append(x.storage.block)
                params.append(x.offset & 0xFFFFFFFF)
                if part:
                    params += part
            elif part is M._F32_SCALAR:
                params.append(x if -M.F32_BIG < x < M.F32_BIG else M.f32_value(x))
            else:
                params += M.scalar_words(x, part)
        if len(outs) == 1:  # the last result alone (nothing else holds an earlier one)
            s = rt._alloc(plan.nbytes[0])
            blocks.append(s.block)
            rt.record(pipe, tuple(blocks), params, groups, plan.packer, held=True)
            self.tail._storage = s
            return
        storages = [rt._alloc(nbytes) for nbytes in plan.nbytes]
        blocks += [s.block for s in storages]
        rt.record(pipe, tuple(blocks), params, groups, plan.packer, written=len(storages),
                  held=True)
        for (_, a), s in zip(outs, storages):
            a._storage = s

    def _unfused(self, live: list) -> None:
        """Every op its own kernel, as without fusion (too many bindings, pieces with
        several outputs, a kernel that did not compile)."""
        rt, shape = self.rt, self.shape
        results: list = []
        for name, expr, d, out, descs in self.step.ops():
            operands = tuple((results[-1], d) if j < 0 else self.leaves[j] for j in descs)
            results.append(M.launch(rt, name, expr, operands, out, shape))
        for k, a in live:
            a._storage = results[k].storage
        self.tail._storage = results[-1].storage

    # -- joining -------------------------------------------------------------------

    def join(self, name: str, expr: str, d: DType, out: DType, x: Any, y: Any, w: int
             ) -> GPUArray | None:
        """Add an op (apply's arguments) that consumes ``tail``: its (pending) result,
        or None where it cannot join (the caller records the group and starts a new
        one)."""
        tail, leaves = self.tail, self.leaves
        if x is tail and y is not None and type(y) is not GPUArray:
            # The commonest step of a chain, written out: the last result and a Python
            # scalar (a new leaf of 2 parameter words at most, no binding).
            words = self.words + 2
            if 2 + len(self.shape) + words > SLOT_WORDS:
                return None
            key = (name, expr, out, _TAIL, _SCALAR)
            step = self.step.children.get(key)
            if step is None:
                step = _child(self.step, key, name, expr, tail.dtype, out, (_TAIL, _SCALAR))
                if step is None:
                    return None
            leaves.append((y, d))
            self.words = words
        else:
            n0 = len(leaves)
            codes = []
            for v, e in _operands(d, x, y):
                if v is tail:
                    codes.append(_TAIL)
                elif type(v) is GPUArray:
                    for k in range(len(leaves)):
                        if leaves[k][0] is v:
                            codes.append(k)
                            break
                    else:
                        for a in self.inter:
                            if a is v:  # an earlier result, still pending: written first
                                del leaves[n0:]
                                return None
                        leaves.append((v, e))
                        codes.append(_ARRAY)
                else:
                    leaves.append((v, e))
                    codes.append(_SCALAR)
            if len(leaves) > n0 and not self._fits(n0):
                del leaves[n0:]
                return None
            key = (name, expr, out, *codes)
            step = self.step.children.get(key)
            if step is None:
                step = _child(self.step, key, name, expr, tail.dtype, out, tuple(codes))
                if step is None:
                    del leaves[n0:]
                    return None
        self.step = step
        self.inter.append(tail)
        self.weight += w
        t = self.tail = _new(GPUArray)
        t.rt = self.rt
        t.shape = self.shape
        t.strides = self.strides
        t.offset = 0
        t.dtype = out
        t.size = self.size
        t.readonly = False
        return t

    def _fits(self, n0: int) -> bool:
        """Count the leaves from ``n0`` on; whether the bindings and parameter words
        (bounded: 1 + ndim per array, 2 per scalar) still fit."""
        nd = len(self.shape)
        arrays, words = self.arrays, self.words
        for x, _ in self.leaves[n0:]:
            if type(x) is GPUArray:
                arrays += 1
                words += 1 + nd
            else:
                words += 2
        if arrays + 1 > self.rt.max_bindings or 2 + nd + words > SLOT_WORDS:
            return False
        self.arrays, self.words = arrays, words
        return True


def _operands(d: DType, x: Any, y: Any) -> tuple:
    """map.launch's operands of an op of apply's (``y`` None: one operand)."""
    return ((x, d),) if y is None else ((x, d), (y, d))


def _record_one(g: tuple) -> None:
    """Record a one-op pending state (see apply) as its unfused kernel, inside a runtime
    section: the hot path of every elementwise op that no next op joins (and, fusion
    off, of every op). For map.launch's commonest kinds (one or two arrays C-contiguous
    in the result's shape with their storage, or one and a Python float of a float32
    op) it goes from the cached plan straight to the dispatch; anything else (no plan
    yet, a strided, broadcast or pending operand, other scalars) through map.launch.

    Mirrors launch's signature and kinds 1 to 3, and Runtime.record_new's hot case
    (the alloc of a fresh output, the parameter slot, the bind group, the dispatch):
    written out, since their frames, argument tuples and general branches were a fifth
    of a small op's host time; keep them in step."""
    _, t, rt, name, expr, d, out, x, y, shape, _ = g
    if type(x) is GPUArray:
        if y is None:
            plan = rt.plans.get((name, expr, out, shape, d, x.shape, x.strides))
        elif type(y) is GPUArray:
            plan = rt.plans.get((name, expr, out, shape, d, x.shape, x.strides, d,
                                 y.shape, y.strides))
        else:
            plan = rt.plans.get((name, expr, out, shape, d, x.shape, x.strides, d,
                                 None, None))
        # (kinds 1 to 3 only: 4 has three operands, _INTO a view to write)
        if plan is not None and plan.kind and not (plan.vec and M.stale(plan)):
            kind = plan.kind
            try:  # the slots themselves (see GPUArray.storage): a pending operand raises
                xb = x._storage.block
                yb = y._storage.block if kind == 2 else None
            except AttributeError:  # ... and launch records its group first
                kind = 0
            if kind:
                # record_new's hot case from here on
                released = rt.released
                lost = rt._lost_blocks
                if released and not lost:
                    block = released.pop()  # (popped before it is looked at: record_new)
                    if block.nbytes == rt._sizes.get(plan.nbytes):
                        if released:
                            rt.collect()
                        st = _new(Storage)  # Storage(block, rt), no __init__ frame
                        st.block = block
                        st.rt = rt
                    else:
                        rt.release(block)
                        st = rt._alloc(plan.nbytes)
                        block = st.block
                else:
                    if lost:
                        rt._check_inputs((xb,) if yb is None else (xb, yb))
                    st = rt._alloc(plan.nbytes)
                    block = st.block
                slot = rt._slots
                if slot >= rt._limit:
                    slot = rt._take_slot()
                xo = x.offset
                if kind == 2:
                    blocks = (xb, yb, block)
                    yo = y.offset
                    plan.packer.pack_into(rt._arena_host, slot * SLOT_BYTES, plan.n, xo, yo)
                    xo |= yo  # (the vec4 kernel needs offsets that are multiples of four)
                elif kind == 1:
                    blocks = (xb, block)
                    plan.packer.pack_into(rt._arena_host, slot * SLOT_BYTES, plan.n, xo)
                else:  # y: a Python float, packed as a float32 (beyond: the infinity)
                    blocks = (xb, block)
                    plan.packer.pack_into(rt._arena_host, slot * SLOT_BYTES, plan.n, xo,
                                          y if -M.F32_BIG < y < M.F32_BIG else M.f32_value(y))
                if plan.vpipe is not None and not xo & 3:
                    pipe, groups = plan.vpipe, plan.vgroups
                else:
                    pipe, groups = plan.pipe, plan.groups
                bg = rt._bind_groups.get(blocks)
                if bg is None:
                    bg = rt._bind_group(blocks)
                ptr = rt._pass_ptr
                moved = block.nbytes + xb.nbytes if yb is None else \
                    block.nbytes + xb.nbytes + yb.nbytes
                if ptr is None or bg[2] is not None or groups > 65535:
                    rt._dispatch(pipe, bg, slot, groups, blocks, moved)
                else:
                    rt._slots = slot + 1
                    rt._batch.append(blocks)
                    if pipe is not rt._last_pipe:
                        _SET_PIPELINE(ptr, _handle(pipe))
                        rt._last_pipe = pipe
                    _SET_BIND_GROUP(ptr, 0, bg[1], 1, rt._offset_at[slot])
                    _DISPATCH(ptr, groups, 1, 1)
                    w = rt._written + moved
                    rt._written = w
                    if w >= rt._wlimit:
                        rt._submit_batch()
                t._storage = st
                return
    M.launch(rt, name, expr, _operands(d, x, y), out, shape, None, t)


def _group(rt: Any, t: tuple) -> Group | None:
    """The Group of a one-op pending state (a second op joins), or None (the trie is
    full)."""
    _, tail, _, name, expr, d, out, x, y, shape, w = t
    g = _new(Group)
    g.rt, g.shape, g.strides, g.size = rt, shape, tail.strides, tail.size
    g.inter, g.tail = [], tail
    g.weight = w
    # the leaves and their counts (_fits's, which one op always passes: it ran unfused
    # with as many), written out for the one or two operands
    per = 1 + len(shape)
    if type(x) is GPUArray:
        arrays, words, c0 = 1, per, _ARRAY
    else:
        arrays, words, c0 = 0, 2, _SCALAR
    if y is None:
        g.leaves = [(x, d)]
        key = (name, expr, d, out, c0)
    else:
        if type(y) is not GPUArray:
            g.leaves = [(x, d), (y, d)]
            words += 2
            c1 = _SCALAR
        elif y is x:
            g.leaves = [(x, d)]
            c1 = 0
        else:
            g.leaves = [(x, d), (y, d)]
            arrays += 1
            words += per
            c1 = _ARRAY
        key = (name, expr, d, out, c0, c1)
    g.arrays, g.words = arrays, words
    step = _roots.get(key)
    if step is None:
        step = _child(None, key, name, expr, d, out, key[4:])
        if step is None:
            return None
    g.step = step
    rt.group = g
    return g


def _lost(rt: Any, x: Any, y: Any) -> bool:
    """Whether an operand's data was lost by a failed batch (then the op runs unfused,
    raising now). A pending operand is not: its own operands were asked when it joined.
    Only these are asked, so arrays lost long ago, which a program may still hold, do
    not turn fusion off for the rest of the process."""
    lost = rt._lost_blocks
    for a in (x, y):
        if type(a) is GPUArray:
            try:
                st = a._storage
            except AttributeError:  # pending
                continue
            if st.block in lost:
                return True
    return False


_meta: dict = {}  # shape -> (C strides, size) of pending results


def _shape_meta(shape: tuple) -> tuple:
    if len(_meta) >= 4096:
        _meta.clear()
    m = _meta[shape] = (c_strides(shape), math.prod(shape))
    return m


def apply(rt: Any, name: str, expr: str, d: DType, out: DType, x: Any, y: Any,
          shape: tuple, w: int = 0, mode: int = 1) -> GPUArray:
    """Elementwise op ``expr`` of operands ``x`` and ``y`` of dtype ``d`` (``y`` None
    for one operand; map.launch's arguments otherwise, ``w`` its weight, ``mode``
    NUMR_WEBGPU_FUSE) as a pending result: joined to the runtime's pending group where
    it consumes the group's last result in the same shape, else the start of a new
    group (the old one is recorded first). With ``mode`` 0 (fusion off) the op is
    recorded at once, by the path of a pending op recorded alone.

    One op alone waits as a tuple (``_record_one``, its result, the op's arguments),
    which a plain op (the next op does not consume it) records as the unfused kernel:
    the hot path of a single op builds no Group.
    """
    if (0 in shape or rt.lost is not None or (rt._lost_blocks and _lost(rt, x, y))
            or (w and w > CPU_BUDGET and rt.cpu and mode < 2)):
        # unfused (recording drains the group first); on lost data, so that the op
        # raises now, as unfused
        return M.launch(rt, name, expr, _operands(d, x, y), out, shape)
    # One section (see runtime._section), written out: the hot path of every op.
    _acquire()
    on = _gc_on()
    if on:
        _gc_off()
    try:
        g = rt.group
        if g is not None:
            if type(g) is tuple:
                if x is not g[1] and y is not g[1]:
                    # the commonest case: one op, which this one does not join
                    rt.group = None
                    _record_one(g)
                    g = None
                elif mode and g[9] == shape:  # the second op of a chain: a Group
                    g = _group(rt, g) or g
            if g is not None:
                if (mode and type(g) is Group and (x is g.tail or y is g.tail)
                        and g.shape == shape and g.step.count < MAX_OPS
                        and (g.weight + w <= CPU_BUDGET or not rt.cpu or mode > 1)):
                    r = g.join(name, expr, d, out, x, y, w)
                    if r is not None:
                        return r
                rt._drain()  # the group, recorded first
        meta = _meta.get(shape)
        if meta is None:
            meta = _shape_meta(shape)
        t = _new(GPUArray)
        t.rt = rt
        t.shape = shape
        t.strides = meta[0]
        t.offset = 0
        t.dtype = out
        t.size = meta[1]
        t.readonly = False
        g = (_record_one, t, rt, name, expr, d, out, x, y, shape, w)
        if mode:
            rt.group = g
        else:
            _record_one(g)
        return t
    finally:
        if on:
            _gc_resume()
        _release()


# On a CPU adapter (lavapipe: CI) a fused kernel holds ops whose weights (the length of
# the WGSL helpers each calls: divide 2.7k characters, exp 2.5k, sin 4.8k, pow 7.3k,
# plain arithmetic 0) add up to this at most, and an op heavier alone is a kernel of its
# own: LLVM inlines every call, and took 30-80 s to compile one kernel with sin or 20
# exps in it, where each unfused kernel is compiled once and reused by every chain.
# GPUs' compilers take milliseconds: no budget there (NUMR_WEBGPU_FUSE=2: none anywhere).
CPU_BUDGET = 6000


def weight(expr: str, d: DType) -> int:
    """An op's weight in a fused kernel (see CPU_BUDGET)."""
    return len(wops.helpers(expr, ctype(d))) if d.kind == "float" else 0


# -- the kernel ------------------------------------------------------------------------

class Plan:
    """A fused kernel's launch: pipelines, fixed parameter words, workgroup counts, the
    outputs' byte sizes (the written intermediates, then the last result)."""

    __slots__ = ("pipe", "make", "vpipe", "head", "parts", "groups", "vgroups", "nbytes",
                 "packer", "vec")


def _fix(d: DType, v: str) -> str:
    """Compute value ``v`` of dtype ``d`` as a store and a load would give it back, in a
    form no compiler optimises across."""
    name, ct = d.name, ctype(d)
    if name == "float16":
        return (f"fence_f32(unpack2x16float(pack2x16float(vec2<f32>({v}, 0.0)) "
                f"& 0xffffu).x)")
    if name == "bfloat16":
        return f"fence_f32(bitcast<f32>({bf16_bits(v)} << 16u))"
    if ct in ("f32", "f64"):
        return f"fence_{ct}({v})"
    per_word, bits = LAYOUT[name][2], LAYOUT[name][3]
    if name == "bool" or per_word == 1:
        return v
    mask = "0xffu" if bits == 8 else "0xffffu"
    if ct == "i32":
        return f"(bitcast<i32>((bitcast<u32>({v}) & {mask}) << {32 - bits}u) >> {32 - bits}u)"
    return f"({v} & {mask})"


def _lane(ops: list, specs: tuple, outs: tuple, head: int, ndim: int) -> tuple[str, dict]:
    """WGSL of the op functions, the result struct R and ``fn lane(i, leaves...) -> R``;
    and the parameter word of each leaf."""
    lines, body = [], []
    for k, (name, expr, d, out, descs) in enumerate(ops):
        args = ", ".join(f"{v}: {ctype(d)}" for v in "ab"[:len(descs)])
        lines.append(f"fn f{k}({args}) -> {ctype(out)} {{ return {expr}; }}")
    word, k = {}, head
    for j, (d, lay) in enumerate(specs):
        word[j] = k
        if lay == "c":
            k += 1
        elif lay == "s":
            k += 1 + ndim
        else:
            body.append(f"let l{j} = {M._scalar_load(ctype(d), k)};")
            k += 2 if ctype(d) in ("f64", "i64", "u64") else 1
    for k, (name, expr, d, out, descs) in enumerate(ops):
        args = ", ".join(f"w{k - 1}" if j < 0 else f"l{j}" for j in descs)
        body.append(f"let v{k} = f{k}({args});")
        if k < len(ops) - 1:
            body.append(f"let w{k} = {_fix(out, f'v{k}')};")
    lines.append("struct R {\n" + "".join(f"  o{o}: {ctype(ops[k][3])},\n"
                                          for o, k in enumerate(outs)) + "}")
    arrays = [j for j, (_, lay) in enumerate(specs) if lay != "k"]
    params = "".join(f", l{j}: {ctype(specs[j][0])}" for j in arrays)
    lines.append(f"fn lane(i: u32{params}) -> R {{\n  " + "\n  ".join(body)
                 + "\n  return R(" + ", ".join(f"v{k}" for k in outs) + ");\n}")
    return "\n".join(lines), word


def _helpers(ops: list, code: str) -> str:
    cts = {ctype(t) for op in ops for t in (op[2], op[3])} - {"bool"}
    return "\n".join(wops.helpers(code, ct) for ct in sorted(cts))


def source(ops: list, specs: tuple, outs: tuple, ndim: int) -> str:
    """The scalar kernel: each invocation computes as many elements as one 32-bit word
    of its most packed output holds (so no two invocations write one word)."""
    lines, arrays = M.operand_bindings(specs)
    dts = [ops[k][3] for k in outs]
    for o, d in enumerate(dts):
        lines.append(f"@group(0) @binding({len(arrays) + 1 + o}) var<storage, read_write> "
                     f"y{o}: array<{LAYOUT[d.name][0]}>;")
    lane, word = _lane(ops, specs, outs, 1 + ndim, ndim)
    lines.append(lane)
    per = max(LAYOUT[d.name][2] for d in dts)
    loads = []
    for j in arrays:
        if specs[j][1] == "c":
            loads.append(f"ld{j}(p({word[j]}u) + i)")
        else:
            loads.append(f"ld{j}({M._strided_index(word[j], ndim)})")
    body = []
    if any(lay == "s" for _, lay in specs):
        body += M._decode(ndim)
    body.append("let res = lane(i" + "".join(", " + v for v in loads) + ");")
    for o, d in enumerate(dts):
        pw = LAYOUT[d.name][2]
        if pw == 1:
            body.append(f"y{o}[i] = res.o{o};")
        else:
            width = 32 // pw
            body.append(f"w{o} = w{o} | ({bits_expr(d, f'res.o{o}')} << ((i & {pw - 1}u) * "
                        f"{width}u));")
            body.append(f"if ((i & {pw - 1}u) == {pw - 1}u || i + 1u == n) "
                        f"{{ y{o}[i / {pw}u] = w{o}; w{o} = 0u; }}")
    main = ["@compute @workgroup_size(256)",
            "fn main(@builtin(global_invocation_id) g: vec3<u32>, "
            "@builtin(num_workgroups) nw: vec3<u32>) {",
            "  let t = g.x + g.y * nw.x * 256u;", "  let n = p(0u);",
            f"  let i0 = t * {per}u;", "  if (i0 >= n) { return; }"]
    main += [f"  var w{o} = 0u;" for o, d in enumerate(dts) if LAYOUT[d.name][2] > 1]
    main.append(f"  for (var j = 0u; j < {per}u; j++) {{")
    main.append("    let i = i0 + j;")
    main.append("    if (i < n) {\n      " + "\n      ".join(body) + "\n    }")
    main += ["  }", "}"]
    lines.append("\n".join(main))
    text = "\n".join(lines)
    return text + "\n" + _helpers(ops, text)


def vec_source(ops: list, specs: tuple, outs: tuple, vec: int) -> str:
    """The contiguous fast path (map.vec_source's plan): 32-bit leaves and outputs moved
    as vec4 words, ``vec`` words per invocation, every load before the first store."""
    WG = M.WG
    dts = [ops[k][3] for k in outs]
    lines, arrays = M.vec_bindings(specs, [(f"y{o}", d) for o, d in enumerate(dts)])
    lane, word = _lane(ops, specs, outs, 1, 0)
    lines.append(lane)
    lines.append("struct Q {\n" + "".join(f"  o{o}: vec4<{ctype(d)}>,\n"
                                          for o, d in enumerate(dts)) + "}")
    vargs = "".join(f", v{j}: vec4<{LAYOUT[specs[j][0].name][0]}>" for j in arrays)
    quad = [f"fn quad(q: u32{vargs}) -> Q {{", "  let i = q * 4u;"]
    for c in range(4):
        quad.append(f"  let r{c} = lane(i + {c}u" + "".join(
            f", v{j}.{M._LANES[c]}" for j in arrays) + ");")
    quad.append("  return Q(" + ", ".join(
        f"vec4<{ctype(d)}>(r0.o{o}, r1.o{o}, r2.o{o}, r3.o{o})"
        for o, d in enumerate(dts)) + ");\n}")
    lines.append("\n".join(quad))
    span = WG * vec
    main = M.quad_main_head(span, word, arrays)

    def store(q: str, r: str) -> list:
        return [f"y{o}[{q}] = {r}.o{o};" for o in range(len(dts))]

    main.append(f"  if (base + {span - WG}u < nq) {{")
    for u in range(vec):
        main += [f"    let v{j}_{u} = x{j}[o{j} + base + {u * WG}u];" for j in arrays]
    for u in range(vec):
        va = "".join(f", v{j}_{u}" for j in arrays)
        main.append(f"    let r_{u} = quad(base + {u * WG}u{va});")
        main += ["    " + s for s in store(f"base + {u * WG}u", f"r_{u}")]
    main.append("  } else {")
    main.append(f"    for (var u = 0u; u < {vec}u; u++) {{")
    main.append(f"      let q = base + u * {WG}u;")
    va = "".join(f", x{j}[o{j} + q]" for j in arrays)
    main.append(f"      if (q < nq) {{ let r = quad(q{va}); "
                + " ".join(store("q", "r")) + " }")
    main += ["    }", "  }", "}"]
    lines.append("\n".join(main))
    text = "\n".join(lines)
    return text + "\n" + _helpers(ops, text)


def _plan(rt: Any, g: Group, live: tuple) -> Plan:
    sig = [g.step, live, g.shape]
    for x, d in g.leaves:
        sig.append((x.shape, x.strides) if type(x) is GPUArray else None)
    sig = tuple(sig)
    plan = rt.plans.get(sig)
    if plan is not None and not (plan.vec and M.stale(plan)):
        return plan
    shape, n = g.shape, g.size
    nd = len(shape)
    specs, full = [], []
    for x, d in g.leaves:
        if type(x) is not GPUArray:
            specs.append((d, "k"))
        elif x.shape == shape and x.contiguous:
            specs.append((d, "c"))
        else:
            specs.append((d, "s"))
            lead = nd - x.ndim
            full.append([0] * lead + [s if m != 1 else 0 for m, s in zip(x.shape, x.strides)])
    cshape, cstrides = M._collapse(shape, full) if full else ((), [])
    ndim = len(cshape)
    parts, si = [], 0
    for d, lay in specs:
        if lay == "k":
            parts.append(M._F32_SCALAR if ctype(d) == "f32" and d.itemsize == 4 else d)
        elif lay == "c":
            parts.append(())
        else:
            parts.append(tuple(s & 0xFFFFFFFF for s in cstrides[si]))
            si += 1
    specs_t = tuple(specs)
    ops = g.step.ops()
    outs = live + (len(ops) - 1,)
    dts = [ops[k][3] for k in outs]
    nbuf = g.arrays + len(outs)
    key = ("fused", g.step, specs_t, outs, ndim)
    def make() -> Any:
        return rt.pipeline(key, lambda: source(ops, specs_t, outs, ndim), nbuf, len(outs))

    vpipe, vgroups = None, 0
    vec = _config.current.webgpu_map_vec
    can = n >= 4 * M.WG and all(M._word(d) for d in dts) and all(
        lay == "k" or (lay == "c" and M._word(d)) for d, lay in specs)
    if can and n >= 4 * vec * M.WG:
        vkey = ("fused-vec4", g.step, specs_t, outs, vec)
        vpipe = rt.pipeline(vkey, lambda: vec_source(ops, specs_t, outs, vec), nbuf,
                            len(outs))
        vgroups = -(-n // (4 * vec * M.WG))
    per = max(LAYOUT[d.name][2] for d in dts)
    codes = "I" * (1 + ndim)
    for part in parts:
        if type(part) is tuple:
            codes += "I" * (1 + len(part))
        elif part is M._F32_SCALAR:
            codes += "f"
        else:
            codes += "II" if ctype(part) in ("f64", "i64", "u64") else "I"
    plan = Plan()
    plan.pipe = make() if vpipe is None else None
    plan.make, plan.vpipe, plan.vgroups = make, vpipe, vgroups
    plan.head = [n, *cshape]
    plan.parts = parts
    plan.groups = -(-(-(-n // per)) // M.WG)
    plan.nbytes = [n * d.itemsize for d in dts]
    plan.packer = struct.Struct("<" + codes)
    plan.vec = vec if can else 0  # as map.Plan's (see map.stale)
    return remember(rt, sig, plan)
