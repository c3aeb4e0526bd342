"""Every environment variable numr reads, read here: typed, checked, and read lazily (at
the first :func:`settings` call, so that worker processes see the environment they were
started with, and importing numr reads nothing).

Code asks ``settings().<field>``; the result is one frozen :class:`Settings` object,
hashed by identity, so a cache may key on it and an :func:`override` (which makes a new
object) never meets a plan made under other values. A hot path that reads a field on
every call reads ``current.<field>`` instead (no call; see :data:`current`). Tests
switch values in-process with::

    with numr._config.override(NUMR_NN_WEBGPU_BWD_GROUPS=3):
        ...

(typed values, checked as the environment's strings are; process-wide, for tests: not
for threads that want different values at once). The table of every variable is in
docs/configuration.md; tests/test_config.py keeps it in step with ``VARIABLES``.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from dataclasses import dataclass
from typing import Any, Callable, Iterator


@dataclass(frozen=True, eq=False)  # eq=False: hashed by identity (a cheap cache key)
class Settings:
    device: str                       # NUMR_DEVICE
    implicit_host_copy: bool          # NUMR_IMPLICIT_HOST_COPY
    webgpu_submit_every: int          # NUMR_WEBGPU_SUBMIT_EVERY
    webgpu_first_batch: int           # NUMR_WEBGPU_FIRST_BATCH
    webgpu_first_bytes: int           # NUMR_WEBGPU_FIRST_BYTES
    webgpu_piece_bytes: int           # NUMR_WEBGPU_PIECE_BYTES
    webgpu_subgroups: bool            # NUMR_WEBGPU_SUBGROUPS
    webgpu_reduce_vec4: bool          # NUMR_WEBGPU_REDUCE_VEC4
    webgpu_map_vec: int               # NUMR_WEBGPU_MAP_VEC
    webgpu_fuse: int                  # NUMR_WEBGPU_FUSE
    webgpu_matmul_tile: str           # NUMR_WEBGPU_MATMUL_TILE
    nn_cpu_pool: bool                 # NUMR_NN_CPU_POOL
    nn_cuda_tune: str                 # NUMR_NN_CUDA_TUNE
    nn_webgpu_bwd_groups: int         # NUMR_NN_WEBGPU_BWD_GROUPS
    nn_webgpu_fwd_k: int              # NUMR_NN_WEBGPU_FWD_K
    nn_webgpu_bwd_k: int              # NUMR_NN_WEBGPU_BWD_K
    nn_webgpu_onepass: frozenset      # NUMR_NN_WEBGPU_ONEPASS
    nn_webgpu_exact: bool             # NUMR_NN_WEBGPU_EXACT
    test_reverse_invocations: bool    # NUMR_TEST_REVERSE_INVOCATIONS


# --- parsing: the environment's strings, and override's typed values -----------------

def _bool(name: str, v: Any) -> bool:
    if isinstance(v, bool):
        return v
    if isinstance(v, str) and v.strip() in ("0", "1"):
        return v.strip() == "1"
    raise ValueError(f"{name}={v!r}: expected 0 or 1")


def _int(least: int) -> Callable[[str, Any], int]:
    def parse(name: str, raw: Any) -> int:
        v = raw
        if isinstance(v, str):
            try:
                v = int(v.strip())
            except ValueError:
                raise ValueError(f"{name}={raw!r}: expected an integer") from None
        if type(v) is not int or v < least:
            raise ValueError(f"{name}={raw!r}: expected an integer >= {least}")
        return v
    return parse


def _str(name: str, v: Any) -> str:
    if not isinstance(v, str):
        raise ValueError(f"{name}={v!r}: expected a string")
    return v.strip()


def _directions(name: str, v: Any) -> frozenset:
    parts = {p.strip() for p in v.split(",")} - {""} if isinstance(v, str) else set(v)
    if not parts <= {"fwd", "bwd"}:
        raise ValueError(f"{name}={v!r}: expected a comma-separated subset of fwd,bwd "
                         f"(or empty)")
    return frozenset(parts)


@dataclass(frozen=True)
class Variable:
    name: str
    field: str
    parse: Callable[[str, Any], Any]
    default: Any          # as typed (what an absent or empty variable means)
    type: str             # for the docs table
    doc: str              # what it does (one line)


# The defaults are those the code measured best (see the modules that use each).
VARIABLES = (
    Variable("NUMR_DEVICE", "device", _str, "cpu", "device string",
             "the process's default device (`cpu`, `cuda:N`, `webgpu:N`)"),
    Variable("NUMR_IMPLICIT_HOST_COPY", "implicit_host_copy", _bool, False, "0/1",
             "`np.asarray(x)` of a GPU array copies it to the host instead of raising "
             "TypeError (for Cubed's Zarr writes)"),
    Variable("NUMR_WEBGPU_SUBMIT_EVERY", "webgpu_submit_every", _int(1), 128, "int >= 1",
             "WebGPU dispatches recorded before a submit (read when a device starts)"),
    Variable("NUMR_WEBGPU_FIRST_BATCH", "webgpu_first_batch", _int(1), 64, "int >= 1",
             "the first batch after a sync point (then doubling up to the above)"),
    Variable("NUMR_WEBGPU_FIRST_BYTES", "webgpu_first_bytes", _int(1), 64 * 2**20,
             "int >= 1", "... or sooner, once that batch's dispatches bind (read and write) "
             "this many bytes"),
    Variable("NUMR_WEBGPU_PIECE_BYTES", "webgpu_piece_bytes", _int(0), 0,
             "int >= 0", "tests: at most this many bytes (rounded down to a power of two) "
             "per buffer of a large WebGPU array, so ordinary tests cross pieces (0: the "
             "adapter's limit)"),
    Variable("NUMR_WEBGPU_SUBGROUPS", "webgpu_subgroups", _bool, True, "0/1",
             "0: WebGPU reductions and arg-reductions combine a workgroup's results, "
             "the radix sort ranks its digits, and numr.nn's norms reduce their rows, "
             "through workgroup memory even where the adapter has subgroups (read when "
             "a reduction or norm is planned, at each sort)"),
    Variable("NUMR_WEBGPU_REDUCE_VEC4", "webgpu_reduce_vec4", _bool, True, "0/1",
             "0: WebGPU reductions of contiguous 32-bit rows read scalars instead of vec4 "
             "words (read when a reduction is planned)"),
    Variable("NUMR_WEBGPU_MAP_VEC", "webgpu_map_vec", _int(1), 2, "int >= 1",
             "vec4 words per invocation in the contiguous elementwise kernel"),
    Variable("NUMR_WEBGPU_FUSE", "webgpu_fuse", _int(0), 1, "0, 1, 2",
             "WebGPU fused elementwise chains: 0 off (every op its own kernel; for "
             "debugging and comparing), 1 on (on CPU adapters such as lavapipe only for "
             "ops of short WGSL, which LLVM compiles fast), 2 every op on every adapter"),
    Variable("NUMR_WEBGPU_MATMUL_TILE", "webgpu_matmul_tile", _str, "128x128x16-w4x8",
             "tile spec", "float32/float16/bfloat16 matmul tile `BMxBNxBK[-wRxC][-gYxX]"
             "[-checked]`, or `old` (the generic kernel)"),
    Variable("NUMR_NN_CPU_POOL", "nn_cpu_pool", _bool, True, "0/1",
             "numr.nn on the CPU recycles its large result arrays (0: plain np.empty)"),
    Variable("NUMR_NN_CUDA_TUNE", "nn_cuda_tune", _str, "", "key=value list",
             "numr.nn CUDA planning constants, for every table or a scope such as "
             "`float16/layer:bwd_cols=8,bwd_pf_bytes=16` (numr/nn/_cuda_tiled.py)"),
    Variable("NUMR_NN_WEBGPU_BWD_GROUPS", "nn_webgpu_bwd_groups", _int(0), 0, "int >= 0",
             "numr.nn WGSL: the backward's workgroup count (0: planned)"),
    Variable("NUMR_NN_WEBGPU_FWD_K", "nn_webgpu_fwd_k", _int(1), 8, "int >= 1",
             "numr.nn WGSL: most units per invocation held in registers, forward"),
    Variable("NUMR_NN_WEBGPU_BWD_K", "nn_webgpu_bwd_k", _int(1), 4, "int >= 1",
             "numr.nn WGSL: the same, backward"),
    Variable("NUMR_NN_WEBGPU_ONEPASS", "nn_webgpu_onepass", _directions, frozenset({"bwd"}),
             "subset of fwd,bwd", "numr.nn WGSL: directions in which layer norm takes mean "
             "and variance from one sum of shifted data"),
    Variable("NUMR_NN_WEBGPU_EXACT", "nn_webgpu_exact", _bool, True, "0/1",
             "numr.nn WGSL: forward rows of exactly wg * K units skip the bounds tests"),
    Variable("NUMR_TEST_REVERSE_INVOCATIONS", "test_reverse_invocations", _bool, False,
             "0/1", "tests only: every WebGPU kernel runs a workgroup's invocations in "
             "reverse order, so a missing barrier shows on lavapipe (read when a kernel "
             "is compiled; slower)"),
)
_BY_NAME = {v.name: v for v in VARIABLES}

class _Unread:
    """:data:`current` before the first read: reading any field of it reads the
    environment (as :func:`settings` does) and gives that field."""

    __slots__ = ()

    def __getattr__(self, field: str) -> Any:
        return getattr(_load(), field)


# The settings in force, for hot paths that read them on every call without a call:
# ``_config.current.webgpu_fuse`` (read through the module: override rebinds it), or
# ``_config.current`` itself as a cache key (hashed by identity, see Settings). Before
# the first read it is an _Unread stand-in, so that importing numr still reads nothing
# (a plan cached under it is made once more under the settings read).
current: "Settings | _Unread" = _Unread()


def _read(environ: Any) -> Settings:
    values = {}
    for var in VARIABLES:
        raw = environ.get(var.name, "")
        values[var.field] = var.default if raw.strip() == "" else var.parse(var.name, raw)
    return Settings(**values)


def settings() -> Settings:
    """The settings in force: the environment's, read at the first call, or an
    :func:`override`'s inside its block."""
    s = current
    return s if type(s) is Settings else _load()


def _load() -> Settings:
    global current
    s = current = _read(os.environ)
    return s


@contextlib.contextmanager
def override(**values: Any) -> Iterator[Settings]:
    """``with override(NUMR_WEBGPU_MAP_VEC=4, ...):`` the settings with those variables
    set (typed values, or strings as in the environment), restored on exit. An unknown
    name or a bad value is a ValueError naming it."""
    global current
    prev = settings()
    changes = {}
    for name, v in values.items():
        var = _BY_NAME.get(name)
        if var is None:
            raise ValueError(f"numr._config.override: unknown variable {name!r}; known: "
                             f"{', '.join(_BY_NAME)}")
        changes[var.field] = var.parse(name, v)
    current = new = dataclasses.replace(prev, **changes)
    try:
        yield new
    finally:
        current = prev


# --- switches as functions (for their callers in the backends) ---------------------

def implicit_host_copy() -> bool:
    """NUMR_IMPLICIT_HOST_COPY=1: ``np.asarray(x)`` of a GPU array copies it to the host
    (Cubed writes chunks that way) instead of raising TypeError."""
    return settings().implicit_host_copy


def webgpu_piece_bytes() -> int:
    """NUMR_WEBGPU_PIECE_BYTES (tests only): the most bytes one piece of a WebGPU array's
    storage holds (0: the adapter's limits decide), so ordinary tests cross pieces."""
    return settings().webgpu_piece_bytes


def webgpu_subgroups() -> bool:
    """NUMR_WEBGPU_SUBGROUPS=0: WebGPU reductions combine a workgroup's results through
    workgroup memory even where the adapter has subgroups (the tests run both paths)."""
    return settings().webgpu_subgroups


def webgpu_reduce_vec4() -> bool:
    """NUMR_WEBGPU_REDUCE_VEC4=0: WebGPU reductions of contiguous 32-bit rows read scalar
    elements instead of vec4 words (for comparing the two on a GPU; the tests run both)."""
    return settings().webgpu_reduce_vec4
