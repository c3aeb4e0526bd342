"""The graph and the backward pass.

Every recorded call makes one ``Node``: the rule table entry of the function, the
unwrapped arguments (numr Arrays: these are the saved intermediates), the result value,
and one *edge* per tracked input. An edge is ``(pos, pnode, pidx, leaf)``: the argument
position (an int, ``(i, j)`` for element ``j`` of a list argument, or a keyword name)
and where its cotangent goes: output ``pidx`` of ``pnode``, or the leaf Var ``leaf``
(``pnode`` None). Edges point at nodes, not at Vars, so rebinding a Var (``x[k] = v``,
``x += y``) cannot change a recorded graph.

``backward`` walks the nodes in reverse topological order, calls each rule for the
inputs that lead to a target, reduces broadcasting and fixes dtypes (``fit``), and
accumulates. Without ``create_graph`` it runs on plain numr Arrays with ``xp = numr``
(the fast path); with it, cotangents, arguments and results are Vars and ``xp`` is the
differentiable namespace, so the backward pass is itself recorded.
"""

from __future__ import annotations

import threading
from typing import Any, Callable, Sequence

import numr as _numr

__all__ = ["no_grad", "enable_grad", "is_grad_enabled", "Node", "backward", "fit"]

_new = object.__new__


class _GradState(threading.local):
    """Grad mode, per thread (as PyTorch's): read as ``GRAD.on`` on the hot path. A new
    thread starts with recording on (the class attribute), whatever other threads set."""

    on = True


GRAD = _GradState()


class _GradMode:
    __slots__ = ("_on", "_prev")

    def __init__(self, on: bool) -> None:
        self._on = on

    def __enter__(self) -> None:
        self._prev = GRAD.on
        GRAD.on = self._on

    def __exit__(self, *exc: Any) -> None:
        GRAD.on = self._prev

    def __call__(self, fn: Callable) -> Callable:
        import functools

        on = self._on

        @functools.wraps(fn)
        def wrapper(*a, **k):
            with _GradMode(on):
                return fn(*a, **k)

        return wrapper


def no_grad() -> _GradMode:
    """Context manager (or decorator): operations inside record nothing."""
    return _GradMode(False)


def enable_grad() -> _GradMode:
    """Context manager (or decorator): turn recording back on inside ``no_grad``."""
    return _GradMode(True)


def is_grad_enabled() -> bool:
    return GRAD.on


class Node:
    """One recorded call (see the module docstring)."""

    __slots__ = ("rule", "args", "kwargs", "ans", "edges", "hooks", "nout", "__weakref__")


def make_node(rule: Any, args: tuple, kwargs: dict | None, ans: Any, edges: tuple,
              nout: int) -> Node:
    n = _new(Node)
    n.rule = rule
    n.args = args
    n.kwargs = kwargs
    n.ans = ans
    n.edges = edges
    n.hooks = None
    n.nout = nout
    return n


def arg_at(args: tuple, kwargs: dict | None, pos: Any) -> Any:
    """The argument at an edge position."""
    t = type(pos)
    if t is int:
        return args[pos]
    if t is tuple:
        return args[pos[0]][pos[1]]
    return kwargs[pos]


def fit(xp: Any, g: Any, like: Any) -> Any:
    """The cotangent ``g`` reduced to the shape and dtype of the input ``like``: sum over
    broadcast axes, real part for a real input (conjugate-Wirtinger convention), and a
    cast back (e.g. a float32 input combined with float64)."""
    shape = like.shape
    gshape = g.shape
    if gshape != shape:
        lead = len(gshape) - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, s in enumerate(shape) if s == 1 and gshape[lead + i] != 1)
        if axes:
            g = xp.sum(g, axis=axes, keepdims=False)
        if g.shape != shape:
            g = xp.reshape(g, shape)
    d = like.dtype
    if g.dtype != d:
        if g.dtype.kind == "complex" and d.kind != "complex":
            g = xp.real(g)
        if g.dtype != d:
            g = xp.astype(g, d)
    return g


def _add(a: Any, b: Any) -> Any:
    if a is None:
        return b
    if b is None:
        return a
    return a + b


def _topo(roots: Sequence[Node]) -> list[Node]:
    """Nodes reachable from ``roots``, inputs before users (iterative post-order DFS)."""
    order: list[Node] = []
    seen: set[int] = set()
    for r in roots:
        if id(r) in seen:
            continue
        seen.add(id(r))
        stack = [(r, iter(r.edges))]
        while stack:
            node, it = stack[-1]
            for e in it:
                p = e[1]
                if p is not None and id(p) not in seen:
                    seen.add(id(p))
                    stack.append((p, iter(p.edges)))
                    break
            else:
                stack.pop()
                order.append(node)
    return order


_FREED = ("backward: the graph was already freed by an earlier backward pass; pass "
          "retain_graph=True to the first one to go through it twice")


def seeded_roots(out: Any, g: Any) -> tuple[list, list]:
    """The tracked outputs of ``out`` (one array or a tuple) and their cotangents from
    ``g`` (matching it), skipping untracked outputs and absent cotangents."""
    outs = list(out) if isinstance(out, tuple) else [out]
    gs = list(g) if isinstance(g, tuple) else [g]
    roots, seeds = [], []
    for o, s in zip(outs, gs):
        if s is not None and getattr(o, "_rg", False):  # a Var that requires grad
            roots.append(o)
            seeds.append(s)
    return roots, seeds


def backward(roots: Sequence[Any], seeds: Sequence[Any], *, create_graph: bool = False,
             retain_graph: bool | None = None, targets: Sequence[Any] | None = None,
             allow_unused: bool = True) -> list | None:
    """Propagate ``seeds`` (cotangents of the Vars ``roots``) backwards.

    With ``targets`` None, gradients accumulate into the ``.grad`` of the leaves (with
    hooks, and the post-accumulate hook once a leaf's gradient is complete). With
    ``targets`` (Vars, leaf or not), nothing is written: their cotangents are returned
    (None where no path leads to one)."""
    from ._var import Var, mkvar

    if retain_graph is None:
        retain_graph = create_graph
    xp = _ns() if create_graph else _numr
    grads: dict[Node, list] = {}
    leaf_acc: dict[int, list] = {}   # id(leaf) -> [leaf, cotangent, edges left]
    root_nodes = []
    for r, s in zip(roots, seeds):
        if not create_graph and type(s) is Var:
            s = s._value
        elif create_graph and type(s) is not Var:
            s = mkvar(s, None, 0, False)
        n = r._node
        if n is None:
            ent = leaf_acc.setdefault(id(r), [r, None, 0])
            ent[1] = _add(ent[1], s)
        else:
            slot = grads.setdefault(n, [None] * (n.nout or 1))
            slot[r._idx] = _add(slot[r._idx], s)
            root_nodes.append(n)
    order = _topo(root_nodes)

    # Which nodes lead to a target (all of them when accumulating into leaves).
    tnode: dict[tuple, int] = {}
    tleaf: dict[int, int] = {}
    if targets is not None:
        for k, t in enumerate(targets):
            if t._node is None:
                tleaf[id(t)] = k
            else:
                tnode[(id(t._node), t._idx)] = k
        needed: set[int] = set()
        for n in order:
            for e in n.edges:
                p = e[1]
                if (p is None and id(e[3]) in tleaf) or (p is not None and (
                        id(p) in needed or (id(p), e[2]) in tnode)):
                    needed.add(id(n))
                    break
    else:
        needed = None
        for n in order:
            for e in n.edges:
                if e[1] is None:
                    ent = leaf_acc.get(id(e[3]))
                    if ent is None:
                        leaf_acc[id(e[3])] = [e[3], None, 1]
                    else:
                        ent[2] += 1
    results: list = [None] * (len(targets) if targets is not None else 0)

    if targets is None:
        # Leaves that are roots themselves, with no edge pending, are complete now.
        for ent in list(leaf_acc.values()):
            if ent[2] == 0 and ent[1] is not None:
                _finish_leaf(ent, create_graph)

    for n in reversed(order):
        gs = grads.pop(n, None)
        if gs is None:
            if targets is None:
                _count_down(n, leaf_acc, create_graph)
            continue
        if n.hooks:
            for i, hs in n.hooks.items():
                for h in hs:
                    if gs[i] is not None:
                        r = h(gs[i])
                        if r is not None:
                            gs[i] = r if create_graph or type(r) is not Var else r._value
        if tnode:
            for i in range(len(gs)):
                k = tnode.get((id(n), i))
                if k is not None:
                    results[k] = gs[i]
        if needed is not None and id(n) not in needed:
            continue
        if n.args is None:
            raise RuntimeError(_FREED)
        _run_node(n, gs, xp, create_graph, grads, leaf_acc, needed, tleaf, tnode, results)
        if not retain_graph:
            n.args = n.kwargs = n.ans = None
    return results if targets is not None else None


def _run_node(n: Node, gs: list, xp: Any, create_graph: bool, grads: dict, leaf_acc: dict,
              needed: set | None, tleaf: dict, tnode: dict, results: list) -> None:
    rule = n.rule
    args, kwargs, ans = n.args, n.kwargs, n.ans
    if n.nout:
        g = tuple(gs)
    else:
        g = gs[0]
    if create_graph:
        args, kwargs, ans = _rebuild(n)
    for e in n.edges:
        pos, p, pidx, leaf = e
        if needed is not None:
            if p is None:
                if id(leaf) not in tleaf:
                    continue
            elif id(p) not in needed and (id(p), pidx) not in tnode:
                continue
        like = arg_at(n.args, n.kwargs, pos)
        c = rule.vjp(xp, g, ans, args, kwargs or {}, pos)
        if c is None:  # the rule says: no contribution (a zero cotangent)
            if p is None and needed is None:
                ent = leaf_acc[id(leaf)]
                ent[2] -= 1
                if ent[2] == 0 and ent[1] is not None:
                    _finish_leaf(ent, create_graph)
            continue
        c = fit(xp, c, like)
        if p is not None:
            slot = grads.get(p)
            if slot is None:
                slot = grads[p] = [None] * (p.nout or 1)
            slot[pidx] = _add(slot[pidx], c)
        elif needed is not None:
            k = tleaf[id(leaf)]
            results[k] = _add(results[k], c)
        else:
            ent = leaf_acc[id(leaf)]
            ent[1] = _add(ent[1], c)
            ent[2] -= 1
            if ent[2] == 0:
                _finish_leaf(ent, create_graph)


def _count_down(n: Node, leaf_acc: dict, create_graph: bool) -> None:
    """A node no cotangent reached: its leaf edges are done all the same."""
    for e in n.edges:
        if e[1] is None:
            ent = leaf_acc[id(e[3])]
            ent[2] -= 1
            if ent[2] == 0 and ent[1] is not None:
                _finish_leaf(ent, create_graph)


def _finish_leaf(ent: list, create_graph: bool) -> None:
    """A leaf's gradient for this pass is complete: hooks, accumulate, post hooks."""
    from ._var import Var

    leaf, g = ent[0], ent[1]
    ent[1] = None
    hooks = getattr(leaf, "_hooks", None)
    if hooks:
        for h in hooks:
            r = h(g)
            if r is not None:
                g = r if create_graph or type(r) is not Var else r._value
    old = getattr(leaf, "_grad", None)
    if old is not None and not create_graph and type(old) is Var:
        old = old._value
    leaf._grad = g if old is None else old + g
    post = getattr(leaf, "_post", None)
    if post:
        for h in post:
            h(leaf)


def _rebuild(n: Node) -> tuple:
    """(args, kwargs, ans) as Vars for a create_graph pass: every tracked argument a Var
    connected to the graph, and the result recomputed from them (so the rules' use of
    ``ans`` is differentiated too)."""
    from ._var import mkvar

    args = list(n.args)
    kwargs = dict(n.kwargs) if n.kwargs else {}
    lists: dict[int, list] = {}
    for pos, p, pidx, leaf in n.edges:
        if type(pos) is int:
            args[pos] = leaf if p is None else mkvar(args[pos], p, pidx, True)
        elif type(pos) is tuple:
            i, j = pos
            seq = lists.get(i)
            if seq is None:
                seq = lists[i] = list(args[i])
            seq[j] = leaf if p is None else mkvar(seq[j], p, pidx, True)
        else:
            kwargs[pos] = leaf if p is None else mkvar(kwargs[pos], p, pidx, True)
    for i, seq in lists.items():
        args[i] = type(n.args[i])(seq) if type(n.args[i]) in (list, tuple) else seq
    with _GradMode(True):
        ans = n.rule.var_fn(*args, **kwargs)
    return tuple(args), kwargs, ans


_NS: list = []


def _ns() -> Any:
    if not _NS:
        import numr.autograd as ag

        _NS.append(ag)
    return _NS[0]
