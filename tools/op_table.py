"""Write docs/support.md: what runs where, for every public function and every device kind.

    python tools/op_table.py            # rewrite docs/support.md
    python tools/op_table.py --check    # exit 1 if docs/support.md is stale

The table is read from the code, not written by hand: the registry (numr/backends/), each
backend's ops (``device.ops``), the ops that ``numr/backends/_derived.py`` composes for a
backend that lacks them, and the kernel modules of numr.special and numr.nn. A cell says
how the function runs on that kind of device:

* the backend's own kernel: ``NumPy`` (cpu), ``CuPy`` (cuda), ``WGSL`` (webgpu), or
  numr's own CUDA C / numba kernel where the cell names it;
* ``derived``: composed in numr/backends/_derived.py from the backend's primitives;
* ``composed``: composed in the namespace from other numr functions (same on every device);
* ``host``: computed on the host and copied to the device; a kernel cell with a footnote
  mark computes some inputs on the host (the footnote says which);
* ``—``: not available on that device.

The cuda column is read from the CPU's ops: both are built by the same NumPy-like adapter
(numr/backends/ndarray/), with CuPy's functions in place of NumPy's; with CuPy present,
tests/test_docs.py checks that the two op sets are the same. Building the webgpu column
needs a WebGPU adapter (lavapipe will do).
"""

from __future__ import annotations

import argparse
import ast
import inspect
import pathlib
import sys
import textwrap
from typing import Any, Callable

ROOT = pathlib.Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
PAGE = ROOT / "docs" / "support.md"

KERNEL = {"cpu": "NumPy", "cuda": "CuPy", "webgpu": "WGSL"}
KINDS = ("cpu", "cuda", "webgpu")
NONE = "—"

# Namespace functions that do no work on a device of their own: dtype and shape logic,
# and the device API. They are listed under the table, not in it.
NO_DEVICE_WORK = {
    "__array_namespace_info__", "set_default_device", "default_device", "synchronize",
    "memory_info", "empty_cache", "can_cast", "isdtype", "result_type", "broadcast_shapes",
}
# Ops a device may lack while the namespace function still serves it through the host.
HOST_WHEN_ABSENT = {
    "from_dlpack": "host (imported on the CPU, where the producers numr reads are, then "
                   "copied to the device)",
}
# Namespace functions whose op has another name.
OP_OF = {"asarray": "from_host", "save": "to_host", "load": "from_host"}


def _host_paths() -> dict[str, dict[str, str]]:
    """kind -> {op: when it runs on the host}: the host paths the backends have, read from
    where they are written (a failing lookup here means the code moved: update this)."""
    from numr.backends.ndarray import elementwise, linalg

    edges = {name: "CuPy ¹" for name in elementwise._COMPLEX_EDGES}
    src = inspect.getsource(linalg)
    if "computes on the host" not in src:
        raise RuntimeError("tools/op_table.py: numr/backends/ndarray/linalg.py no longer "
                           "says where eig computes on the host: update _host_paths")
    eig = "CuPy ²"
    return {"cpu": {}, "cuda": {**edges, "linalg_eig": eig, "linalg_eigvals": eig},
            "webgpu": {}}


def _public(mod, prefix: str) -> list[tuple[str, str, Callable]]:
    """(shown name, op name, function) of a module's public functions."""
    import numr

    out = []
    for name in mod.__all__:
        f = getattr(mod, name)
        if not callable(f) or isinstance(f, type) or type(f).__name__ == "DType":
            continue
        if mod is not numr and getattr(numr, name, None) is f:
            op = name  # linalg.matmul is numr.matmul
        else:
            op = OP_OF.get(name, prefix + name)
        shown = name if mod is numr else f"{mod.__name__.split('.')[-1]}.{name}"
        out.append((shown, op, f))
    return out


def _derived_from() -> dict[str, list[str]]:
    """derived op -> the primitives its composition calls (``ops.<name>`` in its source)."""
    from numr.backends import _derived

    out = {}
    for op, make in _derived.DERIVED.items():
        tree = ast.parse(textwrap.dedent(inspect.getsource(make)))
        used = {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                and isinstance(n.value, ast.Name) and n.value.id == "ops"}
        out[op] = sorted(used)
    return out


def _own_ops(kind: str) -> tuple[set, set]:
    """(the backend's own ops, every op of its devices) for a kind, from a device of it;
    cuda from the CPU's (the same adapter)."""
    import numr
    from numr.backends import _derived

    dev = numr.Device("cpu" if kind == "cuda" else f"{kind}:0" if kind != "cpu" else "cpu")
    every = set(vars(dev.ops))
    own = {name for name, f in vars(dev.ops).items()
           if inspect.unwrap(f).__module__ != _derived.__name__}
    return own, every


def _cell(kind: str, op: str, f: Callable, ops: dict, derived: dict, host: dict) -> str:
    own, every = ops[kind]
    if op in host[kind]:
        return host[kind][op]
    if op in own:
        return KERNEL[kind]
    if op in every and op in derived:
        return "derived (" + ", ".join(derived[op]) + ")"
    if op in every:
        return NONE + " (the op is not the backend's: see numr/backends/_derived.py)"
    if op in HOST_WHEN_ABSENT:
        return HOST_WHEN_ABSENT[op]
    if not any(op in ops[k][1] for k in KINDS):
        where = pathlib.Path(inspect.getsourcefile(inspect.unwrap(f))).relative_to(ROOT)
        return f"composed (`{where.as_posix()}`)"
    return NONE


def core_rows() -> list[list[str]]:
    import numr
    import numr.fft
    import numr.linalg

    ops = {k: _own_ops(k) for k in KINDS}
    derived, host = _derived_from(), _host_paths()
    rows = []
    for mod, prefix in ((numr, ""), (numr.linalg, "linalg_"), (numr.fft, "fft_")):
        for shown, op, f in _public(mod, prefix):
            if mod is numr and shown in NO_DEVICE_WORK:
                continue
            rows.append([f"`{shown}`"] + [_cell(k, op, f, ops, derived, host) for k in KINDS])
    return rows


def special_rows() -> list[list[str]]:
    from numr.special import _api, _cuda, _webgpu

    try:  # the functions whose CUDA C numr generates from their WGSL
        from numr.special._cuda_src import ENTRIES as generated
    except ImportError:
        generated = {}
    rows = []
    for name in _api.FUNCTIONS:
        own = _cuda._OWN.get(name, "cupyx")
        cuda = ("CUDA C (numr's, generated from its WGSL)" if name in generated
                else "CuPy (cupyx.scipy.special)" if own == "cupyx"
                else "CUDA C (numr's kernel)" if own else "composed (cupyx functions)")
        rows.append([f"`special.{name}`", "SciPy (`[special]` extra)", cuda,
                     "WGSL" if name in _webgpu.EXPR else NONE])
    return rows


def nn_rows() -> list[list[str]]:
    import numr.nn

    kernel = {"cpu": "numba", "cuda": "CUDA C", "webgpu": "WGSL"}
    cells = []
    for kind in KINDS:
        has = (ROOT / "numr" / "nn" / f"_{kind}.py").exists()
        cells.append(f"{kernel[kind]} (composite without numba)" if has and kind == "cpu"
                     else kernel[kind] if has else "composed (namespace functions)")
    return [[f"`nn.{name}`"] + cells for name in numr.nn.__all__]


def _table(rows: list[list[str]]) -> list[str]:
    head = ["function", *KINDS]
    return ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)] + [
        "| " + " | ".join(r) + " |" for r in rows]


def _counts(rows: list[list[str]]) -> list[str]:
    def word(cell: str) -> str:
        return next((w for w in ("derived", "composed", "host") if w in cell),
                    "not available" if cell.startswith(NONE) else "kernel")

    words = ("kernel", "derived", "composed", "host", "not available")
    lines = ["| device | " + " | ".join(words) + " |", "|" + "---|" * (len(words) + 1)]
    for i, kind in enumerate(KINDS, 1):
        n = {w: 0 for w in words}
        for r in rows:
            n[word(r[i])] += 1
        lines.append(f"| {kind} | " + " | ".join(str(n[w]) for w in words) + " |")
    return lines


def render() -> str:
    import numr

    core = core_rows()
    none = sorted(n for n in numr.__all__ if n in NO_DEVICE_WORK)
    lines = [
        "# What runs where",
        "",
        "<!-- Written by tools/op_table.py from the backends' op tables; do not edit by hand "
        "(tests/test_docs.py fails when it is stale). -->",
        "",
        "How each public function computes on each kind of device, read from the code: "
        "`NumPy`, `CuPy`, `WGSL` name the backend's own kernel; *derived* ops are composed "
        "once, for every backend, in `numr/backends/_derived.py` from the primitives named; "
        "*composed* functions are written in the namespace from other numr functions; "
        "*host* cells compute on the host and copy the result to the device; "
        f"{NONE} is not available. The same call gives the same dtype, shape and errors "
        "on every device whichever way it computes (see [Semantics](semantics.md)).",
        "",
        "Counts (the namespace, `linalg` and `fft`):",
        "",
        *_counts(core),
        "",
        "Without device work of their own (dtype and shape logic, the device API): "
        + ", ".join(f"`{n}`" for n in none) + ".",
        "",
        "## The namespace, linalg and fft",
        "",
        *_table(core),
        "",
        "¹ With complex input, the elements with an infinite or NaN part or a zero part are "
        "recomputed on the host with NumPy (CuPy departs from the standard's special cases "
        "there); the others keep CuPy's value.",
        "",
        "² CuPy's `linalg.eig` and `linalg.eigvals` where the installed CuPy has them; "
        "with a CuPy that has not, the matrix is "
        "copied to the host and NumPy computes them.",
        "",
        "## numr.special",
        "",
        "On the CPU SciPy's ufuncs (the `[special]` extra); see [numr.special](special.md) "
        "for the accuracy on each device.",
        "",
        *_table(special_rows()),
        "",
        "## numr.nn",
        "",
        "Fused kernels per device kind (`numr/nn/_<kind>.py`); a kind without one runs "
        "the composite path built from namespace functions. See [numr.nn](nn.md).",
        "",
        *_table(nn_rows()),
        "",
        "## numr.random",
        "",
        "The Philox words (and the normals' Box-Muller steps) come from one kernel per "
        "device (numba on the CPU, CuPy's RawKernel on CUDA, WGSL on WebGPU); every "
        "distribution is composed from them with numr's operations, so each runs wherever "
        "the namespace does.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--check", action="store_true", help="exit 1 if docs/support.md is stale")
    args = p.parse_args(argv)
    text = render()
    if args.check:
        stale = not PAGE.exists() or PAGE.read_text() != text
        print("docs/support.md is stale: run python tools/op_table.py" if stale
              else "docs/support.md is current")
        return int(stale)
    PAGE.write_text(text)
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
