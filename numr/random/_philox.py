"""The bit generator of numr.random: Philox4x32-10 (Salmon, Moraes, Dror and Shaw,
"Parallel random numbers: as easy as 1, 2, 3", SC 2011; the constants of Random123).

A draw is a pure function of (key, counter): block ``i`` of a call is Philox applied to
``counter + i`` (a 128-bit integer, word 0 least significant) under the 64-bit key, and
gives four 32-bit words. Every call starts at the generator's counter and advances it by
the blocks it used (a partial last block is not reused), so the same calls give the same
words in another process or on another device. Only the words come from a per-backend
kernel (numba on the CPU, CUDA C, WGSL); what is made of them is computed above.

Seeding (the rule, as NumPy's bit generators apply it): an integer, a sequence of
integers or a ``numpy.random.SeedSequence`` ``s`` gives the key
``SeedSequence(s).generate_state(2, numpy.uint32)`` (words 0 and 1) and the counter 0.
``seed=None`` draws fresh entropy from the OS. ``spawn(n)`` gives the keys of
``SeedSequence.spawn(n)``, distinct from the parent's and from each other.
"""

from __future__ import annotations

import math
import operator
from typing import Any, Optional, Sequence, SupportsIndex, TypeAlias

import numpy as np

from .. import _dtypes as dt
from .._array import Array
from .._devices import Device, default_device, get_device

__all__ = ["Philox"]

# A draw's size (NumPy's): None, an int or a sequence of ints (_shape reads it).
_Size: TypeAlias = "SupportsIndex | Sequence[SupportsIndex] | None"

_MASK32 = 0xFFFFFFFF
_KERNELS: dict = {}


def _kernels(device: Any):
    """The kernel module for a device: numba for NumPy-backed devices (the CPU, and
    ``cuda:0`` under NUMR_TEST_EMULATE_GPU), CUDA C for CuPy, WGSL for WebGPU."""
    k = _KERNELS.get(device)
    if k is None:
        from ..backends.numpy import NumpyBackend

        if isinstance(device.backend, NumpyBackend):
            try:
                from . import _cpu as k
            except ImportError as e:
                if e.name not in ("numba", "llvmlite"):
                    raise
                # numba is a base dependency; an install without it has no CPU kernel
                raise ImportError(
                    f"numr.random on {device} needs numba, which compiles its CPU "
                    f"kernels, and numba is not installed: pip install numba (numr's "
                    f"base dependencies include it; cuda and webgpu draw without it)",
                    name=e.name) from e
        elif device.kind == "cuda":
            from . import _cuda as k
        elif device.kind == "webgpu":
            from . import _webgpu as k
        else:
            raise ValueError(f"numr.random: no Philox kernel for device {device}")
        _KERNELS[device] = k
    return k


def _words(name: str, value: Any, count: int) -> tuple[int, ...]:
    """``value`` (an int below 2^(32 count), or ``count`` 32-bit ints, word 0 lowest)
    as ``count`` words."""
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        v = int(value)
        if not 0 <= v < 1 << (32 * count):
            raise ValueError(f"Philox: {name} must be in [0, 2**{32 * count}), got {v}")
        return tuple((v >> (32 * i)) & _MASK32 for i in range(count))
    try:
        words = [operator.index(w) for w in value]
    except TypeError:
        raise TypeError(f"Philox: {name} must be an int or {count} 32-bit ints, got "
                        f"{type(value).__name__}") from None
    if len(words) != count or not all(0 <= w <= _MASK32 for w in words):
        raise ValueError(f"Philox: {name} must be {count} ints in [0, 2**32), got {words}")
    return tuple(words)


class Philox:
    """Philox4x32-10, a counter-based bit generator whose words are the same on every
    device.

    ``Philox(seed=None, *, key=None, counter=None)``: ``seed`` (int, sequence of ints,
    ``numpy.random.SeedSequence`` or None) is mixed into the key by NumPy's SeedSequence
    (see the module docstring); or ``key`` gives it directly (an int below 2^64 or two
    32-bit words, word 0 first). ``counter`` (an int below 2^128 or four words, word 0
    lowest; default 0) is the first block the next draw uses.

    ``random_raw(size, *, device=None)`` returns uint32 words in Random123's order:
    words 0-3 are Philox(counter), 4-7 Philox(counter + 1), ... With ``key=(0, 0)`` and
    ``counter=0`` the first four are Random123's known answer 6627e8d5 e169c58d bc57ac4c
    9b00dbd8.
    """

    def __init__(self, seed: Any = None, *, key: Any = None, counter: Any = None):
        if key is not None:
            if seed is not None:
                raise ValueError("Philox: give seed or key, not both")
            self._key = _words("key", key, 2)
            # children of a generator made from a key: the key is their entropy
            self._seed_seq = np.random.SeedSequence(list(self._key))
        else:
            ss = seed if isinstance(seed, np.random.SeedSequence) else \
                np.random.SeedSequence(_entropy(seed))
            self._seed_seq = ss
            self._key = tuple(int(w) for w in ss.generate_state(2, np.uint32))
        c = _words("counter", 0 if counter is None else counter, 4)
        self._counter = c[0] | (c[1] << 32) | (c[2] << 64) | (c[3] << 96)

    # --- state -------------------------------------------------------------------------

    @property
    def key(self) -> tuple[int, ...]:
        """The key as two 32-bit words (word 0 first)."""
        return self._key

    @property
    def counter(self) -> tuple[int, ...]:
        """The counter of the next draw's first block, as four 32-bit words (word 0
        lowest)."""
        return _words("counter", self._counter, 4)

    @property
    def seed_seq(self) -> np.random.SeedSequence:
        return self._seed_seq

    @property
    def state(self) -> dict[str, Any]:
        return {"bit_generator": "Philox4x32-10", "key": self.key, "counter": self.counter}

    @state.setter
    def state(self, value: dict[str, Any]) -> None:
        if not isinstance(value, dict) or value.get("bit_generator") != "Philox4x32-10":
            raise ValueError("Philox.state: expected a dict from Philox.state")
        self._key = _words("key", value["key"], 2)
        c = _words("counter", value["counter"], 4)
        self._counter = c[0] | (c[1] << 32) | (c[2] << 64) | (c[3] << 96)

    def advance(self, blocks: int) -> "Philox":
        """Skip ``blocks`` blocks (4 words each) of the stream; returns self."""
        blocks = operator.index(blocks)
        if blocks < 0:
            raise ValueError(f"Philox.advance: blocks must be >= 0, got {blocks}")
        self._counter = (self._counter + blocks) & ((1 << 128) - 1)
        return self

    def spawn(self, n_children: int) -> list[Philox]:
        """``n_children`` independent Philox generators, keyed by
        ``self.seed_seq.spawn(n_children)`` (each a distinct key, counter 0)."""
        n = operator.index(n_children)
        if n < 0:
            raise ValueError(f"Philox.spawn: n_children must be >= 0, got {n}")
        return [Philox(s) for s in self._seed_seq.spawn(n)]

    def __repr__(self) -> str:
        k, c = self.key, self.counter
        return f"Philox(key=({k[0]:#010x}, {k[1]:#010x}), counter={self._counter:#x})"

    def __getstate__(self) -> dict[str, Any]:
        return {"key": self._key, "counter": self._counter, "seed_seq": self._seed_seq}

    def __setstate__(self, s: dict[str, Any]) -> None:
        self._key, self._counter, self._seed_seq = s["key"], s["counter"], s["seed_seq"]

    # --- drawing -----------------------------------------------------------------------

    def _take(self, nblocks: int) -> tuple:
        """The counter words of a draw of ``nblocks`` blocks; the state moves past them."""
        c = self._counter
        self._counter = (c + nblocks) & ((1 << 128) - 1)
        return (c & _MASK32, (c >> 32) & _MASK32, (c >> 64) & _MASK32, (c >> 96) & _MASK32)

    def _blocks(self, nblocks: int, fmt: str, device: Any) -> Array:
        """1-D Array of ``nblocks`` blocks from the counter: 4 uint32 words a block
        (``fmt`` "u32"), 4 float32 uniforms ("f32") or 2 float64 uniforms ("f64"); where
        the kernel module has ``NORMALS`` also "n32"/"n64", the normals
        Generator._std_normal makes of those uniforms."""
        native = _kernels(device).fill(device, self._key, self._take(nblocks), nblocks, fmt)
        dtype = {"u32": dt.uint32, "f32": dt.float32, "f64": dt.float64,
                 "n32": dt.float32, "n64": dt.float64}[fmt]
        if dtype not in device.dtypes:
            raise TypeError(f"numr.random: {device} has no {dtype}")
        return Array._new(native, dtype, device)

    def _draw(self, n: int, fmt: str, device: Any) -> Array:
        """1-D Array of ``n`` words or uniforms (the first ``n`` of whole blocks)."""
        per = 2 if fmt in ("f64", "n64") else 4
        out = self._blocks(-(-n // per), fmt, device)
        return out if out.shape[0] == n else out[:n]

    def random_raw(self, size: _Size = None, *, device: Device | str | None = None) -> Array:
        """uint32 words of shape ``size`` (None: one word, a 0-d array) on ``device``
        (default: the default device), in Random123's order (C order over ``size``)."""
        shape = _shape("random_raw", size)
        dev = default_device() if device is None else get_device(device, "random_raw")
        from .._manipulation import reshape

        return reshape(self._draw(math.prod(shape), "u32", dev), shape)


def _entropy(seed: Any) -> Any:
    if seed is None:
        return None
    if isinstance(seed, bool):
        raise TypeError("Philox: seed must be an int, a sequence of ints, a SeedSequence "
                        "or None, got bool")
    if isinstance(seed, (int, np.integer)):
        if seed < 0:
            raise ValueError(f"Philox: seed must be non-negative, got {seed}")
        return int(seed)
    try:
        words = [operator.index(w) for w in seed]
    except TypeError:
        raise TypeError(f"Philox: seed must be an int, a sequence of ints, a SeedSequence "
                        f"or None, got {type(seed).__name__}") from None
    if any(w < 0 for w in words):
        raise ValueError(f"Philox: seed must be non-negative, got {words}")
    return words


def _shape(func: str, size: Any) -> tuple:
    """``size`` (None, an int or a sequence of ints) as a shape; None is ()."""
    if size is None:
        return ()
    if isinstance(size, (int, np.integer)) and not isinstance(size, bool):
        size = (size,)
    try:
        shape = tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError(f"{func}: size must be None, an int or a tuple of ints, got "
                        f"{size!r}") from None
    if any(s < 0 for s in shape):
        raise ValueError(f"{func}: size must not be negative, got {shape}")
    return shape
