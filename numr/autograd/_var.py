"""Var: a numr Array that autograd tracks.

A Var holds a numr Array (``.value``), and, when it came out of a recorded call, the
graph node that made it. Its ``__array_namespace__()`` is ``numr.autograd``, the
differentiable namespace, so array-API-generic code run on Vars is recorded. The
operators are attached by ``numr.autograd`` once its functions exist (the same code as
``numr.autograd.add`` and so on).
"""

from __future__ import annotations

import builtins
import enum
import types
from typing import TYPE_CHECKING, Any, Callable, Iterator

import numr as _numr
from numr._array import Array

from . import _tape
from ._operators import VarOperators

if TYPE_CHECKING:
    import numpy

    from numr._devices import Device
    from numr._dtypes import DType

__all__ = ["Var", "mkvar"]

_new = object.__new__
_DIFF_KINDS = ("float", "complex")


def mkvar(value: Array, node: Any, idx: int, rg: bool) -> "Var":
    """A Var around ``value`` (autograd-internal; no checks)."""
    o = _new(Var)
    o._value = value
    o._node = node
    o._idx = idx
    o._rg = rg
    return o


class Var(VarOperators):
    """A tracked array: ``Var(x, requires_grad=True)`` for a leaf to differentiate.

    ``.grad`` holds the accumulated gradient after ``.backward()`` (a numr Array, or a
    Var when ``create_graph=True``), ``.detach()`` cuts the history, ``.value`` is the
    numr Array. Array attributes (dtype, shape, device, ...) are the value's.
    """

    # _value: the Array; _node/_idx: the recording node and output index (None for a
    # leaf); _rg: requires grad; _grad/_hooks/_post are set only when used.
    __slots__ = ("_value", "_node", "_idx", "_rg", "_grad", "_hooks", "_post", "__weakref__")

    __array_ufunc__ = None
    __hash__ = None

    def __init__(self, value: Any, requires_grad: bool = False) -> None:
        if type(value) is Var:
            value = value._value
        elif type(value) is not Array:
            value = _numr.asarray(value)
        self._value = value
        self._node = None
        self._idx = 0
        self._rg = False
        if requires_grad:
            self.requires_grad = True

    # --- autograd ---------------------------------------------------------------------

    @property
    def value(self) -> Array:
        """The numr Array (no tracking)."""
        return self._value

    @property
    def requires_grad(self) -> bool:
        return self._rg

    @requires_grad.setter
    def requires_grad(self, flag: bool) -> None:
        if self._node is not None:
            raise ValueError("Var.requires_grad: can only be set on a leaf; use detach() first")
        if flag and self._value._dtype.kind not in _DIFF_KINDS:
            raise TypeError(f"Var.requires_grad: only floating-point and complex arrays "
                            f"can require gradients, got dtype {self._value._dtype}")
        self._rg = builtins.bool(flag)

    @property
    def is_leaf(self) -> bool:
        return self._node is None

    @property
    def grad(self) -> Any:
        return getattr(self, "_grad", None)

    @grad.setter
    def grad(self, g: Any) -> None:
        self._grad = g

    def zero_grad(self) -> None:
        self._grad = None

    def detach(self) -> "Var":
        """The same value with no history (and requires_grad False)."""
        return mkvar(self._value, None, 0, False)

    def backward(self, gradient: Any = None, *, retain_graph: bool | None = None,
                 create_graph: bool = False) -> None:
        """Accumulate d(self)/d(leaf) into every leaf's ``.grad``; ``gradient`` is the
        seed (required unless self has one element)."""
        if not self._rg:
            raise ValueError("backward: the Var does not require grad (no tracked input "
                             "went into it, or it was computed under no_grad())")
        if gradient is None:
            if self._value.size != 1:
                raise ValueError(f"backward: the output has shape {self.shape}; a gradient "
                                 f"(seed) is needed for a non-scalar output")
            gradient = _numr.ones_like(self._value)
        elif type(gradient) is Var:
            gradient = gradient if create_graph else gradient._value
        elif type(gradient) is not Array:
            gradient = _numr.asarray(gradient, dtype=self._value.dtype, device=self._value.device)
        gv = gradient._value if type(gradient) is Var else gradient
        if tuple(gv.shape) != self.shape:
            raise ValueError(f"backward: the gradient has shape {tuple(gv.shape)}, the "
                             f"output {self.shape}")
        _tape.backward([self], [gradient], create_graph=create_graph, retain_graph=retain_graph)

    def register_hook(self, hook: Callable[[Any], Any]) -> Callable[[], None]:
        """Call ``hook(grad)`` when this Var's gradient is computed; a non-None return
        replaces the gradient. Returns a function that removes the hook."""
        if not callable(hook):
            raise TypeError(f"register_hook: hook must be callable, got {hook!r}")
        if not self._rg:
            raise ValueError("register_hook: the Var does not require grad")
        n = self._node
        if n is None:
            hooks = getattr(self, "_hooks", None)
            if hooks is None:
                hooks = self._hooks = []
        else:
            if n.hooks is None:
                n.hooks = {}
            hooks = n.hooks.setdefault(self._idx, [])
        hooks.append(hook)
        return lambda: hooks.remove(hook) if hook in hooks else None

    def register_post_accumulate_grad_hook(self, hook: Callable[["Var"], None]) -> Callable[[], None]:
        """Call ``hook(var)`` once this leaf's ``.grad`` holds the complete gradient of a
        backward pass (the place to all-reduce it)."""
        if not callable(hook):
            raise TypeError(f"register_post_accumulate_grad_hook: hook must be callable, "
                            f"got {hook!r}")
        if self._node is not None or not self._rg:
            raise ValueError("register_post_accumulate_grad_hook: only for leaves that "
                             "require grad")
        post = getattr(self, "_post", None)
        if post is None:
            post = self._post = []
        post.append(hook)
        return lambda: post.remove(hook) if hook in post else None

    # --- array attributes ------------------------------------------------------------

    @property
    def dtype(self) -> DType:
        return self._value._dtype

    @property
    def device(self) -> Device:
        return self._value._device

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._value._data.shape)

    @property
    def ndim(self) -> int:
        return self._value._data.ndim

    @property
    def size(self) -> int:
        return self._value._data.size

    @property
    def T(self) -> "Var":
        if self.ndim != 2:
            raise ValueError(f"Var.T: only defined for 2-D arrays, got {self.ndim}-D")
        return _ag().permute_dims(self, (1, 0))

    @property
    def mT(self) -> "Var":
        if self.ndim < 2:
            raise ValueError(f"Var.mT: needs at least 2 dimensions, got {self.ndim}")
        return _ag().matrix_transpose(self)

    def __array_namespace__(self, /, *, api_version: str | None = None) -> types.ModuleType:
        self._value.__array_namespace__(api_version=api_version)  # validates the version
        return _ag()

    def to_device(self, device: Any, /, *, stream: Any = None) -> "Var":
        return _ag().to_device(self, device, stream=stream)

    def __dlpack__(self, /, *, stream: Any = None, max_version: tuple[int, int] | None = None,
                   dl_device: tuple[enum.Enum, int] | None = None,
                   copy: bool | None = None) -> Any:
        return self._value.__dlpack__(stream=stream, max_version=max_version,
                                      dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[enum.Enum, int]:
        return self._value.__dlpack_device__()

    def __array__(self, dtype: Any = None,
                  copy: bool | None = None) -> numpy.ndarray[Any, Any]:
        return self._value.__array__(dtype=dtype, copy=copy)

    def __bool__(self) -> builtins.bool:
        return self._value.__bool__()

    def __int__(self) -> int:
        return self._value.__int__()

    def __float__(self) -> float:
        return self._value.__float__()

    def __complex__(self) -> complex:
        return self._value.__complex__()

    def __index__(self) -> int:
        return self._value.__index__()

    def __len__(self) -> int:
        return len(self._value)

    def __iter__(self) -> Iterator[Var]:
        if self.ndim == 0:
            raise TypeError("iteration over a 0-d array")
        for i in range(self.shape[0]):
            yield self[i]

    def __getitem__(self, key: Any, /) -> "Var":
        t = type(key)
        if t is slice or t is int:
            # Fast path (a hot one: x[i], x[a:b]); the general one is numr.autograd's.
            v = self._value
            out = v[key]
            o = _new(Var)
            o._value = out
            o._idx = 0
            if self._rg and _tape.GRAD.on:
                n = _new(_tape.Node)
                n.rule = _GETITEM[0]
                n.args = (v, key)
                n.kwargs = None
                n.ans = out
                n.edges = ((0, self._node, self._idx, self if self._node is None else None),)
                n.hooks = None
                n.nout = 0
                o._node = n
                o._rg = True
            else:
                o._node = None
                o._rg = False
            return o
        if t is tuple or t is list or t is Var:
            key = t(k._value if type(k) is Var else k for k in key) if t is not Var else key._value
        return _ag()._getitem(self, key)

    def __setitem__(self, key: Any, value: Any, /) -> None:
        _ag()._setitem(self, key, value)

    def __repr__(self) -> str:
        r = repr(self._value)
        extra = ", requires_grad=True" if self._rg else ""
        return "Var(" + r[6:-1] + extra + ")"

    def __str__(self) -> str:
        return str(self._value)


_AG: list = []
_GETITEM: list = []   # the "getitem" rule, set by numr.autograd


def _ag():
    if not _AG:
        import numr.autograd as ag

        _AG.append(ag)
    return _AG[0]
