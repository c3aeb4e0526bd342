"""sort and argsort on WebGPU (and numr's CUDA backend) against CuPy in the same run
(issue 20: at most 2x CuPy): time / CuPy's time for each row.

Timed as a user calls numr: ``--inner`` calls back to back from Python, synchronised
once at the end (a read back of one element on WebGPU, a device synchronise on CUDA),
median over ``--reps``; CuPy is timed the same way. Each result is checked against
NumPy's stable sort before it is timed. Without CuPy (lavapipe, the CPU), NumPy on the
host is the anchor, which shows gains between commits of numr, not its standing
against CuPy.

    python benchmarks/webgpu_sort.py                         # lavapipe-sized
    python benchmarks/webgpu_sort.py --size 16777216         # H200 (issue 20)
    python benchmarks/webgpu_sort.py --dtype int32 --rows sort,argsort

Rows: sort and argsort of a --size vector (standard normal values, or integers for
integer dtypes), and sort along axis 1 of a --side x (--size / --side) matrix.
"""

from __future__ import annotations

import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import numr as xp  # noqa: E402
from benchmarks.webgpu import _cupy, timed  # noqa: E402
from benchmarks.webgpu import sync_numr  # noqa: E402
from benchmarks import _results  # noqa: E402

# name -> (array: "vec" or "mat", function name, axis)
ROWS = {"sort": ("vec", "sort", -1), "argsort": ("vec", "argsort", -1),
        "sort axis=1": ("mat", "sort", 1)}


def _host(kind: str, a, rng) -> np.ndarray:
    shape = (a.size,) if kind == "vec" else (a.side, a.size // a.side)
    if np.dtype(a.dtype).kind == "f":
        return rng.standard_normal(shape).astype(a.dtype)
    info = np.iinfo(a.dtype)
    return rng.integers(info.min, info.max, size=shape, dtype=np.int64).astype(a.dtype)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--size", type=int, default=1 << 18, help="elements")
    p.add_argument("--side", type=int, default=64, help="matrix rows")
    p.add_argument("--dtype", default="float32")
    p.add_argument("--reps", type=int, default=5)
    p.add_argument("--inner", type=int, default=5)
    p.add_argument("--device", default=None, help="the WebGPU device (default webgpu:0)")
    p.add_argument("--rows", default=",".join(ROWS), help="comma-separated row names")
    _results.add_flag(p)
    a = p.parse_args()
    results_page = _results.start(a, "webgpu_sort", a.device or "webgpu")
    devs = [str(dv) for dv in xp.__array_namespace_info__().devices()]
    wg = a.device or next((dv for dv in devs if dv.startswith("webgpu")), None)
    cp = _cupy()
    numr_devs = [dv for dv in (wg, "cuda:0" if cp and "cuda:0" in devs else None) if dv]
    rng = np.random.default_rng(0)
    host = {k: _host(k, a, rng) for k in ("vec", "mat")}
    anchor = "CuPy" if cp else "NumPy (host)"
    print(f"# {a.dtype}, {a.size} elements (matrix {host['mat'].shape}); devices "
          f"{', '.join(numr_devs)}; anchor {anchor}; {a.inner} calls back to back, "
          f"median of {a.reps}")
    arrays = {dv: {k: xp.asarray(v, device=dv) for k, v in host.items()} for dv in numr_devs}
    dev_arr = {k: cp.asarray(v) for k, v in host.items()} if cp else None
    print(f"| row | {anchor} | " + " | ".join(f"{dv} / {anchor}" for dv in numr_devs) + " |")
    print("|---|---:|" + "---:|" * len(numr_devs))
    for name in a.rows.split(","):
        kind, fn, axis = ROWS[name.strip()]
        h = host[kind]
        if cp:
            f_cp = getattr(cp, fn)
            ta = timed(lambda: f_cp(dev_arr[kind], axis=axis),
                       lambda y: cp.cuda.Device().synchronize(), a.reps, a.inner)
        else:
            f_np = getattr(np, fn)
            ta = timed(lambda: f_np(h, axis=axis, kind="stable"), lambda y: None,
                       a.reps, 1)
        want = getattr(np, fn)(h, axis=axis, kind="stable")
        cells = []
        for dv in numr_devs:
            x = arrays[dv][kind]
            f = getattr(xp, fn)
            got = np.asarray(f(x, axis=axis).to_device("cpu"))
            if not np.array_equal(got, want):
                raise AssertionError(f"{name} on {dv}: wrong result")
            t = timed(lambda: f(x, axis=axis), sync_numr, a.reps, a.inner)
            cells.append(f"{t / ta:.2f} ({t * 1e3:.2f} ms)")
        print(f"| {name} | {ta * 1e3:.2f} ms | {' | '.join(cells)} |")
    results_page.finish()


if __name__ == "__main__":
    main()
